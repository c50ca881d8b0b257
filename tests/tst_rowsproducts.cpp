/** Products of float rows by weight rows read as stored (products.h: rowsProduct) on every level this processor runs:
 *  within the rounding any order of the sums allows of a product in double, for one row, a tile and more, depths
 *  shorter than a packet, between packets and past a depth block; BF16 weights the same bit for bit as their float32
 *  widening; a row of a alone, and rows of w taken from any first row, the same bits as in the whole product;
 *  nothing written past a row of c and nothing read past the last weight (a guard page behind it). */

#include "core/tensor/products.h"

#include <QTest>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace core;

namespace {

using Index = std::ptrdiff_t;

/** rows × cols floats, normal, rows ld apart (the columns past cols hold −7). */
std::vector<float> randomRows(std::mt19937_64& rng, Index rows, Index cols, Index ld)
{
    std::normal_distribution<float> normal;
    std::vector<float> out(std::size_t(rows * ld), -7.0f);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c)
            out[std::size_t(r * ld + c)] = normal(rng);
    return out;
}

/** Each value's upper 16 bits: BF16 rounded toward zero, whose widening gives back exactly widened(). */
std::vector<std::uint16_t> bfloat16(const std::vector<float>& v)
{
    std::vector<std::uint16_t> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = std::uint16_t(std::bit_cast<std::uint32_t>(v[i]) >> 16);
    return out;
}

std::vector<float> widened(const std::vector<std::uint16_t>& v)
{
    std::vector<float> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = std::bit_cast<float>(std::uint32_t(v[i]) << 16);
    return out;
}

/** c = a · wᵀ by kernels, a m × k (rows lda apart), w n × k (rows ldw apart); c m × n, rows n + 3 apart (−7 past n). */
std::vector<float> product(const ProductKernels& kernels, const float* a, Index lda, const void* w, RowStorage storage,
                           Index ldw, Index m, Index n, Index k)
{
    std::vector<float> c(std::size_t(m * (n + 3)), -7.0f);
    kernels.rowsProduct(a, lda, w, storage, ldw, c.data(), n + 3, m, n, k);
    return c;
}

bool sameBits(float x, float y)
{
    return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
}

} // namespace

