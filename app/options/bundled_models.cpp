/// \file bundled_models.cpp
/// The bundled models' look-up (bundled_models.hpp).

#include "options/bundled_models.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QtGlobal>

#include "options/message.hpp"
#include "options/model_manifest.hpp"
#include "options/model_stores.hpp"
#include "options/model_verify.hpp"

namespace attnlab::options {

QStringList bundledModelRoots() {
  QStringList candidates;
  const QString env = qEnvironmentVariable("ATTNLAB_MODELS_DIR");
  if (!env.isEmpty()) candidates << env;
  if (QCoreApplication::instance())
    candidates << QCoreApplication::applicationDirPath() + QStringLiteral("/../share/attention-lab/models");
  candidates << QStringLiteral(ATTNLAB_SOURCE_MODELS_DIR);
  QStringList roots;
  for (const QString& c : candidates) {
    const QFileInfo info(c);
    const QString clean = QDir::cleanPath(info.absoluteFilePath());
    if (info.isDir() && !roots.contains(clean)) roots << clean;
  }
  return roots;
}

std::optional<QString> findBundledModel(const QString& name) {
  if (name.isEmpty() || name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')) ||
      name.startsWith(QLatin1Char('.')))
    return std::nullopt;
  for (const QString& root : bundledModelRoots()) {
    const QString dir = root + QLatin1Char('/') + name;
    if (QFileInfo::exists(dir + QStringLiteral("/config.json"))) return dir;
  }
  return std::nullopt;
}

QStringList bundledModelNames() {
  QStringList names;
  for (const QString& root : bundledModelRoots()) {
    for (const QString& name : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
      if (!names.contains(name) && QFileInfo::exists(root + QLatin1Char('/') + name + QStringLiteral("/config.json")))
        names << name;
  }
  names.sort();
  return names;
}

QStringList trainingCurveDirs() {
  QStringList dirs;
  for (const char* name : {"dates-transformer", "dates-transformer-unscaled"}) {
    const std::optional<QString> dir = findBundledModel(QString::fromLatin1(name));
    if (!dir) {
      throw OptionError(Message(ATTNLAB_MSG("--plot training needs the bundled model %1 (not found in %2)"),
                                {QString::fromLatin1(name), bundledModelRoots().join(QStringLiteral(", "))}));
    }
    dirs << *dir;
  }
  return dirs;
}

QString resolveModelPath(const QString& value) {
  const QFileInfo info(value);
  if (info.exists()) return QDir::cleanPath(info.absoluteFilePath());
  if (const std::optional<QString> bundled = findBundledModel(value)) return *bundled;
  if (const ManifestModel* fetchable = findManifestModel(value)) {
    const QString path = fetchedModelPath(*fetchable);
    if (path.isEmpty())
      throw OptionError(Message(ATTNLAB_MSG("the model %1 is not fetched: run attention-lab-cli fetch-model %2"),
                                {value, fetchable->name}));
    verifyFetchedModel(*fetchable, path);  // once after any change of the file
    return path;
  }
  if (const std::optional<QString> stored = resolveStoreName(value)) return *stored;
  return QDir::cleanPath(info.absoluteFilePath());
}

}  // namespace attnlab::options
