// Pretrained models: loading a HuggingFace folder or a GGUF file into the architecture it holds
// (bert.cpp, gpt2.cpp, llama.cpp — the Llama family — over the blocks of blocks.cpp), and the forward pass of any of
// them with every layer's attention computed by a Backend, within a memory budget.

#include "attnlab/pretrained.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/tokenizer.hpp"
#include "model/bert.hpp"
#include "model/gemma.hpp"
#include "model/gpt2.hpp"
#include "model/llama.hpp"

namespace attnlab {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// A forward pass allocates every layer's scores and weights (2·L·h·n² floats: 566 MB for
/// SmolLM2 at 512 tokens) and frees them with the run. By default glibc returns such blocks to the
/// kernel at once (mmap above its threshold, heap trimming), so the next pass page-faults and
/// zeroes the same memory again (~15 % of a MiniLM pass). Keeping freed memory for reuse avoids
/// that; resident memory then stays at the largest run's. Once per process, glibc only.
void keepFreedMemory() {
#ifdef __GLIBC__
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
#endif
}

}  // namespace

/// The k most probable tokens of softmax(logits), most probable first (softmax in double with
/// the maximum subtracted).
std::vector<NextToken> topNextTokens(const Eigen::VectorXf& logits, int k, const ModelTokenizer& tok) {
  const auto n = static_cast<int>(logits.size());
  if (n == 0) return {};
  const double m = logits.maxCoeff();
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += std::exp(static_cast<double>(logits[i]) - m);
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  const int top = std::min(k, n);
  std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int a, int b) {
    return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
  });
  std::vector<NextToken> out;
  for (int r = 0; r < top; ++r) {
    const int id = order[static_cast<std::size_t>(r)];
    NextToken t;
    t.id = id;
    t.label = tok.tokenLabel(id);
    t.bytes = tok.tokenBytes(id);
    // Appended rather than "#" + std::to_string(id), which GCC 12 wrongly flags (-Wrestrict).
    if (t.label.empty()) t.label.append("#").append(std::to_string(id));
    t.logit = logits[id];
    t.probability = std::exp(t.logit - m) / sum;
    out.push_back(std::move(t));
  }
  return out;
}

std::unique_ptr<PretrainedModel> PretrainedModel::load(const std::filesystem::path& path) {
  const auto t0 = Clock::now();
  keepFreedMemory();
  std::error_code ec;
  std::unique_ptr<PretrainedModel> model;
  if (std::filesystem::is_regular_file(path, ec)) {
    if (!isGgufFile(path)) {
      throw Error(ErrorCode::kIo, path.string() +
                                      " is neither a model folder nor a GGUF file (--model takes "
                                      "a HuggingFace model folder or a .gguf file)");
    }
    const GgufFile file(path);  // unmapped once the weights are dequantised
    // Dispatch on general.architecture; configFromGguf refuses an unknown one, naming those that
    // supportedArchitectures() lists.
    const bool gemma = gemma::readsGgufArchitecture(file.string("general.architecture").value_or(""));
    ModelConfig config = gemma ? gemma::configFromGguf(file) : llama::configFromGguf(file);
    auto tokenizer = loadGgufTokenizer(file);  // before the weights: a bad tokenizer fails fast
    model = gemma ? gemma::fromGguf(std::move(config), file) : llama::fromGguf(std::move(config), file);
    model->tokenizer_ = std::move(tokenizer);
    model->name_ = path.stem().string();
    // The tokens that end a generation: end of sequence, of turn, of message (llama.cpp's).
    for (const char* key : {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id",
                            "tokenizer.ggml.eom_token_id"}) {
      const std::optional<std::int64_t> id = file.integer(key);
      std::vector<int>& eos = model->config_.eos_token_ids;
      if (id && *id >= 0 && *id < model->config_.vocab_size &&
          std::find(eos.begin(), eos.end(), static_cast<int>(*id)) == eos.end())
        eos.push_back(static_cast<int>(*id));
    }
  } else {
    const std::filesystem::path& dir = path;
    if (!std::filesystem::is_directory(dir, ec)) {
      throw Error(ErrorCode::kIo, std::filesystem::exists(dir, ec)
                                      ? dir.string() + " is not a model folder or a GGUF file"
                                      : "model folder " + dir.string() + " does not exist");
    }
    ModelConfig config = readModelConfig(dir / "config.json");
    const std::filesystem::path weights = dir / "model.safetensors";
    if (!std::filesystem::exists(weights, ec)) {
      throw Error(ErrorCode::kIo,
                  "cannot read " + weights.string() +
                      ": the model folder needs model.safetensors (PyTorch .bin files are not read)");
    }
    {
      const SafeTensors file(weights);  // unmapped once the weights are copied out
      switch (config.architecture) {
        case Architecture::kBert:
          model = bert::fromSafetensors(std::move(config), file);
          break;
        case Architecture::kGpt2:
          model = gpt2::fromSafetensors(std::move(config), file);
          break;
        case Architecture::kLlama:
          model = llama::fromSafetensors(std::move(config), file);
          break;
        case Architecture::kGemma2:
        case Architecture::kGemma3:
          model = gemma::fromSafetensors(std::move(config), file);
          break;
      }
    }
    // The tokenizer files follow the architecture family (a Qwen2 folder's are a Llama's).
    model->tokenizer_ = loadModelTokenizer(dir, toString(model->config_.architecture));
    model->name_ = std::filesystem::absolute(dir, ec).lexically_normal().filename().string();
    if (model->name_.empty()) {
      model->name_ =
          std::filesystem::absolute(dir, ec).lexically_normal().parent_path().filename().string();
    }
  }
  if (model->tokenizer_->vocabSize() > model->config_.vocab_size) {
    throw Error(ErrorCode::kInvalidInput,
                "the tokenizer has " + std::to_string(model->tokenizer_->vocabSize()) +
                    " entries but the model only " + std::to_string(model->config_.vocab_size) +
                    " embeddings (tokenizer files from another model?)");
  }
  model->dir_ = path;
  model->load_ms_ = msSince(t0);
  return model;
}

