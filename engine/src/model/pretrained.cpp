// Pretrained models: loading a HuggingFace folder or a GGUF file into the architecture it holds
// (bert.cpp, gpt2.cpp, llama.cpp — the Llama family — over the blocks of blocks.cpp), and the forward pass of any of
// them with every layer's attention computed by a Backend, within a memory budget.

#include "attnlab/pretrained.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <mutex>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/tokenizer.hpp"
#include "model/intervention_hook.hpp"
#include "model/weight_matrix.hpp"
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

/// The tensors' bytes by type, most bytes first.
WeightBytes sizesByType(const std::map<std::string, long long>& bytes) {
  WeightBytes w;
  for (const auto& [type, b] : bytes) {
    w.total += b;
    w.by_type.emplace_back(type, b);
  }
  std::stable_sort(w.by_type.begin(), w.by_type.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return w;
}

/// A GGUF file's weights as the engine holds them: every tensor as stored. Throws
/// Error(kInvalidInput) naming the first tensor of a type the engine does not read, before any
/// weight is read.
WeightBytes ggufWeights(const GgufFile& file) {
  std::map<std::string, long long> bytes;
  for (const GgufTensor& t : file.tensors()) {
    const GgmlTypeInfo* info = ggmlTypeInfo(t.type);
    if (!info->dequantisable) {
      throw Error(ErrorCode::kInvalidInput,
                  file.path().filename().string() + ": tensor " + t.name + " is " +
                      std::string(info->name) + ", which this engine cannot dequantise (it reads " +
                      dequantisableTypeNames() + ")");
    }
    bytes[std::string(info->name)] += static_cast<long long>(t.bytes);
  }
  return sizesByType(bytes);
}

/// A folder's weights as the engine holds them: the Llama family's and Gemma's as stored (F32,
/// F16, BF16; other dtypes as float32 copies), BERT's and GPT-2's as float32 copies.
WeightBytes safetensorsWeights(const SafeTensors& file, Architecture a) {
  const bool stored =
      a == Architecture::kLlama || a == Architecture::kGemma2 || a == Architecture::kGemma3;
  std::map<std::string, long long> bytes;
  for (const auto& [name, t] : file.tensors()) {
    const bool as_is = stored && (t.dtype == DType::kF32 || t.dtype == DType::kF16 ||
                                  t.dtype == DType::kBF16);
    if (as_is) {
      bytes[std::string(dtypeName(t.dtype))] += static_cast<long long>(t.bytes);
    } else {
      bytes["F32"] += static_cast<long long>(t.elements()) * 4;
    }
  }
  return sizesByType(bytes);
}

/// Refuses weights of `bytes` that are more than the memory available now (memory.hpp), naming
/// the sizes: before a file is mapped (its size) and once its header is read (its tensors).
void requireRoomFor(const std::string& what, long long bytes, const WeightBytes* types) {
  const long long available = availableMemoryBytes();
  if (bytes <= available) return;
  std::string detail;
  if (types != nullptr) {
    for (const auto& [type, b] : types->by_type) {
      detail += (detail.empty() ? " (" : ", ") + type + " " + formatBytes(b);
    }
    if (!detail.empty()) detail += ")";
  }
  throw Error(ErrorCode::kInvalidInput,
              what + ": its weights take " + formatBytes(bytes) + " in memory" + detail +
                  ", more than the " + formatBytes(available) +
                  " available now: close other programs, or choose a smaller model or "
                  "quantisation");
}

/// The model name PretrainedModel::load gives a folder.
std::string folderName(const std::filesystem::path& dir) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(dir, ec).lexically_normal();
  std::string name = abs.filename().string();
  return name.empty() ? abs.parent_path().filename().string() : name;
}

/// Refuses what is neither a GGUF file nor a folder, as load() does.
void requireModelPath(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    if (!isGgufFile(path)) {
      throw Error(ErrorCode::kIo, path.string() +
                                      " is neither a model folder nor a GGUF file (--model takes "
                                      "a HuggingFace model folder or a .gguf file)");
    }
    return;
  }
  if (!std::filesystem::is_directory(path, ec)) {
    throw Error(ErrorCode::kIo, std::filesystem::exists(path, ec)
                                    ? path.string() + " is not a model folder or a GGUF file"
                                    : (path.extension() == ".gguf" ? "GGUF file " : "model folder ") +
                                          path.string() + " does not exist");
  }
}

