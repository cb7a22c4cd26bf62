/// \file option_table_lab.cpp
/// The option table, part 1: input, mechanism, shapes, variants, pretrained models, backend.

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <array>
#include <limits>

#include "attnlab/translator.hpp"
#include "options/bundled_models.hpp"
#include "options/option_table.hpp"
#include "options/variants.hpp"

namespace attnlab::options::detail {
namespace {

constexpr long long kMaxSeed = 1LL << 53;  // exact in a double (the window's seed box)
constexpr std::array<std::string_view, 4> kMechanisms{"additive", "dot", "scaled", "linear"};
constexpr std::array<std::string_view, 3> kBackends{"auto", "cpu", "opencl"};
constexpr std::array<std::string_view, 4> kPositions{"sinusoidal", "rope", "alibi", "none"};
constexpr std::array<std::string_view, 3> kPrecisions{"fp32", "fp16", "bf16"};
constexpr std::array<std::string_view, 2> kSoftmaxKinds{"stable", "naive"};
constexpr std::array<std::string_view, 3> kCacheBugs{"none", "skip", "duplicate"};
constexpr std::array<std::string_view, 3> kTranslatorAttentions{"cross", "encoder-self", "decoder-self"};
/// The commands that run one pass of a model with interventions.
constexpr unsigned kInterventionCommands = kCompute | kRender | kWindow;
constexpr std::array<std::string_view, 3> kAblations{"zero", "mean", "uniform"};

/// --ablate's heads from "L.H[,L.H…]" (duplicates once), refused in the option's words.
std::vector<HeadRef> parseHeadList(const QString& text) {
  std::vector<HeadRef> heads;
  for (const QString& item : text.split(QLatin1Char(','))) {
    const QStringList parts = item.trimmed().split(QLatin1Char('.'));
    bool ok_layer = false, ok_head = false;
    const int layer = parts.size() == 2 ? parts[0].toInt(&ok_layer) : -1;
    const int head = parts.size() == 2 ? parts[1].toInt(&ok_head) : -1;
    const bool digits = parts.size() == 2 && !parts[0].startsWith(QLatin1Char('+')) &&
                        !parts[1].startsWith(QLatin1Char('+'));
    if (!ok_layer || !ok_head || layer < 0 || head < 0 || !digits) {
      throw OptionError(Message(ATTNLAB_MSG("--ablate: \"%1\" is not LAYER.HEAD (e.g. 3.7)"),
                                {item.trimmed()}));
    }
    const HeadRef ref{layer, head};
    if (std::find(heads.begin(), heads.end(), ref) == heads.end()) heads.push_back(ref);
  }
  return heads;
}

/// --ablate's value as the command line gives it ("3.7,10.2"), nullopt when empty.
std::optional<QString> headList(const std::vector<HeadRef>& heads) {
  QStringList items;
  for (const HeadRef& h : heads) items << QString::fromStdString(toString(h));
  return items.isEmpty() ? std::nullopt : std::optional<QString>(items.join(QLatin1Char(',')));
}


const LabSettings kDefaults;

// clang-format off
/// Order matters twice: --help lists options in this order, and setters run in it
/// (--mechanism before --no-scale).
const OptionSpec kEntries[] = {
  // input
  {"text", Kind::kText, "TEXT", "the sentence: the queries (default: \"The cat sat on the mat because it was tired.\"); a translator: the target to force (default: generated)",
   Group::kInput, kRunCommands | kSaturation | kGenerate, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lab.text = v.text; },
   [](const Options& o) {
     if (o.lab.translator) return o.lab.text.isEmpty() ? std::nullopt : std::optional<QString>(o.lab.text);
     return text(o.lab.text, kDefaults.text);
   }},
  {"source", Kind::kText, "TEXT", "cross-attention: queries from --text, keys and values from TEXT; a translator: its input (e.g. \"March 3rd, 2021\")",
   Group::kInput, kRunCommands | kSaturation, Applies::kSyntheticOnly, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lab.source = v.text; },
   [](const Options& o) { return text(o.lab.source); }},
  // mechanism
  {"mechanism", Kind::kChoice, "M", "additive | dot | scaled | linear (Katharopoulos et al. 2020: phi(q).phi(k), phi = elu + 1; default scaled)",
   Group::kMechanism, kRunCommands | kGenerate, Applies::kAlways, 0, 0, false, kMechanisms,
   [](Options& o, const Value& v) { o.lab.spec.mechanism = parseMechanism(v.text.toStdString()); },
   [](const Options& o) { return o.lab.spec.mechanism == Mechanism::kScaled ? std::nullopt
                                 : std::optional<QString>(QString::fromStdString(toString(o.lab.spec.mechanism))); }},
  {"no-scale", Kind::kFlag, "", "leave out the 1/sqrt(d_k) factor, or a model's own 1/sqrt(query_pre_attn_scalar) (Gemma); the same as --mechanism dot",
   Group::kMechanism, kRunCommands | kSaturation | kGenerate, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value&) {
     if (o.lab.spec.mechanism == Mechanism::kAdditive || o.lab.spec.mechanism == Mechanism::kLinear)
       throw OptionError(Message(ATTNLAB_MSG("--no-scale applies to the scaled mechanism only")));
     o.lab.spec.mechanism = Mechanism::kDot;
   },
   nullptr},
  {"temperature", Kind::kNumber, "T", "divide scores by T instead of the mechanism's scale",
   Group::kMechanism, kRunCommands | kGenerate, Applies::kAlways, 0, 0, true, {},
   [](Options& o, const Value& v) { o.lab.spec.temperature = v.number; },
   [](const Options& o) { return o.lab.spec.temperature ? std::optional<QString>(num(*o.lab.spec.temperature)) : std::nullopt; }},
  {"causal", Kind::kFlag, "", "causal mask: query i sees keys j <= i (self-attention only)",
   Group::kMechanism, kRunCommands | kSaturation, Applies::kSyntheticOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.setCausal(true); },
   [](const Options& o) { return flag(o.lab.causal()); }},
  // shapes
  {"heads", Kind::kInt, "H", "number of heads (default 8)",
   Group::kShapes, kRunCommands | kSaturation | kCost, Applies::kSyntheticOnly, 1, 64, false, {},
   [](Options& o, const Value& v) { o.lab.spec.heads = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.heads, kDefaults.spec.heads); }},
  {"d-model", Kind::kInt, "D", "embedding width (default 64)",
   Group::kShapes, kRunCommands | kSaturation | kCost, Applies::kSyntheticOnly, 1, 4096, false, {},
   [](Options& o, const Value& v) { o.lab.spec.d_model = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.d_model, kDefaults.spec.d_model); }},
  {"d-k", Kind::kInt, "K", "query/key width per head (default d_model / heads)",
   Group::kShapes, kRunCommands | kCost, Applies::kSyntheticOnly, 1, 1024, false, {},
   [](Options& o, const Value& v) { o.lab.spec.d_k = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.d_k, 0); }},
  {"d-k", Kind::kIntList, "LIST", "d_k values of the curves, e.g. 1,2,4,8 (default 1,2,4,...,1024)",
   Group::kSaturation, kSaturation, Applies::kAlways, 1, 1024, false, {},
   [](Options& o, const Value& v) { o.saturation.d_k = v.list; },
   [](const Options& o) {
     QStringList items;
     for (int d : o.saturation.d_k) items << num(static_cast<long long>(d));
     return items.isEmpty() ? std::nullopt : std::optional<QString>(items.join(QLatin1Char(',')));
   }},
  {"d-v", Kind::kInt, "V", "value width per head (default d_k)",
   Group::kShapes, kRunCommands | kCost, Applies::kSyntheticOnly, 1, 1024, false, {},
   [](Options& o, const Value& v) { o.lab.spec.d_v = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.d_v, 0); }},
  {"d-a", Kind::kInt, "A", "additive attention's hidden size (default d_k)",
   Group::kShapes, kRunCommands, Applies::kSyntheticOnly, 1, 1024, false, {},
   [](Options& o, const Value& v) { o.lab.spec.d_a = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.d_a, 0); }},
  {"seed", Kind::kInt, "S", "seed of the synthetic embeddings and weights (default 0)",
   Group::kShapes, kRunCommands | kSaturation, Applies::kSyntheticOnly, 0, kMaxSeed, false, {},
   [](Options& o, const Value& v) { o.lab.seed = static_cast<std::uint64_t>(v.integer); },
   [](const Options& o) { return integerIf(static_cast<long long>(o.lab.seed), 0); }},
  {"no-positions", Kind::kFlag, "", "no position information (the same as --positions none)",
   Group::kShapes, kRunCommands | kSaturation, Applies::kSyntheticOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.spec.positions = Positions::kNone; },
   nullptr},
  // variants (issue 12)
  {"positions", Kind::kChoice, "P", "sinusoidal (added to the embeddings) | rope (rotates q, k) | alibi (bias -m_h|i-j|) | none",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 0, 0, false, kPositions,
   [](Options& o, const Value& v) {
     if (o.isGiven("no-positions") && v.text != QLatin1String("none"))
       throw OptionError(Message(ATTNLAB_MSG("--no-positions contradicts --positions %1"), {v.text}));
     o.lab.spec.positions = parsePositions(v.text.toStdString());
   },
   [](const Options& o) { return o.lab.spec.positions == Positions::kSinusoidal ? std::nullopt
                                 : std::optional<QString>(QString::fromStdString(toString(o.lab.spec.positions))); }},
  {"rope-base", Kind::kNumber, "B", "RoPE's base: theta_m = B^(-2m/d_k) (default 10000)",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 1, 0, true, {},
   [](Options& o, const Value& v) { o.lab.spec.rope_base = v.number; },
   [](const Options& o) { return o.lab.spec.rope_base == kDefaults.spec.rope_base ? std::nullopt : std::optional<QString>(num(o.lab.spec.rope_base)); }},
  {"kv-heads", Kind::kInt, "G", "K/V heads, G dividing --heads: 1 = multi-query, heads = multi-head (default)",
   Group::kVariants, kRunCommands | kCost, Applies::kSyntheticOnly, 1, 64, false, {},
   [](Options& o, const Value& v) { o.lab.spec.kv_heads = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.kv_heads, 0); }},
  {"window", Kind::kInt, "W", "sliding window: query i sees keys i-W < j <= i with --causal, |i-j| < W without",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 1, kMaxTokens, false, {},
   [](Options& o, const Value& v) { o.lab.spec.window = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.window, 0); }},
  {"global", Kind::kInt, "K", "the first K tokens see every key and every query sees them",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 1, kMaxTokens, false, {},
   [](Options& o, const Value& v) { o.lab.spec.global_tokens = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.global_tokens, 0); }},
  {"stride", Kind::kInt, "S", "with --window: key j also visible when (i-j) mod S = 0",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 1, kMaxTokens, false, {},
   [](Options& o, const Value& v) { o.lab.spec.stride = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.spec.stride, 0); }},
  {"pad-to", Kind::kInt, "N", "pad the text with [PAD] tokens up to N, masked as keys",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 1, kMaxTokens, false, {},
   [](Options& o, const Value& v) { o.lab.pad_to = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.pad_to, 0); }},
  {"no-pad-mask", Kind::kFlag, "", "with --pad-to: leave the [PAD] keys visible (the classic bug)",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.pad_mask = false; },
   [](const Options& o) { return flag(!o.lab.pad_mask); }},
  // numerics (issue 13)
  {"precision", Kind::kChoice, "F", "the softmax's format: fp32 | fp16 | bf16 (scores, exponentials, sums, weights rounded; default fp32)",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 0, 0, false, kPrecisions,
   [](Options& o, const Value& v) { o.lab.spec.precision = parsePrecision(v.text.toStdString()); },
   [](const Options& o) { return o.lab.spec.precision == Precision::kFp32 ? std::nullopt
                                 : std::optional<QString>(QString::fromStdString(toString(o.lab.spec.precision))); }},
  {"softmax", Kind::kChoice, "S", "stable (row maximum subtracted) | naive (exp(s) as it is: overflows in fp16 past 11.09)",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, 0, 0, false, kSoftmaxKinds,
   [](Options& o, const Value& v) { o.lab.spec.softmax = parseSoftmaxKind(v.text.toStdString()); },
   [](const Options& o) { return o.lab.spec.softmax == SoftmaxKind::kStable ? std::nullopt
                                 : std::optional<QString>(QString::fromStdString(toString(o.lab.spec.softmax))); }},
  // min: any number reaches validate(), which names the range [0, 1)
  {"dropout", Kind::kNumber, "P", "zero each weight with probability P, scale the rest by 1/(1-P), seeded by --seed (0 <= P < 1)",
   Group::kVariants, kRunCommands, Applies::kSyntheticOnly, std::numeric_limits<long long>::min(), 0, false, {},
   [](Options& o, const Value& v) { o.lab.spec.dropout = v.number; },
   [](const Options& o) { return o.lab.spec.dropout == 0.0 ? std::nullopt : std::optional<QString>(num(o.lab.spec.dropout)); }},
  // KV-cache decoding (issue 13)
  {"cache-bug", Kind::kChoice, "B", "decode: none | skip (token's K/V never cached) | duplicate (cached twice), once",
   Group::kVariants, kDecode, Applies::kSyntheticOnly, 0, 0, false, kCacheBugs,
   [](Options& o, const Value& v) { o.decode.cache_bug = parseCacheBug(v.text.toStdString()); },
   [](const Options& o) { return o.decode.cache_bug == CacheBug::kNone ? std::nullopt
                                 : std::optional<QString>(QString::fromLatin1(toString(o.decode.cache_bug))); }},
  {"bug-step", Kind::kInt, "T", "decode: the step the cache bug strikes (default: the middle token)",
   Group::kVariants, kDecode, Applies::kSyntheticOnly, 0, kMaxTokens - 1, false, {},
   [](Options& o, const Value& v) { o.decode.bug_step = static_cast<int>(v.integer); },
   [](const Options& o) { return integer(o.decode.bug_step); }},
  // pretrained models
  {"model", Kind::kPath, "DIR|FILE|NAME", "run a model's real forward pass: a HuggingFace folder, a .gguf file, a bundled translator (dates-additive, dates-transformer, dates-transformer-unscaled), a fetched model by name (minilm, smollm2, gemma3: see fetch-model), or a model another tool keeps: ollama:NAME[:TAG], ORG/NAME[@REV][:FILE] from the HuggingFace cache, a .gguf file's name in LM Studio's or llama.cpp's folders (see models)",
   Group::kModel, kRunCommands | kCost | kGenerate | kInfo, Applies::kAlways, 0, 0, false, {},
   [](Options& o, const Value& v) {
     o.lab.model_dir = resolveModelPath(v.text);
     o.lab.translator = isTranslatorFolder(std::filesystem::path(o.lab.model_dir.toStdString()));
     if (o.lab.translator && !o.isGiven("text")) o.lab.text.clear();  // generate the target
   },
   [](const Options& o) { return text(o.lab.model_dir); }},
  {"attention", Kind::kChoice, "A", "a translator's attention to show: cross (target x source, default) | encoder-self | decoder-self (the Transformer's)",
   Group::kModel, kRunCommands, Applies::kModelOnly, 0, 0, false, kTranslatorAttentions,
   [](Options& o, const Value& v) { o.lab.translator_attention = parseTranslatorAttention(v.text).value_or(TranslatorAttention::kCross); },
   [](const Options& o) { return o.lab.translator_attention == TranslatorAttention::kCross ? std::nullopt
                                 : std::optional<QString>(QString::fromStdString(toString(o.lab.translator_attention))); }},
  {"layer", Kind::kIntOrAll, "L|all", "the layer to show, 0-based (default all: layers x heads)",
   Group::kModel, kRunCommands | kGenerate, Applies::kModelOnly, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), false, {},
   [](Options& o, const Value& v) { o.lab.layer = v.all ? std::nullopt : std::optional<int>(static_cast<int>(v.integer)); },
   [](const Options& o) { return integer(o.lab.layer); }},
  {"pair", Kind::kText, "TEXT", "BERT sentence pair: [CLS] text [SEP] pair [SEP]",
   Group::kModel, kRunCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lab.pair = v.text; },
   [](const Options& o) { return o.lab.pair; }},
  {"hide-special", Kind::kFlag, "", "leave [CLS], [SEP], ... out of the picture (not renormalised)",
   Group::kModel, kPictureCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.hide_special = true; },
   [](const Options& o) { return flag(o.lab.hide_special); }},
  {"rollout", Kind::kFlag, "", "attention rollout (Abnar & Zuidema 2020) through --layer (default: every layer), heads averaged",
   Group::kModel, kRunCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.rollout = true; },
   [](const Options& o) { return flag(o.lab.rollout); }},
  {"head-roles", Kind::kFlag, "", "also score every head: previous-token, duplicate-token, induction, sink, local, broad (a repeated random sequence)",
   Group::kModel, kCompute, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.head_roles = true; },
   [](const Options& o) { return flag(o.lab.head_roles); }},
  {"int8-activations", Kind::kFlag, "", "multiply Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS weights by int8 activations (prompts, generated tokens, next-token predictions), as llama.cpp does: faster, not float32's numbers",
   Group::kModel, kRunCommands | kGenerate, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.int8_activations = true; },
   [](const Options& o) { return flag(o.lab.int8_activations); }},
  {"ablate", Kind::kText, "L.H[,L.H...]", "remove heads' outputs (layer.head from 0, e.g. 3.7,10.2) and recompute every later layer: the next token and the loss before and after",
   Group::kModel, kInterventionCommands | kSweep | kGenerate, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lab.ablate = parseHeadList(v.text); },
   [](const Options& o) { return headList(o.lab.ablate); }},
  {"ablation", Kind::kChoice, "A", "with --ablate: zero (the head's output 0) | mean (its mean over the text's positions) | uniform (uniform attention over the keys it sees) (default zero)",
   Group::kModel, kInterventionCommands | kSweep | kGenerate, Applies::kModelOnly, 0, 0, false, kAblations,
   [](Options& o, const Value& v) { o.lab.ablation = parseAblationMode(v.text.toStdString()); },
   [](const Options& o) { return o.lab.ablation == AblationMode::kZero ? std::nullopt
                                 : std::optional<QString>(QString::fromStdString(toString(o.lab.ablation))); }},
  {"logit-lens", Kind::kFlag, "", "decode every layer's residual stream through the final norm and the output layer: the top token per layer and position (nostalgebraist 2020)",
   Group::kModel, kInterventionCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.logit_lens = true; },
   [](const Options& o) { return flag(o.lab.logit_lens); }},
  {"dla", Kind::kFlag, "", "direct logit attribution: each head's, MLP's and the embedding's part of the logit of --target (default: the prediction) at the last token",
   Group::kModel, kInterventionCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.dla = true; },
   [](const Options& o) { return flag(o.lab.dla); }},
  {"target", Kind::kText, "TOKEN", "the token attributed or measured, one token of the model, e.g. \" Paris\" (default: the prediction)",
   Group::kModel, kInterventionCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lab.target = v.text; },
   [](const Options& o) { return text(o.lab.target); }},
  {"versus", Kind::kText, "TOKEN", "measure the logit of --target minus this token's (patching's default: the corrupted prompt's prediction)",
   Group::kModel, kInterventionCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lab.versus = v.text; },
   [](const Options& o) { return text(o.lab.versus); }},
  {"patch-from", Kind::kText, "TEXT", "activation patching: the corrupted prompt (as many tokens as --text); each head's output and the residual stream copied from --text into it",
   Group::kModel, kInterventionCommands, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value& v) { o.lab.patch_from = v.text; },
   [](const Options& o) { return text(o.lab.patch_from); }},
  {"value-weighted", Kind::kFlag, "", "show alpha_ij * |v_j W_O^h| normalised per row (Kobayashi et al. 2020) instead of the weights: where a head moves information",
   Group::kModel, kInterventionCommands | kSweep, Applies::kModelOnly, 0, 0, false, {},
   [](Options& o, const Value&) { o.lab.value_weighted = true; },
   [](const Options& o) { return flag(o.lab.value_weighted); }},
  // min: any number reaches validate(), which names the rule (> 0)
  {"memory-budget", Kind::kNumber, "GB", "the most one run may take — weights, activations and kept attention — in GB (default 80 % of the memory available when it starts)",
   Group::kModel, kRunCommands | kGenerate, Applies::kModelOnly, std::numeric_limits<long long>::min(), 0, false, {},
   [](Options& o, const Value& v) { o.lab.memory_budget_gb = v.number; },
   [](const Options& o) { return o.lab.memory_budget_gb ? std::optional<QString>(num(*o.lab.memory_budget_gb)) : std::nullopt; }},
  // backend
  {"backend", Kind::kChoice, "B", "auto | cpu | opencl (default auto)",
   Group::kBackend, kRunCommands | kCost, Applies::kAlways, 0, 0, false, kBackends,
   [](Options& o, const Value& v) { o.lab.backend = parseBackendKind(v.text).value_or(BackendKind::kAuto); },
   [](const Options& o) {
     return o.lab.backend == kDefaults.backend ? std::nullopt
                                               : std::optional<QString>(QString::fromStdString(toString(o.lab.backend)));
   }},
  {"device", Kind::kInt, "N", "OpenCL device index (see the info command)",
   Group::kBackend, kRunCommands | kCost, Applies::kAlways, 0, 1023, false, {},
   [](Options& o, const Value& v) { o.lab.device = static_cast<int>(v.integer); },
   [](const Options& o) { return integerIf(o.lab.device, 0); }},
};
// clang-format on

}  // namespace

std::span<const OptionSpec> labOptions() { return kEntries; }

}  // namespace attnlab::options::detail
