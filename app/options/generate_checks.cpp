/// \file generate_checks.cpp
/// The rules of generate and decode --model: a real model read token by token through its KV
/// cache (attnlab/generate.hpp), whose cache policy is --cache-window and --sink-tokens.

#include "options/generate_choices.hpp"
#include "options/option_table.hpp"

namespace attnlab::options::detail {
namespace {

[[noreturn]] void fail(const char* source, QStringList args = {}) {
  throw OptionError(Message(source, std::move(args)));
}

/// --sink-tokens > 0 only with a --cache-window (generate and decode --model).
void checkSinks(const GenerateSettings& g) {
  bool sinks = false;
  for (int s : g.sink_tokens) sinks = sinks || s > 0;
  if (sinks && g.cache_windows.empty())
    fail(ATTNLAB_MSG("--sink-tokens needs --cache-window W (the full cache keeps every token)"));
}

}  // namespace

void checkCachePolicy(const Options& o, unsigned command) {
  const GenerateSettings& g = o.generate;
  if (command == kGenerate) {
    if (!o.isGiven("model"))
      fail(ATTNLAB_MSG("generate runs a pretrained model: add --model DIR|FILE"));
    if (g.cache_windows.size() > 1)
      fail(ATTNLAB_MSG("generate keeps one KV cache: --cache-window takes one number"));
    if (g.sink_tokens.size() > 1)
      fail(ATTNLAB_MSG("generate keeps one KV cache: --sink-tokens takes one number"));
    // --sample-temperature 0 written beside --seed: greedy, as asked; the seed draws nothing.
    checkGenerateChoices(g, o.isGiven("top-k"), o.isGiven("seed") && !o.isGiven("sample-temperature"));
  } else {
    for (const char* name : {"layer", "head", "pair", "rollout", "hide-special"})
      if (o.isGiven(name))
        fail(ATTNLAB_MSG("decode --model scores the text through every layer: --%1 does not apply"),
             {QString::fromLatin1(name)});
    checkSinks(g);
  }
  if (o.lab.spec.mechanism == Mechanism::kAdditive || o.lab.spec.mechanism == Mechanism::kLinear)
    fail(ATTNLAB_MSG("%1 takes the model's softmax attention, dot or scaled, not %2"),
         {commandName(command), QString::fromStdString(toString(o.lab.spec.mechanism))});
  if (o.isGiven("out"))
    checkOutputPath(o.output.out, QStringLiteral("--out"), outputFormats(command));
}

}  // namespace attnlab::options::detail

namespace attnlab::options {

void checkGenerateChoices(const GenerateSettings& g, bool top_k_given, bool seed_given) {
  if (top_k_given && g.sample_temperature == 0)
    detail::fail(ATTNLAB_MSG("--top-k applies when sampling: add --sample-temperature T"));
  if (seed_given && g.sample_temperature == 0)
    detail::fail(ATTNLAB_MSG("--seed draws the samples: add --sample-temperature T"));
  detail::checkSinks(g);
}

GenerateOptions generateOptions(const GenerateSettings& g, const LabSettings& lab) {
  GenerateOptions go;
  go.max_tokens = g.max_tokens;
  go.sample_temperature = g.sample_temperature;
  go.seed = g.seed;
  go.top_k = g.top_k;
  if (!g.cache_windows.empty()) go.cache.window = g.cache_windows.front();
  if (!g.sink_tokens.empty()) go.cache.sinks = g.sink_tokens.front();
  go.run = lab.toModelOptions();
  return go;
}

}  // namespace attnlab::options
