// The safetensors reader: mmap, then validate every header entry before any tensor is handed out.

#include "attnlab/safetensors.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "attnlab/error.hpp"
#include "model/mapped_file.hpp"
#include "model/tokenizer_common.hpp"

namespace attnlab {
namespace {

using json = nlohmann::json;

// The header is JSON, not data; real files have a few hundred KB at most.
constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

[[noreturn]] void invalid(const std::filesystem::path& path, const std::string& what) {
  throw Error(ErrorCode::kInvalidInput, path.filename().string() + ": " + what);
}

bool parseDtype(std::string_view s, DType* out) {
  static constexpr std::pair<std::string_view, DType> kNames[] = {
      {"F32", DType::kF32}, {"F16", DType::kF16},  {"BF16", DType::kBF16}, {"F64", DType::kF64},
      {"I64", DType::kI64}, {"I32", DType::kI32},  {"I16", DType::kI16},   {"I8", DType::kI8},
      {"U8", DType::kU8},   {"BOOL", DType::kBool}};
  for (const auto& [name, dtype] : kNames) {
    if (name == s) {
      *out = dtype;
      return true;
    }
  }
  return false;
}

template <typename T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

}  // namespace

std::size_t dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF64:
    case DType::kI64:
      return 8;
    case DType::kF32:
    case DType::kI32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
    case DType::kI16:
      return 2;
    case DType::kI8:
    case DType::kU8:
    case DType::kBool:
      return 1;
  }
  return 1;
}

std::string_view dtypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "F32";
    case DType::kF16:
      return "F16";
    case DType::kBF16:
      return "BF16";
    case DType::kF64:
      return "F64";
    case DType::kI64:
      return "I64";
    case DType::kI32:
      return "I32";
    case DType::kI16:
      return "I16";
    case DType::kI8:
      return "I8";
    case DType::kU8:
      return "U8";
    case DType::kBool:
      return "BOOL";
  }
  return "?";
}

std::int64_t TensorView::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

