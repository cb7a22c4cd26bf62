// Issue 16: the lesson files (valid, in the course's order, both languages, captions that quote
// computed numbers and never type one), every step's settings accepted and its numbers computed,
// hand-checked quantities, `attention-lab-cli lesson list|export` and its refusals, and the lecture
// pack's index.html (well-formed, only embedded images, no network).

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <catch2/catch.hpp>
#include <sstream>

#include "cli/cli.hpp"
#include "cli_test_support.hpp"
#include "lessons/lesson.hpp"
#include "options/options.hpp"
#include "lessons/quantities.hpp"
#include "test_support.hpp"

namespace Catch {
template <>
struct StringMaker<QString> {
  static std::string convert(const QString& value) { return '"' + value.toStdString() + '"'; }
};
}  // namespace Catch

using namespace attnlab;
namespace lessons = attnlab::lessons;

namespace {

using attnlab::test::CliResult;
using attnlab::test::requireUsageError;
using attnlab::test::runCli;

std::string s(const QString& text) { return text.toStdString(); }

const QStringList kLanguages{QStringLiteral("en"), QStringLiteral("zh_CN")};

/// Walks every step of every lesson that needs (with_models) or does not need a model: its
/// settings parse, and every number either caption quotes computes and fills both captions.
/// Returns the steps walked; `missing` gets the models that were not fetched.
int walkSteps(bool with_models, QStringList& missing) {
  int walked = 0;
  run::Session session;  // one for every step: each model loads once
  for (const lessons::Lesson& l : lessons::all()) {
    for (const lessons::Step& step : l.steps) {
      const QString model = lessons::stepModel(step);
      if (model.isEmpty() == with_models) continue;
      if (with_models && lessons::fetchedModel(model).isEmpty()) {
        if (!missing.contains(model)) missing << model;
        continue;
      }
      INFO("lesson " << s(l.name) << " step " << s(step.id));
      options::Options o;
      try {
        o = lessons::stepOptions(step);
      } catch (const options::OptionError& e) {
        FAIL("refused: " << s(e.message().english()));
      }
      const std::map<QString, QString> numbers = lessons::quantities(step, o.lab, session);
      for (const QString& language : kLanguages) {
        for (const QString& name : lessons::placeholders(step.caption.in(language))) {
          INFO(s(name));
          REQUIRE(numbers.count(name) == 1);
          CHECK(!numbers.at(name).isEmpty());
          CHECK(numbers.at(name) != QStringLiteral("—"));  // every quoted number applies
        }
        const QString text = lessons::caption(step, language, numbers);
        CHECK(!text.contains(QLatin1Char('{')));
        CHECK(!text.contains(QStringLiteral("…")));
      }
      ++walked;
    }
  }
  return walked;
}

}  // namespace

TEST_CASE("lessons: the thirteen lessons of the course, in order, every file valid", "[lessons]") {
  const std::vector<lessons::Lesson>& all = lessons::all();
  const QStringList course{"alignment", "scale", "saturation", "multihead", "causal",
                           "cross", "cost", "flash", "kvcache", "long",
                           "positions", "precision", "heads"};
  REQUIRE(all.size() >= static_cast<std::size_t>(course.size()));
  for (int i = 0; i < course.size(); ++i) {
    CHECK(all[static_cast<std::size_t>(i)].name == course[i]);
    CHECK(all[static_cast<std::size_t>(i)].order == i + 1);
  }
  for (const lessons::Lesson& l : all) {
    CHECK(&lessons::byName(l.name) == &l);
    CHECK(!l.steps.empty());
    // Every file reads again on its own, as the window's ATTNLAB_LESSON_DIR would.
    CHECK(lessons::load(QStringLiteral(":/lessons/") + l.name + QStringLiteral(".json")).steps.size() == l.steps.size());
  }
  try {
    lessons::byName(QStringLiteral("nope"));
    FAIL("no error");
  } catch (const options::OptionError& e) {
    CHECK(s(e.message().english()).rfind("unknown lesson 'nope' (use alignment, scale, ", 0) == 0);
  }
}

