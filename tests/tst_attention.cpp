/** The computation of SPEC §1 against the worked example of §4 and the invariants of attention. */

#include "core/attention/attention.h"
#include "core/attention/embedding.h"
#include "core/session/presets.h"
#include "testutil.h"

#include <QTest>

#include <algorithm>
#include <numeric>
#include <stdexcept>

using namespace core;
using testutil::mat;

Q_DECLARE_METATYPE(core::Matrix)
Q_DECLARE_METATYPE(core::Step)

namespace {

/** Softmax of each row by the textbook formula, no tricks (for moderate inputs only). */
Matrix naiveSoftmax(const Matrix& s, bool causal)
{
    Matrix w = Matrix::Zero(s.rows(), s.cols());
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
        const Eigen::Index limit = causal ? i + 1 : s.cols();
        double sum = 0;
        for (Eigen::Index j = 0; j < limit; ++j)
            sum += std::exp(s(i, j));
        for (Eigen::Index j = 0; j < limit; ++j)
            w(i, j) = std::exp(s(i, j)) / sum;
    }
    return w;
}

/** Largest |row sum − 1| of a matrix. */
double worstRowSum(const Matrix& w)
{
    return (w.rowwise().sum().array() - 1.0).abs().maxCoeff();
}

Matrix permuteRows(const Matrix& m, const std::vector<int>& p)
{
    Matrix out(m.rows(), m.cols());
    for (int i = 0; i < int(p.size()); ++i)
        out.row(i) = m.row(p[std::size_t(i)]);
    return out;
}

Matrix permuteBoth(const Matrix& m, const std::vector<int>& p)
{
    Matrix out(m.rows(), m.cols());
    for (int i = 0; i < int(p.size()); ++i)
        for (int j = 0; j < int(p.size()); ++j)
            out(i, j) = m(p[std::size_t(i)], p[std::size_t(j)]);
    return out;
}

}  // namespace

class TestAttention : public QObject {
    Q_OBJECT

private slots:
    void workedExample_data();
    void workedExample();
    void workedExampleSmallWeights();
    void scaledExample();

    void rowsSumToOne_data();
    void rowsSumToOne();
    void causalMaskIsExactlyZero_data();
    void causalMaskIsExactlyZero();
    void matchesTextbookFormula_data();
    void matchesTextbookFormula();
    void softmaxShiftInvariant_data();
    void softmaxShiftInvariant();
    void softmaxExtremeRows_data();
    void softmaxExtremeRows();
    void nanAnywhereInARowLoses();
    void permutingTokensPermutesResult_data();
    void permutingTokensPermutesResult();
    void headsAreSeparateComputations_data();
    void headsAreSeparateComputations();
    void outputProjection();
    void biasesMatchTextbookFormula_data();
    void biasesMatchTextbookFormula();
    void zeroBiasesChangeNothing();
    void hugeScoresStayFinite_data();
    void hugeScoresStayFinite();
    void tinyTemperatureIsArgMax_data();
    void tinyTemperatureIsArgMax();
    void positionalEncoding_data();
    void positionalEncoding();
    void traceAccessorsAgree_data();
    void traceAccessorsAgree();
    void weightedValuesSumToOutputs();
    void invalidModelThrows_data();
    void invalidModelThrows();
    void traceKeepsTheModel();
};

