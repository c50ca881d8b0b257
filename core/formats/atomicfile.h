#pragma once
/** Writing a file so that a failure leaves the old one as it was. */

#include <string>
#include <string_view>

namespace core {

/** Writes bytes to path atomically: a temporary file beside it, then a rename over it. False and a message
 *  naming path on failure; the old file is then untouched and the temporary file removed. */
bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error);

} // namespace core