/// The folder's model.safetensors, else its shard index model.safetensors.index.json (sharded
/// weights); refused by name when neither is there.
std::filesystem::path safetensorsOf(const std::filesystem::path& dir) {
  std::error_code ec;
  const std::filesystem::path weights = dir / "model.safetensors";
  if (std::filesystem::exists(weights, ec)) return weights;
  const std::filesystem::path index = dir / "model.safetensors.index.json";
  if (std::filesystem::exists(index, ec)) return index;
  throw Error(ErrorCode::kIo,
              "cannot read " + weights.string() +
                  ": the model folder needs model.safetensors or model.safetensors.index.json "
                  "with its shards (PyTorch .bin files are not read)");
}

/// A GGUF file's model name: its stem, without gguf-split's "-00001-of-00003"; a file named by its
/// digest (Ollama's blobs/sha256-HEX) by its general.name when it has one.
std::string ggufName(const std::filesystem::path& path, const GgufFile& file) {
  if (path.filename().string().rfind("sha256-", 0) == 0) {
    const std::optional<std::string> name = file.string("general.name");
    if (name && !name->empty() && name->find('\n') == std::string::npos) return *name;
  }
  std::string stem = path.stem().string();
  const std::size_t at = stem.size() >= 15 ? stem.size() - 15 : std::string::npos;
  if (at != std::string::npos && stem[at] == '-' && stem.compare(at + 6, 4, "-of-") == 0 &&
      std::all_of(stem.begin() + static_cast<long>(at) + 1, stem.begin() + static_cast<long>(at) + 6, ::isdigit) &&
      std::all_of(stem.begin() + static_cast<long>(at) + 10, stem.end(), ::isdigit))
    stem.resize(at);
  return stem;
}

ModelConfig ggufConfig(const GgufFile& file) {
  // Dispatch on general.architecture; configFromGguf refuses an unknown one, naming those that
  // supportedArchitectures() lists.
  const bool gemma = gemma::readsGgufArchitecture(file.string("general.architecture").value_or(""));
  return gemma ? gemma::configFromGguf(file) : llama::configFromGguf(file);
}

}  // namespace

ModelFileInfo inspectModel(const std::filesystem::path& path) {
  requireModelPath(path);
  ModelFileInfo info;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    const GgufFile file(path);  // the header is read; no tensor's bytes are touched
    info.config = ggufConfig(file);
    info.weights = ggufWeights(file);
    info.name = ggufName(path, file);
    info.file_bytes = static_cast<long long>(file.totalBytes());
    return info;
  }
  info.config = readModelConfig(path / "config.json");
  const SafeTensors file(safetensorsOf(path));
  info.config.format = "safetensors";
  info.weights = safetensorsWeights(file, info.config.architecture);
  info.name = folderName(path);
  info.file_bytes = static_cast<long long>(file.totalBytes());
  return info;
}

long long activationBytes(const ModelConfig& c, int tokens) {
  const long long n = std::max(tokens, 0), d = c.d_model, h = c.heads;
  const long long g = c.resolvedKvHeads(), dk = c.dK(), ff = c.d_ff;
  // A layer's input, the normed input, Q | K | V, the head outputs, the residual sum, W_gate |
  // W_up, the gated product and the output, float32, all alive at the feed-forward's end; the
  // panels each thread dequantises (32 columns of the widest input); the logits of one position.
  const long long step = 4 * n * (4 * d + (2 * h + 2 * g) * dk + 3 * ff);
  const long long panels = 4LL * omp_get_max_threads() * 32 * std::max(d, ff);
  const long long logits = 8LL * c.vocab_size;
  return step + panels + logits;
}

