/** The steps panel, the walkthrough of one query and the matrix editor, driven headless. */

#include "core/session/presets.h"
#include "testutil.h"
#include "ui/render/cellstyle.h"
#include "ui/document/document.h"
#include "ui/document/matrixtablemodel.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"
#include "ui/views/widgets/labelheaderview.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/steps/stepblock.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/steps/walkthroughpanel.h"
#include "ui/i18n/language.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QStyleFactory>
#include <QTableView>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTabWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QTest>
#include <QTextLayout>

#include <algorithm>

using namespace ui;

namespace {

/** A token line of 80 words: more rows than a step shows as numbers. */
QString eightyTokens()
{
    QStringList words;
    for (int i = 0; i < 80; ++i)
        words << QStringLiteral("w%1").arg(i);
    return words.join(QLatin1Char(' '));
}

/** A shown steps panel over a document of eighty tokens. */
struct EightyTokens {
    Document doc;
    ViewState view;
    StepsPanel panel{&doc, &view};
    bool ready = false;
    EightyTokens()
    {
        panel.show();
        ready = doc.setTokenText(eightyTokens()) && doc.waitForTrace(30000);
    }
};

}  // namespace

class TestStepsPanel : public QObject {
    Q_OBJECT
private slots:
    void sevenSteps_data();
    void sevenSteps();
    void weightEditUpdatesNumbers();
    void scalingShowsStepFour();
    void hoverHighlightsSources();
    void largeMatrixIsThumbnail();
    void thumbnailsFollowEdits();
    void editDrawsOnlyThumbnailsInView();
    void editLeavesStepTextsAlone();
    void tablesFitAfterReshape();
    void columnsFitTheirWidestNumber();
    void headersMeasureEachLabelOnce();
    void walkthroughSumsToOutput_data();
    void walkthroughSumsToOutput();
    void walkthroughFollowsQuery();
    void walkthroughNeverBreaksANumber();
    void walkthroughWritesOneMinusSign();
    void editorPasteAndFill();
    void editorPasteCopyAndScaleReachTheBiasRow();
    void editorRefusesText();
    void editorTypingCommitsToItsOwnMatrix();
    void screenshots();
};

void TestStepsPanel::sevenSteps_data()
{
    QTest::addColumn<int>("number");
    QTest::addColumn<QString>("shape");
    QTest::addColumn<QString>("formula");
    QTest::addRow("1 tokens → X") << 1 << QStringLiteral("3 × 4") << QStringLiteral("X = embedding(tokens)");
    QTest::addRow("2 Q, K, V") << 2 << QStringLiteral("3 × 3") << QStringLiteral("Q = X·W_Q");
    QTest::addRow("3 scores") << 3 << QStringLiteral("3 × 3") << QStringLiteral("scores = Q·Kᵀ");
    QTest::addRow("4 scale, skipped") << 4 << QString() << QStringLiteral("scaled = scores");
    QTest::addRow("5 softmax") << 5 << QStringLiteral("3 × 3") << QStringLiteral("softmax(");
    QTest::addRow("6 weighted values") << 6 << QStringLiteral("3 × 3") << QStringLiteral("for every key");
    QTest::addRow("7 sum → Z") << 7 << QStringLiteral("3 × 3") << QStringLiteral("Z = weights·V");
}

void TestStepsPanel::sevenSteps()
{
    QFETCH(int, number);
    QFETCH(QString, shape);
    QFETCH(QString, formula);
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    QCOMPARE(panel.stepCount(), 7);
    QVERIFY2(panel.stepTitle(number).startsWith(QString::number(number)), qPrintable(panel.stepTitle(number)));
    QCOMPARE(panel.stepShape(number), shape);
    QVERIFY2(panel.stepFormula(number).contains(formula), qPrintable(panel.stepFormula(number)));
    QVERIFY(!panel.stepBlocks(number).empty());
}

void TestStepsPanel::weightEditUpdatesNumbers()
{
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    panel.setPrecision(2);
    QTableView* scores = panel.stepBlocks(3).front()->table();
    QCOMPARE(scores->model()->index(0, 1).data().toString(), QStringLiteral("4.00"));
    QTableView* queries = panel.stepBlocks(2).front()->table();
    QSignalSpy changed(scores->model(), &QAbstractItemModel::dataChanged);
    QVERIFY(doc.setCell(MatrixId::Query, 0, 0, 2));
    QTRY_VERIFY(changed.count() >= 1);
    // q1 = [2, 0, 2] and k2 = [4, 4, 0]: score(1,2) = 8.
    QCOMPARE(scores->model()->index(0, 1).data().toString(), QStringLiteral("8.00"));
    QCOMPARE(queries->model()->index(0, 0).data().toString(), QStringLiteral("2.00"));
    panel.setPrecision(0);
    QCOMPARE(scores->model()->index(0, 1).data().toString(), QStringLiteral("8"));
}

