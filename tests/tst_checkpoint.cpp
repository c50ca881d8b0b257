/** Checkpoint folders written by the test itself (a tiny GPT-2: 2 layers, n_embd 4, 2 heads, 8 positions,
 *  the 256 byte tokens + <|endoftext|>) in every accepted form, read back value for value; exact F16 and
 *  BF16 conversion against the formats' definitions; and a table of broken folders, each refused with a
 *  message naming the file and what is wrong. */

#include "core/models/gpt2checkpoint.h"
#include "gpt2folder.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

using core::Gpt2Checkpoint;
using testutil::addCopy;
using testutil::byteVocab;
using testutil::findTensor;
using testutil::Folder;
using testutil::Tensor;
using testutil::write;

namespace {

constexpr int kLayers = 2, kDim = 4, kHeads = 2, kPositions = 8, kVocab = 257;

/** A 16-bit float from its definition: sign, exponentBits of exponent (bias 2^(exponentBits−1) − 1), the rest
 *  mantissa: (−1)^s · 2^(e−bias) · (1 + m/2^mantissaBits), subnormal 2^(1−bias) · m/2^mantissaBits; the largest
 *  exponent infinity or NaN (a NaN keeps its payload in the float's top mantissa bits). */
float smallFloatOracle(std::uint16_t bits, int exponentBits, int mantissaBits)
{
    const int bias = (1 << (exponentBits - 1)) - 1, top = (1 << exponentBits) - 1;
    const int s = bits >> 15, e = (bits >> mantissaBits) & top, m = bits & ((1 << mantissaBits) - 1);
    const float sign = s ? -1.0f : 1.0f;
    if (e == top)
        return m == 0 ? sign * INFINITY
                      : std::bit_cast<float>(std::uint32_t(s) << 31 | 0x7f800000u |
                                             std::uint32_t(m) << (23 - mantissaBits));
    if (e == 0)
        return sign * std::ldexp(float(m), 1 - bias - mantissaBits);
    return sign * std::ldexp(1.0f + float(m) / float(1 << mantissaBits), e - bias);
}

/** IEEE half precision: 5 exponent bits, 10 mantissa bits. */
float halfOracle(std::uint16_t bits)
{
    return smallFloatOracle(bits, 5, 10);
}

/** bfloat16: float32's 8 exponent bits, 7 mantissa bits. */
float bfloat16Oracle(std::uint16_t bits)
{
    return smallFloatOracle(bits, 8, 7);
}

using testutil::sameBits;

/** The 16-bit pattern of element i of the tensor numbered t: spread over every exponent and sign but the all-ones
 *  one of F16 and BF16 (infinity and NaN, which a checkpoint refuses; their conversion is checked on its own). */
std::uint16_t pattern(int t, std::size_t i)
{
    const auto bits = std::uint16_t(t * 1009 + i * 2713 + 0x3000);
    const bool notFinite = (bits & 0x7c00u) == 0x7c00u || (bits & 0x7f80u) == 0x7f80u;
    return notFinite ? std::uint16_t(bits & ~0x4000u) : bits;
}

nlohmann::json tinyConfig()
{
    return testutil::gpt2Config(kLayers, kDim, kHeads, kPositions, kVocab);
}

/** The expected float32 values of a tensor of the Folder (for the dtype it was written in). */
std::vector<float> expectedValues(const Tensor& t)
{
    std::size_t n = 1;
    for (auto d : t.shape)
        n *= d;
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = t.dtype == "BF16" ? bfloat16Oracle(pattern(t.number, i)) : halfOracle(pattern(t.number, i));
    return out;
}

void fillBytes(Tensor& t)
{
    const std::vector<float> values = expectedValues(t);
    t.bytes.clear();
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (t.dtype == "F32") {
            const auto bits = std::bit_cast<std::uint32_t>(values[i]);
            for (int b = 0; b < 4; ++b)
                t.bytes += char((bits >> (8 * b)) & 0xff);
        } else {
            const std::uint16_t bits = pattern(t.number, i);
            t.bytes += char(bits & 0xff);
            t.bytes += char(bits >> 8);
        }
    }
}

/** GPT-2's tensors for the tiny config, in dtype, named with prefix. */
std::vector<Tensor> gpt2Tensors(const std::string& dtype, const std::string& prefix)
{
    std::vector<Tensor> out;
    for (const auto& [name, shape] : testutil::gpt2Shapes(tinyConfig())) {
        Tensor t{prefix + name, dtype, shape, int(out.size()) + 1, {}};
        fillBytes(t);
        out.push_back(std::move(t));
    }
    return out;
}

