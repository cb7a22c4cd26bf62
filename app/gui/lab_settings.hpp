#pragma once
/// \file lab_settings.hpp
/// LabSettings: everything the window's inputs decide, as one value type that travels to the
/// compute worker, into QSettings and from the command line.

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

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

  /// True when source is set (after trimming).
  bool cross() const { return !source.trimmed().isEmpty(); }
  /// The engine spec: mechanism (kScaled without scaling becomes kDot), mask, shapes,
  /// temperature. Throws Error(kInvalidArgument) with a one-line message for an invalid setting
  /// (causal with a source, out-of-range widths, …).
  AttentionSpec toSpec() const;

  bool operator==(const LabSettings&) const = default;
};

/// Reads the options the window shares with attention-lab-cli (--text --source --mechanism
/// --causal --heads --d-model --d-k --seed --temperature --no-scale --backend --device) from
/// args (without the program name) into settings. Returns an error message for an unknown option
/// or a bad value, else an empty string. Other options (the window's own) are left in `rest`.
QString parseCommandLine(const QStringList& args, LabSettings& settings, QStringList& rest);

/// Stores settings under the group "lab".
void saveSettings(QSettings& store, const LabSettings& settings);
/// Loads settings stored by saveSettings; missing or invalid keys keep their defaults.
LabSettings loadSettings(QSettings& store);

}  // namespace attnlab::gui
