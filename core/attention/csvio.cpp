#include "core/attention/csvio.h"

#include "core/formats/numbertext.h"
#include "core/attention/tracejson.h"

#include <charconv>
#include <cmath>

namespace core {

namespace {

std::string_view trimmed(std::string_view s)
{
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos)
        return {};
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

/** The cell as a finite number: padded or quoted, a leading '+', a decimal comma when allowed. */
std::optional<double> cellNumber(std::string_view cell, bool decimalComma)
{
    cell = trimmed(cell);
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
        cell = trimmed(cell.substr(1, cell.size() - 2));
    if (!cell.empty() && cell.front() == '+')
        cell.remove_prefix(1);
    if (cell.empty() || cell.size() > 400)
        return std::nullopt;
    std::string text(cell);
    if (decimalComma && text.find('.') == std::string::npos && text.find(',') == text.rfind(','))
        for (char& c : text)
            if (c == ',')
                c = '.';
    double v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::vector<std::string_view> splitCells(std::string_view line, char delimiter)
{
    std::vector<std::string_view> cells;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = line.find(delimiter, start);
        cells.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            return cells;
        start = end + 1;
    }
}

std::string shown(std::string_view cell)
{
    cell = trimmed(cell);
    return cell.size() > 40 ? std::string(cell.substr(0, 40)) + "…" : std::string(cell);
}

}  // namespace

std::optional<Matrix> parseCsv(std::string_view text, std::string& error, const CsvReadOptions& options)
{
    if (text.size() > maxCsvBytes) {
        error = "the text is too large (" + std::to_string(text.size()) + " bytes; at most "
            + std::to_string(maxCsvBytes) + ")";
        return std::nullopt;
    }
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);

    char delimiter = options.delimiter;
    std::vector<double> values;
    std::size_t columns = 0;
    std::size_t rows = 0;
    bool firstLine = true;
    std::size_t lineNumber = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++lineNumber;
        if (line.ends_with('\r'))
            line.remove_suffix(1);
        if (trimmed(line).empty())
            continue;
        if (delimiter == 0)
            delimiter = line.find('\t') != std::string_view::npos ? '\t'
                : line.find(';') != std::string_view::npos        ? ';'
                                                                  : ',';
        const bool decimalComma = delimiter == ';' || delimiter == '\t';
        const std::vector<std::string_view> cells = splitCells(line, delimiter);

        std::vector<double> row;
        row.reserve(cells.size());
        std::size_t bad = 0;
        for (std::size_t c = 0; c < cells.size() && !bad; ++c) {
            if (const auto v = cellNumber(cells[c], decimalComma))
                row.push_back(*v);
            else
                bad = c + 1;
        }
        if (bad && firstLine && options.allowHeader) {
            firstLine = false;
            continue;
        }
        firstLine = false;
        if (bad) {
            error = "row " + std::to_string(lineNumber) + ", column " + std::to_string(bad) + ": \""
                + shown(cells[bad - 1]) + "\" is not a finite number";
            return std::nullopt;
        }
        if (rows == 0) {
            columns = row.size();
        } else if (row.size() != columns) {
            error = "row " + std::to_string(lineNumber) + " has " + std::to_string(row.size()) + " columns, the rows above "
                + std::to_string(columns);
            return std::nullopt;
        }
        values.insert(values.end(), row.begin(), row.end());
        ++rows;
    }
    if (rows == 0) {
        error = "no numbers: the text has no rows";
        return std::nullopt;
    }
    return Matrix(Eigen::Map<const Matrix>(values.data(), Eigen::Index(rows), Eigen::Index(columns)));
}

std::string formatCsv(const MatrixCRef& m, char delimiter)
{
    std::string out;
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            if (c)
                out += delimiter;
            out += machineNumber(m(r, c));
        }
        out += '\n';
    }
    return out;
}

std::vector<StepFile> stepFiles(const Trace& trace, const std::vector<std::string>& tokens)
{
    std::vector<StepFile> files;
    auto add = [&](const std::string& name, const MatrixCRef& m) { files.push_back({name + ".csv", formatCsv(m)}); };
    add("x", trace.x());
    add("w_q", trace.model->wq);
    add("w_k", trace.model->wk);
    add("w_v", trace.model->wv);
    if (trace.model->wo)
        add("w_o", *trace.model->wo);
    const std::pair<const char*, const std::optional<Matrix>*> biases[] = {
        {"b_q", &trace.model->bq}, {"b_k", &trace.model->bk}, {"b_v", &trace.model->bv}, {"b_o", &trace.model->bo}};
    for (const auto& [name, bias] : biases)
        if (*bias)
            add(name, **bias);
    for (int h = 0; h < trace.headCount(); ++h) {
        const std::string prefix = "head" + std::to_string(h + 1) + "_";
        for (Step step : computedSteps())
            if (isPerHead(step))
                add(prefix + stepKey(step), trace.step(step, h));
    }
    add("concat", trace.concat);
    add("output", trace.output);
    nlohmann::json json = traceToJson(trace);
    if (!tokens.empty())
        json["tokens"] = tokens;
    files.push_back({"trace.json", jsonText(json) + "\n"});
    return files;
}

bool isStepFileName(std::string_view name)
{
    if (name == "trace.json")
        return true;
    constexpr std::string_view csv = ".csv";
    if (name.size() <= csv.size() || name.substr(name.size() - csv.size()) != csv)
        return false;
    const std::string_view stem = name.substr(0, name.size() - csv.size());
    for (const std::string_view whole : {"x", "w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o", "concat", "output"})
        if (stem == whole)
            return true;
    // headH_step, H counted from 1.
    constexpr std::string_view head = "head";
    if (stem.substr(0, head.size()) != head)
        return false;
    std::size_t end = head.size();
    while (end < stem.size() && stem[end] >= '0' && stem[end] <= '9')
        ++end;
    if (end == head.size() || stem[head.size()] == '0' || end == stem.size() || stem[end] != '_')
        return false;
    const std::string_view step = stem.substr(end + 1);
    for (Step s : computedSteps())
        if (isPerHead(s) && step == stepKey(s))
            return true;
    return false;
}

}  // namespace core
