#include "core/attention/edit.h"

#include "core/attention/embedding.h"
#include "core/formats/numbertext.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <map>
#include <queue>

namespace core {

Matrix embeddingsForTokens(const AttentionModel& model, const std::vector<std::string>& newTokens)
{
    const int d = model.dModel() > 0 ? model.dModel() : 4;
    std::map<std::string, std::queue<Eigen::Index>> given;
    for (int i = 0; i < model.n() && i < model.embeddings.rows(); ++i) {
        if (model.embeddings.row(i) != tokenEmbedding(model.tokens[std::size_t(i)], d))
            given[model.tokens[std::size_t(i)]].push(i);
    }
    Matrix e(Eigen::Index(newTokens.size()), d);
    for (std::size_t i = 0; i < newTokens.size(); ++i) {
        auto it = given.find(newTokens[i]);
        if (it != given.end() && !it->second.empty()) {
            e.row(Eigen::Index(i)) = model.embeddings.row(it->second.front());
            it->second.pop();
        } else {
            e.row(Eigen::Index(i)) = tokenEmbedding(newTokens[i], d);
        }
    }
    return e;
}

namespace {

/** rows × cols with the overlap of m kept; new cells zero, or 1 on the diagonal when diagonal. */
Matrix kept(const Matrix& m, Eigen::Index rows, Eigen::Index cols, bool diagonal)
{
    Matrix out = Matrix::Zero(rows, cols);
    const Eigen::Index r = std::min(rows, m.rows()), c = std::min(cols, m.cols());
    if (diagonal)
        for (Eigen::Index i = 0; i < std::min(rows, cols); ++i)
            if (i >= m.rows() || i >= m.cols())
                out(i, i) = 1.0;
    out.topLeftCorner(r, c) = m.topLeftCorner(r, c);
    return out;
}

/** Per-head column blocks resized from width `from` to `to`, for `heads` → `newHeads` heads. A head that did not
 *  exist gets Glorot-uniform weights seeded by name and head, so that its W_Q, W_K and W_V differ (identity
 *  blocks in all three would make its q, k and v the same). */
Matrix keptHeads(const Matrix& m, int rows, int oldHeads, int from, int newHeads, int to, std::string_view name)
{
    Matrix out = Matrix::Zero(rows, Eigen::Index(newHeads) * to);
    for (int h = 0; h < newHeads; ++h) {
        const bool existed = h < oldHeads && from > 0 && m.cols() >= Eigen::Index(h + 1) * from;
        out.middleCols(Eigen::Index(h) * to, to) =
            existed ? kept(m.middleCols(Eigen::Index(h) * from, from), rows, to, true)
                    : initWeights(rows, to, Init::Uniform, fnv1a64(std::string(name) + " head " + std::to_string(h + 1)));
    }
    return out;
}

/** A bias's per-head blocks resized like keptHeads(), new entries zero; nothing when there is no bias. */
std::optional<Matrix> keptBias(const std::optional<Matrix>& bias, int oldHeads, int from, int newHeads, int to)
{
    if (!bias)
        return std::nullopt;
    Matrix out = Matrix::Zero(1, Eigen::Index(newHeads) * to);
    for (int h = 0; h < std::min(oldHeads, newHeads); ++h) {
        const Eigen::Index width = std::min(from, to);
        if (bias->cols() >= Eigen::Index(h) * from + width)
            out.middleCols(Eigen::Index(h) * to, width) = bias->middleCols(Eigen::Index(h) * from, width);
    }
    return out;
}

/** A q/k norm's weights (1 × d_k) at width `to`, new entries one (the norm's identity); nothing when there are none. */
std::optional<Matrix> keptNorm(const std::optional<Matrix>& norm, int to)
{
    if (!norm)
        return std::nullopt;
    Matrix out = Matrix::Ones(1, to);
    const Eigen::Index width = std::min<Eigen::Index>(norm->cols(), to);
    out.leftCols(width) = norm->leftCols(width);
    return out;
}

}  // namespace

AttentionModel withKvHeads(const AttentionModel& model, int kvHeads)
{
    const int heads = model.heads(), dk = model.dK(), dv = model.dV();
    if (kvHeads < 1 || heads % kvHeads != 0 || dk == 0 || dv == 0)
        return model;
    AttentionModel m = model;
    const int oldGroup = heads / model.kvHeads(), group = heads / kvHeads;
    // columns of K/V head g: those its first query head read
    const auto regrouped = [&](const Matrix& from, int width) {
        Matrix to(from.rows(), Eigen::Index(kvHeads) * width);
        for (int g = 0; g < kvHeads; ++g)
            to.middleCols(Eigen::Index(g) * width, width) = from.middleCols(Eigen::Index(g * group / oldGroup) * width, width);
        return to;
    };
    m.wk = regrouped(model.wk, dk);
    m.wv = regrouped(model.wv, dv);
    if (model.bk)
        m.bk = regrouped(*model.bk, dk);
    if (model.bv)
        m.bv = regrouped(*model.bv, dv);
    m.options.kvHeads = kvHeads == heads ? 0 : kvHeads;
    return m;
}

AttentionModel resized(const AttentionModel& model, int dModel, int dk, int dv, int heads)
{
    AttentionModel m = model;
    const int oldHeads = model.heads();
    const int oldDk = model.dK(), oldDv = model.dV();
    const int oldKvHeads = model.kvHeads();
    m.options.heads = heads;
    if (heads != oldHeads)  // K/V heads shared by a number of heads that may no longer divide: one per head again
        m.options.kvHeads = 0;
    const int kvHeads = m.kvHeads();
    Matrix e(model.n(), dModel);
    for (int i = 0; i < model.n(); ++i) {
        const RowVector derived = tokenEmbedding(model.tokens[std::size_t(i)], dModel);
        for (int c = 0; c < dModel; ++c)
            e(i, c) = c < model.embeddings.cols() ? model.embeddings(i, c) : derived(c);
    }
    m.embeddings = e;
    m.wq = keptHeads(model.wq, dModel, oldHeads, oldDk, heads, dk, "W_Q");
    m.wk = keptHeads(model.wk, dModel, oldKvHeads, oldDk, kvHeads, dk, "W_K");
    m.wv = keptHeads(model.wv, dModel, oldKvHeads, oldDv, kvHeads, dv, "W_V");
    if (model.wo)
        m.wo = kept(*model.wo, Eigen::Index(heads) * dv, model.wo->cols(), true);
    m.bq = keptBias(model.bq, oldHeads, oldDk, heads, dk);
    m.bk = keptBias(model.bk, oldKvHeads, oldDk, kvHeads, dk);
    m.bv = keptBias(model.bv, oldKvHeads, oldDv, kvHeads, dv);
    m.qNorm = keptNorm(model.qNorm, dk);
    m.kNorm = keptNorm(model.kNorm, dk);
    if (dk != oldDk)  // a model's own frequencies are d_r / 2 of the old width
        m.rotaryFrequencies.reset();
    // b_O has d_out columns, which resizing keeps: it stays as it is.
    return m;
}

std::optional<int> conventionalHeadWidth(int dModel, int heads)
{
    if (dModel < 1 || heads < 1 || dModel % heads != 0)
        return std::nullopt;
    return dModel / heads;
}

Matrix defaultOutputProjection(const AttentionModel& model)
{
    return Matrix::Identity(Eigen::Index(model.heads()) * model.dV(), model.dModel());
}

AttentionModel withOutputWidth(const AttentionModel& model, int dOut)
{
    AttentionModel m = model;
    if (!model.wo || dOut < 1)
        return m;
    m.wo = kept(*model.wo, model.wo->rows(), dOut, true);
    if (model.bo)
        m.bo = kept(*model.bo, 1, dOut, false);
    return m;
}

Paste pasted(const Matrix& target, const Matrix& block, int row, int col)
{
    Paste out;
    out.matrix = target;
    out.rows = std::max<Eigen::Index>(0, std::min(block.rows(), target.rows() - row));
    out.cols = std::max<Eigen::Index>(0, std::min(block.cols(), target.cols() - col));
    if (out.rows > 0 && out.cols > 0)
        out.matrix.block(row, col, out.rows, out.cols) = block.topLeftCorner(out.rows, out.cols);
    out.clipped = out.rows < block.rows() || out.cols < block.cols();
    return out;
}

std::string BlockError::message() const
{
    switch (kind) {
    case Kind::NotANumber:
        return "row " + std::to_string(row) + ", column " + std::to_string(column) + ": \"" + cell
            + "\" is not a finite number";
    case Kind::Ragged:
        return "row " + std::to_string(row) + " has " + std::to_string(cells) + " cells, the first row "
            + std::to_string(firstRowCells);
    case Kind::Empty:
        break;
    }
    return "no numbers to paste";
}

std::optional<Matrix> parseBlock(const std::string& text, BlockError& error)
{
    std::vector<std::vector<double>> rows;
    std::size_t start = 0;
    int line = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string row = text.substr(start, end - start);
        start = end + 1;
        ++line;
        if (!row.empty() && row.back() == '\r')
            row.pop_back();
        if (row.find_first_of("[]") != std::string::npos) {  // a row as numpy prints it: "[[1. 2.]", " [3. 4.]]"
            const auto open = row.find_first_not_of(" \t[");
            const auto close = row.find_last_not_of(" \t]");
            row = open == std::string::npos || close < open ? std::string() : row.substr(open, close - open + 1);
        }
        if (row.find_first_not_of(" \t") == std::string::npos) {
            if (start > text.size())
                break;
            continue;
        }
        // Cells by tab, semicolon or comma; else by runs of spaces (numpy, MATLAB, a plain text file).
        const bool bySpaces = row.find_first_of("\t;,") == std::string::npos;
        const char separator = row.find('\t') != std::string::npos ? '\t'
            : row.find(';') != std::string::npos                   ? ';'
            : bySpaces                                             ? ' '
                                                                   : ',';
        if (bySpaces) {  // leading and trailing spaces are no cells, and a run of them is one separator
            const auto first = row.find_first_not_of(' ');
            row = row.substr(first, row.find_last_not_of(' ') - first + 1);
        }
        std::vector<double> cells;
        std::size_t p = 0;
        int column = 0;
        while (p <= row.size()) {
            std::size_t q = row.find(separator, p);
            if (q == std::string::npos)
                q = row.size();
            else if (bySpaces)
                while (q + 1 < row.size() && row[q + 1] == ' ')
                    ++q;
            std::string cell = row.substr(p, q - p);
            p = q + 1;
            ++column;
            const auto first = cell.find_first_not_of(" \t\"");
            const auto last = cell.find_last_not_of(" \t\"");
            cell = first == std::string::npos ? std::string() : cell.substr(first, last - first + 1);
            double v = 0;
            const char* b = cell.data();
            const char* e = b + cell.size();
            if (b != e && *b == '+')
                ++b;
            const auto [ptr, ec] = std::from_chars(b, e, v);
            if (cell.empty() || ec != std::errc() || ptr != e || !std::isfinite(v)) {
                error = BlockError{BlockError::Kind::NotANumber, line, column, 0, 0, cell};
                return std::nullopt;
            }
            cells.push_back(v);
            if (q == row.size())
                break;
        }
        if (!rows.empty() && cells.size() != rows.front().size()) {
            error = BlockError{BlockError::Kind::Ragged, line, 0, int(cells.size()), int(rows.front().size()), {}};
            return std::nullopt;
        }
        rows.push_back(std::move(cells));
        if (start > text.size())
            break;
    }
    if (rows.empty()) {
        error = BlockError{};
        return std::nullopt;
    }
    Matrix m(Eigen::Index(rows.size()), Eigen::Index(rows.front().size()));
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t c = 0; c < rows[r].size(); ++c)
            m(Eigen::Index(r), Eigen::Index(c)) = rows[r][c];
    return m;
}

std::string formatBlock(const MatrixCRef& block)
{
    std::string out;
    for (Eigen::Index r = 0; r < block.rows(); ++r) {
        for (Eigen::Index c = 0; c < block.cols(); ++c) {
            if (c)
                out += '\t';
            out += machineNumber(block(r, c));
        }
        out += '\n';
    }
    return out;
}

}  // namespace core
