// The safetensors reader: valid files in every float dtype, and each malformed header as an error
// naming the file and the tensor.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attnlab/error.hpp"
#include "attnlab/safetensors.hpp"
#include "safetensors_writer.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_safetensors {

using namespace attnlab;
using namespace attnlab::test;

namespace {

RawTensor half(std::vector<long long> shape, const std::vector<std::uint16_t>& bits, const char* dtype) {
  RawTensor t{dtype, std::move(shape), {}};
  for (std::uint16_t b : bits) {
    t.bytes.push_back(static_cast<unsigned char>(b & 0xFF));
    t.bytes.push_back(static_cast<unsigned char>(b >> 8));
  }
  return t;
}

/// Opening path must throw kInvalidInput with a message containing `needle`.
void requireInvalid(const std::filesystem::path& path, const std::string& needle) {
  using attnlab::test::ErrorMatches;
  REQUIRE_THROWS_MATCHES(SafeTensors(path), Error,
                         ErrorMatches(ErrorCode::kInvalidInput, needle) &&
                             ErrorMatches(ErrorCode::kInvalidInput, path.filename().string()));
}

}  // namespace

TEST_CASE("safetensors: F32, F16, BF16 and integer tensors read back exactly", "[safetensors]") {
  const auto dir = freshDir("st_valid");
  RawTensor ids{"I64", {3}, {}};
  for (long long v : {7LL, -2LL, 1LL << 40}) {
    for (int i = 0; i < 8; ++i) ids.bytes.push_back(static_cast<unsigned char>((v >> (8 * i)) & 0xFF));
  }
  writeSafetensors(dir / "a.safetensors",
                   {{"w", f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                    // 1.0, −2.0, 65504 (max half), 2^-24 (smallest subnormal), +inf
                    {"h", half({5}, {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00}, "F16")},
                    // 1.0, −0.5, 3.140625 (bf16 of π)
                    {"b", half({3}, {0x3F80, 0xBF00, 0x4049}, "BF16")},
                    {"ids", ids},
                    {"empty", f32({0, 4}, {})}},
                   {{"format", "pt"}});
  const SafeTensors file(dir / "a.safetensors");
  CHECK(file.tensors().size() == 5);
  CHECK(file.metadata().at("format") == "pt");
  const Matrix w = file.matrix("w", 2, 3);
  CHECK(w(0, 0) == 1.0f);
  CHECK(w(1, 2) == 6.0f);
  const std::vector<float> h = file.floats("h");
  CHECK(h[0] == 1.0f);
  CHECK(h[1] == -2.0f);
  CHECK(h[2] == 65504.0f);
  CHECK(h[3] == std::ldexp(1.0f, -24));
  CHECK(std::isinf(h[4]));
  const std::vector<float> b = file.floats("b");
  CHECK(b[0] == 1.0f);
  CHECK(b[1] == -0.5f);
  CHECK(b[2] == 3.140625f);
  CHECK(file.integers("ids") == std::vector<std::int64_t>{7, -2, 1LL << 40});
  CHECK(file.tensor("empty").elements() == 0);
  // Found by fuzz_safetensors: reading an empty F32 tensor passed a null pointer to memcpy
  // (undefined behaviour; UBSan stopped there). tests/fuzz/regressions/safetensors replays it.
  CHECK(file.floats("empty").empty());
  CHECK(file.matrix("empty").size() == 0);
  CHECK_THROWS_AS(file.floats("ids"), Error);
  CHECK_THROWS_WITH(file.tensor("missing"), Catch::Contains("has no tensor missing"));
  CHECK_THROWS_WITH(file.matrix("w", 3, 2), Catch::Contains("has shape [2, 3], expected [3, 2]"));
}

TEST_CASE("safetensors: every half-precision value widens exactly", "[safetensors]") {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float f = halfToFloat(static_cast<std::uint16_t>(bits));
    const std::uint32_t exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0x1F) {
      CHECK((mantissa == 0 ? std::isinf(f) : std::isnan(f)));
      continue;
    }
    const double expected = exponent == 0 ? sign * std::ldexp(mantissa, -24)
                                          : sign * std::ldexp(1024 + mantissa, static_cast<int>(exponent) - 25);
    if (static_cast<double>(f) != expected) FAIL("half 0x" << std::hex << bits);
  }
  CHECK(bfloat16ToFloat(0x7F80) == std::numeric_limits<float>::infinity());
}

