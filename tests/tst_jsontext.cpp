/** JSON text as the program writes it: every double in the shortest form that reads back to it, in
 *  nlohmann::json's layout, and whole documents the same whether written at once or piece by piece. */

#include "core/formats/jsontext.h"

#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "core/attention/tracejson.h"
#include "testutil.h"

#include <QTest>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace {

using nlohmann::json;

/** The whole text read as a double by std::from_chars (which no locale touches); NaN if it is not one. */
double readBack(const std::string& text)
{
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc() && ptr == text.data() + text.size() ? v : std::nan("");
}

using testutil::sameBits;

/** A number's text as its significant digits and the power of ten of the last one: "-0.0125" → 125, −4. */
struct Decimal {
    std::uint64_t digits = 0;
    int count = 0;
    int exponent = 0;
};

Decimal decimalOf(const std::string& text)
{
    Decimal d;
    const std::size_t e = text.find('e');
    int fraction = 0;
    bool afterPoint = false;
    for (char c : text.substr(0, e)) {
        if (c == '.') {
            afterPoint = true;
        } else if (c >= '0' && c <= '9') {
            d.digits = d.digits * 10 + std::uint64_t(c - '0');
            if (d.digits != 0)
                ++d.count;
            if (afterPoint)
                ++fraction;
        }
    }
    d.exponent = (e == std::string::npos ? 0 : std::stoi(text.substr(e + 1))) - fraction;
    while (d.digits != 0 && d.digits % 10 == 0) { // "100.0": the zeros hold places, they are not digits
        d.digits /= 10;
        --d.count;
        ++d.exponent;
    }
    return d;
}

/** Whether a decimal with one significant digit fewer than text's reads back to v: text's digits without the
 *  last, rounded down and up (the two nearest such decimals; any other lies further from v). */
bool shorterReadsBack(const std::string& text, double v)
{
    const Decimal d = decimalOf(text);
    if (d.count <= 1)
        return false;
    const std::string sign = std::signbit(v) ? "-" : "";
    for (std::uint64_t candidate : {d.digits / 10, d.digits / 10 + 1})
        if (sameBits(readBack(sign + std::to_string(candidate) + "e" + std::to_string(d.exponent + 1)), v))
            return true;
    return false;
}

/** The shape of a number's text with every digit a '#': "1.25e-05" → "#.##e-##". */
std::string shape(std::string text)
{
    for (char& c : text)
        if (c >= '0' && c <= '9')
            c = '#';
    return text;
}

/** Doubles of every kind: like weights, like typed numbers, any bit pattern, subnormals, the extremes. */
std::vector<double> sampleDoubles(int count)
{
    std::mt19937_64 rng(20261204);
    std::uniform_real_distribution<double> unit(-1, 1);
    std::uniform_int_distribution<int> power(-320, 308);
    std::vector<double> values = {0.1, 1.0 / 3.0, 2.0 / 3.0, 1e23, 5e-324, -0.0, 0.0, 1e15, 1e16, 9.999999999999999e14,
                                  1e-4, 1e-5, 0.00012345, 123456789012345.6, std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::min(), -0.31849470174862887};
    for (int i = 0; i < count; ++i) {
        values.push_back(unit(rng));
        values.push_back(std::round(unit(rng) * 1000) / 1000);
        values.push_back(unit(rng) * std::pow(10.0, power(rng)));
        values.push_back(std::bit_cast<double>(rng() >> 12)); // a subnormal (or zero)
        const double any = std::bit_cast<double>(rng());
        if (std::isfinite(any))
            values.push_back(any);
    }
    return values;
}

} // namespace

