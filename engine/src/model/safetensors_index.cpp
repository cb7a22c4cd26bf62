// A sharded safetensors model read through model.safetensors.index.json (safetensors.hpp): each
// shard checked as a single file, then the index checked against what the shards hold.

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/safetensors.hpp"
#include "model/mapped_file.hpp"

namespace attnlab {
namespace {

using json = nlohmann::json;

constexpr std::uintmax_t kMaxIndexBytes = 64u << 20;  // an index lists names: a few MB at most

[[noreturn]] void invalid(const std::filesystem::path& path, const std::string& what) {
  throw Error(ErrorCode::kInvalidInput, path.filename().string() + ": " + what);
}

}  // namespace

void SafeTensors::openIndex() {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path_, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot open " + path_.string() + ": " + ec.message());
  if (size > kMaxIndexBytes) invalid(path_, "the shard index is implausibly large");
  std::ifstream in(path_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw Error(ErrorCode::kIo, "cannot read " + path_.string());
  const json index = json::parse(text.str(), nullptr, false);
  if (index.is_discarded() || !index.is_object()) invalid(path_, "not a well-formed JSON object");
  const auto map = index.find("weight_map");
  if (map == index.end() || !map->is_object() || map->empty()) {
    invalid(path_, "weight_map (tensor name → shard file) is missing or empty");
  }
  std::map<std::string, std::set<std::string>> wanted;  // shard → the tensors the index puts there
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (!it.value().is_string()) invalid(path_, "weight_map " + it.key() + " is not a file name");
    const std::string shard = it.value().get<std::string>();
    if (shard.empty() || shard.find('/') != std::string::npos ||
        shard.find('\\') != std::string::npos || shard == "." || shard == ".." ||
        std::filesystem::path(shard).extension() == ".json") {
      invalid(path_, "weight_map " + it.key() + ": shard \"" + shard +
                         "\" is not a file name in the index's folder");
    }
    wanted[shard].insert(it.key());
  }
  const std::filesystem::path dir = path_.parent_path();
  for (const auto& [shard, names] : wanted) {
    const std::filesystem::path file = dir / shard;
    if (!std::filesystem::is_regular_file(file, ec)) {
      invalid(path_, "shard " + shard + " is missing (the index places " +
                         std::to_string(names.size()) + " tensors in it)");
    }
    shards_.push_back(std::make_unique<SafeTensors>(file));
    for (const std::string& name : names) {
      if (!shards_.back()->contains(name))
        invalid(path_,
                "the index places tensor " + name + " in " + shard + ", which has no such tensor");
    }
  }
  // Every tensor of every shard where the index says, and in no other shard.
  auto shard = wanted.begin();
  for (const auto& part : shards_) {
    for (const auto& [name, view] : part->tensors()) {
      if (shard->second.count(name) == 0) {
        invalid(path_,
                "tensor " + name + " of " + shard->first +
                    (map->contains(name) ? " is also in " + map->at(name).get<std::string>()
                                         : std::string(" is not in the index's weight_map")));
      }
      tensors_.emplace(name, view);  // its data points into the shard's mapping, kept in shards_
    }
    for (const auto& [key, value] : part->metadata()) metadata_.emplace(key, value);
    ++shard;
  }
}

std::vector<std::filesystem::path> SafeTensors::partPaths() const {
  if (file_) return {path_};
  std::vector<std::filesystem::path> out;
  for (const auto& shard : shards_) out.push_back(shard->path());
  return out;
}

std::vector<std::pair<const std::byte*, std::size_t>> SafeTensors::mappedParts() const {
  if (file_) return {{file_->data(), file_->size()}};
  std::vector<std::pair<const std::byte*, std::size_t>> out;
  for (const auto& shard : shards_) out.emplace_back(shard->bytes(), shard->fileBytes());
  return out;
}

std::size_t SafeTensors::totalBytes() const {
  std::size_t total = 0;
  for (const auto& [data, size] : mappedParts()) total += size;
  return total;
}

}  // namespace attnlab
