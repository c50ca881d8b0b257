#include "core/attention/pytorchexport.h"

#include "core/attention/rotary.h"
#include "core/formats/numbertext.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace core {

namespace {

constexpr std::size_t kLineWidth = 100;

/** Items joined by ", " and wrapped after kLineWidth characters, each line starting with indent. */
std::string wrapped(const std::vector<std::string>& items, const std::string& indent)
{
    std::string out = indent;
    std::size_t lineLength = indent.size();
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
        if (lineLength > indent.size() && lineLength + 1 + item.size() > kLineWidth) {
            out += "\n" + indent;
            lineLength = indent.size();
        } else if (lineLength > indent.size()) {
            out += ' ';
            ++lineLength;
        }
        out += item;
        lineLength += item.size();
    }
    return out;
}

/** `name = torch.tensor([...], dtype=torch.float64)  # shape`, one matrix row per bracketed row. */
std::string tensorLiteral(const std::string& name, const MatrixCRef& m, const std::string& shape)
{
    std::string out = name + " = torch.tensor(  # " + shape + ", " + std::to_string(m.rows()) + " × "
        + std::to_string(m.cols()) + "\n    [\n";
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        std::vector<std::string> cells;
        cells.reserve(std::size_t(m.cols()));
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            cells.push_back(pythonFloat(m(r, c)));
        const std::string row = wrapped(cells, std::string(9, ' '));
        out += "        [" + row.substr(9) + "],\n";
    }
    out += "    ],\n    dtype=torch.float64,\n)\n";
    return out;
}

/** `name = torch.tensor([...], dtype=torch.float64)  # shape` of a bias (one row, as a vector that adds to every
 *  row), or `name = None` when the model has none. */
void biasLiteral(std::string& py, const std::string& name, const std::optional<Matrix>& bias, const std::string& width)
{
    if (!bias) {
        py += name + " = None  # no bias\n";
        return;
    }
    std::vector<std::string> cells;
    for (Eigen::Index c = 0; c < bias->cols(); ++c)
        cells.push_back(pythonFloat((*bias)(0, c)));
    py += name + " = torch.tensor(  # bias, " + width + " = " + std::to_string(bias->cols()) + ", added to every row\n"
        + "    [\n" + wrapped(cells, "        ") + "\n    ],\n    dtype=torch.float64,\n)\n";
}

/** A line of text safe inside a Python comment: control characters become spaces. */
std::string commentText(const std::string& text)
{
    std::string out = text;
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = ' ';
    return out;
}

