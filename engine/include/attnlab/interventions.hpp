#pragma once
/// \file interventions.hpp
/// What a head does, not only where it looks: interventions on a pretrained model's forward pass
/// and the readings of its residual stream.
/// - Head ablation (zero, mean, uniform attention): a head's output before W_O replaced, and
///   every later layer recomputed (Michel, Levy & Neubig 2019, "Are Sixteen Heads Really Better
///   than One?"; HuggingFace's head_mask is the zero ablation).
/// - Activation patching between two prompts of one length (Meng et al. 2022, causal tracing;
///   Wang et al. 2023, "Interpretability in the Wild", the IOI circuit): a head's output, or the
///   residual stream at one layer and position, copied from the clean run into the corrupted one.
/// - The logit lens (nostalgebraist 2020): the residual stream after each layer decoded through
///   the final norm and the unembedding.
/// - Direct logit attribution (Elhage et al. 2021, "A Mathematical Framework for Transformer
///   Circuits"): each head's, MLP's and the embedding's part of one logit, through the final norm
///   with its scale frozen at the model's own (as TransformerLens computes it).
/// - Value-weighted attention (Kobayashi et al. 2020, "Attention is Not Only a Weight"):
///   α_ij·‖v_j W_O^h‖, what a head's attention to a token moves into the residual stream.
/// Layers and heads are numbered from 0, as the pictures number them.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

class PretrainedModel;
class Backend;
struct ModelConfig;
struct ModelRun;
struct ModelRunOptions;
struct Encoding;

/// One attention head of one layer, both from 0.
struct HeadRef {
  int layer = 0;
  int head = 0;
  bool operator==(const HeadRef&) const = default;
};

/// "L.H" (e.g. "3.7").
std::string toString(const HeadRef& head);

/// Parses "L.H[,L.H…]" (spaces around the commas allowed). Throws Error(kInvalidArgument) with
/// one line: "--ablate: "X" is not LAYER.HEAD (e.g. 3.7)" for a malformed entry; with a model's
/// config also "--ablate: layer 40 does not exist: NAME has layers 0–29" and "… head 12 does not
/// exist: NAME has heads 0–8". `option` is the option's name as the user typed it.
std::vector<HeadRef> parseHeads(std::string_view text, const std::string& option = "--ablate");
/// The same checked against a model of `config` named `model_name`.
std::vector<HeadRef> parseHeads(std::string_view text, const ModelConfig& config,
                                const std::string& model_name,
                                const std::string& option = "--ablate");

/// What replaces an ablated head's output (the head's d_k columns of the context, before W_O).
enum class AblationMode {
  kZero,     ///< 0 at every position (HuggingFace's head_mask = 0).
  /// The head's own output averaged over the positions of this text, at every position (in a
  /// causal model the mean includes later positions: a position sees what follows it).
  kMean,
  /// Uniform attention over the keys the head may see (its mask and window): the mean of those
  /// values; the head's weights become uniform in the picture too.
  kUniform,
};
/// "zero", "mean", "uniform".
std::string toString(AblationMode mode);
/// Parses "zero" | "mean" | "uniform"; Error(kInvalidArgument) "--ablation: "X" is not one of
/// zero, mean, uniform" otherwise.
AblationMode parseAblationMode(std::string_view text);

/// Heads to ablate in a pass.
struct Ablation {
  std::vector<HeadRef> heads;
  AblationMode mode = AblationMode::kZero;
  bool empty() const { return heads.empty(); }
};

/// What a pass copies from another run of the same length (activation patching).
struct Patch {
  /// The source run's context per layer, [n, h·d_k] (ModelRun::context); required for heads.
  std::shared_ptr<const std::vector<Matrix>> context;
  std::vector<HeadRef> heads;  ///< Heads whose output is copied.
  /// The source run's residual stream (ModelRun::residual: [layers + 1] × [n, d_model]);
  /// required for positions.
  std::shared_ptr<const std::vector<Matrix>> residual;
  /// (layer, position): the residual stream after `layer` at `position` copied.
  std::vector<std::pair<int, int>> positions;
  bool empty() const { return heads.empty() && positions.empty(); }
};

/// A pass resumed at a layer: the hidden states entering `layer` [n, d_model] (a previous
/// run's ModelRun::residual[layer]); layers before it are not run and keep no attention.
struct Resume {
  int layer = 0;
  Matrix hidden;
};

/// A token to attribute or measure: the model's one token for `text`.
/// Throws Error(kInvalidArgument) "--target: "X" is N tokens for NAME (…); give one token" when
/// the text is not exactly one token (no special tokens added), naming the pieces.
int singleToken(const PretrainedModel& model, std::string_view text,
                const std::string& option = "--target");

// --- Readings of a run ----------------------------------------------------------------------

