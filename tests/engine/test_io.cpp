// NPY and CSV writers.

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "attnlab/error.hpp"
#include "attnlab/io.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_io {

using namespace attnlab;

namespace {
std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("attnlab_test_" + name)).string();
}
}  // namespace

TEST_CASE("NPY v1.0: magic, aligned header, little-endian float32 data", "[io][npy]") {
  const std::string path = tempPath("a.npy");
  const std::vector<float> data = {0.0f, 0.25f, 1.0f, -2.5f, 3.0f, 1e-7f};
  writeNpy(path, {2, 1, 3}, data);
  const std::string bytes = readAll(path);
  REQUIRE(bytes.substr(0, 6) == "\x93NUMPY");
  REQUIRE(bytes[6] == 1);
  REQUIRE(bytes[7] == 0);
  const std::size_t header_len =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  REQUIRE((10 + header_len) % 64 == 0);
  const std::string header = bytes.substr(10, header_len);
  CHECK(header.find("'descr': '<f4'") != std::string::npos);
  CHECK(header.find("'fortran_order': False") != std::string::npos);
  CHECK(header.find("'shape': (2, 1, 3)") != std::string::npos);
  CHECK(header.back() == '\n');
  REQUIRE(bytes.size() == 10 + header_len + data.size() * 4);
  std::vector<float> back(data.size());
  std::memcpy(back.data(), bytes.data() + 10 + header_len, data.size() * 4);
  CHECK(back == data);

  writeNpy(path, {6}, data);
  CHECK(readAll(path).find("'shape': (6,)") != std::string::npos);
  CHECK_THROWS_AS(writeNpy(path, {4}, data), Error);
}

TEST_CASE("writing into a missing folder is an I/O error naming the path", "[io]") {
  const std::string path = tempPath("missing_dir/x/a.npy");
  REQUIRE_THROWS_MATCHES(writeNpy(path, {1}, std::vector<float>{1.0f}), Error,
                         test::ErrorMatches(ErrorCode::kIo, path));
}

TEST_CASE("CSV: long form, quoted tokens, masked flag", "[io][csv]") {
  AttentionResult r;
  r.mask = Mask::kCausal;
  r.scores = Tensor3(1, 2, 2);
  r.weights = Tensor3(1, 2, 2);
  r.scores(0, 0, 0) = 1.5f;
  r.weights(0, 0, 0) = 1.0f;
  r.weights(0, 1, 0) = 0.25f;
  r.weights(0, 1, 1) = 0.75f;
  std::vector<Token> tokens(2);
  tokens[0].text = "a,b";
  tokens[1].text = "say \"hi\"";
  const std::string path = tempPath("a.csv");
  writeAttentionCsv(path, r, tokens, tokens, -1);
  const std::string csv = readAll(path);
  CHECK(csv.rfind("head,query,query_token,key,key_token,score,weight,masked\n", 0) == 0);
  CHECK(csv.find("0,0,\"a,b\",0,\"a,b\",1.5,1,0\n") != std::string::npos);
  CHECK(csv.find("0,0,\"a,b\",1,\"say \"\"hi\"\"\",0,0,1\n") != std::string::npos);
  CHECK(csv.find("0,1,\"say \"\"hi\"\"\",1,\"say \"\"hi\"\"\",0,0.75,0\n") != std::string::npos);
  CHECK(csvField("plain") == "plain");
}

}  // namespace attnlab_test_io
