// Generation through the KV cache (generate.hpp): the rows of every step equal one full forward
// pass over the prompt and the generated tokens (runIds), for every decoder architecture; the
// StreamingLLM cache equals a full pass with the same visibility; end-of-sequence, context and
// option refusals.

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/generate.hpp"
#include "attnlab/pretrained.hpp"
#include "minilm_dir.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_generate {

namespace fs = std::filesystem;
using namespace attnlab;
using attnlab::test::miniLmDir;
using attnlab::test::requireSmolLm2;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;

/// Largest |generated row − full-pass row| over every kept layer, head and step, the prompt
/// block included; the generated row's cache entries mapped to the full pass's positions, and
/// positions outside the cache required to be 0 in the full pass.
double maxRowDiff(const Generation& g, const ModelRun& full) {
  double worst = 0;
  const auto n_p = static_cast<int>(g.prompt.ids.size());
  for (std::size_t li = 0; li < g.layers.size(); ++li) {
    const Tensor3& f = full.attention[static_cast<std::size_t>(g.layers[li])].weights;
    const Tensor3& p = g.prompt_attention[li];
    for (int h = 0; h < f.h; ++h)
      for (int i = 0; i < n_p; ++i)
        for (int j = 0; j < n_p; ++j) worst = std::max(worst, std::fabs(double(p(h, i, j) - f(h, i, j))));
    for (const GenerationStep& s : g.steps) {
      if (s.position >= f.rows) continue;  // the last token generated is never read
      const Tensor3& r = s.rows[li];
      for (int h = 0; h < f.h; ++h) {
        std::vector<double> row(static_cast<std::size_t>(f.cols), 0.0);
        for (int c = 0; c < s.cache_length; ++c)
          row[static_cast<std::size_t>(s.cache_positions[static_cast<std::size_t>(c)])] = r(h, 0, c);
        for (int j = 0; j < f.cols; ++j)
          worst = std::max(worst, std::fabs(row[static_cast<std::size_t>(j)] - f(h, s.position, j)));
      }
    }
  }
  return worst;
}

/// The full pass over the prompt and every generated token but the last.
ModelRun fullPass(const PretrainedModel& model, const Generation& g, Backend& backend) {
  Encoding all;
  all.ids.assign(g.ids.begin(), g.ids.end() - 1);
  return model.runIds(all, ModelRunOptions{}, backend);
}

/// A backend that hides what a StreamingLLM cache of window W and S sinks hides (original
/// positions): window W with the first S tokens global (MaskPattern), for a model without
/// windows of its own.
class StreamingMaskBackend final : public Backend {
 public:
  StreamingMaskBackend(int window, int sinks) : window_(window), sinks_(sinks) {}
  std::string name() const override { return "cpu"; }
  std::string device() const override { return "cpu"; }
  AttentionResult compute(const AttentionInputs& inputs, const AttentionSpec& spec) override {
    AttentionSpec s = spec;
    s.window = window_;
    s.global_tokens = sinks_;
    return cpu_->compute(inputs, s);
  }

 private:
  int window_, sinks_;
  std::unique_ptr<Backend> cpu_ = makeCpuBackend();
};

void checkModel(const fs::path& path) {
  INFO(path.string());
  const auto model = PretrainedModel::load(path);
  const auto cpu = makeCpuBackend();
  GenerateOptions o;
  o.max_tokens = 6;
  o.stop_at_eos = false;
  const Generation g = generate(*model, model->encode("the cat sat on", std::nullopt), o);
  REQUIRE(g.steps.size() == 6);
  CHECK(g.stop == "max_tokens");
  const ModelRun full = fullPass(*model, g, *cpu);
  CHECK(maxRowDiff(g, full) < 1e-5);
  // The last step's prediction is the full pass's next token.
  REQUIRE_FALSE(full.next_tokens.empty());
  CHECK(g.steps.back().token.id == full.next_tokens.front().id);
  CHECK(std::fabs(g.steps.back().token.probability - full.next_tokens.front().probability) < 1e-5);
  // Cache length and bytes at every step.
  for (std::size_t k = 0; k < g.steps.size(); ++k) {
    CHECK(g.steps[k].cache_length == static_cast<int>(g.prompt.ids.size() + k));
    CHECK(g.steps[k].cache_bytes ==
          g.steps[k].cache_length * model->config().kvCacheBytesPerToken());
  }
}

}  // namespace

TEST_CASE("generate: every row equals one full pass, tiny Llama family", "[generate]") {
  for (const char* m : {"tiny-llama", "tiny-qwen2", "tiny-mistral", "tiny-phi3"})
    checkModel(kData / "models" / m);
  checkModel(kData / "models/tiny-llama/tiny-llama.gguf");
}

TEST_CASE("generate: every row equals one full pass, tiny GPT-2 and Gemma 2/3", "[generate]") {
  for (const char* m : {"tiny-gpt2", "tiny-gemma2", "tiny-gemma3"}) checkModel(kData / "models" / m);
}

TEST_CASE("generate: SmolLM2's rows equal one full pass", "[generate][smollm2]") {
  const auto path = requireSmolLm2();
  if (!path) return;
  checkModel(*path);  // 6 tokens after the 5 of the prompt
}

