#pragma once
/// \file lesson.hpp
/// Guided lessons (issue 16): data files under resources/lessons/ (one JSON file per lesson,
/// compiled into the programs as the Qt resource ":/lessons/NAME.json"), read here, shared by
/// the window's lesson panel and by `attention-lab-cli lesson list|export`.
///
/// A lesson file:
/// \code{.json}
/// { "name": "scale", "order": 2,
///   "title": {"en": "Dot product and scale", "zh_CN": "点积与缩放"},
///   "steps": [
///     { "id": "scale-variance",
///       "options": ["--no-scale", "--d-k", "64"],      // the lab's settings: the one option table
///       "view": "heads",                                 // what the step shows (see View)
///       "compare": "",                                   // view "compare": setting B's options
///       "caption": {"en": "… {var_qk} …", "zh_CN": "… {var_qk} …"},
///       "try": {"en": "Move the d_k slider …", "zh_CN": "拖动 d_k 滑块 …"} } ] }
/// \endcode
/// `options` are parsed by options::parse() as the window's command line (the render options:
/// the lab's settings and the pictures', never output or window-start options), so a lesson
/// accepts and refuses exactly what the command line does, with the same words. A step whose
/// view is "decode" is parsed as `attention-lab-cli decode` (so --cache-bug and --bug-step
/// apply). The
/// placeholder "@minilm", "@smollm2" or "@gemma3" as the value of --model names a model of the
/// manifest (options/model_manifest.hpp) fetched by `attention-lab-cli fetch-model`.
/// `{name}` in a caption is a live number (quantityNames()), computed from the settings the lab
/// shows now — a caption never types a measured number.

#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <vector>

#include "options/options.hpp"
#include "run/run.hpp"

namespace attnlab::lessons {

/// A text in both languages of the interface.
struct Text {
  QString en;
  QString zh_CN;
  /// The text in `language` ("en" or "zh_CN"); English for any other code.
  const QString& in(const QString& language) const;
};

/// What a step shows besides the heads (the window opens that panel; the lecture pack exports
/// that figure).
enum class View {
  kHeads,           ///< The heatmap of every head (the default).
  kSaturation,      ///< The softmax-saturation curves over d_k.
  kEntropy,         ///< Entropy of each query row.
  kHistogram,       ///< Histogram of the scores.
  kCompare,         ///< A − B difference map, B = `compare` options.
  kCost,            ///< The cost panel (time and memory against n).
  kDecode,          ///< KV-cache decoding step by step.
  kHeadSimilarity,  ///< The h × h head-similarity matrix.
  /// A model's head roles: the window badges the model view by the step's --head-role and opens
  /// the Analysis dock (its list of top heads); the lecture pack draws render --plot head-roles.
  kHeadRoles,
  kTraining,        ///< The training loss curves of dates-transformer with and without 1/√d_k.
  /// A model's logit lens: the window's Interventions dock; the lecture pack draws render --plot
  /// logit-lens.
  kLogitLens,
  /// Direct logit attribution: the Interventions dock; the pack draws render --plot dla.
  kDla,
};

struct Step {
  QString id;           ///< Unique within its lesson, e.g. "scale-variance".
  QStringList options;  ///< The lab's settings as command-line options (see the file comment).
  View view = View::kHeads;
  QString compare;      ///< kCompare: the options of setting B (as render --diff takes them).
  Text caption;         ///< May contain {quantity} placeholders.
  Text try_this;        ///< One prompt naming the control to move.
};

struct Lesson {
  QString name;   ///< The file's base name and the CLI's NAME ("alignment", "scale", …).
  int order = 0;  ///< 1-based position in the course.
  Text title;
  std::vector<Step> steps;
};

/// Every lesson compiled into the program (":/lessons/"), or those of the folder
/// $ATTNLAB_LESSON_DIR when it is set, in course order. Read once. Throws attnlab::Error
/// (kInvalidInput) with one line naming the file and the field when a file is invalid.
const std::vector<Lesson>& all();
/// The lesson named `name`; throws options::OptionError ("unknown lesson 'x' (use alignment,
/// …)"), translated like every option message.
const Lesson& byName(const QString& name);
/// Reads and checks one lesson file (for tests and for ATTNLAB_LESSON_DIR overrides).
Lesson load(const QString& path);

/// The step's settings (the one option table; models resolved): command kWindow, or kDecode for
/// a decode step; a compare step's `compare` is its --diff. Throws options::OptionError with the
/// command line's words when a setting is refused, and when the step needs a model that has not
/// been fetched ("this step needs the model minilm: run attention-lab-cli fetch-model minilm").
/// With resolve_model false the model stays its placeholder
/// ("--model @minilm", fetched or not: for a command line to print, not to run).
options::Options stepOptions(const Step& step, bool resolve_model = true);

/// The model a step names ("@minilm", "@smollm2"), or empty.
QString stepModel(const Step& step);
/// Where a command line names its model: "--model VALUE" or "--model=VALUE" (the one place the
/// lessons and the window scan for it).
struct ModelArgument {
  qsizetype index = 0;  ///< Of the argument holding the value.
  QString value;        ///< The folder, file or "@placeholder".
  bool joined = false;  ///< "--model=VALUE" (the value after the '=').
};
/// The last --model of args, or nullopt.
std::optional<ModelArgument> findModelArgument(const QStringList& args);
/// args with the value of --model replaced by `value` (unchanged without --model).
QStringList withModelValue(QStringList args, const QString& value);
/// The file or folder of a fetched model, absolute and clean, or empty when it is not there or
/// the name is unknown: "@NAME" → options::fetchedModelPath of the manifest's model NAME
/// ($ATTNLAB_MINILM_DIR etc. when set, else its file or folder in the cache). The one rule: the
/// window's model presets and --model NAME use it too.
QString fetchedModel(const QString& placeholder);

/// The view's name in a lesson file ("heads", "saturation", …) and back (nullopt when unknown).
QString viewName(View view);
std::optional<View> viewFromName(const QString& name);

/// The placeholders `{name}` of a text, in order of first appearance.
QStringList placeholders(const QString& text);

/// The names a caption may quote, e.g. "mean_max_weight", "var_qk".
QStringList quantityNames();
/// Live numbers: every quantity the caption of `step` quotes, computed from `settings` (the
/// lab's settings now, which the user may have changed since the step set them), formatted for
/// display ("0.94", "4.00 MiB", "37 %"; ratios as bare numbers: "4"); a head's numbers read the
/// step's own --head (head 0 without one), whichever head the window enlarges. Runs the computation on
/// the CPU reference through `session` (run/run.hpp: the run pipeline's checks; the model comes
/// from the process's model cache, so the window's model is not loaded twice): milliseconds for
/// the synthetic lab, a forward pass for a model. One thread at a time per session.
/// A quantity that does not apply to these settings (var_qk of a pretrained model,
/// decoding without the causal mask) reads "—". Throws attnlab::Error or options::OptionError
/// when the settings themselves are refused.
std::map<QString, QString> quantities(const Step& step, const options::LabSettings& settings,
                                      run::Session& session);
/// The same for an explicit list of names (tests, the lecture pack), with the decode settings
/// of a decode step.
std::map<QString, QString> quantities(const QStringList& names, const options::Options& settings,
                                      run::Session& session);
/// The caption in `language` with its placeholders replaced by `numbers`.
QString caption(const Step& step, const QString& language, const std::map<QString, QString>& numbers);

}  // namespace attnlab::lessons
