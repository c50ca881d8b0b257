/** The attention options of SPEC §6 (rotary positions, K/V heads, q/k norm) in plain sessions: every step against a
 *  PyTorch float64 reference written from transformers' definitions (tests/options_reference.py) on random
 *  sessions, the identities they keep without Python, the session file's keys and refusals, and a trace computed
 *  under other options never taken as the start of a pass. */

#include "core/attention/attention.h"
#include "core/attention/derivation.h"
#include "core/attention/rotary.h"
#include "core/attention/edit.h"
#include "core/attention/pytorchexport.h"
#include "core/attention/tracejson.h"
#include "core/formats/jsontext.h"
#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "python.h"
#include "testutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <random>

using namespace core;
using testutil::randomMatrix;

namespace {

/** One random session of the reference's cases. */
struct Case {
    const char* name;
    int n, dModel, heads, kvHeads, dk, dv, dOut;
    PositionalEncoding encoding;
    double fraction, theta;
    bool qkNorm, normWeights, causal, biases, scale = true;
    double temperature = 1.0, epsilon = 1e-6;
    bool ownFrequencies = false;
};

const Case cases[] = {
    // Llama: two K/V heads for four, every dimension turns, causal, W_O
    {"llama", 7, 12, 4, 2, 6, 5, 8, PositionalEncoding::Rotary, 1.0, 10000, false, false, true, false},
    // Qwen2: one K/V head for four, θ = 10⁶, q/k/v biases
    {"qwen2", 9, 8, 4, 1, 4, 4, 0, PositionalEncoding::Rotary, 1.0, 1e6, false, false, true, true},
    // Qwen3: q/k norm with weights before the rotation, d_k wider than d_model / h, not causal
    {"qwen3", 6, 10, 2, 1, 8, 3, 5, PositionalEncoding::Rotary, 1.0, 10000, true, true, false, true},
    // GPT-NeoX: a quarter of each head turns, biases and b_O
    {"neox", 10, 16, 4, 0, 8, 8, 16, PositionalEncoding::Rotary, 0.25, 10000, false, false, true, true},
    // half of d_k = 10 is 5: the even part, 4, turns
    {"odd width", 8, 12, 2, 0, 10, 4, 0, PositionalEncoding::Rotary, 0.5, 500, false, false, false, false},
    // q/k norm alone (weights of ones), kv_heads = heads written out, no scale, a temperature, a larger ε
    {"norm only", 5, 6, 3, 3, 4, 2, 0, PositionalEncoding::None, 1.0, 10000, true, false, true, true, false, 0.7,
     1e-3},
    // a model's own frequencies (rope_scaling)
    {"own frequencies", 12, 8, 2, 1, 6, 6, 4, PositionalEncoding::Rotary, 1.0, 10000, false, false, true, false,
     true, 1.0, 1e-6, true},
    // grouped K/V heads with the sinusoidal encoding added to X
    {"grouped sinusoidal", 6, 8, 6, 3, 3, 2, 0, PositionalEncoding::Sinusoidal, 1.0, 10000, false, false, false,
     false},
    // past one block of 128 query rows and onto several threads: all three options together
    {"long", 300, 32, 8, 2, 16, 8, 32, PositionalEncoding::Rotary, 1.0, 10000, true, true, true, true},
};

/** A random session of case c (its own seed), with the reference's frequencies among the extras when it has them. */
Session randomSession(const Case& c, unsigned seed)
{
    std::mt19937_64 rng(seed);
    const int kv = c.kvHeads > 0 ? c.kvHeads : c.heads;
    Session s;
    AttentionModel& m = s.model;
    for (int i = 0; i < c.n; ++i)
        m.tokens.push_back("t" + std::to_string(i));
    m.embeddings = randomMatrix(rng, c.n, c.dModel, -2, 2);
    m.wq = randomMatrix(rng, c.dModel, c.heads * c.dk);
    m.wk = randomMatrix(rng, c.dModel, kv * c.dk);
    m.wv = randomMatrix(rng, c.dModel, kv * c.dv);
    if (c.dOut > 0)
        m.wo = randomMatrix(rng, c.heads * c.dv, c.dOut);
    if (c.biases) {
        m.bq = randomMatrix(rng, 1, c.heads * c.dk);
        m.bk = randomMatrix(rng, 1, kv * c.dk);
        m.bv = randomMatrix(rng, 1, kv * c.dv);
        if (m.wo)
            m.bo = randomMatrix(rng, 1, c.dOut);
    }
    if (c.normWeights) {
        m.qNorm = randomMatrix(rng, 1, c.dk, 0.5, 1.5);
        m.kNorm = randomMatrix(rng, 1, c.dk, 0.5, 1.5);
    }
    Options& o = m.options;
    o.heads = c.heads;
    o.kvHeads = c.kvHeads;
    o.positionalEncoding = c.encoding;
    o.rotaryFraction = c.fraction;
    o.ropeTheta = c.theta;
    o.qkNorm = c.qkNorm;
    o.mask = c.causal ? Mask::Causal : Mask::None;
    o.scale = c.scale;
    o.temperature = c.temperature;
    m.qkNormEpsilon = c.epsilon;
    if (c.ownFrequencies) {
        std::vector<double> f;
        std::uniform_real_distribution<double> u(0.01, 1.0);
        for (int i = 0; i < rotaryWidth(m) / 2; ++i)
            f.push_back(u(rng));
        m.rotaryFrequencies = f;
        s.extras["reference_frequencies"] = f;
    }
    return s;
}

Matrix fromJson(const nlohmann::json& j)
{
    Matrix m(Eigen::Index(j.size()), j.empty() ? 0 : Eigen::Index(j[0].size()));
    for (std::size_t r = 0; r < j.size(); ++r)
        for (std::size_t c = 0; c < j[r].size(); ++c)
            m(Eigen::Index(r), Eigen::Index(c)) = j[r][c].get<double>();
    return m;
}

/** Largest |entry| of the row-wise difference of a's rows i and i + 1 shifted along its diagonal: how far
 *  m(i, j) is from m(i + 1, j + 1). */
double worstShift(const Matrix& m)
{
    double worst = 0;
    for (Eigen::Index i = 0; i + 1 < m.rows(); ++i)
        for (Eigen::Index j = 0; j + 1 < m.cols(); ++j)
            worst = std::max(worst, std::fabs(m(i, j) - m(i + 1, j + 1)));
    return worst;
}

/** True when every matrix of both traces holds the same bits. */
bool sameTrace(const Trace& a, const Trace& b)
{
    auto same = [](const Matrix& x, const Matrix& y) {
        return x.rows() == y.rows() && x.cols() == y.cols()
            && (x.size() == 0 || std::memcmp(x.data(), y.data(), sizeof(double) * std::size_t(x.size())) == 0);
    };
    if (a.headCount() != b.headCount() || !same(a.x(), b.x()) || !same(a.concat, b.concat) || !same(a.output, b.output))
        return false;
    for (int h = 0; h < a.headCount(); ++h) {
        const HeadTrace &x = a.heads[std::size_t(h)], &y = b.heads[std::size_t(h)];
        if (!same(x.queries, y.queries) || !same(x.keys, y.keys) || !same(x.values, y.values)
            || !same(x.scores, y.scores) || !same(x.weights, y.weights) || !same(x.outputs, y.outputs)
            || !same(x.queriesUnrotated, y.queriesUnrotated) || !same(x.keysUnrotated, y.keysUnrotated))
            return false;
    }
    return true;
}

/** The session file's text of the illustrated example with these lines added to its options. */
std::string withOptions(const std::string& lines, int heads = 1)
{
    Session s = *preset("illustrated");
    s.model.options.heads = heads;
    std::string text = serializeSession(s);
    const std::string anchor = "\"positional_encoding\": \"none\"";
    text.replace(text.find(anchor), anchor.size(), anchor + lines);
    return text;
}

}  // namespace

