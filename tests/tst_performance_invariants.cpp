/** What the engine's speed must not change: the same result on any number of threads and blocks, a memory
 *  estimate that covers what a trace holds, and a refusal past the memory budget. And what its speed rests on:
 *  a trace shares its model instead of copying it, its weights packed once and lent to the traces of the same
 *  weights (never a pack of a weight since edited), and a small computation runs on the calling thread alone.
 *  No timings here. */

#include "core/attention/attention.h"
#include "core/tensor/threadpool.h"
#include "testutil.h"

#include <QTest>

#include <limits>
#include <memory>
#include <random>

using namespace core;

namespace {

/** Bytes of every matrix a trace holds. */
std::size_t traceBytes(const Trace& t)
{
    auto bytes = [](const Matrix& m) { return std::size_t(m.size()) * sizeof(double); };
    const AttentionModel& m = *t.model;
    std::size_t total = bytes(m.embeddings) + bytes(m.wq) + bytes(m.wk) + bytes(m.wv) + bytes(t.encodedX)
        + bytes(t.concat) + bytes(t.output);
    for (const std::optional<Matrix>* o : {&m.wo, &m.bq, &m.bk, &m.bv, &m.bo})
        total += *o ? bytes(**o) : 0;
    for (const HeadTrace& ht : t.heads)
        total += bytes(ht.queries) + bytes(ht.keys) + bytes(ht.values) + bytes(ht.scores) + bytes(ht.weights)
            + bytes(ht.outputs);
    return total;
}

/** Every matrix of two traces agrees within tol relative to the larger of 1 and its largest entry, and
 *  non-finite entries sit in the same places. */
void compareTraces(const Trace& got, const Trace& want, double tol)
{
    auto same = [tol](const Matrix& a, const Matrix& b, const char* what) {
        QVERIFY2(a.rows() == b.rows() && a.cols() == b.cols(), what);
        const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
        for (Eigen::Index i = 0; i < a.size(); ++i) {
            const double x = a.data()[i], y = b.data()[i];
            if (!std::isfinite(y)) {
                QVERIFY2(std::isnan(y) ? std::isnan(x) : x == y, what);
                continue;
            }
            // The message is made only for a cell that differs: QVERIFY2 formats it for every cell, which was
            // most of this test's time (and two minutes of it under the sanitizers).
            if (!(std::fabs(x - y) <= tol * scale))
                QFAIL(qPrintable(QStringLiteral("%1[%2]: %3, the full computation %4")
                                     .arg(QLatin1String(what)).arg(i).arg(x, 0, 'g', 17).arg(y, 0, 'g', 17)));
        }
    };
    QCOMPARE(got.headCount(), want.headCount());
    QCOMPARE(got.scoreFactor, want.scoreFactor);
    same(got.x(), want.x(), "x");
    for (int h = 0; h < want.headCount(); ++h) {
        const HeadTrace &a = got.heads[std::size_t(h)], &b = want.heads[std::size_t(h)];
        same(a.queries, b.queries, "queries");
        same(a.keys, b.keys, "keys");
        same(a.values, b.values, "values");
        same(a.scores, b.scores, "scores");
        same(a.weights, b.weights, "weights");
        same(a.outputs, b.outputs, "outputs");
    }
    same(got.concat, want.concat, "concat");
    same(got.output, want.output, "output");
}

/** The letters of W_Q, W_K, W_V and W_O ("QKVO") whose packs t shares with from: the very same panels, lent
 *  instead of packed again. */
QByteArray sharedPacks(const Trace& t, const PackedWeights& from)
{
    const PackedWeights& own = t.packed;
    const std::shared_ptr<const PackedDoubleWeight>* mine[] = {&own.wq, &own.wk, &own.wv, &own.wo};
    const std::shared_ptr<const PackedDoubleWeight>* theirs[] = {&from.wq, &from.wk, &from.wv, &from.wo};
    QByteArray shared;
    for (int which = 0; which < 4; ++which)
        if (*mine[which] && *mine[which] == *theirs[which])
            shared += "QKVO"[which];
    return shared;
}

/** A shared random model of 64 tokens (more than the few rows whose products read the weights unpacked), d_model
 *  dModel and heads heads of d_model / heads columns each, with a W_O of d_model columns. */
std::shared_ptr<const AttentionModel> packedModel(int dModel, int heads, unsigned seed)
{
    std::mt19937_64 rng(seed);
    const int width = dModel / heads;
    return std::make_shared<const AttentionModel>(
        testutil::randomModel(rng, 64, dModel, heads, width, width, dModel));
}

}  // namespace