class TestJsonText : public QObject {
    Q_OBJECT

private slots:
    void jsonNumber_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("whole") << 1.0 << QStringLiteral("1.0");
        QTest::addRow("negative whole") << -42.0 << QStringLiteral("-42.0");
        QTest::addRow("fraction") << 0.25 << QStringLiteral("0.25");
        QTest::addRow("0.1 + 0.2") << 0.1 + 0.2 << QStringLiteral("0.30000000000000004");
        // Grisu2 (nlohmann) writes -0.31849470174862887: one digit more than it needs.
        QTest::addRow("shortest") << -0.31849470174862887 << QStringLiteral("-0.3184947017486289");
        QTest::addRow("fixed from 1e-4") << 0.0001 << QStringLiteral("0.0001");
        QTest::addRow("exponent below") << 0.00001 << QStringLiteral("1e-05");
        QTest::addRow("fixed to 15 digits") << 1e14 << QStringLiteral("100000000000000.0");
        QTest::addRow("fixed with fraction") << 123456789012345.6 << QStringLiteral("123456789012345.6");
        QTest::addRow("exponent from 1e15") << 1e15 << QStringLiteral("1e+15");
        QTest::addRow("large") << 1.5e20 << QStringLiteral("1.5e+20");
        QTest::addRow("largest") << std::numeric_limits<double>::max() << QStringLiteral("1.7976931348623157e+308");
        QTest::addRow("smallest subnormal") << std::numeric_limits<double>::denorm_min() << QStringLiteral("5e-324");
        QTest::addRow("zero") << 0.0 << QStringLiteral("0.0");
        QTest::addRow("negative zero") << -0.0 << QStringLiteral("-0.0");
        QTest::addRow("infinity") << std::numeric_limits<double>::infinity() << QStringLiteral("null");
        QTest::addRow("nan") << std::nan("") << QStringLiteral("null");
    }

    void jsonNumber()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(core::jsonNumber(value)), text);
    }

    /** SPEC §3: the shortest form that reads back to the same double, at most 17 significant digits, valid JSON
     *  that a reader takes for a floating-point number, in nlohmann's layout. */
    void jsonNumberIsShortestAndExact()
    {
        int checked = 0;
        for (double v : sampleDoubles(20000)) {
            const std::string text = core::jsonNumber(v);
            const std::string what = text + " for " + json(v).dump();
            QVERIFY2(sameBits(readBack(text), v), ("does not read back: " + what).c_str());
            QVERIFY2(!shorterReadsBack(text, v), ("a shorter decimal reads back: " + what).c_str());
            QVERIFY2(decimalOf(text).count <= 17, what.c_str());
            const json parsed = json::parse(text, nullptr, false);
            QVERIFY2(parsed.is_number_float() && sameBits(parsed.get<double>(), v), ("not a JSON double: " + what).c_str());
            // Where nlohmann's own text is as short, the layout is its layout exactly.
            const std::string theirs = json(v).dump();
            if (theirs.size() == text.size())
                QCOMPARE(shape(text), shape(theirs));
            ++checked;
        }
        QVERIFY(checked > 90000);
    }

    /** A document is written as nlohmann writes it, where nlohmann's numbers are already the shortest. */
    void documentLayout_data()
    {
        QTest::addColumn<int>("indent");
        for (int indent : {-1, 0, 1, 2, 4})
            QTest::addRow("indent %d", indent) << indent;
    }

    void documentLayout()
    {
        QFETCH(int, indent);
        json j = {{"tokens", {"Thinking", "猫", "a\"b\\c\n", std::string("bad \xff byte")}},
                  {"x", {{1.0, -0.0, 0.5}, {1e-05, 1.5e20, 0.1}}},
                  {"empty list", json::array()},
                  {"empty object", json::object()},
                  {"nested", {{"ids", {464, -3, 0}}, {"flag", true}, {"none", nullptr}, {"deep", {json::array()}}}},
                  {"big", std::uint64_t(18446744073709551615ULL)}};
        QCOMPARE(core::jsonText(j, indent), j.dump(indent, ' ', false, json::error_handler_t::replace));
        const nlohmann::ordered_json ordered = {{"z", 1}, {"a", {0.25, "b"}}, {"m", nlohmann::ordered_json::object()}};
        QCOMPARE(core::jsonText(ordered, indent),
                 ordered.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    }

    /** A large document reaches the sink in pieces, together the text jsonText gives; a sink that refuses stops
     *  the writing and finish() says so. */
    void streaming()
    {
        core::Matrix m(300, 40);
        for (Eigen::Index i = 0; i < m.size(); ++i)
            m.data()[i] = std::sin(double(i)) / 7;
        const json j = core::matrixToJson(m);

        std::vector<std::string> pieces;
        core::JsonWriter writer([&pieces](std::string_view piece) {
            pieces.emplace_back(piece);
            return true;
        });
        writer.matrix(m);
        QVERIFY(writer.finish());
        QVERIFY(pieces.size() > 2);
        std::string all;
        for (const std::string& piece : pieces)
            all += piece;
        QCOMPARE(all, core::jsonText(j));

        int calls = 0;
        core::JsonWriter refused([&calls](std::string_view) {
            ++calls;
            return false;
        });
        refused.matrix(m);
        QVERIFY(!refused.finish());
        QCOMPARE(calls, 1);

        for (const core::Matrix& empty : {core::Matrix(0, 0), core::Matrix(2, 0)}) {
            std::string text;
            core::JsonWriter w([&text](std::string_view piece) {
                text += piece;
                return true;
            });
            w.matrix(empty);
            QVERIFY(w.finish());
            QCOMPARE(text, core::matrixToJson(empty).dump(1));
        }
    }

    /** --compute's object written as it goes is, byte for byte, the JSON tree of the trace (with a model's keys
     *  joined or replacing, in key order) written at once: every preset, each of its heads. */
    void computeJsonAsItGoes()
    {
        const json extras = {{"tokens", {"Ġa", "b"}}, {"attentions", {{{{1.0}}}}}, {"layer", 2}, {"zz", 0.1}};
        for (const core::PresetInfo& info : core::presetList()) {
            const auto session = core::preset(info.name);
            QVERIFY(session);
            const core::Trace trace = core::compute(session->model);
            QCOMPARE(core::traceToJsonText(trace), core::jsonText(core::traceToJson(trace)));

            json whole = core::traceToJson(trace);
            whole.update(extras);
            std::string text;
            core::JsonWriter writer([&text](std::string_view piece) {
                text += piece;
                return true;
            });
            core::writeComputeJson(writer, trace, extras);
            QVERIFY(writer.finish());
            QCOMPARE(text, core::jsonText(whole));
        }
    }
};

QTEST_APPLESS_MAIN(TestJsonText)
#include "tst_jsontext.moc"
