#pragma once
/// \file picture.hpp
/// What every picture shares: the translated picture text, the colours (viridis, the diverging
/// map, masked, [PAD], non-finite, K/V groups), what a title says about a run (RunLabel,
/// ModelFacts, PictureTitle), the canvas a plot is laid out for, and the font scale.

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QSize>
#include <QString>
#include <QStringList>
#include <vector>

#include "attnlab/pretrained.hpp"
#include "attnlab/spec.hpp"

class QCustomPlot;
class QCPColorGradient;
class QCPAxisRect;
class QCPGraph;
class QCPLegend;

namespace attnlab::views {

/// Text drawn in the pictures (titles, axis names, legends), translated in context
/// "attnlab::views" when the application has installed a translator (the window's Chinese UI);
/// the CLI installs none and draws English.
inline QString viewText(const char* source) {
  return QCoreApplication::translate("attnlab::views", source);
}

/// The perceptually uniform colour map used for attention weights (stops sampled from matplotlib's
/// viridis, van der Walt & Smith 2015). t in [0, 1] → dark purple … yellow.
QColor viridis(double t);
/// viridis as a QCPColorGradient for QCPColorMap; NaN cells (masked) draw in kMaskedColor.
QCPColorGradient viridisGradient();
/// The diverging map of the "relative to uniform" scale: blue (below uniform) … near-white
/// (uniform) … red (above), ColorBrewer RdBu (Harrower & Brewer 2003); NaN in kMaskedDarkColor.
QCPColorGradient divergingGradient();
/// Colour of masked cells: a light grey outside the viridis range, so a masked cell is never
/// mistaken for a weight of 0 (dark purple).
inline const QColor kMaskedColor{0xd4, 0xd4, 0xd4};
/// Masked cells on the diverging scale, whose middle is near-white.
inline const QColor kMaskedDarkColor{0x9c, 0x9c, 0x9c};
/// The hatching over [PAD] query rows (key padding), dark enough to show on every colour.
inline const QColor kPaddingHatchColor{0xff, 0xff, 0xff, 0xc8};

/// Cells whose weight is ±inf or NaN (a reduced-precision or naive softmax overflowed, issue 13):
/// magenta, outside both the viridis and the diverging palettes and never the masked grey.
inline const QColor kNonfiniteColor{0xe6, 0x00, 0x7e};
/// The × drawn over a cell that dropout zeroed (issue 13): black under white, seen on any colour.
inline const QColor kDroppedMarkColor{0xff, 0xff, 0xff};

/// One next-token prediction as a picture shows it.
struct ShownPrediction {
  QString label;            ///< The token's display label ("␣because"; "⋯" for the start of a
                            ///< character, attnlab::displayToken).
  double probability = 0;   ///< In [0, 1].
  /// What it holds of a character it cuts (characterPartsText: "start of a character: EF BC");
  /// empty for a token of whole characters.
  QString note;
};

/// What a picture of a pretrained model says besides its weights: which query heads share a K/V
/// head (grouped-query attention, Ainslie et al. 2023, §2), the float32 KV cache per token that
/// saves, and the model's most probable next tokens after the last position.
struct ModelFacts {
  /// For each query head, the K/V head it reads (ModelRun::kv_head, ⌊i·G/h⌋). The groups are
  /// marked (frame colours, and in the model view one labelled box per group) only when there are
  /// fewer K/V heads than query heads; empty = nothing marked.
  std::vector<int> kv_head;
  long long kv_cache_bytes = 0;      ///< Bytes per token of this model's KV cache; 0 = not said.
  long long mha_kv_cache_bytes = 0;  ///< The same with one K/V head per query head.
  std::vector<ShownPrediction> next_tokens;  ///< Most probable first; empty = none drawn.
  /// For each layer of the model, its sliding window in keys (ModelConfig::layer_window: W > 0
  /// lets query i see keys i − W < j ≤ i; 0 = global); empty = no layer has a window.
  std::vector<int> layer_window;

