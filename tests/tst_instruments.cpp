/** The instruments of SPEC §8 on GPT-2 (core/models/instruments) against an independent PyTorch float64 reference
 *  (tests/instruments_reference.py) on a tiny random checkpoint the test writes, with an edit and a zeroed head:
 *  the logit lens, direct logit attribution (whose parts sum to the logit), activation patching and greedy
 *  generation; then the command line's files (JSON, CSV, a figure) and its refusals. */

#include "core/models/gpt2forward.h"
#include "core/models/instruments.h"
#include "core/session/instrumentfiles.h"
#include "gpt2folder_random.h"
#include "gpt2reference.h"
#include "programrun.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

using core::Gpt2Forward;
using nlohmann::json;

namespace {

const char* const cleanText = "When Mary and John went out, John gave it to";
const char* const corruptText = "When Mary and Lucy went out, Lucy gave it to";

testutil::Run runProgram(const QStringList& arguments, const QString& workingDirectory = {})
{
    return testutil::runProgram(QStringLiteral(AE_BINARY), arguments, {}, workingDirectory);
}

/** What the reference returns for the request, run on folder. */
json referenceOf(const QString& python, const QString& folder, const json& request, QString* error)
{
    QFile script(QStringLiteral(AE_SOURCE_DIR "/tests/instruments_reference.py"));
    if (!script.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read instruments_reference.py");
        return {};
    }
    const QByteArray out = testutil::runPython(
        python, script.readAll(),
        {QStringLiteral(AE_SOURCE_DIR "/tests"), folder, QString::fromStdString(request.dump())}, error, 600000);
    return error->isEmpty() ? json::parse(out.toStdString()) : json();
}

}  // namespace

class TestInstruments : public QObject {
    Q_OBJECT

    QString m_python;
    QTemporaryDir m_dir;
    std::string m_folder;
    std::shared_ptr<const core::Gpt2Checkpoint> m_checkpoint;
    std::unique_ptr<Gpt2Forward> m_clean;
    json m_want;
    std::vector<int> m_corruptIds;
    int m_target = 0;

private slots:
    void initTestCase()
    {
        m_python = testutil::pythonWith(QStringLiteral("torch"));
        m_folder = m_dir.path().toStdString();
        testutil::write(testutil::randomGpt2Folder("F32", "", 3, 32, 4, false, 7, 64), m_folder);
        std::string error;
        m_checkpoint = core::Gpt2Checkpoint::load(m_folder, error);
        QVERIFY2(m_checkpoint, error.c_str());
        m_clean = std::make_unique<Gpt2Forward>(m_checkpoint);
        QVERIFY2(m_clean->setTokens(m_checkpoint->tokenizer().encode(cleanText), error), error.c_str());
        // the session's changes: one weight edited, one head zeroed; every instrument must see both
        QVERIFY(m_clean->setEdit(1, core::ModelWeight::Value, 3, 5, 2.5f, error));
        m_clean->setAblated(2, 1, true);
        m_clean->run();
        m_corruptIds = m_checkpoint->tokenizer().encode(corruptText);
        m_target = m_clean->topTokens(2).at(1).id;  // not the top one: the lens must report the asked token
        if (m_python.isEmpty())
            return;
        const json request = {{"ids", m_clean->tokens()},
                              {"corrupt_ids", m_corruptIds},
                              {"target", m_target},
                              {"position", m_clean->n() - 3},
                              {"answer", m_checkpoint->tokenizer().encode(" M").at(1)},
                              {"wrong", m_checkpoint->tokenizer().encode(" J").at(1)},
                              {"edits", json::array({{{"layer", 2}, {"weight", "value"}, {"row", 3}, {"col", 5},
                                                      {"value", 2.5}}})},
                              {"zeroed", json::array({json::array({2, 1})})},
                              {"generate", 4}};
        QString why;
        m_want = referenceOf(m_python, m_dir.path(), request, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }

    void lensMatchesTorch()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch");
        const auto lens = core::logitLens(*m_clean, m_target);
        QCOMPARE(lens.size(), std::size_t(4));
        std::vector<double> got, want, gotTarget, wantTarget;
        for (std::size_t l = 0; l < lens.size(); ++l)
            for (std::size_t p = 0; p < lens[l].size(); ++p) {
                const json& w = m_want["lens"][l][p];
                got.push_back(lens[l][p].probability);
                want.push_back(w["probability"].get<double>());
                gotTarget.push_back(lens[l][p].targetProbability);
                wantTarget.push_back(w["target_probability"].get<double>());
                // the same token, unless two are within float32's reach of each other
                if (lens[l][p].id != w["id"].get<int>())
                    QVERIFY2(std::fabs(lens[l][p].probability - w["probability"].get<double>()) < 1e-5,
                             qPrintable(QStringLiteral("layer %1 position %2: token %3, torch %4")
                                            .arg(l).arg(p).arg(lens[l][p].id).arg(w["id"].get<int>())));
            }
        CHECK_CLOSE(got, want, "lens probabilities");
        CHECK_CLOSE(gotTarget, wantTarget, "lens target probabilities");
        // the last row is the model's own prediction
        QCOMPARE(lens.back().back().id, m_clean->topTokens(1).front().id);
    }

