#pragma once
/// \file model_tokenizer.hpp
/// The tokenizers of pretrained models, reproducing HuggingFace's so that the token list equals
/// the model's input ids: BERT's WordPiece (BasicTokenizer + greedy longest-match-first) and
/// GPT-2's byte-level BPE (Radford et al. 2019, §2.2; Sennrich et al. 2016).

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

class GgufFile;

/// A text (or sentence pair) as a model receives it. All vectors have one entry per token.
struct Encoding {
  std::vector<int> ids;  ///< Input ids, special tokens included, in model order.
  /// Readable UTF-8 label per token, for axes: WordPiece pieces as in the vocabulary ("##ing",
  /// "[UNK]"); GPT-2 tokens decoded from bytes, each space shown as "␣" (U+2423), a newline as
  /// "↵" (U+21B5), a tab as "⇥" (U+21E5), other control characters (C0, DEL, C1) and the bytes
  /// of a UTF-8 character the token covers only partly as "\xNN" hex (upper case, e.g. "\xF0");
  /// special tokens as written ("<|endoftext|>"); never U+FFFD. These are the raw labels; what
  /// pictures show reads across tokens (displayTokens, attnlab/token_display.hpp: "⋯", "⋯我").
  std::vector<std::string> labels;
  /// The UTF-8 bytes each token stands for in the text (ModelTokenizer::tokenBytes), for
  /// display labels that read across tokens cutting a character (attnlab/token_display.hpp).
  std::vector<std::string> bytes;
  std::vector<int> type_ids;  ///< token_type_ids (BERT segment A = 0, B = 1); 0 for GPT-2.
  std::vector<bool> special;  ///< True for special tokens ([CLS], [SEP], <|endoftext|> ...).
};

/// A pretrained model's tokenizer.
class ModelTokenizer {
 public:
  virtual ~ModelTokenizer() = default;
  /// Encodes text, or the pair (text, pair) where the model supports pairs, exactly as
  /// HuggingFace's tokenizer with its default arguments (add_special_tokens=True, no truncation,
  /// no padding): BERT gives [CLS] text [SEP] (pair: [CLS] text [SEP] pair [SEP]), GPT-2 the BPE
  /// tokens only. Special-token strings written in the text ("[SEP]", "<|endoftext|>") are
  /// recognised as the special token, matched exactly as written, as HuggingFace does. Returns
  /// n tokens in model order; n is not limited (callers check the model's maximum length).
  /// Safe to call from several threads at once.
  /// Throws Error(kInvalidInput) for invalid UTF-8 ("invalid UTF-8 at byte offset N (reason)",
  /// prefixed "second text: " for the pair) or an empty encoding (GPT-2 given "", or text whose
  /// bytes are all missing from the vocabulary; the message says which),
  /// Error(kInvalidArgument) for a pair given to a tokenizer without pair support (GPT-2).
  virtual Encoding encode(std::string_view text,
                          std::optional<std::string_view> pair = std::nullopt) const = 0;
  /// How many tokens `text` itself yields — special-token strings typed in it included, the
  /// tokens the tokenizer adds around it ([CLS], [SEP]) not — so 0 means the model gets nothing
  /// of the text. For byte-level BPE white space is content ("\n\n" gives two tokens), so only
  /// "" or bytes missing from the vocabulary give 0; WordPiece drops white space, control and
  /// format characters (U+200B among them). Throws Error(kInvalidInput) for invalid UTF-8.
  virtual std::size_t countTextTokens(std::string_view text) const = 0;
  /// Why a non-empty text can give no tokens with this tokenizer, as a phrase for an error
  /// message, e.g. "only white space, control or format characters, which the WordPiece
  /// tokenizer drops".
  virtual std::string noTokensReason() const = 0;
  /// Number of entries in the vocabulary (ids are in [0, vocabSize())).
  virtual int vocabSize() const = 0;
  /// The readable label of token `id` as Encoding::labels shows it (e.g. for next-token
  /// predictions); "" for an id outside [0, vocabSize()) or one the vocabulary leaves unused.
  virtual std::string tokenLabel(int id) const = 0;
  /// The bytes token `id` stands for in a text: a byte-level BPE token's bytes (which may be part
  /// of a UTF-8 character), a SentencePiece piece with "▁" as a space and <0xNN> as its byte, a
  /// WordPiece piece without its "##"; a special token's string as written; "" for an id outside
  /// [0, vocabSize()).
  virtual std::string tokenBytes(int id) const = 0;
  /// True for a special token ([CLS], <|endoftext|>, a GGUF control token ...).
  virtual bool isSpecial(int id) const = 0;
  /// "wordpiece" or "bpe".
  virtual std::string kind() const = 0;
};

/// Options of BERT's BasicTokenizer as tokenizer_config.json gives them.
struct WordPieceOptions {
  bool do_lower_case = true;
  /// Strip accents (NFD, drop Mn marks); unset = follow do_lower_case, as HuggingFace does.
  std::optional<bool> strip_accents;
  bool tokenize_chinese_chars = true;  ///< Each CJK ideograph becomes a word of its own.
  int max_input_chars_per_word = 100;  ///< Longer words become [UNK].
  std::string unk_token = "[UNK]";
  std::string cls_token = "[CLS]";
  std::string sep_token = "[SEP]";
  std::string pad_token = "[PAD]";
  std::string mask_token = "[MASK]";
};

