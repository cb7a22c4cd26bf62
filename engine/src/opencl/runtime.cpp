#include "opencl/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "attnlab/error.hpp"

namespace attnlab::opencl {

std::vector<cl::Device> allDevices();  // devices.cpp: the order of listOpenClDevices()

const std::map<std::string, std::string_view>& embeddedKernels();  // generated at build time

namespace {

constexpr int kCpuRows = 4;       // ROWS: query rows per work-item in the CPU materialised path
constexpr int kCpuBlock = 24;     // BK: keys per block in the CPU fused kernel
constexpr int kCpuScoreKeys = 6;  // BKS: keys per pass of its score loop (12 accumulators)
constexpr int kCpuValueCols = 4;  // BDV: output columns per pass of its P·V loop (8 accumulators)
constexpr int kGpuQueries = 64;   // BQ: queries per work-group in the GPU fused kernel
constexpr int kGpuKeys = 16;      // BKG: keys per local-memory tile in the GPU fused kernel
constexpr int kGpuTile = 16;      // TILE: edge of the GPU materialised tiles

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

}  // namespace

std::pair<int, int> visibleRange(const MaskParams& m, int i, int n_k) {
  int hi = m.causal ? std::clamp(i + 1 + m.offset, 0, n_k) : n_k;
  int lo = (m.causal && m.window > 0) ? std::clamp(i + m.offset - m.window + 1, 0, hi) : 0;
  return {lo, hi};
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
  checked([&] {
    context_ = cl::Context(device_);
    queue_ = cl::CommandQueue(context_, device_);
    device_name_ = device_.getInfo<CL_DEVICE_NAME>();
    const bool cpu = (device_.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
    variant_ = variant.value_or(cpu ? Variant::kCpu : Variant::kGpu);
    return 0;
  });
}

std::string Runtime::buildOptions(int d_k, int d_v) const {
  std::ostringstream o;
  // -w: PoCL warns that float16 arguments change the ABI without AVX-512 (harmless, and printed
  // on stderr for every build); kernels are kept warning-free with clang -Wall separately.
  o << "-cl-std=CL1.2 -w -D D_K=" << d_k << " -D D_V=" << d_v << " -D ROWS=" << kCpuRows
    << " -D BK=" << kCpuBlock << " -D BKS=" << kCpuScoreKeys << " -D BDV=" << kCpuValueCols
    << " -D BQ=" << kGpuQueries << " -D BKG=" << kGpuKeys << " -D TILE=" << kGpuTile;
  return o.str();
}

cl::Program& Runtime::program(const std::string& file, int d_k, int d_v) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const auto key = std::make_tuple(file, d_k, d_v);
  if (auto it = programs_.find(key); it != programs_.end()) return it->second;
  const std::string source = kernelSource(file);
  const std::string options = buildOptions(d_k, d_v);
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
  return programs_.emplace(key, std::move(program)).first->second;
}

void Runtime::prepare(int d_k, int d_v) {
  for (const char* file : {"materialized_attention.cl", "flash_attention.cl",
                           "pool_attention.cl", "additive_attention.cl"})
    program(file, d_k, d_v);
}

bool Runtime::prepared(int d_k, int d_v) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return programs_.count({"materialized_attention.cl", d_k, d_v}) &&
         programs_.count({"flash_attention.cl", d_k, d_v}) &&
         programs_.count({"pool_attention.cl", d_k, d_v}) &&
         programs_.count({"additive_attention.cl", d_k, d_v});
}

cl::Buffer Runtime::upload(const std::vector<float>& data) {
  return cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                    std::max<std::size_t>(1, data.size()) * sizeof(float),
                    const_cast<float*>(data.data()));
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

cl::Buffer Runtime::resultBuffer(std::vector<float>& host) {
  if (variant_ != Variant::kCpu) return scratch(host.size());
  return cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                    std::max<std::size_t>(1, host.size()) * sizeof(float), host.data());
}

