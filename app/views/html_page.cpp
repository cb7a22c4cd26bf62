/// \file html_page.cpp
/// The interactive page (html_page.hpp): binary16 encoding, the size check, the template filled.

#include "views/html_page.hpp"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "attnlab/error.hpp"
#include "attnlab/token_display.hpp"
#include "options/message.hpp"
#include "views/intervention_plots.hpp"
#include "views/picture.hpp"
#include "views/run_maps.hpp"

namespace attnlab::views {
namespace {

/// Bytes of n binary16 values once base64-encoded.
long long base64Bytes(long long values) { return (2 * values + 2) / 3 * 4; }

/// Bytes the data of one layer of view v takes in the page.
long long layerBytes(const HtmlView& v, const HtmlLayer& l) {
  if (l.result) {
    const long long cells = static_cast<long long>(l.result->weights.data.size());
    const bool scores = v.scores && l.result->scores.data.size() == l.result->weights.data.size();
    return base64Bytes(cells) * (scores ? 2 : 1);
  }
  return l.pooled ? 2 * base64Bytes(static_cast<long long>(l.pooled->max.data.size())) : 0;
}

/// Bytes of a view's data other than its layers (labels, figure, words), roughly.
long long otherBytes(const HtmlView& v) {
  long long n = 4096 + (v.png.size() + 2) / 3 * 4 + v.caption.size() * 3 + v.try_this.size() * 3;
  for (const QString& s : v.query_labels + v.key_labels) n += 8 + s.size() * 3;
  return n + 8LL * v.query_labels.size();
}

/// The template (resources/html/view.html), read once.
const QByteArray& pageTemplate() {
  static const QByteArray bytes = [] {
    QFile file(QStringLiteral(":/html/view.html"));
    if (!file.open(QIODevice::ReadOnly))
      throw Error(ErrorCode::kInternal, "the page template :/html/view.html is missing");
    return file.readAll();
  }();
  return bytes;
}

long long estimate(const HtmlPage& page) {
  long long n = pageTemplate().size();
  for (const HtmlView& v : page.views) {
    n += otherBytes(v);
    for (const HtmlLayer& l : v.layers) n += layerBytes(v, l);
  }
  return n;
}

/// values as little-endian binary16, base64; a cell `visible` hides as kMaskedHalf, a NaN
/// payload that toHalf never gives (a weight that is NaN or ±inf stays one: drawn apart).
QString halves(const float* values, std::size_t count, const std::vector<char>* visible = nullptr) {
  QByteArray bytes(static_cast<qsizetype>(2 * count), Qt::Uninitialized);
  for (std::size_t i = 0; i < count; ++i) {
    const quint16 h = visible && !(*visible)[i] ? kMaskedHalf : toHalf(values[i]);
    bytes[static_cast<qsizetype>(2 * i)] = static_cast<char>(h & 0xff);
    bytes[static_cast<qsizetype>(2 * i + 1)] = static_cast<char>(h >> 8);
  }
  return QString::fromLatin1(bytes.toBase64());
}

QJsonArray labels(const QStringList& list) {
  QJsonArray a;
  for (const QString& s : list) a.append(s);
  return a;
}

QJsonObject viewJson(const HtmlView& v) {
  QJsonObject o;
  o["title"] = v.title;
  if (!v.subtitle.isEmpty()) o["subtitle"] = v.subtitle;
  if (!v.caption.isEmpty()) o["caption"] = v.caption;
  if (!v.try_this.isEmpty()) o["try"] = v.try_this;
  if (!v.notes.isEmpty()) o["notes"] = labels(v.notes);
  if (!v.tables.empty()) {
    QJsonArray tables;
    for (const HtmlTable& t : v.tables) {
      QJsonObject table;
      table["title"] = t.title;
      table["note"] = t.note;
      table["columns"] = labels(t.columns);
      table["rows"] = labels(t.rows);
      QJsonArray cells, values;
      for (std::size_t r = 0; r < t.cells.size(); ++r) {
        cells.append(labels(t.cells[r]));
        QJsonArray row;
        for (double x : t.values[r]) row.append(std::isfinite(x) ? QJsonValue(x) : QJsonValue());
        values.append(row);
      }
      table["cells"] = cells;
      table["values"] = values;
      table["diverging"] = t.diverging;
      table["lo"] = t.lo;
      table["hi"] = t.hi;
      tables.append(table);
    }
    o["tables"] = tables;
  }
  if (!v.png.isEmpty()) {
    o["png"] = QString::fromLatin1(v.png.toBase64());
    o["png_w"] = v.png_width;
    o["png_h"] = v.png_height;
  }
  if (v.layers.empty()) return o;
  const char* scales[] = {"auto", "linear", "log", "relative", "auto"};
  o["scale"] = scales[static_cast<int>(v.scale)];
  o["pool"] = v.pool == Pool::kMean ? "mean" : "max";
  o["q"] = labels(v.query_labels);
  o["k"] = labels(v.key_labels);
  o["first_layer"] = v.first_layer;
  QJsonArray layers;
  const HtmlLayer& first = v.layers.front();
  int heads = 0, n_q = 0, n_k = 0, block = 1;
  for (const HtmlLayer& l : v.layers) {
    QJsonObject j;
    j["index"] = l.index;
    if (l.result) {
      const AttentionResult& r = *l.result;
      heads = r.heads();
      n_q = r.nQ();
      n_k = r.nK();
      const MaskPattern pattern = r.pattern();
      std::vector<char> visible(r.weights.data.size());
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < n_q; ++i)
          for (int k = 0; k < n_k; ++k)
            visible[(static_cast<std::size_t>(h) * n_q + i) * n_k + k] =
                pattern.visible(i, k) ? 1 : 0;
      j["w"] = halves(r.weights.data.data(), r.weights.data.size(), &visible);
      if (v.scores && r.scores.data.size() == r.weights.data.size())
        j["s"] = halves(r.scores.data.data(), r.scores.data.size(), &visible);
    } else {
      const PooledAttention& p = *l.pooled;
      heads = p.heads();
      n_q = p.n_q;
      n_k = p.n_k;
      block = p.block;
      j["w"] = halves(p.max.data.data(), p.max.data.size());
      j["m"] = halves(p.mean.data.data(), p.mean.data.size());
    }
    layers.append(j);
  }
  o["layers"] = layers;
  o["heads"] = heads;
  o["nq"] = n_q;
  o["nk"] = n_k;
  o["block"] = block;
  if (first.result) {
    QJsonArray vis;
    const MaskPattern pattern = first.result->pattern();
    for (int i = 0; i < n_q; ++i) vis.append(pattern.visibleCount(i, n_k));
    o["vis"] = vis;
  }
  if (v.generation) {
    QJsonObject g;
    g["prompt"] = v.generation->prompt;
    QJsonArray steps;
    for (const HtmlGeneration::Step& s : v.generation->steps) {
      QJsonArray top;
      for (const auto& [label, p] : s.top) top.append(QJsonArray{label, p});
      steps.append(QJsonObject{{"token", s.token}, {"p", s.probability}, {"top", top}});
    }
    g["steps"] = steps;
    o["gen"] = g;
  }
  return o;
}

/// bytes in MB (MiB) as the refusal says them: one decimal, two below 1 MB.
QString megabytes(long long bytes) {
  return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'f',
                         bytes < 1024 * 1024 ? 2 : 1);
}

}  // namespace

