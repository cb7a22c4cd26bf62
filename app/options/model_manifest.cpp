/// \file model_manifest.cpp
/// The fetchable models' manifest and the cache folder (model_manifest.hpp).

#include "options/model_manifest.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QtGlobal>
#include <map>
#include <mutex>

#include "attnlab/error.hpp"

namespace attnlab::options {
namespace {

const QString kBuiltIn = QStringLiteral(":/models/model-manifest.json");

[[noreturn]] void invalid(const QString& file, const QString& what) {
  throw Error(ErrorCode::kInvalidInput,
              oneLine(("model manifest " + file + ": " + what).toStdString()));
}

bool isSha256(const QString& hex) {
  if (hex.size() != 64) return false;
  for (const QChar c : hex)
    if (!((c >= QLatin1Char('0') && c <= QLatin1Char('9')) || (c >= QLatin1Char('a') && c <= QLatin1Char('f'))))
      return false;
  return true;
}

/// The text field `key` of `o` (required unless `optional`), named `where.key` when missing.
QString text(const QJsonObject& o, const char* key, const QString& file, const QString& where,
             bool optional = false) {
  const QJsonValue v = o.value(QLatin1String(key));
  if (v.isUndefined() && optional) return {};
  if (!v.isString()) invalid(file, where + QLatin1Char('.') + QLatin1String(key) + QStringLiteral(" must be a string"));
  return v.toString();
}

qint64 size(const QJsonObject& o, const char* key, const QString& file, const QString& where) {
  const QJsonValue v = o.value(QLatin1String(key));
  if (!v.isDouble() || v.toDouble() <= 0 || v.toDouble() != static_cast<double>(v.toInteger()))
    invalid(file, where + QLatin1Char('.') + QLatin1String(key) + QStringLiteral(" must be a positive whole number of bytes"));
  return v.toInteger();
}

std::vector<ManifestModel> read(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) invalid(file, QStringLiteral("cannot be read: ") + f.errorString());
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
  if (doc.isNull()) invalid(file, QStringLiteral("not JSON: ") + error.errorString());
  const QJsonValue list = doc.object().value(QLatin1String("models"));
  if (!list.isArray() || list.toArray().isEmpty()) invalid(file, QStringLiteral("\"models\" must be a non-empty array"));
  std::vector<ManifestModel> models;
  for (const QJsonValue& value : list.toArray()) {
    const QJsonObject o = value.toObject();
    ManifestModel m;
    const QString at = QStringLiteral("models[%1]").arg(models.size());
    m.name = text(o, "name", file, at);
    const QString where = QStringLiteral("model ") + m.name;
    for (const QJsonValue& a : o.value(QLatin1String("aliases")).toArray()) m.aliases << a.toString();
    m.display = text(o, "display", file, where);
    m.description = text(o, "description", file, where, true);
    m.licence = text(o, "licence", file, where);
    m.licence_url = text(o, "licence_url", file, where, true);
    m.notice = text(o, "notice", file, where, true);
    m.env = text(o, "env", file, where, true);
    m.cache = text(o, "cache", file, where);
    if (m.cache.isEmpty() || m.cache.contains(QLatin1Char('/')) || m.cache.startsWith(QLatin1Char('.')))
      invalid(file, where + QStringLiteral(".cache must be a plain file or folder name"));
    m.folder = o.value(QLatin1String("folder")).toBool();
    m.check = text(o, "check", file, where, !m.folder);
    m.sha256 = text(o, "sha256", file, where);
    if (!isSha256(m.sha256)) invalid(file, where + QStringLiteral(".sha256 must be 64 lower-case hex digits"));
    m.bytes = size(o, "bytes", file, where);
    for (const QJsonValue& pv : o.value(QLatin1String("packages")).toArray()) {
      const QJsonObject p = pv.toObject();
      ManifestPackage package;
      package.requirement = text(p, "requirement", file, where + QStringLiteral(".packages"));
      const QString pw = where + QLatin1Char(' ') + package.requirement;
      if (!package.requirement.contains(QStringLiteral("==")))
        invalid(file, pw + QStringLiteral(": the requirement must pin NAME==VERSION"));
      package.sha256 = text(p, "sha256", file, pw, true);
      if (!package.sha256.isEmpty() && !isSha256(package.sha256))
        invalid(file, pw + QStringLiteral(".sha256 must be 64 lower-case hex digits"));
      package.size = size(p, "size", file, pw);
      for (const QJsonValue& fv : p.value(QLatin1String("files")).toArray()) {
        const QJsonObject fo = fv.toObject();
        ManifestFile taken{text(fo, "from", file, pw + QStringLiteral(".files")),
                           text(fo, "to", file, pw + QStringLiteral(".files"), !m.folder)};
        if (m.folder && (taken.to.isEmpty() || taken.to.contains(QLatin1Char('/')) || taken.to.startsWith(QLatin1Char('.'))))
          invalid(file, pw + QStringLiteral(": a folder model's file needs \"to\", a plain file name"));
        package.files.push_back(taken);
      }
      if (package.files.empty()) invalid(file, pw + QStringLiteral(": \"files\" must list what the wheel gives"));
      m.packages.push_back(package);
    }
    if (m.packages.empty()) invalid(file, where + QStringLiteral(": \"packages\" must be a non-empty array"));
    for (const ManifestModel& other : models)
      for (const QString& n : QStringList{m.name} + m.aliases)
        if (other.answersTo(n)) invalid(file, QStringLiteral("two models answer to ") + n);
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace

qint64 ManifestModel::downloadBytes() const {
  qint64 total = 0;
  for (const ManifestPackage& p : packages) total += p.size;
  return total;
}

bool ManifestModel::answersTo(const QString& n) const { return n == name || aliases.contains(n); }

const std::vector<ManifestModel>& manifestModels() {
  static std::mutex mutex;
  static std::map<QString, std::vector<ManifestModel>> read_once;  // by file: references stay valid
  const QString set = qEnvironmentVariable("ATTNLAB_MODEL_MANIFEST");
  const QString file = set.isEmpty() ? kBuiltIn : set;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = read_once.find(file);
  if (it == read_once.end()) it = read_once.emplace(file, read(file)).first;
  return it->second;
}

const ManifestModel* findManifestModel(const QString& name) {
  for (const ManifestModel& m : manifestModels())
    if (m.answersTo(name)) return &m;
  return nullptr;
}

QStringList manifestNames() {
  QStringList names;
  for (const ManifestModel& m : manifestModels()) names << m.name;
  return names;
}

QString modelCacheDir() {
  QString dir = qEnvironmentVariable("ATTNLAB_MODEL_CACHE");
  if (dir.isEmpty())  // GenericCacheLocation is $XDG_CACHE_HOME, else ~/.cache
    dir = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
          QStringLiteral("/attention-lab/models");
  return QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
}

QString modelPath(const ManifestModel& model) {
  QString path = model.env.isEmpty() ? QString() : qEnvironmentVariable(model.env.toLatin1().constData());
  if (path.isEmpty()) path = modelCacheDir() + QLatin1Char('/') + model.cache;
  return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString fetchedModelPath(const ManifestModel& model) {
  const QString path = modelPath(model);
  const bool there = model.folder ? QFileInfo(path + QLatin1Char('/') + model.check).isFile() : QFileInfo(path).isFile();
  return there ? path : QString();
}

}  // namespace attnlab::options
