#pragma once
/// \file model_fetch_dialog.hpp
/// File → Get models…: the models of the manifest (options/model_manifest.hpp) with their size,
/// licence and state (the path when fetched), a Fetch and a Cancel button and a progress bar. The
/// fetch is options::ModelFetch — the same code as `attention-lab-cli fetch-model` — whose pip
/// child process and hashing run from the event loop, so the window stays responsive. A model
/// preset that is not fetched (ModelSource::fetchRequested) opens the dialog on that model.

#include <QDialog>
#include <QString>

#include "options/message.hpp"

class QLabel;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace attnlab::options {
class ModelFetch;
}

namespace attnlab::gui {

class ModelFetchDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ModelFetchDialog(QWidget* parent = nullptr);

  /// Shows the dialog with model `name` (a manifest name or alias) selected; empty: the first.
  void showModel(const QString& name);
  /// Shows the dialog and starts fetching `name` (nothing when another fetch runs).
  void fetch(const QString& name);
  /// Whether a fetch is running.
  bool fetching() const;

 signals:
  /// `name` (the manifest's short name) is fetched and verified at `path`.
  void fetched(const QString& name, const QString& path);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslate();
  /// The list's rows: name, size, licence, state; keeps the selection.
  void refill();
  /// The selected model's short name, or empty.
  QString selected() const;
  void startSelected();
  void updateButtons();
  void showSelection();

  options::ModelFetch* fetch_ = nullptr;
  QTreeWidget* list_ = nullptr;
  QLabel* about_ = nullptr;     ///< The selected model: description, licence, notice.
  QLabel* stage_ = nullptr;     ///< What the fetch does now.
  QLabel* message_ = nullptr;   ///< The last failure (one line, translated).
  QProgressBar* progress_ = nullptr;
  QPushButton* fetch_button_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QPushButton* close_button_ = nullptr;
  QString fetching_;            ///< The model being fetched.
  options::Message last_stage_;
  options::Message last_failure_;
};

}  // namespace attnlab::gui