float halfToFloat(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  std::uint32_t mantissa = bits & 0x3FFu;
  std::uint32_t out;
  if (exponent == 0x1F) {
    out = sign | 0x7F800000u | (mantissa << 13);  // infinity or NaN (payload kept)
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 → 127
  } else if (mantissa == 0) {
    out = sign;  // ±0
  } else {
    // Subnormal half: normalise into a float32 normal number.
    std::uint32_t e = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    out = sign | (e << 23) | ((mantissa & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

float bfloat16ToFloat(std::uint16_t bits) {
  const std::uint32_t out = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

SafeTensors::SafeTensors(const std::filesystem::path& path) : path_(path) {
  if (path.extension() == ".json") {
    openIndex();
    return;
  }
  file_ = std::make_unique<MappedFile>(path);
  parseFile();  // file_ is unmapped if any check throws
}

void SafeTensors::parseFile() {
  const std::filesystem::path& path = path_;
  const std::uint64_t file_size = file_->size();
  if (file_size < 8) {
    invalid(path, "truncated: " + std::to_string(file_size) +
                      " bytes, shorter than the 8-byte header length");
  }
  const std::byte* bytes = file_->data();
  // A checkout without git-lfs holds a ~130-byte text pointer; its first 8 bytes would read as
  // a header length in the quintillions.
  if (model_text::isGitLfsPointer(std::string_view(reinterpret_cast<const char*>(bytes),
                                                   std::min<std::uint64_t>(file_size, 64))))
    throw model_text::gitLfsPointerError(path, "the weights");
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i)
    header_len = (header_len << 8) | std::to_integer<std::uint8_t>(bytes[i]);
  if (header_len > file_size - 8) {
    invalid(path, "header claims " + std::to_string(header_len) + " bytes but the file has " +
                      std::to_string(file_size - 8) + " after the length (truncated file?)");
  }
  if (header_len > kMaxHeaderBytes) {
    invalid(path, "header of " + std::to_string(header_len) + " bytes is implausibly large");
  }
  const auto* header_begin = reinterpret_cast<const char*>(bytes + 8);
  json header = json::parse(header_begin, header_begin + header_len, nullptr, false);
  if (header.is_discarded() || !header.is_object()) {
    invalid(path, "header is not a well-formed JSON object");
  }
  const std::byte* data = bytes + 8 + header_len;
  const std::uint64_t data_size = file_size - 8 - header_len;

  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // [begin, end) with the owner
  std::vector<const std::string*> span_names;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object()) invalid(path, "__metadata__ is not an object");
      for (auto m = entry.begin(); m != entry.end(); ++m) {
        if (!m.value().is_string())
          invalid(path, "__metadata__ value " + m.key() + " is not a string");
        metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor " + name + ": ";
    if (!entry.is_object()) invalid(path, where + "entry is not an object");
    const auto dt = entry.find("dtype");
    const auto sh = entry.find("shape");
    const auto off = entry.find("data_offsets");
    if (dt == entry.end() || !dt->is_string()) invalid(path, where + "missing dtype");
    if (sh == entry.end() || !sh->is_array()) invalid(path, where + "missing shape");
    if (off == entry.end() || !off->is_array() || off->size() != 2) {
      invalid(path, where + "data_offsets must be [begin, end]");
    }
    TensorView view;
    view.name = name;
    if (!parseDtype(dt->get<std::string>(), &view.dtype)) {
      invalid(path, where + "unknown dtype " + dt->get<std::string>());
    }
    // Element count with overflow checks: a hostile shape must not wrap around.
    std::uint64_t count = 1;
    for (const json& d : *sh) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 0) {
        invalid(path, where + "shape entries must be non-negative integers");
      }
      const auto dim = d.get<std::uint64_t>();
      if (dim != 0 && count > std::numeric_limits<std::uint64_t>::max() / 16 / dim) {
        invalid(path, where + "shape is too large");
      }
      count *= dim;
      view.shape.push_back(static_cast<std::int64_t>(dim));
    }
    const json& b = (*off)[0];
    const json& e = (*off)[1];
    if (!b.is_number_unsigned() || !e.is_number_unsigned()) {
      invalid(path, where + "data_offsets must be non-negative integers");
    }
    const auto begin = b.get<std::uint64_t>();
    const auto end = e.get<std::uint64_t>();
    if (end < begin) invalid(path, where + "data_offsets end before they begin");
    const std::uint64_t expected = count * dtypeSize(view.dtype);
    if (end - begin != expected) {
      invalid(path, where + "shape × " + std::string(dtypeName(view.dtype)) + " needs " +
                        std::to_string(expected) + " bytes but data_offsets span " +
                        std::to_string(end - begin));
    }
    if (end > data_size) {
      invalid(path, where + "data_offsets [" + std::to_string(begin) + ", " +
                        std::to_string(end) + ") run past the data block of " +
                        std::to_string(data_size) + " bytes (truncated file?)");
    }
    view.data = data + begin;
    view.bytes = static_cast<std::size_t>(expected);
    spans.emplace_back(begin, end);
    auto [pos, inserted] = tensors_.emplace(name, std::move(view));
    span_names.push_back(&pos->first);
  }
  // Overlap check over the spans sorted by start; empty tensors overlap nothing.
  std::vector<std::size_t> order(spans.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return spans[a] < spans[b]; });
  std::uint64_t reach = 0;
  const std::string* reach_owner = nullptr;
  for (std::size_t i : order) {
    if (spans[i].first == spans[i].second) continue;
    if (reach_owner != nullptr && spans[i].first < reach) {
      invalid(path, "tensor " + *span_names[i] + ": data_offsets overlap tensor " + *reach_owner);
    }
    reach = spans[i].second;
    reach_owner = span_names[i];
  }
}

SafeTensors::~SafeTensors() = default;

bool SafeTensors::contains(std::string_view name) const {
  return tensors_.find(name) != tensors_.end();
}

