/// \file decode_panel.cpp
/// The KV-cache decoding panel (decode_panel.hpp).

#include "decode_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>

#include "attnlab/error.hpp"
#include "eliding_label.hpp"
#include "options/lab_settings.hpp"
#include "options/message.hpp"
#include "views/picture.hpp"

namespace attnlab::gui {
namespace {
constexpr int kPlayIntervalMs = 700;  ///< Time each step is shown while playing.
constexpr int kMaxRowsDrawn = 8;      ///< K/V heads drawn; more are summarised.
const QColor kBugColor(0xc0, 0x20, 0x20);  ///< Outline of the repeated entry and of the gap.

/// Decodes the run's own settings (run::Session::decode: the CLI's decode) with the bug; runs on
/// the panel's one-thread pool, the only thread that uses `session`.
DecodeOutcome decodeRun(const std::shared_ptr<run::Session>& session, const ResultPtr& shown,
                        const run::DecodeRequest& request) {
  DecodeOutcome out;
  try {
    std::shared_ptr<const results::Decoded> decoded = session->decode(request);
    auto with_rows = std::make_shared<ComputeResult>(*shown);
    with_rows->run.attention = decoded->decode.attention;
    out.decode = std::move(decoded);
    out.shown = std::move(with_rows);
  } catch (const options::OptionError& e) {
    out.error = e.message();
  } catch (const std::exception& e) {
    out.error = options::Message::verbatim(QString::fromUtf8(e.what()));
  }
  return out;
}
}  // namespace

CacheView::CacheView(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(40);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);  // its rows, no more
}

void CacheView::setState(int step, int kv_heads, int window, CacheBug bug, int bug_step, int sinks) {
  step_ = step;
  kv_heads_ = std::max(1, kv_heads);
  window_ = window;
  sinks_ = window > 0 ? std::max(0, sinks) : 0;
  bug_ = bug_step >= 0 && bug_step <= step ? bug : CacheBug::kNone;
  bug_step_ = bug_step;
  setFixedHeight(sizeHint().height());
  update();
}

std::vector<int> CacheView::entryTokens() const {
  std::vector<int> tokens;
  for (int t = 0; t <= step_; ++t) {
    if (window_ > 0 && t <= step_ - window_ && t >= sinks_) continue;
    if (bug_ == CacheBug::kSkip && t == bug_step_) continue;
    tokens.push_back(t);
    if (bug_ == CacheBug::kDuplicate && t == bug_step_) tokens.push_back(t);
  }
  return tokens;
}

int CacheView::gapToken() const { return bug_ == CacheBug::kSkip ? bug_step_ : -1; }

QSize CacheView::sizeHint() const { return {240, 10 + 22 * std::min(kv_heads_, kMaxRowsDrawn)}; }

QSize CacheView::minimumSizeHint() const { return {120, 40}; }

