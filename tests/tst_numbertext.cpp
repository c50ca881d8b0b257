/** Numbers as text for machines and for the core's own texts: shortest, exact, and the same under a
 *  locale with a decimal comma; and the files written from them read back under that locale. */

#include "core/attention/attention.h"
#include "core/attention/csvio.h"
#include "core/attention/derivation.h"
#include "core/formats/numbertext.h"
#include "core/session/presets.h"
#include "core/attention/pytorchexport.h"
#include "core/session/sessionfile.h"
#include "core/attention/tracejson.h"

#include "decimalcomma.h"
#include "testutil.h"

#include <QTest>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace {

/** Reads the whole text as a double with std::from_chars (which no locale touches); NaN if it is not one. */
double readBack(const std::string& text)
{
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc() && ptr == text.data() + text.size() ? v : std::nan("");
}

/** Significant digits of a number's text ("0.0125" → 3, "1e+20" → 1, "-2.5e-07" → 2). */
int significantDigits(const std::string& text)
{
    std::string digits;
    for (char c : text.substr(0, text.find('e')))
        if (c >= '0' && c <= '9')
            digits += c;
    const auto first = digits.find_first_not_of('0');
    if (first == std::string::npos)
        return 1;
    digits = digits.substr(first);
    if (text.find('.') == std::string::npos && text.find('e') == std::string::npos)
        return std::max(1, int(digits.find_last_not_of('0')) + 1);  // "1200": trailing zeros hold places
    return int(digits.size());
}

/** v in scientific notation with p significant digits. */
std::string scientific(double v, int p)
{
    char buf[64];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, p - 1);
    return ec == std::errc() ? std::string(buf, ptr) : std::string();
}

/** The fewest significant digits with which v reads back exactly, found by trying 1, 2, … 17. */
int fewestDigits(double v)
{
    for (int p = 1; p < 17; ++p)
        if (readBack(scientific(v, p)) == v)
            return p;
    return 17;
}

using testutil::sameBits;

bool sameMatrix(const core::MatrixCRef& a, const core::MatrixCRef& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return false;
    for (Eigen::Index i = 0; i < a.size(); ++i)
        if (!sameBits(a.data()[i], b.data()[i]))
            return false;
    return true;
}

/** Values whose texts the tests compare under two locales. */
const double kSamples[] = {0.9, 0.1, -2.5, 1.0 / 3.0, 1234567.5, 6.0337e-6, 1e20, -1e-10, 0.5, 42.0};

/** Every kind of text the core writes for a model, in one string. */
std::string everyText(const core::Session& session)
{
    const core::Trace trace = core::compute(session.model);
    std::string all = core::serializeSession(session) + core::pytorchCode(session.model) + core::traceToJsonText(trace);
    for (const core::StepFile& file : core::stepFiles(trace))
        all += file.name + "\n" + file.text;
    for (int i = 0; i < trace.n(); ++i)
        for (int j = 0; j < trace.n(); ++j)
            all += core::derive(trace, {core::Step::Weights, 0, i, j}).text(6) + "\n";
    for (double v : kSamples)
        all += core::machineNumber(v) + " " + core::pythonFloat(v) + " " + core::formatNumber(v) + "\n";
    return all;
}

}  // namespace

