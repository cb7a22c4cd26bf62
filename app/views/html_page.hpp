#pragma once
/// \file html_page.hpp
/// The interactive page: one self-contained HTML file (resources/html/view.html, compiled in as
/// ":/html/view.html") holding a view's data — every head's weights and scores as base64
/// IEEE 754 binary16 — its script and styles inline, the system's fonts, no network request and
/// no other file. `render --out FILE.html`, `generate --out FILE.html`, `lesson export --html`
/// and the window's File → Export write it.
///
/// Precision: binary16 keeps 11 significant bits, so an embedded value v of a weight or score x
/// satisfies |v − x| ≤ 2⁻¹¹·|x| (weights below 6.1e-5 are subnormal: |v − x| ≤ 2⁻²⁵); the page
/// shows 4 significant digits. Masked cells are NaN.

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/overview.hpp"
#include "results/attention.hpp"
#include "results/generation.hpp"
#include "views/picture_options.hpp"

namespace attnlab::views {

/// The largest page written, bytes (20 MiB); a larger one is refused with its size.
inline constexpr long long kHtmlLimitBytes = 20LL * 1024 * 1024;

/// The message for a page over the limit: %1 its size, %2 the limit (MB), %3 what to change.
inline constexpr const char* kHtmlTooLargeMessage = QT_TRANSLATE_NOOP(
    "attnlab::options",
    "the HTML file would be %1 MB; at most %2 MB (a shorter text, --layer L or --head N)");

/// One layer (or the synthetic lab's one result) of a view: full weights [h, n_q, n_k] with
/// their scores, or a pooled overview (PooledAttention) when the full data would not fit.
struct HtmlLayer {
  int index = -1;                           ///< The model layer (-1: the synthetic lab's one).
  const AttentionResult* result = nullptr;  ///< Full weights and scores, or null.
  std::shared_ptr<const PooledAttention> pooled;  ///< The overview, when result is null.
};

/// The steps of a generation (results::Generated): step k reveals the rows 0 … prompt + k − 1 of
/// the grown causal matrix and lists the next-token candidates predicted from its last row.
struct HtmlGeneration {
  struct Step {
    QString token;  ///< The token chosen (display label).
    double probability = 0;
    std::vector<std::pair<QString, double>> top;  ///< The top-k: display label, probability.
  };
  int prompt = 0;  ///< Prompt tokens (rows shown at step 0).
  std::vector<Step> steps;
};

/// A table of the page (a model run's interventions: the logit lens, the logit attribution,
/// patching): text in every cell, coloured by its value on a scale.
struct HtmlTable {
  QString title;
  QString note;           ///< Under the table, or empty.
  QStringList columns;    ///< Column headers.
  QStringList rows;       ///< Row headers.
  std::vector<QStringList> cells;      ///< [rows][columns]: the words shown.
  std::vector<std::vector<double>> values;  ///< [rows][columns]: the colour's value (NaN: none).
  bool diverging = false;  ///< Blue–white–red over [−max, max]; else viridis over [lo, hi].
  double lo = 0, hi = 1;
};

/// One view of the page: heads over tokens (rows = queries, columns = keys), or (a lesson step
/// without attention) a PNG figure; a lesson step's caption and prompt.
struct HtmlView {
  QString title;
  QString subtitle;                      ///< The run's description (model, spec), or empty.
  QString caption, try_this;             ///< A lesson step's text, else empty.
  QStringList query_labels, key_labels;  ///< The display labels, as the pictures draw them.
  std::vector<HtmlLayer> layers;         ///< Empty for a figure.
  int first_layer = 0;                   ///< The entry of `layers` shown first.
  ColorScale scale = ColorScale::kAuto;
  Pool pool = Pool::kMax;
  std::shared_ptr<const HtmlGeneration> generation;
  bool scores = true;  ///< Embed the scores (a generation's grown matrix holds weights alone).
  QByteArray png;      ///< A figure (PNG bytes) instead of maps, or empty.
  int png_width = 0, png_height = 0;
  std::shared_ptr<const void> keep;  ///< Owns what `layers` points into.
  QStringList notes;                 ///< Lines under the title (an ablation's before → after).
  std::vector<HtmlTable> tables;     ///< A model run's interventions, under the heads.
};

/// The page: one view, or a lesson's steps (Previous / Next).
struct HtmlPage {
  QString title;
  QString language = QStringLiteral("en");  ///< "en" or "zh_CN": lang and the page's words.
  bool lesson = false;
  std::vector<HtmlView> views;
};

/// The view of run r as the pictures show it (views::mapsOf): every head, or head `head`; a
/// model's every layer (its pooled overview when the run is pooled), or entry `entry`; the
/// display labels. The view keeps r alive.
HtmlView htmlViewOf(const std::shared_ptr<const results::Run>& r, std::optional<int> head,
                    std::optional<int> entry, ColorScale scale, Pool pool);

/// The view of a generation: the grown causal matrix of every kept layer (every head, or
/// `head`), with its steps (HtmlGeneration). The view keeps g alive.
HtmlView htmlViewOf(const std::shared_ptr<const results::Generated>& g, std::optional<int> head,
                    ColorScale scale);

/// Replaces, in every view whose full data would make the page larger than `limit` bytes, each
/// layer by its pooled overview (attnlab::poolWeights) at the smallest block that fits. Layers
/// already pooled are kept. The pooled layers are owned by the views.
void fitHtmlPage(HtmlPage& page, long long limit = kHtmlLimitBytes);

/// The page's bytes (UTF-8): the template with the data filled in. Throws OptionError
/// (kHtmlTooLargeMessage) when it is over `limit` bytes, Error(kInternal) when the template is
/// missing.
QByteArray htmlPageBytes(const HtmlPage& page, long long limit = kHtmlLimitBytes);

/// Writes htmlPageBytes(page) to path. Throws as htmlPageBytes, Error(kIo) when it cannot write.
/// Returns the bytes written.
long long writeHtmlPage(const HtmlPage& page, const QString& path,
                        long long limit = kHtmlLimitBytes);

/// IEEE 754 binary16 of x, round to nearest even (NaN → 0x7e00 or 0xfe00, beyond ±65504 → ±inf).
quint16 toHalf(float x);

/// The bits the page's data give a masked cell: a NaN (exponent 31) with payload 1, which toHalf
/// never returns, so a masked cell is never confused with a weight that overflowed.
inline constexpr quint16 kMaskedHalf = 0x7c01;

}  // namespace attnlab::views
