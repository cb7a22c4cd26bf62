// Issue 12 on the command line: --kv-heads, --window, --global, --stride, --pad-to,
// --no-pad-mask, --positions, --rope-base — their JSON and their one-line refusals (exit 2).

#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.hpp"
#include "cli_test_support.hpp"
#include "options/options.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_variants {

namespace {

using attnlab::test::CliResult;
using attnlab::test::kCat;
using attnlab::test::requireRefused;
using attnlab::test::runCli;

nlohmann::json compute(const std::vector<std::string>& args) { return attnlab::test::computeJson(args); }

}  // namespace

TEST_CASE("CLI --kv-heads: JSON names each head's K/V head and the KV cache", "[cli][variants][gqa]") {
  const auto j = compute({"--text", kCat, "--heads", "8", "--kv-heads", "2"});
  CHECK(j["h"] == 8);
  CHECK(j["kv_heads"] == 2);
  // d_model 64 / 8 heads: d_k = d_v = 8. KV cache per token and layer: 2·G·d_k·4 = 2·2·8·4 = 128
  // bytes; multi-head attention: 2·8·8·4 = 512.
  CHECK(j["kv_cache_bytes_per_token"] == 128);
  CHECK(j["mha_kv_cache_bytes_per_token"] == 512);
  // Query heads 0–3 read K/V head 0, heads 4–7 K/V head 1 (⌊i·G/h⌋).
  for (int h = 0; h < 8; ++h) CHECK(j["heads"][h]["kv_head"] == h / 4);
  const auto mha = compute({"--text", kCat});
  CHECK(mha["kv_heads"] == 8);
  CHECK(mha["heads"][5]["kv_head"] == 5);
}

TEST_CASE("CLI --window, --global, --stride: JSON describes the mask and its visible fraction",
          "[cli][variants][mask]") {
  // 11 tokens, causal window 4: row i sees min(i + 1, 4) keys → 1 + 2 + 3 + 4·8 = 38 of 121.
  const auto w = compute({"--text", kCat, "--causal", "--window", "4", "--heads", "2"});
  CHECK(w["mask"]["causal"] == true);
  CHECK(w["mask"]["window"] == 4);
  CHECK(w["mask"]["visible_cells"] == 38);
  CHECK(w["mask"]["cells"] == 121);
  CHECK(std::fabs(w["mask"]["visible_fraction"].get<double>() - 38.0 / 121.0) < 1e-12);
  CHECK(w["heads"][0]["weights"][10][6] == 0.0);  // 10 − 6 = 4 ≥ W: masked
  CHECK(w["heads"][0]["weights"][10][7] > 0.0);
  // 4 tokens, window 1 (the diagonal), global token 0: row 0 sees 4 keys, rows 1–3 see 2 each
  // → 10 of 16.
  const auto g = compute({"--text", "a b c d", "--window", "1", "--global", "1", "--heads", "1"});
  CHECK(g["mask"]["global"] == 1);
  CHECK(g["mask"]["visible_cells"] == 10);
  CHECK(g["heads"][0]["weights"][3][1] == 0.0);
  CHECK(g["heads"][0]["weights"][3][0] > 0.0);
  // Stride 2 with window 1, causal, 5 tokens: row i sees j ≤ i with (i − j) even → 1+1+2+2+3 = 9.
  const auto s = compute({"--text", "a b c d e", "--window", "1", "--stride", "2", "--causal",
                          "--heads", "1"});
  CHECK(s["mask"]["stride"] == 2);
  CHECK(s["mask"]["visible_cells"] == 9);
  // No pattern: everything visible.
  const auto none = compute({"--text", "a b c", "--heads", "1"});
  CHECK(none["mask"]["causal"] == false);
  CHECK(none["mask"]["visible_fraction"] == 1.0);
  CHECK(none["mask"]["valid_keys"].is_null());
}

TEST_CASE("CLI --pad-to and --no-pad-mask: [PAD] tokens, masked or leaking", "[cli][variants][padding]") {
  const auto p = compute({"--text", "the cat sat", "--pad-to", "5", "--heads", "1"});
  REQUIRE(p["query_tokens"].size() == 5);
  CHECK(p["query_tokens"][4] == "[PAD]");
  CHECK(p["pad_tokens"] == 2);
  CHECK(p["pad_mask"] == true);
  CHECK(p["mask"]["valid_keys"] == 3);
  CHECK(p["mask"]["visible_cells"] == 15);  // 5 rows × 3 real keys
  for (int i = 0; i < 5; ++i) CHECK(p["heads"][0]["weights"][i][4] == 0.0);
  const auto leak = compute({"--text", "the cat sat", "--pad-to", "5", "--no-pad-mask", "--heads", "1"});
  CHECK(leak["pad_mask"] == false);
  CHECK(leak["mask"]["valid_keys"].is_null());
  CHECK(leak["heads"][0]["weights"][0][4] > 0.0);
}

