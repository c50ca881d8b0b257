/** Extreme finite inputs through the engine (issue 6, part 5).
 *
 *  What the engine promises, and what these tests hold it to:
 *  - Weights are always finite, in [0, 1], masked entries exactly 0, every row summing to 1,
 *    whatever finite numbers the model holds.
 *  - Every other step is finite wherever its value is mathematically finite with room to spare:
 *    a product A·B where Σ_t |a_t·b_t| ≤ DBL_MAX / 2, a scaled score where |score| · s / T ≤ DBL_MAX / 2,
 *    an output where every value row with a weight above 0 is finite and ≤ DBL_MAX / 2. There it agrees
 *    with the same step computed in long double.
 *  - Where a step overflows double range (scores = q·k for entries of 1e300, say), it shows ±inf, or
 *    NaN where two overflows cancel (∞ − ∞); the weights then take the softmax's limit: a row's weight
 *    is shared evenly by its +inf scores, NaN scores count as −∞, and a row of nothing but −∞ and NaN
 *    is spread evenly. A weight of exactly 0 (masked or underflowed) adds nothing to an output, even
 *    when its value row overflowed: 0 · ∞ is not allowed to turn an output into NaN.
 *  - As the temperature goes to 0 the weights go to the arg-max (ties share it) without NaN, down to
 *    the smallest subnormal temperature. The softmax multiplies by s / T as one double (Trace::scoreFactor);
 *    when that overflows (T subnormal) the weights are the arg-max exactly. */

#include "core/attention/attention.h"
#include "testutil.h"

#include <QTest>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

using namespace core;
using testutil::mat;

namespace {

using Real = long double;
constexpr Real roomy = Real(DBL_MAX) / 2;

QByteArray num(Real v)
{
    return QByteArray::number(double(v), 'g', 17);
}

/** Checks actual = a·b (+ the columns [first, first + actual.cols()) of bias, when given) cell by cell where
 *  that cannot overflow; returns a message for the first disagreement, else nothing. */
QByteArray checkProduct(const char* what, const Matrix& actual, const Matrix& a, const Matrix& b,
                        const std::optional<Matrix>& bias = std::nullopt, Eigen::Index first = 0)
{
    if (actual.rows() != a.rows() || actual.cols() != b.cols())
        return QByteArray(what) + ": wrong shape";
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < b.cols(); ++j) {
            Real sum = 0, magnitude = 0;
            for (Eigen::Index t = 0; t < a.cols(); ++t) {
                const Real term = Real(a(i, t)) * Real(b(t, j));
                sum += term;
                magnitude += std::fabs(term);
            }
            if (bias) {
                sum += Real((*bias)(0, first + j));
                magnitude += std::fabs(Real((*bias)(0, first + j)));
            }
            if (!(magnitude <= roomy))
                continue;  // beyond double range (or built from an entry that already is)
            const double v = actual(i, j);
            const Real tolerance = 1e-13L * magnitude + Real(a.cols()) * std::numeric_limits<double>::denorm_min();
            if (!std::isfinite(v) || std::fabs(Real(v) - sum) > tolerance)
                return QByteArray(what) + "(" + QByteArray::number(qlonglong(i)) + "," + QByteArray::number(qlonglong(j))
                    + ") = " + num(v) + ", expected " + num(sum);
        }
    return {};
}

