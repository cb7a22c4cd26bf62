#pragma once
/// \file generate_box.hpp
/// The window's Generate control (issue 24): with a decoder model shown, "Generate" runs
/// run::Session::generate (the CLI's generate: greedy or sampled, the model's KV cache with its
/// window and sink tokens) on the prompt off the GUI thread; after every step the causal matrix
/// as it grew comes back as a ComputeResult whose run the library built like a forward pass, so
/// the heads, the model view and the next-token line draw it; the button reads Stop while it runs
/// (the step hook returning false cancels). Refusals (an encoder, a prompt beyond the context) show
/// inline in the engine's words, as the CLI prints them; the choices (sample temperature, seed,
/// top-k, cache window, sink tokens) take the CLI's limits and are checked by its rule
/// (options::checkGenerateChoices), refused inline in its words. Each step waits until the
/// window has drawn the one before (at most kStepWaitMs), so every token is drawn (issue 50).

#include <QCheckBox>
#include <QFutureWatcher>
#include <QSemaphore>
#include <QThreadPool>
#include <QWidget>
#include <atomic>
#include <memory>

#include "compute_worker.hpp"
#include "options/options.hpp"
#include "render_scheduler.hpp"

class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnlab::gui {

/// How long a generated step waits at most for the window to draw the step before it, ms.
inline constexpr int kStepWaitMs = 250;

/// The Generate / Stop button, the max-tokens box, the sampling and cache choices and the
/// message line.
class GenerateBox : public QWidget {
  Q_OBJECT
 public:
  /// scheduler: the window's; each step then waits until the window has drawn the one before
  /// (every token drawn, issue 50), at most kStepWaitMs. Null: the steps do not wait.
  explicit GenerateBox(RenderScheduler* scheduler = nullptr, QWidget* parent = nullptr);
  ~GenerateBox() override;

  /// Starts generating after settings.text with settings.model_dir (up to maxTokens() tokens);
  /// a generation already running is stopped instead.
  void toggle(const options::LabSettings& settings);
  /// True while a generation runs.
  bool running() const { return running_; }
  /// Stops the running generation after its current step.
  void stop() {
    stop_->store(true);
    drawn_->release();  // a step waiting to be drawn goes on to stop
  }
  int maxTokens() const;
  /// The choices as the CLI's generate options (--max-tokens, --sample-temperature, --seed,
  /// --top-k, --cache-window (0: none, the full cache), --sink-tokens).
  options::GenerateSettings generateSettings() const;
  /// Sets the boxes from g (the first cache window and sink count; limits clamp as the boxes do).
  void setGenerateSettings(const options::GenerateSettings& g);
  /// The "int8 activations" check box (LabSettings::int8_activations: the window's runs and
  /// generations, as --int8-activations makes the CLI's).
  bool int8Activations() const;
  void setInt8Activations(bool on);
  void setAvailable(bool available);  ///< A model is shown (the synthetic lab cannot generate).
  void retranslate();

  QPushButton* button() const { return button_; }
  QSpinBox* tokensBox() const { return tokens_; }
  QDoubleSpinBox* temperatureBox() const { return temperature_; }
  QDoubleSpinBox* seedBox() const { return seed_; }
  QSpinBox* topKBox() const { return top_k_; }
  QSpinBox* cacheWindowBox() const { return cache_window_; }
  QSpinBox* sinksBox() const { return sinks_; }
  QLabel* messageLabel() const { return message_; }

 signals:
  /// A step's grown matrix, ready to draw (GUI thread); result->generated holds the steps.
  void stepped(attnlab::gui::ResultPtr result);
  /// The generation ended (GUI thread): its last result (null when refused).
  void finished(attnlab::gui::ResultPtr last);

 private:
  void done();
  /// The window drew the step it was given last (its redraw and replots are done).
  void stepDrawn();

  QPushButton* button_ = nullptr;
  QSpinBox* tokens_ = nullptr;
  QFormLayout* form_ = nullptr;
  QDoubleSpinBox* temperature_ = nullptr;
  QDoubleSpinBox* seed_ = nullptr;  // a double holds every seed up to 2^53 exactly
  QSpinBox* top_k_ = nullptr;
  QSpinBox* cache_window_ = nullptr;
  QSpinBox* sinks_ = nullptr;
  QCheckBox* int8_ = nullptr;  ///< --int8-activations
  QLabel* message_ = nullptr;
  bool running_ = false;
  RenderScheduler* scheduler_ = nullptr;
  /// Released once per drawn step; the generation's thread waits on it before the next step.
  std::shared_ptr<QSemaphore> drawn_ = std::make_shared<QSemaphore>(0);
  /// scheduler_->renders() when the last step was handed to the window, or −1: none waiting.
  int step_render_ = -1;
  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  QThreadPool pool_;
  QFutureWatcher<ResultPtr> watcher_;
};

}  // namespace attnlab::gui
