// Linear attention (Katharopoulos et al. 2020, eqs. 4–6; φ(x) = elu(x) + 1): the implied weights
// by hand, and the O(n·d_k·d_v) output against P·V over generated shapes, causal and not.

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

#include "attnlab/attention.hpp"
#include "helpers.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_linear_attention {

using namespace attnlab;

TEST_CASE("linear attention by hand: phi(0) = 1, phi(1) = 2, phi(-1) = 1/e", "[linear_attention]") {
  AttentionInputs in;
  in.q = test::oneHead({{0.0f}, {1.0f}});
  in.k = test::oneHead({{0.0f}, {1.0f}});
  in.v = test::oneHead({{3.0f}, {6.0f}});
  AttentionSpec spec;
  spec.mechanism = Mechanism::kLinear;
  spec.heads = 1;
  spec.d_model = 1;
  const AttentionResult r = computeAttentionCpu(in, spec);
  // Row 0: phi(q) = 1, similarities 1·1 = 1 and 1·2 = 2 → P = 1/3, 2/3; output 3/3 + 12/3 = 5.
  CHECK(r.scores(0, 0, 1) == 2.0f);
  CHECK(r.weights(0, 0, 0) == Approx(1.0 / 3));
  CHECK(r.weights(0, 0, 1) == Approx(2.0 / 3));
  CHECK(r.head_outputs(0, 0, 0) == Approx(5.0));
  // Row 1: phi(q) = 2: similarities 2 and 4 → the same P (phi(q) cancels for d_k = 1).
  CHECK(r.weights(0, 1, 1) == Approx(2.0 / 3));
  CHECK(r.scale == 1.0);
  // Causal: row 0 sees key 0 only → P = 1, output 3.
  spec.mask = Mask::kCausal;
  const AttentionResult c = computeAttentionCpu(in, spec);
  CHECK(c.weights(0, 0, 0) == 1.0f);
  CHECK(c.weights(0, 0, 1) == 0.0f);
  CHECK(c.head_outputs(0, 0, 0) == Approx(3.0));
  CHECK(c.head_outputs(0, 1, 0) == Approx(5.0));
  // A negative entry: phi(-1) = e^-1.
  in.k(0, 0, 0) = -1.0f;
  const AttentionResult n = computeAttentionCpu(in, spec);
  CHECK(n.scores(0, 1, 0) == Approx(2 * std::exp(-1.0)));
}

TEST_CASE("linear attention: the O(n d_k d_v) output equals P V within 1e-5", "[linear_attention]") {
  const int n = GENERATE(1, 7, 33, 100);
  const bool causal = GENERATE(false, true);
  const int kv_heads = GENERATE(4, 2);
  const int valid = GENERATE(-1, 5);
  const AttentionInputs full = test::randomInputs(4, n, n, 16, 12, 100 + n);
  AttentionInputs in = full;
  // G K/V heads: the first G of the random ones.
  in.k = Tensor3(kv_heads, n, 16);
  in.v = Tensor3(kv_heads, n, 12);
  std::copy_n(full.k.data.begin(), in.k.data.size(), in.k.data.begin());
  std::copy_n(full.v.data.begin(), in.v.data.size(), in.v.data.begin());
  AttentionSpec spec;
  spec.mechanism = Mechanism::kLinear;
  spec.heads = 4;
  spec.d_model = 64;
  spec.d_k = 16;
  spec.d_v = 12;
  spec.kv_heads = kv_heads;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  spec.valid_keys = valid;
  const AttentionResult r = computeAttentionCpu(in, spec);
  double worst = 0;
  for (int h = 0; h < 4; ++h) {
    const int kv = kvHeadOf(h, 4, kv_heads);
    const Eigen::MatrixXd pv = r.weights.head(h).cast<double>() * in.v.head(kv).cast<double>();
    worst = std::max(worst, (pv - r.head_outputs.head(h).cast<double>()).cwiseAbs().maxCoeff());
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) {
        const bool visible = (!causal || j <= i) && (valid < 0 || j < valid);
        if (!visible) CHECK(r.weights(h, i, j) == 0.0f);
        sum += r.weights(h, i, j);
      }
      const bool any = valid != 0;
      if (any) CHECK(sum == Approx(1.0).margin(1e-6));
    }
  }
  INFO("n = " << n << ", causal = " << causal << ", G = " << kv_heads << ", worst |O − PV| = " << worst);
  CHECK(worst <= 1e-5);
}

}  // namespace attnlab_test_linear_attention
