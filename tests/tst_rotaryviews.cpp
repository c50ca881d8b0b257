/** The options of SPEC §6 as the window shows them, driven headless: step 2's Q and K before and after the rotary
 *  turn, K and V named by the query heads that share them, the options panel's rotary and q/k norm controls as undo
 *  steps, the chart of a score over the distance, the arithmetic of a turned cell and the words of step 1. The
 *  numbers are checked against the definition (X·W_Q, then pair (i, i + d_r/2) turned by p·θ^(−2i/d_r)) written
 *  here, never against what the engine printed. */

#include "testutil.h"
#include "core/attention/derivation.h"
#include "ui/document/document.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"
#include "ui/render/stepwording.h"
#include "ui/views/steps/optionspanel.h"
#include "ui/views/steps/ropechartwidget.h"
#include "ui/views/steps/stepblock.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/steps/walkthroughpanel.h"
#include "ui/views/teaching/teachingslides.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace ui;

// The engine's enums (Step, PositionalEncoding, Derivation::Kind) are compared with QVERIFY: a failing QCOMPARE
// of an enum without Q_ENUM cannot print its values.

namespace {

/** head's columns of X·W (d columns each, plus the bias), as the definition has them. */
core::Matrix projected(const core::AttentionModel& m, const core::Matrix& w, const std::optional<core::Matrix>& b,
                       int block, int d)
{
    core::Matrix out = m.embeddings * w.middleCols(block * d, d);
    if (b)
        out.rowwise() += b->middleCols(block * d, d).row(0);
    return out;
}

/** Head 1's Q and K before the turn, as the definition has them. */
std::pair<core::Matrix, core::Matrix> headQK(const core::AttentionModel& m)
{
    return {projected(m, m.wq, m.bq, 0, m.dK()), projected(m, m.wk, m.bk, 0, m.dK())};
}

/** Each row p of m turned by its position: pair (i, i + dr/2) by the angle p·θ^(−2i/dr). */
core::Matrix turned(const core::Matrix& m, int dr, double theta)
{
    core::Matrix out = m;
    const int half = dr / 2;
    for (int p = 0; p < m.rows(); ++p)
        for (int i = 0; i < half; ++i) {
            const double a = p * std::pow(theta, -2.0 * i / dr);
            out(p, i) = m(p, i) * std::cos(a) - m(p, i + half) * std::sin(a);
            out(p, i + half) = m(p, i + half) * std::cos(a) + m(p, i) * std::sin(a);
        }
    return out;
}

/** The caption a step block shows, as plain text. */
QString captionOf(const StepBlock* block)
{
    const auto* label = block->findChild<QLabel*>(QString(), Qt::FindDirectChildrenOnly);
    return label ? QString(label->text()).remove(QRegularExpression(QStringLiteral("<[^>]*>"))) : QString();
}

/** A document of six tokens with rotary positions (θ 100, so that the turns are large) and a shown steps panel. */
struct RotaryDocument {
    Document doc;
    ViewState view;
    StepsPanel panel{&doc, &view};
    bool ready = false;
    RotaryDocument()
    {
        panel.resize(1200, 900);
        panel.show();
        if (!doc.setTokenText(QStringLiteral("the cat sat on the mat")))
            return;
        core::Options o = doc.model().options;
        o.positionalEncoding = core::PositionalEncoding::Rotary;
        o.ropeTheta = 100;
        doc.setOptions(o);
        ready = doc.waitForTrace(10000);
        QCoreApplication::processEvents();
    }
};

/** A session file of four query heads over two K/V heads (d_k = d_v = 2). */
QByteArray groupedSession()
{
    return R"({"format": "attention-explorer-session", "version": 1, "tokens": ["a", "b", "c"],
      "embeddings": [[1, 0, 2, 0], [0, 1, 0, 3], [1, 1, 0, 1]],
      "weights": {
        "query": [[1,0,0,1,1,0,0,1],[0,1,1,0,0,2,1,0],[1,1,0,0,1,0,2,1],[0,0,1,1,0,1,0,2]],
        "key":   [[1,0,0,1],[0,2,1,0],[1,0,0,1],[0,1,1,0]],
        "value": [[1,0,2,0],[0,1,0,2],[1,1,0,0],[0,0,1,1]],
        "output": null},
      "options": {"heads": 4, "kv_heads": 2}})";
}

}  // namespace

