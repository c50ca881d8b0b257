#include "core/formats/npy.h"

#include "python.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using core::NpyDtype;
using core::NpyLayout;

namespace {

/** A file with the given header dict and data, padded as NumPy pads (align 64). */
std::string npyFile(const std::string& dict, const std::string& data, int major = 1)
{
    const std::size_t lengthWidth = major == 1 ? 2 : 4;
    std::string header = dict;
    header.append(64 - (6 + 2 + lengthWidth + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY", 6);
    out += char(major);
    out += '\0';
    for (std::size_t i = 0; i < lengthWidth; ++i)
        out += char((header.size() >> (8 * i)) & 0xff);
    return out + header + data;
}

std::string doubles(std::initializer_list<double> values)
{
    std::string out;
    for (double v : values)
        out.append(reinterpret_cast<const char*>(&v), sizeof v);
    return out;
}

/** m with every entry rounded to float, as a float32 file holds it. */
core::Matrix asFloat(const core::Matrix& m)
{
    return m.unaryExpr([](double v) { return double(float(v)); });
}

core::Matrix sample(int rows, int cols)
{
    core::Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = (r * cols + c) * 0.1 + 1.0 / 3.0 - (c % 2 ? 7.25 : 0.0);
    return m;
}

}  // namespace

class TestNpy : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<bool>("bigEndian");
        QTest::addColumn<bool>("fortran");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        for (int dtype : {0, 1})
            for (bool big : {false, true})
                for (bool fortran : {false, true})
                    for (auto [r, c] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{5, 2}})
                        QTest::addRow("%s %s %s %d×%d", dtype == 0 ? "f8" : "f4", big ? "big" : "little",
                                      fortran ? "F" : "C", r, c)
                            << dtype << big << fortran << r << c;
    }

    void roundTrip()
    {
        QFETCH(int, dtype);
        QFETCH(bool, bigEndian);
        QFETCH(bool, fortran);
        QFETCH(int, rows);
        QFETCH(int, cols);
        const NpyLayout layout{dtype == 0 ? NpyDtype::Float64 : NpyDtype::Float32, bigEndian, fortran};
        const core::Matrix m = sample(rows, cols);
        const std::string bytes = core::encodeNpy(m, layout);
        QCOMPARE(bytes.size() % 64, std::size_t(rows * cols * (dtype == 0 ? 8 : 4)) % 64);

        std::string error;
        const auto back = core::decodeNpy(bytes, error);
        QVERIFY2(back, error.c_str());
        QVERIFY(back->layout == layout);
        QCOMPARE(back->dimensions, 2);
        if (dtype == 0)
            QVERIFY(back->values == m);  // exact
        else
            QVERIFY(back->values == asFloat(m));
    }

    void bytesOfTinyArray()
    {
        // {'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), } is 59 characters;
        // 10 + 59 + 1 = 70, so 58 spaces pad the file's first part to 128 bytes: the header is 118 = 0x76.
        std::string expected("\x93NUMPY\x01\x00\x76\x00", 10);
        expected += "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }";
        expected += std::string(58, ' ') + "\n";
        expected += std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f", 8);  // 1.0
        expected += std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8);  // 2.0
        QCOMPARE(expected.size(), std::size_t(144));
        const std::string actual = core::encodeNpy(testutil::mat({{1, 2}}));
        QCOMPARE(QByteArray::fromStdString(actual).toHex(' '), QByteArray::fromStdString(expected).toHex(' '));

        // float32, big-endian, Fortran order: 2.0f is 40 00 00 00, −1.5f is bf c0 00 00.
        std::string expected32("\x93NUMPY\x01\x00\x76\x00", 10);
        expected32 += "{'descr': '>f4', 'fortran_order': True, 'shape': (2, 1), }";
        expected32 += std::string(59, ' ') + "\n";
        expected32 += std::string("\x40\x00\x00\x00\xbf\xc0\x00\x00", 8);
        const std::string actual32 =
            core::encodeNpy(testutil::mat({{2}, {-1.5}}), NpyLayout{NpyDtype::Float32, true, true});
        QCOMPARE(QByteArray::fromStdString(actual32).toHex(' '), QByteArray::fromStdString(expected32).toHex(' '));
    }

    void readsOtherHeaders_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("dimensions");
        const std::string six = doubles({1, 2, 3, 4, 5, 6});

        // Older NumPy padded to 16 bytes; version 2.0 has a 4-byte length; keys in any order,
        // double quotes, Python 2 longs, no trailing comma.
        std::string old16("\x93NUMPY\x01\x00", 8);
        std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
        dict.append(16 - (10 + dict.size() + 1) % 16, ' ');
        dict += '\n';
        old16 += char(dict.size());
        old16 += '\0';
        old16 += dict + six;
        QTest::addRow("padded to 16") << QByteArray::fromStdString(old16) << 2 << 3 << 2;
        QTest::addRow("version 2.0")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", six, 2))
            << 2 << 3 << 2;
        QTest::addRow("version 3.0")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", six, 3))
            << 3 << 2 << 2;
        QTest::addRow("keys reordered, double quotes")
            << QByteArray::fromStdString(npyFile("{\"shape\": (6,), \"fortran_order\": False, \"descr\": \"<f8\"}", six))
            << 1 << 6 << 1;
        QTest::addRow("python 2 longs")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }", six))
            << 2 << 3 << 2;
        QTest::addRow("1-D is a row")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", six))
            << 1 << 6 << 1;
    }

    void readsOtherHeaders()
    {
        QFETCH(QByteArray, file);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, dimensions);
        std::string error;
        const auto a = core::decodeNpy(file.toStdString(), error);
        QVERIFY2(a, error.c_str());
        QCOMPARE(a->values.rows(), rows);
        QCOMPARE(a->values.cols(), cols);
        QCOMPARE(a->dimensions, dimensions);
        // C order: entries run along the rows.
        QCOMPARE(a->values(0, 0), 1.0);
        QCOMPARE(a->values(0, 1), 2.0);
        QCOMPARE(a->values(rows - 1, cols - 1), 6.0);
    }

    void fortranOrderTransposesTheData()
    {
        const std::string f = npyFile("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                                      doubles({1, 2, 3, 4, 5, 6}));
        std::string error;
        const auto a = core::decodeNpy(f, error);
        QVERIFY2(a, error.c_str());
        COMPARE_MATRIX(a->values, testutil::mat({{1, 3, 5}, {2, 4, 6}}), 0);
    }

    void refusesMalformed_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("keyword");
        const std::string two = doubles({1, 2});
        const std::string ok = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }";
        auto add = [](const char* name, const std::string& bytes, const char* keyword) {
            QTest::addRow("%s", name) << QByteArray::fromStdString(bytes) << QString::fromUtf8(keyword);
        };
        add("empty", "", "magic");
        add("text file", "1,2,3\n4,5,6\n", "magic");
        add("almost the magic", std::string("\x93NUMPZ\x01\x00", 8) + std::string(100, ' '), "magic");
        add("magic only", std::string("\x93NUMPY", 6), "version");
        add("version 4.0", std::string("\x93NUMPY\x04\x00\x10\x00", 10) + std::string(16, ' '), "version 4.0");
        add("version 1.1", std::string("\x93NUMPY\x01\x01\x10\x00", 10) + std::string(16, ' '), "version 1.1");
        add("no header length", std::string("\x93NUMPY\x01\x00\x10", 9), "header length");
        add("header longer than the file", std::string("\x93NUMPY\x01\x00\xff\x00", 10) + ok, "truncated");
        add("header is a list", npyFile("['<f8', False, (1, 2)]", two), "not a dict");
        add("header is garbage", npyFile("\x01\x02\x03", two), "not a dict");
        add("unclosed dict", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), ", two), "dict");
        add("missing descr", npyFile("{'fortran_order': False, 'shape': (1, 2), }", two), "descr");
        add("missing fortran_order", npyFile("{'descr': '<f8', 'shape': (1, 2), }", two), "fortran_order");
        add("missing shape", npyFile("{'descr': '<f8', 'fortran_order': False, }", two), "shape");
        add("unknown key", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), 'x': 'y'}", two),
            "unexpected key 'x'");
        add("duplicate key", npyFile("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)}", two),
            "twice");
        add("int32", npyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 4), }", two), "'<i4'");
        add("objects", npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (1, 2), }", two), "'|O'");
        add("complex", npyFile("{'descr': '<c16', 'fortran_order': False, 'shape': (1, 1), }", two), "'<c16'");
        add("structured dtype", npyFile("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", two),
            "descr");
        add("fortran_order not a bool", npyFile("{'descr': '<f8', 'fortran_order': 0, 'shape': (1, 2), }", two),
            "fortran_order");
        add("shape not a tuple", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': '1, 2', }", two),
            "shape must be a tuple");
        add("negative dimension", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 2), }", two), "shape");
        add("3-D", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 2), }", two), "1-D or 2-D");
        add("0-D", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", two), "1-D or 2-D");
        add("empty array", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }", ""), "empty");
        add("data shorter", npyFile(ok, doubles({1})), "shorter");
        add("data longer", npyFile(ok, doubles({1, 2, 3})), "longer");
        add("absurd size", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }", two),
            "too large");
        add("overflowing size",
            npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", two), "too large");
        add("huge number", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999, 1), }", two),
            "absurdly large");
        add("NaN", npyFile(ok, doubles({1, std::numeric_limits<double>::quiet_NaN()})), "(1, 2) is NaN");
        add("infinity", npyFile(ok, doubles({-std::numeric_limits<double>::infinity(), 1})), "(1, 1) is -infinity");
    }

    void refusesMalformed()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, keyword);
        std::string error;
        const auto a = core::decodeNpy(file.toStdString(), error);
        QVERIFY2(!a, "a malformed file was read");
        QVERIFY2(QString::fromStdString(error).contains(keyword),
                 qPrintable(QStringLiteral("\"%1\" does not mention \"%2\"").arg(QString::fromStdString(error), keyword)));
    }

    void nonFiniteAllowedOnRequest()
    {
        const std::string f = npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                                      doubles({std::numeric_limits<double>::quiet_NaN(), 1}));
        std::string error;
        const auto a = core::decodeNpy(f, error, true);
        QVERIFY2(a, error.c_str());
        QVERIFY(std::isnan(a->values(0, 0)));
    }

    void float32OutOfRangeBecomesInfinity()
    {
        const std::string f = core::encodeNpy(testutil::mat({{1e300, -1e300, 0.5}}), NpyLayout{NpyDtype::Float32});
        std::string error;
        QVERIFY(!core::decodeNpy(f, error));
        QVERIFY(QString::fromStdString(error).contains(QLatin1String("infinity")));
        const auto a = core::decodeNpy(f, error, true);
        QVERIFY(a);
        QCOMPARE(a->values(0, 0), std::numeric_limits<double>::infinity());
        QCOMPARE(a->values(0, 1), -std::numeric_limits<double>::infinity());
        QCOMPARE(a->values(0, 2), 0.5);
    }

    void mutationsNeverCrash()
    {
        const std::string valid = core::encodeNpy(sample(3, 4));
        std::string error;
        for (std::size_t cut = 0; cut <= valid.size(); ++cut)
            QVERIFY(!core::decodeNpy(std::string_view(valid).substr(0, cut), error) || cut == valid.size());
        std::mt19937_64 rng(7);
        int read = 0;
        for (int i = 0; i < 20000; ++i) {
            std::string bytes = valid;
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits; ++e)
                bytes[rng() % 128] = char(rng() % 256);
            read += core::decodeNpy(bytes, error) ? 1 : 0;
        }
        QVERIFY(read < 20000);
    }

    void crossCheckWithNumpy()
    {
        const QString python = testutil::pythonWith(QStringLiteral("numpy"));
        if (python.isEmpty())
            QSKIP("numpy is missing: no python3 on PATH can import numpy, so the cross-check with NumPy is skipped");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());

        // NumPy writes every variant; we read them.
        const QByteArray write = R"PY(
