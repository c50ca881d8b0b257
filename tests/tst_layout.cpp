/** The window on the screens people teach on: its minimum size, docks that never draw over one
 *  another, toolbar controls at their readable width, panels that do not widen the window, and step
 *  labels that are never cut, nor pushed out of sight by a wide layer of a model. */

#include "core/attention/model.h"
#include "gpt2folder_tokenizer.h"
#include "isolation.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/steps/scalingpanel.h"
#include "ui/views/steps/stepblock.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/steps/walkthroughpanel.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QLayout>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QHeaderView>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTabBar>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

#include <initializer_list>
#include <memory>

namespace {

void settle()
{
    for (int i = 0; i < 5; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(20);
    }
}

/** The visible docks of w, with their rectangles in the window. */
QList<QDockWidget*> visibleDocks(ui::MainWindow& w)
{
    QList<QDockWidget*> docks;
    // A tab that is not the current one of its group stays "visible", parked by Qt outside the window.
    const QRect window(QPoint(0, 0), w.size());
    for (QDockWidget* dock : w.findChildren<QDockWidget*>())
        if (dock->isVisible() && !dock->isFloating() && dock->geometry().intersects(window))
            docks << dock;
    return docks;
}

/** The labels under root that are shown and cut: narrower than their text on one line, or, when they
 *  wrap, lower than their wrapped lines. */
QStringList cutLabels(QWidget* root)
{
    QStringList cut;
    for (QLabel* label : root->findChildren<QLabel*>()) {
        if (!label->isVisible() || label->text().isEmpty())
            continue;
        if (label->wordWrap()) {
            const int needed = label->heightForWidth(label->width());
            if (label->height() < needed)
                cut << QStringLiteral("%1 (height %2 < %3)").arg(label->text()).arg(label->height()).arg(needed);
            continue;
        }
        if (label->width() < label->sizeHint().width())
            cut << QStringLiteral("%1 (%2 < %3)").arg(label->text()).arg(label->width()).arg(label->sizeHint().width());
    }
    return cut;
}

/** The labels under root whose text reaches past the right edge of the scroll area's viewport. */
QStringList labelsOutside(QWidget* root)
{
    QStringList outside;
    const auto* scroll = root->findChild<QScrollArea*>();
    if (!scroll)
        return {QStringLiteral("no scroll area")};
    const QWidget* viewport = scroll->viewport();
    for (QWidget* widget : scroll->widget()->findChildren<QWidget*>()) {
        if (!widget->isVisible())
            continue;
        const QRect r(widget->mapTo(viewport, QPoint(0, 0)), widget->size());
        if (r.right() > viewport->width())
            outside << QStringLiteral("%1 %2 (right %3 > %4)")
                           .arg(QString::fromLatin1(widget->metaObject()->className()),
                                qobject_cast<QLabel*>(widget) ? qobject_cast<QLabel*>(widget)->text() : QString())
                           .arg(r.right())
                           .arg(viewport->width());
    }
    return outside;
}

/** The step formulas under root (the word-wrapped labels of its scroll area) that reach past the viewport's right
 *  edge or are lower than their lines: a reader would have to scroll sideways, or could not read them at all. */
QStringList formulasOutOfSight(QWidget* root)
{
    QStringList out;
    const auto* scroll = root->findChild<QScrollArea*>();
    if (!scroll)
        return {QStringLiteral("no scroll area")};
    if (scroll->horizontalScrollBar()->maximum() > 0)
        out << QStringLiteral("the panel scrolls sideways by %1 pixels").arg(scroll->horizontalScrollBar()->maximum());
    const QWidget* viewport = scroll->viewport();
    for (QLabel* label : scroll->widget()->findChildren<QLabel*>()) {
        if (!label->isVisible() || !label->wordWrap() || label->text().isEmpty())
            continue;
        const QRect r(label->mapTo(viewport, QPoint(0, 0)), label->size());
        if (r.left() < 0 || r.right() >= viewport->width())
            out << QStringLiteral("%1: x %2 … %3 outside 0 … %4").arg(label->text()).arg(r.left()).arg(r.right()).arg(viewport->width());
        else if (label->height() < label->heightForWidth(label->width()))
            out << QStringLiteral("%1: height %2 < %3").arg(label->text()).arg(label->height()).arg(label->heightForWidth(label->width()));
    }
    return out;
}

/** The step tables under steps that scroll sideways though they are as wide as their columns, or do not though
 *  they are narrower, or whose scroll bar hides a row. */
QStringList tablesScrollingWrongly(ui::StepsPanel* steps)
{
    QStringList wrong;
    for (int number = 1; number <= steps->stepCount(); ++number)
        for (ui::StepBlock* block : steps->stepBlocks(number)) {
            const QTableView* t = block->table();
            if (!t->isVisible())
                continue;
            const bool narrow = t->width() < t->maximumWidth();
            if (t->horizontalScrollBar()->isVisible() != narrow || t->viewport()->height() < t->verticalHeader()->length())
                wrong << QStringLiteral("step %1: width %2 of %3, scroll bar %4, rows %5 in %6")
                             .arg(number)
                             .arg(t->width())
                             .arg(t->maximumWidth())
                             .arg(t->horizontalScrollBar()->isVisible() ? QStringLiteral("shown") : QStringLiteral("hidden"))
                             .arg(t->verticalHeader()->length())
                             .arg(t->viewport()->height());
        }
    return wrong;
}

const std::string kTokenizer = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";

}  // namespace

class TestLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_layout"), m_dir.filePath(QStringLiteral("settings")));
    }
    void init()
    {
        QSettings().clear();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->show();
        m_window->document()->waitForTrace();
        settle();
    }
    void cleanup() { m_window.reset(); }

    void minimumSizeFitsAProjector()
    {
        const QSize minimum = m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
        QVERIFY2(minimum.width() <= 1024 && minimum.height() <= 640,
                 qPrintable(QStringLiteral("%1 × %2").arg(minimum.width()).arg(minimum.height())));
    }

    void docksAndToolbarFit_data() { addRows({QSize(1024, 640), QSize(1280, 720), QSize(1920, 1080)}); }
    void docksAndToolbarFit()
    {
        ui::MainWindow& w = *m_window;
        showInLanguageAndSize();
        if (QTest::currentTestFailed())
            return;

        const QList<QDockWidget*> docks = visibleDocks(w);
        QVERIFY(docks.size() >= 4);
        QStringList overlaps;
        for (int i = 0; i < docks.size(); ++i) {
            QVERIFY2(!docks[i]->geometry().intersects(w.centralWidget()->geometry()),
                     qPrintable(docks[i]->objectName() + QStringLiteral(" over the heatmap")));
            for (int j = i + 1; j < docks.size(); ++j)
                if (docks[i]->geometry().intersects(docks[j]->geometry()))
                    overlaps << docks[i]->objectName() + QStringLiteral(" × ") + docks[j]->objectName();
        }
        QVERIFY2(overlaps.isEmpty(), qPrintable(overlaps.join(QStringLiteral(", "))));

        QStringList squeezed;
        for (QWidget* control : w.heatmap()->findChildren<QWidget*>()) {
            if (!control->isVisible() ||
                !(qobject_cast<QComboBox*>(control) || qobject_cast<QAbstractButton*>(control)))
                continue;
            if (control->width() < control->minimumSizeHint().width())
                squeezed << QStringLiteral("%1 %2 < %3")
                                .arg(control->objectName().isEmpty()
                                         ? QString::fromLatin1(control->metaObject()->className())
                                         : control->objectName())
                                .arg(control->width())
                                .arg(control->minimumSizeHint().width());
        }
        QVERIFY2(squeezed.isEmpty(), qPrintable(squeezed.join(QStringLiteral(", "))));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    void predictionTableShowsWholeEntries_data() { addRows({QSize(1280, 720), QSize(1920, 1080)}); }
    void predictionTableShowsWholeEntries()
    {
        // Next Token's columns are as wide as their contents (no "␣dep…"), and at these sizes the dock is wide
        // enough for the whole table: nothing to scroll sideways to.
        openWideModel();
        if (QTest::currentTestFailed())
            return;
        ui::MainWindow& w = *m_window;
        showInLanguageAndSize();
        if (QTest::currentTestFailed())
            return;
        QVERIFY(w.document()->waitForModel(120000));
        settle();
        auto* table = w.findChild<QTableWidget*>(QStringLiteral("predictionTable"));
        QVERIFY(table && table->isVisible());
        QVERIFY(!table->item(0, 1)->text().isEmpty());
        QHeaderView* header = table->horizontalHeader();
        QStringList cut;
        for (int c = 0; c < table->columnCount(); ++c) {
            const int needed = std::max(static_cast<QAbstractItemView*>(table)->sizeHintForColumn(c), header->sectionSizeHint(c));
            if (header->sectionSize(c) < needed)
                cut << QStringLiteral("column %1 (%2 < %3)").arg(c).arg(header->sectionSize(c)).arg(needed);
        }
        QVERIFY2(cut.isEmpty(), qPrintable(cut.join(QStringLiteral(", "))));
        QVERIFY2(header->length() <= table->viewport()->width(),
                 qPrintable(QStringLiteral("%1 > %2").arg(header->length()).arg(table->viewport()->width())));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    void docksGrowWithTheWindow()
    {
        // A window made larger (a projector's 1920 × 1080, a maximised window) gives the steps their width, as
        // far as a quarter of the window; the heatmap keeps the rest.
        ui::MainWindow& w = *m_window;
        auto* steps = w.findChild<QDockWidget*>(QStringLiteral("stepsDock"));
        w.resize(1024, 640);
        settle();
        const int before = steps->width();
        w.resize(1920, 1080);
        settle();
        QVERIFY2(steps->width() >= 440 && steps->width() <= 1920 / 4,
                 qPrintable(QStringLiteral("%1 → %2").arg(before).arg(steps->width())));
        QVERIFY(w.centralWidget()->width() > 900);
    }

    void dockTabsShowWholeTitles_data() { addRows({QSize(1024, 640), QSize(1280, 720), QSize(1920, 1080)}); }
    void dockTabsShowWholeTitles()
    {
        // Every dock of the right-hand area open, so it holds six tabs: each shows its whole title (the bar scrolls
        // when they do not all fit) instead of "S…", "Walkt…".
        ui::MainWindow& w = *m_window;
        for (QDockWidget* dock : w.findChildren<QDockWidget*>())
            if (w.dockWidgetArea(dock) == Qt::RightDockWidgetArea)
                dock->show();
        showInLanguageAndSize();
        if (QTest::currentTestFailed())
            return;
        QStringList cut;
        int tabs = 0;
        for (QTabBar* bar : w.findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
            if (!bar->isVisible())
                continue;
            for (int i = 0; i < bar->count(); ++i, ++tabs) {
                const int text = bar->fontMetrics().horizontalAdvance(bar->tabText(i));
                if (bar->tabRect(i).width() < text)
                    cut << QStringLiteral("%1 (%2 < %3)").arg(bar->tabText(i)).arg(bar->tabRect(i).width()).arg(text);
            }
        }
        QVERIFY2(tabs >= 6, qPrintable(QString::number(tabs)));
        QVERIFY2(cut.isEmpty(), qPrintable(cut.join(QStringLiteral(", "))));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    void openingTheScalingPanelKeepsTheWidth_data() { addRows({QSize(1024, 640), QSize(1280, 720), QSize(1440, 900)}); }
    void openingTheScalingPanelKeepsTheWidth()
    {
        ui::MainWindow& w = *m_window;
        const QSize size = showInLanguageAndSize();
        if (QTest::currentTestFailed())
            return;
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("scalingDock"));
        QVERIFY(dock);
        QVERIFY(!dock->isVisible());
        dock->toggleViewAction()->trigger();
        dock->raise();
        settle();
        QVERIFY(dock->isVisible());
        QCOMPARE(w.size(), size);
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    void stepLabelsAreNotCut_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("decimals");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")})
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)})
                for (int decimals : {2, 4})
                    QTest::addRow("%s %dx%d %d decimals", qPrintable(language), size.width(), size.height(), decimals)
                        << language << size << decimals;
    }
    void stepLabelsAreNotCut()
    {
        QFETCH(QString, language);
        QFETCH(QSize, size);
        QFETCH(int, decimals);
        QVERIFY(ui::i18n::applyLanguage(language));
        ui::MainWindow& w = *m_window;
        w.resize(size);
        settle();
        auto* steps = w.findChild<ui::StepsPanel*>();
        QVERIFY(steps);
        steps->setPrecision(decimals);
        // The causal mask adds a note to the softmax step; W_O adds the output table to step 7.
        core::Options options = w.document()->model().options;
        options.mask = core::Mask::Causal;
        w.document()->setOptions(options);
        w.document()->setOutputProjection(true);
        w.document()->waitForTrace();
        settle();
        QStringList problems = cutLabels(steps) + labelsOutside(steps) + tablesScrollingWrongly(steps);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n"))));

        auto* walkthroughDock = w.findChild<QDockWidget*>(QStringLiteral("walkthroughDock"));
        walkthroughDock->raise();
        auto* walkthrough = w.findChild<ui::WalkthroughPanel*>();
        QVERIFY(walkthrough);
        if (auto* precision = walkthrough->findChild<QSpinBox*>())
            precision->setValue(decimals);
        settle();
        problems = cutLabels(walkthrough) + labelsOutside(walkthrough);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n"))));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    /** A model whose heads are 64 wide (d_model 128, 2 heads, as GPT-2's 768 over 12): Q, K and V of a head are
     *  tables of 64 columns, far wider than the steps panel. They scroll in their own view; the formulas and
     *  captions stay in the panel's width, so that none needs a sideways scroll to be read. */
    void modelStepsNeedNoSidewaysScroll_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QSize>("size");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")})
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)})
                QTest::addRow("%s %dx%d", qPrintable(language), size.width(), size.height()) << language << size;
    }
    void modelStepsNeedNoSidewaysScroll()
    {
        QFETCH(QString, language);
        QFETCH(QSize, size);
        openWideModel();
        if (QTest::currentTestFailed())
            return;
        QVERIFY(ui::i18n::applyLanguage(language));
        ui::MainWindow& w = *m_window;
        w.resize(size);
        w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->raise();
        settle();
        auto* steps = w.findChild<ui::StepsPanel*>();
        QVERIFY(steps);
        // The effect is there to be avoided: step 2's tables are wider than the panel.
        const int viewport = steps->findChild<QScrollArea*>()->viewport()->width();
        QVERIFY(!steps->stepBlocks(2).empty());
        QTableView* table = steps->stepBlocks(2).front()->table();
        QVERIFY(table->isVisible());
        QVERIFY2(table->horizontalHeader()->length() > viewport,
                 qPrintable(QStringLiteral("%1 ≤ %2").arg(table->horizontalHeader()->length()).arg(viewport)));
        QStringList problems = formulasOutOfSight(steps) + cutLabels(steps) + labelsOutside(steps);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n"))));
        // A table narrower than its columns scrolls in its own view, below its last row; one that fits does not.
        QVERIFY(table->horizontalScrollBar()->maximum() > 0);
        QVERIFY(table->horizontalScrollBar()->isVisible());
        QVERIFY(table->viewport()->height() >= table->verticalHeader()->length());
        problems = tablesScrollingWrongly(steps);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n"))));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    /** The same after new texts that make the step tables wider (n × n scores) and then turn them into thumbnails
     *  and back (more than 64 tokens, then fewer): the panel is laid out for what it shows at the end. */
    void modelStepsNeedNoSidewaysScrollAfterNewTexts()
    {
        const QString folder = m_dir.filePath(QStringLiteral("wide-gpt2-128"));  // d_k 64, 128 positions
        QVERIFY(QDir().mkpath(folder));
        testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer, 1, 128, 2, 128), folder.toStdString());
        openWideModel(folder);
        if (QTest::currentTestFailed())
            return;
        ui::MainWindow& w = *m_window;
        w.resize(1280, 720);
        w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->raise();
        settle();
        auto* steps = w.findChild<ui::StepsPanel*>();
        QStringList words;
        for (int i = 0; i < 70; ++i)
            words << QStringLiteral("word");
        for (const int n : {40, 70, 50}) {
            QVERIFY(w.document()->setTokenText(QStringList(words.mid(0, n)).join(QLatin1Char(' '))));
            QVERIFY(w.document()->waitForModel(120000));
            settle();
            QCOMPARE(steps->stepBlocks(3).front()->isThumbnail(), w.document()->model().n() > ui::StepBlock::maxTableSide);
            QStringList problems = formulasOutOfSight(steps) + cutLabels(steps) + labelsOutside(steps)
                + tablesScrollingWrongly(steps);
            QVERIFY2(problems.isEmpty(),
                     qPrintable(QStringLiteral("%1 tokens:\n").arg(w.document()->model().n()) + problems.join(QStringLiteral("\n"))));
        }
    }

    /** With AE_SCREENSHOT_DIR set: the window at projector and desktop sizes in both languages, every
     *  dock shown, and the √d_k panel, for a person to look at. */
    void screenshots()
    {
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("AE_SCREENSHOT_DIR is not set");
        ui::MainWindow& w = *m_window;
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            QVERIFY(ui::i18n::applyLanguage(language));
            for (const QSize size : {QSize(1024, 640), QSize(1280, 720), QSize(1920, 1080)}) {
                w.resize(size);
                w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->raise();
                settle();
                const QString name =
                    QStringLiteral("%1/window-%2-%3x%4").arg(dir, language).arg(size.width()).arg(size.height());
                QVERIFY(w.grab().save(name + QStringLiteral(".png")));
                for (const char* other : {"walkthroughDock", "scalingDock", "historyDock", "overviewDock"}) {
                    auto* dock = w.findChild<QDockWidget*>(QString::fromLatin1(other));
                    dock->show();
                    dock->raise();
                    settle();
                    QTest::qWait(300);
                    QVERIFY(
                        w.grab().save(name + QLatin1Char('-') + QString::fromLatin1(other) + QStringLiteral(".png")));
                }
            }
        }
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    /** With AE_SCREENSHOT_DIR set: a model session's window at 1280 × 720 and 1920 × 1080 in both languages, the
     *  steps panel at its top and scrolled to step 2. The model is AE_SCREENSHOT_MODEL's folder when set (a
     *  GPT-2-small-shaped one, say), else the test's own of 64-wide heads. */
    void modelScreenshots()
    {
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("AE_SCREENSHOT_DIR is not set");
        openWideModel(qEnvironmentVariable("AE_SCREENSHOT_MODEL"));
        if (QTest::currentTestFailed())
            return;
        ui::MainWindow& w = *m_window;
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            QVERIFY(ui::i18n::applyLanguage(language));
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
                w.resize(size);
                w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->raise();
                settle();
                auto* scroll = w.findChild<ui::StepsPanel*>()->findChild<QScrollArea*>();
                const QString name =
                    QStringLiteral("%1/model-%2-%3x%4").arg(dir, language).arg(size.width()).arg(size.height());
                scroll->verticalScrollBar()->setValue(0);
                settle();
                QVERIFY(w.grab().save(name + QStringLiteral(".png")));
                const auto blocks = w.findChild<ui::StepsPanel*>()->stepBlocks(2);
                scroll->ensureWidgetVisible(blocks.front(), 0, 0);
                settle();
                QVERIFY(w.grab().save(name + QStringLiteral("-step2.png")));
                w.findChild<QDockWidget*>(QStringLiteral("overviewDock"))->raise();
                settle();
                QTest::qWait(500);  // the overview paints its grid off the GUI thread
                QVERIFY(w.grab().save(name + QStringLiteral("-overview.png")));
                for (const char* other : {"walkthroughDock", "headViewDock"}) {
                    w.findChild<QDockWidget*>(QString::fromLatin1(other))->raise();
                    settle();
                    QTest::qWait(300);
                    QVERIFY(w.grab().save(name + QLatin1Char('-') + QString::fromLatin1(other) + QStringLiteral(".png")));
                }
            }
            // An edit, then a new text: the window as it shows the edited pass while the comparison runs.
            ui::Document& doc = *w.document();
            w.resize(1280, 720);
            w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->raise();
            QVERIFY(doc.setCell(ui::MatrixId::Query, 0, 0, 2.5));
            QVERIFY(doc.waitForModel(120000));
            const QString text = doc.tokenText();
            bool grabbed = false;
            const auto c = connect(&doc, &ui::Document::predictionChanged, this, [&] {
                if (doc.modelSession()->prediction().comparing && !grabbed)
                    grabbed = w.grab().save(QStringLiteral("%1/model-%2-comparing.png").arg(dir, language));
            });
            QVERIFY(doc.setTokenText(QStringLiteral("Once upon a time")));
            doc.endTypingBurst();
            QVERIFY(doc.waitForModel(120000));
            disconnect(c);
            QVERIFY(grabbed);
            doc.undoStack()->undo();
            doc.undoStack()->undo();
            QVERIFY(doc.waitForModel(120000));
            QCOMPARE(doc.tokenText(), text);
        }
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