void TestStepsPanel::scalingShowsStepFour()
{
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    panel.show();
    StepBlock* scaled = panel.stepBlocks(4).front();
    QVERIFY(!scaled->isVisible());
    core::Options options = doc.model().options;
    options.scale = true;
    doc.setOptions(options);
    QTRY_VERIFY(scaled->isVisible());
    QCOMPARE(panel.stepShape(4), QStringLiteral("3 × 3"));
    QVERIFY2(panel.stepFormula(4).contains(QStringLiteral("√3")), qPrintable(panel.stepFormula(4)));
    // score(1,2) = 4, ÷ √3 ≈ 2.3094.
    scaled->model()->setPrecision(4);
    QCOMPARE(scaled->table()->model()->index(0, 1).data().toString(), QStringLiteral("2.3094"));
}

void TestStepsPanel::hoverHighlightsSources()
{
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    QSignalSpy hovered(&view, &ViewState::hoveredChanged);
    QTableView* scores = panel.stepBlocks(3).front()->table();
    emit scores->entered(scores->model()->index(2, 0));
    QCOMPARE(hovered.count(), 1);
    QVERIFY(view.hoveredCell());
    QCOMPARE(view.hoveredCell()->step, core::Step::Scores);
    QAbstractItemModel* q = panel.stepBlocks(2)[0]->table()->model();
    QAbstractItemModel* k = panel.stepBlocks(2)[1]->table()->model();
    QVERIFY(q->index(2, 1).data(HighlightRole).toBool());
    QVERIFY(!q->index(0, 1).data(HighlightRole).toBool());
    QVERIFY(k->index(0, 2).data(HighlightRole).toBool());
    QVERIFY(!k->index(2, 2).data(HighlightRole).toBool());
    // Leaving the table clears it.
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(scores->viewport(), &leave);
    QVERIFY(!view.hoveredCell());
    QCOMPARE(hovered.count(), 2);
}

void TestStepsPanel::largeMatrixIsThumbnail()
{
    EightyTokens fixture;
    QVERIFY(fixture.ready);
    Document& doc = fixture.doc;
    StepsPanel& panel = fixture.panel;
    StepBlock* scores = panel.stepBlocks(3).front();
    QTRY_VERIFY(scores->isThumbnail());
    QVERIFY(!scores->table()->isVisible());
    QCOMPARE(panel.stepShape(3), QStringLiteral("80 × 80"));
    // Q stays a table: 80 rows but only 3 columns… too many rows to read, so a thumbnail too.
    QVERIFY(panel.stepBlocks(2).front()->isThumbnail());
    doc.undoStack()->undo();
    QTRY_VERIFY(!scores->isThumbnail());
    QVERIFY(scores->table()->isVisible());
}

void TestStepsPanel::thumbnailsFollowEdits()
{
    // A thumbnail keeps its drawn picture between repaints: after an edit it must show the new matrix,
    // and after the undo exactly the old picture again. Scores are drawn on a worker from the trace;
    // the weighted values (made for the chosen query) on the GUI thread.
    EightyTokens fixture;
    QVERIFY(fixture.ready);
    Document& doc = fixture.doc;
    StepsPanel& panel = fixture.panel;
    auto colours = [](const QImage& image) {
        QSet<QRgb> seen;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                seen.insert(image.pixel(x, y));
        return seen.size();
    };
    for (int step : {3, 6}) {
        StepBlock* block = panel.stepBlocks(step).front();
        QTRY_VERIFY(block->isThumbnail());
        auto picture = [&] { return block->thumbnail()->grab().toImage(); };
        QImage before;
        QTRY_VERIFY2((before = picture(), colours(before) > 8), qPrintable(QString::number(step)));
        for (int c = 0; c < doc.model().dModel(); ++c)
            QVERIFY(doc.setCell(MatrixId::Embeddings, 0, c, 4.0 + c));
        QVERIFY(doc.waitForTrace(30000));
        QTRY_VERIFY2(picture() != before, qPrintable(QStringLiteral("step %1 after the edit").arg(step)));
        QVERIFY(colours(picture()) > 8);
        for (int c = 0; c < doc.model().dModel(); ++c)
            doc.undoStack()->undo();
        QVERIFY(doc.waitForTrace(30000));
        QTRY_VERIFY2(picture() == before, qPrintable(QStringLiteral("step %1 after the undo").arg(step)));
    }
    // A new palette (a dark theme) draws the kept pictures again in its colours.
    StepBlock* scores = panel.stepBlocks(3).front();
    const QColor base(Qt::black);
    QTRY_VERIFY(scores->thumbnail()->grab().toImage().pixelColor(1, 1) != base);
    QPalette dark = panel.palette();
    dark.setColor(QPalette::Base, base);
    panel.setPalette(dark);
    QTRY_COMPARE(scores->thumbnail()->grab().toImage().pixelColor(1, 1), base);
}

