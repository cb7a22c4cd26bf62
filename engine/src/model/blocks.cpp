// The shared blocks of the transformer architectures (blocks.hpp).

#include "model/blocks.hpp"

#include <omp.h>

#include <cmath>
#include <unsupported/Eigen/SpecialFunctions>
#include <vector>

#include "attnlab/error.hpp"
#include "cpu/row_sums.hpp"
#include "model/intervention_hook.hpp"

namespace attnlab::blocks {
namespace {

/// Row-wise work (norms, activations) is split across the threads from this many elements up:
/// about 20 rows of d_model = 384 (a fork and join costs a few microseconds; a row's LayerNorm
/// about a microsecond). Each row is computed the same whichever thread takes it.
constexpr Eigen::Index kParallelElements = 1 << 13;

/// SiLU(z) = z·σ(z) (Elfwing, Uchibe & Doya 2018; HuggingFace's nn.functional.silu), elementwise
/// on an Eigen array expression with Eigen's vectorised exp.
template <class Array>
auto silu(const Array& z) {
  return z / (1.0f + (-z).exp());
}

/// Σ p_j over n floats, in double, in eight interleaved partial sums (vectorised; a single running
/// sum is one dependent addition per element; Σ (p_j − c)² is rows::squaredDeviations).
double sumOf(const float* p, Eigen::Index n) {
  double part[8] = {};
  Eigen::Index j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) part[l] += static_cast<double>(p[j + l]);
  double total = 0;
  for (; j < n; ++j) total += static_cast<double>(p[j]);
  for (double v : part) total += v;
  return total;
}

}  // namespace

Matrix layerNorm(const Matrix& x, const Vector& gamma, const Vector& beta, double eps) {
  Matrix out(x.rows(), x.cols());
  // Rows are independent: split across the threads (the same numbers).
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && x.size() >= kParallelElements)
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto row = x.row(i);
    const auto cols = static_cast<double>(x.cols());
    const double mean = sumOf(row.data(), x.cols()) / cols;
    const double var = rows::squaredDeviations(row.data(), x.cols(), mean) / cols;
    const auto inv = static_cast<float>(1.0 / std::sqrt(var + eps));
    out.row(i) = ((row.array() - static_cast<float>(mean)) * inv * gamma.transpose().array() +
                  beta.transpose().array())
                     .matrix();
  }
  return out;
}

Matrix rmsNorm(const Matrix& x, const Vector& gain, double eps) {
  Matrix out(x.rows(), x.cols());
  // Rows are independent: split across the threads (the same numbers).
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && x.size() >= kParallelElements)
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const double ms = rows::squaredDeviations(x.row(i).data(), x.cols(), 0.0) / static_cast<double>(x.cols());
    const auto inv = static_cast<float>(1.0 / std::sqrt(static_cast<float>(ms) + eps));
    out.row(i) = ((x.row(i).array() * inv) * gain.transpose().array()).matrix();
  }
  return out;
}

PretrainedModel::FrozenNorm frozenRmsNorm(const Matrix& x, const Vector& gain, double eps) {
  const double ms = rows::squaredDeviations(x.row(0).data(), x.cols(), 0.0) / static_cast<double>(x.cols());
  const auto inv = static_cast<float>(1.0 / std::sqrt(static_cast<float>(ms) + eps));
  PretrainedModel::FrozenNorm norm;
  norm.scale = gain * inv;
  norm.bias = Vector::Zero(gain.size());
  return norm;
}

PretrainedModel::FrozenNorm frozenLayerNorm(const Matrix& x, const Vector& gamma,
                                            const Vector& beta, double eps) {
  const auto cols = static_cast<double>(x.cols());
  const double mean = sumOf(x.row(0).data(), x.cols()) / cols;
  const double var = rows::squaredDeviations(x.row(0).data(), x.cols(), mean) / cols;
  const auto inv = static_cast<float>(1.0 / std::sqrt(var + eps));
  PretrainedModel::FrozenNorm norm;
  norm.centre = true;
  norm.scale = gamma * inv;
  norm.bias = beta;
  return norm;
}

