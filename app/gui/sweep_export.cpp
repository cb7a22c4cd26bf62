/// \file sweep_export.cpp
/// "Export sweep…": the dialog and the progress of attention-lab-cli's sweep writer.

#include "sweep_export.hpp"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

#include <QEventLoop>
#include <QFutureWatcher>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>
#include <mutex>
#include <optional>

#include "animation/animation.hpp"
#include "animation/sweep.hpp"
#include "attnlab/error.hpp"
#include "options/variants.hpp"
#include "run/run.hpp"

namespace attnlab::gui {
namespace {

/// Runs f on `pool` (one thread: the sweep's session is used by one thread at a time) while the
/// GUI thread keeps its events going (the progress dialog, Cancel), and returns what f returned
/// or rethrows what it threw.
template <class F>
auto onWorker(QThreadPool& pool, F f) -> decltype(f()) {
  std::optional<decltype(f())> value;
  std::exception_ptr error;
  std::mutex handed;  // the worker's writes seen by the GUI thread (also by ThreadSanitizer)
  QEventLoop loop;
  QFutureWatcher<void> watcher;
  QObject::connect(&watcher, &QFutureWatcher<void>::finished, &loop, &QEventLoop::quit);
  watcher.setFuture(QtConcurrent::run(&pool, [&] {
    const std::lock_guard<std::mutex> lock(handed);
    try {
      value.emplace(f());
    } catch (...) {
      error = std::current_exception();
    }
  }));
  if (!watcher.isFinished()) loop.exec();
  watcher.waitForFinished();
  const std::lock_guard<std::mutex> lock(handed);
  if (error) std::rethrow_exception(error);
  return std::move(*value);
}

}  // namespace

SweepDialog::SweepDialog(QWidget* parent, const options::Options& base, int model_layers, int heads,
                         const QString& folder)
    : QDialog(parent), base_(base), model_layers_(model_layers), heads_(heads) {
  setWindowTitle(tr("Export sweep"));
  auto* form = new QFormLayout(this);
  auto* intro =
      new QLabel(tr("One frame per value of an option, the rest as now — as attention-lab-cli "
                    "sweep writes it. '...' continues a pattern: 1,2,4,...,1024."),
                 this);
  intro->setWordWrap(true);
  form->addRow(intro);
  param_ = new QComboBox(this);
  param_->setObjectName(QStringLiteral("sweepParam"));
  if (!base.lab.pretrained()) param_->addItem(tr("d_k (query/key width)"), QStringLiteral("d_k"));
  param_->addItem(tr("temperature T"), QStringLiteral("temperature"));
  if (base.lab.pretrained() && model_layers > 1)
    param_->addItem(tr("layer"), QStringLiteral("layer"));
  if (heads > 1 && (!base.lab.pretrained() || base.lab.layer))
    param_->addItem(tr("head"), QStringLiteral("head"));
  if (!base.lab.pretrained()) param_->addItem(tr("seed"), QStringLiteral("seed"));
  form->addRow(tr("Sweep"), param_);
  values_ = new QLineEdit(this);
  values_->setObjectName(QStringLiteral("sweepValues"));
  form->addRow(tr("Values"), values_);
  delay_ = new QSpinBox(this);
  const options::OptionSpec& delay = options::option("delay");
  delay_->setRange(static_cast<int>(delay.min), static_cast<int>(delay.max));
  delay_->setSingleStep(100);
  delay_->setValue(base.sweep.delay_ms);
  delay_->setSuffix(tr(" ms"));
  form->addRow(tr("Each frame"), delay_);
  auto* row = new QHBoxLayout;
  path_ = new QLineEdit(QDir(folder).filePath(QStringLiteral("sweep.gif")), this);
  path_->setObjectName(QStringLiteral("sweepPath"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  row->addWidget(path_, 1);
  row->addWidget(browse);
  form->addRow(animation::ffmpegProgram().isEmpty()
                   ? tr("File (.gif, or a folder/ for PNG frames)")
                   : tr("File (.gif, .mp4, or a folder/ for PNG frames)"),
               row);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("sweepProblem"));
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("color: #a40000;"));
  form->addRow(problem_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  form->addRow(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(param_, &QComboBox::currentIndexChanged, this, &SweepDialog::fillValues);
  connect(values_, &QLineEdit::textChanged, this, &SweepDialog::check);
  connect(path_, &QLineEdit::textChanged, this, &SweepDialog::check);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Export sweep"), path_->text(),
                                                      tr("Animations (*.gif *.mp4)"));
    if (!file.isEmpty()) path_->setText(file);
  });
  fillValues();
  resize(560, sizeHint().height());
}