void TestStepsPanel::editDrawsOnlyThumbnailsInView()
{
    // A cell edit sets every block's source more than once (a reset, then its cells): a thumbnail on the
    // screen makes one figure of the new trace, one scrolled out of view none until it is painted.
    EightyTokens fixture;
    QVERIFY(fixture.ready);
    Document& doc = fixture.doc;
    StepsPanel& panel = fixture.panel;
    panel.resize(420, 360);
    std::vector<StepBlock*> blocks;
    for (int step = 1; step <= panel.stepCount(); ++step)
        for (StepBlock* block : panel.stepBlocks(step))
            if (block->isVisible() && block->isThumbnail())
                blocks.push_back(block);
    QTest::qWait(200);  // the first figures of the thumbnails in view
    auto inView = [](StepBlock* b) { return !b->thumbnail()->visibleRegion().isEmpty(); };
    const auto shown = std::count_if(blocks.begin(), blocks.end(), inView);
    QVERIFY2(shown > 0 && shown < qsizetype(blocks.size()), "some thumbnails in view and some out of it");
    std::vector<quint64> before;
    for (StepBlock* block : blocks)
        before.push_back(block->thumbnailFiguresMade());
    QVERIFY(doc.setCell(MatrixId::Embeddings, 0, 0, 3.5));
    QVERIFY(doc.waitForTrace(30000));
    QTest::qWait(200);
    quint64 made = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const quint64 added = blocks[i]->thumbnailFiguresMade() - before[i];
        const QByteArray what = QStringLiteral("thumbnail %1 (%2) made %3 figures")
                                    .arg(i)
                                    .arg(inView(blocks[i]) ? QStringLiteral("in view") : QStringLiteral("out of view"))
                                    .arg(added)
                                    .toUtf8();
        if (inView(blocks[i]))
            QVERIFY2(added <= 1, what.constData());
        else
            QVERIFY2(added == 0, what.constData());
        made += added;
    }
    QVERIFY(made >= 1);
    // A grab paints: a thumbnail out of view, and one in a hidden panel, then makes the newest figure.
    const auto away = std::find_if_not(blocks.begin(), blocks.end(), inView);
    QVERIFY(away != blocks.end());
    StepBlock* outOfView = *away;
    const quint64 seen = outOfView->thumbnailFiguresMade();
    QTRY_VERIFY((outOfView->thumbnail()->grab(), outOfView->thumbnailFiguresMade() > seen));
    panel.hide();
    QVERIFY(doc.setCell(MatrixId::Embeddings, 0, 0, -2.0));
    QVERIFY(doc.waitForTrace(30000));
    StepBlock* hidden = blocks.front();
    const quint64 hiddenSeen = hidden->thumbnailFiguresMade();
    QTest::qWait(100);
    QCOMPARE(hidden->thumbnailFiguresMade(), hiddenSeen);  // hidden: no figure until painted
    QTRY_VERIFY((hidden->thumbnail()->grab(), hidden->thumbnailFiguresMade() > hiddenSeen));
}

void TestStepsPanel::editLeavesStepTextsAlone()
{
    // Every edit refreshes the panel; one that changes no shape and no option changes none of the steps'
    // words, so no tooltip is set again (each one tells the label and a screen reader). A change of the
    // options does change step 4's words: the count sees the panel's tooltips.
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    panel.show();
    QVERIFY(doc.waitForTrace(30000));
    struct Count : QObject {
        int tooltips = 0;
        bool eventFilter(QObject*, QEvent* event) override
        {
            tooltips += event->type() == QEvent::ToolTipChange;
            return false;
        }
    } count;
    const QList<QLabel*> labels = panel.findChildren<QLabel*>();
    for (QLabel* label : labels)
        label->installEventFilter(&count);
    const QString title = panel.stepTitle(3);
    int traces = 0;
    connect(&doc, &Document::traceChanged, &count, [&traces] { ++traces; });
    QVERIFY(doc.setCell(MatrixId::Embeddings, 0, 0, 3.5));
    QVERIFY(doc.waitForTrace(30000));
    QTRY_VERIFY(traces >= 1);
    QCOMPARE(count.tooltips, 0);
    QCOMPARE(panel.stepTitle(3), title);
    core::Options options = doc.model().options;
    options.scale = true;
    doc.setOptions(options);
    QTRY_VERIFY(count.tooltips > 0);
}

void TestStepsPanel::tablesFitAfterReshape()
{
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    panel.resize(1000, 800);  // wider than the table: a narrower panel leaves it a scroll bar of its own
    panel.show();
    QVERIFY(doc.setTokenText(QStringLiteral("one two three four five six seven")));
    QTableView* scores = panel.stepBlocks(3).front()->table();
    QCOMPARE(scores->model()->rowCount(), 7);
    // Every row and column is inside the table: nothing scrolls, nothing is cut.
    QVERIFY(scores->verticalHeader()->length() >= 7 * scores->verticalHeader()->defaultSectionSize());
    QVERIFY2(scores->height() >= scores->verticalHeader()->length() + scores->horizontalHeader()->height(),
             qPrintable(QStringLiteral("%1 < %2").arg(scores->height()).arg(scores->verticalHeader()->length())));
    QTRY_VERIFY(scores->width() >= scores->horizontalHeader()->length() + scores->verticalHeader()->width());
    QVERIFY(!scores->horizontalScrollBar()->isVisible());
    QCOMPARE(scores->horizontalHeader()->count(), 7);
    // And the block around it grows once the layouts have run.
    StepBlock* block = panel.stepBlocks(3).front();
    QTRY_VERIFY(block->height() >= scores->height() && block->width() >= scores->width());
    QWidget* frame = block->parentWidget();
    QTRY_VERIFY2(frame->height() >= frame->minimumSizeHint().height(),
                 qPrintable(QStringLiteral("%1 < %2").arg(frame->height()).arg(frame->minimumSizeHint().height())));
}

