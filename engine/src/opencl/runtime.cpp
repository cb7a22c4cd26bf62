#include "opencl/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"

namespace attnlab::opencl {

std::vector<cl::Device> allDevices();  // devices.cpp: the order of listOpenClDevices()

const std::map<std::string, std::string_view>& embeddedKernels();  // generated at build time

namespace {

constexpr int kCpuRows = 4;       // ROWS: query rows per work-item in the CPU materialised path
constexpr int kCpuBlock = 24;     // BK: keys per block in the CPU fused kernel
constexpr int kCpuScoreKeys = 6;  // BKS: keys per pass of its score loop (12 accumulators)
constexpr int kCpuValueCols = 4;  // BDV: output columns per pass of its P·V loop (8 accumulators)

// The programs one (d_k, d_v) needs, with the widths each is built for: only the fused kernel
// uses d_v (the others take it from their inputs).
std::vector<std::tuple<std::string, int, int>> programKeys(int d_k, int d_v) {
  return {{"materialized_attention.cl", d_k, d_k},
          {"flash_attention.cl", d_k, d_v},
          {"pool_attention.cl", d_k, d_k},
          {"additive_attention.cl", d_k, d_k}};
}

std::mutex overrides_mutex;
RuntimeOverrides overrides;  // setRuntimeOverridesForTesting

std::size_t roundUp(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// Runs f, turning an OpenCL exception into Error(kBackend) naming the call and the code.
template <typename F>
auto checked(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const cl::Error& e) {
    throw Error(ErrorCode::kBackend,
                std::string(e.what()) + " failed: " + errorName(e.err()));
  }
}

// [h, rows, cols] → [h, cols, rows_pad] (zero padding), times scale. In blocks of 16 rows, so
// each output row is written 64 bytes at a time (row by row, the writes 4·rows_pad bytes apart
// thrashed one cache set: ~3% of a one-thread fused call at n = 2048, now ~1%).
std::vector<float> transposeHeads(const Tensor3& t, std::size_t rows_pad, float scale = 1.0f) {
  std::vector<float> out(static_cast<std::size_t>(t.h) * t.cols * rows_pad, 0.0f);
  constexpr int kBlock = 16;
  for (int k = 0; k < t.h; ++k)
    for (int i0 = 0; i0 < t.rows; i0 += kBlock) {
      const int i1 = std::min(i0 + kBlock, t.rows);
      for (int c = 0; c < t.cols; ++c) {
        float* dst = &out[(static_cast<std::size_t>(k) * t.cols + c) * rows_pad];
        for (int i = i0; i < i1; ++i) dst[i] = scale * t(k, i, c);
      }
    }
  return out;
}

// [h, rows, cols] → [h, rows, cols_pad], zero-padded columns.
std::vector<float> padColumns(const Tensor3& t, std::size_t cols_pad) {
  std::vector<float> out(static_cast<std::size_t>(t.h) * t.rows * cols_pad, 0.0f);
  for (int k = 0; k < t.h; ++k)
    for (int i = 0; i < t.rows; ++i)
      std::copy_n(t.data.begin() + (static_cast<std::ptrdiff_t>(k) * t.rows + i) * t.cols,
                  t.cols, out.begin() + (static_cast<std::ptrdiff_t>(k) * t.rows + i) * cols_pad);
  return out;
}

// The row length of K transposed for the CPU materialised kernels: a multiple of 16 floats and an
// odd number of 64-byte lines, so the D_K rows a score tile reads fall into different L1 sets (a
// 4 KiB multiple put them all in one set).
std::size_t paddedKeyRows(int n_k) {
  std::size_t nk_pad = roundUp(n_k, 16);
  if ((nk_pad / 16) % 2 == 0) nk_pad += 16;
  return nk_pad;
}

// Gives t the shape [a, b, c], keeping its memory when it already has that shape.
void reshape(Tensor3& t, int a, int b, int c) {
  if (t.h != a || t.rows != b || t.cols != c) t = Tensor3(a, b, c);
}

// The kernels' int8 mask argument (kernels/attention_mask.cl): causal, offset, window, global,
// stride, valid_keys, ALiBi on, unused.
cl_int8 maskArg(const MaskParams& m) {
  cl_int8 a{};
  a.s[0] = m.causal, a.s[1] = m.offset, a.s[2] = m.window, a.s[3] = m.global;
  a.s[4] = m.stride, a.s[5] = m.valid_keys, a.s[6] = !m.alibi_slopes.empty(), a.s[7] = 0;
  return a;
}

// h / G for queries [h, …] and keys (and values) [G, …]; throws unless G divides h.
cl_int queriesPerKv(const Tensor3& q, const Tensor3& k, const Tensor3* v = nullptr) {
  if (k.h < 1 || q.h % k.h != 0 || (v && v->h != k.h))
    throw Error(ErrorCode::kInvalidArgument,
                "keys and values need G heads dividing the h = " + std::to_string(q.h) +
                    " query heads (got " + std::to_string(k.h) + ")");
  return q.h / k.h;
}

// K or V with one head per query head: head i is head kvHeadOf(i, h, G) of t (repeat_kv).
Tensor3 repeatHeads(const Tensor3& t, int h) {
  Tensor3 out(h, t.rows, t.cols);
  for (int i = 0; i < h; ++i) out.head(i) = t.head(kvHeadOf(i, h, t.h));
  return out;
}

}  // namespace

MaskParams MaskParams::fromSpec(const AttentionSpec& spec) {
  MaskParams m;
  m.causal = spec.mask == Mask::kCausal;
  m.window = spec.window;
  m.global = spec.global_tokens;
  m.stride = spec.stride;
  m.valid_keys = spec.valid_keys;
  if (spec.positions == Positions::kAlibi) m.alibi_slopes = alibiSlopes(spec.heads);
  return m;
}

MaskPattern MaskParams::pattern() const {
  MaskPattern p;
  p.causal = causal;
  p.window = window;
  p.global = global;
  p.stride = stride;
  p.valid_keys = valid_keys;
  return p;
}

std::pair<int, int> visibleRange(const MaskParams& m, int i, int n_k) {
  // MaskPattern::span at position p = i + offset, its bounds clamped to [0, n_k] (p may be
  // negative or past the keys with an offset).
  const int p = i + m.offset;
  auto [lo, hi] = m.pattern().span(p, n_k);
  hi = std::clamp(hi, 0, n_k);
  return {std::clamp(lo, 0, hi), hi};
}

bool keyVisible(const MaskParams& m, int i, int j) { return m.pattern().visible(i + m.offset, j); }

void setRuntimeOverridesForTesting(const RuntimeOverrides& o) {
  std::lock_guard<std::mutex> lock(overrides_mutex);
  overrides = o;
}

std::string errorName(cl_int code) {
  switch (code) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL driver installed)";
    default: return "OpenCL error " + std::to_string(code);
  }
}

