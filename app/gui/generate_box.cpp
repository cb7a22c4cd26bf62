/// \file generate_box.cpp
/// The Generate control: generate() on a one-thread pool, each step drawn through run::showPass.

#include "generate_box.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QMetaObject>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "attnlab/error.hpp"
#include "attnlab/generate.hpp"
#include "options/option_table.hpp"

namespace attnlab::gui {
namespace {

constexpr int kDefaultTokens = 16;

/// The grown matrix after the steps so far, as a result the window draws: a pass over the tokens
/// read (prompt + steps − 1), the rows from grownAttention, the last step's predictions.
ResultPtr stepResult(const options::LabSettings& settings, const std::shared_ptr<const ModelInfo>& info,
                     const PretrainedModel& model, const std::shared_ptr<const Generation>& g) {
  auto pass = std::make_shared<ModelRun>();
  pass->attention = grownAttention(*g);
  const int n = pass->attention.front().nQ();
  pass->encoding = labelIds(model.tokenizer(), std::vector<int>(g->ids.begin(), g->ids.begin() + n));
  pass->layers = g->layers;
  pass->kv_heads = info->config.resolvedKvHeads();
  for (int i = 0; i < info->config.heads; ++i)
    pass->kv_head.push_back(i / std::max(1, info->config.heads / pass->kv_heads));
  pass->next_tokens = g->steps.back().top;
  pass->compute_ms = g->prefill_ms;
  for (const GenerationStep& s : g->steps) pass->compute_ms += s.ms;
  auto result = std::make_shared<ComputeResult>();
  result->settings = settings;
  result->model = info;
  run::showPass(*result, std::move(pass), info->config);
  result->generated = g;
  summarize(*result);
  result->total_ms = result->run.compute_ms;
  return result;
}

}  // namespace

GenerateBox::GenerateBox(QWidget* parent) : QWidget(parent) {
  pool_.setMaxThreadCount(1);
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
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("generateMessage"));
  message_->setWordWrap(true);
  layout->addWidget(message_);
  connect(&watcher_, &QFutureWatcher<ResultPtr>::finished, this, &GenerateBox::done);
  retranslate();
}

GenerateBox::~GenerateBox() {
  stop_->store(true);
  pool_.waitForDone();
}

int GenerateBox::maxTokens() const { return tokens_->value(); }

void GenerateBox::setAvailable(bool available) {
  setEnabled(available || running_);
}

void GenerateBox::retranslate() {
  button_->setText(running_ ? tr("Stop") : tr("Generate"));
  button_->setToolTip(tr("Generate tokens after the text with the model's KV cache (greedy), one row at a time"));
  tokens_->setSuffix(tr(" tokens"));
  tokens_->setToolTip(tr("New tokens at most (it stops earlier at an end-of-sequence token or the context)"));
}

void GenerateBox::toggle(const options::LabSettings& settings) {
  if (running_) {
    stop();
    return;
  }
  running_ = true;
  stop_ = std::make_shared<std::atomic<bool>>(false);
  message_->clear();
  retranslate();
  QPointer<GenerateBox> self(this);
  const std::shared_ptr<std::atomic<bool>> stop = stop_;
  const int max_tokens = maxTokens();
  watcher_.setFuture(QtConcurrent::run(&pool_, [self, stop, settings, max_tokens]() -> ResultPtr {
    ResultPtr last;
    try {
      run::Session session;  // the model comes from the process's ModelCache (no second copy)
      const std::shared_ptr<const ModelInfo> info = session.model(settings.model_dir);
      const PretrainedModel& model = *session.pretrained();
      const Encoding prompt = model.encode(settings.text.toUtf8().toStdString(), std::nullopt);
      GenerateOptions go;
      go.max_tokens = max_tokens;
      go.run = settings.toModelOptions();
      go.on_progress = [&](const Generation& g) {
        last = stepResult(settings, info, model, std::make_shared<const Generation>(g));
        QMetaObject::invokeMethod(
            self.data(), [self, last] { if (self) emit self->stepped(last); }, Qt::QueuedConnection);
        return !stop->load();
      };
      generate(model, prompt, go);
    } catch (const run::LoadFailure& e) {
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

void GenerateBox::done() {
  running_ = false;
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
