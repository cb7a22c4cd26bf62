/// \file model_verify.cpp
/// The fetched models' SHA-256 checked once after any change (model_verify.hpp).

#include "options/model_verify.hpp"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <filesystem>

#include "options/message.hpp"

namespace attnlab::options {
namespace {

QString stampPath(const ManifestModel& model) {
  return modelCacheDir() + QStringLiteral("/.") + model.cache + QStringLiteral(".verified");
}

/// "SIZE MTIME SHA256" of the file as it is now (the modification time in the file clock's ticks,
/// nanoseconds; the hash as given).
QString stampLine(const QString& file, const QString& sha256) {
  std::error_code ec;
  const std::filesystem::path p(file.toStdString());
  const auto size = std::filesystem::file_size(p, ec);
  const auto time = std::filesystem::last_write_time(p, ec).time_since_epoch().count();
  return QStringLiteral("%1 %2 %3\n")
      .arg(QString::number(static_cast<qint64>(size)), QString::number(static_cast<qint64>(time)),
           sha256);
}

bool insideCache(const QString& path) {
  const QString cache = QDir::cleanPath(modelCacheDir()) + QLatin1Char('/');
  return QDir::cleanPath(QFileInfo(path).absoluteFilePath()).startsWith(cache);
}

}  // namespace

QString checkedFileOf(const ManifestModel& model, const QString& path) {
  return model.folder ? path + QLatin1Char('/') + model.check : path;
}

void stampVerified(const ManifestModel& model, const QString& path) {
  if (!insideCache(path)) return;
  QSaveFile out(stampPath(model));
  if (!out.open(QIODevice::WriteOnly)) return;
  out.write(stampLine(checkedFileOf(model, path), model.sha256).toUtf8());
  out.commit();
}

void verifyFetchedModel(const ManifestModel& model, const QString& path) {
  if (!insideCache(path)) return;
  const QString file = checkedFileOf(model, path);
  QFile stamp(stampPath(model));
  if (stamp.open(QIODevice::ReadOnly) &&
      QString::fromUtf8(stamp.read(512)) == stampLine(file, model.sha256))
    return;  // checked, and neither size nor time changed since
  QFile in(file);
  if (!in.open(QIODevice::ReadOnly))
    throw OptionError(Message(ATTNLAB_MSG("cannot read %1"), {QDir::toNativeSeparators(file)}));
  QCryptographicHash hash(QCryptographicHash::Sha256);
  if (!hash.addData(&in))
    throw OptionError(Message(ATTNLAB_MSG("cannot read %1"), {QDir::toNativeSeparators(file)}));
  if (QString::fromLatin1(hash.result().toHex()) != model.sha256) {
    QFile::remove(stampPath(model));
    throw OptionError(
        Message(ATTNLAB_MSG("the cached model %1 is damaged (its SHA-256 differs from the "
                            "manifest's): run attention-lab-cli fetch-model %2 to fetch it again"),
                {QDir::toNativeSeparators(file), model.name}));
  }
  stampVerified(model, path);
}

void verifyIfFetched(const QString& path) {
  if (!insideCache(path)) return;
  const QString clean = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
  for (const ManifestModel& m : manifestModels()) {
    const QString there = fetchedModelPath(m);
    if (!there.isEmpty() && QDir::cleanPath(there) == clean) verifyFetchedModel(m, there);
  }
}

}  // namespace attnlab::options