std::string kernelSource(const std::string& file) {
  if (const char* dir = std::getenv("ATTNLAB_KERNEL_DIR"); dir && *dir) {
    const std::string path = std::string(dir) + "/" + file;
    std::ifstream in(path);
    if (!in)
      throw Error(ErrorCode::kBackend,
                  "ATTNLAB_KERNEL_DIR is set but " + path + " cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  const auto& kernels = embeddedKernels();
  auto it = kernels.find(file);
  if (it == kernels.end()) throw Error(ErrorCode::kInternal, "no embedded kernel " + file);
  return std::string(it->second);
}

Runtime::Runtime(int device_index, std::optional<Variant> variant) {
  std::vector<cl::Device> devices = checked([] { return allDevices(); });
  if (devices.empty()) throw Error(ErrorCode::kBackend, "no OpenCL device found");
  if (device_index < 0 || device_index >= static_cast<int>(devices.size()))
    throw Error(ErrorCode::kInvalidArgument,
                "OpenCL device " + std::to_string(device_index) + " does not exist (there are " +
                    std::to_string(devices.size()) + "; see the info command)");
  device_ = devices[device_index];
  RuntimeOverrides testing;
  {
    std::lock_guard<std::mutex> lock(overrides_mutex);
    testing = overrides;
  }
  checked([&] {
    context_ = cl::Context(device_);
    queue_ = cl::CommandQueue(context_, device_);
    device_name_ = device_.getInfo<CL_DEVICE_NAME>();
    const bool cpu = (device_.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
    variant_ = variant.value_or(testing.variant.value_or(cpu ? Variant::kCpu : Variant::kGpu));
    limits_.local_memory_bytes = device_.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    limits_.max_work_group = device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    const std::vector<std::size_t> sizes = device_.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
    limits_.max_work_item[0] = sizes.size() > 0 ? sizes[0] : 1;
    limits_.max_work_item[1] = sizes.size() > 1 ? sizes[1] : 1;
    return 0;
  });
  if (testing.limits) limits_ = *testing.limits;
  if (testing.guard_floats > 0) {
    // Sub-buffers must start at a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN (bits).
    const std::size_t align = std::max<std::size_t>(
        1, checked([&] { return device_.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>(); }) / 32);
    guard_floats_ = roundUp(testing.guard_floats, align);
  }
}

std::string Runtime::buildOptions(const std::string& file, int d_k, int d_v) const {
  // The GPU-shaped kernels' tiles must fit the device (local memory, work-group size): checked
  // for the program that uses them, before it is built. On CPU devices every kernel runs
  // work-groups of one and keeps its blocks in private memory.
  GpuTiles tiles;
  if (variant_ == Variant::kGpu && file == "flash_attention.cl")
    fusedTiles(limits_, d_k, d_v, tiles);
  if (variant_ == Variant::kGpu && file == "materialized_attention.cl")
    materializedTiles(limits_, d_k, d_v, tiles);
  std::ostringstream o;
  // -w: PoCL warns that float16 arguments change the ABI without AVX-512 (harmless, and printed
  // on stderr for every build); kernels are kept warning-free with clang -Wall separately.
  o << "-cl-std=CL1.2 -w -D D_K=" << d_k << " -D D_V=" << d_v << " -D ROWS=" << kCpuRows
    << " -D BK=" << kCpuBlock << " -D BKS=" << kCpuScoreKeys << " -D BDV=" << kCpuValueCols
    << " -D BQ=" << tiles.queries << " -D BKG=" << tiles.keys << " -D TILE=" << tiles.tile;
  return o.str();
}

cl::Program Runtime::build(const std::string& file, int d_k, int d_v) {
  const std::string options = buildOptions(file, d_k, d_v);  // throws when tiles cannot fit
  // Every program starts with the shared mask and ALiBi helpers (kernels/attention_mask.cl).
  const std::string source = kernelSource("attention_mask.cl") + "\n#line 1\n" + kernelSource(file);
  const auto start = std::chrono::steady_clock::now();
  cl::Program program = checked([&] { return cl::Program(context_, source); });
  try {
    program.build({device_}, options.c_str());
  } catch (const cl::Error& e) {
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
    } catch (const cl::Error&) {
    }
    throw Error(ErrorCode::kBackend,
                "clBuildProgram failed for " + file + " (" + options + "): " + errorName(e.err()),
                log);
  }
  last_build_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return program;
}

cl::Program Runtime::program(const std::string& file, int d_k, int d_v) {
  const auto key = std::make_tuple(file, d_k, d_v);
  std::shared_future<cl::Program> built;
  std::optional<std::promise<cl::Program>> mine;
  {
    std::lock_guard<std::mutex> lock(programs_mutex_);
    if (auto it = programs_.find(key); it != programs_.end()) {
      built = it->second;
    } else {
      mine.emplace();
      built = mine->get_future().share();
      programs_.emplace(key, built);
    }
  }
  if (mine) {  // this thread builds; others asking for the same program wait on `built`
    try {
      mine->set_value(build(file, d_k, d_v));
    } catch (...) {
      mine->set_exception(std::current_exception());
    }
  }
  return built.get();  // rethrows a kept build failure
}

void Runtime::prepare(int d_k, int d_v) {
  for (const auto& [file, w_k, w_v] : programKeys(d_k, d_v)) program(file, w_k, w_v);
}

bool Runtime::prepared(int d_k, int d_v) {
  std::lock_guard<std::mutex> lock(programs_mutex_);
  for (const auto& key : programKeys(d_k, d_v)) {
    auto it = programs_.find(key);
    if (it == programs_.end() ||
        it->second.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return false;
    try {
      it->second.get();
    } catch (...) {
      return false;
    }
  }
  return true;
}

std::optional<Error> Runtime::buildError(int d_k, int d_v) {
  std::lock_guard<std::mutex> lock(programs_mutex_);
  for (const auto& key : programKeys(d_k, d_v)) {
    auto it = programs_.find(key);
    if (it == programs_.end() ||
        it->second.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      continue;
    try {
      it->second.get();
    } catch (const Error& e) {
      return e;
    } catch (const std::exception& e) {
      return Error(ErrorCode::kBackend, e.what());
    }
  }
  return std::nullopt;
}

void Runtime::forgetFailedBuilds() {
  std::lock_guard<std::mutex> lock(programs_mutex_);
  for (auto it = programs_.begin(); it != programs_.end();) {
    bool failed = false;
    if (it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      try {
        it->second.get();
      } catch (...) {
        failed = true;
      }
    }
    it = failed ? programs_.erase(it) : std::next(it);
  }
}

void Runtime::requireWorkGroup(const cl::Kernel& kernel, std::size_t size,
                               const char* name) const {
  const auto allowed = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
  if (allowed < size)
    throw Error(ErrorCode::kBackend, std::string(name) + " needs work-groups of " +
                                         std::to_string(size) + " work-items; the device allows " +
                                         std::to_string(allowed) +
                                         " for it (CL_KERNEL_WORK_GROUP_SIZE)");
}

cl::Buffer Runtime::upload(const std::vector<float>& data) {
  return cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                    std::max<std::size_t>(1, data.size()) * sizeof(float),
                    const_cast<float*>(data.data()));
}

cl::Buffer Runtime::slopes(const MaskParams& mask, int heads, float b) {
  if (mask.alibi_slopes.empty()) return upload(std::vector<float>(1, 0.0f));
  if (static_cast<int>(mask.alibi_slopes.size()) != heads)
    throw Error(ErrorCode::kInvalidArgument, "ALiBi needs one slope per query head");
  // In units of x' (S = b·x'), so that b·(x' − (m_h/b)·distance) = S − m_h·distance.
  std::vector<float> scaled(mask.alibi_slopes);
  for (float& m : scaled) m /= b;
  return upload(scaled);
}

cl::Buffer Runtime::view(const std::vector<float>& data) {
  if (variant_ != Variant::kCpu) return upload(data);
  return cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                    std::max<std::size_t>(1, data.size()) * sizeof(float),
                    const_cast<float*>(data.data()));
}

cl::Buffer Runtime::scratch(std::size_t floats) {
  return cl::Buffer(context_, CL_MEM_READ_WRITE, std::max<std::size_t>(1, floats) * sizeof(float));
}

Runtime::Result Runtime::resultBuffer(std::vector<float>& host) {
  Result r;
  r.host = &host;
  const std::size_t n = std::max<std::size_t>(1, host.size());
  if (guard_floats_ == 0) {
    if (variant_ == Variant::kCpu)
      r.buffer = cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(float),
                            host.data());
    else
      r.buffer = scratch(host.size());
    r.arg = r.buffer;
    return r;
  }
  // Testing: the result sits between two guard regions of a known pattern; the kernels get a
  // sub-buffer of exactly the result, and collect() checks that the guards came back untouched.
  const std::size_t g = guard_floats_;
  const std::size_t size = host.size();
  r.guard = g;
  if (variant_ == Variant::kCpu) {
    // In place (CL_MEM_USE_HOST_PTR), as in production: host grows by the guards for the call.
    host.insert(host.begin(), g, kGuardPattern);
    host.resize(size + 2 * g, kGuardPattern);
    std::fill(host.end() - static_cast<std::ptrdiff_t>(g), host.end(), kGuardPattern);
    r.buffer = cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                          (n + 2 * g) * sizeof(float), host.data());
  } else {
    const std::vector<float> pattern(n + 2 * g, kGuardPattern);
    r.buffer = cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                          pattern.size() * sizeof(float), const_cast<float*>(pattern.data()));
  }
  const cl_buffer_region region{g * sizeof(float), n * sizeof(float)};
  r.arg = r.buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
  return r;
}

