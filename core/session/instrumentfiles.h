#pragma once
/** The instruments' results as SPEC §8 writes them: JSON objects, and CSV with one line per cell of their grids. */

#include "core/models/instruments.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace core {

/** {"tokens", "lens": [[{"id", "token", "probability", "target_probability"?} × n] × (L + 1)]}. */
nlohmann::ordered_json lensJson(const ModelPass& pass, const std::vector<std::vector<LensCell>>& lens,
                                std::optional<int> target);
/** layer,position,id,token,probability[,target_probability]; layers from 0 (the embeddings), positions from 1. */
std::string lensCsv(const ModelPass& pass, const std::vector<std::vector<LensCell>>& lens, std::optional<int> target);

/** {"target", "position" (from 1), "logit", "embeddings", "heads", "mlps", "bias"}. */
nlohmann::ordered_json attributionJson(const Attribution& a);
/** component,layer,head,contribution: embeddings, each head and MLP (layers and heads from 1), bias, and logit. */
std::string attributionCsv(const Attribution& a);

/** {"clean", "corrupt", "residual", "heads"}. */
nlohmann::ordered_json patchingJson(const Patching& p);
/** grid,layer,index,metric: clean and corrupt, then residual (index the position) and heads (the head), from 1. */
std::string patchingCsv(const Patching& p);

/** text as one CSV field: quoted, with its quotes doubled, when it holds a comma, a quote or a line break. */
std::string csvField(std::string_view text);

} // namespace core
