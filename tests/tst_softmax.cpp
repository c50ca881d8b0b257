/** The one row softmax (core/softmax.h) against an independent definition on hostile rows. */

#include "core/tensor/softmax.h"
#include "testutil.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace core;

Q_DECLARE_METATYPE(std::vector<double>)

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double big = 1.7e308;

/** The softmax by its definition, without the row maximum: p_j = 1 / Σ_k exp((x_k − x_j) · f) in long double
 *  (whose range holds the differences of any two doubles), over the first limit entries, 0 after them. At
 *  infinity its limit: all weight on the +∞ entries, evenly; NaN counts as −∞; a row of nothing but −∞ and
 *  NaN spreads its weight evenly. */
std::vector<double> definition(const std::vector<double>& x, std::size_t limit, double factor)
{
    std::vector<double> p(x.size(), 0.0);
    std::vector<long double> live;  // the entries that are not −∞ or NaN
    std::size_t top = 0;
    for (std::size_t j = 0; j < limit; ++j) {
        top += x[j] == inf;
        if (!std::isnan(x[j]) && x[j] != -inf)
            live.push_back(x[j]);
    }
    for (std::size_t j = 0; j < limit; ++j) {
        if (top > 0) {
            p[j] = x[j] == inf ? 1.0 / double(top) : 0.0;
        } else if (live.empty()) {
            p[j] = 1.0 / double(limit);
        } else if (!std::isnan(x[j]) && x[j] != -inf) {
            long double sum = 0;
            for (long double k : live)
                sum += std::exp((k - (long double)x[j]) * (long double)factor);
            p[j] = double(1.0L / sum);
        }
    }
    return p;
}

}  // namespace

class TestSoftmax : public QObject {
    Q_OBJECT

private slots:
    void hostileRows_data();
    void hostileRows();
    void normalizerIsTheSumDividedBy();
    void maskedRowsSeeTheirKeys();
};

void TestSoftmax::hostileRows_data()
{
    QTest::addColumn<std::vector<double>>("row");
    QTest::addColumn<int>("limit");
    QTest::addColumn<double>("factor");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::addRow("moderate") << std::vector<double>{0.5, -1, 2, 0} << 4 << 1.0;
    QTest::addRow("±huge") << std::vector<double>{big, -big, 1e308, 0} << 4 << 1.0;
    QTest::addRow("huge equal") << std::vector<double>{-big, -big, -big} << 3 << 1.0;
    QTest::addRow("huge factor") << std::vector<double>{1, 2, 3, 2.5} << 4 << 1e300;
    QTest::addRow("tiny factor") << std::vector<double>{big, 0, 1e307} << 3 << 1e-308;
    QTest::addRow("near the floor") << std::vector<double>{0, -700, -745, -800} << 4 << 1.0;
    QTest::addRow("+inf") << std::vector<double>{1, inf, 3, -inf} << 4 << 0.5;
    QTest::addRow("two +inf") << std::vector<double>{inf, big, inf} << 3 << 1.0;
    QTest::addRow("-inf") << std::vector<double>{-inf, 0, 1, -inf} << 4 << 1.0;
    QTest::addRow("all -inf") << std::vector<double>{-inf, -inf, -inf} << 3 << 1.0;
    QTest::addRow("NaN") << std::vector<double>{1, nan, 3, 0, 2} << 5 << 1.0;
    QTest::addRow("NaN and +inf") << std::vector<double>{nan, inf, 3} << 3 << 1.0;
    QTest::addRow("all NaN") << std::vector<double>{nan, nan} << 2 << 1.0;
    QTest::addRow("all masked but one") << std::vector<double>{-big, big, nan, inf} << 1 << 1.0;
    QTest::addRow("all masked but one, -inf") << std::vector<double>{-inf, inf, inf} << 1 << 1.0;
    QTest::addRow("masked +inf") << std::vector<double>{2, 1, inf, nan} << 2 << 3.0;
    // long enough for the vector lanes and their tail
    std::vector<double> longRow(37);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> dist(-30, 30);
    for (double& v : longRow)
        v = dist(rng);
    QTest::addRow("37 moderate") << longRow << 37 << 1.0;
    QTest::addRow("37 masked after 29") << longRow << 29 << 0.25;
    longRow[33] = nan;
    longRow[5] = -inf;
    longRow[17] = big;
    QTest::addRow("37 with NaN, -inf, huge") << longRow << 37 << 1.0;
    longRow[17] = -big;
    QTest::addRow("37 with NaN, -inf, -huge") << longRow << 37 << 1.0;
}