/** Every promise of the file comment, for one trace; returns the first broken one, else nothing. */
QByteArray checkTrace(const Trace& t)
{
    const AttentionModel& m = *t.model;
    const int dk = m.dK(), dv = m.dV();
    const bool causal = m.options.mask == Mask::Causal;
    const Real s = m.options.scale ? 1 / std::sqrt(Real(dk)) : 1;
    for (int h = 0; h < t.headCount(); ++h) {
        const HeadTrace& ht = t.heads[std::size_t(h)];
        const QByteArray head = "head " + QByteArray::number(h) + " ";
        QByteArray e;
        if (!(e = checkProduct("queries", ht.queries, t.x(), m.wq.middleCols(h * dk, dk), m.bq, h * dk)).isEmpty()
            || !(e = checkProduct("keys", ht.keys, t.x(), m.wk.middleCols(h * dk, dk), m.bk, h * dk)).isEmpty()
            || !(e = checkProduct("values", ht.values, t.x(), m.wv.middleCols(h * dv, dv), m.bv, h * dv)).isEmpty()
            || !(e = checkProduct("scores", ht.scores, ht.queries, ht.keys.transpose())).isEmpty())
            return head + e;

        const Matrix scaled = t.step(Step::ScaledScores, h);
        const Matrix& w = ht.weights;
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            const QByteArray row = head + "row " + QByteArray::number(qlonglong(i)) + ": ";
            const Eigen::Index live = causal ? i + 1 : w.cols();
            // scaled scores: finite wherever score · s / T is
            for (Eigen::Index j = 0; j < w.cols(); ++j) {
                const Real expected = Real(ht.scores(i, j)) * s / Real(m.options.temperature);
                // the result may be subnormal, and score · s may round to a subnormal before the division
                // by a subnormal T: allow one subnormal step of each
                const Real step = std::numeric_limits<double>::denorm_min();
                const Real tolerance = 1e-14L * std::fabs(expected) + step + step / Real(m.options.temperature);
                if (std::fabs(expected) <= roomy && !(std::fabs(Real(scaled(i, j)) - expected) <= tolerance))
                    return row + "scaled score " + num(scaled(i, j)) + ", expected " + num(expected);
            }
            // weights: finite, in [0, 1], masked exactly 0, summing to 1
            Real sum = 0;
            for (Eigen::Index j = 0; j < w.cols(); ++j) {
                if (!(w(i, j) >= 0 && w(i, j) <= 1))
                    return row + "weight " + num(w(i, j));
                if (j >= live && w(i, j) != 0)
                    return row + "masked weight " + num(w(i, j));
                sum += w(i, j);
            }
            if (std::fabs(sum - 1) > 1e-12L)
                return row + "weights sum to " + num(sum);
            // weights: the softmax (of the scores in long double), or its limit when scores overflowed
            Real max = -std::numeric_limits<Real>::infinity();
            for (Eigen::Index j = 0; j < live; ++j)
                if (ht.scores(i, j) > max)
                    max = ht.scores(i, j);
            Real total = 0;
            std::vector<Real> expected(std::size_t(live), 0);
            for (Eigen::Index j = 0; j < live; ++j) {
                const double v = ht.scores(i, j);
                Real e = 0;
                if (std::isinf(max))
                    e = max > 0 ? Real(v == max) : 1;  // +inf scores share; all −∞ / NaN: even
                else if (v == max)
                    e = 1;
                else if (!std::isnan(v))
                    e = std::exp((Real(v) - max) * Real(t.scoreFactor));  // +inf for a subnormal T: the arg-max
                expected[std::size_t(j)] = e;
                total += e;
            }
            for (Eigen::Index j = 0; j < live; ++j)
                if (std::fabs(Real(w(i, j)) - expected[std::size_t(j)] / total) > 1e-12L)
                    return row + "weight " + QByteArray::number(qlonglong(j)) + " = " + num(w(i, j)) + ", expected "
                        + num(expected[std::size_t(j)] / total);
            // outputs: finite where every value row with a weight above 0 is
            for (Eigen::Index c = 0; c < dv; ++c) {
                Real out = 0, magnitude = 0;
                bool finite = true;
                for (Eigen::Index j = 0; j < w.cols(); ++j) {
                    if (w(i, j) == 0)
                        continue;
                    finite = finite && std::fabs(ht.values(j, c)) <= DBL_MAX / 2;
                    out += Real(w(i, j)) * Real(ht.values(j, c));
                    magnitude += std::fabs(Real(w(i, j)) * Real(ht.values(j, c)));
                }
                const double v = ht.outputs(i, c);
                if (finite && !(std::isfinite(v) && std::fabs(Real(v) - out) <= 1e-13L * magnitude + 1e-300L))
                    return row + "output " + QByteArray::number(qlonglong(c)) + " = " + num(v) + ", expected " + num(out);
            }
        }
        if (t.concat.middleCols(h * dv, dv) != ht.outputs && ht.outputs.allFinite())
            return head + "concat is not the outputs";
    }
    if (m.wo)
        return checkProduct("output", t.output, t.concat, *m.wo, m.bo);
    return {};
}

/** n × cols entries of magnitude · [0.5, 1) with random signs. */
Matrix scaledRandom(std::mt19937_64& rng, int rows, int cols, double magnitude)
{
    std::uniform_real_distribution<double> size(0.5, 1.0);
    std::bernoulli_distribution negative(0.5);
    Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = (negative(rng) ? -1 : 1) * size(rng) * magnitude;
    return m;
}

