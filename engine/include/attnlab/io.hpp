#pragma once
/// \file io.hpp
/// Raw-data export: NPY (NumPy's format, version 1.0, little-endian float32) and CSV.

#include <span>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/tokenizer.hpp"

namespace attnlab {

/// Writes a float32 array of the given shape (row-major, C order) as an NPY v1.0 file readable by
/// numpy.load. Throws Error(kIo) naming the path when it cannot be written, and
/// Error(kInvalidArgument) when the shape's product differs from data's size.
void writeNpy(const std::string& path, const std::vector<long long>& shape,
              std::span<const float> data);

/// Writes attention as CSV in long form, one line per (head, query, key):
/// `head,query,query_token,key,key_token,score,weight,masked` with tokens quoted per RFC 4180 and
/// numbers printed to float32 round-trip precision. `head` < 0 writes every head.
/// Throws Error(kIo) naming the path when it cannot be written.
void writeAttentionCsv(const std::string& path, const AttentionResult& result,
                       const std::vector<Token>& query_tokens,
                       const std::vector<Token>& key_tokens, int head);

/// Writes several layers' attention (a pretrained model's) as CSV in long form, one line per
/// (layer, head, query, key): `layer,head,query,query_token,key,key_token,score,weight,masked`;
/// layers[r] is layer layer_indices[r]; tokens label both queries and keys (self-attention),
/// each Token::text the model's own label. With `labels` (one per token: the display labels,
/// attnlab/token_display.hpp) two columns follow, `query_label,key_label`: "⋯我" where
/// query_token says "\x91". `head` < 0 writes every head. Throws Error(kIo) naming the path when
/// it cannot be written and Error(kInvalidArgument) when the sizes disagree.
void writeLayersCsv(const std::string& path, const std::vector<AttentionResult>& layers,
                    const std::vector<int>& layer_indices, const std::vector<Token>& tokens,
                    int head, const std::vector<std::string>& labels = {});

/// Quotes a CSV field when it contains a comma, quote or line break (RFC 4180).
std::string csvField(const std::string& text);

}  // namespace attnlab