void CacheView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  p.fillRect(rect(), palette().base());
  if (step_ < 0) return;
  const QFontMetrics fm(font());
  const int label_w = fm.horizontalAdvance(tr("K/V head %1").arg(kv_heads_ - 1)) + 10;
  const int tokens = step_ + 1;
  const bool twice = bug_ == CacheBug::kDuplicate;
  const int squares = tokens + (twice ? 1 : 0);  // the repeated entry takes a second square
  const int rows = std::min(kv_heads_, kMaxRowsDrawn);
  const double avail = std::max(20, width() - label_w - 8);
  const double cell = std::clamp(avail / squares, 1.0, 18.0);
  const double row_h = std::clamp((height() - 8.0) / rows, 6.0, 22.0);
  for (int g = 0; g < rows; ++g) {
    const double y = 4 + g * row_h;
    p.setPen(palette().text().color());
    p.drawText(QRectF(2, y, label_w - 4, row_h), Qt::AlignVCenter | Qt::AlignLeft,
               g == rows - 1 && kv_heads_ > rows ? tr("… %1 K/V heads").arg(kv_heads_) : tr("K/V head %1").arg(g));
    const QColor colour = views::kvGroupColor(g);
    int slot = 0;
    for (int t = 0; t < tokens; ++t) {
      const bool cached = window_ <= 0 || t > step_ - window_ || t < sinks_;
      const bool bug_here = bug_ != CacheBug::kNone && t == bug_step_;
      for (int copy = 0; copy < (twice && bug_here ? 2 : 1); ++copy, ++slot) {
        const QRectF box(label_w + slot * cell, y + 2, std::max(1.0, cell - (cell > 4 ? 2 : 0)), row_h - 4);
        if (bug_here && bug_ == CacheBug::kSkip) {
          p.setPen(QPen(kBugColor, 1, Qt::DashLine));  // the lost entry: a gap
          p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
        } else if (cached) {
          p.fillRect(box, t == step_ ? colour.darker(130) : colour);
          if (bug_here && copy == 1) {
            p.setPen(QPen(kBugColor, 2));  // the repeated entry
            p.drawRect(box.adjusted(1, 1, -1, -1));
          }
        } else {
          p.fillRect(box, views::kMaskedColor);  // evicted: the pictures' masked grey
        }
      }
    }
  }
}

DecodePanel::DecodePanel(QWidget* parent) : QWidget(parent) {
  pool_.setMaxThreadCount(1);
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
  auto* bug_row = new QHBoxLayout;
  bug_label_ = new QLabel;
  bug_combo_ = new QComboBox;
  bug_combo_->addItems({QString(), QString(), QString()});  // none, skip, duplicate; texts in retranslate
  bug_step_label_ = new QLabel;
  bug_step_ = new QSpinBox;
  bug_step_->setRange(0, options::kMaxTokens - 1);  // --bug-step's limits (option_table_lab.cpp)
  bug_label_->setBuddy(bug_combo_);
  bug_step_label_->setBuddy(bug_step_);
  // Two rows (the bug, then its step) and a combo box that elides: the dock fits beside the heads
  // on a 1024-pixel screen in either language (issue 50).
  bug_row->addWidget(bug_label_);
  bug_row->addWidget(bug_combo_, 1);
  layout->addLayout(bug_row);
  auto* step_row = new QHBoxLayout;
  step_row->addWidget(bug_step_label_);
  step_row->addWidget(bug_step_);
  step_row->addStretch(1);
  layout->addLayout(step_row);
  error_label_ = new QLabel;
  error_label_->setWordWrap(true);
  error_label_->setStyleSheet(QStringLiteral("color: #b00020;"));
  error_label_->hide();
  layout->addWidget(error_label_);
  step_label_ = new QLabel;
  step_label_->setWordWrap(true);
  layout->addWidget(step_label_);
  cache_view_ = new CacheView;
  cache_view_->setObjectName(QStringLiteral("cacheView"));
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
  connect(bug_combo_, &QComboBox::currentIndexChanged, this, [this] { startDecode(); });
  connect(bug_step_, &QSpinBox::valueChanged, this, [this] {
    bug_step_given_ = true;
    startDecode();
  });
  connect(&watcher_, &QFutureWatcher<DecodeOutcome>::finished, this, &DecodePanel::decodeDone);
  elideComboBoxes(this);  // the whole item in its tooltip
  retranslate();
}

CacheBug DecodePanel::cacheBug() const { return static_cast<CacheBug>(bug_combo_->currentIndex()); }

void DecodePanel::setCacheBug(CacheBug bug, std::optional<int> step) {
  {
    const QSignalBlocker block_combo(bug_combo_), block_step(bug_step_);
    bug_combo_->setCurrentIndex(static_cast<int>(bug));
    bug_step_given_ = step.has_value();
    bug_step_->setValue(step.value_or(static_cast<int>(tokens_.size()) / 2));
  }
  startDecode();
}

