#pragma once
/** A cooperative stop for long jobs (loading a checkpoint, a forward pass): the job asks between its steps
 *  whether to stop and, when told to, returns early with nothing and its error set to stoppedMessage. */

#include <functional>

namespace core {

/** Asked by a long job between its steps, on the job's thread: true stops the job there. An empty one never
 *  stops it. (The window's is a std::atomic<bool> that Cancel sets.) */
using StopCheck = std::function<bool()>;

/** True when stop is given and says stop. */
inline bool stopNow(const StopCheck& stop)
{
    return stop && stop();
}

/** The error a job leaves when it stopped on request. */
inline constexpr const char* stoppedMessage = "stopped on request";

} // namespace core
