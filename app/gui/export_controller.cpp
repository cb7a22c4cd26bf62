/// \file export_controller.cpp
/// Export dialogs and offscreen drawing of the exported pictures.

#include "export_controller.hpp"

#include <qcustomplot.h>

#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <algorithm>

#include "analysis_panel.hpp"
#include "attnlab/error.hpp"
#include "attnlab/io.hpp"
#include "heads_view.hpp"
#include "options/options.hpp"
#include "run/run.hpp"
#include "views/saturation_plot.hpp"
#include "views/analysis_plots.hpp"
#include "views/heatmap.hpp"
#include "views/html_page.hpp"
#include "views/plots.hpp"

namespace attnlab::gui {
namespace {

/// A dialog for an image export: file, width, height, scale (PNG pixel ratio), with the option
/// table's limits (--width, --height, --scale) and its message for a too large image.
class ImageExportDialog : public QDialog {
 public:
  ImageExportDialog(QWidget* parent, const QString& folder, const QString& name, const views::ImageSize& size)
      : QDialog(parent) {
    setWindowTitle(ExportController::tr("Export image"));
    auto* form = new QFormLayout(this);
    auto* row = new QHBoxLayout;
    path_ = new QLineEdit(QDir(folder).filePath(name), this);
    auto* browse = new QPushButton(ExportController::tr("Browse…"), this);
    row->addWidget(path_, 1);
    row->addWidget(browse);
    form->addRow(ExportController::tr("File (.png, .svg, .pdf)"), row);
    width_ = new QSpinBox(this);
    height_ = new QSpinBox(this);
    for (QSpinBox* spin : {width_, height_}) {
      const options::OptionSpec& spec = options::option(spin == width_ ? "width" : "height");
      spin->setRange(static_cast<int>(spec.min), static_cast<int>(spec.max));
    }
    width_->setValue(size.width);
    height_->setValue(size.height);
    scale_ = new QDoubleSpinBox(this);
    scale_->setRange(0.25, static_cast<double>(options::option("scale").max));
    scale_->setSingleStep(0.5);
    scale_->setValue(size.scale);
    form->addRow(ExportController::tr("Width (px)"), width_);
    form->addRow(ExportController::tr("Height (px)"), height_);
    form->addRow(ExportController::tr("Scale (PNG pixel ratio)"), scale_);
    problem_ = new QLabel(this);
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #a40000;"));
    form->addRow(problem_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
      try {
        options::checkImageSize(width_->value(), height_->value(), scale_->value());
        accept();
      } catch (const options::OptionError& e) {
        problem_->setText(e.message().translated());
      }
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
      const QString file = QFileDialog::getSaveFileName(this, ExportController::tr("Export image"),
                                                        path_->text(),
                                                        ExportController::tr("Images (*.png *.svg *.pdf)"));
      if (!file.isEmpty()) path_->setText(file);
    });
    connect(path_, &QLineEdit::textChanged, this, [this](const QString& text) {
      scale_->setEnabled(views::imageFormatForPath(text) == views::ImageFormat::kPng);
    });
  }
  QString path() const { return path_->text(); }
  views::ImageSize size() const { return {width_->value(), height_->value(), scale_->value()}; }

 private:
  QLineEdit* path_;
  QSpinBox* width_;
  QSpinBox* height_;
  QDoubleSpinBox* scale_;
  QLabel* problem_;
};

}  // namespace

ExportController::ExportController(QWidget* window, HeadsView& heads, AnalysisPanel& analysis,
                                   std::function<std::pair<int, bool>()> marker, bool persist)
    : QObject(window), window_(window), heads_(heads), analysis_(analysis), marker_(std::move(marker)),
      persist_(persist) {}

views::ImageSize ExportController::defaultSize(ExportTarget target) const {
  const ResultPtr shown = heads_.result();
  if (target == ExportTarget::kSaturation || !shown) return {900, 600, 1.0};
  const AttentionResult& r = shown->attention(heads_.focusEntry());
  if (target == ExportTarget::kAllHeads && heads_.modelView()) {
    return views::fitModelGridHeight(
        views::defaultModelGridSize(r.nQ(), static_cast<int>(views::modelViewLayers(*shown).size()), r.heads()),
        [&](QCustomPlot& plot) { draw(plot, target); });
  }
  return views::defaultHeatmapSize(r.nQ(), r.nK(), target == ExportTarget::kAllHeads ? r.heads() : 1);
}

