#pragma once
/// \file run.hpp
/// The one run library of Attention Lab: every mode — attention, decode, score, generate, cost,
/// saturation, sweeps and the lessons' experiments — is a typed request answered by a typed
/// result (app/results), checked in one place with one set of refusal words, computed from the
/// models of one process-wide cache (model_cache.hpp). The window (off its GUI thread), the CLI,
/// the lessons and the exports all call it; none of them tokenizes, loads a model or computes
/// attention itself.
///
/// Every mode checks and runs in one fixed order:
///
///   1. validate the settings (options::validate, through toSpec for the synthetic lab, and the
///      mode's own rule, checks.hpp) — nothing is loaded for settings that are refused;
///   2. load the model (a pretrained model, a translator or the synthetic weights: once per
///      path or setting for the whole process, ModelCache);
///   3. check the text against the model (run::checkLayer, run::checkModelTokens: the model's own
///      tokenizer, its context length, kMaxTokens, the memory budget) or the synthetic lab's
///      tokens (run::checkTokens);
///   4. run, then what the result shows (special tokens hidden, the rollout, the head roles, the
///      grown matrix of a generation).
///
/// Every refusal is an options::OptionError or an attnlab::Error with the words the CLI prints,
/// whoever asked. Qt Core and the engine only: no pictures, no widgets.

#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/decode.hpp"
#include "attnlab/error.hpp"
#include "attnlab/generate.hpp"
#include "attnlab/head_roles.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/synthetic.hpp"
#include "attnlab/translator.hpp"
#include "options/lab_settings.hpp"
#include "options/message.hpp"
#include "options/options.hpp"
#include "options/variants.hpp"
#include "results/attention.hpp"
#include "results/cost.hpp"
#include "results/decode.hpp"
#include "results/generation.hpp"
#include "results/saturation.hpp"
#include "results/score.hpp"
#include "run/checks.hpp"
#include "run/model_cache.hpp"

namespace attnlab::run {

using results::ModelInfo;
using results::Run;
using results::TranslatorInfo;

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
  /// Called before a model is loaded from `dir` (loading reads its header: a fraction of a second).
  std::function<void(const QString& dir)> loading;
  /// The first touch of a newly loaded model's mapped weights (PretrainedModel::touchWeights):
  /// `done` of `total` bytes read, between 64 MB chunks; returning false cancels (OptionError
  /// "reading the weights was cancelled", the model left unloaded). Empty: not touched here, the
  /// first pass reads the pages as it needs them.
  std::function<bool(long long done, long long total)> reading;
  /// Progress of the long part of a mode: a forward pass's layers (ModelRunOptions::progress),
  /// a generation's tokens (Session::generate: `done` of --max-tokens, then total of total when it
  /// stops), a scoring's tokens over every cache policy (Session::score); returning false cancels
  /// (Error kCancelled; a generation stops as "cancelled").
  std::function<bool(int done, int total)> progress;
  /// What a model's forward pass will hold, said before it starts (ModelRunOptions::
  /// memory_report); empty: not said.
  std::function<void(const MemoryNeeds&)> memory;
  /// The caller draws a model view of every layer from pooled overviews when the full run would
  /// pass the memory budget (the window; render's pictures of every layer): the session then runs
  /// the last layer in full and every layer pooled at b = max(2, ⌈n/256⌉) tokens (Run::overview)
  /// instead of refusing, as long as that fits the budget. Off: such a run is refused.
  bool allow_overview = false;
};

/// The decode mode: the synthetic lab's text decoded token by token with a KV cache.
struct DecodeRequest {
  options::LabSettings lab;              ///< The text and the lab's settings (causal forced).
  CacheBug bug = CacheBug::kNone;        ///< --cache-bug: the seeds' pitfall 4, once.
  std::optional<int> bug_step;           ///< --bug-step (unset: the middle token, n / 2).
};

/// The decode mode's checks, all of them and nothing more (what Session::decode does first):
/// validate, checkDecode, the text's tokens (checkTokens) and the bug's step ("--bug-step 11 is
/// past the text's last token (10)"). Cheap, so the window refuses inline on its GUI thread before
/// decoding elsewhere. Returns the text's token count. Throws OptionError.
int checkDecodeRequest(const DecodeRequest& request);