Encoding PretrainedModel::encode(std::string_view text, std::optional<std::string_view> pair) const {
  if (pair && config_.architecture != Architecture::kBert) {
    throw Error(ErrorCode::kInvalidArgument,
                "sentence pairs need a BERT-family model; " + name_ + " is " + config_.model_type);
  }
  // Empty text is refused, and so is text the model's tokenizer turns into nothing — a rule of
  // the tokenizer (GPT-2's byte-level BPE reads white space as tokens: "\n\n" is two; BERT's
  // WordPiece drops white space, control and format characters), said in its own words.
  if (text.empty()) throw Error(ErrorCode::kInvalidInput, "the text is empty");
  if (pair && pair->empty())
    throw Error(ErrorCode::kInvalidInput, "the second text (--pair) is empty");
  Encoding encoding = tokenizer_->encode(text, pair);  // checks UTF-8 and names the text
  auto requireTokens = [&](std::string_view t, const char* what) {
    if (tokenizer_->countTextTokens(t) == 0) {
      throw Error(ErrorCode::kInvalidInput,
                  std::string(what) + " has no tokens (" + tokenizer_->noTokensReason() + ")");
    }
  };
  requireTokens(text, "the text");
  if (pair) requireTokens(*pair, "the second text (--pair)");
  return encoding;
}

ModelRun PretrainedModel::run(std::string_view text, std::optional<std::string_view> pair,
                              const ModelRunOptions& options, Backend& backend) const {
  const auto t0 = Clock::now();
  Encoding encoding = encode(text, pair);
  ModelRun run = runIds(encoding, options, backend);
  run.encoding = std::move(encoding);
  run.compute_ms = msSince(t0);
  return run;
}

long long ModelRunOptions::budget() const {
  return memory_budget > 0 ? memory_budget : defaultMemoryBudget();
}

int PretrainedModel::keptLayers(const ModelRunOptions& options) const {
  if (options.layer) return 1;
  return options.overview_block >= 1 ? 0 : config_.layers;
}

int PretrainedModel::overviewLayers(const ModelRunOptions& options) const {
  return options.overview_block >= 1 ? config_.layers - keptLayers(options) : 0;
}

int PretrainedModel::lastLayerRun(const ModelRunOptions& options) const {
  // Predictions and overviews need the whole pass; without them the pass stops at the layer
  // asked for.
  const bool predict = options.next_tokens > 0 && hasOutputLayer();
  return options.layer && !predict && options.overview_block < 1 ? *options.layer
                                                                 : config_.layers - 1;
}

long long PretrainedModel::attentionBytes(int tokens, const ModelRunOptions& options) const {
  const long long n = std::max(tokens, 0), h = config_.heads, d = config_.dK();
  const long long per_layer = h * n * n * 2 * 4 + h * n * d * 4 + h * n * 5 * 4;
  const long long kept = keptLayers(options);
  // A layer not kept is held while it runs; none is held beside a kept layer that is the last
  // one run (the layers before it were let go by then).
  const int last = lastLayerRun(options);
  const bool kept_last = options.layer && *options.layer == last;
  const long long in_flight = kept < last + 1 && !kept_last ? 1 : 0;
  const long long pooled =
      options.overview_block >= 1
          ? overviewLayers(options) *
                PooledAttention::bytes(config_.heads, static_cast<int>(n), static_cast<int>(n),
                                       options.overview_block)
          : 0;
  return (kept + in_flight) * per_layer + pooled;
}

AttentionSpec PretrainedModel::attentionSpec(const ModelRunOptions& options) const {
  if (options.mechanism == Mechanism::kAdditive) {
    throw Error(ErrorCode::kInvalidArgument,
                "a pretrained model's heads are dot-product attention; additive attention is the "
                "synthetic lab's");
  }
  AttentionSpec spec;
  spec.mechanism =
      options.mechanism.value_or(config_.scale_attention ? Mechanism::kScaled : Mechanism::kDot);
  spec.mask = config_.mask();
  spec.heads = config_.heads;
  spec.kv_heads = config_.resolvedKvHeads();
  spec.d_model = config_.d_model;
  spec.d_k = config_.dK();
  spec.d_v = config_.dK();
  spec.temperature = options.temperature;
  spec.scale_width = config_.scale_width;  // Gemma's 1/√query_pre_attn_scalar (0: 1/√d_k)
  spec.score_cap = config_.attn_softcap;   // Gemma 2's soft-cap, whatever the scaling
  spec.validate();
  return spec;
}