void ExportController::draw(QCustomPlot& plot, ExportTarget target) const {
  const ResultPtr shown = heads_.result();
  const int entry = heads_.focusEntry();
  const AttentionResult& r = shown->attention(entry);
  if (target == ExportTarget::kSaturation) {
    const std::shared_ptr<const SaturationAnalysis> cached = analysis_.curves(r.nK(), shown->settings.seed);
    const SaturationAnalysis curves = cached && !cached->scaled.empty()
                                          ? *cached
                                          : run::interactiveSaturation(r.nK(), shown->settings.seed);
    const auto [d_k, scaled] = marker_();
    // As the panel: no d_k marker for additive or linear attention (no q·k/√d_k).
    const bool dot = r.mechanism != Mechanism::kAdditive && r.mechanism != Mechanism::kLinear;
    views::drawSaturation(plot, curves, std::nullopt, dot ? d_k : 0, scaled);
  } else if (target == ExportTarget::kAllHeads && heads_.modelView()) {
    views::drawModelView(plot, *shown, runLabel(shown, -1), heads_.picture());
  } else if (target == ExportTarget::kAllHeads) {
    views::drawHeadGrid(plot, r, shown->query_tokens, shown->key_tokens, runLabel(shown, entry), heads_.picture());
  } else {
    views::drawHeatmap(plot, r, std::clamp(heads_.selectedHead(), 0, r.heads() - 1), shown->query_tokens,
                       shown->key_tokens, runLabel(shown, entry), heads_.picture());
  }
}

void ExportController::exportImage(ExportTarget target, const QString& path, const views::ImageSize& size) {
  if (!heads_.result()) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  options::checkImageSize(size.width, size.height, size.scale);
  QCustomPlot plot;  // offscreen, default fonts: the same picture the CLI writes
  plot.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(plot, QSize(size.width, size.height));
  draw(plot, target);
  views::exportPlot(plot, path, size);
}

void ExportController::exportMatrices(const QString& path, int head) {
  const ResultPtr shown = heads_.result();
  if (!shown) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  // A pooled model view kept no layer's weights but the last: the full run's refusal.
  if (shown->overview && shown->overview->full_refusal)
    throw options::OptionError(*shown->overview->full_refusal);
  const AttentionResult& first = shown->attention(0);
  if (head >= first.heads()) throw Error(ErrorCode::kInvalidArgument, "no such head");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const std::string file = path.toStdString();
  if (suffix == QLatin1String("csv")) {
    if (shown->model) {
      writeLayersCsv(file, shown->layers(), shown->layerIndices(), shown->run.query_tokens, head,
                     shown->displayLabels());
    } else {
      writeAttentionCsv(file, first, shown->run.query_tokens, shown->run.key_tokens, head);
    }
  } else if (suffix == QLatin1String("npy")) {
    // [h, n_q, n_k] (or [n_q, n_k] for one head); several layers add a leading [L].
    std::vector<float> data;
    const long long per_head = static_cast<long long>(first.nQ()) * first.nK();
    for (int e = 0; e < shown->entries(); ++e) {
      const Tensor3& w = shown->attention(e).weights;
      const auto begin = w.data.begin() + (head < 0 ? 0 : head * per_head);
      data.insert(data.end(), begin, head < 0 ? w.data.end() : begin + per_head);
    }
    std::vector<long long> shape;
    if (shown->entries() > 1) shape.push_back(shown->entries());
    if (head < 0) shape.push_back(first.heads());
    shape.insert(shape.end(), {first.nQ(), first.nK()});
    writeNpy(file, shape, data);
  } else {
    throw Error(ErrorCode::kInvalidArgument, "unknown matrix format for " + file + ": use .csv or .npy");
  }
}

void ExportController::copyImage(ExportTarget target) {
  if (!heads_.result()) return;
  const views::ImageSize size = defaultSize(target);
  QCustomPlot plot;
  plot.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(plot, QSize(size.width, size.height));
  draw(plot, target);
  QGuiApplication::clipboard()->setImage(plot.toPixmap(size.width, size.height).toImage());
  emit status(tr("Image copied to the clipboard"), 4000);
}

void ExportController::askExportImage(ExportTarget target) {
  const ResultPtr shown = heads_.result();
  if (!shown) return;
  QString name = target == ExportTarget::kSaturation ? QStringLiteral("saturation.png")
                 : target == ExportTarget::kAllHeads
                     ? (heads_.modelView() ? QStringLiteral("attention-layers.png") : QStringLiteral("attention-heads.png"))
                     : QStringLiteral("attention-head%1.png").arg(heads_.selectedHead());
  if ((shown->model || shown->translator) && target != ExportTarget::kSaturation && !(target == ExportTarget::kAllHeads && heads_.modelView())) {
    name.replace(QStringLiteral("attention-"), QStringLiteral("attention-layer%1-").arg(heads_.focusLayer()));
  }
  askAndWrite(name, defaultSize(target), [this, target](const QString& path, const views::ImageSize& size) {
    exportImage(target, path, size);
  });
}

void ExportController::askAndWrite(const QString& name, const views::ImageSize& size,
                                   const std::function<void(const QString&, const views::ImageSize&)>& write) {
  QSettings store;
  const QString folder = store.value(QStringLiteral("export/folder"), QDir::homePath()).toString();
  ImageExportDialog dialog(window_, folder, name, size);
  if (dialog.exec() != QDialog::Accepted) return;
  try {
    write(dialog.path(), dialog.size());
    if (persist_) store.setValue(QStringLiteral("export/folder"), QFileInfo(dialog.path()).absolutePath());
    emit status(tr("Wrote %1").arg(dialog.path()), 6000);
  } catch (const options::OptionError& e) {
    emit status(tr("Export failed: %1").arg(e.message().translated()), 10000);
  } catch (const std::exception& e) {
    emit status(tr("Export failed: %1").arg(QString::fromUtf8(e.what())), 10000);
  }
}

