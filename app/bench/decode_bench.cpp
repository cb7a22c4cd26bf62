/// \file decode_bench.cpp
/// attention-lab-bench --decode: decoding n tokens with a KV cache (each step appends one key and
/// value and attends one query over the cache: O(n) work per step) against recomputing the
/// causal attention of the whole prefix at every step (O(n²) per step), in the same run.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "attnlab/decode.hpp"
#include "attnlab/synthetic.hpp"
#include "bench/bench.hpp"

namespace attnlab::bench {
namespace {

using Clock = std::chrono::steady_clock;

/// Q, K, V of `rows` tokens from the first rows of `in`.
AttentionInputs prefix(const AttentionInputs& in, int rows) {
  auto cut = [rows](const Tensor3& t) {
    Tensor3 out(t.h, rows, t.cols);
    for (int k = 0; k < t.h; ++k) std::copy(t.row(k, 0), t.row(k, 0) + rows * t.cols, out.row(k, 0));
    return out;
  };
  AttentionInputs p;
  p.q = cut(in.q);
  p.k = cut(in.k);
  p.v = cut(in.v);
  return p;
}

/// Milliseconds of one causal computation over the first t + 1 tokens (the step that recomputes
/// its prefix): the best of two.
double recomputeStepMs(const AttentionInputs& in, const AttentionSpec& spec, int t) {
  const AttentionInputs p = prefix(in, t + 1);
  double best = 1e300;
  for (int r = 0; r < 2; ++r) {
    const auto start = Clock::now();
    const AttentionResult res = computeAttentionCpu(p, spec);
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (res.weights.data.empty()) return 0;
  }
  return best;
}

}  // namespace

int runDecodeBench(const DecodeBenchOptions& options) {
  // One thread on both sides: the table compares work, not how the heads share the cores.
  omp_set_num_threads(1);
  std::printf("KV-cache decoding against recomputing the prefix: h = %d, G = %d, d_k = d_v = %d, "
              "float32, CPU reference, one thread\n\n",
              options.heads, options.kv_heads, options.d_k);
  std::printf("| n | cache: total (ms) | cache: last step (ms) | cache at n (bytes; MHA) | "
              "recompute: total (ms) | recompute: last step (ms) | recompute / cache |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const int n : options.sizes) {
    AttentionSpec spec;
    spec.heads = options.heads;
    spec.kv_heads = options.kv_heads;
    spec.d_k = options.d_k;
    spec.d_model = options.heads * options.d_k;
    spec.mask = Mask::kCausal;
    spec.positions = Positions::kNone;
    const SyntheticModel model(spec, 1);
    std::vector<Token> tokens;
    for (int i = 0; i < n; ++i) {
      Token token;
      token.text = std::to_string(i % 97);
      token.text.insert(token.text.begin(), 'w');
      tokens.push_back(token);
    }
    const Matrix x = model.embed(tokens);
    const AttentionInputs in = model.project(x, x);
    const DecodeResult d = decodeWithCache(in, spec);
    // The recompute side: every step up to 512 tokens; beyond, `samples` steps evenly spaced
    // (always the last), summed by the trapezoid rule over t (its time grows smoothly, ~t²).
    const int samples = n <= options.measure_every_up_to ? n : options.samples;
    std::vector<int> ts;
    for (int s = 0; s < samples; ++s) ts.push_back(samples == n ? s : static_cast<int>((static_cast<long long>(s) + 1) * (n - 1) / samples));
    std::vector<double> ms;
    for (int t : ts) ms.push_back(recomputeStepMs(in, spec, t));
    double total = 0;
    if (samples == n) {
      for (double m : ms) total += m;
    } else {
      double prev_t = 0, prev_ms = 0;
      for (std::size_t i = 0; i < ts.size(); ++i) {
        total += 0.5 * (prev_ms + ms[i]) * (ts[i] - prev_t);
        prev_t = ts[i];
        prev_ms = ms[i];
      }
    }
    const DecodeStep& last = d.steps.back();
    std::printf("| %d | %.1f | %.3f | %lld; %lld | %.0f%s | %.2f | %.0f× |\n", n, d.total_ms, last.ms,
                last.cache_bytes, last.mha_cache_bytes, total, samples == n ? "" : " (est.)", ms.back(),
                total / std::max(d.total_ms, 1e-9));
    if (d.max_abs_diff > 1e-6) std::printf("  (max |decode − full causal| = %.3g)\n", d.max_abs_diff);
  }
  std::printf("\n(est.): the recompute total summed from %d measured steps evenly spaced over t "
              "(trapezoid rule); every step is measured up to n = %d. Times are the best of two per step.\n",
              options.samples, options.measure_every_up_to);
  return 0;
}

}  // namespace attnlab::bench
