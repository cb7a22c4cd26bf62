/// \file test_options.cpp
/// The one option table: the CLI and the window accept and refuse the same inputs with the same
/// words; every option round-trips through toArguments(); limits come from the table.

#include <QCoreApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "options/options.hpp"
#include "run/checks.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_options {

namespace {

namespace options = attnlab::options;
using attnlab::Mechanism;

/// The message parse() gives, or "" when it accepts the arguments.
std::string messageOf(const std::vector<std::string>& args, unsigned program) {
  try {
    options::parse(args, program);
  } catch (const options::OptionError& e) {
    return e.message().english().toStdString();
  }
  return {};
}

}  // namespace

TEST_CASE("the CLI and the window refuse the same inputs with the same line", "[options]") {
  const std::vector<std::vector<std::string>> bad = {
      {"--text", "\xff"},
      {"--text", "caf\xc3"},
      {"--heads", "3", "--d-model", "64"},
      {"--heads", "0"},
      {"--heads", "65"},
      {"--d-k", "0"},
      {"--d-k", "1025"},
      {"--d-model", "x"},
      {"--mechanism", "cosine"},
      {"--temperature", "0"},
      {"--temperature", "nan"},
      {"--causal", "--source", "abc"},
      {"--backend", "cuda"},
      {"--device", "-1"},
      {"--layer", "1"},
      {"--pair", "x"},
      {"--model", "m", "--heads", "4"},
      {"--model", "m", "--source", "x"},
      {"--model", "m", "--mechanism", "additive"},
      {"--mechanism", "additive", "--no-scale"},
      {"--head", "8"},
      {"--head", "x"},
      {"--color-scale", "rainbow"},
      {"--pool", "median"},
      {"--bogus"},
      {"--causal=yes"},
      {"--seed"},
  };
  for (const auto& args : bad) {
    const std::string window = messageOf(args, options::kWindow);
    std::vector<std::string> cli_args{"render", "--out", "x.png"};
    cli_args.insert(cli_args.end(), args.begin(), args.end());
    const std::string cli = messageOf(cli_args, 0);
    INFO(args.front() << " → window: " << window << " | cli: " << cli);
    CHECK_FALSE(window.empty());
    CHECK(window == cli);
  }
}

TEST_CASE("window-only and CLI-only options, and the language", "[options]") {
  CHECK(messageOf({"--lang", "fr"}, options::kWindow) == "--lang must be en or zh_CN (got 'fr')");
  CHECK(messageOf({"--lang", "zh_CN"}, options::kWindow).empty());
  CHECK(messageOf({"compute", "--lang", "en"}, 0) == "--lang does not apply to the compute command");
  CHECK(messageOf({"--out", "x.png"}, options::kWindow) == "--out does not apply to the window");
  CHECK(messageOf({"--layout-json", "x.json"}, options::kWindow) ==
        "--layout-json describes a screenshot: add --screenshot FILE.png");
  CHECK(messageOf({"--screenshot", "x.jpg"}, options::kWindow) == "--screenshot: unknown format '.jpg' (use .png)");
  CHECK(messageOf({"--screenshot", "/no/such/folder/x.png"}, options::kWindow) ==
        "--screenshot: the folder /no/such/folder does not exist");
  // --layer takes any whole number: the model's range is checked once it is loaded.
  const options::Options o = options::parse({"--model", "m", "--layer", "-1"}, options::kWindow);
  REQUIRE(o.lab.layer);
  CHECK(*o.lab.layer == -1);
  try {
    attnlab::run::checkLayer(o.lab, QStringLiteral("tiny-gpt2"), 2);
    FAIL("no error");
  } catch (const options::OptionError& e) {
    CHECK(e.message().english() == QStringLiteral("--layer -1 does not exist: tiny-gpt2 has layers 0–1 (or use all)"));
  }
}

TEST_CASE("without --d-k, heads must divide d_model (the window as the CLI)", "[options]") {
  const options::Options o = options::parse({"--heads", "4", "--d-model", "64"}, options::kWindow);
  CHECK(o.lab.spec.d_k == 0);
  CHECK(o.lab.spec.resolvedDk() == 16);
  CHECK(messageOf({"--heads", "3", "--d-model", "64"}, options::kWindow) ==
        "heads (3) must divide d_model (64), or set --d-k");
  CHECK(messageOf({"--heads", "3", "--d-model", "64", "--d-k", "21"}, options::kWindow).empty());
}

