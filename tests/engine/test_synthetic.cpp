// The synthetic lab: embeddings, projections, the pipeline and its errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/synthetic.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_synthetic {

using namespace attnlab;

namespace {
const std::string kCat = "The cat sat on the mat because it was tired.";

AttentionSpec smallSpec(int heads = 2, int d_model = 16) {
  AttentionSpec s;
  s.heads = heads;
  s.d_model = d_model;
  return s;
}
}  // namespace

TEST_CASE("a word has the same vector in every sentence", "[synthetic]") {
  const SyntheticModel model(smallSpec(), 7, /*positions=*/false);
  const Matrix a = model.embed(tokenize("the cat"));
  const Matrix b = model.embed(tokenize("a black cat sleeps"));
  REQUIRE((a.row(1) - b.row(2)).cwiseAbs().maxCoeff() == 0.0f);
  REQUIRE((a.row(0) - b.row(0)).cwiseAbs().maxCoeff() > 0.0f);
  // Another seed, another vector.
  const SyntheticModel other(smallSpec(), 8, false);
  REQUIRE((other.embed(tokenize("cat")).row(0) - a.row(1)).cwiseAbs().maxCoeff() > 0.0f);
}

TEST_CASE("positions are sinusoidal and switchable", "[synthetic]") {
  const Matrix pe = sinusoidalPositions(3, 4);
  // PE(pos, 2i) = sin(pos / 10000^(2i/4)), PE(pos, 2i+1) = cos(…): pos 1 → sin 1, cos 1,
  // sin(1/100), cos(1/100).
  CHECK(pe(0, 0) == Approx(0.0f));
  CHECK(pe(0, 1) == Approx(1.0f));
  CHECK(pe(1, 0) == Approx(std::sin(1.0)));
  CHECK(pe(1, 1) == Approx(std::cos(1.0)));
  CHECK(pe(1, 2) == Approx(std::sin(0.01)));
  CHECK(pe(1, 3) == Approx(std::cos(0.01)));
  const SyntheticModel with(smallSpec(), 7, true), without(smallSpec(), 7, false);
  const Matrix a = with.embed(tokenize("cat cat"));
  const Matrix b = without.embed(tokenize("cat cat"));
  CHECK((b.row(0) - b.row(1)).cwiseAbs().maxCoeff() == 0.0f);  // same word, no position
  CHECK((a.row(0) - a.row(1)).cwiseAbs().maxCoeff() > 0.0f);   // positions tell them apart
}

TEST_CASE("projections keep var(q.k) close to d_k, as the seeds assume", "[synthetic]") {
  const int d_k = GENERATE(16, 64);
  AttentionSpec spec;
  spec.heads = 2;
  spec.d_model = 256;
  spec.d_k = d_k;
  const SyntheticModel model(spec, 11, false);
  // 400 distinct tokens → 400 × 400 q·k pairs per head.
  std::string text;
  for (int i = 0; i < 400; ++i) text.append("w").append(std::to_string(i)).append(" ");
  const Matrix x = model.embed(tokenize(text));
  const AttentionInputs in = model.project(x, x);
  double sum = 0, sum_sq = 0;
  long long n = 0;
  for (int h = 0; h < 2; ++h) {
    const Matrix s = in.q.head(h) * in.k.head(h).transpose();
    for (Eigen::Index i = 0; i < s.size(); ++i) {
      sum += s.data()[i];
      sum_sq += double(s.data()[i]) * s.data()[i];
      ++n;
    }
  }
  const double var = sum_sq / n - (sum / n) * (sum / n);
  INFO("d_k = " << d_k << ", var(q.k) = " << var);
  CHECK(var > 0.8 * d_k);
  CHECK(var < 1.25 * d_k);
}

