// Issue 13 on the command line: --precision, --softmax and --dropout — the JSON of non-finite
// rows (null cells, per-row flags, "nonfinite_rows"), dropout's row sums, the OpenCL fallback and
// the one-line refusals (exit 2, the window's same words).

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnlab/backend.hpp"
#include "cli/cli.hpp"
#include "options/options.hpp"
#include "cli_test_support.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_numerics {

namespace {

using attnlab::test::CliResult;
using attnlab::test::requireRefused;
using attnlab::test::runCli;

nlohmann::json compute(const std::vector<std::string>& args, const std::string& backend = "cpu") {
  return attnlab::test::computeJson(args, backend);
}

const std::vector<std::string> kBlowUp = {"--no-scale", "--d-k", "512", "--precision", "fp16",
                                          "--softmax", "naive"};

}  // namespace

TEST_CASE("CLI fp16 naive without the scale: rows blow up, JSON stays valid with null cells",
          "[cli][numerics]") {
  const auto j = compute(kBlowUp);
  CHECK(j["precision"] == "fp16");
  CHECK(j["softmax"] == "naive");
  const long long bad = j["nonfinite_rows"].get<long long>();
  CHECK(bad > 0);
  long long flagged = 0;
  for (const auto& head : j["heads"]) {
    const auto& flags = head["nonfinite_row"];
    REQUIRE(flags.size() == head["weights"].size());
    for (std::size_t i = 0; i < flags.size(); ++i) {
      bool has_null = false;
      for (const auto& w : head["weights"][i]) has_null = has_null || w.is_null();
      CHECK(flags[i].get<bool>() == has_null);  // a row is flagged exactly when it holds a null
      flagged += flags[i].get<bool>() ? 1 : 0;
    }
  }
  CHECK(flagged == bad);
  // The stable twin: the same scores, no overflow.
  std::vector<std::string> stable = kBlowUp;
  stable.back() = "stable";
  const auto s = compute(stable);
  CHECK(s["nonfinite_rows"] == 0);
  for (const auto& head : s["heads"])
    for (const auto& flag : head["nonfinite_row"]) CHECK(flag == false);
  // fp32 stable (the default) says nothing about non-finite rows.
  CHECK_FALSE(compute({"--no-scale"}).contains("nonfinite_rows"));
}

TEST_CASE("CLI --dropout: rows no longer sum to 1; p = 0 is the undropped run exactly",
          "[cli][numerics][dropout]") {
  const auto d = compute({"--dropout", "0.1", "--seed", "3"});
  CHECK(d["dropout"] == 0.1);
  CHECK(d["rows_sum_to_one"] == false);
  CHECK(d["dropped_cells"].get<long long>() > 0);
  bool off_one = false;
  for (const auto& head : d["stats"]["row_sum"])
    for (const auto& sum : head) off_one = off_one || std::fabs(sum.get<double>() - 1.0) > 1e-3;
  CHECK(off_one);
  const auto zero = compute({"--dropout", "0", "--seed", "3"});
  const auto plain = compute({"--seed", "3"});
  CHECK(zero["heads"] == plain["heads"]);
  CHECK(zero["output"] == plain["output"]);
  CHECK_FALSE(zero.contains("dropped_cells"));
  // Another seed drops other cells.
  CHECK(compute({"--dropout", "0.1", "--seed", "4"})["heads"] != d["heads"]);
}

TEST_CASE("CLI numerics on OpenCL fall back to the CPU reference and say why", "[cli][numerics]") {
  std::string why;
  if (attnlab::listOpenClDevices(&why).empty()) {
    attnlab::test::skipTest("no OpenCL device: " + why);
    return;
  }
  const auto j = compute(kBlowUp, "opencl");
  CHECK(j["backend"] == "cpu");
  CHECK(j["fallback_reason"].get<std::string>().find(
            "--precision fp16, --softmax naive computed on the CPU reference") != std::string::npos);
  CHECK(j["nonfinite_rows"] == compute(kBlowUp)["nonfinite_rows"]);
}

TEST_CASE("CLI refuses bad numerics with one line, and the window with the same words",
          "[cli][numerics]") {
  requireRefused({"compute", "--dropout", "1"}, "--dropout must be at least 0 and below 1 (got 1)");
  requireRefused({"compute", "--dropout", "-0.1"}, "--dropout must be at least 0 and below 1 (got -0.1)");
  requireRefused({"compute", "--dropout", "lots"}, "--dropout expects a number (got 'lots')");
  requireRefused({"compute", "--precision", "fp8"}, "--precision must be fp32, fp16 or bf16 (got 'fp8')");
  requireRefused({"compute", "--softmax", "fast"}, "--softmax must be stable or naive (got 'fast')");
  requireRefused({"compute", "--mechanism", "linear", "--window", "2"},
                 "--window does not apply to --mechanism linear (its prefix sums take every earlier key)");
  requireRefused({"compute", "--mechanism", "linear", "--precision", "fp16"},
                 "--precision does not apply to --mechanism linear (it has no softmax and no scores to bias)");
  requireRefused({"compute", "--mechanism", "linear", "--no-scale"},
                 "--no-scale applies to the scaled mechanism only");
}

TEST_CASE("CLI --mechanism linear: implied weights sum to 1 per row; causal rows see earlier keys",
          "[cli][linear_attention]") {
  const auto j = compute({"--mechanism", "linear", "--causal", "--heads", "2"});
  CHECK(j["mechanism"] == "linear");
  CHECK(j["scale"] == 1.0);
  for (const auto& head : j["heads"]) {
    const auto& w = head["weights"];
    for (std::size_t i = 0; i < w.size(); ++i) {
      double sum = 0;
      for (std::size_t c = 0; c < w[i].size(); ++c) {
        sum += w[i][c].get<double>();
        if (c > i) CHECK(w[i][c] == 0.0);
      }
      CHECK(std::fabs(sum - 1.0) < 1e-5);
    }
  }
}

}  // namespace attnlab_test_cli_numerics
