#pragma once
/// \file run.hpp
/// The one run pipeline of Attention Lab: the window's worker, its Compare, the CLI's commands
/// (compute, render, --diff, --rollout, sweep), the sweep export and the lessons' live numbers all
/// compute attention through Session::run, which checks and runs in one fixed order:
///
///   1. validate the settings (options::validate, through toSpec for the synthetic lab) — nothing
///      is loaded for settings that are refused;
///   2. load the model (a pretrained model: once per path for the whole process, ModelCache);
///   3. check the text against the model (options::checkLayer, options::checkModelText: the
///      model's own tokenizer, its context length, kMaxTokens, the memory budget) or the synthetic
///      lab's tokens (options::checkTokens);
///   4. run (the synthetic model or the forward pass), then the display filter (special tokens
///      hidden), the attention rollout and the head roles (a pass of their own, kept per model).
///
/// Every refusal is an options::OptionError or an attnlab::Error with the words the CLI prints,
/// whoever asked. Qt Core and the engine only: no pictures, no widgets.

#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/head_roles.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/synthetic.hpp"
#include "attnlab/token_display.hpp"
#include "attnlab/translator.hpp"
#include "options/lab_settings.hpp"
#include "options/message.hpp"

namespace attnlab::run {

/// A loaded pretrained model, as the pictures describe it.
struct ModelInfo {
  QString dir;         ///< The folder or .gguf file, as the settings name it.
  QString name;        ///< The model's name, e.g. "all-MiniLM-L6-v2".
  ModelConfig config;  ///< Layers, heads, d_model, architecture (mask, pairs).
  double load_ms = 0;  ///< Time PretrainedModel::load took, ms.
};

/// A loaded trained translator (issue 23), as the pictures describe it.
struct TranslatorInfo {
  QString dir;              ///< The folder, absolute.
  QString name;             ///< "dates-additive".
  TranslatorConfig config;  ///< Architecture, shapes, the training's accuracy.
  double load_ms = 0;       ///< Time Translator::load took, ms.
};

/// What one run computed, and what every caller draws or writes from it. Immutable once
/// returned (callers share it as std::shared_ptr<const Run>).
///
/// Synthetic lab: one attention result, `run.attention` [h, n_q, n_k]. Pretrained model: one
/// result per captured layer (`layers()`, their numbers in `layerIndices()`), rows and columns
/// both the model's tokens after the display filter (special tokens left out when
/// settings.hide_special; weights are not renormalised then). `attention(entry)` reads either.
struct Run {
  options::LabSettings settings;  ///< What was asked for.
  /// The resolved spec: the synthetic lab's (validated), or for a model the mechanism, mask, h,
  /// d_model, d_k and temperature of its forward pass.
  AttentionSpec spec;
  /// Synthetic: tokens, scores, weights [h, n_q, n_k], statistics, outputs. Model: the shown
  /// tokens only (query tokens = key tokens), each Token::text the model's own label
  /// (Encoding::labels, "\xE6\x88" for part of a character: what files write as query_token),
  /// and compute_ms.
  LabRun run;
  /// The rows' labels as pictures, tooltips and the next-token line show them: run.query_tokens
  /// as text, for a model the display labels of token_display ("⋯我", attnlab/token_display.hpp).
  QStringList query_tokens;
  QStringList key_tokens;  ///< The columns' labels, as query_tokens.
  /// A model's shown tokens as displayed: label and the pieces of cut UTF-8 characters each
  /// holds (for tooltips and files); empty in the synthetic lab.
  std::vector<TokenDisplay> token_display;
  std::shared_ptr<const ModelInfo> model;     ///< The model (null in the synthetic lab).
  /// A trained translator's run (settings.translator): the model, the translation with every
  /// attention, and the shown attention (settings.translator_attention) per layer — additive
  /// [1, T, n_s]; the Transformer's cross [h, T, n_s], encoder self [h, n_s, n_s] or decoder
  /// self [h, T, T]. query_tokens / key_tokens label them (outputs y_i, "</s>" last; source
  /// characters; decoder inputs "<s>", y_1 …). model and model_run are null then.
  std::shared_ptr<const TranslatorInfo> translator;
  std::shared_ptr<const Translation> translation;
  std::vector<AttentionResult> translator_layers;
  std::vector<int> translator_layer_indices;
  std::shared_ptr<const ModelRun> model_run;  ///< The forward pass over every token (model only).
  std::vector<AttentionResult> filtered;  ///< model_run's layers without the hidden tokens; empty
                                          ///< when nothing is hidden.
  bool special_hidden = false;            ///< Special tokens were left out of the pictures.
  /// settings.rollout with a model: the attention rollout (Abnar & Zuidema 2020) of layers
  /// 0 … rollout_last as a one-head result [1, n, n] over the shown tokens; null otherwise.
  std::shared_ptr<const AttentionResult> rollout;
  int rollout_last = 0;
  /// settings.head_roles with a model: every head's role scores (attnlab/head_roles.hpp), from
  /// their own pass over the repeated random sequence, all layers and heads whatever the layer
  /// shown; null otherwise. Shared with the session, which keeps them while model and backend stay.
  std::shared_ptr<const HeadRoles> head_roles;
  double model_ms = 0;  ///< Time spent drawing new weights or loading the model (0 when reused).
  /// A pooled model view (RunHooks::allow_overview, when every layer in full would pass the
  /// memory budget): every layer's weights pooled over overview_block × overview_block token
  /// blocks while the pass ran (PooledAttention, attnlab/overview.hpp), in layer order
  /// (overview_layers: 0 … L − 1). layers() then holds the last layer alone, in full, for the
  /// panels that read one layer; every token is shown (nothing hidden). Empty otherwise.
  std::vector<PooledAttention> overviews;
  std::vector<int> overview_layers;
  int overview_block = 0;  ///< b of overviews (0 when there are none).
  /// With overviews: the refusal the full run got ("this run would keep 30.7 GB of attention …"),
  /// what anything that needs every layer's weights (JSON, CSV, NPY) says instead.
  std::optional<options::Message> full_refusal;