/// The score mode (`decode --model`): a real model reads the text through its KV cache under
/// the full cache and every window × sink count.
struct ScoreRequest {
  options::LabSettings lab;        ///< The model and the text.
  std::vector<int> cache_windows;  ///< --cache-window: one policy row each (empty: none).
  std::vector<int> sink_tokens;    ///< --sink-tokens, with every window (empty: 0).
};

/// The generate mode: a real model generates after the text with its KV cache.
struct GenerateRequest {
  options::LabSettings lab;            ///< The model, the prompt, the layer kept, the scaling.
  options::GenerateSettings generate;  ///< Sampling and the cache policy (first window/sinks).
  bool top_k_given = false;  ///< --top-k was written (the window: its box is not 0).
  bool seed_given = false;   ///< --seed was written (the window: its box is not 0).
  std::optional<int> head;   ///< --head: checked against the model's heads with one --layer.
};
/// Hears a generation after each of its steps (the window draws the grown matrix); returning
/// false stops it after that step.
using GenerateStep = std::function<bool(const std::shared_ptr<const results::Generated>&)>;

/// One caller's run state: its backend (kept while the backend choice and device stay), the
/// synthetic weights and the model it reads (from ModelCache), its last forward pass (reused when
/// only the display — hidden special tokens, rollout — changes) and the head roles of its model.
/// Not thread-safe: one thread uses a session at a time (the window's worker, a pool task, the
/// CLI's command).
class Session {
 public:
  /// auto_build: how "auto" builds its OpenCL programs (the window: in the background, so the
  /// first picture never waits on the compiler; the CLI: waiting). An explicit "opencl" waits.
  explicit Session(BuildMode auto_build = BuildMode::kWait);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// The attention mode: runs settings in the order of the file comment. Throws
  /// options::OptionError (a refused setting or text, in the CLI's words), LoadFailure (the model
  /// did not load), Error (the engine's: kCancelled when hooks.progress said stop, kInvalidInput
  /// for texts the model's tokenizer refuses) and std::bad_alloc.
  /// The Run is the caller's: the session keeps only the forward pass it shares.
  std::shared_ptr<Run> run(const options::LabSettings& settings, const RunHooks& hooks = {});

  /// The decode mode (synthetic lab): checkDecode, the text's tokens (checkTokens), the bug's
  /// step ("--bug-step 11 is past the text's last token (10)"), then decodeWithCache on the
  /// synthetic model's own inputs (the window's run and the CLI's decode draw the same weights)
  /// and, with a bug, the difference from the full causal computation on the CPU. Throws
  /// OptionError, Error.
  std::shared_ptr<const results::Decoded> decode(const DecodeRequest& request);

  /// The score mode: the model (LoadFailure), its tokens checked like a forward pass's
  /// (checkModelTokens: context, kMaxTokens, the memory budget), then scoreText under the full
  /// cache and every window × sink count. Throws OptionError, LoadFailure, Error.
  std::shared_ptr<const results::Scored> score(const ScoreRequest& request,
                                              const RunHooks& hooks = {});

  /// The generate mode: generate's choices (options::checkGenerateChoices), the model
  /// (LoadFailure), --head against its heads, then generate() with `step` after every step
  /// (null: none). Throws OptionError, LoadFailure, Error (the engine's: an encoder, a prompt
  /// beyond the context).
  std::shared_ptr<const results::Generated> generate(const GenerateRequest& request,
                                                     const GenerateStep& step = {},
                                                     const RunHooks& hooks = {});

  /// The model of `dir` (settings.model_dir), loading it when needed (hooks.loading first).
  /// Throws LoadFailure.
  std::shared_ptr<const ModelInfo> model(const QString& dir, const RunHooks& hooks = {});
  /// What model() last loaded (null before one).
  const std::shared_ptr<const ModelInfo>& loaded() const { return info_; }
  /// Forgets the backend's kept OpenCL failures (Backend::retry): its next run tries again.
  void retryBackend();