Matrix PretrainedModel::embedAt(const std::vector<int>& /*ids*/, int /*first_position*/) const {
  throw Error(ErrorCode::kInvalidArgument,
              name_ + " is " + config_.model_type + ", an encoder: it does not generate");
}

Matrix PretrainedModel::layerAt(int /*l*/, const Matrix& /*x*/, int /*first_position*/,
                                const StepAttend& /*attend*/) const {
  throw Error(ErrorCode::kInvalidArgument,
              name_ + " is " + config_.model_type + ", an encoder: it does not generate");
}

ModelRun PretrainedModel::runIds(const Encoding& encoding, const ModelRunOptions& options,
                                 Backend& backend) const {
  const auto t0 = Clock::now();
  const auto n = static_cast<int>(encoding.ids.size());
  if (n == 0) throw Error(ErrorCode::kInvalidInput, "the text gives no tokens");
  if (n > config_.max_positions) {
    throw Error(ErrorCode::kInvalidInput, "the text is " + std::to_string(n) + " tokens; " + name_ +
                                              " reads at most " +
                                              std::to_string(config_.max_positions));
  }
  if (config_.agreed_positions > 0 && n > config_.agreed_positions) {
    throw Error(ErrorCode::kInvalidArgument,
                "the text is " + std::to_string(n) + " tokens, more than " +
                    std::to_string(config_.agreed_positions) + ": beyond that config.json's " +
                    config_.agreed_positions_field + " is not supported");
  }
  for (int id : encoding.ids) {
    if (id < 0 || id >= config_.vocab_size) {
      throw Error(ErrorCode::kInvalidInput, "token id " + std::to_string(id) +
                                                " is outside the vocabulary of " +
                                                std::to_string(config_.vocab_size));
    }
  }
  if (!encoding.type_ids.empty() && encoding.type_ids.size() != encoding.ids.size()) {
    throw Error(ErrorCode::kInvalidArgument, "token type ids and ids differ in length");
  }
  if (options.layer && (*options.layer < 0 || *options.layer >= config_.layers)) {
    throw Error(ErrorCode::kInvalidArgument, "layer " + std::to_string(*options.layer) +
                                                 " does not exist: " + name_ + " has layers 0–" +
                                                 std::to_string(config_.layers - 1));
  }
  if (options.overview_block < 0) {
    throw Error(ErrorCode::kInvalidArgument, "the overview block must be ≥ 1 token (0: none)");
  }
  if (options.next_tokens < 0) {
    throw Error(ErrorCode::kInvalidArgument, "the number of next-token predictions must be ≥ 0");
  }
  const AttentionSpec spec = attentionSpec(options);

  ModelRun run;
  run.encoding.ids = encoding.ids;
  run.encoding.type_ids = encoding.type_ids;
  run.encoding.special.assign(encoding.ids.size(), false);
  for (int id : encoding.ids) run.encoding.labels.push_back(std::to_string(id));
  run.kv_heads = config_.resolvedKvHeads();
  for (int i = 0; i < config_.heads; ++i) run.kv_head.push_back(config_.kvHeadOf(i));
  const bool predict = options.next_tokens > 0 && hasOutputLayer();
  const int last = lastLayerRun(options);
  const long long needed = attentionBytes(n, options);
  const long long budget = options.budget();
  if (needed > budget) {
    throw Error(ErrorCode::kInvalidInput,
                "this run would keep " + formatBytes(needed) + " of attention (" +
                    std::to_string(std::max(keptLayers(options), 1)) + " layers × " +
                    std::to_string(config_.heads) + " heads × " + std::to_string(n) +
                    "² scores and weights), more than the memory budget of " + formatBytes(budget) +
                    ": choose one layer (--layer), fewer tokens, or a larger --memory-budget");
  }
  Matrix x = embed(encoding);
  for (int l = 0; l <= last; ++l) {
    AttentionResult attention;
    AttentionSpec layer_spec = spec;
    layer_spec.window = config_.windowOf(l);  // local layers' sliding window (0: global)
    x = layer(l, x, layer_spec, backend, &attention);
    const bool full = options.layer ? l == *options.layer : options.overview_block < 1;
    if (full) {
      run.attention.push_back(std::move(attention));
      run.layers.push_back(l);
    } else if (options.overview_block >= 1) {
      run.overviews.push_back(poolWeights(attention, options.overview_block));
      run.overview_layers.push_back(l);
    }
    if (options.progress && !options.progress(l + 1, last + 1)) {
      throw Error(ErrorCode::kCancelled, "the forward pass was cancelled");
    }
  }
  if (predict) run.next_tokens = topNextTokens(logits(x), options.next_tokens, *tokenizer_);
  run.hidden = std::move(x);
  run.compute_ms = msSince(t0);
  return run;
}

}  // namespace attnlab
