#include "core/session/sessionfile.h"

#include "core/attention/embedding.h"
#include "core/formats/jsonread.h"
#include "core/formats/jsontext.h"
#include "core/session/presets.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace core {

namespace {

using nlohmann::json;


struct Refusal {
    std::string message;
};


/** Builds the DOM like json::parse, but knows the key path of every value, so that a number too large for a
 *  double is refused naming its key ("embeddings[1][1]") instead of escaping as an exception. */
class PathParser final : public nlohmann::json_sax<json> {
public:
    json root;
    std::string error;

    bool null() override { return put(json(nullptr)); }
    bool boolean(bool v) override { return put(json(v)); }
    bool number_integer(number_integer_t v) override { return put(json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
    bool number_float(number_float_t v, const string_t&) override { return put(json(v)); }
    bool string(string_t& v) override { return put(json(std::move(v))); }
    bool binary(binary_t&) override { return false; }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool key(string_t& k) override
    {
        m_levels.back().key = k;
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override
    {
        if (e.id == 406) {  // number overflow
            const std::string key = path();
            error = (key.empty() ? std::string("the top level") : key) + ": expected a finite number, got " + token
                + ", too large for a double";
        } else {
            const std::string what = e.what();
            const auto at = what.find("parse error");
            error = "not valid JSON: " + (at == std::string::npos ? what : what.substr(at));
        }
        return false;
    }

private:
    struct Level {
        json* value;
        std::string key;
    };
    std::vector<Level> m_levels;

    json* place(json v)
    {
        if (m_levels.empty()) {
            root = std::move(v);
            return &root;
        }
        Level& top = m_levels.back();
        if (top.value->is_array()) {
            top.value->push_back(std::move(v));
            return &top.value->back();
        }
        json& slot = (*top.value)[top.key];
        slot = std::move(v);
        return &slot;
    }
    bool put(json v)
    {
        place(std::move(v));
        return true;
    }
    bool open(json v)
    {
        json* p = place(std::move(v));
        m_levels.push_back({p, {}});
        return true;
    }
    bool close()
    {
        m_levels.pop_back();
        return true;
    }
    /** The key of the value being read: "weights.query[1][2]". */
    std::string path() const
    {
        std::string s;
        for (std::size_t i = 0; i < m_levels.size(); ++i) {
            const json& v = *m_levels[i].value;
            const bool innermost = i + 1 == m_levels.size();
            if (v.is_array()) {
                s += "[" + std::to_string(innermost ? v.size() : v.size() - 1) + "]";
            } else {
                if (!s.empty())
                    s += ".";
                s += m_levels[i].key;
            }
        }
        return s;
    }
};

double number(const json& j, const std::string& key)
{
    if (!j.is_number())
        throw Refusal{key + ": expected a number, got " + describeJson(j)};
    const double v = j.get<double>();
    if (!std::isfinite(v))
        throw Refusal{key + ": expected a finite number, got one too large for a double"};
    return v;
}

/** A JSON list of rows of numbers → Matrix; every refusal names the key, row and column. */
Matrix matrixFrom(const json& j, const std::string& key)
{
    if (!j.is_array())
        throw Refusal{key + ": expected a list of rows, got " + describeJson(j)};
    if (j.empty())
        throw Refusal{key + ": expected at least 1 row, got 0"};
    const std::size_t rows = j.size();
    std::size_t cols = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const json& row = j[r];
        const std::string rowKey = key + "[" + std::to_string(r) + "]";
        if (!row.is_array())
            throw Refusal{rowKey + ": expected a row (a list of numbers), got " + describeJson(row)};
        if (r == 0) {
            cols = row.size();
            if (cols == 0)
                throw Refusal{rowKey + ": expected at least 1 number, got 0"};
        } else if (row.size() != cols) {
            throw Refusal{key + ": ragged rows: expected " + std::to_string(cols) + " numbers in every row (as in row 0), got "
                          + std::to_string(row.size()) + " in row " + std::to_string(r)};
        }
    }
    if (rows > std::size_t(Limits::maxTokens) + Limits::maxDModel || cols > std::size_t(Limits::maxDModel) + Limits::maxWidth)
        throw Refusal{key + ": " + std::to_string(rows) + " × " + std::to_string(cols) + " is larger than the program accepts"};
    Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            m(Eigen::Index(r), Eigen::Index(c)) =
                number(j[r][c], key + "[" + std::to_string(r) + "][" + std::to_string(c) + "]");
    return m;
}

/** The optional keys of "weights" that are one row of numbers (the biases, the q/k norm weights of SPEC §6), each
 *  with the model's field it fills. */
struct RowKey {
    const char* key;  ///< in "weights"
    std::optional<Matrix> AttentionModel::*row;
};
constexpr RowKey rowKeys[] = {{"query_bias", &AttentionModel::bq}, {"key_bias", &AttentionModel::bk},
                              {"value_bias", &AttentionModel::bv}, {"output_bias", &AttentionModel::bo},
                              {"query_norm", &AttentionModel::qNorm}, {"key_norm", &AttentionModel::kNorm}};

/** The options of SPEC §6 and their defaults, which a file leaves out (and a file without them reads as before). */
constexpr const char* headOptionKeys[] = {"kv_heads", "rope_theta", "rotary_fraction", "qk_norm", "qk_norm_epsilon"};

/** A JSON list of numbers → a 1 × cols Matrix (a bias, a norm's weights); every refusal names the key and the entry. */
Matrix rowFrom(const json& j, const std::string& key)
{
    if (!j.is_array())
        throw Refusal{key + ": expected a list of numbers (one row), got " + describeJson(j)};
    if (j.empty())
        throw Refusal{key + ": expected at least 1 number, got 0"};
    if (j.size() > std::size_t(Limits::maxWidth))
        throw Refusal{key + ": expected at most " + std::to_string(Limits::maxWidth) + " numbers, got "
                      + std::to_string(j.size())};
    Matrix m(1, Eigen::Index(j.size()));
    for (std::size_t c = 0; c < j.size(); ++c)
        m(0, Eigen::Index(c)) = number(j[c], key + "[" + std::to_string(c) + "]");
    return m;
}

/** options.key as a number > 0 (and at most `most` when given), else a refusal naming the key. */
double positiveOption(const json& o, const char* key, std::optional<int> most = std::nullopt)
{
    const std::string name = std::string("options.") + key;
    const double v = number(o[key], name);
    if (!(v > 0) || (most && v > *most))
        throw Refusal{name + ": expected a number > 0" + (most ? " and at most " + std::to_string(*most) : std::string())
                      + ", got " + describeJson(o[key])};
    return v;
}

/** options.key as a count of heads, 1 to Limits::maxHeads, else a refusal naming the key. */
int headsOption(const json& o, const char* key)
{
    const json& h = o[key];
    const double v = h.is_number() ? h.get<double>() : NAN;
    if (!h.is_number() || v != std::floor(v) || v < 1 || v > Limits::maxHeads)
        throw Refusal{std::string("options.") + key + ": expected a whole number from 1 to "
                      + std::to_string(Limits::maxHeads) + ", got " + describeJson(h)};
    return int(v);
}

/** options.key as true or false, else a refusal naming the key. */
bool booleanOption(const json& o, const char* key)
{
    if (!o[key].is_boolean())
        throw Refusal{std::string("options.") + key + ": expected true or false, got " + describeJson(o[key])};
    return o[key].get<bool>();
}

/** The session's "options" into options, and the ε of qk_norm into epsilon. */
void readOptions(const json& o, Options& options, double& epsilon)
{
    if (!o.is_object())
        throw Refusal{"options: expected an object, got " + describeJson(o)};
    if (o.contains("heads"))
        options.heads = headsOption(o, "heads");
    if (o.contains("scale"))
        options.scale = booleanOption(o, "scale");
    if (o.contains("temperature"))
        options.temperature = positiveOption(o, "temperature");
    if (o.contains("mask")) {
        const json& m = o["mask"];
        const auto mask = m.is_string() ? maskFromString(m.get<std::string>()) : std::nullopt;
        if (!mask)
            throw Refusal{"options.mask: expected \"none\" or \"causal\", got " + describeJson(m)};
        options.mask = *mask;
    }
    if (o.contains("positional_encoding")) {
        const json& p = o["positional_encoding"];
        const auto pe = p.is_string() ? positionalEncodingFromString(p.get<std::string>()) : std::nullopt;
        if (!pe)
            throw Refusal{"options.positional_encoding: expected \"none\", \"sinusoidal\" or \"rotary\", got "
                          + describeJson(p)};
        options.positionalEncoding = *pe;
    }
    if (o.contains("kv_heads"))
        options.kvHeads = headsOption(o, "kv_heads");
    if (o.contains("rope_theta"))
        options.ropeTheta = positiveOption(o, "rope_theta");
    if (o.contains("rotary_fraction"))
        options.rotaryFraction = positiveOption(o, "rotary_fraction", 1);
    if (o.contains("qk_norm"))
        options.qkNorm = booleanOption(o, "qk_norm");
    if (o.contains("qk_norm_epsilon"))
        epsilon = positiveOption(o, "qk_norm_epsilon");
}

/** Refuses j unless it is a JSON object whose format and version name a plain session (SPEC §5). */
void checkPlainHeader(const json& j)
{
    if (auto refusal = sessionHeaderRefusal(j, plainSessionVersion))
        throw Refusal{*refusal};
}

/** The session's "tokens": 1 to Limits::maxTokens strings. */
std::vector<std::string> tokensFrom(const json& j)
{
    if (!j.contains("tokens"))
        throw Refusal{"tokens: missing; expected a list of at least 1 string"};
    const json& tokens = j["tokens"];
    if (!tokens.is_array())
        throw Refusal{"tokens: expected a list of strings, got " + describeJson(tokens)};
    if (tokens.empty())
        throw Refusal{"tokens: expected at least 1 token, got 0"};
    if (tokens.size() > std::size_t(Limits::maxTokens))
        throw Refusal{"tokens: expected at most " + std::to_string(Limits::maxTokens) + " tokens, got "
                      + std::to_string(tokens.size())};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (!tokens[i].is_string())
            throw Refusal{"tokens[" + std::to_string(i) + "]: expected a string, got " + describeJson(tokens[i])};
        out.push_back(tokens[i].get<std::string>());
    }
    return out;
}

/** m's embeddings and weights from the session's "embeddings" and "weights", or the default model of m's tokens
 *  (with m's options) when it has no weights. */
void readWeights(const json& j, AttentionModel& m)
{
    const bool hasEmbeddings = j.contains("embeddings") && !j["embeddings"].is_null();
    const json* weights = j.contains("weights") && !j["weights"].is_null() ? &j["weights"] : nullptr;
    if (weights && !weights->is_object())
        throw Refusal{"weights: expected an object with query, key and value, got " + describeJson(*weights)};
    if (hasEmbeddings && !weights)
        throw Refusal{"weights: missing; weights.query, weights.key and weights.value are required when embeddings are given"};
    if (!weights) {
        const Options options = m.options;
        const double epsilon = m.qkNormEpsilon;
        m = modelForTokens(m.tokens);
        m.options = options;
        m.qkNormEpsilon = epsilon;
        return;
    }
    for (const char* key : {"query", "key", "value"})
        if (!weights->contains(key))
            throw Refusal{std::string("weights.") + key + ": missing; required when weights are given"};
    m.wq = matrixFrom((*weights)["query"], "weights.query");
    m.wk = matrixFrom((*weights)["key"], "weights.key");
    m.wv = matrixFrom((*weights)["value"], "weights.value");
    if (weights->contains("output") && !(*weights)["output"].is_null())
        m.wo = matrixFrom((*weights)["output"], "weights.output");
    for (const RowKey& b : rowKeys)
        if (weights->contains(b.key) && !(*weights)[b.key].is_null())
            m.*b.row = rowFrom((*weights)[b.key], std::string("weights.") + b.key);
    if (hasEmbeddings)
        m.embeddings = matrixFrom(j["embeddings"], "embeddings");
    else
        m.embeddings = tokenEmbeddings(m.tokens, int(m.wq.rows()));
}

/** What of the session j this program does not interpret, kept to be written back. */
json extrasOf(const json& j)
{
    json extras = j;
    for (const char* key : {"format", "version", "tokens", "embeddings"})
        extras.erase(key);
    for (const char* group : {"weights", "options"}) {
        if (!extras.contains(group))
            continue;
        json& g = extras[group];
        if (g.is_object()) {
            for (const char* key : {"query", "key", "value", "output", "heads", "scale", "temperature", "mask",
                                    "positional_encoding"})
                g.erase(key);
            if (std::string(group) == "weights")
                for (const RowKey& b : rowKeys)
                    g.erase(b.key);
            else
                for (const char* key : headOptionKeys)
                    g.erase(key);
        }
        if (!g.is_object() || g.empty())
            extras.erase(group);
    }
    return extras;
}

Session sessionFrom(const json& j)
{
    checkPlainHeader(j);
    Session session;
    AttentionModel& m = session.model;
    m.tokens = tokensFrom(j);
    if (j.contains("options"))
        readOptions(j["options"], m.options, m.qkNormEpsilon);
    readWeights(j, m);
    if (auto error = validate(m))
        throw Refusal{*error};
    session.extras = extrasOf(j);
    return session;
}

std::string numberText(double v)
{
    if (v == std::floor(v) && std::fabs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    return jsonNumber(v);  // shortest text that reads back to the same double ("-0.0" keeps the sign)
}

void writeMatrix(std::string& out, const Matrix& m, const std::string& indent)
{
    out += "[\n";
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        out += indent + "  [";
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            if (c)
                out += ", ";
            out += numberText(m(r, c));
        }
        out += r + 1 < m.rows() ? "],\n" : "]\n";
    }
    out += indent + "]";
}

std::string dumpValue(const json& j, const std::string& indent)
{
    std::string s = jsonText(j, 2);
    // Indent continuation lines to the nesting level they stand at.
    std::string out;
    for (char c : s) {
        out += c;
        if (c == '\n')
            out += indent;
    }
    return out;
}

}  // namespace

