#include "core/formats/numbertext.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace core {

namespace {

/** std::to_chars into a string: never consults the locale, unlike printf. */
template <typename... Format>
std::string toChars(double v, Format... format)
{
    char buf[64];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, format...);
    return ec == std::errc() ? std::string(buf, ptr) : std::string();
}

}  // namespace

std::string machineNumber(double v)
{
    return toChars(v);
}

std::string machineFloatNumber(float v)
{
    char buf[32];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, ptr) : std::string();
}

std::string pythonFloat(double v)
{
    if (std::isnan(v))
        return "float(\"nan\")";
    if (std::isinf(v))
        return v > 0 ? "float(\"inf\")" : "-float(\"inf\")";
    std::string s = machineNumber(v);
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s;
}

bool shownInScientific(double v, int decimals)
{
    // Rounded to `decimals`, 999999.996 is 1000000.00: it counts as large as what it is shown as.
    const double half = 0.5 * std::pow(10.0, -std::clamp(decimals, 0, 17));
    return std::isfinite(v) && std::fabs(v) >= scientificFrom - half;
}

std::string formatNumber(double v, int precision)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))  // a result beyond double range: say how large, not "∞"
        return v > 0 ? ">1.79e308" : "<-1.79e308";
    precision = std::clamp(precision, 0, 17);
    const double a = std::fabs(v);
    const bool large = shownInScientific(v, precision);
    if (v == std::round(v) && !large)
        return toChars(v + 0.0, std::chars_format::fixed, 0);
    const bool scientific = large || a < std::pow(10.0, -precision) * 0.5;
    const std::string s =
        toChars(v, scientific ? std::chars_format::scientific : std::chars_format::fixed, precision);
    // Trim trailing zeros of the mantissa.
    const std::size_t e = s.find('e');
    std::string mantissa = s.substr(0, e);
    const std::string exponent = e == std::string::npos ? std::string() : s.substr(e);
    if (mantissa.find('.') != std::string::npos) {
        while (!mantissa.empty() && mantissa.back() == '0')
            mantissa.pop_back();
        if (!mantissa.empty() && mantissa.back() == '.')
            mantissa.pop_back();
    }
    if (mantissa == "-0")
        mantissa = "0";
    return mantissa + exponent;
}

}  // namespace core
