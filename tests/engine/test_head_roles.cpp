// Head roles (head_roles.hpp): hand-made heads that are exactly previous-token, duplicate-token,
// induction or sink, a uniform head worked by formula, every score in [0, 1] over generated
// attention, the random sequence's shape, the tiny fixture models of every architecture, and
// SmolLM2's strongest heads when fetched.

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/head_roles.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/pretrained.hpp"
#include "minilm_dir.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_head_roles {

using namespace attnlab;
using Catch::Detail::Approx;
using attnlab::test::ErrorMatches;
namespace fs = std::filesystem;

namespace {

// A BOS, then T = 5 random tokens twice: n = 11; the second copy's queries are 6 … 10.
HeadRoleSequence handSequence() {
  HeadRoleSequence s;
  s.prefix = 1;
  s.period = 5;
  s.ids = {0, 11, 12, 13, 14, 15, 11, 12, 13, 14, 15};
  return s;
}

/// One causal layer of `h` heads over n tokens, every weight 0.
AttentionResult emptyLayer(int h, int n) {
  AttentionResult r;
  r.mask = Mask::kCausal;
  r.weights = Tensor3(h, n, n);
  return r;
}

double roleOf(const HeadRoles& roles, HeadRole role, int head) { return roles.score(role, 0, head); }

}  // namespace

TEST_CASE("head roles: heads that do exactly one thing", "[head_roles]") {
  const HeadRoleSequence s = handSequence();
  const int n = s.size(), t = s.period, first_second = s.prefix + t;
  AttentionResult r = emptyLayer(5, n);
  for (int i = 0; i < n; ++i) {
    r.weights(0, i, std::max(i - 1, 0)) = 1;                             // previous token
    r.weights(1, i, i >= first_second ? i - t + 1 : 0) = 1;             // induction, else BOS
    r.weights(2, i, 0) = 1;                                             // sink
    r.weights(3, i, i >= first_second ? i - t : i) = 1;                 // duplicate, else itself
    for (int j = 0; j <= i; ++j) r.weights(4, i, j) = 1.0f / (i + 1);  // uniform
  }
  const HeadRoles roles = scoreHeadRoles({r}, s);
  REQUIRE(roles.layers == 1);
  REQUIRE(roles.heads == 5);
  using R = HeadRole;
  // Head 0: A[i, i−1] = 1 everywhere; only query 1 looks at position 0 (1 of the 10 queries ≥ 1).
  CHECK(roleOf(roles, R::kPreviousToken, 0) == Approx(1.0));
  CHECK(roleOf(roles, R::kDuplicateToken, 0) == Approx(0.0));
  CHECK(roleOf(roles, R::kInduction, 0) == Approx(0.0));
  CHECK(roleOf(roles, R::kSink, 0) == Approx(0.1));
  CHECK(roleOf(roles, R::kLocal, 0) == Approx(1.0));
  CHECK(roleOf(roles, R::kBroad, 0) == Approx(0.0));
  // Head 1: the second copy reads i − T + 1 (distance 4 > 3: not local); queries 1 … 5 read BOS.
  CHECK(roleOf(roles, R::kInduction, 1) == Approx(1.0));
  CHECK(roleOf(roles, R::kPreviousToken, 1) == Approx(0.0));
  CHECK(roleOf(roles, R::kDuplicateToken, 1) == Approx(0.0));
  CHECK(roleOf(roles, R::kSink, 1) == Approx(0.5));
  CHECK(roleOf(roles, R::kLocal, 1) == Approx(0.0));
  // Head 2: everything on position 0.
  CHECK(roleOf(roles, R::kSink, 2) == Approx(1.0));
  CHECK(roleOf(roles, R::kPreviousToken, 2) == Approx(0.0));
  CHECK(roleOf(roles, R::kLocal, 2) == Approx(0.0));
  CHECK(roleOf(roles, R::kBroad, 2) == Approx(0.0));
  // Head 3: the second copy reads the same token T back; the first copy reads itself (local).
  CHECK(roleOf(roles, R::kDuplicateToken, 3) == Approx(1.0));
  CHECK(roleOf(roles, R::kInduction, 3) == Approx(0.0));
  CHECK(roleOf(roles, R::kPreviousToken, 3) == Approx(0.0));
  CHECK(roleOf(roles, R::kLocal, 3) == Approx(2.0 / 7));  // queries 4, 5 of 4 … 10
  // Head 4: uniform over the i + 1 visible keys: broad 1, the rest by formula.
  double prev = 0, sink = 0, local = 0, dup = 0;
  for (int i = 2; i < n; ++i) prev += 1.0 / (i + 1);
  for (int i = 1; i < n; ++i) sink += 1.0 / (i + 1);
  for (int i = 4; i < n; ++i) local += 4.0 / (i + 1);
  for (int i = first_second; i < n; ++i) dup += 1.0 / (i + 1);
  CHECK(roleOf(roles, R::kBroad, 4) == Approx(1.0));
  CHECK(roleOf(roles, R::kPreviousToken, 4) == Approx(prev / 9));
  CHECK(roleOf(roles, R::kSink, 4) == Approx(sink / 10));
  CHECK(roleOf(roles, R::kLocal, 4) == Approx(local / 7));
  CHECK(roleOf(roles, R::kDuplicateToken, 4) == Approx(dup / 5));
  CHECK(roleOf(roles, R::kInduction, 4) == Approx(dup / 5));
  // Ranking: the induction head first, then ties in (layer, head) order.
  const auto top = roles.top(R::kInduction, 2);
  REQUIRE(top.size() == 2);
  CHECK(top[0].head == 1);
  CHECK(top[1].head == 4);
  CHECK(roles.top(R::kSink, 99).size() == 5);
  CHECK(roles.median(R::kSink) == Approx(sink / 10));  // 0 (head 3), 0.1, ≈ 0.2 (uniform), 0.5, 1
}