Activation parseActivation(const std::string& name) {
  if (name == "gelu") return Activation::kGeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
    return Activation::kGeluTanh;
  if (name == "relu") return Activation::kRelu;
  if (name == "silu" || name == "swish") return Activation::kSilu;
  throw Error(ErrorCode::kInvalidArgument,
              "config.json: activation \"" + name +
                  "\" is not supported (gelu, gelu_new, relu, silu are)");
}

void activate(Matrix& x, Activation activation) {
  float* p = x.data();
  const Eigen::Index n = x.size();
  switch (activation) {
    case Activation::kGeluErf: {  // x Φ(x) (Hendrycks & Gimpel 2016, eq. 1); Eigen's vectorised erf
      // In chunks of whole rows across the threads (elementwise: the same numbers).
      const Eigen::Index cols = x.cols(), rows = x.rows();
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= kParallelElements)
      for (Eigen::Index r = 0; r < rows; ++r) {
        Eigen::Map<Eigen::ArrayXf> a(p + r * cols, cols);
        a = 0.5f * a * (1.0f + (a * 0.70710678118654752f).erf());
      }
      break;
    }
    case Activation::kGeluTanh:  // tanh approximation (Hendrycks & Gimpel 2016, §2)
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= kParallelElements)
      for (Eigen::Index i = 0; i < n; ++i) {
        const float v = p[i];
        p[i] = 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
      }
      break;
    case Activation::kRelu:
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= kParallelElements)
      for (Eigen::Index i = 0; i < n; ++i) p[i] = p[i] > 0 ? p[i] : 0.0f;
      break;
    case Activation::kSilu: {  // the same SiLU as swiGlu's, a row at a time
      const Eigen::Index cols = x.cols(), rows = x.rows();
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= kParallelElements)
      for (Eigen::Index r = 0; r < rows; ++r) {
        Eigen::Map<Eigen::ArrayXf> a(p + r * cols, cols);
        a = silu(a);
      }
      break;
    }
  }
}

Matrix swiGlu(const Matrix& gu, int d_ff) {
  const Eigen::Index n = gu.rows();
  const auto ff = static_cast<Eigen::Index>(d_ff);
  Matrix act(n, ff);
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && act.size() >= kParallelElements)
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto gate = gu.row(i).head(ff).array();
    const auto up = gu.row(i).tail(ff).array();
    act.row(i) = (silu(gate) * up).matrix();
  }
  return act;
}

void Dense::pack() {
  packed = linear::PackedWeights(w.transpose());
  w.resize(0, 0);
}

Matrix WeightReader::matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) const {
  return file_.matrix(prefix_ + name, rows, cols);
}

Vector WeightReader::vector(const std::string& name, Eigen::Index n) const {
  const TensorView& t = file_.tensor(prefix_ + name);
  if (t.shape.size() != 1 || t.shape[0] != n) {
    throw Error(ErrorCode::kInvalidInput, file_.path().filename().string() + ": tensor " + t.name +
                                              " should have shape [" + std::to_string(n) + "]");
  }
  const std::vector<float> v = file_.floats(prefix_ + name);
  return Eigen::Map<const Vector>(v.data(), n);
}

Dense WeightReader::linear(const std::string& name, Eigen::Index in, Eigen::Index out) const {
  Dense d;
  d.w = matrix(name + ".weight", out, in).transpose();
  d.b = vector(name + ".bias", out);
  return d;
}

Dense WeightReader::conv1d(const std::string& name, Eigen::Index in, Eigen::Index out) const {
  Dense d;
  d.w = matrix(name + ".weight", in, out);
  d.b = vector(name + ".bias", out);
  return d;
}