void Runtime::collect(std::initializer_list<std::pair<cl::Buffer*, std::vector<float>*>> results) {
  // Every command is queued without blocking and waited for once: each blocking call costs a
  // round trip (~25 µs on PoCL). On CPU devices mapping makes what the kernels wrote visible at
  // the host pointer (no copy); elsewhere the results are read back.
  std::vector<void*> mapped;
  for (const auto& [buffer, host] : results) {
    if (variant_ == Variant::kCpu)
      mapped.push_back(queue_.enqueueMapBuffer(*buffer, CL_FALSE, CL_MAP_READ, 0,
                                               buffer->getInfo<CL_MEM_SIZE>()));
    else if (!host->empty())
      queue_.enqueueReadBuffer(*buffer, CL_FALSE, 0, host->size() * sizeof(float), host->data());
  }
  for (std::size_t i = 0; i < mapped.size(); ++i)
    queue_.enqueueUnmapMemObject(*results.begin()[i].first, mapped[i]);
  queue_.finish();
}

Materialized Runtime::materialize(const Tensor3& q, const Tensor3& k, const MaskParams& mask,
                                  const std::vector<float>* known_lse) {
  Materialized out;
  materializeInto(q, k, mask, known_lse, out);
  return out;
}

void Runtime::materializeInto(const Tensor3& q, const Tensor3& k, const MaskParams& mask,
                              const std::vector<float>* known_lse, Materialized& out) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols;
  cl::Program& prog = program("materialized_attention.cl", d_k, d_k);
  reshape(out.scores, h, n_q, n_k);
  reshape(out.weights, h, n_q, n_k);
  out.lse.resize(static_cast<std::size_t>(h) * n_q);
  if (known_lse && known_lse->size() != out.lse.size())
    throw Error(ErrorCode::kInvalidArgument, "known_lse must hold h·n_q values");
  checked([&] {
    const cl::Buffer qb = view(q.data);
    cl::Buffer lse = known_lse ? view(*known_lse) : resultBuffer(out.lse);
    cl::Buffer s = resultBuffer(out.scores.data), p = resultBuffer(out.weights.data);
    const cl_int causal = mask.causal, offset = mask.offset, window = mask.window;
    if (variant_ == Variant::kCpu) {
      const std::size_t nk_pad = paddedKeyRows(n_k);
      const cl::Buffer kt = upload(transposeHeads(k, nk_pad));
      if (!known_lse) {
        cl::Kernel pass1(prog, "row_lse_cpu");
        pass1.setArg(0, qb), pass1.setArg(1, kt), pass1.setArg(2, lse), pass1.setArg(3, n_q);
        pass1.setArg(4, n_k), pass1.setArg(5, static_cast<cl_int>(nk_pad));
        pass1.setArg(6, causal), pass1.setArg(7, offset), pass1.setArg(8, window);
        queue_.enqueueNDRangeKernel(pass1, cl::NullRange,
                                    cl::NDRange(roundUp(n_q, kCpuRows) / kCpuRows, h),
                                    cl::NDRange(1, 1));
      }
      cl::Kernel pass2(prog, "write_probs_cpu");
      pass2.setArg(0, qb), pass2.setArg(1, kt), pass2.setArg(2, lse), pass2.setArg(3, s);
      pass2.setArg(4, p), pass2.setArg(5, n_q), pass2.setArg(6, n_k);
      pass2.setArg(7, static_cast<cl_int>(nk_pad)), pass2.setArg(8, causal);
      pass2.setArg(9, offset), pass2.setArg(10, window);
      queue_.enqueueNDRangeKernel(pass2, cl::NullRange,
                                  cl::NDRange(roundUp(n_q, kCpuRows) / kCpuRows, h),
                                  cl::NDRange(1, 1));
    } else {
      const cl::Buffer kb = view(k.data);
      if (!known_lse) {
        cl::Kernel pass1(prog, "row_lse_gpu");
        pass1.setArg(0, qb), pass1.setArg(1, kb), pass1.setArg(2, lse), pass1.setArg(3, n_q);
        pass1.setArg(4, n_k), pass1.setArg(5, causal), pass1.setArg(6, offset);
        pass1.setArg(7, window);
        const std::size_t group = kGpuTile * kGpuTile;
        queue_.enqueueNDRangeKernel(pass1, cl::NullRange, cl::NDRange(roundUp(n_q, group), h),
                                    cl::NDRange(group, 1));
      }
      cl::Kernel pass2(prog, "write_probs_gpu");
      pass2.setArg(0, qb), pass2.setArg(1, kb), pass2.setArg(2, lse), pass2.setArg(3, s);
      pass2.setArg(4, p), pass2.setArg(5, n_q), pass2.setArg(6, n_k), pass2.setArg(7, causal);
      pass2.setArg(8, offset), pass2.setArg(9, window);
      queue_.enqueueNDRangeKernel(
          pass2, cl::NullRange, cl::NDRange(roundUp(n_k, kGpuTile), roundUp(n_q, kGpuTile), h),
          cl::NDRange(kGpuTile, kGpuTile, 1));
    }
    if (known_lse) {
      out.lse = *known_lse;
      collect({{&s, &out.scores.data}, {&p, &out.weights.data}});
    } else {
      collect({{&s, &out.scores.data}, {&p, &out.weights.data}, {&lse, &out.lse}});
    }
    return 0;
  });
}

