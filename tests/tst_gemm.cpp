/** core::multiply and every level of the product kernels this processor runs (products.h) against a plain sum
 *  of products; and core::allFinite. */

#include "core/tensor/gemm.h"
#include "core/formats/safetensors.h"
#include "core/tensor/products.h"
#include "testutil.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace core;

namespace {

/** c(i, j) = Σ_p a(i, p) · b(p, j) in long double: the reference every kernel must agree with. */
Matrix reference(const Matrix& a, const Matrix& b)
{
    Matrix c(a.rows(), b.cols());
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < b.cols(); ++j) {
            long double sum = 0;
            for (Eigen::Index p = 0; p < a.cols(); ++p)
                sum += static_cast<long double>(a(i, p)) * b(p, j);
            c(i, j) = double(sum);
        }
    return c;
}

/** A rows × cols block of floats uniform in [−1, 1], rows ld apart, inside storage filled with a sentinel
 *  around it (the extra columns of each row) so that a product writing past its block shows. */
std::vector<float> floatBlock(std::mt19937_64& rng, Eigen::Index rows, Eigen::Index cols, Eigen::Index ld)
{
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> block(std::size_t(rows * ld), -7.0f);
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j)
            block[std::size_t(i * ld + j)] = uniform(rng);
    return block;
}

}  // namespace

