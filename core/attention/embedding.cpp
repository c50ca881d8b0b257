#include "core/attention/embedding.h"

#include <cmath>
#include <numbers>

namespace core {

std::uint64_t SplitMix64::next()
{
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double SplitMix64::uniform()
{
    return double(next() >> 11) * 0x1.0p-53;
}

double SplitMix64::normal()
{
    // Box–Muller; 1 − u keeps the logarithm's argument in (0, 1].
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::uint64_t fnv1a64(std::string_view bytes)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

RowVector tokenEmbedding(std::string_view token, int dModel)
{
    RowVector row(dModel);
    SplitMix64 rng(fnv1a64(token));
    for (int c = 0; c < dModel; ++c)
        row(c) = std::round((2.0 * rng.uniform() - 1.0) * 10.0) / 10.0 + 0.0;  // + 0.0 turns −0 into 0
    return row;
}

Matrix tokenEmbeddings(const std::vector<std::string>& tokens, int dModel)
{
    Matrix m(Eigen::Index(tokens.size()), dModel);
    for (std::size_t i = 0; i < tokens.size(); ++i)
        m.row(Eigen::Index(i)) = tokenEmbedding(tokens[i], dModel);
    return m;
}

Matrix sinusoidalEncoding(int n, int dModel)
{
    Matrix pe(n, dModel);
    for (int c = 0; c < dModel; ++c) {
        const int i2 = c - (c % 2);  // 2i
        const double rate = std::pow(10000.0, double(i2) / double(dModel));
        for (int pos = 0; pos < n; ++pos) {
            const double angle = double(pos) / rate;
            pe(pos, c) = (c % 2 == 0) ? std::sin(angle) : std::cos(angle);
        }
    }
    return pe;
}

Matrix initWeights(int rows, int cols, Init init, std::uint64_t seed)
{
    Matrix w = Matrix::Zero(rows, cols);
    SplitMix64 rng(seed);
    switch (init) {
    case Init::Zeros:
        break;
    case Init::Identity:
        for (int i = 0; i < std::min(rows, cols); ++i)
            w(i, i) = 1.0;
        break;
    case Init::Uniform: {
        const double a = std::sqrt(6.0 / double(rows + cols));
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                w(r, c) = (2.0 * rng.uniform() - 1.0) * a;
        break;
    }
    case Init::Normal: {
        const double sd = 1.0 / std::sqrt(double(std::max(rows, 1)));
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                w(r, c) = rng.normal() * sd;
        break;
    }
    }
    return w;
}

}  // namespace core
