#pragma once
/** A GPT-2 vocabulary entry as people read it: the bytes it stands for, with white space and fragments of
 *  multi-byte characters made visible. */

#include <optional>
#include <string>
#include <string_view>

namespace core {

/** The bytes a vocabulary entry written in the byte-level alphabet stands for ("Ġcat" → " cat"); nothing when
 *  a character of it is not of that alphabet. */
std::optional<std::string> tokenBytes(std::string_view vocabToken);

/** Bytes as a chip shows them, UTF-8: a space as "␣", a line break as "↵", a tab as "⇥", another control byte
 *  and every byte that is not part of a complete UTF-8 character as its hexadecimal value in angle brackets,
 *  consecutive ones together ("<E4 B8>"); everything else as it is. */
std::string readableBytes(std::string_view bytes);

/** The entry as a chip shows it: readableBytes of the bytes it stands for. An entry outside the alphabet is
 *  returned as written. */
std::string readableToken(std::string_view vocabToken);

} // namespace core
