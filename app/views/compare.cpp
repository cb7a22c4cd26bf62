/// \file compare.cpp
/// Difference maps and attention rollout as pictures: their results for the heatmap drawing and
/// their titles.

#include <QString>
#include <cmath>

#include "views/compare.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

/// A side's title parts, keyed so that both sides line up part by part.
std::vector<std::pair<QString, QString>> sideParts(const DifferenceSide& s, bool masks_differ) {
  std::vector<std::pair<QString, QString>> parts;
  if (!s.label.model.isEmpty()) parts.emplace_back(QStringLiteral("model"), s.label.model);
  parts.emplace_back(QStringLiteral("layer"),
                     s.label.layer ? viewText("layer %1").arg(*s.label.layer) : QString());
  parts.emplace_back(QStringLiteral("head"), s.head ? viewText("head %1").arg(*s.head) : QString());
  if (!s.extra.isEmpty()) parts.emplace_back(QStringLiteral("extra"), s.extra);
  parts.emplace_back(QStringLiteral("mechanism"), mechanismTitle(s.label.spec));
  parts.emplace_back(QStringLiteral("d_k"), widthTitle(s.label.spec));
  if (masks_differ) {
    parts.emplace_back(QStringLiteral("mask"), s.label.spec.mask == Mask::kCausal
                                                   ? viewText("causal mask")
                                                   : viewText("no mask"));
  }
  return parts;
}

QString valueOf(const std::vector<std::pair<QString, QString>>& parts, const QString& key) {
  for (const auto& [k, v] : parts)
    if (k == key) return v;
  return {};
}

QString quoted(const QStringList& tokens, int i) {
  return i >= 0 && i < tokens.size() ? QStringLiteral(" '%1'").arg(tokens.at(i)) : QString();
}

}  // namespace

AttentionResult differenceResult(const WeightDifference& d) {
  AttentionResult r;
  r.mechanism = Mechanism::kScaled;
  r.mask = d.mask;
  r.mask_pattern = d.mask_pattern;
  r.weights = d.delta;
  r.scores = d.delta;
  return r;
}

QStringList differenceTitle(const DifferenceSide& a, const DifferenceSide& b,
                            const WeightDifference& d, std::optional<int> layer_of_max,
                            bool head_in_location, const QStringList& query_tokens,
                            const QStringList& key_tokens) {
  const bool masks_differ = a.label.spec.mask != b.label.spec.mask;
  const auto pa = sideParts(a, masks_differ), pb = sideParts(b, masks_differ);
  QStringList only_a, only_b, shared;
  QStringList keys;
  for (const auto& [k, v] : pa) keys << k;
  for (const auto& [k, v] : pb)
    if (!keys.contains(k)) keys << k;
  for (const QString& k : keys) {
    const QString va = valueOf(pa, k), vb = valueOf(pb, k);
    if (va == vb) {
      if (!va.isEmpty()) shared << va;
      continue;
    }
    only_a << (va.isEmpty()
                   ? (k == QLatin1String("head") ? viewText("every head") : viewText("every layer"))
                   : va);
    only_b << (vb.isEmpty()
                   ? (k == QLatin1String("head") ? viewText("every head") : viewText("every layer"))
                   : vb);
  }
  QStringList parts;
  parts << viewText("difference A − B");
  if (only_a.isEmpty()) {
    parts << viewText("A and B: the same setting");
  } else {
    parts << QStringLiteral("A: ") + only_a.join(QStringLiteral(", "))
          << QStringLiteral("B: ") + only_b.join(QStringLiteral(", "));
  }
  parts << shared;
  if (d.map < 0) {
    parts << viewText("no visible cell");
  } else {
    QString where;
    if (layer_of_max) where += viewText("layer %1").arg(*layer_of_max) + QStringLiteral(", ");
    if (head_in_location) where += viewText("head %1").arg(d.map) + QStringLiteral(", ");
    where += viewText("query %1%2 → key %3%4")
                 .arg(d.query)
                 .arg(quoted(query_tokens, d.query))
                 .arg(d.key)
                 .arg(quoted(key_tokens, d.key));
    parts << viewText("max |Δ| = %1 at %2 (A %3, B %4)")
                 .arg(QString::number(d.max_abs, 'f', 3), where, QString::number(d.a, 'f', 3),
                      QString::number(d.b, 'f', 3));
  }
  return parts;
}

QStringList rolloutTitle(const QString& model, int first_layer, int last_layer) {
  QStringList parts;
  if (!model.isEmpty()) parts << model;
  parts
      << (first_layer == last_layer
              ? viewText("attention rollout of layer %1").arg(first_layer)
              : viewText("attention rollout through layers %1–%2").arg(first_layer).arg(last_layer))
      << viewText("Abnar & Zuidema 2020")
      << viewText("heads averaged per layer (a choice: heads differ)")
      << viewText("residual ½·A + ½·I, rows renormalised");
  return parts;
}

}  // namespace attnlab::views
