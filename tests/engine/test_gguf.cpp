// The GGUF reader and the dequantisers: hand-computed blocks, every type against the gguf Python
// package bit for bit (tests/data/quants, made by tests/reference/make_quant_goldens.py), metadata
// of every value type, and every kind of broken file as one clear error — never a crash, for
// every truncation of a valid file too.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/safetensors.hpp"
#include "gguf_writer.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_gguf {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;

fs::path tempFile(const std::string& name) {
  return fs::temp_directory_path() / ("attnlab_" + name);
}

std::vector<unsigned char> halfBytes(float value) {
  // Only for values exactly representable in float16 with a normal exponent.
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  const std::uint32_t mantissa = (bits >> 13) & 0x3FFu;
  const auto h = static_cast<std::uint16_t>(value == 0 ? 0 : sign | (exponent << 10) | mantissa);
  return {static_cast<unsigned char>(h & 0xFF), static_cast<unsigned char>(h >> 8)};
}

/// Opening the bytes must throw kInvalidInput naming the file and containing `needle`.
void requireInvalid(const std::vector<unsigned char>& bytes, const std::string& needle) {
  const fs::path path = writeBytes(tempFile("bad.gguf"), bytes);
  try {
    GgufFile file(path);
    FAIL("no error for " << needle);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kInvalidInput);
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
    CHECK(std::string(e.what()).find("attnlab_bad.gguf") != std::string::npos);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

GgufBuilder validFile() {
  GgufBuilder b;
  b.str("general.architecture", "llama").u32("general.alignment", 32);
  b.tensorF32("a", {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  b.tensorF32("b", {3}, {-1, 0, 1});
  return b;
}

}  // namespace

TEST_CASE("Q4_0, Q4_1 and Q8_0 blocks dequantise as their formulas say", "[gguf]") {
  // Q4_0: d = 0.5; byte j holds element j (low nibble) and j + 16 (high nibble), value (q − 8)·d.
  std::vector<unsigned char> q4_0 = halfBytes(0.5f);
  for (int j = 0; j < 16; ++j) q4_0.push_back(static_cast<unsigned char>((15 - j) << 4 | j));
  std::vector<float> out(32);
  dequantize(2, reinterpret_cast<const std::byte*>(q4_0.data()), 32, out.data());
  CHECK(out[0] == (0 - 8) * 0.5f);    // −4
  CHECK(out[5] == (5 - 8) * 0.5f);    // −1.5
  CHECK(out[16] == (15 - 8) * 0.5f);  // 3.5
  CHECK(out[31] == (0 - 8) * 0.5f);   // element 31 is the high nibble of byte 15: 15 − 15 = 0
  // Q4_1: d = 0.25, m = −1: value q·d + m.
  std::vector<unsigned char> q4_1 = halfBytes(0.25f);
  for (unsigned char c : halfBytes(-1.0f)) q4_1.push_back(c);
  for (int j = 0; j < 16; ++j) q4_1.push_back(static_cast<unsigned char>(0x30 | 0x0F));
  dequantize(3, reinterpret_cast<const std::byte*>(q4_1.data()), 32, out.data());
  CHECK(out[0] == 15 * 0.25f - 1.0f);  // 2.75
  CHECK(out[16] == 3 * 0.25f - 1.0f);  // −0.25
  // Q8_0: d = 2; int8 values.
  std::vector<unsigned char> q8 = halfBytes(2.0f);
  for (int j = 0; j < 32; ++j)
    q8.push_back(static_cast<unsigned char>(static_cast<std::int8_t>(j - 16)));
  dequantize(8, reinterpret_cast<const std::byte*>(q8.data()), 32, out.data());
  CHECK(out[0] == -32.0f);
  CHECK(out[31] == 30.0f);
  // A count that is not whole blocks, and a type that is known but not read.
  CHECK_THROWS_AS(dequantize(8, reinterpret_cast<const std::byte*>(q8.data()), 31, out.data()),
                  Error);
  CHECK_THROWS_WITH(dequantize(16, reinterpret_cast<const std::byte*>(q8.data()), 256, out.data()),
                    Catch::Contains("IQ2_XXS"));
}

TEST_CASE("an empty tensor dequantises to nothing, whatever its pointers", "[gguf]") {
  // Found by fuzz_gguf (tests/fuzz/regressions/gguf/empty_f32_tensor.gguf): an F32 tensor with a
  // zero dimension reached memcpy with null pointers (undefined behaviour even for 0 bytes).
  // F32, F16, Q4_0 and Q6_K: no throw, and not one float of the output written (the sanitizer
  // builds also see no read).
  const std::vector<unsigned char> block(256, 0xFF);
  for (std::uint32_t type : {0u, 1u, 2u, 14u}) {
    INFO("ggml type " << type);
    CHECK_NOTHROW(dequantize(type, nullptr, 0, nullptr));
    std::vector<float> out(4, 7.5f);
    CHECK_NOTHROW(dequantize(type, reinterpret_cast<const std::byte*>(block.data()), 0,
                             out.data()));
    CHECK(out == std::vector<float>(4, 7.5f));
  }
  // The fuzzer's input itself: it opens, and its empty tensor reads as a matrix of no elements.
  const GgufFile file(kData / "../fuzz/regressions/gguf/empty_f32_tensor.gguf");
  std::size_t empty = 0;
  for (const GgufTensor& t : file.tensors()) {
    if (t.elements() != 0) continue;
    ++empty;
    INFO("tensor " << t.name);
    CHECK(file.matrix(t.name).size() == 0);
  }
  CHECK(empty >= 1);
}

TEST_CASE("every dequantised type equals the gguf Python package bit for bit", "[gguf]") {
  const SafeTensors golden(kData / "quants/dequant.safetensors");
  const auto counts = nlohmann::json::parse(golden.metadata().at("counts"));
  const std::pair<const char*, std::uint32_t> types[] = {
      {"F32", 0},  {"F16", 1},  {"BF16", 30}, {"Q4_0", 2},  {"Q4_1", 3},  {"Q5_0", 6},
      {"Q5_1", 7}, {"Q8_0", 8}, {"Q4_K", 12}, {"Q5_K", 13}, {"Q6_K", 14},
      {"Q2_K", 10}, {"Q3_K", 11}, {"IQ4_NL", 20}, {"IQ4_XS", 23},
  };
  std::size_t checked = 0;
  for (const auto& [name, type] : types) {
    INFO(name << " (gguf " << golden.metadata().at("gguf_version") << ")");
    const TensorView& raw = golden.tensor(std::string(name) + ".bytes");
    const std::vector<float> expected = golden.floats(std::string(name) + ".values");
    REQUIRE(expected.size() == counts.at(name).get<std::size_t>());
    std::vector<float> got(expected.size(), -12345.0f);
    dequantize(type, raw.data, expected.size(), got.data());
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      std::uint32_t a, b;
      std::memcpy(&a, &got[i], 4);
      std::memcpy(&b, &expected[i], 4);
      const bool both_nan = std::isnan(got[i]) && std::isnan(expected[i]);
      if (a != b && !both_nan) ++mismatches;
    }
    CHECK(mismatches == 0);
    checked += expected.size();
  }
  CHECK(checked == 58'174);  // the golden's values over all 15 types, each compared
}

TEST_CASE("GGUF metadata of every value type reads back, v2 and v3", "[gguf]") {
  const std::uint32_t version = GENERATE(2u, 3u);
  GgufBuilder b(version);
  std::vector<unsigned char> v;
  GgufBuilder::put<std::int8_t>(v, -5);
  b.raw("i8", 1, v);
  v.clear();
  GgufBuilder::put<std::uint16_t>(v, 65535);
  b.raw("u16", 2, v);
  v.clear();
  GgufBuilder::put<std::int16_t>(v, -300);
  b.raw("i16", 3, v);
  v.clear();
  GgufBuilder::put<std::int64_t>(v, -(1LL << 40));
  b.raw("i64", 11, v);
  v.clear();
  GgufBuilder::put<double>(v, 0.125);
  b.raw("f64", 12, v);
  v.clear();
  GgufBuilder::put<std::uint8_t>(v, 200);
  b.raw("u8", 0, v);
  // An array of arrays: [[1, 2], [3]] as int32.
  v.clear();
  GgufBuilder::put<std::uint32_t>(v, 9);
  GgufBuilder::put<std::uint64_t>(v, 2);
  GgufBuilder::put<std::uint32_t>(v, 5);
  GgufBuilder::put<std::uint64_t>(v, 2);
  GgufBuilder::put<std::int32_t>(v, 1);
  GgufBuilder::put<std::int32_t>(v, 2);
  GgufBuilder::put<std::uint32_t>(v, 5);
  GgufBuilder::put<std::uint64_t>(v, 1);
  GgufBuilder::put<std::int32_t>(v, 3);
  b.raw("nested", 9, v);
  b.u32("u32", 7).i32("i32", -7).f32("f32", 1.5f).boolean("yes", true).u64("u64", 1ULL << 63);
  b.str("name", "caf\u00e9").strings("words", {"a", "", "\u4e2d"}).f32s("scores", {0.5f, -1});
  b.tensorF32("m", {3, 2}, {1, 2, 3, 4, 5, 6});
  const fs::path path = writeBytes(tempFile("values.gguf"), b.bytes());
  const GgufFile file(path);
  CHECK(file.version() == version);
  CHECK(file.integer("i8") == -5);
  CHECK(file.integer("u8") == 200);
  CHECK(file.integer("u16") == 65535);
  CHECK(file.integer("i16") == -300);
  CHECK(file.integer("u32") == 7);
  CHECK(file.integer("i32") == -7);
  CHECK(file.integer("i64") == -(1LL << 40));
  CHECK(static_cast<std::uint64_t>(*file.integer("u64")) == (1ULL << 63));
  CHECK(file.number("f32") == 1.5);
  CHECK(file.number("f64") == 0.125);
  CHECK(file.number("u32") == 7.0);  // integers are numbers too
  CHECK(file.boolean("yes") == true);
  CHECK(file.string("name") == "caf\u00e9");
  CHECK(file.strings("words") == std::vector<std::string>{"a", "", "\u4e2d"});
  CHECK(file.numbers("scores") == std::vector<double>{0.5, -1.0});
  const GgufValue* nested = file.find("nested");
  REQUIRE(nested != nullptr);
  REQUIRE(nested->items.size() == 2);
  CHECK(nested->items[0].items.size() == 2);
  CHECK(nested->items[1].items[0].integer == 3);
  CHECK_FALSE(file.contains("missing"));
  CHECK_THROWS_WITH(file.requireInteger("missing"), Catch::Contains("missing missing"));
  CHECK_THROWS_WITH(file.integer("name"), Catch::Contains("name should be an integer, not string"));
  CHECK_THROWS_WITH(file.strings("scores"), Catch::Contains("array of float32"));
  const Matrix m = file.matrix("m", 2, 3);
  CHECK(m(1, 2) == 6.0f);  // ne = {3, 2}: 2 rows of 3
  CHECK_THROWS_WITH(file.matrix("m", 3, 2),
                    Catch::Contains("has 2 rows of 3, expected 3 rows of 2"));
  CHECK_THROWS_WITH(file.matrix("nope"), Catch::Contains("has no tensor nope"));
}

TEST_CASE("broken GGUF files give one line naming the fault", "[gguf]") {
  const std::vector<unsigned char> good = validFile().bytes();
  std::size_t needed = 0;  // the file ends after tensor b's last byte; the padding is optional
  {
    const fs::path path = writeBytes(tempFile("good.gguf"), good);
    const GgufFile file(path);
    CHECK(file.tensors().size() == 2);
    CHECK(file.tensor("b").data != nullptr);
    needed = file.dataOffset() + file.tensor("b").offset + file.tensor("b").bytes;
  }
  SECTION("wrong magic") {
    auto bytes = good;
    std::memcpy(bytes.data(), "GGML", 4);
    requireInvalid(bytes, "not a GGUF file (it starts with \"GGML\"");
  }
  SECTION("unknown version") {
    auto bytes = good;
    bytes[4] = 1;
    requireInvalid(bytes, "GGUF version 1 is not supported (2 and 3 are)");
    bytes[4] = 4;
    requireInvalid(bytes, "GGUF version 4 is not supported");
  }
  SECTION("truncated at every length: an error, never a crash") {
    for (std::size_t n = 0; n < needed; ++n) {
      const fs::path path = writeBytes(tempFile("cut.gguf"),
                                       std::vector<unsigned char>(good.begin(), good.begin() + n));
      CHECK_THROWS_AS(GgufFile(path), Error);
    }
    auto cut = good;
    cut.resize(needed - 1);
    requireInvalid(cut, "run past the end of the file");
  }
  SECTION("a tensor count larger than the file") {
    auto bytes = good;
    const std::uint64_t count = 1ULL << 40;
    std::memcpy(bytes.data() + 8, &count, 8);
    requireInvalid(bytes, "tensor count 1099511627776 is larger than the file could hold");
  }
  SECTION("a string length past the end") {
    GgufBuilder b;
    std::vector<unsigned char> v;
    GgufBuilder::put<std::uint64_t>(v, 1ULL << 50);
    b.raw("general.name", 8, v);
    requireInvalid(b.bytes(), "general.name: string length 1125899906842624");
  }
  SECTION("an array longer than the file") {
    GgufBuilder b;
    std::vector<unsigned char> v;
    GgufBuilder::put<std::uint32_t>(v, 8);
    GgufBuilder::put<std::uint64_t>(v, 1ULL << 40);
    b.raw("tokenizer.ggml.tokens", 9, v);
    requireInvalid(b.bytes(), "array of 1099511627776 string values runs past the end");
  }
  SECTION("an unknown value type") {
    GgufBuilder b;
    b.raw("general.odd", 13, {0, 0, 0, 0});
    requireInvalid(b.bytes(), "general.odd: unknown value type 13");
  }
  SECTION("an unknown tensor type, named by number") {
    GgufBuilder b;
    b.tensor("w", 99, {32}, std::vector<unsigned char>(64));
    requireInvalid(b.bytes(), "tensor w: unknown tensor type 99");
  }
  SECTION("a row that is not whole blocks") {
    GgufBuilder b;
    b.tensor("w", 8, {33}, std::vector<unsigned char>(68));
    requireInvalid(b.bytes(), "row length 33 is not a multiple of Q8_0's block of 32");
  }
  SECTION("duplicate keys and tensors, bad alignment, too many dimensions") {
    GgufBuilder dup;
    dup.u32("k", 1).u32("k", 2);
    requireInvalid(dup.bytes(), "key k appears twice");
    GgufBuilder twice;
    twice.tensorF32("t", {1}, {1}).tensorF32("t", {1}, {2});
    requireInvalid(twice.bytes(), "tensor t appears twice");
    GgufBuilder align;
    align.u32("general.alignment", 24);
    requireInvalid(align.bytes(), "general.alignment must be a power of two, not 24");
    GgufBuilder dims;
    dims.tensorF32("t", {1, 1, 1, 1, 1}, {1});
    requireInvalid(dims.bytes(), "tensor t: 5 dimensions");
  }
  SECTION("overlapping tensors and misaligned offsets") {
    auto bytes = good;
    // Tensor b's offset (the last 8 bytes of its info) set to tensor a's: 0.
    const std::string name_b = std::string("\x01\0\0\0\0\0\0\0b", 9);
    const auto it = std::search(bytes.begin(), bytes.end(), name_b.begin(), name_b.end());
    REQUIRE(it != bytes.end());
    const std::size_t info = static_cast<std::size_t>(it - bytes.begin()) + 9 + 4 + 8 + 4;
    std::uint64_t offset = 0;
    std::memcpy(bytes.data() + info, &offset, 8);
    requireInvalid(bytes, "overlaps tensor");
    offset = 4;
    std::memcpy(bytes.data() + info, &offset, 8);
    requireInvalid(bytes, "offset 4 is not a multiple of the alignment 32");
  }
  SECTION("a tensor type that cannot be dequantised is named when read") {
    GgufBuilder b;
    b.tensor("w", 16, {256}, std::vector<unsigned char>(66));  // IQ2_XXS
    const GgufFile file(writeBytes(tempFile("iq2xxs.gguf"), b.bytes()));
    CHECK_THROWS_WITH(file.matrix("w"), Catch::Contains("tensor w is IQ2_XXS, which this engine "
                                                        "cannot dequantise"));
  }
}

TEST_CASE("a GGUF file held in memory reads as from disk", "[gguf]") {
  const std::vector<unsigned char> good = validFile().bytes();
  const GgufFile file(reinterpret_cast<const std::byte*>(good.data()), good.size(), "mem.gguf");
  CHECK(file.string("general.architecture") == "llama");
  CHECK(file.matrix("a", 2, 4)(1, 3) == 8.0f);
  CHECK_THROWS_WITH(GgufFile(reinterpret_cast<const std::byte*>(good.data()), 10, "mem.gguf"),
                    Catch::Contains("mem.gguf: truncated: 10 bytes"));
}

}  // namespace attnlab_test_gguf