TEST_CASE("CLI --positions: the scheme in JSON, ALiBi's slopes and bias", "[cli][variants][positions]") {
  const auto sin = compute({"--text", "a b c", "--heads", "2", "--d-model", "16"});
  CHECK(sin["positions"] == "sinusoidal");
  const auto rope = compute({"--text", "a b c", "--heads", "2", "--d-model", "16", "--positions",
                             "rope", "--rope-base", "500"});
  CHECK(rope["positions"] == "rope");
  CHECK(rope["rope_base"] == 500.0);
  const auto none = compute({"--text", "a b c", "--heads", "2", "--d-model", "16", "--no-positions"});
  CHECK(none["positions"] == "none");
  const auto alibi = compute({"--text", "a b c", "--heads", "2", "--d-model", "16", "--positions",
                              "alibi"});
  CHECK(alibi["positions"] == "alibi");
  // H = 2: slopes 2^(−8·1/2) = 1/16 and 2^(−8·2/2) = 1/256. ALiBi adds no sinusoids, so its scores
  // minus those of --positions none are −m_h·|i − j|: 0 − 2/16 = −0.125 at (0, 2) of head 0.
  CHECK(alibi["alibi_slopes"][0] == 0.0625);
  CHECK(alibi["alibi_slopes"][1] == 0.00390625);
  const double d = alibi["heads"][0]["scores"][0][2].get<double>() -
                   none["heads"][0]["scores"][0][2].get<double>();
  CHECK(std::fabs(d + 0.125) < 1e-6);
}

TEST_CASE("bad variant values exit 2 with one line, the window's words too",
          "[cli][variants][errors]") {
  requireRefused({"compute", "--kv-heads", "3"}, "--kv-heads (3) must divide --heads (8)");
  requireRefused({"compute", "--kv-heads", "4", "--heads", "6", "--d-model", "48"},
                 "--kv-heads (4) must divide --heads (6)");
  requireRefused({"compute", "--window", "0"}, "--window must be between 1 and 4096 (got 0)");
  requireRefused({"compute", "--window", "3", "--source", "le chat"},
                 "--window applies to self-attention only; drop --window or --source");
  requireRefused({"compute", "--pad-to", "20", "--source", "le chat"},
                 "--pad-to applies to self-attention only; drop --pad-to or --source");
  requireRefused({"compute", "--positions", "rope", "--heads", "2", "--d-model", "10"},
                 "--positions rope rotates pairs of dimensions: d_k (5) must be even");
  requireRefused({"compute", "--text", kCat, "--global", "12"},
                 "--global 12 is more than the text's 11 tokens");
  requireRefused({"compute", "--positions", "learned"},
                 "--positions must be sinusoidal, rope, alibi or none (got 'learned')");
  requireRefused({"compute", "--text", kCat, "--pad-to", "5"},
                 "--pad-to 5 is less than the text's 11 tokens");
  requireRefused({"compute", "--stride", "2"}, "--stride adds keys to a sliding window: set --window too");
  requireRefused({"compute", "--rope-base", "1"}, "--rope-base must be > 1 (got 1)");
  requireRefused({"compute", "--global", "0"}, "--global must be between 1 and 4096 (got 0)");
  requireRefused({"compute", "--no-positions", "--positions", "rope"},
                 "--no-positions contradicts --positions rope");
}

TEST_CASE("CLI-only variant rules: options that need another", "[cli][variants][errors]") {
  const CliResult a = runCli({"compute", "--no-pad-mask"});
  CHECK(a.code == 2);
  CHECK(a.err.find("--no-pad-mask needs --pad-to N") != std::string::npos);
  const CliResult b = runCli({"compute", "--rope-base", "500"});
  CHECK(b.code == 2);
  CHECK(b.err.find("--rope-base applies to --positions rope") != std::string::npos);
  const CliResult c = runCli({"compute", "--model", "/nonexistent", "--window", "4"});
  CHECK(c.code == 2);
  CHECK(c.err.find("--window does not apply with --model") != std::string::npos);
}

TEST_CASE("variant options go back to the same arguments", "[cli][variants][options]") {
  using namespace attnlab::options;
  const std::vector<std::string> args = {"render", "--out", "x.png", "--kv-heads", "2",
                                         "--window", "4", "--global", "1", "--stride", "3",
                                         "--pad-to", "20", "--no-pad-mask", "--positions", "rope",
                                         "--rope-base", "500"};
  QTemporaryDir dir;
  std::vector<std::string> in = args;
  in[2] = dir.path().toStdString() + "/x.png";
  const Options o = parse(in, 0);
  CHECK(o.lab.spec.kv_heads == 2);
  CHECK(o.lab.spec.window == 4);
  CHECK(o.lab.pad_mask == false);
  CHECK(o.lab.spec.positions == attnlab::Positions::kRope);
  std::vector<std::string> again;
  for (const QString& a : toArguments(o)) again.push_back(a.toStdString());
  const Options back = parse(again, 0);
  CHECK(back.lab == o.lab);
  // --no-positions comes back as --positions none.
  const Options none = parse({"compute", "--no-positions"}, 0);
  CHECK(toArguments(none).contains(QStringLiteral("none")));
}

}  // namespace attnlab_test_cli_variants
