/// \file cost.cpp
/// The cost formulas of one attention layer (cost.hpp).

#include "attnlab/cost.hpp"

#include <cmath>
#include <cstdio>

#include "attnlab/error.hpp"

namespace attnlab {
namespace {

[[noreturn]] void bad(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, message);
}

}  // namespace

void CostShape::validate() const {
  if (n < 1) bad("n must be at least 1 (got " + std::to_string(n) + ")");
  if (d_model < 1) bad("d_model must be at least 1 (got " + std::to_string(d_model) + ")");
  if (heads < 1) bad("heads must be at least 1 (got " + std::to_string(heads) + ")");
  if (layers < 1) bad("layers must be at least 1 (got " + std::to_string(layers) + ")");
  if (kv_heads < 0 || (kv_heads > 0 && heads % kv_heads != 0)) {
    bad("the K/V heads (" + std::to_string(kv_heads) + ") must divide the heads (" +
        std::to_string(heads) + ")");
  }
  if (d_k < 0 || d_v < 0) bad("d_k and d_v must be positive");
  if (d_k == 0 && d_model % heads != 0) {
    bad("heads (" + std::to_string(heads) + ") must divide d_model (" + std::to_string(d_model) +
        "), or set d_k");
  }
}

AttentionCost attentionCost(const CostShape& s) {
  s.validate();
  const double n = s.n, d = s.d_model, h = s.heads, g = s.resolvedKvHeads();
  const double dk = s.resolvedDk(), dv = s.resolvedDv();
  AttentionCost c;
  c.seed_projection_macs = 4.0 * n * d * d;
  c.seed_attention_macs = 2.0 * n * n * d;
  c.seed_parameters = 4.0 * d * d;
  c.projection_flops = 2.0 * n * d * (h * dk + g * dk + g * dv) + 2.0 * n * h * dv * d;
  c.score_flops = 2.0 * h * n * n * dk;
  c.value_flops = 2.0 * h * n * n * dv;
  c.parameters = d * (h * dk + g * (dk + dv)) + h * dv * d;
  c.score_matrix_bytes = h * n * n * 4.0;
  const double per_head = s.layers * n * (dk + dv) * 4.0;
  c.kv_cache_bytes = g * per_head;
  c.kv_cache_bytes_mha = h * per_head;
  c.kv_cache_bytes_mqa = per_head;
  return c;
}

double attentionCrossover(const CostShape& shape) {
  CostShape s = shape;
  s.n = 1;
  s.validate();
  const double d = s.d_model, h = s.heads, g = s.resolvedKvHeads();
  const double dk = s.resolvedDk(), dv = s.resolvedDv();
  // 2·h·n²·(d_k + d_v) = 2·n·d·(h·d_k + G·(d_k + d_v) + h·d_v)
  return d * (h * dk + g * (dk + dv) + h * dv) / (h * (dk + dv));
}

std::string humanCount(double value, const std::string& unit) {
  const bool bytes = unit == "B";
  const double base = bytes ? 1024.0 : 1000.0;
  static const char* const kSi[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* const kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int p = 0;
  double v = std::fabs(value);
  while (v >= base && p < 6) {
    v /= base;
    ++p;
  }
  if (value < 0) v = -v;
  char buf[64];
  const char* prefix = bytes ? kBinary[p] : kSi[p];
  if (p == 0 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, unit.c_str());
  } else {
    std::snprintf(buf, sizeof buf,
                  std::fabs(v) < 10    ? "%.2f %s%s"
                  : std::fabs(v) < 100 ? "%.1f %s%s"
                                       : "%.0f %s%s",
                  v, prefix, unit.c_str());
  }
  return buf;
}

}  // namespace attnlab
