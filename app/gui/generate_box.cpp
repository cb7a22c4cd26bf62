/// \file generate_box.cpp
/// The Generate control: run::Session::generate on a one-thread pool, each step's grown matrix
/// drawn like a forward pass.

#include "generate_box.hpp"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaObject>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "attnlab/error.hpp"
#include "options/option_table.hpp"
#include "options/generate_choices.hpp"

namespace attnlab::gui {
namespace {

constexpr int kDefaultTokens = 16;

/// A step's grown matrix as a result the window draws (the run library built it like a forward
/// pass), with the generation so far.
ResultPtr stepResult(const results::Generated& g) {
  auto result = std::make_shared<ComputeResult>();
  static_cast<results::Run&>(*result) = *g.shown;
  result->generated = g.generation;
  summarize(*result);
  result->total_ms = result->run.compute_ms;
  return result;
}

}  // namespace

GenerateBox::GenerateBox(RenderScheduler* scheduler, QWidget* parent)
    : QWidget(parent), scheduler_(scheduler) {
  pool_.setMaxThreadCount(1);
  // A step is drawn once the window has redrawn after receiving it and every replot is done.
  if (scheduler_) connect(scheduler_, &RenderScheduler::settled, this, &GenerateBox::stepDrawn);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  button_ = new QPushButton;
  button_->setObjectName(QStringLiteral("generateButton"));
  tokens_ = new QSpinBox;
  tokens_->setObjectName(QStringLiteral("generateTokens"));
  tokens_->setRange(std::max(1, static_cast<int>(options::option("max-tokens").min)),
                    static_cast<int>(options::option("max-tokens").max));
  tokens_->setValue(kDefaultTokens);
  row->addWidget(button_);
  row->addWidget(tokens_, 1);
  layout->addLayout(row);
  // The CLI's generate options, with the option table's limits (0 where the CLI leaves one out).
  auto limit = [](const char* name) { return static_cast<double>(options::option(name, options::kGenerate).max); };
  temperature_ = new QDoubleSpinBox;
  temperature_->setObjectName(QStringLiteral("generateTemperature"));
  temperature_->setDecimals(2);
  temperature_->setSingleStep(0.1);
  temperature_->setRange(0, limit("sample-temperature"));
  seed_ = new QDoubleSpinBox;
  seed_->setObjectName(QStringLiteral("generateSeed"));
  seed_->setDecimals(0);
  seed_->setRange(0, limit("seed"));
  top_k_ = new QSpinBox;
  top_k_->setObjectName(QStringLiteral("generateTopK"));
  top_k_->setRange(0, static_cast<int>(limit("top-k")));
  cache_window_ = new QSpinBox;
  cache_window_->setObjectName(QStringLiteral("generateCacheWindow"));
  cache_window_->setRange(0, static_cast<int>(limit("cache-window")));
  sinks_ = new QSpinBox;
  sinks_->setObjectName(QStringLiteral("generateSinks"));
  sinks_->setRange(0, static_cast<int>(limit("sink-tokens")));
  int8_ = new QCheckBox;
  int8_->setObjectName(QStringLiteral("generateInt8"));
  form_ = new QFormLayout;
  form_->setContentsMargins(0, 0, 0, 0);
  form_->setRowWrapPolicy(QFormLayout::WrapLongRows);
  for (QWidget* box : std::initializer_list<QWidget*>{temperature_, seed_, top_k_, cache_window_, sinks_})
    form_->addRow(new QLabel, box);
  form_->addRow(int8_);
  layout->addLayout(form_);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("generateMessage"));
  message_->setWordWrap(true);
  layout->addWidget(message_);
  connect(&watcher_, &QFutureWatcher<ResultPtr>::finished, this, &GenerateBox::done);
  retranslate();
}

GenerateBox::~GenerateBox() {
  stop_->store(true);
  drawn_->release();
  pool_.waitForDone();
}

int GenerateBox::maxTokens() const { return tokens_->value(); }

options::GenerateSettings GenerateBox::generateSettings() const {
  options::GenerateSettings g;
  g.max_tokens = tokens_->value();
  g.sample_temperature = temperature_->value();
  g.seed = static_cast<std::uint64_t>(seed_->value());
  g.top_k = top_k_->value();
  if (cache_window_->value() > 0) g.cache_windows = {cache_window_->value()};
  if (sinks_->value() > 0) g.sink_tokens = {sinks_->value()};
  return g;
}

void GenerateBox::setGenerateSettings(const options::GenerateSettings& g) {
  tokens_->setValue(g.max_tokens);
  temperature_->setValue(g.sample_temperature);
  seed_->setValue(static_cast<double>(g.seed));
  top_k_->setValue(g.top_k);
  cache_window_->setValue(g.cache_windows.empty() ? 0 : g.cache_windows.front());
  sinks_->setValue(g.sink_tokens.empty() ? 0 : g.sink_tokens.front());
}

bool GenerateBox::int8Activations() const { return int8_->isChecked(); }

void GenerateBox::setInt8Activations(bool on) { int8_->setChecked(on); }

void GenerateBox::setAvailable(bool available) {
  // Only where a model generates: in the synthetic lab and for a translator the whole box is
  // folded away (not a greyed button and five greyed rows above the lab's own controls).
  setEnabled(available || running_);
  setVisible(available || running_);
}

