/** The table models over the document's matrices and the trace's steps. */

#include "core/attention/derivation.h"
#include "core/session/presets.h"
#include "testutil.h"
#include "ui/render/cellstyle.h"
#include "ui/document/document.h"
#include "ui/document/matrixtablemodel.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <functional>

using namespace ui;
using testutil::mat;

Q_DECLARE_METATYPE(ui::MatrixId)
Q_DECLARE_METATYPE(core::Step)

class TestModels : public QObject {
    Q_OBJECT
private slots:
    void matrixModelTester_data();
    void matrixModelTester();
    void stepModelTester_data();
    void stepModelTester();
    void refusesInvalidText_data();
    void refusesInvalidText();
    void acceptsNumbers_data();
    void acceptsNumbers();
    void editIsUndoable();
    void tintsDiffer();
    void tintsFollowEveryCellEdit();
    void cellChangeComesWithTheSignal();
    void stepValuesAndShape();
    void scoreTooltip();
    void highlightFollowsHover();
    void weightedValues();
    void keepsSelectionWhenShapeStays();
    void labelsFollowTokens();
};

void TestModels::matrixModelTester_data()
{
    QTest::addColumn<MatrixId>("id");
    QTest::addRow("X") << MatrixId::Embeddings;
    QTest::addRow("W_Q") << MatrixId::Query;
    QTest::addRow("W_K") << MatrixId::Key;
    QTest::addRow("W_V") << MatrixId::Value;
    QTest::addRow("W_O") << MatrixId::Output;
}

void TestModels::matrixModelTester()
{
    QFETCH(MatrixId, id);
    Document doc;
    ViewState view;
    MatrixTableModel model(&doc, id, &view);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);

    const core::Matrix* m = matrixOf(doc.model(), id);
    QCOMPARE(model.rowCount(), m ? int(m->rows()) : 0);
    QCOMPARE(model.columnCount(), m ? int(m->cols()) : 0);

    // Shape changes reset the model; the tester checks every signal on the way.
    QVERIFY(doc.setTokenText(QStringLiteral("the cat sat on the mat")));
    QVERIFY(doc.setDimensions(6, 2, 5, 1));
    doc.setOutputProjection(true);
    QVERIFY(doc.setCell(MatrixId::Query, 0, 0, 7));
    QVERIFY(resets.count() + changes.count() > 0);
    m = matrixOf(doc.model(), id);
    QVERIFY(m);
    QCOMPARE(model.rowCount(), int(m->rows()));
    QCOMPARE(model.columnCount(), int(m->cols()));
    for (int r = 0; r < model.rowCount(); ++r)
        for (int c = 0; c < model.columnCount(); ++c)
            QCOMPARE(model.index(r, c).data(ValueRole).toDouble(), (*m)(r, c));
    doc.undoStack()->setIndex(0);
    QCOMPARE(model.rowCount(), id == MatrixId::Output ? 0 : int(matrixOf(doc.model(), id)->rows()));
    QVERIFY(!model.index(0, 0).isValid() || model.index(0, 0).data().isValid());
    QVERIFY(!model.data(QModelIndex()).isValid());
}

void TestModels::stepModelTester_data()
{
    QTest::addColumn<core::Step>("step");
    for (core::Step s : core::computedSteps())
        QTest::addRow("%s", core::stepKey(s)) << s;
}

void TestModels::stepModelTester()
{
    QFETCH(core::Step, step);
    Document doc;
    ViewState view;
    StepTableModel model(&doc, &view, step);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.rowCount() > 0);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

    QVERIFY(doc.setTokenText(QStringLiteral("a b c d e")));
    QVERIFY(doc.setDimensions(4, 2, 3, 2));
    view.setHead(1);
    QCOMPARE(model.head(), 1);
    QVERIFY(doc.setCell(MatrixId::Key, 1, 1, -3));
    const auto trace = doc.trace();
    QVERIFY(trace);
    const auto [rows, cols] = trace->stepShape(step, 1);
    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(model.columnCount(), cols);
    QVERIFY(resets.count() >= 1);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            QCOMPARE(model.index(r, c).data(ValueRole).toDouble(), trace->value(step, 1, r, c));
    QVERIFY(!model.flags(model.index(0, 0)).testFlag(Qt::ItemIsEditable));
    QVERIFY(!model.setData(model.index(0, 0), 1.0));
    // A model that cannot be computed leaves the table empty, and a good one fills it again.
    core::Options bad = doc.model().options;
    bad.heads = 5;
    doc.setOptions(bad);
    QVERIFY(!doc.error().isEmpty());
    QCOMPARE(model.rowCount(), 0);
    doc.undoStack()->undo();
    QCOMPARE(model.rowCount(), rows);
}