class TestRotaryViews : public QObject {
    Q_OBJECT
private slots:
    void stepTwoShowsQAndKBeforeAndAfterTheTurn()
    {
        RotaryDocument d;
        QVERIFY(d.ready);
        const core::AttentionModel& m = d.doc.model();
        const int dk = m.dK(), dr = core::rotaryWidth(m);
        QCOMPARE(dk, 3);  // the worked example's width: one dimension stays unturned
        QCOMPARE(dr, 2);
        const std::vector<StepBlock*> blocks = d.panel.stepBlocks(2);
        QCOMPARE(blocks.size(), std::size_t(5));
        // Q, K, V, Q before the turn, K before the turn
        QVERIFY(blocks[3]->model()->step() == core::Step::QueriesUnrotated);
        QVERIFY(blocks[4]->model()->step() == core::Step::KeysUnrotated);
        for (StepBlock* b : blocks)
            QVERIFY2(b->isVisible(), qPrintable(captionOf(b)));
        const core::Matrix q = projected(m, m.wq, m.bq, 0, dk), k = projected(m, m.wk, m.bk, 0, dk);
        COMPARE_MATRIX(blocks[3]->model()->matrix(), q, 1e-12);
        COMPARE_MATRIX(blocks[4]->model()->matrix(), k, 1e-12);
        COMPARE_MATRIX(blocks[0]->model()->matrix(), turned(q, dr, 100), 1e-12);
        COMPARE_MATRIX(blocks[1]->model()->matrix(), turned(k, dr, 100), 1e-12);
        // and the trace's, as the rules ask: the tables are the trace's matrices
        const auto trace = d.doc.trace();
        COMPARE_MATRIX(blocks[3]->model()->matrix(), trace->heads[0].queriesUnrotated, 0.0);
        COMPARE_MATRIX(blocks[0]->model()->matrix(), trace->heads[0].queries, 0.0);
        QVERIFY(captionOf(blocks[3]).contains(QStringLiteral("before the turn")));
        QVERIFY(d.panel.stepFormula(2).contains(QStringLiteral("cos(")));

        // Without rotary positions the tables before the turn go.
        core::Options o = d.doc.model().options;
        o.positionalEncoding = core::PositionalEncoding::None;
        d.doc.setOptions(o);
        QVERIFY(d.doc.waitForTrace(10000));
        QCoreApplication::processEvents();
        QVERIFY(!blocks[3]->isVisible());
        QVERIFY(!blocks[4]->isVisible());
        QVERIFY(!d.panel.stepFormula(2).contains(QStringLiteral("cos(")));
    }