void Runtime::collect(std::initializer_list<Result*> results) {
  // Every command is queued without blocking and waited for once: each blocking call costs a
  // round trip (~25 µs on PoCL). On CPU devices mapping makes what the kernels wrote visible at
  // the host pointer (no copy); elsewhere the results are read back.
  std::vector<void*> mapped;
  std::vector<std::vector<float>> guarded(results.size());
  std::size_t index = 0;
  for (Result* r : results) {
    std::vector<float>& host = *r->host;
    if (variant_ == Variant::kCpu) {
      mapped.push_back(queue_.enqueueMapBuffer(r->buffer, CL_FALSE, CL_MAP_READ, 0,
                                               r->buffer.getInfo<CL_MEM_SIZE>()));
    } else if (r->guard > 0) {
      guarded[index].resize(r->buffer.getInfo<CL_MEM_SIZE>() / sizeof(float));
      queue_.enqueueReadBuffer(r->buffer, CL_FALSE, 0, guarded[index].size() * sizeof(float),
                               guarded[index].data());
    } else if (!host.empty()) {
      queue_.enqueueReadBuffer(r->buffer, CL_FALSE, 0, host.size() * sizeof(float), host.data());
    }
    ++index;
  }
  index = 0;
  for (Result* r : results)
    if (variant_ == Variant::kCpu) queue_.enqueueUnmapMemObject(r->buffer, mapped[index++]);
  queue_.finish();
  // Guards (tests only): check and strip them.
  index = 0;
  std::size_t touched = 0;
  for (Result* r : results) {
    std::vector<float>& all = variant_ == Variant::kCpu ? *r->host : guarded[index];
    const std::size_t g = r->guard;
    ++index;
    if (g == 0) continue;
    const std::size_t size = all.size() - 2 * g;
    for (std::size_t i = 0; i < g; ++i) {
      touched += std::memcmp(&all[i], &kGuardPattern, sizeof(float)) != 0;
      touched += std::memcmp(&all[g + size + i], &kGuardPattern, sizeof(float)) != 0;
    }
    if (variant_ == Variant::kCpu) {
      r->host->erase(r->host->begin() + static_cast<std::ptrdiff_t>(g + size), r->host->end());
      r->host->erase(r->host->begin(), r->host->begin() + static_cast<std::ptrdiff_t>(g));
    } else {
      // The result is host.size() floats (a buffer of one float stands for an empty result).
      std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(g), r->host->size(),
                  r->host->begin());
    }
  }
  if (touched > 0)
    throw Error(ErrorCode::kInternal, "a kernel wrote outside its result buffer (" +
                                          std::to_string(touched) + " guard floats changed)");
}