void TestAttention::workedExample_data()
{
    QTest::addColumn<Step>("step");
    QTest::addColumn<Matrix>("expected");
    QTest::addColumn<double>("tolerance");

    QTest::addRow("x") << Step::X << mat({{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}) << 0.0;
    QTest::addRow("keys") << Step::Keys << mat({{0, 1, 1}, {4, 4, 0}, {2, 3, 1}}) << 0.0;
    QTest::addRow("queries") << Step::Queries << mat({{1, 0, 2}, {2, 2, 2}, {2, 1, 3}}) << 0.0;
    QTest::addRow("values") << Step::Values << mat({{1, 2, 3}, {2, 8, 0}, {2, 6, 3}}) << 0.0;
    QTest::addRow("scores") << Step::Scores << mat({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}) << 0.0;
    QTest::addRow("scaled_scores unscaled") << Step::ScaledScores << mat({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}) << 0.0;
    QTest::addRow("weights") << Step::Weights
                             << mat({{0.063379, 0.468311, 0.468311},
                                     {0.0000060337, 0.982008, 0.017986},
                                     {0.00029539, 0.880537, 0.119168}})
                             << 1e-6;
    QTest::addRow("outputs") << Step::Outputs
                             << mat({{1.9366, 6.6831, 1.5951}, {2.0000, 7.9640, 0.0540}, {1.9997, 7.7599, 0.3584}})
                             << 1e-4;
    QTest::addRow("concat is outputs") << Step::Concat
                                       << mat({{1.9366, 6.6831, 1.5951}, {2.0000, 7.9640, 0.0540}, {1.9997, 7.7599, 0.3584}})
                                       << 1e-4;
    QTest::addRow("output without W_O is concat")
        << Step::Output << mat({{1.9366, 6.6831, 1.5951}, {2.0000, 7.9640, 0.0540}, {1.9997, 7.7599, 0.3584}}) << 1e-4;
}

void TestAttention::workedExample()
{
    QFETCH(Step, step);
    QFETCH(Matrix, expected);
    QFETCH(double, tolerance);
    const Trace t = compute(illustratedModel());
    QCOMPARE(t.headCount(), 1);
    COMPARE_MATRIX(t.step(step, 0), expected, tolerance);
}

void TestAttention::workedExampleSmallWeights()
{
    // The published small weights carry five significant digits: check them relatively.
    const Trace t = compute(illustratedModel());
    const Matrix& w = t.heads[0].weights;
    QVERIFY2(std::fabs(w(1, 0) / 0.0000060337 - 1) < 1e-4, QByteArray::number(w(1, 0), 'g', 17).constData());
    QVERIFY2(std::fabs(w(2, 0) / 0.00029539 - 1) < 1e-4, QByteArray::number(w(2, 0), 'g', 17).constData());
    QCOMPARE(w(0, 1), w(0, 2));  // equal scores give equal weights
}

void TestAttention::scaledExample()
{
    const auto session = preset("illustrated-scaled");
    QVERIFY(session);
    QVERIFY(session->model.options.scale);
    const Trace t = compute(session->model);
    QCOMPARE(t.scoreFactor, 1.0 / std::sqrt(3.0));
    COMPARE_MATRIX(t.step(Step::ScaledScores), mat({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}) / std::sqrt(3.0), 1e-12);
    COMPARE_MATRIX(t.heads[0].outputs,
                   mat({{1.8639, 6.3194, 1.7042}, {1.9991, 7.8141, 0.2735}, {1.9926, 7.4796, 0.7359}}), 1e-4);
}

void TestAttention::rowsSumToOne_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("sinusoidal");
    QTest::addColumn<double>("temperature");

    for (int n : {1, 2, 5, 17})
        for (int h : {1, 2, 4})
            for (bool causal : {false, true})
                QTest::addRow("n=%d h=%d %s", n, h, causal ? "causal" : "open") << n << h << causal << (n % 2 == 1) << 1.0;
    QTest::addRow("hot temperature") << 6 << 2 << false << true << 100.0;
    QTest::addRow("cold temperature") << 6 << 2 << true << false << 0.01;
}

void TestAttention::rowsSumToOne()
{
    QFETCH(int, n);
    QFETCH(int, heads);
    QFETCH(bool, causal);
    QFETCH(bool, sinusoidal);
    QFETCH(double, temperature);
    std::mt19937_64 rng(std::uint64_t(n * 100 + heads));
    for (int round = 0; round < 20; ++round) {
        AttentionModel m = testutil::randomModel(rng, n, 6, heads, 3, 2);
        m.embeddings *= 3.0;
        m.options.mask = causal ? Mask::Causal : Mask::None;
        m.options.positionalEncoding = sinusoidal ? PositionalEncoding::Sinusoidal : PositionalEncoding::None;
        m.options.temperature = temperature;
        m.options.scale = round % 2 == 0;
        const Trace t = compute(m);
        QCOMPARE(t.headCount(), heads);
        for (const HeadTrace& ht : t.heads) {
            QVERIFY(ht.weights.allFinite());
            QVERIFY((ht.weights.array() >= 0).all());
            QVERIFY2(worstRowSum(ht.weights) < 1e-12, QByteArray::number(worstRowSum(ht.weights)).constData());
        }
    }
}

void TestAttention::causalMaskIsExactlyZero_data()
{
    QTest::addColumn<int>("n");
    for (int n : {1, 2, 3, 9, 40})
        QTest::addRow("n=%d", n) << n;
}

void TestAttention::causalMaskIsExactlyZero()
{
    QFETCH(int, n);
    std::mt19937_64 rng{std::uint64_t(n)};
    AttentionModel m = testutil::randomModel(rng, n, 5, 2, 3, 3);
    m.options.mask = Mask::Causal;
    const Trace t = compute(m);
    for (const HeadTrace& ht : t.heads) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                if (j > i)
                    QCOMPARE(ht.weights(i, j), 0.0);
                else
                    QVERIFY(ht.weights(i, j) > 0);
            }
        QCOMPARE(ht.weights(0, 0), 1.0);  // the first token sees only itself
        // the live part of each row is the softmax of the live scores alone
        COMPARE_MATRIX(ht.weights, naiveSoftmax(ht.scores * t.scoreFactor, true), 1e-12);
    }
}

void TestAttention::matchesTextbookFormula_data()
{
    QTest::addColumn<bool>("scale");
    QTest::addColumn<double>("temperature");
    QTest::addColumn<bool>("causal");
    QTest::addRow("plain") << false << 1.0 << false;
    QTest::addRow("scaled") << true << 1.0 << false;
    QTest::addRow("scaled, T=2.5, causal") << true << 2.5 << true;
    QTest::addRow("T=0.3") << false << 0.3 << false;
}

