/// \file cost_panel.cpp
/// The cost panel: the plot of views::drawCost for the current setting and a measurement of this
/// machine's backends on a worker thread.

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

#include "attnlab/backend.hpp"
#include "attnlab/timing.hpp"

namespace attnlab::gui {
namespace {

/// What a measurement hands back to the GUI thread.
struct Times {
  std::vector<std::pair<QString, std::vector<double>>> series;
  QString device;
};

}  // namespace

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
  const bool same_layer = shape.d_model == shape_.d_model && shape.heads == shape_.heads &&
                          shape.resolvedDk() == shape_.resolvedDk() && model == model_;
  const int kv = same_layer && !model.isEmpty() ? shape.kv_heads
                 : same_layer                   ? shape_.kv_heads
                                                : shape.kv_heads;
  shape_ = shape;
  shape_.kv_heads = kv;
  model_ = model;
  if (shape_.resolvedKvHeads() > shape_.heads || shape_.heads % shape_.resolvedKvHeads() != 0)
    shape_.kv_heads = 0;
  // Measured times belong to one (h, d_k): drop them when the layer changes.
  if (measured_for_.heads != shape_.heads || measured_for_.resolvedDk() != shape_.resolvedDk())
    times_.clear();
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
  auto times = std::make_shared<Times>();
  const CostShape shape = shape_;
  const std::vector<int> ns = n_;
  auto cancel = cancel_;
  QPointer<CostPanel> self(this);
  watcher_.setFuture(QtConcurrent::run([shape, ns, cancel, times, self] {
    AttentionTimer timer(true, 0);
    std::vector<TimedPath> paths{TimedPath::kCpuReference};
    if (timer.hasOpenCl())
      paths.insert(paths.end(), {TimedPath::kOpenClTiled, TimedPath::kOpenClFused});
    times->device = QString::fromStdString(cpuDeviceName());
    if (timer.hasOpenCl())
      times->device += QStringLiteral("; OpenCL: ") + QString::fromStdString(timer.openClDevice());
    for (TimedPath p : paths)
      times->series.emplace_back(QString::fromStdString(toString(p)), std::vector<double>());
    try {
      if (timer.hasOpenCl()) timer.prepare(shape.resolvedDk());
      for (int n : ns) {
        if (cancel->load()) return;
        TimingCase c;
        c.n = n;
        c.heads = shape.heads;
        c.d_k = shape.resolvedDk();
        const std::vector<PathTime> t =
            timer.time(c, paths, n >= 8192 ? 5 : 7, 2.0 * 1024 * 1024 * 1024);
        for (std::size_t p = 0; p < t.size(); ++p)
          times->series[p].second.push_back(t[p].ran ? t[p].median_ms : NAN);
      }
    } catch (const std::exception&) {
      // A failing OpenCL call: what was measured stays.
    }
    if (cancel->load()) return;
    QMetaObject::invokeMethod(
        self.data(),
        [self, times, shape] {
          if (!self) return;
          self->times_ = times->series;
          self->device_ = times->device;
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
    const AttentionCost c = attentionCost(shape_);
    const double crossover = attentionCrossover(shape_);
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
            .arg(crossover, 0, 'f', 0));
    plot_stale_ = !isVisible();
    if (!plot_stale_) {
      views::CostPlotData data;
      data.shape = shape_;
      data.n = n_;
      data.current_n = shape_.n;
      data.model = model_;
      data.measured = times_;
      data.device = device_;
      views::drawCost(*plot_, data);
    }
  } catch (const std::exception& e) {
    summary_->setText(QString::fromStdString(e.what()));
  }
  if (!times_.empty()) status_->setText(tr("Measured on %1.").arg(device_));
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
  if (times_.empty() && !watcher_.isRunning()) {
    status_->setText(
        tr("Counts from the shapes; FLOPs count the matrix products (2 per multiply–add)."));
  }
  if (shape_.n > 0) redraw();
}

}  // namespace attnlab::gui
