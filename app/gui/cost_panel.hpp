#pragma once
/// \file cost_panel.hpp
/// The cost panel (View → Cost of attention): what one attention layer of the current setting
/// costs as n grows — the FLOPs of the projections and of the attention on log–log axes with the
/// crossover marked, the bytes of P and of the KV cache (multi-head, grouped-query, multi-query),
/// the current text's n — computed by run::cost and drawn by views::drawCost as
/// `attention-lab-cli cost --out FILE.png` draws them; "Measure" times this machine's backends on
/// a worker thread (run::cost's measurement, the code attention-lab-bench uses) and adds them to
/// the plot. The K/V heads box is a what-if for the lab's layer (disabled for a model).

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>

#include <optional>

#include "attnlab/cost.hpp"
#include "results/cost.hpp"
#include "views/cost_plot.hpp"
#include "views/export.hpp"
#include "views/picture.hpp"

class QCustomPlot;
class QLabel;
class QPushButton;
class QComboBox;

namespace attnlab::gui {

/// The cost plot, its key numbers and the measurement.
class CostPanel : public QWidget {
  Q_OBJECT
 public:
  explicit CostPanel(QWidget* parent = nullptr);
  ~CostPanel() override;

  /// The current setting's shape (n = its tokens) and the model's name ("" for the lab).
  void setShape(const CostShape& shape, const QString& model);
  /// Starts timing the backends at the plot's n (a no-op while one runs).
  void measure();
  /// True while a measurement runs.
  bool measuring() const;
  /// Draws again (language).
  void retranslate();

  QCustomPlot* plot() const { return plot_; }
  QLabel* summary() const { return summary_; }
  QComboBox* kvHeadsCombo() const { return kv_heads_; }
  /// The table drawn (run::cost of the shape shown, the text's n marked).
  const results::CostTable& table() const { return table_; }

 signals:
  /// A measurement finished (its times are on the plot).
  void measured();

 protected:
  /// Draws the plot that changed while the panel was hidden.
  void showEvent(QShowEvent* event) override;

 private:
  /// The combo box and the summary; the plot too when the panel is visible (else at its next
  /// showEvent: a hidden dock's replot cost the GUI thread ~2.5 ms per result of a d_k drag).
  void redraw();
  bool plot_stale_ = false;  ///< The plot waits for the panel to be shown.

  CostShape given_;  ///< The setting's layer (setShape).
  CostShape shape_;  ///< What is drawn: given_ with the K/V heads of the box.
  QString model_;
  std::vector<int> n_ = {128, 256, 512, 1024, 2048, 4096, 8192};
  std::optional<results::CostTimes> times_;  ///< The last measurement, for measured_for_.
  results::CostTable table_;
  CostShape measured_for_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<void> watcher_;

  QLabel* summary_ = nullptr;
  QComboBox* kv_heads_ = nullptr;
  QLabel* kv_label_ = nullptr;
  QPushButton* measure_ = nullptr;
  QLabel* status_ = nullptr;
  QCustomPlot* plot_ = nullptr;
};

}  // namespace attnlab::gui
