#pragma once
/// \file options.hpp
/// The one option table of attention-lab-cli and the window (attention-lab). Every option is one
/// entry: its name, kind of value, limits, help line, the commands that take it, and a setter that
/// maps the parsed value onto the settings value types (LabSettings for the computation,
/// PictureOptions for the heatmaps, the output and window choices). The command lines are read by
/// QCommandLineParser built from the table; every value then goes through the same checks
/// (validate(), the per-command rules below), so the CLI and the window accept and refuse the
/// same inputs with the same one-line messages. The window's widgets take their limits from the
/// table too (option("d-k").max …).
///
/// Adding an option: one entry in option_table_lab.cpp (the computation) or
/// option_table_output.cpp (pictures, output, the other commands) with its setter and getter; if it changes
/// the computation, a LabSettings field and its check in validate(). The help text, the window's
/// command line, the "does not apply" rules and the round-trip test follow from the entry.

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/decode.hpp"
#include "attnlab/head_roles.hpp"
#include "options/lab_settings.hpp"
#include "options/commands.hpp"
#include "options/message.hpp"
#include "views/picture_options.hpp"

namespace attnlab::options {

/// The value an option takes.
enum class Kind {
  kFlag,      ///< No value.
  kText,      ///< Any text (checked for valid UTF-8).
  kPath,      ///< A file or folder name (non-empty).
  kInt,       ///< A whole number in [min, max].
  kNumber,    ///< A finite number; > min when min_exclusive, and ≤ max.
  kChoice,    ///< One of `choices`.
  kIntOrAll,  ///< A whole number in [min, max], or "all".
  kIntList,   ///< Comma-separated whole numbers, each in [min, max].
};

/// The section of --help (and of the window's inputs) an option belongs to.
enum class Group { kInput, kMechanism, kShapes, kVariants, kModel, kBackend, kPicture, kOutput,
                   kSaturation, kCost, kSweep, kWindow, kLesson, kGenerate, kFetchModel };

/// Which source of attention an option applies to.
enum class Applies {
  kAlways,
  kSyntheticOnly,  ///< Refused with --model: the model decides it.
  kModelOnly,      ///< Refused without --model.
};

/// What to render or export (render, the window's --screenshot).
struct OutputOptions {
  QString out;                     ///< render/saturation: the file; its suffix picks the format.
  std::optional<int> width;        ///< Image width in px (unset: fits the tokens).
  std::optional<int> height;       ///< Image height in px.
  double scale = 1.0;              ///< PNG pixel ratio.
  views::MatrixValues values = views::MatrixValues::kWeights;  ///< What .npy holds.
  views::PlotKind plot = views::PlotKind::kHeatmap;              ///< What render draws.
  QString layout_json;             ///< Non-empty: write the drawn geometry there (render, window).
  bool full = false;               ///< compute: keep the matrices in JSON whatever their size.
};

/// The saturation command's Monte-Carlo settings.
struct SaturationOptions {
  std::vector<int> d_k;            ///< d_k values of the curves (empty: 1, 2, 4, … 1024).
  int keys = 16;                   ///< Keys per softmax row (the sentence's count with --text).
  int samples = 2000;              ///< Monte-Carlo rows per d_k.
  std::optional<int> mark;         ///< The d_k to mark (unset: the run's d_k).
};

/// The cost command's settings (the shapes come from LabSettings or the model).
struct CostOptions {
  std::vector<int> n;              ///< Token counts of the table (empty: 128, 256, … 8192).
  bool measure = false;            ///< Time this machine's backends at every n.
};

struct OptionSpec;

/// The sweep command's settings.
struct SweepOptions {
  /// The swept option: its entry of the table, found once when --param is parsed (sweptOption:
  /// "d_k" and "d-k" both name "d-k"); null before.
  const OptionSpec* param = nullptr;
  QStringList values;              ///< The values as given, "..." expanded (variants.hpp).
  int delay_ms = 600;              ///< Time each frame is shown.
};

/// The decode command's settings (the computation comes from LabSettings).
struct DecodeOptions {
  CacheBug cache_bug = CacheBug::kNone;  ///< --cache-bug none, skip or duplicate.
  std::optional<int> bug_step;  ///< The step the bug strikes (unset: the middle token, n / 2).
};

/// The generate command's settings, and the KV-cache policy of generate and decode --model
/// (attnlab/generate.hpp).
struct GenerateSettings {
  int max_tokens = 16;            ///< --max-tokens: new tokens at most.
  /// --sample-temperature τ: 0 = greedy; > 0 samples from softmax(logits/τ). Not --temperature,
  /// which divides the attention scores.
  double sample_temperature = 0;
  std::uint64_t seed = 0;         ///< generate --seed: the sampling draws.
  int top_k = 0;                  ///< --top-k: sample among the k most probable (0: all).
  /// --cache-window W: the cache keeps the last W tokens (generate: one; decode --model: a list,
  /// one row of the table each); empty = the full cache.
  std::vector<int> cache_windows;
  std::vector<int> sink_tokens;   ///< --sink-tokens S: the first S tokens kept too; empty = 0.
};

/// What `lesson` does: list the lessons, or export a lecture pack.
enum class LessonAction { kList, kExport };

/// The lesson command's settings: `lesson list` or `lesson export NAME|all --out DIR`.
struct LessonOptions {
  LessonAction action = LessonAction::kList;  ///< lesson list or lesson export.
  QString name;                           ///< export: a lesson's name or "all".
  QString language = QStringLiteral("en");  ///< --lang: "en" or "zh_CN".
  QString out;                            ///< export: the folder written (created when missing).
  bool html = false;  ///< export --html: `out` is one interactive page (views/html_page.hpp).
};

/// The fetch-model command's settings: `fetch-model NAME` or `fetch-model --list`.
struct FetchOptions {
  QString name;       ///< A model of the manifest: its name or an alias ("smollm2").
  bool list = false;  ///< --list: every model with its size, licence and state.
};

/// The window's own start options.
struct WindowStart {
  QString screenshot;              ///< Non-empty: render after the first result, save, exit.
  QString language;                ///< "", "en" or "zh_CN".
  bool presentation = false;       ///< Start in presentation mode.
  std::optional<int> decode_step;  ///< Open the KV-cache decoding dock at this step.
  /// Open this lesson step: "NAME[:STEP]", STEP 1-based or a step id (checked by the window's
  /// main against the lesson files, app/lessons).
  QString lesson;
  /// The role the model view badges its thumbnails by (--head-role NAME, a headRoleName; "none"
  /// or unset: none; sets LabSettings::head_roles).
  std::optional<HeadRole> head_role;
};

/// Everything a command line decides.
struct Options {
  unsigned command = 0;            ///< One Command bit.
  LabSettings lab;                 ///< The computation.
  views::PictureOptions picture;   ///< Colour scale and overview pooling.
  std::optional<int> head;         ///< --head N; unset = every head.
  OutputOptions output;
  SaturationOptions saturation;
  CostOptions cost;
  SweepOptions sweep;
  DecodeOptions decode;
  GenerateSettings generate;
  LessonOptions lesson;
  FetchOptions fetch;
  /// render --diff: the options of the second setting B, as one string ("--no-scale"); the
  /// picture is A − B (variants.hpp). Empty: no difference.
  QString diff;
  WindowStart window;
  QStringList given;               ///< Names of the options on the command line (no "--").
  bool help = false;               ///< --help / -h: print usage() and exit 0.

