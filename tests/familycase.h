#pragma once
/** The small checkpoints of tests/family_reference.py as the tests of the command line and the window use them:
 *  the script, and a byte-level tokenizer.json that fits their 60-token vocabularies, with a text whose ids are
 *  worked out by hand. */

#include "python.h"
#include "testutil.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QTest>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace testutil {

inline QByteArray familyScript()
{
    QFile f(QStringLiteral(AE_SOURCE_DIR "/tests/family_reference.py"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/** A byte-level BPE of 32 entries (the cases' vocabularies hold 60): <s> 0, a … z 1 … 26, Ġ 27, and the merges
 *  t h → th 28, Ġ c → Ġc 29, a t → at 30, Ġc at → Ġcat 31; the post-processor puts <s> first, as Llama's does. */
inline nlohmann::json familyTokenizerJson()
{
    using nlohmann::json;
    json vocab = {{"<s>", 0}, {"Ġ", 27}, {"th", 28}, {"Ġc", 29}, {"at", 30}, {"Ġcat", 31}};
    for (char c = 'a'; c <= 'z'; ++c)
        vocab[std::string(1, c)] = c - 'a' + 1;
    const json bos = {{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}};
    const json a = {{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
    const json b = {{"Sequence", {{"id", "B"}, {"type_id", 1}}}};
    return {{"version", "1.0"},
            {"truncation", nullptr},
            {"padding", nullptr},
            {"added_tokens",
             json::array({{{"id", 0}, {"content", "<s>"}, {"single_word", false}, {"lstrip", false}, {"rstrip", false},
                           {"normalized", false}, {"special", true}}})},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true},
                               {"use_regex", true}}},
            {"post_processor",
             {{"type", "TemplateProcessing"},
              {"single", json::array({bos, a})},
              {"pair", json::array({bos, a, bos, b})},
              {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {0}}, {"tokens", {"<s>"}}}}}}}},
            {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
            {"model",
             {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", nullptr},
              {"end_of_word_suffix", nullptr}, {"fuse_unk", false}, {"byte_fallback", false},
              {"vocab", vocab}, {"merges", {"t h", "Ġ c", "a t", "Ġc at"}}}}};
}

/** "the cat sat on a mat", by the merges above: <s>, th, e, Ġcat, Ġ s at, Ġ o n, Ġ a, Ġ m at. */
inline const char* const familyText = "the cat sat on a mat";
inline const std::vector<int> familyTextIds = {0, 28, 5, 31, 27, 19, 30, 27, 15, 14, 27, 1, 27, 13, 30};
inline const std::vector<std::string> familyTextTokens = {"<s>", "th", "e",  "Ġcat", "Ġ", "s", "at", "Ġ",
                                             "o",   "n",  "Ġ", "a",    "Ġ", "m", "at"};

/** The cases the tests of the program run, one of each family's features (neox_sequential differs from
 *  neox_parallel only by its residual). */
inline const char* const programCases[] = {"llama", "llama3", "qwen2", "qwen3", "neox_parallel"};

/** A data row per programCases entry, in the column "name". */
inline void addProgramCaseRows()
{
    QTest::addColumn<QString>("name");
    for (const char* name : programCases)
        QTest::addRow("%s", name) << QString::fromLatin1(name);
}

/** Writes every case of the script into root/CASE, each with familyTokenizerJson(); empty, or what went wrong. */
inline QString writeFamilyCases(const QString& python, const QString& root)
{
    QString error;
    runPython(python, familyScript(), {QStringLiteral("write-all"), root}, &error);
    if (!error.isEmpty())
        return error;
    for (const QString& name : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (!writeText((QDir(root).filePath(name) + QStringLiteral("/tokenizer.json")).toStdString(),
                       familyTokenizerJson().dump()))
            return QStringLiteral("cannot write the tokenizer of ") + name;
    return {};
}

} // namespace testutil
