// The KV cache of generate.hpp: keys and values per layer, queries attending over them with the
// model's scale, soft-cap and sliding windows and the cache policy's evictions.

#include "model/kv_cache.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "attnlab/error.hpp"

namespace attnlab::kvcache {

KvCache::KvCache(const ModelConfig& config, const AttentionSpec& spec, CachePolicy policy,
                 int capacity)
    : layers_(config.layers),
      heads_(config.heads),
      kv_heads_(config.resolvedKvHeads()),
      d_(config.dK()),
      scale_(static_cast<float>(spec.scoreScale(config.dK()))),
      cap_(spec.score_cap),
      policy_(policy),
      capacity_(capacity),
      bytes_per_token_(config.kvCacheBytesPerToken()) {
  for (int l = 0; l < layers_; ++l) windows_.push_back(config.windowOf(l));
  kv_.resize(static_cast<std::size_t>(layers_));
  for (auto& layer : kv_)
    layer.resize(2 * static_cast<std::size_t>(kv_heads_) * capacity_ * d_);
  positions_.reserve(static_cast<std::size_t>(capacity_));
  uniform_.assign(static_cast<std::size_t>(layers_) * heads_, 0);
}

void KvCache::begin(int first, int m) {
  if (length() + m > capacity_)
    throw Error(ErrorCode::kInternal, "KV cache full: " + std::to_string(length()) + " + " +
                                          std::to_string(m) + " > " + std::to_string(capacity_));
  first_ = first;
  m_ = m;
  for (int r = 0; r < m; ++r) positions_.push_back(first + r);
}

Matrix KvCache::attend(int l, const Matrix& qkv, Tensor3* weights) {
  const int h = heads_, g_count = kv_heads_, d = d_, m = m_;
  const int n = length();  // the new tokens included
  const int slot0 = n - m;
  const auto k_col = static_cast<Eigen::Index>(h) * d;
  const auto v_col = k_col + static_cast<Eigen::Index>(g_count) * d;
  for (int r = 0; r < m; ++r) {
    for (int g = 0; g < g_count; ++g) {
      std::memcpy(key(l, g, slot0 + r), qkv.row(r).data() + k_col + g * d, sizeof(float) * d);
      std::memcpy(value(l, g, slot0 + r), qkv.row(r).data() + v_col + g * d, sizeof(float) * d);
    }
  }
  const int window = windows_[static_cast<std::size_t>(l)];
  // visible(r, c): the key in slot c precedes query r, lies within the layer's window and is one
  // the policy keeps for that query.
  std::vector<std::uint8_t> visible(static_cast<std::size_t>(m) * n);
  for (int r = 0; r < m; ++r) {
    const int i = first_ + r;
    for (int c = 0; c < n; ++c) {
      const int j = positions_[static_cast<std::size_t>(c)];
      visible[static_cast<std::size_t>(r) * n + c] =
          j <= i && (window <= 0 || i - j < window) && policy_.keeps(i, j);
    }
  }
  if (weights != nullptr) *weights = Tensor3(h, m, n);
  Matrix context(m, static_cast<Eigen::Index>(h) * d);
  const int group = h / g_count;
#pragma omp parallel for schedule(static) if (static_cast<long long>(m) * n * h > 65536)
  for (int hh = 0; hh < h; ++hh) {
    const int g = hh / group;
    const Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> q(
        qkv.data() + static_cast<Eigen::Index>(hh) * d, m, d, Eigen::OuterStride<>(qkv.cols()));
    const Eigen::Map<const Matrix> keys(key(l, g, 0), n, d);
    const Eigen::Map<const Matrix> values(value(l, g, 0), n, d);
    // Scores as the CPU reference forms them: (scale·Q)·Kᵀ, then the soft-cap c·tanh(S/c).
    const Matrix q_scaled = scale_ * q;
    Matrix s = q_scaled * keys.transpose();  // [m, n]
    if (cap_ > 0) {
      for (Eigen::Index t = 0; t < s.size(); ++t)
        s.data()[t] = static_cast<float>(cap_ * std::tanh(static_cast<double>(s.data()[t]) / cap_));
    }
    Matrix p = Matrix::Zero(m, n);
    for (int r = 0; r < m; ++r) {
      const std::uint8_t* vis = visible.data() + static_cast<std::size_t>(r) * n;
      float mx = -std::numeric_limits<float>::infinity();
      for (int c = 0; c < n; ++c)
        if (vis[c]) mx = std::max(mx, s(r, c));
      double sum = 0;
      for (int c = 0; c < n; ++c) {
        if (!vis[c]) continue;
        const float e = std::exp(s(r, c) - mx);
        p(r, c) = e;
        sum += e;
      }
      p.row(r) *= static_cast<float>(1.0 / sum);  // the query itself is always visible: sum ≥ 1
      if (uniform_[static_cast<std::size_t>(l) * h + hh] != 0) {  // an ablated head: uniform
        int seen = 0;
        for (int c = 0; c < n; ++c) seen += vis[c];
        for (int c = 0; c < n; ++c) p(r, c) = vis[c] ? 1.0f / static_cast<float>(seen) : 0.0f;
      }
    }
    context.middleCols(static_cast<Eigen::Index>(hh) * d, d) = p * values;
    if (weights != nullptr) weights->head(hh) = p;
  }
  return context;
}

void KvCache::evict(int next_position) {
  int kept = 0;
  const int n = length();
  std::vector<int> keep;
  for (int c = 0; c < n; ++c)
    if (policy_.keeps(next_position, positions_[static_cast<std::size_t>(c)])) keep.push_back(c);
  if (static_cast<int>(keep.size()) == n) return;
  for (int l = 0; l < layers_; ++l) {
    for (int g = 0; g < kv_heads_; ++g) {
      kept = 0;
      for (int c : keep) {
        if (c != kept) {
          std::memmove(key(l, g, kept), key(l, g, c), sizeof(float) * d_);
          std::memmove(value(l, g, kept), value(l, g, c), sizeof(float) * d_);
        }
        ++kept;
      }
    }
  }
  std::vector<int> positions;
  for (int c : keep) positions.push_back(positions_[static_cast<std::size_t>(c)]);
  positions_ = std::move(positions);
}

}  // namespace attnlab::kvcache