AttentionModel model(const Matrix& x, const Matrix& wq, const Matrix& wk, const Matrix& wv, int heads = 1)
{
    AttentionModel m;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        m.tokens.push_back("t" + std::to_string(i));
    m.embeddings = x;
    m.wq = wq;
    m.wk = wk;
    m.wv = wv;
    m.options.heads = heads;
    return m;
}

bool allFinite(const Trace& t)
{
    for (Step s : computedSteps())
        for (int h = 0; h < (isPerHead(s) ? t.headCount() : 1); ++h)
            if (!t.step(s, h).allFinite())
                return false;
    return true;
}

}  // namespace

class TestNumerics : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void extremeButRepresentable_data();
    void extremeButRepresentable();
    void sweep_data();
    void sweep();
    void temperatureToZero_data();
    void temperatureToZero();
    void overflowingScores_data();
    void overflowingScores();
    void zeroWeightOfOverflowedValue();
};

void TestNumerics::initTestCase()
{
    if (std::numeric_limits<Real>::max_exponent <= std::numeric_limits<double>::max_exponent)
        QSKIP("the reference needs a long double wider than double");
}

void TestNumerics::extremeButRepresentable_data()
{
    QTest::addColumn<Matrix>("x");
    QTest::addColumn<Matrix>("w");  // used for W_Q, W_K and W_V

    const double big = 1e300, tiny = 1e-300, sub = std::numeric_limits<double>::denorm_min();
    QTest::addRow("±1e300 inputs, 1e-160 weights")
        << mat({{big, -big, big}, {-big, big, big}, {big, big, -big}})
        << mat({{1e-160, -2e-160}, {3e-160, 1e-160}, {-1e-160, 2e-160}});
    QTest::addRow("1e-300 inputs, unit weights")
        << mat({{tiny, -tiny, 2 * tiny}, {-tiny, 0, tiny}, {3 * tiny, tiny, -tiny}}) << mat({{1, -1}, {2, 0.5}, {-1, 1}});
    QTest::addRow("subnormal inputs, 1e300 weights")
        << mat({{sub, -sub, 1e-310}, {2.2e-308, sub, -1e-315}, {-sub, 1e-320, sub}})
        << mat({{1e300, -1e300}, {5e299, 1e300}, {-1e300, 2e299}});
    QTest::addRow("mixed magnitudes in one row")
        << mat({{big, tiny, -sub}, {-1, big * 1e-8, 1}, {0, -big, tiny}})
        << mat({{1e-155, 1e-160}, {-1e-155, 0}, {1e-160, -1e-300}});
    QTest::addRow("the largest doubles, small weights")
        << mat({{DBL_MAX, -DBL_MAX, DBL_MAX / 2}, {-DBL_MAX, DBL_MAX, 0}, {DBL_MAX / 3, 1, -DBL_MAX}})
        << mat({{1e-170, 0}, {0, 1e-170}, {1e-171, -1e-171}});
}

void TestNumerics::extremeButRepresentable()
{
    QFETCH(Matrix, x);
    QFETCH(Matrix, w);
    for (bool causal : {false, true})
        for (bool scale : {false, true})
            for (double temperature : {1.0, 0.25, 4.0}) {
                AttentionModel m = model(x, w, w, w);
                m.options.mask = causal ? Mask::Causal : Mask::None;
                m.options.scale = scale;
                m.options.temperature = temperature;
                const Trace t = compute(m);
                const QByteArray where = QByteArray(causal ? "causal" : "no mask") + (scale ? ", scaled" : "")
                    + ", T = " + QByteArray::number(temperature) + ": ";
                QVERIFY2(allFinite(t), (where + "a step holds NaN or inf").constData());
                const QByteArray broken = checkTrace(t);
                QVERIFY2(broken.isEmpty(), (where + broken).constData());
            }
}

void TestNumerics::sweep_data()
{
    QTest::addColumn<double>("xMagnitude");
    QTest::addColumn<double>("wMagnitude");
    const double magnitudes[] = {std::numeric_limits<double>::denorm_min(), 1e-310, 1e-300, 1e-150, 1, 1e150, 1e300, DBL_MAX};
    for (double xm : magnitudes)
        for (double wm : magnitudes)
            QTest::addRow("x %g, w %g", xm, wm) << xm << wm;
}

