/** The Hugging Face cache reader (SPEC §7) on a cache this test writes as huggingface_hub writes it: blobs named by
 *  their git SHA-1 or, for LFS files, their SHA-256; snapshots/COMMIT/FILE as relative links "../../blobs/<hash>";
 *  refs/main and a tag naming two commits. The cache folder from the environment, a repository id opening as a
 *  model session, and every refusal with the id, the folder looked in and how to download. */

#include "core/session/hubcache.h"
#include "core/session/modelsession.h"
#include "gpt2folder_random.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace {

const std::string oldCommit = "1111111111111111111111111111111111111111";
const std::string newCommit = "2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e";

/** The name huggingface_hub gives a blob: the SHA-256 of an LFS file, the git blob SHA-1 of any other. */
std::string blobName(const std::string& file, const std::string& bytes)
{
    const QByteArray data = QByteArray::fromStdString(bytes);
    if (file.ends_with(".safetensors"))
        return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex().toStdString();
    const QByteArray header = "blob " + QByteArray::number(data.size()) + '\0';
    return QCryptographicHash::hash(header + data, QCryptographicHash::Sha1).toHex().toStdString();
}

/** Writes files as the snapshot commit of repo in cache, each a link into blobs/, and refs/ref naming it. */
void writeSnapshot(const std::string& cache, const std::string& repo, const std::string& commit,
                   const std::map<std::string, std::string>& files, const std::string& ref)
{
    const fs::path folder = core::hubRepoFolder(cache, repo);
    fs::create_directories(folder / "blobs");
    fs::create_directories(folder / "snapshots" / commit);
    for (const auto& [name, bytes] : files) {
        const std::string blob = blobName(name, bytes);
        QVERIFY(testutil::writeText((folder / "blobs" / blob).string(), bytes));
        fs::create_symlink(fs::path("../../blobs") / blob, folder / "snapshots" / commit / name);
    }
    fs::create_directories((folder / "refs" / ref).parent_path());
    QVERIFY(testutil::writeText((folder / "refs" / ref).string(), commit));  // no newline, as huggingface_hub
}

/** The files of a tiny random GPT-2 checkpoint, by name. */
std::map<std::string, std::string> tinyCheckpoint(std::uint64_t seed)
{
    QTemporaryDir dir;
    testutil::Folder folder = testutil::randomGpt2Folder("F32", "", 2, 16, 2, false, seed);
    folder.config["architectures"] = {"GPT2LMHeadModel"};  // as Hugging Face writes it, beside model_type
    testutil::write(folder, dir.path().toStdString());
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::directory_iterator(dir.path().toStdString()))
        files[entry.path().filename().string()] = testutil::readText(entry.path().string());
    return files;
}

