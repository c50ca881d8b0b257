#pragma once
/** What the real-model benchmarks share: a clock in milliseconds, medians, and the text they run. */

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** A fixed English paragraph: cut to the tokens a benchmark asks for (about 100 with GPT-2's vocabulary). */
inline const char* const paragraph =
    "The cat sat on the mat because it was tired, and the dog, which had been watching it from the door "
    "all afternoon, finally walked over and lay down beside it. Outside the rain kept falling on the "
    "quiet street, where a man in a grey coat waited for a bus that never seemed to come. He looked at "
    "his watch, sighed, and opened the newspaper he had bought at the station that morning, reading "
    "again the story about the bridge that the city had promised to repair for almost ten years.";

}  // namespace bench
