/** Block means for figures with more cells than pixels (core::pooled). */

#include "core/pooling.h"
#include "testutil.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace core;

class TestPooling : public QObject {
    Q_OBJECT

private slots:
    void fittingMatrixIsScaledCopy()
    {
        const Matrix m = testutil::mat({{1, -2, 3}, {4, 5, -6}});
        COMPARE_MATRIX(pooled(m, 2, 3), m, 0);
        COMPARE_MATRIX(pooled(m, 10, 10, 0.5), Matrix(0.5 * m), 0);
    }

    void blocksAreMeans()
    {
        // 5 × 4 into at most 2 × 2: blocks of 3 rows × 2 columns, the last row block has 2 rows.
        Matrix m(5, 4);
        for (int r = 0; r < 5; ++r)
            for (int c = 0; c < 4; ++c)
                m(r, c) = 10 * r + c;
        const Matrix p = pooled(m, 2, 2);
        QCOMPARE(p.rows(), 2);
        QCOMPARE(p.cols(), 2);
        QCOMPARE(p(0, 0), (0 + 1 + 10 + 11 + 20 + 21) / 6.0);
        QCOMPARE(p(0, 1), (2 + 3 + 12 + 13 + 22 + 23) / 6.0);
        QCOMPARE(p(1, 0), (30 + 31 + 40 + 41) / 4.0);
        QCOMPARE(p(1, 1), (32 + 33 + 42 + 43) / 4.0);
        // The mean of the means, weighted by block sizes, is the mean of the matrix.
        QCOMPARE((6 * p.row(0).sum() + 4 * p.row(1).sum()) / 20.0, m.mean());
    }

    void longSequenceFitsThumbnail()
    {
        const Matrix m = Matrix::Constant(4096, 64, 0.25);
        const Matrix p = pooled(m, 400, 400, 2.0);
        QVERIFY(p.rows() <= 400 && p.cols() == 64);
        QVERIFY((p.array() == 0.5).all());
    }

    void nonFiniteEntriesAreLeftOut()
    {
        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const Matrix m = testutil::mat({{1, inf, nan, nan}, {3, 2, -inf, nan}});
        const Matrix p = pooled(m, 1, 2);
        QCOMPARE(p(0, 0), 2.0);
        QVERIFY(std::isnan(p(0, 1)));
    }
};

QTEST_APPLESS_MAIN(TestPooling)
#include "tst_pooling.moc"
