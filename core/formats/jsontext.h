#pragma once
/** JSON text as the program writes it (--compute, trace.json, session files): nlohmann::json's layout (its
 *  indentation and key order, "1.0" for a whole double, an exponent from 1e15 up and below 1e-4), with every
 *  double in the shortest form that reads back to it, whatever the locale. Written piece by piece, so that a large
 *  document goes out as it is made, never held whole. */

#include "core/tensor/matrix.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

/** The JSON text of v: the shortest decimal that reads back to exactly v (std::to_chars: at most 17 significant
 *  digits, '.' whatever the locale), laid out as nlohmann::json writes a double: "1.0", "0.25", "0.0001",
 *  "1e-05", "1.5e+20", "-0.0". "null" when v is not finite, as nlohmann writes it. */
std::string jsonNumber(double v);

/** Where JSON text goes, a piece at a time; returning false says the text could not be taken (a full disk, a
 *  closed pipe), and the writer then writes nothing more. */
using TextSink = std::function<bool(std::string_view)>;

/** Writes one JSON value to a sink in nlohmann::json's layout (indent < 0: compact, on one line), containers
 *  opened and closed as it goes. Strings are written as nlohmann writes them (UTF-8, invalid bytes replaced). */
class JsonWriter {
public:
    JsonWriter(TextSink sink, int indent = 1);

    void value(const nlohmann::json& j);
    void value(const nlohmann::ordered_json& j);
    void number(double v);
    /** A list of rows of numbers, as nlohmann writes a json of the matrix's rows. */
    void matrix(const MatrixCRef& m); // rows × cols

    void beginObject();
    /** The next key of the object being written; its value follows. */
    void key(std::string_view name);
    void endObject();
    void beginArray();
    void endArray();

    /** Hands what is buffered to the sink. False when the sink refused any piece. */
    bool finish();

private:
    template <typename Json>
    void write(const Json& j);
    /** Before a value: the comma and line break of an element of a list (nothing after a key). */
    void beforeValue();
    void close(char bracket);
    void newline(std::size_t depth);
    void put(std::string_view text);
    void flushIfFull();

    TextSink m_sink;
    int m_indent;
    std::string m_buffer;
    bool m_failed = false;
    bool m_afterKey = false;
    struct Level {
        bool empty = true;
    };
    std::vector<Level> m_levels;
};

/** The text that write gives a JsonWriter of indent, as one string. */
std::string writtenText(const std::function<void(JsonWriter&)>& write, int indent = 1);

/** Any such JSON as one text, in the writer's layout (indent 1 unless said). */
std::string jsonText(const nlohmann::json& j, int indent = 1);
std::string jsonText(const nlohmann::ordered_json& j, int indent = 1);

} // namespace core
