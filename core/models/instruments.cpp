#include "core/models/instruments.h"

#include "core/attention/embedding.h"
#include "core/formats/jsonread.h"
#include "core/formats/utf8.h"
#include "core/tensor/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

namespace core {

namespace {

using Index = Eigen::Index;

/** Rows of the lens unembedded at once: 64 rows of GPT-2's 50 257 logits are 13 MB, of Qwen's 151 936 39 MB. */
constexpr Index lensRowsPerProduct = 64;

/** The final norm frozen at one stream row's scale: a vector's share of a logit, linear in the vector. */
class FrozenNorm {
public:
    FrozenNorm(const ModelPass& pass, const FloatMatrix& streamRow, int target)
    {
        const FinalNormForm norm = pass.finalNormForm();
        m_centred = norm.centred;
        const RowVector x = streamRow.cast<double>();
        const double mean = m_centred ? x.mean() : 0.0;
        const double variance = (x.array() - mean).square().mean();
        const double inverse = 1.0 / std::sqrt(variance + norm.epsilon);
        const RowVector gamma = norm.weight.cast<double>();
        const RowVector unembedding = pass.unembeddingRow(target).cast<double>();
        m_direction = gamma.cwiseProduct(unembedding) * inverse;
        m_biasShare = norm.bias.cast<double>().row(0).dot(unembedding);
    }
    /** ((v − mean(v)) / σ · γ) · w_target; RMSNorm's v / rms · γ · w_target subtracts no mean. */
    double share(const RowVector& v) const
    {
        return m_centred ? (v.array() - v.mean()).matrix().dot(m_direction) : v.dot(m_direction);
    }
    /** β · w_target. */
    double biasShare() const { return m_biasShare; }

private:
    bool m_centred = true;
    RowVector m_direction;
    double m_biasShare = 0;
};

/** logit(answer) − logit(wrong) after the last position of an up-to-date pass, in double from its final norm. */
double logitDifference(const ModelPass& pass, int answer, int wrong)
{
    const FloatMatrix h = pass.finalNorm(pass.stream(pass.shape().layers).bottomRows(1));
    const RowVector difference =
        pass.unembeddingRow(answer).cast<double>() - pass.unembeddingRow(wrong).cast<double>();
    return h.cast<double>().row(0).dot(difference);
}

/** The next token from one row of logits, as Sampling says. Nothing when they cannot be ranked. */
std::optional<int> chooseToken(const FloatMatrix& logits, const Sampling& s, SplitMix64& rng)
{
    if (s.temperature <= 0) {
        const auto top = topCandidates(logits, 1);
        return top.empty() ? std::nullopt : std::optional<int>(top.front().id);
    }
    const Index vocab = logits.cols();
    std::vector<int> order(static_cast<std::size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    const float* v = logits.data();
    if (std::any_of(v, v + vocab, [](float x) { return !std::isfinite(x); }))
        return std::nullopt;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return v[a] > v[b]; });
    std::size_t kept = s.topK > 0 ? std::min<std::size_t>(std::size_t(s.topK), order.size()) : order.size();
    std::vector<double> p(kept);
    for (std::size_t i = 0; i < kept; ++i)
        p[i] = double(v[order[i]]) / s.temperature;
    softmaxRow(p.data(), p.data(), Index(kept), Index(kept), 1.0);
    if (s.topP < 1) {
        // the smallest most probable set whose probability reaches top p, at least one token
        double sum = 0;
        std::size_t i = 0;
        while (i < kept && sum < s.topP)
            sum += p[i++];
        kept = std::max<std::size_t>(i, 1);
    }
    const double total = std::accumulate(p.begin(), p.begin() + std::ptrdiff_t(kept), 0.0);
    double u = rng.uniform() * total;
    for (std::size_t i = 0; i < kept; ++i) {
        u -= p[i];
        if (u < 0)
            return order[i];
    }
    return order[kept - 1];
}

}  // namespace