quint16 toHalf(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  const auto sign = static_cast<quint16>((bits >> 16) & 0x8000u);
  const std::uint32_t exp = (bits >> 23) & 0xffu, frac = bits & 0x7fffffu;
  if (exp == 0xff) return static_cast<quint16>(sign | 0x7c00u | (frac ? 0x200u : 0u));  // quiet NaN
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<quint16>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal
    const std::uint32_t m = frac | 0x800000u;
    const int shift = 14 - e;  // 24-bit mantissa → 10 - (1 - e) kept bits
    std::uint32_t half = m >> shift;
    const std::uint32_t rest = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<quint16>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (frac >> 13);
  const std::uint32_t rest = frac & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent
  return static_cast<quint16>(sign | half);
}

namespace {

/// One head of result (a copy, [1, n_q, n_k]).
AttentionResult oneHead(const AttentionResult& r, int head) {
  AttentionResult one = r;
  const auto pick = [head](const Tensor3& t) {
    if (t.data.empty()) return t;
    Tensor3 out(1, t.rows, t.cols);
    std::copy(t.row(head, 0), t.row(head, 0) + static_cast<std::ptrdiff_t>(t.rows) * t.cols,
              out.data.begin());
    return out;
  };
  one.scores = pick(r.scores);
  one.weights = pick(r.weights);
  one.head_outputs = {};
  one.dropped.clear();
  return one;
}

/// What a view of maps says under its title: the model, h, d_k and the tokens.
QString describe(const AttentionSpec& spec, const QString& model, int heads, int n) {
  QStringList parts;
  if (!model.isEmpty()) parts << model;
  parts << QStringLiteral("%1").arg(QString::fromStdString(toString(spec.mechanism)));
  parts << QStringLiteral("h = %1").arg(heads) << QStringLiteral("d_k = %1").arg(spec.resolvedDk())
        << QStringLiteral("n = %1").arg(n);
  return parts.join(QStringLiteral(" · "));
}

/// The layers of maps as a view's, one head when `head` is set (copies kept in `copies`).
void addLayers(HtmlView& v, const std::vector<const AttentionResult*>& layers,
               const std::vector<int>& indices, std::optional<int> head,
               std::vector<AttentionResult>& copies) {
  if (head) {
    copies.reserve(layers.size());
    for (const AttentionResult* a : layers) copies.push_back(oneHead(*a, *head));
  }
  for (std::size_t k = 0; k < layers.size(); ++k) {
    HtmlLayer l;
    l.index = k < indices.size() ? indices[k] : -1;
    l.result = head ? &copies[k] : layers[k];
    v.layers.push_back(l);
  }
}

}  // namespace

