/** The Document: edits, undo and redo, files and the recompute off the GUI thread. */

#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "core/tensor/threadpool.h"
#include "testutil.h"
#include "ui/document/background.h"
#include "ui/document/document.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QSemaphore>
#include <QTemporaryDir>
#include <QThread>
#include <QThreadPool>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <set>

#include <sys/resource.h>
#include <unistd.h>

#include <thread>

using namespace ui;
using testutil::mat;

namespace {

/** Softmax of each row, written out as the textbook has it. */
core::Matrix softmaxByHand(const core::Matrix& s)
{
    core::Matrix w(s.rows(), s.cols());
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
        double sum = 0;
        for (Eigen::Index j = 0; j < s.cols(); ++j)
            sum += std::exp(s(i, j));
        for (Eigen::Index j = 0; j < s.cols(); ++j)
            w(i, j) = std::exp(s(i, j)) / sum;
    }
    return w;
}

struct Snapshot {
    core::AttentionModel model;
    QString tokenText;
};

Snapshot snapshot(const Document& d)
{
    return {d.model(), d.tokenText()};
}

bool same(const Snapshot& a, const Document& d)
{
    return a.model == d.model() && a.tokenText == d.tokenText();
}

/** Waits for the document's trace and says how it differs from a fresh computation of its model
 *  (the scores, weights and output of every head); empty when it does not. */
QByteArray differenceFromFresh(Document& doc)
{
    if (!doc.waitForTrace(60000))
        return "no trace within 60 s";
    const auto trace = doc.trace();
    if (!trace)
        return "no trace";
    if (!(*trace->model == doc.model()))
        return "the trace is of another model";
    const core::Trace fresh = core::compute(doc.model());
    for (int h = 0; h < fresh.headCount(); ++h) {
        const auto& got = trace->heads[std::size_t(h)];
        const auto& want = fresh.heads[std::size_t(h)];
        if (QByteArray d = testutil::matrixDifference(got.scores, want.scores, 1e-11); !d.isEmpty())
            return "scores: " + d;
        if (QByteArray d = testutil::matrixDifference(got.weights, want.weights, 1e-12); !d.isEmpty())
            return "weights: " + d;
    }
    if (QByteArray d = testutil::matrixDifference(trace->output, fresh.output, 1e-11); !d.isEmpty())
        return "output: " + d;
    return {};
}

/** Loads a random model of n tokens (d_model 32, two heads of 16, W_O to 8) and waits for its trace. */
bool loadRandomModel(Document& doc, unsigned seed, int n)
{
    std::mt19937_64 rng(seed);
    core::Session session;
    session.model = testutil::randomModel(rng, n, 32, 2, 16, 16, 8);
    doc.loadSession(session, QString());
    return doc.waitForTrace(60000);
}

}  // namespace

/** Fails the test, naming `after`, unless the document's trace is what a fresh computation gives. */
#define VERIFY_MATCHES_FRESH(doc, after)                                                                  \
    do {                                                                                                  \
        const QByteArray difference = differenceFromFresh(doc);                                           \
        QVERIFY2(difference.isEmpty(), (QByteArray(after) + ": " + difference).constData());              \
    } while (false)

class TestDocument : public QObject {
    Q_OBJECT
private slots:
    void startsWithTheWorkedExample();
    void editWeightRecomputes();
    void undoRestoresEveryMatrix();
    void biasesSurviveEveryEdit();
    void groupedHeadsSurviveAResize();
    void cellEditsMerge();
    void retokenizeKeepsEditedRows();
    void emptyTokensRefused();
    void refusedEditsLeaveNoStep_data();
    void refusedEditsLeaveNoStep();
    void invalidModelClearsTrace();
    void modifiedFollowsCleanState();
    void saveOpenRoundTrip();
    void saveFailureKeepsOldFile();
    void largeModelRecomputesOffThread();
    void workerStartsFromShownTrace();
    void burstsOfEditsMeetTheWorker();
    void changesSayWhatChanged();
    void backgroundWorkRunsBelowTheGui();
};

void TestDocument::startsWithTheWorkedExample()
{
    Document doc;
    QVERIFY(doc.trace());
    QVERIFY(!doc.isModified());
    QVERIFY(doc.error().isEmpty());
    QCOMPARE(doc.model(), core::illustratedModel());
    COMPARE_MATRIX(doc.trace()->heads[0].scores, mat({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}), 0);
    COMPARE_MATRIX(doc.trace()->heads[0].outputs,
                   mat({{1.9366, 6.6831, 1.5951}, {2.0000, 7.9640, 0.0540}, {1.9997, 7.7599, 0.3584}}), 1e-4);
}