 private:
  friend class Experiments;
  /// The backend for settings' choice and device (created when they change).
  Backend& backend(const options::LabSettings& settings);
  /// The synthetic model of spec and seed (ModelCache::synthetic; the last one kept). `drawn_ms`
  /// receives the time taken to draw new weights (0 when they were kept).
  const SyntheticModel& synthetic(const AttentionSpec& spec, std::uint64_t seed,
                                  double* drawn_ms = nullptr);
  std::shared_ptr<Run> runSynthetic(const options::LabSettings& settings);
  std::shared_ptr<Run> runModel(const options::LabSettings& settings, const RunHooks& hooks);
  std::shared_ptr<Run> runTranslator(const options::LabSettings& settings, const RunHooks& hooks);

  BuildMode auto_build_;
  std::unique_ptr<Backend> backend_;
  std::optional<std::pair<BackendKind, int>> backend_key_;
  std::shared_ptr<const SyntheticModel> synthetic_;
  std::shared_ptr<const PretrainedModel> pretrained_;
  std::shared_ptr<const ModelInfo> info_;
  std::shared_ptr<const Translator> translator_;  ///< The translator of the last translator run.
  std::shared_ptr<const TranslatorInfo> translator_info_;
  std::shared_ptr<const ModelRun> last_pass_;  ///< The last forward pass, with its settings:
  options::LabSettings last_pass_settings_;    ///< reused when only the display changes.
  std::optional<options::Message> last_pass_refusal_;  ///< Overview::full_refusal of a pooled pass.
  /// The head roles of the model and backend they were scored with (they do not read the text).
  std::shared_ptr<const HeadRoles> head_roles_;
  std::optional<std::tuple<QString, BackendKind, int>> head_roles_key_;
};

/// The cost mode: the shape of one attention layer of the settings — a model's from its
/// header (ModelCache::config: no weights read), a translator's, or the lab's own d_model, h,
/// K/V heads, d_k and d_v — and the name of the model. Throws OptionError (validate), LoadFailure.
std::pair<CostShape, QString> costShape(const options::LabSettings& settings);
/// The shape of the layer a run computed (the window's shown run: its model, translator or the
/// lab's resolved spec), n its query tokens. What costShape gives for the run's settings.
std::pair<CostShape, QString> costShape(const Run& run);

/// What the cost mode computes.
struct CostRequest {
  CostShape shape;           ///< costShape's.
  QString model;             ///< The model's name (empty in the synthetic lab).
  std::vector<int> n;        ///< The table's token counts (empty: 128, 256, … 8192).
  int current_n = 0;         ///< Marked on the picture (0: none).
  bool measure = false;      ///< Time this machine's backends at every n.
  BackendKind backend = BackendKind::kAuto;  ///< kCpu: the CPU alone is measured.
  int device = 0;                            ///< The OpenCL device measured.
  /// Set from another thread to stop a measurement between rows (the window's panel); the table
  /// then holds what was measured.
  std::shared_ptr<std::atomic<bool>> cancel;
};
/// The cost mode: the table at every n, the per-token counts, the crossover, the curves a
/// picture draws and, when asked, the measured times (the bench's schedule: 7 rounds, 5 from
/// n = 8192 on; a path needing more than 2 GiB extra is skipped and says so). Throws Error
/// (kInvalidArgument) for a shape CostShape::validate refuses.
results::CostTable cost(const CostRequest& request);