void TestAttention::matchesTextbookFormula()
{
    QFETCH(bool, scale);
    QFETCH(double, temperature);
    QFETCH(bool, causal);
    std::mt19937_64 rng(99);
    AttentionModel m = testutil::randomModel(rng, 7, 5, 1, 4, 3);
    m.options.scale = scale;
    m.options.temperature = temperature;
    m.options.mask = causal ? Mask::Causal : Mask::None;
    const Trace t = compute(m);
    const HeadTrace& ht = t.heads[0];

    const Matrix q = m.embeddings * m.wq, k = m.embeddings * m.wk, v = m.embeddings * m.wv;
    Matrix scores(7, 7);
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j)
            scores(i, j) = q.row(i).dot(k.row(j));
    const double factor = (scale ? 1.0 / 2.0 : 1.0) / temperature;  // d_k = 4
    QCOMPARE(t.scoreFactor, factor);
    const Matrix w = naiveSoftmax(scores * factor, causal);
    COMPARE_MATRIX(ht.queries, q, 1e-12);
    COMPARE_MATRIX(ht.keys, k, 1e-12);
    COMPARE_MATRIX(ht.values, v, 1e-12);
    COMPARE_MATRIX(ht.scores, scores, 1e-12);
    COMPARE_MATRIX(t.scaledScores(0), scores * factor, 1e-12);
    COMPARE_MATRIX(ht.weights, w, 1e-12);
    COMPARE_MATRIX(ht.outputs, w * v, 1e-12);
    COMPARE_MATRIX(t.concat, ht.outputs, 0.0);
    COMPARE_MATRIX(t.output, ht.outputs, 0.0);
}

void TestAttention::softmaxShiftInvariant_data()
{
    QTest::addColumn<double>("shift");
    QTest::addColumn<double>("tolerance");
    QTest::addRow("+1") << 1.0 << 1e-14;
    QTest::addRow("-50") << -50.0 << 1e-13;
    QTest::addRow("+700") << 700.0 << 1e-12;
    QTest::addRow("+1e5") << 1e5 << 1e-10;
    QTest::addRow("-1e5") << -1e5 << 1e-10;
}

void TestAttention::softmaxShiftInvariant()
{
    QFETCH(double, shift);
    QFETCH(double, tolerance);
    std::mt19937_64 rng(5);
    for (bool causal : {false, true}) {
        const Matrix s = testutil::randomMatrix(rng, 6, 6, -5, 5);
        Matrix a = s, b = s;
        b.row(2).array() += shift;
        b.row(5).array() += shift;
        softmaxRows(a, causal);
        softmaxRows(b, causal);
        QVERIFY(b.allFinite());
        COMPARE_MATRIX(b, a, tolerance);
    }
}

void TestAttention::softmaxExtremeRows_data()
{
    QTest::addColumn<Matrix>("input");
    QTest::addColumn<Matrix>("expected");
    const double inf = INFINITY, big = 1.7e308;
    QTest::addRow("huge equal") << mat({{big, big, big, big}}) << mat({{0.25, 0.25, 0.25, 0.25}});
    QTest::addRow("huge and tiny") << mat({{big, -big}}) << mat({{1, 0}});
    QTest::addRow("one +inf") << mat({{1, inf, 3}}) << mat({{0, 1, 0}});
    QTest::addRow("two +inf") << mat({{inf, 0, inf}}) << mat({{0.5, 0, 0.5}});
    QTest::addRow("all -inf") << mat({{-inf, -inf}}) << mat({{0.5, 0.5}});
    QTest::addRow("one -inf") << mat({{-inf, 0}}) << mat({{0, 1}});
    QTest::addRow("NaN loses") << mat({{NAN, 2}}) << mat({{0, 1}});
    QTest::addRow("single") << mat({{-1e300}}) << mat({{1}});
}

void TestAttention::softmaxExtremeRows()
{
    QFETCH(Matrix, input);
    QFETCH(Matrix, expected);
    Matrix m = input;
    softmaxRows(m, false);
    QVERIFY(m.allFinite());
    COMPARE_MATRIX(m, expected, 1e-15);
}

void TestAttention::nanAnywhereInARowLoses()
{
    // NaN counts as −∞ wherever it sits: in the lanes the softmax reads four at a time or in a row's tail
    // after them. Rows of 2 to 13 entries, a NaN at every position in turn (a row of nothing but NaN
    // spreads its weight evenly: softmaxExtremeRows).
    std::mt19937_64 rng(17);
    for (int n = 2; n <= 13; ++n) {
        const Matrix s = testutil::randomMatrix(rng, 1, n, -4, 4);
        for (int p = 0; p < n; ++p) {
            Matrix m = s;
            m(0, p) = NAN;
            softmaxRows(m, false);
            const QByteArray where = "n=" + QByteArray::number(n) + ", NaN at " + QByteArray::number(p);
            QVERIFY2(m.allFinite(), where.constData());
            QVERIFY2(m(0, p) == 0.0, where.constData());
            double sum = 0;
            for (int j = 0; j < n; ++j)
                sum += j == p ? 0.0 : std::exp(s(0, j));
            for (int j = 0; j < n; ++j)
                if (j != p)
                    QVERIFY2(std::abs(m(0, j) - std::exp(s(0, j)) / sum) <= 1e-15, where.constData());
        }
    }
}

