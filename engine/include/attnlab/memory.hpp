#pragma once
/// \file memory.hpp
/// How much memory a run may keep, known before the work starts: the machine's usable memory and
/// the default budget for the attention matrices a run keeps.

#include <string>

namespace attnlab {

/// The memory this process can use, in bytes: the smallest of the physical memory
/// (sysconf(_SC_PHYS_PAGES) · page size), the cgroup's limit (cgroup v2 memory.max, v1
/// memory.limit_in_bytes) and the address-space limit (RLIMIT_AS), whichever are set.
long long usableMemoryBytes();

/// The default memory budget of one run's kept attention: half of usableMemoryBytes() (the
/// pictures, filtered copies and JSON drawn from them can take as much again).
long long defaultMemoryBudget();

/// Bytes as people read them: "812 MB", "26.1 GB" (powers of 1000, three significant digits).
std::string formatBytes(long long bytes);

}  // namespace attnlab
