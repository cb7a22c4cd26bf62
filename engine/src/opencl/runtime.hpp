#pragma once
// The OpenCL runtime of one device: context, queue, the kernels' programs (built per d_k and d_v
// with the variant's -D options, cached) and the attention operations on device buffers.
// Private to the engine; tests include it to drive the kernels with masks the public API does not
// expose (causal offset).
//
// Grouped-query attention: k and v may hold G heads for q's h (G dividing h); query head i reads
// K/V head i / (h/G) = kvHeadOf(i, h, G) (spec.hpp).

#include <CL/opencl.hpp>
#include <atomic>
#include <bit>
#include <cstddef>
#include <future>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab::opencl {

/// Kernel layout: CPU devices want wide vectors and register blocking, GPUs local-memory tiles.
enum class Variant { kCpu, kGpu };

/// Which keys a query sees, and the ALiBi bias, as the kernels take them
/// (kernels/attention_mask.cl, the preamble of every program): MaskPattern's rules (spec.hpp) for a
/// query at position p = i + offset (KV-cache style; the public spec uses offset 0).
struct MaskParams {
  MaskParams() = default;
  /// The causal mask with an offset and a window (the other rules off).
  MaskParams(bool causal_mask, int query_offset, int window_keys) : offset(query_offset) {
    pattern.causal = causal_mask;
    pattern.window = window_keys;
  }

  MaskPattern pattern;  ///< Which keys a query sees (causal, window, global, stride, padding).
  int offset = 0;       ///< The query at row i sits at position i + offset.
  /// ALiBi's slopes m_h, one per query head (Press et al. 2022, §3), or empty for no bias: the
  /// score of (p, j) gains −m_h·(p − j) (causal) or −m_h·|p − j|, after the scale, before the mask.
  std::vector<float> alibi_slopes;

  /// The kernels' mask for a spec: its MaskPattern, and ALiBi's slopes when positions == kAlibi.
  static MaskParams fromSpec(const AttentionSpec& spec);
};

/// The smallest range [lo, hi) of keys holding every key query i sees under m (MaskPattern::span
/// at position i + offset), as the kernels compute it: exact for contiguous masks.
std::pair<int, int> visibleRange(const MaskParams& m, int i, int n_k);
/// True when query i sees key j under m (MaskPattern::visible at position i + offset).
bool keyVisible(const MaskParams& m, int i, int j);

/// Sources of kernels/*.cl by file name: embedded at build time, or read from
/// $ATTNLAB_KERNEL_DIR when that is set. Throws Error(kBackend) when a file is missing.
std::string kernelSource(const std::string& file);

/// A human-readable name for an OpenCL error code ("CL_OUT_OF_RESOURCES").
std::string errorName(cl_int code);

/// What a device allows the GPU-shaped kernels: read from the device when a Runtime opens it
/// (tests lower them through setRuntimeOverridesForTesting).
struct DeviceLimits {
  std::size_t local_memory_bytes = 0;  ///< CL_DEVICE_LOCAL_MEM_SIZE, bytes.
  std::size_t max_work_group = 0;      ///< CL_DEVICE_MAX_WORK_GROUP_SIZE, work-items.
  std::size_t max_work_item[2] = {0, 0};  ///< CL_DEVICE_MAX_WORK_ITEM_SIZES in dimensions 0, 1.
};

/// Tile sizes of the GPU-shaped kernels for one (d_k, d_v), passed as -D options.
struct GpuTiles {
  int queries = 64;  ///< BQ: queries (work-items) per work-group of flash_fwd_gpu.
  int keys = 16;     ///< BKG: keys per local-memory tile of flash_fwd_gpu, BKG·(d_k + d_v) floats.
  int tile = 16;     ///< TILE: edge of the materialised tiles; TILE² work-items per work-group,
                     ///< TILE·d_k floats of local memory in row_norm_gpu.
};

/// The largest tiles (BQ ≤ 64, BKG ≤ 16, TILE ≤ 16, each a power of two) that fit `limits` at
/// widths d_k, d_v. Throws Error(kBackend) naming the limit (CL_DEVICE_LOCAL_MEM_SIZE or
/// CL_DEVICE_MAX_WORK_GROUP_SIZE / CL_DEVICE_MAX_WORK_ITEM_SIZES) and what the kernels need when
/// even tiles of 1 do not fit, so the caller can fall back to the CPU with that reason.
GpuTiles chooseGpuTiles(const DeviceLimits& limits, int d_k, int d_v);
/// The part of chooseGpuTiles for one program: BQ and BKG of flash_attention.cl's GPU kernel, or
/// TILE of materialized_attention.cl's (d_v is named in errors only). Throws as chooseGpuTiles.
void fusedTiles(const DeviceLimits& limits, int d_k, int d_v, GpuTiles& tiles);
void materializedTiles(const DeviceLimits& limits, int d_k, int d_v, GpuTiles& tiles);