class TestAttentionOptions : public QObject {
    Q_OBJECT

    QString m_python;  ///< a python3 with torch, or empty
    QTemporaryDir m_dir;
    static constexpr const char* noTorch =
        "torch is missing: no python3 on PATH can import torch (install python3-torch to run this check)";

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_python = testutil::pythonWith(QStringLiteral("torch"));
    }

    /** Every step of every case against PyTorch (float64) to 1e-9, the sessions read by the reference from the
     *  files this program writes. */
    void matchesTransformersDefinitions()
    {
        if (m_python.isEmpty())
            QSKIP(noTorch);
        QStringList paths;
        std::vector<Trace> traces;
        unsigned seed = 11;
        for (const Case& c : cases) {
            const Session s = randomSession(c, seed++);
            QVERIFY2(!validate(s.model), c.name);
            const QString path = m_dir.filePath(QString::fromUtf8(c.name).replace(QLatin1Char(' '), QLatin1Char('_')) + QStringLiteral(".json"));
            QVERIFY(testutil::writeText(path, QByteArray::fromStdString(serializeSession(s))));
            paths << path;
            traces.push_back(compute(s.model));
        }
        QFile script(QStringLiteral(AE_SOURCE_DIR "/tests/options_reference.py"));
        QVERIFY(script.open(QIODevice::ReadOnly));
        QString error;
        const QByteArray out = testutil::runPython(m_python, script.readAll(), paths, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const nlohmann::json all = nlohmann::json::parse(out.toStdString());
        QCOMPARE(all.size(), std::size(cases));
        const double tol = 1e-9;
        for (std::size_t i = 0; i < std::size(cases); ++i) {
            const Trace& t = traces[i];
            const nlohmann::json& r = all[i];
            const QByteArray name = cases[i].name;
            qInfo("%s", name.constData());
            COMPARE_MATRIX(t.x(), fromJson(r["x"]), tol);
            QCOMPARE(t.headCount(), int(r["heads"].size()));
            for (int h = 0; h < t.headCount(); ++h) {
                const HeadTrace& ht = t.heads[std::size_t(h)];
                const nlohmann::json& rh = r["heads"][std::size_t(h)];
                if (cases[i].encoding == PositionalEncoding::Rotary) {
                    COMPARE_MATRIX(ht.queriesUnrotated, fromJson(rh["queries_unrotated"]), tol);
                    COMPARE_MATRIX(ht.keysUnrotated, fromJson(rh["keys_unrotated"]), tol);
                } else {
                    QVERIFY(rh["queries_unrotated"].is_null());
                    QCOMPARE(ht.queriesUnrotated.size(), 0);
                    QCOMPARE(ht.keysUnrotated.size(), 0);
                }
                COMPARE_MATRIX(ht.queries, fromJson(rh["queries"]), tol);
                COMPARE_MATRIX(ht.keys, fromJson(rh["keys"]), tol);
                COMPARE_MATRIX(ht.values, fromJson(rh["values"]), tol);
                COMPARE_MATRIX(ht.scores, fromJson(rh["scores"]), tol);
                COMPARE_MATRIX(ht.weights, fromJson(rh["weights"]), tol);
                COMPARE_MATRIX(ht.outputs, fromJson(rh["outputs"]), tol);
            }
            COMPARE_MATRIX(t.concat, fromJson(r["concat"]), tol);
            COMPARE_MATRIX(t.output, fromJson(r["output"]), tol);
        }
    }

    /** The PyTorch code the program writes for a session with the options computes what the engine does. */
    void pytorchExport()
    {
        if (m_python.isEmpty())
            QSKIP(noTorch);
        QStringList paths;
        std::vector<Trace> traces;
        for (std::size_t i = 0; i < std::size(cases) - 1; ++i) {  // not the long one: its literals are large
            const AttentionModel m = randomSession(cases[i], 29 + unsigned(i)).model;
            paths << m_dir.filePath(QStringLiteral("case%1.py").arg(i));
            QVERIFY(testutil::writeText(paths.last(), QByteArray::fromStdString(pytorchCode(m, cases[i].name))));
            traces.push_back(compute(m));
        }
        QString error;
        const QByteArray out = testutil::runPython(m_python,
                                                   "import json, runpy, sys\n"
                                                   "def listed(t):\n"
                                                   "    return [x.tolist() for x in (t if isinstance(t, list) else [t])]\n"
                                                   "print(json.dumps([{k: listed(g[k]) for k in ('weights', 'output', "
                                                   "'Q', 'K', 'Q_unrotated')} for g in map(runpy.run_path, "
                                                   "sys.argv[1:])]))\n",
                                                   paths, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const nlohmann::json all = nlohmann::json::parse(out.toStdString());
        for (std::size_t i = 0; i < traces.size(); ++i) {
            const Trace& t = traces[i];
            const nlohmann::json& r = all[i];
            qInfo("%s", cases[i].name);
            COMPARE_MATRIX(t.output, fromJson(r["output"][0]), 1e-9);
            for (int h = 0; h < t.headCount(); ++h) {
                const HeadTrace& ht = t.heads[std::size_t(h)];
                COMPARE_MATRIX(ht.weights, fromJson(r["weights"][std::size_t(h)]), 1e-9);
                COMPARE_MATRIX(ht.queries, fromJson(r["Q"][std::size_t(h)]), 1e-9);
                COMPARE_MATRIX(ht.keys, fromJson(r["K"][std::size_t(h)]), 1e-9);
                if (cases[i].encoding == PositionalEncoding::Rotary)
                    COMPARE_MATRIX(ht.queriesUnrotated, fromJson(r["Q_unrotated"][std::size_t(h)]), 1e-9);
            }
        }
    }

    /** The arithmetic behind a turned q or k cell and a key or value of a shared K/V head gives the cell's value from
     *  the numbers before the turn. */
    void derivations()
    {
        const Trace t = compute(randomSession(cases[2], 31).model);  // q/k norm with weights, rotary, one K/V head
        const int dr = rotaryWidth(*t.model);
        const std::vector<double> f = rotaryFrequencies(*t.model);
        for (Step step : {Step::Queries, Step::Keys})
            for (int col : {0, dr / 2 - 1, dr / 2, dr - 1}) {
                const Derivation d = derive(t, CellRef{step, 1, 4, col});
                QVERIFY(d.kind == Derivation::Kind::Rotation);
                const int pair = col % (dr / 2);
                const double angle = 4 * f[std::size_t(pair)];
                QVERIFY(std::fabs(d.numeratorArg - angle) < 1e-15);
                const Matrix& before = step == Step::Queries ? t.heads[1].queriesUnrotated : t.heads[1].keysUnrotated;
                QCOMPARE(d.terms[0].a, before(4, col));
                QCOMPARE(d.terms[1].a, before(4, col < dr / 2 ? col + dr / 2 : col - dr / 2));
                QCOMPARE(d.partnerAdds, col >= dr / 2);
                const double expected = before(4, col) * std::cos(angle)
                    + (col < dr / 2 ? -1 : 1) * d.terms[1].a * std::sin(angle);
                QVERIFY(std::fabs(expected - d.value) < 1e-12);
            }
        // a key of the second head of one K/V head: W_K's first block
        AttentionModel m = *t.model;
        m.options.positionalEncoding = PositionalEncoding::None;
        m.options.qkNorm = false;
        const Trace grouped = compute(m);
        const Derivation k = derive(grouped, CellRef{Step::Keys, 1, 2, 3});
        QVERIFY(k.kind == Derivation::Kind::DotProduct);
        QCOMPARE(k.sources[1].col, 3);
        const Derivation v = derive(grouped, CellRef{Step::Values, 1, 2, 2});
        QCOMPARE(v.sources[1].col, 2);
        for (std::size_t r = 0; r < v.terms.size(); ++r)
            QCOMPARE(v.terms[r].b, m.wv(Eigen::Index(r), 2));
        QCOMPARE(*v.bias, (*m.bv)(0, 2));
    }

    /** Position 0 turns by no angle: its q and k rows are exactly those before the turn; every row keeps its length. */
    void rotaryLeavesRowZero()
    {
        const Trace t = compute(randomSession(cases[0], 3).model);
        for (const HeadTrace& ht : t.heads) {
            QVERIFY(ht.queries.row(0) == ht.queriesUnrotated.row(0));
            QVERIFY(ht.keys.row(0) == ht.keysUnrotated.row(0));
            QVERIFY(ht.queries.row(1) != ht.queriesUnrotated.row(1));
            COMPARE_MATRIX(ht.queries.rowwise().norm(), ht.queriesUnrotated.rowwise().norm(), 1e-12);
        }
        QVERIFY(t.x() == t.model->embeddings);  // rotary adds nothing to X
        QCOMPARE(t.encodedX.size(), 0);
    }

    /** With every token's row the same, a rotary score depends only on i − j (with q/k norm and biases too). */
    void rotaryScoresDependOnOffset()
    {
        for (const Case* c : {&cases[0], &cases[2], &cases[3]}) {
            Session s = randomSession(*c, 5);
            for (Eigen::Index i = 1; i < s.model.n(); ++i)
                s.model.embeddings.row(i) = s.model.embeddings.row(0);
            const Trace t = compute(s.model);
            for (const HeadTrace& ht : t.heads) {
                const double scale = std::max(1.0, ht.scores.cwiseAbs().maxCoeff());
                QVERIFY2(worstShift(ht.scores) < 1e-12 * scale, c->name);
                // … and on it: the scores of one query differ from key to key
                QVERIFY2((ht.scores.row(c->n - 1).array() - ht.scores(c->n - 1, 0)).abs().maxCoeff() > 1e-6, c->name);
            }
            s.model.options.positionalEncoding = PositionalEncoding::None;  // without the turn: all the same
            const Trace plain = compute(s.model);
            QVERIFY(worstShift(plain.heads[0].scores) < 1e-12 * std::max(1.0, plain.heads[0].scores.cwiseAbs().maxCoeff()));
            QVERIFY((plain.heads[0].scores.array() - plain.heads[0].scores(0, 0)).abs().maxCoeff() < 1e-9);
        }
    }

    /** kv_heads = heads is the default's layout, bit for bit; two K/V heads for four equal W_K and W_V with each
     *  K/V head's columns written out twice. */
    void kvHeads()
    {
        std::mt19937_64 rng(7);
        AttentionModel m = testutil::randomModel(rng, 9, 8, 4, 3, 2, 6);
        m.options.mask = Mask::Causal;
        const Trace plain = compute(m);
        m.options.kvHeads = 4;
        QVERIFY(sameTrace(compute(m), plain));

        AttentionModel grouped = m;
        grouped.options.kvHeads = 2;
        grouped.wk = randomMatrix(rng, 8, 2 * 3);
        grouped.wv = randomMatrix(rng, 8, 2 * 2);
        AttentionModel repeated = grouped;
        repeated.options.kvHeads = 0;
        repeated.wk.resize(8, 4 * 3);
        repeated.wv.resize(8, 4 * 2);
        for (int h = 0; h < 4; ++h) {
            repeated.wk.middleCols(h * 3, 3) = grouped.wk.middleCols(h / 2 * 3, 3);
            repeated.wv.middleCols(h * 2, 2) = grouped.wv.middleCols(h / 2 * 2, 2);
        }
        const Trace a = compute(grouped), b = compute(repeated);
        for (int h = 0; h < 4; ++h) {
            COMPARE_MATRIX(a.heads[std::size_t(h)].keys, b.heads[std::size_t(h)].keys, 1e-12);
            COMPARE_MATRIX(a.heads[std::size_t(h)].values, b.heads[std::size_t(h)].values, 1e-12);
            COMPARE_MATRIX(a.heads[std::size_t(h)].weights, b.heads[std::size_t(h)].weights, 1e-12);
        }
        COMPARE_MATRIX(a.output, b.output, 1e-12);
        // heads of one group share their K/V head's keys
        QVERIFY(a.heads[0].keys == a.heads[1].keys);
        QVERIFY(a.heads[0].keys != a.heads[2].keys);
    }

    /** q/k norm with weights of ones gives rows of RMS 1; the weights multiply each column. */
    void qkNormRowsHaveUnitRms()
    {
        std::mt19937_64 rng(9);
        AttentionModel m = testutil::randomModel(rng, 6, 5, 2, 4, 3);
        m.options.qkNorm = true;
        m.qkNormEpsilon = 1e-15;
        const Trace t = compute(m);
        for (const HeadTrace& ht : t.heads)
            for (const Matrix* q : {&ht.queries, &ht.keys})
                for (Eigen::Index r = 0; r < q->rows(); ++r)
                    QVERIFY(std::fabs(std::sqrt(q->row(r).squaredNorm() / double(q->cols())) - 1) < 1e-12);
        m.qNorm = testutil::mat({{2, 1, 1, 0.5}});
        const Trace w = compute(m);
        COMPARE_MATRIX(w.heads[1].queries.col(0), 2 * t.heads[1].queries.col(0), 1e-12);
        COMPARE_MATRIX(w.heads[1].queries.col(3), 0.5 * t.heads[1].queries.col(3), 1e-12);
        COMPARE_MATRIX(w.heads[1].keys, t.heads[1].keys, 0);
    }

    /** A trace computed under other options (or of a model with them) is never the start of a pass: each result
     *  is bit for bit a fresh one, with a previous trace and a spare to recycle. */
    void otherOptionsAreNotReused()
    {
        const AttentionModel base = randomSession(cases[5], 13).model;  // q/k norm alone
        AttentionModel plain = base;
        plain.options.qkNorm = false;
        plain.options.kvHeads = 0;
        AttentionModel rotary = base;
        rotary.options.positionalEncoding = PositionalEncoding::Rotary;
        AttentionModel turned = rotary;
        turned.options.ropeTheta = 100;
        AttentionModel normed = base;
        normed.qNorm = Matrix::Constant(1, base.dK(), 3.0);
        AttentionModel edited = rotary;
        edited.wq(0, 0) += 1;
        const std::vector<const AttentionModel*> models = {&plain, &base, &rotary, &plain, &turned, &rotary,
                                                           &normed, &base, &edited, &rotary, &plain};
        Trace previous = compute(*models[0]);
        Trace spare = compute(*models[1]);
        for (std::size_t i = 1; i < models.size(); ++i) {
            Trace next = compute(*models[i], &previous, &spare);
            QVERIFY2(sameTrace(next, compute(*models[i])), qPrintable(QString::number(i)));
            spare = std::move(previous);
            previous = std::move(next);
        }
        // the very same shared model with a new temperature
        auto shared = std::make_shared<AttentionModel>(rotary);
        const Trace first = compute(std::shared_ptr<const AttentionModel>(shared));
        QVERIFY(sameTrace(compute(std::shared_ptr<const AttentionModel>(shared), &first), first));
    }

    /** --compute prints the unrotated q and k of a rotary trace only, in key order, as traceToJson has them. */
    void computeJson()
    {
        const Trace rotary = compute(randomSession(cases[1], 17).model);
        const nlohmann::json j = traceToJson(rotary);
        COMPARE_MATRIX(fromJson(j["heads"][1]["queries_unrotated"]), rotary.heads[1].queriesUnrotated, 0);
        COMPARE_MATRIX(fromJson(j["heads"][3]["keys_unrotated"]), rotary.heads[3].keysUnrotated, 0);
        QCOMPARE(traceToJsonText(rotary), jsonText(j));
        const Trace plain = compute(randomSession(cases[5], 17).model);
        QVERIFY(!traceToJson(plain)["heads"][0].contains("queries_unrotated"));
        QCOMPARE(traceToJsonText(plain), jsonText(traceToJson(plain)));
    }

    /** The options and the norm weights written and read back; an older file writes back as it was. */
    void sessionFileRoundTrip()
    {
        for (const Case& c : cases) {
            Session s = randomSession(c, 19);
            s.model.rotaryFrequencies.reset();  // a model's own, which files do not keep
            s.extras = nlohmann::json::object();
            const std::string text = serializeSession(s);
            std::string error;
            const auto back = parseSession(text, error);
            QVERIFY2(back, error.c_str());
            QVERIFY2(back->model == s.model, c.name);
            QCOMPARE(serializeSession(*back), text);
        }
        const Session old = *preset("illustrated");
        const std::string text = serializeSession(old);
        for (const char* key : {"kv_heads", "rope_theta", "rotary_fraction", "qk_norm", "query_norm", "key_norm"})
            QVERIFY2(text.find(key) == std::string::npos, key);
        std::string error;
        const auto rotary = parseSession(withOptions(",\n\"positional_encoding\": \"rotary\", \"rope_theta\": 500, "
                                                     "\"rotary_fraction\": 0.7, \"kv_heads\": 1, \"qk_norm\": true, "
                                                     "\"qk_norm_epsilon\": 1e-5"),
                                         error);
        QVERIFY2(rotary, error.c_str());
        const Options& o = rotary->model.options;
        QCOMPARE(o.positionalEncoding, PositionalEncoding::Rotary);
        QCOMPARE(o.ropeTheta, 500.0);
        QCOMPARE(o.rotaryFraction, 0.7);
        QCOMPARE(o.kvHeads, 1);
        QVERIFY(o.qkNorm);
        QCOMPARE(rotary->model.qkNormEpsilon, 1e-5);
        QVERIFY(rotary->extras.is_null() || !rotary->extras.contains("options"));
        QCOMPARE(toString(PositionalEncoding::Rotary), "rotary");
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("options");
        QTest::addColumn<int>("heads");
        QTest::addColumn<QString>("message");
        QTest::addRow("kv_heads not dividing") << ", \"kv_heads\": 3" << 1
                                               << "options.kv_heads: 3 does not divide heads (1)";
        QTest::addRow("kv_heads 0") << ", \"kv_heads\": 0" << 1
                                    << "options.kv_heads: expected a whole number from 1 to 64, got the number 0";
        QTest::addRow("kv_heads text") << ", \"kv_heads\": \"2\"" << 1
                                       << "options.kv_heads: expected a whole number from 1 to 64, got the text \"2\"";
        QTest::addRow("theta") << ", \"rope_theta\": -1" << 1
                               << "options.rope_theta: expected a number > 0, got the number -1";
        QTest::addRow("fraction") << ", \"rotary_fraction\": 1.5" << 1
                                  << "options.rotary_fraction: expected a number > 0 and at most 1, got the number 1.5";
        QTest::addRow("too narrow") << ", \"positional_encoding\": \"rotary\", \"rotary_fraction\": 0.5" << 1
                                    << "options.rotary_fraction: turns 0 of d_k = 3 dimensions; expected at least 2";
        QTest::addRow("qk_norm") << ", \"qk_norm\": 1" << 1
                                 << "options.qk_norm: expected true or false, got the number 1";
        QTest::addRow("epsilon") << ", \"qk_norm_epsilon\": 0" << 1
                                 << "options.qk_norm_epsilon: expected a number > 0, got the number 0";
        QTest::addRow("encoding") << ", \"positional_encoding\": \"alibi\"" << 1
                                  << "options.positional_encoding: expected \"none\", \"sinusoidal\" or \"rotary\", "
                                     "got the text \"alibi\"";
    }

    /** Each fault named by its key, as the file spells it. */
    void refusals()
    {
        QFETCH(QString, options);
        QFETCH(int, heads);
        QFETCH(QString, message);
        std::string error;
        QVERIFY(!parseSession(withOptions(options.toStdString(), heads), error));
        QCOMPARE(QString::fromStdString(error), message);
    }

    /** Shapes the options set: W_K of kv_heads·d_k columns, W_O of h·d_v rows, the norm weights of d_k. */
    void shapeRefusals()
    {
        std::mt19937_64 rng(21);
        AttentionModel m = testutil::randomModel(rng, 4, 6, 4, 3, 2, 5);
        m.options.kvHeads = 2;
        auto message = [&m] { return QString::fromStdString(validate(m).value_or("valid")); };
        QCOMPARE(message(), QStringLiteral("weights.key: expected 6 columns (kv_heads·d_k, d_k from weights.query), got 12"));
        m.wk = randomMatrix(rng, 6, 2 * 3 + 1);
        QCOMPARE(message(), QStringLiteral("weights.key: 7 columns do not divide into 2 K/V heads (options.kv_heads)"));
        m.wk = randomMatrix(rng, 6, 2 * 3);
        QCOMPARE(message(), QStringLiteral("weights.output: expected 16 rows (h·d_v), got 8"));  // d_v = 8 / 2
        m.wv = randomMatrix(rng, 6, 2 * 2);
        QCOMPARE(message(), QStringLiteral("valid"));
        m.wo = randomMatrix(rng, 4 * 2, 5);
        QVERIFY(!validate(m));
        m.qNorm = Matrix::Ones(1, 4);
        QCOMPARE(message(), QStringLiteral("weights.query_norm: expected 3 columns (d_k), got 4"));
        m.qNorm = Matrix::Ones(1, 3);
        m.options.positionalEncoding = PositionalEncoding::Rotary;
        m.rotaryFrequencies = std::vector<double>{1.0, 2.0};
        QCOMPARE(message(), QStringLiteral("rotary frequencies: expected 1 (d_r / 2), got 2"));
        m.rotaryFrequencies = std::vector<double>{0.5};
        QVERIFY(!validate(m));
        QVERIFY(compute(m).heads[3].keys == compute(m).heads[2].keys);
    }

    /** Resizing a model with the options keeps it valid: a new number of heads gives one K/V head per head again;
     *  the norm weights follow d_k. */
    void resizeKeepsOptionsValid()
    {
        AttentionModel m = randomSession(cases[2], 23).model;  // two heads, one K/V head, q/k norm, rotary
        const AttentionModel wider = resized(m, m.dModel(), 10, 3, 2);
        QVERIFY2(!validate(wider), validate(wider).value_or("").c_str());
        QCOMPARE(wider.kvHeads(), 1);
        QCOMPARE(wider.qNorm->cols(), 10);
        QCOMPARE((*wider.qNorm)(0, 9), 1.0);
        QCOMPARE((*wider.qNorm)(0, 0), (*m.qNorm)(0, 0));
        QVERIFY(wider.wk.leftCols(8) == m.wk);
        const AttentionModel more = resized(m, m.dModel(), 8, 3, 4);
        QVERIFY2(!validate(more), validate(more).value_or("").c_str());
        QCOMPARE(more.options.kvHeads, 0);
        QCOMPARE(more.wk.cols(), 4 * 8);
        QVERIFY(more.wk.leftCols(8) == m.wk);
        m.bo.reset();
        m.wo = defaultOutputProjection(m);  // h·d_v rows, not W_V's columns
        QCOMPARE(m.wo->rows(), 2 * 3);
        QVERIFY(!validate(m));
    }
};

QTEST_GUILESS_MAIN(TestAttentionOptions)
#include "tst_attentionoptions.moc"