void TestNumerics::sweep()
{
    QFETCH(double, xMagnitude);
    QFETCH(double, wMagnitude);
    std::mt19937_64 rng(std::uint64_t(std::ilogb(xMagnitude) * 4099 + std::ilogb(wMagnitude)));
    for (int round = 0; round < 3; ++round) {
        const int heads = 1 + round % 2, n = 2 + round, d = 3, dk = 2, dv = 2;
        AttentionModel m = model(scaledRandom(rng, n, d, xMagnitude), scaledRandom(rng, d, heads * dk, wMagnitude),
                                 scaledRandom(rng, d, heads * dk, wMagnitude), scaledRandom(rng, d, heads * dv, wMagnitude),
                                 heads);
        if (round == 2)
            m.wo = scaledRandom(rng, heads * dv, 2, wMagnitude);
        if (round >= 1) {  // biases of the weights' magnitude: Q = X·W_Q + b_Q, …, output = concat·W_O + b_O
            m.bq = scaledRandom(rng, 1, heads * dk, wMagnitude);
            m.bk = scaledRandom(rng, 1, heads * dk, wMagnitude);
            m.bv = scaledRandom(rng, 1, heads * dv, wMagnitude);
            if (m.wo)
                m.bo = scaledRandom(rng, 1, 2, wMagnitude);
        }
        for (int variant = 0; variant < 8; ++variant) {
            m.options.mask = variant & 1 ? Mask::Causal : Mask::None;
            m.options.positionalEncoding = variant & 2 ? PositionalEncoding::Sinusoidal : PositionalEncoding::None;
            m.options.scale = variant & 4;
            for (double temperature : {1.0, 1e-300, std::numeric_limits<double>::denorm_min(), 1e300}) {
                m.options.temperature = temperature;
                const Trace t = compute(m);
                const QByteArray broken = checkTrace(t);
                QVERIFY2(broken.isEmpty(), ("round " + QByteArray::number(round) + ", variant " + QByteArray::number(variant)
                                            + ", T = " + QByteArray::number(temperature) + ": " + broken).constData());
            }
        }
    }
}

void TestNumerics::temperatureToZero_data()
{
    QTest::addColumn<double>("temperature");
    QTest::addRow("1e-1") << 1e-1;
    QTest::addRow("1e-3") << 1e-3;
    QTest::addRow("1e-10") << 1e-10;
    QTest::addRow("1e-100") << 1e-100;
    QTest::addRow("1e-300") << 1e-300;
    QTest::addRow("smallest normal") << DBL_MIN;
    QTest::addRow("smallest subnormal") << std::numeric_limits<double>::denorm_min();
}

void TestNumerics::temperatureToZero()
{
    QFETCH(double, temperature);
    // One dimension, q = k = v = e with e = [0, 3, 1, 3]: scores(i, j) = e_i · e_j. Row 0 is all 0;
    // every other row has its maximum tied at j = 1 and j = 3, whose value is 3.
    AttentionModel m = model(mat({{0}, {3}, {1}, {3}}), mat({{1}}), mat({{1}}), mat({{1}}));
    m.options.scale = false;
    m.options.temperature = temperature;
    const Trace t = compute(m);
    const Matrix& w = t.heads[0].weights;
    const QByteArray broken = checkTrace(t);
    QVERIFY2(broken.isEmpty(), broken.constData());
    QVERIFY(w.allFinite());

    AttentionModel warmer = m;
    warmer.options.temperature = temperature * 10;
    const Trace tw = compute(warmer);
    for (int i = 1; i < 4; ++i) {
        QCOMPARE(w(i, 1), w(i, 3));                        // the tie keeps equal weights
        QVERIFY(w(i, 1) >= tw.heads[0].weights(i, 1));     // and gains as T falls
    }
    COMPARE_MATRIX(w.row(0), mat({{0.25, 0.25, 0.25, 0.25}}), 1e-15);  // nothing to prefer
    if (temperature <= 1e-10) {
        // the arg-max, shared by the tie
        for (int i = 1; i < 4; ++i)
            COMPARE_MATRIX(w.row(i), mat({{0, 0.5, 0, 0.5}}), 0.0);
        for (int i = 1; i < 4; ++i)
            QCOMPARE(t.heads[0].outputs(i, 0), 3.0);
        // scaled scores: 0 stays 0, the rest grow to ±inf, none is NaN
        const Matrix scaled = t.step(Step::ScaledScores);
        QCOMPARE(scaled(0, 0), 0.0);
        QVERIFY(!scaled.hasNaN());
    }
}

