#pragma once
/// \file comparison.hpp
/// "Compare with…": the window's difference maps. The second setting B is the current one with
/// OPTIONS applied on top — the same words and the same parser as `render --diff "OPTIONS"`
/// (options/variants.hpp) — computed on a worker of its own beside the current setting A, so the
/// heads view can draw A − B whenever both are there. The dialog offers the usual comparisons
/// (scaling off or on, another head, the causal mask, another temperature, the next layer) and
/// checks typed OPTIONS as they are typed.

#include <QDialog>
#include <QObject>
#include <memory>
#include <optional>

#include "views/run_maps.hpp"
#include "compute_worker.hpp"

class QLabel;
class QLineEdit;
class QDialogButtonBox;

namespace attnlab::gui {

/// B's computation and what A − B needs from it.
class CompareController : public QObject {
  Q_OBJECT
 public:
  explicit CompareController(QObject* parent = nullptr);
  ~CompareController() override;

  /// Starts comparing with OPTIONS ("" stops). Does not compute: request() does.
  void setOptions(const QString& options);
  const QString& options() const { return options_; }
  bool active() const { return !options_.isEmpty(); }
  /// Computes B for A's settings a (with each request of A). When OPTIONS do not apply to a,
  /// error() says why (translated on screen) and nothing is computed.
  void request(const options::LabSettings& a);
  /// The newest B, or null.
  ResultPtr result() const { return result_; }
  /// Why B cannot be computed for the last request (empty when it can).
  const options::Message& error() const { return error_; }
  /// The head OPTIONS name (--head M), if any.
  std::optional<int> headB() const { return head_b_; }
  /// True when result() was computed for A's settings a.
  bool matches(const options::LabSettings& a) const;

 signals:
  /// A new B arrived (or B's error changed): draw again.
  void changed();

 private:
  std::unique_ptr<ComputeController> controller_;
  QString options_;
  ResultPtr result_;
  options::Message error_;
  std::optional<int> head_b_;
  options::LabSettings requested_for_;  ///< A's settings of the newest request.
};

/// The maps of a window result as the difference takes them (views::mapsOf): every head (head
/// unset) or one; the model view's every layer (entry unset) or one entry; a rollout (every
/// "head" of it, whatever head is enlarged) when the result has one.
views::RunMaps mapsOf(const ResultPtr& result, std::optional<int> head, std::optional<int> entry);

/// Asks for OPTIONS, with buttons for the usual comparisons of the current setting and the
/// refusal of bad OPTIONS inline, in the words of the command line.
class CompareDialog : public QDialog {
  Q_OBJECT
 public:
  /// current: A's settings; head: the enlarged head (−1: every head); model_layers: > 0 for a
  /// model.
  CompareDialog(QWidget* parent, const options::LabSettings& current, int head, int model_layers,
                const QString& options);
  QString options() const;

 private:
  void check();

  options::LabSettings current_;
  int head_ = -1;
  QLineEdit* edit_ = nullptr;
  QLabel* problem_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace attnlab::gui
