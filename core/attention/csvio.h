#pragma once
/** Matrices as CSV text, and every step of a trace as one CSV file per step and head. */

#include "core/tensor/matrix.h"
#include "core/attention/trace.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

struct CsvReadOptions {
    /** The cell separator; 0 picks it from the first line: a tab if it has one, else a semicolon,
     *  else a comma. */
    char delimiter = 0;
    /** Skip the first line when some of its cells are not numbers (a header of column names). */
    bool allowHeader = false;
};

/** Largest CSV text parseCsv() accepts. */
constexpr std::size_t maxCsvBytes = std::size_t(256) << 20;

/** Parses rows of numbers, one row a line (LF or CRLF; blank lines and a UTF-8 byte-order mark are
 *  skipped; a cell may be quoted and padded with spaces). With ';' or tab as the separator a decimal
 *  comma is accepted ("1,5"). Returns nothing and a message naming the row and column when a cell is
 *  not a finite number, the rows are ragged, or there is no number at all. */
std::optional<Matrix> parseCsv(std::string_view text, std::string& error, const CsvReadOptions& options = {});

/** The matrix as CSV text, one row a line ending in '\n', numbers that read back to the same double. */
std::string formatCsv(const MatrixCRef& m, char delimiter = ',');

/** One file of a trace's export: its name in the folder and its text. */
struct StepFile {
    std::string name;  ///< e.g. "x.csv", "head1_weights.csv", "trace.json"
    std::string text;
};

/** Every step as CSV, in the order of the maths: x.csv; w_q.csv, w_k.csv, w_v.csv (w_o.csv when the
 *  model has W_O; b_q.csv, b_k.csv, b_v.csv, b_o.csv for the biases it has, one row each); for each head h (from 1) headH_queries, _keys, _values, _scores, _scaled_scores,
 *  _weights, _outputs .csv; concat.csv; output.csv; and trace.json in the --compute format. tokens, when given,
 *  are the names trace.json gives the tokens instead of the trace's own (a model's as its vocabulary writes them,
 *  as --compute does). */
std::vector<StepFile> stepFiles(const Trace& trace, const std::vector<std::string>& tokens = {});

/** True for every name stepFiles() gives a file of some trace ("x.csv", "w_o.csv", "b_q.csv",
 *  "head12_weights.csv", "trace.json", …): the files an earlier export may have left in a folder. */
bool isStepFileName(std::string_view name);

}  // namespace core