class TestPerformanceInvariants : public QObject {
    Q_OBJECT

private slots:
    void sameResultEveryTime_data();
    void sameResultEveryTime();
    void blocksAgreeWithOneProduct_data();
    void blocksAgreeWithOneProduct();
    void estimateCoversTrace_data();
    void estimateCoversTrace();
    void refusesPastBudget();
    void incrementalAgreesWithFull_data();
    void incrementalAgreesWithFull();
    void incrementalDoesNotDrift();
    void recycledBuffersGiveTheSameTrace();
    void aSpareOneEditBehindIsUpdatedInPlace();
    void aTraceSharesItsModel();
    void aCopiedModelStaysTheTracesOwn();
    void theWeightsAreMeasuredOncePerModel();
    void aModelsPacksAreLent_data();
    void aModelsPacksAreLent();
    void anEditLendsThePacksOfTheWeightsItKeeps_data();
    void anEditLendsThePacksOfTheWeightsItKeeps();
    void aNewTextLendsThePacksOfItsWeights_data();
    void aNewTextLendsThePacksOfItsWeights();
    void aSpareUpdatedInPlaceLendsItsOwnPacks_data();
    void aSpareUpdatedInPlaceLendsItsOwnPacks();
    void aSmallComputationStartsNoThread();
};

void TestPerformanceInvariants::sameResultEveryTime_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("causal");
    // 300 tokens: three blocks of rows, and enough work for threads
    QTest::addRow("n=300 one head") << 300 << 1 << false;
    QTest::addRow("n=300 three heads causal") << 300 << 3 << true;
    QTest::addRow("n=5") << 5 << 2 << false;
}

void TestPerformanceInvariants::sameResultEveryTime()
{
    QFETCH(int, n);
    QFETCH(int, heads);
    QFETCH(bool, causal);
    std::mt19937_64 rng(5);
    AttentionModel m = testutil::randomModel(rng, n, 32, heads, 16, 16);
    m.options.mask = causal ? Mask::Causal : Mask::None;
    const Trace a = compute(m);
    for (int round = 0; round < 3; ++round) {
        const Trace b = compute(m);
        for (int h = 0; h < heads; ++h) {
            QVERIFY(a.heads[std::size_t(h)].weights == b.heads[std::size_t(h)].weights);
            QVERIFY(a.heads[std::size_t(h)].outputs == b.heads[std::size_t(h)].outputs);
        }
        QVERIFY(a.output == b.output);
    }
}

void TestPerformanceInvariants::blocksAgreeWithOneProduct_data()
{
    sameResultEveryTime_data();
}

void TestPerformanceInvariants::blocksAgreeWithOneProduct()
{
    QFETCH(int, n);
    QFETCH(int, heads);
    QFETCH(bool, causal);
    std::mt19937_64 rng(9);
    AttentionModel m = testutil::randomModel(rng, n, 32, heads, 16, 16);
    m.options.mask = causal ? Mask::Causal : Mask::None;
    const Trace t = compute(m);
    const int dk = m.dK();
    for (int h = 0; h < heads; ++h) {
        const HeadTrace& ht = t.heads[std::size_t(h)];
        const Matrix q = t.x() * m.wq.middleCols(h * dk, dk);
        const Matrix k = t.x() * m.wk.middleCols(h * dk, dk);
        COMPARE_MATRIX(ht.scores, Matrix(q * k.transpose()), 1e-10);
        Matrix w = ht.scores * t.scoreFactor;
        softmaxRows(w, causal);
        COMPARE_MATRIX(ht.weights, w, 1e-14);
        COMPARE_MATRIX(ht.outputs, Matrix(w * ht.values), 1e-12);
    }
}

void TestPerformanceInvariants::estimateCoversTrace_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("output");
    QTest::addRow("n=1") << 1 << 1 << false;
    QTest::addRow("n=200 W_O") << 200 << 4 << true;
    QTest::addRow("n=300") << 300 << 2 << false;
}