TEST_CASE("lessons: captions and prompts in both languages, quoting known quantities, typing no number",
          "[lessons]") {
  const QStringList known = lessons::quantityNames();
  // A measured number is a decimal or a percentage: captions must quote it as {name}.
  const QRegularExpression typed(QStringLiteral("\\d[.,]\\d|\\d\\s*%|\\d\\s*×"));
  for (const lessons::Lesson& l : lessons::all()) {
    CHECK(!l.title.en.trimmed().isEmpty());
    CHECK(!l.title.zh_CN.trimmed().isEmpty());
    for (const lessons::Step& step : l.steps) {
      INFO("lesson " << s(l.name) << " step " << s(step.id));
      for (const QString& language : kLanguages) {
        CHECK(!step.caption.in(language).trimmed().isEmpty());
        CHECK(!step.try_this.in(language).trimmed().isEmpty());
        CHECK(!typed.match(step.caption.in(language)).hasMatch());
        // "Try this" names the control to move, in quotes as the window labels it.
        CHECK(step.try_this.in(language).contains(QStringLiteral("“")));
        for (const QString& name : lessons::placeholders(step.caption.in(language))) CHECK(known.contains(name));
      }
      // The Chinese caption is Chinese, and both quote the same numbers.
      CHECK(step.caption.zh_CN.contains(QRegularExpression(QStringLiteral("[\\x{4e00}-\\x{9fff}]"))));
      CHECK(step.try_this.zh_CN.contains(QRegularExpression(QStringLiteral("[\\x{4e00}-\\x{9fff}]"))));
      QStringList en = lessons::placeholders(step.caption.en), zh = lessons::placeholders(step.caption.zh_CN);
      en.sort();
      zh.sort();
      CHECK(en == zh);
    }
  }
}

TEST_CASE("lessons: every command a \"try this\" prints parses as printed, naming a model by its name",
          "[lessons]") {
  // Issue 50: lesson 15 printed --model SmolLM2.gguf (exit 2: no such file) and a text from
  // docs/, which a student with the exported pack does not have. A command runs from
  // "attention-lab-cli" to its --out FILE; the option table parses it (no model is read).
  int commands = 0;
  for (const lessons::Lesson& lesson : lessons::all()) {
    for (const lessons::Step& step : lesson.steps) {
      for (const QString& text : {step.try_this.en, step.try_this.zh_CN}) {
        for (qsizetype at = text.indexOf(QLatin1String("attention-lab-cli ")); at >= 0;
             at = text.indexOf(QLatin1String("attention-lab-cli "), at + 1)) {
          INFO(lesson.name.toStdString() << " / " << step.id.toStdString() << ": " << text.mid(at).toStdString());
          // Words, double quotes kept together, up to the --out FILE that ends the command.
          std::vector<std::string> args;
          QString word;
          bool quoted = false, out = false, done = false;
          for (qsizetype i = at + 18; i <= text.size() && !done; ++i) {
            const QChar c = i < text.size() ? text[i] : QChar(QLatin1Char(' '));
            if (c == QLatin1Char('"')) {
              quoted = !quoted;
            } else if (c.isSpace() && !quoted) {
              if (word.isEmpty()) continue;
              args.push_back(word.toStdString());
              done = out && word != QLatin1String("--out");
              out = out || word == QLatin1String("--out");
              word.clear();
            } else {
              word += c;
            }
          }
          REQUIRE(done);  // it ends with --out FILE (no sentence's full stop glued to the file)
          CHECK_FALSE(QString::fromStdString(args.back()).endsWith(QLatin1Char('.')));
          for (const std::string& a : args) {
            CHECK(a.find(".gguf") == std::string::npos);  // a fetched model by its name
            CHECK(a.find("docs/") == std::string::npos);  // nothing the pack does not hold
            CHECK(a.find("$(") == std::string::npos);
          }
          CHECK_NOTHROW(attnlab::options::parse(args, 0));
          ++commands;
        }
      }
    }
  }
  CHECK(commands >= 4);  // lesson 15's two, in both languages
}

