// The attention operations of Runtime: each uploads its inputs (or views them in place on CPU
// devices), sets the arguments of its kernels with setArgs, launches them on the queue and
// collects the results (runtime.cpp holds the device, the program cache and the buffers).

#include <algorithm>
#include <cstring>

#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "opencl/launch.hpp"
#include "opencl/runtime.hpp"

namespace attnlab::opencl {
namespace {

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
  a.s[0] = m.pattern.causal, a.s[1] = m.offset, a.s[2] = m.pattern.window, a.s[3] = m.pattern.global;
  a.s[4] = m.pattern.stride, a.s[5] = m.pattern.valid_keys, a.s[6] = !m.alibi_slopes.empty(), a.s[7] = 0;
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
      const auto nk = static_cast<cl_int>(nk_pad);
      if (!known_norm) {
        cl::Kernel pass1(prog, "row_norm_cpu");
        setArgs(pass1, qb, kt, norm.arg, n_q, n_k, nk, mk, per_kv, sl, b);
        queue_.enqueueNDRangeKernel(pass1, cl::NullRange,
                                    cl::NDRange(roundUp(n_q, kCpuRows) / kCpuRows, h),
                                    cl::NDRange(1, 1));
      }
      cl::Kernel pass2(prog, "write_probs_cpu");
      setArgs(pass2, qb, kt, norm.arg, s.arg, p.arg, n_q, n_k, nk, mk, per_kv, sl, b);
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
        setArgs(pass1, qb, kb, norm.arg, n_q, n_k, mk, per_kv, sl, b);
        const std::size_t group = tile * tile;
        requireWorkGroup(pass1, group, "row_norm_gpu");
        queue_.enqueueNDRangeKernel(pass1, cl::NullRange, cl::NDRange(roundUp(n_q, group), h),
                                    cl::NDRange(group, 1));
      }
      cl::Kernel pass2(prog, "write_probs_gpu");
      setArgs(pass2, qb, kb, norm.arg, s.arg, p.arg, n_q, n_k, mk, per_kv, sl, b);
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
      setArgs(kernel, qb, kb, vb, o.arg, norm.arg, n_q, n_k, mk, per_kv, sl, b);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(roundUp(n_q, 16) / 16, h),
                                  cl::NDRange(1, 1));
    } else {
      GpuTiles tiles;
      fusedTiles(limits_, d_k, d_v, tiles);
      const std::size_t queries = static_cast<std::size_t>(tiles.queries);
      const cl::Buffer qb = view(q.data);
      cl::Kernel kernel(prog, "flash_fwd_gpu");
      setArgs(kernel, qb, kb, vb, o.arg, norm.arg, n_q, n_k, mk, per_kv, sl, b);
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
    setArgs(kernel, qb, kb, vb, o.arg, norm.arg, s.arg, p.arg, n_q, n_k, maskArg(mask), per_kv,
            sl, b);
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
      setArgs(kernel, qb, kt, nb, mean.arg, max.arg, n_q, n_k, static_cast<cl_int>(nk_pad), b, nb_k,
              mk, per_kv, sl, score_factor);
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(nb_q, h), cl::NDRange(1, 1));
    } else {
      const cl::Buffer kb = view(k.data);
      cl::Kernel kernel(prog, "pool_probs");
      setArgs(kernel, qb, kb, nb, mean.arg, max.arg, n_q, n_k, b, mk, per_kv, sl, score_factor);
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
    setArgs(project, qb, wb, a, n_q, d_k, d_a);
    queue_.enqueueNDRangeKernel(project, cl::NullRange, cl::NDRange(d_a, n_q, h));
    if (cpu) {
      // Bᵀ = (K U_a)ᵀ with key rows padded to 16, so 16 keys are one vector load.
      const std::size_t nk_pad = roundUp(n_k, 16);
      const std::size_t bkt_size = static_cast<std::size_t>(h) * d_a * nk_pad;
      cl::Buffer bkt = scratch(bkt_size);
      queue_.enqueueFillBuffer(bkt, 0.0f, 0, bkt_size * sizeof(float));
      cl::Kernel project_t(prog, "project_rows_transposed");
      setArgs(project_t, kb, ub, bkt, n_k, d_k, d_a, static_cast<cl_int>(nk_pad));
      queue_.enqueueNDRangeKernel(project_t, cl::NullRange, cl::NDRange(d_a, n_k, h));
      cl::Kernel scores(prog, "additive_scores_cpu");
      setArgs(scores, a, bkt, vab, s.arg, n_q, n_k, static_cast<cl_int>(nk_pad), d_a,
              energy_factor);
      queue_.enqueueNDRangeKernel(scores, cl::NullRange, cl::NDRange(n_q, h), cl::NDRange(1, 1));
    } else {
      cl::Buffer bk = scratch(static_cast<std::size_t>(h) * n_k * d_a);  // B = K U_a
      setArgs(project, kb, ub, bk, n_k, d_k, d_a);
      queue_.enqueueNDRangeKernel(project, cl::NullRange, cl::NDRange(d_a, n_k, h));
      cl::Kernel scores(prog, "additive_scores");
      setArgs(scores, a, bk, vab, s.arg, n_q, n_k, d_a, energy_factor);
      queue_.enqueueNDRangeKernel(scores, cl::NullRange, cl::NDRange(n_k, n_q, h));
    }
    cl::Kernel softmax(prog, cpu ? "softmax_rows_cpu" : "softmax_rows");
    const cl::Buffer sl = slopes(mask, h, score_factor);
    setArgs(softmax, s.arg, p.arg, norm.arg, n_q, n_k, maskArg(mask), sl, score_factor);
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
      setArgs(pv, p.arg, vpad, o.arg, n_q, n_k, d_v, static_cast<cl_int>(dv_pad));
      queue_.enqueueNDRangeKernel(pv, cl::NullRange,
                                  cl::NDRange(dv_pad / 16, roundUp(n_q, kCpuRows) / kCpuRows, h),
                                  cl::NDRange(1, 1, 1));
    } else {
      const cl::Buffer vb = view(v.data);
      cl::Kernel pv(prog, "weights_times_values");
      setArgs(pv, p.arg, vb, o.arg, n_q, n_k, d_v);
      queue_.enqueueNDRangeKernel(pv, cl::NullRange, cl::NDRange(d_v, n_q, h));
    }
    collect({&s, &p, &norm, &o});
    return 0;
  });
  return m;
}

}  // namespace attnlab::opencl
