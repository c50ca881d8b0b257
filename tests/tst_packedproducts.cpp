/** Products with weights packed once (products.h: packWeight, packedProduct) on every level this processor runs:
 *  the same bit for bit as that level's sgemm of the unpacked weights, for one row, a few, a row block and one more,
 *  GPT-2's depths and odd ones, weights cut into column blocks whose last one is narrower; without reading the
 *  unpacked weights where the packed ones serve; and a block repacked after an edit as a fresh pack of the edited
 *  weights. The same for a session's double weights (packDoubleWeight, packedDoubleProduct), whose products take
 *  any range of the packed columns: bit for bit that level's dgemm of those columns, where the panels serve and
 *  where the range does not align with their column groups. */

#include "core/tensor/products.h"

#include <QTest>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

using namespace core;

namespace {

using Index = std::ptrdiff_t;

/** rows × cols floats (or doubles) uniform in [−1, 1], rows ld apart (the columns past cols hold −7). */
template <typename T = float>
std::vector<T> randomBlock(std::mt19937_64& rng, Index rows, Index cols, Index ld)
{
    std::uniform_real_distribution<T> uniform(T(-1), T(1));
    std::vector<T> out(std::size_t(rows * ld), T(-7));
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c)
            out[std::size_t(r * ld + c)] = uniform(rng);
    return out;
}

/** Empty when a and b hold the same bits everywhere; else where they first differ. */
template <typename T>
QByteArray firstDifference(const std::vector<T>& a, const std::vector<T>& b, Index ld)
{
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    constexpr int digits = std::numeric_limits<T>::max_digits10;
    if (a.size() != b.size())
        return "sizes differ";
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<Bits>(a[i]) != std::bit_cast<Bits>(b[i]))
            return QByteArray("row ") + QByteArray::number(qlonglong(Index(i) / ld)) + ", column "
                   + QByteArray::number(qlonglong(Index(i) % ld)) + ": " + QByteArray::number(a[i], 'g', digits)
                   + " vs " + QByteArray::number(b[i], 'g', digits);
    return {};
}

/** The column blocks of a k × n weight (rows ldb apart), each packed by kernels. */
std::vector<PackedWeight> packBlocks(const ProductKernels& kernels, const std::vector<float>& w, Index ldb, Index k,
                                     Index n, Index width)
{
    std::vector<PackedWeight> blocks;
    for (Index c0 = 0; c0 < n; c0 += width) {
        blocks.emplace_back();
        kernels.packWeight(w.data() + c0, ldb, k, std::min(width, n - c0), blocks.back());
    }
    return blocks;
}

/** y = x · w block by block, packed (b the unpacked weights, or any other k × n storage where they are not read)
 *  or, without blocks, by sgemm. x is m × k (rows k + 2 apart), y m × n (rows n + 3 apart, −7 past n). */
std::vector<float> product(const ProductKernels& kernels, const std::vector<float>& x, Index m, Index k,
                           const std::vector<float>& b, Index ldb, Index n, Index width,
                           const std::vector<PackedWeight>* blocks)
{
    const Index ldy = n + 3;
    std::vector<float> y(std::size_t(m * ldy), -7.0f);
    for (Index c0 = 0, t = 0; c0 < n; c0 += width, ++t) {
        const Index w = std::min(width, n - c0);
        if (blocks)
            kernels.packedProduct(x.data(), k + 2, (*blocks)[std::size_t(t)], b.data() + c0, ldb, y.data() + c0, ldy,
                                  m);
        else
            kernels.sgemm(x.data(), k + 2, b.data() + c0, ldb, false, y.data() + c0, ldy, m, w, k);
    }
    return y;
}

/** c = a · (columns [first, first + cols) of a k × n weight, rows ldb apart): with panels by packedDoubleProduct,
 *  which reads b only where the panels cannot serve (b the unpacked weights, or NaN where they must not be read);
 *  without, by dgemm of those columns. a is m × k (rows k + 2 apart), c m × cols (rows cols + 3 apart, −7 past
 *  cols, so that a write past the range shows). */
std::vector<double> doubleProduct(const ProductKernels& kernels, const std::vector<double>& a, Index m, Index k,
                                  const std::vector<double>& b, Index ldb, Index first, Index cols,
                                  const PackedDoubleWeight* panels)
{
    const Index ldc = cols + 3;
    std::vector<double> c(std::size_t(m * ldc), -7.0);
    if (panels)
        kernels.packedDoubleProduct(a.data(), k + 2, *panels, first, cols, b.data() + first, ldb, c.data(), ldc, m);
    else
        kernels.dgemm(a.data(), k + 2, b.data() + first, ldb, false, c.data(), ldc, m, cols, k);
    return c;
}