void TestAttention::permutingTokensPermutesResult_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("withOutput");
    QTest::addRow("n=2") << 2 << 1 << false;
    QTest::addRow("n=5") << 5 << 1 << true;
    QTest::addRow("n=8, 2 heads") << 8 << 2 << true;
    QTest::addRow("n=13, 3 heads") << 13 << 3 << false;
}

void TestAttention::permutingTokensPermutesResult()
{
    QFETCH(int, n);
    QFETCH(int, heads);
    QFETCH(bool, withOutput);
    std::mt19937_64 rng(std::uint64_t(7 * n + heads));
    const AttentionModel m = testutil::randomModel(rng, n, 6, heads, 2, 3, withOutput ? 4 : 0);
    std::vector<int> p{};
    p.resize(std::size_t(n));
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    std::rotate(p.begin(), p.begin() + 1, p.end());  // never the identity for n ≥ 2

    AttentionModel pm = m;
    for (int i = 0; i < n; ++i)
        pm.tokens[std::size_t(i)] = m.tokens[std::size_t(p[std::size_t(i)])];
    pm.embeddings = permuteRows(m.embeddings, p);

    const Trace a = compute(m), b = compute(pm);
    const double tol = 1e-12;
    for (int h = 0; h < heads; ++h) {
        COMPARE_MATRIX(b.heads[std::size_t(h)].queries, permuteRows(a.heads[std::size_t(h)].queries, p), tol);
        COMPARE_MATRIX(b.heads[std::size_t(h)].keys, permuteRows(a.heads[std::size_t(h)].keys, p), tol);
        COMPARE_MATRIX(b.heads[std::size_t(h)].values, permuteRows(a.heads[std::size_t(h)].values, p), tol);
        COMPARE_MATRIX(b.heads[std::size_t(h)].scores, permuteBoth(a.heads[std::size_t(h)].scores, p), tol);
        COMPARE_MATRIX(b.heads[std::size_t(h)].weights, permuteBoth(a.heads[std::size_t(h)].weights, p), tol);
        COMPARE_MATRIX(b.heads[std::size_t(h)].outputs, permuteRows(a.heads[std::size_t(h)].outputs, p), tol);
    }
    COMPARE_MATRIX(b.output, permuteRows(a.output, p), tol);
}

void TestAttention::headsAreSeparateComputations_data()
{
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("dk");
    QTest::addColumn<int>("dv");
    QTest::addColumn<bool>("causal");
    QTest::addRow("1 head") << 1 << 3 << 2 << false;
    QTest::addRow("2 heads") << 2 << 3 << 2 << false;
    QTest::addRow("3 heads causal") << 3 << 2 << 4 << true;
    QTest::addRow("8 heads d_k 1") << 8 << 1 << 1 << false;
}

void TestAttention::headsAreSeparateComputations()
{
    QFETCH(int, heads);
    QFETCH(int, dk);
    QFETCH(int, dv);
    QFETCH(bool, causal);
    std::mt19937_64 rng(std::uint64_t(heads * 31 + dk));
    const int n = 6;
    AttentionModel m = testutil::randomModel(rng, n, 5, heads, dk, dv);
    m.options.mask = causal ? Mask::Causal : Mask::None;
    const Trace t = compute(m);
    QCOMPARE(t.headCount(), heads);
    QCOMPARE(t.concat.rows(), Eigen::Index(n));
    QCOMPARE(t.concat.cols(), Eigen::Index(heads * dv));
    COMPARE_MATRIX(t.output, t.concat, 0.0);
    for (int h = 0; h < heads; ++h) {
        AttentionModel single = m;
        single.options.heads = 1;
        single.wq = m.wq.middleCols(h * dk, dk);
        single.wk = m.wk.middleCols(h * dk, dk);
        single.wv = m.wv.middleCols(h * dv, dv);
        const Trace s = compute(single);
        const HeadTrace& a = t.heads[std::size_t(h)];
        const HeadTrace& b = s.heads[0];
        QCOMPARE(t.scoreFactor, s.scoreFactor);
        COMPARE_MATRIX(a.queries, b.queries, 1e-13);
        COMPARE_MATRIX(a.keys, b.keys, 1e-13);
        COMPARE_MATRIX(a.values, b.values, 1e-13);
        COMPARE_MATRIX(a.scores, b.scores, 1e-13);
        COMPARE_MATRIX(a.weights, b.weights, 1e-13);
        COMPARE_MATRIX(a.outputs, b.outputs, 1e-13);
        COMPARE_MATRIX(t.concat.middleCols(h * dv, dv), b.outputs, 1e-13);
    }
}