void TestStepsPanel::columnsFitTheirWidestNumber()
{
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    panel.setPrecision(3);
    panel.show();
    // Each column is exactly as wide as Qt's own measure of its cells and header, also after edits
    // that add integer digits or a sign to one number, and after they take them away again.
    auto check = [&](const char* when) {
        for (int number : {1, 2, 3, 5, 7}) {
            for (StepBlock* block : panel.stepBlocks(number)) {
                QTableView* table = block->table();
                if (block->isThumbnail())
                    continue;
                QList<int> widths;
                for (int c = 0; c < table->model()->columnCount(); ++c)
                    widths << table->columnWidth(c);
                table->resizeColumnsToContents();  // Qt's own measure of every cell and header
                for (int c = 0; c < widths.size(); ++c) {
                    QVERIFY2(widths[c] == table->columnWidth(c),
                             qPrintable(QStringLiteral("%1: step %2 column %3 is %4 px, its contents need %5")
                                            .arg(QLatin1String(when))
                                            .arg(number)
                                            .arg(c)
                                            .arg(widths[c])
                                            .arg(table->columnWidth(c))));
                    table->horizontalHeader()->resizeSection(c, widths[c]);
                }
            }
        }
    };
    check("worked example");
    QVERIFY(doc.setCell(MatrixId::Embeddings, 1, 2, -2345.5));
    check("after a large negative embedding");
    QVERIFY(doc.setCell(MatrixId::Query, 0, 0, 98765.25));
    check("after a large query weight");
    // A weight of 1e300 makes its queries and scores some 300 digits long in fixed point: they are shown
    // in scientific notation with the same decimals ("−7.000e+299"), and the columns stay narrow.
    QVERIFY(doc.setCell(MatrixId::Query, 0, 1, 1e300));
    check("after a query weight of 1e300");
    for (int number : {2, 3})
        for (StepBlock* block : panel.stepBlocks(number))
            for (int r = 0; r < block->table()->model()->rowCount(); ++r)
                for (int c = 0; c < block->table()->model()->columnCount(); ++c) {
                    const QString text = block->table()->model()->index(r, c).data().toString();
                    QVERIFY2(text.size() <= QStringLiteral("-9.999e+299").size(),
                             qPrintable(QStringLiteral("step %1 (%2, %3): %4").arg(number).arg(r).arg(c).arg(text)));
                }
    QVERIFY(panel.stepBlocks(3).front()->table()->columnWidth(0) < panel.fontMetrics().horizontalAdvance(QString(16, QLatin1Char('0'))));
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    check("after undoing all three");
    // As many tokens as before, longer names: the headers of the token columns must widen them.
    QVERIFY(doc.setTokenText(QStringLiteral("Thinking-extraordinarily Machines-everywhere x")));
    QVERIFY(doc.waitForTrace());
    check("after renaming the tokens");
    // In a larger font every number is wider: measured again, not taken from before.
    QFont larger = panel.font();
    larger.setPointSizeF(larger.pointSizeF() * 1.5);
    panel.setFont(larger);
    QVERIFY(doc.setCell(MatrixId::Embeddings, 0, 0, 1.5));
    QVERIFY(doc.waitForTrace());
    check("in a larger font");
}

void TestStepsPanel::headersMeasureEachLabelOnce()
{
    Document doc;
    ViewState view;
    StepsPanel panel(&doc, &view);
    panel.show();
    QVERIFY(doc.setTokenText(QStringLiteral("one two three four five six seven")));
    QVERIFY(doc.waitForTrace());
    QTableView* scores = panel.stepBlocks(3).front()->table();
    auto* rows = qobject_cast<LabelHeaderView*>(scores->verticalHeader());
    auto* columns = qobject_cast<LabelHeaderView*>(scores->horizontalHeader());
    QVERIFY(rows && columns);
    // Each section as QHeaderView measures it, in the header's font: the table looks as it did.
    const auto sameAsQt = [&](const char* when) {
        for (QHeaderView* header : {static_cast<QHeaderView*>(rows), static_cast<QHeaderView*>(columns)}) {
            QHeaderView plain(header->orientation());
            plain.setModel(scores->model());
            plain.setFont(header->font());
            for (int i = 0; i < header->count(); ++i)
                QVERIFY2(header->sectionSizeHint(i) == plain.sectionSizeHint(i),
                         qPrintable(QStringLiteral("%1: section %2 is %3 px, QHeaderView measures %4")
                                        .arg(QLatin1String(when))
                                        .arg(i)
                                        .arg(header->sectionSizeHint(i))
                                        .arg(plain.sectionSizeHint(i))));
            QCOMPARE(header->sizeHint(), plain.sizeHint());
        }
    };
    sameAsQt("seven tokens");
    // One more token: only its label is new to the rows; the columns' numbers 1…7 were measured already.
    const quint64 rowTexts = rows->textsMeasured(), columnTexts = columns->textsMeasured();
    QVERIFY(rowTexts >= 7);
    QVERIFY(doc.setTokenText(QStringLiteral("one two three four five six seven eight")));
    QVERIFY(doc.waitForTrace());
    QCOMPARE(rows->count(), 8);
    rows->sizeHint();
    columns->sizeHint();
    QCOMPARE(rows->textsMeasured(), rowTexts + 1);
    QCOMPARE(columns->textsMeasured(), columnTexts + 1);
    sameAsQt("eight tokens");
    // Another font: every label is measured again.
    QFont larger = scores->font();
    larger.setPointSizeF(larger.pointSizeF() * 2);
    scores->setFont(larger);
    sameAsQt("a larger font");
    QVERIFY(rows->textsMeasured() >= rowTexts + 1 + 8);
}

