// The mapped weights of a pretrained model (pretrained.hpp): the pages this process holds, the
// first touch of every part, and the memory budget that counts them. A model's weights may lie in
// several mapped files (a split GGUF's parts, a sharded folder's shards): each is one entry of
// mapped_.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/pretrained.hpp"

namespace attnlab {

long long PretrainedModel::residentWeightBytes() const {
  if (mapped_.empty()) return 0;
  // Each mapping's "Rss:" in /proc/self/smaps: the file's pages this process has touched (mincore
  // would also count pages in the page cache that it never read).
  std::ifstream smaps("/proc/self/smaps");
  long long total = 0;
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = false;
      for (const auto& [data, size] : mapped_) {
        const auto address = reinterpret_cast<std::uintptr_t>(data);
        if (size > 0 && lo <= address && address < hi) inside = true;
      }
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0) {
      std::istringstream value(line.substr(4));
      long long kb = 0;
      value >> kb;
      total += kb * 1024;
      inside = false;
    }
  }
  return total;
}

void PretrainedModel::touchWeights(
    const std::function<bool(long long done, long long total)>& progress) const {
  long long total = 0;
  for (const auto& part : mapped_) total += static_cast<long long>(part.second);
  if (total == 0) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  constexpr std::size_t kChunk = 64u << 20;  // 64 MB between reports
  long long before = 0;                      // bytes of the parts already read
  for (const auto& [data, size] : mapped_) {
    if (size == 0) continue;
    const auto base = reinterpret_cast<std::uintptr_t>(data) / page * page;
    const std::size_t length = reinterpret_cast<std::uintptr_t>(data) + size - base;
    for (std::size_t begin = 0; begin < length; begin += kChunk) {
      const std::size_t end = std::min(length, begin + kChunk);
      // The kernel maps the chunk's pages in one call (reading them from disk when the file is
      // not cached: Linux 5.14's MADV_POPULATE_READ), else a read of one byte per page maps it.
      bool populated = false;
#ifdef MADV_POPULATE_READ
      populated =
          madvise(reinterpret_cast<void*>(base + begin), end - begin, MADV_POPULATE_READ) == 0;
#endif
      if (!populated) {
        const volatile std::byte* bytes = reinterpret_cast<const std::byte*>(base);
        for (std::size_t p = begin; p < end; p += page) (void)bytes[p];
      }
      const long long done =
          before +
          std::min(static_cast<long long>(size),
                   static_cast<long long>(end) -
                       static_cast<long long>(reinterpret_cast<std::uintptr_t>(data) - base));
      if (progress && !progress(done, total)) {
        throw Error(ErrorCode::kCancelled, "reading the weights was cancelled");
      }
    }
    before += static_cast<long long>(size);
  }
}

long long PretrainedModel::memoryBudget(const ModelRunOptions& options) const {
  if (options.memory_budget > 0) return options.memory_budget;
  // The weights' pages in memory (mincore: in the page cache, which a cgroup is charged for,
  // whether or not this process has read them yet) — one system call, not a read of smaps.
  long long cached = 0, mapped_bytes = 0;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (const auto& [data, size] : mapped_) {
    if (size == 0) continue;
    mapped_bytes += static_cast<long long>(size);
    const auto first = reinterpret_cast<std::uintptr_t>(data) / page * page;
    const std::size_t length = reinterpret_cast<std::uintptr_t>(data) + size - first;
    std::vector<unsigned char> in_core((length + page - 1) / page);
    if (mincore(reinterpret_cast<void*>(first), length, in_core.data()) == 0) {
      long long pages = 0;
      for (const unsigned char c : in_core) pages += c & 1;
      cached += std::min(pages * static_cast<long long>(page), static_cast<long long>(size));
    }
  }
  // Weights copied at load (BERT, GPT-2) are this process's already: not available, yet counted.
  const long long held = mapped_.empty() ? weight_bytes_.total : 0;
  return defaultMemoryBudget(mapped_bytes, cached, held);
}

}  // namespace attnlab