/// For tests: what every Runtime opened afterwards uses instead of the device's own variant and
/// limits (std::nullopt members: the device's). Not for production use.
struct RuntimeOverrides {
  std::optional<Variant> variant;
  std::optional<DeviceLimits> limits;
  /// When > 0, every result buffer is surrounded by guard regions of at least this many floats
  /// (rounded up to the device's base-address alignment) filled with a pattern; after each
  /// operation they must come back untouched, else it throws Error(kInternal). On CPU devices the
  /// guards sit around the caller's memory, written in place as in production.
  std::size_t guard_floats = 0;
};
void setRuntimeOverridesForTesting(const RuntimeOverrides& overrides);

/// Per query row, the softmax's normaliser kept as two floats (m, l): m the reference maximum of
/// the raw scores x' (see ScoreScale in attention.hpp) and l = Σ_visible e^{b(x'_j − m)}, so that
/// P = e^{b(x' − m)} / l. A row with no visible key has (−inf, 0). Kept apart because L = m + log l
/// as one float loses digits when |m| is in the thousands (rows then summed to 1 − 2e-5).
/// Layout [h, n_q, 2] row-major: norm[2·(head·n_q + i)] = m, norm[2·(head·n_q + i) + 1] = l.
using RowNorm = FloatStore;

/// Materialised attention on the device: scores, weights and each row's (m, l).
struct Materialized {
  Tensor3 scores;   ///< [h, n_q, n_k], S = b·x' (after the scale, before the mask).
  Tensor3 weights;  ///< [h, n_q, n_k], masked entries exactly 0.
  RowNorm norm;     ///< [h, n_q, 2], (m, l) per row.
};

/// The fused output and the saved (m, l) per row.
struct Fused {
  Tensor3 output;  ///< [h, n_q, d_v].
  RowNorm norm;    ///< [h, n_q, 2].
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

/// One OpenCL device ready to run the attention kernels. Thread-safe: operations on the queue run
/// one at a time; program builds run outside that lock, so prepared() and buildError() answer at
/// once even while a compiler works in the background.
///
/// Scores follow the engine's overflow contract (ScoreScale in attention.hpp): q_scaled is the
/// queries times a, and `score_factor` is b (1 ordinarily).
class Runtime {
 public:
  /// Opens device `device_index` (listOpenClDevices() order) with a context and an in-order queue.
  /// The variant follows the device type unless given. Throws Error(kBackend) naming the failing
  /// call, or Error(kInvalidArgument) for an index out of range.
  Runtime(int device_index, std::optional<Variant> variant = std::nullopt);

  Variant variant() const { return variant_; }
  const std::string& deviceName() const { return device_name_; }
  const DeviceLimits& limits() const { return limits_; }

  /// Builds (or finds in the cache) every program for widths d_k, d_v. Throws Error(kBackend)
  /// with the build log on failure, or naming the device limit the GPU-shaped kernels exceed. A
  /// failed build is kept (and thrown again) until forgetFailedBuilds().
  void prepare(int d_k, int d_v);
  /// True when every program for (d_k, d_v) is built. Never waits for a build in progress.
  bool prepared(int d_k, int d_v);
  /// The kept error of a failed build for (d_k, d_v), if any. Never waits.
  std::optional<Error> buildError(int d_k, int d_v);
  /// Drops the kept failures, so the next prepare() or operation builds those programs again.
  void forgetFailedBuilds();

