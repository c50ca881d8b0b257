/** The undo history's memory: steps keep deltas, count their bytes, and the oldest go past the bound. */

#include "testutil.h"
#include "ui/document/document.h"

#include <QSignalSpy>
#include <QTest>

using namespace ui;

namespace {

/** A session of n tokens and d_model d with one narrow head (cheap to compute, large to copy). */
core::Session session(unsigned seed, int n, int d)
{
    std::mt19937_64 rng(seed);
    core::Session s;
    s.model = testutil::randomModel(rng, n, d, 1, 4, 4);
    return s;
}

QByteArray mib(std::size_t bytes)
{
    return QByteArray::number(double(bytes) / double(1 << 20), 'f', 1) + " MiB";
}

}  // namespace

class TestUndoMemory : public QObject {
    Q_OBJECT
private slots:
    void optionStepsKeepOnlyOptions();
    void oldestStepsGoPastTheBound();
    void cleanStateKeepsItsPlace();
    void macrosSurviveARebuild();
};

void TestUndoMemory::optionStepsKeepOnlyOptions()
{
    // 4096 tokens of d_model 512: X alone is 16 MiB. A step that kept two models would pass the bound
    // within eight clicks; one that keeps two Options stays a few hundred bytes.
    Document doc;
    doc.loadSession(session(1, 4096, 512), QString());
    const core::Options start = doc.model().options;
    for (int k = 0; k < 50; ++k) {
        core::Options o = doc.model().options;
        o.scale = !o.scale;
        doc.setOptions(o);
        QVERIFY2(doc.undoBytes() <= Document::undoMemoryBound, mib(doc.undoBytes()).constData());
    }
    QCOMPARE(doc.undoStack()->count(), 50);  // nothing had to be dropped
    QVERIFY2(doc.undoBytes() < 64 * 1024, mib(doc.undoBytes()).constData());
    doc.undoStack()->setIndex(0);
    QCOMPARE(doc.model().options, start);
    QVERIFY(!doc.isModified());

    // W_O on and off keeps the removed matrix only ((h·d_v) × d_model = 4 × 512 doubles: 16 KiB), never X.
    doc.undoStack()->clear();
    doc.setOutputProjection(true);
    doc.setOutputProjection(false);
    QVERIFY2(doc.undoBytes() < 3 * (std::size_t(1) << 20), mib(doc.undoBytes()).constData());
    doc.undoStack()->undo();
    QVERIFY(doc.model().wo);
    QCOMPARE(doc.model().wo->rows(), 4);
    QCOMPARE(doc.model().wo->cols(), 512);
    QVERIFY(*doc.model().wo == core::Matrix(core::Matrix::Identity(4, 512)));
}

void TestUndoMemory::oldestStepsGoPastTheBound()
{
    // 512 × 1024 X: each fill keeps X before and after, 8 MiB. Forty of them would keep 320 MiB.
    Document doc;
    doc.loadSession(session(2, 512, 1024), QString());
    const int n = doc.model().n(), d = doc.model().dModel();
    constexpr int steps = 40;
    for (int k = 1; k <= steps; ++k) {
        QVERIFY(doc.setMatrix(MatrixId::Embeddings, core::Matrix::Constant(n, d, k), QStringLiteral("Fill")));
        QVERIFY2(doc.undoBytes() <= Document::undoMemoryBound,
                 (mib(doc.undoBytes()) + " after step " + QByteArray::number(k)).constData());
    }
    const int kept = doc.undoStack()->count();
    QVERIFY2(kept < steps && kept >= steps / 2, QByteArray::number(kept).constData());
    QVERIFY(doc.undoStack()->canUndo());
    QCOMPARE(doc.undoStack()->index(), kept);
    // The newest steps are all there and undo in order.
    for (int i = 0; i < kept; ++i) {
        doc.undoStack()->undo();
        QCOMPARE(doc.matrix(MatrixId::Embeddings)(0, 0), double(steps - 1 - i));
    }
    QVERIFY(!doc.undoStack()->canUndo());
    QVERIFY(doc.isModified());  // the loaded state went with the oldest steps: never clean again
    doc.undoStack()->setIndex(kept);
    QCOMPARE(doc.matrix(MatrixId::Embeddings)(n - 1, d - 1), double(steps));
}

void TestUndoMemory::cleanStateKeepsItsPlace()
{
    Document doc;
    doc.loadSession(session(3, 512, 1024), QString());
    const int n = doc.model().n(), d = doc.model().dModel();
    for (int k = 1; k <= 36; ++k)
        QVERIFY(doc.setMatrix(MatrixId::Embeddings, core::Matrix::Constant(n, d, k), QStringLiteral("Fill")));
    doc.undoStack()->setClean();  // as a save does
    QSignalSpy modified(&doc, &Document::modifiedChanged);
    QSignalSpy indexes(doc.undoStack(), &QUndoStack::indexChanged);
    for (int k = 37; k <= 44; ++k)
        QVERIFY(doc.setMatrix(MatrixId::Embeddings, core::Matrix::Constant(n, d, k), QStringLiteral("Fill")));
    QVERIFY(doc.undoBytes() <= Document::undoMemoryBound);
    QCOMPARE(modified.count(), 1);  // modified once, not flickering while old steps were dropped
    QVERIFY(modified.at(0).at(0).toBool());
    QCOMPARE(indexes.last().at(0).toInt(), doc.undoStack()->index());
    QCOMPARE(doc.undoStack()->cleanIndex(), doc.undoStack()->index() - 8);
    for (int i = 0; i < 8; ++i)
        doc.undoStack()->undo();
    QVERIFY(!doc.isModified());  // back at the saved state
    QCOMPARE(doc.matrix(MatrixId::Embeddings)(0, 0), 36.0);
    QCOMPARE(modified.last().at(0).toBool(), false);
}

void TestUndoMemory::macrosSurviveARebuild()
{
    // A macro (a slider drag, say) among the steps kept is rebuilt with its children.
    Document doc;
    doc.loadSession(session(4, 512, 1024), QString());
    const int n = doc.model().n(), d = doc.model().dModel();
    const double wq = doc.model().wq(0, 0);
    auto fill = [&](double k) {
        return doc.setMatrix(MatrixId::Embeddings, core::Matrix::Constant(n, d, k), QStringLiteral("Fill"));
    };
    for (int k = 1; k <= 30; ++k)
        QVERIFY(fill(k));
    doc.undoStack()->beginMacro(QStringLiteral("Drag"));
    QVERIFY(fill(100));
    QVERIFY(doc.setCell(MatrixId::Query, 0, 0, wq + 5));
    doc.undoStack()->endMacro();
    for (int k = 31; k <= 36; ++k)
        QVERIFY(fill(k));
    QVERIFY(doc.undoStack()->count() < 37);  // older steps went
    QVERIFY(doc.undoBytes() <= Document::undoMemoryBound);
    for (int i = 0; i < 6; ++i)
        doc.undoStack()->undo();
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Drag"));
    QCOMPARE(doc.matrix(MatrixId::Embeddings)(0, 0), 100.0);
    doc.undoStack()->undo();
    QCOMPARE(doc.matrix(MatrixId::Embeddings)(0, 0), 30.0);
    QCOMPARE(doc.model().wq(0, 0), wq);
    doc.undoStack()->redo();
    QCOMPARE(doc.model().wq(0, 0), wq + 5);
}

QTEST_MAIN(TestUndoMemory)
#include "tst_undomemory.moc"