void TestPerformanceInvariants::estimateCoversTrace()
{
    QFETCH(int, n);
    QFETCH(int, heads);
    QFETCH(bool, output);
    std::mt19937_64 rng(3);
    AttentionModel m = testutil::randomModel(rng, n, 24, heads, 8, 8);
    if (output)
        m.wo = Matrix::Ones(m.wv.cols(), 5);
    const Trace t = compute(m);
    const std::size_t held = traceBytes(t), estimate = estimatedTraceBytes(m);
    QVERIFY2(estimate >= held, qPrintable(QStringLiteral("estimate %1 < held %2").arg(estimate).arg(held)));
    // The estimate adds only the products' working space and 2 MiB of stacks on top, not a second trace.
    QVERIFY2(estimate < 2 * held + (std::size_t(4) << 20),
             qPrintable(QStringLiteral("estimate %1, held %2").arg(estimate).arg(held)));
}

void TestPerformanceInvariants::refusesPastBudget()
{
    // 8192 tokens and 8 heads: 8 GiB of scores and weights alone.
    AttentionModel m;
    m.tokens.assign(8192, "t");
    m.embeddings = Matrix::Zero(8192, 4);
    m.wq = m.wk = m.wv = Matrix::Zero(4, 8);
    m.options.heads = 8;
    QVERIFY(estimatedTraceBytes(m) > Limits::memoryBudgetBytes);
    const auto error = validate(m);
    QVERIFY(error);
    QVERIFY2(error->find("memory budget") != std::string::npos, error->c_str());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compute(m));
}

QTEST_GUILESS_MAIN(TestPerformanceInvariants)
#include "tst_performance_invariants.moc"

void TestPerformanceInvariants::incrementalAgreesWithFull_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("positions");
    QTest::addColumn<QString>("edit");
    QTest::addColumn<bool>("biases");
    const QStringList edits{QStringLiteral("x cell"), QStringLiteral("x two rows"), QStringLiteral("x half the rows"),
                            QStringLiteral("w_q cell"), QStringLiteral("w_k cell"), QStringLiteral("w_v cell"),
                            QStringLiteral("w_v every column"), QStringLiteral("w_o cell"),
                            QStringLiteral("temperature"), QStringLiteral("scale off"), QStringLiteral("nothing"),
                            QStringLiteral("overflowing value"), QStringLiteral("a token"), QStringLiteral("mask")};
    for (const QString& edit : edits) {
        QTest::addRow("n=40 %s", qPrintable(edit)) << 40 << 1 << false << false << edit << false;
        QTest::addRow("n=300 3 heads causal positions %s", qPrintable(edit)) << 300 << 3 << true << true << edit << false;
        QTest::addRow("n=130 2 heads biases %s", qPrintable(edit)) << 130 << 2 << false << false << edit << true;
    }
    // An edited bias entry redoes its column as an edited weight column does; a bias added or taken away
    // starts afresh.
    const QStringList biasEdits{QStringLiteral("b_q entry"), QStringLiteral("b_k entry"), QStringLiteral("b_v entry"),
                                QStringLiteral("b_v every entry"), QStringLiteral("b_o entry"),
                                QStringLiteral("b_q and w_q cell"), QStringLiteral("b_k added"),
                                QStringLiteral("b_v removed")};
    for (const QString& edit : biasEdits) {
        QTest::addRow("n=130 2 heads biases %s", qPrintable(edit)) << 130 << 2 << false << false << edit << true;
        QTest::addRow("n=300 3 heads causal positions biases %s", qPrintable(edit))
            << 300 << 3 << true << true << edit << true;
    }
}

