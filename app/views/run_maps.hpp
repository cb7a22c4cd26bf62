#pragma once
/// \file run_maps.hpp
/// The pictures of one run or of two: a run's maps as drawn (the synthetic lab's heads, a model's
/// layers × heads, or a model's attention rollout), a difference A − B of two runs, and the
/// drawing and files of both. The CLI's render, --diff, --rollout and sweep and the window's
/// heads view and Compare all draw through these, from results::Run (results/attention.hpp).

#include <QStringList>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/difference.hpp"
#include "results/attention.hpp"
#include "views/compare.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"

class QCustomPlot;

namespace attnlab::views {

/// What one setting shows: maps over tokens (rows = queries, columns = keys).
struct RunMaps {
  /// One entry per layer shown (the synthetic lab: one), each [h, n_q, n_k]; a rollout: one entry
  /// with one "head", the rollout matrix. Special tokens already left out when hidden.
  std::vector<const AttentionResult*> layers;
  std::vector<int> layer_indices;  ///< The model layer of each entry (empty for the synthetic lab).
  QStringList query_tokens, key_tokens;  ///< As drawn: a model's display labels (results::Run).
  QStringList query_raw, key_raw;  ///< The tokens' own labels (files' query_token, key_token).
  RunLabel label;           ///< Spec (mechanism, mask, h, d_model, d_k, T), cross, model.
  std::optional<int> head;  ///< The head shown (--head N), or every head.
  bool rollout = false;     ///< layers holds the rollout through rollout_last.
  int rollout_first = 0, rollout_last = 0;
  bool special_hidden = false;       ///< Special tokens were left out (weights not renormalised).
  int layers_total = 0;              ///< A model's layers (0 for the synthetic lab).
  int model_heads = 0;               ///< h.
  std::shared_ptr<const void> keep;  ///< Owns what `layers` points into.
  std::vector<HeadRef> ablated;      ///< Heads ablated in the pass (marked on the model view).
};

/// The maps of run r as drawn: every head (head unset) or one (--head N, kept for a rollout so
/// that drawMaps refuses a head the rollout does not have); a model's every layer (entry unset)
/// or its entry `entry`; the rollout when r has one. The label holds the run's spec, facts (a
/// model's predictions, the synthetic lab's K/V groups) and the note when special tokens are
/// hidden.
RunMaps mapsOf(const std::shared_ptr<const results::Run>& r, std::optional<int> head,
               std::optional<int> entry = std::nullopt);

/// The words a sweep frame's title starts with: "d_k = 64", "T = 0.5", "8 heads", "layer 3",
/// "head 2", "seed = 7" (translated in the window). A parameter the title states anyway (d_k, T,
/// heads, mechanism) is written as the title writes it, from `shown` (the frame's resolved spec),
/// so the title says it once.
QString sweepLead(const options::OptionSpec& spec, const QString& value, const AttentionSpec& shown);

/// The default image size of the maps (a grid, one head, or the model view).
ImageSize defaultSize(const RunMaps& maps);
/// Draws the maps on plot (laid out for the plot's canvas size): the model view, a head grid or
/// one head; `lead` goes first in the title (a sweep frame's "d_k = 64").
void drawMaps(QCustomPlot& plot, const RunMaps& maps, const PictureOptions& picture,
              const QStringList& lead = {});

/// A difference A − B as drawn and written.
struct DifferenceMaps {
  std::vector<WeightDifference> layers;  ///< One per layer shown.
  std::vector<AttentionResult> results;  ///< The same as results the heatmaps draw.
  std::vector<int> layer_indices;        ///< As RunMaps (empty: the synthetic lab or a rollout).
  std::vector<int> heads_a, heads_b;     ///< The heads compared, map by map.
  QStringList query_tokens, key_tokens;  ///< As drawn (RunMaps).
  QStringList query_raw, key_raw;        ///< The tokens' own labels (RunMaps).
  QStringList title;  ///< views::differenceTitle's parts.
  int max_layer = 0;  ///< Entry of `layers` holding the largest |Δ|.
  bool special_hidden = false;
  const RunMaps* a = nullptr;  ///< The two sides (for the CSV's A and B columns).
  const RunMaps* b = nullptr;
};

/// Pairs the maps of A and B and subtracts them. Throws OptionError when they differ in tokens
/// ("the two settings give different tokens …"), in layers shown or in heads shown.
DifferenceMaps difference(const RunMaps& a, const RunMaps& b);
/// Draws Δ with the diverging scale symmetric around 0 and the difference's title.
void drawDifference(QCustomPlot& plot, const DifferenceMaps& d, Pool pool);
/// The default image size of a difference.
ImageSize defaultSize(const DifferenceMaps& d);
/// NPY of A − B: float32 [n_q, n_k] (one map), [h, n_q, n_k], or [L, h, n, n] (every layer).
void writeDifferenceNpy(const std::string& path, const DifferenceMaps& d);
/// CSV, long form, both settings and the difference:
/// [layer,]head_a,head_b,query,query_token,key,key_token,weight_a,weight_b,difference,masked;
/// a model's then query_label,key_label (the display labels beside the raw tokens).
void writeDifferenceCsv(const std::string& path, const DifferenceMaps& d);

}  // namespace attnlab::views
