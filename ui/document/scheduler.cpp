#include "scheduler.h"

#include "core/attention/attention.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

/** Multiply-adds of one computation of m. */
double work(const core::AttentionModel& m)
{
    const double n = m.n(), d = m.dModel();
    return n * d * double(m.wq.cols() * 2 + m.wv.cols()) + 2.0 * n * n * double(m.wq.cols() + m.wv.cols());
}

}  // namespace

Scheduler::Compute Scheduler::attention()
{
    return [](std::shared_ptr<const core::AttentionModel> model, const core::Trace* previous, core::Trace* spare) {
        return std::shared_ptr<const core::Trace>(core::computeShared(std::move(model), previous, spare));
    };
}

Scheduler::Scheduler(std::function<const core::AttentionModel&()> state, Compute compute, QObject* parent)
    : QObject(parent), m_state(std::move(state)), m_compute(std::move(compute)),
      m_job([this] { return makeJob(); }, [this](std::shared_ptr<const core::Trace> t) { delivered(std::move(t)); },
            [this](std::shared_ptr<const core::Trace> t) { keepAsSpare(std::move(t)); })
{
}

Scheduler::~Scheduler() = default;

void Scheduler::setError(const QString& message)
{
    if (message == m_error)
        return;
    m_error = message;
    emit errorChanged(m_error);
}

void Scheduler::changed(const ModelChange& change, std::shared_ptr<const core::AttentionModel> validatedCopy)
{
    const quint64 stamp = ++m_requested;
    const bool validated = validatedCopy != nullptr;
    m_copy = std::move(validatedCopy);  // any older copy is of a state gone
    // Past this many cells since the trace shown, setting them one by one costs more than copying the state.
    constexpr std::size_t loggedCells = 4096;
    const bool cell = change.kind == ModelChange::Kind::Cell;
    if (cell && m_cellLog.size() < loggedCells) {
        m_cellLog.push_back({stamp, change});
    } else {
        m_wholeChangeStamp = stamp;
        m_cellLog.clear();
    }
    // Validation reads every number for NaN; a finite cell in a valid state only needs itself checked.
    const bool finiteCell = cell && std::isfinite(change.after);
    auto e = validated || (finiteCell && m_valid) ? std::nullopt : core::validate(m_state());
    m_valid = !e;
    if (e) {
        // Nothing to show that matches the state: say why, and let the views clear.
        m_job.cancel();
        m_computing = false;
        setError(QString::fromStdString(*e));
        if (m_trace) {
            setTrace(nullptr, 0);
            emit traceReady(nullptr);
        }
        return;
    }
    setError(QString());
    if (work(m_state()) <= synchronousWork) {
        m_job.cancel();  // a result of an older state would be stale
        ++m_started;
        m_computing = false;
        std::shared_ptr<const core::Trace> result;
        try {
            result = m_compute(std::make_shared<const core::AttentionModel>(m_state()), nullptr, nullptr);
        } catch (const std::exception&) {
            result = nullptr;  // validated before; only memory can run out here
        }
        setTrace(std::move(result), stamp);
        announce();
        return;
    }
    m_computing = true;
    m_job.request();
}

void Scheduler::setTrace(std::shared_ptr<const core::Trace> trace, quint64 stamp)
{
    m_trace = std::move(trace);
    m_traceStamp = m_trace ? stamp : 0;
    // The cells set up to that request are in its state now.
    const auto done =
        std::find_if(m_cellLog.begin(), m_cellLog.end(), [&](const LoggedCell& c) { return c.stamp > stamp; });
    m_cellLog.erase(m_cellLog.begin(), done);
}

void Scheduler::announce()
{
    if (!m_trace)
        setError(tr("Not enough memory to compute %1 tokens.").arg(m_state().n()));
    emit traceReady(m_trace);
}

Scheduler::Job Scheduler::makeJob()
{
    ++m_started;
    m_jobStamp = m_requested;
    // The trace shown is where the worker starts: a change of one cell redoes only what it reaches; a
    // spent trace, if one is kept, lends its storage. When only cells changed since that trace's state,
    // the worker copies that state and sets them, and the GUI thread copies nothing large. Otherwise it
    // takes one copy of the current state, shared (a lambda holding the state by value would copy it
    // again as the pool stores the call).
    std::shared_ptr<const core::AttentionModel> state;
    std::vector<ModelChange> cells;
    if (m_trace && m_traceStamp > 0 && m_wholeChangeStamp <= m_traceStamp) {
        cells.reserve(m_cellLog.size());
        for (const LoggedCell& c : m_cellLog)
            cells.push_back(c.change);
    } else if (m_copy) {
        state = m_copy;  // the caller's copy of this very state
    } else {
        state = std::make_shared<const core::AttentionModel>(m_state());
    }
    m_copy.reset();
    return [compute = m_compute, state, cells = std::move(cells), previous = m_trace,
            spare = std::move(m_spare)]() -> std::shared_ptr<const core::Trace> {
        try {
            if (state)
                return compute(state, previous.get(), spare.get());
            auto edited = std::make_shared<core::AttentionModel>(*previous->model);
            for (const ModelChange& c : cells)
                *cellOf(*edited, c.matrix, c.row, c.col) = c.after;  // a bias row too
            return compute(std::move(edited), previous.get(), spare.get());
        } catch (const std::exception&) {
            return nullptr;  // validated before; only memory can run out here
        }
    };
}

void Scheduler::delivered(std::shared_ptr<const core::Trace> result)
{
    m_computing = false;
    std::shared_ptr<const core::Trace> spent = m_trace;
    setTrace(std::move(result), m_jobStamp);
    announce();
    keepAsSpare(std::move(spent));  // the views have let go of it now
}

void Scheduler::keepAsSpare(std::shared_ptr<const core::Trace> spent)
{
    // Only a trace no view holds any more, and only up to a size whose idle memory is worth the
    // page faults it saves (a 4096-token trace is about 300 MiB).
    constexpr std::size_t sparedBytes = std::size_t(768) << 20;
    if (!spent || spent.use_count() != 1 || core::estimatedTraceBytes(*spent->model) > sparedBytes)
        return;
    // The compute made it as a non-const Trace: taking the const away again is allowed.
    m_spare = std::const_pointer_cast<core::Trace>(std::move(spent));
}

bool Scheduler::waitForTrace(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs < 0 ? QDeadlineTimer::Forever : QDeadlineTimer(timeoutMs));
    QTimer wake;  // lets the loop look at the deadline while no other event comes
    wake.start(50);
    while (m_computing) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

}  // namespace ui