void TestAttention::outputProjection()
{
    std::mt19937_64 rng(3);
    const AttentionModel m = testutil::randomModel(rng, 5, 4, 2, 3, 3, 7);
    const Trace t = compute(m);
    QCOMPARE(t.output.rows(), Eigen::Index(5));
    QCOMPARE(t.output.cols(), Eigen::Index(7));
    Matrix expected = Matrix::Zero(5, 7);
    for (int i = 0; i < 5; ++i)
        for (int c = 0; c < 7; ++c)
            for (int k = 0; k < 6; ++k)
                expected(i, c) += t.concat(i, k) * (*m.wo)(k, c);
    COMPARE_MATRIX(t.output, expected, 1e-13);
    COMPARE_MATRIX(t.step(Step::WeightOutput), *m.wo, 0.0);
}

void TestAttention::biasesMatchTextbookFormula_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("dOut");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("positions");
    QTest::addRow("1 head, no W_O") << 6 << 1 << 0 << false << false;
    QTest::addRow("3 heads, W_O, causal") << 7 << 3 << 5 << true << false;
    QTest::addRow("2 heads, W_O, positions") << 5 << 2 << 3 << false << true;
    // Enough work for the threads and more than one block of query rows.
    QTest::addRow("300 tokens, 4 heads, W_O, causal") << 300 << 4 << 16 << true << true;
}

void TestAttention::biasesMatchTextbookFormula()
{
    QFETCH(int, n);
    QFETCH(int, heads);
    QFETCH(int, dOut);
    QFETCH(bool, causal);
    QFETCH(bool, positions);
    const int d = 48, dk = 4, dv = 3;
    std::mt19937_64 rng(41);
    AttentionModel m = testutil::randomModel(rng, n, d, heads, dk, dv, dOut);
    m.options.scale = true;
    m.options.mask = causal ? Mask::Causal : Mask::None;
    m.options.positionalEncoding = positions ? PositionalEncoding::Sinusoidal : PositionalEncoding::None;
    m.bq = testutil::randomMatrix(rng, 1, heads * dk, -2, 2);
    m.bk = testutil::randomMatrix(rng, 1, heads * dk, -2, 2);
    m.bv = testutil::randomMatrix(rng, 1, heads * dv, -2, 2);
    if (dOut > 0)
        m.bo = testutil::randomMatrix(rng, 1, dOut, -2, 2);
    const Trace t = compute(m);

    // Every step by its formula, entry by entry: Q = X·W_Q + b_Q (the head's columns of the bias), …,
    // output = concat·W_O + b_O.
    const Matrix x = positions ? Matrix(m.embeddings + sinusoidalEncoding(n, d)) : m.embeddings;
    auto projected = [&](const Matrix& w, const Matrix& b, int first, int width) {
        Matrix out(n, width);
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < width; ++c) {
                double sum = 0;
                for (int k = 0; k < d; ++k)
                    sum += x(i, k) * w(k, first + c);
                out(i, c) = sum + b(0, first + c);
            }
        return out;
    };
    Matrix concat(n, heads * dv);
    for (int h = 0; h < heads; ++h) {
        const Matrix q = projected(m.wq, *m.bq, h * dk, dk), k = projected(m.wk, *m.bk, h * dk, dk);
        const Matrix v = projected(m.wv, *m.bv, h * dv, dv);
        Matrix scores(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                scores(i, j) = q.row(i).dot(k.row(j));
        const Matrix w = naiveSoftmax(scores / 2.0, causal);  // √d_k = 2
        const Matrix z = w * v;
        const HeadTrace& ht = t.heads[std::size_t(h)];
        COMPARE_MATRIX(ht.queries, q, 1e-12);
        COMPARE_MATRIX(ht.keys, k, 1e-12);
        COMPARE_MATRIX(ht.values, v, 1e-12);
        COMPARE_MATRIX(ht.scores, scores, 1e-11);
        COMPARE_MATRIX(ht.weights, w, 1e-12);
        COMPARE_MATRIX(ht.outputs, z, 1e-12);
        concat.middleCols(h * dv, dv) = z;
    }
    COMPARE_MATRIX(t.concat, concat, 1e-12);
    Matrix output = concat;
    if (m.wo) {
        output.resize(n, dOut);
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < dOut; ++c) {
                double sum = 0;
                for (int k = 0; k < heads * dv; ++k)
                    sum += concat(i, k) * (*m.wo)(k, c);
                output(i, c) = sum + (*m.bo)(0, c);
            }
    }
    COMPARE_MATRIX(t.output, output, 1e-12);
    QVERIFY(*t.model == m);  // the trace keeps the biases it was computed with
}