TEST_CASE("lessons: every control a \"try this\" quotes is a label of the window, in its language",
          "[lessons]") {
  // The window's strings: the .ts sources (English) and their translations (中文).
  QFile ts(QStringLiteral(ATTNLAB_SOURCE_DIR "/resources/translations/attention_lab_zh_CN.ts"));
  REQUIRE(ts.open(QIODevice::ReadOnly));
  QStringList sources, translations;
  QXmlStreamReader xml(&ts);
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement) continue;
    if (xml.name() == QLatin1String("source")) sources << xml.readElementText().remove(QLatin1Char('&'));
    if (xml.name() == QLatin1String("translation")) translations << xml.readElementText().remove(QLatin1Char('&'));
  }
  REQUIRE(!xml.hasError());
  REQUIRE(sources.size() > 100);
  const QRegularExpression quoted(QStringLiteral("“([^”]+)”"));
  for (const lessons::Lesson& l : lessons::all()) {
    for (const lessons::Step& step : l.steps) {
      for (const QString& language : kLanguages) {
        const QStringList& labels = language == QLatin1String("en") ? sources : translations;
        for (auto it = quoted.globalMatch(step.try_this.in(language)); it.hasNext();) {
          const QString name = it.next().captured(1);
          INFO("lesson " << s(l.name) << " step " << s(step.id) << " " << s(language) << ": " << s(name));
          // The label itself, or its start ("Source" of "Source (optional: …)").
          CHECK(std::any_of(labels.begin(), labels.end(), [&name](const QString& label) { return label.startsWith(name); }));
        }
      }
    }
  }
}

