#pragma once
/// \file memory.hpp
/// How much memory a run may take, known before the work starts: the memory available now and the
/// default budget of one run (its weights, activations, kept attention and KV cache together;
/// PretrainedModel::memoryNeeds).

#include <string>

namespace attnlab {

/// The memory this process can use, in bytes: the smallest of the physical memory
/// (sysconf(_SC_PHYS_PAGES) · page size), the cgroup's limit (cgroup v2 memory.max, v1
/// memory.limit_in_bytes) and the address-space limit (RLIMIT_AS), whichever are set.
long long usableMemoryBytes();

/// The memory this process can take now, in bytes: MemAvailable (/proc/meminfo: free memory plus
/// what the kernel can reclaim from its caches without swapping — a model file's pages in the
/// page cache included, mapped or not), capped by the room a cgroup limit leaves (memory.max −
/// memory.current) and the address-space limit leaves (RLIMIT_AS − VmSize), plus what malloc
/// holds free for reuse (mallinfo2's fordblks). `mapped` and `resident` are bytes of a model
/// this process has mapped, and of those in memory now, that the caller's estimate counts
/// again: added back to the address space's room (mapped) and the cgroup's (resident), which
/// already count them. Without /proc/meminfo: usableMemoryBytes().
long long availableMemoryBytes(long long mapped = 0, long long resident = 0);

/// The share of availableMemoryBytes() one run may take by default: the rest is left for the
/// pictures, JSON and copies drawn from it, and for the other programs of the machine.
constexpr double kDefaultBudgetShare = 0.8;

/// The default memory budget of one run: kDefaultBudgetShare · (availableMemoryBytes(mapped,
/// resident) + held), `held` being memory this process holds already that the run's estimate
/// counts too (a model's weights copied at load: not available, yet no new memory).
long long defaultMemoryBudget(long long mapped = 0, long long resident = 0, long long held = 0);

/// This process's resident memory now (VmRSS, /proc/self/status), bytes; 0 where unknown.
long long processResidentBytes();

/// Bytes as people read them: "812 MB", "26.1 GB" (powers of 1000, three significant digits).
std::string formatBytes(long long bytes);

}  // namespace attnlab