/// What the saturation mode computes.
struct SaturationRequest {
  options::LabSettings lab;  ///< The scaling marked, the seed; the text for `sentence`.
  /// d_k of the curves (empty: 1, 2, 4, … 1024), keys per row, rows per d_k, the marked d_k.
  options::SaturationOptions saturation;
  /// Add the text's own queries and keys (the synthetic model rebuilt at each d_k); the
  /// Monte-Carlo curves then take as many keys as the text has.
  bool sentence = false;
};
/// The saturation mode (`attention-lab-cli saturation`): Monte-Carlo curves and, with
/// `sentence`, the text's points. The marked d_k: --mark, else the list's single value, else the
/// settings' d_k. Throws OptionError (validate, checkTokens), Error.
results::SaturationCurves saturation(const SaturationRequest& request);
/// The interactive curves for n_k keys (the window's saturation panel and its export, the
/// lessons' numbers): d_k 1 … 1024, saturationSamples(n_k) rows per d_k, the seed's draws — so a
/// caption quotes the curve on screen. `d_k` narrows the list to one value (a lesson's point).
SaturationAnalysis interactiveSaturation(int n_k, std::uint64_t seed,
                                         std::optional<int> d_k = std::nullopt);

/// The text and the text with its last word changed, computed alike (Experiments).
struct WordChange {
  AttentionResult original;  ///< The text's attention.
  AttentionResult changed;   ///< With the word changed.
  int word = -1;             ///< The changed word's row (rows before it see only earlier keys).
};

/// The lessons' experiments on the synthetic lab, computed through `session` (its backend: the
/// lessons ask for the CPU reference).
class Experiments {
 public:
  explicit Experiments(Session& session) : session_(session) {}
  /// The text and the text with its last word changed ("dog", or "cat" when it is "dog"), the
  /// causal mask on or off, padding off. nullopt for a model, a source, or a text with no word to
  /// change. Throws OptionError (validate, checkTokens).
  std::optional<WordChange> lastWordChanged(const options::LabSettings& lab, bool causal);
  /// The text's queries and the keys (the source's with one) as the synthetic model projects
  /// them without padding, q·k unscaled: what var(q·k) is measured on. nullopt for a model or
  /// additive attention, which has no q·k. Throws OptionError.
  std::optional<AttentionInputs> projections(const options::LabSettings& lab);

 private:
  Session& session_;
};

/// The analyses of entry `entry` of run (summarizeAttention, headSimilarity): what the entropy,
/// histogram and head-similarity pictures draw. Throws std::out_of_range for an entry the run
/// does not have.
results::Analysis analyse(const Run& run, int entry);

/// The frames of sweep `o` (command kSweep): one render setting per value (options::sweepFrames),
/// every layer or head of a model counted once the model is loaded through `session`. Each
/// frame's run is session.run(frame.options.lab). Throws OptionError ("--param NAME is required",
/// a value the option refuses), LoadFailure.
std::vector<options::SweepFrame> sweepFrames(const options::Options& o, Session& session);

/// Fills what a Run shows from a model's pass over its tokens (r.settings and r.model set): the
/// pass, the display filter (special tokens out when settings.hide_special), the tokens' labels
/// and the spec (mechanism from the pass, the model's mask, heads, d_model, d_k, the settings'
/// temperature). Session::run's step 4 for a model, and a generation's grown matrix — one path
/// for both. Throws Error(kInvalidInput) as specialTokenFilter.
void showPass(Run& r, std::shared_ptr<const ModelRun> pass, const ModelConfig& config);

/// Checks r.settings' interventions against a loaded model, in the CLI's words: ablated heads
/// that do not exist ("--ablate: head 12 does not exist: NAME has heads 0–8"), the logit lens,
/// attribution or patching on an encoder, a --target or --versus that is not one token. Throws
/// OptionError.
void checkInterventions(const options::LabSettings& settings, const PretrainedModel& model);
/// The pass a model run shows, from the kept pass `clean` (which kept the residual stream, the
/// head outputs and the losses when settings.interventions()): with --ablate the pass resumed at
/// the first ablated layer and merged with clean's lower layers; fills r.interventions (before
/// and after, the logit lens, the attribution, patching: several passes, hooks.progress after
/// each); with --value-weighted the weights replaced by α_ij·‖v_j W_O^h‖ per row. Returns clean
/// itself when nothing was asked. Throws OptionError (prompts of two lengths), Error.
std::shared_ptr<const ModelRun> applyInterventions(Run& r, const PretrainedModel& model,
                                                   const std::shared_ptr<const ModelRun>& clean,
                                                   Backend& backend, const RunHooks& hooks);

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