Materialized Runtime::materialize(const Tensor3& q, const Tensor3& k, const MaskParams& mask,
                                  const RowNorm* known_norm, float score_factor) {
  Materialized out;
  materializeInto(q, k, mask, known_norm, out, score_factor);
  return out;
}

void Runtime::materializeInto(const Tensor3& q, const Tensor3& k, const MaskParams& mask,
                              const RowNorm* known_norm, Materialized& out, float b) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols;
  const cl_int per_kv = queriesPerKv(q, k);
  const cl::Program prog = program("materialized_attention.cl", d_k, d_k);
  reshape(out.scores, h, n_q, n_k);
  reshape(out.weights, h, n_q, n_k);
  out.norm.resize(static_cast<std::size_t>(h) * n_q * 2);
  if (known_norm && known_norm->size() != out.norm.size())
    throw Error(ErrorCode::kInvalidArgument, "known_norm must hold 2·h·n_q values");
  checked([&] {
    const cl::Buffer qb = view(q.data);
    if (known_norm) out.norm = *known_norm;
    Result norm = resultBuffer(out.norm);
    Result s = resultBuffer(out.scores.data), p = resultBuffer(out.weights.data);
    const cl_int8 mk = maskArg(mask);
    const cl::Buffer sl = slopes(mask, h, b);
    if (known_norm && variant_ != Variant::kCpu)
      queue_.enqueueWriteBuffer(norm.arg, CL_FALSE, 0, known_norm->size() * sizeof(float),
                                known_norm->data());
    if (variant_ == Variant::kCpu) {
      const std::size_t nk_pad = paddedKeyRows(n_k);
      const cl::Buffer kt = upload(transposeHeads(k, nk_pad));
      if (!known_norm) {
        cl::Kernel pass1(prog, "row_norm_cpu");
        pass1.setArg(0, qb), pass1.setArg(1, kt), pass1.setArg(2, norm.arg), pass1.setArg(3, n_q);
        pass1.setArg(4, n_k), pass1.setArg(5, static_cast<cl_int>(nk_pad));
        pass1.setArg(6, mk), pass1.setArg(7, per_kv), pass1.setArg(8, sl), pass1.setArg(9, b);
        queue_.enqueueNDRangeKernel(pass1, cl::NullRange,
                                    cl::NDRange(roundUp(n_q, kCpuRows) / kCpuRows, h),
                                    cl::NDRange(1, 1));
      }
      cl::Kernel pass2(prog, "write_probs_cpu");
      pass2.setArg(0, qb), pass2.setArg(1, kt), pass2.setArg(2, norm.arg), pass2.setArg(3, s.arg);
      pass2.setArg(4, p.arg), pass2.setArg(5, n_q), pass2.setArg(6, n_k);
      pass2.setArg(7, static_cast<cl_int>(nk_pad)), pass2.setArg(8, mk);
      pass2.setArg(9, per_kv), pass2.setArg(10, sl), pass2.setArg(11, b);
      queue_.enqueueNDRangeKernel(pass2, cl::NullRange,
                                  cl::NDRange(roundUp(n_q, kCpuRows) / kCpuRows, h),
                                  cl::NDRange(1, 1));
    } else {
      GpuTiles tiles;
      materializedTiles(limits_, d_k, d_k, tiles);
      const std::size_t tile = static_cast<std::size_t>(tiles.tile);
      const cl::Buffer kb = view(k.data);
      if (!known_norm) {
        cl::Kernel pass1(prog, "row_norm_gpu");
        pass1.setArg(0, qb), pass1.setArg(1, kb), pass1.setArg(2, norm.arg), pass1.setArg(3, n_q);
        pass1.setArg(4, n_k), pass1.setArg(5, mk), pass1.setArg(6, per_kv);
        pass1.setArg(7, sl), pass1.setArg(8, b);
        const std::size_t group = tile * tile;
        requireWorkGroup(pass1, group, "row_norm_gpu");
        queue_.enqueueNDRangeKernel(pass1, cl::NullRange, cl::NDRange(roundUp(n_q, group), h),
                                    cl::NDRange(group, 1));
      }
      cl::Kernel pass2(prog, "write_probs_gpu");
      pass2.setArg(0, qb), pass2.setArg(1, kb), pass2.setArg(2, norm.arg), pass2.setArg(3, s.arg);
      pass2.setArg(4, p.arg), pass2.setArg(5, n_q), pass2.setArg(6, n_k), pass2.setArg(7, mk);
      pass2.setArg(8, per_kv), pass2.setArg(9, sl), pass2.setArg(10, b);
      requireWorkGroup(pass2, tile * tile, "write_probs_gpu");
      queue_.enqueueNDRangeKernel(
          pass2, cl::NullRange, cl::NDRange(roundUp(n_k, tile), roundUp(n_q, tile), h),
          cl::NDRange(tile, tile, 1));
    }
    collect({&s, &p, &norm});
    return 0;
  });
}

