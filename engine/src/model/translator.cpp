// The trained translators (attnlab/translator.hpp): config.json, vocab.json, the character
// encoding with its refusals, and the steps' top tokens. The architectures are
// translator_additive_gru.cpp and translator_transformer.cpp.

#include "attnlab/translator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "attnlab/error.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/tokenizer.hpp"
#include "model/tokenizer_common.hpp"
#include "model/translator_models.hpp"

namespace attnlab {
namespace {

using json = nlohmann::json;

constexpr const char* kAdditiveType = "attnlab-additive-gru";
constexpr const char* kTransformerType = "attnlab-transformer";
constexpr int kTopTokens = 5;

[[noreturn]] void badConfig(const std::string& what) {
  throw Error(ErrorCode::kInvalidInput, "config.json: " + what);
}

int positive(const json& c, const char* name) {
  const auto it = c.find(name);
  if (it == c.end()) badConfig(std::string("missing ") + name);
  if (!it->is_number_integer() || it->get<long long>() <= 0 || it->get<long long>() > (1 << 20))
    badConfig(std::string(name) + " must be a positive integer");
  return it->get<int>();
}

double number(const json& c, const char* name, double fallback, bool required = false) {
  const auto it = c.find(name);
  if (it == c.end() || it->is_null()) {
    if (required) badConfig(std::string("missing ") + name);
    return fallback;
  }
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    badConfig(std::string(name) + " must be a non-negative number");
  return it->get<double>();
}

std::string text(const json& c, const char* name) {
  const auto it = c.find(name);
  if (it == c.end() || it->is_null()) return {};
  if (!it->is_string()) badConfig(std::string(name) + " must be a string");
  return it->get<std::string>();
}

/// "'€' (U+20AC)": a character as messages quote it.
std::string quoteChar(char32_t c) {
  std::string s = "'";
  if (c < 0x20 || c == 0x7f) {
    s = "";
  } else {
    model_text::appendUtf8(s, c);
    s += "' ";
  }
  char code[16];
  std::snprintf(code, sizeof code, "(U+%04X)", static_cast<unsigned>(c));
  return s + code;
}

/// One vocabulary list: the four specials, then one character each.
std::vector<std::string> readList(const json& vocab, const char* side) {
  const auto it = vocab.find(side);
  if (it == vocab.end() || !it->is_array())
    throw Error(ErrorCode::kInvalidInput, std::string("vocab.json: missing the list \"") + side + "\"");
  static const char* const kSpecials[] = {"<pad>", "<s>", "</s>", "<unk>"};
  std::vector<std::string> list;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& entry = (*it)[i];
    if (!entry.is_string()) {
      throw Error(ErrorCode::kInvalidInput, std::string("vocab.json: ") + side + "[" +
                                                std::to_string(i) + "] is not a string");
    }
    const std::string s = entry.get<std::string>();
    if (i < 4 && s != kSpecials[i]) {
      throw Error(ErrorCode::kInvalidInput, std::string("vocab.json: ") + side + "[" +
                                                std::to_string(i) + "] must be \"" + kSpecials[i] +
                                                "\" (got \"" + s + "\")");
    }
    if (i >= 4 && decodeUtf8(s).size() != 1) {
      throw Error(ErrorCode::kInvalidInput, std::string("vocab.json: ") + side + "[" +
                                                std::to_string(i) + "] \"" + s +
                                                "\" is not one character");
    }
    list.push_back(s);
  }
  if (list.size() < 5)
    throw Error(ErrorCode::kInvalidInput, std::string("vocab.json: ") + side + " has no characters");
  return list;
}

std::vector<int> encodeChars(std::string_view text, const std::vector<std::string>& list,
                             const std::string& model, const char* side) {
  const std::u32string chars = decodeUtf8(text);
  std::vector<int> ids;
  for (std::size_t p = 0; p < chars.size(); ++p) {
    std::string c;
    model_text::appendUtf8(c, chars[p]);
    const auto it = std::find(list.begin() + 4, list.end(), c);
    if (it == list.end()) {
      throw Error(ErrorCode::kInvalidInput, quoteChar(chars[p]) + " at position " +
                                                std::to_string(p) + " is not in " + model + "'s " +
                                                side + " vocabulary");
    }
    ids.push_back(static_cast<int>(it - list.begin()));
  }
  return ids;
}

/// Runs the calling thread's OpenMP regions on one thread while it lives (omp_set_num_threads
/// sets the calling thread's own nthreads-var; other threads keep theirs). A translator's products
/// are tiny (22 × 64 × 512 at most): a team's meeting costs more than the arithmetic, and on a
/// loaded 2-core machine greedy decoding of the test set took 125 s with 2 threads, 5 s with one.
class OneThread {
 public:
  OneThread() {
#ifdef _OPENMP
    saved_ = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
  }
  ~OneThread() {
#ifdef _OPENMP
    omp_set_num_threads(saved_);
#endif
  }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int saved_ = 1;
};

}  // namespace

