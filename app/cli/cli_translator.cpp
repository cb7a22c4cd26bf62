/// \file cli_translator.cpp
/// attention-lab-cli on a trained translator (issue 23): the compute JSON (the steps, the output,
/// every attention) and render --plot training (the loss curves of dates-transformer with and
/// without 1/√d_k). The run itself is run::Session's, the pictures views::mapsOf's.

#include <qcustomplot.h>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "options/bundled_models.hpp"
#include "views/export.hpp"
#include "views/training_plot.hpp"

namespace attnlab::cli {
namespace {

using json = nlohmann::json;

json tokenJson(const TranslatorToken& t) {
  return {{"id", t.id}, {"token", t.text}, {"probability", t.probability}, {"logit", t.logit}};
}

json matrix(const Tensor3& t, int head) {
  json rows = json::array();
  for (int i = 0; i < t.rows; ++i) rows.push_back(std::vector<float>(t.row(head, i), t.row(head, i) + t.cols));
  return rows;
}

/// One result: per head the scores (after the scale or temperature) and weights, and per row
/// the entropy of the weights (nats).
json resultJson(const AttentionResult& r) {
  json heads = json::array();
  for (int h = 0; h < r.heads(); ++h) {
    json head = {{"head", h}, {"scores", matrix(r.scores, h)}, {"weights", matrix(r.weights, h)}};
    if (static_cast<std::size_t>(h) < r.stats.size()) {
      head["entropy"] = r.stats[static_cast<std::size_t>(h)].entropy;
      head["normalized_entropy"] = r.stats[static_cast<std::size_t>(h)].normalized_entropy;
    }
    heads.push_back(std::move(head));
  }
  return {{"causal", r.mask == Mask::kCausal}, {"scale", r.scale}, {"heads", std::move(heads)}};
}

json layersJson(const std::vector<AttentionResult>& layers) {
  json list = json::array();
  for (std::size_t l = 0; l < layers.size(); ++l) {
    json layer = resultJson(layers[l]);
    layer["layer"] = l;
    list.push_back(std::move(layer));
  }
  return list;
}

}  // namespace

nlohmann::json translatorJson(const results::Run& r) {
  const Translation& t = *r.translator->translation;
  const TranslatorConfig& c = r.translator->info->config;
  const bool additive = c.kind == TranslatorKind::kAdditiveGru;
  json steps = json::array();
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const TranslatorStep& s = t.steps[i];
    json top = json::array();
    for (const TranslatorToken& k : s.top) top.push_back(tokenJson(k));
    json step = tokenJson(s.output);
    step["step"] = i;
    step["input"] = t.decoder_inputs[i];
    step["input_token"] = i == 0 ? std::string("<s>") : t.target_chars[i - 1];
    step["top"] = std::move(top);
    steps.push_back(std::move(step));
  }
  json attention;
  if (additive) {
    attention = {{"additive", resultJson(t.additive)}};
  } else {
    attention = {{"encoder_self", layersJson(t.encoder_self)},
                 {"decoder_self", layersJson(t.decoder_self)},
                 {"cross", layersJson(t.cross)}};
  }
  json config = {{"model_type", c.model_type},
                 {"max_source_length", c.max_source_length},
                 {"max_target_length", c.max_target_length},
                 {"test_accuracy", c.test_accuracy},
                 {"test_examples", c.test_examples},
                 {"training_seconds", c.training_seconds}};
  if (additive) {
    config.update({{"embedding_dim", c.embedding_dim}, {"encoder_hidden", c.encoder_hidden},
                   {"decoder_hidden", c.decoder_hidden}, {"attention_dim", c.attention_dim}});
  } else {
    config.update({{"d_model", c.d_model}, {"heads", c.heads}, {"d_k", c.d_k}, {"d_ff", c.d_ff},
                   {"encoder_layers", c.encoder_layers}, {"decoder_layers", c.decoder_layers},
                   {"scale_attention", c.scale_attention}});
  }
  json j = {{"model", r.translator->info->name.toStdString()},
            {"model_dir", r.translator->info->dir.toStdString()},
            {"config", std::move(config)},
            {"mechanism", toString(r.spec.mechanism)},
            {"d_k", r.spec.d_k},
            {"temperature", nullptr},
            {"source", r.settings.source.toStdString()},
            {"source_chars", t.source_chars},
            {"source_ids", t.source_ids},
            {"forced", t.forced},
            {"output", t.output},
            {"finished", t.finished},
            {"target_ids", t.target_ids},
            {"decoder_inputs", t.decoder_inputs},
            {"steps", std::move(steps)},
            {"attention", std::move(attention)},
            {"load_ms", r.translator->info->load_ms},
            {"compute_ms", t.compute_ms}};
  if (r.settings.spec.temperature) j["temperature"] = *r.settings.spec.temperature;
  return j;
}

int renderTraining(const options::Options& o, std::ostream& out) {
  const QStringList dirs = options::trainingCurveDirs();
  const std::vector<views::TrainingCurve> curves = views::readTrainingCurves(dirs);
  QCustomPlot plot;
  const views::ImageSize size = outputSize(o, {900, 560, 1.0});
  plot.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(plot, QSize(size.width, size.height));
  views::drawTrainingCurves(plot, curves);
  views::exportPlot(plot, o.output.out, size);
  out << o.output.out.toStdString() << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
