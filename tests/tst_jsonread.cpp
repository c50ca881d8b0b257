/** The bounded JSON reader every file goes through (core/jsonread.h): its size and depth limits hold exactly at
 *  their edges, a key given twice is refused where asked, a text cut short says so, and what messages quote is
 *  short and carries no terminal control. */

#include "core/formats/jsonread.h"

#include <QTest>

#include <string>

using nlohmann::json;

namespace {

std::string nested(int depth)
{
    return std::string(std::size_t(depth), '[') + "0" + std::string(std::size_t(depth), ']');
}

} // namespace

class TestJsonRead : public QObject {
    Q_OBJECT

private slots:
    void depthLimitAtItsEdge()
    {
        const core::JsonLimits limits{.maxBytes = 1 << 20, .maxDepth = 64};
        std::string error;
        const auto within = core::readJson(nested(64), "f.json", limits, error);
        QVERIFY2(within, error.c_str());
        QVERIFY(!core::readJson(nested(65), "f.json", limits, error));
        QVERIFY2(error.starts_with("f.json: nested more than 64 deep"), error.c_str());
        // Brackets inside strings are text, not nesting.
        QVERIFY2(core::readJson("[\"" + std::string(1000, '[') + "\"]", "f.json", limits, error), error.c_str());
        // Deep enough to overflow a recursive reader: refused before parsing, and quickly.
        QVERIFY(!core::readJson(nested(1'000'000), "f.json", {.maxBytes = 4 << 20}, error));
        QVERIFY2(error.find("nested more than") != std::string::npos, error.c_str());
    }

    void sizeLimitAtItsEdge()
    {
        const std::string text = "[" + std::string(98, ' ') + "]"; // 100 bytes
        std::string error;
        QVERIFY2(core::readJson(text, "f.json", {.maxBytes = 100}, error), error.c_str());
        QVERIFY(!core::readJson(text, "f.json", {.maxBytes = 99}, error));
        QCOMPARE(error, std::string("f.json: 100 bytes, more than the 99 this file may have"));
    }

    void valueLimitAtItsEdge()
    {
        std::string error;
        const std::string text = R"({"a": [1, 2, [3]], "b": {"c": 4}})"; // 4 brackets, 3 separators: 7 counted
        QVERIFY2(core::readJson(text, "f.json", {.maxValues = 7}, error), error.c_str());
        QVERIFY(!core::readJson(text, "f.json", {.maxValues = 6}, error));
        QVERIFY2(error.starts_with("f.json: more than 6 values"), error.c_str());
        // Separators inside strings are text.
        QVERIFY2(core::readJson("[\"a,b,c,[{\"]", "f.json", {.maxValues = 1}, error), error.c_str());
    }

    void repeatedKeys()
    {
        const std::string text = R"({"a": {"b": 1, "c": 2}, "d": {"b": 3, "b": 4}})";
        std::string error;
        QVERIFY(!core::readJson(text, "f.json", {}, error));
        QCOMPARE(error, std::string("f.json: the key \"b\" is given twice in one object, and only one can be read"));
        // The same key in two objects is no repetition.
        QVERIFY2(core::readJson(R"({"a": {"b": 1}, "c": {"b": 2}})", "f.json", {}, error), error.c_str());
        // Without uniqueKeys the last one counts, as nlohmann reads it.
        const auto lenient = core::readJson(text, "f.json", {.uniqueKeys = false}, error);
        QVERIFY(lenient);
        QCOMPARE((*lenient)["d"]["b"].get<int>(), 4);
    }

    void notJson_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<std::string>("expected");
        QTest::addRow("cut short") << std::string(R"({"n_layer": 2,)")
                                   << std::string("f.json: not valid JSON: the text ends (after 14 bytes) before "
                                                  "its JSON value does; is the file cut short?");
        QTest::addRow("empty") << std::string() << std::string("f.json: not valid JSON: the text ends (after 0 bytes)");
        QTest::addRow("stray byte") << std::string("[1, 2 x]") << std::string("f.json: not valid JSON at byte 7: ");
        QTest::addRow("invalid UTF-8") << std::string("[\"a\xff\"]") << std::string("f.json: not valid JSON at byte");
    }

    void notJson()
    {
        QFETCH(std::string, text);
        QFETCH(std::string, expected);
        std::string error;
        QVERIFY(!core::readJson(text, "f.json", {}, error));
        QVERIFY2(error.starts_with(expected), error.c_str());
        QVERIFY2(error.find('\n') == std::string::npos, error.c_str());
    }

    void excerptsEscapeControls_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<std::string>("expected");
        QTest::addRow("escape") << std::string("\x1b[31mred") << std::string("\\u001b[31mred");
        QTest::addRow("line break") << std::string("a\nb") << std::string("a\\u000ab");
        QTest::addRow("DEL") << std::string("a\x7f") << std::string("a\\u007f");
        QTest::addRow("C1 CSI") << std::string("a\xc2\x9b") << std::string("a\\u009b");
        QTest::addRow("right-to-left override") << std::string("a\xe2\x80\xae") << std::string("a\\u202e");
        QTest::addRow("invalid byte") << std::string("a\xff") << std::string("a\\xff");
        QTest::addRow("cut sequence") << std::string("a\xe2\x80") << std::string("a\\xe2\\x80");
        QTest::addRow("CJK kept") << std::string("猫 Ġcat") << std::string("猫 Ġcat");
    }

    void excerptsEscapeControls()
    {
        QFETCH(std::string, text);
        QFETCH(std::string, expected);
        QCOMPARE(core::messageExcerpt(text), expected);
    }

    void excerptsAreShort()
    {
        const std::string cut = core::messageExcerpt(std::string(1000, 'a'), 80);
        QCOMPARE(cut, std::string(80, 'a') + "…");
        // A huge value is not written whole to be cut.
        const json big = json(std::vector<int>(1'000'000, 7));
        const std::string excerpt = core::jsonExcerpt(big, 40);
        QVERIFY2(excerpt.size() < 60 && excerpt.starts_with("[7,7,7"), excerpt.c_str());
        QCOMPARE(core::jsonExcerpt(json("\x1b]0;title\x07")), std::string("\"\\u001b]0;title\\u0007\""));
    }
};

QTEST_GUILESS_MAIN(TestJsonRead)
#include "tst_jsonread.moc"
