/// \file cli_runs.cpp
/// The CLI's side of a run: progress on a terminal and the CPU-fallback note (commands.hpp).

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "attnlab/memory.hpp"
#include "cli/commands.hpp"

namespace attnlab::cli {

namespace {

/// ATTNLAB_PROGRESS=1: progress lines also off a terminal, one per report from the first on
/// (the tests read them); otherwise only on a terminal, from a second on, rewritten in place.
bool progressForced() { return std::getenv("ATTNLAB_PROGRESS") != nullptr; }

}  // namespace

std::function<bool(int, int)> terminalProgress(const char* unit) {
  const bool forced = progressForced();
  if (isatty(STDERR_FILENO) == 0 && !forced) return {};
  const auto start = std::chrono::steady_clock::now();
  auto shown = std::make_shared<bool>(false);
  return [start, shown, forced, unit](int done, int total) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done >= total) {
      if (*shown && !forced) std::fprintf(stderr, "\r\033[K");
    } else if (forced) {
      std::fprintf(stderr, "attention-lab-cli: %s %d of %d\n", unit, done, total);
      *shown = true;
    } else if (s >= 1.0) {
      std::fprintf(stderr, "\rattention-lab-cli: %s %d of %d, %.1f s\033[K", unit, done, total, s);
      *shown = true;
    }
    std::fflush(stderr);
    return true;
  };
}

std::function<void(const MemoryNeeds&)> memoryReport() {
  if (isatty(STDERR_FILENO) == 0 && std::getenv("ATTNLAB_MEMORY_REPORT") == nullptr) return {};
  return [](const MemoryNeeds& m) {
    std::fprintf(stderr,
                 "attention-lab-cli: memory: weights %s, activations %s, attention %s; about %s "
                 "at the peak with the %s this process holds\n",
                 formatBytes(m.weights).c_str(), formatBytes(m.activations).c_str(),
                 formatBytes(m.attention).c_str(), formatBytes(m.peak()).c_str(),
                 formatBytes(m.process).c_str());
  };
}

/// On a terminal: the first touch of a newly loaded model's weights, rewritten in place once it
/// has taken a second ("reading the weights, 2.1 GB of 8.53 GB"). Elsewhere none: the first pass
/// reads the pages as it needs them.
std::function<bool(long long, long long)> terminalReading() {
  if (isatty(STDERR_FILENO) == 0) return {};
  const auto start = std::chrono::steady_clock::now();
  auto shown = std::make_shared<bool>(false);
  return [start, shown](long long done, long long total) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done >= total) {
      if (*shown) std::fprintf(stderr, "\r\033[K");
    } else if (s >= 1.0) {
      std::fprintf(stderr, "\rattention-lab-cli: reading the weights, %s of %s\033[K",
                   formatBytes(done).c_str(), formatBytes(total).c_str());
      *shown = true;
    }
    std::fflush(stderr);
    return true;
  };
}

run::RunHooks cliHooks(bool allow_overview, const char* unit) {
  run::RunHooks hooks;
  hooks.progress = terminalProgress(unit);
  hooks.reading = terminalReading();
  hooks.memory = memoryReport();
  hooks.allow_overview = allow_overview;
  return hooks;
}

std::shared_ptr<const results::Run> runNoted(run::Session& session, const options::LabSettings& lab,
                                         std::ostream& err, bool allow_overview) {
  std::shared_ptr<const results::Run> r = session.run(lab, cliHooks(allow_overview));
  if (const std::string note = r->fallbackNote(); !note.empty())
    err << "attention-lab-cli: note: computed on the CPU: " << note << "\n";
  return r;
}

}  // namespace attnlab::cli