Folder goodFolder(const std::string& dtype = "F32", const std::string& prefix = "")
{
    Folder f;
    f.config = tinyConfig();
    f.tensors = gpt2Tensors(dtype, prefix);
    f.vocab = byteVocab();
    return f;
}

/** The tensor's values as the checkpoint holds them, by its name without the prefix. */
const core::FloatTensor* loaded(const Gpt2Checkpoint& c, const std::string& name)
{
    if (name == "wte.weight")
        return &c.wte();
    if (name == "wpe.weight")
        return &c.wpe();
    if (name == "ln_f.weight")
        return &c.lnFWeight();
    if (name == "ln_f.bias")
        return &c.lnFBias();
    const std::size_t dot = name.find('.', 2);
    const auto& b = c.blocks().at(std::size_t(std::stoi(name.substr(2, dot - 2))));
    const std::string rest = name.substr(dot + 1);
    const std::vector<std::pair<std::string, const core::FloatTensor*>> fields = {
        {"ln_1.weight", &b.ln1Weight},
        {"ln_1.bias", &b.ln1Bias},
        {"attn.c_attn.weight", &b.attnWeight},
        {"attn.c_attn.bias", &b.attnBias},
        {"attn.c_proj.weight", &b.attnProjWeight},
        {"attn.c_proj.bias", &b.attnProjBias},
        {"ln_2.weight", &b.ln2Weight},
        {"ln_2.bias", &b.ln2Bias},
        {"mlp.c_fc.weight", &b.fcWeight},
        {"mlp.c_fc.bias", &b.fcBias},
        {"mlp.c_proj.weight", &b.mlpProjWeight},
        {"mlp.c_proj.bias", &b.mlpProjBias}};
    for (const auto& [field, tensor] : fields)
        if (field == rest)
            return tensor;
    return nullptr;
}

} // namespace

Q_DECLARE_METATYPE(Folder)

class TestCheckpoint : public QObject {
    Q_OBJECT

private slots:
    void halfConversionIsExact()
    {
        for (std::uint32_t bits = 0; bits < 65536; ++bits) {
            const float got = core::halfToFloat(std::uint16_t(bits)), want = halfOracle(std::uint16_t(bits));
            if (!sameBits(got, want))
                QFAIL(qPrintable(QStringLiteral("F16 0x%1: got %2 (bits 0x%3), expected %4 (bits 0x%5)")
                                     .arg(bits, 4, 16, QLatin1Char('0'))
                                     .arg(double(got))
                                     .arg(std::bit_cast<std::uint32_t>(got), 8, 16, QLatin1Char('0'))
                                     .arg(double(want))
                                     .arg(std::bit_cast<std::uint32_t>(want), 8, 16, QLatin1Char('0'))));
        }
        // A few by heart: the smallest subnormal, the largest normal, infinity, a NaN with its payload.
        QCOMPARE(core::halfToFloat(0x0001), std::ldexp(1.0f, -24));
        QCOMPARE(core::halfToFloat(0x7bff), 65504.0f);
        QCOMPARE(core::halfToFloat(0xfc00), -INFINITY);
        QVERIFY(std::signbit(core::halfToFloat(0x8000)));
        QCOMPARE(std::bit_cast<std::uint32_t>(core::halfToFloat(0x7c01)), 0x7f802000u);
    }

    void bfloat16ConversionIsExact()
    {
        for (std::uint32_t bits = 0; bits < 65536; ++bits) {
            const float got = core::bfloat16ToFloat(std::uint16_t(bits)), want = bfloat16Oracle(std::uint16_t(bits));
            if (!sameBits(got, want))
                QFAIL(qPrintable(QStringLiteral("BF16 0x%1: got bits 0x%2, expected 0x%3")
                                     .arg(bits, 4, 16, QLatin1Char('0'))
                                     .arg(std::bit_cast<std::uint32_t>(got), 8, 16, QLatin1Char('0'))
                                     .arg(std::bit_cast<std::uint32_t>(want), 8, 16, QLatin1Char('0'))));
        }
        QCOMPARE(core::bfloat16ToFloat(0x3f80), 1.0f);
        QCOMPARE(core::bfloat16ToFloat(0x0001), std::ldexp(1.0f, -133));
    }

