// The OpenCL backend and the accelerated backend that falls back to the CPU with a reason.

#include <future>
#include <map>
#include <memory>
#include <optional>
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
  r.mask_pattern = spec.maskPattern();
  r.scale = spec.scoreScale(in.q.cols);
  r.backend = "opencl";
  r.device = rt.deviceName();
  // Every mask pattern (causal, window, global, stride, key padding) and ALiBi run on the
  // device, in the fused and the tiled kernels alike; K and V may have G heads (GQA).
  const MaskParams mask = MaskParams::fromSpec(spec);
  // The overflow contract of ScoreScale, split exactly as the CPU reference splits it.
  if (spec.mechanism == Mechanism::kAdditive) {
    const ScoreScale split = splitScoreScale(r.scale, additiveEnergyBound(in.v_a));
    Materialized m = rt.additive(in.q, in.k, in.w_a, in.u_a, in.v_a, split.query_factor,
                                 split.score_factor, mask, in.v, &r.head_outputs);
    r.scores = std::move(m.scores);
    r.weights = std::move(m.weights);
  } else {
    const ScoreScale split = splitScoreScale(r.scale, dotProductBound(in.q, in.k));
    Tensor3 q_scaled = in.q;
    for (float& x : q_scaled.data) x *= split.query_factor;
    // The outputs, (m, l), S and P (one kernel on CPU devices, fused + pass 2 on GPUs).
    Attended a;
    rt.attendInto(q_scaled, in.k, in.v, mask, a, split.score_factor);
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

// OpenCL when its programs are ready, the CPU reference otherwise — always saying why. A failure
// that would repeat (the device does not open, a program does not build or does not fit the
// device) is kept and reported with every result until retry(); the window's first picture never
// waits on the compiler in kBackground mode, because builds run on their own threads and the
// runtime's prepared() and buildError() never wait for them.
class AcceleratedBackend final : public Backend {
 public:
  AcceleratedBackend(int device_index, BuildMode mode) : device_index_(device_index), mode_(mode) {
    open();
    if (mode_ == BuildMode::kWait) {
      runtime_.wait();
    } else {
      AttentionSpec defaults;  // d_k = 64 / 8 = 8, the window's first picture
      startPreparing(defaults.resolvedDk(), defaults.resolvedDv());
    }
  }

  std::string name() const override { return "opencl"; }
  std::string device() const override {
    const auto runtime = current();
    try {
      return runtime.wait_for(std::chrono::seconds(0)) == std::future_status::ready
                 ? runtime.get()->deviceName()
                 : "OpenCL device (starting)";
    } catch (const std::exception&) {
      return cpuDeviceName();
    }
  }

  AttentionResult compute(const AttentionInputs& in, const AttentionSpec& spec) override {
    // Reduced precision, the naive softmax and dropout are the CPU reference's alone: the
    // kernels would give float32 stable weights, a different answer.
    if (spec.cpuOnlyNumerics())
      return onCpu(in, spec, FallbackCode::kCpuOnlyNumerics, {cpuOnlyNumericsNames(spec)});
    const auto runtime = current();
    if (mode_ == BuildMode::kBackground &&
        runtime.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return onCpu(in, spec, FallbackCode::kKernelsBuilding);
    std::shared_ptr<Runtime> rt;
    try {
      rt = runtime.get();
    } catch (const Error& e) {
      return onCpu(in, spec, FallbackCode::kDeviceError, {reasonOf(e)});
    }
    const int d_k = in.q.cols, d_v = in.v.cols;
    if (std::optional<Error> failed = rt->buildError(d_k, d_v))
      return onCpu(in, spec, FallbackCode::kDeviceError, {reasonOf(*failed)});
    if (mode_ == BuildMode::kBackground && !rt->prepared(d_k, d_v)) {
      startPreparing(d_k, d_v);
      return onCpu(in, spec, FallbackCode::kKernelsBuildingDk, {std::to_string(d_k)});
    }
    try {
      return computeOnDevice(*rt, in, spec);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kBackend) throw;
      return onCpu(in, spec, FallbackCode::kDeviceError, {reasonOf(e)});
    }
  }

  void retry() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (runtime_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    try {
      runtime_.get()->forgetFailedBuilds();
    } catch (const std::exception&) {
      open();  // the device did not open: try again
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

  std::shared_future<std::shared_ptr<Runtime>> current() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return runtime_;
  }

  void open() {
    const int index = device_index_;
    runtime_ = std::async(std::launch::async, [index] {
                 return std::make_shared<Runtime>(index);
               }).share();
  }

  // Builds the programs for (d_k, d_v) on a thread of its own, unless that is already under way;
  // the outcome (programs, or the kept error) is read from the runtime.
  void startPreparing(int d_k, int d_v) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& task = preparing_[{d_k, d_v}];
    if (task.valid() && task.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return;
    task = std::async(std::launch::async, [runtime = runtime_, d_k, d_v] {
      try {
        runtime.get()->prepare(d_k, d_v);
      } catch (const std::exception&) {
        // kept by the runtime (buildError) or by runtime_, and reported by the next compute
      }
    });
  }

  int device_index_;
  BuildMode mode_;
  std::shared_future<std::shared_ptr<Runtime>> runtime_;
  mutable std::mutex mutex_;  // guards runtime_ (replaced by retry()) and preparing_
  std::map<std::pair<int, int>, std::future<void>> preparing_;
};

}  // namespace

std::unique_ptr<Backend> makeAcceleratedBackend(int device_index, BuildMode mode) {
  return std::make_unique<AcceleratedBackend>(device_index, mode);
}

}  // namespace attnlab::opencl