TranslatorConfig readTranslatorConfig(const std::filesystem::path& config_json) {
  const std::string content =
      model_text::readFile(config_json, "a translator folder needs config.json");
  const json c = json::parse(content, nullptr, false);
  if (c.is_discarded() || !c.is_object()) badConfig("not a well-formed JSON object");
  TranslatorConfig t;
  t.model_type = text(c, "model_type");
  if (t.model_type == kAdditiveType) {
    t.kind = TranslatorKind::kAdditiveGru;
  } else if (t.model_type == kTransformerType) {
    t.kind = TranslatorKind::kTransformer;
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "config.json: model_type \"" + t.model_type + "\" is not a translator's (" +
                    kAdditiveType + " or " + kTransformerType + ")");
  }
  t.task = text(c, "task");
  t.max_source_length = positive(c, "max_source_length");
  t.max_target_length = positive(c, "max_target_length");
  if (t.max_target_length < 2) badConfig("max_target_length must be at least 2 (one character and </s>)");
  t.test_accuracy = number(c, "test_accuracy", 0);
  if (t.test_accuracy > 1) badConfig("test_accuracy must lie in [0, 1]");
  t.training_seconds = number(c, "training_seconds", 0);
  if (c.contains("test_examples")) t.test_examples = positive(c, "test_examples");
  if (t.kind == TranslatorKind::kAdditiveGru) {
    t.embedding_dim = positive(c, "embedding_dim");
    t.encoder_hidden = positive(c, "encoder_hidden");
    t.decoder_hidden = positive(c, "decoder_hidden");
    t.attention_dim = positive(c, "attention_dim");
    return t;
  }
  t.d_model = positive(c, "d_model");
  t.heads = positive(c, "heads");
  t.d_k = positive(c, "d_k");
  t.d_ff = positive(c, "d_ff");
  t.encoder_layers = positive(c, "encoder_layers");
  t.decoder_layers = positive(c, "decoder_layers");
  const auto scale = c.find("scale_attention");
  if (scale == c.end() || !scale->is_boolean()) badConfig("scale_attention must be true or false");
  t.scale_attention = scale->get<bool>();
  t.layer_norm_eps = number(c, "layer_norm_eps", 0, true);
  if (!(t.layer_norm_eps > 0)) badConfig("layer_norm_eps must be a positive number");
  t.embedding_scale = number(c, "embedding_scale", 0, true);
  if (text(c, "norm") != "pre") badConfig("norm must be \"pre\" (pre-LayerNorm blocks)");
  if (text(c, "positions") != "sinusoidal") badConfig("positions must be \"sinusoidal\"");
  return t;
}

bool isTranslatorFolder(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return false;
  try {
    const std::string content = model_text::readFile(path / "config.json");
    const json c = json::parse(content, nullptr, false);
    if (!c.is_object()) return false;
    const auto it = c.find("model_type");
    return it != c.end() && it->is_string() &&
           it->get<std::string>().rfind("attnlab-", 0) == 0;
  } catch (const Error&) {
    return false;
  }
}

std::unique_ptr<Translator> Translator::load(const std::filesystem::path& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error(ErrorCode::kIo, "cannot read " + dir.string() +
                                    ": a translator is a folder (config.json, vocab.json, "
                                    "model.safetensors)");
  }
  TranslatorConfig config = readTranslatorConfig(dir / "config.json");
  const json v = json::parse(
      model_text::readFile(dir / "vocab.json", "a translator folder needs vocab.json"), nullptr,
      false);
  if (v.is_discarded() || !v.is_object())
    throw Error(ErrorCode::kInvalidInput, "vocab.json: not a well-formed JSON object");
  TranslatorVocab vocab{readList(v, "source"), readList(v, "target")};
  const SafeTensors file(dir / "model.safetensors");
  std::unique_ptr<Translator> model =
      config.kind == TranslatorKind::kAdditiveGru
          ? translators::additiveGru(config, vocab, file)
          : translators::transformer(config, vocab, file);
  model->config_ = std::move(config);
  model->vocab_ = std::move(vocab);
  model->dir_ = dir;
  model->name_ = std::filesystem::absolute(dir).lexically_normal().filename().string();
  if (model->name_.empty())
    model->name_ = std::filesystem::absolute(dir).lexically_normal().parent_path().filename().string();
  model->load_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return model;
}

