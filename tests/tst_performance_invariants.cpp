/** What the engine's speed must not change: the same result on any number of threads and blocks, a memory
 *  estimate that covers what a trace holds, and a refusal past the memory budget. No timings here. */

#include "core/attention.h"
#include "testutil.h"

#include <QTest>

#include <random>

using namespace core;

namespace {

/** Bytes of every matrix a trace holds. */
std::size_t traceBytes(const Trace& t)
{
    auto bytes = [](const Matrix& m) { return std::size_t(m.size()) * sizeof(double); };
    const AttentionModel& m = t.model;
    std::size_t total = bytes(m.embeddings) + bytes(m.wq) + bytes(m.wk) + bytes(m.wv) + (m.wo ? bytes(*m.wo) : 0)
        + bytes(t.x) + bytes(t.concat) + bytes(t.output);
    for (const HeadTrace& ht : t.heads)
        total += bytes(ht.queries) + bytes(ht.keys) + bytes(ht.values) + bytes(ht.scores) + bytes(ht.weights)
            + bytes(ht.outputs);
    return total;
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
        const Matrix q = t.x * m.wq.middleCols(h * dk, dk);
        const Matrix k = t.x * m.wk.middleCols(h * dk, dk);
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