void TestPerformanceInvariants::incrementalAgreesWithFull()
{
    QFETCH(int, n);
    QFETCH(int, heads);
    QFETCH(bool, causal);
    QFETCH(bool, positions);
    QFETCH(QString, edit);
    QFETCH(bool, biases);
    std::mt19937_64 rng(17);
    AttentionModel m = testutil::randomModel(rng, n, 32, heads, 8, 8);
    m.options.mask = causal ? Mask::Causal : Mask::None;
    m.options.positionalEncoding = positions ? PositionalEncoding::Sinusoidal : PositionalEncoding::None;
    m.wo = Matrix::Random(m.wv.cols(), 6);
    if (biases) {
        m.bq = testutil::randomMatrix(rng, 1, int(m.wq.cols()));
        m.bv = testutil::randomMatrix(rng, 1, int(m.wv.cols()));
        m.bo = testutil::randomMatrix(rng, 1, 6);
        if (edit != QLatin1String("b_k added"))
            m.bk = testutil::randomMatrix(rng, 1, int(m.wk.cols()));
    }
    const Trace before = compute(m);

    AttentionModel after = m;
    const int dk = m.dK();
    if (edit == QLatin1String("x cell")) {
        after.embeddings(n / 2, 3) += 0.75;
    } else if (edit == QLatin1String("x two rows")) {
        after.embeddings(0, 0) = -1.5;
        after.embeddings(n - 1, 31) = 2.25;
    } else if (edit == QLatin1String("x half the rows")) {
        after.embeddings.topRows(n / 2).array() += 0.125;
    } else if (edit == QLatin1String("w_q cell")) {
        after.wq(5, (heads - 1) * dk + 2) -= 0.5;
    } else if (edit == QLatin1String("w_k cell")) {
        after.wk(0, 1) = 3.0;
    } else if (edit == QLatin1String("w_v cell")) {
        after.wv(7, 3) = -2.0;
    } else if (edit == QLatin1String("w_v every column")) {
        after.wv.array() *= 1.5;
    } else if (edit == QLatin1String("w_o cell")) {
        (*after.wo)(1, 2) = 9.0;
    } else if (edit == QLatin1String("temperature")) {
        after.options.temperature = 0.3;
    } else if (edit == QLatin1String("scale off")) {
        after.options.scale = !after.options.scale;
    } else if (edit == QLatin1String("overflowing value")) {
        after.wv(2, 0) = 1e300;  // some values overflow to ±∞: the careful path of the outputs
    } else if (edit == QLatin1String("a token")) {
        after.tokens[1] = "changed";
    } else if (edit == QLatin1String("mask")) {
        after.options.mask = causal ? Mask::None : Mask::Causal;
    } else if (edit == QLatin1String("b_q entry")) {
        (*after.bq)(0, (heads - 1) * dk + 2) += 0.5;
    } else if (edit == QLatin1String("b_k entry")) {
        (*after.bk)(0, 1) = -3.0;
    } else if (edit == QLatin1String("b_v entry")) {
        (*after.bv)(0, 3) = 2.5;
    } else if (edit == QLatin1String("b_v every entry")) {
        after.bv->array() += 1.0;
    } else if (edit == QLatin1String("b_o entry")) {
        (*after.bo)(0, 5) = -4.0;
    } else if (edit == QLatin1String("b_q and w_q cell")) {
        (*after.bq)(0, 0) = 1.25;
        after.wq(3, dk) = -0.75;
    } else if (edit == QLatin1String("b_k added")) {
        after.bk = Matrix::Constant(1, after.wk.cols(), 0.5);
    } else if (edit == QLatin1String("b_v removed")) {
        after.bv.reset();
    }
    const Trace incremental = compute(after, &before);
    const Trace full = compute(after);
    compareTraces(incremental, full, 1e-12);
    QVERIFY(incremental.model->embeddings == after.embeddings && incremental.model->options == after.options);
    QVERIFY(*incremental.model == after);
    if (edit.startsWith(QLatin1String("b_")) && edit != QLatin1String("b_o entry")) {
        // The edit reached the trace: without its bias term the full computation would differ.
        const Trace stale = compute(m);
        bool differs = false;
        for (int h = 0; h < heads; ++h)
            differs = differs || stale.heads[std::size_t(h)].queries != full.heads[std::size_t(h)].queries
                || stale.heads[std::size_t(h)].keys != full.heads[std::size_t(h)].keys
                || stale.heads[std::size_t(h)].values != full.heads[std::size_t(h)].values;
        QVERIFY(differs);
    }
}

