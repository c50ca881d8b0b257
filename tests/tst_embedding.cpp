/** Derived token embeddings, the generators under them, weight initialisers and positional encoding. */

#include "core/attention/embedding.h"
#include "testutil.h"

#include <QTest>

#include <cmath>
#include <set>

using namespace core;

class TestEmbedding : public QObject {
    Q_OBJECT

private slots:
    void fnv1a64Vectors_data();
    void fnv1a64Vectors();
    void splitMix64Reference();
    void uniformAndNormal();
    void tokenEmbeddingPinned_data();
    void tokenEmbeddingPinned();
    void tokenEmbeddingRule();
    void differentTokensDiffer();
    void initWeights_data();
    void initWeights();
    void sinusoidal_data();
    void sinusoidal();
};

void TestEmbedding::fnv1a64Vectors_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<quint64>("hash");
    // Published FNV-1a 64-bit test vectors.
    QTest::addRow("empty") << QByteArray() << quint64(0xcbf29ce484222325ULL);
    QTest::addRow("a") << QByteArray("a") << quint64(0xaf63dc4c8601ec8cULL);
    QTest::addRow("foobar") << QByteArray("foobar") << quint64(0x85944171f73967e8ULL);
}

void TestEmbedding::fnv1a64Vectors()
{
    QFETCH(QByteArray, bytes);
    QFETCH(quint64, hash);
    QCOMPARE(quint64(fnv1a64(std::string_view(bytes.constData(), std::size_t(bytes.size())))), hash);
}

void TestEmbedding::splitMix64Reference()
{
    // The reference implementation's stream from seed 0.
    SplitMix64 rng(0);
    QCOMPARE(quint64(rng.next()), quint64(0xe220a8397b1dcdafULL));
    QCOMPARE(quint64(rng.next()), quint64(0x6e789e6aa1b965f4ULL));
    QCOMPARE(quint64(rng.next()), quint64(0x06c45d188009454fULL));
    QCOMPARE(quint64(rng.next()), quint64(0xf88bb8a8724c81ecULL));
    SplitMix64 again(0);
    QCOMPARE(again.uniform(), double(0xe220a8397b1dcdafULL >> 11) * 0x1.0p-53);
}

void TestEmbedding::uniformAndNormal()
{
    SplitMix64 rng(12345);
    const int count = 200000;
    double sum = 0, sumSq = 0, lo = 1, hi = 0;
    for (int i = 0; i < count; ++i) {
        const double u = rng.uniform();
        QVERIFY(u >= 0 && u < 1);
        lo = std::min(lo, u);
        hi = std::max(hi, u);
    }
    QVERIFY(lo < 1e-3 && hi > 1 - 1e-3);
    for (int i = 0; i < count; ++i) {
        const double z = rng.normal();
        QVERIFY(std::isfinite(z));
        sum += z;
        sumSq += z * z;
    }
    const double mean = sum / count, sd = std::sqrt(sumSq / count - mean * mean);
    QVERIFY2(std::fabs(mean) < 0.01, QByteArray::number(mean).constData());
    QVERIFY2(std::fabs(sd - 1) < 0.01, QByteArray::number(sd).constData());
}

void TestEmbedding::tokenEmbeddingPinned_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<core::Matrix>("expected");
    // From the documented rule, computed independently of this code.
    QTest::addRow("a") << QByteArray("a") << testutil::mat({{-0.3, 1.0, 1.0, 0.4, -0.1, -1.0}});
    QTest::addRow("Thinking") << QByteArray("Thinking") << testutil::mat({{-0.4, -0.4, 0.4, -0.7, 0.3, 0.0}});
    QTest::addRow("注意") << QByteArray("注意") << testutil::mat({{-0.7, -0.6, 0.4, -0.2, -0.6, -0.1}});
}

void TestEmbedding::tokenEmbeddingPinned()
{
    QFETCH(QByteArray, token);
    QFETCH(core::Matrix, expected);
    const RowVector row = tokenEmbedding(std::string_view(token.constData(), std::size_t(token.size())), 6);
    COMPARE_MATRIX(row, expected, 0.0);
    QVERIFY(!std::signbit(row(5)) || row(5) != 0);  // no −0
    // a prefix of a wider row: column c depends only on the token and c
    COMPARE_MATRIX(tokenEmbedding(std::string_view(token.constData(), std::size_t(token.size())), 3),
                   expected.leftCols(3), 0.0);
}

void TestEmbedding::tokenEmbeddingRule()
{
    for (const char* token : {"", "x", "Machines", "self-attention", "。", "😀"}) {
        const RowVector a = tokenEmbedding(token, 64);
        const RowVector b = tokenEmbedding(std::string(token), 64);
        COMPARE_MATRIX(a, b, 0.0);
        for (int c = 0; c < 64; ++c) {
            const double v = a(c);
            QVERIFY(v >= -1 && v <= 1);
            QCOMPARE(v, std::round(v * 10) / 10);  // one of −1.0, −0.9, …, 1.0
            QVERIFY(!(v == 0 && std::signbit(v)));
        }
    }
    const Matrix m = tokenEmbeddings({"b", "a", "b"}, 5);
    QCOMPARE(m.rows(), Eigen::Index(3));
    COMPARE_MATRIX(m.row(0), m.row(2), 0.0);
    COMPARE_MATRIX(m.row(1), tokenEmbedding("a", 5), 0.0);
    QCOMPARE(tokenEmbeddings({}, 4).rows(), Eigen::Index(0));
}