    /** With a memo, an edit recomputes the lens only from the edited layer up, a new token only its own column, and
     *  a new target everything; every cell is bit for bit what a lens without the memo gives. */
    void theLensRedoesOnlyTheRowsThatChanged()
    {
        Gpt2Forward pass = *m_clean;
        core::LensMemo memo;
        core::logitLens(pass, m_target, &memo);
        // a mark in a cell below the edit comes back only if the cell was kept
        memo.lens[1][0].probability = 42;
        const auto same = [](const std::vector<std::vector<core::LensCell>>& a,
                             const std::vector<std::vector<core::LensCell>>& b, int skipLayer) {
            for (std::size_t l = 0; l < a.size(); ++l)
                for (std::size_t p = 0; p < a[l].size(); ++p)
                    if (!(int(l) == skipLayer && p == 0) &&
                        (a[l][p].id != b[l][p].id || a[l][p].probability != b[l][p].probability ||
                         a[l][p].targetProbability != b[l][p].targetProbability ||
                         a[l][p].targetRank != b[l][p].targetRank))
                        return false;
            return a.size() == b.size();
        };
        std::string error;
        QVERIFY(pass.setEdit(1, core::ModelWeight::Query, 2, 3, 1.75f, error));
        pass.run();
        auto lens = core::logitLens(pass, m_target, &memo);
        QCOMPARE(lens[1][0].probability, 42.0);
        QVERIFY(same(lens, core::logitLens(pass, m_target), 1));
        QVERIFY(!same(lens, core::logitLens(*m_clean, m_target), 1));  // the edit reached the lens

        std::vector<int> longer = pass.tokens();
        longer.push_back(longer.front());
        QVERIFY(pass.setTokens(longer, error));
        pass.run();
        lens = core::logitLens(pass, m_target, &memo);
        QCOMPARE(lens[1][0].probability, 42.0);
        QVERIFY(same(lens, core::logitLens(pass, m_target), 1));

        lens = core::logitLens(pass, m_target + 1, &memo);  // another target: every cell again
        QVERIFY(same(lens, core::logitLens(pass, m_target + 1), -1));
    }

