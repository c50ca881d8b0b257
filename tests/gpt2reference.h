#pragma once
/** The independent PyTorch float64 reference of GPT-2's forward pass (tests/gpt2_reference.py), run from a
 *  test, and the comparison the tests make with it: within 2e-5 of the largest entry. */

#include "python.h"

#include <QFile>
#include <QString>
#include <QStringList>
#include <QTest>

#include <nlohmann/json.hpp>

#include <Eigen/Core>

#include <cmath>
#include <string>
#include <vector>

namespace testutil {

/** How far the engine may be from the float64 reference, relative to the largest entry. */
constexpr double tolerance = 2e-5;

/** The largest |got − want| over the largest |want|, with where it was; got and want are flat. */
struct Difference {
    double relative = 0, absolute = 0, scale = 0;
    std::size_t at = 0;
};

inline Difference compare(const std::vector<double>& got, const std::vector<double>& want)
{
    Difference d;
    for (double w : want)
        d.scale = std::max(d.scale, std::fabs(w));
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double diff = i < got.size() ? std::fabs(got[i] - want[i]) : INFINITY;
        if (!(diff <= d.absolute)) {
            d.absolute = diff;
            d.at = i;
        }
    }
    d.relative = d.absolute / std::max(d.scale, 1e-300);
    if (got.size() != want.size())
        d.relative = INFINITY;
    return d;
}

/** Every number of a (nested) JSON list, in order. */
inline void flatten(const nlohmann::json& j, std::vector<double>& out)
{
    if (j.is_array())
        for (const nlohmann::json& e : j)
            flatten(e, out);
    else
        out.push_back(j.get<double>());
}

inline std::vector<double> flat(const nlohmann::json& j)
{
    std::vector<double> out;
    flatten(j, out);
    return out;
}

template <typename M>
std::vector<double> flat(const M& m)
{
    std::vector<double> out;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            out.push_back(double(m(r, c)));
    return out;
}

#define CHECK_CLOSE(got, want, what)                                                                              \
    do {                                                                                                          \
        const testutil::Difference d_ = testutil::compare(got, want);                                             \
        if (!(d_.relative <= testutil::tolerance))                                                                \
            QFAIL(qPrintable(QStringLiteral("%1: largest difference %2 at entry %3 (%4 of the largest entry %5)") \
                                 .arg(QString::fromStdString(what))                                               \
                                 .arg(d_.absolute)                                                                \
                                 .arg(d_.at)                                                                      \
                                 .arg(d_.relative)                                                                \
                                 .arg(d_.scale)));                                                                \
    } while (false)

inline QString referenceScript()
{
    QFile f(QStringLiteral(AE_SOURCE_DIR "/tests/gpt2_reference.py"));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/** The reference's JSON for the folder, ids, shown layer (1-based) and edits (session form). */
inline nlohmann::json reference(const QString& python, const std::string& folder, const std::vector<int>& ids,
                                int shown, const nlohmann::json& edits, QString* error)
{
    QStringList ids_;
    for (int id : ids)
        ids_ << QString::number(id);
    const QByteArray out = testutil::runPython(
        python, referenceScript().toUtf8(),
        {QString::fromStdString(folder), ids_.join(QLatin1Char(',')), QString::number(shown),
         QString::fromStdString(edits.dump())},
        error, 600000);
    if (!error->isEmpty())
        return {};
    return nlohmann::json::parse(out.toStdString());
}

} // namespace testutil
