#pragma once
/** The Block view's value: one layer of a run pass at one position, in the order of the maths. The stream in, the
 *  first norm, what attention adds, the stream after it, the second norm and the MLP's neurons, what the MLP adds,
 *  the stream out; beside it what every layer's attention and MLP add at every position, and at the end the final
 *  norm and the most probable next tokens. With a parallel residual (NeoX) the MLP reads the stream entering the
 *  layer, and the stream out is stream in + attention + MLP. Everything is read from ModelPass, the edits with it. */

#include "core/models/modelpass.h"
#include "core/tensor/matrix.h"

#include <string>
#include <vector>

namespace core {

/** A vector of the block (1 × d or 1 × neurons) and its L2 norm, in double. */
struct BlockVector {
    std::vector<double> values;
    double norm = 0;
};

/** One of the MLP's neurons at the position: its index, its activation and what it was made of. */
struct BlockNeuron {
    int index = 0;
    double activation = 0; ///< GELU(up), or silu(gate) · up
    double up = 0;         ///< up(x) (GPT-2's c_fc) before the activation
    double gate = 0;       ///< SwiGLU's gate(x); 0 for a GELU MLP
    double siluGate = 0;   ///< silu(gate) = gate / (1 + e^−gate); 0 for a GELU MLP
};

/** A probable next token after the position. */
struct BlockLogit {
    int id = 0;
    std::string token;     ///< as people read it on a chip
    double logit = 0;
    double probability = 0;
};

struct BlockView {
    int layer = 0, position = 0;
    int layers = 0, positions = 0, neuronCount = 0;
    std::string norm;              ///< "LayerNorm" or "RMSNorm"
    std::string mlp;               ///< "GELU" or "SwiGLU"
    bool parallelResidual = false;
    std::string token;             ///< the token at the position, as people read it
    BlockVector streamIn;          ///< the stream entering the layer
    BlockVector attentionNormed;   ///< norm₁(stream in): the attention's input
    BlockVector attention;         ///< what attention adds: z · W_O + b
    BlockVector afterAttention;    ///< stream in + attention
    BlockVector mlpNormed;         ///< norm₂ of after attention (of stream in with a parallel residual)
    BlockVector mlpOutput;         ///< what the MLP adds
    BlockVector streamOut;         ///< the stream entering the next layer
    std::vector<BlockNeuron> neurons; ///< the most active by |activation|, largest first, ties by index
    /** ‖what attention adds‖ and ‖what the MLP adds‖ for every layer (rows) and position (columns). */
    Matrix attentionAdds, mlpAdds;
    BlockVector finalNormed;       ///< the final norm of the last stream at the position
    std::vector<BlockLogit> logits; ///< the most probable next tokens after the position
};

/** The block of layer (0 … layers − 1) at position (0 … n − 1) of pass, which must have run; the neuronCount most
 *  active neurons and the logitCount most probable tokens. */
BlockView blockView(const ModelPass& pass, int layer, int position, int neuronCount = 12, int logitCount = 8);

} // namespace core