void TestPerformanceInvariants::incrementalDoesNotDrift()
{
    // 200 single-cell edits, each computed from the trace before it, end where one full computation does.
    std::mt19937_64 rng(23);
    AttentionModel m = testutil::randomModel(rng, 64, 16, 2, 8, 8);
    m.bq = m.bk = m.bv = Matrix::Zero(1, 16);
    std::uniform_int_distribution<int> kind(0, 6), row(0, 63), col(0, 15), pick(0, 15);
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    Trace t = compute(m);
    for (int e = 0; e < 200; ++e) {
        switch (kind(rng)) {
        case 0: m.embeddings(row(rng), col(rng)) = value(rng); break;
        case 1: m.wq(col(rng), pick(rng)) = value(rng); break;
        case 2: m.wk(col(rng), pick(rng)) = value(rng); break;
        case 3: (*m.bq)(0, pick(rng)) = value(rng); break;
        case 4: (*m.bk)(0, pick(rng)) = value(rng); break;
        case 5: (*m.bv)(0, pick(rng)) = value(rng); break;
        default: m.wv(col(rng), pick(rng)) = value(rng); break;
        }
        t = compute(m, &t);
    }
    compareTraces(t, compute(m), 1e-12);
}

void TestPerformanceInvariants::recycledBuffersGiveTheSameTrace()
{
    // A spent trace lends its buffers: of the same shape, of another shape (more heads, fewer tokens),
    // or together with a previous trace; the result is the one a fresh computation gives, bit for bit
    // where nothing is reused from previous.
    std::mt19937_64 rng(29);
    AttentionModel m = testutil::randomModel(rng, 150, 16, 2, 8, 8);
    m.options.mask = Mask::Causal;
    const Trace fresh = compute(m);

    Trace same = compute(m);
    const Trace a = compute(m, nullptr, &same);
    QVERIFY(same.heads.empty());
    compareTraces(a, fresh, 0.0);

    Trace other = compute(testutil::randomModel(rng, 90, 16, 4, 8, 8));
    const Trace b = compute(m, nullptr, &other);
    compareTraces(b, fresh, 0.0);

    AttentionModel edited = m;
    edited.embeddings(3, 4) = 7.5;
    Trace spare = compute(m);
    const Trace c = compute(edited, &fresh, &spare);
    compareTraces(c, compute(edited), 1e-12);

    Trace itself = compute(m);
    const Trace d = compute(edited, &itself, &itself);  // recycle == previous: not recycled
    QCOMPARE(int(itself.heads.size()), m.heads());
    compareTraces(d, compute(edited), 1e-12);
}

void TestPerformanceInvariants::aSpareOneEditBehindIsUpdatedInPlace()
{
    // The window's edits: previous is the trace shown, the spare the one before it. The spare differs from the
    // new state by two edited rows of X, previous by one: the spare's own scores are updated in place, not
    // previous's copied. A mark put into previous's scores, outside the edited rows and columns, shows which
    // was the start.
    std::mt19937_64 rng(31);
    AttentionModel m0 = testutil::randomModel(rng, 96, 16, 2, 8, 8);
    AttentionModel m1 = m0, m2 = m0;
    m1.embeddings(5, 2) = 1.75;
    m2 = m1;
    m2.embeddings(40, 7) = -2.5;
    Trace spare = compute(m0);
    Trace previous = compute(m1, &spare);
    const double* spareScores = spare.heads[1].scores.data();
    previous.heads[1].scores(70, 80) += 1.0;  // not what m1 gives: a copy from previous would carry it
    const Trace fresh = compute(m2);
    const Trace c = compute(m2, &previous, &spare);
    QCOMPARE(c.heads[1].scores.data(), spareScores);  // the spare's storage
    compareTraces(c, fresh, 1e-12);                   // and its values, not the marked ones

    // A spare further away than previous (a column of W_Q changed since it): previous is the start; the
    // result is the same.
    AttentionModel far = m1;
    far.wq(3, 9) = 4.0;
    Trace farSpare = compute(far);
    Trace again = compute(m1, &spare);
    const Trace d = compute(m2, &again, &farSpare);
    compareTraces(d, fresh, 1e-12);

    // Without previous the spare lends only its storage: the same state in it is still computed whole.
    Trace same = compute(m2);
    same.heads[0].weights(3, 2) += 1.0;
    const Trace e = compute(m2, nullptr, &same);
    compareTraces(e, fresh, 0.0);
}