/** Column ranges {first, cols} of n columns in groups of g: the whole, [0, g·j) and [g·j, n) for a few j (as the
 *  engine splits a weight between tasks), and, when g > 1, two that do not align: one starting inside a group and
 *  one ending inside one before n. */
std::vector<std::pair<Index, Index>> columnRanges(Index n, Index g, bool unaligned)
{
    std::vector<std::pair<Index, Index>> ranges{{0, n}};
    auto add = [&ranges](Index first, Index cols) {
        if (cols > 0 && std::find(ranges.begin(), ranges.end(), std::pair{first, cols}) == ranges.end())
            ranges.emplace_back(first, cols);
    };
    for (Index j : {Index(1), n / g / 2, n / g - 1})
        if (j > 0 && g * j < n) {
            add(0, g * j);
            add(g * j, n - g * j);
        }
    if (unaligned && g > 1 && n > g + 1) {
        add(1, n - 1);
        add(g, g + 1 < n - g ? g + 1 : n - g - 1);
    }
    return ranges;
}

/** Empty when packedDoubleProduct() on panels, for each of columnRanges() of the k × n weights w (rows ldb apart),
 *  holds the bits of dgemm of those columns of w; b stands for w where the panels serve. Else the first range that
 *  differs, and where. */
QByteArray rangesDifference(const ProductKernels& kernels, const std::vector<double>& a, Index m, Index k,
                            const std::vector<double>& w, const std::vector<double>& b, Index ldb,
                            const PackedDoubleWeight& panels, bool unaligned)
{
    for (const auto& [first, cols] : columnRanges(panels.n, panels.columnGroup, unaligned)) {
        const QByteArray difference =
            firstDifference(doubleProduct(kernels, a, m, k, b, ldb, first, cols, &panels),
                            doubleProduct(kernels, a, m, k, w, ldb, first, cols, nullptr), cols + 3);
        if (!difference.isEmpty())
            return "columns " + QByteArray::number(qlonglong(first)) + " + " + QByteArray::number(qlonglong(cols))
                   + ", " + difference;
    }
    return {};
}

/** The rows of a test of every runnable level with each count of rows of ms at each depth of ks. */
void addLevelsRowsDepths(std::initializer_list<int> ms, std::initializer_list<int> ks)
{
    QTest::addColumn<int>("level"); // index into runnableProductKernels()
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("k");
    const auto levels = runnableProductKernels();
    for (int l = 0; l < int(levels.size()); ++l)
        for (int m : ms)
            for (int k : ks)
                QTest::addRow("%s: %d x %d", levels[std::size_t(l)]->level, m, k) << l << m << k;
}

} // namespace

class TestPackedProducts : public QObject {
    Q_OBJECT

private slots:
    void sameAsSgemm_data()
    {
        QTest::addColumn<int>("level"); // index into runnableProductKernels()
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width"); // of a column block
        const auto levels = runnableProductKernels();
        for (int l = 0; l < int(levels.size()); ++l) {
            const char* name = levels[std::size_t(l)]->level;
            for (int m : {1, 2, 3, 8, 64, 65}) {
                QTest::addRow("%s: %d x 768 times 768 x 2304 (c_attn)", name, m) << l << m << 768 << 2304 << 384;
                QTest::addRow("%s: %d x 3072 times 3072 x 768 (the MLP's c_proj)", name, m)
                    << l << m << 3072 << 768 << 384;
                QTest::addRow("%s: %d x 768 times 768 x 1000 (a narrower last block)", name, m)
                    << l << m << 768 << 1000 << 384;
                QTest::addRow("%s: %d x 777 times 777 x 385 (a last block of one column)", name, m)
                    << l << m << 777 << 385 << 384;
            }
            // Shallow products, where Eigen's blocking depends on m as well: its row blocks of the weights
            // (3000 columns at once, depth 200) and its smallest shapes.
            for (int m : {2, 5, 64, 300})
                QTest::addRow("%s: %d x 200 times 200 x 3000 (one wide block)", name, m) << l << m << 200 << 3000 << 3000;
            for (int m : {1, 2, 3, 17})
                QTest::addRow("%s: %d x 128 times 128 x 100", name, m) << l << m << 128 << 100 << 384;
            QTest::addRow("%s: 7 x 13 times 13 x 5", name) << l << 7 << 13 << 5 << 384;
            QTest::addRow("%s: 3 x 1 times 1 x 9", name) << l << 3 << 1 << 9 << 384;
            QTest::addRow("%s: 4 x 0 times 0 x 6 (no depth)", name) << l << 4 << 0 << 6 << 384;
        }
    }