const TensorView& SafeTensors::tensor(std::string_view name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    invalid(path_, "has no tensor " + std::string(name));
  }
  return it->second;
}

std::vector<float> SafeTensors::floats(std::string_view name) const {
  const TensorView& t = tensor(name);
  const auto n = static_cast<std::size_t>(t.elements());
  std::vector<float> out(n);
  switch (t.dtype) {
    case DType::kF32:
      // n = 0 (a shape with a 0): out.data() may be null, and memcpy(null, …, 0) is undefined.
      if (n > 0) std::memcpy(out.data(), t.data, n * sizeof(float));
      break;
    case DType::kF16:
      for (std::size_t i = 0; i < n; ++i) out[i] = halfToFloat(load<std::uint16_t>(t.data + 2 * i));
      break;
    case DType::kBF16:
      for (std::size_t i = 0; i < n; ++i)
        out[i] = bfloat16ToFloat(load<std::uint16_t>(t.data + 2 * i));
      break;
    case DType::kF64:
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load<double>(t.data + 8 * i));
      break;
    default:
      invalid(path_, "tensor " + t.name + " is " + std::string(dtypeName(t.dtype)) +
                         ", not a floating-point type");
  }
  return out;
}

const std::byte* SafeTensors::bytes() const {
  return file_ ? file_->data() : shards_.front()->bytes();
}

std::size_t SafeTensors::fileBytes() const {
  return file_ ? file_->size() : shards_.front()->fileBytes();
}

const TensorView& SafeTensors::checkedMatrix(std::string_view name, Eigen::Index rows,
                                             Eigen::Index cols) const {
  const TensorView& t = tensor(name);
  Eigen::Index r = 0, c = 0;
  if (t.shape.size() == 2) {
    r = t.shape[0];
    c = t.shape[1];
  } else if (t.shape.size() == 1) {
    r = 1;
    c = t.shape[0];
  } else {
    invalid(path_, "tensor " + t.name + " has rank " + std::to_string(t.shape.size()) +
                       ", expected 1 or 2");
  }
  if ((rows >= 0 && r != rows) || (cols >= 0 && c != cols)) {
    invalid(path_, "tensor " + t.name + " has shape [" + std::to_string(r) + ", " +
                       std::to_string(c) + "], expected [" +
                       (rows >= 0 ? std::to_string(rows) : std::string("any")) + ", " +
                       (cols >= 0 ? std::to_string(cols) : std::string("any")) + "]");
  }
  return t;
}

Matrix SafeTensors::matrix(std::string_view name, Eigen::Index rows, Eigen::Index cols) const {
  const TensorView& t = checkedMatrix(name, rows, cols);
  const Eigen::Index r = t.shape.size() == 2 ? t.shape[0] : 1;
  const Eigen::Index c = t.shape.size() == 2 ? t.shape[1] : t.shape[0];
  const std::vector<float> values = floats(name);
  return Eigen::Map<const Matrix>(values.data(), r, c);
}

std::vector<std::int64_t> SafeTensors::integers(std::string_view name) const {
  const TensorView& t = tensor(name);
  const auto n = static_cast<std::size_t>(t.elements());
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (t.dtype) {
      case DType::kI64:
        out[i] = load<std::int64_t>(t.data + 8 * i);
        break;
      case DType::kI32:
        out[i] = load<std::int32_t>(t.data + 4 * i);
        break;
      case DType::kI16:
        out[i] = load<std::int16_t>(t.data + 2 * i);
        break;
      case DType::kI8:
        out[i] = load<std::int8_t>(t.data + i);
        break;
      case DType::kU8:
      case DType::kBool:
        out[i] = load<std::uint8_t>(t.data + i);
        break;
      default:
        invalid(path_, "tensor " + t.name + " is " + std::string(dtypeName(t.dtype)) +
                           ", not an integer type");
    }
  }
  return out;
}

}  // namespace attnlab