void DecodePanel::startDecode() {
  const CacheBug bug = cacheBug();
  const int n = static_cast<int>(tokens_.size());
  if (!bug_step_given_) {
    const QSignalBlocker block(bug_step_);
    bug_step_->setValue(n / 2);
  }
  error_label_->hide();
  if (bug == CacheBug::kNone || !available_ || !run_ || generation_ || translation_) {
    // Today's behaviour: the heads show the run.
    decoding_ = false;
    watcher_.cancel();
    const bool had = outcome_.shown != nullptr;
    outcome_ = {};
    if (had) emit decodedChanged(nullptr);
    refresh();
    return;
  }
  const run::DecodeRequest request{run_->settings, bug, bug_step_->value()};
  try {
    (void)run::checkDecodeRequest(request);  // the command line's refusals, in its words, at once
  } catch (const options::OptionError& e) {
    error_label_->setText(e.message().translated());  // the last good picture stays
    error_label_->show();
    return;
  }
  decoding_ = true;
  watcher_.setFuture(QtConcurrent::run(&pool_, decodeRun, session_, run_, request));
  refresh();
}

void DecodePanel::decodeDone() {
  if (!decoding_ || watcher_.isCanceled()) return;
  decoding_ = false;
  DecodeOutcome outcome = watcher_.result();
  if (!outcome.decode) {
    error_label_->setText(outcome.error.translated());  // the command line's words
    error_label_->show();
    outcome_ = {};
    refresh();
    emit decodedChanged(nullptr);  // the run itself
    return;
  }
  outcome_ = std::move(outcome);
  refresh();
  emit decodedChanged(outcome_.shown);
}

void DecodePanel::setRun(const QStringList& tokens, const AttentionSpec& spec, bool available,
                         ResultPtr result) {
  const bool same = tokens == tokens_;
  if (result != run_) outcome_ = {};  // the heads show the new run until its decode arrives
  run_ = std::move(result);
  generation_ = run_ ? run_->generated : nullptr;
  // A translator's rows are its outputs, except in the encoder's self-attention (the source).
  translation_ = run_ && run_->translator &&
                         run_->settings.translator_attention != options::TranslatorAttention::kEncoderSelf
                     ? run_->translator->translation
                     : nullptr;
  tokens_ = tokens;
  spec_ = spec;
  available_ = (available || generation_ || translation_) && !tokens.isEmpty();
  showCacheParts(!translation_);
  retranslate();  // the introduction of a translator's steps or of the cache
  {
    const QSignalBlocker block(slider_);
    // A generation steps from its prompt block (step 0) to its last generated row.
    slider_->setMinimum(generation_ ? static_cast<int>(generation_->prompt.ids.size()) - 1 : 0);
    slider_->setMaximum(std::max(slider_->minimum(), static_cast<int>(tokens.size()) - 1));
    if (!same && !timer_.isActive()) slider_->setValue(slider_->maximum());
  }
  slider_->setEnabled(available_);
  play_->setEnabled(available_);
  if (!available_) timer_.stop();
  startDecode();  // refreshes
}

int DecodePanel::revealedRows() const {
  return active_ && available_ ? slider_->value() + 1 : -1;
}