void TestDocument::editWeightRecomputes()
{
    Document doc;
    QVERIFY(!doc.model().options.scale);  // the worked example is unscaled
    QSignalSpy traces(&doc, &Document::traceChanged);
    QSignalSpy models(&doc, &Document::modelChanged);
    QVERIFY(doc.setCell(MatrixId::Query, 0, 0, 2));
    QCOMPARE(models.count(), 1);
    QTRY_COMPARE(traces.count(), 1);
    const auto trace = doc.trace();
    QVERIFY(trace);

    // W_Q row 1 is now [2, 0, 1]. By hand, with X = [[1,0,1,0],[0,2,0,2],[1,1,1,1]]:
    // q1 = [2,0,1] + [0,0,1] = [2,0,2]; q2 = 2·[1,0,0] + 2·[0,1,1] = [2,2,2];
    // q3 = [2,0,1] + [1,0,0] + [0,0,1] + [0,1,1] = [3,1,3].
    const core::Matrix q = mat({{2, 0, 2}, {2, 2, 2}, {3, 1, 3}});
    // K is unchanged: [[0,1,1],[4,4,0],[2,3,1]]; scores(i, j) = q_i · k_j.
    const core::Matrix scores = mat({{2, 8, 6}, {4, 16, 12}, {4, 16, 12}});
    const core::Matrix weights = softmaxByHand(scores);
    const core::Matrix v = mat({{1, 2, 3}, {2, 8, 0}, {2, 6, 3}});
    core::Matrix outputs = core::Matrix::Zero(3, 3);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            outputs.row(i) += weights(i, j) * v.row(j);

    COMPARE_MATRIX(trace->heads[0].queries, q, 1e-12);
    COMPARE_MATRIX(trace->heads[0].scores, scores, 1e-12);
    COMPARE_MATRIX(trace->heads[0].weights, weights, 1e-12);
    COMPARE_MATRIX(trace->heads[0].outputs, outputs, 1e-12);
    // Row 1 by hand: softmax([2, 8, 6]) ≈ [0.002179, 0.878878, 0.118943].
    QVERIFY(std::fabs(trace->heads[0].weights(0, 1) - 0.878878) < 1e-6);
}

void TestDocument::undoRestoresEveryMatrix()
{
    Document doc;
    std::vector<Snapshot> states{snapshot(doc)};
    auto step = [&](bool done) {
        QVERIFY(done);
        states.push_back(snapshot(doc));
    };
    step(doc.setCell(MatrixId::Key, 1, 2, -0.5));
    step(doc.setCell(MatrixId::Embeddings, 0, 3, 7.25));
    step(doc.setTokenText(QStringLiteral("the quick brown fox")));
    core::Options options = doc.model().options;
    options.scale = true;
    options.temperature = 0.5;
    options.mask = core::Mask::Causal;
    doc.setOptions(options);
    step(true);
    step(doc.setDimensions(6, 2, 4, 2));
    step(doc.setMatrix(MatrixId::Value, core::Matrix::Constant(6, 8, 0.25), QStringLiteral("fill")));
    doc.setOutputProjection(true);
    step(true);
    step(doc.setCell(MatrixId::Output, 3, 1, 4));
    QCOMPARE(doc.undoStack()->count(), int(states.size()) - 1);

    for (int i = int(states.size()) - 2; i >= 0; --i) {
        doc.undoStack()->undo();
        QVERIFY2(same(states[std::size_t(i)], doc), qPrintable(QStringLiteral("after undo to state %1").arg(i)));
        QVERIFY(doc.waitForTrace(10000));
        QVERIFY(doc.trace());
        QVERIFY(*doc.trace()->model == doc.model());
    }
    QCOMPARE(doc.model(), core::illustratedModel());
    QVERIFY(!doc.isModified());
    for (std::size_t i = 1; i < states.size(); ++i) {
        doc.undoStack()->redo();
        QVERIFY2(same(states[i], doc), qPrintable(QStringLiteral("after redo to state %1").arg(i)));
    }
    QVERIFY(doc.waitForTrace(10000));
    QVERIFY(*doc.trace()->model == doc.model());
}

/** A session with grouped K/V heads, q/k norm and rotary positions resized: the heads' change resets kv_heads so the
 *  model stays valid, d_k's change resizes the norm weights, and undo gives every one of them back. */
void TestDocument::groupedHeadsSurviveAResize()
{
    Document doc;
    std::mt19937_64 rng(5);
    core::Session session;
    session.model = testutil::randomModel(rng, 6, 32, 4, 8, 8, 8);
    core::AttentionModel& m = session.model;
    m.options.kvHeads = 2;
    m.wk = m.wk.leftCols(16).eval();
    m.wv = m.wv.leftCols(16).eval();
    m.options.qkNorm = true;
    m.qNorm = core::Matrix::Constant(1, 8, 1.5);
    m.kNorm = core::Matrix::Constant(1, 8, 0.5);
    m.options.positionalEncoding = core::PositionalEncoding::Rotary;
    QVERIFY(!core::validate(m));
    doc.loadSession(session, QString());
    QVERIFY(doc.waitForTrace(60000));
    const core::AttentionModel before = doc.model();

    QString error;
    QVERIFY2(doc.setDimensions(32, 8, 8, 2, &error), qPrintable(error));
    QVERIFY(doc.waitForTrace(60000));
    QCOMPARE(doc.model().kvHeads(), 2);
    QVERIFY(!core::validate(doc.model()));
    VERIFY_MATCHES_FRESH(doc, "two heads");
    QVERIFY2(doc.setDimensions(32, 4, 4, 2, &error), qPrintable(error));
    QVERIFY(doc.waitForTrace(60000));
    QCOMPARE(int(doc.model().qNorm->cols()), 4);
    VERIFY_MATCHES_FRESH(doc, "d_k 4");

    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QVERIFY(doc.waitForTrace(60000));
    QCOMPARE(doc.model().options.kvHeads, 2);
    QVERIFY(doc.model().qNorm == before.qNorm && doc.model().kNorm == before.kNorm);
    QVERIFY(doc.model() == before);
    VERIFY_MATCHES_FRESH(doc, "undone");
}