    void sameAsSgemm()
    {
        // The packed product of each column block against the same level's sgemm of that block: every bit, and
        // nothing written past the block's columns.
        QFETCH(int, level);
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        QFETCH(int, width);
        const ProductKernels& kernels = *runnableProductKernels()[std::size_t(level)];
        std::mt19937_64 rng(std::uint64_t(m * 7919 + k * 31 + n));
        const Index ldb = n + 5;
        const std::vector<float> x = randomBlock(rng, m, k, k + 2), w = randomBlock(rng, k, n, ldb);
        const std::vector<PackedWeight> blocks = packBlocks(kernels, w, ldb, k, n, width);
        for (const PackedWeight& b : blocks)
            QCOMPARE(b.level, &kernels);
        const std::vector<float> expected = product(kernels, x, m, k, w, ldb, n, width, nullptr);
        const QByteArray difference = firstDifference(product(kernels, x, m, k, w, ldb, n, width, &blocks), expected,
                                                      n + 3);
        QVERIFY2(difference.isEmpty(), difference.constData());
    }

    void packedWeightsServeAlone_data()
    {
        addLevelsRowsDepths({2, 3, 64, 65}, {768, 3072});
    }

    void packedWeightsServeAlone()
    {
        // GPT-2's products (two rows or more, depth 768 or 3072) read only the packed weights: given NaN for the
        // unpacked ones, they still equal sgemm with the real weights.
        QFETCH(int, level);
        QFETCH(int, m);
        QFETCH(int, k);
        const ProductKernels& kernels = *runnableProductKernels()[std::size_t(level)];
        const Index n = 1000, ldb = n;
        std::mt19937_64 rng(std::uint64_t(m + k));
        const std::vector<float> x = randomBlock(rng, m, k, k + 2), w = randomBlock(rng, k, n, ldb);
        const std::vector<PackedWeight> blocks = packBlocks(kernels, w, ldb, k, n, 384);
        const std::vector<float> nan(w.size(), std::numeric_limits<float>::quiet_NaN());
        const QByteArray difference = firstDifference(product(kernels, x, m, k, nan, ldb, n, 384, &blocks),
                                                      product(kernels, x, m, k, w, ldb, n, 384, nullptr), n + 3);
        QVERIFY2(difference.isEmpty(), difference.constData());
    }

    void editedBlockRepackedAsFresh()
    {
        // Cells of two of the blocks edited and only those blocks repacked: the packs equal fresh packs of the
        // edited weights, the products equal sgemm of the edited weights, and the block left alone kept its pack.
        for (const ProductKernels* kernels : runnableProductKernels()) {
            const Index k = 768, n = 1152, m = 17, width = 384;
            std::mt19937_64 rng(42);
            std::vector<float> w = randomBlock(rng, k, n, n);
            const std::vector<float> x = randomBlock(rng, m, k, k + 2);
            std::vector<PackedWeight> blocks = packBlocks(*kernels, w, n, k, n, width);
            const auto untouched = blocks[1].values;
            for (const auto& [row, col] : {std::pair<Index, Index>{0, 0}, {767, 383}, {300, 800}, {5, 1151}})
                w[std::size_t(row * n + col)] += 0.5f;
            for (Index t : {0, 2})
                kernels->packWeight(w.data() + t * width, n, k, width, blocks[std::size_t(t)]);
            const std::vector<PackedWeight> fresh = packBlocks(*kernels, w, n, k, n, width);
            for (std::size_t t = 0; t < blocks.size(); ++t)
                QVERIFY(blocks[t].values == fresh[t].values);
            QVERIFY(blocks[1].values == untouched);
            const QByteArray difference = firstDifference(product(*kernels, x, m, k, w, n, n, width, &blocks),
                                                          product(*kernels, x, m, k, w, n, n, width, nullptr), n + 3);
            QVERIFY2(difference.isEmpty(), difference.constData());
        }
    }