TEST_CASE("d_k may be set on its own; projection width is h * d_k", "[synthetic]") {
  AttentionSpec spec;
  spec.heads = 3;
  spec.d_model = 64;  // 3 does not divide 64: fine once d_k is given
  spec.d_k = 5;
  const SyntheticModel model(spec, 0);
  CHECK(model.wQ().rows() == 64);
  CHECK(model.wQ().cols() == 15);
  CHECK(model.wV().cols() == 15);
  CHECK(model.wO().rows() == 15);
  CHECK(model.wO().cols() == 64);
  auto cpu = makeCpuBackend();
  const LabRun run = runSynthetic(model, spec, kCat, std::nullopt, *cpu);
  CHECK(run.attention.heads() == 3);
  CHECK(run.output.rows() == 11);
  CHECK(run.output.cols() == 64);
}

TEST_CASE("cross-attention: queries from the target, keys from the source", "[synthetic]") {
  const AttentionSpec spec = smallSpec(4, 32);
  const SyntheticModel model(spec, 1);
  auto cpu = makeCpuBackend();
  const LabRun run = runSynthetic(model, spec, "Le chat dort .", std::string("The cat sleeps"), *cpu);
  CHECK(run.cross);
  CHECK(run.query_tokens.size() == 4);
  CHECK(run.key_tokens.size() == 3);
  CHECK(run.attention.nQ() == 4);
  CHECK(run.attention.nK() == 3);
  CHECK(run.output.rows() == 4);
}

TEST_CASE("bad input and settings are reported with a clear message", "[synthetic][errors]") {
  auto cpu = makeCpuBackend();
  AttentionSpec spec = smallSpec();
  const SyntheticModel model(spec, 0);
  CHECK_THROWS_WITH(runSynthetic(model, spec, "", std::nullopt, *cpu),
                    Catch::Contains("the text is empty"));
  CHECK_THROWS_WITH(runSynthetic(model, spec, " \t\n ", std::nullopt, *cpu),
                    Catch::Contains("only white space"));
  CHECK_THROWS_WITH(runSynthetic(model, spec, "ok \xff", std::nullopt, *cpu),
                    Catch::Contains("byte offset 3"));
  CHECK_THROWS_WITH(runSynthetic(model, spec, "hi", std::string("   "), *cpu),
                    Catch::Contains("the source text has no tokens"));
  AttentionSpec causal = spec;
  causal.mask = Mask::kCausal;
  CHECK_THROWS_WITH(runSynthetic(model, causal, "hi", std::string("there"), *cpu),
                    Catch::Contains("self-attention only"));

  AttentionSpec bad;
  bad.heads = 3;
  bad.d_model = 64;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("heads (3) must divide d_model (64)"));
  bad.heads = 0;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("heads"));
  bad = AttentionSpec{};
  bad.temperature = 0.0;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("temperature"));
  CHECK_THROWS_WITH(parseMechanism("cosine"), Catch::Contains("unknown mechanism 'cosine'"));
  REQUIRE_THROWS_MATCHES(bad.validate(), Error,
                         test::ErrorMatches(ErrorCode::kInvalidArgument, "temperature"));
}

TEST_CASE("backend selection falls back to the CPU with a reason", "[backend]") {
  const BackendChoice cpu = selectBackend(BackendKind::kCpu);
  CHECK(cpu.backend->name() == "cpu");
  CHECK(cpu.fallback_reason.empty());
  std::string why;
  if (listOpenClDevices(&why).empty()) {
    const BackendChoice autoChoice = selectBackend(BackendKind::kAuto);
    CHECK(autoChoice.backend->name() == "cpu");
    CHECK(autoChoice.fallback_reason == why);
  }
  CHECK_THROWS_WITH(parseBackendKind("cuda"), Catch::Contains("unknown backend 'cuda'"));
  CHECK(parseBackendKind("opencl") == BackendKind::kOpenCl);
  CHECK(toString(BackendKind::kAuto) == "auto");
}

TEST_CASE("the rng is deterministic and roughly standard normal", "[synthetic][rng]") {
  Rng a(5), b(5);
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < 100000; ++i) {
    const double x = a.normal();
    REQUIRE(x == b.normal());
    sum += x;
    sum_sq += x * x;
  }
  CHECK(std::abs(sum / 100000) < 0.02);
  CHECK(std::abs(sum_sq / 100000 - 1.0) < 0.02);
}

}  // namespace attnlab_test_synthetic
