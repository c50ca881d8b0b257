#include "background.h"

#include <QThread>

#if defined(__linux__)
#include <sys/resource.h>
#endif

namespace ui {

Q_GLOBAL_STATIC(QThreadPool, pool)

QThreadPool* backgroundPool()
{
    return pool();
}

void lowerThreadPriority()
{
#if defined(__linux__)
    // Only the pool's own threads: waiting for a job that has not started yet runs it on the waiting
    // thread (the GUI thread, say), which must keep its priority.
    thread_local bool lowered = false;
    if (lowered || !backgroundPool()->contains(QThread::currentThread()))
        return;
    lowered = true;
    // On Linux the nice value belongs to the thread: PRIO_PROCESS with 0 means the calling thread.
    constexpr int backgroundNice = 10;
    if (getpriority(PRIO_PROCESS, 0) < backgroundNice)
        setpriority(PRIO_PROCESS, 0, backgroundNice);
#endif
}

}  // namespace ui
