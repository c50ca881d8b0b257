#include "core/models/headdetector.h"

#include "core/attention/headpattern.h"

#include <algorithm>
#include <cctype>
#include <random>
#include <string_view>

namespace core {

namespace {

/** A whole word after a space as byte-level ("Ġcat") and SentencePiece ("▁cat") vocabularies write it. */
bool isWord(const std::string& token)
{
    for (const std::string_view space : {std::string_view("\xC4\xA0"), std::string_view("\xE2\x96\x81")})
        if (token.size() >= space.size() + 2 && token.starts_with(space)
            && std::all_of(token.begin() + std::ptrdiff_t(space.size()), token.end(),
                           [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
            return true;
    return false;
}

/** Neither special nor a byte: not written "<…>". */
bool isOrdinary(const std::string& token)
{
    return !token.empty() && !(token.front() == '<' && token.back() == '>');
}

} // namespace

std::vector<int> repeatedRandomTokens(const ModelPass& pass, int half, std::uint64_t seed)
{
    const ModelShape shape = pass.shape();
    std::vector<int> ids = pass.encode("");  // the BOS alone, for a tokenizer that adds one
    half = std::clamp((shape.positions - int(ids.size())) / 2, 0, half);
    // Whole words, as text is made of (a small model copies those); any ordinary token when too few.
    std::vector<int> words, ordinary;
    for (int id = 0; id < shape.vocabSize; ++id) {
        const std::string token = pass.vocabularyToken(id);
        if (isWord(token))
            words.push_back(id);
        else if (isOrdinary(token))
            ordinary.push_back(id);
    }
    if (int(words.size()) < half)
        ordinary.insert(ordinary.end(), words.begin(), words.end());
    std::vector<int>& pool = int(words.size()) >= half ? words : ordinary;
    half = std::min(half, int(pool.size()));
    std::mt19937_64 random(seed);
    std::shuffle(pool.begin(), pool.end(), random);
    ids.insert(ids.end(), pool.begin(), pool.begin() + half);
    ids.insert(ids.end(), pool.begin(), pool.begin() + half);
    return ids;
}

HeadDetection detectHeads(const ModelPass& pass)
{
    const ModelShape shape = pass.shape();
    HeadDetection d;
    for (int l = 0; l < shape.layers; ++l)
        for (int h = 0; h < shape.heads; ++h) {
            d.induction.push_back(inductionScore(pass.attention(l, h), pass.tokens()));
            d.duplicate.push_back(duplicateTokenScore(pass.attention(l, h), pass.tokens()));
        }
    return d;
}

std::optional<HeadDetection> detectHeadsAsEdited(const ModelPass& model)
{
    const std::shared_ptr<ModelPass> pass = model.freshPass();
    std::string error;
    const std::vector<int> ids = repeatedRandomTokens(*pass);
    if (ids.size() < 3 || !pass->setTokens(ids, error))
        return std::nullopt;
    for (const ModelEdit& e : model.edits())
        pass->setEdit(e.layer, e.weight, e.row, e.col, e.value, error);
    for (const auto& [layer, head] : model.ablations())
        pass->setAblated(layer, head, true);
    pass->run();
    return detectHeads(*pass);
}

} // namespace core