    void doubleSameAsDgemm_data()
    {
        QTest::addColumn<int>("level"); // index into runnableProductKernels()
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n");
        // Every count of rows at one depth and a width whose last group is narrower; then every depth and width,
        // each with a few counts of rows (dgemm's own path of a few rows, one more, blocks and odd blocks). Not
        // the whole cross product: under the sanitizers that would take minutes.
        static const int shapes[][3] = {
            {1, 512, 520}, {3, 512, 520}, {4, 512, 520}, {5, 512, 520}, {64, 512, 520}, {129, 512, 520},
            {300, 64, 520}, {64, 1, 64}, {300, 1, 1536}, {5, 7, 8}, {129, 7, 512}, {3, 64, 1536}, {300, 64, 8},
            {64, 768, 1536}, {5, 768, 512}, {129, 768, 64}, {1, 1000, 1536}, {64, 1000, 520}, {300, 1000, 8},
        };
        const auto levels = runnableProductKernels();
        for (int l = 0; l < int(levels.size()); ++l)
            for (const auto& shape : shapes)
                QTest::addRow("%s: %d x %d times %d x %d", levels[std::size_t(l)]->level, shape[0], shape[1],
                              shape[1], shape[2])
                    << l << shape[0] << shape[1] << shape[2];
    }

    void doubleSameAsDgemm()
    {
        // Each range of the packed columns against the same level's dgemm of those columns of the unpacked
        // weights: every bit, and nothing written past the range; where the range does not align with the
        // panels' column groups too, through dgemm itself.
        QFETCH(int, level);
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        const ProductKernels& kernels = *runnableProductKernels()[std::size_t(level)];
        std::mt19937_64 rng(std::uint64_t(m * 7919 + k * 31 + n));
        const Index ldb = n + 5;
        const std::vector<double> a = randomBlock<double>(rng, m, k, k + 2), w = randomBlock<double>(rng, k, n, ldb);
        PackedDoubleWeight panels;
        kernels.packDoubleWeight(w.data(), ldb, k, n, panels);
        QCOMPARE(panels.level, &kernels);
        QCOMPARE(panels.k, Index(k));
        QCOMPARE(panels.n, Index(n));
        QVERIFY(panels.columnGroup >= 1);
        const QByteArray difference = rangesDifference(kernels, a, m, k, w, w, ldb, panels, true);
        QVERIFY2(difference.isEmpty(), difference.constData());
    }

    void doublePanelsServeAlone_data()
    {
        addLevelsRowsDepths({5, 64, 129}, {64, 768});
    }

    void doublePanelsServeAlone()
    {
        // The engine's products (more than four rows, d_model 64 or 768) of ranges that start and end at whole
        // column groups read only the panels: given NaN for the unpacked weights, they still equal dgemm with the
        // real ones.
        QFETCH(int, level);
        QFETCH(int, m);
        QFETCH(int, k);
        const ProductKernels& kernels = *runnableProductKernels()[std::size_t(level)];
        const Index n = 520, ldb = n;
        std::mt19937_64 rng(std::uint64_t(m + k));
        const std::vector<double> a = randomBlock<double>(rng, m, k, k + 2), w = randomBlock<double>(rng, k, n, ldb);
        PackedDoubleWeight panels;
        kernels.packDoubleWeight(w.data(), ldb, k, n, panels);
        const std::vector<double> nan(w.size(), std::numeric_limits<double>::quiet_NaN());
        const QByteArray difference = rangesDifference(kernels, a, m, k, w, nan, ldb, panels, false);
        QVERIFY2(difference.isEmpty(), difference.constData());
    }

    void doublePanelsOfAnotherLevel()
    {
        // Panels packed by one level and handed to another's product are not read: that level's dgemm of the
        // unpacked weights, bit for bit.
        const auto levels = runnableProductKernels();
        if (levels.size() < 2)
            QSKIP("one level runs here");
        const Index m = 64, k = 256, n = 200;
        std::mt19937_64 rng(7);
        const std::vector<double> a = randomBlock<double>(rng, m, k, k + 2), w = randomBlock<double>(rng, k, n, n);
        for (std::size_t l = 0; l < levels.size(); ++l) {
            const ProductKernels& packer = *levels[l];
            const ProductKernels& kernels = *levels[(l + 1) % levels.size()];
            PackedDoubleWeight panels;
            packer.packDoubleWeight(w.data(), n, k, n, panels);
            const QByteArray difference = firstDifference(doubleProduct(kernels, a, m, k, w, n, 0, n, &panels),
                                                          doubleProduct(kernels, a, m, k, w, n, 0, n, nullptr), n + 3);
            QVERIFY2(difference.isEmpty(), difference.constData());
        }
    }
};

QTEST_APPLESS_MAIN(TestPackedProducts)
#include "tst_packedproducts.moc"
