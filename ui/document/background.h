#pragma once
/** runInBackground(): the window's own work (recomputes, figures, files) on a thread pool of its own,
 *  below the GUI thread's priority. */

#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace ui {

/** The pool runInBackground() uses: as many threads as cores. Not Qt's global pool, which Qt's raster
 *  engine hands large fills to and then waits for: queued behind a recompute there, a paint on the GUI
 *  thread waited for as long as the recompute ran (106 ms seen at 4096 tokens). */
QThreadPool* backgroundPool();

/** Lowers the calling thread's scheduling priority once when it is one of backgroundPool()'s threads
 *  (nice +10 on Linux, where threads it starts inherit it; nothing elsewhere). On two cores a
 *  computation on both would otherwise share them evenly with the GUI thread and Qt's fill helpers,
 *  and every paint would wait its turn. The computation still has all the cores the GUI does not use. */
void lowerThreadPriority();

/** QtConcurrent::run(fn) on backgroundPool(), below the GUI's priority (lowerThreadPriority()). */
template <typename Function>
auto runInBackground(Function&& fn)
{
    return QtConcurrent::run(backgroundPool(), [fn = std::forward<Function>(fn)]() mutable {
        lowerThreadPriority();
        return fn();
    });
}

}  // namespace ui