void TestAttention::zeroBiasesChangeNothing()
{
    // Biases of zeros give the trace of the model without them, bit for bit.
    std::mt19937_64 rng(43);
    AttentionModel m = testutil::randomModel(rng, 9, 6, 2, 3, 2, 4);
    const Trace plain = compute(m);
    m.bq = Matrix::Zero(1, 6);
    m.bk = Matrix::Zero(1, 6);
    m.bv = Matrix::Zero(1, 4);
    m.bo = Matrix::Zero(1, 4);
    const Trace zero = compute(m);
    for (int h = 0; h < 2; ++h) {
        COMPARE_MATRIX(zero.heads[std::size_t(h)].queries, plain.heads[std::size_t(h)].queries, 0.0);
        COMPARE_MATRIX(zero.heads[std::size_t(h)].values, plain.heads[std::size_t(h)].values, 0.0);
        COMPARE_MATRIX(zero.heads[std::size_t(h)].weights, plain.heads[std::size_t(h)].weights, 0.0);
    }
    COMPARE_MATRIX(zero.output, plain.output, 0.0);
}

void TestAttention::hugeScoresStayFinite_data()
{
    QTest::addColumn<double>("magnitude");
    QTest::addColumn<bool>("scale");
    QTest::addColumn<bool>("causal");
    QTest::addRow("1e150") << 1e150 << false << false;
    QTest::addRow("1e150 scaled causal") << 1e150 << true << true;
    QTest::addRow("1e154 (scores overflow)") << 1e154 << false << false;
    QTest::addRow("1e200 (scores overflow)") << 1e200 << true << false;
    QTest::addRow("1e-200 (scores underflow)") << 1e-200 << false << false;
}

void TestAttention::hugeScoresStayFinite()
{
    QFETCH(double, magnitude);
    QFETCH(bool, scale);
    QFETCH(bool, causal);
    std::mt19937_64 rng(11);
    for (int round = 0; round < 10; ++round) {
        AttentionModel m = testutil::randomModel(rng, 6, 4, 1, 4, 2);
        m.embeddings *= magnitude;
        m.options.scale = scale;
        m.options.mask = causal ? Mask::Causal : Mask::None;
        const Trace t = compute(m);
        const Matrix& w = t.heads[0].weights;
        QVERIFY2(w.allFinite(), "weights not finite");
        QVERIFY((w.array() >= 0).all());
        QVERIFY2(worstRowSum(w) < 1e-12, QByteArray::number(worstRowSum(w)).constData());
    }
    // Identity weights and a row of equal huge embeddings: all scores 1e300 exactly ties.
    AttentionModel m;
    m.tokens = {"a", "b", "c"};
    m.embeddings = Matrix::Constant(3, 1, 1e150);
    m.wq = m.wk = m.wv = Matrix::Identity(1, 1);
    m.options.scale = scale;
    const Trace t = compute(m);
    QCOMPARE(t.heads[0].scores(0, 1), 1e300);
    COMPARE_MATRIX(t.heads[0].weights, Matrix::Constant(3, 3, 1.0 / 3.0), 1e-15);
}

void TestAttention::tinyTemperatureIsArgMax_data()
{
    QTest::addColumn<double>("temperature");
    QTest::addColumn<double>("scoreMagnitude");
    QTest::addColumn<bool>("scale");
    QTest::addRow("1e-300") << 1e-300 << 1.0 << false;
    QTest::addRow("1e-300 scaled") << 1e-300 << 1.0 << true;
    QTest::addRow("1e-300, scores near 1e10") << 1e-300 << 1e5 << false;
    QTest::addRow("1e-310 (subnormal)") << 1e-310 << 1.0 << false;
    QTest::addRow("smallest double") << 5e-324 << 1.0 << true;
}

void TestAttention::tinyTemperatureIsArgMax()
{
    QFETCH(double, temperature);
    QFETCH(double, scoreMagnitude);
    QFETCH(bool, scale);
    std::mt19937_64 rng(17);
    for (int round = 0; round < 10; ++round) {
        AttentionModel m = testutil::randomModel(rng, 7, 4, 1, 3, 2);
        m.embeddings *= scoreMagnitude;
        m.options.temperature = temperature;
        m.options.scale = scale;
        if (round == 0)
            m.embeddings.row(3).setZero();  // a row of zero scores: 0 · s / T must not give NaN
        const Trace t = compute(m);
        const HeadTrace& ht = t.heads[0];
        QVERIFY(ht.weights.allFinite());
        QVERIFY2(!t.scaledScores(0).hasNaN(), "a scaled score is NaN");
        if (round == 0)
            QCOMPARE(t.value(Step::ScaledScores, 0, 3, 0), 0.0);
        for (int i = 0; i < 7; ++i) {
            Eigen::Index best = 0;
            const double top = ht.scores.row(i).maxCoeff(&best);
            const int ties = int((ht.scores.row(i).array() == top).count());
            RowVector expected = RowVector::Zero(7);
            for (int j = 0; j < 7; ++j)
                if (ht.scores(i, j) == top)
                    expected(j) = 1.0 / ties;
            const QByteArray diff = testutil::matrixDifference(ht.weights.row(i), expected, 0.0);
            QVERIFY2(diff.isEmpty(), (QByteArray("row ") + QByteArray::number(i) + ": " + diff).constData());
        }
    }
}