void TestPerformanceInvariants::aTraceSharesItsModel()
{
    // compute() of a shared model keeps that very object: no copy of the weights, whole pass or into a spare.
    std::mt19937_64 rng(37);
    const auto model = std::make_shared<const AttentionModel>(testutil::randomModel(rng, 6, 16, 2, 4, 4, 16));
    Trace t = compute(model);
    QCOMPARE(t.model.get(), model.get());
    QCOMPARE(model.use_count(), 2L);
    Trace again = compute(model, nullptr, &t);
    QCOMPARE(again.model.get(), model.get());
    compareTraces(again, compute(*model), 0.0);  // the same numbers as a trace of a copy

    // An edit makes a new model and a new trace; the trace before it still describes the model before it.
    auto edited = std::make_shared<AttentionModel>(*model);
    edited->embeddings(2, 3) = 4.25;
    const Trace after = compute(edited, &again);
    QCOMPARE(after.model.get(), edited.get());
    QCOMPARE(again.model.get(), model.get());
    QVERIFY(*again.model == *model && !(*after.model == *model));
    compareTraces(after, compute(*edited), 1e-12);
}

void TestPerformanceInvariants::aCopiedModelStaysTheTracesOwn()
{
    // compute() of a model the caller keeps takes a copy, in the spare's storage only when nobody else holds the
    // spare's model: a model shared elsewhere is never written.
    std::mt19937_64 rng(41);
    AttentionModel m1 = testutil::randomModel(rng, 5, 8, 1, 4, 4), m2 = testutil::randomModel(rng, 5, 8, 1, 4, 4);
    Trace a = compute(m1);
    QVERIFY(*a.model == m1 && a.model.get() != &m1);
    m1.embeddings(0, 0) = 9.0;  // the caller's model changes; the trace's does not
    QVERIFY(!(*a.model == m1));
    const std::shared_ptr<const AttentionModel> held = a.model;  // someone still looks at the model of a
    const AttentionModel before = *held;
    const Trace b = compute(m2, nullptr, &a);
    QVERIFY(*b.model == m2);
    QVERIFY(b.model.get() != held.get());
    QVERIFY(*held == before);

    Trace c = compute(m1);
    const AttentionModel* storage = c.model.get();
    const Trace d = compute(m2, nullptr, &c);  // nobody else holds c's model: its storage is reused
    QCOMPARE(d.model.get(), storage);
    QVERIFY(*d.model == m2);

    // A shared model is never written, even when the spare's trace was the last to hold it.
    auto shared = std::make_shared<const AttentionModel>(m1);
    const AttentionModel* sharedAddress = shared.get();
    Trace e = compute(std::move(shared));
    const Trace f = compute(m2, nullptr, &e);
    QVERIFY(f.model.get() != sharedAddress);
    QVERIFY(*f.model == m2);
}

void TestPerformanceInvariants::theWeightsAreMeasuredOncePerModel()
{
    // The magnitudes that decide whether a product may fuse are found once per weight: a compute of the model a
    // spare or previous trace was computed from takes them from that trace instead of reading every weight
    // again, and so does one of another model for each weight with the same bits (a new text keeps them all). A
    // mark put into the spare's magnitudes shows which was used.
    std::mt19937_64 rng(43);
    const auto model = std::make_shared<const AttentionModel>(testutil::randomModel(rng, 7, 16, 2, 4, 4, 8));
    Trace spare = compute(model);
    QCOMPARE(spare.magnitudes.wq, double(model->wq.cwiseAbs().maxCoeff()));
    QCOMPARE(spare.magnitudes.wo, double(model->wo->cwiseAbs().maxCoeff()));
    QCOMPARE(spare.magnitudes.x, double(model->embeddings.cwiseAbs().maxCoeff()));
    spare.magnitudes.wk = 1e300;  // only a larger bound: the products may take the careful path, same numbers
    const Trace t = compute(model, nullptr, &spare);
    QCOMPARE(t.magnitudes.wk, 1e300);
    const Trace u = compute(model, &t);
    QCOMPARE(u.magnitudes.wk, 1e300);
    compareTraces(u, compute(*model), 1e-12);
    // Another model with the same weights and other tokens takes them too, and its X is measured.
    auto newText = std::make_shared<AttentionModel>(*model);
    newText->tokens[0] = "another";
    newText->embeddings(0, 0) = 40.0;
    const Trace v = compute(newText, &t);
    QCOMPARE(v.magnitudes.wk, 1e300);
    QCOMPARE(v.magnitudes.x, 40.0);
    compareTraces(v, compute(*newText), 1e-12);
    // A weight with one cell changed is measured again; the others are still taken.
    Trace marked = compute(model, &t);
    marked.magnitudes.wv = 2e300;
    auto kEdited = std::make_shared<AttentionModel>(*model);
    kEdited->wk(1, 2) = -30.0;
    const Trace w = compute(kEdited, &marked);
    QCOMPARE(w.magnitudes.wk, 30.0);
    QCOMPARE(w.magnitudes.wv, 2e300);
    compareTraces(w, compute(*kEdited), 1e-12);
    // A bias that is not finite is refused, whatever the trace compared with held.
    auto badBias = std::make_shared<AttentionModel>(*newText);
    badBias->bo = Matrix::Constant(1, badBias->wo->cols(), std::numeric_limits<double>::infinity());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compute(badBias, &v));
}