    /** The slides of step 2 with rotary positions: Q, K, V as projected, then Q → Q′ and K → K′ with the turn's
     *  arithmetic; without them one slide as before. */
    void slidesShowTheTurnBeforeAndAfter()
    {
        RotaryDocument d;
        QVERIFY(d.ready);
        const core::AttentionModel& m = d.doc.model();
        const int dr = core::rotaryWidth(m), query = 3;
        const auto [q, k] = headQK(m);
        const std::vector<render::Slide> slides = ui::buildSlides(*d.doc.trace(), 0, query);
        std::vector<const render::Slide*> two;
        for (const render::Slide& s : slides)
            if (s.step == 2)
                two.push_back(&s);
        QCOMPARE(two.size(), std::size_t(2));
        QVERIFY2(two[0]->title.endsWith(QStringLiteral("(1/2)")), qPrintable(two[0]->title));
        QVERIFY2(two[1]->title.endsWith(QStringLiteral("(2/2)")), qPrintable(two[1]->title));
        QCOMPARE(two[0]->matrices.size(), std::size_t(3));
        COMPARE_MATRIX(two[0]->matrices[0].values, q, 1e-12);
        COMPARE_MATRIX(two[0]->matrices[1].values, k, 1e-12);
        const auto& turn = two[1]->matrices;
        QCOMPARE(turn.size(), std::size_t(4));
        QCOMPARE(turn[1].name, QStringLiteral("Q′"));
        QCOMPARE(turn[3].name, QStringLiteral("K′"));
        COMPARE_MATRIX(turn[0].values, q, 1e-12);
        COMPARE_MATRIX(turn[1].values, turned(q, dr, 100), 1e-12);
        COMPARE_MATRIX(turn[2].values, k, 1e-12);
        COMPARE_MATRIX(turn[3].values, turned(k, dr, 100), 1e-12);
        // q′(4,1) = q(4,1)·cos(3·θ₁) − q(4,2)·sin(3·θ₁), with θ₁ = 1: its numbers as the slide writes them
        const QString first = two[1]->arithmetic.value(0);
        QVERIFY2(first.startsWith(QStringLiteral("q′(4,1) = ")), qPrintable(first));
        for (double v : {q(query, 0), q(query, 1), 3.0, turned(q, dr, 100)(query, 0)})
            QVERIFY2(first.contains(render::slideNumber(std::abs(v), 4)), qPrintable(first));
        QVERIFY(first.contains(QStringLiteral("cos(")));
        QVERIFY(two[1]->arithmetic.join(QLatin1Char('\n')).contains(QStringLiteral("k′(4,1) = ")));

        core::Options o = m.options;
        o.positionalEncoding = core::PositionalEncoding::None;
        d.doc.setOptions(o);
        QVERIFY(d.doc.waitForTrace(10000));
        const std::vector<render::Slide> plain = ui::buildSlides(*d.doc.trace(), 0, query);
        QCOMPARE(std::count_if(plain.begin(), plain.end(), [](const render::Slide& s) { return s.step == 2; }), 1);
    }

    /** The walkthrough of a query first shows its turn and that of each key it reads, before → after. */
    void walkthroughShowsTheTurnOfItsQueryAndKeys()
    {
        RotaryDocument d;
        QVERIFY(d.ready);
        const core::AttentionModel& m = d.doc.model();
        const int dr = core::rotaryWidth(m), query = 3;
        const auto [q, k] = headQK(m);
        const core::Matrix qt = turned(q, dr, 100), kt = turned(k, dr, 100);
        ui::WalkthroughPanel walkthrough(&d.doc, &d.view);
        walkthrough.resize(700, 800);
        walkthrough.show();
        d.view.setSelectedQuery(query);
        QCoreApplication::processEvents();
        const QStringList lines = walkthrough.plainText().split(QLatin1Char('\n'));
        const auto row = [&](const QString& name) {
            for (const QString& line : lines)
                if (line.startsWith(name))
                    return line.split(QLatin1Char('\t'));
            return QStringList();
        };
        const auto first = [](const QString& vector) {  // "[a, b, c]" → a, the minus as "−"
            return vector.mid(1).section(QStringLiteral(", "), 0, 0).remove(QLatin1Char(']'));
        };
        const auto number = [](double v) { return QString::fromStdString(core::formatNumber(v, 4)).replace(QLatin1Char('-'), QChar(0x2212)); };
        const QStringList qRow = row(QStringLiteral("q₄ (position 3)"));
        QCOMPARE(qRow.size(), 3);
        QCOMPARE(first(qRow[1]), number(q(query, 0)));
        QCOMPARE(first(qRow[2]), number(qt(query, 0)));
        for (int j = 0; j < m.n(); ++j) {
            const QStringList kRow = row(QStringLiteral("k%1 (position %2)").arg(QString::fromStdString(core::subscript(j + 1))).arg(j));
            QCOMPARE(kRow.size(), 3);
            QCOMPARE(first(kRow[1]), number(k(j, 0)));
            QCOMPARE(first(kRow[2]), number(kt(j, 0)));
        }
    }

