#include "attnlab/spec.hpp"

#include <cmath>
#include <sstream>

#include "attnlab/error.hpp"

namespace attnlab {

namespace {
constexpr int kMaxHeads = 256;
constexpr int kMaxWidth = 16384;  // d_model, d_k, d_v, d_a

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
  if (mechanism == Mechanism::kScaled) return 1.0 / std::sqrt(static_cast<double>(d_k));
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
  throw Error(ErrorCode::kInvalidArgument,
              "unknown mechanism '" + std::string(name) + "' (use additive, dot or scaled)");
}

std::string toString(Mechanism mechanism) {
  switch (mechanism) {
    case Mechanism::kAdditive: return "additive";
    case Mechanism::kDot: return "dot";
    case Mechanism::kScaled: return "scaled";
  }
  return "unknown";
}

std::string toString(Mask mask) { return mask == Mask::kCausal ? "causal" : "none"; }

}  // namespace attnlab