/// One cell of the logit lens: the most probable token after decoding one layer's residual
/// stream at one position.
struct LensCell {
  int top_id = 0;
  std::string top_label;      ///< As the pictures label tokens.
  double top_probability = 0;  ///< In [0, 1].
  int final_rank = 0;          ///< Rank (0 = first) of the final layer's top token here.
  double final_probability = 0;  ///< That token's probability here.
};

/// The logit lens (nostalgebraist 2020): rows = layers 0 … L−1 (the residual stream after each
/// layer), columns = positions. The last row is the model's own next-token prediction.
struct LogitLens {
  std::vector<std::vector<LensCell>> cells;  ///< [layers][n]
  std::vector<int> final_ids;                 ///< The model's prediction at each position [n].
  std::vector<std::string> final_labels;      ///< [n]
};

/// Decodes every layer's residual stream of `run` (which kept ModelRunOptions::keep_residual)
/// through the final norm and the unembedding. Throws Error(kInvalidArgument) for a model
/// without an output layer (BERT) or a run that kept no residual stream.
LogitLens logitLens(const PretrainedModel& model, const ModelRun& run);

/// Direct logit attribution of one logit (or the difference of two) at the last position.
struct LogitAttribution {
  int target = 0;                ///< Token id.
  std::optional<int> versus;     ///< With a second token: target's logit minus versus's.
  std::string target_label, versus_label;
  /// [layers, h]: each head's part, its output through W_O and the frozen final norm.
  Matrix heads;
  std::vector<double> mlp;       ///< [layers]: each feed-forward block's part.
  /// [layers]: what a layer's attention adds that is no head's (W_O's bias; 0 without one).
  std::vector<double> attention_bias;
  double embedding = 0;          ///< The token (and position) embedding's part.
  double norm_bias = 0;          ///< The final norm's bias (GPT-2's LayerNorm β; else 0).
  double total = 0;              ///< The sum of all parts.
  double logit = 0;              ///< The model's own logit (difference), before any soft-cap.
};

/// The parts of the logit of `target` (minus that of `versus`) at the last position of `run`
/// (which kept ModelRunOptions::keep_residual and keep_context): the final norm's scale is
/// frozen at its value for the final residual stream, so the parts sum to the logit (checked
/// by the caller: total vs logit). Throws Error(kInvalidArgument) for a model without an output
/// layer or a run without the residual stream and context.
LogitAttribution directLogitAttribution(const PretrainedModel& model, const ModelRun& run,
                                        int target, std::optional<int> versus);

/// Cross-entropy of each next token: loss[i] = −ln p(ids[i+1] | ids[0..i]), nats [n − 1].
/// Empty for a model without an output layer. Rows are decoded a few at a time.
std::vector<double> tokenLosses(const PretrainedModel& model, const Matrix& hidden,
                                const std::vector<int>& ids);

/// Per head, the size of what each key's value writes into the residual stream: ‖v_j W_O^h‖
/// for layer `layer` [h, n] (the values of the run's context hook; see ModelRun::value_norms).

/// Value-weighted attention (Kobayashi et al. 2020, eq. 6, normalised per row): from weights
/// [h, n_q, n_k] and value norms [h, n_k], α_ij·‖v_j W_O^h‖ / Σ_j α_ij·‖v_j W_O^h‖ [h, n_q, n_k];
/// a row whose sum is 0 stays 0.
Tensor3 valueWeighted(const Tensor3& weights, const Matrix& value_norms);

/// Activation patching between a clean and a corrupted prompt of the same length.
struct PatchingResult {
  int target = 0;
  std::optional<int> versus;
  std::string target_label, versus_label;
  double clean = 0;      ///< The clean run's logit difference (or logit).
  double corrupted = 0;  ///< The corrupted run's.
  /// [layers, h]: (patched − corrupted) / (clean − corrupted) with head (l, h)'s output copied
  /// from the clean run into the corrupted one (1 = all recovered; NaN when clean = corrupted).
  Matrix heads;
  /// [layers, n]: the same with the residual stream after layer l at position p copied.
  Matrix residual;
};

/// Runs the clean and the corrupted prompt, then the corrupted one once per head and once per
/// (layer, position) with that activation copied from the clean run, each resumed at the layer
/// patched. target: the clean run's prediction when unset; versus: the corrupted run's
/// prediction when unset and different from target. `progress(done, total)` after each pass
/// (false cancels: Error kCancelled). Throws Error(kInvalidArgument) "the two prompts must have
/// the same number of tokens (N and M)" and what ModelRun throws.
PatchingResult patchActivations(const PretrainedModel& model, const Encoding& clean,
                                const Encoding& corrupted, std::optional<int> target,
                                std::optional<int> versus, const ModelRunOptions& options,
                                Backend& backend,
                                const std::function<bool(int, int)>& progress = {});

}  // namespace attnlab