void TestDocument::biasesSurviveEveryEdit()
{
    // A model with biases (as a real model's layer has them): no edit of the window loses them, resizing
    // follows them head by head, removing W_O removes b_O, and undo gives every one back.
    core::Session session;
    session.model = core::illustratedModel();
    core::AttentionModel& m = session.model;
    m.bq = mat({{1, 2, 3}});
    m.bk = mat({{-1, -2, -3}});
    m.bv = mat({{0.5, 0.25, 0.125}});
    m.wo = core::Matrix::Identity(3, 3);
    m.bo = mat({{7, 8, 9}});
    Document doc;
    doc.loadSession(session, QString());
    VERIFY_MATCHES_FRESH(doc, "loaded");
    QVERIFY(doc.trace()->model->bq);
    const core::AttentionModel loaded = doc.model();

    QVERIFY(doc.setCell(MatrixId::Key, 1, 2, -0.5));
    QVERIFY(doc.setTokenText(QStringLiteral("the quick brown fox")));
    QVERIFY(doc.setMatrix(MatrixId::Value, core::Matrix::Constant(4, 3, 0.25), QStringLiteral("fill")));
    QCOMPARE(*doc.model().bq, *loaded.bq);
    QCOMPARE(*doc.model().bo, *loaded.bo);
    VERIFY_MATCHES_FRESH(doc, "after cell, token and matrix edits");
    const core::AttentionModel edited = doc.model();

    // 1 head of d_k 3 → 2 heads of d_k 2, d_v 4: each head keeps what fits of its block, new entries 0.
    QVERIFY(doc.setDimensions(6, 2, 4, 2));
    QCOMPARE(*doc.model().bq, mat({{1, 2, 0, 0}}));
    QCOMPARE(*doc.model().bk, mat({{-1, -2, 0, 0}}));
    QCOMPARE(*doc.model().bv, mat({{0.5, 0.25, 0.125, 0, 0, 0, 0, 0}}));
    QCOMPARE(*doc.model().bo, *loaded.bo);  // d_out stays 3
    // the new head's W_Q, W_K and W_V are its own, not one identity block that would make q = k = v
    const core::Matrix newQ = doc.model().wq.middleCols(2, 2), newK = doc.model().wk.middleCols(2, 2);
    const core::Matrix newV = doc.model().wv.middleCols(4, 2);
    QVERIFY(newQ != newK && newK != newV && newQ != newV);
    QVERIFY(newQ.cwiseAbs().minCoeff() > 0 && newK.cwiseAbs().minCoeff() > 0);
    VERIFY_MATCHES_FRESH(doc, "after resizing");
    const core::AttentionModel resized = doc.model();

    doc.setOutputProjection(false);
    QVERIFY(!doc.model().wo && !doc.model().bo);
    QVERIFY(doc.model().bq && doc.model().bv);
    VERIFY_MATCHES_FRESH(doc, "without W_O");
    doc.setOutputProjection(true);
    QVERIFY(doc.model().wo && !doc.model().bo);  // a new W_O starts without a bias

    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(doc.model(), resized);
    doc.undoStack()->undo();
    QCOMPARE(doc.model(), edited);
    VERIFY_MATCHES_FRESH(doc, "after undoing the resize");
    while (doc.undoStack()->canUndo())
        doc.undoStack()->undo();
    QCOMPARE(doc.model(), loaded);
    VERIFY_MATCHES_FRESH(doc, "undone to the start");
}