void TestPerformanceInvariants::aModelsPacksAreLent_data()
{
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("heads");
    // Heads of 64 columns, as the benchmark's; and of 32, which fall across the panels' column groups more often
    // still: either way the tasks split a weight's columns inside heads.
    QTest::addRow("d_model 512, 8 heads") << 512 << 8;
    QTest::addRow("d_model 96, 3 heads") << 96 << 3;
}

void TestPerformanceInvariants::aModelsPacksAreLent()
{
    // A pass that multiplies all of X by the weights packs each once (Trace::packed). Another pass of the same
    // shared model, into the first trace as its spare (as the benchmark's forward pass runs) or with it as
    // previous, takes those very packs over instead of packing again, and gives bit for bit what a fresh
    // computation does.
    QFETCH(int, dModel);
    QFETCH(int, heads);
    const auto model = packedModel(dModel, heads, 53);
    const Trace fresh = compute(*model);
    Trace first = compute(model);
    const PackedWeights packs = first.packed;
    QCOMPARE(sharedPacks(first, packs), QByteArray("QKVO"));  // all four packed
    const Trace second = compute(model, nullptr, &first);
    QCOMPARE(second.packed.wq.get(), packs.wq.get());
    QCOMPARE(sharedPacks(second, packs), QByteArray("QKVO"));
    compareTraces(second, fresh, 0.0);
    const Trace third = compute(model, &second);
    QCOMPARE(sharedPacks(third, packs), QByteArray("QKVO"));
    compareTraces(third, fresh, 0.0);
}

void TestPerformanceInvariants::anEditLendsThePacksOfTheWeightsItKeeps_data()
{
    aModelsPacksAreLent_data();
}

void TestPerformanceInvariants::anEditLendsThePacksOfTheWeightsItKeeps()
{
    // An edit makes a new model; its trace, computed with the one before as previous, takes over the packs of the
    // weights the edit left as they were, and never the pack of the weight it changed. An edited row of X changes
    // no weight; an edited cell of a weight changes that weight alone. The numbers are a fresh computation's (to
    // rounding: an edit redoes a few rows or columns with other products), and the next whole pass of the edited
    // model, which runs on the packs its trace holds, gives them bit for bit: a stale pack would show there.
    QFETCH(int, dModel);
    QFETCH(int, heads);
    const auto model = packedModel(dModel, heads, 59);
    const Trace start = compute(model);
    auto rowEdited = std::make_shared<AttentionModel>(*model);
    rowEdited->embeddings(5, 7) += 0.25;
    const Trace afterRow = compute(rowEdited, &start);
    QCOMPARE(sharedPacks(afterRow, start.packed), QByteArray("QKVO"));
    compareTraces(afterRow, compute(*rowEdited), 1e-12);

    for (int which = 0; which < 4; ++which) {
        auto cellEdited = std::make_shared<AttentionModel>(*rowEdited);
        Matrix& w = which == 0 ? cellEdited->wq : which == 1 ? cellEdited->wk : which == 2 ? cellEdited->wv
                                                                                           : *cellEdited->wo;
        w(3, 9) += 0.5;
        Trace afterCell = compute(cellEdited, &afterRow);
        QByteArray kept = "QKVO";
        kept.remove(which, 1);
        QCOMPARE(sharedPacks(afterCell, afterRow.packed), kept);
        const Trace fresh = compute(*cellEdited);
        compareTraces(afterCell, fresh, 1e-12);
        const Trace whole = compute(cellEdited, nullptr, &afterCell);
        compareTraces(whole, fresh, 0.0);
    }
}

void TestPerformanceInvariants::aNewTextLendsThePacksOfItsWeights_data()
{
    aModelsPacksAreLent_data();
}

