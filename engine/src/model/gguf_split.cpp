// A GGUF model split into several files by llama.cpp's gguf-split (gguf.hpp): the first part
// names the count, the siblings are found beside it by name, and every part is checked as a single
// file before its tensors join the first part's.

#include <cstdio>
#include <regex>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "model/mapped_file.hpp"

namespace attnlab {
namespace {

// gguf-split's names: PREFIX-00001-of-00003.gguf (llama_split_path: "%s-%05d-of-%05d.gguf").
const std::regex kSplitName(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");

std::string partName(const std::string& prefix, int no, int count) {
  char tail[32];
  std::snprintf(tail, sizeof tail, "-%05d-of-%05d.gguf", no, count);
  return prefix + tail;
}

}  // namespace

void GgufFile::openSplitParts() {
  const std::optional<std::int64_t> count = integer("split.count");
  if (!count || *count <= 1) return;
  const std::string name = path_.filename().string();
  if (*count > 9999) fail("split.count " + std::to_string(*count) + " is implausibly large");
  const auto n = static_cast<int>(*count);
  const std::int64_t no = requireInteger("split.no");
  std::smatch match;
  const bool named = std::regex_match(name, match, kSplitName);
  if (no != 0) {
    fail("this is part " + std::to_string(no + 1) + " of " + std::to_string(n) +
         " of a split model: open its first part" +
         (named ? ", " + partName(match[1].str(), 1, n) : std::string()));
  }
  if (!named || std::stoi(match[2].str()) != 1 || std::stoi(match[3].str()) != n) {
    fail("split.count says the model is split into " + std::to_string(n) +
         " files, but the name does not follow gguf-split's PREFIX-00001-of-" +
         partName("", n, n).substr(10) + " (the other parts are found by that name)");
  }
  const std::string prefix = match[1].str();
  std::int64_t total = static_cast<std::int64_t>(tensors_.size());
  for (int i = 2; i <= n; ++i) {
    const std::filesystem::path sibling = path_.parent_path() / partName(prefix, i, n);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(sibling, ec)) {
      fail("part " + std::to_string(i) + " of " + std::to_string(n) + ", " +
           sibling.filename().string() + ", is missing (expected beside " + name + ")");
    }
    auto part = std::unique_ptr<GgufFile>(new GgufFile(sibling, PartTag{}));
    const std::optional<std::int64_t> part_no = part->integer("split.no");
    const std::optional<std::int64_t> part_count = part->integer("split.count");
    if (!part_no || *part_no != i - 1 || !part_count || *part_count != n) {
      part->fail("split.no and split.count should say part " + std::to_string(i) + " of " +
                 std::to_string(n) + ", not " +
                 (part_no ? std::to_string(*part_no + 1) : std::string("(missing)")) + " of " +
                 (part_count ? std::to_string(*part_count) : std::string("(missing)")));
    }
    for (const GgufTensor& t : part->tensors()) {
      if (tensor_index_.count(t.name) != 0) {
        part->fail("tensor " + t.name + " is also in an earlier part of the split model");
      }
    }
    total += static_cast<std::int64_t>(part->tensors().size());
    parts_.push_back(std::move(part));
  }
  const std::optional<std::int64_t> expected = integer("split.tensors.count");
  if (expected && *expected != total) {
    fail("split.tensors.count says " + std::to_string(*expected) + " tensors, but the " +
         std::to_string(n) + " parts hold " + std::to_string(total));
  }
  for (const auto& part : parts_) {
    for (const GgufTensor& t : part->tensors()) {
      tensor_index_.emplace(t.name, tensors_.size());
      tensors_.push_back(t);  // its data points into the part's mapping, which parts_ keeps
    }
  }
}

std::uint64_t GgufFile::totalBytes() const {
  std::uint64_t total = map_size_;
  for (const auto& part : parts_) total += part->fileBytes();
  return total;
}

std::vector<std::filesystem::path> GgufFile::partPaths() const {
  std::vector<std::filesystem::path> paths{path_};
  for (const auto& part : parts_) paths.push_back(part->path());
  return paths;
}

std::vector<std::pair<const std::byte*, std::size_t>> GgufFile::mappedParts() const {
  std::vector<std::pair<const std::byte*, std::size_t>> out{{bytes(), map_size_}};
  for (const auto& part : parts_) out.emplace_back(part->bytes(), part->fileBytes());
  return out;
}

}  // namespace attnlab
