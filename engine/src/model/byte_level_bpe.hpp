#pragma once
/// \file byte_level_bpe.hpp
/// Private to the engine: the data a byte-level BPE tokenizer (GPT-2's, SmolLM2's) is built from,
/// so that tokenizer.json, vocab.json + merges.txt and GGUF metadata all feed one implementation
/// (byte_level_bpe.cpp).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attnlab/model_tokenizer.hpp"

namespace attnlab::bpe {

/// A merge rule: applying it to the pair gives `result`; lower rank applies first.
struct Merge {
  int rank = 0;
  int result = 0;
};

/// The key of the pair (left, right) in BpeData::merges.
inline std::uint64_t pairKey(int left, int right) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
         static_cast<std::uint32_t>(right);
}

/// A token from added_tokens (or a GGUF control / user-defined token): split out of the text
/// before pre-tokenization, matched exactly as written, with HuggingFace tokenizers' flags
/// (its AddedToken; applied as in its AddedVocabulary, see splitAddedTokens).
struct AddedToken {
  std::string content;
  int id = 0;
  bool special = true;  ///< Shown as special (hidden by "hide special tokens").
  /// Matched only where it is not inside a word: the character before and the one after (if
  /// any) are not word characters (\w: letters, marks, decimal digits, connector punctuation,
  /// ZWNJ / ZWJ).
  bool single_word = false;
  bool lstrip = false;  ///< Takes in the white space (Unicode White_Space) before it.
  bool rstrip = false;  ///< Takes in the white space after it.
  /// Matched in the second pass, on the pieces that the tokens with normalized = false left
  /// (without a normalizer this decides only which token wins an overlap).
  bool normalized = false;
};

/// A piece of the text: bytes [begin, end) and the index into `tokens` of the added token it is,
/// or -1 for ordinary text. A token's piece includes the white space lstrip / rstrip took in.
struct AddedSplit {
  std::size_t begin = 0;
  std::size_t end = 0;
  int token = -1;
};

/// One pass of HuggingFace tokenizers' (0.21) AddedVocabulary::extract_and_normalize: splits the
/// valid UTF-8 `text` into ordinary pieces and the added tokens whose `normalized` flag is
/// `normalized` (pass 1: false, over the whole text; pass 2: true, over each ordinary piece of
/// pass 1 after the normalizer). Matches are found leftmost-longest without overlap; a
/// single_word match inside a word is skipped (the scan still goes on after it); lstrip moves the
/// start back over white space not already taken, rstrip the end forward over white space.
/// Ordinary pieces are never empty.
std::vector<AddedSplit> splitAddedTokens(std::string_view text,
                                         const std::vector<AddedToken>& tokens, bool normalized);

/// `text` (valid UTF-8) in Unicode normalization form C (utf8proc); U+0000 kept.
std::string toNfc(std::string_view text);

/// The regular expression that splits text into pre-tokens (pretokenize.hpp).
enum class Pattern {
  kGpt2,    ///< GPT-2's (and SmolLM2's, after its digit split).
  kLlama3,  ///< Llama 3's: case-insensitive contractions, numbers in groups of 1–3, newlines kept.
  kQwen2,   ///< Qwen2's: Llama 3's with every \p{N} character a piece of its own.
};

/// Everything a byte-level BPE tokenizer is built from.
struct BpeData {
  std::unordered_map<std::string, int> vocab;  ///< byte-level token string → id
  std::unordered_map<std::uint64_t, Merge> merges;
  std::vector<AddedToken> added;
  bool add_prefix_space = false;  ///< ByteLevel pre-tokenizer: prepend ' ' to each text piece.
  bool use_regex = true;          ///< ByteLevel pre-tokenizer: split with `pattern`.
  Pattern pattern = Pattern::kGpt2;
  /// Digits(individual_digits = true) before ByteLevel: every \p{N} character is a piece of its
  /// own (HuggingFace's SmolLM2 / StarCoder tokenizers; llama.cpp's "smollm", "starcoder",
  /// "refact" pre-tokenizers).
  bool split_digits = false;
  /// tokenizer.json's NFC normalizer: the text between the added tokens with normalized =
  /// false is put in Unicode normalization form C before the other added tokens are looked for
  /// and before pre-tokenization (Qwen2's tokenizer.json).
  bool nfc = false;
  bool ignore_merges = false;   ///< BPE: a pre-token found whole in the vocabulary is kept.
  int unk_id = -1;              ///< BPE: id for characters missing from the vocabulary.
  bool fuse_unk = false;        ///< BPE: consecutive unknown characters give one unknown id.
  std::vector<int> prefix_ids;  ///< Added before the text (BOS), marked special.
  std::vector<int> suffix_ids;  ///< Added after the text (EOS), marked special.
  std::string origin;           ///< Named in errors ("tokenizer.json", "GGUF metadata").
};

/// Adds merge (left, right) with `rank`. Throws Error(kInvalidInput) prefixed with `where` when a
/// part or the result is not in the vocabulary.
void addMerge(BpeData& data, const std::string& left, const std::string& right, int rank,
              const std::string& where);

/// Splits "a b" into its two tokens; false unless there is exactly one space between non-empty
/// tokens.
bool splitMerge(std::string_view line, std::string& left, std::string& right);

/// The tokenizer for `data`. Ids of added tokens, prefix and suffix ids must be valid (callers
/// check them against the vocabulary).
std::unique_ptr<ModelTokenizer> makeByteLevelBpe(BpeData data);

}  // namespace attnlab::bpe
