/** The window explains itself: the quick start of a first start and the Help menu's windows, the
 *  token line's placeholder, the matrix tools as buttons, the presets' human names, plain undo texts,
 *  the language menu readable in both languages, typing undone a burst at a time, and a large matrix
 *  that can be zoomed into and read. Driven through the real widgets, headless. */

#include "isolation.h"
#include "ui/document/document.h"
#include "ui/document/steptablemodel.h"
#include "ui/i18n/language.h"
#include "ui/render/displaynumber.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/heatmap/heatmapzoom.h"
#include "ui/views/teaching/helpdialogs.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/steps/stepblock.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/steps/tokenbar.h"

#include "core/session/presets.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QUndoStack>
#include <QWheelEvent>

#include <memory>

using ui::MatrixId;

namespace {

void switchTo(const QString& code)
{
    QVERIFY(ui::i18n::applyLanguage(code));
    QCoreApplication::processEvents();
}

QAction* action(ui::MainWindow& w, const char* name)
{
    return w.findChild<QAction*>(QLatin1String(name));
}

/** The menu of the menu bar whose title is title (in the current language). */
QMenu* topMenu(ui::MainWindow& w, const QString& title)
{
    for (QAction* a : w.menuBar()->actions())
        if (a->text() == title)
            return a->menu();
    return nullptr;
}

/** Sends a wheel turn of `notches` at pos (widget coordinates). */
void turnWheel(QWidget* widget, QPointF pos, int notches)
{
    QWheelEvent wheel(pos, widget->mapToGlobal(pos), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &wheel);
}

}  // namespace