std::string describeJson(const json& j)
{
    if (j.is_string())
        return "the text " + jsonExcerpt(j, 42);
    if (j.is_boolean())
        return j.get<bool>() ? "true" : "false";
    if (j.is_null())
        return "null";
    if (j.is_array())
        return "a list of " + std::to_string(j.size());
    if (j.is_object())
        return "an object";
    return "the number " + j.dump();
}

std::optional<std::string> sessionHeaderRefusal(const json& j, int expected)
{
    const std::string wanted = std::to_string(expected);
    if (!j.is_object())
        return "expected a JSON object at the top level, got " + describeJson(j);
    if (!j.contains("format"))
        return std::string("format: missing; expected \"attention-explorer-session\"");
    if (j["format"] != sessionFormat)
        return "format: expected \"attention-explorer-session\", got " + describeJson(j["format"]);
    if (!j.contains("version"))
        return "version: missing; expected " + wanted;
    const json& version = j["version"];
    if (!version.is_number_integer() && !version.is_number_unsigned())
        return "version: expected a whole number, got " + describeJson(version);
    if (auto refusal = newerVersionRefusal(version))
        return refusal;
    const long long given = version.get<long long>();
    if (given == expected)
        return std::nullopt;
    if (expected == plainSessionVersion && given == modelSessionVersion)
        return std::string("version: expected 1 (a plain session), got 2 (a model session, which opens with its model)");
    if (expected == modelSessionVersion)
        return "version: expected 2 (a model session), got " + version.dump()
            + "; a version 1 session holds its own numbers and opens as a plain session";
    return "version: expected " + wanted + ", got " + version.dump();
}

