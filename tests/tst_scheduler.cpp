/** Scheduler: a model state, the changes made to it and a compute function give traces of the newest
 *  state only; stale results are never announced. It knows no document: these tests drive it alone. */

#include "core/attention/attention.h"
#include "testutil.h"
#include "ui/document/scheduler.h"

#include <QMutex>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>

#include <limits>

using namespace ui;

namespace {

/** A compute that waits at a gate and records the value of X(0, 0) and the address of each state it was given. */
struct GatedCompute {
    std::shared_ptr<QSemaphore> gate = std::make_shared<QSemaphore>();
    std::shared_ptr<QMutex> mutex = std::make_shared<QMutex>();
    std::shared_ptr<std::vector<double>> seen = std::make_shared<std::vector<double>>();
    std::shared_ptr<std::vector<const core::AttentionModel*>> where =
        std::make_shared<std::vector<const core::AttentionModel*>>();

    Scheduler::Compute function() const
    {
        return [gate = gate, mutex = mutex, seen = seen, where = where](
                   std::shared_ptr<const core::AttentionModel> model, const core::Trace* previous,
                   core::Trace* spare) {
            gate->acquire();
            {
                const QMutexLocker lock(mutex.get());
                seen->push_back(model->embeddings(0, 0));
                where->push_back(model.get());
            }
            return std::shared_ptr<const core::Trace>(core::computeShared(std::move(model), previous, spare));
        };
    }
    std::vector<double> states() const
    {
        const QMutexLocker lock(mutex.get());
        return *seen;
    }
    std::vector<const core::AttentionModel*> addresses() const
    {
        const QMutexLocker lock(mutex.get());
        return *where;
    }
};

/** 200 tokens: too much work to compute on the calling thread. */
core::AttentionModel workerSized(unsigned seed)
{
    std::mt19937_64 rng(seed);
    return testutil::randomModel(rng, 200, 32, 2, 8, 8);
}

/** A scheduler over a worker-sized state whose compute never waits, with its first trace made. */
struct Computed {
    core::AttentionModel state;
    GatedCompute compute;
    Scheduler scheduler;
    bool ready = false;
    explicit Computed(unsigned seed) : state(workerSized(seed)), scheduler([this]() -> const core::AttentionModel& { return state; }, compute.function())
    {
        compute.gate->release(1000);
        scheduler.changed(ModelChange::of(ModelChange::Kind::Model));
        ready = scheduler.waitForTrace(30000) && scheduler.trace();
    }
};

/** A scheduler over a worker-sized state whose compute waits at its gate; announced gets X(0, 0) of each trace
 *  announced, each checked to be a trace of the current state. */
struct Gated {
    core::AttentionModel state;
    GatedCompute compute;
    Scheduler scheduler;
    std::vector<double> announced;
    explicit Gated(unsigned seed) : state(workerSized(seed)), scheduler([this]() -> const core::AttentionModel& { return state; }, compute.function())
    {
        QObject::connect(&scheduler, &Scheduler::traceReady, &scheduler,
                         [this](const std::shared_ptr<const core::Trace>& t) {
                             QVERIFY(t);
                             QVERIFY2(*t->model == state, "a trace of a state that is not the current one");
                             announced.push_back(t->model->embeddings(0, 0));
                         });
    }
};

}  // namespace

class TestScheduler : public QObject {
    Q_OBJECT
private slots:
    void staleResultsAreNeverAnnounced();
    void cellsReachTheWorkerAsChanges();
    void refusedStateIsNotComputed();
    void validatedCopyServesOnlyItsState();
};

void TestScheduler::staleResultsAreNeverAnnounced()
{
    Gated fixture(1);
    auto& [state, compute, scheduler, announced] = fixture;
    scheduler.changed(ModelChange::of(ModelChange::Kind::Model));
    QVERIFY(scheduler.isComputing());
    // While the first computation waits at the gate, the state changes five times (a whole matrix,
    // so that each is a full state to compute).
    for (int k = 1; k <= 5; ++k) {
        state.embeddings.setConstant(k);
        scheduler.changed(ModelChange::wholeMatrix(MatrixId::Embeddings));
    }
    compute.gate->release(2);
    QVERIFY(scheduler.waitForTrace(30000));
    QCOMPARE(announced, std::vector<double>{5.0});  // only the newest state
    QCOMPARE(compute.states().size(), std::size_t(2));  // the first state and the newest, none between
    QCOMPARE(compute.states().back(), 5.0);
    QCOMPARE(scheduler.computationsStarted(), quint64(2));
    QVERIFY(!scheduler.isComputing());
}