void DecodePanel::togglePlay() {
  if (timer_.isActive()) {
    timer_.stop();
  } else if (available_) {
    if (slider_->value() >= slider_->maximum()) slider_->setValue(slider_->minimum());
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
  intro_->setText(translation_ && translation_->forced
                      ? tr("Teacher forcing: at step i the decoder reads the target's previous character, attends over "
                           "the source and gives the target's next character a probability. The heads show the rows read so far.")
                  : translation_
                      ? tr("Greedy decoding: at step i the decoder reads the character it wrote last, attends over "
                           "the source and writes the most probable next character. The heads show the rows written so far.")
                      : tr("Autoregressive decoding: at step t the key and value of token t join the KV cache and "
                           "query t attends over the cache. The heads show the rows decoded so far."));
  play_->setText(timer_.isActive() ? tr("Pause") : tr("Play"));
  bug_label_->setText(tr("Cache bug:"));
  bug_combo_->setItemText(0, tr("none"));
  bug_combo_->setItemText(1, tr("skip: the token's K/V never cached"));
  bug_combo_->setItemText(2, tr("duplicate: cached twice"));
  bug_step_label_->setText(tr("at step"));
  bug_combo_->setToolTip(tr("The seeds' pitfall 4: the newest token's key and value lost or appended twice, once, "
                            "at the chosen step (attention-lab-cli decode --cache-bug --bug-step)."));
  refresh();
}

QString DecodePanel::bugText() const {
  const DecodeResult& d = outcome_.decode->decode;
  const int t = slider_->value();
  const QString token = tokens_.value(d.bug_step);
  QString text = d.bug == CacheBug::kSkip
                     ? tr("Cache bug at step %1: token %1 “%2” is never cached").arg(d.bug_step).arg(token)
                     : tr("Cache bug at step %1: token %1 “%2” is cached twice").arg(d.bug_step).arg(token);
  // The weights (what the heads show) and the outputs apart: one max |Δ| of both would exceed
  // what the picture shows.
  const DecodeStep& step = d.steps[static_cast<std::size_t>(t)];
  text += QLatin1Char('\n');
  if (step.max_abs_diff > kDecodeDiffThreshold) {
    text += tr("Row %1 differs from the full causal computation: max |Δ| %2 in the weights, %3 in "
               "the outputs "
               "(rows differ from row %4 on)")
                .arg(t)
                .arg(step.max_weight_diff, 0, 'g', 3)
                .arg(step.max_output_diff, 0, 'g', 3)
                .arg(d.first_diff_step);
  } else {
    text += tr("Row %1 equals the full causal computation (max |Δ| %2 in the weights, %3 in the "
               "outputs)")
                .arg(t)
                .arg(step.max_weight_diff, 0, 'g', 2)
                .arg(step.max_output_diff, 0, 'g', 2);
  }
  return text;
}

void DecodePanel::refreshGeneration(int row) {
  // Row `row` is read at step row − (n_p − 1): step 0 reads the prompt, step k the k-th token.
  const int n_p = static_cast<int>(generation_->prompt.ids.size());
  const int last = static_cast<int>(generation_->steps.size()) - 1;
  const int k = std::clamp(row - (n_p - 1), 0, last);
  const GenerationStep& s = generation_->steps[static_cast<std::size_t>(k)];
  step_label_->setText(tr("Generated step %1 of %2: token %3 “%4” attends over %5 cached keys; it chose “%6” (p = %7)")
                           .arg(k)
                           .arg(last)
                           .arg(s.position)
                           .arg(tokens_.value(s.position))
                           .arg(s.cache_length)
                           .arg(QString::fromStdString(s.token.label))
                           .arg(s.token.probability, 0, 'f', 3));
  const int g = run_->model ? run_->model->config.resolvedKvHeads() : spec_.resolvedKvHeads();
  const CachePolicy& policy = generation_->cache;
  // Every token read so far, the evicted ones grey (a full cache: exactly the cached entries).
  cache_view_->setState(s.position, g, policy.window, CacheBug::kNone, -1, policy.sinks);
  const int layers = run_->model ? run_->model->config.layers : 1;
  QString text = tr("KV cache of the model: %1 entries × %2 layers × %3 K/V heads × (d_k %4 + d_v %4) × 4 bytes = %5 bytes")
                     .arg(s.cache_length)
                     .arg(layers)
                     .arg(g)
                     .arg(spec_.resolvedDk())
                     .arg(views::bytesText(s.cache_bytes));
  if (policy.window > 0)
    text += QLatin1Char('\n') + tr("Grey: evicted (the cache keeps the last %1 tokens and the first %2)").arg(policy.window).arg(policy.sinks);
  cache_label_->setText(text);
}

void DecodePanel::showCacheParts(bool shown) {
  for (QWidget* w : std::initializer_list<QWidget*>{bug_label_, bug_combo_, bug_step_label_, bug_step_,
                                                    cache_view_, cache_label_})
    w->setVisible(shown);
}

void DecodePanel::refreshTranslation(int row) {
  const Translation& t = *translation_;
  const int last = static_cast<int>(t.steps.size()) - 1;
  const int i = std::clamp(row, 0, last);
  const TranslatorStep& s = t.steps[static_cast<std::size_t>(i)];
  QString written;
  for (int k = 0; k <= i; ++k)
    if (t.target_ids[static_cast<std::size_t>(k)] > 3) written += QString::fromStdString(t.target_chars[static_cast<std::size_t>(k)]);
  QString text = (t.forced ? tr("Step %1 of %2: the decoder reads “%3”; the forced target is “%4” (the model gives it p = %5)")
                           : tr("Step %1 of %2: the decoder reads “%3” and writes “%4” (p = %5)"))
                     .arg(i + 1)
                     .arg(last + 1)
                     .arg(i == 0 ? QStringLiteral("<s>") : QString::fromStdString(t.target_chars[static_cast<std::size_t>(i - 1)]))
                     .arg(QString::fromStdString(t.target_chars[static_cast<std::size_t>(i)]))
                     .arg(s.output.probability, 0, 'f', 3);
  // One head, one layer (additive attention): where its row looks.
  if (run_ && run_->entries() == 1 && run_->attention(0).heads() == 1 &&
      run_->settings.translator_attention == options::TranslatorAttention::kCross) {
    const AttentionResult& a = run_->attention(0);
    int best = 0;
    for (int j = 1; j < a.nK(); ++j)
      if (a.weights(0, i, j) > a.weights(0, i, best)) best = j;
    text += QLatin1Char('\n') + tr("Its attention row peaks at source character %1 “%2” (weight %3)")
                                    .arg(best)
                                    .arg(run_->key_tokens.value(best))
                                    .arg(a.weights(0, i, best), 0, 'f', 2);
  }
  text += QLatin1Char('\n') + tr("Written so far: “%1”").arg(written);
  step_label_->setText(text);
}

void DecodePanel::refresh() {
  const int t = slider_->value();
  const int g = spec_.resolvedKvHeads();
  const long long per_entry = 4LL * (spec_.resolvedDk() + spec_.resolvedDv());
  if (available_ && translation_) {
    refreshTranslation(t);
  } else if (!available_) {
    step_label_->setText(tr("Decoding steps need causal self-attention in the synthetic lab: tick Causal "
                            "(and leave the source text empty)."));
    cache_view_->setState(-1, g, spec_.window);
    cache_label_->clear();
  } else if (generation_) {
    refreshGeneration(t);
  } else {
    const DecodeResult* d = decoded();
    const bool bugged = d && cacheBug() != CacheBug::kNone && t < static_cast<int>(d->steps.size());
    const int length = bugged ? d->steps[static_cast<std::size_t>(t)].cache_length
                       : spec_.window > 0 ? std::min(t + 1, spec_.window)
                                          : t + 1;
    QString step = tr("Step %1 of %2: token %3 “%4” attends over %5 cached keys")
                       .arg(t + 1)
                       .arg(tokens_.size())
                       .arg(t)
                       .arg(tokens_.value(t))
                       .arg(length);
    if (bugged) step += QLatin1Char('\n') + bugText();
    else if (decoding_) step += QLatin1Char('\n') + tr("Decoding with the cache bug…");
    step_label_->setText(step);
    cache_view_->setState(t, g, spec_.window, bugged ? d->bug : CacheBug::kNone, bugged ? d->bug_step : -1);
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
    if (spec_.window > 0) text += QLatin1Char('\n') + tr("The window keeps the last %1 tokens; older ones are evicted (grey).").arg(spec_.window);
    cache_label_->setText(text);
  }
  const int rows = revealedRows();
  if (rows != last_rows_) {
    last_rows_ = rows;
    emit rowsChanged(rows);
  }
}

}  // namespace attnlab::gui