void TestDocument::cellEditsMerge()
{
    Document doc;
    const double original = doc.matrix(MatrixId::Value)(2, 0);
    QVERIFY(doc.setCell(MatrixId::Value, 2, 0, 5));
    QVERIFY(doc.setCell(MatrixId::Value, 2, 0, 6));
    QVERIFY(doc.setCell(MatrixId::Value, 2, 0, 7));
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.matrix(MatrixId::Value)(2, 0), 7.0);
    QVERIFY(doc.setCell(MatrixId::Value, 2, 1, 1));
    QCOMPARE(doc.undoStack()->count(), 2);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(doc.matrix(MatrixId::Value)(2, 0), original);
    QVERIFY(!doc.isModified());

    // Editing a cell and then typing its old value back leaves no step at all.
    doc.undoStack()->clear();
    QVERIFY(doc.setCell(MatrixId::Key, 0, 0, 3));
    QVERIFY(doc.isModified());
    QVERIFY(doc.setCell(MatrixId::Key, 0, 0, core::illustratedModel().wk(0, 0)));
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.isModified());

    // Typing in the token line is one step per burst.
    QVERIFY(doc.setTokenText(QStringLiteral("a")));
    QVERIFY(doc.setTokenText(QStringLiteral("a b")));
    QVERIFY(doc.setTokenText(QStringLiteral("a b c")));
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QCOMPARE(doc.model(), core::illustratedModel());

    // A burst that starts with a space (the same tokens, another text) and then adds a token is one
    // step too, and its undo brings back the tokens, X and the text.
    QVERIFY(doc.setTokenText(QStringLiteral("one two")));
    doc.undoStack()->clear();
    const core::AttentionModel start = doc.model();
    QVERIFY(doc.setTokenText(QStringLiteral("one two ")));
    QVERIFY(doc.setTokenText(QStringLiteral("one two more")));
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.model().n(), 3);
    doc.undoStack()->undo();
    QCOMPARE(doc.model(), start);
    QCOMPARE(doc.tokenText(), QStringLiteral("one two"));
    doc.undoStack()->redo();
    QCOMPARE(doc.tokenText(), QStringLiteral("one two more"));
    QCOMPARE(doc.model().n(), 3);

    // A burst that drops a token whose row the user gave and types it again ends with the same
    // tokens and text but a row derived anew: still a step, whose undo brings the user's row back.
    QVERIFY(doc.setCell(MatrixId::Embeddings, 2, 0, 42));
    QVERIFY(doc.setTokenText(QStringLiteral("one two")));
    QVERIFY(doc.setTokenText(QStringLiteral("one two more")));
    QCOMPARE(doc.undoStack()->count(), 3);
    QVERIFY(doc.matrix(MatrixId::Embeddings)(2, 0) != 42);
    doc.undoStack()->undo();
    QCOMPARE(doc.matrix(MatrixId::Embeddings)(2, 0), 42.0);
    QCOMPARE(doc.tokenText(), QStringLiteral("one two more"));
}

void TestDocument::retokenizeKeepsEditedRows()
{
    Document doc;
    QVERIFY(doc.setTokenText(QStringLiteral("alpha beta gamma")));
    const core::Matrix derived = doc.matrix(MatrixId::Embeddings);
    QVERIFY(doc.setCell(MatrixId::Embeddings, 1, 0, 9));
    QVERIFY(doc.setCell(MatrixId::Embeddings, 1, 3, -9));
    const core::RowVector edited = doc.matrix(MatrixId::Embeddings).row(1);

    QVERIFY(doc.setTokenText(QStringLiteral("delta beta alpha")));
    QCOMPARE(doc.model().n(), 3);
    QCOMPARE(doc.model().tokens[1], std::string("beta"));
    QCOMPARE(core::RowVector(doc.matrix(MatrixId::Embeddings).row(1)), edited);
    // alpha keeps its derived row, wherever it stands.
    QCOMPARE(core::RowVector(doc.matrix(MatrixId::Embeddings).row(2)), core::RowVector(derived.row(0)));

    QVERIFY(doc.setTokenText(QStringLiteral("beta")));
    QCOMPARE(core::RowVector(doc.matrix(MatrixId::Embeddings).row(0)), edited);
}

