/// \file decode_panel.cpp
/// The KV-cache decoding panel (decode_panel.hpp).

#include "decode_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>

#include "views/views.hpp"

namespace attnlab::gui {
namespace {
constexpr int kPlayIntervalMs = 700;  ///< Time each step is shown while playing.
constexpr int kMaxRowsDrawn = 8;      ///< K/V heads drawn; more are summarised.
}  // namespace

CacheView::CacheView(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(40);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);  // its rows, no more
}

void CacheView::setState(int step, int kv_heads, int window) {
  step_ = step;
  kv_heads_ = std::max(1, kv_heads);
  window_ = window;
  setFixedHeight(sizeHint().height());
  update();
}

QSize CacheView::sizeHint() const { return {360, 10 + 22 * std::min(kv_heads_, kMaxRowsDrawn)}; }

void CacheView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  p.fillRect(rect(), palette().base());
  if (step_ < 0) return;
  const QFontMetrics fm(font());
  const int label_w = fm.horizontalAdvance(tr("K/V head %1").arg(kv_heads_ - 1)) + 10;
  const int tokens = step_ + 1;
  const int rows = std::min(kv_heads_, kMaxRowsDrawn);
  const double avail = std::max(20, width() - label_w - 8);
  const double cell = std::clamp(avail / tokens, 1.0, 18.0);
  const double row_h = std::clamp((height() - 8.0) / rows, 6.0, 22.0);
  for (int g = 0; g < rows; ++g) {
    const double y = 4 + g * row_h;
    p.setPen(palette().text().color());
    p.drawText(QRectF(2, y, label_w - 4, row_h), Qt::AlignVCenter | Qt::AlignLeft,
               g == rows - 1 && kv_heads_ > rows ? tr("… %1 K/V heads").arg(kv_heads_) : tr("K/V head %1").arg(g));
    const QColor colour = views::kvGroupColor(g);
    for (int t = 0; t < tokens; ++t) {
      const bool cached = window_ <= 0 || t > step_ - window_;
      const QRectF box(label_w + t * cell, y + 2, std::max(1.0, cell - (cell > 4 ? 2 : 0)), row_h - 4);
      if (cached) {
        p.fillRect(box, t == step_ ? colour.darker(130) : colour);
      } else if (cell > 3) {
        p.setPen(QPen(QColor(0xaa, 0xaa, 0xaa), 1));
        p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
      }
    }
  }
}

DecodePanel::DecodePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  intro_ = new QLabel;
  intro_->setWordWrap(true);
  layout->addWidget(intro_);
  auto* row = new QHBoxLayout;
  play_ = new QPushButton;
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setMinimum(0);
  slider_->setPageStep(1);
  row->addWidget(play_);
  row->addWidget(slider_, 1);
  layout->addLayout(row);
  step_label_ = new QLabel;
  step_label_->setWordWrap(true);
  layout->addWidget(step_label_);
  cache_view_ = new CacheView;
  layout->addWidget(cache_view_);
  cache_label_ = new QLabel;
  cache_label_->setWordWrap(true);
  cache_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(cache_label_);
  layout->addStretch(1);
  timer_.setInterval(kPlayIntervalMs);
  connect(&timer_, &QTimer::timeout, this, &DecodePanel::advance);
  connect(play_, &QPushButton::clicked, this, &DecodePanel::togglePlay);
  connect(slider_, &QSlider::valueChanged, this, [this] { refresh(); });
  retranslate();
}

void DecodePanel::setRun(const QStringList& tokens, const AttentionSpec& spec, bool available) {
  const bool same = tokens == tokens_;
  tokens_ = tokens;
  spec_ = spec;
  available_ = available && !tokens.isEmpty();
  {
    const QSignalBlocker block(slider_);
    slider_->setMaximum(std::max(0, static_cast<int>(tokens.size()) - 1));
    if (!same && !timer_.isActive()) slider_->setValue(slider_->maximum());
  }
  slider_->setEnabled(available_);
  play_->setEnabled(available_);
  if (!available_) timer_.stop();
  refresh();
}

int DecodePanel::revealedRows() const {
  return active_ && available_ ? slider_->value() + 1 : -1;
}

void DecodePanel::togglePlay() {
  if (timer_.isActive()) {
    timer_.stop();
  } else if (available_) {
    if (slider_->value() >= slider_->maximum()) slider_->setValue(0);
    timer_.start();
  }
  retranslate();
}

void DecodePanel::setActive(bool active) {
  active_ = active;
  if (!active) timer_.stop();
  refresh();
}

void DecodePanel::advance() {
  if (slider_->value() >= slider_->maximum()) {
    timer_.stop();
    retranslate();
    return;
  }
  slider_->setValue(slider_->value() + 1);
}

void DecodePanel::retranslate() {
  intro_->setText(tr("Autoregressive decoding: at step t the key and value of token t join the KV cache and "
                     "query t attends over the cache. The heads show the rows decoded so far."));
  play_->setText(timer_.isActive() ? tr("Pause") : tr("Play"));
  refresh();
}

void DecodePanel::refresh() {
  const int t = slider_->value();
  const int g = spec_.resolvedKvHeads();
  const long long per_entry = 4LL * (spec_.resolvedDk() + spec_.resolvedDv());
  if (!available_) {
    step_label_->setText(tr("Decoding steps need causal self-attention in the synthetic lab: tick Causal "
                            "(and leave the source text empty)."));
    cache_view_->setState(-1, g, spec_.window);
    cache_label_->clear();
  } else {
    const int length = spec_.window > 0 ? std::min(t + 1, spec_.window) : t + 1;
    step_label_->setText(tr("Step %1 of %2: token %3 “%4” attends over %5 cached keys")
                             .arg(t + 1)
                             .arg(tokens_.size())
                             .arg(t)
                             .arg(tokens_.value(t))
                             .arg(length));
    cache_view_->setState(t, g, spec_.window);
    QString text = tr("KV cache: %1 entries × %2 K/V heads × (d_k %3 + d_v %4) × 4 bytes = %5 bytes")
                       .arg(length)
                       .arg(g)
                       .arg(spec_.resolvedDk())
                       .arg(spec_.resolvedDv())
                       .arg(views::bytesText(per_entry * g * length));
    if (g < spec_.heads) {
      text += QLatin1Char('\n') + tr("With one K/V head per query head (multi-head): %1 bytes")
                                      .arg(views::bytesText(per_entry * spec_.heads * length));
    }
    if (spec_.window > 0) text += QLatin1Char('\n') + tr("The window keeps the last %1 tokens; older ones are evicted (hollow).").arg(spec_.window);
    cache_label_->setText(text);
  }
  const int rows = revealedRows();
  if (rows != last_rows_) {
    last_rows_ = rows;
    emit rowsChanged(rows);
  }
}

}  // namespace attnlab::gui