TEST_CASE("validate() gives the parser's words for the window's values", "[options]") {
  options::LabSettings s;
  s.spec.heads = 100;
  const std::string cli = messageOf({"compute", "--heads", "100"}, 0);
  try {
    options::validate(s);
    FAIL("no error");
  } catch (const options::OptionError& e) {
    CHECK(e.message().english().toStdString() == cli);
  }
  s = {};
  s.setCausal(true);
  s.source = QStringLiteral("x");
  CHECK_THROWS_AS(options::validate(s), options::OptionError);
  s = {};
  s.text = QStringLiteral("   ");
  try {
    attnlab::run::checkTokens(s);
    FAIL("no error");
  } catch (const options::OptionError& e) {
    CHECK(e.message().english() == QStringLiteral("the text has no tokens (only white space)"));
  }
}

TEST_CASE("every whole-number option refuses one past each limit, in the table's words", "[options]") {
  for (const options::OptionSpec& spec : options::table()) {
    if (spec.kind != options::Kind::kInt) continue;
    const unsigned command = spec.commands & options::kRender       ? options::kRender
                             : spec.commands & options::kCompute    ? options::kCompute
                             : spec.commands & options::kSaturation ? options::kSaturation
                             : spec.commands & options::kCost       ? options::kCost
                             : spec.commands & options::kDecode     ? options::kDecode
                             : spec.commands & options::kGenerate   ? options::kGenerate
                                                                    : options::kSweep;
    const std::string name = options::commandName(command).toStdString();
    const bool window_only = spec.commands == options::kWindow;  // --decode-step
    // The seeds' limit is said by name too: "2^53 (9007199254740992)".
    const std::string max = spec.max == (1LL << 53) ? "2^53 (" + std::to_string(spec.max) + ")" : std::to_string(spec.max);
    for (long long value : {spec.min - 1, spec.max + 1}) {
      std::vector<std::string> args{name, "--" + std::string(spec.name), std::to_string(value)};
      if (window_only) {
        args = {"--" + std::string(spec.name), std::to_string(value)};
        CHECK(messageOf(args, options::kWindow) == "--" + std::string(spec.name) + " must be between " +
                                                       std::to_string(spec.min) + " and " + max +
                                                       " (got " + std::to_string(value) + ")");
        continue;
      }
      if (command == options::kRender || command == options::kSaturation) args.insert(args.end(), {"--out", "x.png"});
      if (command == options::kSweep) args.insert(args.end(), {"--param", "d_k", "--out", "x.gif"});
      INFO(args[1] << " " << args[2]);
      CHECK(messageOf(args, 0) == "--" + std::string(spec.name) + " must be between " + std::to_string(spec.min) +
                                      " and " + max + " (got " + std::to_string(value) + ")");
    }
  }
}