void TestDocument::emptyTokensRefused()
{
    Document doc;
    QSignalSpy changed(&doc, &Document::modelChanged);
    QString error;
    QVERIFY(!doc.setTokenText(QStringLiteral("   \t "), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!doc.setTokenText(QString(), &error));
    QCOMPARE(changed.count(), 0);
    QCOMPARE(doc.undoStack()->count(), 0);
    QCOMPARE(doc.model(), core::illustratedModel());
}

void TestDocument::refusedEditsLeaveNoStep_data()
{
    QTest::addColumn<int>("which");
    QTest::addRow("cell out of range") << 0;
    QTest::addRow("negative cell") << 1;
    QTest::addRow("non-finite cell") << 2;
    QTest::addRow("matrix of another shape") << 3;
    QTest::addRow("W_O when there is none") << 4;
    QTest::addRow("non-finite matrix") << 5;
    QTest::addRow("dimensions the heads do not divide") << 6;
}

void TestDocument::refusedEditsLeaveNoStep()
{
    QFETCH(int, which);
    Document doc;
    QSignalSpy changed(&doc, &Document::modelChanged);
    core::Matrix bad = doc.matrix(MatrixId::Query);
    bad(0, 0) = NAN;
    QString error;
    bool accepted = true;
    switch (which) {
    case 0: accepted = doc.setCell(MatrixId::Query, 4, 0, 1); break;
    case 1: accepted = doc.setCell(MatrixId::Query, -1, 0, 1); break;
    case 2: accepted = doc.setCell(MatrixId::Query, 0, 0, INFINITY); break;
    case 3: accepted = doc.setMatrix(MatrixId::Query, core::Matrix::Zero(2, 2), QStringLiteral("x")); break;
    case 4: accepted = doc.setMatrix(MatrixId::Output, core::Matrix(), QStringLiteral("x")); break;
    case 5: accepted = doc.setMatrix(MatrixId::Query, bad, QStringLiteral("x")); break;
    case 6: accepted = doc.setDimensions(4, 0, 3, 1, &error); break;
    }
    QVERIFY(!accepted);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(doc.undoStack()->count(), 0);
    QCOMPARE(doc.model(), core::illustratedModel());
    if (which == 6)
        QVERIFY(!error.isEmpty());
}

void TestDocument::invalidModelClearsTrace()
{
    Document doc;
    QSignalSpy traces(&doc, &Document::traceChanged);
    QSignalSpy errors(&doc, &Document::errorChanged);
    core::Options options = doc.model().options;
    options.heads = 2;  // does not divide d_k = 3
    doc.setOptions(options);
    QCOMPARE(errors.count(), 1);
    QVERIFY(!errors.at(0).at(0).toString().isEmpty());
    QCOMPARE(doc.error(), errors.at(0).at(0).toString());
    QCOMPARE(traces.count(), 1);
    QVERIFY(!traces.at(0).at(0).value<std::shared_ptr<const core::Trace>>());
    QVERIFY(!doc.trace());
    QVERIFY(doc.waitForTrace(1000));  // nothing to wait for: refused at once

    doc.undoStack()->undo();
    QCOMPARE(errors.count(), 2);
    QVERIFY(doc.error().isEmpty());
    QVERIFY(doc.trace());
    QCOMPARE(*doc.trace()->model, doc.model());
}

void TestDocument::modifiedFollowsCleanState()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Document doc;
    QSignalSpy modified(&doc, &Document::modifiedChanged);
    QVERIFY(doc.setCell(MatrixId::Key, 0, 0, 2));
    QCOMPARE(modified.count(), 1);
    QCOMPARE(modified.last().at(0).toBool(), true);
    doc.undoStack()->undo();
    QCOMPARE(modified.last().at(0).toBool(), false);
    QVERIFY(!doc.isModified());
    doc.undoStack()->redo();
    QVERIFY(doc.isModified());
    QString error;
    QVERIFY2(doc.saveFile(dir.filePath(QStringLiteral("a.json")), &error), qPrintable(error));
    QVERIFY(!doc.isModified());
    QCOMPARE(modified.last().at(0).toBool(), false);
    // Undo past the save: modified again.
    doc.undoStack()->undo();
    QVERIFY(doc.isModified());
    doc.undoStack()->redo();
    QVERIFY(!doc.isModified());
}

void TestDocument::saveOpenRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Document doc;
    QVERIFY(doc.setTokenText(QStringLiteral("思考 machines think")));
    QVERIFY(doc.setCell(MatrixId::Embeddings, 0, 1, 0.1));
    QVERIFY(doc.setCell(MatrixId::Query, 2, 2, -1.0 / 3.0));
    doc.setOutputProjection(true);
    core::Options options = doc.model().options;
    options.temperature = 0.7;
    options.positionalEncoding = core::PositionalEncoding::Sinusoidal;
    doc.setOptions(options);

    const QString path = dir.filePath(QStringLiteral("session.json"));
    QSignalSpy paths(&doc, &Document::filePathChanged);
    QString error;
    QVERIFY2(doc.saveFile(path, &error), qPrintable(error));
    QCOMPARE(paths.count(), 1);
    QCOMPARE(doc.filePath(), QFileInfo(path).absoluteFilePath());

    Document other;
    QSignalSpy traces(&other, &Document::traceChanged);
    QVERIFY2(other.openFile(path, &error), qPrintable(error));
    QCOMPARE(other.model(), doc.model());
    QCOMPARE(other.filePath(), doc.filePath());
    QVERIFY(!other.isModified());
    QCOMPARE(other.undoStack()->count(), 0);
    QCOMPARE(traces.count(), 1);

    // A broken file leaves the document as it was.
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QFile f(broken);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"attention-explorer-session\", \"version\": 1, \"tokens\": []}");
    f.close();
    QVERIFY(!other.openFile(broken, &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(other.model(), doc.model());
    QCOMPARE(other.filePath(), doc.filePath());
}

void TestDocument::saveFailureKeepsOldFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Document doc;
    QVERIFY(doc.setCell(MatrixId::Key, 0, 0, 2));
    QSignalSpy messages(&doc, &Document::message);
    QString error;

    // A folder that does not exist.
    QVERIFY(!doc.saveFile(dir.filePath(QStringLiteral("missing/session.json")), &error));
    QVERIFY(error.contains(QStringLiteral("missing")));
    QVERIFY(doc.isModified());
    QCOMPARE(messages.count(), 1);
    QVERIFY(doc.filePath().isEmpty());

    // A "folder" that is a file: fails even for a superuser.
    const QString file = dir.filePath(QStringLiteral("plain"));
    QFile plain(file);
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    error.clear();
    QVERIFY(!doc.saveFile(file + QStringLiteral("/session.json"), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(doc.isModified());

    // A disk that takes only part of the file (a limit on a file's size cuts it as a full disk does):
    // the older save stays whole. The session is some 2 KB, the limit 512 bytes.
    {
        const QString older = dir.filePath(QStringLiteral("older.json"));
        QVERIFY2(doc.saveFile(older, &error), qPrintable(error));
        QFile saved(older);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray before = saved.readAll();
        saved.close();
        QVERIFY(before.size() > 512);
        QVERIFY(doc.setCell(MatrixId::Key, 0, 0, 4));
        rlimit limit{};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &limit), 0);
        const rlimit cut{512, limit.rlim_max};
        const auto signal = std::signal(SIGXFSZ, SIG_IGN);
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &cut), 0);
        const bool saveWorked = doc.saveFile(older, &error);
        ::setrlimit(RLIMIT_FSIZE, &limit);
        std::signal(SIGXFSZ, signal);
        QVERIFY(!saveWorked);
        QVERIFY2(error.contains(older) && !error.contains(QStringLiteral("Unknown error")), qPrintable(error));
        QVERIFY(doc.isModified());
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(saved.readAll(), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList({QStringLiteral("older.json"), QStringLiteral("plain")}));  // no temporary left
    }

    // A read-only folder holding an older save.
    const QString folder = dir.filePath(QStringLiteral("ro"));
    QVERIFY(QDir().mkpath(folder));
    const QString path = folder + QStringLiteral("/session.json");
    QVERIFY2(doc.saveFile(path, &error), qPrintable(error));
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QByteArray before = saved.readAll();
    saved.close();
    QVERIFY(doc.setCell(MatrixId::Key, 0, 0, 3));
    QVERIFY(QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner));
    const bool superuser = ::geteuid() == 0;
    const bool saveWorked = doc.saveFile(path, &error);
    QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (superuser)
        QSKIP("permissions do not bind the superuser: the read-only case needs an ordinary user");
    QVERIFY(!saveWorked);
    QVERIFY(!error.isEmpty());
    QVERIFY(doc.isModified());
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QCOMPARE(saved.readAll(), before);
}