TEST_CASE("head roles: bidirectional and windowed heads", "[head_roles]") {
  const HeadRoleSequence s = handSequence();
  const int n = s.size();
  // BERT-like: uniform over all n keys; every row has n visible keys, broad = 1, local = 7/11.
  AttentionResult bert;
  bert.mask = Mask::kNone;
  bert.weights = Tensor3(1, n, n, 1.0f / n);
  HeadRoles roles = scoreHeadRoles({bert}, s);
  CHECK(roles.score(HeadRole::kBroad, 0, 0) == Approx(1.0));
  CHECK(roles.score(HeadRole::kSink, 0, 0) == Approx(1.0 / n));
  double local = 0;  // queries 4 … 10: keys i−3 … min(i+3, 10)
  for (int i = 4; i <= 10; ++i) local += (std::min(i + 3, 10) - (i - 3) + 1) / double(n);
  CHECK(roles.score(HeadRole::kLocal, 0, 0) == Approx(local / 7));
  // A window of 2 keys (query and previous), uniform over them: broad is 1 against ln 2.
  AttentionResult window = emptyLayer(1, n);
  window.mask_pattern.window = 2;
  window.weights(0, 0, 0) = 1;
  for (int i = 1; i < n; ++i) window.weights(0, i, i) = window.weights(0, i, i - 1) = 0.5f;
  roles = scoreHeadRoles({window}, s);
  CHECK(roles.score(HeadRole::kBroad, 0, 0) == Approx(1.0));
  CHECK(roles.score(HeadRole::kPreviousToken, 0, 0) == Approx(0.5));
  CHECK(roles.score(HeadRole::kInduction, 0, 0) == Approx(0.0));
}