std::string pythonString(const std::string& text)
{
    // A JSON string literal is a valid Python string literal.
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const char* pythonBool(bool b)
{
    return b ? "True" : "False";
}

constexpr const char* kFunctions = R"PY(

def sinusoidal_encoding(n, d):
    """Positional encoding, positions from 0 (Vaswani et al., 2017):
    PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))."""
    pe = torch.zeros(n, d, dtype=torch.float64)
    for pos in range(n):
        for c in range(d):
            angle = pos / 10000.0 ** ((c - c % 2) / d)
            pe[pos, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def rms_norm_rows(x, w, eps):
    """Each row divided by its root mean square √(mean x² + eps), times the weight vector w (q/k norm)."""
    return x / torch.sqrt((x * x).mean(dim=1, keepdim=True) + eps) * w


def rotate(x, frequencies):
    """Rotary positions (rotate-half layout): row p's pair (i, i + d_r/2) turns by the angle p·f_i, with
    f_i = θ^(−2i/d_r); the dimensions from d_r on stay as they are."""
    half = len(frequencies)
    angles = torch.arange(x.shape[0], dtype=torch.float64)[:, None] * torch.tensor(frequencies, dtype=torch.float64)
    cos, sin = torch.cos(angles), torch.sin(angles)
    a, b = x[:, :half], x[:, half:2 * half]
    return torch.cat([a * cos - b * sin, b * cos + a * sin, x[:, 2 * half:]], dim=1)


def softmax_rows(s, causal):
    """Softmax of each row, subtracting the row maximum first. Under the causal mask, entry (i, j)
    with j > i gets weight exactly 0 and the rest of the row is renormalised."""
    if causal:
        above = torch.triu(torch.ones(s.shape, dtype=torch.bool), diagonal=1)
        s = s.masked_fill(above, float("-inf"))
    e = torch.exp(s - s.max(dim=1, keepdim=True).values)
    return e / e.sum(dim=1, keepdim=True)

)PY";

constexpr const char* kSteps = R"PY(
# Step 1 · tokens → X: one row per token
X = embeddings.clone()  # n × d_model
if positional_encoding:
    X = X + sinusoidal_encoding(X.shape[0], X.shape[1])

Q, K, V, scores, scaled_scores, weights, weighted_values, Z = [], [], [], [], [], [], [], []
Q_unrotated, K_unrotated = [], []  # with rotary positions: Q and K before the turn
for h in range(heads):
    g = h // (heads // kv_heads)  # the K/V head this query head reads
    qc = slice(h * d_k, (h + 1) * d_k)  # this head's columns of W_Q
    kc = slice(g * d_k, (g + 1) * d_k)  # its K/V head's columns of W_K
    vc = slice(g * d_v, (g + 1) * d_v)  # and of W_V

    # Step 2 · queries, keys and values (plus each bias the model has, added to every row)
    q = X @ W_Q[:, qc] + (b_Q[qc] if b_Q is not None else 0)  # n × d_k, row i = query of token i
    k = X @ W_K[:, kc] + (b_K[kc] if b_K is not None else 0)  # n × d_k, row j = key of token j
    V.append(X @ W_V[:, vc] + (b_V[vc] if b_V is not None else 0))  # n × d_v, row j = value of token j
    if qk_norm:  # each q and k row RMS-normalised, before the rotation
        q, k = rms_norm_rows(q, q_norm, qk_norm_eps), rms_norm_rows(k, k_norm, qk_norm_eps)
    if rotary:  # each row turned by its position
        Q_unrotated.append(q)
        K_unrotated.append(k)
        q, k = rotate(q, rotary_frequencies), rotate(k, rotary_frequencies)
    Q.append(q)
    K.append(k)

    # Step 3 · scores: every query against every key
    scores.append(Q[h] @ K[h].T)  # n × n, scores[i, j] = q_i · k_j

    # Step 4 · scale: multiply by 1/√d_k (when scaling is on) and divide by the temperature
    s = 1.0 / math.sqrt(d_k) if scale else 1.0
    scaled_scores.append(scores[h] * s / temperature)  # n × n

    # Step 5 · softmax of each row: the attention weights
    weights.append(softmax_rows(scaled_scores[h], causal))  # n × n, every row sums to 1

    # Step 6 · weighted values: weighted_values[i, j] = weights[i, j] · V row j
    weighted_values.append(weights[h][:, :, None] * V[h][None, :, :])  # n × n × d_v

    # Step 7 · sum the weighted values: Z row i = Σ_j weights[i, j] · V row j
    Z.append(weighted_values[h].sum(dim=1))  # n × d_v

# The heads side by side, then the output projection W_O (and its bias b_O) when there is one
concat = torch.cat(Z, dim=1)  # n × (heads · d_v)
output = concat @ W_O if W_O is not None else concat  # n × d_out
if b_O is not None:
    output = output + b_O

)PY";

constexpr const char* kSummary = R"PY(
if __name__ == "__main__":
    torch.set_printoptions(precision=4, sci_mode=False)
    print("tokens:", tokens)
    print(f"n = {len(tokens)}, d_model = {X.shape[1]}, heads = {heads}, d_k = {d_k}, d_v = {d_v}")
    for h in range(heads):
        w = weights[h] if heads > 1 else weights
        print(f"attention weights, head {h + 1} (rows sum to 1):")
        print(w)
    print("output:", tuple(output.shape))
    print(output)
)PY";

}  // namespace