Fused Runtime::fused(const Tensor3& q, const Tensor3& k, const Tensor3& v,
                     const MaskParams& mask) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols, d_v = v.cols;
  cl::Program& prog = program("flash_attention.cl", d_k, d_v);
  return checked([&] {
    Fused out{Tensor3(h, n_q, d_v), std::vector<float>(static_cast<std::size_t>(h) * n_q)};
    const cl::Buffer kb = view(k.data), vb = view(v.data);
    const cl_int causal = mask.causal, offset = mask.offset, window = mask.window;
    cl::Buffer ob = resultBuffer(out.output.data), lse = resultBuffer(out.lse);
    if (variant_ == Variant::kCpu) {
      const std::size_t nq_pad = roundUp(n_q, 16);
      const cl::Buffer qt = upload(transposeHeads(q, nq_pad));
      cl::Kernel kernel(prog, "flash_fwd_cpu");
      kernel.setArg(0, qt), kernel.setArg(1, kb), kernel.setArg(2, vb), kernel.setArg(3, ob);
      kernel.setArg(4, lse), kernel.setArg(5, n_q), kernel.setArg(6, n_k);
      kernel.setArg(7, static_cast<cl_int>(nq_pad)), kernel.setArg(8, causal);
      kernel.setArg(9, offset), kernel.setArg(10, window);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(nq_pad / 16, h),
                                  cl::NDRange(1, 1));
    } else {
      const cl::Buffer qb = view(q.data);
      cl::Kernel kernel(prog, "flash_fwd_gpu");
      kernel.setArg(0, qb), kernel.setArg(1, kb), kernel.setArg(2, vb), kernel.setArg(3, ob);
      kernel.setArg(4, lse), kernel.setArg(5, n_q), kernel.setArg(6, n_k);
      kernel.setArg(7, causal), kernel.setArg(8, offset), kernel.setArg(9, window);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange,
                                  cl::NDRange(roundUp(n_q, kGpuQueries), h),
                                  cl::NDRange(kGpuQueries, 1));
    }
    collect({{&ob, &out.output.data}, {&lse, &out.lse}});
    return out;
  });
}