void TestPerformanceInvariants::aNewTextLendsThePacksOfItsWeights()
{
    // A new text (other tokens, other rows of X, another length) reuses no value of the trace before, but
    // multiplies by the same weights: its trace takes over their packs, compared bit for bit, and gives bit for
    // bit what a fresh computation does. A weight changed as well is packed again.
    QFETCH(int, dModel);
    QFETCH(int, heads);
    const auto model = packedModel(dModel, heads, 67);
    const Trace start = compute(model);
    std::mt19937_64 rng(71);
    for (const int n : {64, 40, 90}) {
        auto newText = std::make_shared<AttentionModel>(*model);
        newText->tokens.assign(std::size_t(n), "new");
        newText->embeddings = testutil::randomMatrix(rng, n, dModel, -2, 2);
        const Trace t = compute(newText, &start);
        QCOMPARE(sharedPacks(t, start.packed), QByteArray("QKVO"));
        compareTraces(t, compute(*newText), 0.0);
    }
    auto newTextAndV = std::make_shared<AttentionModel>(*model);
    newTextAndV->tokens[3] = "other";
    newTextAndV->embeddings(3, 1) += 1.0;
    newTextAndV->wv(2, 2) += 0.5;
    const Trace t = compute(newTextAndV, &start);
    QCOMPARE(sharedPacks(t, start.packed), QByteArray("QKO"));
    compareTraces(t, compute(*newTextAndV), 0.0);
}

void TestPerformanceInvariants::aSpareUpdatedInPlaceLendsItsOwnPacks_data()
{
    aModelsPacksAreLent_data();
}

void TestPerformanceInvariants::aSpareUpdatedInPlaceLendsItsOwnPacks()
{
    // The window's edits: previous is the trace shown, the spare the one before it. Here previous has a cell of
    // W_Q edited that the new state does not have, the spare only a row of X less: the spare is the start, and
    // the packs the new trace keeps are the spare's, of W_Q as it is now, not previous's of the edited W_Q.
    QFETCH(int, dModel);
    QFETCH(int, heads);
    const auto model = packedModel(dModel, heads, 61);
    Trace spare = compute(model);
    const PackedWeights sparePacks = spare.packed;
    auto qEdited = std::make_shared<AttentionModel>(*model);
    qEdited->wq(3, 9) += 0.5;
    const Trace previous = compute(qEdited, &spare);
    QCOMPARE(sharedPacks(previous, sparePacks), QByteArray("KVO"));
    auto rowEdited = std::make_shared<AttentionModel>(*model);
    rowEdited->embeddings(5, 7) += 0.25;
    Trace c = compute(rowEdited, &previous, &spare);
    QCOMPARE(sharedPacks(c, sparePacks), QByteArray("QKVO"));
    const Trace fresh = compute(*rowEdited);
    compareTraces(c, fresh, 1e-12);
    compareTraces(compute(rowEdited, nullptr, &c), fresh, 0.0);
}

void TestPerformanceInvariants::aSmallComputationStartsNoThread()
{
    // Waking a worker and waiting for it costs more than a small pass: the benchmark's shapes of 3 tokens
    // (d_model 512, d_k 64) hand nothing to another thread, one head or eight. A larger pass does (on more than
    // one core), so the count is seen to move: 64 tokens of one head already, whose three projections are worth
    // a second thread together though none is alone.
    std::mt19937_64 rng(47);
    for (const auto& [n, heads] : {std::pair{3, 8}, std::pair{3, 1}}) {
        const auto model =
            std::make_shared<const AttentionModel>(testutil::randomModel(rng, n, 512, heads, 64, 64, 512));
        Trace spare = compute(model);
        const long long before = handOffs();
        const Trace t = compute(model, nullptr, &spare);
        QVERIFY2(handOffs() == before, qPrintable(QStringLiteral("n=%1, %2 heads: %3 hand-offs").arg(n).arg(heads)
                                                     .arg(handOffs() - before)));
    }
    if (coreCount() > 1) {
        for (const int n : {64, 512}) {
            const long long before = handOffs();
            const Trace larger = compute(testutil::randomModel(rng, n, 512, 1, 64, 64, 512));
            QVERIFY2(handOffs() > before, qPrintable(QStringLiteral("n=%1").arg(n)));
        }
    }
}
