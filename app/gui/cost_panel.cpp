/// \file cost_panel.cpp
/// The cost panel: the plot of views::drawCost for the current setting (run::cost) and a
/// measurement of this machine's backends on a worker thread.

#include "cost_panel.hpp"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "run/run.hpp"

namespace attnlab::gui {

CostPanel::CostPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("costPanel"));
  auto* layout = new QVBoxLayout(this);
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("costSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  auto* row = new QHBoxLayout;
  kv_label_ = new QLabel;
  kv_heads_ = new QComboBox;
  kv_heads_->setObjectName(QStringLiteral("costKvHeads"));
  measure_ = new QPushButton;
  measure_->setObjectName(QStringLiteral("costMeasure"));
  row->addWidget(kv_label_);
  row->addWidget(kv_heads_);
  row->addStretch(1);
  row->addWidget(measure_);
  layout->addLayout(row);
  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->setStyleSheet(QStringLiteral("color: #404040;"));
  layout->addWidget(status_);
  plot_ = new QCustomPlot;
  plot_->setObjectName(QStringLiteral("costPlot"));
  plot_->setMinimumSize(320, 420);
  layout->addWidget(plot_, 1);
  connect(kv_heads_, &QComboBox::activated, this, [this] {
    shape_.kv_heads = kv_heads_->currentData().toInt();
    redraw();
  });
  connect(measure_, &QPushButton::clicked, this, &CostPanel::measure);
  connect(&watcher_, &QFutureWatcher<void>::finished, this, [this] {
    measure_->setEnabled(true);
    emit measured();
  });
  retranslate();
}

CostPanel::~CostPanel() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

void CostPanel::setShape(const CostShape& shape, const QString& model) {
  // The K/V heads chosen in the box hold while the setting's layer stays (a what-if of the lab);
  // a new layer, its own K/V heads included, takes the setting's.
  const bool same_layer = shape.d_model == given_.d_model && shape.heads == given_.heads &&
                          shape.resolvedDk() == given_.resolvedDk() &&
                          shape.resolvedDv() == given_.resolvedDv() &&
                          shape.resolvedKvHeads() == given_.resolvedKvHeads() &&
                          shape.layers == given_.layers && model == model_;
  const int kv = same_layer && model.isEmpty() ? shape_.kv_heads : shape.kv_heads;
  given_ = shape;
  shape_ = shape;
  shape_.kv_heads = kv;
  model_ = model;
  // Measured times belong to one (h, d_k): drop them when the layer changes.
  if (measured_for_.heads != shape_.heads || measured_for_.resolvedDk() != shape_.resolvedDk())
    times_.reset();
  redraw();
}

bool CostPanel::measuring() const { return watcher_.isRunning(); }

void CostPanel::measure() {
  if (watcher_.isRunning()) return;
  measure_->setEnabled(false);
  status_->setText(
      tr("Measuring this machine's backends at n = 128 … 8192 (takes a while; the paths "
         "take turns, median of 7 rounds)…"));
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  run::CostRequest request;
  request.shape = shape_;
  request.model = model_;
  request.n = n_;
  request.measure = true;
  request.cancel = cancel_;
  QPointer<CostPanel> self(this);
  watcher_.setFuture(QtConcurrent::run([request, self] {
    std::optional<results::CostTimes> times;
    try {
      times = run::cost(request).measured;
    } catch (const std::exception&) {
      return;  // a failing OpenCL call: nothing new to show
    }
    if (request.cancel->load()) return;
    QMetaObject::invokeMethod(
        self.data(),
        [self, times, shape = request.shape] {
          if (!self) return;
          self->times_ = times;
          self->measured_for_ = shape;
          self->redraw();
        },
        Qt::QueuedConnection);
  }));
}

void CostPanel::redraw() {
  {
    const QSignalBlocker block(kv_heads_);
    kv_heads_->clear();
    for (int g = shape_.heads; g >= 1; --g) {
      if (shape_.heads % g != 0) continue;
      const QString text = g == shape_.heads ? tr("%1 (multi-head)").arg(g)
                           : g == 1          ? tr("1 (multi-query)")
                                             : tr("%1 (grouped-query)").arg(g);
      kv_heads_->addItem(text, g);
    }
    kv_heads_->setCurrentIndex(std::max(0, kv_heads_->findData(shape_.resolvedKvHeads())));
    kv_heads_->setEnabled(model_.isEmpty());
  }
  try {
    run::CostRequest request;
    request.shape = shape_;
    request.model = model_;
    request.n = n_;
    request.current_n = shape_.n;
    table_ = run::cost(request);
    table_.measured = times_;
    const results::CostTable& table = table_;
    const AttentionCost& c = table.current;
    summary_->setText(
        tr("At n = %1 tokens: projections %2, attention %3 (%4 of the work) · parameters %5 · P %6 "
           "· KV "
           "cache %7 · attention overtakes the projections at n = %8")
            .arg(shape_.n)
            .arg(QString::fromStdString(humanCount(c.projection_flops, "FLOP")),
                 QString::fromStdString(humanCount(c.attentionFlops(), "FLOP")))
            .arg(QStringLiteral("%1 %").arg(
                100.0 * c.attentionFlops() / (c.attentionFlops() + c.projection_flops), 0, 'f', 1))
            .arg(QLocale().toString(c.parameters, 'f', 0),
                 QString::fromStdString(humanCount(c.score_matrix_bytes, "B")),
                 QString::fromStdString(humanCount(c.kv_cache_bytes, "B")))
            .arg(table.crossover, 0, 'f', 0));
    plot_stale_ = !isVisible();
    if (!plot_stale_) views::drawCost(*plot_, table);
  } catch (const std::exception& e) {
    summary_->setText(QString::fromStdString(e.what()));
  }
  if (times_) status_->setText(tr("Measured on %1.").arg(QString::fromStdString(times_->device)));
  if (!plot_stale_) plot_->replot();
}

void CostPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (plot_stale_) redraw();
}

void CostPanel::retranslate() {
  kv_label_->setText(tr("K/V heads"));
  kv_label_->setToolTip(
      tr("Grouped-query attention shares each K/V head among several query heads: "
         "smaller K/V projections and KV cache."));
  measure_->setText(tr("Measure this machine"));
  measure_->setToolTip(
      tr("Times the CPU reference and the OpenCL tiled and fused kernels at each n "
         "(as attention-lab-bench does)."));
  if (!times_ && !watcher_.isRunning()) {
    status_->setText(
        tr("Counts from the shapes; FLOPs count the matrix products (2 per multiply–add)."));
  }
  if (shape_.n > 0) redraw();
}

}  // namespace attnlab::gui
