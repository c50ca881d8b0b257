#include "core/session/presets.h"

#include "core/attention/embedding.h"
#include "core/session/builtinmodel.h"
#include "core/text/tokenizer.h"

namespace core {

namespace {

Matrix rows(std::initializer_list<std::initializer_list<double>> values)
{
    Matrix m(Eigen::Index(values.size()), Eigen::Index(values.begin()->size()));
    Eigen::Index r = 0;
    for (const auto& row : values) {
        Eigen::Index c = 0;
        for (double v : row)
            m(r, c++) = v;
        ++r;
    }
    return m;
}

/** Tokens from text, derived embeddings and seeded Normal weights (one seed per matrix).
 *  The query and key weights get a gain: derived embeddings have variance 1/3, and without one the
 *  scaled scores spread so little that every row of weights looks uniform. */
AttentionModel seededModel(const std::string& text, int dModel, int heads, int dk, int dv, std::uint64_t seed,
                           double gain)
{
    AttentionModel m;
    m.tokens = tokenize(text);
    m.embeddings = tokenEmbeddings(m.tokens, dModel);
    m.wq = gain * initWeights(dModel, heads * dk, Init::Normal, seed);
    m.wk = gain * initWeights(dModel, heads * dk, Init::Normal, seed + 1);
    m.wv = initWeights(dModel, heads * dv, Init::Normal, seed + 2);
    m.options.heads = heads;
    return m;
}

Session withTitle(AttentionModel model, const std::string& title)
{
    Session s;
    s.model = std::move(model);
    s.extras["title"] = title;
    return s;
}

/** A preset on the built-in model: where its head's pattern shows (MODEL_CARD.md, "Texts that show them"). The
 *  query is counted from 1 over the model's tokens, the BOS its tokenizer adds first. */
struct ModelPresetText {
    const char* name;
    const char* description;
    const char* text;
    int layer;
    int head;
    int query;
};

constexpr ModelPresetText modelPresets[] = {
    {"induction-head",
     "The built-in model on words said twice: layer 2, head 2 looks from the last word to the word after its earlier "
     "copy, and Next Token predicts it",
     " park red Laura gift seven cup river ball map park red Laura gift seven cup", 2, 2, 16},
    {"previous-token-head",
     "The built-in model on a sentence: layer 1, head 1 looks from each token to the one before it",
     "Mary gave a drink to John at the store.", 1, 1, 8},
    {"name-story",
     "The built-in model on a story with two names: layer 2, head 2 looks from the name said again to the word "
     "after its first mention",
     "When Mary and John went to the store, John gave a drink to", 2, 2, 11},
};

}  // namespace

std::vector<PresetInfo> modelPresetList()
{
    std::vector<PresetInfo> list;
    for (const ModelPresetText& p : modelPresets)
        list.push_back({p.name, p.description});
    return list;
}

std::optional<ModelSession> modelPreset(const std::string& name)
{
    for (const ModelPresetText& p : modelPresets) {
        if (name != p.name)
            continue;
        ModelSession session;
        session.modelPath = builtinModelName;
        session.layer = p.layer;
        session.text = p.text;
        session.extras["view"] = {{"head", p.head}, {"query", p.query}};
        return session;
    }
    return std::nullopt;
}

AttentionModel illustratedModel()
{
    AttentionModel m;
    m.tokens = {"Input 1", "Input 2", "Input 3"};
    m.embeddings = rows({{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}});
    m.wk = rows({{0, 0, 1}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}});
    m.wq = rows({{1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0, 1, 1}});
    m.wv = rows({{0, 2, 0}, {0, 3, 0}, {1, 0, 3}, {1, 1, 0}});
    m.options.scale = false;
    return m;
}

std::vector<PresetInfo> presetList()
{
    return {
        {"illustrated", "The worked example of \"Illustrated: Self-Attention\": 3 tokens, d_model 4, d_k 3, unscaled"},
        {"illustrated-scaled", "The same worked example with scores divided by √d_k"},
        {"thinking-machines", "\"Thinking Machines\" as in The Illustrated Transformer: d_model 512, d_k = d_v = 64"},
        {"causal-sentence", "An 8-token English sentence with a causal mask and sinusoidal positional encoding"},
        {"multi-head", "Two heads over d_model 8, joined by an output projection W_O"},
        {"chinese", "A short Chinese sentence, one token per character"},
    };
}

std::optional<Session> preset(const std::string& name)
{
    if (name == "illustrated")
        return withTitle(illustratedModel(), "Illustrated: Self-Attention");
    if (name == "illustrated-scaled") {
        AttentionModel m = illustratedModel();
        m.options.scale = true;
        return withTitle(m, "Illustrated: Self-Attention, scaled by √d_k");
    }
    if (name == "thinking-machines")
        return withTitle(seededModel("Thinking Machines", 512, 1, 64, 64, 2017, 2.0), "Thinking Machines");
    if (name == "causal-sentence") {
        AttentionModel m = seededModel("The cat sat on the mat and slept", 16, 1, 8, 8, 7, 1.2);
        m.options.mask = Mask::Causal;
        m.options.positionalEncoding = PositionalEncoding::Sinusoidal;
        return withTitle(m, "A causal sentence");
    }
    if (name == "multi-head") {
        AttentionModel m = seededModel("Attention heads look at different things", 8, 2, 4, 4, 42, 2.0);
        m.wo = initWeights(8, 8, Init::Normal, 45);
        return withTitle(m, "Two heads and W_O");
    }
    if (name == "chinese") {
        AttentionModel m = seededModel("注意力机制很有趣。", 8, 1, 4, 4, 11, 2.5);
        return withTitle(m, "注意力机制很有趣");
    }
    return std::nullopt;
}

}  // namespace core
