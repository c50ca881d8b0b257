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

/** A number as the core's texts print it for a person: integers without decimals, others with up
 *  to `precision` (0 to 17) decimals and no trailing zeros, very large or small ones in scientific
 *  notation; "0" for −0, "NaN", and ">1.79e308" / "<-1.79e308" for a result beyond double range. */
std::string formatNumber(double v, int precision = 4);

}  // namespace core