TEST_CASE("generate: a StreamingLLM cache equals the full pass with its visibility",
          "[generate]") {
  // tiny-llama has no sliding window: the cache of window 4 + 2 sinks hides exactly what a window
  // of 4 with 2 global tokens does (original positions kept).
  const auto model = PretrainedModel::load(kData / "models/tiny-llama");
  GenerateOptions o;
  o.max_tokens = 8;
  o.stop_at_eos = false;
  o.cache = {4, 2};
  const Generation g = generate(*model, model->encode("the cat sat on the mat", std::nullopt), o);
  StreamingMaskBackend masked(4, 2);
  CHECK(maxRowDiff(g, fullPass(*model, g, masked)) < 1e-5);
  for (const GenerationStep& s : g.steps) {
    if (s.position >= 7) CHECK(s.cache_length <= 6);  // step 0 holds the whole prompt
    CHECK(s.cache_positions.front() == 0);
    CHECK(s.cache_positions[1] == 1);
    CHECK(s.cache_positions.back() == s.position);
  }
  // Without sinks position 0 leaves the cache.
  o.cache = {4, 0};
  const Generation w = generate(*model, model->encode("the cat sat on the mat", std::nullopt), o);
  CHECK(w.steps.back().cache_length == 4);
  CHECK(w.steps.back().cache_positions.front() == w.steps.back().position - 3);
  StreamingMaskBackend window_only(4, 0);
  CHECK(maxRowDiff(w, fullPass(*model, w, window_only)) < 1e-5);
}

TEST_CASE("scoreText: the full cache's log-probability is the full pass's", "[generate]") {
  const auto model = PretrainedModel::load(kData / "models/tiny-qwen2");
  const Encoding e = model->encode("the cat sat on the mat", std::nullopt);
  const TextScore s = scoreText(*model, e, {});
  REQUIRE(s.log_probs.size() == e.ids.size() - 1);
  Encoding head = e;
  head.ids.pop_back();
  head.type_ids.clear();
  ModelRunOptions all;
  all.next_tokens = model->config().vocab_size;
  const auto cpu = makeCpuBackend();
  const ModelRun run = model->runIds(head, all, *cpu);
  double p = 0;
  for (const NextToken& t : run.next_tokens)
    if (t.id == e.ids.back()) p = t.probability;
  CHECK(std::fabs(s.log_probs.back() - std::log(p)) < 1e-5);
  CHECK(std::fabs(s.perplexity - std::exp(-s.log_likelihood / double(e.ids.size() - 1))) < 1e-12);
  // A window as long as the text changes nothing; a short one changes the score.
  const TextScore same = scoreText(*model, e, {static_cast<int>(e.ids.size()), 0});
  CHECK(std::fabs(same.log_likelihood - s.log_likelihood) < 1e-9);
  const TextScore short_window = scoreText(*model, e, {2, 0});
  CHECK(std::fabs(short_window.log_likelihood - s.log_likelihood) > 1e-6);
  // Sink mass is a mean weight: in [0, 1]; under a 2-token window position 0 leaves at once.
  CHECK(s.sink_mass.minCoeff() >= 0);
  CHECK(s.sink_mass.maxCoeff() <= 1);
}

TEST_CASE("generate: stops at end of sequence, at the context, and refuses bad runs",
          "[generate]") {
  const auto model = PretrainedModel::load(kData / "models/tiny-llama");
  REQUIRE(model->config().eos_token_ids == std::vector<int>{2});
  const Encoding prompt = model->encode("the cat", std::nullopt);
  GenerateOptions o;
  o.max_tokens = 200;
  o.stop_at_eos = false;
  const Generation g = generate(*model, prompt, o);
  CHECK(g.stop == "context");
  CHECK(g.ids.size() == 64);  // tiny-llama's max_position_embeddings
  // Sampling at a high temperature reproduces with the seed.
  o.max_tokens = 10;
  o.sample_temperature = 2.0;
  o.seed = 7;
  const Generation a = generate(*model, prompt, o), b = generate(*model, prompt, o);
  CHECK(a.ids == b.ids);
  o.top_k = 1;  // top-k 1 is greedy
  o.sample_temperature = 5.0;
  GenerateOptions greedy;
  greedy.max_tokens = 10;
  greedy.stop_at_eos = false;
  CHECK(generate(*model, prompt, o).ids == generate(*model, prompt, greedy).ids);
  // An end-of-sequence token ends it: force one by treating the first greedy token as EOS.
  GenerateOptions stop = greedy;
  const int first = generate(*model, prompt, greedy).ids[prompt.ids.size()];
  stop.stop_at_eos = true;
  stop.stop_tokens = std::vector<int>{first};
  const Generation e = generate(*model, prompt, stop);
  CHECK(e.stop == "eos");
  CHECK(e.steps.size() == 1);

  Encoding longer;
  longer.ids.assign(65, 5);
  CHECK_THROWS_WITH(generate(*model, longer, greedy),
                    "the prompt is 65 tokens; tiny-llama reads at most 64");
  GenerateOptions bad = greedy;
  bad.cache = {0, 4};
  CHECK_THROWS_AS(generate(*model, prompt, bad), Error);
  bad = greedy;
  bad.max_tokens = 0;
  CHECK_THROWS_AS(generate(*model, prompt, bad), Error);
  if (const auto minilm = miniLmDir()) {
    const auto bert = PretrainedModel::load(*minilm);
    CHECK_THROWS_WITH(generate(*bert, bert->encode("a b", std::nullopt), greedy),
                      Catch::Contains("an encoder: it does not generate"));
  }
}

}  // namespace attnlab_test_generate
