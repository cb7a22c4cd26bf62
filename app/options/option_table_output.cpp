/// \file option_table_output.cpp
/// The option table, part 2: pictures, output, saturation, cost, sweep, the window.

#include <QDir>
#include <QFileInfo>
#include <array>
#include <limits>

#include "options/option_table.hpp"
#include "options/variants.hpp"

namespace attnlab::options::detail {
namespace {

constexpr std::array<std::string_view, 4> kColorScales{"auto", "linear", "log", "relative"};
constexpr std::array<std::string_view, 2> kPools{"max", "mean"};
constexpr std::array<std::string_view, 2> kValues{"weights", "scores"};
constexpr std::array<std::string_view, 2> kLanguages{"en", "zh_CN"};
/// --plot's choices: the names of the plot kinds' table (views::kPlotKinds).
constexpr auto kPlots = [] {
  std::array<std::string_view, std::size(views::kPlotKinds)> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = views::kPlotKinds[i].name;
  return names;
}();
/// --plot's help line, written from the same table at compile time: "what render draws: heatmap
/// | entropy (of each query row) | …".
constexpr std::string_view kPlotHelpLead = "what render draws: ";
constexpr std::size_t plotHelpSize() {
  std::size_t n = kPlotHelpLead.size();
  for (std::size_t i = 0; i < std::size(views::kPlotKinds); ++i) {
    const views::PlotKindName& row = views::kPlotKinds[i];
    n += (i > 0 ? 3 : 0) + row.name.size() + (row.help.empty() ? 0 : row.help.size() + 3);
  }
  return n;
}
constexpr auto kPlotHelpChars = [] {
  std::array<char, plotHelpSize()> text{};
  std::size_t at = 0;
  const auto put = [&](std::string_view part) {
    for (const char c : part) text[at++] = c;
  };
  put(kPlotHelpLead);
  for (std::size_t i = 0; i < std::size(views::kPlotKinds); ++i) {
    const views::PlotKindName& row = views::kPlotKinds[i];
    if (i > 0) put(" | ");
    put(row.name);
    if (!row.help.empty()) {
      put(" (");
      put(row.help);
      put(")");
    }
  }
  return text;
}();
constexpr std::string_view kPlotHelp(kPlotHelpChars.data(), kPlotHelpChars.size());
constexpr std::array<std::string_view, 7> kHeadRoleChoices{"none", "previous-token", "duplicate-token", "induction", "sink", "local", "broad"};
constexpr long long kMaxCostTokens = 1LL << 20;
constexpr long long kMaxSampleSeed = 1LL << 53;  // exact in a double, as the lab's --seed

/// A list option's value as the command line gives it ("16,32"), nullopt when empty.
std::optional<QString> intList(const std::vector<int>& values) {
  QStringList items;
  for (int n : values) items << num(static_cast<long long>(n));
  return items.isEmpty() ? std::nullopt : std::optional<QString>(items.join(QLatin1Char(',')));
}

const LabSettings kDefaults;

// clang-format off
/// Order matters twice: --help lists options in this order, and setters run in it
/// (--mechanism before --no-scale).
const OptionSpec kEntries[] = {
  // picture
  {"head", Kind::kIntOrAll, "N|all", "one head, or every head in a grid (default all)",
   Group::kPicture, kPictureCommands | kGenerate, Applies::kAlways, 0, 255, false, {},
   [](Options& o, const Value& v) { o.head = v.all ? std::nullopt : std::optional<int>(static_cast<int>(v.integer)); },
   [](const Options& o) { return integer(o.head); }},
  {"color-scale", Kind::kChoice, "S", "auto | linear | log | relative (default auto: log beyond 32 tokens)",
   Group::kPicture, kPictureCommands, Applies::kAlways, 0, 0, false, kColorScales,
   [](Options& o, const Value& v) { o.picture.color_scale = static_cast<views::ColorScale>(indexOf(kColorScales, v.text)); },
   [](const Options& o) { return o.picture.color_scale == views::ColorScale::kAuto ? std::nullopt
                                 : std::optional<QString>(q(kColorScales[static_cast<std::size_t>(o.picture.color_scale)])); }},
  {"pool", Kind::kChoice, "P", "max | mean: how an overview combines blocks of cells (default max)",
   Group::kPicture, kPictureCommands, Applies::kAlways, 0, 0, false, kPools,
   [](Options& o, const Value& v) { o.picture.pool = static_cast<views::Pool>(indexOf(kPools, v.text)); },
   [](const Options& o) { return o.picture.pool == views::Pool::kMax ? std::nullopt
                                 : std::optional<QString>(q(kPools[static_cast<std::size_t>(o.picture.pool)])); }},
  {"diff", Kind::kText, "OPTIONS", "draw A - B: OPTIONS are the second setting's, e.g. \"--no-scale\", \"--head 3\", \"--no-causal\"",
   Group::kPicture, kRender | kWindow, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.diff = v.text; },
   [](const Options& o) { return text(o.diff); }},
  // output
  {"out", Kind::kPath, "FILE", "output file; its suffix picks the format",
   Group::kOutput, kImageCommands, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.output.out = v.text; },
   [](const Options& o) { return text(o.output.out); }},
  {"width", Kind::kInt, "PX", "image width (default: fits the tokens)",
   Group::kOutput, kImageCommands, Applies::kAlways, 16, kMaxImagePixels, false, {},
   [](Options& o, const Value& v) { o.output.width = static_cast<int>(v.integer); },
   [](const Options& o) { return integer(o.output.width); }},
  {"height", Kind::kInt, "PX", "image height (default: fits the tokens)",
   Group::kOutput, kImageCommands, Applies::kAlways, 16, kMaxImagePixels, false, {},
   [](Options& o, const Value& v) { o.output.height = static_cast<int>(v.integer); },
   [](const Options& o) { return integer(o.output.height); }},
  {"scale", Kind::kNumber, "F", "PNG pixel ratio (default 1)",
   Group::kOutput, kImageCommands, Applies::kAlways, 0, 8, true, {},
   [](Options& o, const Value& v) { o.output.scale = v.number; },
   [](const Options& o) { return o.output.scale == 1.0 ? std::nullopt : std::optional<QString>(num(o.output.scale)); }},
  {"values", Kind::kChoice, "V", "what .npy holds: weights | scores (default weights)",
   Group::kOutput, kRender, Applies::kAlways, 0, 0, false, kValues,
   [](Options& o, const Value& v) { o.output.values = static_cast<views::MatrixValues>(indexOf(kValues, v.text)); },
   [](const Options& o) { return o.output.values == views::MatrixValues::kWeights ? std::nullopt
                                 : std::optional<QString>(q(kValues[static_cast<std::size_t>(o.output.values)])); }},
  {"plot", Kind::kChoice, "P", kPlotHelp,
   Group::kOutput, kRender, Applies::kAlways, 0, 0, false, kPlots,
   [](Options& o, const Value& v) { o.output.plot = *views::parsePlotKind(v.text.toStdString()); },
   [](const Options& o) { return o.output.plot == views::PlotKind::kHeatmap ? std::nullopt
                                 : std::optional<QString>(q(views::plotName(o.output.plot))); }},
  {"layout-json", Kind::kPath, "FILE", "also write the geometry drawn: cell sizes, tick label rectangles",
   Group::kOutput, kRender | kWindow | kDecode | kGenerate, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.output.layout_json = v.text; },
   [](const Options& o) { return text(o.output.layout_json); }},
  {"full", Kind::kFlag, "", "keep every matrix in the JSON, however large",
   Group::kOutput, kCompute, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value&) { o.output.full = true; },
   [](const Options& o) { return flag(o.output.full); }},
  // saturation
  {"keys", Kind::kInt, "N", "keys per softmax row (default 16; the sentence's count with --text)",
   Group::kSaturation, kSaturation, Applies::kAlways, 1, 65536, false, {},
   [](Options& o, const Value& v) { o.saturation.keys = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.saturation.keys, 16); }},
  {"samples", Kind::kInt, "N", "Monte-Carlo rows per d_k (default 2000)",
   Group::kSaturation, kSaturation, Applies::kAlways, 2, 1000000, false, {},
   [](Options& o, const Value& v) { o.saturation.samples = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.saturation.samples, 2000); }},
  {"mark", Kind::kInt, "K", "the d_k to mark (default: d_model / heads, as render uses)",
   Group::kSaturation, kSaturation, Applies::kAlways, 1, 1024, false, {},
   [](Options& o, const Value& v) { o.saturation.mark = static_cast<int>(v.integer); },
   [](const Options& o) { return integer(o.saturation.mark); }},
  // cost
  {"n", Kind::kIntList, "LIST", "token counts, e.g. 128,1024,8192 (default 128,256,...,8192)",
   Group::kCost, kCost, Applies::kAlways, 1, kMaxCostTokens, false, {},
   [](Options& o, const Value& v) { o.cost.n = v.list; },
   [](const Options& o) {
     QStringList items;
     for (int n : o.cost.n) items << num(static_cast<long long>(n));
     return items.isEmpty() ? std::nullopt : std::optional<QString>(items.join(QLatin1Char(',')));
   }},
  {"measure", Kind::kFlag, "", "also time this machine's backends (CPU reference, OpenCL tiled and fused) at every n",
   Group::kCost, kCost, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value&) { o.cost.measure = true; },
   [](const Options& o) { return flag(o.cost.measure); }},
  // sweep
  {"param", Kind::kText, "NAME", "the option to sweep: d_k, temperature, layer, head, seed, ... (a number or choice option of render)",
   Group::kSweep, kSweep, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.sweep.param = &sweptOption(v.text); },
   [](const Options& o) {
     return o.sweep.param ? std::optional<QString>(QString::fromUtf8(o.sweep.param->name.data(),
                                                                     static_cast<qsizetype>(o.sweep.param->name.size())))
                          : std::nullopt;
   }},
  {"values", Kind::kText, "LIST", "one frame per value: 1,2,4,...,1024 ('...' continues the pattern; default for d_k, temperature, layer, head)",
   Group::kSweep, kSweep, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.sweep.values = v.text.split(QLatin1Char(','), Qt::SkipEmptyParts); },
   [](const Options& o) { return o.sweep.values.isEmpty() ? std::nullopt : std::optional<QString>(o.sweep.values.join(QLatin1Char(','))); }},
  {"delay", Kind::kInt, "MS", "how long each frame is shown, ms (default 600)",
   Group::kSweep, kSweep, Applies::kAlways, 20, 60000, false, {},
   [](Options& o, const Value& v) { o.sweep.delay_ms = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.sweep.delay_ms, 600); }},
  // generate (and decode --model: the cache policy)
  {"max-tokens", Kind::kInt, "N", "generate: new tokens at most (default 16; it stops earlier at an end-of-sequence token or the context)",
   Group::kGenerate, kGenerate, Applies::kAlways, 1, 4096, false, {},
   [](Options& o, const Value& v) { o.generate.max_tokens = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.generate.max_tokens, 16); }},
  {"sample-temperature", Kind::kNumber, "T", "generate: sample from softmax(logits / T) instead of the most probable token (default 0: greedy); not --temperature, which divides attention scores",
   Group::kGenerate, kGenerate, Applies::kAlways, 0, 100, false, {},
   [](Options& o, const Value& v) { o.generate.sample_temperature = v.number; },
   [](const Options& o) { return o.generate.sample_temperature == 0 ? std::nullopt : std::optional<QString>(num(o.generate.sample_temperature)); }},
  {"seed", Kind::kInt, "S", "generate: seed of the sampling draws (default 0)",
   Group::kGenerate, kGenerate, Applies::kAlways, 0, kMaxSampleSeed, false, {},
   [](Options& o, const Value& v) { o.generate.seed = static_cast<std::uint64_t>(v.integer); },
   [](const Options& o) { return integerIf(static_cast<long long>(o.generate.seed), 0); }},
  {"top-k", Kind::kInt, "K", "generate: sample among the K most probable tokens only (default 0: all)",
   Group::kGenerate, kGenerate, Applies::kAlways, 0, 1 << 20, false, {},
   [](Options& o, const Value& v) { o.generate.top_k = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.generate.top_k, 0); }},
  {"cache-window", Kind::kIntList, "W", "keep only the last W tokens in the KV cache (StreamingLLM's window; decode --model: a list, one row each; default: every token)",
   Group::kGenerate, kGenerate | kDecode, Applies::kModelOnly, 1, 1 << 20, false, {},
   [](Options& o, const Value& v) { o.generate.cache_windows = v.list; },
   [](const Options& o) { return intList(o.generate.cache_windows); }},
  {"sink-tokens", Kind::kIntList, "S", "with --cache-window: also keep the first S tokens, the attention sinks (Xiao et al. 2023; decode --model: a list)",
   Group::kGenerate, kGenerate | kDecode, Applies::kModelOnly, 0, 1 << 20, false, {},
   [](Options& o, const Value& v) { o.generate.sink_tokens = v.list; },
   [](const Options& o) { return intList(o.generate.sink_tokens); }},
  // the window
  {"screenshot", Kind::kPath, "FILE.png", "render the window after the first result, save it, exit",
   Group::kWindow, kWindow, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.window.screenshot = v.text; },
   [](const Options& o) { return text(o.window.screenshot); }},
  {"lang", Kind::kChoice, "L", "interface language (render, generate: the words of an .html page): en | zh_CN (default: the system's; en for a page)",
   Group::kWindow, kWindow | kRender | kGenerate, Applies::kAlways, 0, 0, false, kLanguages,
   [](Options& o, const Value& v) { o.window.language = v.text; },
   [](const Options& o) { return text(o.window.language); }},
  {"lang", Kind::kChoice, "L", "lesson: the language of the titles and captions: en | zh_CN (default en)",
   Group::kLesson, kLesson, Applies::kAlways, 0, 0, false, kLanguages,
   [](Options& o, const Value& v) { o.lesson.language = v.text; },
   [](const Options& o) { return text(o.lesson.language, QStringLiteral("en")); }},
  {"out", Kind::kPath, "DIR", "lesson export: the folder to write (created when missing); with --html the page FILE.html",
   Group::kLesson, kLesson, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lesson.out = v.text; },
   [](const Options& o) { return text(o.lesson.out); }},
  {"html", Kind::kFlag, "", "lesson export: one self-contained interactive page (--out FILE.html) instead of the folder",
   Group::kLesson, kLesson, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value&) { o.lesson.html = true; },
   [](const Options& o) { return flag(o.lesson.html); }},
  {"list", Kind::kFlag, "", "fetch-model: list the models of the manifest (name, size, licence, and the path when fetched) instead of fetching one",
   Group::kFetchModel, kFetchModel, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value&) { o.fetch.list = true; },
   [](const Options& o) { return flag(o.fetch.list); }},
  {"head-role", Kind::kChoice, "ROLE", "model view: badge every thumbnail with its head's score for ROLE (none | previous-token | duplicate-token | induction | sink | local | broad)",
   Group::kWindow, kWindow, Applies::kModelOnly, 0, 0, false, kHeadRoleChoices,
   [](Options& o, const Value& v) {
     o.window.head_role = parseHeadRole(v.text.toStdString());  // "none": nullopt
     o.lab.head_roles = o.window.head_role.has_value();
   },
   [](const Options& o) { return o.window.head_role ? std::optional<QString>(q(headRoleName(*o.window.head_role)))
                                                    : std::nullopt; }},
  {"presentation", Kind::kFlag, "", "start in presentation mode (full screen, large labels)",
   Group::kWindow, kWindow, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value&) { o.window.presentation = true; },
   [](const Options& o) { return flag(o.window.presentation); }},
  {"decode-step", Kind::kInt, "T", "open View > KV-cache decoding at step T: rows 0..T shown (clamped to the last token)",
   Group::kWindow, kWindow, Applies::kAlways, 0, kMaxTokens - 1, false, {},
   [](Options& o, const Value& v) { o.window.decode_step = static_cast<int>(v.integer); },
   [](const Options& o) { return integer(o.window.decode_step); }},
  {"lesson", Kind::kText, "NAME[:STEP]", "open a guided lesson at step STEP (1-based or a step id; default 1), e.g. saturation:2",
   Group::kWindow, kWindow, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.window.lesson = v.text; },
   [](const Options& o) { return text(o.window.lesson); }},
};
// clang-format on

}  // namespace

std::span<const OptionSpec> outputOptions() { return kEntries; }

}  // namespace attnlab::options::detail
