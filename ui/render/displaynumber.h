#pragma once
/** Numbers as people read them: the tables, tooltips, cell editors, heatmap annotations and legends.
 *  Text for machines (files, the command line) comes from core/numbertext.h instead. */

#include <QLocale>
#include <QString>
#include <QStringList>

#include <vector>

namespace render {

/** How a displayed number writes its sign. */
enum class Minus {
    Hyphen,       ///< "-", as the tables and cell editors show it
    Typographic,  ///< "−" (U+2212), as the figures print it
};

/** Precision for displayNumber() that gives the shortest text that reads back to the same double. */
inline constexpr int shortestPrecision = QLocale::FloatingPointShortest;

/** v for a person: format 'f' with `precision` decimals, or 'g' with `precision` significant digits
 *  (shortestPrecision: the shortest text that reads back to v). Format 'f' turns into 'e' with as many
 *  decimals where core::shownInScientific() says so (|v| ≥ 10⁶ once rounded): "1.23e+06", "−7.00e+299". The decimal separator is locale's
 *  (by default the UI locale, which the language switch sets); everything else is as in the C locale
 *  ("1234.5", "1e-05": no group separators). A number that rounds to zero has no sign ("0.00", never
 *  "-0.00"); NaN is "NaN"; an infinity, a result beyond double range, is ">1.79e308" or "<−1.79e308". */
QString displayNumber(double v, char format, int precision, Minus minus = Minus::Hyphen,
                      const QLocale& locale = QLocale());

/** A probability p as a percentage's number, for "%1 %": 100·p with two decimals, or with two significant digits
 *  below 0.01 (a checkpoint with random weights spreads its next tokens near 0.002 %), so that nothing with a chance
 *  reads as 0.00. */
QString displayPercentage(double p, const QLocale& locale = QLocale(), int extraDecimals = 0);
/** The decimals displayPercentage() writes p with (and extraDecimals more, up to 12). */
int percentageDecimals(double p, int extraDecimals = 0);
/** The decimals to add to each of ps (see displayPercentage()) so that any two that differ read differently (a random
 *  checkpoint's candidates lie near 0.0020 % each); 0 when they do already. */
int distinguishingDecimals(const std::vector<double>& ps);

/** A probability's change from before to after as the two read in displayPercentage(). */
struct PercentageChange {
    int direction = 0;  ///< 0: the two read as the same number; 1 up; −1 down
    QString points;     ///< the size of the change in percentage points, without a sign; empty when direction is 0
};
/** The change from before to after: none when their displayed numbers are equal, else the difference of the two
 *  rounded as after is displayed, in its decimals (or in before's, when those are finer and after's would read
 *  0.00); in locale's number format. None when either is not finite. */
PercentageChange displayPercentageChange(double before, double after, const QLocale& locale = QLocale(),
                                         int extraDecimals = 0);

}  // namespace render