    void forms_data()
    {
        QTest::addColumn<Folder>("folder");
        QTest::addColumn<QString>("prefix");
        QTest::addRow("F32") << goodFolder("F32") << QString();
        QTest::addRow("F16") << goodFolder("F16") << QString();
        QTest::addRow("BF16") << goodFolder("BF16") << QString();
        QTest::addRow("F32 with prefix") << goodFolder("F32", "transformer.") << QStringLiteral("transformer.");
        QTest::addRow("F16 with prefix") << goodFolder("F16", "transformer.") << QStringLiteral("transformer.");
        QTest::addRow("F32 header not aligned") << [] {
            Folder f = goodFolder("F32");
            f.alignHeader = false;
            return f;
        }() << QString();
        QTest::addRow("mask buffers and tied lm_head") << [] {
            Folder f = goodFolder("F32", "transformer.");
            for (int l = 0; l < kLayers; ++l) {
                Tensor bias{
                    "transformer.h." + std::to_string(l) + ".attn.bias", "F32", {1, 1, kPositions, kPositions}, 90, {}};
                fillBytes(bias);
                Tensor masked{"transformer.h." + std::to_string(l) + ".attn.masked_bias", "F32", {}, 91, {}};
                fillBytes(masked);
                f.tensors.push_back(bias);
                f.tensors.push_back(masked);
            }
            Tensor head = f.tensors.front();
            head.name = "lm_head.weight";
            f.tensors.push_back(head);
            return f;
        }() << QStringLiteral("transformer.");
        QTest::addRow("BF16 lm_head tied") << [] {
            Folder f = goodFolder("BF16");
            Tensor head = f.tensors.front();
            head.name = "lm_head.weight";
            f.tensors.insert(f.tensors.begin(), head);
            return f;
        }() << QString();
        QTest::addRow("tokenizer.json only") << [] {
            Folder f = goodFolder("F16");
            f.writeVocab = f.writeMerges = false;
            f.writeTokenizerJson = true;
            return f;
        }() << QString();
        QTest::addRow("vocab.json and tokenizer.json, no merges.txt") << [] {
            Folder f = goodFolder("BF16");
            f.writeMerges = false;
            f.writeTokenizerJson = true;
            return f;
        }() << QString();
        QTest::addRow("n_ctx instead of n_positions") << [] {
            Folder f = goodFolder("F32");
            f.config.erase("n_positions");
            f.config["n_ctx"] = kPositions;
            f.config["activation_function"] = "gelu_pytorch_tanh";
            return f;
        }() << QString();
    }