Fused Runtime::fused(const Tensor3& q, const Tensor3& k, const Tensor3& v, const MaskParams& mask,
                     float b) {
  Fused out;
  fusedInto(q, k, v, mask, out, b);
  return out;
}

void Runtime::fusedInto(const Tensor3& q, const Tensor3& k, const Tensor3& v,
                        const MaskParams& mask, Fused& out, float b) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols, d_v = v.cols;
  const cl_int per_kv = queriesPerKv(q, k, &v);
  const cl::Program prog = program("flash_attention.cl", d_k, d_v);
  reshape(out.output, h, n_q, d_v);
  out.norm.resize(static_cast<std::size_t>(h) * n_q * 2);
  checked([&] {
    const cl::Buffer kb = view(k.data), vb = view(v.data), sl = slopes(mask, h, b);
    const cl_int8 mk = maskArg(mask);
    Result o = resultBuffer(out.output.data), norm = resultBuffer(out.norm);
    if (variant_ == Variant::kCpu) {
      // Q in place (the kernel gathers each work-item's 16 rows itself): no host copy.
      const cl::Buffer qb = view(q.data);
      cl::Kernel kernel(prog, "flash_fwd_cpu");
      kernel.setArg(0, qb), kernel.setArg(1, kb), kernel.setArg(2, vb), kernel.setArg(3, o.arg);
      kernel.setArg(4, norm.arg), kernel.setArg(5, n_q), kernel.setArg(6, n_k);
      kernel.setArg(7, mk), kernel.setArg(8, per_kv), kernel.setArg(9, sl), kernel.setArg(10, b);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(roundUp(n_q, 16) / 16, h),
                                  cl::NDRange(1, 1));
    } else {
      GpuTiles tiles;
      fusedTiles(limits_, d_k, d_v, tiles);
      const std::size_t queries = static_cast<std::size_t>(tiles.queries);
      const cl::Buffer qb = view(q.data);
      cl::Kernel kernel(prog, "flash_fwd_gpu");
      kernel.setArg(0, qb), kernel.setArg(1, kb), kernel.setArg(2, vb), kernel.setArg(3, o.arg);
      kernel.setArg(4, norm.arg), kernel.setArg(5, n_q), kernel.setArg(6, n_k);
      kernel.setArg(7, mk), kernel.setArg(8, per_kv), kernel.setArg(9, sl);
      kernel.setArg(10, b);
      requireWorkGroup(kernel, queries, "flash_fwd_gpu");
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(roundUp(n_q, queries), h),
                                  cl::NDRange(queries, 1));
    }
    collect({&o, &norm});
    return 0;
  });
}

