/// \file timing.cpp
/// AttentionTimer: the paths of attention-lab-bench and of the cost panel, timed the same way.

#include "attnlab/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/synthetic.hpp"
#ifdef ATTNLAB_WITH_OPENCL
#include "opencl/runtime.hpp"
#endif

namespace attnlab {
namespace {

using Clock = std::chrono::steady_clock;

Tensor3 randomTensor(int h, int rows, int cols, std::uint64_t seed) {
  Tensor3 t(h, rows, cols);
  Rng rng(seed);
  for (float& x : t.data) x = static_cast<float>(rng.normal());
  return t;
}

/// The bench's baseline: S = (αQ)Kᵀ, row softmax over the visible keys, O = P V, one head's P at
/// a time.
void eigenMaterialized(const Tensor3& q, const Tensor3& k, const Tensor3& v, float scale,
                       bool causal, Matrix& p, Tensor3& o) {
  for (int head = 0; head < q.h; ++head) {
    p.noalias() = (scale * q.head(head)) * k.head(head).transpose();
    const Eigen::Index n = p.rows();
    for (Eigen::Index i = 0; i < n; ++i) {
      auto row = p.row(i);
      const Eigen::Index visible = causal ? i + 1 : row.size();
      const float m = row.head(visible).maxCoeff();
      row.head(visible) = (row.head(visible).array() - m).exp();
      row.head(visible) /= row.head(visible).sum();
      if (visible < row.size()) row.tail(row.size() - visible).setZero();
    }
    o.head(head).noalias() = p * v.head(head);
  }
}

std::string gib(double bytes) {
  char buf[48];
  if (bytes >= 1024.0 * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "needs %.1f GiB", bytes / (1024.0 * 1024 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "needs %.1f MiB", bytes / (1024.0 * 1024));
  }
  return buf;
}

bool isOpenCl(TimedPath path) {
  return path == TimedPath::kOpenClTiled || path == TimedPath::kOpenClFused;
}

}  // namespace

std::string toString(TimedPath path) {
  switch (path) {
    case TimedPath::kCpuReference:
      return "cpu reference";
    case TimedPath::kEigenBaseline:
      return "eigen";
    case TimedPath::kOpenClTiled:
      return "opencl tiled";
    case TimedPath::kOpenClFused:
      return "opencl fused";
  }
  return "?";
}

struct AttentionTimer::Impl {
#ifdef ATTNLAB_WITH_OPENCL
  std::unique_ptr<opencl::Runtime> runtime;
#endif
  std::string unavailable;
};

AttentionTimer::AttentionTimer(bool opencl, int device) : impl_(std::make_unique<Impl>()) {
#ifdef ATTNLAB_WITH_OPENCL
  if (!opencl) {
    impl_->unavailable = "OpenCL not requested";
    return;
  }
  try {
    impl_->runtime = std::make_unique<opencl::Runtime>(device);
  } catch (const std::exception& e) {
    impl_->unavailable = e.what();
  }
#else
  (void)opencl;
  (void)device;
  impl_->unavailable = "this build has no OpenCL support";
#endif
}

AttentionTimer::~AttentionTimer() = default;

bool AttentionTimer::hasOpenCl() const {
#ifdef ATTNLAB_WITH_OPENCL
  return impl_->runtime != nullptr;
#else
  return false;
#endif
}

const std::string& AttentionTimer::openClUnavailable() const { return impl_->unavailable; }

std::string AttentionTimer::openClDevice() const {
#ifdef ATTNLAB_WITH_OPENCL
  if (impl_->runtime) return impl_->runtime->deviceName();
#endif
  return {};
}

bool AttentionTimer::cpuShapedKernels() const {
#ifdef ATTNLAB_WITH_OPENCL
  return impl_->runtime && impl_->runtime->variant() == opencl::Variant::kCpu;
#else
  return false;
#endif
}

double AttentionTimer::prepare(int d_k) {
#ifdef ATTNLAB_WITH_OPENCL
  if (!impl_->runtime) return 0;
  const auto start = Clock::now();
  impl_->runtime->prepare(d_k, d_k);
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
#else
  (void)d_k;
  return 0;
#endif
}

double AttentionTimer::extraBytes(TimedPath path, const TimingCase& c) const {
  const double n2 = static_cast<double>(c.n) * c.n;
  switch (path) {
    case TimedPath::kCpuReference:
      return 2.0 * c.heads * n2 * 4;
    case TimedPath::kEigenBaseline:
      return n2 * 4;
    case TimedPath::kOpenClTiled:
      return (cpuShapedKernels() || !hasOpenCl() ? 2.0 : 4.0) * c.heads * n2 * 4;
    case TimedPath::kOpenClFused:
      return static_cast<double>(c.heads) * c.n * (c.d_k + 1) * 4;
  }
  return 0;
}

std::vector<PathTime> AttentionTimer::time(const TimingCase& c, const std::vector<TimedPath>& paths,
                                           int runs, double max_bytes) {
  if (c.n < 1 || c.heads < 1 || c.d_k < 1 || runs < 1) {
    throw Error(ErrorCode::kInvalidArgument, "a timing needs n, heads, d_k and runs of at least 1");
  }
  std::vector<PathTime> out;
  for (TimedPath path : paths) {
    PathTime t;
    t.path = path;
    t.extra_bytes = extraBytes(path, c);
    if (isOpenCl(path) && !hasOpenCl()) {
      t.skipped = impl_->unavailable.empty() ? "no OpenCL device" : impl_->unavailable;
    } else if (path != TimedPath::kOpenClFused && t.extra_bytes > max_bytes) {
      t.skipped = gib(t.extra_bytes);
    }
    out.push_back(t);
  }
  const Tensor3 q = randomTensor(c.heads, c.n, c.d_k, 1), k = randomTensor(c.heads, c.n, c.d_k, 2),
                v = randomTensor(c.heads, c.n, c.d_k, 3);
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.d_k));
  Tensor3 q_scaled = q;
  for (float& x : q_scaled.data) x *= scale;
  AttentionInputs inputs{q, k, v, {}, {}, {}};
  AttentionSpec spec;
  spec.mechanism = Mechanism::kScaled;
  spec.mask = c.causal ? Mask::kCausal : Mask::kNone;
  spec.heads = c.heads;
  spec.d_k = c.d_k;
  spec.d_model = c.heads * c.d_k;
  Matrix p;
  Tensor3 o;