class TestExplain : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_explain"), m_dir.filePath(QStringLiteral("settings")));
    }

    void init()
    {
        QSettings().clear();
        switchTo(QStringLiteral("en"));
    }

    void cleanup()
    {
        if (m_window)
            m_window->document()->undoStack()->setClean();
        m_window.reset();
        switchTo(QStringLiteral("en"));
    }

    void quickStartOnFirstStartOnlyAndFromHelp()
    {
        newWindow();
        ui::MainWindow& w = *m_window;
        QVERIFY(w.showQuickStartIfFirst());
        QDialog* quick = w.help()->quickStart();
        QVERIFY(quick);
        QVERIFY(quick->isVisible());
        QVERIFY(!quick->isModal());
        QCOMPARE(QApplication::activeModalWidget(), nullptr);
        // It names the real key of teaching mode.
        const QString key = action(w, "teachingAction")->shortcut().toString(QKeySequence::NativeText);
        QCOMPARE(key, QStringLiteral("F5"));
        auto* text = quick->findChild<QLabel*>(QStringLiteral("quickStartText"));
        QVERIFY(text->text().contains(QStringLiteral("Press F5 for teaching mode")));
        QVERIFY(text->text().contains(QStringLiteral("Type a sentence")));
        QVERIFY(text->text().contains(QStringLiteral("Hover a number")));
        auto* again = quick->findChild<QCheckBox*>(QStringLiteral("dontShowAgainBox"));
        QCOMPARE(again->text(), QStringLiteral("Don't show again"));
        QVERIFY(!again->isChecked());  // not asked yet
        quick->close();
        QTRY_VERIFY(!w.help()->quickStart());

        // Left unticked, the next start shows it again; ticked, the start after does not, and Help › Quick Start does.
        newWindow();
        QVERIFY(m_window->showQuickStartIfFirst());
        m_window->help()->quickStart()->findChild<QCheckBox*>(QStringLiteral("dontShowAgainBox"))->setChecked(true);
        m_window->help()->quickStart()->close();
        QTRY_VERIFY(!m_window->help()->quickStart());
        newWindow();
        QVERIFY(!m_window->showQuickStartIfFirst());
        QVERIFY(!m_window->help()->quickStart());
        QMenu* help = topMenu(*m_window, QStringLiteral("&Help"));
        QVERIFY(help);
        QVERIFY(help->actions().contains(action(*m_window, "quickStartAction")));
        action(*m_window, "quickStartAction")->trigger();
        QVERIFY(m_window->help()->quickStart() && m_window->help()->quickStart()->isVisible());
        QVERIFY(m_window->help()->quickStart()->findChild<QCheckBox*>(QStringLiteral("dontShowAgainBox"))->isChecked());

        // Unticking "Don't show again" brings it back at the next start.
        m_window->help()->quickStart()->findChild<QCheckBox*>(QStringLiteral("dontShowAgainBox"))->setChecked(false);
        m_window->help()->quickStart()->close();
        newWindow();
        QVERIFY(m_window->showQuickStartIfFirst());
    }

    void shortcutsAreReadFromTheActions()
    {
        newWindow();
        ui::MainWindow& w = *m_window;
        action(w, "shortcutsAction")->trigger();
        QDialog* dialog = w.help()->shortcuts();
        QVERIFY(dialog && dialog->isVisible());
        QVERIFY(!dialog->isModal());
        const QString text = dialog->findChild<QTextBrowser*>()->toPlainText();
        // Every entry of the menus that has a key is listed with its key; the table is not kept by hand.
        int listed = 0;
        for (QMenu* menu : w.menuBar()->findChildren<QMenu*>()) {
            for (QAction* a : menu->actions()) {
                if (a->isSeparator() || a->menu() || a->shortcut().isEmpty())
                    continue;
                QString name = a->text();
                name.remove(QLatin1Char('&'));
                if (name.endsWith(QChar(0x2026)))
                    name.chop(1);
                QVERIFY2(text.contains(name), qPrintable(name));
                QVERIFY2(text.contains(a->shortcut().toString(QKeySequence::NativeText)), qPrintable(name));
                ++listed;
            }
        }
        QVERIFY(listed > 20);
        QVERIFY(text.contains(QStringLiteral("Teaching Mode")));
        QVERIFY(text.contains(QStringLiteral("F5")));
        // A key given to an action later is listed when the dialog is opened again.
        dialog->close();
        QTRY_VERIFY(!w.help()->shortcuts());
        action(w, "exportSlidesAction")->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_L));
        action(w, "shortcutsAction")->trigger();
        QVERIFY(w.help()->shortcuts()->findChild<QTextBrowser*>()->toPlainText().contains(
            QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_L).toString(QKeySequence::NativeText)));
    }

    void whatYouCanDoInBothLanguages()
    {
        newWindow();
        ui::MainWindow& w = *m_window;
        action(w, "whatYouCanDoAction")->trigger();
        QDialog* dialog = w.help()->whatYouCanDo();
        QVERIFY(dialog && dialog->isVisible());
        auto* view = dialog->findChild<QTextBrowser*>();
        QVERIFY(view->toPlainText().contains(QStringLiteral("Type your own sentence.")));
        QVERIFY(view->toPlainText().contains(QStringLiteral("Teach with it.")));
        switchTo(QStringLiteral("zh_CN"));
        QVERIFY(view->toPlainText().contains(QStringLiteral("输入你自己的句子。")));
        QVERIFY(!view->toPlainText().contains(QStringLiteral("Type your own sentence.")));
        QCOMPARE(dialog->windowTitle(), QStringLiteral("你能做什么"));
    }

    void tokenLineHasAPlaceholder()
    {
        newWindow();
        QLineEdit* line = m_window->tokenBar()->lineEdit();
        QCOMPARE(line->placeholderText(), QStringLiteral("Type a sentence…"));
        switchTo(QStringLiteral("zh_CN"));
        QCOMPARE(line->placeholderText(), QStringLiteral("输入一个句子…"));
    }

    void matrixToolsAreButtons()
    {
        newWindow();
        const QStringList names{QStringLiteral("copyButton"),     QStringLiteral("pasteButton"),
                                QStringLiteral("randomButton"),   QStringLiteral("zerosButton"),
                                QStringLiteral("identityButton"), QStringLiteral("scaleButton")};
        auto* panel = m_window->findChild<ui::MatrixEditorPanel*>();
        QVERIFY(panel);
        for (const QString& name : names) {
            auto* button = panel->findChild<QToolButton*>(name);
            QVERIFY2(button, qPrintable(name));
            // A frame around it at rest, as a button has, not flat text that shows one only under the mouse.
            QVERIFY2(!button->autoRaise(), qPrintable(name));
            QVERIFY2(!button->text().isEmpty(), qPrintable(name));
        }
        // They still do what they say.
        panel->setCurrentMatrix(MatrixId::Query);
        panel->findChild<QToolButton*>(QStringLiteral("zerosButton"))->click();
        QVERIFY(m_window->document()->model().wq.isZero(0.0));
    }

    void presetMenuShowsHumanNames()
    {
        newWindow();
        ui::MainWindow& w = *m_window;
        QAction* illustrated = action(w, "preset_illustrated");
        QVERIFY(illustrated);
        QCOMPARE(illustrated->text(), QStringLiteral("The Illustrated: Self-Attention example"));
        QVERIFY(illustrated->statusTip().contains(QStringLiteral("Illustrated: Self-Attention")));
        QCOMPARE(illustrated->toolTip(), illustrated->statusTip());
        QVERIFY(topMenu(w, QStringLiteral("&Presets"))->actions().contains(illustrated));
        // Every preset has a name for people, none its machine name; the action still loads it.
        for (const core::PresetInfo& info : core::presetList()) {
            QAction* a = w.findChild<QAction*>(QStringLiteral("preset_") + QString::fromStdString(info.name));
            QVERIFY(a);
            QVERIFY2(a->text() != QString::fromStdString(info.name), info.name.c_str());
            QVERIFY2(!a->statusTip().isEmpty(), info.name.c_str());
        }
        action(w, "preset_multi-head")->trigger();
        QCOMPARE(w.document()->model().heads(), 2);

        switchTo(QStringLiteral("zh_CN"));
        QCOMPARE(illustrated->text(), QStringLiteral("《图解自注意力》中的示例"));
        QCOMPARE(action(w, "preset_chinese")->text(), QStringLiteral("一个中文句子"));
        QVERIFY(illustrated->statusTip().contains(QStringLiteral("3 个词元")));
    }

    void cellEditSpeaksPlainly()
    {
        newWindow();
        ui::MainWindow& w = *m_window;
        auto* panel = w.findChild<ui::MatrixEditorPanel*>();
        panel->setCurrentMatrix(MatrixId::Query);
        QTableView* table = panel->tableView(MatrixId::Query);
        table->setFocus();
        table->setCurrentIndex(table->model()->index(1, 1));
        // Typing into a cell opens its editor with the first key; Enter commits.
        QTest::keyClick(table, Qt::Key_0, Qt::NoModifier);
        auto* editor = table->findChild<QLineEdit*>();
        QVERIFY(editor);
        QTest::keyClicks(editor, QStringLiteral(".5"));
        QCOMPARE(editor->text(), QStringLiteral("0.5"));
        QTest::keyClick(editor, Qt::Key_Return);
        QTRY_COMPARE(w.document()->model().wq(1, 1), 0.5);  // the delegate commits on its next turn
        const QString expected = QStringLiteral("Changed W_Q row 2, column 2 to 0.5");
        QCOMPARE(w.document()->undoStack()->undoText(), expected);
        QCOMPARE(w.statusBar()->currentMessage(), expected);
        QCOMPARE(action(w, "undoAction")->text(), QStringLiteral("&Undo: ") + expected);
        // A second edit of the cell merges and names where it ends.
        QVERIFY(w.document()->setCell(MatrixId::Query, 1, 1, 0.75));
        QCOMPARE(w.document()->undoStack()->undoText(), QStringLiteral("Changed W_Q row 2, column 2 to 0.75"));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Changed W_Q row 2, column 2 to 0.75"));
        w.document()->undoStack()->undo();
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Undone: Changed W_Q row 2, column 2 to 0.75"));

        // In Chinese, with the number as the UI writes it.
        switchTo(QStringLiteral("zh_CN"));
        QVERIFY(w.document()->setCell(MatrixId::Embeddings, 0, 3, -1.25));
        QCOMPARE(w.document()->undoStack()->undoText(),
                 QStringLiteral("将 X 第 1 行第 4 列改为 %1").arg(render::displayNumber(-1.25, 'g', render::shortestPrecision)));
    }

    /** Every kind of undo step is named as what was done, in the past tense, like a cell edit. */
    void everyUndoStepSaysWhatWasDone()
    {
        newWindow();
        ui::Document* doc = m_window->document();
        auto* panel = m_window->findChild<ui::MatrixEditorPanel*>();
        QStringList names;
        auto named = [&](const QString& expected) {
            QCOMPARE(doc->undoStack()->undoText(), expected);
            names << expected;
        };
        QVERIFY(doc->setTokenText(QStringLiteral("one two three")));
        named(QStringLiteral("Changed the tokens to “one two three”"));
        core::Options o = doc->model().options;
        o.mask = core::Mask::Causal;
        doc->setOptions(o);
        named(QStringLiteral("Turned on the causal mask"));
        o.temperature = 0.5;
        doc->setOptions(o);
        named(QStringLiteral("Changed the temperature to %1").arg(render::displayNumber(0.5, 'g', render::shortestPrecision)));
        o.scale = !o.scale;
        doc->setOptions(o);
        named(o.scale ? QStringLiteral("Turned on dividing the scores by √d_k")
                      : QStringLiteral("Turned off dividing the scores by √d_k"));
        QVERIFY(doc->setDimensions(6, 3, 3, 2));
        named(QStringLiteral("Changed the heads to 2, d_model to 6"));
        doc->setOutputProjection(true);
        named(QStringLiteral("Added W_O (6 × 6)"));
        QVERIFY(doc->setOutputWidth(4));
        named(QStringLiteral("Changed d_out to 4"));
        panel->setCurrentMatrix(MatrixId::Key);
        panel->fillZeros();
        named(QStringLiteral("Filled W_K with zeros"));
        panel->fillIdentity();
        named(QStringLiteral("Filled W_K with the identity"));
        panel->fillRandom();
        named(QStringLiteral("Filled W_K at random (seed 1)"));
        panel->scale();
        named(QStringLiteral("Scaled W_K by 2"));
        QVERIFY(panel->pasteText(QStringLiteral("1\t2\n3\t4")));
        named(QStringLiteral("Pasted 2 × 2 cells into W_K"));
        doc->setOutputProjection(false);
        named(QStringLiteral("Removed W_O"));
        // None is an order ("Edit tokens", "Change options"): each says what was done.
        static const QRegularExpression imperative(
            QStringLiteral("^(Edit|Change|Add|Remove|Fill|Scale|Paste|Import|Set|Turn) "));
        for (const QString& name : names)
            QVERIFY2(!imperative.match(name).hasMatch(), qPrintable(name));
        // The history lists them; the status bar shows the last one.
        QCOMPARE(m_window->statusBar()->currentMessage(), QStringLiteral("Removed W_O"));

        switchTo(QStringLiteral("zh_CN"));
        QVERIFY(doc->setDimensions(6, 3, 3, 1));
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("将头数改为 1"));
        doc->setOutputProjection(true);
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("已添加 W_O（3 × 6）"));
        // A refused paste says why in the window's language, naming the cell.
        QVERIFY(!panel->pasteText(QStringLiteral("1\tx")));
        QCOMPARE(panel->message(), QStringLiteral("未粘贴：第 1 行第 2 列：“x”不是有限的数"));
        QVERIFY(!panel->pasteText(QStringLiteral("1 2\n3")));
        QCOMPARE(panel->message(), QStringLiteral("未粘贴：第 2 行有 1 个单元格，而第一行有 2 个"));
    }

    /** An open zoom follows a language switch: its title, buttons, hint and the readout under the pointer. */
    void zoomFollowsTheLanguage()
    {
        newWindow();
        QVERIFY(m_window->loadPreset(QStringLiteral("thinking-machines")));
        m_window->document()->waitForTrace();
        ui::HeatmapZoomView* view = xBlock()->zoom();
        auto* dialog = view->window();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(dialog->windowTitle(), QStringLiteral("X"));
        auto* fit = dialog->findChild<QAbstractButton*>(QStringLiteral("zoomFitButton"));
        auto* hint = dialog->findChild<QLabel*>(QStringLiteral("zoomHint"));
        auto* readout = dialog->findChild<QLabel*>(QStringLiteral("zoomReadout"));
        QVERIFY(fit && hint && readout);
        QCOMPARE(fit->text(), QStringLiteral("&Fit"));
        const QPoint at(view->width() / 3, view->height() / 2);
        turnWheel(view, at, 2);  // zooming reads out the cell under the pointer
        const auto cell = view->cellAt(at);
        QVERIFY(cell);
        const auto [row, col] = *cell;
        QTRY_VERIFY2(readout->text().startsWith(QStringLiteral("row %1").arg(row + 1)), qPrintable(readout->text()));

        switchTo(QStringLiteral("zh_CN"));
        QCOMPARE(fit->text(), QStringLiteral("适应窗口(&F)"));
        QCOMPARE(hint->text(), QStringLiteral("滚轮：以指针为中心缩放 · 拖动：移动"));
        // The legend's words change their width with the language, so the cell under the pointer may too.
        const auto cellZh = view->cellAt(at);
        QVERIFY(cellZh);
        QVERIFY2(readout->text().startsWith(QStringLiteral("第 %1 行").arg(cellZh->first + 1)), qPrintable(readout->text()));
        QVERIFY2(readout->text().contains(QStringLiteral("第 %1 列").arg(cellZh->second + 1)), qPrintable(readout->text()));
        QVERIFY(view->accessibleName().contains(dialog->windowTitle()));
        switchTo(QStringLiteral("en"));
        QCOMPARE(fit->text(), QStringLiteral("&Fit"));
        QVERIFY(readout->text().startsWith(QStringLiteral("row %1").arg(row + 1)));
        dialog->close();
    }

    void languageMenuReadsInBothLanguages()
    {
        newWindow();
        auto* menu = m_window->findChild<QMenu*>(QStringLiteral("languageMenu"));
        QVERIFY(menu);
        QCOMPARE(menu->title(), QStringLiteral("&Language / 语言"));
        switchTo(QStringLiteral("zh_CN"));
        QCOMPARE(menu->title(), QStringLiteral("&Language / 语言"));
        QVERIFY(topMenu(*m_window, QStringLiteral("视图(&V)"))->actions().contains(menu->menuAction()));
    }

    void headChoiceIsTranslated()
    {
        newWindow();
        auto* heads = m_window->findChild<QComboBox*>(QStringLiteral("headBox"));
        QVERIFY(heads);
        QCOMPARE(heads->itemText(0), QStringLiteral("1 of 1"));
        switchTo(QStringLiteral("zh_CN"));
        QCOMPARE(heads->itemText(0), QStringLiteral("第 1 个（共 1 个）"));
        switchTo(QStringLiteral("en"));
        QCOMPARE(heads->itemText(0), QStringLiteral("1 of 1"));
    }

    void typingIsUndoneOneBurstAtATime()
    {
        newWindow();
        ui::Document* doc = m_window->document();
        doc->setTypingPause(std::chrono::milliseconds(400));
        QLineEdit* line = m_window->tokenBar()->lineEdit();
        const QString original = line->text();
        line->setFocus();
        line->selectAll();
        QTest::keyClicks(line, QStringLiteral("one two"));
        QTest::qWait(900);  // a pause longer than the typing pause
        QTest::keyClicks(line, QStringLiteral(" three"));
        QCOMPARE(doc->tokenText(), QStringLiteral("one two three"));
        QCOMPARE(doc->undoStack()->count(), 2);

        // Enter ends a burst too, however soon the next key comes.
        QTest::keyClick(line, Qt::Key_Return);
        QTest::keyClicks(line, QStringLiteral(" four"));
        QCOMPARE(doc->undoStack()->count(), 3);

        doc->undoStack()->undo();
        QCOMPARE(line->text(), QStringLiteral("one two three"));
        doc->undoStack()->undo();
        QCOMPARE(line->text(), QStringLiteral("one two"));
        QCOMPARE(doc->model().n(), 2);
        doc->undoStack()->undo();
        QCOMPARE(line->text(), original);
        QVERIFY(!doc->undoStack()->canUndo());
    }

    void thumbnailOfAWideMatrixKeepsItsHeight()
    {
        // The renderer: 2 × 512 in 200 × 200 is a sliver of square cells, unless rows may stretch.
        render::HeatmapData data;
        data.values = core::Matrix::Random(2, 512);
        render::HeatmapStyle style;
        style.showTitle = style.showLegend = false;
        const QRectF target(0, 0, 200, 200);
        {
            render::HeatmapRenderer square(data, style);
            const QRectF cell = square.cellRect(0, 0, target);
            QVERIFY(cell.height() * 2 < 3);
            QCOMPARE(cell.height(), cell.width());
        }
        style.minMatrixHeight = 96;
        render::HeatmapRenderer tall(data, style);
        const QRectF first = tall.cellRect(0, 0, target), last = tall.cellRect(1, 511, target);
        QVERIFY2(last.bottom() - first.top() >= 96 - 1e-9, qPrintable(QString::number(last.bottom() - first.top())));
        QVERIFY(first.width() < 0.5);
        // Hit testing follows the taller rows.
        QCOMPARE(tall.cellAt(QPointF(first.center().x(), first.bottom() + 0.25 * first.height()), target),
                 std::make_optional(std::pair{1, 0}));

        // The window: X of "Thinking Machines" (2 × 512) shows as a thumbnail at least 90 pixels tall.
        newWindow();
        QVERIFY(m_window->loadPreset(QStringLiteral("thinking-machines")));
        m_window->document()->waitForTrace();
        ui::StepBlock* x = xBlock();
        QVERIFY(x);
        QVERIFY(x->isThumbnail());
        QWidget* thumb = x->thumbnail();
        QTRY_VERIFY(thumb->isVisible());
        const QColor base = thumb->palette().color(QPalette::Base);
        int painted = 0;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const QImage image = thumb->grab().toImage();
                const int column = image.width() / 2;
                painted = 0;
                for (int y = 0; y < image.height(); ++y)
                    painted += image.pixelColor(column, y) != base;
                return painted >= 90;
            }(),
            10000);
    }

    void zoomZoomsAndReadsTheValue()
    {
        newWindow();
        QVERIFY(m_window->loadPreset(QStringLiteral("thinking-machines")));
        m_window->document()->waitForTrace();
        ui::StepBlock* x = xBlock();
        QVERIFY(x);
        ui::HeatmapZoomView* view = x->zoom();
        QVERIFY(view);
        auto* dialog = view->window();
        dialog->resize(900, 600);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(view->zoom(), 1.0);
        const QRectF whole = view->figureRect();

        // The wheel zooms around the pointer: the cell under it stays under it, and grows.
        const QPointF at(view->width() * 0.3, view->height() * 0.5);
        const auto cellBefore = view->cellAt(at);
        QVERIFY(cellBefore);
        turnWheel(view, at, 3);
        QVERIFY2(view->zoom() > 1.9, qPrintable(QString::number(view->zoom())));
        QCOMPARE(view->figureRect().width(), whole.width() * view->zoom());
        // Two rows filled the height at fit: zooming spreads the columns, the rows stay in view.
        QVERIFY(view->figureRect().height() < whole.height() * view->zoom());
        QCOMPARE(view->cellAt(at), cellBefore);
        turnWheel(view, at, 13);
        QVERIFY2(view->zoom() > 20, qPrintable(QString::number(view->zoom())));
        QCOMPARE(view->cellAt(at), cellBefore);

        // The value under the pointer, row and column 1-based, is the document's X there.
        QTest::mouseMove(view, at.toPoint());
        const auto [row, col] = *view->cellAt(at);
        const double value = m_window->document()->model().embeddings(row, col);
        auto* readout = dialog->findChild<QLabel*>(QStringLiteral("zoomReadout"));
        QVERIFY(readout);
        const QString text = readout->text();
        QVERIFY2(text.contains(QStringLiteral("row %1").arg(row + 1)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("column %1").arg(col + 1)), qPrintable(text));
        QVERIFY2(text.endsWith(render::displayNumber(value, 'g', 6)), qPrintable(text));

        // Dragging moves the figure; Fit shows it whole again.
        const QPointF before = view->figureRect().topLeft();
        QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, at.toPoint());
        QTest::mouseMove(view, (at + QPointF(-120, 0)).toPoint());
        QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, (at + QPointF(-120, 0)).toPoint());
        QCOMPARE(view->figureRect().topLeft(), before + QPointF(-120, 0));
        dialog->findChild<QAbstractButton*>(QStringLiteral("zoomFitButton"))->click();
        QCOMPARE(view->zoom(), 1.0);
        QCOMPARE(view->figureRect(), whole);
        dialog->close();
    }

    /** With AE_SCREENSHOT_DIR set, writes the window, the quick start, the help windows and the zoom there,
     *  at 1280 × 720 and 1920 × 1080, in English and Chinese, to look at. */
    void screenshots()
    {
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("AE_SCREENSHOT_DIR is not set");
        for (const QString& code : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
                switchTo(code);
                newWindow();
                m_window->resize(size);
                QTest::qWait(300);
                const QString tag = QStringLiteral("%1-%2x%3").arg(code).arg(size.width()).arg(size.height());
                QVERIFY(m_window->grab().save(dir + QStringLiteral("/window-") + tag + QStringLiteral(".png")));
                m_window->help()->showQuickStart();
                QTest::qWait(100);
                QVERIFY(m_window->help()->quickStart()->grab().save(dir + QStringLiteral("/quickstart-") + tag + QStringLiteral(".png")));
                m_window->help()->showShortcuts();
                QTest::qWait(100);
                QVERIFY(m_window->help()->shortcuts()->grab().save(dir + QStringLiteral("/shortcuts-") + tag + QStringLiteral(".png")));
                m_window->help()->showWhatYouCanDo();
                QTest::qWait(100);
                QVERIFY(m_window->help()->whatYouCanDo()->grab().save(dir + QStringLiteral("/whatyoucando-") + tag + QStringLiteral(".png")));
                auto* presets = topMenu(*m_window, m_window->menuBar()->actions().at(3)->text());
                presets->popup(QPoint(0, 0));
                QTest::qWait(100);
                QVERIFY(presets->grab().save(dir + QStringLiteral("/presets-") + tag + QStringLiteral(".png")));
                presets->close();
                m_window->document()->setCell(MatrixId::Query, 1, 1, 0.5);
                QTest::qWait(100);
                QVERIFY(m_window->grab().save(dir + QStringLiteral("/edited-") + tag + QStringLiteral(".png")));
                QVERIFY(m_window->loadPreset(QStringLiteral("thinking-machines")));
                m_window->document()->waitForTrace();
                QTest::qWait(1000);
                QVERIFY(m_window->grab().save(dir + QStringLiteral("/thinking-") + tag + QStringLiteral(".png")));
                ui::HeatmapZoomView* view = xBlock()->zoom();
                QTest::qWait(200);
                QVERIFY(view->window()->grab().save(dir + QStringLiteral("/zoom-fit-") + tag + QStringLiteral(".png")));
                turnWheel(view, QPointF(view->width() * 0.3, view->height() * 0.5), 14);
                QTest::mouseMove(view, QPoint(view->width() * 0.3, view->height() * 0.5));
                QTest::qWait(200);
                QVERIFY(view->window()->grab().save(dir + QStringLiteral("/zoom-in-") + tag + QStringLiteral(".png")));
                view->window()->close();
            }
        }
    }

private:
    void newWindow()
    {
        if (m_window)
            m_window->document()->undoStack()->setClean();
        m_window.reset();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1280, 720);
        m_window->show();
        m_window->document()->waitForTrace();
        QCoreApplication::processEvents();
    }

    /** The steps panel's block of X (step 1). */
    ui::StepBlock* xBlock() const
    {
        auto* steps = m_window->findChild<ui::StepsPanel*>();
        for (ui::StepBlock* block : steps->stepBlocks(1))
            if (block->model()->step() == core::Step::X)
                return block;
        return nullptr;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestExplain)
#include "tst_explain.moc"