std::string findPrefix(const SafeTensors& file, const std::string& probe,
                       std::initializer_list<const char*> candidates) {
  if (file.contains(probe)) return "";
  for (const char* prefix : candidates) {
    if (file.contains(prefix + probe)) return prefix;
  }
  throw Error(ErrorCode::kInvalidInput, file.path().filename().string() + " has no tensor " +
                                            probe + " (is it a checkpoint of this architecture?)");
}

void BlockWeights::pack() {
  for (Dense* d : {&qkv, &out, &ff_in, &ff_out}) d->pack();
}

Tensor3 splitHeads(const Matrix& x, Eigen::Index col0, int heads, int d) {
  Tensor3 out(heads, static_cast<int>(x.rows()), d, Tensor3::Unfilled{});  // every head written below
  splitHeadsInto(x, col0, {&out});
  return out;
}

void splitHeadsInto(const Matrix& x, Eigen::Index col0, std::initializer_list<Tensor3*> outs) {
  // One list of (tensor, head, first column) for every head of every output, so that all of them
  // are copied in one meeting of the threads (copies: the same numbers whichever thread).
  struct Part {
    Tensor3* t;
    int head;
    Eigen::Index col;
  };
  std::vector<Part> parts;
  Eigen::Index col = col0;
  for (Tensor3* t : outs)
    for (int head = 0; head < t->h; ++head, col += t->cols) parts.push_back({t, head, col});
  const auto count = static_cast<int>(parts.size());
#pragma omp parallel for schedule(static) \
    if (!omp_in_parallel() && x.rows() * (col - col0) >= kParallelElements)
  for (int i = 0; i < count; ++i) {
    const Part& p = parts[static_cast<std::size_t>(i)];
    p.t->head(p.head) = x.middleCols(p.col, p.t->cols);
  }
}

RopeTable ropeRows(const RopeTable& table, int first, int n) {
  RopeTable rows;
  rows.positions = n;
  rows.rotary_dims = table.rotary_dims;
  rows.first = table.first + first;
  const auto half = static_cast<std::size_t>(table.rotary_dims / 2);
  const auto begin = static_cast<std::size_t>(first) * half;
  const auto end = begin + static_cast<std::size_t>(n) * half;
  rows.cos.assign(table.cos.begin() + static_cast<std::ptrdiff_t>(begin),
                  table.cos.begin() + static_cast<std::ptrdiff_t>(end));
  rows.sin.assign(table.sin.begin() + static_cast<std::ptrdiff_t>(begin),
                  table.sin.begin() + static_cast<std::ptrdiff_t>(end));
  return rows;
}

Matrix mergeHeads(const Tensor3& heads) {
  Matrix out(heads.rows, static_cast<Eigen::Index>(heads.h) * heads.cols);
#pragma omp parallel for schedule(static) \
    if (!omp_in_parallel() && out.size() >= kParallelElements)
  for (int h = 0; h < heads.h; ++h)
    out.middleCols(static_cast<Eigen::Index>(h) * heads.cols, heads.cols) = heads.head(h);
  return out;
}

Matrix attend(const Matrix& qkv, int heads, int kv_heads, int d, const AttentionSpec& spec,
              Backend& backend, AttentionResult* attention) {
  AttentionInputs inputs;
  const int rows = static_cast<int>(qkv.rows());
  inputs.q = Tensor3(heads, rows, d, Tensor3::Unfilled{});  // every head written below
  inputs.k = Tensor3(kv_heads, rows, d, Tensor3::Unfilled{});
  inputs.v = Tensor3(kv_heads, rows, d, Tensor3::Unfilled{});
  splitHeadsInto(qkv, 0, {&inputs.q, &inputs.k, &inputs.v});  // h + 2G heads, one region
  *attention = backend.compute(inputs, spec);
  Matrix context = mergeHeads(attention->head_outputs);
  // A pass with interventions (ablation, patching, kept context) sees every layer's heads here.
  if (const interventions::PassHook* hook = interventions::activeHook()) {
    hook->apply(context, inputs, spec, attention);
  }
  return context;
}

}  // namespace attnlab::blocks
