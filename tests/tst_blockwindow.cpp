/** The Block view in the window, on the built-in model: nothing computed while its tab is hidden; shown, the block of
 *  the shown layer at the selected query, which follows the query, an edit of a weight and Zero Head, each time equal
 *  to blockView() of a fresh pass of the core alone with the same edits; hidden again it is left as it was, and shown
 *  it catches up at once. Without a model it says how to open one. */

#include "core/models/blockview.h"
#include "core/session/builtinmodel.h"
#include "core/session/modelsession.h"
#include "isolation.h"
#include "ui/document/document.h"
#include "ui/document/modelsession.h"
#include "ui/document/viewstate.h"
#include "ui/render/blockpainter.h"
#include "ui/views/model/blockwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <memory>

namespace {

const char* const text = "When Mary and John went to the store, John gave a drink to";

bool same(const core::BlockVector& a, const core::BlockVector& b)
{
    return a.values == b.values && a.norm == b.norm;
}

/** Every number of two blocks equal, bit for bit. */
bool same(const core::BlockView& a, const core::BlockView& b)
{
    if (a.layer != b.layer || a.position != b.position || a.token != b.token || a.neurons.size() != b.neurons.size() ||
        a.logits.size() != b.logits.size() || a.attentionAdds != b.attentionAdds || a.mlpAdds != b.mlpAdds)
        return false;
    for (std::size_t i = 0; i < a.neurons.size(); ++i)
        if (a.neurons[i].index != b.neurons[i].index || a.neurons[i].activation != b.neurons[i].activation ||
            a.neurons[i].up != b.neurons[i].up || a.neurons[i].gate != b.neurons[i].gate)
            return false;
    for (std::size_t i = 0; i < a.logits.size(); ++i)
        if (a.logits[i].id != b.logits[i].id || a.logits[i].logit != b.logits[i].logit ||
            a.logits[i].probability != b.logits[i].probability)
            return false;
    return same(a.streamIn, b.streamIn) && same(a.attentionNormed, b.attentionNormed) &&
           same(a.attention, b.attention) && same(a.afterAttention, b.afterAttention) &&
           same(a.mlpNormed, b.mlpNormed) && same(a.mlpOutput, b.mlpOutput) && same(a.streamOut, b.streamOut) &&
           same(a.finalNormed, b.finalNormed);
}

} // namespace

class TestBlockWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<ui::MainWindow> m_window;

    ui::Document& doc() { return *m_window->document(); }
    ui::BlockWidget* view() { return m_window->findChild<ui::BlockWidget*>(QStringLiteral("blockView")); }
    QDockWidget* dock() { return m_window->findChild<QDockWidget*>(QStringLiteral("blockDock")); }

    /** blockView() of a fresh pass of the built-in model over the text, with edits and zeroed heads. */
    static core::BlockView fresh(int layer, int position, const std::vector<core::ModelEdit>& edits,
                                 const std::set<std::pair<int, int>>& zeroed)
    {
        std::string error;
        auto pass = core::loadModelPass(core::builtinModelFolder(), error);
        if (!pass || !pass->setTokens(pass->encode(text), error))
            qFatal("%s", error.c_str());
        for (const core::ModelEdit& e : edits)
            pass->setEdit(e.layer, e.weight, e.row, e.col, e.value, error);
        for (const auto& [l, head] : zeroed)
            pass->setAblated(l, head, true);
        pass->run();
        return core::blockView(*pass, layer, position);
    }

    /** Waits for the window's block to equal want. */
    bool shows(const core::BlockView& want)
    {
        return QTest::qWaitFor([&] { return view()->block() && same(*view()->block(), want); }, 60000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_blockwindow"), m_dir.filePath(QStringLiteral("settings")));
        qputenv("ATTENTION_EXPLORER_NO_RECOVERY", "1");
    }

    void init()
    {
        QSettings().clear();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->show();
        doc().waitForTrace();
    }

    void cleanup()
    {
        if (m_window)
            doc().undoStack()->setClean();
        m_window.reset();
    }

    void emptyWithoutModel()
    {
        QVERIFY(dock());
        dock()->raise();
        QTRY_VERIFY(!view()->visibleRegion().isEmpty());
        QVERIFY(!view()->block());
        auto* empty = view()->findChild<QLabel*>(QStringLiteral("blockEmpty"));
        QVERIFY(empty && empty->isVisibleTo(view()));
        QVERIFY(empty->text().contains(QStringLiteral("Open Model")));
    }

    void followsEditsWhileShown()
    {
        QString error;
        QVERIFY2(m_window->session()->openModelFolder(QString::fromStdString(core::builtinModelFolder()), &error,
                                                      QString::fromLatin1(text)),
                 qPrintable(error));
        QVERIFY(doc().waitForModel(60000));
        // hidden behind another tab: no block is computed
        QCoreApplication::processEvents();
        QVERIFY(view()->visibleRegion().isEmpty());
        QVERIFY(!doc().modelSession()->block());

        // shown: the shown layer at the selected query
        m_window->viewState()->setSelectedQuery(3);
        dock()->raise();
        QVERIFY(shows(fresh(0, 3, {}, {})));
        // hovering the most active neuron shows its arithmetic: silu(gate) · up with its numbers
        const QString arithmetic = render::neuronArithmetic(*view()->block(), view()->block()->neurons.front());
        QVERIFY(arithmetic.contains(QStringLiteral("silu(")));
        bool found = false;
        for (int y = 0; y < 3000 && !found; y += 2)
            found = view()->toolTipAt(QPointF(60, y)) == arithmetic;
        QVERIFY2(found, qPrintable(arithmetic));

        // another query, alone: the view on screen asks for it
        m_window->viewState()->setSelectedQuery(7);
        QVERIFY(shows(fresh(0, 7, {}, {})));

        // another layer and query
        const int last = doc().modelSession()->shape().layers - 1;
        doc().setShownLayer(last);
        m_window->viewState()->setSelectedQuery(5);
        QVERIFY(shows(fresh(last, 5, {}, {})));

        // an edit of the shown layer's W_V, then Zero Head: the block follows each
        const core::BlockView before = *view()->block();
        QVERIFY(doc().setCell(ui::MatrixId::Value, 3, 5, 2.5));
        const std::vector<core::ModelEdit> edits = {{last, core::ModelWeight::Value, 3, 5, 2.5f}};
        QVERIFY(shows(fresh(last, 5, edits, {})));
        QVERIFY(!same(*view()->block(), before));
        QVERIFY(view()->block()->attention.values != before.attention.values);
        QVERIFY(doc().zeroHead(1));
        QVERIFY(shows(fresh(last, 5, edits, {{last, 1}})));

        // hidden, an undo leaves the block as it was; shown again, it catches up at once
        m_window->findChild<QDockWidget*>(QStringLiteral("overviewDock"))->raise();
        QTRY_VERIFY(view()->visibleRegion().isEmpty());
        QCoreApplication::processEvents();
        const auto hidden = view()->block();
        doc().undoStack()->undo();
        QVERIFY(doc().waitForModel(60000));
        QCOMPARE(doc().modelSession()->block(), hidden);
        dock()->raise();
        QVERIFY(shows(fresh(last, 5, edits, {})));
    }
};

QTEST_MAIN(TestBlockWindow)
#include "tst_blockwindow.moc"