void TestAttention::positionalEncoding_data()
{
    QTest::addColumn<int>("pos");
    QTest::addColumn<int>("col");
    QTest::addColumn<double>("pe");
    // d_model = 5; values from sin/cos of pos / 10000^(2i/5)
    QTest::addRow("pos 0 sin") << 0 << 0 << 0.0;
    QTest::addRow("pos 0 cos") << 0 << 1 << 1.0;
    QTest::addRow("pos 0 last") << 0 << 4 << 0.0;
    QTest::addRow("pos 1 sin(1)") << 1 << 0 << 0.8414709848078965;
    QTest::addRow("pos 1 cos(1)") << 1 << 1 << 0.5403023058681398;
    QTest::addRow("pos 1 col 2") << 1 << 2 << 0.025116222909773774;
    QTest::addRow("pos 2 cos(2)") << 2 << 1 << -0.4161468365471424;
    QTest::addRow("pos 2 col 3") << 2 << 3 << 0.9987383506934931;
    QTest::addRow("pos 3 col 4") << 3 << 4 << 0.0018928709030918876;
}

void TestAttention::positionalEncoding()
{
    QFETCH(int, pos);
    QFETCH(int, col);
    QFETCH(double, pe);
    std::mt19937_64 rng(23);
    AttentionModel m = testutil::randomModel(rng, 4, 5, 1, 2, 2);
    m.options.positionalEncoding = PositionalEncoding::Sinusoidal;
    const Trace t = compute(m);
    QVERIFY(std::fabs(t.x()(pos, col) - (m.embeddings(pos, col) + pe)) < 1e-14);
    QVERIFY(std::fabs(sinusoidalEncoding(4, 5)(pos, col) - pe) < 1e-15);
    QVERIFY(std::fabs(m.x()(pos, col) - (m.embeddings(pos, col) + pe)) < 1e-14);
    COMPARE_MATRIX(t.heads[0].queries, t.x() * m.wq, 1e-13);

    m.options.positionalEncoding = PositionalEncoding::None;
    COMPARE_MATRIX(compute(m).x(), m.embeddings, 0.0);
}

void TestAttention::traceAccessorsAgree_data()
{
    QTest::addColumn<bool>("withOutput");
    QTest::addRow("without W_O") << false;
    QTest::addRow("with W_O") << true;
}

void TestAttention::traceAccessorsAgree()
{
    QFETCH(bool, withOutput);
    std::mt19937_64 rng(29);
    AttentionModel m = testutil::randomModel(rng, 5, 4, 2, 3, 2, withOutput ? 3 : 0);
    m.options.temperature = 0.7;
    const Trace t = compute(m);
    std::vector<Step> steps = computedSteps();
    QCOMPARE(int(steps.size()), 10);
    for (Step s : {Step::WeightQuery, Step::WeightKey, Step::WeightValue, Step::WeightOutput})
        steps.push_back(s);
    for (Step s : steps) {
        QCOMPARE(stepFromKey(stepKey(s)), std::optional<Step>(s));
        for (int h = 0; h < t.headCount(); ++h) {
            const Matrix full = t.step(s, h);
            const auto [rows, cols] = t.stepShape(s, h);
            QCOMPARE(rows, int(full.rows()));
            QCOMPARE(cols, int(full.cols()));
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c)
                    QCOMPARE(t.value(s, h, r, c), full(r, c));
            if (!isPerHead(s) && (s != Step::WeightOutput || withOutput)) {
                QVERIFY(t.inputMatrix(s));
                COMPARE_MATRIX(*t.inputMatrix(s), full, 0.0);
            }
        }
    }
    const HeadTrace& h1 = t.heads[1];
    COMPARE_MATRIX(t.step(Step::Queries, 1), h1.queries, 0.0);
    COMPARE_MATRIX(t.step(Step::ScaledScores, 1), h1.scores * (1.0 / std::sqrt(3.0) / 0.7), 1e-13);
    COMPARE_MATRIX(t.step(Step::WeightQuery), m.wq, 0.0);
    QCOMPARE(t.stepShape(Step::WeightOutput), withOutput ? std::pair(4, 3) : std::pair(0, 0));
    QCOMPARE(t.stepShape(Step::Output), std::pair(5, withOutput ? 3 : 4));
}

void TestAttention::weightedValuesSumToOutputs()
{
    std::mt19937_64 rng(31);
    AttentionModel m = testutil::randomModel(rng, 6, 4, 2, 2, 3);
    m.options.mask = Mask::Causal;
    const Trace t = compute(m);
    for (int h = 0; h < 2; ++h)
        for (int q = 0; q < 6; ++q) {
            const Matrix wv = t.weightedValues(h, q);
            QCOMPARE(wv.rows(), Eigen::Index(6));
            QCOMPARE(wv.cols(), Eigen::Index(3));
            for (int j = 0; j < 6; ++j)
                COMPARE_MATRIX(wv.row(j), t.heads[std::size_t(h)].weights(q, j) * t.heads[std::size_t(h)].values.row(j),
                               1e-15);
            COMPARE_MATRIX(wv.colwise().sum(), t.heads[std::size_t(h)].outputs.row(q), 1e-13);
        }
}

