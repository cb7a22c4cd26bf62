// Interventions (interventions.hpp): parsing and refusals; properties on the tiny models of every
// decoder architecture (a resumed pass and a self-patch change nothing, bit for bit; the direct
// logit attribution's parts sum to the logit; the logit lens's last layer is the model's own
// prediction; generation with an ablation equals the full pass with it); and the references:
// HuggingFace's head_mask on all-MiniLM-L6-v2, and hooks on transformers' SmolLM2
// (tests/reference/make_intervention_goldens.py).

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/generate.hpp"
#include "attnlab/interventions.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "minilm_dir.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_interventions {

namespace fs = std::filesystem;
using namespace attnlab;
using attnlab::test::requireMiniLm;
using attnlab::test::requireSmolLm2;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;
constexpr double kHfTolerance = 1e-4;  // the tolerance against transformers' SmolLM2

/// The decoders of every architecture the engine runs, tiny and random.
std::vector<fs::path> tinyDecoders() {
  return {kData / "models/tiny-llama/tiny-llama.gguf", kData / "models/tiny-gpt2",
          kData / "models/tiny-gemma2/tiny-gemma2.gguf", kData / "models/tiny-gemma3",
          kData / "models/tiny-qwen2"};
}

Encoding idsOf(std::vector<int> ids) {
  Encoding e;
  e.ids = std::move(ids);
  return e;
}

/// The error message of `f`, which must throw Error(code).
template <class F>
std::string errorOf(F&& f, ErrorCode code = ErrorCode::kInvalidArgument) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == code);
    return e.what();
  }
  FAIL("no error");
  return {};
}