void TestScheduler::cellsReachTheWorkerAsChanges()
{
    // After a first trace, cells set in the state reach the worker as changes to the trace's state;
    // the result is what a fresh computation of the state gives.
    Computed fixture(2);
    QVERIFY(fixture.ready);
    auto& [state, compute, scheduler, ready] = fixture;
    const auto cell = [&](MatrixId id, int r, int c, double v) {
        core::Matrix& m = *matrixOf(state, id);
        const double before = m(r, c);
        m(r, c) = v;
        scheduler.changed(ModelChange::cell(id, r, c, before, v));
    };
    cell(MatrixId::Embeddings, 0, 0, 7.5);
    cell(MatrixId::Key, 3, 2, -1.25);
    cell(MatrixId::Embeddings, 0, 0, 8.5);
    QVERIFY(scheduler.waitForTrace(30000));
    const auto trace = scheduler.trace();
    QVERIFY(trace);
    QVERIFY(*trace->model == state);
    const core::Trace fresh = core::compute(state);
    for (int h = 0; h < fresh.headCount(); ++h) {
        const QByteArray d = testutil::matrixDifference(trace->heads[std::size_t(h)].weights,
                                                        fresh.heads[std::size_t(h)].weights, 1e-12);
        QVERIFY2(d.isEmpty(), d.constData());
    }
    QCOMPARE(compute.states().back(), 8.5);
}

void TestScheduler::refusedStateIsNotComputed()
{
    Computed fixture(3);
    QVERIFY(fixture.ready);
    auto& [state, compute, scheduler, ready] = fixture;
    const std::size_t computed = compute.states().size();

    QSignalSpy traces(&scheduler, &Scheduler::traceReady);
    QSignalSpy errors(&scheduler, &Scheduler::errorChanged);
    const double before = state.wq(1, 1);
    state.wq(1, 1) = std::numeric_limits<double>::infinity();
    scheduler.changed(ModelChange::cell(MatrixId::Query, 1, 1, before, state.wq(1, 1)));
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.at(0).at(0).toString().contains(QStringLiteral("weights.query")));
    QCOMPARE(traces.count(), 1);
    QVERIFY(!traces.at(0).at(0).value<std::shared_ptr<const core::Trace>>());
    QVERIFY(!scheduler.trace());
    QVERIFY(!scheduler.isComputing());
    QCOMPARE(compute.states().size(), computed);

    state.wq(1, 1) = before;
    scheduler.changed(ModelChange::cell(MatrixId::Query, 1, 1, state.wq(1, 1), before));
    QVERIFY(scheduler.waitForTrace(30000));
    QVERIFY(scheduler.error().isEmpty());
    QVERIFY(scheduler.trace());
    QVERIFY(*scheduler.trace()->model == state);
}

void TestScheduler::validatedCopyServesOnlyItsState()
{
    // A copy of the state made elsewhere is what the worker computes (the GUI thread copies nothing), but only
    // for the state it was made of: once the state changed again, the worker gets a copy of the newer one.
    Gated fixture(4);
    auto& [state, compute, scheduler, announced] = fixture;
    state.embeddings.setConstant(1);
    const auto first = std::make_shared<const core::AttentionModel>(state);
    scheduler.changed(ModelChange::of(ModelChange::Kind::Model), first);
    QVERIFY(scheduler.isComputing());
    // While that computation waits at the gate: a new state with its copy, then one more without.
    state.embeddings.setConstant(2);
    const auto overtaken = std::make_shared<const core::AttentionModel>(state);
    scheduler.changed(ModelChange::of(ModelChange::Kind::Model), overtaken);
    state.embeddings.setConstant(3);
    scheduler.changed(ModelChange::wholeMatrix(MatrixId::Embeddings));
    compute.gate->release(2);
    QVERIFY(scheduler.waitForTrace(30000));
    QCOMPARE(compute.states(), (std::vector<double>{1.0, 3.0}));
    const auto addresses = compute.addresses();
    QCOMPARE(addresses.size(), std::size_t(2));
    QCOMPARE(addresses[0], first.get());
    QVERIFY(addresses[1] != overtaken.get());
    QCOMPARE(announced, std::vector<double>{3.0});
    QVERIFY(*scheduler.trace()->model == state);
    // The copy passed over is not kept.
    QCOMPARE(overtaken.use_count(), 1L);
}

QTEST_MAIN(TestScheduler)
#include "tst_scheduler.moc"
