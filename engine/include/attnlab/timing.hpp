#pragma once
/// \file timing.hpp
/// Measured speed of this machine's attention paths on random inputs, so that the cost panel
/// (attention-lab-cli cost --measure, the window's cost panel) and attention-lab-bench time the
/// same code in the same way: the paths take turns within each round after one warm-up call of
/// each (a noisy moment of a shared machine hits them alike), and the median is reported. A
/// measurement, never a test: callers print it beside its reference.

#include <memory>
#include <string>
#include <vector>

namespace attnlab {

/// One way of computing attention.
enum class TimedPath {
  kCpuReference,   ///< The engine's CPU backend (computeAttentionCpu: S, P, outputs, statistics).
  kEigenBaseline,  ///< A bare Eigen loop per head: S = (αQ)Kᵀ, row softmax, O = P V (the bench's
                   ///< baseline, without the reference's statistics and overflow guards).
  kOpenClTiled,    ///< OpenCL, materialised (outputs, L, S and P: what the heatmaps use).
  kOpenClFused,    ///< OpenCL, fused FlashAttention-style output and L only (O(n) memory).
};

/// "cpu reference", "eigen", "opencl tiled", "opencl fused".
std::string toString(TimedPath path);

/// One timed problem: h heads of n queries and n keys of width d_k (d_v = d_k), scaled by
/// 1/√d_k; inputs drawn from N(0, 1) with fixed seeds.
struct TimingCase {
  int n = 512;
  int heads = 1;
  int d_k = 64;
  bool causal = false;
  /// Sliding window W (MaskPattern::window; 0: none), honoured by the OpenCL paths, whose kernels
  /// skip the key blocks outside it; the CPU reference and the Eigen baseline ignore it.
  int window = 0;
};

/// The result of one path on one case.
struct PathTime {
  TimedPath path = TimedPath::kCpuReference;
  double median_ms = 0;    ///< Median wall time of one call, ms (valid when ran).
  bool ran = false;        ///< False: skipped, see `skipped`.
  std::string skipped;     ///< Why the path was not run ("needs 8.0 GiB", "no OpenCL device").
  double extra_bytes = 0;  ///< Memory beyond Q, K, V and the outputs, bytes.
};

/// Times attention paths. Holds the inputs' generator and, when OpenCL is wanted and a device
/// opens, one OpenCL runtime (its programs are built once per d_k and kept).
class AttentionTimer {
 public:
  /// opencl: try to open OpenCL device `device` (listOpenClDevices order); failure is recorded
  /// (openClUnavailable()), never thrown.
  explicit AttentionTimer(bool opencl = true, int device = 0);
  ~AttentionTimer();
  AttentionTimer(const AttentionTimer&) = delete;
  AttentionTimer& operator=(const AttentionTimer&) = delete;

  /// True when an OpenCL device is open.
  bool hasOpenCl() const;
  /// Why OpenCL paths are skipped (empty when a device is open).
  const std::string& openClUnavailable() const;
  /// The OpenCL device's name (empty without one).
  std::string openClDevice() const;
  /// True when the device runs the CPU-shaped kernels (PoCL), false for GPU-shaped ones.
  bool cpuShapedKernels() const;
  /// Builds the OpenCL programs for d_k (no-op without a device); returns the build's wall time
  /// in ms (small when PoCL's kernel cache serves them). Throws Error(kBackend) when a build fails.
  double prepare(int d_k);

  /// Times `paths` on `problem`: one warm-up call of each, then `runs` rounds in which the paths
  /// take turns; the median per path. A path needing more than max_bytes of extra memory, or an
  /// OpenCL path without a device, is skipped with the reason. Throws Error(kInvalidArgument)
  /// for n, heads, d_k or runs < 1, Error(kBackend) when an OpenCL call fails.
  std::vector<PathTime> time(const TimingCase& problem, const std::vector<TimedPath>& paths,
                             int runs, double max_bytes);

  /// Extra memory of `path` on `problem`, bytes: the reference keeps S and P for all heads
  /// (2·h·n²·4), the Eigen baseline one head's P (n²·4), the tiled path S and P (on GPUs a device
  /// copy as well), the fused path Q transposed and L (h·n·(d_k + 1)·4).
  double extraBytes(TimedPath path, const TimingCase& problem) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attnlab
