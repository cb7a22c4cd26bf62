/// \file head_roles.cpp
/// Head roles from one pass over a repeated random sequence (head_roles.hpp: the definitions).

#include "attnlab/head_roles.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <unordered_set>

#include "attnlab/error.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/pretrained.hpp"

namespace attnlab {

namespace {

constexpr std::array<std::string_view, kHeadRoleCount> kRoleNames{
    "previous-token", "duplicate-token", "induction", "sink", "local", "broad"};

/// Mean of A[i, i − back] over queries i ∈ [from, to] (inclusive) of one head; 0 for no query.
double meanOffset(const Tensor3& w, int head, int from, int to, int back) {
  double sum = 0;
  int count = 0;
  for (int i = std::max(from, back); i <= to; ++i) {
    sum += w(head, i, i - back);
    ++count;
  }
  return count > 0 ? sum / count : 0.0;
}

/// The six scores of one head (head_roles.hpp).
std::array<double, kHeadRoleCount> scoreHead(const AttentionResult& r, int head,
                                             const HeadRoleSequence& s) {
  const Tensor3& w = r.weights;
  const int n = w.rows;
  const int p = s.prefix, t = s.period;
  const int last = p + 2 * t - 1;  // the second copy's last query
  std::array<double, kHeadRoleCount> out{};
  out[0] = meanOffset(w, head, p + 1, last, 1);
  out[1] = meanOffset(w, head, p + t, last, t);
  out[2] = meanOffset(w, head, p + t, last, t - 1);
  double sink = 0;
  for (int i = 1; i < n; ++i) sink += w(head, i, 0);
  out[3] = n > 1 ? sink / (n - 1) : 0.0;
  double local = 0;
  int local_rows = 0;
  for (int i = kHeadRoleLocalDistance + 1; i <= last; ++i) {
    const float* row = w.row(head, i);
    const int lo = i - kHeadRoleLocalDistance, hi = std::min(n - 1, i + kHeadRoleLocalDistance);
    double mass = 0;
    for (int j = lo; j <= hi; ++j) mass += row[j];
    local += mass;
    ++local_rows;
  }
  out[4] = local_rows > 0 ? local / local_rows : 0.0;
  const MaskPattern pattern = r.pattern();
  double broad = 0;
  int broad_rows = 0;
  for (int i = 0; i < n; ++i) {
    const int visible = pattern.visibleCount(i, n);
    if (visible < 2) continue;
    const float* row = w.row(head, i);
    double entropy = 0;
    for (int j = 0; j < n; ++j) {
      if (row[j] > 0) entropy -= row[j] * std::log(static_cast<double>(row[j]));
    }
    broad += entropy / std::log(static_cast<double>(visible));
    ++broad_rows;
  }
  out[5] = broad_rows > 0 ? broad / broad_rows : 0.0;
  // Float rounding of the weights can put a sum a few ulps past 1.
  for (double& x : out) x = std::clamp(x, 0.0, 1.0);
  return out;
}

/// The special tokens the tokenizer puts before and after a text, from its encoding of "a".
std::pair<std::vector<int>, std::vector<int>> framing(const ModelTokenizer& tokenizer) {
  const Encoding e = tokenizer.encode("a");
  std::size_t front = 0;
  while (front < e.ids.size() && e.special[front]) ++front;
  std::size_t back = e.ids.size();
  while (back > front && e.special[back - 1]) --back;
  return {std::vector<int>(e.ids.begin(), e.ids.begin() + static_cast<long>(front)),
          std::vector<int>(e.ids.begin() + static_cast<long>(back), e.ids.end())};
}

/// The positions the model reads: max_positions, or the agreed positions when fewer.
int contextOf(const ModelConfig& c) {
  return c.agreed_positions > 0 ? std::min(c.max_positions, c.agreed_positions) : c.max_positions;
}

}  // namespace

std::string_view headRoleName(HeadRole role) { return kRoleNames[static_cast<std::size_t>(role)]; }

std::optional<HeadRole> parseHeadRole(std::string_view name) {
  for (HeadRole role : kHeadRoles) {
    if (headRoleName(role) == name) return role;
  }
  return std::nullopt;
}

HeadRoleSequence headRoleSequence(const ModelTokenizer& tokenizer, int period,
                                  std::uint32_t seed) {
  if (period < kHeadRoleMinPeriod) {
    throw Error(ErrorCode::kInvalidArgument,
                "the head roles' random sequence needs at least " +
                    std::to_string(kHeadRoleMinPeriod) + " tokens per copy, not " +
                    std::to_string(period));
  }
  const auto [before, after] = framing(tokenizer);
  const int vocab = tokenizer.vocabSize();
  std::mt19937 random(seed);
  std::unordered_set<int> drawn;
  std::vector<int> copy;
  // Every id is tried about 8 times over before the vocabulary is declared too small.
  const long long tries = 8LL * std::max(vocab, 1) + 1000;
  for (long long k = 0; k < tries && static_cast<int>(copy.size()) < period; ++k) {
    const int id = static_cast<int>(random() % static_cast<std::uint32_t>(std::max(vocab, 1)));
    if (tokenizer.isSpecial(id) || tokenizer.tokenBytes(id).empty() || drawn.count(id) > 0) {
      continue;
    }
    drawn.insert(id);
    copy.push_back(id);
  }
  if (static_cast<int>(copy.size()) < period) {
    throw Error(ErrorCode::kInvalidArgument,
                "the vocabulary has " + std::to_string(copy.size()) +
                    " usable tokens, fewer than the " + std::to_string(period) +
                    " the head roles' random sequence needs");
  }
  HeadRoleSequence s;
  s.prefix = static_cast<int>(before.size());
  s.period = period;
  s.suffix = static_cast<int>(after.size());
  s.seed = seed;
  s.ids = before;
  s.ids.insert(s.ids.end(), copy.begin(), copy.end());
  s.ids.insert(s.ids.end(), copy.begin(), copy.end());
  s.ids.insert(s.ids.end(), after.begin(), after.end());
  return s;
}

std::vector<HeadScore> HeadRoles::top(HeadRole role, int count) const {
  std::vector<HeadScore> all;
  all.reserve(static_cast<std::size_t>(layers) * heads);
  for (int l = 0; l < layers; ++l) {
    for (int k = 0; k < heads; ++k) all.push_back({l, k, score(role, l, k)});
  }
  // Stable: equal scores keep (layer, head) order.
  std::stable_sort(all.begin(), all.end(),
                   [](const HeadScore& a, const HeadScore& b) { return a.score > b.score; });
  if (count >= 0 && static_cast<std::size_t>(count) < all.size()) {
    all.resize(static_cast<std::size_t>(count));
  }
  return all;
}

double HeadRoles::median(HeadRole role) const {
  std::vector<double> v = scores[static_cast<std::size_t>(role)];
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

HeadRoles scoreHeadRoles(const std::vector<AttentionResult>& layers,
                         const HeadRoleSequence& sequence) {
  if (layers.empty()) throw Error(ErrorCode::kInvalidArgument, "head roles need at least one layer");
  const int n = sequence.size();
  if (sequence.period < 1 || sequence.prefix < 0 || sequence.suffix < 0 ||
      sequence.prefix + 2 * sequence.period + sequence.suffix != n) {
    throw Error(ErrorCode::kInvalidArgument,
                "the head roles' sequence does not add up: prefix " +
                    std::to_string(sequence.prefix) + " + 2 × period " +
                    std::to_string(sequence.period) + " + suffix " +
                    std::to_string(sequence.suffix) + " ≠ " + std::to_string(n) + " tokens");
  }
  HeadRoles roles;
  roles.layers = static_cast<int>(layers.size());
  roles.heads = layers.front().heads();
  roles.sequence = sequence;
  for (auto& s : roles.scores) s.resize(static_cast<std::size_t>(roles.layers) * roles.heads);
  for (int l = 0; l < roles.layers; ++l) {
    const AttentionResult& r = layers[static_cast<std::size_t>(l)];
    if (r.heads() != roles.heads || r.nQ() != n || r.nK() != n) {
      throw Error(ErrorCode::kInvalidArgument,
                  "layer " + std::to_string(l) + "'s attention is [" + std::to_string(r.heads()) +
                      ", " + std::to_string(r.nQ()) + ", " + std::to_string(r.nK()) +
                      "], not [" + std::to_string(roles.heads) + ", " + std::to_string(n) + ", " +
                      std::to_string(n) + "]");
    }
    for (int k = 0; k < roles.heads; ++k) {
      const auto one = scoreHead(r, k, sequence);
      for (int role = 0; role < kHeadRoleCount; ++role) {
        roles.scores[static_cast<std::size_t>(role)][static_cast<std::size_t>(l) * roles.heads +
                                                     k] = one[static_cast<std::size_t>(role)];
      }
    }
  }
  return roles;
}

std::optional<double> previousTokenWeight(const AttentionResult& result, int head) {
  const Tensor3& w = result.weights;
  if (head < 0 || head >= w.h || w.rows < 2 || w.cols < w.rows - 1) return std::nullopt;
  double sum = 0;
  for (int i = 1; i < w.rows; ++i) sum += w(head, i, i - 1);
  return sum / (w.rows - 1);
}

std::optional<double> inductionWeight(const AttentionResult& result, int head,
                                      const std::vector<int>& ids) {
  const Tensor3& w = result.weights;
  if (head < 0 || head >= w.h || static_cast<int>(ids.size()) != w.rows || w.cols != w.rows)
    return std::nullopt;
  double sum = 0;
  int count = 0;
  for (int i = 2; i < w.rows; ++i) {
    for (int j = i - 2; j >= 0; --j) {
      if (ids[static_cast<std::size_t>(j)] != ids[static_cast<std::size_t>(i)]) continue;
      sum += w(head, i, j + 1);
      ++count;
      break;
    }
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

int headRolePeriod(const PretrainedModel& model, int period) {
  const auto [before, after] = framing(model.tokenizer());
  const int room = contextOf(model.config()) - static_cast<int>(before.size() + after.size());
  const int fit = std::min(period, room / 2);
  return fit >= kHeadRoleMinPeriod ? fit : 0;
}

HeadRoles headRoles(const PretrainedModel& model, Backend& backend,
                    const HeadRoleOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const int period = headRolePeriod(model, options.period);
  if (period == 0) {
    throw Error(ErrorCode::kInvalidArgument,
                model.name() + " reads at most " + std::to_string(contextOf(model.config())) +
                    " tokens, too few for the head roles' sequence of 2 × " +
                    std::to_string(kHeadRoleMinPeriod) + " random tokens");
  }
  const HeadRoleSequence sequence = headRoleSequence(model.tokenizer(), period, options.seed);
  Encoding e;
  e.ids = sequence.ids;
  for (int id : e.ids) {
    e.labels.push_back(model.tokenizer().tokenLabel(id));
    e.bytes.push_back(model.tokenizer().tokenBytes(id));
    e.special.push_back(model.tokenizer().isSpecial(id));
  }
  e.type_ids.assign(e.ids.size(), 0);
  ModelRunOptions run;
  run.next_tokens = 0;
  run.progress = options.progress;
  const ModelRun pass = model.runIds(e, run, backend);
  HeadRoles roles = scoreHeadRoles(pass.attention, sequence);
  roles.compute_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return roles;
}

}  // namespace attnlab
