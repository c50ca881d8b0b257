#pragma once
/** The decoder-only families beyond GPT-2 (SPEC §6) as one description of a layer, read from config.json:
 *  Llama, Qwen2, Qwen3 and GPT-NeoX as Hugging Face's transformers defines them. The forward pass
 *  (decoderforward.h) follows the description; nothing else asks which family a model is. */

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

/** The architectures read through this description. */
enum class DecoderFamily { Llama, Qwen2, Qwen3, GptNeoX };

/** How a layer normalises its rows: RMSNorm (x / √(mean x² + ε) · w) or LayerNorm with a bias (biased variance). */
enum class NormKind { Rms, Layer };

/** The MLP: SwiGLU down(silu(gate(x)) · up(x)), or up, GELU, down (NeoX's dense_h_to_4h and dense_4h_to_h). */
enum class MlpKind { GatedSilu, Gelu };

/** The GELU NeoX's hidden_act names: "gelu" the exact erf form, "gelu_new" / "gelu_pytorch_tanh" the tanh form. */
enum class GeluForm { Erf, Tanh };

/** rope_scaling of type "llama3": the frequencies of long wavelengths divided by factor, a smooth blend between. */
struct Llama3Scaling {
    double factor = 8;
    double lowFreqFactor = 1;
    double highFreqFactor = 4;
    double originalPositions = 8192; ///< original_max_position_embeddings
};

/** One decoder layer and the model around it, every count checked against the others. */
struct DecoderConfig {
    DecoderFamily family = DecoderFamily::Llama;
    std::string architecture;  ///< config.json's architectures[0], e.g. "LlamaForCausalLM"
    int layers = 0;            ///< num_hidden_layers
    int dModel = 0;            ///< hidden_size
    int heads = 0;             ///< num_attention_heads
    int kvHeads = 0;           ///< num_key_value_heads: divides heads (query head i reads K/V head i / (heads/kvHeads))
    int headDim = 0;           ///< head_dim, or hidden_size / heads
    int intermediate = 0;      ///< intermediate_size
    int vocabSize = 0;         ///< vocab_size
    int positions = 0;         ///< max_position_embeddings: the longest text, in tokens
    NormKind norm = NormKind::Rms;
    double normEpsilon = 1e-6; ///< rms_norm_eps or layer_norm_eps
    int rotaryDims = 0;        ///< the first dims of each head that turn (even; headDim unless a fraction is given)
    double ropeTheta = 10000;  ///< rope_theta (NeoX: rotary_emb_base)
    std::optional<Llama3Scaling> ropeScaling;
    bool qkNorm = false;       ///< Qwen3's q_norm and k_norm: RMSNorm of each head's q and k before the rotation
    bool qkvBias = false;      ///< q, k and v projections have biases
    bool outputBias = false;   ///< the output projection has a bias
    bool mlpBias = false;      ///< the MLP's projections have biases
    bool fusedQkv = false;     ///< NeoX's query_key_value: rows per head, [head][q, k, v][headDim]
    MlpKind mlp = MlpKind::GatedSilu;
    GeluForm gelu = GeluForm::Erf;
    bool parallelResidual = false; ///< NeoX: x + attn(ln1(x)) + mlp(ln2(x)) instead of one after the other
    bool tiedHead = false;         ///< the logits use the token embeddings instead of a separate lm_head

    /** The query heads that share one K/V head. */
    int groupSize() const { return kvHeads ? heads / kvHeads : 0; }
    /** The rotary frequencies θ^(−2i/d_r), i < rotaryDims/2, with rope_scaling applied as transformers does. */
    std::vector<double> inverseFrequencies() const;
};

/** The largest integer accepted for any count of config.json (products of them stay far inside 64 bits). */
constexpr int maxDecoderSize = 1 << 24;

/** Reads config.json's text for one of the families. architectures[0] (or model_type when there is none) must name
 *  LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM or GPTNeoXForCausalLM; any other is refused by name. Requires
 *  the counts each family's configuration requires, each in 1 … maxDecoderSize, heads a multiple of the K/V heads,
 *  hidden_size a multiple of the heads where head_dim is not given, an even number of rotated dims, positive finite
 *  epsilon and theta, rope_scaling absent, null, of type "default" or a complete "llama3", hidden_act silu (GELU for
 *  NeoX) and no sliding window. Refuses anything else with error "<label>: <key>: <what is wrong>". */
std::optional<DecoderConfig> parseDecoderConfig(std::string_view json, const std::string& label, std::string& error);

/** Reads and checks the config.json at path; error names the path. */
std::optional<DecoderConfig> loadDecoderConfig(const std::string& path, std::string& error);

/** True when config.json's text names one of the families by architectures[0] or model_type (whether or not the
 *  rest of it reads): what a loader asks to choose between this description and GPT-2's. */
bool namesDecoderFamily(std::string_view json);
/** The same of folder/config.json; false when it cannot be read (the GPT-2 loader then says why). */
bool folderNamesDecoderFamily(const std::string& folder);

/** " (this program reads GPT2LMHeadModel, LlamaForCausalLM, …)": every architecture, GPT-2's first, as a refusal
 *  of an unknown one lists them. */
std::string supportedArchitecturesNote();

} // namespace core
