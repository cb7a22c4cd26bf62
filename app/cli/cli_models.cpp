/// \file cli_models.cpp
/// attention-lab-cli models: the models already on this machine, by the names --model takes
/// (options/model_stores.hpp), with what each header says (run::inspect: no weight read).

#include <QDir>
#include <algorithm>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/memory.hpp"
#include "cli/cli.hpp"
#include "options/model_manifest.hpp"
#include "options/model_stores.hpp"
#include "options/options.hpp"
#include "run/model_cache.hpp"

namespace attnlab::cli {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

std::string padded(const std::string& s, std::size_t width) {
  // Width in characters of UTF-8 text: count the bytes that start a character.
  const auto chars = static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  return s + std::string(chars < width ? width - chars : 1, ' ');
}

}  // namespace

int commandModels(const options::Options& /*o*/, std::ostream& out, std::ostream& /*err*/) {
  const std::vector<options::StoredModel> models = options::listStoredModels();
  struct Row {
    std::string name, store, architecture, size, type;
  };
  std::vector<Row> rows{{"NAME", "STORE", "ARCHITECTURE", "SIZE", "TYPE"}};
  for (const options::StoredModel& m : models) {
    Row r{utf8(m.name), utf8(options::storeName(m.store)), "?", formatBytes(m.bytes), "?"};
    try {
      const ModelFileInfo info = run::inspect(m.path);  // the header or config.json only
      r.architecture = info.config.model_type;
      r.type = info.config.weight_type.empty() ? info.config.format : info.config.weight_type;
    } catch (const std::exception&) {
      r.architecture = "unreadable";  // the reason: --model NAME says it in full
    }
    rows.push_back(std::move(r));
  }
  std::size_t w[4] = {0, 0, 0, 0};
  for (const Row& r : rows) {
    w[0] = std::max(w[0], r.name.size() + 2);
    w[1] = std::max(w[1], r.store.size() + 2);
    w[2] = std::max(w[2], r.architecture.size() + 2);
    w[3] = std::max(w[3], r.size.size() + 2);
  }
  if (models.empty()) {
    QStringList roots;
    for (const auto store : {options::ModelStore::kAttentionLab, options::ModelStore::kOllama,
                             options::ModelStore::kHuggingFace, options::ModelStore::kLmStudio,
                             options::ModelStore::kLlamaCpp})
      roots << options::storeName(store) + QStringLiteral(": ") +
                   (options::storeRoots(store).isEmpty()
                        ? QStringLiteral("no folder")
                        : options::storeRoots(store).join(QStringLiteral(", ")));
    out << "no models found (" << utf8(roots.join(QStringLiteral("; "))) << ")\n";
    return kExitOk;
  }
  for (const Row& r : rows) {
    out << padded(r.name, w[0]) << padded(r.store, w[1]) << padded(r.architecture, w[2])
        << padded(r.size, w[3]) << r.type << "\n";
  }
  return kExitOk;
}

}  // namespace attnlab::cli
