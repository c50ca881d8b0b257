/** GPT-2's byte-level BPE: the pre-tokenizer's pieces, known ids of GPT-2's own vocabulary and merges
 *  (traced by hand through merges.txt below), round trips of any text, the <|endoftext|> decision, the
 *  tokenizer.json forms, and broken files refused with messages naming them. */

#include "core/text/bpe.h"
#include "gpt2tokenizerjson.h"
#include "testutil.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>

using core::Bpe;

Q_DECLARE_METATYPE(std::vector<int>)
Q_DECLARE_METATYPE(std::vector<std::string>)

namespace {

const std::string kDataDir = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";

using testutil::readText;

/** GPT-2's tokenizer from the test data, loaded once. */
const Bpe& gpt2()
{
    static const Bpe bpe = [] {
        std::string error;
        auto loaded = Bpe::loadVocabAndMerges(kDataDir + "/encoder.json", kDataDir + "/vocab.bpe", error);
        if (!loaded)
            qFatal("cannot load GPT-2's tokenizer: %s", error.c_str());
        return std::move(*loaded);
    }();
    return bpe;
}

/** A byte-level vocabulary of the 256 single-byte tokens (id = byte) plus extra tokens after them. */
nlohmann::json byteVocab(std::initializer_list<const char*> extra = {})
{
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b)
        vocab[Bpe::bytesToUnicode()[std::size_t(b)]] = b;
    int id = 256;
    for (const char* token : extra)
        vocab[token] = id++;
    return vocab;
}

std::vector<std::string> pieces(std::string_view text)
{
    std::vector<std::string> out;
    for (const std::string_view p : Bpe::preTokenize(text))
        out.emplace_back(p);
    return out;
}

QByteArray describe(const std::vector<int>& ids)
{
    QByteArray out = "[";
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i ? ", " : "") + QByteArray::number(ids[i]);
    return out + "]";
}

} // namespace

class TestBpe : public QObject {
    Q_OBJECT

private slots:
    void bytesToUnicode()
    {
        const auto& chars = Bpe::bytesToUnicode();
        QCOMPARE(chars.size(), std::size_t(256));
        QCOMPARE(chars[' '], std::string("Ġ"));  // U+0120: the 33rd byte without a printable form
        QCOMPARE(chars['\n'], std::string("Ċ")); // U+010A
        QCOMPARE(chars['A'], std::string("A"));
        QCOMPARE(chars[0], std::string("Ā"));    // U+0100
        QCOMPARE(chars[0xad], std::string("Ń")); // soft hyphen: the last of the 68 remapped bytes, U+0143
        QCOMPARE(chars[0xe9], std::string("é"));
        std::set<std::string> distinct(chars.begin(), chars.end());
        QCOMPARE(distinct.size(), std::size_t(256));
    }