void TestStepsPanel::walkthroughSumsToOutput_data()
{
    QTest::addColumn<int>("query");
    QTest::addColumn<core::Matrix>("output");
    // SPEC §4, outputs of the worked example.
    QTest::addRow("query 1") << 0 << testutil::mat({{1.9366, 6.6831, 1.5951}});
    QTest::addRow("query 2") << 1 << testutil::mat({{2.0000, 7.9640, 0.0540}});
    QTest::addRow("query 3") << 2 << testutil::mat({{1.9997, 7.7599, 0.3584}});
}

void TestStepsPanel::walkthroughSumsToOutput()
{
    QFETCH(int, query);
    QFETCH(core::Matrix, output);
    Document doc;
    ViewState view;
    WalkthroughPanel panel(&doc, &view);
    view.setSelectedQuery(query);
    StepTableModel* rows = panel.weightedValuesModel();
    QCOMPARE(rows->query(), query);
    QCOMPARE(rows->rowCount(), 3);
    core::Matrix sum = core::Matrix::Zero(1, 3);
    for (int j = 0; j < rows->rowCount(); ++j)
        for (int c = 0; c < 3; ++c)
            sum(0, c) += rows->index(j, c).data(ValueRole).toDouble();
    COMPARE_MATRIX(sum, output, 1e-4);
    // The text shows the output row as the sum, and the score arithmetic of the first key.
    const QString text = panel.plainText();
    for (int c = 0; c < 3; ++c)
        QVERIFY2(text.contains(QString::fromStdString(core::formatNumber(output(0, c), 4))), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("q%1·k₁ = ").arg(QString::fromStdString(core::subscript(query + 1)))),
             qPrintable(text));
}

void TestStepsPanel::walkthroughWritesOneMinusSign()
{
    // Negative queries, scores and values: their signs are "−" like the subtractions of the arithmetic,
    // in the text, the vectors and the tooltips alike, never a hyphen (but in an exponent, "1e-05").
    Document doc;
    ViewState view;
    WalkthroughPanel panel(&doc, &view);
    QVERIFY(doc.setCell(MatrixId::Query, 0, 0, -1.5));
    QVERIFY(doc.setCell(MatrixId::Value, 1, 1, -2.25));
    QVERIFY(doc.waitForTrace());
    static const QRegularExpression hyphen(QStringLiteral("(?<!\\de)-"));
    QStringList texts{panel.plainText()};
    for (const QLabel* label : panel.findChildren<QLabel*>())
        texts << label->text() << label->toolTip();
    static const QRegularExpression negativeInVector(QStringLiteral("\\[[^\\]]*−"));
    QVERIFY2(negativeInVector.match(panel.plainText()).hasMatch(), qPrintable(panel.plainText()));
    for (const QString& text : texts)
        QVERIFY2(!hyphen.match(text).hasMatch(), qPrintable(text));
}

void TestStepsPanel::walkthroughFollowsQuery()
{
    Document doc;
    ViewState view;
    WalkthroughPanel panel(&doc, &view);
    QVERIFY(panel.plainText().contains(QStringLiteral("1.9366")));
    view.setSelectedQuery(1);
    QVERIFY(panel.plainText().contains(QStringLiteral("7.964")));
    QVERIFY(!panel.plainText().contains(QStringLiteral("6.6831")));
    // Scaling on: the scaled column appears; SPEC §4 gives z₁ ≈ [1.8639, 6.3194, 1.7042].
    view.setSelectedQuery(0);
    core::Options options = doc.model().options;
    options.scale = true;
    doc.setOptions(options);
    QVERIFY2(panel.plainText().contains(QStringLiteral("6.3194")), qPrintable(panel.plainText()));
    QVERIFY(panel.plainText().contains(QStringLiteral("√3")));
}

/** The walkthrough in a dock as narrow as at 1920 × 1080, over numbers like a checkpoint's (four decimals,
 *  negative, d_k 16, a causal mask): each label breaks its lines between terms, never inside a number ("(−0."
 *  above "1818)"), and every column stands inside the dock. */
