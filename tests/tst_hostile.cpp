/** Hostile model folders and model sessions, tried as a hostile user would: `--compute --model DIR --text T` (or
 *  `--compute FILE`) on inputs the test makes, each run as a child process under a time limit and, outside a
 *  sanitizer build, an address-space cap; everywhere the peak memory of the children is measured. Every case
 *  must be refused with exit status 2, nothing on standard output, one line on standard error naming the file
 *  (or the flag) and the fault, no terminal control byte, within the time and under 2 GB; a sound folder beside
 *  them must still be read. */

#include "gpt2folder_random.h"
#include "programrun.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <limits>

using nlohmann::json;
using testutil::Folder;

namespace {

// AddressSanitizer reserves terabytes of address space: no cap can be set there (GCC says so by a macro, clang by a
// feature test); the peak resident memory is still measured.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

/** The most memory any run may take (the promise), and the address-space cap it runs under. */
constexpr long long memoryLimitBytes = 2LL << 30;
/** Each run's time limit. */
constexpr int timeLimitMs = 20000;

/** What one case makes in dir (the folder dir/model, already holding a sound one-layer model) and runs. */
struct Setup {
    QString dir;
    QString folder;
    Folder model;
    bool writeModel = true; ///< write model into folder before the case's own changes to files
    QStringList arguments;  ///< --compute --model folder --text "Hello world" unless the case says otherwise
    std::function<void(Setup&)> afterWrite; ///< changes to the written files (FIFOs, links, raw bytes)
    bool throughShell = false; ///< arguments are a /bin/sh -c script (for bytes Qt cannot pass)
};

struct Case {
    const char* name;
    std::function<void(Setup&)> make;
    const char* file;  ///< what the message must name ("config.json", "--text"), empty for an accepted input
    const char* fault; ///< what the message must say
};

std::string path(const QString& folder, const char* name)
{
    return (folder + QLatin1Char('/') + QLatin1String(name)).toStdString();
}

std::string nested(std::size_t depth, const std::string& inner = "1")
{
    return std::string(depth, '[') + inner + std::string(depth, ']');
}

/** The folder's tensor called name, with its value at index replaced by v (F32). */
void setValue(Folder& f, const std::string& name, std::size_t index, float v)
{
    testutil::Tensor* t = testutil::findTensor(f, name);
    QVERIFY(t && t->dtype == "F32");
    const std::string bytes = testutil::encodeValues({v}, "F32");
    t->bytes.replace(index * 4, 4, bytes);
}

/** A safetensors file of one-element F32 tensors named by names, raw header text given. */
std::string rawSafetensors(const std::string& header, std::size_t dataBytes)
{
    std::string out;
    for (int b = 0; b < 8; ++b)
        out += char((header.size() >> (8 * b)) & 0xff);
    return out + header + std::string(dataBytes, '\0');
}

void makeFifo(const std::string& file)
{
    ::unlink(file.c_str());
    QVERIFY(::mkfifo(file.c_str(), 0600) == 0);
}

const std::vector<Case>& cases()
{
    static const std::vector<Case> all = {
        // Crashes: nesting deep enough to overflow any recursion, where a refusal would quote it.
        {"shape nested 100000 deep",
         [](Setup& s) {
             s.afterWrite = [](Setup& s) {
                 const std::string file = path(s.folder, "model.safetensors");
                 const std::string header = "{\"x\":{\"dtype\":\"F32\",\"shape\":" + nested(100000) +
                                            ",\"data_offsets\":[0,4]}}";
                 testutil::writeText(file, rawSafetensors(header, 4));
             };
         },
         "model.safetensors", "nested more than 64 deep"},
        {"n_layer nested 100000 deep",
         [](Setup& s) {
             s.model.configText = "{\"n_layer\": " + nested(100000) + "}";
         },
         "config.json", "nested more than 64 deep"},
        {"vocabulary id nested 100000 deep",
         [](Setup& s) { s.model.vocabText = "{\"a\": " + nested(100000) + "}"; }, "vocab.json",
         "nested more than 64 deep"},
        {"added token nested 100000 deep",
         [](Setup& s) {
             s.model.writeVocab = s.model.writeMerges = false;
             s.afterWrite = [](Setup& s) {
                 testutil::writeText(path(s.folder, "tokenizer.json"),
                                     "{\"model\": {\"type\": \"BPE\", \"vocab\": {}, \"merges\": []}, "
                                     "\"added_tokens\": [" + nested(100000, "{}") + "]}");
             };
         },
         "tokenizer.json", "nested more than 64 deep"},
        {"session key nested 1000000 deep",
         [](Setup& s) {
             const std::string session = "{\"format\": \"attention-explorer-session\", \"version\": 2, \"model\": "
                                         "{\"path\": \"model\", \"layer\": 1}, \"text\": \"Hello\", \"edits\": [], "
                                         "\"unknown\": " + nested(1000000) + "}";
             testutil::writeText((s.dir + QStringLiteral("/deep.json")).toStdString(), session);
             s.arguments = {QStringLiteral("--compute"), s.dir + QStringLiteral("/deep.json")};
         },
         "deep.json", "nested more than 64 deep"},
        // Aborts and memory before checking: sizes refused before they are read or allocated.
        {"config with a large array under an unknown key",
         [](Setup& s) { s.model.config["padding"] = std::vector<int>(1 << 20, 0); }, "config.json",
         "more than the 1048576 this file may have"},
        {"megabytes of spaces before a sound config",
         [](Setup& s) { s.model.configText = std::string(2 << 20, ' ') + s.model.config.dump(); }, "config.json",
         "more than the 1048576 this file may have"},
        {"a vocabulary of millions of tiny values",
         [](Setup& s) {
             std::string text = "{\"a\": [";
             for (int i = 0; i < 5'000'000; ++i)
                 text += "[],";
             s.model.vocabText = text + "[]]}";
         },
         "vocab.json", "more than 4194304 values"},
        {"a merges.txt past the limit",
         [](Setup& s) { s.model.merges = "#version: 0.2\n" + std::string(33 << 20, '\n'); }, "merges.txt",
         "more than the 33554432 this file may have"},
        {"n_layer 16777216 in a small config",
         [](Setup& s) { s.model.config["n_layer"] = 16777216; }, "model.safetensors",
         "h.1.ln_1.weight is missing (n_layer 16777216"},
        {"a text past the program's 8192 tokens on n_positions 2^20",
         [](Setup& s) {
             s.model = testutil::randomGpt2Folder("F16", "", 1, 8, 1, false, 7, 1 << 20);
             s.arguments[4] = QString(9000, QLatin1Char('a'));
         },
         "--text", "9000 tokens long, more than the 8192 this program reads"},
        {"a safetensors header past the program's limit",
         [](Setup& s) {
             s.model.breakFile = [](json& header, std::string&, std::uint64_t&) {
                 header["__metadata__"]["padding"] = std::string(17 << 20, 'x');
             };
         },
         "model.safetensors", "above the limit"},
        {"mask buffer of a layer that does not exist",
         [](Setup& s) { testutil::addCopy(s.model, "ln_f.bias", "h.5.attn.bias"); }, "model.safetensors",
         "tensor h.5.attn.bias is not part of GPT-2"},
        // Hangs: a FIFO with no writer in place of a file.
        {"FIFO as model.safetensors",
         [](Setup& s) { s.afterWrite = [](Setup& s) { makeFifo(path(s.folder, "model.safetensors")); }; },
         "model.safetensors", "is a FIFO"},
        {"FIFO as config.json",
         [](Setup& s) { s.afterWrite = [](Setup& s) { makeFifo(path(s.folder, "config.json")); }; }, "config.json",
         "is a FIFO"},
        {"FIFO as vocab.json",
         [](Setup& s) { s.afterWrite = [](Setup& s) { makeFifo(path(s.folder, "vocab.json")); }; }, "vocab.json",
         "is a FIFO"},
        // Accepted though broken.
        {"NaN in wte",
         [](Setup& s) { setValue(s.model, "wte.weight", 3 * 8 + 2, std::numeric_limits<float>::quiet_NaN()); },
         "model.safetensors", "tensor wte.weight: value [3][2] is NaN"},
        {"infinity in ln_f",
         [](Setup& s) { setValue(s.model, "ln_f.weight", 5, -std::numeric_limits<float>::infinity()); },
         "model.safetensors", "tensor ln_f.weight: value [5] is -Inf"},
        {"NaN in the shown layer's W_Q",
         [](Setup& s) {
             setValue(s.model, "h.0.attn.c_attn.weight", 24, std::numeric_limits<float>::quiet_NaN());
         },
         "model.safetensors", "tensor h.0.attn.c_attn.weight: value [1][0] is NaN"},
        {"a tensor named twice in the header",
         [](Setup& s) {
             s.afterWrite = [](Setup& s) {
                 const std::string entry = "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}";
                 testutil::writeText(path(s.folder, "model.safetensors"),
                                     rawSafetensors("{\"ln_f.bias\":" + entry + ",\"ln_f.bias\":" + entry + "}", 4));
             };
         },
         "model.safetensors", "\"ln_f.bias\" is given twice"},
        {"model_type bert", [](Setup& s) { s.model.config["model_type"] = "bert"; }, "config.json",
         "model_type \"bert\" is not supported"},
        {"architecture GemmaForCausalLM",
         [](Setup& s) { s.model.config["architectures"] = {"GemmaForCausalLM"}; }, "config.json",
         "config.json: architecture GemmaForCausalLM is not supported"},
        // A Llama is read by its own description, which names the first count it lacks.
        {"architecture LlamaForCausalLM in GPT-2's config",
         [](Setup& s) { s.model.config["architectures"] = {"LlamaForCausalLM"}; }, "config.json",
         "config.json: num_hidden_layers: missing"},
        {"invalid UTF-8 in --text",
         [](Setup& s) {
             s.throughShell = true;
             s.arguments = {QStringLiteral("-c"),
                            QStringLiteral("exec \"$0\" --compute --model \"$1\" --text \"$(printf 'ab\\377')\""),
                            QStringLiteral(AE_BINARY), s.folder};
         },
         "--text", "not valid UTF-8 (byte 2"},
        {"finite weights that overflow the pass",
         [](Setup& s) {
             testutil::Tensor* fc = testutil::findTensor(s.model, "h.0.mlp.c_fc.weight");
             fc->bytes = testutil::encodeValues(std::vector<float>(fc->bytes.size() / 4, 3e38f), "F32");
         },
         "model", "overflows float32 in layer 1"},
        // Messages that mislead.
        {"a tensor name with a terminal escape",
         [](Setup& s) { testutil::findTensor(s.model, "ln_f.bias")->name = "\x1b[31mred"; }, "model.safetensors",
         "\\u001b[31mred"},
        {"a symbolic link loop as model.safetensors",
         [](Setup& s) {
             s.afterWrite = [](Setup& s) {
                 const std::string file = path(s.folder, "model.safetensors");
                 ::unlink(file.c_str());
                 QVERIFY(::symlink("model.safetensors", file.c_str()) == 0);
             };
         },
         "model.safetensors", "a symbolic link that loops"},
        {"--model \"\"", [](Setup& s) { s.arguments[2] = QString(); }, "--model", "no folder given"},
        {"offsets past the data section",
         [](Setup& s) {
             s.model.breakFile = [](json&, std::string& data, std::uint64_t&) { data.resize(data.size() - 4); };
         },
         "model.safetensors", "run past the end of the data section"},
        {"config.json cut short",
         [](Setup& s) { s.model.configText = s.model.config.dump().substr(0, 30); }, "config.json",
         "before its JSON value does"},
        // A sound model beside them: the harness runs the program as it should.
        {"a sound model", [](Setup&) {}, "", ""},
    };
    return all;
}

/** The largest resident memory of any child waited for so far, in bytes. */
long long childrenPeakBytes()
{
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return static_cast<long long>(usage.ru_maxrss) * 1024;
}

} // namespace