import sys, numpy as np
d = sys.argv[1]
a = np.arange(6, dtype=np.float64).reshape(2, 3) * 0.1 + 1 / 3
for name, dt in (("lf8", "<f8"), ("bf8", ">f8"), ("lf4", "<f4"), ("bf4", ">f4")):
    np.save(f"{d}/{name}_c.npy", a.astype(dt))
    np.save(f"{d}/{name}_f.npy", np.asfortranarray(a.astype(dt)))
np.save(f"{d}/row.npy", np.array([1.5, -2.0, 3.25]))
)PY";
        QString error;
        testutil::runPython(python, write, {dir.path()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        core::Matrix expected(2, 3);
        for (int k = 0; k < 6; ++k)
            expected(k / 3, k % 3) = k * 0.1 + 1.0 / 3;
        for (const char* name : {"lf8", "bf8", "lf4", "bf4"})
            for (const char* order : {"c", "f"}) {
                QFile f(dir.filePath(QStringLiteral("%1_%2.npy").arg(QLatin1String(name), QLatin1String(order))));
                QVERIFY(f.open(QIODevice::ReadOnly));
                std::string why;
                const auto a = core::decodeNpy(f.readAll().toStdString(), why);
                QVERIFY2(a, why.c_str());
                QCOMPARE(a->layout.fortranOrder, order[0] == 'f');
                QCOMPARE(a->layout.bigEndian, name[0] == 'b');
                // Named, not a conditional temporary: a Ref bound to one read stale data in optimised builds.
                const core::Matrix want = name[2] == '8' ? expected : asFloat(expected);
                COMPARE_MATRIX(a->values, want, 0);
            }
        QFile row(dir.filePath(QStringLiteral("row.npy")));
        QVERIFY(row.open(QIODevice::ReadOnly));
        std::string why;
        const auto r = core::decodeNpy(row.readAll().toStdString(), why);
        QVERIFY2(r, why.c_str());
        QCOMPARE(r->dimensions, 1);
        COMPARE_MATRIX(r->values, testutil::mat({{1.5, -2.0, 3.25}}), 0);

        // We write every variant; NumPy reads them, and writes the same bytes for <f8 in C order.
        struct Variant {
            const char* name;
            NpyLayout layout;
        };
        const Variant variants[] = {
            {"lf8c", {NpyDtype::Float64, false, false}}, {"bf8f", {NpyDtype::Float64, true, true}},
            {"lf4f", {NpyDtype::Float32, false, true}},  {"bf4c", {NpyDtype::Float32, true, false}},
        };
        for (const Variant& v : variants) {
            QFile f(dir.filePath(QStringLiteral("ours_%1.npy").arg(QLatin1String(v.name))));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(core::encodeNpy(expected, v.layout)));
        }
        const QByteArray read = R"PY(
import sys, json, numpy as np
d = sys.argv[1]
out = {}
for name in ("lf8c", "bf8f", "lf4f", "bf4c"):
    a = np.load(f"{d}/ours_{name}.npy")
    out[name] = {"dtype": a.dtype.str, "fortran": bool(np.isfortran(a)), "values": a.astype(np.float64).tolist()}
a = np.arange(6, dtype=np.float64).reshape(2, 3) * 0.1 + 1 / 3
np.save(f"{d}/numpy_same.npy", a)
print(json.dumps(out))
)PY";
        const QByteArray json = testutil::runPython(python, read, {dir.path()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QJsonObject result = QJsonDocument::fromJson(json).object();
        for (const Variant& v : variants) {
            const QJsonObject o = result.value(QLatin1String(v.name)).toObject();
            const bool f64 = v.layout.dtype == NpyDtype::Float64;
            QCOMPARE(o.value(QLatin1String("dtype")).toString(),
                     QStringLiteral("%1f%2").arg(QLatin1Char(v.layout.bigEndian ? '>' : '<')).arg(f64 ? 8 : 4));
            QCOMPARE(o.value(QLatin1String("fortran")).toBool(), v.layout.fortranOrder);
            const QJsonArray rows = o.value(QLatin1String("values")).toArray();
            QCOMPARE(rows.size(), 2);
            for (int r = 0; r < 2; ++r)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(rows[r].toArray()[c].toDouble(), f64 ? expected(r, c) : double(float(expected(r, c))));
        }
        QFile same(dir.filePath(QStringLiteral("numpy_same.npy")));
        QVERIFY(same.open(QIODevice::ReadOnly));
        QCOMPARE(same.readAll().toHex(' '), QByteArray::fromStdString(core::encodeNpy(expected)).toHex(' '));
    }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "tst_npy.moc"