TEST_CASE("head roles on any text: previous-token and induction weights", "[head_roles]") {
  // Tokens a b c a b c: queries 3, 4, 5 repeat 0, 1, 2 (j + 1 = 1, 2, 3).
  const std::vector<int> ids{7, 8, 9, 7, 8, 9};
  AttentionResult r = emptyLayer(2, 6);
  for (int i = 0; i < 6; ++i) {
    r.weights(0, i, std::max(i - 1, 0)) = 1;               // previous token
    r.weights(1, i, i >= 3 ? i - 2 : 0) = 1;               // induction on the second copy
  }
  CHECK(*previousTokenWeight(r, 0) == Approx(1.0));
  CHECK(*previousTokenWeight(r, 1) == Approx(0.2));      // only query 1 reads position 0 = i − 1
  CHECK(*inductionWeight(r, 1, ids) == Approx(1.0));
  CHECK(*inductionWeight(r, 0, ids) == Approx(0.0));
  CHECK_FALSE(inductionWeight(r, 0, {1, 2, 3, 4, 5, 6}));  // nothing repeats
  CHECK_FALSE(inductionWeight(r, 0, {1, 2}));              // wrong length
  CHECK_FALSE(previousTokenWeight(r, 2));                  // no such head
}

TEST_CASE("head roles: every score lies in [0, 1]", "[head_roles]") {
  const bool causal = GENERATE(true, false);
  const int period = GENERATE(4, 7);
  const int prefix = GENERATE(0, 1);
  HeadRoleSequence s;
  s.prefix = prefix;
  s.period = period;
  s.suffix = causal ? 0 : 1;
  s.ids.assign(static_cast<std::size_t>(prefix + 2 * period + s.suffix), 1);
  const int n = s.size(), h = 3;
  std::mt19937 random(static_cast<unsigned>(n * 7 + causal));
  std::vector<AttentionResult> layers;
  for (int l = 0; l < 2; ++l) {
    AttentionResult r = emptyLayer(h, n);
    r.mask = causal ? Mask::kCausal : Mask::kNone;
    for (int k = 0; k < h; ++k) {
      for (int i = 0; i < n; ++i) {
        const int visible = causal ? i + 1 : n;
        std::vector<double> e(static_cast<std::size_t>(visible));
        double sum = 0;
        // Peaked rows (exponent up to 12) as well as flat ones.
        for (double& x : e) sum += x = std::exp(12.0 * (random() % 1000) / 1000.0 * (k + 1) / h);
        for (int j = 0; j < visible; ++j) r.weights(k, i, j) = static_cast<float>(e[j] / sum);
      }
    }
    layers.push_back(std::move(r));
  }
  const HeadRoles roles = scoreHeadRoles(layers, s);
  for (HeadRole role : kHeadRoles) {
    for (int l = 0; l < 2; ++l) {
      for (int k = 0; k < h; ++k) {
        INFO(headRoleName(role) << " layer " << l << " head " << k);
        CHECK(roles.score(role, l, k) >= 0.0);
        CHECK(roles.score(role, l, k) <= 1.0);
      }
    }
  }
}

TEST_CASE("head roles: refusals and names", "[head_roles]") {
  HeadRoleSequence s = handSequence();
  CHECK_THROWS_MATCHES(scoreHeadRoles({}, s), Error,
                       ErrorMatches(ErrorCode::kInvalidArgument, "at least one layer"));
  CHECK_THROWS_MATCHES(scoreHeadRoles({emptyLayer(2, 10)}, s), Error,
                       ErrorMatches(ErrorCode::kInvalidArgument, "not [2, 11, 11]"));
  s.period = 4;
  CHECK_THROWS_MATCHES(scoreHeadRoles({emptyLayer(2, 11)}, s), Error,
                       ErrorMatches(ErrorCode::kInvalidArgument, "does not add up"));
  for (HeadRole role : kHeadRoles) CHECK(parseHeadRole(headRoleName(role)) == role);
  CHECK_FALSE(parseHeadRole("induction-head"));
}

