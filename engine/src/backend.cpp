#include "attnlab/backend.hpp"

#include <fstream>

#include "attnlab/error.hpp"
#ifdef ATTNLAB_WITH_OPENCL
#include "opencl/opencl_backend.hpp"
#endif

namespace attnlab {

namespace {

// The CPU reference; when it stands in for OpenCL, every result carries the reason.
class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(std::string fallback_reason = {})
      : fallback_reason_(std::move(fallback_reason)) {}
  std::string name() const override { return "cpu"; }
  std::string device() const override { return cpuDeviceName(); }
  AttentionResult compute(const AttentionInputs& inputs, const AttentionSpec& spec) override {
    AttentionResult r = computeAttentionCpu(inputs, spec);
    r.device = device();
    r.fallback_reason = fallback_reason_;
    return r;
  }

 private:
  std::string fallback_reason_;
};

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

BackendChoice selectBackend(std::string_view name, int device_index, BuildMode mode) {
  if (name != "auto" && name != "cpu" && name != "opencl")
    throw Error(ErrorCode::kInvalidArgument,
                "unknown backend '" + std::string(name) + "' (use auto, cpu or opencl)");
  BackendChoice choice;
  if (name == "cpu") {
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
  choice.fallback_reason = why.empty() ? "no OpenCL device found" : why;
  choice.backend = std::make_unique<CpuBackend>(choice.fallback_reason);
  return choice;
}

#ifndef ATTNLAB_WITH_OPENCL
std::vector<DeviceInfo> listOpenClDevices(std::string* why) {
  if (why) *why = "this build has no OpenCL support (configure with -DATTNLAB_WITH_OPENCL=ON)";
  return {};
}
#endif

}  // namespace attnlab