void TestDocument::largeModelRecomputesOffThread()
{
    std::mt19937_64 rng(7);
    core::Session session;
    session.model = testutil::randomModel(rng, 1024, 64, 1, 64, 64);
    Document doc;
    doc.loadSession(session, QString());
    QVERIFY(doc.isComputing());  // handed to the worker, not computed on the GUI thread
    QVERIFY(doc.waitForTrace(60000));
    QVERIFY(doc.trace());
    QCOMPARE(*doc.trace()->model, doc.model());

    QSignalSpy traces(&doc, &Document::traceChanged);
    int stale = 0;
    connect(&doc, &Document::traceChanged, this, [&](const std::shared_ptr<const core::Trace>& t) {
        if (!t || !(*t->model == doc.model()))
            ++stale;
    });
    const quint64 startedBefore = doc.computationsStarted();
    for (int k = 0; k < 20; ++k) {
        QVERIFY(doc.setCell(MatrixId::Embeddings, k % 4, k, 0.5 + k));
        QVERIFY(doc.isComputing());
        QCoreApplication::processEvents();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!doc.isComputing(), 60000);
    QVERIFY(traces.count() >= 1);
    QVERIFY2(traces.count() <= 3, qPrintable(QString::number(traces.count())));
    QCOMPARE(stale, 0);
    QVERIFY(doc.computationsStarted() - startedBefore <= 4);
    const auto trace = doc.trace();
    QVERIFY(trace);
    QCOMPARE(*trace->model, doc.model());
    QCOMPARE(trace->x()(3, 19), 19.5);
    // The delivered trace is the final model's: compare one output row with a fresh computation.
    const core::Trace fresh = core::compute(doc.model());
    COMPARE_MATRIX(trace->heads[0].outputs.topRows(4), fresh.heads[0].outputs.topRows(4), 1e-12);
}

void TestDocument::workerStartsFromShownTrace()
{
    // Edits computed on the worker start from the trace shown; after every kind of change the result
    // is what a fresh computation of the document's model gives.
    Document doc;
    QVERIFY(loadRandomModel(doc, 11, 120));
    QVERIFY(doc.setCell(MatrixId::Embeddings, 7, 3, 1.25));
    VERIFY_MATCHES_FRESH(doc, "an embedding");
    QVERIFY(doc.setCell(MatrixId::Query, 2, 17, -0.5));
    VERIFY_MATCHES_FRESH(doc, "a query weight");
    QVERIFY(doc.setCell(MatrixId::Value, 30, 5, 2.0));
    VERIFY_MATCHES_FRESH(doc, "a value weight");
    QVERIFY(doc.setCell(MatrixId::Output, 1, 1, 3.0));
    VERIFY_MATCHES_FRESH(doc, "an output weight");
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    VERIFY_MATCHES_FRESH(doc, "two undos");
    doc.undoStack()->redo();
    VERIFY_MATCHES_FRESH(doc, "a redo");
    core::Options options = doc.model().options;
    options.temperature = 0.5;
    options.mask = core::Mask::Causal;
    doc.setOptions(options);
    VERIFY_MATCHES_FRESH(doc, "temperature and mask");
    QVERIFY(doc.setTokenText(doc.tokenText() + QStringLiteral(" more")));
    VERIFY_MATCHES_FRESH(doc, "one more token");
    QVERIFY(doc.setCell(MatrixId::Embeddings, 120, 0, -2.0));
    VERIFY_MATCHES_FRESH(doc, "the new token's embedding");
}

