/// \file decode.cpp
/// Token-by-token decoding with a KV cache (decode.hpp).

#include "attnlab/decode.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "cpu/attention_cpu.hpp"

namespace attnlab {
namespace {

/// The cache of one K/V head: rows of K [L, d_k] and V [L, d_v] and the token position of each
/// entry, oldest first.
struct HeadCache {
  std::vector<float> k, v;
  std::vector<int> position;
};

void append(HeadCache& c, const Tensor3& k, const Tensor3& v, int g, int t) {
  c.k.insert(c.k.end(), k.row(g, t), k.row(g, t) + k.cols);
  c.v.insert(c.v.end(), v.row(g, t), v.row(g, t) + v.cols);
  c.position.push_back(t);
}

/// Drops entries older than the window: token t sees positions t − W + 1 … t.
void evict(HeadCache& c, int t, int window, int d_k, int d_v) {
  if (window <= 0) return;
  std::size_t drop = 0;
  while (drop < c.position.size() && c.position[drop] <= t - window) ++drop;
  if (drop == 0) return;
  c.k.erase(c.k.begin(), c.k.begin() + static_cast<std::ptrdiff_t>(drop) * d_k);
  c.v.erase(c.v.begin(), c.v.begin() + static_cast<std::ptrdiff_t>(drop) * d_v);
  c.position.erase(c.position.begin(), c.position.begin() + static_cast<std::ptrdiff_t>(drop));
}

}  // namespace

const char* toString(CacheBug bug) {
  switch (bug) {
    case CacheBug::kSkip:
      return "skip";
    case CacheBug::kDuplicate:
      return "duplicate";
    case CacheBug::kNone:
      break;
  }
  return "none";
}

CacheBug parseCacheBug(std::string_view name) {
  if (name == "none") return CacheBug::kNone;
  if (name == "skip") return CacheBug::kSkip;
  if (name == "duplicate") return CacheBug::kDuplicate;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown cache bug '" + std::string(name) + "' (use none, skip or duplicate)");
}

DecodeResult decodeWithCache(const AttentionInputs& in, const AttentionSpec& spec_in, CacheBug bug,
                             int bug_step) {
  AttentionSpec spec = spec_in;
  spec.mask = Mask::kCausal;
  if (spec.mechanism == Mechanism::kAdditive) {
    throw Error(ErrorCode::kInvalidArgument, "decode takes dot or scaled attention, not additive");
  }
  if (spec.global_tokens > 0 || spec.stride > 0 || spec.valid_keys >= 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "decode takes a causal mask with an optional --window; not --global, --stride or --pad-to");
  }
  checkAttentionInputs(in, spec);
  const int h = in.q.h, n = in.q.rows, g = in.k.h, d_k = in.q.cols, d_v = in.v.cols;
  if (n < 1 || in.k.rows != n) {
    throw Error(ErrorCode::kInvalidArgument, "decode needs as many queries as keys, at least one");
  }
  if (bug != CacheBug::kNone && (bug_step < 0 || bug_step >= n)) {
    throw Error(ErrorCode::kInvalidArgument, "the cache bug's step " + std::to_string(bug_step) +
                                                 " is outside the tokens 0–" + std::to_string(n - 1));
  }
  DecodeResult d;
  d.bug = bug;
  d.bug_step = bug == CacheBug::kNone ? -1 : bug_step;
  AttentionResult& r = d.attention;
  r.mechanism = spec.mechanism;
  r.mask = Mask::kCausal;
  r.mask_pattern = spec.maskPattern();
  r.scale = spec.scoreScale(d_k);
  r.scores = Tensor3(h, n, n);
  r.weights = Tensor3(h, n, n);
  r.head_outputs = Tensor3(h, n, d_v);
  r.backend = "cpu";
  r.device = "KV-cache decode";
  // The same split of the scale as the full computation (ordinarily a = s, b = 1).
  const ScoreScale split = splitScoreScale(r.scale, dotProductBound(in.q, in.k));
  const std::vector<float> slopes =
      spec.positions == Positions::kAlibi ? alibiSlopes(h) : std::vector<float>();
  // Soft-capped scores (AttentionSpec::score_cap) are formed before the softmax, which then
  // reads them with factor 1, as in the full computation.
  const bool capped = spec.score_cap > 0;
  const float b = capped ? 1.0f : split.score_factor;
  std::vector<HeadCache> cache(static_cast<std::size_t>(g));
  std::vector<float> x, p;
  for (int t = 0; t < n; ++t) {
    const auto start = std::chrono::steady_clock::now();
    for (int kv = 0; kv < g; ++kv) {
      HeadCache& c = cache[static_cast<std::size_t>(kv)];
      const int copies = t != bug_step ? 1 : bug == CacheBug::kSkip ? 0 : bug == CacheBug::kDuplicate ? 2 : 1;
      for (int copy = 0; copy < copies; ++copy) append(c, in.k, in.v, kv, t);
      evict(c, t, spec.window, d_k, d_v);
    }
    for (int head = 0; head < h; ++head) {
      const HeadCache& c = cache[static_cast<std::size_t>(kvHeadOf(head, h, g))];
      const int len = static_cast<int>(c.position.size());
      x.assign(static_cast<std::size_t>(len), 0.0f);
      p.assign(static_cast<std::size_t>(len), 0.0f);
      if (len > 0) {
        // x' = (a·q_t) K_cacheᵀ, as dotScores forms it (the query scaled first).
        const Eigen::Map<const Matrix> q_row(in.q.row(head, t), 1, d_k);
        const Matrix q_scaled = split.query_factor * q_row;
        for (int e = 0; e < len; ++e) {
          // One fused multiply-add after another over d_k, as GEMM's kernel accumulates a cell.
          const float* key = c.k.data() + static_cast<std::ptrdiff_t>(e) * d_k;
          float s = 0.0f;
          for (int m = 0; m < d_k; ++m) s = std::fma(q_scaled(0, m), key[m], s);
          x[static_cast<std::size_t>(e)] = s;
        }
        if (!slopes.empty()) {
          const float b = split.score_factor;
          for (int e = 0; e < len; ++e) {
            const float bias = alibiBias(slopes[static_cast<std::size_t>(head)], t, c.position[static_cast<std::size_t>(e)], true);
            x[static_cast<std::size_t>(e)] += b == 1.0f ? bias : bias / b;
          }
        }
        if (capped) capScores(x.data(), x.size(), split.score_factor, spec.score_cap);
        softmaxRow(x.data(), p.data(), len, 0, len, b);
        weightedValueRow(p.data(), c.v.data(), len, d_v, r.head_outputs.row(head, t));
      }
      for (int e = 0; e < len; ++e) {
        const int j = c.position[static_cast<std::size_t>(e)];
        r.weights(head, t, j) += p[static_cast<std::size_t>(e)];
        r.scores(head, t, j) = b * x[static_cast<std::size_t>(e)];
      }
    }
    DecodeStep step;
    step.token = t;
    step.cache_length = static_cast<int>(cache.front().position.size());
    step.cache_bytes = 4LL * g * step.cache_length * (d_k + d_v);
    step.mha_cache_bytes = 4LL * h * step.cache_length * (d_k + d_v);
    step.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    d.total_ms += step.ms;
    d.steps.push_back(step);
  }
  fillRowStats(r);
  // The check: the same rows from one causal pass.
  const AttentionResult full = computeAttentionCpu(in, spec);
  for (int t = 0; t < n; ++t) {
    double weights = 0, outputs = 0;
    for (int head = 0; head < h; ++head) {
      for (int j = 0; j < n; ++j)
        weights =
            std::max(weights, double(std::fabs(r.weights(head, t, j) - full.weights(head, t, j))));
      for (int c = 0; c < d_v; ++c)
        outputs = std::max(
            outputs, double(std::fabs(r.head_outputs(head, t, c) - full.head_outputs(head, t, c))));
    }
    const double diff = std::max(weights, outputs);
    DecodeStep& step = d.steps[static_cast<std::size_t>(t)];
    step.max_abs_diff = diff;
    step.max_weight_diff = weights;
    step.max_output_diff = outputs;
    d.max_abs_diff = std::max(d.max_abs_diff, diff);
    d.max_weight_diff = std::max(d.max_weight_diff, weights);
    d.max_output_diff = std::max(d.max_output_diff, outputs);
    if (d.first_diff_step < 0 && diff > kDecodeDiffThreshold) d.first_diff_step = t;
  }
  return d;
}

}  // namespace attnlab