class TestNumberText : public QObject {
    Q_OBJECT

private slots:
    void machineNumber_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("0.9") << 0.9 << QStringLiteral("0.9");
        QTest::addRow("0.1") << 0.1 << QStringLiteral("0.1");
        QTest::addRow("whole") << 1.0 << QStringLiteral("1");
        QTest::addRow("negative") << -2.5 << QStringLiteral("-2.5");
        QTest::addRow("third") << 1.0 / 3.0 << QStringLiteral("0.3333333333333333");
        QTest::addRow("0.1 + 0.2") << 0.1 + 0.2 << QStringLiteral("0.30000000000000004");
        QTest::addRow("small") << 1e-5 << QStringLiteral("1e-05");
        QTest::addRow("large") << 1e20 << QStringLiteral("1e+20");
        QTest::addRow("largest") << std::numeric_limits<double>::max() << QStringLiteral("1.7976931348623157e+308");
        QTest::addRow("smallest subnormal") << std::numeric_limits<double>::denorm_min() << QStringLiteral("5e-324");
        QTest::addRow("negative zero") << -0.0 << QStringLiteral("-0");
    }

    void machineNumber()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(core::machineNumber(value)), text);
    }

    void machineNumberIsShortestAndExact()
    {
        std::mt19937_64 rng(17);
        std::uniform_real_distribution<double> unit(-1, 1);
        std::vector<double> values = {0.9, 0.1, 1.0 / 3.0, 2.0 / 3.0, 1e23, 5e-324, -0.0};
        for (int i = 0; i < 2000; ++i) {
            values.push_back(unit(rng));  // like the weights of a session
            values.push_back(std::round(unit(rng) * 1000) / 1000);  // like numbers a person typed
            const double any = std::bit_cast<double>(rng());  // any bit pattern at all
            if (std::isfinite(any))
                values.push_back(any);
        }
        for (double v : values) {
            const std::string text = core::machineNumber(v);
            QVERIFY2(sameBits(readBack(text), v), text.c_str());
            // No more digits than needed; a whole number may be written out in full when that is no
            // longer than its scientific form ("-3544089755670310551552", not "-3.5440897556703106e+21").
            const std::string sci = scientific(v, fewestDigits(v));
            const bool wholeInFull = text.find_first_of(".e") == std::string::npos;
            QVERIFY2(text.size() <= sci.size() && (wholeInFull || significantDigits(text) == fewestDigits(v)),
                     (text + " has " + std::to_string(significantDigits(text)) + " significant digits, "
                      + std::to_string(fewestDigits(v)) + " are enough: " + sci)
                         .c_str());
        }
    }

    void pythonFloat_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("0.9") << 0.9 << QStringLiteral("0.9");
        QTest::addRow("whole") << 1.0 << QStringLiteral("1.0");
        QTest::addRow("negative whole") << -3.0 << QStringLiteral("-3.0");
        QTest::addRow("negative zero") << -0.0 << QStringLiteral("-0.0");
        QTest::addRow("large") << 1e20 << QStringLiteral("1e+20");
        QTest::addRow("small") << -2.5e-7 << QStringLiteral("-2.5e-07");
        QTest::addRow("third") << 1.0 / 3.0 << QStringLiteral("0.3333333333333333");
        QTest::addRow("infinity") << double(INFINITY) << QStringLiteral("float(\"inf\")");
        QTest::addRow("minus infinity") << -double(INFINITY) << QStringLiteral("-float(\"inf\")");
        QTest::addRow("NaN") << double(NAN) << QStringLiteral("float(\"nan\")");
    }

    void pythonFloat()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(core::pythonFloat(value)), text);
    }

    void formatNumber_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<int>("precision");
        QTest::addColumn<QString>("text");
        QTest::addRow("integer") << 4.0 << 4 << QStringLiteral("4");
        QTest::addRow("negative integer") << -12.0 << 4 << QStringLiteral("-12");
        QTest::addRow("largest fixed integer") << 999999.0 << 4 << QStringLiteral("999999");
        // From 10⁶ on every displayed number is scientific (core::shownInScientific), integers too.
        QTest::addRow("large integer") << 123456789.0 << 4 << QStringLiteral("1.2346e+08");
        QTest::addRow("rounds up to a million") << -999999.99999 << 4 << QStringLiteral("-1e+06");
        QTest::addRow("1e300") << 7e299 << 2 << QStringLiteral("7e+299");
        QTest::addRow("zero") << 0.0 << 4 << QStringLiteral("0");
        QTest::addRow("negative zero") << -0.0 << 4 << QStringLiteral("0");
        QTest::addRow("half") << 0.5 << 4 << QStringLiteral("0.5");
        QTest::addRow("trim zeros") << 2.25 << 4 << QStringLiteral("2.25");
        QTest::addRow("third") << 1.0 / 3.0 << 4 << QStringLiteral("0.3333");
        QTest::addRow("negative") << -2.0 / 3.0 << 4 << QStringLiteral("-0.6667");
        QTest::addRow("rounds to integer") << 0.99999 << 4 << QStringLiteral("1");
        QTest::addRow("rounds to zero") << -0.00001 << 4 << QStringLiteral("-1e-05");
        QTest::addRow("precision 2") << 3.14159 << 2 << QStringLiteral("3.14");
        QTest::addRow("precision 0") << 2.5 << 0 << QStringLiteral("2");
        QTest::addRow("0.1 + 0.2") << 0.1 + 0.2 << 4 << QStringLiteral("0.3");
        QTest::addRow("tiny") << 6.0337e-6 << 4 << QStringLiteral("6.0337e-06");
        QTest::addRow("tiny negative") << -1e-10 << 4 << QStringLiteral("-1e-10");
        QTest::addRow("small but shown") << 0.0003 << 4 << QStringLiteral("0.0003");
        QTest::addRow("huge") << 1e20 << 4 << QStringLiteral("1e+20");
        QTest::addRow("large fraction") << 1234567.5 << 4 << QStringLiteral("1.2346e+06");
        QTest::addRow("NaN") << double(NAN) << 4 << QStringLiteral("NaN");
        // beyond double range: how large, never "inf" or "∞" (DBL_MAX is 1.7976931348623157e308)
        QTest::addRow("infinity") << double(INFINITY) << 4 << QStringLiteral(">1.79e308");
        QTest::addRow("minus infinity") << -double(INFINITY) << 4 << QStringLiteral("<-1.79e308");
    }

    void formatNumber()
    {
        QFETCH(double, value);
        QFETCH(int, precision);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(core::formatNumber(value, precision)), text);
    }

    void textsIgnoreTheLocale_data()
    {
        QTest::addColumn<QString>("name");
        for (const core::PresetInfo& p : core::presetList())
            QTest::addRow("%s", p.name.c_str()) << QString::fromStdString(p.name);
    }

    /** Under a decimal-comma locale every text the core writes is byte for byte what it writes under C. */
    void textsIgnoreTheLocale()
    {
        QFETCH(QString, name);
        const auto session = core::preset(name.toStdString());
        QVERIFY(session);
        const std::string underC = everyText(*session);
        testutil::DecimalCommaLocale de;
        QVERIFY2(de.active(), de.missing());
        QCOMPARE(everyText(*session), underC);
    }

    /** Session files and CSV written and read under a decimal-comma locale give back every bit. */
    void filesReadBackUnderTheLocale()
    {
        std::mt19937_64 rng(3);
        core::Session session;
        session.model = testutil::randomModel(rng, 5, 6, 2, 3, 2, 4);
        session.model.embeddings(0, 0) = 0.9;
        session.model.embeddings(0, 1) = -0.0;
        session.model.options.temperature = 0.7;
        const core::Trace trace = core::compute(session.model);

        testutil::DecimalCommaLocale de;
        QVERIFY2(de.active(), de.missing());
        std::string error;
        const auto back = core::parseSession(core::serializeSession(session), error);
        QVERIFY2(back, error.c_str());
        const core::AttentionModel& m = back->model;
        QVERIFY(sameMatrix(m.embeddings, session.model.embeddings));
        QVERIFY(sameMatrix(m.wq, session.model.wq));
        QVERIFY(sameMatrix(m.wk, session.model.wk));
        QVERIFY(sameMatrix(m.wv, session.model.wv));
        QVERIFY(m.wo && sameMatrix(*m.wo, *session.model.wo));
        QCOMPARE(m.options.temperature, 0.7);

        const core::Matrix steps[] = {trace.x(), trace.heads[1].weights, trace.output};
        for (const core::Matrix& step : steps) {
            const auto csv = core::parseCsv(core::formatCsv(step), error);
            QVERIFY2(csv, error.c_str());
            QVERIFY(sameMatrix(*csv, step));
            const auto tsv = core::parseCsv(core::formatCsv(step, '\t'), error);
            QVERIFY2(tsv, error.c_str());
            QVERIFY(sameMatrix(*tsv, step));
        }
    }
};

QTEST_APPLESS_MAIN(TestNumberText)
#include "tst_numbertext.moc"
