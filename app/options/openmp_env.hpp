#pragma once
/// \file openmp_env.hpp
/// The OpenMP thread pool's waiting, set once per process before libgomp reads it.
///
/// libgomp's idle threads spin 300 000 times before sleeping when there are no more threads than
/// cores. On a machine that is doing something else (a browser, a build, a projector's capture
/// software) the spinning threads take the cores from the ones working: a SmolLM2 pass at 128
/// tokens took 309 ms (p90 467) beside two busy processes against 79 ms on a quiet machine. With
/// GOMP_SPINCOUNT=1000 it took 152 ms (p90 155) loaded and the same 79–82 ms quiet (2-core AMD
/// EPYC, Zen 5). On a 2-core Intel Xeon (5 Dec 2026) 1000 was too short for a pass's closely spaced
/// parallel regions: threads fell asleep between them and each region paid a futex wake-up (3 %
/// of a MiniLM pass in the kernel's scheduler). 10 000 rounds (about 0.1–0.4 ms) took a quiet
/// machine's SmolLM2 pass at 128 tokens from 204 to 190 ms (avx2) and 147 to 134 ms (avx512),
/// MiniLM at 32 tokens from 7.0 to 5.8 and 5.3 to 3.6 ms; beside two busy processes the same
/// SmolLM2 pass took 391–464 ms against 448–516 with 1000 (30 000: 650 ms). libgomp reads its
/// environment when it is loaded, before main(), so the programs set it and start themselves
/// again — once, and only when the user set neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY.

#include <unistd.h>

#include <cstdlib>

namespace attnlab {

/// Call first in main(): with neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY set, sets
/// GOMP_SPINCOUNT=10000 and re-executes the program (/proc/self/exe) with the same arguments.
/// Returns (doing nothing more) when either is set, after the re-execution, or when exec fails.
inline void applyOpenMpWaiting(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") != nullptr || std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (setenv("GOMP_SPINCOUNT", "10000", 0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: then run on with libgomp's defaults
}

}  // namespace attnlab
