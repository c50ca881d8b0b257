#pragma once
/** Rotary positions (SPEC §6) as numbers a view can show: the frequencies each pair turns by, and what turning
 *  does to one query's score with one key as the distance between them grows. */

#include "core/attention/model.h"

#include <vector>

namespace core {

/** The d_r / 2 frequencies f_i the pair (i, i + d_r/2) of a row at position p turns by (angle p·f_i):
 *  θ^(−2i/d_r), or the model's own (a rope_scaling). Empty without rotary positions. */
std::vector<double> rotaryFrequencies(const AttentionModel& model);

/** One row (1 × d_k, unrotated) turned as if it stood at position p: the rotate-half layout, the dimensions from d_r
 *  on unchanged. */
Matrix rotatedRow(const MatrixCRef& row, const std::vector<double>& frequencies, double p);

/** For an unrotated query q and key k (1 × d_k each) of a rotary model: the score q′·k′ when the query stands
 *  distance Δ = 0 … distances − 1 after the key. It depends on Δ alone (turning both by the same angle changes no
 *  dot product): what rotary positions do to attention. Empty without rotary positions. */
std::vector<double> scoreByDistance(const AttentionModel& model, const MatrixCRef& q, const MatrixCRef& k,
                                    int distances);

}  // namespace core