void TestDocument::burstsOfEditsMeetTheWorker()
{
    // Edits that come while the worker runs are handed to it as the cells set since the trace shown
    // (the GUI thread does not copy the model); any other change makes it take the whole model. Bursts
    // that mix both, set one cell twice, undo, and pass through an invalid value must all end in what a
    // fresh computation of the document's model gives.
    Document doc;
    QVERIFY(loadRandomModel(doc, 23, 160));

    const quint64 before = doc.computationsStarted();
    for (int k = 0; k < 12; ++k) {
        QVERIFY(doc.setCell(MatrixId::Embeddings, (5 * k) % 160, k % 32, 0.1 * k - 0.4));
        QVERIFY(doc.setCell(MatrixId::Key, k % 32, (3 * k) % 16, -0.2 * k));
    }
    QVERIFY(doc.isComputing());
    // The same cell twice: the later value is the one that counts.
    QVERIFY(doc.setCell(MatrixId::Value, 4, 4, 9.0));
    QVERIFY(doc.setCell(MatrixId::Query, 1, 1, 1.0));
    QVERIFY(doc.setCell(MatrixId::Value, 4, 4, -3.0));
    VERIFY_MATCHES_FRESH(doc, "a burst of cells");
    QCOMPARE(doc.model().wv(4, 4), -3.0);
    QVERIFY(doc.computationsStarted() - before < 12);  // coalesced, not one computation per edit

    QVERIFY(doc.setCell(MatrixId::Embeddings, 0, 0, 4.0));
    core::Options options = doc.model().options;
    options.temperature = 2.0;
    doc.setOptions(options);
    QVERIFY(doc.setCell(MatrixId::Embeddings, 1, 1, -4.0));
    QVERIFY(doc.setCell(MatrixId::Output, 2, 3, 0.75));
    VERIFY_MATCHES_FRESH(doc, "cells around an option change");

    QVERIFY(doc.setCell(MatrixId::Embeddings, 9, 9, 2.5));
    QVERIFY(doc.setCell(MatrixId::Query, 9, 9, 2.5));
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    doc.undoStack()->redo();
    VERIFY_MATCHES_FRESH(doc, "cells, undos and a redo");

    // A NaN only a file can bring (the setters refuse one); a finite cell in its place makes the model
    // valid again, and the cell is then all the worker needs to hear of.
    core::Session broken = doc.plainSession()->fileSession();
    broken.model.embeddings(3, 3) = std::numeric_limits<double>::quiet_NaN();
    doc.loadSession(broken, QString());
    QVERIFY(!doc.error().isEmpty());
    QVERIFY(!doc.trace());
    QVERIFY(doc.setCell(MatrixId::Embeddings, 3, 3, 0.5));
    QVERIFY(doc.setCell(MatrixId::Key, 3, 3, 0.25));
    VERIFY_MATCHES_FRESH(doc, "through an invalid value");
    QVERIFY(doc.error().isEmpty());

    // Options the model cannot be computed with (3 heads do not divide 32 columns): a finite cell set
    // meanwhile does not make it valid, and putting the options back does.
    core::Options bad = doc.model().options;
    bad.heads = 3;
    doc.setOptions(bad);
    QVERIFY(!doc.error().isEmpty());
    QVERIFY(doc.setCell(MatrixId::Query, 5, 5, 1.5));
    QVERIFY(!doc.error().isEmpty());
    QVERIFY(!doc.trace());
    doc.setOptions(options);
    QVERIFY(doc.setCell(MatrixId::Value, 6, 6, -1.5));
    VERIFY_MATCHES_FRESH(doc, "through options that cannot be computed");
}