namespace {

/// A [rows, cols] matrix as an HtmlTable of numbers (two decimals), coloured on a diverging scale.
HtmlTable numberTable(const QString& title, const Matrix& m, const QStringList& columns) {
  HtmlTable t;
  t.title = title;
  t.columns = columns;
  t.diverging = true;
  double top = 1e-9;
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    t.rows << QString::number(r);
    QStringList cells;
    std::vector<double> values;
    for (Eigen::Index k = 0; k < m.cols(); ++k) {
      const double x = m(r, k);
      cells << (std::isfinite(x) ? QString::number(x, 'f', 2) : QStringLiteral("—"));
      values.push_back(x);
      if (std::isfinite(x)) top = std::max(top, std::abs(x));
    }
    t.cells.push_back(cells);
    t.values.push_back(std::move(values));
  }
  t.lo = -top;
  t.hi = top;
  return t;
}

/// The interventions of a model run as the page's notes and tables (the pictures' words).
void addInterventions(HtmlView& v, const results::Interventions& x, const QStringList& tokens) {
  if (!x.ablated.empty()) v.notes << ablationLine(x);
  if (x.lens) {
    HtmlTable t;
    t.title = viewText("Logit lens") + QStringLiteral(" · ") +
              viewText("top token after each layer (colour: its probability)");
    t.columns = tokens;
    for (std::size_t l = 0; l < x.lens->cells.size(); ++l) {
      t.rows << QString::number(l);
      QStringList cells;
      std::vector<double> values;
      for (const LensCell& c : x.lens->cells[l]) {
        cells << QStringLiteral("%1 %2").arg(QString::fromStdString(c.top_label)).arg(c.top_probability, 0, 'f', 2);
        values.push_back(c.top_probability);
      }
      t.cells.push_back(cells);
      t.values.push_back(std::move(values));
    }
    v.tables.push_back(std::move(t));
  }
  if (x.dla) {
    const LogitAttribution& d = *x.dla;
    Matrix m(d.heads.rows(), d.heads.cols() + 1);
    m.leftCols(d.heads.cols()) = d.heads;
    for (Eigen::Index l = 0; l < m.rows(); ++l) m(l, d.heads.cols()) = static_cast<float>(d.mlp[static_cast<std::size_t>(l)]);
    QStringList columns;
    for (Eigen::Index h = 0; h < d.heads.cols(); ++h) columns << viewText("head %1").arg(h);
    columns << viewText("MLP");
    QString what = viewText("of %1").arg(QString::fromStdString(d.target_label));
    if (d.versus) what += QStringLiteral(" − ") + QString::fromStdString(d.versus_label);
    HtmlTable t = numberTable(viewText("Direct logit attribution") + QStringLiteral(" ") + what, m, columns);
    t.note = viewText("embedding %1 · sum of the parts %2 · the logit %3")
                 .arg(d.embedding, 0, 'f', 2)
                 .arg(d.total, 0, 'f', 3)
                 .arg(d.logit, 0, 'f', 3);
    v.tables.push_back(std::move(t));
  }
  if (x.patching) {
    QStringList heads;
    for (Eigen::Index h = 0; h < x.patching->heads.cols(); ++h) heads << viewText("head %1").arg(h);
    v.tables.push_back(numberTable(viewText("Activation patching") + QStringLiteral(" · ") +
                                       viewText("each head's output"),
                                   x.patching->heads, heads));
    v.tables.push_back(numberTable(viewText("Activation patching") + QStringLiteral(" · ") +
                                       viewText("the residual stream after each layer"),
                                   x.patching->residual, tokens));
  }
}

}  // namespace