  bool isGiven(std::string_view name) const;
};

/// A parsed option value (the field of its kind is set).
struct Value {
  QString text;                    ///< kText, kPath, kChoice; "all" for kIntOrAll.
  long long integer = 0;           ///< kInt, kIntOrAll (unless "all").
  bool all = false;                ///< kIntOrAll: "all".
  double number = 0;               ///< kNumber.
  std::vector<int> list;           ///< kIntList.
};

/// One entry of the table.
struct OptionSpec {
  std::string_view name;           ///< Without "--", e.g. "d-k".
  Kind kind;
  std::string_view value_name;     ///< In --help, e.g. "K"; empty for flags.
  std::string_view help;           ///< One line for --help (English).
  Group group;
  unsigned commands;               ///< Command bits that accept it.
  Applies applies = Applies::kAlways;
  long long min = 0, max = 0;      ///< kInt, kIntOrAll, kIntList: inclusive; kNumber: see kind.
  bool min_exclusive = false;      ///< kNumber: the value must be > min.
  std::span<const std::string_view> choices = {};  ///< kChoice.
  /// Maps the value onto the options (flags get an empty Value). May throw OptionError.
  void (*set)(Options&, const Value&) = nullptr;
  /// The value as a command line gives it, or nullopt when it is the default (flags: "" when on).
  std::optional<QString> (*get)(const Options&) = nullptr;
};

/// Every option, in --help order.
std::span<const OptionSpec> table();
/// The entry named `name` that `command` takes (or, with command 0, the first with that name);
/// throws std::out_of_range for a name that is not in the table.
const OptionSpec& option(std::string_view name, unsigned command = 0);

/// Parses a command line. `args` excludes the program name and holds raw bytes: a value that is
/// not UTF-8 is refused with its byte offset before anything else. `program` is kWindow for the
/// window, or 0 for attention-lab-cli (whose first positional argument is the command).
/// Runs every check that needs no file: each value's limits, the per-command and per-source
/// rules, validate(). Throws OptionError with the one line to print.
Options parse(const std::vector<std::string>& args, unsigned program);

/// The arguments that give `options` back through parse() (defaults left out), for the window's
/// "copy as command line" and for tests.
QStringList toArguments(const Options& options);

/// The commands of attention-lab-cli, in --help order.
std::span<const CommandSpec> commands();

/// One section of --help (and of the man page's OPTIONS), in order.
struct GroupSpec {
  Group group;
  std::string_view title;          ///< e.g. "pretrained models (BERT family, …)".
};
std::span<const GroupSpec> groups();

/// The program's one-line name in --help and the man page's NAME: "compute and export attention
/// from the command line" (program 0) or "the Attention Lab window" (kWindow).
std::string_view programSummary(unsigned program);

/// The closing paragraph of --help: how --model and the lab's options combine.
std::string_view modelNote();

/// The exit statuses, as --help's last line says them.
std::string_view exitStatusNote();

/// The --help text of attention-lab-cli (program 0) or of the window (kWindow), from the table;
/// with a command (`attention-lab-cli generate --help`), its synopsis and its options alone.
QString usage(unsigned program, unsigned command = 0);

/// The command's name as the command line spells it ("render", "sweep", …; "window").
QString commandName(unsigned command);

/// The file suffixes each command writes (its CommandSpec::formats: "png", "svg", …; sweep:
/// "gif", "mp4"; the window's --screenshot: "png").
QStringList outputFormats(unsigned command);

/// Checks an output file name (render, saturation, --screenshot, --layout-json): a known suffix
/// from `formats` (empty: any) and an existing folder. `name` is the option ("--out").
void checkOutputPath(const QString& path, const QString& name, const QStringList& formats);

/// Largest image edge in device pixels: --width × --scale and --height × --scale.
inline constexpr int kMaxImagePixels = views::kMaxImagePixels;
/// Checks an image size against kMaxImagePixels with the one message both the CLI and the
/// window's export dialog give; throws OptionError.
void checkImageSize(int width, int height, double scale);

}  // namespace attnlab::options
