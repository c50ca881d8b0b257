#include "core/attention/rotary.h"

#include <cmath>

namespace core {

std::vector<double> rotaryFrequencies(const AttentionModel& model)
{
    const int dr = rotaryWidth(model);
    const int half = dr / 2;
    if (model.rotaryFrequencies && int(model.rotaryFrequencies->size()) == half)
        return *model.rotaryFrequencies;
    std::vector<double> f(static_cast<std::size_t>(half));
    for (int i = 0; i < half; ++i)
        f[std::size_t(i)] = 1.0 / std::pow(model.options.ropeTheta, double(2 * i) / dr);
    return f;
}

Matrix rotatedRow(const MatrixCRef& row, const std::vector<double>& frequencies, double p)
{
    Matrix out = row;
    const Eigen::Index half = Eigen::Index(frequencies.size());
    for (Eigen::Index i = 0; i < half && i + half < out.cols(); ++i) {
        const double angle = p * frequencies[std::size_t(i)];
        const double a = row(0, i), b = row(0, i + half), c = std::cos(angle), s = std::sin(angle);
        out(0, i) = a * c - b * s;
        out(0, i + half) = b * c + a * s;
    }
    return out;
}

std::vector<double> scoreByDistance(const AttentionModel& model, const MatrixCRef& q, const MatrixCRef& k,
                                    int distances)
{
    if (model.options.positionalEncoding != PositionalEncoding::Rotary || q.cols() != k.cols() || q.rows() != 1
        || k.rows() != 1 || distances <= 0)
        return {};
    const std::vector<double> f = rotaryFrequencies(model);
    std::vector<double> scores(static_cast<std::size_t>(distances));
    for (int d = 0; d < distances; ++d)  // the key at 0, the query d after it
        scores[std::size_t(d)] = (rotatedRow(q, f, d) * k.transpose())(0, 0);
    return scores;
}

}  // namespace core
