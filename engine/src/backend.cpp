#include "attnlab/backend.hpp"

#include <fstream>
#include <sstream>
#include <utility>

#include "attnlab/error.hpp"
#ifdef ATTNLAB_WITH_OPENCL
#include "opencl/opencl_backend.hpp"
#endif

namespace attnlab {

namespace {

// The CPU reference; when it stands in for OpenCL, every result carries the reason.
class CpuBackend final : public Backend {
 public:
  CpuBackend() = default;
  CpuBackend(FallbackCode code, std::vector<std::string> args)
      : code_(code), args_(std::move(args)) {}
  std::string name() const override { return "cpu"; }
  std::string device() const override { return cpuDeviceName(); }
  AttentionResult compute(const AttentionInputs& inputs, const AttentionSpec& spec) override {
    AttentionResult r = computeAttentionCpu(inputs, spec);
    r.device = device();
    if (code_ != FallbackCode::kNone) r.setFallback(code_, args_);
    return r;
  }

 private:
  FallbackCode code_ = FallbackCode::kNone;
  std::vector<std::string> args_;
};

// listOpenClDevices' reason for an empty list, as a fallback code (its three sentences).
std::pair<FallbackCode, std::vector<std::string>> fallbackOfListing(const std::string& why) {
  const std::string platform = "no OpenCL platform (";
  if (why.rfind(platform, 0) == 0 && why.size() > platform.size())
    return {FallbackCode::kNoPlatform, {why.substr(platform.size(), why.size() - platform.size() - 1)}};
  if (why.rfind("this build has no OpenCL", 0) == 0) return {FallbackCode::kNoOpenClBuild, {}};
  return {FallbackCode::kNoDevice, {}};
}

}  // namespace

std::string cpuDeviceName() {
  static const std::string name = [] {
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line)) {
      if (line.rfind("model name", 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
      }
    }
    return std::string("CPU");
  }();
  return name;
}

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

std::string toString(BackendKind kind) {
  switch (kind) {
    case BackendKind::kCpu: return "cpu";
    case BackendKind::kOpenCl: return "opencl";
    case BackendKind::kAuto: break;
  }
  return "auto";
}

BackendKind parseBackendKind(std::string_view name) {
  for (const BackendKind kind : {BackendKind::kAuto, BackendKind::kCpu, BackendKind::kOpenCl})
    if (name == toString(kind)) return kind;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown backend '" + std::string(name) + "' (use auto, cpu or opencl)");
}

BackendChoice selectBackend(BackendKind kind, int device_index, BuildMode mode) {
  BackendChoice choice;
  if (kind == BackendKind::kCpu) {
    choice.backend = makeCpuBackend();
    return choice;
  }
  std::string why;
  const auto devices = listOpenClDevices(&why);
  if (!devices.empty() && (device_index < 0 || device_index >= static_cast<int>(devices.size())))
    throw Error(ErrorCode::kInvalidArgument,
                "OpenCL device " + std::to_string(device_index) + " does not exist (there are " +
                    std::to_string(devices.size()) + "; see the info command)");
#ifdef ATTNLAB_WITH_OPENCL
  if (!devices.empty()) {
    choice.backend = opencl::makeAcceleratedBackend(device_index, mode);
    return choice;
  }
#else
  (void)mode;
#endif
  auto [code, args] = fallbackOfListing(why);
  choice.fallback_reason = fallbackText(code, args);
  choice.backend = std::make_unique<CpuBackend>(code, std::move(args));
  return choice;
}

std::string cpuOnlyNumericsNames(const AttentionSpec& spec) {
  std::string names;
  const auto add = [&names](const std::string& name) {
    names += (names.empty() ? "" : ", ") + name;
  };
  if (spec.mechanism == Mechanism::kLinear) add("--mechanism linear");
  if (spec.precision != Precision::kFp32) add("--precision " + toString(spec.precision));
  if (spec.softmax != SoftmaxKind::kStable) add("--softmax " + toString(spec.softmax));
  if (spec.dropout > 0.0) {
    std::ostringstream p;
    p << spec.dropout;
    add("--dropout " + p.str());
  }
  if (spec.score_cap > 0.0) {
    std::ostringstream c;
    c << spec.score_cap;
    add("soft-capping c·tanh(S/c), c = " + c.str());
  }
  return names;
}

std::string fallbackText(FallbackCode code, const std::vector<std::string>& args) {
  const std::string first = args.empty() ? std::string() : args.front();
  switch (code) {
    case FallbackCode::kNone: return {};
    case FallbackCode::kNoOpenClBuild:
      return "this build has no OpenCL support (configure with -DATTNLAB_WITH_OPENCL=ON)";
    case FallbackCode::kNoPlatform: return "no OpenCL platform (" + first + ")";
    case FallbackCode::kNoDevice: return "no OpenCL device found on any platform";
    case FallbackCode::kKernelsBuilding:
      return "the OpenCL kernels are still building; computed on the CPU";
    case FallbackCode::kKernelsBuildingDk:
      return "the OpenCL kernels for d_k = " + first + " are building; computed on the CPU";
    case FallbackCode::kDeviceError: return first;
    case FallbackCode::kCpuOnlyNumerics:
      return "the OpenCL kernels compute softmax attention in float32 without dropout; " + first +
             " computed on the CPU reference";
  }
  return first;
}

#ifndef ATTNLAB_WITH_OPENCL
std::vector<DeviceInfo> listOpenClDevices(std::string* why) {
  if (why) *why = "this build has no OpenCL support (configure with -DATTNLAB_WITH_OPENCL=ON)";
  return {};
}
#endif

}  // namespace attnlab