std::string pytorchCode(const AttentionModel& model, const std::string& title)
{
    const Options& o = model.options;
    const int h = model.heads();
    std::string py;
    py += "#!/usr/bin/env python3\n";
    py += "# Self-attention step by step, as Attention Explorer computes it.\n";
    if (!title.empty())
        py += "# Session: " + commentText(title) + "\n";
    py += "#\n";
    py += "# Run it with python3 (it needs PyTorch), or import it and read its variables:\n";
    py += "#   X, Q, K, V, scores, scaled_scores, weights, weighted_values, Z, concat, output\n";
    if (model.options.positionalEncoding == PositionalEncoding::Rotary)
        py += "#   and Q_unrotated, K_unrotated: Q and K before the rotary turn\n";
    py += h > 1 ? "# Q … Z are lists with one tensor per head.\n" : "# With one head, Q … Z are tensors.\n";
    py += "# Rows are tokens: X is n × d_model, Q = X · W_Q is n × d_k. All numbers are float64.\n";
    py += "# n = " + std::to_string(model.n()) + ", d_model = " + std::to_string(model.dModel()) + ", heads = "
        + std::to_string(h) + ", d_k = " + std::to_string(model.dK()) + ", d_v = " + std::to_string(model.dV())
        + (model.wo ? ", d_out = " + std::to_string(model.wo->cols()) : std::string()) + "\n\n";
    py += "import math\n\nimport torch\n\n";

    py += "# The session\n";
    std::vector<std::string> tokens;
    for (const std::string& t : model.tokens)
        tokens.push_back(pythonString(t));
    py += "tokens = [\n" + wrapped(tokens, "    ") + "\n]\n";
    py += "heads = " + std::to_string(h) + "\n";
    py += "d_k = " + std::to_string(model.dK()) + "\n";
    py += "d_v = " + std::to_string(model.dV()) + "\n";
    py += std::string("scale = ") + pythonBool(o.scale) + "  # divide the scores by √d_k\n";
    py += "temperature = " + pythonFloat(o.temperature) + "\n";
    py += std::string("causal = ") + pythonBool(o.mask == Mask::Causal)
        + "  # token i attends only to tokens 1 … i\n";
    py += std::string("positional_encoding = ") + pythonBool(o.positionalEncoding == PositionalEncoding::Sinusoidal)
        + "  # add the sinusoidal encoding to the embeddings\n";
    const bool rotary = o.positionalEncoding == PositionalEncoding::Rotary;
    py += std::string("rotary = ") + pythonBool(rotary) + "  # turn each head's q and k by their position\n";
    if (rotary) {
        std::vector<std::string> f;
        for (const double v : rotaryFrequencies(model))
            f.push_back(pythonFloat(v));
        py += "# the angle per position of each pair (i, i + d_r/2), d_r = " + std::to_string(rotaryWidth(model))
            + (model.rotaryFrequencies ? ": the model's own (rope_scaling)\n"
                                       : ", θ = " + pythonFloat(o.ropeTheta) + ": θ^(−2i/d_r)\n");
        py += "rotary_frequencies = [\n" + wrapped(f, "    ") + "\n]\n";
    }
    py += "kv_heads = " + std::to_string(model.kvHeads()) + "  # query head h reads K/V head h // (heads // kv_heads)\n";
    py += std::string("qk_norm = ") + pythonBool(o.qkNorm) + "  # RMS-normalise each head's q and k rows\n";
    if (o.qkNorm) {
        py += "qk_norm_eps = " + pythonFloat(model.qkNormEpsilon) + "\n";
        const Matrix ones = Matrix::Ones(1, model.dK());
        py += tensorLiteral("q_norm", model.qNorm ? *model.qNorm : ones, "1 × d_k");
        py += tensorLiteral("k_norm", model.kNorm ? *model.kNorm : ones, "1 × d_k");
        py += "q_norm, k_norm = q_norm[0], k_norm[0]\n";
    }
    py += "\n";

    py += tensorLiteral("embeddings", model.embeddings, "n × d_model, before positional encoding");
    py += tensorLiteral("W_Q", model.wq, "d_model × (heads · d_k)");
    py += tensorLiteral("W_K", model.wk, "d_model × (kv_heads · d_k)");
    py += tensorLiteral("W_V", model.wv, "d_model × (kv_heads · d_v)");
    if (model.wo)
        py += tensorLiteral("W_O", *model.wo, "(heads · d_v) × d_out");
    else
        py += "W_O = None  # no output projection: output = concat\n";
    biasLiteral(py, "b_Q", model.bq, "heads · d_k");
    biasLiteral(py, "b_K", model.bk, "kv_heads · d_k");
    biasLiteral(py, "b_V", model.bv, "kv_heads · d_v");
    biasLiteral(py, "b_O", model.bo, "d_out");

    py += kFunctions;
    py += kSteps;
    if (h == 1) {
        py += "# One head: the steps as tensors rather than lists of one\n";
        py += "Q, K, V, scores, scaled_scores, weights, weighted_values, Z = (\n"
              "    Q[0], K[0], V[0], scores[0], scaled_scores[0], weights[0], weighted_values[0], Z[0]\n)\n";
        if (model.options.positionalEncoding == PositionalEncoding::Rotary)
            py += "Q_unrotated, K_unrotated = Q_unrotated[0], K_unrotated[0]\n";
    }
    py += kSummary;
    return py;
}

}  // namespace core
