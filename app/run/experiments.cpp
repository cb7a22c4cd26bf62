/// \file experiments.cpp
/// The lessons' experiments on the synthetic lab (run.hpp: Experiments).

#include <algorithm>

#include "attnlab/tokenizer.hpp"
#include "run/run.hpp"

namespace attnlab::run {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

}  // namespace

std::optional<WordChange> Experiments::lastWordChanged(const options::LabSettings& settings,
                                                       bool causal) {
  if (settings.pretrained() || settings.cross()) return std::nullopt;
  options::LabSettings lab = settings;
  lab.setCausal(causal);
  lab.pad_to = 0;
  lab.pad_mask = true;
  const AttentionSpec spec = lab.toSpec();
  checkTokens(lab);
  const std::vector<Token> tokens = tokenize(utf8(lab.text));
  int last = -1;
  for (int i = static_cast<int>(tokens.size()) - 1; i > 0 && last < 0; --i)
    if (std::any_of(tokens[i].text.begin(), tokens[i].text.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80);
        }))
      last = i;
  if (last < 1) return std::nullopt;
  std::vector<Token> changed = tokens;
  Token& word = changed[static_cast<std::size_t>(last)];
  word.text = word.text == "dog" ? "cat" : "dog";
  const SyntheticModel& model = session_.synthetic(spec, lab.seed);
  const Matrix x1 = model.embed(tokens), x2 = model.embed(changed);
  Backend& backend = session_.backend(lab);
  WordChange change;
  change.original = backend.compute(model.project(x1, x1, spec.mechanism), spec);
  change.changed = backend.compute(model.project(x2, x2, spec.mechanism), spec);
  change.word = last;
  return change;
}

std::optional<AttentionInputs> Experiments::projections(const options::LabSettings& lab) {
  if (lab.pretrained() || lab.spec.mechanism == Mechanism::kAdditive) return std::nullopt;
  const AttentionSpec spec = lab.toSpec();
  checkTokens(lab);
  const SyntheticModel& m = session_.synthetic(spec, lab.seed);
  const Matrix xq = m.embed(tokenize(utf8(lab.text)));
  const Matrix xk = lab.cross() ? m.embed(tokenize(utf8(lab.source))) : xq;
  return m.project(xq, xk, Mechanism::kScaled);
}

}  // namespace attnlab::run