void TestStepsPanel::walkthroughNeverBreaksANumber()
{
    Document doc;
    ViewState view;
    QVERIFY(doc.setTokenText(QStringLiteral("The teacher said that the cat sat")));
    QVERIFY(doc.setDimensions(16, 16, 16, 1));
    core::Options options = doc.model().options;
    options.mask = core::Mask::Causal;  // keys "(masked)" too
    options.scale = true;               // and the column of the scaled scores, as a checkpoint has them
    doc.setOptions(options);
    std::uint64_t state = 7;
    const auto filled = [&](int rows, int cols, double sign) {
        core::Matrix m(rows, cols);
        for (Eigen::Index i = 0; i < m.size(); ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            m.data()[i] = sign * (0.01 + double(state >> 11) / double(1ULL << 53) * 0.1);
        }
        return m;
    };
    // Negative queries and keys of four decimals ("−0.1234"), as wide as numbers come.
    QVERIFY(doc.setMatrix(MatrixId::Embeddings, filled(7, 16, -1), QStringLiteral("X")));
    QVERIFY(doc.setMatrix(MatrixId::Query, filled(16, 16, 1), QStringLiteral("W_Q")));
    QVERIFY(doc.setMatrix(MatrixId::Key, filled(16, 16, 1), QStringLiteral("W_K")));
    QVERIFY(doc.setMatrix(MatrixId::Value, filled(16, 16, -1), QStringLiteral("W_V")));
    QVERIFY(doc.waitForTrace());
    WalkthroughPanel panel(&doc, &view);
    panel.resize(400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY2(panel.plainText().contains(QStringLiteral(")·(−0.")), qPrintable(panel.plainText()));

    static const QRegularExpression insideNumber(QStringLiteral("[−\\d.]$"));
    int labels = 0;
    for (const QLabel* label : panel.findChildren<QLabel*>()) {
        if (!label->wordWrap() || label->textFormat() != Qt::PlainText || !label->isVisible())
            continue;
        ++labels;
        // The lines as QLabel draws a word-wrapped plain text (QPainter::drawText with Qt::TextWordWrap).
        QTextLayout layout(label->text(), label->font());
        QTextOption option;
        option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        layout.setTextOption(option);
        layout.beginLayout();
        QStringList lines;
        for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
            line.setLineWidth(label->contentsRect().width());
            lines << label->text().mid(line.textStart(), line.textLength());
        }
        layout.endLayout();
        // Invisible characters aside (a word joiner, a zero-width space): a digit, point or minus sign before the break
        // and a digit after it is a number broken in two.
        for (QString& line : lines)
            line.remove(QChar(0x2060)).remove(QChar(0x200B));
        for (qsizetype k = 0; k + 1 < lines.size(); ++k)
            QVERIFY2(!(insideNumber.match(lines[k]).hasMatch() && !lines[k + 1].isEmpty() && lines[k + 1].front().isDigit()),
                     qPrintable(QStringLiteral("\"%1\" | \"%2\" at %3 px").arg(lines[k], lines[k + 1]).arg(label->width())));
    }
    QVERIFY(labels > 10);

    // Every column, Weighted values the last, stands inside the dock, in either language: nothing to scroll to.
    for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
        QVERIFY(i18n::applyLanguage(language));
        QVERIFY(!panel.plainText().isEmpty());
        QApplication::processEvents();
        const auto* scroll = panel.findChild<QScrollArea*>();
        QVERIFY(scroll);
        QVERIFY2(scroll->horizontalScrollBar()->maximum() == 0,
                 qPrintable(QStringLiteral("%1: %2 px more than the %3 px shown")
                                .arg(language)
                                .arg(scroll->horizontalScrollBar()->maximum())
                                .arg(scroll->viewport()->width())));
    }
    QVERIFY(i18n::applyLanguage(QStringLiteral("en")));
}