void TestModels::refusesInvalidText_data()
{
    QTest::addColumn<QVariant>("input");
    QTest::addRow("letters") << QVariant(QStringLiteral("abc"));
    QTest::addRow("nan") << QVariant(QStringLiteral("nan"));
    QTest::addRow("inf") << QVariant(QStringLiteral("inf"));
    QTest::addRow("-inf") << QVariant(QStringLiteral("-inf"));
    QTest::addRow("empty") << QVariant(QString());
    QTest::addRow("spaces") << QVariant(QStringLiteral("   "));
    QTest::addRow("group separator") << QVariant(QStringLiteral("1,500"));
    QTest::addRow("trailing junk") << QVariant(QStringLiteral("2x"));
    QTest::addRow("NaN double") << QVariant(std::nan(""));
    QTest::addRow("infinite double") << QVariant(HUGE_VAL);
}

void TestModels::refusesInvalidText()
{
    QFETCH(QVariant, input);
    Document doc;
    MatrixTableModel model(&doc, MatrixId::Query);
    QSignalSpy refused(&model, &MatrixTableModel::refused);
    QSignalSpy changed(&doc, &Document::modelChanged);
    const double before = doc.matrix(MatrixId::Query)(1, 2);
    QVERIFY(!model.setData(model.index(1, 2), input));
    QCOMPARE(refused.count(), 1);
    QVERIFY(!refused.at(0).at(0).toString().isEmpty());
    QCOMPARE(doc.matrix(MatrixId::Query)(1, 2), before);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.isModified());
}

void TestModels::acceptsNumbers_data()
{
    QTest::addColumn<QVariant>("input");
    QTest::addColumn<double>("expected");
    QTest::addRow("integer text") << QVariant(QStringLiteral("3")) << 3.0;
    QTest::addRow("decimal text") << QVariant(QStringLiteral(" -1.25 ")) << -1.25;
    QTest::addRow("exponent") << QVariant(QStringLiteral("2.5e-3")) << 0.0025;
    QTest::addRow("double") << QVariant(0.75) << 0.75;
    QTest::addRow("int") << QVariant(-4) << -4.0;
}

void TestModels::acceptsNumbers()
{
    QFETCH(QVariant, input);
    QFETCH(double, expected);
    Document doc;
    MatrixTableModel model(&doc, MatrixId::Embeddings);
    QSignalSpy refused(&model, &MatrixTableModel::refused);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.setData(model.index(2, 1), input));
    QCOMPARE(refused.count(), 0);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(doc.matrix(MatrixId::Embeddings)(2, 1), expected);
    QCOMPARE(model.index(2, 1).data(Qt::EditRole).toDouble(), expected);
}

void TestModels::editIsUndoable()
{
    Document doc;
    MatrixTableModel model(&doc, MatrixId::Key);
    const core::Matrix before = doc.matrix(MatrixId::Key);
    QSignalSpy modified(&doc, &Document::modifiedChanged);
    QVERIFY(model.setData(model.index(0, 0), QStringLiteral("5")));
    QCOMPARE(doc.matrix(MatrixId::Key)(0, 0), 5.0);
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(modified.count(), 1);
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QCOMPARE(doc.matrix(MatrixId::Key), before);
    QCOMPARE(model.index(0, 0).data(ValueRole).toDouble(), before(0, 0));
    QVERIFY(!doc.isModified());
}

void TestModels::tintsDiffer()
{
    Document doc;
    MatrixTableModel model(&doc, MatrixId::Value);
    // W_V of the worked example holds 0, 1, 2 and 3.
    const QColor zero = model.index(0, 0).data(Qt::BackgroundRole).value<QColor>();
    const QColor two = model.index(0, 1).data(Qt::BackgroundRole).value<QColor>();
    const QColor three = model.index(1, 1).data(Qt::BackgroundRole).value<QColor>();
    QCOMPARE(doc.matrix(MatrixId::Value)(0, 1), 2.0);
    QVERIFY(zero.isValid() && two.isValid() && three.isValid());
    QVERIFY(zero != two);
    QVERIFY(two != three);
    QVERIFY(doc.setCell(MatrixId::Value, 0, 0, -3));
    QVERIFY(model.index(0, 0).data(Qt::BackgroundRole).value<QColor>() != three);
    // The text keeps a readable contrast on its tint.
    for (int r = 0; r < model.rowCount(); ++r)
        for (int c = 0; c < model.columnCount(); ++c) {
            const QColor bg = model.index(r, c).data(Qt::BackgroundRole).value<QColor>();
            const QColor fg = model.index(r, c).data(Qt::ForegroundRole).value<QColor>();
            const double l1 = render::relativeLuminance(bg.rgb()), l2 = render::relativeLuminance(fg.rgb());
            QVERIFY((std::max(l1, l2) + 0.05) / (std::min(l1, l2) + 0.05) >= 4.5);
        }

    Document doc2;
    ViewState view;
    StepTableModel weights(&doc2, &view, core::Step::Weights);
    // weights(1, 0) ≈ 0.000006 and weights(1, 1) ≈ 0.98 of SPEC §4.
    QVERIFY(weights.index(1, 0).data(Qt::BackgroundRole) != weights.index(1, 1).data(Qt::BackgroundRole));
}

