#pragma once
/** How the process's allocator should treat the large matrices of long sequences. */

namespace core {

/** Makes glibc's malloc keep freed memory for the next computation, in one arena. Call it first thing in
 *  main(), before any thread starts; it changes the whole process, so the engine never calls it itself.
 *
 *  By default malloc hands memory back to the system as soon as 128 KiB lie free at the top of the heap,
 *  serves blocks from 128 KiB on with a fresh mapping, and gives each thread that allocates its own arena,
 *  whose heaps are unmapped whenever they fall empty. Every computation then faults its matrices in again
 *  page by page: measured 10–30 × the whole computation for n ≤ 512 on a virtual machine, and an edit at
 *  512 tokens now and then taking 20 ms instead of 4 when the worker thread's arena had let go of its heap.
 *  After this call up to 256 MiB freed stay for reuse in the one arena every thread shares; blocks from
 *  32 MiB on (large n × n matrices) are still mapped and returned. Settings the user made with
 *  GLIBC_TUNABLES are left alone. Does nothing on other C libraries. */
void keepFreedMemory();

}  // namespace core
