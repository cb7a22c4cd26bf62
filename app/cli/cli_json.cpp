/// \file cli_json.cpp
/// The `compute` JSON: tokens, settings, statistics, and the matrices up to kJsonCellLimit cells.

#include "cli/cli_json.hpp"

#include "attnlab/head_similarity.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/token_display.hpp"

namespace attnlab::cli {
namespace {

nlohmann::json matrixJson(const Tensor3& t, int head) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < t.rows; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < t.cols; ++j) row.push_back(t(head, i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json tokensJson(const std::vector<Token>& tokens) {
  nlohmann::json list = nlohmann::json::array();
  for (const Token& t : tokens) list.push_back(t.text);
  return list;
}

/// "matrices": whether the scores, weights and outputs are in the JSON, and if not how to get
/// them.
nlohmann::json matricesJson(long long cells, bool included) {
  nlohmann::json m = {{"included", included}, {"cells", cells}, {"limit", kJsonCellLimit}};
  if (!included) {
    // Appended piece by piece: GCC 12's -Warray-bounds misreads "literal" + std::string&& here.
    std::string note = "scores, weights and per-head outputs are left out above ";
    note += std::to_string(kJsonCellLimit);
    note += " cells; write them with `render --out FILE.npy` (--values weights|scores) or "
            "`render --out FILE.csv`, or add --full to keep them here";
    m["note"] = note;
  }
  return m;
}

/// "mask": the pattern (causal, window W, global K, stride S, valid_keys: 0 / null = none) and how
/// much of the [n_q, n_k] matrix it leaves visible.
nlohmann::json maskJson(const MaskPattern& p, int n_q, int n_k) {
  long long visible = 0;
  for (int i = 0; i < n_q; ++i) visible += p.visibleCount(i, n_k);
  const long long cells = static_cast<long long>(n_q) * n_k;
  nlohmann::json m = {{"causal", p.causal},
                      {"window", p.window},
                      {"global", p.global},
                      {"stride", p.stride},
                      {"valid_keys", nullptr},
                      {"visible_cells", visible},
                      {"cells", cells},
                      {"visible_fraction", cells > 0 ? double(visible) / double(cells) : 0.0}};
  if (p.valid_keys >= 0) m["valid_keys"] = p.valid_keys;
  return m;
}

/// "head_similarity": the mean Jensen–Shannon divergence of every pair of heads (nats, [h, h]),
/// the near-duplicate threshold and the flagged pairs.
/// Above this many (pair of heads × cell) terms the matrix is left out (~2 s of logarithms).
constexpr double kHeadSimilarityTermLimit = 268435456.0;  // 2^28

nlohmann::json headSimilarityJson(const AttentionResult& r) {
  const double terms = 0.5 * r.heads() * (r.heads() - 1.0) * r.nQ() * r.nK();
  if (terms > kHeadSimilarityTermLimit) {
    return {{"included", false},
            {"note", "left out above 2^28 (head pair × cell) terms; use fewer heads or tokens, or "
                     "`render --plot head-similarity`"}};
  }
  const HeadSimilarity s = headSimilarity(r);
  nlohmann::json matrix = nlohmann::json::array();
  for (int a = 0; a < s.h; ++a) {
    nlohmann::json row = nlohmann::json::array();
    for (int b = 0; b < s.h; ++b) row.push_back(s(a, b));
    matrix.push_back(std::move(row));
  }
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& [a, b] : s.near_duplicates) pairs.push_back({a, b});
  return {{"included", true},
          {"measure", "mean Jensen-Shannon divergence over query rows (nats, 0 … ln 2)"},
          {"jsd", std::move(matrix)},
          {"threshold", s.threshold},
          {"near_duplicates", std::move(pairs)},
          {"rows", s.rows}};
}

/// "heads" (scores, weights, output per head when `matrices`; a model's "kv_head" per head) and
/// "stats" of one result.
void headsJson(const AttentionResult& r, bool matrices, nlohmann::json& j,
               const std::vector<int>& kv_head = {}) {
  nlohmann::json heads = nlohmann::json::array();
  nlohmann::json stats = {{"max_weight", nlohmann::json::array()},
                          {"entropy", nlohmann::json::array()},
                          {"normalized_entropy", nlohmann::json::array()},
                          {"effective_keys", nlohmann::json::array()},
                          {"jacobian_norm", nlohmann::json::array()}};
  for (int h = 0; h < r.heads(); ++h) {
    nlohmann::json head = {{"head", h}};
    if (static_cast<std::size_t>(h) < kv_head.size()) head["kv_head"] = kv_head[static_cast<std::size_t>(h)];
    if (matrices) {
      head["scores"] = matrixJson(r.scores, h);
      head["weights"] = matrixJson(r.weights, h);
      head["output"] = matrixJson(r.head_outputs, h);
    }
    heads.push_back(std::move(head));
    const HeadStats& st = r.stats[static_cast<std::size_t>(h)];
    stats["max_weight"].push_back(st.max_weight);
    stats["entropy"].push_back(st.entropy);
    stats["normalized_entropy"].push_back(st.normalized_entropy);
    stats["effective_keys"].push_back(st.effective_keys);
    stats["jacobian_norm"].push_back(st.jacobian_norm);
  }
  // Reduced numerics (issue 13): which rows hold a non-finite weight (written as null above).
  long long nonfinite_rows = 0;
  for (int h = 0; h < r.heads(); ++h) {
    nlohmann::json flags = nlohmann::json::array();
    for (int i = 0; i < r.nQ(); ++i) {
      const bool bad = r.nonfiniteRow(h, i);
      nonfinite_rows += bad ? 1 : 0;
      flags.push_back(bad);
    }
    if (r.precision != Precision::kFp32 || r.softmax != SoftmaxKind::kStable)
      heads[static_cast<std::size_t>(h)]["nonfinite_row"] = std::move(flags);
  }
  if (r.precision != Precision::kFp32 || r.softmax != SoftmaxKind::kStable || nonfinite_rows > 0)
    j["nonfinite_rows"] = nonfinite_rows;
  // Dropout: the rows no longer sum to 1 (per head and row, in double), and how many were dropped.
  if (r.dropout > 0.0) {
    nlohmann::json sums = nlohmann::json::array();
    long long dropped = 0;
    for (int h = 0; h < r.heads(); ++h) {
      nlohmann::json row_sums = nlohmann::json::array();
      for (int i = 0; i < r.nQ(); ++i) {
        double sum = 0;
        for (int c = 0; c < r.nK(); ++c) {
          sum += r.weights(h, i, c);
          dropped += r.isDropped(h, i, c) ? 1 : 0;
        }
        row_sums.push_back(sum);
      }
      sums.push_back(std::move(row_sums));
    }
    stats["row_sum"] = std::move(sums);
    j["dropped_cells"] = dropped;
  }
  j["heads"] = std::move(heads);
  j["stats"] = std::move(stats);
  j["head_similarity"] = headSimilarityJson(r);
}

void fallbackJson(const AttentionResult& r, nlohmann::json& j) {
  if (r.fallback_reason.empty()) return;
  j["fallback_reason"] = r.fallback_reason;
}

}  // namespace

nlohmann::json syntheticJson(const options::Options& o, const LabRun& run) {
  const AttentionResult& r = run.attention;
  const AttentionSpec spec = o.lab.toSpec();
  nlohmann::json j;
  j["backend"] = r.backend;
  j["device"] = r.device;
  fallbackJson(r, j);
  j["mechanism"] = toString(spec.mechanism);
  j["mask"] = maskJson(r.pattern(), r.nQ(), r.nK());
  j["attention"] = run.cross ? "cross" : "self";
  j["h"] = spec.heads;
  const int g = spec.resolvedKvHeads();
  j["kv_heads"] = g;
  // K and V of one layer in float32, per token: G·(d_k + d_v)·4 bytes (2·G·d_k·4 when d_v = d_k),
  // beside multi-head attention's h·(d_k + d_v)·4.
  j["kv_cache_bytes_per_token"] = 4LL * g * (spec.resolvedDk() + spec.resolvedDv());
  j["mha_kv_cache_bytes_per_token"] = 4LL * spec.heads * (spec.resolvedDk() + spec.resolvedDv());
  j["d_model"] = spec.d_model;
  j["d_k"] = spec.resolvedDk();
  j["d_v"] = spec.resolvedDv();
  if (spec.mechanism == Mechanism::kAdditive) j["d_a"] = spec.resolvedDa();
  j["scale"] = r.scale;
  if (spec.temperature) j["temperature"] = *spec.temperature;
  j["seed"] = o.lab.seed;
  j["precision"] = toString(spec.precision);
  j["softmax"] = toString(spec.softmax);
  j["dropout"] = spec.dropout;
  if (spec.dropout > 0.0) j["rows_sum_to_one"] = false;  // inverted dropout: row sums vary
  j["positions"] = toString(spec.positions);
  if (spec.positions == Positions::kRope) j["rope_base"] = spec.rope_base;
  if (spec.positions == Positions::kAlibi) j["alibi_slopes"] = alibiSlopes(spec.heads);
  j["pad_tokens"] = run.pad_tokens;
  if (o.lab.pad_to > 0) j["pad_mask"] = o.lab.pad_mask;
  j["compute_ms"] = run.compute_ms;
  j["query_tokens"] = tokensJson(run.query_tokens);
  j["key_tokens"] = tokensJson(run.key_tokens);
  const long long cells = static_cast<long long>(r.heads()) * r.nQ() * r.nK();
  const bool matrices = o.output.full || cells <= kJsonCellLimit;
  j["matrices"] = matricesJson(cells, matrices);
  std::vector<int> kv_head;
  for (int h = 0; h < spec.heads; ++h) kv_head.push_back(kvHeadOf(h, spec.heads, g));
  headsJson(r, matrices, j, kv_head);
  if (matrices) {
    nlohmann::json output = nlohmann::json::array();
    for (Eigen::Index i = 0; i < run.output.rows(); ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (Eigen::Index col = 0; col < run.output.cols(); ++col) row.push_back(run.output(i, col));
      output.push_back(std::move(row));
    }
    j["output"] = std::move(output);
  }
  return j;
}

nlohmann::json headRolesJson(const HeadRoles& roles) {
  const HeadRoleSequence& s = roles.sequence;
  nlohmann::json j;
  j["source"] = "Olsson et al. 2022 (induction, prefix matching); Xiao et al. 2023 (sink)";
  j["sequence"] = {{"seed", s.seed},         {"period", s.period}, {"prefix", s.prefix},
                   {"suffix", s.suffix},     {"length", s.size()}, {"ids", s.ids},
                   {"generator", "std::mt19937(seed), id = draw mod vocabulary, distinct, "
                                 "non-special, repeated twice"}};
  j["local_distance"] = kHeadRoleLocalDistance;
  j["definitions"] = {
      {"previous-token", "mean over i in [p+1, p+2T-1] of A[i, i-1]"},
      {"duplicate-token", "mean over i in [p+T, p+2T-1] of A[i, i-T]"},
      {"induction", "mean over i in [p+T, p+2T-1] of A[i, i-T+1]"},
      {"sink", "mean over i >= 1 of A[i, 0]"},
      {"local", "mean over i in [4, p+2T-1] of the mass on keys j with |i-j| <= 3"},
      {"broad", "mean over rows with >= 2 visible keys of H_i / ln(visible keys)"}};
  j["layers"] = roles.layers;
  j["h"] = roles.heads;
  j["compute_ms"] = roles.compute_ms;
  nlohmann::json list = nlohmann::json::array();
  for (HeadRole role : kHeadRoles) {
    nlohmann::json matrix = nlohmann::json::array();
    for (int l = 0; l < roles.layers; ++l) {
      nlohmann::json row = nlohmann::json::array();
      for (int k = 0; k < roles.heads; ++k) row.push_back(roles.score(role, l, k));
      matrix.push_back(std::move(row));
    }
    nlohmann::json top = nlohmann::json::array();
    for (const HeadScore& t : roles.top(role, 5))
      top.push_back({{"layer", t.layer}, {"head", t.head}, {"score", t.score}});
    list.push_back({{"role", std::string(headRoleName(role))},
                    {"scores", std::move(matrix)},
                    {"median", roles.median(role)},
                    {"top", std::move(top)}});
  }
  j["roles"] = std::move(list);
  return j;
}

namespace {

nlohmann::json nextTokensJson(const std::vector<NextToken>& tokens) {
  nlohmann::json next = nlohmann::json::array();
  for (const NextToken& t : tokens) {
    next.push_back({{"id", t.id},
                    {"token", t.label},
                    {"label", displayToken(t.bytes, t.label).label},
                    {"probability", t.probability},
                    {"logit", t.logit}});
  }
  return next;
}

/// A matrix [rows, cols] as rows of numbers (NaN as null).
nlohmann::json matrixJson(const Matrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (std::isnan(m(r, c))) {
        row.push_back(nullptr);
      } else {
        row.push_back(m(r, c));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

double meanOf(const std::vector<double>& v) { return results::Interventions::meanOf(v); }

}  // namespace

void interventionsJson(const results::Interventions& x, nlohmann::json& j) {
  if (!x.ablated.empty()) {
    nlohmann::json heads = nlohmann::json::array();
    for (const HeadRef& h : x.ablated) heads.push_back(toString(h));
    j["ablation"] = {{"heads", std::move(heads)},
                     {"mode", toString(x.mode)},
                     {"first_layer", x.first_ablated_layer},
                     {"next_tokens_before", nextTokensJson(x.before)},
                     {"next_tokens_after", nextTokensJson(x.after)},
                     {"loss_before", x.loss_before},
                     {"loss_after", x.loss_after},
                     {"mean_loss_before", meanOf(x.loss_before)},
                     {"mean_loss_after", meanOf(x.loss_after)}};
  }
  if (x.lens) {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t l = 0; l < x.lens->cells.size(); ++l) {
      nlohmann::json cells = nlohmann::json::array();
      for (const LensCell& c : x.lens->cells[l]) {
        cells.push_back({{"id", c.top_id},
                         {"token", c.top_label},
                         {"probability", c.top_probability},
                         {"final_rank", c.final_rank},
                         {"final_probability", c.final_probability}});
      }
      rows.push_back({{"layer", static_cast<int>(l)}, {"positions", std::move(cells)}});
    }
    j["logit_lens"] = std::move(rows);
    j["logit_lens_final"] = x.lens->final_labels;
  }
  if (x.dla) {
    const LogitAttribution& d = *x.dla;
    nlohmann::json dla = {{"target", {{"id", d.target}, {"token", d.target_label}}},
                          {"heads", matrixJson(d.heads)},
                          {"mlp", d.mlp},
                          {"attention_bias", d.attention_bias},
                          {"embedding", d.embedding},
                          {"norm_bias", d.norm_bias},
                          {"total", d.total},
                          {"logit", d.logit}};
    dla["versus"] = d.versus ? nlohmann::json{{"id", *d.versus}, {"token", d.versus_label}}
                             : nlohmann::json(nullptr);
    j["dla"] = std::move(dla);
  }
  if (x.patching) {
    const PatchingResult& p = *x.patching;
    nlohmann::json patching = {{"target", {{"id", p.target}, {"token", p.target_label}}},
                               {"clean", p.clean},
                               {"corrupted", p.corrupted},
                               {"heads", matrixJson(p.heads)},
                               {"residual", matrixJson(p.residual)},
                               {"corrupted_labels", x.patch_labels}};
    patching["versus"] = p.versus ? nlohmann::json{{"id", *p.versus}, {"token", p.versus_label}}
                                  : nlohmann::json(nullptr);
    j["patching"] = std::move(patching);
  }
}

nlohmann::json modelJson(const options::Options& o, const ModelRun& run, const std::string& name,
                         const ModelConfig& config, double load_ms, const HeadRoles* head_roles) {
  const AttentionResult& first = run.attention.front();
  const Encoding& e = run.encoding;
  nlohmann::json j;
  j["backend"] = first.backend;
  j["device"] = first.device;
  fallbackJson(first, j);
  j["model"] = name;
  j["model_type"] = config.model_type;
  j["architecture"] = toString(config.architecture);
  j["format"] = config.format;
  j["weight_type"] = config.weight_type;
  j["mechanism"] = toString(first.mechanism);
  j["mask"] = maskJson(first.pattern(), first.nQ(), first.nK());
  j["attention"] = "self";
  j["layers_total"] = config.layers;
  j["h"] = config.heads;
  j["kv_heads"] = run.kv_heads > 0 ? run.kv_heads : config.resolvedKvHeads();
  j["d_model"] = config.d_model;
  j["d_k"] = config.dK();
  j["d_v"] = config.dK();
  if (config.rope_base > 0) {
    j["rope_base"] = config.rope_base;
    j["rope_scaling"] = config.rope_scaling.describe();
  } else {
    j["rope_base"] = nullptr;  // learned absolute positions (BERT, GPT-2)
  }
  j["kv_cache_bytes_per_token"] = config.kvCacheBytesPerToken();
  j["mha_kv_cache_bytes_per_token"] = config.mhaKvCacheBytesPerToken();
  j["scale"] = first.scale;  // the factor the scores got: 1/√d_k, 1/√query_pre_attn_scalar, 1/T, 1
  if (config.scale_width > 0) j["scale_width"] = config.scale_width;
  if (config.attn_softcap > 0) j["score_cap"] = config.attn_softcap;      // S ← c·tanh(S/c)
  if (config.final_softcap > 0) j["logit_cap"] = config.final_softcap;    // next-token logits
  if (config.rope_local_base > 0) j["rope_local_base"] = config.rope_local_base;
  if (!config.layer_window.empty()) j["layer_windows"] = config.layer_window;  // 0: global
  if (o.lab.spec.temperature) j["temperature"] = *o.lab.spec.temperature;
  if (o.lab.layer) {
    j["layer"] = *o.lab.layer;
  } else {
    j["layer"] = "all";
  }
  j["load_ms"] = load_ms;
  j["compute_ms"] = run.compute_ms;
  j["tokens"] = e.labels;
  j["query_tokens"] = e.labels;
  j["key_tokens"] = e.labels;
  // Display labels beside the raw ones: a character the tokenizer cut reads on the token that
  // completes it ("\xE6\x88", "\x91" are "⋯", "⋯我"; attnlab/token_display.hpp).
  nlohmann::json labels = nlohmann::json::array();
  for (const TokenDisplay& d : displayTokens(e)) labels.push_back(d.label);
  j["labels"] = std::move(labels);
  j["input_ids"] = e.ids;
  j["token_type_ids"] = e.type_ids;
  nlohmann::json special = nlohmann::json::array();
  for (bool b : e.special) special.push_back(b);
  j["special"] = std::move(special);
  j["next_tokens"] = nextTokensJson(run.next_tokens);
  long long cells = 0;
  for (const AttentionResult& r : run.attention) cells += static_cast<long long>(r.heads()) * r.nQ() * r.nK();
  const bool matrices = o.output.full || cells <= kJsonCellLimit;
  j["matrices"] = matricesJson(cells, matrices);
  if (head_roles) j["head_roles"] = headRolesJson(*head_roles);
  if (o.lab.layer) {
    headsJson(first, matrices, j, run.kv_head);  // one layer: "heads" and "stats" as for the synthetic lab
    return j;
  }
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t l = 0; l < run.attention.size(); ++l) {
    nlohmann::json layer;
    layer["layer"] = run.layers[l];
    layer["window"] = run.attention[l].pattern().window;  // this layer's sliding window (0: none)
    headsJson(run.attention[l], matrices, layer, run.kv_head);
    layers.push_back(std::move(layer));
  }
  j["layers"] = std::move(layers);
  return j;
}

}  // namespace attnlab::cli