HtmlView htmlViewOf(const std::shared_ptr<const results::Run>& r, std::optional<int> head,
                    std::optional<int> entry, ColorScale scale, Pool pool) {
  HtmlView v;
  v.scale = scale;
  v.pool = pool;
  auto copies = std::make_shared<std::vector<AttentionResult>>();
  if (r->pooled() && !entry && !head) {
    const results::Overview& o = *r->overview;
    for (std::size_t k = 0; k < o.layers.size(); ++k) {
      HtmlLayer l;
      l.index = k < o.layer_indices.size() ? o.layer_indices[k] : static_cast<int>(k);
      l.pooled = std::shared_ptr<const PooledAttention>(r, &o.layers[k]);
      v.layers.push_back(l);
    }
    v.query_labels = r->query_tokens;
    v.key_labels = r->key_tokens;
    v.title = r->model ? r->model->name : QString();
    v.subtitle = describe(r->spec, v.title, o.layers.front().heads(), o.layers.front().n_q);
    v.keep = r;
    return v;
  }
  auto maps = std::make_shared<RunMaps>(mapsOf(r, head, entry));
  addLayers(v, maps->layers, maps->layer_indices, head, *copies);
  v.query_labels = maps->query_tokens;
  v.key_labels = maps->key_tokens;
  const AttentionResult& first = *maps->layers.front();
  v.title = maps->label.model;
  v.subtitle = describe(maps->label.spec, maps->label.model, first.heads(), first.nQ());
  if (head) v.subtitle += QStringLiteral(" · head %1").arg(*head);
  if (r->interventions) addInterventions(v, *r->interventions, maps->query_tokens);
  v.keep = std::make_shared<
      std::pair<std::shared_ptr<RunMaps>, std::shared_ptr<std::vector<AttentionResult>>>>(maps,
                                                                                          copies);
  return v;
}