int Translator::attentionLayers() const {
  if (config_.kind == TranslatorKind::kAdditiveGru) return 1;
  return std::max(config_.encoder_layers, config_.decoder_layers);
}

std::vector<int> Translator::encodeSource(std::string_view source) const {
  const std::size_t n = decodeUtf8(source).size();
  if (n == 0) throw Error(ErrorCode::kInvalidInput, "the source is empty");
  if (n > static_cast<std::size_t>(config_.max_source_length)) {
    throw Error(ErrorCode::kInvalidInput, "the source has " + std::to_string(n) +
                                              " characters; " + name_ + " reads at most " +
                                              std::to_string(config_.max_source_length));
  }
  return encodeChars(source, vocab_.source, name_, "source");
}

std::vector<int> Translator::encodeTarget(std::string_view target) const {
  const std::size_t n = decodeUtf8(target).size();
  if (n == 0) throw Error(ErrorCode::kInvalidInput, "the target is empty");
  const auto most = static_cast<std::size_t>(config_.max_target_length - 1);
  if (n > most) {
    throw Error(ErrorCode::kInvalidInput, "the target has " + std::to_string(n) +
                                              " characters; " + name_ + " writes at most " +
                                              std::to_string(most));
  }
  std::vector<int> ids = encodeChars(target, vocab_.target, name_, "target");
  ids.push_back(TranslatorVocab::kEos);
  return ids;
}

const std::string& Translator::targetText(int id) const {
  static const std::string kOutside = "?";
  if (id < 0 || id >= static_cast<int>(vocab_.target.size())) return kOutside;
  return vocab_.target[static_cast<std::size_t>(id)];
}

Translation Translator::translate(std::string_view source, const TranslatorOptions& options,
                                  Backend& backend) const {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.temperature &&
      !(std::isfinite(*options.temperature) && *options.temperature > 0)) {
    throw Error(ErrorCode::kInvalidArgument, "the temperature must be a finite number > 0");
  }
  if (options.mechanism) {
    const bool additive = config_.kind == TranslatorKind::kAdditiveGru;
    const Mechanism m = *options.mechanism;
    if (additive ? m != Mechanism::kAdditive : (m != Mechanism::kScaled && m != Mechanism::kDot)) {
      throw Error(ErrorCode::kInvalidArgument,
                  name_ + (additive ? " uses additive attention only"
                                    : " computes dot-product attention, scaled or not"));
    }
  }
  const OneThread one_thread;
  const std::vector<int> source_ids = encodeSource(source);
  std::vector<int> forced;
  if (options.target) forced = encodeTarget(*options.target);
  Translation t = run(source_ids, forced, options, backend);
  t.source_ids = source_ids;
  for (int id : source_ids) t.source_chars.push_back(vocab_.source[static_cast<std::size_t>(id)]);
  t.forced = options.target.has_value();
  t.finished = !t.target_ids.empty() && t.target_ids.back() == TranslatorVocab::kEos;
  for (int id : t.target_ids) {
    t.target_chars.push_back(targetText(id));
    if (id > TranslatorVocab::kUnk) t.output += targetText(id);
  }
  fillSteps(t);
  t.compute_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

void Translator::fillSteps(Translation& t) const {
  t.steps.clear();
  const Eigen::Index vocab = t.logits.cols();
  std::vector<int> order(static_cast<std::size_t>(vocab));
  for (std::size_t i = 0; i < t.target_ids.size(); ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    const double top = t.logits.row(row).maxCoeff();
    double sum = 0;
    for (Eigen::Index v = 0; v < vocab; ++v) sum += std::exp(double(t.logits(row, v)) - top);
    auto token = [&](int id) {
      const double logit = t.logits(row, id);
      return TranslatorToken{id, targetText(id), std::exp(logit - top) / sum, logit};
    };
    std::iota(order.begin(), order.end(), 0);
    const auto k = std::min<std::size_t>(kTopTokens, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](int a, int b) {
                        const float la = t.logits(row, a), lb = t.logits(row, b);
                        return la != lb ? la > lb : a < b;
                      });
    TranslatorStep step;
    step.input = t.decoder_inputs[i];
    step.output = token(t.target_ids[i]);
    for (std::size_t j = 0; j < k; ++j) step.top.push_back(token(order[j]));
    t.steps.push_back(std::move(step));
  }
}

}  // namespace attnlab
