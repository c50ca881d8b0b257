#pragma once
/** The arithmetic behind any cell of any step, as structured data the UI can render. */

#include "core/formats/numbertext.h"  // formatNumber, which the texts use and the views share
#include "core/attention/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace core {

/** A cell, a row or a column of one step's matrix (row or col −1 means "all"). */
struct CellRef {
    Step step = Step::X;
    int head = 0;
    int row = -1;
    int col = -1;
    bool operator==(const CellRef&) const = default;
};

struct Derivation {
    enum class Kind {
        Input,        ///< a number the user gave (an embedding without encoding, a weight)
        Sum,          ///< x = embedding + positional encoding
        DotProduct,   ///< Q, K, V, scores, output: Σ_t a_t · b_t
        Scale,        ///< scaled score = score · s / T
        Softmax,      ///< weight = exp(s_ij − max) / Σ_k exp(s_ik − max)
        WeightedSum,  ///< outputs(i, c) = Σ_j w_ij · v_jc
        Copy,         ///< concat(i, c) is an output cell of one head
        Rotation      ///< rotary q′ or k′: terms[0] = {x_c, cos}, terms[1] = {its partner, sin}; numeratorArg the angle
    };
    struct Term {
        double a = 0;  ///< DotProduct / WeightedSum: left factor; Softmax: the scaled score s_ik
        double b = 0;  ///< DotProduct / WeightedSum: right factor; Softmax: exp(s_ik − max)
    };

    Kind kind = Kind::Input;
    CellRef cell;
    double value = 0;               ///< the cell's value, exactly as the trace holds it
    std::string name;               ///< the left-hand side, e.g. "score(1,2)"
    std::string symbolic;           ///< e.g. "q₁·k₂"; empty for inputs
    std::vector<Term> terms;        ///< the first maxTerms terms, in order
    int totalTerms = 0;             ///< how many terms the full sum has
    double rowMax = 0;              ///< Softmax: the row maximum that was subtracted
    double denominator = 0;         ///< Softmax: Σ_k exp(s_ik − max)
    double numeratorArg = 0;        ///< Softmax: s_ij; Scale: the unscaled score; Sum: the embedding
    double scaleFactor = 1;             ///< Scale: s / T; Sum: the positional encoding
    bool masked = false;            ///< Softmax: the causal mask set this weight to 0
    int dk = 0;                     ///< Scale: d_k when scaling is on, else 0
    double temperature = 1;         ///< Scale: the temperature T
    std::optional<double> bias;     ///< DotProduct of Q, K, V or the output: the bias added after the sum
    int headCount = 1;              ///< heads in the model (texts name the head when > 1)
    int otherHead = 0;              ///< Copy from concat: the head the cell comes from
    bool partnerAdds = false;       ///< Rotation: the second half of a pair (x_c·cos + partner·sin), else − partner·sin
    std::vector<CellRef> sources;   ///< the cells, rows or columns it came from, for highlighting

    /** One line of arithmetic, e.g. "score(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4", with a bias as the last term:
     *  "q(1,2) = x₁·W_Q[:,2] + b_Q[2] = 1·0 + 0·1 + 0.5 = 0.5".
     *  Numbers get up to `precision` decimals; long sums show maxTerms terms then "+ … (k more)". */
    std::string text(int precision = 4) const;

    static constexpr int maxTerms = 8;
};

/** The derivation of one cell. Indices are 0-based; the texts count from 1 as the articles do.
 *  Out-of-range cells give a Derivation of Kind::Input with an empty name. */
Derivation derive(const Trace& trace, const CellRef& cell);

/** Subscript digits: 12 → "₁₂". */
std::string subscript(int number);

}  // namespace core