  /// The window of model layer l (0: global, also past the end of layer_window).
  int windowOf(int l) const {
    return l >= 0 && l < static_cast<int>(layer_window.size()) ? layer_window[static_cast<std::size_t>(l)] : 0;
  }
  /// True when some layer has a sliding window (the layer titles then say local or global).
  bool windowed() const;
  /// Distinct K/V heads G (0 when kv_head is empty).
  int kvHeads() const;
  /// True when the groups are marked: G < h query heads.
  bool grouped() const;
};

/// The facts of a model's run: run.kv_head, the config's KV-cache bytes per token (with and
/// without GQA) and run.next_tokens.
ModelFacts modelFacts(const ModelRun& run, const ModelConfig& config);
/// The facts of a synthetic-lab spec: each query head's K/V head (kvHeadOf) and the float32 KV
/// cache of its one layer per token, G·(d_k + d_v)·4 bytes beside h·(d_k + d_v)·4.
ModelFacts syntheticFacts(const AttentionSpec& spec);

/// The colour that marks K/V head `group` (Okabe & Ito's colour-blind-safe palette, yellow left
/// out: vermillion, blue, bluish green, reddish purple, orange, sky blue, black, grey; repeats
/// after 8). Neighbouring groups never share a colour.
QColor kvGroupColor(int group);
/// kvGroupColor darkened for text on white (a group's title).
QColor kvGroupTextColor(int group);

/// "next token (top 5): “␣because” 41.2% · “.” 12.0% · “⋯” (start of a character: EF BC) 5.8%
/// · …" (empty for no predictions).
QString nextTokensText(const std::vector<ShownPrediction>& predictions);

/// The title of model layer l: "layer 3" — or, when facts.windowed(), "layer 3 · local 512"
/// (a sliding window of 512 keys) or "layer 5 · global".
QString layerTitle(int l, const ModelFacts& facts);

/// The grouped-query-attention note of a picture: "grouped-query attention: 9 query heads share
/// 3 K/V heads (one frame colour per K/V head) · KV cache 46 080 bytes per token (138 240 with
/// one K/V head per query head)" — "multi-query attention: 4 query heads share 1 K/V head …"
/// when G = 1 (Shazeer 2019); empty unless facts.grouped().
QString kvGroupsNote(const ModelFacts& facts);

/// A byte count with its thousands apart: "46 080".
QString bytesText(long long bytes);

/// What the heatmap title says about the run.
struct RunLabel {
  AttentionSpec spec;        ///< mechanism, d_k (resolved), temperature.
  bool cross = false;        ///< cross-attention (queries from target, keys from source).
  QString model;             ///< A pretrained model's name; empty for the synthetic lab.
  std::optional<int> layer;  ///< The model layer a one-layer picture shows.
  QString note;              ///< Appended to the title when not empty.
  ModelFacts facts;          ///< K/V groups (syntheticFacts or modelFacts) and a model's
                             ///< predictions (drawn under the maps).
  int pad_tokens = 0;        ///< The last pad_tokens query rows are [PAD] padding (hatched).
};

/// `note` with " · " and the words that a model ran with int8 activations
/// (LabSettings::int8_activations) appended: the picture says its numbers are not float32's.
QString withInt8Note(const QString& note);

/// The variant parts of a synthetic run's title: "GQA 8 q / 2 kv" (or "MQA …"), the position
/// scheme when not sinusoidal ("RoPE", "ALiBi", "no positions"), "window 4", "2 global",
/// "stride 3", "padded to 20" with "[PAD] keys unmasked" when the padding mask is off.
/// `pattern` is the result's (its valid_keys says whether [PAD] keys are masked).
QStringList variantTitleParts(const AttentionSpec& spec, const MaskPattern& pattern, int pad_tokens,
                              int n_q);

/// Words a picture's title and colour bar take besides (or instead of) the run's own, stored on
/// the plot (like setFontScale) and used by every following drawHeatmap, drawHeadGrid,
/// drawModelGrid and updateWeights until set again (an empty PictureTitle clears them).
struct PictureTitle {
  QStringList lead;     ///< Parts put first: a sweep frame's "d_k = 64".
  /// Not empty: replaces the run's parts (model · layer · heads · mechanism · d_k) — a
  /// difference's "Δ = A − B · A: … · B: …", a rollout's description. Tokens, overview, mask,
  /// cross-attention and the note follow as usual.
  QStringList replace;
  QString bar_title;    ///< Not empty: the colour bar's title ("rollout weight").
};
void setPictureTitle(QCustomPlot& plot, const PictureTitle& title);
PictureTitle pictureTitle(const QCustomPlot& plot);

/// The mechanism as a title names it, its scaling included: "scaled dot-product", "dot-product,
/// unscaled", "additive"; with a temperature "dot-product · T = 2" (T replaces the scale).
QString mechanismTitle(const AttentionSpec& spec);
/// The width a title names beside the mechanism: "d_k = 64" for dot-product and linear
/// attention, "d_a = 64" for additive attention (the hidden size of vᵀ tanh(W_a s + U_a h),
/// Bahdanau et al. 2015, appendix A; spec.resolvedDa()).
QString widthTitle(const AttentionSpec& spec);

/// The scaling alone, as the saturation plot's legend says it: "scaled 1/√d_k", "unscaled",
/// "T = 2", "additive".
QString scalingText(const AttentionSpec& spec);

/// Empties plot: removes every plottable, item and layout element drawn before, including the
/// default axis rect and legend (plot.xAxis … plot.yAxis2 and plot.legend are null afterwards
/// until a draw* call sets them again). Every draw* function starts with this.
void clearPlot(QCustomPlot& plot);

/// The size the next heatmap draw lays out for. Exports set it to the image size before drawing
/// (exportPlot refuses to write a heatmap drawn for another size); a plot on screen without one
/// uses its widget size. An invalid size clears it.
void setCanvasSize(QCustomPlot& plot, const QSize& size);
/// The size draw functions lay out for: setCanvasSize's, else the visible widget's, else fallback.
QSize canvasSize(const QCustomPlot& plot, const QSize& fallback);

/// Multiplies every font size the draw* functions use for `plot` by `factor` (1, the default, is
/// what the CLI draws; the window's presentation mode uses about 1.6). Stored on the plot, so it
/// applies to the next draw* call. Non-positive or non-finite factors reset it to 1.
void setFontScale(QCustomPlot& plot, double factor);
/// The factor set by setFontScale (1 when none was set).
double fontScale(const QCustomPlot& plot);
/// The plot's font at `points` × fontScale(plot) points (bold when asked): the size every draw*
/// function writes its texts in.
QFont scaledFont(const QCustomPlot& plot, double points, bool bold = false);
/// The legend row of a plot laid out as title (row 0) over `rect` (row 1): puts `legend` in row 2
/// on the "legend" layer, in `font`, without a border, with 36 × 14 px icons, taking only the
/// height it needs, and lists `graphs` in it; then makes rect's four axes and the legend the
/// plot's own (plot.xAxis, yAxis, xAxis2, yAxis2, legend). The training and saturation plots.
void attachLegendRow(QCustomPlot& plot, QCPAxisRect* rect, QCPLegend* legend, const QFont& font,
                     const std::vector<QCPGraph*>& graphs);

}  // namespace attnlab::views