    void preTokenize_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<std::vector<std::string>>("expected");
        using V = std::vector<std::string>;
        QTest::addRow("words") << std::string("Hello world") << V{"Hello", " world"};
        QTest::addRow("contractions") << std::string("I'm sure it's theirs'd")
                                      << V{"I", "'m", " sure", " it", "'s", " theirs", "'d"};
        QTest::addRow("contraction first") << std::string("'sa") << V{"'s", "a"};
        QTest::addRow("apostrophe in punctuation") << std::string("don't?'s") << V{"don", "'t", "?'", "s"};
        QTest::addRow("two spaces") << std::string("a  b") << V{"a", " ", " b"};
        QTest::addRow("space newline space") << std::string("a \n b") << V{"a", " \n", " b"};
        QTest::addRow("newline before word") << std::string("a\nb") << V{"a", "\n", "b"};
        QTest::addRow("trailing spaces") << std::string("x   ") << V{"x", "   "};
        QTest::addRow("letters then digits") << std::string("abc123 456") << V{"abc", "123", " 456"};
        QTest::addRow("punctuation run") << std::string("Hi!?... ok") << V{"Hi", "!?...", " ok"};
        QTest::addRow("space before punctuation") << std::string("a ,b") << V{"a", " ,", "b"};
        QTest::addRow("CJK letters") << std::string("你好世界") << V{"你好世界"};
        QTest::addRow("kana and CJK punctuation") << std::string("こんにちは、世界") << V{"こんにちは", "、", "世界"};
        QTest::addRow("Arabic-Indic digit") << std::string("x٣") << V{"x", "٣"};
        QTest::addRow("accented letters") << std::string(" café") << V{" café"};
        QTest::addRow("no-break space") << std::string("a\u00a0b") << V{"a", "\u00a0", "b"};
        QTest::addRow("emoji is not a letter") << std::string("I 🙂 it") << V{"I", " 🙂", " it"};
        QTest::addRow("invalid byte as punctuation") << std::string("a\xff\xfe b") << V{"a", "\xff\xfe", " b"};
        QTest::addRow("empty") << std::string() << V{};
    }

    void preTokenize()
    {
        QFETCH(std::string, text);
        QFETCH(std::vector<std::string>, expected);
        QCOMPARE(pieces(text), expected);
    }

    void knownIds_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<std::vector<int>>("expected");
        // Published GPT-2 ids.
        QTest::addRow("Hello world") << std::string("Hello world") << std::vector<int>{15496, 995};
        QTest::addRow("space Hello world") << std::string(" Hello world") << std::vector<int>{18435, 995};
        QTest::addRow("hello world") << std::string("hello world") << std::vector<int>{31373, 995};
        // Traced through merges.txt (rank = line − 2): Ġ t (0) → Ġt; h e (2) → he; Ġt he (6) → Ġthe = 262.
        QTest::addRow("the") << std::string(" the") << std::vector<int>{262};
        // Pieces "don" + "'t": o n (5) → on; d on (8843) → don = 9099; ' t (214) → 't = 470.
        QTest::addRow("contraction") << std::string("don't") << std::vector<int>{9099, 470};
        // Pieces " " + " hi": Ġ = 220; Ġ h (33) → Ġh; Ġh i (22849) → Ġhi = 23105.
        QTest::addRow("two spaces") << std::string("  hi") << std::vector<int>{220, 23105};
        // 2 0 (982) before 2 3 (1698) → 20, 23; no merge "20 23": 20 = 1238, 23 = 1954.
        QTest::addRow("digits") << std::string("2023") << std::vector<int>{1238, 1954};
        // Ċ Ċ (372) → ĊĊ = 628.
        QTest::addRow("blank line") << std::string("\n\n") << std::vector<int>{628};
        // No merges: every byte its own token, ids from vocab.json ("!" = 0, "\"" = 1, "#" = 2).
        QTest::addRow("single bytes") << std::string("!") << std::vector<int>{0};
    }

    void knownIds()
    {
        QFETCH(std::string, text);
        QFETCH(std::vector<int>, expected);
        const std::vector<int> ids = gpt2().encode(text);
        QVERIFY2(ids == expected, describe(ids) + " instead of " + describe(expected));
    }

    void tokensAsWritten()
    {
        QCOMPARE(gpt2().size(), 50257);
        QCOMPARE(gpt2().token(995), std::string("Ġworld"));
        QCOMPARE(gpt2().id("Ġworld"), std::optional<int>(995));
        QCOMPARE(gpt2().token(-1), std::string());
        QCOMPARE(gpt2().token(50257), std::string());
        QCOMPARE(gpt2().id("no such token"), std::nullopt);
    }

    void roundTrip_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addRow("English") << std::string("The cat sat on the mat because it was tired.\n");
        QTest::addRow("whitespace") << std::string("  a\t\tb \n\n  c   \r\n ");
        QTest::addRow("Chinese") << std::string("注意力机制让每个词看见其他词。");
        QTest::addRow("Japanese") << std::string("こんにちは、世界！");
        QTest::addRow("emoji") << std::string("I ❤️ 🙂👩‍👩‍👧 🇫🇷!");
        QTest::addRow("mixed scripts") << std::string("Ελληνικά, русский, العربية, हिन्दी 123٣");
        QTest::addRow("control bytes") << std::string("\x01\x02\x7f", 3);
        QTest::addRow("nul") << std::string("a\0b", 3);
        QTest::addRow("invalid UTF-8") << std::string("\xff\xc3(\xe2\x82 \xf0\x9f\x99");
        QTest::addRow("every byte") << [] {
            std::string all;
            for (int b = 0; b < 256; ++b)
                all += char(b);
            return all;
        }();
    }

    void roundTrip()
    {
        QFETCH(std::string, text);
        const std::vector<int> ids = gpt2().encode(text);
        std::string error;
        const auto back = gpt2().decode(ids, error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(*back, text);
        // Byte-level BPE never needs more tokens than bytes; merges make text shorter.
        QVERIFY(ids.size() <= text.size());
    }

    void cjkMerges()
    {
        // 你 is E4 BD A0; GPT-2 has no token for the whole character, but its vocabulary does merge some of
        // its bytes: fewer tokens than bytes, every one decoding to bytes of the text.
        const std::string text = "你好世界";
        const std::vector<int> ids = gpt2().encode(text);
        QVERIFY2(ids.size() < text.size(), describe(ids));
        QVERIFY(ids.size() >= 4);
    }

    void endOfTextIsText()
    {
        // A typed "<|endoftext|>" is text: the tokens of its three pieces "<|", "endoftext", "|>", never 50256.
        const Bpe& bpe = gpt2();
        QCOMPARE(bpe.endOfText(), std::optional<int>(50256));
        QCOMPARE(pieces("<|endoftext|>"), (std::vector<std::string>{"<|", "endoftext", "|>"}));
        const std::vector<int> ids = bpe.encode("<|endoftext|>");
        std::vector<int> expected = bpe.encode("<|");
        for (const char* piece : {"endoftext", "|>"}) {
            const std::vector<int> more = bpe.encode(piece);
            expected.insert(expected.end(), more.begin(), more.end());
        }
        QVERIFY2(ids == expected, describe(ids) + " instead of " + describe(expected));
        QVERIFY(std::find(ids.begin(), ids.end(), 50256) == ids.end());
        QCOMPARE(ids.front(), 27); // "<": neither "<|" nor "<|endoftext|>" is formed
        QCOMPARE(ids.back(), 29);  // ">"
        std::string error;
        QCOMPARE(bpe.decode(ids, error), std::optional<std::string>("<|endoftext|>"));
        // The token itself, put in by a caller, decodes to the marker.
        const std::vector<int> marker{464, 50256};
        QCOMPARE(bpe.decode(marker, error), std::optional<std::string>("The<|endoftext|>"));
    }

    void decodeRefusesUnknownIds()
    {
        std::string error;
        const std::vector<int> ids{464, 50257};
        QVERIFY(!gpt2().decode(ids, error));
        QVERIFY2(error.find("token 1") != std::string::npos && error.find("50257") != std::string::npos, error.c_str());
        const std::vector<int> negative{-3};
        QVERIFY(!gpt2().decode(negative, error));
        QVERIFY2(error.find("-3") != std::string::npos, error.c_str());
    }

    void tokenizerJsonForms_data()
    {
        QTest::addColumn<bool>("pairs");
        QTest::addRow("\"a b\" strings") << false;
        QTest::addRow("[a, b] pairs") << true;
    }

    void tokenizerJsonForms()
    {
        QFETCH(bool, pairs);
        std::string error;
        const auto bpe = Bpe::fromTokenizerJson(testutil::gpt2TokenizerJson(kDataDir, pairs).dump(), "tokenizer.json", error);
        QVERIFY2(bpe, error.c_str());
        QCOMPARE(bpe->size(), gpt2().size());
        QCOMPARE(bpe->endOfText(), std::optional<int>(50256));
        for (const char* text : {"Hello world", " Hello world", "The cat sat on the mat because it was tired.",
                                 "注意力机制 🙂 don't 2023\n\n", "<|endoftext|>"})
            QVERIFY2(bpe->encode(text) == gpt2().encode(text), text);
    }

    void brokenFiles_data()
    {
        QTest::addColumn<std::string>("vocab");
        QTest::addColumn<std::string>("merges");
        QTest::addColumn<std::string>("tokenizerJson"); // used instead of vocab + merges when not empty
        QTest::addColumn<std::string>("file");
        QTest::addColumn<std::string>("expected");
        const std::string merges = "#version: 0.2\na b\n";
        const auto withModel = [](const nlohmann::json& model) { return nlohmann::json{{"model", model}}.dump(); };
        const nlohmann::json vocab = byteVocab({"ab"});

        QTest::addRow("vocab not JSON") << std::string("{\"a\": 0,") << merges << std::string()
                                        << std::string("vocab.json") << std::string("not valid JSON");
        QTest::addRow("vocab not an object") << std::string("[1, 2]") << merges << std::string()
                                             << std::string("vocab.json") << std::string("not a JSON object");
        QTest::addRow("id not an integer") <<
            [] {
                nlohmann::json v = byteVocab();
                v["ab"] = "256";
                return v.dump();
            }() << merges << std::string() << std::string("vocab.json")
                                           << std::string("\"ab\" has id \"256\"");
        QTest::addRow("id given twice") <<
            [] {
                nlohmann::json v = byteVocab({"ab"});
                v["cd"] = 256;
                return v.dump();
            }() << merges << std::string()
                                        << std::string("vocab.json") << std::string("id 256 is given to both");
        QTest::addRow("id past the entries") <<
            [] {
                nlohmann::json v = byteVocab();
                v["ab"] = 9000;
                return v.dump();
            }() << merges << std::string() << std::string("vocab.json")
                                             << std::string("has id 9000, outside 0 … 256");
        QTest::addRow("byte missing") <<
            [] {
                nlohmann::json v = byteVocab();
                v.erase("Ġ");
                v["ab"] = 32;
                return v.dump();
            }() << merges << std::string()
                                      << std::string("vocab.json") << std::string("lacks the token \"Ġ\" of byte 32");
        QTest::addRow("not byte-level") << byteVocab({"ab", "猫"}).dump() << merges << std::string()
                                        << std::string("vocab.json")
                                        << std::string("\"猫\" (id 257) is not written in GPT-2's byte-level alphabet");
        QTest::addRow("merge of one token")
            << vocab.dump() << std::string("#version: 0.2\na b\nab\n") << std::string() << std::string("merges.txt")
            << std::string("line 3: expected two tokens separated by one space");
        QTest::addRow("merge of three tokens")
            << vocab.dump() << std::string("a b c\n") << std::string() << std::string("merges.txt")
            << std::string("line 1: expected two tokens");
        QTest::addRow("merge of an unknown token")
            << vocab.dump() << std::string("a b\nab zz\n") << std::string() << std::string("merges.txt")
            << std::string("line 2 (to vocab.json): merge \"ab\" + \"zz\" uses \"zz\"");
        QTest::addRow("merge making an unknown token") << vocab.dump() << std::string("a b\nb c\n") << std::string()
                                                       << std::string("merges.txt") << std::string("makes \"bc\"");
        QTest::addRow("tokenizer.json without model")
            << std::string() << std::string() << std::string("{\"version\": 1}") << std::string("tokenizer.json")
            << std::string("\"model\" is missing");
        QTest::addRow("tokenizer.json of another model")
            << std::string() << std::string() << withModel({{"type", "WordPiece"}, {"vocab", vocab}})
            << std::string("tokenizer.json") << std::string("model.type is \"WordPiece\"");
        QTest::addRow("tokenizer.json merge of three")
            << std::string() << std::string() << withModel({{"vocab", vocab}, {"merges", {{"a", "b", "c"}}}})
            << std::string("tokenizer.json") << std::string("model.merges[0]: expected \"a b\" or [\"a\", \"b\"]");
        QTest::addRow("tokenizer.json added token clash")
            << std::string() << std::string()
            << nlohmann::json{{"model", {{"vocab", vocab}, {"merges", nlohmann::json::array()}}},
                              {"added_tokens", {{{"id", 3}, {"content", "ab"}}}}}
                   .dump()
            << std::string("tokenizer.json")
            << std::string("added_tokens: \"ab\" has id 3 but model.vocab gives it 256");
    }

    void brokenFiles()
    {
        QFETCH(std::string, vocab);
        QFETCH(std::string, merges);
        QFETCH(std::string, tokenizerJson);
        QFETCH(std::string, file);
        QFETCH(std::string, expected);
        std::string error;
        const auto bpe = tokenizerJson.empty()
                             ? Bpe::fromVocabAndMerges(vocab, merges, "vocab.json", "merges.txt", error)
                             : Bpe::fromTokenizerJson(tokenizerJson, "tokenizer.json", error);
        QVERIFY(!bpe);
        QVERIFY2(error.starts_with(file + ":"), error.c_str());
        QVERIFY2(error.find(expected) != std::string::npos, error.c_str());
    }

    void smallVocabularyMergesByRank()
    {
        // Ranks decide, not the order of the symbols: "b c" (rank 0) is merged before "a b" (rank 1),
        // so "abc" is a + bc, never ab + c.
        std::string error;
        const auto bpe =
            Bpe::fromVocabAndMerges(byteVocab({"bc", "ab"}).dump(), "b c\na b\n", "vocab.json", "merges.txt", error);
        QVERIFY2(bpe, error.c_str());
        QCOMPARE(bpe->encode("abc"), (std::vector<int>{'a', 256}));
        QCOMPARE(bpe->encode("abab"), (std::vector<int>{257, 257}));
        // Equal ranks from left to right: "bbb" is not in play, but "aaa" with "a a" merges the first pair.
        const auto doubled =
            Bpe::fromVocabAndMerges(byteVocab({"aa"}).dump(), "a a\n", "vocab.json", "merges.txt", error);
        QVERIFY2(doubled, error.c_str());
        QCOMPARE(doubled->encode("aaa"), (std::vector<int>{256, 'a'}));
    }

    void missingFilesNamed()
    {
        std::string error;
        QVERIFY(!Bpe::loadVocabAndMerges(kDataDir + "/no-vocab.json", kDataDir + "/vocab.bpe", error));
        QVERIFY2(error.find("no-vocab.json") != std::string::npos, error.c_str());
        QVERIFY(!Bpe::loadVocabAndMerges(kDataDir + "/encoder.json", kDataDir + "/no-merges.txt", error));
        QVERIFY2(error.find("no-merges.txt") != std::string::npos, error.c_str());
        QVERIFY(!Bpe::loadTokenizerJson(kDataDir + "/no-tokenizer.json", error));
        QVERIFY2(error.find("no-tokenizer.json") != std::string::npos, error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestBpe)
#include "tst_bpe.moc"
