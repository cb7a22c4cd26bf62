#pragma once
/// \file decode_panel.hpp
/// The KV-cache decoding panel (View → KV-cache decoding): a step slider and a play button reveal
/// the heads' rows one query at a time, as autoregressive generation computes them, with the cache
/// drawn growing beside them (one square per cached token and K/V head; tokens a sliding window
/// evicted drawn hollow) and its bytes. The rows are the causal result on screen, which
/// `attention-lab-cli decode` shows equals decoding with a cache (attnlab/decode.hpp).

#include <QStringList>
#include <QTimer>
#include <QWidget>

#include "attnlab/spec.hpp"

class QLabel;
class QPushButton;
class QSlider;

namespace attnlab::gui {

/// Paints the KV cache at one step: a row of squares per K/V head, one per token 0 … t, filled
/// when cached, hollow when evicted by the window.
class CacheView : public QWidget {
  Q_OBJECT
 public:
  explicit CacheView(QWidget* parent = nullptr);
  /// step t (0-based), K/V heads G, window W (0: none).
  void setState(int step, int kv_heads, int window);
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  int step_ = -1, kv_heads_ = 1, window_ = 0;
};

/// The slider, the play button, the cache and its bytes.
class DecodePanel : public QWidget {
  Q_OBJECT
 public:
  explicit DecodePanel(QWidget* parent = nullptr);

  /// The result on screen: its tokens and spec. Step mode needs causal self-attention of the
  /// synthetic lab (`available`); otherwise the panel says why and reveals every row.
  void setRun(const QStringList& tokens, const AttentionSpec& spec, bool available);
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

 signals:
  /// revealedRows() changed.
  void rowsChanged(int rows);

 private:
  void refresh();
  void advance();

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
  QTimer timer_;
};

}  // namespace attnlab::gui
