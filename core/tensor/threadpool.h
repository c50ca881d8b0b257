#pragma once
/** parallelFor(): the engine's parallel loops, on one pool of worker threads started once for the process. */

namespace core {

/** The most threads one parallelFor() can have, the caller's among them: the processor's cores (at least 1).
 *  Starts nothing. */
int coreCount();

/** How many parallelFor() calls so far, from any thread, offered tasks to the pool's workers: what tests read to
 *  see that a small computation ran on the calling thread alone. */
long long handOffs();

namespace detail {
/** parallelFor() with the task erased: body(context, i). */
void parallelFor(int count, int threads, void (*body)(const void* context, int i), const void* context);
}  // namespace detail

/** Runs task(i) for every i in [0, count) on up to `threads` threads: the calling thread, which always takes
 *  part, and the workers of the pool (at most coreCount() − 1). Each thread takes the next index nobody has
 *  claimed; this returns when every task has run. The first exception a task throws is rethrown here, and the
 *  tasks not yet started then do not start.
 *
 *  The workers start with the first call that asks for more than one thread and stay until the process exits,
 *  when they are joined. Calls from several threads at once share them, and a task may call parallelFor()
 *  itself. A worker never runs a task at a higher scheduling priority than the thread that called: on Linux
 *  it takes on the caller's nice value when that is higher than its own (nice values only go up without
 *  privileges, so a worker once lowered stays lowered). */
template <typename Task>
void parallelFor(int count, int threads, const Task& task)
{
    detail::parallelFor(
        count, threads, [](const void* context, int i) { (*static_cast<const Task*>(context))(i); }, &task);
}

}  // namespace core