TEST_CASE("every option round-trips through toArguments", "[options]") {
  const unsigned seed = GENERATE(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u);
  std::mt19937 rng(seed);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  options::Options o;
  o.command = options::kWindow;
  o.lab.text = QStringLiteral("text %1 — 我爱你 😀").arg(seed);
  o.lab.spec.mechanism = static_cast<Mechanism>(pick(0, 2));
  if (pick(0, 1)) o.lab.spec.temperature = 0.25 * pick(1, 8);
  o.lab.spec.heads = 1 << pick(0, 4);
  o.lab.spec.d_model = 64;
  if (pick(0, 1)) o.lab.spec.d_k = pick(1, 1024);
  if (pick(0, 1)) o.lab.spec.d_v = pick(1, 64);
  o.lab.setCausal(pick(0, 1));
  if (!o.lab.causal() && pick(0, 1)) o.lab.source = QStringLiteral("source text");
  o.lab.seed = static_cast<std::uint64_t>(pick(0, 1 << 30));
  o.lab.spec.positions = static_cast<attnlab::Positions>(pick(0, 3));
  if (o.lab.spec.positions == attnlab::Positions::kRope && o.lab.spec.resolvedDk() % 2 != 0)
    o.lab.spec.positions = attnlab::Positions::kAlibi;
  if (o.lab.spec.positions == attnlab::Positions::kRope && pick(0, 1)) o.lab.spec.rope_base = 500;
  if (pick(0, 1)) o.lab.spec.kv_heads = std::max(1, o.lab.spec.heads >> pick(0, 2));
  if (!o.lab.cross()) {
    if (pick(0, 1)) o.lab.spec.window = pick(1, 9);
    if (pick(0, 1)) o.lab.spec.global_tokens = pick(1, 3);
    if (o.lab.spec.window > 0 && pick(0, 1)) o.lab.spec.stride = pick(1, 4);
    if (pick(0, 1)) {
      o.lab.pad_to = pick(20, 40);
      o.lab.pad_mask = pick(0, 1);
    }
  }
  o.lab.backend = std::array{options::BackendKind::kAuto, options::BackendKind::kCpu, options::BackendKind::kOpenCl}.at(static_cast<std::size_t>(pick(0, 2)));
  o.picture.color_scale = static_cast<attnlab::views::ColorScale>(pick(0, 3));
  o.picture.pool = static_cast<attnlab::views::Pool>(pick(0, 1));
  if (pick(0, 1)) o.head = pick(0, o.lab.spec.heads - 1);
  o.window.presentation = pick(0, 1);
  o.window.language = pick(0, 1) ? QStringLiteral("zh_CN") : QString();
  std::vector<std::string> args;
  for (const QString& a : options::toArguments(o)) args.push_back(a.toStdString());
  const options::Options back = options::parse(args, options::kWindow);
  CHECK(back.lab == o.lab);
  CHECK(back.picture == o.picture);
  CHECK(back.head == o.head);
  CHECK(back.window.presentation == o.window.presentation);
  CHECK(back.window.language == o.window.language);
}

TEST_CASE("stored settings are the option table's arguments; a refused one is dropped alone",
          "[options]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QSettings store(dir.filePath("store.ini"), QSettings::IniFormat);
  options::Options o = options::parse({"--text", "a b c", "--heads", "4", "--kv-heads", "2", "--causal",
                                       "--backend", "cpu", "--temperature", "0.5"},
                                      options::kWindow);
  options::saveSettings(store, o.lab);
  CHECK(store.value("lab/arguments").toStringList() == options::toArguments(o));
  CHECK(options::loadSettings(store) == o.lab);
  // An older version's values: --kv-heads 3 no longer divides the heads, --heads 0 is out of
  // range, --no-such is gone; each is dropped, everything else comes back.
  store.setValue("lab/arguments", QStringList{"--text", "x y", "--heads", "0", "--kv-heads", "3",
                                              "--no-such", "--causal", "--seed", "7"});
  const options::LabSettings back = options::loadSettings(store);
  CHECK(back.text == QStringLiteral("x y"));
  CHECK(back.spec.heads == options::LabSettings{}.spec.heads);
  CHECK(back.spec.kv_heads == 0);
  CHECK(back.causal());
  CHECK(back.seed == 7);
  store.remove("lab/arguments");
  CHECK(options::loadSettings(store) == options::LabSettings{});
}

TEST_CASE("usage lists every option of the table", "[options]") {
  const QString cli = options::usage(0), window = options::usage(options::kWindow);
  for (const options::OptionSpec& spec : options::table()) {
    const QString name = QStringLiteral("--") + QString::fromUtf8(spec.name.data(), static_cast<qsizetype>(spec.name.size()));
    INFO(name.toStdString());
    CHECK((cli.contains(name) || window.contains(name)));
  }
  CHECK(window.contains(QStringLiteral("--screenshot")));
  CHECK_FALSE(cli.contains(QStringLiteral("--screenshot")));
}

TEST_CASE("messages fill their arguments once and translate by source", "[options]") {
  const options::Message m(ATTNLAB_MSG("--%1 must be between %2 and %3 (got %4)"),
                           {QStringLiteral("x"), QStringLiteral("%2"), QStringLiteral("1"), QStringLiteral("5")});
  CHECK(m.english() == QStringLiteral("--x must be between %2 and 1 (got 5)"));
  CHECK(m.translated() == m.english());  // no translator installed here
  CHECK(options::Message::verbatim(QStringLiteral("as is %1")).english() == QStringLiteral("as is %1"));
}

}  // namespace attnlab_test_options
