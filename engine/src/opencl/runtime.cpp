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
#include "opencl/launch.hpp"

namespace attnlab::opencl {

std::vector<cl::Device> allDevices();  // devices.cpp: the order of listOpenClDevices()

const std::map<std::string, std::string_view>& embeddedKernels();  // generated at build time

namespace {

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

}  // namespace

MaskParams MaskParams::fromSpec(const AttentionSpec& spec) {
  MaskParams m;
  m.pattern = spec.maskPattern();
  if (spec.positions == Positions::kAlibi) m.alibi_slopes = alibiSlopes(spec.heads);
  return m;
}

std::pair<int, int> visibleRange(const MaskParams& m, int i, int n_k) {
  // MaskPattern::span at position p = i + offset, its bounds clamped to [0, n_k] (p may be
  // negative or past the keys with an offset).
  const int p = i + m.offset;
  auto [lo, hi] = m.pattern.span(p, n_k);
  hi = std::clamp(hi, 0, n_k);
  return {std::clamp(lo, 0, hi), hi};
}

bool keyVisible(const MaskParams& m, int i, int j) { return m.pattern.visible(i + m.offset, j); }

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

std::string kernelName(const cl::Kernel& kernel) {
  try {
    std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
    while (!name.empty() && name.back() == '\0') name.pop_back();  // some drivers count the NUL
    return name.empty() ? "a kernel" : name;
  } catch (const cl::Error&) {
    return "a kernel";
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

cl::Buffer Runtime::upload(std::span<const float> data) {
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

cl::Buffer Runtime::view(std::span<const float> data) {
  if (variant_ != Variant::kCpu) return upload(data);
  return cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                    std::max<std::size_t>(1, data.size()) * sizeof(float),
                    const_cast<float*>(data.data()));
}

cl::Buffer Runtime::scratch(std::size_t floats) {
  return cl::Buffer(context_, CL_MEM_READ_WRITE, std::max<std::size_t>(1, floats) * sizeof(float));
}

Runtime::Result Runtime::resultBuffer(FloatStore& host) {
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
  std::vector<FloatStore> guarded(results.size());
  std::size_t index = 0;
  for (Result* r : results) {
    FloatStore& host = *r->host;
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
    FloatStore& all = variant_ == Variant::kCpu ? *r->host : guarded[index];
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

}  // namespace attnlab::opencl