HtmlView htmlViewOf(const std::shared_ptr<const results::Generated>& g, std::optional<int> head,
                    ColorScale scale) {
  HtmlView v = htmlViewOf(g->shown, head, std::nullopt, scale, Pool::kMax);
  auto steps = std::make_shared<HtmlGeneration>();
  // The rows shown at step 0: the grown matrix has one row per token read (prompt + steps − 1,
  // fewer when special tokens are hidden).
  const int rows = v.layers.front().result ? v.layers.front().result->nQ() : 0;
  steps->prompt = std::max(1, rows - static_cast<int>(g->generation->steps.size()) + 1);
  for (const GenerationStep& s : g->generation->steps) {
    HtmlGeneration::Step step;
    step.token = QString::fromStdString(displayToken(s.token.bytes, s.token.label).label);
    step.probability = s.token.probability;
    for (const NextToken& t : s.top)
      step.top.emplace_back(QString::fromStdString(displayToken(t.bytes, t.label).label),
                            t.probability);
    steps->steps.push_back(std::move(step));
  }
  v.generation = steps;
  v.scores = false;
  v.keep = std::make_shared<std::pair<std::shared_ptr<const void>, std::shared_ptr<const void>>>(
      v.keep, g);
  return v;
}

void fitHtmlPage(HtmlPage& page, long long limit) {
  if (estimate(page) <= limit) return;
  for (HtmlView& v : page.views) {
    if (v.layers.empty() || !v.layers.front().result) continue;
    const AttentionResult& first = *v.layers.front().result;
    const int n = std::max(first.nQ(), first.nK());
    long long fixed = estimate(page);
    for (const HtmlLayer& l : v.layers) fixed -= layerBytes(v, l);
    for (int b = 2; b <= n; ++b) {
      const long long blocks = static_cast<long long>(first.heads()) * ((first.nQ() + b - 1) / b) *
                               ((first.nK() + b - 1) / b);
      if (fixed + 2 * base64Bytes(blocks) * static_cast<long long>(v.layers.size()) > limit &&
          b < n)
        continue;
      for (HtmlLayer& l : v.layers) {
        l.pooled = std::make_shared<const PooledAttention>(poolWeights(*l.result, b));
        l.result = nullptr;
      }
      break;
    }
    if (estimate(page) <= limit) return;
  }
}

QByteArray htmlPageBytes(const HtmlPage& page, long long limit) {
  const long long guess = estimate(page);
  if (guess > limit) {
    throw options::OptionError(
        options::Message(kHtmlTooLargeMessage, {megabytes(guess), megabytes(limit)}));
  }
  QJsonObject data;
  data["lang"] = page.language;
  data["title"] = page.title;
  data["lesson"] = page.lesson;
  data["encoding"] = QStringLiteral(
      "IEEE 754 binary16 (float16): each weight and score within 2^-11 of its value (relative), "
      "3e-8 (absolute) below 6e-5; shown to 4 significant digits");
  QJsonArray views;
  for (const HtmlView& v : page.views) views.append(viewJson(v));
  data["views"] = views;
  // Inside <script>, "</" would end the element: JSON lets the slash be escaped.
  QByteArray json = QJsonDocument(data).toJson(QJsonDocument::Compact);
  json.replace("</", "<\\/");
  // The markers before the data are filled in the template's head alone, so no text of the
  // data is taken for one.
  const QByteArray& page_template = pageTemplate();
  const qsizetype at = page_template.indexOf("@DATA@");
  if (at < 0) throw Error(ErrorCode::kInternal, "the page template has no @DATA@");
  QByteArray out = page_template.left(at);
  const QString lang =
      page.language == QLatin1String("zh_CN") ? QStringLiteral("zh-CN") : QStringLiteral("en");
  out.replace("@LANG@", lang.toUtf8());
  out.replace("@TITLE@", page.title.toHtmlEscaped().toUtf8());
  out += json;
  out += page_template.mid(at + 6);
  if (out.size() > limit) {
    throw options::OptionError(
        options::Message(kHtmlTooLargeMessage, {megabytes(out.size()), megabytes(limit)}));
  }
  return out;
}

long long writeHtmlPage(const HtmlPage& page, const QString& path, long long limit) {
  const QByteArray bytes = htmlPageBytes(page, limit);
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size() ||
      !file.flush()) {
    throw Error(ErrorCode::kIo,
                "cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
  }
  return bytes.size();
}

}  // namespace attnlab::views