std::optional<std::string> newerVersionRefusal(const json& version)
{
    const bool newer = version.is_number_unsigned() ? version.get<unsigned long long>() > unsigned(modelSessionVersion)
        : version.is_number_integer()               ? version.get<long long>() > modelSessionVersion
                                                    : false;
    if (!newer)
        return std::nullopt;
    return "version: the file is version " + version.dump() + ", newer than this program reads (version "
        + std::to_string(modelSessionVersion) + "); a newer Attention Explorer is needed";
}

std::optional<Session> parseSession(std::string_view text, std::string& error)
{
    if (text.empty()) {
        error = "the file is empty; expected a JSON session";
        return std::nullopt;
    }
    if (const auto problem = jsonBoundsProblem(text, sessionJsonLimits)) {
        error = "not a session: " + *problem;
        return std::nullopt;
    }
    try {
        PathParser parser;
        if (!json::sax_parse(text.begin(), text.end(), &parser)) {
            error = parser.error.empty() ? std::string("not valid JSON") : parser.error;
            return std::nullopt;
        }
        return sessionFrom(parser.root);
    } catch (const Refusal& r) {
        error = r.message;
    } catch (const json::exception& e) {
        error = std::string("not a session: ") + e.what();
    } catch (const std::bad_alloc&) {
        error = "not enough memory to read the session";
    }
    return std::nullopt;
}

