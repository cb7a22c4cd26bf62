#pragma once
// The OpenCL runtime of one device: context, queue, the kernels' programs (built per d_k and d_v
// with the variant's -D options, cached) and the attention operations on device buffers.
// Private to the engine; tests include it to drive the kernels with masks the public API does not
// expose yet (causal offset, window).

#include <CL/opencl.hpp>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab::opencl {

/// Kernel layout: CPU devices want wide vectors and register blocking, GPUs local-memory tiles.
enum class Variant { kCpu, kGpu };

/// Which keys a query sees: [lo, hi) with hi = min(i + 1 + offset, n_k) when causal (else n_k)
/// and lo = max(0, i + offset − window + 1) when causal and window > 0 (else 0).
struct MaskParams {
  bool causal = false;
  int offset = 0;
  int window = 0;
};

/// The visible key range of query i under m, as the kernels compute it.
std::pair<int, int> visibleRange(const MaskParams& m, int i, int n_k);

/// Sources of kernels/*.cl by file name: embedded at build time, or read from
/// $ATTNLAB_KERNEL_DIR when that is set. Throws Error(kBackend) when a file is missing.
std::string kernelSource(const std::string& file);

/// A human-readable name for an OpenCL error code ("CL_OUT_OF_RESOURCES").
std::string errorName(cl_int code);

/// Materialised attention on the device: scores, weights and L = m + log l per row.
struct Materialized {
  Tensor3 scores;           ///< [h, n_q, n_k], after the scale, before the mask.
  Tensor3 weights;          ///< [h, n_q, n_k], masked entries exactly 0.
  std::vector<float> lse;   ///< [h·n_q], −inf for a row with no visible key.
};

/// The fused output and the saved log-sum-exp.
struct Fused {
  Tensor3 output;          ///< [h, n_q, d_v].
  std::vector<float> lse;  ///< [h·n_q].
};

/// The materialised path with the outputs: everything one heatmap call needs.
struct Attended : Materialized {
  Tensor3 output;  ///< [h, n_q, d_v], P V.
};

/// Block-pooled weights.
struct Pooled {
  Tensor3 mean;  ///< [h, ceil(n_q / b), ceil(n_k / b)], masked cells counted as 0.
  Tensor3 max;   ///< Same shape.
};

/// One OpenCL device ready to run the attention kernels. Thread-safe: one operation at a time.
class Runtime {
 public:
  /// Opens device `device_index` (listOpenClDevices() order) with a context and an in-order queue.
  /// The variant follows the device type unless given. Throws Error(kBackend) naming the failing
  /// call, or Error(kInvalidArgument) for an index out of range.
  Runtime(int device_index, std::optional<Variant> variant = std::nullopt);

  Variant variant() const { return variant_; }
  const std::string& deviceName() const { return device_name_; }

  /// Builds (or finds in the cache) every program for widths d_k, d_v. Throws Error(kBackend)
  /// with the build log on failure.
  void prepare(int d_k, int d_v);
  /// True when prepare(d_k, d_v) has completed.
  bool prepared(int d_k, int d_v);

  /// Two-pass tiled scores and weights. q_scaled [h, n_q, d_k] (already multiplied by the scale),
  /// k [h, n_k, d_k]. With `known_lse` (L from a fused run of the same inputs) pass 1 is skipped.
  Materialized materialize(const Tensor3& q_scaled, const Tensor3& k, const MaskParams& mask,
                           const std::vector<float>* known_lse = nullptr);
  /// As materialize, writing into `out` (its tensors are reused when the shapes match, so a
  /// caller that keeps `out` pays for no allocation). On CPU devices the kernels write straight
  /// into out's memory (CL_MEM_USE_HOST_PTR), so the n² results are never copied.
  void materializeInto(const Tensor3& q_scaled, const Tensor3& k, const MaskParams& mask,
                       const std::vector<float>* known_lse, Materialized& out);
  /// The outputs, L, S and P of one attention call (what computeOnDevice returns), written into
  /// `out` (reused when the shapes match). CPU devices: one kernel (flash_probs_cpu) stores S as
  /// its fused key loop computes it and then P = exp(S − L) from that S, so no score is computed
  /// twice; the n² results land in out's memory (CL_MEM_USE_HOST_PTR). GPU devices: the fused
  /// kernel, then pass 2 of the tiled kernels from its L.
  void attendInto(const Tensor3& q_scaled, const Tensor3& k, const Tensor3& v,
                  const MaskParams& mask, Attended& out);
  /// FlashAttention-2-style fused output. v [h, n_k, d_v].
  Fused fused(const Tensor3& q_scaled, const Tensor3& k, const Tensor3& v, const MaskParams& mask);
  /// Mean and max of P over b × b blocks, from the saved lse (one fused or materialised run).
  Pooled pool(const Tensor3& q_scaled, const Tensor3& k, const std::vector<float>& lse,
              const MaskParams& mask, int b);
  /// Additive attention: scores e = scale · vᵀ tanh(W_a q + U_a k), weights, outputs P V.
  /// w_a, u_a [h, d_k, d_a], v_a [h, 1, d_a].
  Materialized additive(const Tensor3& q, const Tensor3& k, const Tensor3& w_a,
                        const Tensor3& u_a, const Tensor3& v_a, double scale,
                        const MaskParams& mask, const Tensor3& v, Tensor3* output);

  /// Wall time of the most recent program build in ms (0 when served from the cache).
  double lastBuildMs() const { return last_build_ms_; }

 private:
  cl::Program& program(const std::string& file, int d_k, int d_v);
  std::string buildOptions(int d_k, int d_v) const;
  cl::Buffer upload(const std::vector<float>& data);
  cl::Buffer scratch(std::size_t floats);
  /// Read-only input the kernels read in place on CPU devices (data must outlive the call).
  cl::Buffer view(const std::vector<float>& data);
  /// A buffer for a result that ends in `host`: on CPU devices the kernels write host's memory in
  /// place (CL_MEM_USE_HOST_PTR); elsewhere device memory that collect() reads back.
  cl::Buffer resultBuffer(std::vector<float>& host);
  /// Waits for the queue once and brings every (resultBuffer, host) pair up to date.
  void collect(std::initializer_list<std::pair<cl::Buffer*, std::vector<float>*>> results);

  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  Variant variant_ = Variant::kCpu;
  std::string device_name_;
  std::map<std::tuple<std::string, int, int>, cl::Program> programs_;
  std::recursive_mutex mutex_;
  double last_build_ms_ = 0;
};

}  // namespace attnlab::opencl