#ifdef ATTNLAB_WITH_OPENCL
  opencl::Attended attended;  // kept across calls, as the window keeps its results
  opencl::Fused fused;
  opencl::MaskParams mask;
  mask.pattern.causal = c.causal;
  mask.pattern.window = c.window;
  if (hasOpenCl()) prepare(c.d_k);
#endif
  std::vector<std::function<void()>> calls;
  for (const PathTime& t : out) {
    if (!t.skipped.empty()) {
      calls.emplace_back();
      continue;
    }
    switch (t.path) {
      case TimedPath::kCpuReference:
        calls.emplace_back([&] { (void)computeAttentionCpu(inputs, spec); });
        break;
      case TimedPath::kEigenBaseline:
        p.resize(c.n, c.n);
        o = Tensor3(c.heads, c.n, c.d_k);
        calls.emplace_back([&] { eigenMaterialized(q, k, v, scale, c.causal, p, o); });
        break;
#ifdef ATTNLAB_WITH_OPENCL
      case TimedPath::kOpenClTiled:
        calls.emplace_back([&] { impl_->runtime->attendInto(q_scaled, k, v, mask, attended); });
        break;
      case TimedPath::kOpenClFused:
        calls.emplace_back([&] { impl_->runtime->fusedInto(q_scaled, k, v, mask, fused); });
        break;
#else
      default:
        calls.emplace_back();
        break;
#endif
    }
  }
  for (const auto& call : calls)
    if (call) call();
  std::vector<std::vector<double>> times(calls.size());
  for (int r = 0; r < runs; ++r) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (!calls[i]) continue;
      const auto start = Clock::now();
      calls[i]();
      times[i].push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (times[i].empty()) continue;
    std::sort(times[i].begin(), times[i].end());
    out[i].median_ms = times[i][times[i].size() / 2];
    out[i].ran = true;
  }
  return out;
}

}  // namespace attnlab