void TestAttention::invalidModelThrows_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("fragment");
    QTest::addRow("no tokens") << 0 << QStringLiteral("tokens");
    QTest::addRow("weights.key rows") << 1 << QStringLiteral("weights.key: expected 4 rows (d_model), got 3");
    QTest::addRow("heads do not divide") << 2 << QStringLiteral("heads");
    QTest::addRow("temperature 0") << 3 << QStringLiteral("options.temperature");
    QTest::addRow("NaN embedding") << 4 << QStringLiteral("embeddings");
    QTest::addRow("embeddings rows") << 5 << QStringLiteral("embeddings");
    QTest::addRow("query bias columns") << 6 << QStringLiteral("weights.query_bias: expected 3 columns (h·d_k), got 2");
    QTest::addRow("output bias without W_O") << 7 << QStringLiteral("weights.output_bias: given without weights.output");
    QTest::addRow("NaN key bias") << 8 << QStringLiteral("weights.key_bias[0][1]: expected a finite number");
    QTest::addRow("value bias of 2 rows") << 9 << QStringLiteral("weights.value_bias: expected 1 row");
    QTest::addRow("output bias columns") << 10 << QStringLiteral("weights.output_bias: expected 3 columns (d_out), got 4");
    // compute() checks the numbers while it copies them into the trace: every matrix is checked there
    QTest::addRow("infinite W_O") << 11 << QStringLiteral("weights.output[1][2]: expected a finite number");
    QTest::addRow("NaN W_V") << 12 << QStringLiteral("weights.value[3][0]: expected a finite number");
    QTest::addRow("NaN output bias") << 13 << QStringLiteral("weights.output_bias[0][2]: expected a finite number");
    QTest::addRow("NaN embedding, positions on") << 14 << QStringLiteral("embeddings[0][1]: expected a finite number");
}

void TestAttention::invalidModelThrows()
{
    QFETCH(int, kind);
    QFETCH(QString, fragment);
    AttentionModel m = illustratedModel();
    switch (kind) {
    case 0: m.tokens.clear(); break;
    case 1: m.wk = m.wk.topRows(3).eval(); break;
    case 2: m.options.heads = 2; break;
    case 3: m.options.temperature = 0; break;
    case 4: m.embeddings(1, 2) = NAN; break;
    case 5: m.tokens.push_back("extra"); break;
    case 6: m.bq = Matrix::Zero(1, 2); break;
    case 7: m.bo = Matrix::Zero(1, 3); break;
    case 8: m.bk = mat({{0, NAN, 0}}); break;
    case 9: m.bv = Matrix::Zero(2, 3); break;
    case 10: m.wo = Matrix::Identity(3, 3), m.bo = Matrix::Zero(1, 4); break;
    case 11: m.wo = Matrix::Identity(3, 3), (*m.wo)(1, 2) = -INFINITY; break;
    case 12: m.wv(3, 0) = NAN; break;
    case 13: m.wo = Matrix::Identity(3, 3), m.bo = mat({{0, 1, NAN}}); break;
    case 14:
        m.embeddings(0, 1) = INFINITY;
        m.options.positionalEncoding = PositionalEncoding::Sinusoidal;
        break;
    }
    const auto expected = validate(m);
    QVERIFY(expected);
    QVERIFY2(QString::fromStdString(*expected).contains(fragment), expected->c_str());
    try {
        compute(m);
        QFAIL("compute() accepted an invalid model");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString::fromUtf8(e.what()), QString::fromStdString(*expected));
    }
}

void TestAttention::traceKeepsTheModel()
{
    // The trace holds the model it was computed from, every member, also when it takes over the storage of a
    // spent trace of another model (other shapes, biases, W_O and origin there or not).
    std::mt19937_64 rng(41);
    AttentionModel m = testutil::randomModel(rng, 9, 6, 2, 3, 2, 5);
    m.bq = testutil::randomMatrix(rng, 1, 6);
    m.bo = testutil::randomMatrix(rng, 1, 5);
    m.origin = AttentionModel::Origin{"gpt2", 3, 12};
    AttentionModel other = testutil::randomModel(rng, 4, 8, 1, 4, 4);
    other.bk = testutil::randomMatrix(rng, 1, 4);
    other.bv = testutil::randomMatrix(rng, 1, 4);
    for (const AttentionModel* spentOf : {&other, &m}) {
        Trace spent = compute(*spentOf);
        Trace t = compute(m, nullptr, &spent);
        QVERIFY(*t.model == m);
        QVERIFY(t.model->origin && t.model->origin->model == "gpt2" && t.model->origin->layer == 3
                && t.model->origin->layers == 12);
        const Trace back = compute(other, nullptr, &t);
        QVERIFY(*back.model == other);
        QVERIFY(!back.model->origin && !back.model->bq && !back.model->wo);
    }
}

QTEST_APPLESS_MAIN(TestAttention)
#include "tst_attention.moc"
