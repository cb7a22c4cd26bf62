#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/io.hpp"

namespace attnlab {

namespace {

std::ofstream openForWriting(const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorCode::kIo, "cannot write " + path + ": " + std::strerror(errno));
  return out;
}

void finish(std::ofstream& out, const std::string& path) {
  out.close();
  if (!out) throw Error(ErrorCode::kIo, "cannot write " + path + ": write failed");
}

// Shortest decimal that reads back as the same float32.
std::string formatFloat(float x) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

}  // namespace

void writeNpy(const std::string& path, const std::vector<long long>& shape,
              std::span<const float> data) {
  const long long count =
      std::accumulate(shape.begin(), shape.end(), 1LL, std::multiplies<long long>());
  if (count != static_cast<long long>(data.size()))
    throw Error(ErrorCode::kInvalidArgument, "NPY shape does not match the data size");
  // NPY format 1.0: magic, version, little-endian header length, a Python dict literal padded
  // with spaces and ended by '\n' so that the data starts at a multiple of 64 bytes.
  std::ostringstream dict;
  dict << "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict << (i > 0 ? ", " : "") << shape[i];
  dict << (shape.size() == 1 ? ",), }" : "), }");  // a 1-tuple needs its trailing comma
  std::string header = dict.str();
  const std::size_t preamble = 10;  // magic (6) + version (2) + length (2)
  const std::size_t total = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header.push_back('\n');

  std::ofstream out = openForWriting(path);
  const char magic[] = "\x93NUMPY\x01\x00";
  out.write(magic, 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  static_assert(sizeof(float) == 4);
  // The engine runs on little-endian hosts (x86-64, AArch64), matching '<f4'.
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size() * sizeof(float)));
  finish(out, path);
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

namespace {

/// The CSV lines of one result's heads, each prefixed by `prefix` ("" or "3,").
/// With `labels`, each line ends with the query's and the key's display label.
void writeCsvRows(std::ofstream& out, const std::string& prefix, const AttentionResult& result,
                  const std::vector<Token>& query_tokens, const std::vector<Token>& key_tokens,
                  int head, const std::vector<std::string>& labels = {}) {
  if (head >= result.heads())
    throw Error(ErrorCode::kInvalidArgument, "head " + std::to_string(head) + " does not exist");
  const int first = head < 0 ? 0 : head, last = head < 0 ? result.heads() : head + 1;
  const MaskPattern pattern = result.pattern();
  for (int h = first; h < last; ++h) {
    for (int i = 0; i < result.nQ(); ++i) {
      for (int j = 0; j < result.nK(); ++j) {
        out << prefix << h << ',' << i << ',' << csvField(query_tokens.at(i).text) << ',' << j
            << ',' << csvField(key_tokens.at(j).text) << ',' << formatFloat(result.scores(h, i, j))
            << ',' << formatFloat(result.weights(h, i, j)) << ','
            << (pattern.visible(i, j) ? 0 : 1);
        if (!labels.empty()) out << ',' << csvField(labels.at(i)) << ',' << csvField(labels.at(j));
        out << '\n';
      }
    }
  }
}

}  // namespace

void writeAttentionCsv(const std::string& path, const AttentionResult& result,
                       const std::vector<Token>& query_tokens,
                       const std::vector<Token>& key_tokens, int head) {
  if (head >= result.heads())
    throw Error(ErrorCode::kInvalidArgument, "head " + std::to_string(head) + " does not exist");
  std::ofstream out = openForWriting(path);
  out << "head,query,query_token,key,key_token,score,weight,masked\n";
  writeCsvRows(out, "", result, query_tokens, key_tokens, head);
  finish(out, path);
}

void writeLayersCsv(const std::string& path, const std::vector<AttentionResult>& layers,
                    const std::vector<int>& layer_indices, const std::vector<Token>& tokens,
                    int head, const std::vector<std::string>& labels) {
  if (layers.size() != layer_indices.size())
    throw Error(ErrorCode::kInvalidArgument, "one layer index per layer result is needed");
  if (!labels.empty() && labels.size() != tokens.size())
    throw Error(ErrorCode::kInvalidArgument, "one display label per token is needed");
  for (const AttentionResult& r : layers) {
    if (head >= r.heads())
      throw Error(ErrorCode::kInvalidArgument, "head " + std::to_string(head) + " does not exist");
  }
  std::ofstream out = openForWriting(path);
  out << "layer,head,query,query_token,key,key_token,score,weight,masked"
      << (labels.empty() ? "\n" : ",query_label,key_label\n");
  for (std::size_t r = 0; r < layers.size(); ++r) {
    writeCsvRows(out, std::to_string(layer_indices[r]) + ",", layers[r], tokens, tokens, head,
                 labels);
  }
  finish(out, path);
}

}  // namespace attnlab
