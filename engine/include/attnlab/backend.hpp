#pragma once
/// \file backend.hpp
/// Compute backends behind one interface (the CPU reference, OpenCL), the choice between them,
/// and the OpenCL devices there are.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention.hpp"

namespace attnlab {

/// A device that computes attention. Implementations: the CPU reference (Eigen, makeCpuBackend),
/// which every other backend is checked against, and OpenCL (engine/src/opencl: the tiled and
/// fused kernels of kernels/*.cl on one device, falling back to the CPU per result with the
/// reason), present when the engine is built with ATTNLAB_WITH_OPENCL. selectBackend chooses.
class Backend {
 public:
  virtual ~Backend() = default;
  /// "cpu" or "opencl".
  virtual std::string name() const = 0;
  /// Human-readable device name (CPU model or OpenCL device).
  virtual std::string device() const = 0;
  /// Computes scores, weights, head outputs and statistics; see computeAttentionCpu for the
  /// contract every backend follows. Throws Error on invalid shapes or backend failure.
  virtual AttentionResult compute(const AttentionInputs& inputs, const AttentionSpec& spec) = 0;
  /// Forgets a kept accelerator failure (a kernel build that failed or does not fit the device,
  /// a device that did not open), so the next compute tries again — in kBackground mode in the
  /// background, answering on the CPU meanwhile. What a "retry" button calls. Until then every
  /// result computed in its place carries that failure as fallback_reason. No-op for the CPU.
  virtual void retry() {}
};

/// The CPU reference backend.
std::unique_ptr<Backend> makeCpuBackend();

/// A chosen backend plus, when a requested accelerator could not be used, why.
struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string fallback_reason;  ///< Empty when the requested backend is the one returned.
};

/// When an OpenCL backend builds its kernel programs (PoCL: ~0.6–1 s cold, ~30 ms from its cache).
enum class BuildMode {
  kWait,        ///< Before the first result (the CLI, explicit --backend opencl).
  kBackground,  ///< In the background; results come from the CPU until the programs are ready,
                ///< so the window's first picture never waits on the compiler.
};

/// Which backend to use, the choice a caller makes once at its edge (--backend, the window's box).
enum class BackendKind {
  kAuto,    ///< OpenCL when a device builds the kernels, else the CPU.
  kCpu,     ///< The CPU reference.
  kOpenCl,  ///< OpenCL; the CPU only when the device fails (said in the result).
};

/// "auto", "cpu" or "opencl": the kind's name as --backend spells it.
std::string toString(BackendKind kind);
/// The kind named "auto", "cpu" or "opencl"; throws Error(kInvalidArgument) "unknown backend
/// 'cuda' (use auto, cpu or opencl)" for any other name.
BackendKind parseBackendKind(std::string_view name);

/// Picks a backend of `kind` (kAuto: OpenCL when a device builds the kernels, else the CPU).
/// `device_index` selects among OpenCL devices in listOpenClDevices() order.
/// Without a usable OpenCL device the CPU backend is returned with fallback_reason set (and set
/// on every AttentionResult it computes); with one,
/// every later failure (build error, CL_OUT_OF_RESOURCES, allocation failure) falls back to the
/// CPU for that result and says so in AttentionResult::fallback_reason.
/// Throws Error(kInvalidArgument) for a device index that does not exist.
BackendChoice selectBackend(BackendKind kind, int device_index = 0,
                            BuildMode mode = BuildMode::kWait);

/// One OpenCL device as the ICD loader reports it.
struct DeviceInfo {
  std::string platform;  ///< Platform name, e.g. "Portable Computing Language".
  std::string name;      ///< Device name.
  std::string type;      ///< "cpu", "gpu", "accelerator" or "other".
  std::string version;   ///< CL_DEVICE_VERSION string.
  int compute_units = 0;
  unsigned long long global_memory_bytes = 0;
};

/// Lists OpenCL devices across platforms. On failure (no ICD, no platform, built without OpenCL)
/// returns an empty list and sets *why to the reason when why is not null.
std::vector<DeviceInfo> listOpenClDevices(std::string* why = nullptr);

/// A short description of the host CPU (model name from /proc/cpuinfo where available).
std::string cpuDeviceName();

}  // namespace attnlab
