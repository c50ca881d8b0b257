#include "displaynumber.h"

#include "core/formats/numbertext.h"

#include <algorithm>
#include <cmath>

namespace render {

QString displayNumber(double v, char format, int precision, Minus minus, const QLocale& locale)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))  // a result beyond double range (a score of two overflowing vectors): say how large
        return v > 0 ? QStringLiteral(">1.79e308") : QStringLiteral("<−1.79e308");
    if (format == 'f' && core::shownInScientific(v, precision))
        format = 'e';  // "7.00e+299", not 300 digits: the one rule of the core's texts too
    QString s = QString::number(v, format, precision);  // C locale: digits, '.', 'e'
    if (s.startsWith(QLatin1Char('-'))) {
        // "-0.00" reads as a sign error: a number rounded to zero has no sign.
        const QStringView mantissa = QStringView(s).left(s.indexOf(QLatin1Char('e')));
        const bool zero = std::all_of(mantissa.begin() + 1, mantissa.end(),
                                      [](QChar c) { return c == QLatin1Char('0') || c == QLatin1Char('.'); });
        if (zero)
            s.remove(0, 1);
        else if (minus == Minus::Typographic)
            s[0] = QChar(0x2212);
    }
    if (const QString point = locale.decimalPoint(); point != QLatin1String("."))
        s.replace(QLatin1Char('.'), point);
    return s;
}

int percentageDecimals(double p, int extraDecimals)
{
    const double value = 100.0 * p;
    const int decimals = value > 0 && value < 0.01 ? 1 - int(std::floor(std::log10(value))) : 2;
    return std::min(12, decimals + extraDecimals);
}

QString displayPercentage(double p, const QLocale& locale, int extraDecimals)
{
    return displayNumber(100.0 * p, 'f', percentageDecimals(p, extraDecimals), Minus::Hyphen, locale);
}

int distinguishingDecimals(const std::vector<double>& ps)
{
    for (int extra = 0; extra < 12; ++extra) {
        QStringList texts;
        for (double p : ps)
            texts << displayPercentage(p, QLocale::c(), extra);
        bool apart = true;
        for (std::size_t i = 0; i < ps.size() && apart; ++i)
            for (std::size_t j = i + 1; j < ps.size() && apart; ++j)
                apart = ps[i] == ps[j] || texts[qsizetype(i)] != texts[qsizetype(j)];
        if (apart)
            return extra;
    }
    return 12;
}

PercentageChange displayPercentageChange(double before, double after, const QLocale& locale, int extraDecimals)
{
    if (!std::isfinite(before) || !std::isfinite(after))
        return {};
    // Rounded by the same formatting as the displayed text, so that equal texts give equal numbers.
    const auto rounded = [](double p, int decimals) { return QString::number(100.0 * p, 'f', decimals).toDouble(); };
    const int beforeDecimals = percentageDecimals(before, extraDecimals);
    const int afterDecimals = percentageDecimals(after, extraDecimals);
    if (rounded(before, beforeDecimals) == rounded(after, afterDecimals))
        return {};
    int decimals = afterDecimals;
    double change = rounded(after, decimals) - rounded(before, decimals);
    if (QString::number(std::abs(change), 'f', decimals).toDouble() == 0) {
        decimals = std::max(beforeDecimals, afterDecimals);
        change = rounded(after, decimals) - rounded(before, decimals);
    }
    return {change > 0 ? 1 : -1, displayNumber(std::abs(change), 'f', decimals, Minus::Hyphen, locale)};
}

}  // namespace render