void Runtime::attendInto(const Tensor3& q, const Tensor3& k, const Tensor3& v,
                         const MaskParams& mask, Attended& out, float b) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (variant_ != Variant::kCpu) {
    Fused f = fused(q, k, v, mask, b);
    materializeInto(q, k, mask, &f.norm, out, b);
    out.output = std::move(f.output);
    return;
  }
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols, d_v = v.cols;
  const cl_int per_kv = queriesPerKv(q, k, &v);
  const cl::Program prog = program("flash_attention.cl", d_k, d_v);
  reshape(out.scores, h, n_q, n_k);
  reshape(out.weights, h, n_q, n_k);
  reshape(out.output, h, n_q, d_v);
  out.norm.resize(static_cast<std::size_t>(h) * n_q * 2);
  checked([&] {
    const cl::Buffer qb = view(q.data);  // in place: the kernel gathers its 16 rows
    const cl::Buffer kb = view(k.data), vb = view(v.data), sl = slopes(mask, h, b);
    Result o = resultBuffer(out.output.data), norm = resultBuffer(out.norm);
    Result s = resultBuffer(out.scores.data), p = resultBuffer(out.weights.data);
    cl::Kernel kernel(prog, "flash_probs_cpu");
    kernel.setArg(0, qb), kernel.setArg(1, kb), kernel.setArg(2, vb), kernel.setArg(3, o.arg);
    kernel.setArg(4, norm.arg), kernel.setArg(5, s.arg), kernel.setArg(6, p.arg);
    kernel.setArg(7, n_q), kernel.setArg(8, n_k), kernel.setArg(9, maskArg(mask));
    kernel.setArg(10, per_kv), kernel.setArg(11, sl), kernel.setArg(12, b);
    queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(roundUp(n_q, 16) / 16, h),
                                cl::NDRange(1, 1));
    collect({&o, &norm, &s, &p});
    return 0;
  });
}