class TestHostile : public QObject {
    Q_OBJECT

private slots:
    void refused_data();
    void refused();
};

void TestHostile::refused_data()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i)
        QTest::addRow("%s", cases()[i].name) << int(i);
}

void TestHostile::refused()
{
    QFETCH(int, index);
    const Case& c = cases()[std::size_t(index)];
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Setup s;
    s.dir = dir.path();
    s.folder = dir.path() + QStringLiteral("/model");
    QVERIFY(QDir().mkpath(s.folder));
    s.model = testutil::randomGpt2Folder("F32", "", 1, 8, 2);
    s.arguments = {QStringLiteral("--compute"), QStringLiteral("--model"), s.folder, QStringLiteral("--text"),
                   QStringLiteral("Hello world")};
    c.make(s);
    if (QTest::currentTestFailed())
        return;
    if (s.writeModel)
        testutil::write(s.model, s.folder.toStdString());
    if (s.afterWrite)
        s.afterWrite(s);
    if (QTest::currentTestFailed())
        return;

    const auto cap = [] {
        if (sanitized)
            return;
        const rlimit limit{rlim_t(memoryLimitBytes), rlim_t(memoryLimitBytes)};
        setrlimit(RLIMIT_AS, &limit);
    };
    const testutil::Run r =
        s.throughShell ? testutil::runProgram(QStringLiteral("/bin/sh"), s.arguments, {}, s.dir, timeLimitMs, cap)
                       : testutil::runProgram(QStringLiteral(AE_BINARY), s.arguments, {}, s.dir, timeLimitMs, cap);
    const QByteArray err = r.err;
    QVERIFY2(r.status >= 0, qPrintable(QStringLiteral("crashed or ran past %1 s; stderr: %2")
                                           .arg(timeLimitMs / 1000)
                                           .arg(QString::fromUtf8(err.left(400)))));
    QVERIFY2(childrenPeakBytes() < memoryLimitBytes,
             qPrintable(QStringLiteral("peak memory %1 MB").arg(childrenPeakBytes() >> 20)));
    if (!*c.file) {
        QVERIFY2(r.status == 0, err.constData());
        QVERIFY(json::accept(r.out.toStdString()));
        return;
    }
    QVERIFY2(r.status == 2, qPrintable(QStringLiteral("exit %1: %2").arg(r.status).arg(QString::fromUtf8(err))));
    QVERIFY2(r.out.isEmpty(), r.out.left(200).constData());
    QVERIFY2(err.endsWith('\n') && err.count('\n') == 1, err.left(600).constData());
    QVERIFY2(!err.contains('\x1b'), "a terminal escape reached standard error");
    QVERIFY2(err.size() < 1000, err.left(600).constData());
    QVERIFY2(err.contains(c.file), err.constData());
    QVERIFY2(err.contains(c.fault), err.constData());
}

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