void TestStepsPanel::editorPasteAndFill()
{
    Document doc;
    ViewState view;
    MatrixEditorPanel editor(&doc, &view);
    editor.setCurrentMatrix(MatrixId::Query);
    QTableView* table = editor.tableView(MatrixId::Query);
    table->setCurrentIndex(table->model()->index(2, 1));
    QVERIFY(editor.pasteText(QStringLiteral("5\t6\n7,8\n9;10")));
    // Pasted at (3, 2) of a 4 × 3 matrix: two rows and two columns fit, the rest is clipped.
    QCOMPARE(doc.matrix(MatrixId::Query)(2, 1), 5.0);
    QCOMPARE(doc.matrix(MatrixId::Query)(2, 2), 6.0);
    QCOMPARE(doc.matrix(MatrixId::Query)(3, 2), 8.0);
    QVERIFY2(editor.message().contains(QStringLiteral("left out")), qPrintable(editor.message()));
    QCOMPARE(doc.undoStack()->count(), 1);
    // The undo step and the message count the cells that landed (2 × 2), not the block's (3 × 2).
    QCOMPARE(doc.undoStack()->text(0), QStringLiteral("Pasted 2 × 2 cells into W_Q"));
    QVERIFY2(editor.message().startsWith(QStringLiteral("Pasted 2 × 2 of the 3 × 2 block")), qPrintable(editor.message()));

    QVERIFY(!editor.pasteText(QStringLiteral("1\tx")));
    QVERIFY(!editor.message().isEmpty());
    QCOMPARE(doc.undoStack()->count(), 1);

    // Cells by runs of spaces, as numpy prints an array (brackets and all) and as a plain text file holds them.
    table->setCurrentIndex(table->model()->index(0, 0));
    QVERIFY2(editor.pasteText(QStringLiteral("[[ 1.5  -2. ]\n [ 3.   4e-1]]\n")), qPrintable(editor.message()));
    QCOMPARE(doc.matrix(MatrixId::Query).topLeftCorner(2, 2), (core::Matrix(2, 2) << 1.5, -2, 3, 0.4).finished());
    QVERIFY(editor.pasteText(QStringLiteral("  7 8   9\n10 11 12  ")));
    QCOMPARE(doc.matrix(MatrixId::Query).topRows(2), (core::Matrix(2, 3) << 7, 8, 9, 10, 11, 12).finished());
    QCOMPARE(doc.undoStack()->count(), 3);
    QVERIFY(!editor.pasteText(QStringLiteral("1 2\n3")));  // ragged rows are still refused
    QCOMPARE(doc.undoStack()->count(), 3);
    doc.undoStack()->undo();
    doc.undoStack()->undo();

    editor.fillIdentity();
    QCOMPARE(doc.matrix(MatrixId::Query), core::Matrix(core::Matrix::Identity(4, 3)));
    editor.fillZeros();
    QCOMPARE(doc.matrix(MatrixId::Query), core::Matrix(core::Matrix::Zero(4, 3)));
    editor.fillRandom();
    const core::Matrix random = doc.matrix(MatrixId::Query);
    QVERIFY(random.cwiseAbs().maxCoeff() > 0);
    QCOMPARE(doc.undoStack()->count(), 4);
    doc.undoStack()->undo();
    editor.fillRandom();  // the same seed gives the same numbers
    QCOMPARE(doc.matrix(MatrixId::Query), random);
    editor.scale();  // factor 2 by default
    COMPARE_MATRIX(doc.matrix(MatrixId::Query), core::Matrix(random * 2), 0);

    // Copy: the selection as tab-separated text.
    table->selectionModel()->select(QItemSelection(table->model()->index(0, 0), table->model()->index(1, 1)),
                                    QItemSelectionModel::ClearAndSelect);
    doc.undoStack()->setIndex(0);
    editor.copySelection();
    QCOMPARE(QApplication::clipboard()->text().trimmed(), QStringLiteral("1\t0\n1\t0"));

    // W_O: none yet, so nothing to fill; adding one fills the tab.
    editor.setCurrentMatrix(MatrixId::Output);
    editor.fillZeros();
    QVERIFY(editor.message().contains(QStringLiteral("W_O")));
    doc.setOutputProjection(true);
    QCOMPARE(editor.tableModel(MatrixId::Output)->rowCount(), 3);
}

/** A session with biases: a block pasted over W_Q's last rows reaches b_Q below them, one undo step; Copy takes
 *  the bias row; Scale multiplies the bias with its weight. Q follows: X·W_Q + b_Q, computed here. */
void TestStepsPanel::editorPasteCopyAndScaleReachTheBiasRow()
{
    Document doc;
    core::Session session = doc.plainSession()->fileSession();
    session.model.bq = core::Matrix{{0.5, -1.0, 0.25}};
    doc.loadSession(session, QString());
    doc.waitForTrace();
    const core::AttentionModel before = doc.model();
    ViewState view;
    MatrixEditorPanel editor(&doc, &view);
    editor.setCurrentMatrix(MatrixId::Query);
    QTableView* table = editor.tableView(MatrixId::Query);
    QCOMPARE(table->model()->rowCount(), 5);  // W_Q's 4 rows and b_Q
    table->setCurrentIndex(table->model()->index(2, 1));
    QVERIFY(editor.pasteText(QStringLiteral("5\t6\n7\t8\n9\t10")));
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Pasted 3 × 2 cells into W_Q"));
    QVERIFY2(!editor.message().contains(QStringLiteral("left out")), qPrintable(editor.message()));
    const core::Matrix wq = doc.model().wq;
    QCOMPARE(wq(2, 1), 5.0);
    QCOMPARE(wq(3, 2), 8.0);
    QCOMPARE(*doc.model().bq, (core::Matrix{{0.5, 9.0, 10.0}}));
    QVERIFY(wq.topRows(2) == before.wq.topRows(2));
    QCOMPARE(table->model()->index(4, 2).data(ValueRole).toDouble(), 10.0);
    doc.waitForTrace();
    const core::Matrix expected = (doc.model().embeddings * wq).rowwise() + doc.model().bq->row(0);
    COMPARE_MATRIX(doc.trace()->heads[0].queries, expected, 1e-12);

    doc.undoStack()->undo();
    QVERIFY(doc.model() == before);
    doc.undoStack()->redo();
    QCOMPARE((*doc.model().bq)(0, 2), 10.0);

    // Copy of W_Q's last row and b_Q.
    table->selectionModel()->select(QItemSelection(table->model()->index(3, 1), table->model()->index(4, 2)),
                                    QItemSelectionModel::ClearAndSelect);
    editor.copySelection();
    QCOMPARE(QApplication::clipboard()->text().trimmed(), QStringLiteral("7\t8\n9\t10"));

    // Scale × 2: W_Q and b_Q, one step.
    editor.scale();
    QCOMPARE(doc.undoStack()->count(), 2);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Scaled W_Q and b_Q by 2"));
    COMPARE_MATRIX(doc.model().wq, core::Matrix(wq * 2), 0);
    QCOMPARE(*doc.model().bq, (core::Matrix{{1.0, 18.0, 20.0}}));
    doc.undoStack()->undo();
    QCOMPARE(*doc.model().bq, (core::Matrix{{0.5, 9.0, 10.0}}));
    // A weight without a bias scales alone, as before.
    editor.setCurrentMatrix(MatrixId::Key);
    editor.scale();
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Scaled W_K by 2"));
}