TEST_CASE("lessons: a bad lesson file is refused with one line naming the field", "[lessons]") {
  QTemporaryDir dir;
  const auto write = [&dir](const char* name, const char* json) {
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile f(path);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write(json);
    return path;
  };
  const char* step_tail = R"("caption": {"en": "a {nope}", "zh_CN": "一 {nope}"}, "try": {"en": "x", "zh_CN": "试"}}]})";
  const std::string unknown = std::string(R"({"name": "bad", "order": 1, "title": {"en": "B", "zh_CN": "乙"},
      "steps": [{"id": "s", "options": [], )") + step_tail;
  REQUIRE_THROWS_MATCHES(lessons::load(write("bad.json", unknown.c_str())), Error,
                         test::ErrorMatches(ErrorCode::kInvalidInput, "caption quotes an unknown quantity {nope}"));
  REQUIRE_THROWS_MATCHES(
      lessons::load(write("other.json", R"({"name": "x", "order": 1, "title": {"en": "B", "zh_CN": "乙"}, "steps": []})")),
      Error, test::ErrorMatches(ErrorCode::kInvalidInput, "name must be the file's base name 'other'"));
  REQUIRE_THROWS_MATCHES(
      lessons::load(write("nozh.json", R"({"name": "nozh", "order": 1, "title": {"en": "B"}, "steps": []})")),
      Error, test::ErrorMatches(ErrorCode::kInvalidInput, "title.zh_CN is missing or empty"));
  REQUIRE_THROWS_MATCHES(
      lessons::load(write("mixed.json", R"({"name": "mixed", "order": 1, "title": {"en": "B", "zh_CN": "乙"},
        "steps": [{"id": "s", "caption": {"en": "{d_k}", "zh_CN": "{heads}"}, "try": {"en": "x", "zh_CN": "试"}}]})")),
      Error, test::ErrorMatches(ErrorCode::kInvalidInput, "the English and the Chinese captions quote different quantities"));
  // A step's settings go through the option table, with its words.
  lessons::Step step;
  step.options = {"--d-k", "0"};
  REQUIRE_THROWS_WITH(lessons::stepOptions(step), "--d-k must be between 1 and 1024 (got 0)");
  step.options = {"--out", "x.png"};
  REQUIRE_THROWS_WITH(lessons::stepOptions(step), "a lesson step sets the lab's settings: --out does not apply");
}

TEST_CASE("lessons: every synthetic step's settings are accepted and its numbers compute", "[lessons]") {
  QStringList missing;
  CHECK(walkSteps(false, missing) >= 30);
}

TEST_CASE("lessons: the steps on MiniLM and SmolLM2 are accepted and their numbers compute",
          "[lessons][model]") {
  QStringList missing;
  const int walked = walkSteps(true, missing);
  if (!missing.isEmpty()) {
    test::skipTest(s(QStringLiteral("not fetched: ") + missing.join(QStringLiteral(", ")) +
                     QStringLiteral(" (attention-lab-cli fetch-model minilm, attention-lab-cli fetch-model smollm2)")));
    return;
  }
  CHECK(walked >= 2);
}

TEST_CASE("lesson quantities: hand-checked arithmetic", "[lessons]") {
  // var(q·k): one query (1, 2) against keys (1, 0), (0, 1), (1, 1), (−1, 0): dots 1, 2, 3, −1,
  // mean 5/4, mean of squares 15/4, variance 15/4 − 25/16 = 35/16.
  Tensor3 q(1, 1, 2), k(1, 4, 2);
  q(0, 0, 0) = 1, q(0, 0, 1) = 2;
  const float keys[4][2] = {{1, 0}, {0, 1}, {1, 1}, {-1, 0}};
  for (int j = 0; j < 4; ++j) k(0, j, 0) = keys[j][0], k(0, j, 1) = keys[j][1];
  CHECK(lessons::dotProductVariance(q, k) == Approx(35.0 / 16.0));
  // Two query heads sharing the one K/V head (GQA): head 1's query (0, 1) adds dots 0, 1, 1, 0;
  // all eight: mean 7/8, mean of squares 17/8, variance 17/8 − 49/64 = 87/64.
  Tensor3 q2(2, 1, 2);
  q2(0, 0, 0) = 1, q2(0, 0, 1) = 2, q2(1, 0, 0) = 0, q2(1, 0, 1) = 1;
  CHECK(lessons::dotProductVariance(q2, k) == Approx(87.0 / 64.0));
  CHECK_THROWS_AS(lessons::dotProductVariance(Tensor3(1, 1, 3), k), Error);

  // Averaging two heads with outputs (1, 0) and (0, 1): mean (½, ½), each head ½² + ½² away,
  // lost ½ + ½ = 1 of the energy 2: one half. Equal heads lose nothing.
  Tensor3 o(2, 1, 2);
  o(0, 0, 0) = 1, o(1, 0, 1) = 1;
  CHECK(lessons::averagingLoss(o) == Approx(0.5));
  o(1, 0, 0) = 1, o(1, 0, 1) = 0;
  CHECK(lessons::averagingLoss(o) == 0.0);

  CHECK(lessons::formatNumber(0) == QStringLiteral("0"));
  CHECK(lessons::formatNumber(0.94321) == QStringLiteral("0.943"));
  CHECK(lessons::formatNumber(63.24) == QStringLiteral("63.2"));
  CHECK(lessons::formatNumber(8192) == QStringLiteral("8192"));
  CHECK(lessons::formatNumber(1.23e-7) == QStringLiteral("1.2e-07"));
}

TEST_CASE("lesson quantities: numbers of known settings", "[lessons]") {
  const auto numbers = [](const std::vector<std::string>& args, const QStringList& names) {
    run::Session session;
    return lessons::quantities(names, options::parse(args, options::kWindow), session);
  };
  // Four tokens, causal, window 1: each query sees only itself, 4 of the 16 pairs.
  auto n = numbers({"--text", "a b c d", "--causal", "--window", "1"}, {"visible_fraction", "n_tokens", "mean_max_weight"});
  CHECK(n["visible_fraction"] == QStringLiteral("25 %"));
  CHECK(n["n_tokens"] == QStringLiteral("4"));
  CHECK(n["mean_max_weight"] == QStringLiteral("1.00"));
  // The causal mask leaves every row before the changed last word exactly as it was.
  n = numbers({}, {"prefix_diff_causal", "prefix_diff_bidirectional", "changed_rows", "d_k", "heads"});
  CHECK(n["prefix_diff_causal"] == QStringLiteral("0"));
  CHECK(n["prefix_diff_bidirectional"] != QStringLiteral("0"));
  CHECK(n["changed_rows"] == QStringLiteral("9"));  // "tired" is token 9 of the cat sentence
  // Lesson 5 step 2's figure: causal − no mask; its title's max |Δ| is the caption's number.
  const QString mask_diff = numbers({"--causal"}, {"mask_diff"})["mask_diff"];
  CHECK(mask_diff.toDouble() > 0.3);
  CHECK(mask_diff == numbers({}, {"mask_diff"})["mask_diff"]);  // either way round
  CHECK(n["d_k"] == QStringLiteral("8"));
  CHECK(n["heads"] == QStringLiteral("8"));
  // Padding: masked [PAD] keys get nothing.
  CHECK(numbers({"--pad-to", "16"}, {"pad_leak"})["pad_leak"] == QStringLiteral("0 %"));
  CHECK(numbers({"--pad-to", "16", "--no-pad-mask"}, {"pad_leak"})["pad_leak"] != QStringLiteral("0 %"));
  // GQA: 8 query heads over 2 K/V heads cache 4× less; at 8192 tokens, d_k = d_v = 8:
  // 8192 · 2 · (8 + 8) · 4 B = 1 MiB against 4 MiB.
  n = numbers({"--heads", "8", "--kv-heads", "2"}, {"kv_saving", "kv_bytes_long", "kv_bytes_mha_long"});
  CHECK(n["kv_saving"] == QStringLiteral("4"));
  CHECK(n["kv_bytes_long"] == QStringLiteral("1.00 MiB"));
  CHECK(n["kv_bytes_mha_long"] == QStringLiteral("4.00 MiB"));
  // fp16 without the scale at d_k 256: the naive softmax overflows, the stable one never does.
  n = numbers({"--no-scale", "--d-k", "256", "--precision", "fp16", "--softmax", "naive"},
              {"overflow_rows", "overflow_rows_naive", "overflow_rows_stable"});
  CHECK(n["overflow_rows"] == n["overflow_rows_naive"]);
  CHECK(n["overflow_rows"].toInt() > 0);
  CHECK(n["overflow_rows_stable"] == QStringLiteral("0"));
  // Without positions the two occurrences of "the" get identical rows; sinusoids tell them apart.
  const std::string repeated = "the dog saw the cat";
  n = numbers({"--positions", "none", "--text", repeated}, {"repeated_token", "repeat_row_diff"});
  CHECK(n["repeated_token"] == QStringLiteral("the"));
  CHECK(n["repeat_row_diff"] == QStringLiteral("0"));
  CHECK(numbers({"--text", repeated}, {"repeat_row_diff"})["repeat_row_diff"] != QStringLiteral("0"));
  // var(q·k) grows with d_k: the synthetic lab's q and k have unit-variance components.
  const double v64 = numbers({"--d-k", "64"}, {"var_qk"})["var_qk"].toDouble();
  const double v512 = numbers({"--d-k", "512"}, {"var_qk"})["var_qk"].toDouble();
  CHECK(v512 / v64 == Approx(8.0).epsilon(0.35));
  CHECK_THROWS_AS(numbers({}, {"no_such"}), Error);
}

TEST_CASE("lesson quantities: the trained translators' numbers", "[lessons]") {
  run::Session session;
  const auto numbers = [&session](const std::vector<std::string>& args, const QStringList& names) {
    return lessons::quantities(names, options::parse(args, options::kWindow), session);
  };
  // dates-additive on the first lesson's source: 15 characters, "2021-03-03" + </s>; the figures
  // of its config.json (scripts/train-translators: 100 % of the 1000 test dates, 91.9 % in span).
  auto n = numbers({"--model", "dates-additive", "--source", "March 3rd, 2021"},
                   {"translation", "n_keys", "n_tokens", "heads", "test_accuracy", "test_examples",
                    "alignment_in_span", "mean_max_weight"});
  CHECK(n["translation"] == QStringLiteral("2021-03-03"));
  CHECK(n["n_keys"] == QStringLiteral("15"));
  CHECK(n["n_tokens"] == QStringLiteral("11"));
  CHECK(n["heads"] == QStringLiteral("1"));
  CHECK(n["test_accuracy"] == QStringLiteral("100.0 %"));
  CHECK(n["test_examples"] == QStringLiteral("1000"));
  CHECK(n["alignment_in_span"] == QStringLiteral("91.9 %"));
  CHECK(n["mean_max_weight"].toDouble() > 0.4);  // a trained alignment, not a uniform 1/15
  // The Transformer: 2 decoder layers of 4 heads, d_k 128; the scaling experiment's figures.
  n = numbers({"--model", "dates-transformer", "--source", "2021年3月3日"},
              {"translation", "model_layers", "heads", "d_k", "training_steps", "accuracy_scaled",
               "accuracy_unscaled", "loss_scaled", "loss_unscaled"});
  CHECK(n["translation"] == QStringLiteral("2021-03-03"));
  CHECK(n["model_layers"] == QStringLiteral("2"));
  CHECK(n["heads"] == QStringLiteral("4"));
  CHECK(n["d_k"] == QStringLiteral("128"));
  CHECK(n["training_steps"] == QStringLiteral("2000"));
  CHECK(n["accuracy_scaled"] == QStringLiteral("100.0 %"));
  CHECK(n["accuracy_unscaled"] == QStringLiteral("25.0 %"));
  CHECK(n["loss_scaled"].toDouble() < n["loss_unscaled"].toDouble() / 100);
  // Not a translator: its own figures do not apply; the training figures still do.
  n = numbers({}, {"translation", "alignment_in_span", "training_steps"});
  CHECK(n["translation"] == QStringLiteral("—"));
  CHECK(n["alignment_in_span"] == QStringLiteral("—"));
  CHECK(n["training_steps"] == QStringLiteral("2000"));
}

TEST_CASE("CLI lesson list: name, title in the language, steps", "[lessons][cli]") {
  CliResult r = runCli({"lesson", "list"});
  REQUIRE(r.code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == static_cast<long>(lessons::all().size()));
  CHECK(r.out.find("alignment") != std::string::npos);
  CHECK(r.out.find("Alignment (Bahdanau)") != std::string::npos);
  r = runCli({"lesson", "list", "--lang", "zh_CN"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("对齐（Bahdanau）") != std::string::npos);
}

TEST_CASE("CLI lesson: bad input exits 2 with one line", "[lessons][cli]") {
  requireUsageError({"lesson"}, "lesson needs list or export");
  requireUsageError({"lesson", "show"}, "unknown lesson action 'show' (use list or export)");
  requireUsageError({"lesson", "export"}, "lesson export needs a lesson's name or all");
  requireUsageError({"lesson", "export", "scale"}, "--out DIR is required");
  requireUsageError({"lesson", "export", "nope", "--out", "/tmp"}, "unknown lesson 'nope' (use alignment,");
  requireUsageError({"lesson", "list", "--lang", "fr"}, "--lang must be en or zh_CN (got 'fr')");
  requireUsageError({"lesson", "list", "--out", "/tmp"}, "lesson list prints the lessons: --out does not apply");
  requireUsageError({"lesson", "export", "scale", "--out", "/no/such/folder/pack"}, "the folder");
  requireUsageError({"lesson", "list", "--d-k", "8"}, "--d-k does not apply to the lesson command");
}

TEST_CASE("CLI lesson export: the figures and a self-contained, well-formed index.html", "[lessons][cli]") {
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("pack"));
  const CliResult r = runCli({"lesson", "export", "cross", "--lang", "zh_CN", "--out", s(out)});
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  const lessons::Lesson& cross = lessons::byName(QStringLiteral("cross"));
  for (std::size_t i = 0; i < cross.steps.size(); ++i) {
    const QString base = out + QStringLiteral("/06-%1-%2").arg(i + 1, 2, 10, QLatin1Char('0')).arg(cross.steps[i].id);
    INFO(s(base));
    CHECK(!QImage(base + QStringLiteral(".png")).isNull());
    CHECK(QFileInfo(base + QStringLiteral(".svg")).size() > 1000);
  }
  QFile file(out + QStringLiteral("/index.html"));
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QByteArray html = file.readAll();
  // Well-formed (XHTML syntax), every image embedded, links only to anchors of the page.
  QXmlStreamReader xml(html);
  int images = 0, steps = 0;
  QString lang;
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement) continue;
    const QXmlStreamAttributes a = xml.attributes();
    if (xml.name() == QLatin1String("html")) lang = a.value(QStringLiteral("lang")).toString();
    if (a.value(QStringLiteral("class")) == QLatin1String("step")) ++steps;
    CHECK(xml.name() != QLatin1String("script"));
    CHECK(xml.name() != QLatin1String("link"));
    if (a.hasAttribute(QStringLiteral("src"))) {
      CHECK(a.value(QStringLiteral("src")).startsWith(QLatin1String("data:image/png;base64,")));
      ++images;
    }
    if (a.hasAttribute(QStringLiteral("href"))) CHECK(a.value(QStringLiteral("href")).startsWith(QLatin1Char('#')));
  }
  INFO(s(xml.errorString()));
  REQUIRE(!xml.hasError());
  CHECK(lang == QStringLiteral("zh-CN"));
  CHECK(steps == static_cast<int>(cross.steps.size()));
  CHECK(images == static_cast<int>(cross.steps.size()));
  CHECK(!html.contains("http:"));
  CHECK(!html.contains("https:"));
  CHECK(!html.contains("file:"));
  CHECK(!html.contains("url("));
  CHECK(html.contains("@page { size: A4 landscape"));
  // The captions with their numbers, the prompts, in Chinese.
  CHECK(html.contains("交叉注意力"));
  CHECK(html.contains("试一试"));
  CHECK(!html.contains("{n_tokens}"));
}