std::vector<std::vector<LensCell>> logitLens(const ModelPass& pass, std::optional<int> target, LensMemo* memo)
{
    const int layers = pass.shape().layers;
    const Index n = pass.n();
    std::vector<std::vector<LensCell>> lens(std::size_t(layers) + 1, std::vector<LensCell>(std::size_t(n)));
    // the cells to compute: those whose stream row is not the memo's (a row is unembedded alone or among others with
    // the same sums, so a kept cell is what it would be computed again)
    const bool memoFits = memo && memo->target == target && int(memo->streams.size()) == layers + 1;
    std::vector<std::pair<int, Index>> recompute;
    for (int l = 0; l <= layers; ++l) {
        const FloatMatrix& stream = pass.stream(l);
        const FloatMatrix* before = memoFits ? &memo->streams[std::size_t(l)] : nullptr;
        for (Index p = 0; p < n; ++p) {
            if (before && p < before->rows() && before->cols() == stream.cols() &&
                std::memcmp(before->row(p).data(), stream.row(p).data(), sizeof(float) * std::size_t(stream.cols())) == 0)
                lens[std::size_t(l)][std::size_t(p)] = memo->lens[std::size_t(l)][std::size_t(p)];
            else
                recompute.push_back({l, p});
        }
    }
    // the rows to compute, lensRowsPerProduct at a time: the output head is read once per product (a family's stored
    // weights widened once), not once per row
    const Index total = Index(recompute.size());
    for (Index first = 0; first < total; first += lensRowsPerProduct) {
        const Index rows = std::min(lensRowsPerProduct, total - first);
        FloatMatrix stacked(rows, pass.stream(0).cols());
        for (Index r = 0; r < rows; ++r)
            stacked.row(r) = pass.stream(recompute[std::size_t(first + r)].first).row(recompute[std::size_t(first + r)].second);
        const FloatMatrix logits = pass.unembed(stacked);
        for (Index r = 0; r < rows; ++r) {
            const FloatMatrix row = logits.row(r);
            const auto [l, p] = recompute[std::size_t(first + r)];
            LensCell& cell = lens[std::size_t(l)][std::size_t(p)];
            const auto top = topCandidates(row, 1);
            if (top.empty()) {
                cell.probability = cell.targetProbability = std::nan("");
                continue;
            }
            cell.id = top.front().id;
            cell.probability = top.front().probability;
            if (target) {
                cell.targetProbability = candidateProbability(row, *target);
                const float t = row(0, *target);
                cell.targetRank = 1 + int(std::count_if(row.data(), row.data() + row.cols(), [t](float v) { return v > t; }));
            }
        }
    }
    if (memo) {
        memo->streams.clear();
        for (int l = 0; l <= layers; ++l)
            memo->streams.push_back(pass.stream(l));
        memo->target = target;
        memo->lens = lens;
    }
    return lens;
}

Attribution directLogitAttribution(const ModelPass& pass, int target, int position)
{
    const ModelShape c = pass.shape();
    const Index dk = c.headDim;
    const FrozenNorm norm(pass, pass.stream(c.layers).middleRows(position, 1), target);
    Attribution a;
    a.target = target;
    a.position = position;
    a.embeddings = norm.share(pass.stream(0).row(position).cast<double>());
    a.bias = norm.biasShare();
    const std::set<std::pair<int, int>>& zeroed = pass.ablations();
    for (int l = 0; l < c.layers; ++l) {
        const RowVector z = pass.headOutputs(l).row(position).cast<double>();
        const FloatMatrix wo = pass.outputWeight(l);
        const LayerBiases biases = pass.outputBiases(l);
        const RowVector attentionBias = biases.attention.cast<double>();
        RowVector attention = attentionBias;
        std::vector<double> heads(std::size_t(c.heads), 0.0);
        for (int h = 0; h < c.heads; ++h) {
            if (zeroed.count({l, h}))
                continue;  // its rows of W_O count as 0
            const RowVector out = z.segment(h * dk, dk) * wo.middleRows(h * dk, dk).cast<double>();
            heads[std::size_t(h)] = norm.share(out);
            attention += out;
        }
        a.heads.push_back(std::move(heads));
        const RowVector mlpBias = biases.mlp.cast<double>();
        // the MLP's output: what the layer added to the stream besides its attention (beside it or after it)
        const RowVector mlp = pass.stream(l + 1).row(position).cast<double>() -
                              pass.stream(l).row(position).cast<double>() - attention - mlpBias;
        a.mlps.push_back(norm.share(mlp));
        a.bias += norm.share(attentionBias) + norm.share(mlpBias);
    }
    a.logit = a.embeddings + a.bias;
    for (int l = 0; l < c.layers; ++l)
        a.logit += a.mlps[std::size_t(l)] +
                   std::accumulate(a.heads[std::size_t(l)].begin(), a.heads[std::size_t(l)].end(), 0.0);
    return a;
}