Pooled Runtime::pool(const Tensor3& q, const Tensor3& k, const RowNorm& row_norm,
                     const MaskParams& mask, int b, float score_factor) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (b < 1) throw Error(ErrorCode::kInvalidArgument, "the pooling block must be at least 1");
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols;
  const int nb_q = (n_q + b - 1) / b, nb_k = (n_k + b - 1) / b;
  const cl_int per_kv = queriesPerKv(q, k);
  const bool cpu = variant_ == Variant::kCpu;
  const cl::Program prog =
      program(cpu ? "materialized_attention.cl" : "pool_attention.cl", d_k, d_k);
  if (row_norm.size() != static_cast<std::size_t>(h) * n_q * 2)
    throw Error(ErrorCode::kInvalidArgument, "norm must hold 2·h·n_q values");
  return checked([&] {
    Pooled out{Tensor3(h, nb_q, nb_k), Tensor3(h, nb_q, nb_k)};
    const cl::Buffer qb = view(q.data), nb = view(row_norm), sl = slopes(mask, h, score_factor);
    const cl_int8 mk = maskArg(mask);
    Result mean = resultBuffer(out.mean.data), max = resultBuffer(out.max.data);
    if (cpu) {
      const std::size_t nk_pad = paddedKeyRows(n_k);
      const cl::Buffer kt = upload(transposeHeads(k, nk_pad));
      cl::Kernel kernel(prog, "pool_probs_cpu");
      kernel.setArg(0, qb), kernel.setArg(1, kt), kernel.setArg(2, nb);
      kernel.setArg(3, mean.arg), kernel.setArg(4, max.arg), kernel.setArg(5, n_q);
      kernel.setArg(6, n_k), kernel.setArg(7, static_cast<cl_int>(nk_pad)), kernel.setArg(8, b);
      kernel.setArg(9, nb_k), kernel.setArg(10, mk), kernel.setArg(11, per_kv);
      kernel.setArg(12, sl), kernel.setArg(13, score_factor);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(nb_q, h), cl::NDRange(1, 1));
    } else {
      const cl::Buffer kb = view(k.data);
      cl::Kernel kernel(prog, "pool_probs");
      kernel.setArg(0, qb), kernel.setArg(1, kb), kernel.setArg(2, nb), kernel.setArg(3, mean.arg);
      kernel.setArg(4, max.arg), kernel.setArg(5, n_q), kernel.setArg(6, n_k), kernel.setArg(7, b);
      kernel.setArg(8, mk), kernel.setArg(9, per_kv), kernel.setArg(10, sl);
      kernel.setArg(11, score_factor);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(nb_k, nb_q, h));
    }
    collect({&mean, &max});
    return out;
  });
}