void TestNumerics::overflowingScores_data()
{
    QTest::addColumn<Matrix>("x");
    QTest::addColumn<Matrix>("wq");
    QTest::addColumn<Matrix>("wk");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<Matrix>("expectedWeights");

    const double big = 1e300, third = 1.0 / 3;
    const Matrix identity = mat({{1, 0}, {0, 1}});
    // q = k = x: 1e300 · 1e300 overflows to +inf
    QTest::addRow("+inf scores share the row")
        << mat({{big, 0}, {big, 0}, {0, 1e10}}) << identity << identity << false
        << mat({{0.5, 0.5, 0}, {0.5, 0.5, 0}, {0, 0, 1}});
    QTest::addRow("+inf beats a large finite score")
        << mat({{big, 1e-10}, {big, 0}, {1e-5, 1e10}}) << identity << identity << false
        << mat({{0.5, 0.5, 0}, {0.5, 0.5, 0}, {0.5, 0.5, 0}});
    QTest::addRow("-inf scores get nothing")
        << mat({{big, 0}, {-big, 0}, {0, 1e10}}) << identity << identity << false
        << mat({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
    // q_0 = [∞, ∞ − ∞] = [∞, NaN]: row 0 is all NaN (spread evenly); q_1 · k_0 = ∞ − ∞ is NaN (counts as −∞)
    QTest::addRow("NaN scores count as -inf")
        << mat({{big, big}, {0, 1}, {1, 0}}) << mat({{big, big}, {big, -big}}) << identity << false
        << mat({{third, third, third}, {0, 0, 1}, {1, 0, 0}});
    // k = [−x_0, x_1]: score(0, 0) = −∞ is all token 0 may see
    QTest::addRow("all -inf under the mask")
        << mat({{-big, 0}, {big, 0}, {0, 1e10}}) << identity << mat({{-1, 0}, {0, 1}}) << true
        << mat({{1, 0, 0}, {1, 0, 0}, {0, 0, 1}});
}

void TestNumerics::overflowingScores()
{
    QFETCH(Matrix, x);
    QFETCH(Matrix, wq);
    QFETCH(Matrix, wk);
    QFETCH(bool, causal);
    QFETCH(Matrix, expectedWeights);
    AttentionModel m = model(x, wq, wk, mat({{1, 0}, {0, 1}}));
    m.options.scale = false;
    m.options.mask = causal ? Mask::Causal : Mask::None;
    const Trace t = compute(m);
    QVERIFY2(!t.heads[0].scores.allFinite(), "the case should overflow the scores");
    const QByteArray broken = checkTrace(t);
    QVERIFY2(broken.isEmpty(), broken.constData());
    QVERIFY(t.heads[0].weights.allFinite());
    if (expectedWeights.size())
        COMPARE_MATRIX(t.heads[0].weights, expectedWeights, 1e-15);
}

void TestNumerics::zeroWeightOfOverflowedValue()
{
    // Token 1's value overflows to +inf (1e300 · 1e300). Under the causal mask token 0 cannot see it, and
    // token 2's score for it underflows to a weight of exactly 0: their outputs stay finite.
    const double big = 1e300;
    // q = [x_0, 0], k = [x_0 − 1e-297 · x_1, 0], v = [2 · x_0 + 1e300 · x_1, x_1]
    AttentionModel m = model(mat({{1, 0}, {0, big}, {2, 0}}), mat({{1, 0}, {0, 0}}), mat({{1, 0}, {-1e-297, 0}}),
                             mat({{2, 0}, {big, 1}}));
    m.options.mask = Mask::Causal;
    m.options.scale = false;
    const Trace t = compute(m);
    const HeadTrace& h = t.heads[0];
    QVERIFY(std::isinf(h.values(1, 0)));
    QCOMPARE(h.weights(0, 1), 0.0);  // masked
    QCOMPARE(h.weights(2, 1), 0.0);  // exp(−1000) underflows
    COMPARE_MATRIX(h.outputs.row(0), mat({{2, 0}}), 0.0);
    COMPARE_MATRIX(h.outputs.row(2), mat({{h.weights(2, 0) * 2 + h.weights(2, 2) * 4, 0}}), 1e-15);
    QVERIFY(std::isinf(h.outputs(1, 0)));  // token 1 does see its own overflowed value
    const QByteArray broken = checkTrace(t);
    QVERIFY2(broken.isEmpty(), broken.constData());
}

QTEST_GUILESS_MAIN(TestNumerics)
#include "tst_numerics.moc"
