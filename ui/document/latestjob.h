#pragma once
/** LatestJob<T>: one background job at a time, and of the requests made meanwhile only the newest
 *  counts. The recompute, the token line, the heatmap's figure, the thumbnails and the autosave all
 *  work this way: the state changes faster than a worker can follow, and only the latest is worth
 *  a result. */

#include "background.h"

#include <QFutureWatcher>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace ui {

template <typename T>
class LatestJob {
public:
    /** What runs on the worker; it must not touch any QObject. */
    using Job = std::function<T()>;
    /** Delivers a first part of a job's result while the job goes on (any thread, any number of times). */
    using Post = std::function<void(T)>;
    /** A job that may deliver parts of its result before it ends, through the Post it is given. */
    using PostingJob = std::function<T(const Post&)>;

    /** make builds the job from the state of the moment it can start (an empty Job: nothing to do);
     *  deliver takes the result of a job no newer request overtook; discard (optional) takes every
     *  other result, for buffers worth reusing or a file to clean up. All three run on the thread
     *  that owns this object. */
    LatestJob(std::function<Job()> make, std::function<void(T)> deliver, std::function<void(T)> discard = {})
        : LatestJob(
              [make = std::move(make)]() -> PostingJob {
                  Job job = make ? make() : Job();
                  if (!job)
                      return {};
                  return [job = std::move(job)](const Post&) { return job(); };
              },
              std::move(deliver), std::move(discard), Posting{})
    {
    }
    /** The same for jobs that post parts: each part is delivered as soon as the owner's thread gets to it while
     *  no newer request overtook the job; parts still waiting when the job ends are delivered before its result,
     *  in order, so a part is never lost to a result that came first. */
    struct Posting {};
    LatestJob(std::function<PostingJob()> make, std::function<void(T)> deliver, std::function<void(T)> discard,
              Posting)
        : m_make(std::move(make)), m_deliver(std::move(deliver)), m_discard(std::move(discard))
    {
        QObject::connect(&m_watcher, &QFutureWatcherBase::finished, &m_watcher, [this] { finished(); });
    }
    /** Waits for a job in flight; its result is dropped, nothing is delivered any more. */
    ~LatestJob()
    {
        QObject::disconnect(&m_watcher, nullptr, &m_watcher, nullptr);
        m_watcher.waitForFinished();
    }
    LatestJob(const LatestJob&) = delete;
    LatestJob& operator=(const LatestJob&) = delete;

    /** Asks for a result of the current state: starts a job now when none runs, else once the one
     *  running is done (its result is then stale). Any number of requests meanwhile start one job. */
    void request()
    {
        m_wanted = true;
        m_stale = m_running;
        if (!m_running)
            start();
    }
    /** Forgets the request: the result of a job in flight is stale, nothing is delivered for it. */
    void cancel()
    {
        m_wanted = false;
        m_stale = m_running;
    }
    /** True while a result is wanted and not delivered yet (a job runs or waits to start). */
    bool isPending() const { return m_wanted; }
    /** True while a job runs, even one whose result is already stale. */
    bool isRunning() const { return m_running; }
    /** How many jobs were started; for tests and profiling. */
    quint64 jobsStarted() const { return m_started; }
    /** True while the job-th job started (counted from 1, as jobsStarted()) runs and no request or cancel has
     *  overtaken it: what it would deliver now is still wanted. For a job that shows part of its result before it
     *  ends (the make function learns its number as jobsStarted() + 1). */
    bool isCurrent(quint64 job) const { return m_running && !m_stale && m_wanted && m_started == job; }
    /** Blocks until nothing is wanted any more: the newest request's result is delivered (or its
     *  job came out empty). Runs no event loop. */
    void finish()
    {
        while (m_running) {
            m_watcher.waitForFinished();
            finished();
        }
    }

private:
    /** The parts a job posted that its owner has not taken yet. */
    struct Parts {
        std::mutex mutex;
        std::deque<T> waiting;
        std::optional<T> next()
        {
            const std::lock_guard lock(mutex);
            if (waiting.empty())
                return std::nullopt;
            T part = std::move(waiting.front());
            waiting.pop_front();
            return part;
        }
    };

    void start()
    {
        PostingJob job = m_make ? m_make() : PostingJob();
        if (!job) {
            m_wanted = false;  // nothing to do for this state
            return;
        }
        m_running = true;
        m_stale = false;
        const quint64 number = ++m_started;
        m_parts = std::make_shared<Parts>();
        Post post = [this, number, parts = m_parts](T part) {
            {
                const std::lock_guard lock(parts->mutex);
                parts->waiting.push_back(std::move(part));
            }
            QMetaObject::invokeMethod(
                &m_watcher, [this, number, parts] { takeParts(number, *parts); }, Qt::QueuedConnection);
        };
        // The result travels in a shared_ptr so that finished() can move it out instead of copying it (a
        // model session's result holds a whole layer, tens of MB for GPT-2: a copy on the GUI thread was
        // a stall of its own). finished() reads each job's result once.
        m_watcher.setFuture(runInBackground(
            [job = std::move(job), post = std::move(post)] { return std::make_shared<T>(job(post)); }));
    }

    /** Delivers the parts job posted while it is the current one; they are dropped with a stale job. */
    void takeParts(quint64 job, Parts& parts)
    {
        while (isCurrent(job)) {
            std::optional<T> part = parts.next();
            if (!part)
                return;
            m_deliver(std::move(*part));
        }
    }

    void finished()
    {
        // finish() may have taken this result already; the watcher's signal for it still comes.
        if (!m_running || !m_watcher.isFinished())
            return;
        takeParts(m_started, *m_parts);
        m_running = false;
        T result = std::move(*m_watcher.result());
        if (m_stale || !m_wanted) {
            while (std::optional<T> part = m_parts->next())
                if (m_discard)
                    m_discard(std::move(*part));
            if (m_discard)
                m_discard(std::move(result));
            if (m_wanted && !m_running)
                start();  // a newer request came: compute only the newest state
            return;
        }
        m_wanted = false;
        m_deliver(std::move(result));
    }

    std::function<PostingJob()> m_make;
    std::function<void(T)> m_deliver;
    std::function<void(T)> m_discard;
    QFutureWatcher<std::shared_ptr<T>> m_watcher;
    bool m_wanted = false;   ///< a result of the current state is wanted
    bool m_running = false;  ///< a job is on the worker
    bool m_stale = false;    ///< the job on the worker was overtaken by a request or a cancel
    std::shared_ptr<Parts> m_parts;  ///< the running job's posted parts
    quint64 m_started = 0;
};

}  // namespace ui
