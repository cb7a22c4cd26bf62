#pragma once
/// \file blocks.hpp
/// Private to the engine: the pieces the transformer architectures (bert.cpp, gpt2.cpp,
/// llama.cpp) are built from — normalisations, activations, dense layers, the weight reader of a
/// safetensors checkpoint, and multi-head attention from packed Q | K | V projections. Matrices are
/// row-major [n, features], one row per token.

#include <initializer_list>
#include <string>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/tensor.hpp"
#include "model/linear.hpp"

namespace attnlab::blocks {

// --- Normalisation ------------------------------------------------------------------------------

/// LayerNorm over each row of x [n, d] (Ba, Kiros & Hinton 2016): (x − mean) / √(var + eps) · γ
/// + β, mean and variance in double, the variance biased (divided by d) as PyTorch computes it.
/// gamma, beta [d].
Matrix layerNorm(const Matrix& x, const Vector& gamma, const Vector& beta, double eps);

/// RMSNorm of each row of x [n, d] (Zhang & Sennrich 2019, eq. 4): x / √(mean(x²) + eps) · g, the
/// mean of squares in double, then HuggingFace's order (x times the inverse root, then the gain).
/// gain [d].
Matrix rmsNorm(const Matrix& x, const Vector& gain, double eps);

/// RMSNorm (as rmsNorm) of the row x [1, d] as a linear map frozen at its scale: scale =
/// gain / √(mean(x²) + eps) [d], bias 0, centre false (direct logit attribution).
PretrainedModel::FrozenNorm frozenRmsNorm(const Matrix& x, const Vector& gain, double eps);
/// LayerNorm (as layerNorm) of the row x [1, d] frozen: centre true, scale = γ / √(var + eps),
/// bias β.
PretrainedModel::FrozenNorm frozenLayerNorm(const Matrix& x, const Vector& gamma,
                                            const Vector& beta, double eps);

// --- Activations --------------------------------------------------------------------------------

/// The feed-forward activations of the supported checkpoints.
enum class Activation {
  kGeluErf,   ///< x Φ(x) (Hendrycks & Gimpel 2016, eq. 1): "gelu".
  kGeluTanh,  ///< GELU's tanh approximation (ibid., §2): "gelu_new", "gelu_pytorch_tanh", …
  kRelu,      ///< max(x, 0): "relu".
  kSilu,      ///< x σ(x) (Elfwing, Uchibe & Doya 2018): "silu", "swish".
};

/// The activation a config.json names (hidden_act / activation_function). Throws
/// Error(kInvalidArgument) "config.json: activation "NAME" is not supported (…)".
Activation parseActivation(const std::string& name);

/// Applies `activation` to every element of x in place (rows split across the OpenMP threads for
/// large inputs: the same numbers).
void activate(Matrix& x, Activation activation);

/// SwiGLU's hidden layer (Shazeer 2020, eq. 6): from gu [n, 2·d_ff] holding x W_gate in columns
/// [0, d_ff) and x W_up in [d_ff, 2·d_ff), returns SiLU(x W_gate) ⊙ x W_up [n, d_ff] (SiLU as
/// activate's kSilu, HuggingFace's nn.functional.silu).
Matrix swiGlu(const Matrix& gu, int d_ff);

// --- Dense layers and weights -------------------------------------------------------------------

/// A dense layer y = x Wᵀ + b with W stored [out, in] (PyTorch's nn.Linear) or y = x W + b with W
/// stored [in, out] (GPT-2's Conv1D); kept as [in, out] so both multiply the same way.
struct Dense {
  Matrix w;                      ///< [in, out] while loading; emptied by pack().
  Vector b;                      ///< [out].
  linear::PackedWeights packed;  ///< Wᵀ packed for the product (linear.hpp).
  /// Packs w for apply() and frees it.
  void pack();
  /// x W + b for x [n, in]: [n, out].
  Matrix apply(const Matrix& x) const { return linear::timesTransposed(x, packed, b); }
  /// (x W + b) + residual [n, out], the skip connection added inside the product.
  Matrix apply(const Matrix& x, const Matrix& residual) const {
    return linear::timesTransposed(x, packed, b, residual);
  }
};

/// The weights of one safetensors file, looked up with an optional name prefix ("bert.",
/// "transformer.") and shape-checked. Every look-up throws Error(kInvalidInput) naming the
/// tensor when it is missing or has another shape.
class WeightReader {
 public:
  WeightReader(const SafeTensors& file, std::string prefix)
      : file_(file), prefix_(std::move(prefix)) {}
  /// A [rows, cols] tensor.
  Matrix matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) const;
  /// A tensor of shape [n].
  Vector vector(const std::string& name, Eigen::Index n) const;
  /// nn.Linear NAME.weight [out, in] (returned as [in, out]) and NAME.bias [out].
  Dense linear(const std::string& name, Eigen::Index in, Eigen::Index out) const;
  /// GPT-2's Conv1D NAME.weight, stored [in, out] already, and NAME.bias [out].
  Dense conv1d(const std::string& name, Eigen::Index in, Eigen::Index out) const;

