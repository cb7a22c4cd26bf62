#include "attnlab/synthetic.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "model/blocks.hpp"

namespace attnlab {

std::uint64_t Rng::next() {
  // SplitMix64 (Steele, Lea & Flood 2014).
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() {
  // 53 random bits, shifted by half a step so the result is never 0 or 1.
  return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box–Muller transform.
  const double r = std::sqrt(-2.0 * std::log(uniform()));
  const double theta = 2.0 * std::numbers::pi * uniform();
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

std::uint64_t hashSeed(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ (seed * 0x9e3779b97f4a7c15ULL);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  // Finalise so nearby seeds give unrelated streams.
  Rng mix(h);
  return mix.next();
}

Matrix sinusoidalPositions(int n, int d_model) {
  Matrix pe(n, d_model);
  for (int pos = 0; pos < n; ++pos) {
    for (int c = 0; c < d_model; ++c) {
      const int pair = c / 2;
      const double angle =
          pos / std::pow(10000.0, 2.0 * pair / static_cast<double>(d_model));
      pe(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

namespace {

// Fills m with N(0, variance) draws from the stream named `name` (and head, seed).
void drawNormal(Eigen::Ref<Matrix> m, const std::string& name, std::uint64_t seed,
                double variance) {
  Rng rng(hashSeed(name, seed));
  const double sd = std::sqrt(variance);
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = static_cast<float>(sd * rng.normal());
}

}  // namespace

SyntheticModel::SyntheticModel(const AttentionSpec& spec, std::uint64_t seed, bool positions)
    : spec_(spec), seed_(seed) {
  if (!positions) spec_.positions = Positions::kNone;
  spec_.validate();
  const int h = spec_.heads, g = spec_.resolvedKvHeads(), d_model = spec_.d_model,
            d_k = spec_.resolvedDk(), d_v = spec_.resolvedDv();
  if (spec_.positions == Positions::kRope && d_k % 2 != 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "RoPE rotates pairs of dimensions: d_k must be even (got " + std::to_string(d_k) +
                    ")");
  }
  const double var = 1.0 / d_model;
  w_qkv_.resize(d_model, h * d_k + g * (d_k + d_v));
  w_o_.resize(h * d_v, d_model);
  // One stream per matrix and head, so changing one width (or G) leaves the other matrices alone.
  for (int k = 0; k < h; ++k)
    drawNormal(w_qkv_.middleCols(k * d_k, d_k), "W_Q/head" + std::to_string(k), seed, var);
  for (int k = 0; k < g; ++k) {
    const std::string tag = "/head" + std::to_string(k);
    drawNormal(w_qkv_.middleCols(h * d_k + k * d_k, d_k), "W_K" + tag, seed, var);
    drawNormal(w_qkv_.middleCols(h * d_k + g * d_k + k * d_v, d_v), "W_V" + tag, seed, var);
  }
  drawNormal(w_o_, "W_O", seed, 1.0 / (h * d_v));
}

bool SyntheticModel::sameWeights(const AttentionSpec& spec, std::uint64_t seed,
                                 bool positions) const {
  const Positions scheme = positions ? spec.positions : Positions::kNone;
  return seed == seed_ && scheme == spec_.positions &&
         (scheme != Positions::kRope || spec.rope_base == spec_.rope_base) &&
         spec.heads == spec_.heads && spec.resolvedKvHeads() == spec_.resolvedKvHeads() &&
         spec.d_model == spec_.d_model && spec.resolvedDk() == spec_.resolvedDk() &&
         spec.resolvedDv() == spec_.resolvedDv() && spec.resolvedDa() == spec_.resolvedDa();
}

const Eigen::VectorXf& SyntheticModel::tokenVector(const std::string& text) const {
  constexpr std::size_t kMaxCachedTokens = 100000;
  auto it = token_cache_.find(text);
  if (it != token_cache_.end()) return it->second;
  if (token_cache_.size() >= kMaxCachedTokens) token_cache_.clear();
  Eigen::VectorXf v(spec_.d_model);
  Rng rng(hashSeed(text, seed_));
  for (int c = 0; c < spec_.d_model; ++c) v(c) = static_cast<float>(rng.normal());
  return token_cache_.emplace(text, std::move(v)).first->second;
}

Matrix SyntheticModel::embed(const std::vector<Token>& tokens) const {
  const int n = static_cast<int>(tokens.size()), d_model = spec_.d_model;
  Matrix x(n, d_model);
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  for (int i = 0; i < n; ++i) x.row(i) = tokenVector(tokens[i].text).transpose();
  if (spec_.positions == Positions::kSinusoidal) {
    if (positions_cache_.rows() < n) positions_cache_ = sinusoidalPositions(std::max(n, 64), d_model);
    // Token vectors have unit variance and sinusoids variance ½: rescale the sum back to 1.
    x = (x + positions_cache_.topRows(n)) * static_cast<float>(1.0 / std::sqrt(1.5));
  }
  return x;
}

AttentionInputs SyntheticModel::project(const Matrix& x_query, const Matrix& x_key,
                                        Mechanism mechanism) const {
  const int h = spec_.heads, g = spec_.resolvedKvHeads(), d_k = spec_.resolvedDk(),
            d_v = spec_.resolvedDv();
  const Eigen::Index qw = qWidth();
  AttentionInputs in;
  const auto n_q = static_cast<int>(x_query.rows()), n_k = static_cast<int>(x_key.rows());
  in.q = Tensor3(h, n_q, d_k, Tensor3::Unfilled{});  // every head written below
  in.k = Tensor3(g, n_k, d_k, Tensor3::Unfilled{});
  in.v = Tensor3(g, n_k, d_v, Tensor3::Unfilled{});
  if (&x_query == &x_key) {
    const Matrix qkv = x_query * w_qkv_;  // self-attention: one product for Q, K and V
    blocks::splitHeadsInto(qkv, 0, {&in.q, &in.k, &in.v});
  } else {
    const Matrix q = x_query * w_qkv_.leftCols(qw);
    const Matrix kv = x_key * w_qkv_.rightCols(w_qkv_.cols() - qw);
    blocks::splitHeadsInto(q, 0, {&in.q});
    blocks::splitHeadsInto(kv, 0, {&in.k, &in.v});
  }
  if (spec_.positions == Positions::kRope) {
    rotate(in.q);
    rotate(in.k);
  }
  if (mechanism == Mechanism::kAdditive) {
    std::call_once(additive_once_, [this, h, d_k] {
      const int d_a = spec_.resolvedDa();
      w_a_ = Tensor3(h, d_k, d_a);
      u_a_ = Tensor3(h, d_k, d_a);
      v_a_ = Tensor3(h, 1, d_a);
      for (int k = 0; k < h; ++k) {
        // W_a q and U_a k get unit-variance components; v keeps e = vᵀ tanh(·) at O(1) whatever
        // d_a, which is why additive attention needs no 1/√d_k.
        const std::string tag = "/head" + std::to_string(k);
        drawNormal(w_a_.head(k), "W_a" + tag, seed_, 1.0 / d_k);
        drawNormal(u_a_.head(k), "U_a" + tag, seed_, 1.0 / d_k);
        drawNormal(v_a_.head(k), "v_a" + tag, seed_, 1.0 / d_a);
      }
    });
    in.w_a = w_a_;
    in.u_a = u_a_;
    in.v_a = v_a_;
  }
  return in;
}

void SyntheticModel::rotate(Tensor3& t) const {
  const RopeTable table = makeRopeTable(t.rows, t.cols, spec_.rope_base);
  // Each head is a [n, d_k] block: one "head" per row, row stride d_k.
  for (int k = 0; k < t.h; ++k) applyRope(t.row(k, 0), t.rows, 1, t.cols, t.cols, table);
}

Matrix SyntheticModel::combineHeads(const Tensor3& head_outputs) const {
  const int h = head_outputs.h, n_q = head_outputs.rows, d_v = head_outputs.cols;
  if (h != spec_.heads || d_v != spec_.resolvedDv())
    throw Error(ErrorCode::kInternal, "head outputs do not match the model's heads and d_v");
  Matrix concat(n_q, h * d_v);
  for (int k = 0; k < h; ++k) concat.middleCols(k * d_v, d_v) = head_outputs.head(k);
  return concat * w_o_;
}

namespace {
// Tokenizes one of the run's texts; `what` names it in errors ("the text", "the source text").
std::vector<Token> tokenizeNonEmpty(std::string_view text, const std::string& what) {
  std::vector<Token> tokens;
  try {
    tokens = tokenize(text);
  } catch (const Error& e) {
    throw Error(e.code(), what + ": " + e.what());
  }
  if (tokens.empty()) {
    throw Error(ErrorCode::kInvalidInput,
                what + (text.empty() ? " is empty"
                                : " has no tokens (only white space, control or zero-width "
                                  "characters)"));
  }
  return tokens;
}
}  // namespace

LabRun runSynthetic(const SyntheticModel& model, const AttentionSpec& spec, std::string_view text,
                    const std::optional<std::string>& source, Backend& backend,
                    const KeyPadding& padding) {
  const auto start = std::chrono::steady_clock::now();
  // The positions are the model's (they decide its embeddings and rotations; ALiBi reaches the
  // backend through the spec).
  AttentionSpec run_spec = spec;
  run_spec.positions = model.positionScheme();
  run_spec.rope_base = model.spec().rope_base;
  if (!model.sameWeights(run_spec, model.seed()))
    throw Error(ErrorCode::kInvalidArgument,
                "the spec's heads and widths differ from the synthetic model's");
  run_spec.validate();
  if (source && spec.mask == Mask::kCausal)
    throw Error(ErrorCode::kInvalidArgument,
                "the causal mask applies to self-attention only; drop the causal mask or the "
                "source text");
  LabRun run;
  run.cross = source.has_value();
  run.query_tokens = tokenizeNonEmpty(text, "the text");
  if (padding.pad_to > 0) {
    if (run.cross)
      throw Error(ErrorCode::kInvalidArgument,
                  "key padding applies to self-attention only; drop the padding or the source "
                  "text");
    const int n = static_cast<int>(run.query_tokens.size());
    if (padding.pad_to < n)
      throw Error(ErrorCode::kInvalidArgument,
                  "the text has " + std::to_string(n) + " tokens, more than pad-to (" +
                      std::to_string(padding.pad_to) + ")");
    Token pad;
    pad.text = kPadToken;
    pad.byte_begin = pad.byte_end = text.size();
    pad.char_begin = pad.char_end = run.query_tokens.back().char_end;
    run.pad_tokens = padding.pad_to - n;
    run.query_tokens.insert(run.query_tokens.end(), static_cast<std::size_t>(run.pad_tokens), pad);
    run_spec.valid_keys = padding.mask ? n : -1;
  }
  run.key_tokens = run.cross ? tokenizeNonEmpty(*source, "the source text") : run.query_tokens;
  const Matrix x_q = model.embed(run.query_tokens);
  const AttentionInputs in = run.cross
                                 ? model.project(x_q, model.embed(run.key_tokens), spec.mechanism)
                                 : model.project(x_q, x_q, spec.mechanism);
  run.attention = backend.compute(in, run_spec);
  run.output = model.combineHeads(run.attention.head_outputs);
  run.compute_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace attnlab
