/** Block means for figures with more cells than pixels (core::pooled). */

#include "core/tensor/pooling.h"
#include "testutil.h"

#include <QTest>

#include <array>
#include <cmath>
#include <limits>
#include <random>

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

    void copyWhilePoolingIsExact()
    {
        // pooledWithCopy gives pooled()'s block means and factor · m cell for cell, whatever the number of
        // threads, for shapes whose last row and column blocks are short, with non-finite entries too.
        std::mt19937_64 rng(5);
        std::uniform_real_distribution<double> u(-3, 3);
        const double inf = std::numeric_limits<double>::infinity();
        for (const auto& [rows, cols, maxRows, maxCols] : {std::array{37, 23, 5, 4}, std::array{100, 64, 33, 64},
                                                           std::array{9, 9, 1, 1}, std::array{6, 5, 10, 10},
                                                           std::array{1, 50, 1, 7}, std::array{64, 3, 64, 1}}) {
            Matrix m(rows, cols);
            for (Eigen::Index i = 0; i < m.size(); ++i)
                m.data()[i] = u(rng);
            m(0, 0) = std::numeric_limits<double>::quiet_NaN();
            m(rows - 1, cols - 1) = inf;
            for (double factor : {1.0, 0.125, -2.5}) {
                const Matrix want = pooled(m, maxRows, maxCols, factor);
                for (int threads : {1, 2, 3, 8}) {
                    const QByteArray what = QByteArray::number(rows) + "x" + QByteArray::number(cols) + " into "
                        + QByteArray::number(maxRows) + "x" + QByteArray::number(maxCols) + ", factor "
                        + QByteArray::number(factor) + ", " + QByteArray::number(threads) + " threads";
                    Matrix copy(2, 2);  // another shape: resized
                    const Matrix got = pooledWithCopy(m, maxRows, maxCols, factor, copy, threads);
                    QVERIFY2(got.rows() == want.rows() && got.cols() == want.cols(), what.constData());
                    for (Eigen::Index i = 0; i < want.size(); ++i)
                        QVERIFY2(got.data()[i] == want.data()[i]
                                     || (std::isnan(got.data()[i]) && std::isnan(want.data()[i])),
                                 (what + ", mean " + QByteArray::number(qlonglong(i))).constData());
                    QVERIFY2(copy.rows() == rows && copy.cols() == cols, what.constData());
                    for (Eigen::Index i = 1; i < m.size(); ++i)
                        QVERIFY2(copy.data()[i] == factor * m.data()[i], (what + ", cell " + QByteArray::number(qlonglong(i))).constData());
                    QVERIFY2(std::isnan(copy(0, 0)), what.constData());
                }
            }
        }
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