void TestModels::tintsFollowEveryCellEdit()
{
    // A cell edit updates the tints' scale from that cell alone when it can; after each edit every
    // tint must be what a model made afresh gives, and every cell whose tint changed must have been
    // announced by dataChanged.
    Document doc;
    MatrixTableModel live(&doc, MatrixId::Value);
    QAbstractItemModelTester tester(&live, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::vector<std::pair<QModelIndex, QModelIndex>> changed;
    connect(&live, &QAbstractItemModel::dataChanged, this,
            [&](const QModelIndex& a, const QModelIndex& b) { changed.emplace_back(a, b); });
    auto tints = [](const MatrixTableModel& m) {
        std::vector<QColor> out;
        for (int r = 0; r < m.rowCount(); ++r)
            for (int c = 0; c < m.columnCount(); ++c)
                out.push_back(m.index(r, c).data(Qt::BackgroundRole).value<QColor>());
        return out;
    };
    auto announced = [&](int r, int c) {
        for (const auto& [a, b] : changed)
            if (r >= a.row() && r <= b.row() && c >= a.column() && c <= b.column())
                return true;
        return false;
    };
    std::vector<QColor> before = tints(live);
    auto check = [&](const std::function<void()>& action, const char* what) {
        changed.clear();
        action();
        const MatrixTableModel fresh(&doc, MatrixId::Value);
        const std::vector<QColor> now = tints(live);
        QVERIFY2(now == tints(fresh), what);
        const int cols = live.columnCount();
        for (std::size_t i = 0; i < now.size(); ++i)
            if (now[i] != before[i])
                QVERIFY2(announced(int(i) / cols, int(i) % cols), what);
        before = now;
    };
    auto edit = [&](MatrixId id, int r, int c, double v, const char* what) {
        check([&] { QVERIFY2(doc.setCell(id, r, c, v), what); }, what);
    };
    const core::Matrix& wv = doc.matrix(MatrixId::Value);  // the worked example's: 0 … 3
    edit(MatrixId::Value, 0, 0, 6.0, "a new largest magnitude");
    edit(MatrixId::Value, 1, 2, -1.5, "a cell below the largest");
    QCOMPARE(changed.size(), std::size_t(1));  // only that cell: the scale stayed
    edit(MatrixId::Value, 0, 0, 0.5, "the largest cell shrinks");
    edit(MatrixId::Value, 2, 1, -9.0, "a negative largest");
    edit(MatrixId::Query, 0, 0, 50.0, "another matrix's cell");
    QVERIFY(changed.empty());
    for (int r = 0; r < wv.rows(); ++r)
        for (int c = 0; c < wv.cols(); ++c)
            edit(MatrixId::Value, r, c, 0.0, "every cell zero");
    edit(MatrixId::Value, 1, 1, 0.25, "one small cell among zeros");
    check([&] { doc.undoStack()->undo(); }, "an undo");
    edit(MatrixId::Value, 2, 2, 0.0, "after an undo");
    edit(MatrixId::Value, 0, 0, 6.0, "a largest again");
    core::Matrix pasted = doc.matrix(MatrixId::Value);
    pasted.block(1, 0, 2, 2).setConstant(-0.125);
    check([&] { QVERIFY(doc.setMatrix(MatrixId::Value, pasted, QStringLiteral("Paste"))); }, "a pasted block");
    QCOMPARE(changed.size(), std::size_t(1));  // only the block: the scale stayed
    QCOMPARE(changed[0].first, live.index(1, 0));
    QCOMPARE(changed[0].second, live.index(2, 1));
    check([&] { doc.undoStack()->undo(); }, "the paste undone");
    check([&] {
        core::Options options = doc.model().options;
        options.temperature = 3;
        doc.setOptions(options);
    }, "an option");
    QVERIFY(changed.empty());

    // A table whose tints nobody asked for since a change (a hidden tab) does not measure its range on an edit: the
    // cell alone is announced, and the tints asked for afterwards are those of a model made afresh.
    MatrixTableModel unshown(&doc, MatrixId::Value);
    QSignalSpy unshownChanged(&unshown, &QAbstractItemModel::dataChanged);
    QVERIFY(doc.setCell(MatrixId::Value, 1, 1, 80.0));  // a new largest magnitude
    QCOMPARE(unshownChanged.count(), 1);
    QCOMPARE(unshownChanged.at(0).at(0).toModelIndex(), unshown.index(1, 1));
    const MatrixTableModel fresh(&doc, MatrixId::Value);
    QVERIFY(tints(unshown) == tints(fresh));
}

void TestModels::cellChangeComesWithTheSignal()
{
    // The table learns which cell changed from the change the document announces, not by asking the
    // document back: a change announced for one cell updates exactly that cell.
    Document doc;
    MatrixTableModel table(&doc, MatrixId::Key);
    QSignalSpy cells(&table, &QAbstractItemModel::dataChanged);
    QSignalSpy resets(&table, &QAbstractItemModel::modelReset);
    const double value = doc.matrix(MatrixId::Key)(2, 1);
    emit doc.modelChanged(ModelChange::cell(MatrixId::Key, 2, 1, value, value));
    QCOMPARE(cells.count(), 1);
    QCOMPARE(cells.at(0).at(0).toModelIndex(), table.index(2, 1));
    QCOMPARE(cells.at(0).at(1).toModelIndex(), table.index(2, 1));
    emit doc.modelChanged(ModelChange::cell(MatrixId::Query, 2, 1, value, value));
    QCOMPARE(cells.count(), 1);  // another matrix's cell
    emit doc.modelChanged(ModelChange::block(MatrixId::Key, 1, 0, 2, 2));
    QCOMPARE(cells.count(), 2);
    QCOMPARE(cells.at(1).at(0).toModelIndex(), table.index(1, 0));
    QCOMPARE(cells.at(1).at(1).toModelIndex(), table.index(2, 1));
    QCOMPARE(resets.count(), 0);

    // Through the undo stack: the cell set, and on undo the same cell back.
    cells.clear();
    QVERIFY(doc.setCell(MatrixId::Key, 0, 2, 0.25));
    QVERIFY(doc.setCell(MatrixId::Key, 0, 2, 0.5));  // merges into one step
    doc.undoStack()->undo();
    QCOMPARE(cells.count(), 3);
    for (const auto& args : cells) {
        QCOMPARE(args.at(0).toModelIndex(), table.index(0, 2));
        QCOMPARE(args.at(1).toModelIndex(), table.index(0, 2));
    }
}

void TestModels::stepValuesAndShape()
{
    Document doc;
    ViewState view;
    StepTableModel scores(&doc, &view, core::Step::Scores);
    const core::Matrix expected = mat({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}});
    QCOMPARE(scores.rowCount(), 3);
    QCOMPARE(scores.columnCount(), 3);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            QCOMPARE(scores.index(r, c).data(ValueRole).toDouble(), expected(r, c));
    QCOMPARE(scores.headerData(1, Qt::Horizontal).toString(), QString::fromStdString(doc.model().tokens[1]));
    scores.setPrecision(3);
    StepTableModel weights(&doc, &view, core::Step::Weights);
    weights.setPrecision(4);
    QCOMPARE(weights.index(0, 0).data().toString(), QStringLiteral("0.0634"));
    weights.setPrecision(0);
    QCOMPARE(weights.index(1, 1).data().toString(), QStringLiteral("1"));
}