void TestStepsPanel::editorRefusesText()
{
    Document doc;
    ViewState view;
    MatrixEditorPanel editor(&doc, &view);
    QAbstractItemModel* model = editor.tableView(MatrixId::Key)->model();
    QVERIFY(!model->setData(model->index(0, 0), QStringLiteral("abc")));
    QVERIFY2(editor.message().contains(QStringLiteral("abc")), qPrintable(editor.message()));
    QCOMPARE(doc.matrix(MatrixId::Key)(0, 0), 0.0);
}

void TestStepsPanel::editorTypingCommitsToItsOwnMatrix()
{
    // Typing into a cell of W_Q and pressing Enter sets that cell, and only the view that owns the editor
    // hears of it (the views once shared one delegate, and the others warned on every edit).
    QTest::failOnWarning(QRegularExpression(QStringLiteral("does not belong to this view")));
    Document doc;
    ViewState view;
    MatrixEditorPanel editor(&doc, &view);
    editor.resize(700, 400);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTableView* table = editor.tableView(MatrixId::Query);
    auto* tabs = editor.findChild<QTabWidget*>();
    QVERIFY(tabs);
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->widget(i) == table || tabs->widget(i)->isAncestorOf(table))
            tabs->setCurrentIndex(i);
    QVERIFY(table->isVisible());
    const QModelIndex cell = table->model()->index(1, 2);
    table->setCurrentIndex(cell);
    table->edit(cell);
    auto* line = table->findChild<QLineEdit*>();
    QVERIFY(line);
    line->setText(QStringLiteral("7.5"));
    QTest::keyClick(line, Qt::Key_Return);
    QTRY_COMPARE(doc.matrix(MatrixId::Query)(1, 2), 7.5);
    QCOMPARE(doc.matrix(MatrixId::Key)(1, 2), doc.model().wk(1, 2));
}

void TestStepsPanel::screenshots()
{
    // Set AE_SCREENSHOT_DIR to a folder to look at the panels.
    const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("AE_SCREENSHOT_DIR is not set");
    QDir().mkpath(dir);
    auto shoot = [&](const QString& suffix) {
        Document doc;
        ViewState view;
        StepsPanel steps(&doc, &view);
        steps.resize(760, 1900);
        steps.show();
        QTableView* scores = steps.stepBlocks(3).front()->table();
        emit scores->entered(scores->model()->index(0, 1));
        QTest::qWait(100);
        QVERIFY(steps.grab().save(dir + QStringLiteral("/steps%1.png").arg(suffix)));

        WalkthroughPanel walk(&doc, &view);
        walk.resize(1100, 330);
        walk.show();
        QTest::qWait(100);
        QVERIFY(walk.grab().save(dir + QStringLiteral("/walkthrough%1.png").arg(suffix)));

        MatrixEditorPanel editor(&doc, &view);
        editor.resize(800, 260);
        editor.show();
        editor.setCurrentMatrix(MatrixId::Query);
        QTableView* q = steps.stepBlocks(2).front()->table();
        emit q->entered(q->model()->index(1, 2));
        QTest::qWait(100);
        QVERIFY(editor.grab().save(dir + QStringLiteral("/editor%1.png").arg(suffix)));

        core::Options options = doc.model().options;
        options.scale = true;
        options.mask = core::Mask::Causal;
        doc.setOptions(options);
        QVERIFY(doc.setTokenText(QStringLiteral("the cat sat on the mat because it was warm and quiet")));
        QVERIFY(doc.waitForTrace(10000));
        steps.resize(1000, 2200);
        QTest::qWait(100);
        QVERIFY(steps.grab().save(dir + QStringLiteral("/steps-causal%1.png").arg(suffix)));
        walk.resize(1300, 600);
        QTest::qWait(100);
        QVERIFY(walk.grab().save(dir + QStringLiteral("/walkthrough-causal%1.png").arg(suffix)));
    };
    shoot(QString());
    const QPalette light = QApplication::palette();
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, Qt::white);
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
    dark.setColor(QPalette::Text, Qt::white);
    dark.setColor(QPalette::Button, QColor(55, 55, 58));
    dark.setColor(QPalette::ButtonText, Qt::white);
    dark.setColor(QPalette::Highlight, QColor(42, 130, 218));
    dark.setColor(QPalette::PlaceholderText, QColor(160, 160, 160));
    QApplication::setPalette(dark);
    shoot(QStringLiteral("-dark"));
    QApplication::setPalette(light);
}

QTEST_MAIN(TestStepsPanel)
#include "tst_stepspanel.moc"
