#include "core/formats/jsonread.h"

#include "core/formats/utf8.h"

#include <unordered_set>
#include <vector>

namespace core {

namespace {

/** Characters a terminal acts on or that reorder what follows: C0, DEL, C1 and the bidirectional controls. */
bool isControl(char32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

std::string hex(unsigned value, int digits)
{
    static const char* const digitsText = "0123456789abcdef";
    std::string out;
    for (int d = digits - 1; d >= 0; --d)
        out += digitsText[(value >> (4 * d)) & 0xf];
    return out;
}

/** Compact JSON of v into out, stopping once out passes max (so that a huge value costs no more than max). */
void excerptInto(const nlohmann::json& v, std::string& out, std::size_t max, int depth)
{
    if (out.size() > max)
        return;
    if (depth > 64) {
        out += "…";
        return;
    }
    if (v.is_object() || v.is_array()) {
        out += v.is_object() ? '{' : '[';
        bool first = true;
        for (auto it = v.begin(); it != v.end() && out.size() <= max; ++it) {
            if (!first)
                out += ',';
            first = false;
            if (v.is_object())
                out += nlohmann::json(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ':';
            excerptInto(it.value(), out, max, depth + 1);
        }
        out += v.is_object() ? '}' : ']';
        return;
    }
    out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/** The part of a nlohmann exception's text after its "[json.exception.…]" tag and "parse error at …:". */
std::string exceptionDetail(const std::string& what)
{
    std::string_view s = what;
    if (const auto tag = s.find("] "); s.starts_with("[json.exception") && tag != std::string_view::npos)
        s.remove_prefix(tag + 2);
    if (s.starts_with("parse error"))
        if (const auto colon = s.find(": "); colon != std::string_view::npos)
            s.remove_prefix(colon + 2);
    return std::string(s);
}

} // namespace

std::optional<std::string> jsonBoundsProblem(std::string_view text, const JsonLimits& limits)
{
    if (text.size() > limits.maxBytes)
        return std::to_string(text.size()) + " bytes, more than the " + std::to_string(limits.maxBytes) +
               " this file may have";
    int depth = 0;
    std::size_t values = 0;
    bool inString = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limits.maxDepth)
                return "nested more than " + std::to_string(limits.maxDepth) + " deep (at byte " + std::to_string(i) +
                       ")";
        } else if (c == ']' || c == '}') {
            --depth;
        }
        if ((c == '[' || c == '{' || c == ',') && ++values > limits.maxValues)
            return "more than " + std::to_string(limits.maxValues) + " values (at byte " + std::to_string(i) + ")";
    }
    return std::nullopt;
}

std::optional<nlohmann::json> readJson(std::string_view text, const std::string& label, const JsonLimits& limits,
                                       std::string& error)
{
    const std::string where = label.empty() ? std::string() : label + ": ";
    if (const auto problem = jsonBoundsProblem(text, limits)) {
        error = where + *problem;
        return std::nullopt;
    }
    // The keys of each object being read, innermost last; a repeated one stops the parse.
    std::vector<std::unordered_set<std::string>> keys;
    std::string repeated;
    const nlohmann::json::parser_callback_t unique = [&](int, nlohmann::json::parse_event_t event,
                                                         nlohmann::json& parsed) {
        if (event == nlohmann::json::parse_event_t::object_start)
            keys.emplace_back();
        else if (event == nlohmann::json::parse_event_t::object_end && !keys.empty())
            keys.pop_back();
        else if (event == nlohmann::json::parse_event_t::key && !keys.empty() && repeated.empty() &&
                 !keys.back().insert(parsed.get<std::string>()).second)
            repeated = parsed.get<std::string>();
        return true;
    };
    try {
        nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(),
                                                     limits.uniqueKeys ? unique : nullptr);
        if (!repeated.empty()) {
            error = where + "the key " + jsonExcerpt(nlohmann::json(repeated)) +
                    " is given twice in one object, and only one can be read";
            return std::nullopt;
        }
        return value;
    } catch (const nlohmann::json::parse_error& e) {
        const std::string detail = exceptionDetail(e.what());
        if (e.byte > text.size() || detail.find("unexpected end of input") != std::string::npos)
            error = where + "not valid JSON: the text ends (after " + std::to_string(text.size()) +
                    " bytes) before its JSON value does; is the file cut short?";
        else
            error = where + "not valid JSON at byte " + std::to_string(e.byte) + ": " +
                    messageExcerpt(detail, 120);
    } catch (const nlohmann::json::exception& e) {
        error = where + "not valid JSON: " + messageExcerpt(exceptionDetail(e.what()), 120);
    }
    return std::nullopt;
}

std::optional<nlohmann::json> readJsonObject(std::string_view text, const std::string& label,
                                             const JsonLimits& limits, std::string& error)
{
    auto value = readJson(text, label, limits, error);
    if (value && !value->is_object()) {
        error = label + ": is not a JSON object (it holds " + jsonExcerpt(*value, 40) + ")";
        return std::nullopt;
    }
    return value;
}

std::string messageExcerpt(std::string_view text, std::size_t maxBytes)
{
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        if (out.size() >= maxBytes) {
            out += "…";
            break;
        }
        char32_t c = 0;
        const std::size_t n = utf8CharAt(text, i, c);
        if (n == 0) {
            out += "\\x" + hex(static_cast<unsigned char>(text[i]), 2);
            ++i;
            continue;
        }
        if (isControl(c))
            out += "\\u" + hex(unsigned(c), 4);
        else
            out.append(text.substr(i, n));
        i += n;
    }
    return out;
}

std::string jsonExcerpt(const nlohmann::json& value, std::size_t maxBytes)
{
    std::string text;
    excerptInto(value, text, maxBytes, 0);
    return messageExcerpt(text, maxBytes);
}

} // namespace core