void TestModels::scoreTooltip()
{
    Document doc;
    ViewState view;
    StepTableModel scores(&doc, &view, core::Step::Scores);
    QCOMPARE(scores.index(0, 1).data(Qt::ToolTipRole).toString(),
             QStringLiteral("score(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4"));
}

void TestModels::highlightFollowsHover()
{
    Document doc;
    ViewState view;
    StepTableModel queries(&doc, &view, core::Step::Queries);
    StepTableModel keys(&doc, &view, core::Step::Keys);
    StepTableModel scores(&doc, &view, core::Step::Scores);
    MatrixTableModel x(&doc, MatrixId::Embeddings, &view);
    MatrixTableModel wq(&doc, MatrixId::Query, &view);
    QSignalSpy hovered(&view, &ViewState::hoveredChanged);
    QSignalSpy qChanged(&queries, &QAbstractItemModel::dataChanged);

    // Hovering score(1,2): query row 1 of Q and key row 2 of K.
    const QModelIndex s12 = scores.index(0, 1);
    view.setHovered(scores.cellRef(s12), scores.sources(s12));
    QCOMPARE(hovered.count(), 1);
    QVERIFY(qChanged.count() >= 1);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            QCOMPARE(queries.index(r, c).data(HighlightRole).toBool(), r == 0);
            QCOMPARE(keys.index(r, c).data(HighlightRole).toBool(), r == 1);
            QCOMPARE(scores.index(r, c).data(HoveredRole).toBool(), r == 0 && c == 1);
        }
    // Hovering Q(2,3): row 2 of X and column 3 of W_Q.
    const QModelIndex q23 = queries.index(1, 2);
    view.setHovered(queries.cellRef(q23), queries.sources(q23));
    for (int r = 0; r < x.rowCount(); ++r)
        for (int c = 0; c < x.columnCount(); ++c)
            QCOMPARE(x.index(r, c).data(HighlightRole).toBool(), r == 1);
    for (int r = 0; r < wq.rowCount(); ++r)
        for (int c = 0; c < wq.columnCount(); ++c)
            QCOMPARE(wq.index(r, c).data(HighlightRole).toBool(), c == 2);
    QVERIFY(!queries.index(0, 0).data(HighlightRole).toBool());
    view.setHovered(std::nullopt);
    QVERIFY(!x.index(1, 0).data(HighlightRole).toBool());
}

