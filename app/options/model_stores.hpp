#pragma once
/// \file model_stores.hpp
/// The models users already have, downloaded by the tools they use every day, found by the names
/// those tools give them (issue 51). Read only: nothing is ever written into another tool's store.
/// Qt Core only; `--model` (resolveModelPath, bundled_models.hpp), `attention-lab-cli models` and
/// the window's "Attention from" and File → Open model read them.
///
/// | store       | where (first that is set)                                          | --model takes |
/// |-------------|--------------------------------------------------------------------|---------------|
/// | Ollama      | $OLLAMA_MODELS, ~/.ollama/models                                   | `ollama:NAME[:TAG]` |
/// | HuggingFace | $HF_HUB_CACHE, $HF_HOME/hub, ${XDG_CACHE_HOME:-~/.cache}/huggingface/hub | `hf:ORG/NAME[@REV][:FILE]`, `ORG/NAME[@REV][:FILE]` |
/// | LM Studio   | ~/.lmstudio/models, ~/.cache/lm-studio/models (both)               | the .gguf file's name |
/// | llama.cpp   | $LLAMA_CACHE, ${XDG_CACHE_HOME:-~/.cache}/llama.cpp                | the .gguf file's name |
///
/// - Ollama: the manifest `manifests/HOST/NAMESPACE/NAME/TAG` (HOST registry.ollama.ai and
///   NAMESPACE library unless written, TAG latest) names its model layer
///   (`application/vnd.ollama.image.model`), a GGUF blob `blobs/sha256-HEX` whose size must be the
///   layer's.
/// - HuggingFace: `models--ORG--NAME/refs/REV` (REV main unless written; a commit hash names its
///   snapshot directly) → `snapshots/HASH/`: a model folder (config.json), or its GGUF files (one,
///   or the one `:FILE` names; split parts as one, by their first).
/// - LM Studio and llama.cpp: every .gguf under the folder (a split model by its first part).

#include <QString>
#include <optional>
#include <vector>

namespace attnlab::options {

/// Where a model was found.
enum class ModelStore { kAttentionLab, kOllama, kHuggingFace, kLmStudio, kLlamaCpp };

/// "Attention Lab", "Ollama", "HuggingFace", "LM Studio", "llama.cpp".
QString storeName(ModelStore store);

/// The store's folders that exist, absolute and clean, in the order of the table above.
QStringList storeRoots(ModelStore store);

/// One model found in a store.
struct StoredModel {
  ModelStore store = ModelStore::kOllama;
  QString name;        ///< What --model takes: "ollama:llama3.2:latest", "Qwen/Qwen2.5-0.5B", "x.gguf".
  QString path;        ///< The file or folder the model is read from (a split model's first part).
  qint64 bytes = 0;    ///< Bytes on disk: the file (every part of a split model) or the weights.
};

/// Every model of every store (the lab's own fetched models first, then the table's order), each
/// store's sorted by name; only the file system is read (directory listings, manifests, sizes),
/// never a weight. A store whose folders are missing adds nothing; a broken entry is left out.
std::vector<StoredModel> listStoredModels();

/// The path `value` names in a store, or nullopt when it is not a store's name (then --model
/// reads it as a path). A store's name that is not there throws OptionError in one line naming
/// the name, where it was looked for and what to do: "ollama:NAME:TAG is not pulled (no manifest
/// in DIR): run ollama pull NAME:TAG", a HuggingFace id not in the cache ("huggingface-cli
/// download ORG/NAME"), a revision not there, several GGUF files without :FILE (listing them), an
/// Ollama blob missing or of another size than its manifest says.
std::optional<QString> resolveStoreName(const QString& value);

}  // namespace attnlab::options
