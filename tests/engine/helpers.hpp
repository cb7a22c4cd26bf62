#pragma once
// Small builders shared by the engine tests.

#include <unistd.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <system_error>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/synthetic.hpp"

namespace attnlab::test {

/// A path in the temporary directory unique to this process and call (ctest runs test cases in
/// parallel, each in a process of its own); everything made there is removed when the process
/// ends.
inline std::filesystem::path scratch(const std::string& name) {
  struct Made {
    std::vector<std::filesystem::path> paths;
    ~Made() {
      std::error_code ec;
      for (const auto& p : paths) std::filesystem::remove_all(p, ec);
    }
  };
  static Made made;
  made.paths.push_back(std::filesystem::temp_directory_path() /
                       ("attnlab_" + std::to_string(::getpid()) + "_" +
                        std::to_string(made.paths.size()) + "_" + name));
  return made.paths.back();
}

/// A one-head tensor [1, rows, cols] from rows of values.
inline Tensor3 oneHead(std::initializer_list<std::initializer_list<float>> rows) {
  const int r = static_cast<int>(rows.size());
  const int c = static_cast<int>(rows.begin()->size());
  Tensor3 t(1, r, c);
  int i = 0;
  for (const auto& row : rows) {
    int j = 0;
    for (float x : row) t(0, i, j++) = x;
    ++i;
  }
  return t;
}

/// A tensor [h, rows, cols] of N(0, sd²) draws.
inline Tensor3 randomTensor(int h, int rows, int cols, std::uint64_t seed, double sd = 1.0) {
  Tensor3 t(h, rows, cols);
  Rng rng(seed);
  for (float& x : t.data) x = static_cast<float>(sd * rng.normal());
  return t;
}

/// Random inputs for every mechanism: q [h, n_q, d_k], k [h, n_k, d_k], v [h, n_k, d_v] and the
/// additive parameters with d_a = d_k.
inline AttentionInputs randomInputs(int h, int n_q, int n_k, int d_k, int d_v, std::uint64_t seed,
                                    double sd = 1.0) {
  AttentionInputs in;
  in.q = randomTensor(h, n_q, d_k, seed, sd);
  in.k = randomTensor(h, n_k, d_k, seed + 1, sd);
  in.v = randomTensor(h, n_k, d_v, seed + 2);
  in.w_a = randomTensor(h, d_k, d_k, seed + 3, 0.3);
  in.u_a = randomTensor(h, d_k, d_k, seed + 4, 0.3);
  in.v_a = randomTensor(h, 1, d_k, seed + 5, 0.3);
  return in;
}

}  // namespace attnlab::test