/// The k most probable tokens of softmax(logits), most probable first (ties to the lower id): one
/// pass keeps the k largest logits; the normaliser Σ exp(z − max) takes the float32 exponentials
/// of the whole vocabulary (Eigen's vectorised exp, within 2 ulp) summed in double, each kept
/// token's probability its own exponential in double over it. A step of a 262 144-token
/// vocabulary took 6 % of Gemma 3 270M's generation with a double exp per entry.
std::vector<NextToken> topNextTokens(const Eigen::VectorXf& logits, int k, const ModelTokenizer& tok) {
  const auto n = static_cast<int>(logits.size());
  if (n == 0) return {};
  const float max = logits.maxCoeff();
  const double m = max;
  const double sum = (logits.array() - max).exp().cast<double>().sum();
  const int top = std::min(k, n);
  std::vector<int> best;  // the ids of the `top` largest logits so far, largest first
  best.reserve(static_cast<std::size_t>(top) + 1);
  for (int i = 0; i < n && top > 0; ++i) {
    const float z = logits[i];
    if (static_cast<int>(best.size()) == top && !(z > logits[best.back()])) continue;
    // After every kept logit ≥ z: an equal one seen earlier (a lower id) stays ahead.
    auto at = std::find_if(best.begin(), best.end(), [&](int j) { return logits[j] < z; });
    best.insert(at, i);
    if (static_cast<int>(best.size()) > top) best.pop_back();
  }
  std::vector<NextToken> out;
  for (const int id : best) {
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
  requireModelPath(path);
  std::error_code ec;
  std::unique_ptr<PretrainedModel> model;
  if (std::filesystem::is_regular_file(path, ec)) {
    const std::string file_name = path.filename().string();
    requireRoomFor(file_name, static_cast<long long>(std::filesystem::file_size(path, ec)), nullptr);
    // The weights stay in the mapped file (weight_matrix.hpp): the model keeps it open.
    const auto mapped = std::make_shared<const GgufFile>(path);
    const GgufFile& file = *mapped;
    if (file.splitCount() > 1)  // all the parts together, before a weight is read
      requireRoomFor(file_name, static_cast<long long>(file.totalBytes()), nullptr);
    ModelConfig config = ggufConfig(file);
    WeightBytes weights = ggufWeights(file);  // every tensor's type, before any weight is read
    requireRoomFor(file_name, weights.total, &weights);
    auto tokenizer = loadGgufTokenizer(file);  // before the weights: a bad tokenizer fails fast
    const bool gemma = config.architecture == Architecture::kGemma2 ||
                       config.architecture == Architecture::kGemma3;
    model = gemma ? gemma::fromGguf(std::move(config), file) : llama::fromGguf(std::move(config), file);
    model->storage_ = mapped;
    model->mapped_ = file.mappedParts();
    model->weight_bytes_ = std::move(weights);
    model->tokenizer_ = std::move(tokenizer);
    model->name_ = ggufName(path, file);
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
    ModelConfig config = readModelConfig(dir / "config.json");
    {
      const std::filesystem::path weights_file = safetensorsOf(dir);
      if (weights_file.extension() != ".json")
        requireRoomFor(weights_file.filename().string(),
                       static_cast<long long>(std::filesystem::file_size(weights_file, ec)), nullptr);
      const auto mapped = std::make_shared<const SafeTensors>(weights_file);
      const SafeTensors& file = *mapped;
      if (weights_file.extension() == ".json")  // the shards are mapped, not read
        requireRoomFor(weights_file.filename().string(), static_cast<long long>(file.totalBytes()), nullptr);
      WeightBytes weights = safetensorsWeights(file, config.architecture);
      requireRoomFor(weights_file.filename().string(), weights.total, &weights);
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
      model->weight_bytes_ = std::move(weights);
      // The decoders read their weights from the mapped file (weight_matrix.hpp); BERT and
      // GPT-2 copied theirs, and the file is unmapped.
      const Architecture a = model->config_.architecture;
      if (a == Architecture::kLlama || a == Architecture::kGemma2 || a == Architecture::kGemma3) {
        model->storage_ = mapped;
        model->mapped_ = file.mappedParts();
      }
    }
    // The tokenizer files follow the architecture family (a Qwen2 folder's are a Llama's).
    model->tokenizer_ = loadModelTokenizer(dir, toString(model->config_.architecture));
    model->name_ = folderName(dir);
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

MemoryNeeds PretrainedModel::memoryNeeds(int tokens, const ModelRunOptions& options) const {
  MemoryNeeds m;
  m.weights = weight_bytes_.total;
  m.activations = activationBytes(config_, tokens);
  m.attention = attentionBytes(tokens, options);
  // What the interventions keep beside the pass (ModelRun::residual, context, value_norms) and
  // the decoded rows of the next tokens' losses.
  const long long n = std::max(tokens, 0), layers = config_.layers;
  if (options.keep_residual) m.activations += (layers + 1) * n * config_.d_model * 4;
  if (options.keep_context) m.activations += layers * n * config_.heads * config_.dK() * 4;
  if (options.keep_value_norms) m.activations += layers * n * config_.heads * 4;
  if (options.token_loss) m.activations += std::min(n, 32LL) * config_.vocab_size * 4;
  return m;
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
  const bool predict = (options.next_tokens > 0 || options.token_loss) && hasOutputLayer();
  return options.layer && !predict && options.overview_block < 1 ? *options.layer
                                                                 : config_.layers - 1;
}

long long layerAttentionBytes(const ModelConfig& c, int tokens) {
  const long long n = std::max(tokens, 0), h = c.heads, d = c.dK();
  return h * n * n * 2 * 4 + h * n * d * 4 + h * n * 5 * 4;
}

long long PretrainedModel::attentionBytes(int tokens, const ModelRunOptions& options) const {
  const long long n = std::max(tokens, 0);
  const long long per_layer = layerAttentionBytes(config_, tokens);
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
  const linear::Int8ActivationsScope int8(options.int8_activations);
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
  checkInterventions(options, n);

  ModelRun run;
  run.encoding.ids = encoding.ids;
  run.encoding.type_ids = encoding.type_ids;
  run.encoding.special.assign(encoding.ids.size(), false);
  for (int id : encoding.ids) run.encoding.labels.push_back(std::to_string(id));
  run.kv_heads = config_.resolvedKvHeads();
  for (int i = 0; i < config_.heads; ++i) run.kv_head.push_back(config_.kvHeadOf(i));
  const bool predict = options.next_tokens > 0 && hasOutputLayer();
  const int last = lastLayerRun(options);
  const MemoryNeeds needs = memoryNeeds(n, options);
  const long long budget = memoryBudget(options);
  if (needs.weights > budget) {
    throw Error(ErrorCode::kInvalidInput,
                "this run would keep " + formatBytes(needs.total()) + " in memory, and the weights"
                " alone take " + formatBytes(needs.weights) + ", more than the memory budget of " +
                    formatBytes(budget) +
                    ": close other programs, choose a smaller model or quantisation, or a larger "
                    "--memory-budget");
  }
  if (needs.total() > budget) {
    throw Error(ErrorCode::kInvalidInput,
                "this run would keep " + formatBytes(needs.total()) + " in memory (weights " +
                    formatBytes(needs.weights) + ", attention " + formatBytes(needs.attention) +
                    ": " + std::to_string(std::max(keptLayers(options), 1)) + " layers × " +
                    std::to_string(config_.heads) + " heads × " + std::to_string(n) +
                    "² scores and weights, activations " + formatBytes(needs.activations) +
                    "), more than the memory budget of " + formatBytes(budget) +
                    ": choose one layer (--layer), fewer tokens, or a larger --memory-budget");
  }
  if (options.memory_report) {
    MemoryNeeds report = needs;
    // The weights counted once: mapped pages already read, or the copies made at load.
    const long long held = !mapped_.empty() ? residentWeightBytes() : weight_bytes_.total;
    report.process = std::max(0LL, processResidentBytes() - held);
    options.memory_report(report);
  }
  const int first = options.resume ? options.resume->layer : 0;
  Matrix x = options.resume ? options.resume->hidden : embed(encoding);
  interventions::PassHook hook{this, &options, &run, first};
  const interventions::HookScope hook_scope(hook.active() ? &hook : nullptr);
  if (options.keep_residual) {
    run.residual.resize(static_cast<std::size_t>(last) + 2);
    run.residual[static_cast<std::size_t>(first)] = x;
  }
  if (options.keep_context) run.context.resize(static_cast<std::size_t>(config_.layers));
  if (options.keep_value_norms) run.value_norms.resize(static_cast<std::size_t>(config_.layers));
  for (int l = first; l <= last; ++l) {
    AttentionResult attention;
    AttentionSpec layer_spec = spec;
    layer_spec.window = config_.windowOf(l);  // local layers' sliding window (0: global)
    hook.layer = l;
    x = layer(l, x, layer_spec, backend, &attention);
    for (const auto& [patch_layer, position] : options.patch.positions) {
      if (patch_layer == l) {
        x.row(position) = (*options.patch.residual)[static_cast<std::size_t>(l) + 1].row(position);
      }
    }
    if (options.keep_residual) run.residual[static_cast<std::size_t>(l) + 1] = x;
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
  if (predict) {
    run.logits = logits(x);
    run.next_tokens = topNextTokens(run.logits, options.next_tokens, *tokenizer_);
  }
  if (options.token_loss && hasOutputLayer() && last == config_.layers - 1) {
    run.token_loss = tokenLosses(*this, x, encoding.ids);
  }
  run.hidden = std::move(x);
  run.compute_ms = msSince(t0);
  return run;
}

}  // namespace attnlab
