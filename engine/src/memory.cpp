// Usable memory and the default budget (see attnlab/memory.hpp).

#include "attnlab/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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

namespace {

/// The value of `key` ("MemAvailable:", "VmSize:") in a /proc file of "key value kB" lines, in
/// bytes; 0 when absent.
long long procKilobytes(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  long long value = 0;
  std::string unit;
  while (in >> name) {
    if (name == key) {
      in >> value >> unit;
      return value * 1024;
    }
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

}  // namespace

long long availableMemoryBytes(long long mapped, long long resident) {
  long long available = procKilobytes("/proc/meminfo", "MemAvailable:");
  if (available <= 0) available = usableMemoryBytes();
  available = std::min(available, usableMemoryBytes());
  const long long limit = cgroupLimit("/sys/fs/cgroup/memory.max");
  if (limit > 0) {
    std::ifstream in("/sys/fs/cgroup/memory.current");
    long long current = 0;
    if (in >> current) available = std::min(available, limit - current + resident);
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const long long vm = procKilobytes("/proc/self/status", "VmSize:");
    available = std::min(available, static_cast<long long>(as.rlim_cur) - vm + mapped);
  }
#ifdef __GLIBC__
  available += static_cast<long long>(mallinfo2().fordblks);
#endif
  return std::max(available, 0LL);
}

long long processResidentBytes() { return procKilobytes("/proc/self/status", "VmRSS:"); }

long long defaultMemoryBudget(long long mapped, long long resident, long long held) {
  return static_cast<long long>(
      kDefaultBudgetShare * static_cast<double>(availableMemoryBytes(mapped, resident) + held));
}

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