TEST_CASE("head roles on the tiny models of every architecture", "[head_roles][pretrained]") {
  const auto backend = makeCpuBackend();
  for (const char* name : {"tiny-llama", "tiny-gpt2", "tiny-gemma3", "tiny-qwen2"}) {
    INFO(name);
    const auto model = PretrainedModel::load(fs::path(ATTNLAB_TEST_DATA_DIR) / "models" / name);
    const HeadRoles roles = headRoles(*model, *backend);
    const HeadRoleSequence& s = roles.sequence;
    CHECK(roles.layers == model->config().layers);
    CHECK(roles.heads == model->config().heads);
    CHECK(s.size() <= model->config().max_positions);
    CHECK(s.period == headRolePeriod(*model));
    CHECK(s.period == std::min(kHeadRolePeriod, (model->config().max_positions - s.prefix - s.suffix) / 2));
    // The second copy repeats the first, and nothing else repeats.
    std::set<int> distinct;
    for (int t = 0; t < s.period; ++t) {
      const int id = s.ids[static_cast<std::size_t>(s.prefix + t)];
      CHECK(s.ids[static_cast<std::size_t>(s.prefix + s.period + t)] == id);
      CHECK_FALSE(model->tokenizer().isSpecial(id));
      distinct.insert(id);
    }
    CHECK(static_cast<int>(distinct.size()) == s.period);
    for (HeadRole role : kHeadRoles) {
      for (double x : roles.scores[static_cast<std::size_t>(role)]) {
        CHECK(x >= 0.0);
        CHECK(x <= 1.0);
      }
    }
    // The same seed gives the same sequence and scores.
    const HeadRoles again = headRoles(*model, *backend);
    CHECK(again.sequence.ids == s.ids);
    CHECK(again.scores == roles.scores);
  }
}

TEST_CASE("head roles of MiniLM's bidirectional heads", "[head_roles][pretrained][minilm]") {
  const auto dir = test::requireMiniLm();
  if (!dir) return;
  const auto backend = makeCpuBackend();
  const auto model = PretrainedModel::load(*dir);
  const HeadRoles roles = headRoles(*model, *backend);
  CHECK(roles.sequence.prefix == 1);  // [CLS]
  CHECK(roles.sequence.suffix == 1);  // [SEP]
  CHECK(roles.layers * roles.heads == 72);
  const HeadScore prev = roles.top(HeadRole::kPreviousToken, 1).front();
  std::cout << "MiniLM top previous-token head: layer " << prev.layer << " head " << prev.head
            << " score " << prev.score << "\n";
  CHECK(prev.score > 0.3);
}

TEST_CASE("head roles of SmolLM2: its induction and previous-token heads",
          "[head_roles][pretrained][smollm2]") {
  const auto path = test::requireSmolLm2();
  if (!path) return;
  const auto backend = makeCpuBackend();
  const auto model = PretrainedModel::load(*path);
  const HeadRoles roles = headRoles(*model, *backend);
  REQUIRE(roles.layers * roles.heads == 270);
  CHECK(roles.sequence.period == kHeadRolePeriod);
  for (HeadRole role : kHeadRoles) {
    const HeadScore best = roles.top(role, 1).front();
    std::cout << "SmolLM2 top " << headRoleName(role) << " head: layer " << best.layer << " head "
              << best.head << " score " << best.score << " (median " << roles.median(role)
              << ")\n";
  }
  std::cout << "SmolLM2 head roles: " << roles.compute_ms << " ms\n";
  // Olsson et al.'s picture: a few heads copy, most do not.
  const HeadScore induction = roles.top(HeadRole::kInduction, 1).front();
  CHECK(induction.score > 0.5);
  CHECK(induction.score > 5 * roles.median(HeadRole::kInduction));
  const HeadScore prev = roles.top(HeadRole::kPreviousToken, 1).front();
  CHECK(prev.score > 0.5);
  CHECK(prev.score > 5 * roles.median(HeadRole::kPreviousToken));
  // The induction heads sit above layer 0 (they need a previous-token head's output).
  CHECK(induction.layer > 0);
}

}  // namespace attnlab_test_head_roles
