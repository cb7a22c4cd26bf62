/// \file translator_figures.cpp
/// The trained translators' numbers for the lessons (translator_figures.hpp).

#include "lessons/translator_figures.hpp"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <optional>

#include "lessons/quantities.hpp"
#include "options/bundled_models.hpp"
#include "run/run.hpp"

namespace attnlab::lessons {

namespace {

const QString kNotApplicable = QStringLiteral("—");

/// `dir`/`file` as a JSON object (empty when missing or malformed: the figure is then "—").
QJsonObject readObject(const QString& dir, const char* file) {
  QFile f(dir + QLatin1Char('/') + QLatin1String(file));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

QString percent(const QJsonValue& fraction) {
  if (!fraction.isDouble()) return kNotApplicable;
  return QString::number(100.0 * fraction.toDouble(), 'f', 1) + QStringLiteral(" %");
}

/// training.json of bundled model `name` (empty when it is not found).
QJsonObject bundledTraining(const QString& name) {
  const std::optional<QString> dir = options::findBundledModel(name);
  return dir ? readObject(*dir, "training.json") : QJsonObject{};
}

/// The mean of the last (up to) 20 logged losses: the loss the run ended at, without one
/// batch's noise.
QString finalLoss(const QJsonObject& training) {
  const QJsonArray loss = training.value(QStringLiteral("loss")).toArray();
  if (loss.isEmpty()) return kNotApplicable;
  const qsizetype n = std::min<qsizetype>(20, loss.size());
  double sum = 0;
  for (qsizetype i = loss.size() - n; i < loss.size(); ++i) sum += loss.at(i).toDouble();
  return formatNumber(sum / static_cast<double>(n));
}

QString crossEntropy(const QJsonObject& training) {
  const QJsonValue v = training.value(QStringLiteral("mean_entropy")).toObject().value(QStringLiteral("cross"));
  return v.isDouble() ? QString::number(v.toDouble(), 'f', 2) : kNotApplicable;
}

}  // namespace

QStringList translatorQuantityNames() {
  return {QStringLiteral("translation"),          QStringLiteral("test_accuracy"),
          QStringLiteral("test_examples"),        QStringLiteral("alignment_in_span"),
          QStringLiteral("training_steps"),       QStringLiteral("loss_scaled"),
          QStringLiteral("loss_unscaled"),        QStringLiteral("accuracy_scaled"),
          QStringLiteral("accuracy_unscaled"),    QStringLiteral("cross_entropy_scaled"),
          QStringLiteral("cross_entropy_unscaled")};
}

QString translatorQuantity(const QString& name, const results::Run* run) {
  const bool scaled = name.endsWith(QLatin1String("_scaled"));
  if (scaled || name.endsWith(QLatin1String("_unscaled")) || name == QLatin1String("training_steps")) {
    const QJsonObject training =
        bundledTraining(scaled || name == QLatin1String("training_steps") ? QStringLiteral("dates-transformer")
                                                                           : QStringLiteral("dates-transformer-unscaled"));
    if (name == QLatin1String("training_steps")) {
      const QJsonArray steps = training.value(QStringLiteral("steps")).toArray();
      return steps.isEmpty() ? kNotApplicable : QString::number(steps.last().toInt());
    }
    if (name.startsWith(QLatin1String("loss_"))) return finalLoss(training);
    if (name.startsWith(QLatin1String("accuracy_"))) return percent(training.value(QStringLiteral("test_accuracy")));
    return crossEntropy(training);
  }
  if (!run || !run->translator) return kNotApplicable;
  if (name == QLatin1String("translation"))
    return run->translator->translation ? QString::fromStdString(run->translator->translation->output) : kNotApplicable;
  const QJsonObject config = readObject(run->translator->info->dir, "config.json");
  if (name == QLatin1String("test_examples")) {
    const QJsonValue v = config.value(QStringLiteral("test_examples"));
    return v.isDouble() ? QString::number(v.toInt()) : kNotApplicable;
  }
  return percent(config.value(name));  // test_accuracy, alignment_in_span
}

}  // namespace attnlab::lessons