std::optional<Patching> activationPatching(const ModelPass& clean, const std::vector<int>& corruptIds, int answer,
                                           int wrong, std::string& error, const StopCheck& stop,
                                           const std::function<void(int, int)>& progress)
{
    const ModelShape c = clean.shape();
    const int n = clean.n();
    if (int(corruptIds.size()) != n) {
        error = "the corrupted text is " + std::to_string(corruptIds.size()) + " tokens long and the clean text " +
                std::to_string(n) + "; patching needs texts of the same length";
        return std::nullopt;
    }
    const std::unique_ptr<ModelPass> corrupt = clean.clone();
    corrupt->setLogitsWanted(false);
    if (!corrupt->setTokens(corruptIds, error))
        return std::nullopt;
    const auto stopped = [&] {
        error = "stopped";
        return std::nullopt;
    };
    if (!corrupt->run(stop))
        return stopped();

    Patching out;
    out.clean = logitDifference(clean, answer, wrong);
    out.corrupt = logitDifference(*corrupt, answer, wrong);
    const int total = c.layers * n + c.layers * c.heads;
    int done = 0;
    // Each run patches a copy of the corrupted pass, which recomputes only what the patch can reach.
    const auto patched = [&](const auto& patch) -> std::optional<double> {
        const std::unique_ptr<ModelPass> run = corrupt->clone();
        patch(*run);
        if (!run->run(stop))
            return std::nullopt;
        if (progress)
            progress(++done, total);
        return logitDifference(*run, answer, wrong);
    };
    const Index dk = c.headDim;
    for (int l = 0; l < c.layers; ++l) {
        std::vector<double> row;
        for (int p = 0; p < n; ++p) {
            const FloatMatrix restored = clean.stream(l).row(p);
            const auto m = patched([&](ModelPass& run) { run.patchStream(l, p, restored); });
            if (!m)
                return stopped();
            row.push_back(*m);
        }
        out.residual.push_back(std::move(row));
    }
    for (int l = 0; l < c.layers; ++l) {
        std::vector<double> row;
        for (int h = 0; h < c.heads; ++h) {
            const FloatMatrix z = clean.headOutputs(l).middleCols(h * dk, dk);
            const auto m = patched([&](ModelPass& run) { run.patchHeadOutput(l, h, z); });
            if (!m)
                return stopped();
            row.push_back(*m);
        }
        out.heads.push_back(std::move(row));
    }
    return out;
}

TokenSampler::TokenSampler(const Sampling& sampling, std::uint64_t drawn)
    : m_sampling(sampling), m_rng(sampling.seed), m_drawn(drawn)
{
    if (sampling.temperature > 0)
        for (std::uint64_t i = 0; i < drawn; ++i)
            m_rng.uniform();  // one number per sampled token, as chooseToken takes them
}

std::optional<int> TokenSampler::next(const FloatMatrix& logits)
{
    const auto id = chooseToken(logits, m_sampling, m_rng);
    if (id)
        ++m_drawn;
    return id;
}

bool generate(ModelPass& pass, int count, const Sampling& sampling, std::string& error)
{
    const ModelShape shape = pass.shape();
    TokenSampler sampler(sampling);
    std::vector<int> ids = pass.tokens();
    for (int i = 0; i < count; ++i) {
        const auto next = sampler.next(pass.logits());
        if (!next) {
            error = "the forward pass overflows float32 after " + std::to_string(ids.size()) +
                    " tokens; there is no next token to choose";
            return false;
        }
        ids.push_back(*next);
        if (int(ids.size()) > shape.positions) {
            error = "the text would be " + std::to_string(ids.size()) + " tokens long, more than the model's " +
                    shape.positionsKey + " (" + std::to_string(shape.positions) + ")";
            return false;
        }
        if (!pass.setTokens(ids, error))
            return false;
        pass.run();
    }
    return true;
}

std::optional<int> singleToken(const ModelPass& pass, std::string_view text, std::string& error)
{
    const int vocab = pass.shape().vocabSize;
    if (text.size() > 1 && text.front() == '#') {
        const std::string digits(text.substr(1));
        char* end = nullptr;
        const long id = std::strtol(digits.c_str(), &end, 10);
        if (end == digits.c_str() + digits.size() && id >= 0 && id < vocab)
            return int(id);
        error = std::string(1, '"') + messageExcerpt(text) + "\" names no token: an id is from 0 to " + std::to_string(vocab - 1);
        return std::nullopt;
    }
    if (firstInvalidUtf8(text)) {
        error = "the token is not valid UTF-8";
        return std::nullopt;
    }
    const std::vector<int> ids = pass.encode(text, false);
    if (ids.size() == 1)
        return ids.front();
    error = std::string(1, '"') + messageExcerpt(text) + "\" is " + std::to_string(ids.size()) +
            " tokens of this model, not one (a leading space is part of a token: \" Mary\"; or give #ID)";
    return std::nullopt;
}

std::string decodedText(const ModelPass& pass, const std::vector<int>& ids)
{
    return encodeUtf8(decodeUtf8(pass.decode(ids)));
}

} // namespace core