std::vector<int> intsOf(const SafeTensors& f, const std::string& key) {
  const auto v = f.integers(key);
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("heads are parsed as LAYER.HEAD and refused with one line", "[interventions]") {
  CHECK(parseHeads("3.7") == std::vector<HeadRef>{{3, 7}});
  CHECK(parseHeads(" 0.1 , 2.0,0.1") == std::vector<HeadRef>{{0, 1}, {2, 0}});
  CHECK(toString(HeadRef{12, 3}) == "12.3");
  CHECK(errorOf([] { parseHeads("3"); }) == "--ablate: \"3\" is not LAYER.HEAD (e.g. 3.7)");
  CHECK(errorOf([] { parseHeads("1.2,"); }) == "--ablate: \"\" is not LAYER.HEAD (e.g. 3.7)");
  CHECK(errorOf([] { parseHeads("a.b"); }) == "--ablate: \"a.b\" is not LAYER.HEAD (e.g. 3.7)");
  CHECK(errorOf([] { parseHeads("-1.2"); }) == "--ablate: \"-1.2\" is not LAYER.HEAD (e.g. 3.7)");
  CHECK(parseAblationMode("uniform") == AblationMode::kUniform);
  CHECK(errorOf([] { parseAblationMode("half"); }) ==
        "--ablation: \"half\" is not one of zero, mean, uniform");
  const auto model = PretrainedModel::load(kData / "models/tiny-llama/tiny-llama.gguf");
  const ModelConfig& c = model->config();
  CHECK(errorOf([&] { parseHeads("9.0", c, model->name()); }) ==
        "--ablate: layer 9 does not exist: tiny-llama has layers 0–" +
            std::to_string(c.layers - 1));
  CHECK(errorOf([&] { parseHeads("0.99", c, model->name()); }) ==
        "--ablate: head 99 does not exist: tiny-llama has heads 0–" + std::to_string(c.heads - 1));
  // The engine refuses the same heads itself.
  auto backend = makeCpuBackend();
  ModelRunOptions o;
  o.ablation.heads = {{0, 99}};
  CHECK(errorOf([&] { model->runIds(idsOf({3, 4, 5}), o, *backend); }) ==
        "--ablate: head 99 does not exist: tiny-llama has heads 0–" + std::to_string(c.heads - 1));
}

TEST_CASE("a target must be one token", "[interventions]") {
  const auto model = PretrainedModel::load(kData / "models/tiny-gpt2");
  const std::string msg = errorOf([&] { singleToken(*model, "the cat sat on a mat"); });
  CHECK_THAT(msg, Catch::StartsWith("--target: \"the cat sat on a mat\" is "));
  CHECK_THAT(msg, Catch::EndsWith("tokens for tiny-gpt2 (t · he · ␣cat · ␣sat · ␣on · ␣a · ␣mat); give one token"));
  const Encoding e = model->tokenizer().encode(" cat");
  REQUIRE(e.ids.size() == 1);
  CHECK(singleToken(*model, " cat") == e.ids.front());
}

TEST_CASE("a resumed pass and a head patched from its own run change nothing, bit for bit",
          "[interventions]") {
  auto backend = makeCpuBackend();
  for (const fs::path& path : tinyDecoders()) {
    INFO(path.filename().string());
    const auto model = PretrainedModel::load(path);
    const ModelConfig& c = model->config();
    const Encoding e = idsOf({5, 9, 2, 7, 11, 3, 8});
    ModelRunOptions keep;
    keep.keep_residual = true;
    keep.keep_context = true;
    keep.token_loss = true;
    const ModelRun full = model->runIds(e, keep, *backend);
    REQUIRE(full.residual.size() == static_cast<std::size_t>(c.layers) + 1);
    REQUIRE(full.token_loss.size() == 6);
    for (int l = 0; l <= c.layers; ++l) {
      ModelRunOptions o;
      o.resume = std::make_shared<const Resume>(Resume{l, full.residual[static_cast<std::size_t>(l)]});
      if (l < c.layers) {
        o.patch.context = std::make_shared<const std::vector<Matrix>>(full.context);
        o.patch.heads = {{l, c.heads - 1}};
      }
      const ModelRun resumed = model->runIds(e, o, *backend);
      CHECK(resumed.hidden == full.hidden);
      CHECK(resumed.logits == full.logits);
      CHECK(resumed.attention.size() == static_cast<std::size_t>(c.layers - l));
    }
    // The losses are the next tokens' cross-entropy under the full pass's logits.
    const Matrix z = model->logitsOfRows(full.hidden);
    const double m = z.row(0).maxCoeff();
    double sum = 0;
    for (Eigen::Index j = 0; j < z.cols(); ++j) sum += std::exp(double(z(0, j)) - m);
    CHECK(full.token_loss[0] == Approx(m + std::log(sum) - z(0, 9)).epsilon(1e-9));
  }
}

TEST_CASE("direct logit attribution: the parts sum to the logit; the lens ends at the prediction",
          "[interventions]") {
  auto backend = makeCpuBackend();
  for (const fs::path& path : tinyDecoders()) {
    INFO(path.filename().string());
    const auto model = PretrainedModel::load(path);
    const ModelConfig& c = model->config();
    ModelRunOptions keep;
    keep.keep_residual = true;
    keep.keep_context = true;
    const ModelRun run = model->runIds(idsOf({5, 9, 2, 7, 11, 3, 8, 1}), keep, *backend);
    const int target = run.next_tokens[0].id, versus = run.next_tokens[1].id;
    const LogitAttribution dla = directLogitAttribution(*model, run, target, versus);
    CHECK(dla.heads.rows() == c.layers);
    CHECK(dla.heads.cols() == c.heads);
    CHECK(dla.total == Approx(dla.logit).margin(1e-4));
    if (c.final_softcap == 0) {  // the model's own logits (Gemma 2's are soft-capped)
      CHECK(dla.logit == Approx(double(run.logits[target] - run.logits[versus])).margin(1e-4));
    }
    const LogitLens lens = logitLens(*model, run);
    REQUIRE(lens.cells.size() == static_cast<std::size_t>(c.layers));
    const LensCell& last = lens.cells.back().back();
    CHECK(last.top_id == target);
    CHECK(last.final_rank == 0);
    CHECK(last.top_probability == Approx(run.next_tokens[0].probability).margin(1e-5));
  }
}

TEST_CASE("a generation with ablated heads equals the full pass with them", "[interventions]") {
  auto backend = makeCpuBackend();
  for (const fs::path& path : tinyDecoders()) {
    for (AblationMode mode : {AblationMode::kZero, AblationMode::kUniform}) {
      INFO(path.filename().string() << " " << toString(mode));
      const auto model = PretrainedModel::load(path);
      GenerateOptions g;
      g.max_tokens = 4;
      g.stop_at_eos = false;
      g.run.ablation = {{{0, 0}, {model->config().layers - 1, 1}}, mode};
      const Generation gen = generate(*model, idsOf({5, 9, 2, 7}), g);
      Encoding all = idsOf(std::vector<int>(gen.ids.begin(), gen.ids.end() - 1));
      ModelRunOptions o;
      o.ablation = g.run.ablation;
      const ModelRun full = model->runIds(all, o, *backend);
      // Each step's top token is the full pass's prediction at that position.
      for (std::size_t s = 0; s + 1 < gen.steps.size(); ++s) {
        const int pos = gen.steps[s].position;
        Encoding prefix = idsOf(std::vector<int>(gen.ids.begin(), gen.ids.begin() + pos + 1));
        const ModelRun part = model->runIds(prefix, o, *backend);
        CHECK(gen.steps[s].token.id == part.next_tokens[0].id);
        CHECK(gen.steps[s].token.probability ==
              Approx(part.next_tokens[0].probability).margin(1e-5));
      }
      // The ablated heads' weights in the last layer are uniform over the keys they see.
      if (mode == AblationMode::kUniform) {
        const Tensor3& w = full.attention.back().weights;
        CHECK(w(1, 2, 0) == Approx(1.0 / 3));
        CHECK(w(1, 2, 2) == Approx(1.0 / 3));
        CHECK(w(1, 2, 3) == 0.0f);
      }
    }
  }
}

TEST_CASE("patching needs prompts of one length", "[interventions]") {
  const auto model = PretrainedModel::load(kData / "models/tiny-llama/tiny-llama.gguf");
  auto backend = makeCpuBackend();
  CHECK(errorOf([&] {
          patchActivations(*model, idsOf({1, 2, 3}), idsOf({1, 2}), std::nullopt, std::nullopt,
                           {}, *backend);
        }) == "the two prompts must have the same number of tokens (3 and 2)");
  // A corrupted prompt equal to the clean one: nothing to recover (NaN), nothing fails.
  const PatchingResult same = patchActivations(*model, idsOf({1, 2, 3}), idsOf({1, 2, 3}),
                                               std::nullopt, std::nullopt, {}, *backend);
  CHECK(same.clean == same.corrupted);
  CHECK(std::isnan(same.heads(0, 0)));
  // Different prompts: patching the last layer's whole residual stream at the last position
  // recovers everything.
  const PatchingResult r = patchActivations(*model, idsOf({1, 2, 3, 4}), idsOf({1, 7, 3, 4}),
                                            std::nullopt, std::nullopt, {}, *backend);
  const int last_layer = model->config().layers - 1;
  CHECK(r.residual(last_layer, 3) == Approx(1.0).margin(1e-5));
  CHECK(r.residual(last_layer, 1) == Approx(0.0).margin(1e-5));
  CHECK(r.residual(last_layer, 0) == Approx(0.0).margin(1e-5));
}

TEST_CASE("zero ablation equals HuggingFace's head_mask on all-MiniLM-L6-v2",
          "[interventions][golden][minilm]") {
  const auto dir = requireMiniLm();
  if (!dir) return;
  const auto model = PretrainedModel::load(*dir);
  const SafeTensors golden(kData / "goldens/interventions.safetensors");
  const auto heads = nlohmann::json::parse(golden.metadata().at("minilm_heads"));
  ModelRunOptions o;
  for (const auto& h : heads) o.ablation.heads.push_back({h[0].get<int>(), h[1].get<int>()});
  auto backend = makeCpuBackend();
  const ModelRun run = model->runIds(idsOf(intsOf(golden, "minilm.input_ids")), o, *backend);
  const std::vector<float> ref = golden.floats("minilm.attentions");
  const int first = o.ablation.heads.front().layer;
  double worst = 0;
  std::size_t at = 0;
  // HuggingFace reports an ablated head's weights as 0 (it multiplies them by the mask); the
  // engine keeps where the head looked. Every other head of every later layer is compared.
  for (const AttentionResult& a : run.attention) {
    const Tensor3& w = a.weights;
    const auto layer = static_cast<int>(at / w.data.size());
    for (std::size_t k = 0; k < w.data.size(); ++k, ++at) {
      const int head = static_cast<int>(k / (static_cast<std::size_t>(w.rows) * w.cols));
      const bool ablated = std::find(o.ablation.heads.begin(), o.ablation.heads.end(),
                                     HeadRef{layer, head}) != o.ablation.heads.end();
      if (layer > first && !ablated) worst = std::max(worst, std::abs(double(w.data[k]) - ref[at]));
    }
  }
  WARN("MiniLM zero ablation vs head_mask: max |Δ weight| of the heads not ablated in layers after "
       << first << ": " << worst);
  CHECK(worst < 1e-5);
}

TEST_CASE("SmolLM2 ablation, logit lens and direct logit attribution equal transformers' hooks",
          "[interventions][golden][smollm2]") {
  const auto path = requireSmolLm2();
  if (!path) return;
  const auto model = PretrainedModel::load(*path);
  const SafeTensors golden(kData / "goldens/interventions.safetensors");
  const Encoding e = idsOf(intsOf(golden, "smollm.input_ids"));
  const auto n = static_cast<int>(e.ids.size());
  const auto heads = nlohmann::json::parse(golden.metadata().at("smollm_heads"));
  const auto kept = nlohmann::json::parse(golden.metadata().at("kept_layers"));
  auto backend = makeCpuBackend();
  double worst_prob = 0, worst_loss = 0, worst_attn = 0;
  for (const std::string mode : {"none", "zero", "mean", "uniform"}) {
    INFO(mode);
    ModelRunOptions o;
    o.token_loss = true;
    if (mode != "none") {
      o.ablation.mode = parseAblationMode(mode);
      for (const auto& h : heads) o.ablation.heads.push_back({h[0].get<int>(), h[1].get<int>()});
    }
    const ModelRun run = model->runIds(e, o, *backend);
    const std::vector<int> ids = intsOf(golden, "smollm." + mode + ".next_ids");
    const std::vector<float> probs = golden.floats("smollm." + mode + ".next_probs");
    for (std::size_t t = 0; t < 5; ++t) {
      CHECK(run.next_tokens[t].id == ids[t]);
      worst_prob = std::max(worst_prob, std::abs(run.next_tokens[t].probability - probs[t]));
    }
    const std::vector<float> loss = golden.floats("smollm." + mode + ".loss");
    REQUIRE(run.token_loss.size() == loss.size());
    for (std::size_t i = 0; i < loss.size(); ++i)
      worst_loss = std::max(worst_loss, std::abs(run.token_loss[i] - loss[i]));
    const std::vector<float> attn = golden.floats("smollm." + mode + ".attn");
    std::size_t at = 0;
    for (const auto& l : kept) {
      const Tensor3& w = run.attention[l.get<std::size_t>()].weights;
      for (float v : w.data) worst_attn = std::max(worst_attn, std::abs(double(v) - attn[at++]));
    }
  }
  WARN("SmolLM2 ablation vs transformers' hooks: max |Δ| next-token probability " << worst_prob
       << ", token loss " << worst_loss << " nats, later layers' weights " << worst_attn);
  CHECK(worst_prob < kHfTolerance);
  CHECK(worst_loss < kHfTolerance);
  CHECK(worst_attn < kHfTolerance);

  ModelRunOptions keep;
  keep.keep_residual = true;
  keep.keep_context = true;
  const ModelRun run = model->runIds(e, keep, *backend);
  const LogitLens lens = logitLens(*model, run);
  const std::vector<int> top_ids = intsOf(golden, "smollm.lens.top_ids");
  const std::vector<float> top_probs = golden.floats("smollm.lens.top_probs");
  const std::vector<int> ranks = intsOf(golden, "smollm.lens.final_rank");
  const std::vector<float> final_probs = golden.floats("smollm.lens.final_probs");
  double worst_lens = 0;
  int id_differs = 0;
  for (int l = 0; l < model->config().layers; ++l) {
    for (int p = 0; p < n; ++p) {
      const LensCell& cell = lens.cells[static_cast<std::size_t>(l)][static_cast<std::size_t>(p)];
      const std::size_t k = static_cast<std::size_t>(l) * n + p;
      worst_lens = std::max({worst_lens, std::abs(cell.top_probability - top_probs[k]),
                             std::abs(cell.final_probability - final_probs[k])});
      // A top token may differ only where two tokens are within the tolerance of each other.
      if (cell.top_id != top_ids[k] || cell.final_rank != ranks[k]) ++id_differs;
    }
  }
  WARN("SmolLM2 logit lens vs transformers: max |Δ probability| " << worst_lens << ", "
       << id_differs << " of " << model->config().layers * n << " cells with another top token or rank");
  CHECK(worst_lens < kHfTolerance);
  CHECK(id_differs <= 3);

  const std::vector<int> tv = intsOf(golden, "smollm.dla.target_versus");
  const LogitAttribution dla = directLogitAttribution(*model, run, tv[0], tv[1]);
  const std::vector<float> ref_heads = golden.floats("smollm.dla.heads");
  const std::vector<float> ref_mlp = golden.floats("smollm.dla.mlp");
  const std::vector<float> ref_el = golden.floats("smollm.dla.embedding_logit");
  double worst_dla = std::abs(dla.embedding - ref_el[0]);
  for (int l = 0; l < model->config().layers; ++l) {
    worst_dla = std::max(worst_dla, std::abs(dla.mlp[static_cast<std::size_t>(l)] - ref_mlp[static_cast<std::size_t>(l)]));
    for (int h = 0; h < model->config().heads; ++h)
      worst_dla = std::max(worst_dla, std::abs(double(dla.heads(l, h)) -
                                               ref_heads[static_cast<std::size_t>(l) * model->config().heads + h]));
  }
  WARN("SmolLM2 direct logit attribution vs transformers: max |Δ part| " << worst_dla
       << "; parts sum " << dla.total << ", logit " << dla.logit << " (reference " << ref_el[1] << ")");
  CHECK(worst_dla < kHfTolerance);
  CHECK(std::abs(dla.total - dla.logit) < kHfTolerance);
  CHECK(std::abs(dla.logit - ref_el[1]) < kHfTolerance);
}

}  // namespace attnlab_test_interventions