class TestRowsProducts : public QObject {
    Q_OBJECT

private slots:
    void againstDouble_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        for (const int m : {1, 3, 4, 5, 64, 67})
            for (const int n : {1, 5, 6, 7, 13, 200})
                for (const int k : {1, 7, 15, 16, 17, 576, 2048, 2049, 4100})
                    if (Index(m) * n * k <= 20'000'000)
                        QTest::addRow("m=%d n=%d k=%d", m, n, k) << m << n << k;
    }

    /** Every entry within (k + 32) · 2⁻²⁴ · Σ|a·w| of the double sum of the same values: the bound of any order of
     *  float sums; BF16 weights give the bits of their float32 widening; nothing written past the row's n. */
    void againstDouble()
    {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        std::mt19937_64 rng(std::uint64_t(m) * 1000003 + std::uint64_t(n) * 1009 + std::uint64_t(k));
        const Index lda = k + 5, ldw = k + 2;
        const std::vector<float> a = randomRows(rng, m, k, lda);
        const std::vector<std::uint16_t> w16 = bfloat16(randomRows(rng, n, k, ldw));
        const std::vector<float> w32 = widened(w16);
        for (const ProductKernels* kernels : runnableProductKernels()) {
            const std::vector<float> c = product(*kernels, a.data(), lda, w16.data(), RowStorage::BF16, ldw, m, n, k);
            const std::vector<float> c32 = product(*kernels, a.data(), lda, w32.data(), RowStorage::F32, ldw, m, n, k);
            for (Index i = 0; i < m; ++i) {
                for (Index j = 0; j < n; ++j) {
                    double sum = 0, magnitude = 0;
                    for (Index p = 0; p < k; ++p) {
                        const double term = double(a[std::size_t(i * lda + p)]) * double(w32[std::size_t(j * ldw + p)]);
                        sum += term;
                        magnitude += std::fabs(term);
                    }
                    const float got = c[std::size_t(i * (n + 3) + j)];
                    const double bound = double(k + 32) * std::ldexp(1.0, -24) * magnitude;
                    if (!(std::fabs(double(got) - sum) <= bound))
                        QFAIL(qPrintable(QStringLiteral("%1: c(%2, %3) = %4, the double sum %5, bound %6")
                                             .arg(QString::fromLatin1(kernels->level)).arg(i).arg(j)
                                             .arg(double(got), 0, 'g', 9).arg(sum, 0, 'g', 9).arg(bound, 0, 'g', 3)));
                    if (!sameBits(got, c32[std::size_t(i * (n + 3) + j)]))
                        QFAIL(qPrintable(QStringLiteral("%1: c(%2, %3) from BF16 %4, from float32 %5")
                                             .arg(QString::fromLatin1(kernels->level)).arg(i).arg(j)
                                             .arg(double(got), 0, 'g', 9)
                                             .arg(double(c32[std::size_t(i * (n + 3) + j)]), 0, 'g', 9)));
                }
                for (Index j = n; j < n + 3; ++j)
                    QCOMPARE(c[std::size_t(i * (n + 3) + j)], -7.0f);
            }
        }
    }

    /** A row of a alone, or the rows of w from any first row on (as threads split them), gives the bits it has in
     *  the whole product: one row's logits are the same whether computed alone or with the others. */
    void independentOfTheOthers()
    {
        const Index m = 11, n = 29, k = 2100;  // past one depth block
        std::mt19937_64 rng(7);
        const std::vector<float> a = randomRows(rng, m, k, k);
        const std::vector<std::uint16_t> w = bfloat16(randomRows(rng, n, k, k));
        for (const ProductKernels* kernels : runnableProductKernels()) {
            const QByteArray level(kernels->level);
            const std::vector<float> whole = product(*kernels, a.data(), k, w.data(), RowStorage::BF16, k, m, n, k);
            for (Index i = 0; i < m; ++i) {
                const std::vector<float> row = product(*kernels, a.data() + i * k, k, w.data(), RowStorage::BF16, k, 1,
                                                       n, k);
                for (Index j = 0; j < n; ++j)
                    QVERIFY2(sameBits(row[std::size_t(j)], whole[std::size_t(i * (n + 3) + j)]),
                             level + ": row " + QByteArray::number(qlonglong(i)) + " alone, column "
                                 + QByteArray::number(qlonglong(j)));
            }
            for (const Index first : {1, 5, 7, 13}) {
                const std::vector<float> part = product(*kernels, a.data(), k, w.data() + first * k, RowStorage::BF16,
                                                        k, m, n - first, k);
                for (Index i = 0; i < m; ++i)
                    for (Index j = first; j < n; ++j)
                        QVERIFY2(sameBits(part[std::size_t(i * (n - first + 3) + j - first)],
                                          whole[std::size_t(i * (n + 3) + j)]),
                                 level + ": rows of w from " + QByteArray::number(qlonglong(first)));
            }
        }
    }

    /** Weights that end where readable memory ends, at a depth that is no multiple of any packet: the last packet
     *  reads only what is there (a read past it would fault on the guard page). */
    void nothingReadPastTheEnd()
    {
        const Index m = 3, n = 5, k = 23;
        const long page = sysconf(_SC_PAGESIZE);
        void* pages = mmap(nullptr, std::size_t(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(pages != MAP_FAILED);
        char* guard = static_cast<char*>(pages) + page;
        QCOMPARE(mprotect(guard, std::size_t(page), PROT_NONE), 0);
        std::mt19937_64 rng(3);
        const std::vector<float> a = randomRows(rng, m, k, k);
        const std::vector<std::uint16_t> w16 = bfloat16(randomRows(rng, n, k, k));
        const std::vector<float> w32 = widened(w16);
        auto* end16 = reinterpret_cast<std::uint16_t*>(guard) - w16.size();
        auto* end32 = reinterpret_cast<float*>(guard) - w32.size();
        for (const ProductKernels* kernels : runnableProductKernels()) {
            std::memcpy(end16, w16.data(), w16.size() * 2);
            const std::vector<float> c16 = product(*kernels, a.data(), k, end16, RowStorage::BF16, k, m, n, k);
            std::memcpy(end32, w32.data(), w32.size() * 4);
            const std::vector<float> c32 = product(*kernels, a.data(), k, end32, RowStorage::F32, k, m, n, k);
            const std::vector<float> inside = product(*kernels, a.data(), k, w32.data(), RowStorage::F32, k, m, n, k);
            for (std::size_t i = 0; i < inside.size(); ++i) {
                QVERIFY(sameBits(c16[i], inside[i]));
                QVERIFY(sameBits(c32[i], inside[i]));
            }
        }
        munmap(pages, std::size_t(2 * page));
    }
};

QTEST_APPLESS_MAIN(TestRowsProducts)
#include "tst_rowsproducts.moc"
