/** Multi-head conventions in the window: W_O added as (h·d_v) × d_model with d_out editable, a change
 *  of the heads offering d_k = d_v = d_model / h, the weights' columns labelled by head, and the cells
 *  the causal mask hides set apart in every table and on the slides. */

#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "ui/render/cellstyle.h"
#include "ui/document/document.h"
#include "ui/document/matrixtablemodel.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"
#include "ui/render/slidepainter.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/steps/optionspanel.h"
#include "ui/views/steps/scalingpanel.h"
#include "ui/views/steps/stepblock.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/teaching/teachingslides.h"
#include "ui/views/teaching/teachingview.h"
#include "ui/i18n/language.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QImage>
#include <QPainter>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>

#include <set>
#include <string>

using ui::MatrixId;

namespace {

core::Session presetSession(const char* name)
{
    return *core::preset(name);
}

/** The worked example with the causal mask on. */
core::Session causalSession()
{
    core::Session s = presetSession("illustrated");
    s.model.options.mask = core::Mask::Causal;
    return s;
}

QSpinBox* spinBox(QWidget& parent, const char* name)
{
    auto* box = parent.findChild<QSpinBox*>(QLatin1String(name));
    if (!box)
        qFatal("no spin box %s", name);
    return box;
}

/** The labels, from a space-separated list. */
QStringList labels(const char* list)
{
    return QString::fromUtf8(list).split(QLatin1Char(' '));
}

QStringList headerLabels(const QAbstractItemModel& model, Qt::Orientation orientation)
{
    QStringList labels;
    const int count = orientation == Qt::Horizontal ? model.columnCount() : model.rowCount();
    for (int i = 0; i < count; ++i)
        labels << model.headerData(i, orientation).toString();
    return labels;
}

/** The colours painted in the left quarter of a cell of a grabbed table (the number is right-aligned). */
std::set<QRgb> coloursLeftOf(const QImage& image, const QRect& cell)
{
    std::set<QRgb> colours;
    for (int y = cell.top() + 2; y < cell.bottom() - 1; ++y)
        for (int x = cell.left() + 2; x < cell.left() + cell.width() / 4; ++x)
            colours.insert(image.pixel(x, y));
    return colours;
}

}  // namespace