std::optional<std::string> readSessionText(const std::string& path, std::string& error)
{
    const std::string tooLarge = path + ": larger than " + std::to_string(maxSessionFileBytes >> 20)
        + " MiB; not a session file this program reads";
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
        error = path + ": no such file";
        return std::nullopt;
    }
    if (std::filesystem::is_directory(status)) {
        error = path + ": is a folder, not a session file";
        return std::nullopt;
    }
    if (std::filesystem::is_regular_file(status)) {
        const auto size = std::filesystem::file_size(path, ec);
        if (!ec && size > maxSessionFileBytes) {
            error = tooLarge;
            return std::nullopt;
        }
    }
    // Opened once and read to its end: a pipe or a FIFO has its text only once.
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot be opened for reading";
        return std::nullopt;
    }
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, std::size_t(in.gcount()));
        if (text.size() > maxSessionFileBytes) {
            error = tooLarge;
            return std::nullopt;
        }
    }
    if (in.bad()) {
        error = path + ": cannot be read";
        return std::nullopt;
    }
    return text;
}

std::optional<Session> parseSessionFileText(std::string_view text, const std::string& path, std::string& error)
{
    std::string why;
    auto session = parseSession(text, why);
    if (!session)
        error = path + ": " + why;
    return session;
}

std::optional<Session> readSessionFile(const std::string& path, std::string& error)
{
    const auto text = readSessionText(path, error);
    if (!text)
        return std::nullopt;
    return parseSessionFileText(*text, path, error);
}

