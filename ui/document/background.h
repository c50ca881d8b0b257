#pragma once
/** runInBackground(): work for Qt's global thread pool, run below the GUI thread's priority. */

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace ui {

/** Lowers the calling thread's scheduling priority once when it is one of the global pool's threads
 *  (nice +10 on Linux, where threads it starts inherit it; nothing elsewhere). On two cores a computation on both would otherwise share them
 *  evenly with the GUI thread and with the helper threads Qt's raster engine fills large areas with,
 *  and every paint would wait its turn. The GUI still lets the computation have all the cores it
 *  does not use. */
void lowerThreadPriority();

/** QtConcurrent::run(fn) on a thread below the GUI's priority (lowerThreadPriority()). */
template <typename Function>
auto runInBackground(Function&& fn)
{
    return QtConcurrent::run([fn = std::forward<Function>(fn)]() mutable {
        lowerThreadPriority();
        return fn();
    });
}

}  // namespace ui