TEST_CASE("CLI lesson export: a step whose model is not fetched says so and the rest is written",
          "[lessons][cli]") {
  QTemporaryDir dir, empty_cache;
  // No model fetched: an empty cache and none of the variables that name a fetched model
  // (scripts/test sets them); all three restored afterwards.
  const char* const kVariables[] = {"ATTNLAB_MODEL_CACHE", "ATTNLAB_MINILM_DIR", "ATTNLAB_SMOLLM2_GGUF"};
  QByteArray saved[3];
  for (int i = 0; i < 3; ++i) saved[i] = qgetenv(kVariables[i]);
  qputenv("ATTNLAB_MODEL_CACHE", empty_cache.path().toUtf8());
  qunsetenv("ATTNLAB_MINILM_DIR");
  qunsetenv("ATTNLAB_SMOLLM2_GGUF");
  const CliResult r = runCli({"lesson", "export", "heads", "--out", s(dir.path())});
  for (int i = 0; i < 3; ++i) {
    if (saved[i].isNull()) qunsetenv(kVariables[i]);
    else qputenv(kVariables[i], saved[i]);
  }
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.find("note: lesson heads step heads-collapse: this step needs the model minilm: run "
                   "attention-lab-cli fetch-model minilm") != std::string::npos);
  CHECK(QFileInfo::exists(dir.filePath(QStringLiteral("13-02-heads-dropout.png"))));
  CHECK(!QFileInfo::exists(dir.filePath(QStringLiteral("13-01-heads-collapse.png"))));
  QFile file(dir.filePath(QStringLiteral("index.html")));
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QByteArray html = file.readAll();
  CHECK(html.count("class=\"problem\"") == 3);  // MiniLM twice, SmolLM2 once
  CHECK(html.count("data:image/png;base64,") == 1);
}

