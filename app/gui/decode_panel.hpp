#pragma once
/// \file decode_panel.hpp
/// The KV-cache decoding panel (View → KV-cache decoding): a step slider and a play button reveal
/// the heads' rows one query at a time, as autoregressive generation computes them, with the cache
/// drawn growing beside them (one square per cached token and K/V head; tokens a sliding window
/// evicted drawn grey) and its bytes. The rows are the causal result on screen, which
/// `attention-lab-cli decode` shows equals decoding with a cache (attnlab/decode.hpp). A cache bug
/// (the seeds' pitfall 4, `--cache-bug`/`--bug-step`) decodes the run's settings again with the
/// bug (run::Session::decode, the CLI's decode and its refusals, on the panel's one-thread pool)
/// and shows the decoded rows: the lost token's column empty, the repeated
/// token's weight doubled, from the bug's step on; the step label says where rows differ. A
/// trained translator's run (issue 23) steps through its output characters the same way: row i
/// of the cross-attention (or decoder self-attention) appears when character i is written.

#include <QFutureWatcher>
#include <QThreadPool>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "attnlab/decode.hpp"
#include "attnlab/spec.hpp"
#include "compute_worker.hpp"
#include "run/run.hpp"

class QComboBox;
class QSpinBox;
class QLabel;
class QPushButton;
class QSlider;

namespace attnlab::gui {

/// Paints the KV cache at one step: a row of squares per K/V head, one per token 0 … t, filled
/// in the K/V head's colour when cached, grey (the pictures' masked colour) when evicted by the
/// window.
class CacheView : public QWidget {
  Q_OBJECT
 public:
  explicit CacheView(QWidget* parent = nullptr);
  /// step t (0-based), K/V heads G, window W (0: none), a cache bug that struck at bug_step, the
  /// first `sinks` tokens never evicted (a generation's attention sinks).
  void setState(int step, int kv_heads, int window, CacheBug bug = CacheBug::kNone, int bug_step = -1,
                int sinks = 0);
  /// The token of each entry drawn filled, in cache order: a duplicated token twice, a skipped
  /// one absent (drawn as a dashed gap), evicted ones absent.
  std::vector<int> entryTokens() const;
  /// The skipped token drawn as a gap at this step, or −1.
  int gapToken() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  int step_ = -1, kv_heads_ = 1, window_ = 0, sinks_ = 0;
  CacheBug bug_ = CacheBug::kNone;
  int bug_step_ = -1;
};

/// What decoding with a cache bug gave (run::Session::decode of the run's own settings).
struct DecodeOutcome {
  std::shared_ptr<const results::Decoded> decode;  ///< Null on error.
  ResultPtr shown;          ///< The run with the decoded rows as its weights.
  options::Message error;   ///< The refusal, in the command line's words.
};

/// The slider, the play button, the cache and its bytes.
class DecodePanel : public QWidget {
  Q_OBJECT
 public:
  explicit DecodePanel(QWidget* parent = nullptr);

  /// The result on screen: its tokens and spec. Step mode needs causal self-attention of the
  /// synthetic lab (`available`), a generation or a translator's output rows; otherwise the panel
  /// says why and reveals every row.
  /// result: the run itself (its inputs are decoded again when a cache bug is set).
  void setRun(const QStringList& tokens, const AttentionSpec& spec, bool available,
              ResultPtr result = nullptr);
  /// The cache bug (kNone: today's correct cache, the heads show the run) and its step (unset:
  /// the middle token, n / 2, as the command line). A step past the last token is refused inline
  /// with the command line's words; the last good picture stays.
  void setCacheBug(CacheBug bug, std::optional<int> step = std::nullopt);
  CacheBug cacheBug() const;
  /// The decoded rows with the bug, once computed for the current run and bug; else null.
  const DecodeResult* decoded() const { return outcome_.decode ? &outcome_.decode->decode : nullptr; }
  /// A decode with the cache bug is running.
  bool decoding() const { return decoding_; }
  /// Rows to show: step + 1 while the panel is shown and available, else −1 (every row).
  int revealedRows() const;
  /// Starts (from step 0 when at the end) or pauses the playback.
  void togglePlay();
  void setActive(bool active);  ///< The dock is visible: steps apply.
  void retranslate();

  QSlider* slider() const { return slider_; }
  QPushButton* playButton() const { return play_; }
  QLabel* cacheLabel() const { return cache_label_; }
  CacheView* cacheView() const { return cache_view_; }
  QComboBox* bugCombo() const { return bug_combo_; }
  QSpinBox* bugStepBox() const { return bug_step_; }
  QLabel* stepLabel() const { return step_label_; }
  QLabel* errorLabel() const { return error_label_; }

 signals:
  /// revealedRows() changed.
  void rowsChanged(int rows);
  /// What the heads show: the run with the decoded rows (a cache bug), or null: the run itself.
  void decodedChanged(attnlab::gui::ResultPtr shown);

 private:
  void refresh();
  /// The step label and the cache of a generation's row (its real cache: length, bytes).
  void refreshGeneration(int row);
  /// The step label of a translator's output row (what it read, wrote, with which probability).
  void refreshTranslation(int row);
  /// Shows the cache bug's controls and the cache (not for a translator's steps).
  void showCacheParts(bool shown);
  void advance();
  void startDecode();
  void decodeDone();
  QString bugText() const;

  QStringList tokens_;
  AttentionSpec spec_;
  bool available_ = false, active_ = false;
  int last_rows_ = -2;
  QLabel* intro_ = nullptr;
  QSlider* slider_ = nullptr;
  QPushButton* play_ = nullptr;
  QLabel* step_label_ = nullptr;
  CacheView* cache_view_ = nullptr;
  QLabel* cache_label_ = nullptr;
  QLabel* bug_label_ = nullptr;
  QComboBox* bug_combo_ = nullptr;
  QLabel* bug_step_label_ = nullptr;
  QSpinBox* bug_step_ = nullptr;
  QLabel* error_label_ = nullptr;
  bool bug_step_given_ = false;  ///< The step was chosen (else it follows the middle token).
  ResultPtr run_;
  std::shared_ptr<const Generation> generation_;  ///< The run's generation, when it is one.
  /// A trained translator's translation (rows = its outputs), when the run is one.
  std::shared_ptr<const Translation> translation_;
  DecodeOutcome outcome_;        ///< The last good decode (kept while a refusal shows).
  bool decoding_ = false;
  /// Decodes off the GUI thread, one at a time, through the panel's own session (its synthetic
  /// weights come from the process's model cache, the window's own copy).
  QThreadPool pool_;
  std::shared_ptr<run::Session> session_ = std::make_shared<run::Session>();
  QFutureWatcher<DecodeOutcome> watcher_;
  QTimer timer_;
};

}  // namespace attnlab::gui