void TestDocument::changesSayWhatChanged()
{
    // Every edit, undo and redo announces what it changed, as a value: views take it from the signal.
    Document doc;
    std::vector<ModelChange> seen;
    connect(&doc, &Document::modelChanged, this, [&](const ModelChange& c) { seen.push_back(c); });
    using Kind = ModelChange::Kind;
    const double old = doc.model().wk(1, 2);
    QVERIFY(doc.setCell(MatrixId::Key, 1, 2, old + 5));
    QCOMPARE(seen.size(), std::size_t(1));
    QCOMPARE(int(seen[0].kind), int(Kind::Cell));
    QCOMPARE(int(seen[0].matrix), int(MatrixId::Key));
    QCOMPARE(seen[0].row, 1);
    QCOMPARE(seen[0].col, 2);
    QCOMPARE(seen[0].before, old);
    QCOMPARE(seen[0].after, old + 5);
    doc.undoStack()->undo();
    QCOMPARE(seen.size(), std::size_t(2));
    QCOMPARE(int(seen[1].kind), int(Kind::Cell));
    QCOMPARE(seen[1].before, old + 5);
    QCOMPARE(seen[1].after, old);

    // A whole matrix, and a paste of one row: the rectangle of what differs.
    core::Matrix wq = doc.model().wq;
    wq.setConstant(0.5);
    QVERIFY(doc.setMatrix(MatrixId::Query, wq, QStringLiteral("Fill")));
    QCOMPARE(int(seen.back().kind), int(Kind::Matrix));
    QCOMPARE(int(seen.back().matrix), int(MatrixId::Query));
    core::Matrix wv = doc.model().wv;
    wv.row(2).setConstant(-7);
    wv(2, 0) = doc.model().wv(2, 0);  // unchanged: the rectangle starts at column 1
    QVERIFY(doc.setMatrix(MatrixId::Value, wv, QStringLiteral("Paste")));
    const ModelChange block = seen.back();
    QCOMPARE(int(block.kind), int(Kind::Block));
    QCOMPARE(int(block.matrix), int(MatrixId::Value));
    QCOMPARE(block.row, 2);
    QCOMPARE(block.col, 1);
    QCOMPARE(block.rows, 1);
    QCOMPARE(block.cols, int(wv.cols()) - 1);
    doc.undoStack()->undo();
    QCOMPARE(int(seen.back().kind), int(Kind::Block));
    QCOMPARE(doc.model().wv, core::illustratedModel().wv);
    doc.undoStack()->redo();
    QCOMPARE(doc.model().wv, wv);

    core::Options options = doc.model().options;
    options.temperature = 0.5;
    doc.setOptions(options);
    QCOMPARE(int(seen.back().kind), int(Kind::Options));
    QVERIFY(doc.setTokenText(QStringLiteral("one two")));
    QCOMPARE(int(seen.back().kind), int(Kind::Tokens));
    doc.setOutputProjection(true);
    QCOMPARE(int(seen.back().kind), int(Kind::Shape));
    QVERIFY(doc.setDimensions(6, 2, 2, 1));
    QCOMPARE(int(seen.back().kind), int(Kind::Shape));
    doc.loadSession(doc.plainSession()->fileSession(), QString());
    QCOMPARE(int(seen.back().kind), int(Kind::Model));
    QCOMPARE(seen.size(), std::size_t(11));
}

void TestDocument::backgroundWorkRunsBelowTheGui()
{
#if defined(__linux__)
    // On two cores the recompute would otherwise share them evenly with the GUI thread and delay paints.
    const int gui = getpriority(PRIO_PROCESS, 0);
    bool inQtsPool = true;
    auto job = runInBackground([&inQtsPool] {
        // Not on Qt's global pool: the raster engine's fills wait for that one.
        inQtsPool = QThreadPool::globalInstance()->contains(QThread::currentThread());
        const int own = getpriority(PRIO_PROCESS, 0);
        // The engine's parallel loops run on its own pool: every task at this thread's priority or below.
        // Two tasks that wait for each other (up to 10 s): with a worker they run on two threads at once.
        std::mutex mutex;
        std::set<std::thread::id> threads;
        int highest = 20;  // the highest priority a task ran at, as the lowest nice value seen
        std::atomic<int> entered = 0;
        core::parallelFor(2, 2, [&](int) {
            {
                const std::lock_guard lock(mutex);
                highest = std::min(highest, int(getpriority(PRIO_PROCESS, 0)));
                threads.insert(std::this_thread::get_id());
            }
            ++entered;
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (entered < 2 && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
        return std::tuple{own, highest, int(threads.size())};
    });
    QTRY_VERIFY(job.isFinished());  // not waitForFinished(): that would run a job not yet started here
    const auto [own, highest, threads] = job.result();
    QVERIFY(!inQtsPool);
    QVERIFY2(own >= 10 && own >= gui, qPrintable(QStringLiteral("worker nice %1, GUI %2").arg(own).arg(gui)));
    if (gui < 10)
        QVERIFY(own > gui);
    QVERIFY2(highest >= own, qPrintable(QStringLiteral("an engine task ran at nice %1, its caller at %2").arg(highest).arg(own)));
    if (core::coreCount() > 1)
        QCOMPARE(threads, 2);  // a worker of the pool took part
    QCOMPARE(getpriority(PRIO_PROCESS, 0), gui);  // the GUI thread keeps its own
    // Waiting for a job that has not started runs it on the waiting thread: that must not lower it.
    QSemaphore hold;
    auto busy = std::vector<QFuture<void>>();
    for (int i = 0; i < backgroundPool()->maxThreadCount(); ++i)
        busy.push_back(runInBackground([&hold] { hold.acquire(); }));
    auto queued = runInBackground([] { return getpriority(PRIO_PROCESS, 0); });
    queued.waitForFinished();  // every pool thread is held: it runs here
    hold.release(int(busy.size()));
    for (auto& f : busy)
        f.waitForFinished();
    QCOMPARE(queued.result(), gui);
    QCOMPARE(getpriority(PRIO_PROCESS, 0), gui);
#else
    QSKIP("thread priorities are only lowered on Linux");
#endif
}

QTEST_MAIN(TestDocument)
#include "tst_document.moc"
