#pragma once
/// \file model_verify.hpp
/// The fetched models' integrity before use (issue 51): `--model NAME` (resolveModelPath) and the
/// run library's load (run::Session::model, verifyIfFetched: the window's presets, a lesson's
/// @NAME) read a model of the cache only after its SHA-256 matched the manifest's, checked once after any change of the file. The
/// proof of the last check is a stamp beside it in the cache, CACHE/.CACHE-NAME.verified: the
/// file's size, its modification time (ns) and the SHA-256 it had; a file whose size or time
/// differs from the stamp's is hashed again. Qt Core only.

#include <QString>

#include "options/model_manifest.hpp"

namespace attnlab::options {

/// The file whose SHA-256 the manifest gives: `path` for a file model, path/check for a folder.
QString checkedFileOf(const ManifestModel& model, const QString& path);

/// Checks the fetched model at `path` (fetchedModelPath) against model.sha256 unless its stamp
/// says it was checked since its last change, then writes the stamp. A copy outside the cache
/// (named by the model's variable) is left as it is. Throws OptionError "the cached model FILE
/// is damaged (its SHA-256 differs from the manifest's): run attention-lab-cli fetch-model NAME
/// to fetch it again" on a mismatch, "cannot read FILE" when it cannot be read. Hashing reads the
/// whole file (about 1 GB/s); the stamp makes later calls a stat.
void verifyFetchedModel(const ManifestModel& model, const QString& path);

/// verifyFetchedModel for the manifest's model fetched at `path`, when `path` is one (the window's
/// presets, a lesson's @NAME, a path typed to the cache); nothing for any other path. Throws as
/// verifyFetchedModel.
void verifyIfFetched(const QString& path);

/// Writes the stamp of `path` after a check made elsewhere (fetch-model's own); quietly does
/// nothing when the cache cannot be written.
void stampVerified(const ManifestModel& model, const QString& path);

}  // namespace attnlab::options
