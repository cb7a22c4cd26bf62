#pragma once
/// \file bundled_models.hpp
/// The models that ship with Attention Lab (resources/models/: the trained translators of issue 23,
/// dates-additive, dates-transformer, dates-transformer-unscaled) and how `--model NAME` finds
/// them. Qt Core only.

#include <QString>
#include <QStringList>
#include <optional>

namespace attnlab::options {

/// The folders searched for a bundled model, in order: $ATTNLAB_MODELS_DIR (when set), the
/// installed share/attention-lab/models beside the executable (../share/attention-lab/models from
/// its folder; only when a QCoreApplication exists), then the source tree's resources/models
/// compiled in. Existing folders only, absolute and clean.
QStringList bundledModelRoots();

/// The folder of bundled model `name` ("dates-additive"): the first root holding name/config.json;
/// nullopt when none does or name is not a plain folder name.
std::optional<QString> findBundledModel(const QString& name);

/// The bundled models found, by name, sorted (every root's folders with a config.json).
QStringList bundledModelNames();

/// The folders of the two training runs the training plot compares (render --plot training, the
/// window's Training curves): dates-transformer (q·k/√d_k) then dates-transformer-unscaled (q·k).
/// Throws OptionError "--plot training needs the bundled model NAME (not found in ROOTS)".
QStringList trainingCurveDirs();

/// What --model VALUE names: VALUE as a path (absolute, clean) when it exists; else the bundled
/// model of that name when there is one; else the fetched model of the manifest of that name or
/// alias (model_manifest.hpp: "smollm2", "all-MiniLM-L6-v2"), its SHA-256 checked once after any
/// change (model_verify.hpp); else a model of another tool's store (model_stores.hpp:
/// "ollama:llama3.2", "Qwen/Qwen2.5-0.5B-Instruct", a .gguf file's name); else VALUE as a path
/// (the loader then names it missing). Throws OptionError "the model smollm2 is not fetched: run
/// attention-lab-cli fetch-model smollm2" for a known model that is not in the cache, the
/// damaged-model line of verifyFetchedModel and the lines of resolveStoreName.
QString resolveModelPath(const QString& value);

}  // namespace attnlab::options