private:
    /** Opens a model folder in the window: folder, or one written here with heads 64 wide (1 layer, d_model 128,
     *  2 heads, GPT-2's tokenizer). */
    void openWideModel(const QString& folder = QString())
    {
        QString path = folder;
        if (path.isEmpty()) {
            path = m_dir.filePath(QStringLiteral("wide-gpt2"));
            if (!QDir(path).exists()) {
                QVERIFY(QDir().mkpath(path));
                testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer, 1, 128, 2), path.toStdString());
            }
        }
        QString error;
        QVERIFY2(m_window->session()->openModelFolder(path, &error), qPrintable(error));
        QVERIFY(m_window->document()->waitForModel(120000));
        settle();
    }

    /** Rows of the current test: each size in English and in Chinese. */
    static void addRows(std::initializer_list<QSize> sizes)
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QSize>("size");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")})
            for (const QSize size : sizes)
                QTest::addRow("%s %dx%d", qPrintable(language), size.width(), size.height()) << language << size;
    }
    /** Switches to the row's language and resizes the window to the row's size; returns the size. */
    QSize showInLanguageAndSize()
    {
        QFETCH(QString, language);
        QFETCH(QSize, size);
        [&] { QVERIFY(ui::i18n::applyLanguage(language)); }();
        m_window->resize(size);
        settle();
        [&] { QCOMPARE(m_window->size(), size); }();
        return size;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestLayout)
#include "tst_layout.moc"