TEST_CASE("lesson quantities: every quantity computes at the extremes or says it does not apply",
          "[lessons]") {
  const std::vector<std::string> settings = GENERATE(
      std::vector<std::string>{"--text", "a"},                       // n = 1
      std::vector<std::string>{"--text", "a", "--causal"},
      std::vector<std::string>{"--text", "a b", "--source", "x"},    // cross, one key
      std::vector<std::string>{"--temperature", "0.0001"},           // one-hot limit
      std::vector<std::string>{"--heads", "1", "--d-k", "1"},
      std::vector<std::string>{"--mechanism", "additive", "--pad-to", "20"},
      std::vector<std::string>{"--mechanism", "linear", "--causal"},
      std::vector<std::string>{"--text", "a", "--pad-to", "3", "--no-pad-mask"},
      std::vector<std::string>{"--no-scale", "--d-k", "1024", "--precision", "fp16", "--softmax", "naive"},
      std::vector<std::string>{"--causal", "--window", "1", "--kv-heads", "1", "--dropout", "0.9"});
  INFO(settings.size() << " " << settings[1]);
  const options::Options o = options::parse(settings, options::kWindow);
  run::Session session;
  const std::map<QString, QString> numbers = lessons::quantities(lessons::quantityNames(), o, session);
  REQUIRE(numbers.size() == static_cast<std::size_t>(lessons::quantityNames().size()));
  for (const auto& [name, value] : numbers) {
    INFO(s(name));
    CHECK(!value.isEmpty());
    CHECK(!value.contains(QStringLiteral("nan"), Qt::CaseInsensitive));
  }
}