void TestEmbedding::differentTokensDiffer()
{
    std::set<std::vector<double>> rows;
    for (int i = 0; i < 500; ++i) {
        const RowVector r = tokenEmbedding("token" + std::to_string(i), 8);
        rows.insert(std::vector<double>(r.data(), r.data() + r.size()));
    }
    QCOMPARE(int(rows.size()), 500);
    QVERIFY(tokenEmbedding("cat", 4) != tokenEmbedding("Cat", 4));
}

void TestEmbedding::initWeights_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addRow("square") << 4 << 4;
    QTest::addRow("tall") << 6 << 3;
    QTest::addRow("wide") << 3 << 7;
    QTest::addRow("large") << 400 << 300;
}

void TestEmbedding::initWeights()
{
    QFETCH(int, rows);
    QFETCH(int, cols);
    const Matrix zeros = core::initWeights(rows, cols, Init::Zeros, 5);
    COMPARE_MATRIX(zeros, Matrix::Zero(rows, cols), 0.0);

    const Matrix id = core::initWeights(rows, cols, Init::Identity, 5);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            QCOMPARE(id(r, c), r == c ? 1.0 : 0.0);

    const Matrix u = core::initWeights(rows, cols, Init::Uniform, 5);
    const double a = std::sqrt(6.0 / double(rows + cols));
    QCOMPARE(u.rows(), Eigen::Index(rows));
    QCOMPARE(u.cols(), Eigen::Index(cols));
    QVERIFY2(u.cwiseAbs().maxCoeff() <= a, QByteArray::number(u.cwiseAbs().maxCoeff()).constData());
    COMPARE_MATRIX(core::initWeights(rows, cols, Init::Uniform, 5), u, 0.0);  // same seed, same matrix
    QVERIFY(core::initWeights(rows, cols, Init::Uniform, 6) != u);

    const Matrix n = core::initWeights(rows, cols, Init::Normal, 9);
    COMPARE_MATRIX(core::initWeights(rows, cols, Init::Normal, 9), n, 0.0);
    QVERIFY(n.allFinite());
    if (rows * cols >= 10000) {
        const double mean = n.mean();
        const double sd = std::sqrt((n.array() - mean).square().sum() / double(n.size() - 1));
        const double expected = 1.0 / std::sqrt(double(rows));
        QVERIFY2(std::fabs(sd / expected - 1) < 0.02, QByteArray::number(sd / expected).constData());
        QVERIFY2(std::fabs(mean) < 0.02 * expected, QByteArray::number(mean).constData());
        QVERIFY(u.cwiseAbs().maxCoeff() > 0.99 * a);  // Uniform fills its interval
        const double uSd = std::sqrt((u.array() - u.mean()).square().sum() / double(u.size() - 1));
        QVERIFY(std::fabs(uSd / (a / std::sqrt(3.0)) - 1) < 0.02);
    }
}

void TestEmbedding::sinusoidal_data()
{
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("pos");
    QTest::addColumn<int>("col");
    QTest::addColumn<double>("expected");
    QTest::addRow("d4 pos0 col0") << 4 << 0 << 0 << 0.0;
    QTest::addRow("d4 pos0 col1") << 4 << 0 << 1 << 1.0;
    QTest::addRow("d4 pos1 col0 = sin 1") << 4 << 1 << 0 << 0.8414709848078965;
    QTest::addRow("d4 pos1 col2 = sin 0.01") << 4 << 1 << 2 << 0.009999833334166664;
    QTest::addRow("d4 pos1 col3 = cos 0.01") << 4 << 1 << 3 << 0.9999500004166653;
    QTest::addRow("d4 pos2 col1 = cos 2") << 4 << 2 << 1 << -0.4161468365471424;
    QTest::addRow("d5 pos3 col4") << 5 << 3 << 4 << 0.0018928709030918876;
    QTest::addRow("d5 pos1 col3") << 5 << 1 << 3 << 0.9996845379152098;
    QTest::addRow("d512 pos7 col0 = sin 7") << 512 << 7 << 0 << 0.6569865987187891;
    QTest::addRow("d512 pos7 col511") << 512 << 7 << 511 << std::cos(7.0 / std::pow(10000.0, 510.0 / 512.0));
    QTest::addRow("d1 pos5 col0 = sin 5") << 1 << 5 << 0 << -0.9589242746631385;
}

void TestEmbedding::sinusoidal()
{
    QFETCH(int, dModel);
    QFETCH(int, pos);
    QFETCH(int, col);
    QFETCH(double, expected);
    const Matrix pe = sinusoidalEncoding(pos + 2, dModel);
    QCOMPARE(pe.rows(), Eigen::Index(pos + 2));
    QCOMPARE(pe.cols(), Eigen::Index(dModel));
    QVERIFY2(std::fabs(pe(pos, col) - expected) < 1e-14, QByteArray::number(pe(pos, col), 'g', 17).constData());
    QVERIFY((pe.array().abs() <= 1).all());
    QCOMPARE(sinusoidalEncoding(0, dModel).rows(), Eigen::Index(0));
}

QTEST_APPLESS_MAIN(TestEmbedding)
#include "tst_embedding.moc"
