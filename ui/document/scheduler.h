#pragma once
/** Scheduler: keeps a trace that matches a model state. Told of each change to the state, it
 *  validates it, computes small states at once and large ones on a worker (coalesced: of the
 *  changes made while one computation runs only the newest state is computed, stale results are
 *  never announced), and hands the worker only the cells set since the trace shown when nothing
 *  else changed, so that the GUI thread copies nothing large per edit. It knows no document: any
 *  session that shows its state as a core::AttentionModel can use it with its own compute. */

#include "latestjob.h"
#include "modelchange.h"

#include "core/attention/trace.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace ui {

class Scheduler : public QObject {
    Q_OBJECT
public:
    /** Computes the trace of model, any thread: a copy of one state, immutable, which the trace may share
     *  instead of copying. previous (null, or the trace shown) may be reused for what a change did not reach;
     *  spare (may be null) lends its storage. The trace returned must not have been made const (a spent one is
     *  recycled as the next spare). Throws on lack of memory. */
    using Compute = std::function<std::shared_ptr<const core::Trace>(
        std::shared_ptr<const core::AttentionModel> model, const core::Trace* previous, core::Trace* spare)>;
    /** core::computeShared, the compute of a session whose state is the attention model itself. */
    static Compute attention();

    /** Keeps a trace of the state that state() gives, which the caller owns and changes only before calling
     *  changed(). */
    explicit Scheduler(std::function<const core::AttentionModel&()> state, Compute compute = attention(),
                       QObject* parent = nullptr);
    ~Scheduler() override;

    /** The latest trace that matches the state, or the last good one while a computation runs;
     *  null before the first result or when the state cannot be computed. */
    std::shared_ptr<const core::Trace> trace() const { return m_trace; }
    /** Why the state cannot be computed; empty when it can. */
    QString error() const { return m_error; }
    /** True while a computation of the current state has not finished. */
    bool isComputing() const { return m_computing; }
    /** How many computations were started (synchronous and on the worker). */
    quint64 computationsStarted() const { return m_started; }

    /** The state changed by change (already applied to it): validates and recomputes. validatedCopy, when
     *  given, is a copy of the new state made and passed by core::validate elsewhere (a model session's
     *  worker): the state is then not validated again, and the worker computes from that copy instead of
     *  one made on this thread. */
    void changed(const ModelChange& change, std::shared_ptr<const core::AttentionModel> validatedCopy = nullptr);
    /** Blocks until the current state's trace is ready or the state is refused. False when
     *  timeoutMs (negative: no limit) ran out first. Runs the event loop meanwhile. */
    bool waitForTrace(int timeoutMs = -1);

    /** Below this many multiply-adds a state is computed at once on the calling thread: well under a
     *  millisecond, there before the next paint. */
    static constexpr double synchronousWork = 2e5;

signals:
    /** A new trace matching the state; null when it cannot be computed (errorChanged says why). */
    void traceReady(std::shared_ptr<const core::Trace> trace);
    /** Why the state cannot be computed; empty when it can again. */
    void errorChanged(const QString& message);

private:
    /** What a worker needs: the state, or the trace shown and the cells set since its state. */
    using Job = LatestJob<std::shared_ptr<const core::Trace>>::Job;
    Job makeJob();
    void delivered(std::shared_ptr<const core::Trace> result);
    /** m_trace becomes trace, computed for the state of request stamp (null: nothing to show). */
    void setTrace(std::shared_ptr<const core::Trace> trace, quint64 stamp);
    void announce();
    /** Keeps spent as the next computation's storage when nothing else holds it and it is not too large. */
    void keepAsSpare(std::shared_ptr<const core::Trace> spent);
    void setError(const QString& message);

    std::function<const core::AttentionModel&()> m_state;
    Compute m_compute;
    QString m_error;
    std::shared_ptr<const core::Trace> m_trace;
    std::shared_ptr<core::Trace> m_spare;  ///< a spent trace whose storage the next computation reuses
    quint64 m_requested = 0;              ///< stamp of the newest state
    quint64 m_jobStamp = 0;               ///< stamp of the state the worker computes
    quint64 m_traceStamp = 0;             ///< stamp of the state m_trace was computed for
    quint64 m_wholeChangeStamp = 0;       ///< the newest state made by a change other than one cell
    quint64 m_started = 0;
    /** The caller's validated copy of the current state, until a job takes it or the state changes again. */
    std::shared_ptr<const core::AttentionModel> m_copy;
    bool m_computing = false;
    bool m_valid = false;  ///< the state passed core::validate() at the last change
    /** The cells set since m_trace's state, each with the request it made. */
    struct LoggedCell {
        quint64 stamp;
        ModelChange change;
    };
    std::vector<LoggedCell> m_cellLog;
    LatestJob<std::shared_ptr<const core::Trace>> m_job;
};

}  // namespace ui
