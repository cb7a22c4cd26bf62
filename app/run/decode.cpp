/// \file decode.cpp
/// The decode mode (run.hpp: Session::decode): the synthetic lab's text through a KV cache.

#include <numeric>

#include "attnlab/attention.hpp"
#include "attnlab/tokenizer.hpp"
#include "run/run.hpp"

namespace attnlab::run {

int checkDecodeRequest(const DecodeRequest& request) {
  const options::LabSettings& lab = request.lab;
  if (lab.pretrained())
    throw Error(ErrorCode::kInvalidArgument,
                "decode runs the synthetic lab (a model is scored: Session::score)");
  (void)lab.toSpec();  // 1. validate
  checkDecode(lab);
  const int n = checkTokens(lab).queries;  // 3. the text (no padding: checkDecode)
  const int bug_step = request.bug_step.value_or(n / 2);
  if (request.bug != CacheBug::kNone && bug_step >= n) {
    throw options::OptionError(
        options::Message(ATTNLAB_MSG("--bug-step %1 is past the text's last token (%2)"),
                         {QString::number(bug_step), QString::number(n - 1)}));
  }
  return n;
}

std::shared_ptr<const results::Decoded> Session::decode(const DecodeRequest& request) {
  const int n = checkDecodeRequest(request);
  const int bug_step = request.bug_step.value_or(n / 2);
  const options::LabSettings& lab = request.lab;
  auto r = std::make_shared<results::Decoded>();
  r->settings = lab;
  r->spec = lab.toSpec();
  r->spec.mask = Mask::kCausal;
  r->tokens = tokenize(lab.text.toUtf8().toStdString());
  for (const Token& t : r->tokens) r->labels << QString::fromStdString(t.text);
  const SyntheticModel& model = synthetic(r->spec, lab.seed);  // 2. the weights (shared)
  const Matrix x = model.embed(r->tokens);
  const AttentionInputs inputs = model.project(x, x, r->spec.mechanism);
  r->decode = decodeWithCache(inputs, r->spec, request.bug,  // 4. run
                              request.bug == CacheBug::kNone ? -1 : bug_step);
  if (request.bug != CacheBug::kNone) {
    // What the picture of a bug shows: decoded − the full causal computation, every head.
    const AttentionResult full = computeAttentionCpu(inputs, r->spec);
    std::vector<int> heads(static_cast<std::size_t>(r->spec.heads));
    std::iota(heads.begin(), heads.end(), 0);
    r->delta = weightDifference(r->decode.attention, heads, full, heads);
  }
  return r;
}

}  // namespace attnlab::run
