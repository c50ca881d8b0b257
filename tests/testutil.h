#pragma once
/** Helpers shared by the tests: matrix literals, tolerant comparison, random models, files' bytes, bit equality. */

#include "core/tensor/matrix.h"
#include "core/attention/model.h"

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>

namespace testutil {

/** Writes text to the file at path, replacing it; false when it cannot be written whole. */
inline bool writeText(const QString& path, const QByteArray& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

/** The same for the engine's tests, which name files by std::string. */
inline bool writeText(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), std::streamsize(text.size()));
    return bool(out);
}

/** The bytes of the file at path; empty when it cannot be read. */
inline QByteArray readText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/** The same for the engine's tests, which name files by std::string. */
inline std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/** True when a and b hold the same bits: tells −0 from 0, and one NaN from another. */
template <typename T>
bool sameBits(T a, T b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

/** A matrix from rows of numbers: mat({{1, 2}, {3, 4}}). */
inline core::Matrix mat(std::initializer_list<std::initializer_list<double>> rows)
{
    core::Matrix m(Eigen::Index(rows.size()), rows.size() ? Eigen::Index(rows.begin()->size()) : 0);
    Eigen::Index r = 0;
    for (const auto& row : rows) {
        Eigen::Index c = 0;
        for (double v : row)
            m(r, c++) = v;
        ++r;
    }
    return m;
}

/** Empty when a and b have the same shape and every entry differs by at most tol (NaN never matches);
 *  else a message with the shapes or the largest difference and where it is. */
inline QByteArray matrixDifference(const core::MatrixCRef& actual, const core::MatrixCRef& expected, double tol)
{
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
        return QByteArray("shape differs: actual ") + QByteArray::number(qlonglong(actual.rows())) + "×"
            + QByteArray::number(qlonglong(actual.cols())) + ", expected "
            + QByteArray::number(qlonglong(expected.rows())) + "×" + QByteArray::number(qlonglong(expected.cols()));
    double worst = -1;
    Eigen::Index wr = 0, wc = 0;
    for (Eigen::Index r = 0; r < actual.rows(); ++r)
        for (Eigen::Index c = 0; c < actual.cols(); ++c) {
            const double a = actual(r, c), e = expected(r, c);
            double d = std::fabs(a - e);
            if (a == e)
                d = 0;  // equal infinities
            else if (std::isnan(d))
                d = INFINITY;
            if (d > worst) {
                worst = d;
                wr = r;
                wc = c;
            }
        }
    if (worst <= tol)
        return {};
    return "largest difference " + QByteArray::number(worst, 'g', 6) + " > " + QByteArray::number(tol, 'g', 3)
        + " at (" + QByteArray::number(qlonglong(wr)) + "," + QByteArray::number(qlonglong(wc))
        + "): actual " + QByteArray::number(actual(wr, wc), 'g', 17) + ", expected "
        + QByteArray::number(expected(wr, wc), 'g', 17);
}

/** Random numbers in [lo, hi). */
inline core::Matrix randomMatrix(std::mt19937_64& rng, int rows, int cols, double lo = -1, double hi = 1)
{
    std::uniform_real_distribution<double> dist(lo, hi);
    core::Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = dist(rng);
    return m;
}

/** A random valid model: n tokens, d_model d, h heads of d_k dk and d_v dv, optional W_O of dOut columns. */
inline core::AttentionModel randomModel(std::mt19937_64& rng, int n, int d, int h, int dk, int dv, int dOut = 0)
{
    core::AttentionModel m;
    for (int i = 0; i < n; ++i)
        m.tokens.push_back("t" + std::to_string(i));
    m.embeddings = randomMatrix(rng, n, d, -2, 2);
    m.wq = randomMatrix(rng, d, h * dk);
    m.wk = randomMatrix(rng, d, h * dk);
    m.wv = randomMatrix(rng, d, h * dv);
    if (dOut > 0)
        m.wo = randomMatrix(rng, h * dv, dOut);
    m.options.heads = h;
    return m;
}

}  // namespace testutil

/** QVERIFY2 that two matrices agree within tol, printing the largest difference when they do not. */
#define COMPARE_MATRIX(actual, expected, tol)                                                          \
    do {                                                                                               \
        const QByteArray diff_ = testutil::matrixDifference((actual), (expected), (tol));              \
        QVERIFY2(diff_.isEmpty(), diff_.constData());                                                  \
    } while (false)

/** QVERIFY2 that an export's result says it wrote its file, printing its error when it did not. */
#define VERIFY_WRITTEN(result)                                                                         \
    do {                                                                                               \
        const auto result_ = (result);                                                                 \
        QVERIFY2(result_.written, qPrintable(result_.error));                                          \
    } while (false)