Materialized Runtime::additive(const Tensor3& q, const Tensor3& k_grouped, const Tensor3& w_a,
                               const Tensor3& u_a, const Tensor3& v_a, float energy_factor,
                               float score_factor, const MaskParams& mask, const Tensor3& v_grouped,
                               Tensor3* output) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  queriesPerKv(q, k_grouped, &v_grouped);
  // The projections take one K/V head per query head: grouped heads are repeated here.
  Tensor3 k_repeated, v_repeated;
  const bool grouped = k_grouped.h != q.h;
  if (grouped) k_repeated = repeatHeads(k_grouped, q.h), v_repeated = repeatHeads(v_grouped, q.h);
  const Tensor3& k = grouped ? k_repeated : k_grouped;
  const Tensor3& v = grouped ? v_repeated : v_grouped;
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols, d_a = w_a.cols, d_v = v.cols;
  const cl::Program prog = program("additive_attention.cl", d_k, d_k);
  const bool cpu = variant_ == Variant::kCpu;
  Materialized m{Tensor3(h, n_q, n_k), Tensor3(h, n_q, n_k),
                 RowNorm(static_cast<std::size_t>(h) * n_q * 2)};
  if (output) reshape(*output, h, n_q, d_v);
  checked([&] {
    const cl::Buffer qb = view(q.data), kb = view(k.data), wb = view(w_a.data),
                     ub = view(u_a.data), vab = view(v_a.data);
    Result s = resultBuffer(m.scores.data), p = resultBuffer(m.weights.data);
    Result norm = resultBuffer(m.norm);
    cl::Buffer a = scratch(static_cast<std::size_t>(h) * n_q * d_a);
    cl::Kernel project(prog, "project_rows");  // A = Q W_a
    project.setArg(0, qb), project.setArg(1, wb), project.setArg(2, a), project.setArg(3, n_q);
    project.setArg(4, d_k), project.setArg(5, d_a);
    queue_.enqueueNDRangeKernel(project, cl::NullRange, cl::NDRange(d_a, n_q, h));
    if (cpu) {
      // Bᵀ = (K U_a)ᵀ with key rows padded to 16, so 16 keys are one vector load.
      const std::size_t nk_pad = roundUp(n_k, 16);
      const std::size_t bkt_size = static_cast<std::size_t>(h) * d_a * nk_pad;
      cl::Buffer bkt = scratch(bkt_size);
      queue_.enqueueFillBuffer(bkt, 0.0f, 0, bkt_size * sizeof(float));
      cl::Kernel project_t(prog, "project_rows_transposed");
      project_t.setArg(0, kb), project_t.setArg(1, ub), project_t.setArg(2, bkt);
      project_t.setArg(3, n_k), project_t.setArg(4, d_k), project_t.setArg(5, d_a);
      project_t.setArg(6, static_cast<cl_int>(nk_pad));
      queue_.enqueueNDRangeKernel(project_t, cl::NullRange, cl::NDRange(d_a, n_k, h));
      cl::Kernel scores(prog, "additive_scores_cpu");
      scores.setArg(0, a), scores.setArg(1, bkt), scores.setArg(2, vab), scores.setArg(3, s.arg);
      scores.setArg(4, n_q), scores.setArg(5, n_k), scores.setArg(6, static_cast<cl_int>(nk_pad));
      scores.setArg(7, d_a), scores.setArg(8, energy_factor);
      queue_.enqueueNDRangeKernel(scores, cl::NullRange, cl::NDRange(n_q, h), cl::NDRange(1, 1));
    } else {
      cl::Buffer bk = scratch(static_cast<std::size_t>(h) * n_k * d_a);  // B = K U_a
      project.setArg(0, kb), project.setArg(1, ub), project.setArg(2, bk), project.setArg(3, n_k);
      queue_.enqueueNDRangeKernel(project, cl::NullRange, cl::NDRange(d_a, n_k, h));
      cl::Kernel scores(prog, "additive_scores");
      scores.setArg(0, a), scores.setArg(1, bk), scores.setArg(2, vab), scores.setArg(3, s.arg);
      scores.setArg(4, n_q), scores.setArg(5, n_k), scores.setArg(6, d_a);
      scores.setArg(7, energy_factor);
      queue_.enqueueNDRangeKernel(scores, cl::NullRange, cl::NDRange(n_k, n_q, h));
    }
    cl::Kernel softmax(prog, cpu ? "softmax_rows_cpu" : "softmax_rows");
    softmax.setArg(0, s.arg), softmax.setArg(1, p.arg), softmax.setArg(2, norm.arg);
    const cl::Buffer sl = slopes(mask, h, score_factor);
    softmax.setArg(3, n_q), softmax.setArg(4, n_k), softmax.setArg(5, maskArg(mask));
    softmax.setArg(6, sl), softmax.setArg(7, score_factor);
    queue_.enqueueNDRangeKernel(softmax, cl::NullRange, cl::NDRange(n_q, h),
                                cpu ? cl::NDRange(1, 1) : cl::NullRange);
    if (!output) {
      collect({&s, &p, &norm});
      return 0;
    }
    // O = P V from P still on the device.
    Result o = resultBuffer(output->data);
    if (cpu) {
      const std::size_t dv_pad = roundUp(d_v, 16);
      const cl::Buffer vpad = upload(padColumns(v, dv_pad));
      cl::Kernel pv(prog, "weights_times_values_cpu");
      pv.setArg(0, p.arg), pv.setArg(1, vpad), pv.setArg(2, o.arg), pv.setArg(3, n_q);
      pv.setArg(4, n_k), pv.setArg(5, d_v), pv.setArg(6, static_cast<cl_int>(dv_pad));
      queue_.enqueueNDRangeKernel(pv, cl::NullRange,
                                  cl::NDRange(dv_pad / 16, roundUp(n_q, kCpuRows) / kCpuRows, h),
                                  cl::NDRange(1, 1, 1));
    } else {
      const cl::Buffer vb = view(v.data);
      cl::Kernel pv(prog, "weights_times_values");
      pv.setArg(0, p.arg), pv.setArg(1, vb), pv.setArg(2, o.arg), pv.setArg(3, n_q);
      pv.setArg(4, n_k), pv.setArg(5, d_v);
      queue_.enqueueNDRangeKernel(pv, cl::NullRange, cl::NDRange(d_v, n_q, h));
    }
    collect({&s, &p, &norm, &o});
    return 0;
  });
  return m;
}

}  // namespace attnlab::opencl