  /// Two-pass tiled scores and weights. q_scaled [h, n_q, d_k] (the queries times a),
  /// k [G, n_k, d_k] (G dividing h). With `known_norm` ((m, l) from a fused run of the same
  /// inputs) pass 1 is skipped.
  Materialized materialize(const Tensor3& q_scaled, const Tensor3& k, const MaskParams& mask,
                           const RowNorm* known_norm = nullptr, float score_factor = 1.0f);
  /// As materialize, writing into `out` (its tensors are reused when the shapes match, so a
  /// caller that keeps `out` pays for no allocation). On CPU devices the kernels write straight
  /// into out's memory (CL_MEM_USE_HOST_PTR), so the n² results are never copied.
  void materializeInto(const Tensor3& q_scaled, const Tensor3& k, const MaskParams& mask,
                       const RowNorm* known_norm, Materialized& out, float score_factor = 1.0f);
  /// The outputs, (m, l), S and P of one attention call (what computeOnDevice returns), written
  /// into `out` (reused when the shapes match). CPU devices: one kernel (flash_probs_cpu) stores
  /// x' as its fused key loop computes it and then P = e^{b(x' − m)} / l from it, so no score is
  /// computed twice; the n² results land in out's memory (CL_MEM_USE_HOST_PTR). GPU devices: the
  /// fused kernel, then pass 2 of the tiled kernels from its (m, l).
  void attendInto(const Tensor3& q_scaled, const Tensor3& k, const Tensor3& v,
                  const MaskParams& mask, Attended& out, float score_factor = 1.0f);
  /// FlashAttention-2-style fused output. v [G, n_k, d_v].
  Fused fused(const Tensor3& q_scaled, const Tensor3& k, const Tensor3& v, const MaskParams& mask,
              float score_factor = 1.0f);
  /// As fused, writing into `out` (reused when the shapes match: no allocation, and on CPU devices
  /// the kernel writes its memory in place).
  void fusedInto(const Tensor3& q_scaled, const Tensor3& k, const Tensor3& v,
                 const MaskParams& mask, Fused& out, float score_factor = 1.0f);
  /// Mean and max of P over b × b blocks, from the saved (m, l) (one fused or materialised run).
  Pooled pool(const Tensor3& q_scaled, const Tensor3& k, const RowNorm& norm,
              const MaskParams& mask, int b, float score_factor = 1.0f);
  /// Additive attention: energies e = vᵀ tanh(W_a q + U_a k), x' = energy_factor · e, scores
  /// S = score_factor · x', weights, outputs P V. w_a, u_a [h, d_k, d_a], v_a [h, 1, d_a].
  Materialized additive(const Tensor3& q, const Tensor3& k, const Tensor3& w_a,
                        const Tensor3& u_a, const Tensor3& v_a, float energy_factor,
                        float score_factor, const MaskParams& mask, const Tensor3& v,
                        Tensor3* output);

  /// Wall time of the most recent program build in ms (0 when served from the cache).
  double lastBuildMs() const { return last_build_ms_; }

 private:
  cl::Program program(const std::string& file, int d_k, int d_v);
  cl::Program build(const std::string& file, int d_k, int d_v);
  std::string buildOptions(const std::string& file, int d_k, int d_v) const;
  /// A result's device memory: `arg` is what the kernels get, `buffer` the whole allocation
  /// (the same unless guard regions surround the result).
  struct Result {
    cl::Buffer buffer;
    cl::Buffer arg;
    FloatStore* host = nullptr;
    std::size_t guard = 0;  ///< Guard floats on each side (tests), else 0.
  };
  static constexpr float kGuardPattern = std::bit_cast<float>(0xFFC5A5A5u);  // a quiet NaN

  cl::Buffer upload(std::span<const float> data);
  /// ALiBi's m_h / b per query head for the kernels (one unread float when there is no bias).
  /// Throws Error(kInvalidArgument) unless mask has no slopes or one per head.
  cl::Buffer slopes(const MaskParams& mask, int heads, float b);
  cl::Buffer scratch(std::size_t floats);
  /// Read-only input the kernels read in place on CPU devices (data must outlive the call).
  cl::Buffer view(std::span<const float> data);
  /// A buffer for a result that ends in `host`: on CPU devices the kernels write host's memory in
  /// place (CL_MEM_USE_HOST_PTR); elsewhere device memory that collect() reads back.
  Result resultBuffer(FloatStore& host);
  /// Waits for the queue once and brings every result's host memory up to date (checking and
  /// removing guard regions when there are any).
  void collect(std::initializer_list<Result*> results);

  /// Throws Error(kBackend) when `kernel` cannot run work-groups of `size` on this device
  /// (CL_KERNEL_WORK_GROUP_SIZE, which register use can put below the device's limit).
  void requireWorkGroup(const cl::Kernel& kernel, std::size_t size, const char* name) const;

  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  Variant variant_ = Variant::kCpu;
  std::string device_name_;
  DeviceLimits limits_;
  std::size_t guard_floats_ = 0;
  // Built (or failed, or building) programs; a failure stays as the future's exception.
  std::map<std::tuple<std::string, int, int>, std::shared_future<cl::Program>> programs_;
  std::mutex programs_mutex_;  // guards programs_ only; never held while compiling
  std::recursive_mutex mutex_;  // the queue: one operation at a time
  std::atomic<double> last_build_ms_{0};
};

}  // namespace attnlab::opencl