 private:
  const SafeTensors& file_;
  std::string prefix_;
};

/// The prefix under which `probe` exists in `file`: "" or one of `candidates`. Throws
/// Error(kInvalidInput) "FILE has no tensor PROBE (is it a checkpoint of this architecture?)".
std::string findPrefix(const SafeTensors& file, const std::string& probe,
                       std::initializer_list<const char*> candidates);

/// One post- or pre-LayerNorm transformer block's weights (BERT, GPT-2: the same pieces, only
/// their order and the LayerNorm placement differ). qkv packs W_Q | W_K | W_V as
/// [d_model, 3·d_model].
struct BlockWeights {
  Dense qkv, out, ff_in, ff_out;
  Vector ln1_gamma, ln1_beta, ln2_gamma, ln2_beta;
  /// Packs every dense layer (Dense::pack).
  void pack();
};

// --- Attention ----------------------------------------------------------------------------------

/// Splits columns [col0, col0 + heads·d) of x [n, ·] into heads [heads, n, d], head h from columns
/// col0 + h·d onward.
Tensor3 splitHeads(const Matrix& x, Eigen::Index col0, int heads, int d);

/// splitHeads into several tensors at once, in one parallel region: outs[0] (already shaped
/// [h₀, n, w₀], n = x.rows()) takes its h₀ heads of w₀ columns each from column col0 on, outs[1]
/// the next h₁ heads of w₁ columns, and so on (Q | K | V of a packed projection). Requires the
/// columns to exist (not checked).
void splitHeadsInto(const Matrix& x, Eigen::Index col0, std::initializer_list<Tensor3*> outs);

/// Rows [first, first + n) of a RoPE table as a table of their own (first = table.first + first),
/// for a step that rotates the tokens at positions first … with the cos/sin rows of the full
/// pass (the same float32 values). Requires first + n ≤ table.positions (not checked).
RopeTable ropeRows(const RopeTable& table, int first, int n);

/// Concatenates per-head outputs [heads, n, d] into [n, heads·d], heads in order.
Matrix mergeHeads(const Tensor3& heads);

/// Multi-head self-attention from packed projections qkv [n, (h + 2G)·d] — the h query heads, then
/// the G key heads, then the G value heads, each d columns wide (G = h for multi-head attention,
/// G dividing h for grouped-query attention, Ainslie et al. 2023): splits the heads, computes on
/// `backend` with `spec` (whose heads and kv_heads are h and G; the result lands in *attention)
/// and returns the concatenated head outputs [n, h·d]. Throws what Backend::compute throws.
Matrix attend(const Matrix& qkv, int heads, int kv_heads, int d, const AttentionSpec& spec,
              Backend& backend, AttentionResult* attention);

}  // namespace attnlab::blocks