/** Sets an environment variable (unsets it for "") for the life of the object, restoring what it was. */
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : m_name(name)
    {
        if (const char* old = std::getenv(name))
            m_old = old;
        if (value.empty())
            unsetenv(name);
        else
            setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv()
    {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

} // namespace

class TestHubCache : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_cache = m_dir.path().toStdString() + "/hub";
        m_old = tinyCheckpoint(1);
        m_new = tinyCheckpoint(2);
        writeSnapshot(m_cache, "tiny-org/tiny-gpt2", oldCommit, m_old, "v1.0");
        writeSnapshot(m_cache, "tiny-org/tiny-gpt2", newCommit, m_new, "main");
        // A repository that holds only pickles, and one of an architecture the program does not read.
        writeSnapshot(m_cache, "someone/pickled", newCommit,
                      {{"config.json", m_new.at("config.json")}, {"pytorch_model.bin", std::string("\x80\x02}q\x00.", 6)}},
                      "main");
        writeSnapshot(m_cache, "someone/bert", oldCommit,
                      {{"config.json", R"({"architectures": ["BertForMaskedLM"], "model_type": "bert"})"}}, "main");
        // Not a model: ignored. A repository folder with no refs: listed with its problem.
        fs::create_directories(m_cache + "/datasets--someone--data/refs");
        fs::create_directories(m_cache + "/models--someone--empty/blobs");
    }

    void parsesIds_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("repo");  // empty: refused
        QTest::addColumn<QByteArray>("revision");
        const QByteArray commit = QByteArray::fromStdString(newCommit);
        QTest::addRow("org/name") << QByteArray("openai-community/gpt2") << QByteArray("openai-community/gpt2")
                                  << QByteArray("main");
        QTest::addRow("revision") << QByteArray("HuggingFaceTB/SmolLM2-135M@v1.0")
                                  << QByteArray("HuggingFaceTB/SmolLM2-135M") << QByteArray("v1.0");
        QTest::addRow("pr ref") << QByteArray("a/b@refs/pr/1") << QByteArray("a/b") << QByteArray("refs/pr/1");
        QTest::addRow("commit") << "a/b@" + commit << QByteArray("a/b") << commit;
        for (const char* refused : {"gpt2", "a/b/c", "a--b/c", "a/..b", "./b", "/models/gpt2", "a b/c", "a/b@../../etc",
                                    "a/b@", "a/b@/x", "-a/b"})
            QTest::addRow("%s", refused) << QByteArray(refused) << QByteArray() << QByteArray();
        QTest::addRow("too long") << QByteArray(50, 'a') + '/' + QByteArray(50, 'b') << QByteArray() << QByteArray();
    }

    void parsesIds()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, repo);
        QFETCH(QByteArray, revision);
        const auto id = core::parseHubId(text.toStdString());
        QCOMPARE(id.has_value(), !repo.isEmpty());
        if (!id)
            return;
        QCOMPARE(id->repo, repo.toStdString());
        QCOMPARE(id->revision, revision.toStdString());
    }

    void cacheFolderFromTheEnvironment()
    {
        const ScopedEnv home("HOME", "/home/someone");
        {
            const ScopedEnv hub("HF_HUB_CACHE", ""), hf("HF_HOME", ""), xdg("XDG_CACHE_HOME", "");
            QCOMPARE(core::hubCacheFolder(), std::string("/home/someone/.cache/huggingface/hub"));
        }
        {
            const ScopedEnv hub("HF_HUB_CACHE", ""), hf("HF_HOME", ""), xdg("XDG_CACHE_HOME", "/xdg");
            QCOMPARE(core::hubCacheFolder(), std::string("/xdg/huggingface/hub"));
        }
        {
            const ScopedEnv hub("HF_HUB_CACHE", ""), hf("HF_HOME", "/hf"), xdg("XDG_CACHE_HOME", "/xdg");
            QCOMPARE(core::hubCacheFolder(), std::string("/hf/hub"));
        }
        {
            const ScopedEnv hub("HF_HUB_CACHE", "/cache"), hf("HF_HOME", "/hf"), xdg("XDG_CACHE_HOME", "/xdg");
            QCOMPARE(core::hubCacheFolder(), std::string("/cache"));
        }
        // The token file beside the cache, as `huggingface-cli login` writes it.
        {
            const ScopedEnv path("HF_TOKEN_PATH", ""), hf("HF_HOME", ""), xdg("XDG_CACHE_HOME", "");
            QCOMPARE(core::hubTokenFile(), std::string("/home/someone/.cache/huggingface/token"));
        }
        {
            const ScopedEnv path("HF_TOKEN_PATH", ""), hf("HF_HOME", "/hf");
            QCOMPARE(core::hubTokenFile(), std::string("/hf/token"));
        }
        {
            const ScopedEnv path("HF_TOKEN_PATH", "/secret/token"), hf("HF_HOME", "/hf");
            QCOMPARE(core::hubTokenFile(), std::string("/secret/token"));
        }
    }

    void resolvesRevisions_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<QByteArray>("commit");
        QTest::addRow("main") << QByteArray("tiny-org/tiny-gpt2") << QByteArray::fromStdString(newCommit);
        QTest::addRow("@main") << QByteArray("tiny-org/tiny-gpt2@main") << QByteArray::fromStdString(newCommit);
        QTest::addRow("tag") << QByteArray("tiny-org/tiny-gpt2@v1.0") << QByteArray::fromStdString(oldCommit);
        QTest::addRow("commit") << QByteArray::fromStdString("tiny-org/tiny-gpt2@" + oldCommit)
                                << QByteArray::fromStdString(oldCommit);
    }

    void resolvesRevisions()
    {
        QFETCH(QByteArray, id);
        QFETCH(QByteArray, commit);
        std::string error;
        const auto folder = core::resolveCachedModel(*core::parseHubId(id.toStdString()), m_cache, error);
        QVERIFY2(folder, error.c_str());
        QCOMPARE(fs::path(*folder),
                 fs::path(core::hubRepoFolder(m_cache, "tiny-org/tiny-gpt2")) / "snapshots" / commit.toStdString());
        // The files read through the links are the revision's own.
        const auto& files = commit.toStdString() == newCommit ? m_new : m_old;
        QCOMPARE(testutil::readText(*folder + "/model.safetensors"), files.at("model.safetensors"));
        QVERIFY(fs::is_symlink(*folder + "/model.safetensors"));
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<QByteArrayList>("says");
        const QByteArray cache = QByteArray::fromStdString(m_cache);
        QTest::addRow("not cached") << QByteArray("nobody/nothing")
                                    << QByteArrayList{"nobody/nothing", "looked in " + cache, "--download nobody/nothing"};
        QTest::addRow("no such revision")
            << QByteArray("tiny-org/tiny-gpt2@v2")
            << QByteArrayList{"tiny-org/tiny-gpt2@v2", "no revision v2", "it has main, v1.0",
                              "--download tiny-org/tiny-gpt2@v2"};
        QTest::addRow("commit not there") << QByteArray("tiny-org/tiny-gpt2@3333333333333333333333333333333333333333")
                                          << QByteArrayList{"no revision 3333333333333333333333333333333333333333"};
        QTest::addRow("no refs") << QByteArray("someone/empty") << QByteArrayList{"someone/empty", "it names none"};
    }

    void refusals()
    {
        QFETCH(QByteArray, id);
        QFETCH(QByteArrayList, says);
        std::string error;
        QVERIFY(!core::resolveCachedModel(*core::parseHubId(id.toStdString()), m_cache, error));
        for (const QByteArray& part : says)
            QVERIFY2(error.find(part.toStdString()) != std::string::npos, error.c_str());
        QVERIFY(error.find('\n') == std::string::npos);
    }

    void snapshotWithoutItsFolder()
    {
        QTemporaryDir dir;
        const std::string cache = dir.path().toStdString();
        writeSnapshot(cache, "a/b", newCommit, {{"config.json", "{}"}}, "main");
        fs::remove_all(fs::path(core::hubRepoFolder(cache, "a/b")) / "snapshots");
        std::string error;
        QVERIFY(!core::resolveCachedModel(*core::parseHubId("a/b"), cache, error));
        QVERIFY2(error.find("names commit " + newCommit) != std::string::npos
                     && error.find("is missing") != std::string::npos,
                 error.c_str());
    }

    void listsModels()
    {
        const auto models = core::listCachedModels(m_cache);
        QByteArrayList ids;
        for (const auto& m : models)
            ids << QByteArray::fromStdString(m.id.text());
        QCOMPARE(ids, (QByteArrayList{"someone/bert", "someone/empty", "someone/pickled", "tiny-org/tiny-gpt2"}));

        const core::CachedModel& tiny = models[3];
        QVERIFY2(tiny.problem.empty(), tiny.problem.c_str());
        QCOMPARE(tiny.architecture, std::string("GPT2LMHeadModel"));
        QCOMPARE(fs::path(tiny.folder).filename().string(), newCommit);
        // Size on disk: every blob of both revisions once (a file the two share has one blob).
        std::map<std::string, std::uint64_t> blobs;
        for (const auto* files : {&m_old, &m_new})
            for (const auto& [name, bytes] : *files)
                blobs[blobName(name, bytes)] = bytes.size();
        std::uint64_t expected = 0;
        for (const auto& [blob, size] : blobs)
            expected += size;
        QCOMPARE(tiny.bytes, expected);

        QCOMPARE(models[0].architecture, std::string("BertForMaskedLM"));
        QVERIFY2(models[0].problem.find("BertForMaskedLM") != std::string::npos, models[0].problem.c_str());
        // what can be read instead: every family, not GPT-2 alone
        for (const char* readable : {"GPT2LMHeadModel", "LlamaForCausalLM", "Qwen3ForCausalLM", "GPTNeoXForCausalLM"})
            QVERIFY2(models[0].problem.find(readable) != std::string::npos, models[0].problem.c_str());
        QVERIFY2(models[1].problem.find("no revision") != std::string::npos, models[1].problem.c_str());
        QVERIFY2(models[2].problem.find("pickled") != std::string::npos, models[2].problem.c_str());
    }

    void listsNothingWithoutACache()
    {
        QVERIFY(core::listCachedModels(m_cache + "/nowhere").empty());
    }

    /** A session names the repository id; it opens from the cache and keeps the id (SPEC §7). */
    void opensAnIdAsAModelSession()
    {
        const ScopedEnv hub("HF_HUB_CACHE", m_cache);
        core::ModelSession session;
        session.modelPath = "tiny-org/tiny-gpt2@v1.0";
        session.text = "ab";
        std::string error;
        const auto opened = core::openModelSession(session, m_dir.path().toStdString() + "/s.json", error);
        QVERIFY2(opened, error.c_str());
        QCOMPARE(fs::path(opened->folder).filename().string(), oldCommit);
        QCOMPARE(opened->session.modelPath, std::string("tiny-org/tiny-gpt2@v1.0"));
        QCOMPARE(core::modelName(opened->folder), std::string("tiny-gpt2"));
        QVERIFY(core::serializeModelSession(opened->session).find("\"tiny-org/tiny-gpt2@v1.0\"") != std::string::npos);

        session.modelPath = "tiny-org/missing";
        QVERIFY(!core::openModelSession(session, {}, error));
        QVERIFY2(error.starts_with("model.path: tiny-org/missing: not a folder, nor in the Hugging Face cache (looked in "
                                   + m_cache + ")"),
                 error.c_str());
    }

    /** A folder of that name wins over the cache. */
    void aFolderWinsOverTheCache()
    {
        const ScopedEnv hub("HF_HUB_CACHE", m_cache);
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString() + "/tiny-org/tiny-gpt2";
        fs::create_directories(folder);
        core::ModelSession session;
        session.modelPath = "tiny-org/tiny-gpt2";
        QCOMPARE(core::modelFolder(session, dir.path().toStdString() + "/s.json"), folder);
        QCOMPARE(fs::path(core::modelFolder(session, {})).filename().string(), newCommit);
    }

private:
    QTemporaryDir m_dir;
    std::string m_cache;
    std::map<std::string, std::string> m_old, m_new;
};

QTEST_GUILESS_MAIN(TestHubCache)
#include "tst_hubcache.moc"