TEST_CASE("safetensors: malformed files are errors naming the problem", "[safetensors]") {
  const auto dir = freshDir("st_bad");
  const std::map<std::string, RawTensor> one{{"w", f32({2, 2}, {1, 2, 3, 4})}};

  SECTION("missing file") {
    CHECK_THROWS_WITH(SafeTensors(dir / "nope.safetensors"), Catch::Contains("cannot open"));
  }
  SECTION("shorter than the length field") {
    std::ofstream(dir / "short.safetensors") << "abc";
    requireInvalid(dir / "short.safetensors", "truncated");
  }
  SECTION("header length beyond the file") {
    writeSafetensorsRaw(dir / "long.safetensors", safetensorsHeader(one), std::vector<unsigned char>(16), 1u << 20);
    requireInvalid(dir / "long.safetensors", "header claims 1048576 bytes");
  }
  SECTION("truncated data") {
    writeSafetensorsRaw(dir / "trunc.safetensors", safetensorsHeader(one), std::vector<unsigned char>(10));
    requireInvalid(dir / "trunc.safetensors", "tensor w: data_offsets [0, 16) run past the data block of 10 bytes");
  }
  SECTION("malformed JSON") {
    writeSafetensorsRaw(dir / "json.safetensors", "{\"w\": {\"dtype\": ", {});
    requireInvalid(dir / "json.safetensors", "not a well-formed JSON object");
  }
  SECTION("unknown dtype") {
    std::map<std::string, RawTensor> t = one;
    t["w"].dtype = "F8_E4M3";
    writeSafetensors(dir / "dtype.safetensors", t);
    requireInvalid(dir / "dtype.safetensors", "tensor w: unknown dtype F8_E4M3");
  }
  SECTION("shape and offsets disagree") {
    std::map<std::string, RawTensor> t = one;
    t["w"].shape = {2, 3};
    writeSafetensors(dir / "shape.safetensors", t);
    requireInvalid(dir / "shape.safetensors", "tensor w: shape × F32 needs 24 bytes but data_offsets span 16");
  }
  SECTION("overlapping offsets") {
    const std::string header =
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
    writeSafetensorsRaw(dir / "overlap.safetensors", header, std::vector<unsigned char>(12));
    requireInvalid(dir / "overlap.safetensors", "tensor b: data_offsets overlap tensor a");
  }
  SECTION("negative and reversed offsets, bad shapes") {
    writeSafetensorsRaw(dir / "neg.safetensors",
                        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", std::vector<unsigned char>(4));
    requireInvalid(dir / "neg.safetensors", "tensor a: data_offsets must be non-negative integers");
    writeSafetensorsRaw(dir / "rev.safetensors",
                        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", std::vector<unsigned char>(4));
    requireInvalid(dir / "rev.safetensors", "tensor a: data_offsets end before they begin");
    writeSafetensorsRaw(dir / "huge.safetensors",
                        R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})",
                        std::vector<unsigned char>(4));
    requireInvalid(dir / "huge.safetensors", "tensor a: shape is too large");
    writeSafetensorsRaw(dir / "noshape.safetensors", R"({"a":{"dtype":"F32","data_offsets":[0,4]}})",
                        std::vector<unsigned char>(4));
    requireInvalid(dir / "noshape.safetensors", "tensor a: missing shape");
  }
}

}  // namespace attnlab_test_safetensors
