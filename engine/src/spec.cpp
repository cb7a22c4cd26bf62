#include "attnlab/spec.hpp"

#include <cmath>
#include <sstream>

#include "attnlab/error.hpp"

namespace attnlab {

namespace {
constexpr int kMaxHeads = 256;
constexpr int kMaxWidth = 16384;  // d_model, d_k, d_v, d_a
constexpr int kMaxTokens = 1 << 24;  // window, global tokens, stride, valid keys

void requireRange(const char* name, int value, int lo, int hi) {
  if (value < lo || value > hi) {
    std::ostringstream msg;
    msg << name << " must be between " << lo << " and " << hi << " (got " << value << ")";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
}
}  // namespace

double AttentionSpec::scoreScale(int d_k) const {
  if (temperature) return 1.0 / *temperature;
  if (mechanism == Mechanism::kScaled)
    return 1.0 / std::sqrt(scale_width > 0 ? scale_width : static_cast<double>(d_k));
  return 1.0;
}

void AttentionSpec::validate() const {
  requireRange("heads", heads, 1, kMaxHeads);
  requireRange("d_model", d_model, 1, kMaxWidth);
  if (d_k != 0) requireRange("d_k", d_k, 1, kMaxWidth);
  if (d_k == 0 && d_model % heads != 0) {
    std::ostringstream msg;
    msg << "heads (" << heads << ") must divide d_model (" << d_model << "), or set d_k";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
  if (d_v != 0) requireRange("d_v", d_v, 1, kMaxWidth);
  if (d_a != 0) requireRange("d_a", d_a, 1, kMaxWidth);
  requireRange("kv_heads", kv_heads, 0, kMaxHeads);
  if (kv_heads > 0 && heads % kv_heads != 0) {
    std::ostringstream msg;
    msg << "kv heads (" << kv_heads << ") must divide heads (" << heads << ")";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
  if (window < 0) requireRange("window", window, 1, kMaxTokens);
  if (global_tokens < 0) requireRange("global", global_tokens, 0, kMaxTokens);
  if (stride < 0) requireRange("stride", stride, 1, kMaxTokens);
  if (valid_keys < -1) requireRange("valid_keys", valid_keys, -1, kMaxTokens);
  if (!(std::isfinite(rope_base) && rope_base > 1)) {
    std::ostringstream msg;
    msg << "rope base must be a finite number > 1 (got " << rope_base << ")";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
  if (!(dropout >= 0.0 && dropout < 1.0)) {
    std::ostringstream msg;
    msg << "dropout must be at least 0 and below 1 (got " << dropout << ")";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
  if (!(std::isfinite(scale_width) && scale_width >= 0)) {
    std::ostringstream msg;
    msg << "the scale width must be a finite number ≥ 0 (got " << scale_width << ")";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
  if (!(std::isfinite(score_cap) && score_cap >= 0)) {
    std::ostringstream msg;
    msg << "the score cap must be a finite number ≥ 0 (got " << score_cap << ")";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
  if (temperature && !(std::isfinite(*temperature) && *temperature > 0)) {
    std::ostringstream msg;
    msg << "temperature must be a finite number > 0 (got " << *temperature << ")";
    throw Error(ErrorCode::kInvalidArgument, msg.str());
  }
}

Mechanism parseMechanism(std::string_view name) {
  if (name == "additive") return Mechanism::kAdditive;
  if (name == "dot") return Mechanism::kDot;
  if (name == "scaled") return Mechanism::kScaled;
  if (name == "linear") return Mechanism::kLinear;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown mechanism '" + std::string(name) + "' (use additive, dot, scaled or linear)");
}

std::string toString(Mechanism mechanism) {
  switch (mechanism) {
    case Mechanism::kAdditive: return "additive";
    case Mechanism::kDot: return "dot";
    case Mechanism::kScaled: return "scaled";
    case Mechanism::kLinear: return "linear";
  }
  return "unknown";
}

std::string toString(Mask mask) { return mask == Mask::kCausal ? "causal" : "none"; }

Precision parsePrecision(std::string_view name) {
  if (name == "fp32") return Precision::kFp32;
  if (name == "fp16") return Precision::kFp16;
  if (name == "bf16") return Precision::kBf16;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown precision '" + std::string(name) + "' (use fp32, fp16 or bf16)");
}

std::string toString(Precision precision) {
  switch (precision) {
    case Precision::kFp32: return "fp32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
  }
  return "fp32";
}

SoftmaxKind parseSoftmaxKind(std::string_view name) {
  if (name == "stable") return SoftmaxKind::kStable;
  if (name == "naive") return SoftmaxKind::kNaive;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown softmax '" + std::string(name) + "' (use stable or naive)");
}

std::string toString(SoftmaxKind softmax) {
  return softmax == SoftmaxKind::kNaive ? "naive" : "stable";
}

Positions parsePositions(std::string_view name) {
  if (name == "sinusoidal") return Positions::kSinusoidal;
  if (name == "rope") return Positions::kRope;
  if (name == "alibi") return Positions::kAlibi;
  if (name == "none") return Positions::kNone;
  throw Error(ErrorCode::kInvalidArgument, "unknown position scheme '" + std::string(name) +
                                               "' (use sinusoidal, rope, alibi or none)");
}

std::string toString(Positions positions) {
  switch (positions) {
    case Positions::kSinusoidal: return "sinusoidal";
    case Positions::kRope: return "rope";
    case Positions::kAlibi: return "alibi";
    case Positions::kNone: return "none";
  }
  return "unknown";
}

}  // namespace attnlab
