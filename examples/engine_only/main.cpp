// engine_only: the attention engine without Qt. Prints one head's attention weights for a
// sentence as a table (rows are queries, columns keys).
//
//   engine_only ["sentence"] [head]

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/synthetic.hpp"

int main(int argc, char** argv) {
  const std::string text = argc > 1 ? argv[1] : "The cat sat on the mat because it was tired.";
  const int head = argc > 2 ? std::atoi(argv[2]) : 0;
  try {
    attnlab::AttentionSpec spec;  // scaled dot-product, 8 heads, d_model 64 → d_k 8
    const attnlab::SyntheticModel model(spec, /*seed=*/0);
    auto cpu = attnlab::makeCpuBackend();
    const attnlab::LabRun run = attnlab::runSynthetic(model, spec, text, std::nullopt, *cpu);
    if (head < 0 || head >= run.attention.heads()) {
      std::cerr << "engine_only: head must be between 0 and " << run.attention.heads() - 1 << "\n";
      return 2;
    }
    std::printf("scaled dot-product, head %d of %d, d_k = %d, %.3f ms\n%12s", head,
                spec.heads, spec.resolvedDk(), run.compute_ms, "query\\key");
    for (const auto& k : run.key_tokens) std::printf(" %8.8s", k.text.c_str());
    std::printf("\n");
    for (int i = 0; i < run.attention.nQ(); ++i) {
      std::printf("%12.12s", run.query_tokens[i].text.c_str());
      for (int j = 0; j < run.attention.nK(); ++j)
        std::printf(" %8.4f", run.attention.weights(head, i, j));
      std::printf("\n");
    }
  } catch (const attnlab::Error& e) {
    std::cerr << "engine_only: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
