#include "core/models/modelweight.h"

namespace core {

const char* modelWeightName(ModelWeight weight)
{
    switch (weight) {
    case ModelWeight::Query: return "query";
    case ModelWeight::Key: return "key";
    case ModelWeight::Value: return "value";
    case ModelWeight::Output: return "output";
    case ModelWeight::QueryBias: return "query_bias";
    case ModelWeight::KeyBias: return "key_bias";
    case ModelWeight::ValueBias: return "value_bias";
    case ModelWeight::OutputBias: return "output_bias";
    case ModelWeight::QueryNorm: return "query_norm";
    case ModelWeight::KeyNorm: return "key_norm";
    }
    return "";
}

std::optional<ModelWeight> modelWeightFromName(std::string_view name)
{
    for (int w = 0; w <= int(ModelWeight::KeyNorm); ++w)
        if (name == modelWeightName(ModelWeight(w)))
            return ModelWeight(w);
    return std::nullopt;
}

const char* modelWeightNames(bool withNorms)
{
    return withNorms ? "query, key, value, output, query_bias, key_bias, value_bias, output_bias, query_norm or key_norm"
                     : "query, key, value, output, query_bias, key_bias, value_bias or output_bias";
}

} // namespace core
