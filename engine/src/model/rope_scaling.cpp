// RoPE scaling from GGUF keys and config.json (see rope_scaling.hpp).

#include "model/rope_scaling.hpp"

#include <cmath>
#include <optional>
#include <set>

#include "attnlab/error.hpp"

namespace attnlab::rope_scaling {
namespace {

using json = nlohmann::json;

[[noreturn]] void unsupported(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
}

[[noreturn]] void invalid(const std::string& what) { throw Error(ErrorCode::kInvalidInput, what); }

std::string number(double v) {
  std::string t = std::to_string(v);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t;
}

}  // namespace

RopeScaling fromGguf(const GgufFile& file, const std::string& prefix, int rotary_dims,
                     int context) {
  const std::string name = file.path().filename().string() + ": ";
  const std::string key = prefix + ".rope.";
  RopeScaling s;
  // llama.cpp: a missing type is "linear"; the factor comes from scaling.factor, else the legacy
  // scale_linear; 0 means 1.
  const std::string type = file.string(key + "scaling.type").value_or("linear");
  double factor = file.number(key + "scaling.factor").value_or(0.0);
  if (factor == 0) factor = file.number(key + "scale_linear").value_or(0.0);
  if (factor == 0) factor = 1;
  if (!(factor > 0) || !std::isfinite(factor)) {
    invalid(name + key + "scaling.factor must be a positive number, not " + number(factor));
  }
  if (type == "none") {
    factor = 1;  // llama.cpp never scales with type none
  } else if (type == "linear") {
    if (factor != 1) {
      s.kind = RopeScaling::Kind::kLinear;
      s.factor = factor;
    }
  } else if (type == "yarn") {
    s.kind = RopeScaling::Kind::kYarn;
    s.factor = factor;
    const std::int64_t original =
        file.integer(key + "scaling.original_context_length").value_or(context);
    if (original <= 0 || original > (1 << 30)) {
      invalid(name + key + "scaling.original_context_length must be a positive integer");
    }
    s.original_positions = static_cast<int>(original);
    s.beta_fast = file.number(key + "scaling.yarn_beta_fast").value_or(32.0);
    s.beta_slow = file.number(key + "scaling.yarn_beta_slow").value_or(1.0);
    if (!(s.beta_fast > 0) || !(s.beta_slow > 0)) {
      invalid(name + key + "scaling.yarn_beta_fast and yarn_beta_slow must be positive");
    }
    // llama.cpp: mscale = attn_factor · (1 + 0.1 ln s) (ggml's rope_yarn).
    s.attention_factor = factor > 1 ? 0.1 * std::log(factor) + 1.0 : 1.0;
    if (const auto ext = file.number(key + "scaling.yarn_ext_factor"); ext && *ext != 1.0) {
      unsupported(name + key + "scaling.yarn_ext_factor " + number(*ext) +
                  " is not supported (only 1, YaRN's full ramp)");
    }
  } else {
    unsupported(name + "RoPE scaling \"" + type + "\" (" + key +
                "scaling.type) is not supported (none, linear and yarn are)");
  }
  for (const char* k : {"scaling.attn_factor", "scaling.yarn_attn_factor"}) {
    if (const auto v = file.number(key + k); v && *v != 1.0) {
      unsupported(name + key + k + " " + number(*v) + " is not supported (only 1)");
    }
  }
  if (const auto v = file.number(key + "scaling.yarn_log_multiplier"); v && *v != 0.0) {
    unsupported(name + key + "scaling.yarn_log_multiplier is not supported");
  }
  if (file.contains(key + "scaling.alpha")) {
    unsupported(name + key + "scaling.alpha (NTK-aware scaling) is not supported");
  }
  if (const GgufTensor* t = file.findTensor("rope_freqs.weight")) {
    const int pairs = rotary_dims / 2;
    if (t->elements() != pairs) {
      invalid(name + "rope_freqs.weight has " + std::to_string(t->elements()) +
              " values; the heads rotate " + std::to_string(pairs) + " pairs");
    }
    s.freq_factors.resize(static_cast<std::size_t>(pairs));
    file.readInto("rope_freqs.weight", 1, pairs, s.freq_factors.data());
    for (float f : s.freq_factors) {
      if (!(f > 0) || !std::isfinite(f)) invalid(name + "rope_freqs.weight must be positive");
    }
  }
  return s;
}

RopeScaling fromConfig(const json& config, int max_positions) {
  RopeScaling s;
  const auto it = config.find("rope_scaling");
  if (it == config.end() || it->is_null()) return s;
  const json& r = *it;
  if (!r.is_object()) invalid("config.json: rope_scaling must be an object or null");
  std::string type;
  for (const char* k : {"rope_type", "type"}) {
    if (r.contains(k)) {
      if (!r[k].is_string()) invalid(std::string("config.json: rope_scaling.") + k + " must be a string");
      type = r[k].get<std::string>();
      break;
    }
  }
  if (type.empty()) invalid("config.json: rope_scaling has no rope_type");
  auto positive = [&](const char* k, std::optional<double> fallback) {
    if (!r.contains(k) || r[k].is_null()) {
      if (fallback) return *fallback;
      invalid(std::string("config.json: rope_scaling.") + k + " is missing (rope_type \"" + type +
              "\" needs it)");
    }
    if (!r[k].is_number() || !(r[k].get<double>() > 0) || !std::isfinite(r[k].get<double>())) {
      invalid(std::string("config.json: rope_scaling.") + k + " must be a positive number");
    }
    return r[k].get<double>();
  };
  // The keys each type takes in transformers 4.49 (modeling_rope_utils' validation); any other key
  // is refused by name rather than ignored.
  std::set<std::string> takes = {"rope_type", "type"};
  if (type == "default") {
  } else if (type == "linear" || type == "dynamic") {
    takes.insert("factor");
    const double factor = positive("factor", std::nullopt);
    if (type == "linear" && factor != 1) {
      s.kind = RopeScaling::Kind::kLinear;
      s.factor = factor;
    }
    // dynamic: transformers recomputes the base only for inputs longer than
    // max_position_embeddings, which the engine refuses; up to there the angles are default.
    if (type == "dynamic") takes.insert("original_max_position_embeddings");
  } else if (type == "llama3") {
    takes.insert({"factor", "low_freq_factor", "high_freq_factor",
                  "original_max_position_embeddings"});
    s.kind = RopeScaling::Kind::kLlama3;
    s.factor = positive("factor", std::nullopt);
    s.low_freq_factor = positive("low_freq_factor", std::nullopt);
    s.high_freq_factor = positive("high_freq_factor", std::nullopt);
    s.original_positions = static_cast<int>(positive("original_max_position_embeddings", std::nullopt));
    if (!(s.high_freq_factor > s.low_freq_factor)) {
      invalid("config.json: rope_scaling.high_freq_factor must be larger than low_freq_factor");
    }
  } else if (type == "yarn") {
    takes.insert({"factor", "attention_factor", "beta_fast", "beta_slow",
                  "original_max_position_embeddings"});
    s.kind = RopeScaling::Kind::kYarn;
    s.factor = positive("factor", std::nullopt);
    s.original_positions = max_positions;
    if (r.contains("original_max_position_embeddings") &&
        positive("original_max_position_embeddings", std::nullopt) != max_positions) {
      unsupported("config.json: rope_scaling.original_max_position_embeddings (" +
                  number(r["original_max_position_embeddings"].get<double>()) +
                  ") differs from max_position_embeddings (" + std::to_string(max_positions) +
                  "), which is not supported for yarn (transformers releases read it differently)");
    }
    s.beta_fast = positive("beta_fast", 32.0);
    s.beta_slow = positive("beta_slow", 1.0);
    s.attention_factor = positive("attention_factor", 0.1 * std::log(s.factor) + 1.0);
  } else {
    unsupported("config.json: rope_scaling \"" + type +
                "\" is not supported (default, linear, dynamic, llama3 and yarn are)");
  }
  for (const auto& [k, v] : r.items()) {
    if (takes.count(k) == 0) {
      unsupported("config.json: rope_scaling." + k + " is not supported with rope_type \"" + type +
                  "\"");
    }
  }
  return s;
}

}  // namespace attnlab::rope_scaling
