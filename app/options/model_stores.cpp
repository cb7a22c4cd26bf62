/// \file model_stores.cpp
/// Other tools' model stores, read only (model_stores.hpp).

#include "options/model_stores.hpp"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>

#include "options/message.hpp"
#include "options/model_manifest.hpp"

namespace attnlab::options {
namespace {

const QString kOllamaHost = QStringLiteral("registry.ollama.ai");
const QString kOllamaNamespace = QStringLiteral("library");
const QString kOllamaModelLayer = QStringLiteral("application/vnd.ollama.image.model");

QString env(const char* name) { return qEnvironmentVariable(name); }

QString cacheHome() {
  const QString xdg = env("XDG_CACHE_HOME");
  return xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.cache") : xdg;
}

/// The candidate folders of a store, existing or not, in order.
QStringList candidates(ModelStore store) {
  switch (store) {
    case ModelStore::kAttentionLab:
      return {modelCacheDir()};
    case ModelStore::kOllama:
      if (!env("OLLAMA_MODELS").isEmpty()) return {env("OLLAMA_MODELS")};
      return {QDir::homePath() + QStringLiteral("/.ollama/models")};
    case ModelStore::kHuggingFace:
      if (!env("HF_HUB_CACHE").isEmpty()) return {env("HF_HUB_CACHE")};
      if (!env("HF_HOME").isEmpty()) return {env("HF_HOME") + QStringLiteral("/hub")};
      return {cacheHome() + QStringLiteral("/huggingface/hub")};
    case ModelStore::kLmStudio:
      return {QDir::homePath() + QStringLiteral("/.lmstudio/models"),
              QDir::homePath() + QStringLiteral("/.cache/lm-studio/models")};
    case ModelStore::kLlamaCpp:
      if (!env("LLAMA_CACHE").isEmpty()) return {env("LLAMA_CACHE")};
      return {cacheHome() + QStringLiteral("/llama.cpp")};
  }
  return {};
}

/// The first candidate folder, shown in messages when none exists.
QString shownRoot(ModelStore store) {
  const QStringList roots = storeRoots(store);
  return QDir::toNativeSeparators(roots.isEmpty() ? candidates(store).first()
                                                  : roots.join(QStringLiteral(", ")));
}

[[noreturn]] void refuse(const char* source, const QStringList& args) {
  throw OptionError(Message(source, args));
}

// gguf-split's later parts (PREFIX-00002-of-00003.gguf …) are read through the first.
const QRegularExpression kLaterPart(QStringLiteral("-(\\d{5})-of-(\\d{5})\\.gguf$"));

bool isLaterSplitPart(const QString& file_name) {
  const QRegularExpressionMatch m = kLaterPart.match(file_name);
  return m.hasMatch() && m.captured(1).toInt() != 1;
}

/// A GGUF file's bytes with every part of its split model.
qint64 ggufBytes(const QString& path) {
  const QFileInfo info(path);
  const QRegularExpressionMatch m = kLaterPart.match(info.fileName());
  if (!m.hasMatch()) return info.size();
  const QString prefix = info.fileName().left(m.capturedStart());
  const int n = m.captured(2).toInt();
  qint64 total = 0;
  for (int i = 1; i <= n; ++i) {
    total += QFileInfo(info.dir().filePath(QStringLiteral("%1-%2-of-%3.gguf")
                                               .arg(prefix)
                                               .arg(i, 5, 10, QLatin1Char('0'))
                                               .arg(n, 5, 10, QLatin1Char('0'))))
                 .size();
  }
  return total;
}

/// The model GGUF files under `dir` (later split parts left out), sorted by path.
QStringList ggufFilesUnder(const QString& dir, bool recursive) {
  QStringList out;
  QDirIterator it(dir, {QStringLiteral("*.gguf")}, QDir::Files,
                  recursive ? QDirIterator::Subdirectories : QDirIterator::NoIteratorFlags);
  while (it.hasNext()) {
    const QFileInfo f = it.nextFileInfo();
    if (!isLaterSplitPart(f.fileName())) out << QDir::cleanPath(f.absoluteFilePath());
  }
  out.sort();
  return out;
}

/// The bytes of a model folder's weights (safetensors, followed through HuggingFace's symlinks).
qint64 folderBytes(const QString& dir) {
  qint64 total = 0;
  for (const QFileInfo& f : QDir(dir).entryInfoList({QStringLiteral("*.safetensors")}, QDir::Files))
    total += f.size();
  return total;
}

// --- Ollama
// ---------------------------------------------------------------------------------------

struct OllamaName {
  QString host, space, model, tag;
  /// "NAME:TAG", with NAMESPACE/ and HOST/ when not the defaults.
  QString shown() const {
    QString s = model + QLatin1Char(':') + tag;
    if (space != kOllamaNamespace || host != kOllamaHost) s = space + QLatin1Char('/') + s;
    if (host != kOllamaHost) s = host + QLatin1Char('/') + s;
    return s;
  }
};

OllamaName parseOllama(const QString& spec) {
  OllamaName n{kOllamaHost, kOllamaNamespace, spec, QStringLiteral("latest")};
  const qsizetype slash = spec.lastIndexOf(QLatin1Char('/'));
  const qsizetype colon = spec.lastIndexOf(QLatin1Char(':'));
  QString path = spec;
  if (colon > slash) {
    n.tag = spec.mid(colon + 1);
    path = spec.left(colon);
  }
  const QStringList parts = path.split(QLatin1Char('/'));
  n.model = parts.last();
  if (parts.size() >= 2) n.space = parts.at(parts.size() - 2);
  if (parts.size() >= 3) n.host = parts.mid(0, parts.size() - 2).join(QLatin1Char('/'));
  return n;
}

/// The model layer's blob of a manifest file: its path and the size the manifest says, or
/// nullopt when the manifest is unreadable or names no model layer.
std::optional<std::pair<QString, qint64>> ollamaBlob(const QString& root, const QString& manifest) {
  QFile f(manifest);
  if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
  const QJsonDocument doc = QJsonDocument::fromJson(f.read(1 << 20));
  for (const QJsonValue layer : doc.object().value(QStringLiteral("layers")).toArray()) {
    const QJsonObject o = layer.toObject();
    if (o.value(QStringLiteral("mediaType")).toString() != kOllamaModelLayer) continue;
    QString digest = o.value(QStringLiteral("digest")).toString();
    if (!digest.startsWith(QLatin1String("sha256:")) || digest.contains(QLatin1Char('/')))
      return std::nullopt;
    digest.replace(6, 1, QLatin1Char('-'));
    return std::make_pair(root + QStringLiteral("/blobs/") + digest,
                          static_cast<qint64>(o.value(QStringLiteral("size")).toDouble(-1)));
  }
  return std::nullopt;
}

QString resolveOllama(const QString& spec) {
  const OllamaName n = parseOllama(spec);
  if (n.model.isEmpty() || n.tag.isEmpty() || spec.contains(QLatin1String("..")))
    refuse(ATTNLAB_MSG("ollama:%1 is not a model name (ollama:NAME or ollama:NAME:TAG, e.g. "
                       "ollama:llama3.2:1b)"),
           {spec});
  for (const QString& root : storeRoots(ModelStore::kOllama)) {
    const QString manifest =
        root + QStringLiteral("/manifests/%1/%2/%3/%4").arg(n.host, n.space, n.model, n.tag);
    if (!QFileInfo(manifest).isFile()) continue;
    const auto blob = ollamaBlob(root, manifest);
    if (!blob)
      refuse(ATTNLAB_MSG("the Ollama manifest %1 names no model layer: run ollama pull %2 again"),
             {QDir::toNativeSeparators(manifest), n.shown()});
    const QFileInfo file(blob->first);
    if (!file.isFile())
      refuse(ATTNLAB_MSG("ollama:%1: its model blob %2 is missing: run ollama pull %1 again"),
             {n.shown(), QDir::toNativeSeparators(blob->first)});
    if (file.size() != blob->second)
      refuse(ATTNLAB_MSG("ollama:%1: its model blob %2 has %3 bytes, the manifest says %4: run "
                         "ollama pull %1 again"),
             {n.shown(), QDir::toNativeSeparators(blob->first), QString::number(file.size()),
              QString::number(blob->second)});
    return QDir::cleanPath(file.absoluteFilePath());
  }
  refuse(ATTNLAB_MSG("ollama:%1 is not pulled (no manifest in %2): run ollama pull %1"),
         {n.shown(), shownRoot(ModelStore::kOllama)});
}

void listOllama(std::vector<StoredModel>& out) {
  for (const QString& root : storeRoots(ModelStore::kOllama)) {
    const QString manifests = root + QStringLiteral("/manifests");
    QDirIterator it(manifests, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
      const QString manifest = it.next();
      const QStringList parts = QDir(manifests).relativeFilePath(manifest).split(QLatin1Char('/'));
      if (parts.size() < 4) continue;
      const OllamaName n{parts.mid(0, parts.size() - 3).join(QLatin1Char('/')),
                         parts.at(parts.size() - 3), parts.at(parts.size() - 2), parts.last()};
      const auto blob = ollamaBlob(root, manifest);
      if (!blob || !QFileInfo(blob->first).isFile()) continue;
      out.push_back(
          {ModelStore::kOllama, QStringLiteral("ollama:") + n.shown(), blob->first, blob->second});
    }
  }
}

// --- HuggingFace
// ------------------------------------------------------------------------------------

// ORG/NAME[@REVISION][:FILE]: HuggingFace's repo id characters.
const QRegularExpression kHfId(QStringLiteral(
    "^([A-Za-z0-9][A-Za-z0-9._-]*)/([A-Za-z0-9._-]+)(?:@([A-Za-z0-9._/-]+?))?(?::([^:]+))?$"));

/// The model in a snapshot folder: the folder itself (config.json) or the GGUF file `file` names
/// (or its only one). Throws OptionError naming the choices.
QString modelInSnapshot(const QString& id, const QString& snapshot, const QString& file) {
  if (file.isEmpty() && QFileInfo::exists(snapshot + QStringLiteral("/config.json")))
    return snapshot;
  const QStringList ggufs = ggufFilesUnder(snapshot, true);
  QStringList names;
  for (const QString& g : ggufs) names << QDir(snapshot).relativeFilePath(g);
  if (!file.isEmpty()) {
    for (qsizetype i = 0; i < ggufs.size(); ++i)
      if (names.at(i) == file || QFileInfo(ggufs.at(i)).fileName() == file) return ggufs.at(i);
    refuse(ATTNLAB_MSG("%1 in the HuggingFace cache has no GGUF file %2 (it has: %3)"),
           {id, file, names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "))});
  }
  if (ggufs.size() == 1) return ggufs.first();
  if (ggufs.isEmpty())
    refuse(ATTNLAB_MSG("%1 in the HuggingFace cache (%2) has neither config.json nor a .gguf file"),
           {id, QDir::toNativeSeparators(snapshot)});
  refuse(ATTNLAB_MSG("%1 has %2 GGUF files: name one as %1:FILE (%3)"),
         {id, QString::number(ggufs.size()), names.join(QStringLiteral(", "))});
}

QString resolveHuggingFace(const QString& spec, bool bare) {
  const QRegularExpressionMatch m = kHfId.match(spec);
  if (!m.hasMatch() || spec.contains(QLatin1String(".."))) {
    if (bare) return {};
    refuse(ATTNLAB_MSG("hf:%1 is not a HuggingFace model id (hf:ORG/NAME, hf:ORG/NAME@REVISION, or "
                       "with :FILE for a GGUF file)"),
           {spec});
  }
  const QString id = m.captured(1) + QLatin1Char('/') + m.captured(2);
  const QString revision = m.captured(3).isEmpty() ? QStringLiteral("main") : m.captured(3);
  for (const QString& root : storeRoots(ModelStore::kHuggingFace)) {
    const QString repo =
        root + QStringLiteral("/models--") + m.captured(1) + QStringLiteral("--") + m.captured(2);
    if (!QFileInfo(repo).isDir()) continue;
    QString hash = revision;
    QFile ref(repo + QStringLiteral("/refs/") + revision);
    if (ref.open(QIODevice::ReadOnly)) hash = QString::fromLatin1(ref.read(256)).trimmed();
    const QString snapshot = repo + QStringLiteral("/snapshots/") + hash;
    if (hash.isEmpty() || hash.contains(QLatin1Char('/')) || !QFileInfo(snapshot).isDir())
      refuse(ATTNLAB_MSG("%1 has no revision %2 in the HuggingFace cache (%3): download it "
                         "(huggingface-cli download %1 --revision %2)"),
             {id, revision, QDir::toNativeSeparators(repo)});
    return QDir::cleanPath(modelInSnapshot(id, snapshot, m.captured(4)));
  }
  if (bare)
    refuse(ATTNLAB_MSG("%1 is neither a path nor a model in the HuggingFace cache (%2): download "
                       "it (huggingface-cli download %1) or give the model's folder or .gguf file"),
           {spec, shownRoot(ModelStore::kHuggingFace)});
  refuse(ATTNLAB_MSG(
             "%1 is not in the HuggingFace cache (%2): download it (huggingface-cli download %1)"),
         {id, shownRoot(ModelStore::kHuggingFace)});
}

void listHuggingFace(std::vector<StoredModel>& out) {
  for (const QString& root : storeRoots(ModelStore::kHuggingFace)) {
    for (const QString& repo :
         QDir(root).entryList({QStringLiteral("models--*")}, QDir::Dirs, QDir::Name)) {
      const QStringList parts = repo.mid(8).split(QStringLiteral("--"));
      if (parts.size() != 2) continue;
      const QString id = parts.join(QLatin1Char('/'));
      QFile ref(root + QLatin1Char('/') + repo + QStringLiteral("/refs/main"));
      if (!ref.open(QIODevice::ReadOnly)) continue;
      const QString snapshot = root + QLatin1Char('/') + repo + QStringLiteral("/snapshots/") +
                               QString::fromLatin1(ref.read(256)).trimmed();
      if (QFileInfo::exists(snapshot + QStringLiteral("/config.json"))) {
        if (folderBytes(snapshot) > 0 ||
            QFileInfo::exists(snapshot + QStringLiteral("/model.safetensors.index.json")))
          out.push_back(
              {ModelStore::kHuggingFace, id, QDir::cleanPath(snapshot), folderBytes(snapshot)});
        continue;
      }
      const QStringList ggufs = ggufFilesUnder(snapshot, true);
      for (const QString& g : ggufs) {
        const QString name =
            ggufs.size() == 1 ? id : id + QLatin1Char(':') + QDir(snapshot).relativeFilePath(g);
        out.push_back({ModelStore::kHuggingFace, name, g, ggufBytes(g)});
      }
    }
  }
}

// --- LM Studio and llama.cpp: by file name
// ---------------------------------------------------------

std::optional<QString> findByFileName(ModelStore store, const QString& name) {
  for (const QString& root : storeRoots(store))
    for (const QString& g : ggufFilesUnder(root, store == ModelStore::kLmStudio))
      if (QFileInfo(g).fileName() == name) return g;
  return std::nullopt;
}

void listByFileName(ModelStore store, std::vector<StoredModel>& out) {
  for (const QString& root : storeRoots(store))
    for (const QString& g : ggufFilesUnder(root, store == ModelStore::kLmStudio))
      out.push_back({store, QFileInfo(g).fileName(), g, ggufBytes(g)});
}

}  // namespace

QString storeName(ModelStore store) {
  switch (store) {
    case ModelStore::kAttentionLab:
      return QStringLiteral("Attention Lab");
    case ModelStore::kOllama:
      return QStringLiteral("Ollama");
    case ModelStore::kHuggingFace:
      return QStringLiteral("HuggingFace");
    case ModelStore::kLmStudio:
      return QStringLiteral("LM Studio");
    case ModelStore::kLlamaCpp:
      return QStringLiteral("llama.cpp");
  }
  return {};
}

QStringList storeRoots(ModelStore store) {
  QStringList roots;
  for (const QString& c : candidates(store)) {
    const QFileInfo info(c);
    const QString clean = QDir::cleanPath(info.absoluteFilePath());
    if (info.isDir() && !roots.contains(clean)) roots << clean;
  }
  return roots;
}

std::vector<StoredModel> listStoredModels() {
  std::vector<StoredModel> all;
  for (const ManifestModel& m : manifestModels()) {
    const QString path = fetchedModelPath(m);
    if (!path.isEmpty()) all.push_back({ModelStore::kAttentionLab, m.name, path, m.bytes});
  }
  const auto sorted = [&all](std::size_t from) {
    std::sort(all.begin() + static_cast<std::ptrdiff_t>(from), all.end(),
              [](const StoredModel& a, const StoredModel& b) { return a.name < b.name; });
  };
  std::size_t from = all.size();
  listOllama(all);
  sorted(from);
  from = all.size();
  listHuggingFace(all);
  sorted(from);
  for (const ModelStore store : {ModelStore::kLmStudio, ModelStore::kLlamaCpp}) {
    from = all.size();
    listByFileName(store, all);
    sorted(from);
  }
  return all;
}

std::optional<QString> resolveStoreName(const QString& value) {
  if (value.startsWith(QLatin1String("ollama:"))) return resolveOllama(value.mid(7));
  if (value.startsWith(QLatin1String("hf:"))) return resolveHuggingFace(value.mid(3), false);
  if (value.startsWith(QLatin1Char('/')) || value.startsWith(QLatin1Char('.'))) return std::nullopt;
  if (kHfId.match(value).hasMatch()) return resolveHuggingFace(value, true);  // ORG/NAME…
  if (!value.contains(QLatin1Char('/')) &&
      value.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) {
    for (const ModelStore store : {ModelStore::kLmStudio, ModelStore::kLlamaCpp})
      if (const std::optional<QString> found = findByFileName(store, value)) return found;
  }
  return std::nullopt;
}

}  // namespace attnlab::options
