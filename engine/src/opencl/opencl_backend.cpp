// The OpenCL backend and the accelerated backend that falls back to the CPU with a reason.

#include <future>
#include <memory>
#include <sstream>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "cpu/attention_cpu.hpp"
#include "opencl/opencl_backend.hpp"
#include "opencl/runtime.hpp"

namespace attnlab::opencl {

AttentionResult computeOnDevice(Runtime& rt, const AttentionInputs& in, const AttentionSpec& spec) {
  checkAttentionInputs(in, spec);
  AttentionResult r;
  r.mechanism = spec.mechanism;
  r.mask = spec.mask;
  r.scale = spec.scoreScale(in.q.cols);
  r.backend = "opencl";
  r.device = rt.deviceName();
  const MaskParams mask{spec.mask == Mask::kCausal, 0, 0};
  if (spec.mechanism == Mechanism::kAdditive) {
    Materialized m = rt.additive(in.q, in.k, in.w_a, in.u_a, in.v_a, r.scale, mask, in.v,
                                 &r.head_outputs);
    r.scores = std::move(m.scores);
    r.weights = std::move(m.weights);
  } else {
    Tensor3 q_scaled = in.q;
    for (float& x : q_scaled.data) x *= static_cast<float>(r.scale);
    // The outputs, L = m + log l, S and P (one kernel on CPU devices, fused + pass 2 on GPUs).
    Attended a;
    rt.attendInto(q_scaled, in.k, in.v, mask, a);
    r.scores = std::move(a.scores);
    r.weights = std::move(a.weights);
    r.head_outputs = std::move(a.output);
  }
  fillRowStats(r);
  return r;
}

namespace {

// The fallback reason for an engine error: its message, plus the first error line of the build log
// when a kernel build failed (the whole log stays in Error::buildLog()).
std::string reasonOf(const Error& e) {
  std::string reason = e.what();
  std::istringstream log(e.buildLog());
  for (std::string line; std::getline(log, line);) {
    if (line.find("error") != std::string::npos) {
      reason += " — " + line;
      break;
    }
  }
  return reason;
}

// OpenCL when its programs are ready, the CPU reference otherwise — always saying why.
class AcceleratedBackend final : public Backend {
 public:
  AcceleratedBackend(int device_index, BuildMode mode) : mode_(mode) {
    runtime_ = std::async(std::launch::async, [device_index] {
                 auto rt = std::make_shared<Runtime>(device_index);
                 AttentionSpec defaults;  // d_k = 64 / 8 = 8, the window's first picture
                 rt->prepare(defaults.resolvedDk(), defaults.resolvedDv());
                 return rt;
               }).share();
    if (mode_ == BuildMode::kWait) runtime_.wait();
  }

  std::string name() const override { return "opencl"; }
  std::string device() const override {
    try {
      return runtime_.wait_for(std::chrono::seconds(0)) == std::future_status::ready
                 ? runtime_.get()->deviceName()
                 : "OpenCL device (starting)";
    } catch (const std::exception&) {
      return cpuDeviceName();
    }
  }

  AttentionResult compute(const AttentionInputs& in, const AttentionSpec& spec) override {
    if (mode_ == BuildMode::kBackground &&
        runtime_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return onCpu(in, spec, FallbackCode::kKernelsBuilding);
    std::shared_ptr<Runtime> rt;
    try {
      rt = runtime_.get();
    } catch (const Error& e) {
      return onCpu(in, spec, FallbackCode::kDeviceError, {reasonOf(e)});
    }
    const int d_k = in.q.cols, d_v = in.v.cols;
    if (!rt->prepared(d_k, d_v)) {
      if (mode_ == BuildMode::kBackground) {
        startPreparing(rt, d_k, d_v);
        return onCpu(in, spec, FallbackCode::kKernelsBuildingDk, {std::to_string(d_k)});
      }
    }
    try {
      return computeOnDevice(*rt, in, spec);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kBackend) throw;
      return onCpu(in, spec, FallbackCode::kDeviceError, {reasonOf(e)});
    }
  }

 private:
  AttentionResult onCpu(const AttentionInputs& in, const AttentionSpec& spec, FallbackCode code,
                        std::vector<std::string> args = {}) {
    AttentionResult r = computeAttentionCpu(in, spec);
    r.device = cpuDeviceName();
    r.setFallback(code, std::move(args));
    return r;
  }

  void startPreparing(const std::shared_ptr<Runtime>& rt, int d_k, int d_v) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto key = std::make_pair(d_k, d_v);
    if (preparing_.count(key)) return;
    preparing_[key] = std::async(std::launch::async, [rt, d_k, d_v] {
      try {
        rt->prepare(d_k, d_v);
      } catch (const Error&) {
        // reported by the next compute, which tries (and fails) again in the foreground
      }
    });
  }

  BuildMode mode_;
  std::shared_future<std::shared_ptr<Runtime>> runtime_;
  std::mutex mutex_;
  std::map<std::pair<int, int>, std::future<void>> preparing_;
};

}  // namespace

std::unique_ptr<Backend> makeAcceleratedBackend(int device_index, BuildMode mode) {
  return std::make_unique<AcceleratedBackend>(device_index, mode);
}

}  // namespace attnlab::opencl