std::string serializeSession(const Session& session)
{
    const AttentionModel& m = session.model;
    json tokens = json::array();
    for (const auto& t : m.tokens)
        tokens.push_back(t);

    std::string out = "{\n";
    out += "  \"format\": \"" + std::string(sessionFormat) + "\",\n";
    out += "  \"version\": " + std::to_string(plainSessionVersion) + ",\n";
    out += "  \"tokens\": " + tokens.dump(-1, ' ', false, json::error_handler_t::replace) + ",\n";
    out += "  \"embeddings\": ";
    writeMatrix(out, m.embeddings, "  ");
    out += ",\n  \"weights\": {\n";
    out += "    \"query\": ";
    writeMatrix(out, m.wq, "    ");
    out += ",\n    \"key\": ";
    writeMatrix(out, m.wk, "    ");
    out += ",\n    \"value\": ";
    writeMatrix(out, m.wv, "    ");
    out += ",\n    \"output\": ";
    if (m.wo)
        writeMatrix(out, *m.wo, "    ");
    else
        out += "null";
    for (const RowKey& b : rowKeys) {
        if (const std::optional<Matrix>& bias = m.*b.row) {
            out += ",\n    \"" + std::string(b.key) + "\": [";
            for (Eigen::Index c = 0; c < bias->cols(); ++c)
                out += (c ? ", " : "") + numberText((*bias)(0, c));
            out += "]";
        }
    }
    const json& extras = session.extras.is_object() ? session.extras : json::object();
    auto writeExtras = [&](const json& group, const std::string& indent) {
        for (auto it = group.begin(); it != group.end(); ++it)
            out += ",\n" + indent + json(it.key()).dump() + ": " + dumpValue(it.value(), indent);
    };
    if (extras.contains("weights") && extras["weights"].is_object())
        writeExtras(extras["weights"], "    ");
    out += "\n  },\n  \"options\": {\n";
    const Options& o = m.options;
    out += "    \"heads\": " + std::to_string(o.heads) + ",\n";
    out += std::string("    \"scale\": ") + (o.scale ? "true" : "false") + ",\n";
    out += "    \"temperature\": " + jsonNumber(o.temperature) + ",\n";
    out += std::string("    \"mask\": \"") + toString(o.mask) + "\",\n";
    out += std::string("    \"positional_encoding\": \"") + toString(o.positionalEncoding) + "\"";
    // SPEC §6's options only where they differ from their defaults, so that an older file writes back as it was
    const Options defaults;
    if (o.kvHeads != defaults.kvHeads)
        out += ",\n    \"kv_heads\": " + std::to_string(o.kvHeads);
    if (o.ropeTheta != defaults.ropeTheta)
        out += ",\n    \"rope_theta\": " + jsonNumber(o.ropeTheta);
    if (o.rotaryFraction != defaults.rotaryFraction)
        out += ",\n    \"rotary_fraction\": " + jsonNumber(o.rotaryFraction);
    if (o.qkNorm != defaults.qkNorm)
        out += std::string(",\n    \"qk_norm\": ") + (o.qkNorm ? "true" : "false");
    if (m.qkNormEpsilon != AttentionModel{}.qkNormEpsilon)
        out += ",\n    \"qk_norm_epsilon\": " + jsonNumber(m.qkNormEpsilon);
    if (extras.contains("options") && extras["options"].is_object())
        writeExtras(extras["options"], "    ");
    out += "\n  }";
    for (auto it = extras.begin(); it != extras.end(); ++it) {
        if (it.key() == "weights" || it.key() == "options")
            continue;
        out += ",\n  " + json(it.key()).dump() + ": " + dumpValue(it.value(), "  ");
    }
    out += "\n}\n";
    return out;
}

AttentionModel modelForTokens(const std::vector<std::string>& tokens)
{
    AttentionModel m = illustratedModel();
    m.tokens = tokens;
    m.embeddings = tokenEmbeddings(tokens, defaultDModel);
    m.options = Options{};
    return m;
}

}  // namespace core