void TestSoftmax::hostileRows()
{
    QFETCH(std::vector<double>, row);
    QFETCH(int, limit);
    QFETCH(double, factor);
    const std::vector<double> expected = definition(row, std::size_t(limit), factor);
    const Eigen::Index cols = Eigen::Index(row.size());
    for (bool inPlace : {false, true}) {
        std::vector<double> out(row.size(), -1.0);
        if (inPlace)
            out = row;
        softmaxRow(inPlace ? out.data() : row.data(), out.data(), limit, cols, factor);
        double sum = 0;
        for (std::size_t j = 0; j < row.size(); ++j) {
            const QByteArray where = QByteArray(inPlace ? "in place" : "separate") + ", entry "
                + QByteArray::number(qulonglong(j)) + ": " + QByteArray::number(out[j], 'g', 17) + ", expected "
                + QByteArray::number(expected[j], 'g', 17);
            QVERIFY2(std::isfinite(out[j]) && out[j] >= 0, where.constData());
            if (j >= std::size_t(limit))
                QVERIFY2(out[j] == 0.0, where.constData());  // masked: exactly 0
            QVERIFY2(std::fabs(out[j] - expected[j]) <= 1e-15 + 4e-16 * expected[j], where.constData());
            sum += out[j];
        }
        QVERIFY2(std::fabs(sum - 1) <= 1e-14, QByteArray::number(sum, 'g', 17).constData());
    }
}

void TestSoftmax::normalizerIsTheSumDividedBy()
{
    // weight_j · sum = exp((x_j − max) · f): the largest entry's weight is exactly 1 / sum.
    const std::vector<double> row = {0.25, -3, 1.5, 1.5, -40, 0.75};
    for (double factor : {1.0, 0.3, 7.0}) {
        std::vector<double> out(row.size());
        const SoftmaxNorm norm = softmaxRow(row.data(), out.data(), Eigen::Index(row.size()),
                                            Eigen::Index(row.size()), factor);
        QCOMPARE(norm.max, 1.5);
        long double sum = 0;
        for (double x : row)
            sum += std::exp((long double)(x - 1.5) * factor);
        QVERIFY(std::fabs(norm.sum - double(sum)) <= 1e-14 * norm.sum);
        for (std::size_t j = 0; j < row.size(); ++j)
            QVERIFY(std::fabs(out[j] * norm.sum - std::exp((row[j] - 1.5) * factor)) <= 1e-15);
    }
}

void TestSoftmax::maskedRowsSeeTheirKeys()
{
    // Rows 3 … 6 of a causal 7 × 7 attention, computed alone (firstQuery 3), in place and into another matrix.
    std::mt19937_64 rng(11);
    const Matrix scores = testutil::randomMatrix(rng, 4, 7, -6, 6);
    for (bool causal : {true, false}) {
        Matrix into = Matrix::Constant(4, 7, -1.0), inPlace = scores;
        maskedSoftmaxRows(scores, into, 3, causal, 0.5);
        maskedSoftmaxRows(inPlace, inPlace, 3, causal, 0.5);
        Matrix expected(4, 7);
        for (Eigen::Index r = 0; r < 4; ++r) {
            const std::vector<double> row(scores.row(r).data(), scores.row(r).data() + 7);
            const std::vector<double> p = definition(row, causal ? std::size_t(3 + r + 1) : 7, 0.5);
            for (Eigen::Index j = 0; j < 7; ++j)
                expected(r, j) = p[std::size_t(j)];
        }
        COMPARE_MATRIX(into, expected, 1e-15);
        COMPARE_MATRIX(inPlace, expected, 1e-15);
        if (causal)
            for (Eigen::Index r = 0; r < 4; ++r)
                QVERIFY(into.row(r).tail(7 - (3 + r + 1)).isZero(0.0));
    }
}

QTEST_APPLESS_MAIN(TestSoftmax)
#include "tst_softmax.moc"
