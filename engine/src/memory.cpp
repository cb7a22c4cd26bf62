// Usable memory and the default budget (see attnlab/memory.hpp).

#include "attnlab/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace attnlab {
namespace {

// A limit read from a cgroup file: a number of bytes, or "max" (none); 0 when absent.
long long cgroupLimit(const char* path) {
  std::ifstream in(path);
  std::string value;
  if (!(in >> value) || value == "max") return 0;
  try {
    const long long v = std::stoll(value);
    return v > 0 && v < (1LL << 60) ? v : 0;  // v1 says "no limit" with a huge number
  } catch (...) {
    return 0;
  }
}

}  // namespace

long long usableMemoryBytes() {
  long long usable = std::numeric_limits<long long>::max();
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) usable = static_cast<long long>(pages) * page;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const long long limit = cgroupLimit(path);
    if (limit > 0) usable = std::min(usable, limit);
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    usable = std::min(usable, static_cast<long long>(as.rlim_cur));
  }
  return usable == std::numeric_limits<long long>::max() ? (8LL << 30) : usable;
}

long long defaultMemoryBudget() { return usableMemoryBytes() / 2; }

std::string formatBytes(long long bytes) {
  const double b = static_cast<double>(std::max(0LL, bytes));
  char out[32];
  if (b >= 1e9) {
    std::snprintf(out, sizeof out, "%.3g GB", b / 1e9);
  } else if (b >= 1e6) {
    std::snprintf(out, sizeof out, "%.3g MB", b / 1e6);
  } else if (b >= 1e3) {
    std::snprintf(out, sizeof out, "%.3g kB", b / 1e3);
  } else {
    std::snprintf(out, sizeof out, "%lld bytes", std::max(0LL, bytes));
  }
  return out;
}

}  // namespace attnlab