    void hoveringATurnedCellGivesItsArithmetic()
    {
        RotaryDocument d;
        QVERIFY(d.ready);
        const auto trace = d.doc.trace();
        const core::AttentionModel& m = *trace->model;
        const core::Matrix q = projected(m, m.wq, m.bq, 0, m.dK());
        const int p = 4;
        const double angle = p * std::pow(100.0, 0.0);  // pair 0: θ^0 = 1
        for (int col : {0, 1}) {
            const core::Derivation dv = core::derive(*trace, {core::Step::Queries, 0, p, col});
            QVERIFY(dv.kind == core::Derivation::Kind::Rotation);
            QCOMPARE(dv.terms.size(), std::size_t(2));
            QCOMPARE(dv.terms[0].a, q(p, col));
            QCOMPARE(dv.terms[1].a, q(p, 1 - col));
            QVERIFY(std::abs(dv.numeratorArg - angle) < 1e-12);
            const double expected = col == 0 ? q(p, 0) * std::cos(angle) - q(p, 1) * std::sin(angle)
                                             : q(p, 1) * std::cos(angle) + q(p, 0) * std::sin(angle);
            QVERIFY(std::abs(dv.value - expected) < 1e-12);
            QVERIFY2(QString::fromStdString(dv.text()).contains(QStringLiteral("cos(4)")), dv.text().c_str());
        }
        // the third dimension is past the turned width: as it was
        const core::Derivation kept = core::derive(*trace, {core::Step::Queries, 0, p, 2});
        QVERIFY(kept.kind == core::Derivation::Kind::Copy);
        QCOMPARE(kept.value, q(p, 2));
        // a cell before the turn is X·W_Q
        const core::Derivation before = core::derive(*trace, {core::Step::QueriesUnrotated, 0, p, 1});
        QVERIFY(before.kind == core::Derivation::Kind::DotProduct);
        QVERIFY(std::abs(before.value - q(p, 1)) < 1e-12);
    }