void SweepDialog::fillValues() {
  const QString param = param_->currentData().toString();
  int count = 0;
  if (param == QLatin1String("layer")) count = model_layers_;
  if (param == QLatin1String("head")) count = heads_;
  QStringList values;
  try {
    values = options::defaultSweepValues(options::sweptOption(param), count);
  } catch (const options::OptionError&) {
    values = {QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")};
  }
  values_->setText(values.join(QLatin1Char(',')));
  check();
}

options::Options SweepDialog::sweep() const {
  options::Options o = base_;
  o.command = options::kSweep;
  o.sweep.param = &options::sweptOption(param_->currentData().toString());
  o.sweep.values = values_->text().split(QLatin1Char(','), Qt::SkipEmptyParts);
  o.sweep.delay_ms = delay_->value();
  o.output.out = path_->text().trimmed();
  if (o.sweep.param->name == "head") o.head.reset();
  return o;
}

void SweepDialog::check() {
  QString problem;
  try {
    const options::Options o = sweep();
    // The command line's checks, in its words: the output, then every frame's setting.
    QStringList args = options::toArguments(o);
    std::vector<std::string> raw;
    for (const QString& a : args) raw.push_back(a.toUtf8().toStdString());
    (void)options::parse(raw, 0);
  } catch (const options::OptionError& e) {
    problem = e.message().translated();
  }
  problem_->setText(problem);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

QString exportSweep(QWidget* parent, const options::Options& base, int model_layers, int heads,
                    bool persist) {
  QSettings store;
  const QString folder = store.value(QStringLiteral("export/folder"), QDir::homePath()).toString();
  SweepDialog dialog(parent, base, model_layers, heads, folder);
  if (dialog.exec() != QDialog::Accepted) return {};
  const options::Options o = dialog.sweep();
  if (persist)
    store.setValue(QStringLiteral("export/folder"), QFileInfo(o.output.out).absolutePath());
  QProgressDialog progress(SweepDialog::tr("Drawing the frames…"), SweepDialog::tr("Cancel"), 0, 1,
                           parent);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  QString notes;
  try {
    // The frames are computed on a worker thread (its session reads the models of the process's
    // cache: the window's own copy) and drawn here, one at a time.
    QThreadPool pool;
    pool.setMaxThreadCount(1);
    auto session = std::make_shared<run::Session>();
    // The session (its backend, OpenCL's included) ends on the thread that used it.
    const std::shared_ptr<void> end_on_worker(nullptr, [&pool, &session](void*) {
      (void)QtConcurrent::run(&pool, [moved = std::move(session)]() mutable { moved.reset(); });
      pool.waitForDone();
    });
    const std::vector<options::SweepFrame> frames =
        onWorker(pool, [&] { return run::sweepFrames(o, *session); });
    const animation::SweepWritten w = animation::writeSweep(
        o, frames,
        [&](const options::LabSettings& lab) { return onWorker(pool, [&] { return session->run(lab); }); },
        [&notes](const std::string& note) {
          notes = SweepDialog::tr("computed on the CPU: %1").arg(QString::fromStdString(note));
        },
        [&progress](int done, int total) {
          progress.setMaximum(total);
          progress.setValue(done);
          QApplication::processEvents();
          return !progress.wasCanceled();
        });
    const QString wrote = SweepDialog::tr("Wrote %1 frames (%2 × %3 px) to %4")
                              .arg(w.frames)
                              .arg(w.size.width())
                              .arg(w.size.height())
                              .arg(QDir::toNativeSeparators(w.path));
    return notes.isEmpty() ? wrote : wrote + QStringLiteral(" · ") + notes;
  } catch (const options::OptionError& e) {
    if (progress.wasCanceled()) return {};
    QMessageBox::warning(parent, SweepDialog::tr("Export sweep"), e.message().translated());
  } catch (const std::exception& e) {
    QMessageBox::warning(parent, SweepDialog::tr("Export sweep"), QString::fromStdString(e.what()));
  }
  return {};
}

}  // namespace attnlab::gui
