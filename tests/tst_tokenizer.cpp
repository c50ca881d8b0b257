/** Typed text → tokens, and the UTF-8 decoding underneath. */

#include "core/text/tokenizer.h"

#include <QByteArrayList>
#include <QTest>

#include <random>

using namespace core;

namespace {

QByteArrayList toList(const std::vector<std::string>& tokens)
{
    QByteArrayList list;
    for (const auto& t : tokens)
        list << QByteArray(t.data(), qsizetype(t.size()));
    return list;
}

std::string bytes(const QByteArray& b)
{
    return std::string(b.constData(), std::size_t(b.size()));
}

}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

private slots:
    void tokenize_data();
    void tokenize();
    void invalidUtf8_data();
    void invalidUtf8();
    void tokensAreValidUtf8();
    void roundTrip();
    void encodeReplacesNonCharacters();
    void classes();
};

void TestTokenizer::tokenize_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArrayList>("expected");

    QTest::addRow("two words") << QByteArray("Thinking Machines") << QByteArrayList{"Thinking", "Machines"};
    QTest::addRow("punctuation") << QByteArray("Hello, world!") << QByteArrayList{"Hello", ",", "world", "!"};
    QTest::addRow("apostrophe inside") << QByteArray("didn't") << QByteArrayList{"didn't"};
    QTest::addRow("typographic apostrophe") << QByteArray("didn’t stop") << QByteArrayList{"didn’t", "stop"};
    QTest::addRow("hyphen inside") << QByteArray("self-attention") << QByteArrayList{"self-attention"};
    QTest::addRow("quotes around a word") << QByteArray("'quoted'") << QByteArrayList{"'", "quoted", "'"};
    QTest::addRow("trailing hyphen") << QByteArray("pre- and post-") << QByteArrayList{"pre", "-", "and", "post", "-"};
    QTest::addRow("double hyphen") << QByteArray("a--b") << QByteArrayList{"a", "-", "-", "b"};
    QTest::addRow("sentence") << QByteArray("The cat sat. It didn't move!")
                              << QByteArrayList{"The", "cat", "sat", ".", "It", "didn't", "move", "!"};
    QTest::addRow("run of punctuation") << QByteArray("Wait...?!") << QByteArrayList{"Wait", ".", ".", ".", "?", "!"};
    QTest::addRow("chinese") << QByteArray("注意力机制很有趣。")
                             << QByteArrayList{"注", "意", "力", "机", "制", "很", "有", "趣", "。"};
    QTest::addRow("chinese and latin") << QByteArray("我爱 NLP!") << QByteArrayList{"我", "爱", "NLP", "!"};
    QTest::addRow("chinese glued to latin") << QByteArray("用GPT写代码") << QByteArrayList{"用", "GPT", "写", "代", "码"};
    QTest::addRow("fullwidth comma") << QByteArray("你好，世界") << QByteArrayList{"你", "好", "，", "世", "界"};
    QTest::addRow("japanese kana") << QByteArray("ひらがなカタカナ")
                                   << QByteArrayList{"ひ", "ら", "が", "な", "カ", "タ", "カ", "ナ"};
    QTest::addRow("ideograph outside the BMP") << QByteArray("𠀀a") << QByteArrayList{"𠀀", "a"};
    QTest::addRow("tabs") << QByteArray("a\tb\t\tc") << QByteArrayList{"a", "b", "c"};
    QTest::addRow("newlines") << QByteArray("a\nb\r\nc\n") << QByteArrayList{"a", "b", "c"};
    QTest::addRow("ideographic space") << QByteArray("注意\u3000力 x\u3000y") << QByteArrayList{"注", "意", "力", "x", "y"};
    QTest::addRow("no-break space") << QByteArray("a\u00A0b") << QByteArrayList{"a", "b"};
    QTest::addRow("narrow no-break space") << QByteArray("a\u202Fb") << QByteArrayList{"a", "b"};
    QTest::addRow("leading and trailing space") << QByteArray("  word  ") << QByteArrayList{"word"};
    QTest::addRow("accents stay in the word") << QByteArray("café naïve") << QByteArrayList{"café", "naïve"};
    QTest::addRow("combining mark stays") << QByteArray("cafe\u0301") << QByteArrayList{"cafe\u0301"};
    QTest::addRow("emoji") << QByteArray("hi 😀") << QByteArrayList{"hi", "😀"};
    QTest::addRow("empty") << QByteArray() << QByteArrayList{};
    QTest::addRow("all spaces") << QByteArray(" \t\n\r \u3000\u00A0 ") << QByteArrayList{};
    QTest::addRow("only punctuation") << QByteArray("!") << QByteArrayList{"!"};
    QTest::addRow("invalid byte in a word") << QByteArray("ab\xff" "cd") << QByteArrayList{"ab\uFFFDcd"};
}

void TestTokenizer::tokenize()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArrayList, expected);
    QCOMPARE(toList(core::tokenize(bytes(text))), expected);
}