  /// True for a pooled model view (overviews not empty).
  bool pooled() const { return !overviews.empty(); }

  /// Number of attention results: 1 for the synthetic lab, the captured layers for a model.
  int entries() const { return model || translator ? static_cast<int>(layers().size()) : 1; }
  /// Attention result `entry` (0 ≤ entry < entries()), shown tokens only.
  const AttentionResult& attention(int entry = 0) const;
  /// A model's shown layers, in layer order (empty in the synthetic lab).
  const std::vector<AttentionResult>& layers() const;
  /// The model layer number of each entry of layers() (empty in the synthetic lab).
  const std::vector<int>& layerIndices() const;
  /// A model's display labels of the shown tokens, UTF-8 (token_display's; empty in the synthetic
  /// lab): what the files write as query_label and key_label beside the raw tokens.
  std::vector<std::string> displayLabels() const;
  /// Why the CPU computed what --backend opencl asked of OpenCL (empty otherwise, and always
  /// empty for "auto", which chooses quietly): the CLI prints it as a note.
  std::string fallbackNote() const;
};

/// A model folder or file that did not load: the reader's Error (its code and words, which the
/// CLI maps to its exit status) or kInternal "not enough memory to load this model". The session
/// keeps the model it had, so the window keeps showing the last good one.
class LoadFailure : public Error {
 public:
  /// The reader's error, its words verbatim.
  explicit LoadFailure(const Error& reader);
  /// A failure in translatable words.
  LoadFailure(ErrorCode code, options::Message message);
  /// The words the window shows (translated where they are the app's own).
  const options::Message& message() const { return message_; }

 private:
  options::Message message_;
};

/// What a caller hears while a run works.
struct RunHooks {
  /// Called before a model is loaded from `dir` (loading takes a fraction of a second to seconds).
  std::function<void(const QString& dir)> loading;
  /// The forward pass's progress (ModelRunOptions::progress): `done` of `total` layers; returning
  /// false cancels the pass (Error kCancelled).
  std::function<bool(int done, int total)> progress;
  /// What a model's forward pass will hold, said before it starts (ModelRunOptions::
  /// memory_report); empty: not said.
  std::function<void(const MemoryNeeds&)> memory;
  /// The caller draws a model view of every layer from pooled overviews when the full run would
  /// pass the memory budget (the window; render's pictures of every layer): the session then runs
  /// the last layer in full and every layer pooled at b = max(2, ⌈n/256⌉) tokens (Run::overviews)
  /// instead of refusing, as long as that fits the budget. Off: such a run is refused.
  bool allow_overview = false;
};

/// Pretrained models shared by every session of the process: one copy per path, however many
/// windows, workers and lessons read it. Thread-safe; a model is freed when no session holds it.
class ModelCache {
 public:
  /// The process's cache.
  static ModelCache& instance();
  /// The model at `dir`, loaded when no session holds it (`loaded` set true then). Throws what
  /// PretrainedModel::load throws.
  std::shared_ptr<const PretrainedModel> get(const QString& dir, bool* loaded = nullptr);

