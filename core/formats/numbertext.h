#pragma once
/** Numbers as text in the core, whatever the process's C locale says: for machines (CSV, Python,
 *  the clipboard) the shortest text that reads back to the same double; for the core's own texts
 *  (derivations) a rounded form for people. Both always write '.' as the decimal point. */

#include <string>

namespace core {

/** The shortest text that reads back to exactly v (std::from_chars, strtod in the C locale, JSON,
 *  Python): "0.9", "1", "-2.5", "1e-05", "1e+20". "inf", "-inf" or "nan" when v is not finite. */
std::string machineNumber(double v);

/** The shortest text that reads back to exactly the float32 v ("0.1" for 0.1f, where machineNumber(0.1f)
 *  gives "0.10000000149011612"); as a double, that text is the number nearest to it. */
std::string machineFloatNumber(float v);

/** v as a Python float literal that reads back to exactly v: machineNumber with ".0" added to a whole
 *  number ("1.0", "0.9", "1e+20"); float("inf"), -float("inf"), float("nan") when v is not finite. */
std::string pythonFloat(double v);

/** Where every number shown to a person leaves fixed-point notation: from this magnitude on (seven
 *  integer digits) it is written in scientific notation, so that no table column, figure label or
 *  slide grows with the size of a number (1e300 would need 301 digits). */
inline constexpr double scientificFrom = 1e6;

/** The one rule for a number shown with `decimals` (0 to 17) decimals: true when v, rounded to them,
 *  reaches scientificFrom in magnitude ("1.23e+06" rather than "1234567.00"). False for NaN and ±∞,
 *  which have texts of their own. The core's texts (formatNumber) and the interface's tables, figures,
 *  tooltips and slides all ask it. */
bool shownInScientific(double v, int decimals);

/** A number as the core's texts print it for a person: integers without decimals, others with up
 *  to `precision` (0 to 17) decimals and no trailing zeros; in scientific notation where
 *  shownInScientific() says so, and when a nonzero number would round to 0; "0" for −0, "NaN", and
 *  ">1.79e308" / "<-1.79e308" for a result beyond double range. */
std::string formatNumber(double v, int precision = 4);

}  // namespace core
