// The weight sources the decoder architectures share (weights.hpp): GGUF and safetensors tensors
// read into float32 rows with their shapes checked, and the checks of GGUF integer keys.

#include "model/weights.hpp"

#include <map>
#include <vector>

#include "attnlab/error.hpp"

namespace attnlab::weights {

Matrix Source::matrix(const TensorName& name, Eigen::Index rows, Eigen::Index cols) const {
  Matrix m(rows, cols);
  read(name, rows, cols, m, 0);
  return m;
}

Vector Source::vector(const TensorName& name, Eigen::Index n) const {
  Matrix m(1, n);
  read(name, 1, n, m, 0);
  return Eigen::Map<const Vector>(m.data(), n);
}

void GgufSource::read(const TensorName& name, Eigen::Index rows, Eigen::Index cols, Matrix& dst,
                      Eigen::Index row0) const {
  file_.readInto(name.gguf, rows, cols, dst.data() + row0 * dst.cols());
}

bool GgufSource::contains(const TensorName& name) const {
  return file_.findTensor(name.gguf) != nullptr;
}

linear::WeightMatrix Source::weightMatrix(
    std::initializer_list<std::pair<TensorName, Eigen::Index>> parts, Eigen::Index cols) const {
  linear::WeightMatrix w;
  for (const auto& [name, rows] : parts) w.append(stored(name, rows, cols));
  return w;
}

linear::StoredRows GgufSource::stored(const TensorName& name, Eigen::Index rows,
                                      Eigen::Index cols) const {
  const GgufTensor& t = file_.checkedTensor(name.gguf, rows, cols);
  linear::StoredRows s;
  s.type = t.type;
  s.rows = t.rows();
  s.cols = t.cols();
  s.data = reinterpret_cast<const unsigned char*>(t.data);
  s.row_bytes = s.rows > 0 ? t.bytes / static_cast<std::size_t>(s.rows) : 0;
  s.name = t.name;
  return s;
}

std::string SafetensorsSource::storedName(const TensorName& name) const {
  if (prefix_.empty() && name.hf.rfind("model.", 0) == 0) return name.hf.substr(6);
  return name.hf;
}

bool SafetensorsSource::contains(const TensorName& name) const {
  return file_.contains(storedName(name));
}

linear::StoredRows SafetensorsSource::stored(const TensorName& name, Eigen::Index rows,
                                             Eigen::Index cols) const {
  const std::string n = storedName(name);
  const TensorView& t = file_.checkedMatrix(n, rows, cols);
  linear::StoredRows s;
  s.rows = t.shape.size() == 2 ? t.shape[0] : 1;
  s.cols = t.shape.size() == 2 ? t.shape[1] : t.shape[0];
  s.name = n;
  switch (t.dtype) {
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16:
      // ggml's numbers for the same element types: kept as stored.
      s.type = t.dtype == DType::kF32 ? 0 : t.dtype == DType::kF16 ? 1 : 30;
      s.data = reinterpret_cast<const unsigned char*>(t.data);
      s.row_bytes = s.rows > 0 ? t.bytes / static_cast<std::size_t>(s.rows) : 0;
      return s;
    default: {
      // F64 (or an integer dtype, which floats() refuses by name): a float32 copy.
      auto copy = std::make_shared<std::vector<float>>(file_.floats(n));
      s.type = 0;
      s.data = reinterpret_cast<const unsigned char*>(copy->data());
      s.row_bytes = static_cast<std::size_t>(s.cols) * sizeof(float);
      s.owner = std::move(copy);
      return s;
    }
  }
}

void SafetensorsSource::read(const TensorName& name, Eigen::Index rows, Eigen::Index cols,
                             Matrix& dst, Eigen::Index row0) const {
  const std::string n = storedName(name);
  const TensorView& t = file_.tensor(n);
  const bool vector = rows == 1 && t.shape.size() == 1;
  if (!vector) {
    dst.middleRows(row0, rows) = file_.matrix(n, rows, cols);
    return;
  }
  if (t.shape[0] != cols) {
    throw Error(ErrorCode::kInvalidInput, file_.path().filename().string() + ": tensor " + n +
                                              " should have shape [" + std::to_string(cols) + "]");
  }
  const std::vector<float> v = file_.floats(n);
  dst.row(row0) = Eigen::Map<const Eigen::RowVectorXf>(v.data(), cols);
}

void badKey(const GgufFile& file, const std::string& what) {
  throw Error(ErrorCode::kInvalidInput, file.path().filename().string() + ": " + what);
}

int positiveKey(const GgufFile& file, const std::string& key, std::optional<int> fallback) {
  const std::optional<std::int64_t> v = file.integer(key);
  if (!v) {
    if (fallback) return *fallback;
    badKey(file, "missing " + key);
  }
  if (*v <= 0 || *v > (1 << 30)) {
    badKey(file, key + " must be a positive integer, not " + std::to_string(*v));
  }
  return static_cast<int>(*v);
}

std::string commonWeightType(const GgufFile& file) {
  // general.file_type: llama.cpp's llama_ftype, the name users download by ("Q4_K_M": Q4_K
  // layers beside Q6_K and Q8_0 tensors, whose bytes may outweigh the layers' in a small model
  // with a large vocabulary, as Gemma 3 270M's Q8_0 embedding does).
  static const std::map<std::int64_t, const char*> kFileTypes = {
      {0, "F32"},     {1, "F16"},     {2, "Q4_0"},     {3, "Q4_1"},     {7, "Q8_0"},
      {8, "Q5_0"},    {9, "Q5_1"},    {10, "Q2_K"},    {11, "Q3_K_S"},  {12, "Q3_K_M"},
      {13, "Q3_K_L"}, {14, "Q4_K_S"}, {15, "Q4_K_M"},  {16, "Q5_K_S"},  {17, "Q5_K_M"},
      {18, "Q6_K"},   {21, "Q2_K_S"}, {25, "IQ4_NL"},  {30, "IQ4_XS"},  {32, "BF16"}};
  if (const std::optional<std::int64_t> v = file.integer("general.file_type")) {
    if (const auto it = kFileTypes.find(*v); it != kFileTypes.end()) return it->second;
  }
  std::uint32_t common_type = 0;
  std::size_t common_bytes = 0;
  std::map<std::uint32_t, std::size_t> bytes_by_type;
  for (const GgufTensor& t : file.tensors()) bytes_by_type[t.type] += t.bytes;
  for (const auto& [type, bytes] : bytes_by_type) {
    if (bytes > common_bytes) {
      common_type = type;
      common_bytes = bytes;
    }
  }
  return ggmlTypeName(common_type);
}

}  // namespace attnlab::weights
