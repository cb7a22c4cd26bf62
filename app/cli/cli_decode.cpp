/// \file cli_decode.cpp
/// attention-lab-cli decode: the synthetic lab's text decoded token by token with a KV cache
/// (attnlab/decode.hpp) — per step the cache's length and bytes and the step's time, the largest
/// difference from the full causal computation — as JSON, and the decoded rows as a picture.

#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include "attnlab/decode.hpp"
#include "attnlab/difference.hpp"
#include "attnlab/error.hpp"
#include "attnlab/synthetic.hpp"
#include "attnlab/tokenizer.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "views/heatmap.hpp"
#include "views/compare.hpp"

namespace attnlab::cli {
namespace {

/// The note under the decoded picture: the bug and where the rows go wrong, the cache's bytes at
/// the last step.
QString decodeNote(const DecodeResult& d, const std::vector<Token>& tokens, const AttentionSpec& spec) {
  QStringList parts;
  parts << views::viewText("KV-cache decode");
  if (d.bug != CacheBug::kNone) {
    const QString token = QString::fromStdString(tokens[static_cast<std::size_t>(d.bug_step)].text);
    parts << (d.bug == CacheBug::kSkip
                  ? views::viewText("cache bug: token %1 “%2” never cached").arg(d.bug_step).arg(token)
                  : views::viewText("cache bug: token %1 “%2” cached twice").arg(d.bug_step).arg(token));
  }
  // The weights' difference alone: it is what the picture shows (the Δ map and its colour bar
  // with a bug); the outputs' is in the JSON.
  parts << (d.first_diff_step < 0
                ? views::viewText("equals the full causal computation (weights: max |Δ| %1)")
                      .arg(d.max_weight_diff, 0, 'g', 2)
                : views::viewText("rows differ from the full causal computation from row %1 on "
                                  "(weights: max |Δ| %2)")
                      .arg(d.first_diff_step)
                      .arg(d.max_weight_diff, 0, 'g', 3));
  const DecodeStep& last = d.steps.back();
  parts << views::viewText("KV cache %1 entries · %2 bytes").arg(last.cache_length).arg(views::bytesText(last.cache_bytes));
  if (spec.resolvedKvHeads() < spec.heads)
    parts << views::viewText("%1 bytes with one K/V head per query head").arg(views::bytesText(last.mha_cache_bytes));
  return parts.join(QStringLiteral(" · "));
}

}  // namespace

int commandDecode(const options::Options& o, std::ostream& out, std::ostream& err) {
  if (o.lab.pretrained()) return commandDecodeModel(o, out, err);
  AttentionSpec spec = o.lab.toSpec();
  spec.mask = Mask::kCausal;
  options::checkTokens(o.lab);
  const std::string text = o.lab.text.toUtf8().toStdString();
  const std::vector<Token> tokens = tokenize(text);
  const int n = static_cast<int>(tokens.size());
  const CacheBug bug = o.decode.cache_bug;
  const int bug_step = o.decode.bug_step.value_or(n / 2);
  if (bug != CacheBug::kNone && bug_step >= n) {
    throw options::OptionError(options::Message(ATTNLAB_MSG("--bug-step %1 is past the text's last token (%2)"),
                                                {QString::number(bug_step), QString::number(n - 1)}));
  }
  const SyntheticModel model(spec, o.lab.seed);
  const Matrix x = model.embed(tokens);
  const DecodeResult d = decodeWithCache(model.project(x, x, spec.mechanism), spec, bug, bug_step);

  nlohmann::ordered_json j;
  j["command"] = "decode";
  j["mechanism"] = toString(spec.mechanism);
  j["h"] = spec.heads;
  j["kv_heads"] = spec.resolvedKvHeads();
  j["d_model"] = spec.d_model;
  j["d_k"] = spec.resolvedDk();
  j["d_v"] = spec.resolvedDv();
  j["window"] = spec.window;
  j["positions"] = toString(spec.positions);
  j["seed"] = o.lab.seed;
  j["cache_bug"] = toString(bug);
  if (bug != CacheBug::kNone) {
    j["bug_step"] = bug_step;
  } else {
    j["bug_step"] = nullptr;
  }
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const DecodeStep& s : d.steps) {
    nlohmann::ordered_json step;
    step["step"] = s.token;
    step["token"] = tokens[static_cast<std::size_t>(s.token)].text;
    step["cache_length"] = s.cache_length;
    step["cache_bytes"] = s.cache_bytes;
    step["mha_cache_bytes"] = s.mha_cache_bytes;
    step["ms"] = s.ms;
    step["max_weight_diff"] = s.max_weight_diff;
    step["max_output_diff"] = s.max_output_diff;
    step["max_abs_diff"] = s.max_abs_diff;
    steps.push_back(std::move(step));
  }
  j["steps"] = std::move(steps);
  j["total_ms"] = d.total_ms;
  if (d.first_diff_step >= 0) {
    j["first_diff_step"] = d.first_diff_step;
  } else {
    j["first_diff_step"] = nullptr;
  }
  j["max_weight_diff"] = d.max_weight_diff;
  j["max_output_diff"] = d.max_output_diff;
  j["max_abs_diff"] = d.max_abs_diff;

  if (!o.output.out.isEmpty()) {
    QCustomPlot plot;
    views::RunLabel label{spec, false, {}, std::nullopt, {}, {}};
    label.facts = views::syntheticFacts(spec);
    label.note = decodeNote(d, tokens, spec);
    QStringList names;
    for (const Token& t : tokens) names << QString::fromStdString(t.text);
    const int head = o.head.value_or(-1);
    const views::ImageSize size = outputSize(o, views::defaultHeatmapSize(n, n, head < 0 ? spec.heads : 1));
    plot.setViewport(QRect(0, 0, size.width, size.height));
    views::setCanvasSize(plot, QSize(size.width, size.height));
    // With a bug the picture is Δ = decoded − full causal on the diverging scale: the rows before
    // the bug are exactly 0 and the bug's token lights up in every later row.
    AttentionResult shown = d.attention;
    views::PictureOptions picture = o.picture;
    if (bug != CacheBug::kNone) {
      const AttentionResult full = computeAttentionCpu(model.project(x, x, spec.mechanism), spec);
      std::vector<int> heads;
      for (int k = 0; k < spec.heads; ++k) heads.push_back(k);
      const WeightDifference delta = weightDifference(d.attention, heads, full, heads);
      shown = views::differenceResult(delta);
      picture.color_scale = views::ColorScale::kDifference;
      views::PictureTitle title;
      title.replace << views::viewText("KV-cache decode − full causal computation (Δ weight)");
      title.bar_title = views::viewText("Δ weight (decoded − full)");
      views::setPictureTitle(plot, title);
    }
    if (head < 0) {
      views::drawHeadGrid(plot, shown, names, names, label, picture);
    } else {
      views::drawHeatmap(plot, shown, head, names, names, label, picture);
    }
    views::setPictureTitle(plot, {});
    views::exportPlot(plot, o.output.out, size);
  }
  out << j.dump() << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