class TestGemm : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qInfo("product kernels: %s", productLevel());
    }

    void agreesWithPlainSums_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n");
        // Row counts around the 4-row tiles, column counts around the 8-column tiles, inner sizes around a
        // 256-step pass; and the shapes the engine multiplies (a block of weights times V).
        for (int m : {1, 3, 4, 5, 6, 7, 9, 13})
            for (int n : {1, 3, 7, 8, 9, 17, 64})
                for (int k : {1, 2, 255, 256, 257, 600})
                    QTest::addRow("%d x %d times %d x %d", m, k, k, n) << m << k << n;
        QTest::addRow("weights block times V") << 128 << 512 << 64;
        QTest::addRow("causal tail") << 37 << 1100 << 24;
    }

    void agreesWithPlainSums()
    {
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        std::mt19937_64 rng(std::uint64_t(m * 1000003 + k * 1009 + n));
        const Matrix a = testutil::randomMatrix(rng, m, k, -3, 3);
        const Matrix b = testutil::randomMatrix(rng, k, n, -3, 3);
        Matrix c = Matrix::Constant(m, n, 99.0);  // overwritten, not added to
        multiply(a, b, c);
        // Each entry is a sum of k products of size ≤ 9: rounding stays within k · 9 · ε of the exact sum.
        COMPARE_MATRIX(c, reference(a, b), 9.0 * k * std::numeric_limits<double>::epsilon() * 4);
    }

    void blocksOfLargerMatrices()
    {
        // The engine passes blocks: rows of a larger weights matrix, the top rows of V, a middle band of the
        // outputs. Everything outside the target block must stay as it was.
        std::mt19937_64 rng(11);
        const Matrix weights = testutil::randomMatrix(rng, 300, 300);
        const Matrix values = testutil::randomMatrix(rng, 300, 40);
        Matrix outputs = Matrix::Constant(300, 40, -7.0);
        multiply(weights.block(100, 0, 50, 260), values.topRows(260), outputs.middleRows(100, 50));
        COMPARE_MATRIX(Matrix(outputs.middleRows(100, 50)),
                       reference(weights.block(100, 0, 50, 260), values.topRows(260)), 1e-12);
        QVERIFY((outputs.topRows(100).array() == -7.0).all());
        QVERIFY((outputs.bottomRows(150).array() == -7.0).all());
    }

    void packedFactorsAgree_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("used");  // rows of the packed factor the product takes (a's columns)
        // Q·Kᵀ of a block of queries, weights · V under a causal mask (fewer rows of V than it has), and
        // shapes whose last panel is narrow or whose passes end mid-way.
        QTest::addRow("queries times keys transposed") << 128 << 64 << 300 << 64;
        QTest::addRow("causal weights times values") << 40 << 700 << 24 << 517;
        QTest::addRow("narrow last panel") << 11 << 33 << 13 << 33;
        QTest::addRow("one row of a second pass") << 7 << 257 << 9 << 257;
        QTest::addRow("rows ending inside a pass") << 5 << 600 << 17 << 300;
    }

    void packedFactorsAgree()
    {
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        QFETCH(int, used);
        std::mt19937_64 rng(std::uint64_t(m * 7 + k * 131 + n));
        const Matrix a = testutil::randomMatrix(rng, m, used, -3, 3);
        const Matrix b = testutil::randomMatrix(rng, k, n, -3, 3);
        const Matrix want = reference(a, b.topRows(used));
        const double tol = 9.0 * used * std::numeric_limits<double>::epsilon() * 4;

        SharedFactor shared(b);
        QCOMPARE(shared.rows(), Eigen::Index(k));
        QCOMPARE(shared.cols(), Eigen::Index(n));
        Matrix c = Matrix::Constant(m, n, 99.0);
        multiply(a, shared, c);
        COMPARE_MATRIX(c, want, tol);

        // The same factor given as its transpose (as K is for Q·Kᵀ), in a SharedFactor that referred to
        // another shape before.
        const Matrix other = testutil::randomMatrix(rng, 3, 70), bt = b.transpose();
        SharedFactor transposed(other);
        transposed.referTransposed(bt);
        QCOMPARE(transposed.rows(), Eigen::Index(k));
        QCOMPARE(transposed.cols(), Eigen::Index(n));
        Matrix t = Matrix::Constant(m, n, -99.0);
        multiply(a, transposed, t);
        QCOMPARE(t, c);  // Eigen packs both into the same layout: the very same sums
    }

    void blockOfAWiderMatrix()
    {
        // The target is a block of columns of a larger matrix (the heads' outputs side by side): the kernel's
        // narrow last panel must not write past the block's columns.
        std::mt19937_64 rng(5);
        const Matrix a = testutil::randomMatrix(rng, 9, 20);
        const Matrix b = testutil::randomMatrix(rng, 20, 5);
        Matrix wide = Matrix::Constant(9, 16, -7.0);
        multiply(a, b, wide.middleCols(3, 5));
        COMPARE_MATRIX(Matrix(wide.middleCols(3, 5)), reference(a, b), 1e-12);
        QVERIFY((wide.leftCols(3).array() == -7.0).all());
        QVERIFY((wide.rightCols(8).array() == -7.0).all());
    }

    void emptyInnerDimensionGivesZeros()
    {
        Matrix a(5, 0), b(0, 9);
        Matrix c = Matrix::Constant(5, 9, 3.0);
        multiply(a, b, c);
        QVERIFY((c.array() == 0.0).all());
    }

    void overflowIsNotHiddenByFusing()
    {
        // big · big + (−big) · big: both products overflow, to +∞ and −∞, and their sum is NaN, as the
        // engine's overflow handling expects (a fused multiply-add would give +∞).
        const double big = 1e300;
        const Matrix a = testutil::mat({{big, -big}, {0, 0}, {1, 1}, {2, 0}, {0, 3}});
        const Matrix b = testutil::mat({{big, 1, 2, 3, 4, 5, 6, 7, 8}, {big, 1, 2, 3, 4, 5, 6, 7, 8}});
        Matrix c(5, 9);
        multiply(a, b, c);
        QVERIFY(std::isnan(c(0, 0)));
        QCOMPARE(c(0, 8), 0.0);
        QCOMPARE(c(2, 8), 16.0);
        QCOMPARE(c(4, 3), 9.0);
    }

    void allFiniteFindsEveryNonFiniteEntry()
    {
        // core::allFinite reads rows in runs of four: a bad entry in any lane, in a row's short tail, in the
        // last row, or in a block of a larger matrix must be found.
        const double bad[] = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN()};
        for (int cols : {1, 3, 4, 7, 9}) {
            Matrix m = Matrix::Constant(3, cols, 1e308);
            QVERIFY(allFinite(m));
            for (double v : bad)
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < cols; ++c) {
                        Matrix x = m;
                        x(r, c) = v;
                        QVERIFY2(!allFinite(x), qPrintable(QStringLiteral("%1 at (%2, %3) of 3 × %4")
                                                               .arg(v).arg(r).arg(c).arg(cols)));
                    }
        }
        Matrix big = Matrix::Zero(6, 10);
        big(0, 9) = std::numeric_limits<double>::quiet_NaN();  // outside the block below
        QVERIFY(allFinite(big.block(1, 2, 5, 7)));
        QVERIFY(!allFinite(big.block(0, 2, 5, 8)));
        QVERIFY(allFinite(Matrix(0, 4)));
    }

    void everyLevel_data()
    {
        QTest::addColumn<int>("level");  // index into runnableProductKernels()
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n");
        QTest::addColumn<bool>("transposed");
        const auto levels = runnableProductKernels();
        for (int l = 0; l < int(levels.size()); ++l)
            for (bool t : {false, true}) {
                const char* how = t ? "b transposed" : "b";
                const char* name = levels[std::size_t(l)]->level;
                QTest::addRow("%s: 1 x 1, %s", name, how) << l << 1 << 1 << 1 << t;
                QTest::addRow("%s: 7 x 13 times 13 x 5, %s", name, how) << l << 7 << 13 << 5 << t;
                QTest::addRow("%s: 64 x 768 times 768 x 2304 (c_attn), %s", name, how) << l << 64 << 768 << 2304 << t;
                QTest::addRow("%s: 1 x 768 times 768 x 4096 (a block of logits), %s", name, how)
                    << l << 1 << 768 << 4096 << t;
                QTest::addRow("%s: 130 x 64 times 64 x 300 (Q·Kᵀ), %s", name, how) << l << 130 << 64 << 300 << t;
                // A few rows take their own kernel (b not transposed): pieces of 512 columns, k not a multiple of 4.
                for (int m : {2, 3, 4})
                    QTest::addRow("%s: %d x 515 times 515 x 1100 (a few tokens' projection), %s", name, m, how)
                        << l << m << 515 << 1100 << t;
                QTest::addRow("%s: empty inner dimension, %s", name, how) << l << 3 << 0 << 4 << t;
            }
    }

    void everyLevel()
    {
        // Each level's float and double product against a long double sum of the same inputs, fused or not
        // within k · u · Σ|a||b| (u the unit roundoff); factors sit in wider storage (rows 3 entries apart more
        // than their width) to check the strides and that nothing outside c's block is written. And maxAbs.
        QFETCH(int, level);
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        QFETCH(bool, transposed);
        const ProductKernels& kernels = *runnableProductKernels()[std::size_t(level)];
        std::mt19937_64 rng(std::uint64_t(m * 7919 + k * 31 + n + (transposed ? 1 : 0)));
        const Eigen::Index lda = k + 3, bRows = transposed ? n : k, bCols = transposed ? k : n, ldb = bCols + 3,
                           ldc = n + 3;
        const std::vector<float> a = floatBlock(rng, m, k, lda), b = floatBlock(rng, bRows, bCols, ldb);
        std::vector<float> c(std::size_t(m * ldc), -7.0f);
        kernels.sgemm(a.data(), lda, b.data(), ldb, transposed, c.data(), ldc, m, n, k);
        const std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
        std::vector<double> cd(std::size_t(m * ldc), -7.0);
        kernels.dgemm(ad.data(), lda, bd.data(), ldb, transposed, cd.data(), ldc, m, n, k);

        using Stride = Eigen::OuterStride<>;
        const Eigen::Map<const Matrix, 0, Stride> left(ad.data(), m, k, Stride(lda));
        const Eigen::Map<const Matrix, 0, Stride> right(bd.data(), bRows, bCols, Stride(ldb));
        const Matrix rightFactor = transposed ? Matrix(right.transpose()) : Matrix(right);
        const Matrix exact = reference(left, rightFactor);
        const Matrix magnitude = left.cwiseAbs() * rightFactor.cwiseAbs();
        for (const auto& [u, got] : {std::pair{double(std::numeric_limits<float>::epsilon()) / 2,
                                               std::vector<double>(c.begin(), c.end())},
                                     std::pair{std::numeric_limits<double>::epsilon() / 2, cd}}) {
            for (Eigen::Index i = 0; i < m; ++i) {
                for (Eigen::Index j = 0; j < n; ++j) {
                    const double value = got[std::size_t(i * ldc + j)], bound = double(k) * u * magnitude(i, j);
                    if (std::abs(value - exact(i, j)) > bound)
                        QFAIL(qPrintable(QStringLiteral("(%1, %2): %3, exact %4, bound %5")
                                             .arg(i).arg(j).arg(value, 0, 'g', 17).arg(exact(i, j), 0, 'g', 17)
                                             .arg(bound)));
                }
                for (Eigen::Index j = n; j < ldc; ++j)
                    QCOMPARE(got[std::size_t(i * ldc + j)], -7.0);
            }
        }
        QCOMPARE(kernels.maxAbs(ad.data(), lda, m, k), m * k ? double(left.cwiseAbs().maxCoeff()) : 0.0);
        std::vector<double> withNan = ad;
        if (m * k > 0) {
            withNan[std::size_t((m - 1) * lda + k - 1)] = std::numeric_limits<double>::quiet_NaN();
            QVERIFY(std::isnan(kernels.maxAbs(withNan.data(), lda, m, k)));
        }
    }

    void copyMaxAbsEveryLevel()
    {
        // Each level's copy that measures: an exact copy and the largest magnitude, a NaN anywhere (also in the
        // first or a later piece, after a larger value) stays NaN, ±∞ counts as the largest, nothing past count
        // is written.
        for (const ProductKernels* kernels : runnableProductKernels()) {
            for (const std::ptrdiff_t count : {0, 1, 7, 2048, 2049, 10000}) {
                std::mt19937_64 rng(static_cast<std::uint64_t>(count));
                std::uniform_real_distribution<double> u(-3.0, 3.0);
                std::vector<double> from(static_cast<std::size_t>(count)), to(static_cast<std::size_t>(count) + 1, -7.0);
                for (double& v : from)
                    v = u(rng);
                double largest = 0;
                for (double v : from)
                    largest = std::max(largest, std::abs(v));
                QCOMPARE(kernels->copyMaxAbs(from.data(), to.data(), count), largest);
                QVERIFY(std::equal(from.begin(), from.end(), to.begin()));
                QCOMPARE(to.back(), -7.0);
                if (count < 2049)
                    continue;
                for (std::ptrdiff_t at : {std::ptrdiff_t(0), std::ptrdiff_t(2048), count - 1}) {
                    std::vector<double> odd = from;
                    odd[std::size_t(at)] = std::numeric_limits<double>::quiet_NaN();
                    odd[std::size_t(count - 1 - at / 2)] = 1e9;  // a larger value elsewhere does not hide it
                    QVERIFY2(std::isnan(kernels->copyMaxAbs(odd.data(), to.data(), count)), kernels->level);
                    odd[std::size_t(at)] = -std::numeric_limits<double>::infinity();
                    QCOMPARE(kernels->copyMaxAbs(odd.data(), to.data(), count), std::numeric_limits<double>::infinity());
                }
            }
        }
    }

    void overflowTakesThePlainPath()
    {
        // Finite factors whose products could overflow take the plain sums even where the kernels fuse, also
        // through a packed factor: big · big + (−big) · big is NaN there (a fused multiply-add gives +∞).
        const double big = 1e300;
        const Matrix a = testutil::mat({{big, -big}, {1, 1}});
        const Matrix b = testutil::mat({{big, 3}, {big, 4}});
        Matrix c(2, 2);
        multiply(a, SharedFactor(b), c);
        QVERIFY(std::isnan(c(0, 0)));
        QCOMPARE(c(0, 1), -1e300);
        QCOMPARE(c(1, 1), 7.0);
    }

    void exactProductsStayExact()
    {
        // Small integers multiply and add without rounding: the worked example's scores are exact.
        const Matrix q = testutil::mat({{1, 0, 2}, {2, 2, 2}, {2, 1, 3}});
        const Matrix kt = testutil::mat({{0, 4, 2}, {1, 4, 3}, {1, 0, 1}});
        Matrix s(3, 3);
        multiply(q, kt, s);
        COMPARE_MATRIX(s, reference(q, kt), 0);
    }
};

QTEST_APPLESS_MAIN(TestGemm)
#include "tst_gemm.moc"
