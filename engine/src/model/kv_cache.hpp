#pragma once
/// \file kv_cache.hpp
/// Private to the engine: the float32 KV cache of generate.hpp — per layer the keys and values of
/// the cached tokens, [G, capacity, d_k] each — and the attention of new queries over it.

#include <cstdint>
#include <vector>

#include "attnlab/generate.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab::kvcache {

/// A model's KV cache under a CachePolicy. Tokens enter with begin() and every layer's attend();
/// evict() drops what the policy no longer keeps. Every layer holds the same positions.
class KvCache {
 public:
  /// For `config`'s layers, G K/V heads and d_k, attention settings `spec` (scale, soft-cap; the
  /// layer windows come from config), room for `capacity` tokens at once.
  KvCache(const ModelConfig& config, const AttentionSpec& spec, CachePolicy policy, int capacity);

  /// Starts reading m tokens at positions first … first + m − 1 (after those cached).
  void begin(int first, int m);
  /// Layer l's attention for the m tokens of begin(): stores their keys and values (columns
  /// [h·d_k, (h + G)·d_k) and [(h + G)·d_k, (h + 2G)·d_k) of qkv [m, (h + 2G)·d_k]), then each
  /// query (columns [0, h·d_k)) attends over the cache — scores q·k·scale, Gemma 2's soft-cap,
  /// hidden: later positions, keys beyond the layer's window, keys the policy drops — and returns
  /// the head outputs [m, h·d_k]. With `weights`, the attention weights land there [h, m, length()].
  Matrix attend(int l, const Matrix& qkv, Tensor3* weights);
  /// Head `head` of layer l attends uniformly over the keys it may see (its output the mean of
  /// their values): a head ablated with AblationMode::kUniform.
  void setUniform(int l, int head) {
    uniform_[static_cast<std::size_t>(l) * heads_ + head] = 1;
  }
  /// Drops the tokens the policy does not keep for a query at next_position.
  void evict(int next_position);

  int length() const { return static_cast<int>(positions_.size()); }
  const std::vector<int>& positions() const { return positions_; }
  /// Bytes of float32 keys and values of every layer for length() tokens.
  long long bytes() const { return static_cast<long long>(length()) * bytes_per_token_; }

 private:
  int layers_, heads_, kv_heads_, d_;
  float scale_;
  double cap_;
  std::vector<int> windows_;  ///< Per layer (0: global).
  CachePolicy policy_;
  int capacity_;
  long long bytes_per_token_;
  std::vector<int> positions_;
  std::vector<std::uint8_t> uniform_;  ///< [layers · h]: 1 for a head of setUniform.
  int first_ = 0, m_ = 0;
  /// Per layer: keys then values, [2][G][capacity][d_k].
  std::vector<std::vector<float>> kv_;
  float* key(int l, int g, int slot) {
    return kv_[static_cast<std::size_t>(l)].data() +
           (static_cast<std::size_t>(g) * capacity_ + slot) * d_;
  }
  float* value(int l, int g, int slot) {
    return key(l, g, slot) + static_cast<std::size_t>(kv_heads_) * capacity_ * d_;
  }
};

}  // namespace attnlab::kvcache