void Runtime::attendInto(const Tensor3& q, const Tensor3& k, const Tensor3& v,
                         const MaskParams& mask, Attended& out) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (variant_ != Variant::kCpu) {
    Fused f = fused(q, k, v, mask);
    materializeInto(q, k, mask, &f.lse, out);
    out.output = std::move(f.output);
    return;
  }
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols, d_v = v.cols;
  cl::Program& prog = program("flash_attention.cl", d_k, d_v);
  reshape(out.scores, h, n_q, n_k);
  reshape(out.weights, h, n_q, n_k);
  reshape(out.output, h, n_q, d_v);
  out.lse.resize(static_cast<std::size_t>(h) * n_q);
  checked([&] {
    const std::size_t nq_pad = roundUp(n_q, 16);
    const cl::Buffer qt = upload(transposeHeads(q, nq_pad));
    const cl::Buffer kb = view(k.data), vb = view(v.data);
    cl::Buffer ob = resultBuffer(out.output.data), lse = resultBuffer(out.lse);
    cl::Buffer s = resultBuffer(out.scores.data), p = resultBuffer(out.weights.data);
    cl::Kernel kernel(prog, "flash_probs_cpu");
    kernel.setArg(0, qt), kernel.setArg(1, kb), kernel.setArg(2, vb), kernel.setArg(3, ob);
    kernel.setArg(4, lse), kernel.setArg(5, s), kernel.setArg(6, p), kernel.setArg(7, n_q);
    kernel.setArg(8, n_k), kernel.setArg(9, static_cast<cl_int>(nq_pad));
    kernel.setArg(10, static_cast<cl_int>(mask.causal)), kernel.setArg(11, mask.offset);
    kernel.setArg(12, mask.window);
    queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(nq_pad / 16, h),
                                cl::NDRange(1, 1));
    collect({{&ob, &out.output.data}, {&lse, &out.lse}, {&s, &out.scores.data},
             {&p, &out.weights.data}});
    return 0;
  });
}

Pooled Runtime::pool(const Tensor3& q, const Tensor3& k, const std::vector<float>& lse,
                     const MaskParams& mask, int b) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (b < 1) throw Error(ErrorCode::kInvalidArgument, "the pooling block must be at least 1");
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols;
  const int nb_q = (n_q + b - 1) / b, nb_k = (n_k + b - 1) / b;
  const bool cpu = variant_ == Variant::kCpu;
  cl::Program& prog = program(cpu ? "materialized_attention.cl" : "pool_attention.cl", d_k, d_k);
  return checked([&] {
    Pooled out{Tensor3(h, nb_q, nb_k), Tensor3(h, nb_q, nb_k)};
    const cl::Buffer qb = view(q.data), lb = view(lse);
    const cl_int causal = mask.causal, offset = mask.offset, window = mask.window;
    cl::Buffer mean = resultBuffer(out.mean.data), max = resultBuffer(out.max.data);
    if (cpu) {
      const std::size_t nk_pad = paddedKeyRows(n_k);
      const cl::Buffer kt = upload(transposeHeads(k, nk_pad));
      cl::Kernel kernel(prog, "pool_probs_cpu");
      kernel.setArg(0, qb), kernel.setArg(1, kt), kernel.setArg(2, lb), kernel.setArg(3, mean);
      kernel.setArg(4, max), kernel.setArg(5, n_q), kernel.setArg(6, n_k);
      kernel.setArg(7, static_cast<cl_int>(nk_pad)), kernel.setArg(8, b), kernel.setArg(9, nb_k);
      kernel.setArg(10, causal), kernel.setArg(11, offset), kernel.setArg(12, window);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(nb_q, h), cl::NDRange(1, 1));
    } else {
      const cl::Buffer kb = view(k.data);
      cl::Kernel kernel(prog, "pool_probs");
      kernel.setArg(0, qb), kernel.setArg(1, kb), kernel.setArg(2, lb), kernel.setArg(3, mean);
      kernel.setArg(4, max), kernel.setArg(5, n_q), kernel.setArg(6, n_k), kernel.setArg(7, b);
      kernel.setArg(8, causal), kernel.setArg(9, offset), kernel.setArg(10, window);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(nb_k, nb_q, h));
    }
    collect({{&mean, &out.mean.data}, {&max, &out.max.data}});
    return out;
  });
}

