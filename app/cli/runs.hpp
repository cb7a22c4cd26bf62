#pragma once
/// \file runs.hpp
/// Internal to attention-lab-cli (and the window's sweep export and comparison): the pictures of
/// one or several settings over the same tokens — a setting's maps (the synthetic lab's heads, a
/// model's layers × heads, or a model's attention rollout), a difference A − B of two settings,
/// and the drawing and files of both. A Runner keeps what settings share (the backend, the
/// synthetic weights, loaded models), so a sweep's frames and a difference's two sides compute
/// each only once.

#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/difference.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/synthetic.hpp"
#include "options/options.hpp"
#include "views/views.hpp"

class QCustomPlot;

namespace attnlab::cli {

/// What one setting shows: maps over tokens (rows = queries, columns = keys).
struct RunMaps {
  /// One entry per layer shown (the synthetic lab: one), each [h, n_q, n_k]; a rollout: one entry
  /// with one "head", the rollout matrix. Special tokens already left out when hidden.
  std::vector<const AttentionResult*> layers;
  std::vector<int> layer_indices;  ///< The model layer of each entry (empty for the synthetic lab).
  QStringList query_tokens, key_tokens;
  views::RunLabel label;    ///< Spec (mechanism, mask, h, d_model, d_k, T), cross, model.
  std::optional<int> head;  ///< The head shown (--head N), or every head.
  bool rollout = false;     ///< layers holds the rollout through rollout_last.
  int rollout_first = 0, rollout_last = 0;
  bool special_hidden = false;       ///< Special tokens were left out (weights not renormalised).
  int layers_total = 0;              ///< A model's layers (0 for the synthetic lab).
  int model_heads = 0;               ///< h.
  std::shared_ptr<const void> keep;  ///< Owns what `layers` points into.
};

/// Computes settings, reusing the backend, the synthetic weights and loaded models.
class Runner {
 public:
  /// err: where notes go ("computed on the CPU: …" when --backend opencl fell back).
  explicit Runner(std::ostream& err);
  ~Runner();
  /// The maps of settings o (command render or sweep frame): runs the synthetic lab or the
  /// model (loaded once per path), applies --hide-special and --rollout. Throws OptionError
  /// (bad text, layer …) and Error (model files, backend).
  RunMaps maps(const options::Options& o);
  /// A model's layer count after loading it (for a sweep over every layer); 0 for the lab.
  int modelLayers(const options::Options& o);
  /// A model's heads after loading it; 0 for the lab.
  int modelHeads(const options::Options& o);

 private:
  Backend& backend(const options::LabSettings& lab);
  PretrainedModel& model(const options::LabSettings& lab);

  std::ostream& err_;
  std::unique_ptr<Backend> backend_;
  QString backend_key_;
  std::unique_ptr<SyntheticModel> synthetic_;
  std::map<QString, std::unique_ptr<PretrainedModel>> models_;
};

/// Progress of a long forward pass, for ModelRunOptions::progress: "attention-lab-cli: layer 12
/// of 30, 4.1 s" rewritten in place on stderr when stderr is a terminal and the pass has run for
/// a second (erased when the pass ends); nothing otherwise. Never cancels.
std::function<bool(int done, int total)> terminalProgress();

/// The default image size of the maps (a grid, one head, or the model view).
views::ImageSize defaultSize(const RunMaps& maps);
/// Draws the maps on plot (laid out for the plot's canvas size): the model view, a head grid or
/// one head; `lead` goes first in the title (a sweep frame's "d_k = 64").
void drawMaps(QCustomPlot& plot, const RunMaps& maps, const views::PictureOptions& picture,
              const QStringList& lead = {});

/// A difference A − B as drawn and written.
struct DifferenceMaps {
  std::vector<WeightDifference> layers;  ///< One per layer shown.
  std::vector<AttentionResult> results;  ///< The same as results the heatmaps draw.
  std::vector<int> layer_indices;        ///< As RunMaps (empty: the synthetic lab or a rollout).
  std::vector<int> heads_a, heads_b;     ///< The heads compared, map by map.
  QStringList query_tokens, key_tokens;
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
void drawDifference(QCustomPlot& plot, const DifferenceMaps& d, views::Pool pool);
/// The default image size of a difference.
views::ImageSize defaultSize(const DifferenceMaps& d);
/// NPY of A − B: float32 [n_q, n_k] (one map), [h, n_q, n_k], or [L, h, n, n] (every layer).
void writeDifferenceNpy(const std::string& path, const DifferenceMaps& d);
/// CSV, long form, both settings and the difference:
/// [layer,]head_a,head_b,query,query_token,key,key_token,weight_a,weight_b,difference.
void writeDifferenceCsv(const std::string& path, const DifferenceMaps& d);

}  // namespace attnlab::cli
