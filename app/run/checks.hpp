#pragma once
/// \file checks.hpp
/// The checks every mode makes before it computes, in the CLI's words (options::OptionError,
/// translated in the window): the text against the synthetic lab's tokenizer or a model's own, a
/// layer against a model, a translator's settings against its config, and the rules of each mode
/// (decode). options::validate checks the settings alone; these read the text or the model.

#include <QString>

#include "attnlab/pretrained.hpp"
#include "attnlab/translator.hpp"
#include "options/lab_settings.hpp"

namespace attnlab::run {

/// Token counts of a synthetic run (the synthetic lab's tokenizer).
struct TokenCounts {
  int queries = 0;  ///< Tokens of the text.
  int keys = 0;     ///< Tokens of the source (cross), else of the text.
};
/// Tokenizes the text (and the source) of a synthetic run and checks them: not empty, not only
/// white space, at most kMaxTokens per side, no more than pad_to tokens, at least global_tokens
/// tokens. With pad_to, queries and keys count the padded tokens. Throws OptionError ("the text
/// is empty", "the source text has no tokens (only white space)", "the text has 5000 tokens; at
/// most 4096 per side are computed"). A model's own tokenizer counts its tokens (checkModelTokens).
TokenCounts checkTokens(const options::LabSettings& settings);
/// Checks that an encoding of `tokens` tokens (PretrainedModel::encode) fits model: at most its
/// context length ("the text has 80 tokens; tiny-llama reads at most 64 (its context length)")
/// and kMaxTokens ("the text has 5000 tokens; at most 4096 per side are computed"). What a model
/// reading the text token by token (the score mode) checks. Throws OptionError.
void checkModelLength(const PretrainedModel& model, int tokens);
/// Checks, before a forward pass, that an encoding of `tokens` tokens (PretrainedModel::encode)
/// fits model: checkModelLength, and that what the run holds (PretrainedModel::memoryNeeds for
/// settings' layer: weights, activations, kept attention) fits the memory budget ("this run would
/// keep 27.1 GB in memory (weights 538 MB, attention 26.5 GB: 30 layers × 9 heads × 3500² scores
/// and weights, activations 112 MB), more than the memory budget of 12.6 GB: choose one layer
/// (--layer), fewer tokens, or a larger --memory-budget"). Throws OptionError.
void checkModelTokens(const PretrainedModel& model, int tokens,
                      const options::LabSettings& settings);
/// The same checks for a run with `run` (settings.toModelOptions() adjusted, e.g. a pooled
/// model view's: the last layer in full, the others as overviews).
void checkModelTokens(const PretrainedModel& model, int tokens, const ModelRunOptions& run);
/// Checks a translator's settings against its config (after loading, before the run): the scaling
/// toggle ("dates-additive uses additive attention: there is no 1/√d_k to switch off", the
/// unscaled Transformer has none either), --mechanism additive on the Transformer, the encoder or
/// decoder self-attention of the additive model, the layer. Throws OptionError. "Scaled" on a
/// translator means the scores the model was trained with (q·k/√d_k, or q·k for the unscaled one).
void checkTranslator(const options::LabSettings& settings, const QString& name,
                     const TranslatorConfig& config);
/// The options of a translator run: the forced target (text, unless empty), the mechanism (unset:
/// the model's own; kDot only for a model trained scaled) and the temperature.
TranslatorOptions toTranslatorOptions(const options::LabSettings& settings);
/// Checks the layer against a loaded model's layers; throws OptionError "--layer 7 does not
/// exist: tiny-gpt2 has layers 0–1 (or use all)".
void checkLayer(const options::LabSettings& settings, const QString& model_name, int layers);

/// The decode mode's rule (the synthetic lab's KV cache, attnlab/decode.hpp: causal float32
/// dot-product attention with the stable softmax, one text): refuses a source ("decode reads one
/// text token by token: --source (cross-attention) does not apply"), global tokens, a stride or
/// key padding ("decode takes a causal mask and --window: --global does not apply"), a precision,
/// softmax or dropout other than inference's ("decode computes the float32 stable softmax of
/// inference: --precision does not apply") and additive or linear attention. What the CLI's
/// decode, the window's decoding dock and the lessons' numbers refuse alike. Throws OptionError.
void checkDecode(const options::LabSettings& settings);

}  // namespace attnlab::run