    void forms()
    {
        QFETCH(Folder, folder);
        QFETCH(QString, prefix);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        write(folder, dir.path().toStdString());
        std::string error;
        const auto ckpt = Gpt2Checkpoint::load(dir.path().toStdString(), error);
        QVERIFY2(ckpt, error.c_str());
        QCOMPARE(ckpt->config().layers, kLayers);
        QCOMPARE(ckpt->config().dModel, kDim);
        QCOMPARE(ckpt->config().heads, kHeads);
        QCOMPARE(ckpt->config().headSize(), kDim / kHeads);
        QCOMPARE(ckpt->config().positions, kPositions);
        QCOMPARE(ckpt->config().vocabSize, kVocab);
        QCOMPARE(ckpt->config().layerNormEpsilon, 1e-5);
        QCOMPARE(ckpt->tokenizer().size(), kVocab);
        QCOMPARE(ckpt->tokenizer().encode("Hi"), (std::vector<int>{'H', 'i'}));
        QCOMPARE(int(ckpt->blocks().size()), kLayers);

        // Every GPT-2 tensor, value for value (bit for bit: NaN and infinities included), in its shape.
        int checked = 0;
        for (const Tensor& t : folder.tensors) {
            const std::string name =
                t.name.starts_with(prefix.toStdString()) ? t.name.substr(std::size_t(prefix.size())) : t.name;
            if (name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias") || name == "lm_head.weight")
                continue;
            const core::FloatTensor* got = loaded(*ckpt, name);
            QVERIFY2(got, name.c_str());
            const auto rows = t.shape.size() == 2 ? Eigen::Index(t.shape[0]) : 1;
            const auto cols = Eigen::Index(t.shape.back());
            QVERIFY2(got->rows == rows && got->cols == cols, name.c_str());
            const std::vector<float> want = expectedValues(t);
            const core::FloatMatrixMap m = got->matrix();
            for (Eigen::Index r = 0; r < rows; ++r)
                for (Eigen::Index c = 0; c < cols; ++c)
                    if (!sameBits(m(r, c), want[std::size_t(r * cols + c)]))
                        QFAIL(qPrintable(QStringLiteral("%1 (%2, %3): %4 instead of %5")
                                             .arg(QString::fromStdString(name))
                                             .arg(r)
                                             .arg(c)
                                             .arg(double(m(r, c)))
                                             .arg(double(want[std::size_t(r * cols + c)]))));
            ++checked;
        }
        QCOMPARE(checked, 4 + 12 * kLayers);
    }

    void conv1dLayout()
    {
        // c_attn.weight is stored in × out (n_embd × 3·n_embd): element (i, j) is the file's i·3d + j.
        QTemporaryDir dir;
        const Folder f = goodFolder("F16");
        write(f, dir.path().toStdString());
        std::string error;
        const auto ckpt = Gpt2Checkpoint::load(dir.path().toStdString(), error);
        QVERIFY2(ckpt, error.c_str());
        const Tensor& stored = f.tensors[2 + 2]; // wte, wpe, h.0.ln_1.weight, h.0.ln_1.bias, h.0.attn.c_attn.weight
        QCOMPARE(stored.name, std::string("h.0.attn.c_attn.weight"));
        const core::FloatMatrixMap w = ckpt->blocks()[0].attnWeight.matrix();
        QCOMPARE(w.rows(), Eigen::Index(kDim));
        QCOMPARE(w.cols(), Eigen::Index(3 * kDim));
        QVERIFY(sameBits(w(1, 5), halfOracle(pattern(stored.number, 1 * 3 * kDim + 5))));
    }

    void brokenFolders_data()
    {
        QTest::addColumn<Folder>("folder");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("problem");
        const auto row = [](const char* name, const std::function<void(Folder&)>& breakIt, const char* file,
                            const char* problem, const std::string& dtype = "F32") {
            Folder f = goodFolder(dtype);
            breakIt(f);
            QTest::addRow("%s", name) << f << QString::fromUtf8(file) << QString::fromUtf8(problem);
        };
        row(
            "header length past the file",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json&, std::string&, std::uint64_t& length) { length = 1u << 30; };
            },
            "model.safetensors", "header length 1073741824 is past the end of the file");
        row(
            "header length far past the file",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json&, std::string&, std::uint64_t& length) {
                    length = ~std::uint64_t(0) - 3;
                };
            },
            "model.safetensors", "is past the end of the file");
        row(
            "empty weights file",
            [](Folder& f) {
                f.tensors.clear();
                f.breakFile = [](nlohmann::json& header, std::string& data, std::uint64_t&) {
                    header = nlohmann::json::object();
                    data.clear();
                };
            },
            "model.safetensors", "tensor h.0.ln_1.weight is missing (n_layer 2");
        row(
            "header not an object",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json& header, std::string&, std::uint64_t&) { header = {1, 2, 3}; };
            },
            "model.safetensors", "the header is not a JSON object");
        row(
            "offsets overlap",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json& header, std::string&, std::uint64_t&) {
                    auto& o = header["ln_f.bias"]["data_offsets"];
                    o = {o[0].get<std::uint64_t>() - 4, o[1].get<std::uint64_t>() - 4};
                };
            },
            "model.safetensors", "tensor ln_f.bias: data_offsets");
        row(
            "offsets leave a gap",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json& header, std::string& data, std::uint64_t&) {
                    auto& o = header["ln_f.bias"]["data_offsets"];
                    o = {o[0].get<std::uint64_t>() + 4, o[1].get<std::uint64_t>() + 4};
                    data += "\0\0\0\0";
                    data.append(4, '\0');
                };
            },
            "model.safetensors", "leave a gap of 4 bytes after tensor ln_f.weight");
        row(
            "offsets pass the end",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json&, std::string& data, std::uint64_t&) { data.resize(data.size() - 4); };
            },
            "model.safetensors", "tensor ln_f.bias: data_offsets");
        row(
            "bytes after the last tensor",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json&, std::string& data, std::uint64_t&) { data.append(8, '\0'); };
            },
            "model.safetensors", "8 bytes after the last tensor belong to no tensor");
        row(
            "offsets that do not fit the shape",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json& header, std::string&, std::uint64_t&) {
                    header["h.0.attn.c_attn.weight"]["shape"] = {4, 13};
                };
            },
            "model.safetensors", "tensor h.0.attn.c_attn.weight: data_offsets [");
        row(
            "unknown dtype",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json& header, std::string&, std::uint64_t&) {
                    header["wpe.weight"]["dtype"] = "I64";
                };
            },
            "model.safetensors", "tensor wpe.weight: dtype \"I64\" is not supported");
        row(
            "negative shape",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json& header, std::string&, std::uint64_t&) {
                    header["ln_f.bias"]["shape"] = {-4};
                };
            },
            "model.safetensors", "tensor ln_f.bias: shape entry -4");
        row(
            "shape that overflows",
            [](Folder& f) {
                f.breakFile = [](nlohmann::json& header, std::string&, std::uint64_t&) {
                    header["ln_f.bias"]["shape"] = {std::uint64_t(1) << 40, std::uint64_t(1) << 40};
                };
            },
            "model.safetensors", "has more bytes than 64 bits can count");
        row(
            "shape that does not fit config.json",
            [](Folder& f) {
                Tensor& t = *findTensor(f, "h.1.mlp.c_fc.weight");
                t.shape = {kDim, 3 * kDim};
                fillBytes(t);
            },
            "model.safetensors", "tensor h.1.mlp.c_fc.weight has shape [4, 12], but");
        row(
            "vocabulary rows that do not fit config.json",
            [](Folder& f) {
                Tensor& t = *findTensor(f, "wte.weight");
                t.shape = {kVocab - 1, kDim};
                fillBytes(t);
            },
            "model.safetensors", "needs [257, 4] (vocab_size × n_embd)");
        row(
            "a NaN among F16 weights",
            [](Folder& f) {
                f = goodFolder("F16");
                Tensor& t = *findTensor(f, "h.1.mlp.c_fc.weight");
                t.bytes[2 * 17] = '\x01'; // element 17 = row 1, column 1 of 4 × 16: 0x7e01, a NaN
                t.bytes[2 * 17 + 1] = '\x7e';
            },
            "model.safetensors", "tensor h.1.mlp.c_fc.weight: value [1][1] is NaN");
        row(
            "an infinite bias", [](Folder& f) {
                Tensor& t = *findTensor(f, "ln_f.bias");
                const float inf = INFINITY;
                t.bytes.replace(4 * 2, 4, std::string(reinterpret_cast<const char*>(&inf), 4));
            },
            "model.safetensors", "tensor ln_f.bias: value [2] is +Inf");
        row(
            "mask buffer of a layer past n_layer", [](Folder& f) { addCopy(f, "ln_f.bias", "h.2.attn.bias"); },
            "model.safetensors", "tensor h.2.attn.bias is not part of GPT-2");
        row(
            "an architecture not read", [](Folder& f) { f.config["architectures"] = {"LlamaForCausalLM"}; },
            "config.json", "config.json: architecture LlamaForCausalLM is not supported");
        row(
            "a model_type not read", [](Folder& f) { f.config["model_type"] = "bert"; }, "config.json",
            "model_type \"bert\" is not supported");
        row(
            "missing tensor", [](Folder& f) { f.tensors.erase(f.tensors.begin() + 20); }, "model.safetensors",
            "tensor h.1.ln_2.weight is missing");
        row(
            "a layer too many", [](Folder& f) { addCopy(f, "h.1.ln_1.weight", "h.2.ln_1.weight"); },
            "model.safetensors", "tensor h.2.ln_1.weight is not part of GPT-2");
        row(
            "tensor with and without prefix", [](Folder& f) { addCopy(f, "ln_f.bias", "transformer.ln_f.bias"); },
            "model.safetensors", "tensor ln_f.bias is there twice");
        row(
            "lm_head not tied",
            [](Folder& f) {
                Tensor head = f.tensors.front();
                head.name = "lm_head.weight";
                head.number = 77;
                fillBytes(head);
                f.tensors.push_back(head);
            },
            "model.safetensors", "tensor lm_head.weight differs from wte");
        row(
            "heads that do not divide n_embd", [](Folder& f) { f.config["n_head"] = 3; }, "config.json",
            "n_head: 3 heads do not divide n_embd 4");
        row(
            "non-positive size", [](Folder& f) { f.config["n_layer"] = 0; }, "config.json", "n_layer: expected 1");
        row(
            "size missing", [](Folder& f) { f.config.erase("n_embd"); }, "config.json", "n_embd: missing");
        row(
            "positions missing", [](Folder& f) { f.config.erase("n_positions"); }, "config.json",
            "n_positions: missing (and no n_ctx either)");
        row(
            "size not an integer", [](Folder& f) { f.config["vocab_size"] = "257"; }, "config.json",
            "vocab_size: expected an integer");
        row(
            "another activation", [](Folder& f) { f.config["activation_function"] = "relu"; }, "config.json",
            "activation_function: \"relu\" is not supported");
        row(
            "epsilon not positive", [](Folder& f) { f.config["layer_norm_epsilon"] = 0; }, "config.json",
            "layer_norm_epsilon: expected a positive number");
        row(
            "config not JSON", [](Folder& f) { f.configText = "{\"n_layer\": 2,"; }, "config.json",
            "not valid JSON: the text ends (after 14 bytes) before its JSON value does");
        row(
            "missing config", [](Folder& f) { f.writeConfig = false; }, "config.json", "config.json: missing");
        row(
            "missing tokenizer", [](Folder& f) { f.writeVocab = f.writeMerges = false; }, "vocab.json",
            "missing (the tokenizer is vocab.json + merges.txt, or tokenizer.json)");
        row(
            "missing merges", [](Folder& f) { f.writeMerges = false; }, "merges.txt", "merges.txt: missing");
        row(
            "broken vocabulary", [](Folder& f) { f.vocabText = "{\"a\": 0"; }, "vocab.json", "vocab.json: not valid JSON");
        row(
            "broken merges", [](Folder& f) { f.merges = "#version: 0.2\nĠ\n"; }, "merges.txt",
            "line 2: expected two tokens separated by one space");
        row(
            "broken tokenizer.json",
            [](Folder& f) {
                f.writeVocab = f.writeMerges = false;
                f.writeTokenizerJson = true;
                f.vocab.erase("Ġ");
            },
            "tokenizer.json", "token \"<|endoftext|>\" has id 256, outside 0 … 255");
        row(
            "tokenizer larger than vocab_size", [](Folder& f) { f.config["vocab_size"] = 256; }, "vocab.json",
            "257 tokens, more than");
        row(
            "missing weights", [](Folder& f) { f.writeWeights = false; }, "model.safetensors", "missing");
        row(
            "pickle only",
            [](Folder& f) {
                f.writeWeights = false;
                f.writePickle = true;
            },
            "pytorch_model.bin", "convert it to model.safetensors in that folder first, e.g. with python3 -c");
    }

    void brokenFolders()
    {
        QFETCH(Folder, folder);
        QFETCH(QString, file);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        write(folder, dir.path().toStdString());
        std::string error;
        const auto ckpt = Gpt2Checkpoint::load(dir.path().toStdString(), error);
        QVERIFY2(!ckpt, "a broken folder was accepted");
        const QString message = QString::fromStdString(error);
        QVERIFY2(message.startsWith(dir.path() + QLatin1Char('/') + file + QLatin1Char(':')), error.c_str());
        QVERIFY2(message.contains(problem), error.c_str());
    }

    void notAFolder()
    {
        std::string error;
        QVERIFY(!Gpt2Checkpoint::load(AE_SOURCE_DIR "/no-such-model", error));
        QVERIFY2(error.find("no-such-model: is not a folder") != std::string::npos, error.c_str());
    }

    void headerParserAlone()
    {
        // The example of the brief, word for word.
        const std::string header =
            R"({"h.0.attn.c_attn.weight": {"dtype": "F32", "shape": [768, 2304], "data_offsets": [0, 12]}})";
        std::string bytes;
        for (int b = 0; b < 8; ++b)
            bytes += char((header.size() >> (8 * b)) & 0xff);
        bytes += header + std::string(12, '\0');
        std::string error;
        QVERIFY(!core::parseSafetensors(bytes, "model.safetensors", error));
        QCOMPARE(error, std::string("model.safetensors: tensor h.0.attn.c_attn.weight: data_offsets [0, 12] do not fit "
                                    "its shape [768, 2304] (F32 needs 7077888 bytes)"));
        QVERIFY(!core::parseSafetensors(std::string("\x02\0\0\0", 4), "short.safetensors", error));
        QVERIFY2(error.starts_with("short.safetensors: is 4 bytes long"), error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