void TestTokenizer::invalidUtf8_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    // Each invalid byte becomes one U+FFFD; valid characters around it survive.
    QTest::addRow("lone 0xFF") << QByteArray("\xff") << QStringLiteral("\uFFFD");
    QTest::addRow("lone continuation") << QByteArray("a\x80z") << QStringLiteral("a\uFFFDz");
    QTest::addRow("truncated at end") << QByteArray("a\xe6\xb3") << QStringLiteral("a\uFFFD\uFFFD");
    QTest::addRow("truncated before ASCII") << QByteArray("\xe6\xb3x") << QStringLiteral("\uFFFD\uFFFDx");
    QTest::addRow("overlong slash") << QByteArray("\xc0\xaf") << QStringLiteral("\uFFFD\uFFFD");
    QTest::addRow("overlong NUL") << QByteArray("\xe0\x80\x80") << QStringLiteral("\uFFFD\uFFFD\uFFFD");
    QTest::addRow("surrogate") << QByteArray("\xed\xa0\x80") << QStringLiteral("\uFFFD\uFFFD\uFFFD");
    QTest::addRow("beyond U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << QStringLiteral("\uFFFD\uFFFD\uFFFD\uFFFD");
    QTest::addRow("0xF8") << QByteArray("\xf8") << QStringLiteral("\uFFFD");
    QTest::addRow("valid 4 bytes") << QByteArray("\xf0\x9f\x98\x80") << QStringLiteral("😀");
    QTest::addRow("largest code point") << QByteArray("\xf4\x8f\xbf\xbf") << QString::fromUcs4(U"\U0010FFFF", 1);
    QTest::addRow("embedded NUL") << QByteArray("a\0b", 3) << QString(QStringLiteral("a") + QChar(0) + QStringLiteral("b"));
}

void TestTokenizer::invalidUtf8()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    const std::u32string decoded = decodeUtf8(bytes(text));
    QCOMPARE(QString::fromUcs4(decoded.data(), qsizetype(decoded.size())), expected);
    const auto tokens = core::tokenize(bytes(text));
    for (const auto& t : tokens)
        QVERIFY(!t.empty());
}

void TestTokenizer::tokensAreValidUtf8()
{
    // Random bytes: never a crash, every token valid UTF-8 that round-trips through the decoder.
    std::mt19937_64 rng(1);
    for (int round = 0; round < 300; ++round) {
        std::string text(std::size_t(rng() % 64), '\0');
        for (char& c : text)
            c = char(rng() % 256);
        for (const auto& t : core::tokenize(text)) {
            QVERIFY(!t.empty());
            QCOMPARE(encodeUtf8(decodeUtf8(t)), t);
            for (char32_t c : decodeUtf8(t))
                QVERIFY(!isSpace(c));
        }
    }
}

void TestTokenizer::roundTrip()
{
    std::mt19937_64 rng(2);
    std::uniform_int_distribution<std::uint32_t> any(0, 0x10FFFF);
    for (int round = 0; round < 200; ++round) {
        std::u32string text;
        for (int i = 0; i < 50; ++i) {
            char32_t c = any(rng);
            if (c >= 0xD800 && c <= 0xDFFF)
                c -= 0x1000;  // surrogates are not characters
            text.push_back(c);
        }
        text += U"\x7F\x80\u07FF\u0800\uFFFF\U00010000\U0010FFFF";  // the edges of each length
        const std::string utf8 = encodeUtf8(text);
        QCOMPARE(decodeUtf8(utf8), text);
        QCOMPARE(QString::fromUtf8(utf8.data(), qsizetype(utf8.size())).toStdU32String(), text);
    }
}

void TestTokenizer::encodeReplacesNonCharacters()
{
    QCOMPARE(encodeUtf8(std::u32string(1, char32_t(0xD800))), std::string("\xEF\xBF\xBD"));
    QCOMPARE(encodeUtf8(std::u32string(1, char32_t(0x110000))), std::string("\xEF\xBF\xBD"));
    QCOMPARE(encodeUtf8(U"é注😀"), std::string("\xC3\xA9\xE6\xB3\xA8\xF0\x9F\x98\x80"));
}

void TestTokenizer::classes()
{
    QVERIFY(isCjk(U'注'));
    QVERIFY(isCjk(U'カ'));
    QVERIFY(!isCjk(U'a'));
    QVERIFY(!isCjk(U'。'));
    QVERIFY(isPunctuation(U'。'));
    QVERIFY(isPunctuation(U'，'));
    QVERIFY(isPunctuation(U'!'));
    QVERIFY(isPunctuation(U'—'));
    QVERIFY(!isPunctuation(U'a'));
    QVERIFY(!isPunctuation(U'7'));
    QVERIFY(!isPunctuation(U'é'));
    QVERIFY(isSpace(U'\u3000'));
    QVERIFY(isSpace(U'\u00A0'));
    QVERIFY(isSpace(U'\t'));
    QVERIFY(!isSpace(U'x'));
}

QTEST_APPLESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