void GenerateBox::retranslate() {
  button_->setText(running_ ? tr("Stop") : tr("Generate"));
  button_->setToolTip(tr("Generate tokens after the text with the model's KV cache (greedy, or sampled with a "
                          "sample temperature), one row at a time"));
  tokens_->setSuffix(tr(" tokens"));
  tokens_->setToolTip(tr("New tokens at most (it stops earlier at an end-of-sequence token or the context)"));
  // Each tooltip starts with the command-line option the refusals quote.
  const struct {
    QWidget* box;
    QString label, option, tip;
  } rows[] = {
      {temperature_, tr("Sample temperature"), QStringLiteral("--sample-temperature"),
       tr("Sample from softmax(logits / T) instead of taking the most probable token; not the attention "
          "temperature, which divides the scores")},
      {seed_, tr("Seed"), QStringLiteral("--seed"), tr("Seed of the sampling draws")},
      {top_k_, tr("Top-k"), QStringLiteral("--top-k"), tr("Sample among the K most probable tokens only")},
      {cache_window_, tr("Cache window"), QStringLiteral("--cache-window"),
       tr("Keep only the last W tokens in the KV cache (StreamingLLM's window)")},
      {sinks_, tr("Sink tokens"), QStringLiteral("--sink-tokens"),
       tr("With a cache window: also keep the first S tokens, the attention sinks (Xiao et al. 2023)")}};
  for (const auto& row : rows) {
    if (auto* label = qobject_cast<QLabel*>(form_->labelForField(row.box))) label->setText(row.label);
    row.box->setToolTip(row.option + QStringLiteral(": ") + row.tip);
  }
  temperature_->setSpecialValueText(tr("0 (greedy)"));
  top_k_->setSpecialValueText(tr("all"));
  cache_window_->setSpecialValueText(tr("full"));
  int8_->setText(tr("int8 activations (faster, as llama.cpp)"));
  int8_->setToolTip(QStringLiteral("--int8-activations: ") +
                    tr("Multiply Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS weights by activations rounded to "
                       "int8, prompts and steps alike, as llama.cpp does: faster, but not float32's numbers "
                       "(the picture says so)"));
}

void GenerateBox::toggle(const options::LabSettings& settings) {
  if (running_) {
    stop();
    return;
  }
  const options::GenerateSettings choices = generateSettings();
  try {
    // The CLI's rule, at once (the run library checks it again before generating).
    options::checkGenerateChoices(choices, choices.top_k != 0, choices.seed != 0);
  } catch (const options::OptionError& e) {
    message_->setText(e.message().translated());
    return;
  }
  running_ = true;
  stop_ = std::make_shared<std::atomic<bool>>(false);
  drawn_ = std::make_shared<QSemaphore>(0);
  step_render_ = -1;
  message_->clear();
  retranslate();
  QPointer<GenerateBox> self(this);
  const std::shared_ptr<std::atomic<bool>> stop = stop_;
  const std::shared_ptr<QSemaphore> drawn = scheduler_ ? drawn_ : nullptr;
  watcher_.setFuture(
      QtConcurrent::run(&pool_, [self, stop, drawn, settings, choices]() -> ResultPtr {
        ResultPtr last;
        try {
          run::Session session;  // the model comes from the process's ModelCache (no second copy)
          const run::GenerateRequest request{settings, choices, choices.top_k != 0,
                                             choices.seed != 0, std::nullopt};
          session.generate(request, [&](const std::shared_ptr<const results::Generated>& g) {
            last = stepResult(*g);
            QMetaObject::invokeMethod(
                self.data(),
                [self, last] {
                  if (!self) return;
                  if (self->scheduler_) self->step_render_ = self->scheduler_->renders();
                  emit self->stepped(last);
                },
                Qt::QueuedConnection);
            // The next step once this one is on screen (or after kStepWaitMs: a window that draws
            // nothing, a step it did not take).
            if (drawn && !stop->load()) drawn->tryAcquire(1, kStepWaitMs);
            return !stop->load();
          });
        } catch (const run::LoadFailure& e) {
          auto failed = std::make_shared<ComputeResult>();
          failed->error = e.message();
          return failed;
        } catch (const options::OptionError& e) {
          auto failed = std::make_shared<ComputeResult>();
          failed->error = e.message();
          return failed;
        } catch (const std::exception& e) {
          auto failed = std::make_shared<ComputeResult>();
          failed->error = options::Message::verbatim(QString::fromStdString(e.what()));
          return failed;
        }
        return last;
      }));
}

void GenerateBox::stepDrawn() {
  if (step_render_ < 0 || !scheduler_ || scheduler_->renders() <= step_render_) return;
  step_render_ = -1;
  drawn_->release();
}

void GenerateBox::done() {
  running_ = false;
  step_render_ = -1;
  retranslate();
  const ResultPtr last = watcher_.result();
  if (last && last->failed()) {
    message_->setText(last->error.translated());
    emit finished(nullptr);
    return;
  }
  if (last && last->generated) {
    const Generation& g = *last->generated;
    QString text;
    for (const GenerationStep& s : g.steps) text += QString::fromStdString(s.token.label);
    message_->setText(tr("Generated %1 tokens: %2").arg(g.steps.size()).arg(text));
  }
  emit finished(last);
}

}  // namespace attnlab::gui
