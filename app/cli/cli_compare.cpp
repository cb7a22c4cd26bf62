/// \file cli_compare.cpp
/// render --diff (a difference map A − B), --rollout (attention rollout), compute --rollout.

#include <qcustomplot.h>

#include <QFileInfo>
#include <fstream>

#include "attnlab/error.hpp"
#include "attnlab/io.hpp"
#include "attnlab/rollout.hpp"
#include "cli/cli_json.hpp"
#include "cli/commands.hpp"
#include "views/run_maps.hpp"
#include "options/variants.hpp"

namespace attnlab::cli {
namespace {

using views::DifferenceMaps;
using views::RunMaps;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

void prepare(QCustomPlot& plot, const views::ImageSize& size) {
  plot.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(plot, QSize(size.width, size.height));
}

/// A rollout's CSV: query,query_token,key,key_token,rollout (the model's own labels), then
/// query_label,key_label (the display labels).
void writeRolloutCsv(const std::string& path, const RunMaps& m) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
  const auto quoted = [](QString t) {
    return utf8(QLatin1Char('"') + t.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
                QLatin1Char('"'));
  };
  const AttentionResult& r = *m.layers.front();
  f << "query,query_token,key,key_token,rollout,query_label,key_label\n";
  f.precision(9);
  for (int i = 0; i < r.nQ(); ++i)
    for (int j = 0; j < r.nK(); ++j)
      f << i << ',' << quoted(m.query_raw.value(i)) << ',' << j << ',' << quoted(m.key_raw.value(j))
        << ',' << r.weights(0, i, j) << ',' << quoted(m.query_tokens.value(i)) << ','
        << quoted(m.key_tokens.value(j)) << '\n';
  f.close();
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
}

}  // namespace

int renderCompared(const options::Options& o, std::ostream& out, std::ostream& err) {
  run::Session session;
  const QString format = QFileInfo(o.output.out).suffix().toLower();
  const std::string path = utf8(o.output.out);
  const RunMaps a = views::mapsOf(runNoted(session, o.lab, err), o.head);
  if (o.diff.isEmpty()) {  // --rollout alone
    if (format == QLatin1String("csv")) {
      writeRolloutCsv(path, a);
    } else if (format == QLatin1String("npy")) {
      const AttentionResult& r = *a.layers.front();
      writeNpy(path, {r.nQ(), r.nK()}, r.weights.data);
    } else {
      QCustomPlot plot;
      const views::ImageSize size = outputSize(o, views::defaultSize(a));
      prepare(plot, size);
      views::drawMaps(plot, a, o.picture);
      views::exportPlot(plot, o.output.out, size);
    }
    out << path << "\n";
    return 0;
  }
  const options::Options second = options::secondSetting(o);
  const RunMaps b = views::mapsOf(runNoted(session, second.lab, err), second.head);
  const DifferenceMaps d = views::difference(a, b);
  if (format == QLatin1String("csv")) {
    views::writeDifferenceCsv(path, d);
  } else if (format == QLatin1String("npy")) {
    views::writeDifferenceNpy(path, d);
  } else {
    QCustomPlot plot;
    const views::ImageSize size = outputSize(o, views::defaultSize(d));
    prepare(plot, size);
    views::drawDifference(plot, d, o.picture.pool);
    views::exportPlot(plot, o.output.out, size);
  }
  out << path << "\n";
  return 0;
}

int computeRollout(const options::Options& o, std::ostream& out, std::ostream& err) {
  run::Session session;
  const RunMaps m = views::mapsOf(runNoted(session, o.lab, err), o.head);
  nlohmann::json rollout;
  rollout["first_layer"] = m.rollout_first;
  rollout["last_layer"] = m.rollout_last;
  rollout["residual"] = 0.5;
  rollout["heads"] = "mean";
  rollout["source"] = "Abnar & Zuidema 2020, attention rollout";
  rollout["special_hidden"] = m.special_hidden;
  rollout["tokens"] = nlohmann::json::array();
  for (const QString& t : m.query_raw) rollout["tokens"].push_back(utf8(t));
  rollout["labels"] = nlohmann::json::array();  // the display labels (attnlab/token_display.hpp)
  for (const QString& t : m.query_tokens) rollout["labels"].push_back(utf8(t));
  const AttentionResult& r = *m.layers.front();
  nlohmann::json matrix = nlohmann::json::array();
  for (int i = 0; i < r.nQ(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < r.nK(); ++j) row.push_back(r.weights(0, i, j));
    matrix.push_back(row);
  }
  rollout["matrix"] = matrix;
  nlohmann::json j;
  j["model"] = utf8(m.label.model);
  j["rollout"] = rollout;
  out << j.dump() << "\n";
  return 0;
}

}  // namespace attnlab::cli