 private:
  std::mutex mutex_;
  std::map<QString, std::weak_ptr<const PretrainedModel>> models_;
};

/// One caller's run state: its backend (kept while the backend choice and device stay), the
/// synthetic weights (kept while the shapes and seed stay), the model it reads (from ModelCache)
/// and its last forward pass (reused when only the display — hidden special tokens, rollout —
/// changes). Not thread-safe: one thread uses a session at a time.
class Session {
 public:
  /// auto_build: how "auto" builds its OpenCL programs (the window: in the background, so the
  /// first picture never waits on the compiler; the CLI: waiting). An explicit "opencl" waits.
  explicit Session(BuildMode auto_build = BuildMode::kWait);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Runs settings in the order of the file comment. Throws options::OptionError (a refused
  /// setting or text, in the CLI's words), LoadFailure (the model did not load), Error (the
  /// engine's: kCancelled when hooks.progress said stop, kInvalidInput for texts the model's
  /// tokenizer refuses) and std::bad_alloc.
  /// The Run is the caller's: the session keeps only the forward pass it shares.
  std::shared_ptr<Run> run(const options::LabSettings& settings, const RunHooks& hooks = {});

  /// The model of `dir` (settings.model_dir), loading it when needed (hooks.loading first).
  /// Throws LoadFailure.
  std::shared_ptr<const ModelInfo> model(const QString& dir, const RunHooks& hooks = {});
  /// The loaded model of the last model() or run() (null before one).
  const PretrainedModel* pretrained() const { return pretrained_.get(); }
  /// What model() last loaded (null before one).
  const std::shared_ptr<const ModelInfo>& loaded() const { return info_; }
  /// The backend for settings' choice and device (created when they change).
  Backend& backend(const options::LabSettings& settings);
  /// Forgets the backend's kept OpenCL failures (Backend::retry): its next run tries again.
  void retryBackend();
  /// The synthetic model of spec and seed (new weights only when SyntheticModel::sameWeights
  /// says they differ). `drawn_ms` receives the time taken to draw them (0 when kept).
  const SyntheticModel& synthetic(const AttentionSpec& spec, std::uint64_t seed,
                                  double* drawn_ms = nullptr);

 private:
  std::shared_ptr<Run> runSynthetic(const options::LabSettings& settings);
  std::shared_ptr<Run> runModel(const options::LabSettings& settings, const RunHooks& hooks);
  std::shared_ptr<Run> runTranslator(const options::LabSettings& settings, const RunHooks& hooks);

  BuildMode auto_build_;
  std::unique_ptr<Backend> backend_;
  std::optional<std::pair<options::BackendKind, int>> backend_key_;
  std::unique_ptr<SyntheticModel> synthetic_;
  std::shared_ptr<const PretrainedModel> pretrained_;
  std::shared_ptr<const ModelInfo> info_;
  std::shared_ptr<const Translator> translator_;  ///< The translator of the last translator run.
  std::shared_ptr<const TranslatorInfo> translator_info_;
  std::shared_ptr<const ModelRun> last_pass_;  ///< The last forward pass, with its settings:
  options::LabSettings last_pass_settings_;    ///< reused when only the display changes.
  std::optional<options::Message> last_pass_refusal_;  ///< Run::full_refusal of a pooled pass.
  /// The head roles of the model and backend they were scored with (they do not read the text).
  std::shared_ptr<const HeadRoles> head_roles_;
  std::optional<std::tuple<QString, options::BackendKind, int>> head_roles_key_;
};

/// Fills what a Run shows from a model's pass over its tokens (r.settings and r.model set): the
/// pass, the display filter (special tokens out when settings.hide_special), the tokens' labels
/// and the spec (mechanism from the pass, the model's mask, heads, d_model, d_k, the settings'
/// temperature). Session::run's step 4 for a model, and the window's generation (a pass built
/// from grownAttention) — one path for both. Throws Error(kInvalidInput) as specialTokenFilter.
void showPass(Run& r, std::shared_ptr<const ModelRun> pass, const ModelConfig& config);

/// The keep flags of the "hide special tokens" filter for a model's encoding: false for each
/// special token ([CLS], [SEP], <|endoftext|> …), true otherwise; all true when `hide` is false.
/// Throws Error(kInvalidInput) when hiding would leave no token.
std::vector<bool> specialTokenFilter(const Encoding& encoding, bool hide);

/// A display filter: result restricted to the tokens with keep[i] true (rows and columns of a
/// self-attention result, in order; statistics rows likewise). Weights are NOT renormalised, so
/// rows may sum to less than 1 — callers say so on screen. keep must have n_q == n_k entries.
/// Throws Error(kInvalidArgument) for a non-square result, a wrong-sized keep or keeping nothing.
AttentionResult keepTokens(const AttentionResult& result, const std::vector<bool>& keep);

/// An attention rollout R [n, n] (attnlab/rollout.hpp) as a one-head result for the heatmaps
/// (weights = scores = R; the model's mask: a causal model's rollout is lower-triangular).
AttentionResult rolloutResult(const Matrix& rollout, Mask mask);

}  // namespace attnlab::run
