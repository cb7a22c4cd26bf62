#pragma once
/// \file sweep_export.hpp
/// File → Export → "Sweep…": the current setting swept over one option (d_k, the temperature, a
/// model's layers or heads, …) written as an animated GIF, an MP4 (when ffmpeg is installed) or
/// numbered PNG frames — by the code of `attention-lab-cli sweep`, with a progress dialog that can
/// cancel. The dialog checks the values as the command line would, in its words.

#include <QDialog>
#include <optional>

#include "options/options.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QDialogButtonBox;

namespace attnlab::gui {

/// The sweep's choices.
class SweepDialog : public QDialog {
  Q_OBJECT
 public:
  /// base: the window's settings as a sweep command line (lab, picture, head); model_layers and
  /// heads size the defaults of the layer and head sweeps.
  SweepDialog(QWidget* parent, const options::Options& base, int model_layers, int heads,
              const QString& folder);
  /// The sweep command line chosen (valid once accepted).
  options::Options sweep() const;

 private:
  void fillValues();
  void check();

  options::Options base_;
  int model_layers_ = 0;
  int heads_ = 0;
  QComboBox* param_ = nullptr;
  QLineEdit* values_ = nullptr;
  QSpinBox* delay_ = nullptr;
  QLineEdit* path_ = nullptr;
  QLabel* problem_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

/// Runs the dialog, then writes the sweep with a progress dialog; returns the status line (or an
/// empty string when cancelled). Errors are shown in a message box.
QString exportSweep(QWidget* parent, const options::Options& base, int model_layers, int heads,
                    bool persist);

}  // namespace attnlab::gui