    void attributionMatchesTorchAndSums()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch");
        const int position = m_clean->n() - 3;
        const core::Attribution a = core::directLogitAttribution(*m_clean, m_target, position);
        const json& w = m_want["attribution"];
        std::vector<double> got = {a.logit, a.embeddings, a.bias}, want = {w["logit"], w["embeddings"], w["bias"]};
        for (std::size_t l = 0; l < a.heads.size(); ++l) {
            for (std::size_t h = 0; h < a.heads[l].size(); ++h) {
                got.push_back(a.heads[l][h]);
                want.push_back(w["heads"][l][h].get<double>());
            }
            got.push_back(a.mlps[l]);
            want.push_back(w["mlps"][l].get<double>());
        }
        CHECK_CLOSE(got, want, "attribution");
        QCOMPARE(a.heads[2][1], 0.0);  // the zeroed head adds nothing
        // the parts sum to the logit, and the logit is the pass's own
        double sum = a.embeddings + a.bias;
        for (std::size_t l = 0; l < a.heads.size(); ++l)
            sum += a.mlps[l] + std::accumulate(a.heads[l].begin(), a.heads[l].end(), 0.0);
        QVERIFY(std::fabs(sum - a.logit) < 1e-9 * std::max(1.0, std::fabs(a.logit)));
        const double passLogit = m_clean->logitsAt(position)(0, m_target);
        QVERIFY2(std::fabs(passLogit - a.logit) < 1e-4 * std::max(1.0, std::fabs(a.logit)),
                 qPrintable(QStringLiteral("pass %1, attribution %2").arg(passLogit).arg(a.logit)));
    }

    void patchingMatchesTorch()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch");
        std::string error;
        int runs = 0, total = 0;
        const auto p = core::activationPatching(*m_clean, m_corruptIds, m_checkpoint->tokenizer().encode(" M").at(1),
                                                m_checkpoint->tokenizer().encode(" J").at(1), error, {},
                                                [&](int done, int all) { runs = done, total = all; });
        QVERIFY2(p, error.c_str());
        QCOMPARE(runs, total);
        QCOMPARE(total, 3 * m_clean->n() + 3 * 4);
        std::vector<double> got = {p->clean, p->corrupt}, want = {m_want["clean"], m_want["corrupt"]};
        for (std::size_t l = 0; l < 3; ++l) {
            for (double v : p->residual[l])
                got.push_back(v);
            for (double v : p->heads[l])
                got.push_back(v);
            for (const json& v : m_want["residual"][l])
                want.push_back(v.get<double>());
            for (const json& v : m_want["heads"][l])
                want.push_back(v.get<double>());
        }
        CHECK_CLOSE(got, want, "patching");
        QVERIFY(std::fabs(p->clean - p->corrupt) > 1e-3);  // the texts differ where it matters
        QCOMPARE(p->heads[2][1], p->corrupt);  // a zeroed head's output reaches nothing
    }

    void patchingRefusesTextsOfOtherLengths()
    {
        std::string error;
        std::vector<int> shorter(m_corruptIds.begin(), m_corruptIds.end() - 1);
        QVERIFY(!core::activationPatching(*m_clean, shorter, 1, 2, error));
        QVERIFY2(error.find("same length") != std::string::npos, error.c_str());
    }

    void greedyGenerationMatchesTorch()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch");
        Gpt2Forward pass = *m_clean;
        std::string error;
        QVERIFY2(core::generate(pass, 4, {}, error), error.c_str());
        QCOMPARE(pass.tokens(), m_want["generated"].get<std::vector<int>>());
    }

    void samplingFollowsItsSeed()
    {
        std::string error;
        core::Sampling s;
        s.temperature = 1.5;
        s.topK = 50;
        s.topP = 0.9;
        const auto sample = [&](std::uint64_t seed) {
            Gpt2Forward pass = *m_clean;
            s.seed = seed;
            if (!core::generate(pass, 6, s, error))
                qWarning("%s", error.c_str());
            return pass.tokens();
        };
        QCOMPARE(sample(3), sample(3));
        QVERIFY(sample(3) != sample(4) || sample(3) != sample(5));
        // top-k 1 is greedy whatever the temperature
        s.topK = 1;
        Gpt2Forward a = *m_clean, b = *m_clean;
        QVERIFY(core::generate(a, 3, s, error));
        QVERIFY(core::generate(b, 3, {}, error));
        QCOMPARE(a.tokens(), b.tokens());
    }

    void tokenArguments()
    {
        std::string error;
        QCOMPARE(core::singleToken(*m_clean, "#65", error), std::optional<int>(65));
        QCOMPARE(core::singleToken(*m_clean, "A", error), std::optional<int>(m_checkpoint->tokenizer().encode("A")[0]));
        QVERIFY(!core::singleToken(*m_clean, "#9999", error));
        QVERIFY2(error.find("0 to 256") != std::string::npos, error.c_str());
        QVERIFY(!core::singleToken(*m_clean, "two", error));
        QVERIFY2(error.find("3 tokens") != std::string::npos, error.c_str());
    }

    void commandLineWritesEveryForm()
    {
        QTemporaryDir out;
        const QString folder = m_dir.path();
        const QStringList source = {QStringLiteral("--model"), folder, QStringLiteral("--text"),
                                    QString::fromUtf8(cleanText)};
        const auto run = [&](QStringList arguments) { return runProgram(source + arguments); };

        auto r = run({QStringLiteral("--export-lens"), out.filePath(QStringLiteral("lens.json")), QStringLiteral("--target"),
                      QStringLiteral("#%1").arg(m_target)});
        QVERIFY2(r.status == 0, qPrintable(QString::fromUtf8(r.err)));
        QFile lensFile(out.filePath(QStringLiteral("lens.json")));
        QVERIFY(lensFile.open(QIODevice::ReadOnly));
        const json lens = json::parse(lensFile.readAll().toStdString());
        QCOMPARE(lens["tokens"].size(), std::size_t(m_clean->n()));
        QCOMPARE(lens["lens"].size(), std::size_t(4));
        QVERIFY(lens["lens"][0][0].contains("target_probability"));
        // without edits the command line's pass is the checkpoint's: its last row is the checkpoint's prediction
        Gpt2Forward plain(m_checkpoint);
        std::string error;
        QVERIFY(plain.setTokens(m_clean->tokens(), error));
        plain.run();
        QCOMPARE(lens["lens"][3][m_clean->n() - 1]["id"].get<int>(), plain.topTokens(1).front().id);

        r = run({QStringLiteral("--export-attribution"), out.filePath(QStringLiteral("dla.csv")),
                 QStringLiteral("--position"), QStringLiteral("2")});
        QVERIFY2(r.status == 0, qPrintable(QString::fromUtf8(r.err)));
        QFile csv(out.filePath(QStringLiteral("dla.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("component,layer,head,contribution"));
        QCOMPARE(lines.size(), 1 + 1 + 3 * (4 + 1) + 2);

        r = run({QStringLiteral("--export-patching"), out.filePath(QStringLiteral("patching.png")),
                 QStringLiteral("--corrupt"), QString::fromUtf8(corruptText), QStringLiteral("--answer"),
                 QStringLiteral("M"), QStringLiteral("--wrong"), QStringLiteral("#74")});
        QVERIFY2(r.status == 0, qPrintable(QString::fromUtf8(r.err)));
        // a PNG: its signature, then IHDR's width and height (big-endian)
        QFile figure(out.filePath(QStringLiteral("patching.png")));
        QVERIFY(figure.open(QIODevice::ReadOnly));
        const QByteArray png = figure.read(24);
        QVERIFY(png.startsWith("\x89PNG\r\n\x1a\n"));
        const auto big = [&](int at) {
            return (quint32(quint8(png[at])) << 24) | (quint32(quint8(png[at + 1])) << 16) |
                   (quint32(quint8(png[at + 2])) << 8) | quint32(quint8(png[at + 3]));
        };
        QVERIFY(big(16) > 200 && big(20) > 200);

        // the Block view of layer 2 at position 3, as the window draws it; a figure only
        r = run({QStringLiteral("--export-block"), out.filePath(QStringLiteral("block.svg")), QStringLiteral("--layer"),
                 QStringLiteral("2"), QStringLiteral("--position"), QStringLiteral("3")});
        QVERIFY2(r.status == 0, qPrintable(QString::fromUtf8(r.err)));
        QFile block(out.filePath(QStringLiteral("block.svg")));
        QVERIFY(block.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(block.readAll());
        QVERIFY2(svg.contains(QStringLiteral("Layer 2 · position 3")), "the block's title");
        QVERIFY(svg.contains(QStringLiteral("the stream out")));
        r = run({QStringLiteral("--export-block"), out.filePath(QStringLiteral("block.json"))});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("must end in .png, .svg or .pdf"), r.err.constData());

        r = run({QStringLiteral("--generate"), QStringLiteral("3")});
        QVERIFY2(r.status == 0, qPrintable(QString::fromUtf8(r.err)));
        const json generated = json::parse(r.out.toStdString());
        QCOMPARE(generated["token_ids"].size(), std::size_t(m_clean->n() + 3));
        QVERIFY(generated["text"].get<std::string>().starts_with(cleanText));
    }

    void commandLineRefusals_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("said");
        QTest::addRow("lengths") << QStringList{QStringLiteral("--export-patching"), QStringLiteral("p.json"),
                                                QStringLiteral("--corrupt"), QStringLiteral("short"),
                                                QStringLiteral("--answer"), QStringLiteral("a"),
                                                QStringLiteral("--wrong"), QStringLiteral("b")}
                                 << QStringLiteral("same length");
        QTest::addRow("not one token") << QStringList{QStringLiteral("--export-lens"), QStringLiteral("l.json"),
                                                      QStringLiteral("--target"), QStringLiteral("Mary")}
                                       << QStringLiteral("--target: \"Mary\" is 4 tokens");
        QTest::addRow("position") << QStringList{QStringLiteral("--export-attribution"), QStringLiteral("a.json"),
                                                 QStringLiteral("--position"), QStringLiteral("99")}
                                  << QStringLiteral("--position: expected a number from 1 to");
        QTest::addRow("ending") << QStringList{QStringLiteral("--export-lens"), QStringLiteral("l.txt")}
                                << QStringLiteral(".json, .csv, .png, .svg or .pdf");
        QTest::addRow("missing answer") << QStringList{QStringLiteral("--export-patching"), QStringLiteral("p.json"),
                                                       QStringLiteral("--corrupt"), QStringLiteral("x")}
                                        << QStringLiteral("--answer is missing");
    }

    void commandLineRefusals()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, said);
        QTemporaryDir out;
        const auto r = runProgram(QStringList{QStringLiteral("--model"), m_dir.path(), QStringLiteral("--text"),
                                              QString::fromUtf8(cleanText)} + arguments,
                                  out.path());
        QCOMPARE(r.status, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(said), qPrintable(QString::fromUtf8(r.err)));
        QVERIFY(QDir(out.path()).entryList(QDir::Files).isEmpty());  // nothing written
    }

    void aPlainSessionIsRefused()
    {
        const auto r = runProgram({QStringLiteral("--preset"), QStringLiteral("illustrated"),
                                             QStringLiteral("--export-lens"), QStringLiteral("l.json")});
        QCOMPARE(r.status, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(QStringLiteral("--export-lens: needs a model")), qPrintable(QString::fromUtf8(r.err)));
    }
};

QTEST_MAIN(TestInstruments)
#include "tst_instruments.moc"
