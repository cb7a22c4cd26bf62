#pragma once
/// \file lab_settings.hpp
/// LabSettings: everything the window's inputs decide, as one value type that travels to the
/// compute worker, into QSettings and from the command line. Two sources of attention: the
/// synthetic lab (random weights; every shape is the user's) and a pretrained model folder (the
/// model decides h, d_model, d_k, the mask and the weights; scaling and temperature still apply).

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

#include "attnlab/pretrained.hpp"
#include "attnlab/spec.hpp"

class QSettings;

namespace attnlab::gui {

/// The cat sentence, the window's first text.
inline constexpr const char* kDefaultText = "The cat sat on the mat because it was tired.";
/// Largest d_k the slider and spin box offer (the slider steps through 1, 2, 4, …, 1024).
inline constexpr int kMaxDk = 1024;
/// Most tokens the window computes per side; longer input gets an inline message.
inline constexpr int kMaxTokens = 1024;

/// The window's inputs. Rows of every result are queries (the text), columns keys (the source
/// when cross-attention, else the text).
struct LabSettings {
  QString text = QString::fromUtf8(kDefaultText);  ///< The sentence (the target when cross).
  QString source;                 ///< Non-empty: cross-attention, keys and values from this.
  Mechanism mechanism = Mechanism::kScaled;  ///< As chosen; kScaled with scaled=false is kDot.
  bool scaled = true;             ///< The 1/√d_k factor (dot and scaled only).
  bool use_temperature = false;   ///< Divide scores by `temperature` instead.
  double temperature = 1.0;       ///< T > 0, used when use_temperature.
  int d_k = 8;                    ///< Query/key width per head, 1 … kMaxDk.
  int heads = 8;                  ///< h.
  int d_model = 64;               ///< Embedding width.
  bool causal = false;            ///< Causal mask (self-attention only).
  std::uint64_t seed = 0;         ///< The synthetic model's seed.
  QString backend = QStringLiteral("auto");  ///< "auto", "cpu" or "opencl".
  int device = 0;                 ///< OpenCL device index (listOpenClDevices order).
  /// Non-empty: the absolute path of a HuggingFace model folder whose real forward pass is shown
  /// (then d_k, heads, d_model, causal, seed, source and an additive mechanism do not apply).
  QString model_dir;
  int layer = -1;             ///< Model: the layer shown, 0-based; −1 = every layer.
  QString pair;               ///< Model, BERT only: second sentence ([CLS] text [SEP] pair [SEP]).
  bool hide_special = false;  ///< Model: leave special tokens out of the pictures (display only).

  /// True when source is set (after trimming).
  bool cross() const { return !source.trimmed().isEmpty(); }
  /// True when a pretrained model folder is the source of attention.
  bool pretrained() const { return !model_dir.isEmpty(); }
  /// The engine spec: mechanism (kScaled without scaling becomes kDot), mask, shapes,
  /// temperature. Throws Error(kInvalidArgument) with a one-line message for an invalid setting
  /// (causal with a source, out-of-range widths, …).
  AttentionSpec toSpec() const;
  /// The model-run options: kScaled or kDot from `scaled`, the temperature when used, the layer
  /// (unset for −1 = every layer). Validation (temperature, layer range) is the engine's.
  ModelRunOptions toModelOptions() const;

  bool operator==(const LabSettings&) const = default;
};

/// Reads the options the window shares with attention-lab-cli (--text --source --mechanism
/// --causal --heads --d-model --d-k --seed --temperature --no-scale --backend --device, and for a
/// pretrained model --model DIR --layer L|all --pair TEXT --hide-special) from args (without the
/// program name) into settings. Returns an error message for a bad value or a combination the CLI
/// refuses too (--layer without --model, --heads with --model, …), else an empty string. Other
/// options (the window's own) are left in `rest`. --model's folder is made absolute.
QString parseCommandLine(const QStringList& args, LabSettings& settings, QStringList& rest);

/// Stores settings under the group "lab".
void saveSettings(QSettings& store, const LabSettings& settings);
/// Loads settings stored by saveSettings; missing or invalid keys keep their defaults.
LabSettings loadSettings(QSettings& store);

}  // namespace attnlab::gui