void ExportController::exportPlot(views::PlotKind kind, const QString& path, const views::ImageSize& size) {
  const ResultPtr shown = heads_.result();
  if (!shown) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  const views::Plot* plot = views::plotOf(kind);
  if (!plot || !plot->available(*shown))
    throw options::OptionError(options::Message(
        ATTNLAB_MSG("--plot head-roles scores a model's heads: add --model DIR or FILE.gguf")));
  options::checkImageSize(size.width, size.height, size.scale);
  const int entry = heads_.focusEntry();
  const results::Analysis analysis = run::analyse(*shown, entry);  // one entry: a few ms
  const views::PlotInput input{*shown, entry, analysis, views::plotSubject(*shown, entry)};
  QCustomPlot picture;  // offscreen: the picture render --plot writes
  picture.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(picture, QSize(size.width, size.height));
  plot->draw(picture, input);
  views::exportPlot(picture, path, size);
}

void ExportController::askExportPlot(views::PlotKind kind) {
  const ResultPtr shown = heads_.result();
  const views::Plot* plot = views::plotOf(kind);
  if (!shown || !plot || !plot->available(*shown)) return;
  const results::Analysis analysis = run::analyse(*shown, heads_.focusEntry());
  const views::ImageSize size = plot->size({*shown, heads_.focusEntry(), analysis, {}});
  askAndWrite(QString::fromUtf8(views::plotName(kind).data()) + QStringLiteral(".png"), size,
              [this, kind](const QString& path, const views::ImageSize& chosen) { exportPlot(kind, path, chosen); });
}

void ExportController::askExportMatrices() {
  if (!heads_.result()) return;
  QSettings store;
  const QString folder = store.value(QStringLiteral("export/folder"), QDir::homePath()).toString();
  const QString path = QFileDialog::getSaveFileName(
      window_, tr("Export matrices"), QDir(folder).filePath(QStringLiteral("attention.csv")),
      heads_.modelView() ? tr("CSV, every layer and head (*.csv);;NumPy weights [L, h, n, n] (*.npy)")
                         : tr("CSV, every head (*.csv);;NumPy weights [h, n_q, n_k] (*.npy)"));
  if (path.isEmpty()) return;
  try {
    exportMatrices(path, -1);
    if (persist_) store.setValue(QStringLiteral("export/folder"), QFileInfo(path).absolutePath());
    emit status(tr("Wrote %1").arg(path), 6000);
  } catch (const options::OptionError& e) {
    emit status(tr("Export failed: %1").arg(e.message().translated()), 10000);
  } catch (const std::exception& e) {
    emit status(tr("Export failed: %1").arg(QString::fromUtf8(e.what())), 10000);
  }
}

long long ExportController::exportHtml(const QString& path, const QString& language) {
  const ResultPtr shown = heads_.result();
  if (!shown) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  views::HtmlPage page;
  page.language = language == QLatin1String("zh_CN") ? language : QStringLiteral("en");
  const views::PictureOptions& picture = heads_.picture();
  views::HtmlView view = views::htmlViewOf(shown, std::nullopt, heads_.modelView() ? std::nullopt : std::optional<int>(heads_.focusEntry()),
                                           picture.color_scale, picture.pool);
  const QString lab = page.language == QLatin1String("zh_CN") ? QStringLiteral("注意力实验室") : QStringLiteral("Attention Lab");
  page.title = view.title.isEmpty() ? lab : lab + QStringLiteral(" · ") + view.title;
  page.views.push_back(std::move(view));
  views::fitHtmlPage(page);
  return views::writeHtmlPage(page, path);
}

void ExportController::askExportHtml(const QString& language) {
  if (!heads_.result()) return;
  QSettings store;
  const QString folder = store.value(QStringLiteral("export/folder"), QDir::homePath()).toString();
  const QString path = QFileDialog::getSaveFileName(window_, tr("Export an interactive page"),
                                                    QDir(folder).filePath(QStringLiteral("attention.html")),
                                                    tr("Web page, works offline (*.html)"));
  if (path.isEmpty()) return;
  try {
    const long long bytes = exportHtml(path, language);
    if (persist_) store.setValue(QStringLiteral("export/folder"), QFileInfo(path).absolutePath());
    emit status(tr("Wrote %1 (%2 MB)").arg(path, QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'f', 1)), 6000);
  } catch (const options::OptionError& e) {
    emit status(tr("Export failed: %1").arg(e.message().translated()), 10000);
  } catch (const std::exception& e) {
    emit status(tr("Export failed: %1").arg(QString::fromUtf8(e.what())), 10000);
  }
}

}  // namespace attnlab::gui