    void sharedKeysAreNamedByTheirQueryHeads()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("grouped.json"));
        QVERIFY(testutil::writeText(path, groupedSession()));
        Document doc;
        ViewState view;
        StepsPanel panel(&doc, &view);
        panel.show();
        QString error;
        QVERIFY2(doc.openFile(path, &error), qPrintable(error));
        QVERIFY(doc.waitForTrace(10000));
        QCOMPARE(doc.model().kvHeads(), 2);
        view.setHead(2);  // query head 3 reads K/V head 2, shared with query head 4
        QCoreApplication::processEvents();
        const std::vector<StepBlock*> blocks = panel.stepBlocks(2);
        QVERIFY2(captionOf(blocks[1]).contains(QStringLiteral("K/V head 2 · query heads 3–4")), qPrintable(captionOf(blocks[1])));
        QVERIFY2(captionOf(blocks[2]).contains(QStringLiteral("K/V head 2 · query heads 3–4")), qPrintable(captionOf(blocks[2])));
        QVERIFY(!captionOf(blocks[0]).contains(QStringLiteral("K/V")));
        // K of query head 3 is X·W_K's second block, and its hover says so
        const core::AttentionModel& m = doc.model();
        COMPARE_MATRIX(blocks[1]->model()->matrix(), projected(m, m.wk, m.bk, 1, 2), 1e-12);
        const core::Derivation dv = core::derive(*doc.trace(), {core::Step::Keys, 2, 1, 0});
        QCOMPARE(dv.value, (m.embeddings.row(1) * m.wk.col(2))(0, 0));
        QCOMPARE(dv.sources.back(), (core::CellRef{core::Step::WeightKey, 0, -1, 2}));
        view.setHead(0);
        QCoreApplication::processEvents();
        QVERIFY(captionOf(blocks[1]).contains(QStringLiteral("K/V head 1 · query heads 1–2")));
    }

    void optionsPanelTurnsRotaryOnAsAnUndoStep()
    {
        Document doc;
        OptionsPanel panel(&doc);
        panel.show();
        QVERIFY(doc.waitForTrace(10000));
        auto* encoding = panel.findChild<QComboBox*>(QStringLiteral("encodingBox"));
        auto* theta = panel.findChild<QDoubleSpinBox*>(QStringLiteral("ropeThetaBox"));
        auto* fraction = panel.findChild<QDoubleSpinBox*>(QStringLiteral("rotaryFractionBox"));
        auto* qkNorm = panel.findChild<QCheckBox*>(QStringLiteral("qkNormBox"));
        QVERIFY(encoding && theta && fraction && qkNorm);
        QVERIFY(!theta->isVisible());
        const int rotary = encoding->findData(int(core::PositionalEncoding::Rotary));
        QVERIFY(rotary >= 0);
        encoding->setCurrentIndex(rotary);
        emit encoding->activated(rotary);
        QVERIFY(doc.model().options.positionalEncoding == core::PositionalEncoding::Rotary);
        QVERIFY(theta->isVisible());
        theta->setValue(500000);
        QCOMPARE(doc.model().options.ropeTheta, 500000.0);
        qkNorm->setChecked(true);
        QVERIFY(doc.model().options.qkNorm);
        QCOMPARE(doc.undoStack()->count(), 3);
        QVERIFY(doc.waitForTrace(10000));
        QVERIFY(doc.trace()->heads[0].queriesUnrotated.size() > 0);
        // a share too narrow to turn two dimensions of d_k = 3 is refused with its reason, not taken
        fraction->setValue(0.3);
        QCOMPARE(doc.model().options.rotaryFraction, 1.0);
        QVERIFY(!panel.findChild<QWidget*>(QStringLiteral("optionsMessage"))->isHidden());
        QCOMPARE(fraction->value(), 1.0);

        doc.undoStack()->undo();
        QVERIFY(!doc.model().options.qkNorm);
        QVERIFY(!qkNorm->isChecked());
        doc.undoStack()->undo();
        QCOMPARE(doc.model().options.ropeTheta, 10000.0);
        QCOMPARE(theta->value(), 10000.0);
        doc.undoStack()->undo();
        QVERIFY(doc.model().options.positionalEncoding == core::PositionalEncoding::None);
        QVERIFY(!theta->isVisible());
        doc.undoStack()->redo();
        QVERIFY(doc.model().options.positionalEncoding == core::PositionalEncoding::Rotary);
    }

    void optionsPanelGroupsKeyValueHeadsAsAnUndoStep()
    {
        Document doc;
        OptionsPanel panel(&doc);
        panel.show();
        QVERIFY(doc.setDimensions(4, 2, 2, 2));  // two heads of d_k = d_v = 2
        const core::AttentionModel before = doc.model();
        auto* kvHeads = panel.findChild<QSpinBox*>(QStringLiteral("kvHeadsBox"));
        QVERIFY(kvHeads);
        QCOMPARE(kvHeads->value(), 2);
        kvHeads->setValue(1);
        const core::AttentionModel& m = doc.model();
        QCOMPARE(m.kvHeads(), 1);
        QCOMPARE(m.wk.cols(), 2);
        COMPARE_MATRIX(m.wk, before.wk.leftCols(2), 0.0);  // the group's first head keeps its keys and values
        COMPARE_MATRIX(m.wv, before.wv.leftCols(2), 0.0);
        QVERIFY(!core::validate(m));
        QVERIFY(doc.waitForTrace(10000));
        COMPARE_MATRIX(doc.trace()->heads[1].keys, doc.trace()->heads[0].keys, 0.0);  // head 2 reads head 1's
        kvHeads->setValue(2);
        QCOMPARE(doc.model().kvHeads(), 2);
        COMPARE_MATRIX(doc.model().wk.rightCols(2), before.wk.leftCols(2), 0.0);  // ungrouped: each its group's
        doc.undoStack()->undo();
        QCOMPARE(doc.model().kvHeads(), 1);
        doc.undoStack()->undo();
        QVERIFY(doc.model() == before);
        QCOMPARE(kvHeads->value(), 2);
    }

    void ropeChartIsTheScoreOverTheDistance()
    {
        RotaryDocument d;
        QVERIFY(d.ready);
        d.view.setSelectedQuery(5);
        QCoreApplication::processEvents();
        RopeChartWidget* chart = d.panel.ropeChart();
        QVERIFY(chart->isVisible());
        const render::RopeChartData& data = chart->data();
        QCOMPARE(data.query, 5);
        QCOMPARE(int(data.scores.size()), 64);
        const core::AttentionModel& m = d.doc.model();
        const core::Matrix q = projected(m, m.wq, m.bq, 0, 3), k = projected(m, m.wk, m.bk, 0, 3);
        // Σ over the turned pair of (q_i k_i + q_h k_h)·cos(Δθ_i) + (q_i k_h − q_h k_i)·sin(Δθ_i), plus the unturned q_2·k_2
        const double a = q(5, 0) * k(data.key, 0) + q(5, 1) * k(data.key, 1);
        const double b = q(5, 0) * k(data.key, 1) - q(5, 1) * k(data.key, 0);
        for (int delta = 0; delta < 64; ++delta) {
            const double expected = a * std::cos(delta) + b * std::sin(delta) + q(5, 2) * k(data.key, 2);
            QVERIFY2(std::abs(data.scores[std::size_t(delta)] - expected) < 1e-12, qPrintable(QString::number(delta)));
        }
        // at the pair's real distance it is the score the trace has
        const auto trace = d.doc.trace();
        QVERIFY(std::abs(data.scores[std::size_t(5 - data.key)] - trace->heads[0].scores(5, data.key)) < 1e-12);
        // the key is the query's strongest
        Eigen::Index strongest = 0;
        trace->heads[0].weights.row(5).maxCoeff(&strongest);
        QCOMPARE(data.key, int(strongest));

        core::Options o = d.doc.model().options;
        o.positionalEncoding = core::PositionalEncoding::Sinusoidal;
        d.doc.setOptions(o);
        QVERIFY(d.doc.waitForTrace(10000));
        QCoreApplication::processEvents();
        QVERIFY(!chart->isVisible());
    }

    void stepOneNamesTheNormAndWherePositionsEnter()
    {
        std::mt19937_64 rng(7);
        core::AttentionModel llama = testutil::randomModel(rng, 4, 8, 2, 4, 4);
        llama.options.positionalEncoding = core::PositionalEncoding::Rotary;
        llama.origin = core::AttentionModel::Origin{"llama-demo", 3, 4, "LlamaForCausalLM", "RMSNorm"};
        const render::StepText one = render::StepWording::step(1, llama);
        QVERIFY2(one.plainFormula().contains(QStringLiteral("RMSNorm(residual stream entering layer 3)")),
                 qPrintable(one.plainFormula()));
        QVERIFY(one.details.contains(QStringLiteral("RMSNorm divides each row by its root mean square")));
        QVERIFY(!one.details.contains(QStringLiteral("LayerNorm")));
        QVERIFY(one.details.contains(QStringLiteral("step 2 turns each query and key")));
        QVERIFY(!one.explanation.contains(QStringLiteral("position embeddings")));

        core::AttentionModel gpt2 = llama;
        gpt2.options.positionalEncoding = core::PositionalEncoding::None;
        gpt2.origin = core::AttentionModel::Origin{"gpt2", 1, 12, "GPT2LMHeadModel", "LayerNorm"};
        const render::StepText first = render::StepWording::step(1, gpt2);
        QVERIFY(first.plainFormula().contains(QStringLiteral("LayerNorm(residual stream entering layer 1)")));
        QVERIFY(first.details.contains(QStringLiteral("position embedding")));
        QVERIFY(!first.details.contains(QStringLiteral("RMSNorm")));
    }
};

QTEST_MAIN(TestRotaryViews)
#include "tst_rotaryviews.moc"