/// Loads a WordPiece tokenizer from vocab.txt (one piece per line, id = line number from 0; a
/// trailing "\r" is not part of the piece). The options' special tokens found in the vocabulary
/// are the special-token strings recognised in the text.
/// Normalization follows HuggingFace tokenizers' BertNormalizer, including its Unicode tables:
/// character classes come from utf8proc, corrected to the older tables HuggingFace uses for
/// "other", punctuation and nonspacing-mark characters, and its CJK range that leaves out
/// U+2B820..2B91F; every single code point was checked against tokenizers 0.23.3.
/// Throws Error(kIo) when the file cannot be read, Error(kInvalidInput) when the vocabulary lacks
/// the unknown, [CLS] or [SEP] token (naming it) or has a duplicate piece (naming both lines).
std::unique_ptr<ModelTokenizer> loadWordPiece(const std::filesystem::path& vocab_txt,
                                              const WordPieceOptions& options);

/// Loads GPT-2's byte-level BPE from vocab.json + merges.txt (a first line "#version ..." is
/// skipped; "<|endoftext|>", when in the vocabulary, is the special token recognised in the
/// text), or from tokenizer.json (HuggingFace tokenizers' format; merges as "a b" strings or
/// [a, b] pairs; every entry of added_tokens is recognised in the text, special or not, and
/// the ByteLevel pre-tokenizer's add_prefix_space and use_regex are followed).
/// As in HuggingFace, a byte missing from the vocabulary is dropped (unless model.unk_token is
/// set); vocabSize() is the largest id + 1.
/// Throws Error(kIo) for an unreadable file, Error(kInvalidInput) for malformed JSON or merges
/// (naming the file and line/entry), a merge whose parts or result are missing from the
/// vocabulary, or a tokenizer.json this class cannot reproduce (a normalizer, a pre-tokenizer
/// other than ByteLevel, Digits(individual) + ByteLevel (SmolLM2) or Llama 3's Split + ByteLevel,
/// a post-processor other than ByteLevel or a TemplateProcessing that adds special tokens around
/// $A, a non-BPE model, BPE dropout, byte fallback or subword prefixes / suffixes).
std::unique_ptr<ModelTokenizer> loadByteLevelBpe(const std::filesystem::path& vocab_json,
                                                 const std::filesystem::path& merges_txt);
std::unique_ptr<ModelTokenizer> loadByteLevelBpe(const std::filesystem::path& tokenizer_json);

/// Loads the tokenizer of a HuggingFace model directory for model_type "bert" (vocab.txt +
/// tokenizer_config.json, options as written there: do_lower_case, strip_accents,
/// tokenize_chinese_chars and the special token names, as strings or {"content": ...}; without
/// tokenizer_config.json, WordPieceOptions' defaults) or "gpt2" (vocab.json + merges.txt, else
/// tokenizer.json). Throws Error(kInvalidArgument) naming any other model type, Error(kIo) naming
/// a missing folder or file, Error(kInvalidInput) for a malformed tokenizer_config.json (naming
/// the key) or as the loaders above.
std::unique_ptr<ModelTokenizer> loadModelTokenizer(const std::filesystem::path& dir,
                                                   std::string_view model_type);

/// The pre-tokenizers (GGUF tokenizer.ggml.pre) loadGgufTokenizer reproduces, comma-separated.
std::string supportedGgufPreTokenizers();

/// Loads the tokenizer stored in a GGUF file's metadata (llama.cpp's tokenizer.ggml.* keys):
/// - tokenizer.ggml.model = "gpt2": byte-level BPE from tokenizer.ggml.tokens (id = index) and
///   tokenizer.ggml.merges ("a b" strings, rank = index), the same implementation as
///   loadByteLevelBpe, with the pre-tokenizer tokenizer.ggml.pre names: "gpt-2" (GPT-2's
///   pattern), "smollm", "starcoder", "refact" (every digit its own piece, then GPT-2's pattern;
///   llama.cpp's llama-vocab.cpp and HuggingFace's Digits(individual_digits) + ByteLevel),
///   "llama-bpe", "llama3", "llama-v3" (Llama 3's pattern: case-insensitive contractions,
///   numbers in groups of up to 3, runs ending in newlines kept together).
/// - tokenizer.ggml.model = "llama": SentencePiece-style BPE (Kudo & Richardson 2018) from the
///   tokens and tokenizer.ggml.scores: spaces become "▁", a "▁" is prepended
///   (tokenizer.ggml.add_space_prefix, default true), the adjacent pair whose merged piece has the
///   highest score is merged first (leftmost on ties), and characters missing from the vocabulary
///   fall back to their UTF-8 bytes <0xNN>.
/// Control tokens (token_type 3) are special: written in the text they are recognised, and they
/// are marked special; user-defined tokens (type 4) are recognised but not special.
/// tokenizer.ggml.bos_token_id is put first when tokenizer.ggml.add_bos_token is true (default:
/// true for "llama", false for "gpt2"), eos_token_id last when add_eos_token is true.
/// Throws Error(kInvalidArgument) naming an unsupported tokenizer model or pre-tokenizer (and the
/// supported ones), Error(kInvalidInput) for missing or inconsistent metadata (naming the key: no
/// tokens, a token_type or scores array of another length, a merge whose parts are not tokens, a
/// BOS/EOS id outside the vocabulary).
std::unique_ptr<ModelTokenizer> loadGgufTokenizer(const GgufFile& file);

}  // namespace attnlab