Materialized Runtime::additive(const Tensor3& q, const Tensor3& k, const Tensor3& w_a,
                               const Tensor3& u_a, const Tensor3& v_a, double scale,
                               const MaskParams& mask, const Tensor3& v, Tensor3* output) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const int h = q.h, n_q = q.rows, n_k = k.rows, d_k = q.cols, d_a = w_a.cols, d_v = v.cols;
  cl::Program& prog = program("additive_attention.cl", d_k, d_k);
  const bool cpu = variant_ == Variant::kCpu;
  Materialized m{Tensor3(h, n_q, n_k), Tensor3(h, n_q, n_k),
                 std::vector<float>(static_cast<std::size_t>(h) * n_q)};
  if (output) reshape(*output, h, n_q, d_v);
  checked([&] {
    const cl::Buffer qb = view(q.data), kb = view(k.data), wb = view(w_a.data),
                     ub = view(u_a.data), vab = view(v_a.data);
    cl::Buffer s = resultBuffer(m.scores.data), p = resultBuffer(m.weights.data);
    cl::Buffer lse = resultBuffer(m.lse);
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
      scores.setArg(0, a), scores.setArg(1, bkt), scores.setArg(2, vab), scores.setArg(3, s);
      scores.setArg(4, n_q), scores.setArg(5, n_k), scores.setArg(6, static_cast<cl_int>(nk_pad));
      scores.setArg(7, d_a), scores.setArg(8, static_cast<cl_float>(scale));
      queue_.enqueueNDRangeKernel(scores, cl::NullRange, cl::NDRange(n_q, h), cl::NDRange(1, 1));
    } else {
      cl::Buffer bk = scratch(static_cast<std::size_t>(h) * n_k * d_a);  // B = K U_a
      project.setArg(0, kb), project.setArg(1, ub), project.setArg(2, bk), project.setArg(3, n_k);
      queue_.enqueueNDRangeKernel(project, cl::NullRange, cl::NDRange(d_a, n_k, h));
      cl::Kernel scores(prog, "additive_scores");
      scores.setArg(0, a), scores.setArg(1, bk), scores.setArg(2, vab), scores.setArg(3, s);
      scores.setArg(4, n_q), scores.setArg(5, n_k), scores.setArg(6, d_a);
      scores.setArg(7, static_cast<cl_float>(scale));
      queue_.enqueueNDRangeKernel(scores, cl::NullRange, cl::NDRange(n_k, n_q, h));
    }
    cl::Kernel softmax(prog, cpu ? "softmax_rows_cpu" : "softmax_rows");
    softmax.setArg(0, s), softmax.setArg(1, p), softmax.setArg(2, lse), softmax.setArg(3, n_q);
    softmax.setArg(4, n_k), softmax.setArg(5, static_cast<cl_int>(mask.causal));
    softmax.setArg(6, mask.offset), softmax.setArg(7, mask.window);
    queue_.enqueueNDRangeKernel(softmax, cl::NullRange, cl::NDRange(n_q, h),
                                cpu ? cl::NDRange(1, 1) : cl::NullRange);
    if (!output) {
      collect({{&s, &m.scores.data}, {&p, &m.weights.data}, {&lse, &m.lse}});
      return 0;
    }
    // O = P V from P still on the device.
    cl::Buffer o = resultBuffer(output->data);
    if (cpu) {
      const std::size_t dv_pad = roundUp(d_v, 16);
      const cl::Buffer vpad = upload(padColumns(v, dv_pad));
      cl::Kernel pv(prog, "weights_times_values_cpu");
      pv.setArg(0, p), pv.setArg(1, vpad), pv.setArg(2, o), pv.setArg(3, n_q), pv.setArg(4, n_k);
      pv.setArg(5, d_v), pv.setArg(6, static_cast<cl_int>(dv_pad));
      queue_.enqueueNDRangeKernel(pv, cl::NullRange,
                                  cl::NDRange(dv_pad / 16, roundUp(n_q, kCpuRows) / kCpuRows, h),
                                  cl::NDRange(1, 1, 1));
    } else {
      const cl::Buffer vb = view(v.data);
      cl::Kernel pv(prog, "weights_times_values");
      pv.setArg(0, p), pv.setArg(1, vb), pv.setArg(2, o), pv.setArg(3, n_q), pv.setArg(4, n_k);
      pv.setArg(5, d_v);
      queue_.enqueueNDRangeKernel(pv, cl::NullRange, cl::NDRange(d_v, n_q, h));
    }
    collect({{&s, &m.scores.data}, {&p, &m.weights.data}, {&lse, &m.lse}, {&o, &output->data}});
    return 0;
  });
  return m;
}

}  // namespace attnlab::opencl
