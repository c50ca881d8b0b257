#pragma once
/** Running part of a test under a C locale with a decimal comma, as a Qt program runs on a German or
 *  French desktop (QCoreApplication calls setlocale(LC_ALL, "")): printf then writes "0,5". */

#include <clocale>
#include <cstdio>
#include <string>

namespace testutil {

/** The decimal-comma locale the tests use; scripts/test generates it. */
inline constexpr const char* decimalCommaLocale = "de_DE.UTF-8";

/** Sets the C locale to decimalCommaLocale while it lives and restores the previous one after. */
class DecimalCommaLocale {
public:
    DecimalCommaLocale()
    {
        if (const char* previous = std::setlocale(LC_ALL, nullptr))
            m_previous = previous;
        if (std::setlocale(LC_ALL, decimalCommaLocale)) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "%.1f", 0.5);
            m_active = std::string(buf) == "0,5";
        }
    }
    ~DecimalCommaLocale() { std::setlocale(LC_ALL, m_previous.c_str()); }
    DecimalCommaLocale(const DecimalCommaLocale&) = delete;
    DecimalCommaLocale& operator=(const DecimalCommaLocale&) = delete;

    /** True when the locale is installed and printf writes a decimal comma under it. */
    bool active() const { return m_active; }
    /** What a test says when the locale is missing. */
    static const char* missing() { return "the de_DE.UTF-8 locale is not installed (scripts/test generates it)"; }

private:
    std::string m_previous;
    bool m_active = false;
};

}  // namespace testutil