class TestMultiHead : public QObject {
    Q_OBJECT
private slots:
    void outputProjectionHasDModelColumns()
    {
        ui::Document doc;
        // The worked example (d_model 4, d_k = d_v = 3) split into two heads of 3: h·d_v = 6.
        QVERIFY(doc.setDimensions(4, 3, 3, 2));
        doc.setOutputProjection(true);
        QVERIFY(doc.model().wo);
        QCOMPARE(doc.model().wo->rows(), 6);
        QCOMPARE(doc.model().wo->cols(), 4);  // d_out = d_model: the output has d_model columns
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 4; ++c)
                QCOMPARE((*doc.model().wo)(r, c), r == c ? 1.0 : 0.0);
        QVERIFY(doc.waitForTrace(10000));
        QCOMPARE(doc.trace()->output.cols(), 4);
        QCOMPARE(doc.trace()->output.rows(), 3);
        // The output is the first four columns of the concatenation (ones on the diagonal).
        QCOMPARE(doc.trace()->output, core::Matrix(doc.trace()->concat.leftCols(4)));
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Added W_O (6 × 4)"));
        doc.undoStack()->undo();
        QVERIFY(!doc.model().wo);
        doc.undoStack()->redo();
        QCOMPARE(doc.model().wo->cols(), 4);
    }

    void outputWidthIsEditable()
    {
        ui::MainWindow w;
        ui::Document* doc = w.document();
        QSpinBox* dOut = spinBox(*w.optionsPanel(), "dOutBox");
        QVERIFY(!dOut->isEnabled());  // nothing to give columns to without W_O
        QVERIFY(!doc->setOutputWidth(5));
        w.optionsPanel()->findChild<QCheckBox*>(QStringLiteral("outputProjectionBox"))->click();
        QVERIFY(dOut->isEnabled());
        QCOMPARE(dOut->value(), 4);
        const core::Matrix before = *doc->model().wo;  // 3 × 4
        dOut->setValue(6);
        QCOMPARE(doc->model().wo->rows(), 3);
        QCOMPARE(doc->model().wo->cols(), 6);
        QCOMPARE(core::Matrix(doc->model().wo->leftCols(4)), before);  // the columns that were there stay
        QCOMPARE(doc->model().wo->rightCols(2).cwiseAbs().sum(), 0.0);  // new ones zero (off the diagonal)
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Changed d_out to 6"));
        QVERIFY(doc->waitForTrace(10000));
        QCOMPARE(doc->trace()->output.cols(), 6);
        doc->undoStack()->undo();
        QCOMPARE(*doc->model().wo, before);
        QCOMPARE(dOut->value(), 4);
        QVERIFY(!doc->setOutputWidth(0));
    }

    void changingTheHeadsOffersDModelOverH()
    {
        ui::MainWindow w;
        ui::Document* doc = w.document();
        auto* panel = w.optionsPanel();
        QSpinBox* heads = spinBox(*panel, "headsBox");
        QCOMPARE(doc->model().dK(), 3);  // the worked example: d_model 4, d_k = d_v = 3
        const int steps = doc->undoStack()->count();
        heads->setValue(2);
        QCOMPARE(doc->model().heads(), 2);
        QCOMPARE(doc->model().dK(), 4 / 2);
        QCOMPARE(doc->model().dV(), 4 / 2);
        QCOMPARE(spinBox(*panel, "dkBox")->value(), 2);
        QCOMPARE(doc->undoStack()->count(), steps + 1);  // heads, d_k and d_v in one step
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Changed the heads to 2, d_k to 2, d_v to 2"));
        QCOMPARE(panel->note(), QStringLiteral("d_k = d_v = d_model / h = 4 / 2 = 2, as usual; change them freely."));

        // d_k can still be set apart from the convention.
        spinBox(*panel, "dkBox")->setValue(3);
        QCOMPARE(doc->model().dK(), 3);
        QCOMPARE(doc->model().dV(), 2);
        QVERIFY(panel->note().isEmpty());

        // Three heads do not divide d_model 4: d_k and d_v stay as they are.
        heads->setValue(3);
        QCOMPARE(doc->model().heads(), 3);
        QCOMPARE(doc->model().dK(), 3);
        QCOMPARE(doc->model().dV(), 2);
        QVERIFY(panel->note().isEmpty());

        heads->setValue(4);
        QCOMPARE(doc->model().dK(), 1);
        QCOMPARE(doc->model().dV(), 1);

        doc->undoStack()->undo();
        doc->undoStack()->undo();
        doc->undoStack()->undo();
        doc->undoStack()->undo();
        QCOMPARE(doc->model(), core::illustratedModel());
        QCOMPARE(heads->value(), 1);
    }

    void weightColumnsAreLabelledByHead()
    {
        ui::Document doc;
        ui::ViewState view;
        ui::MatrixTableModel wq(&doc, MatrixId::Query, &view), wv(&doc, MatrixId::Value, &view);
        ui::MatrixTableModel wo(&doc, MatrixId::Output, &view), x(&doc, MatrixId::Embeddings, &view);
        QCOMPARE(headerLabels(wq, Qt::Horizontal), labels("1 2 3"));  // one head: plain numbers

        // The same shape split into two heads: only the labels change, and the views are told.
        QVERIFY(doc.setDimensions(4, 4, 4, 1));
        QSignalSpy relabelled(&wq, &QAbstractItemModel::headerDataChanged);
        QVERIFY(doc.setDimensions(4, 2, 2, 2));
        QCOMPARE(wq.columnCount(), 4);
        QVERIFY(!relabelled.isEmpty());
        QCOMPARE(relabelled.first().at(0).value<Qt::Orientation>(), Qt::Horizontal);
        QCOMPARE(headerLabels(wq, Qt::Horizontal), labels("h1·1 h1·2 h2·1 h2·2"));
        QCOMPARE(wq.headerData(2, Qt::Horizontal, Qt::ToolTipRole).toString(),
                 QStringLiteral("Head 2, column 1 (column 3 of 4)"));

        QVERIFY(doc.setDimensions(4, 2, 3, 2));
        QCOMPARE(headerLabels(wv, Qt::Horizontal), labels("h1·1 h1·2 h1·3 h2·1 h2·2 h2·3"));
        doc.setOutputProjection(true);
        QCOMPARE(headerLabels(wo, Qt::Vertical), labels("h1·1 h1·2 h1·3 h2·1 h2·2 h2·3"));
        QCOMPARE(headerLabels(wo, Qt::Horizontal), labels("1 2 3 4"));  // d_out: not per head
        QCOMPARE(headerLabels(x, Qt::Horizontal), labels("1 2 3 4"));

        // The concatenation of the steps is labelled the same way.
        QVERIFY(doc.waitForTrace(10000));
        ui::StepTableModel concat(&doc, &view, core::Step::Concat);
        QCOMPARE(headerLabels(concat, Qt::Horizontal), labels("h1·1 h1·2 h1·3 h2·1 h2·2 h2·3"));
        // And on the slides of W_O.
        const auto slides = ui::buildSlides(*doc.trace(), 0, 0);
        const render::Slide& last = slides.back();
        QCOMPARE(last.matrices.at(1).name, QStringLiteral("W_O"));
        QCOMPARE(last.matrices.at(1).rowLabels, labels("h1·1 h1·2 h1·3 h2·1 h2·2 h2·3"));
    }

    void maskedCellsAreSetApart()
    {
        ui::Document doc;
        doc.loadSession(causalSession(), QString());
        QVERIFY(doc.waitForTrace(10000));
        ui::ViewState view;
        for (core::Step step : {core::Step::Scores, core::Step::ScaledScores, core::Step::Weights}) {
            ui::StepTableModel model(&doc, &view, step);
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) {
                    const QModelIndex at = model.index(r, c);
                    QCOMPARE(at.data(ui::MaskedRole).toBool(), c > r);  // a key after its query
                    const QString tip = at.data(Qt::ToolTipRole).toString();
                    QCOMPARE(tip.startsWith(QStringLiteral("Masked: key %1 comes after query %2").arg(c + 1).arg(r + 1)),
                             c > r);
                }
        }
        // A masked weight is 0, but is not painted as a real 0 is: the tint of 0 on the weights' map.
        ui::StepTableModel weights(&doc, &view, core::Step::Weights);
        const QModelIndex masked = weights.index(0, 2);
        QCOMPARE(masked.data(ui::ValueRole).toDouble(), 0.0);
        const QColor realZero = ui::cellTint(0.0, 0.0, 1.0, render::defaultColormap(core::Step::Weights), weights.baseColor());
        QVERIFY(masked.data(Qt::BackgroundRole).value<QColor>() != realZero);
        QCOMPARE(masked.data(Qt::BackgroundRole).value<QColor>(), ui::maskedCellColor(weights.baseColor()));
        QVERIFY(masked.data(Qt::ForegroundRole).value<QColor>()
                != render::contrastingTextColor(realZero.rgb()));

        // The weighted values of query 1: the rows of keys 2 and 3 are masked.
        ui::StepTableModel* weighted = ui::StepTableModel::weightedValues(&doc, &view, &doc);
        QVERIFY(!weighted->index(0, 0).data(ui::MaskedRole).toBool());
        QVERIFY(weighted->index(1, 0).data(ui::MaskedRole).toBool());
        QVERIFY(weighted->index(2, 2).data(ui::MaskedRole).toBool());

        // Without the mask no cell is.
        core::Options o = doc.model().options;
        o.mask = core::Mask::None;
        doc.setOptions(o);
        QVERIFY(doc.waitForTrace(10000));
        QVERIFY(!weights.index(0, 2).data(ui::MaskedRole).toBool());
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Turned off the causal mask"));
    }

    void maskedCellsArePaintedHatched()
    {
        // The steps panel's weights table, as painted: a masked cell is hatched (two colours or more
        // besides its number), a real one is one flat tint.
        ui::MainWindow w;
        w.document()->loadSession(causalSession(), QString());
        w.resize(1280, 720);
        w.show();
        QVERIFY(w.document()->waitForTrace(10000));
        QCoreApplication::processEvents();
        auto* steps = w.findChild<ui::StepsPanel*>();
        QTableView* table = nullptr;
        for (ui::StepBlock* block : steps->stepBlocks(5))
            if (block->model()->step() == core::Step::Weights)
                table = block->findChild<QTableView*>();
        QVERIFY(table);
        QTRY_VERIFY(table->isVisible());
        const QImage image = table->viewport()->grab().toImage();
        if (!qEnvironmentVariableIsEmpty("AE_SCREENSHOT_DIR"))
            image.save(qEnvironmentVariable("AE_SCREENSHOT_DIR") + QStringLiteral("/masked-table.png"));
        auto cell = [&](int r, int c) { return table->visualRect(table->model()->index(r, c)); };
        QVERIFY(coloursLeftOf(image, cell(0, 1)).size() >= 2);
        QVERIFY(coloursLeftOf(image, cell(1, 2)).size() >= 2);
        QCOMPARE(coloursLeftOf(image, cell(1, 0)).size(), std::size_t(1));
        QCOMPARE(coloursLeftOf(image, cell(2, 2)).size(), std::size_t(1));
    }

    void slidesShowTheMask()
    {
        core::Session s = causalSession();
        const core::Trace trace = core::compute(s.model);
        const auto slides = ui::buildSlides(trace, 0, 0);
        // Scores, scaled scores, weights and the weighted values of query 1 each mark what the mask hides.
        int markedMatrices = 0;
        for (const render::Slide& slide : slides)
            for (const render::SlideMatrix& m : slide.matrices)
                if (m.isMasked(0, 1) || m.isMasked(1, 0))
                    ++markedMatrices;
        QCOMPARE(markedMatrices, 1 + 2 + 1 + 1 + 1 + 1);  // steps 3, 4 (two), 5, 6, 7 and every token at once
        QVERIFY(slides[2].arithmetic.at(1).endsWith(QStringLiteral(" (masked)")));
        QVERIFY(!slides[2].arithmetic.at(0).contains(QStringLiteral("masked")));

        // Painted: the masked cells take the masked colour, which no other pixel has.
        render::SlideColors colors;
        colors.masked = QColor(255, 0, 255);
        auto maskedPixels = [&](const render::Slide& slide) {
            QImage image(1280, 720, QImage::Format_RGB32);
            QPainter p(&image);
            render::SlidePainter painter(slide, QFont(), colors);
            painter.paint(p, QRectF(0, 0, 1280, 720));
            p.end();
            int count = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    count += image.pixel(x, y) == colors.masked.rgb();
            return count;
        };
        QVERIFY(maskedPixels(slides[2]) > 1000);
        const core::Trace open = core::compute(presetSession("illustrated").model);
        QCOMPARE(maskedPixels(ui::buildSlides(open, 0, 0)[2]), 0);
    }

    /** With AE_SCREENSHOT_DIR set, writes there, to look at: the window with the worked example and with
     *  the two-head preset (each with the causal mask too), its walkthrough and √d_k panel, and every
     *  teaching slide, at 1280 × 720 and 1920 × 1080, in English and Chinese. */
    void screenshots()
    {
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("AE_SCREENSHOT_DIR is not set");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            QVERIFY(ui::i18n::applyLanguage(language));
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
                for (const char* preset : {"illustrated", "multi-head"}) {
                    ui::MainWindow w;
                    w.resize(size);
                    w.show();
                    QVERIFY(w.loadPreset(QString::fromLatin1(preset)));
                    const QString name = QStringLiteral("%1/%2-%3-%4x%5")
                                             .arg(dir, QLatin1String(preset), language)
                                             .arg(size.width())
                                             .arg(size.height());
                    for (const bool causal : {false, true}) {
                        core::Options o = w.document()->model().options;
                        o.mask = causal ? core::Mask::Causal : core::Mask::None;
                        w.document()->setOptions(o);
                        QVERIFY(w.document()->waitForTrace(10000));
                        QTest::qWait(400);
                        const QString tag = name + (causal ? QStringLiteral("-causal") : QString());
                        QVERIFY(w.grab().save(tag + QStringLiteral(".png")));
                        if (!causal)
                            continue;
                        // W_Q's columns by head, and the steps panel at the masked scores and weights.
                        w.findChild<ui::MatrixEditorPanel*>()->setCurrentMatrix(MatrixId::Query);
                        auto* steps = w.findChild<ui::StepsPanel*>();
                        if (auto* scroll = steps->findChild<QScrollArea*>())
                            scroll->ensureWidgetVisible(steps->stepBlocks(5).front(), 0, 0);
                        QTest::qWait(300);
                        QVERIFY(w.grab().save(tag + QStringLiteral("-wq-steps.png")));
                        for (const char* other : {"walkthroughDock", "scalingDock"}) {
                            auto* dock = w.findChild<QDockWidget*>(QString::fromLatin1(other));
                            dock->show();
                            dock->raise();
                            QTest::qWait(other == std::string("scalingDock") ? 1500 : 300);
                            QVERIFY(w.grab().save(tag + QLatin1Char('-') + QString::fromLatin1(other) + QStringLiteral(".png")));
                        }
                        ui::TeachingView teaching(w.document(), w.viewState());
                        teaching.resize(size);
                        teaching.show();
                        for (int i = 0; i < teaching.slideCount(); ++i) {
                            teaching.setSlide(i);
                            QTest::qWait(30);
                            QVERIFY(teaching.grab().save(tag + QStringLiteral("-slide%1.png").arg(i + 1, 2, 10, QLatin1Char('0'))));
                        }
                    }
                }
            }
        }
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    /** With AE_README_SCREENSHOT_DIR set, writes the README's screenshots there at 1280 × 720: the window
     *  with the worked example in English and Chinese, teaching mode at step 3 in both, and the √d_k panel. */
    void readmeScreenshots()
    {
        const QString dir = qEnvironmentVariable("AE_README_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("AE_README_SCREENSHOT_DIR is not set");
        const QSize size(1280, 720);
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            QVERIFY(ui::i18n::applyLanguage(language));
            const QString suffix = language == QLatin1String("en") ? QString() : QStringLiteral("-zh_CN");
            ui::MainWindow w;
            w.resize(size);
            w.show();
            QVERIFY(w.document()->waitForTrace(10000));
            QTest::qWait(500);
            QVERIFY(w.grab().save(dir + QStringLiteral("/window") + suffix + QStringLiteral(".png")));
            ui::TeachingView teaching(w.document(), w.viewState());
            teaching.resize(size);
            teaching.show();
            teaching.setSlide(2);
            QTest::qWait(100);
            QVERIFY(teaching.grab().save(dir + QStringLiteral("/teaching") + suffix + QStringLiteral(".png")));
        }
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
        ui::ScalingPanel scaling;
        QSignalSpy done(&scaling, &ui::ScalingPanel::studyChanged);
        scaling.resize(size);
        scaling.show();
        QVERIFY(done.wait(20000) || !done.isEmpty());
        QTest::qWait(300);
        QVERIFY(scaling.grab().save(dir + QStringLiteral("/scaling.png")));
    }
};

QTEST_MAIN(TestMultiHead)
#include "tst_multihead.moc"