void TestModels::weightedValues()
{
    Document doc;
    ViewState view;
    StepTableModel* model = StepTableModel::weightedValues(&doc, &view, this);
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(model, &QAbstractItemModel::dataChanged);
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->columnCount(), 3);
    view.setSelectedQuery(0);
    // SPEC §4: output row 1 = Σ_j weights(0, j) · v_j.
    const double expected[] = {1.9366, 6.6831, 1.5951};
    for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int j = 0; j < 3; ++j)
            sum += model->index(j, c).data(ValueRole).toDouble();
        QVERIFY2(std::fabs(sum - expected[c]) < 1e-4, qPrintable(QString::number(sum)));
    }
    view.setSelectedQuery(1);
    QCOMPARE(model->query(), 1);
    QVERIFY(changed.count() >= 1);
    // weights(1, 1) ≈ 0.982008, v_2 = [2, 8, 0].
    QVERIFY(std::fabs(model->index(1, 1).data(ValueRole).toDouble() - 0.982008 * 8) < 1e-4);
    QVERIFY(model->index(1, 1).data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("w(2,2)·v(2,2) = ")));
    delete model;
}

void TestModels::keepsSelectionWhenShapeStays()
{
    Document doc;
    MatrixTableModel model(&doc, MatrixId::Query);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(doc.setCell(MatrixId::Query, 2, 2, 9));
    QCOMPARE(resets.count(), 0);
    QCOMPARE(changed.count(), 1);
    QVERIFY(doc.setDimensions(4, 2, 3, 1));
    QCOMPARE(resets.count(), 1);
    QCOMPARE(model.columnCount(), 2);
}

void TestModels::labelsFollowTokens()
{
    // Row labels are announced when the tokens change, and only then: a header measures every label it
    // is told changed, on each edit of a long sequence.
    Document doc;
    ViewState view;
    MatrixTableModel x(&doc, MatrixId::Embeddings, &view);
    StepTableModel scores(&doc, &view, core::Step::Scores);
    QSignalSpy xLabels(&x, &QAbstractItemModel::headerDataChanged);
    QSignalSpy scoreLabels(&scores, &QAbstractItemModel::headerDataChanged);
    QVERIFY(doc.setCell(MatrixId::Embeddings, 0, 0, 5.0));
    QVERIFY(doc.waitForTrace());
    QCOMPARE(xLabels.count(), 0);
    QCOMPARE(scoreLabels.count(), 0);
    QVERIFY(doc.setTokenText(QStringLiteral("one two three")));
    QVERIFY(doc.waitForTrace());
    QVERIFY(xLabels.count() >= 1);
    QVERIFY(scoreLabels.count() >= 1);
    QVERIFY2(x.headerData(1, Qt::Vertical).toString().contains(QStringLiteral("two")),
             qPrintable(x.headerData(1, Qt::Vertical).toString()));
    QCOMPARE(scores.headerData(2, Qt::Horizontal).toString(), QStringLiteral("three"));
}

QTEST_MAIN(TestModels)
#include "tst_models.moc"
