/// \file model_tokenizer.cpp
/// Picks and configures a pretrained model's tokenizer from its HuggingFace model folder.

#include "attnlab/model_tokenizer.hpp"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "attnlab/error.hpp"
#include "model/tokenizer_common.hpp"

namespace attnlab {
namespace {

using Json = nlohmann::json;

[[noreturn]] void throwInvalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, message);
}

/// Reads a boolean option; absent or null leaves `value` unchanged.
void readBool(const Json& config, const char* key, const std::string& file, bool& value) {
  if (!config.contains(key) || config[key].is_null()) return;
  if (!config[key].is_boolean()) {
    throwInvalid(file + ": \"" + key + "\" should be true or false, not " + config[key].dump());
  }
  value = config[key].get<bool>();
}

/// Refuses an AddedToken written as an object whose lstrip, rstrip or single_word is true: the
/// WordPiece tokenizer matches its special tokens exactly where they stand (every BERT
/// checkpoint's are written so); `where` names the entry.
void refuseAddedTokenFlags(const Json& entry, const std::string& where) {
  for (const char* flag : {"lstrip", "rstrip", "single_word"}) {
    const auto it = entry.find(flag);
    if (it == entry.end() || it->is_null()) continue;
    if (!it->is_boolean()) {
      throwInvalid(where + "." + flag + " should be true or false, not " + it->dump());
    }
    if (it->get<bool>()) {
      throw Error(ErrorCode::kInvalidArgument,
                  where + ": " + flag + " = true is not supported by the WordPiece tokenizer");
    }
  }
}

/// Reads a special token's name, written as a string or as {"content": string, ...}.
void readToken(const Json& config, const char* key, const std::string& file, std::string& value) {
  if (!config.contains(key) || config[key].is_null()) return;
  const Json& entry = config[key];
  if (entry.is_string()) {
    value = entry.get<std::string>();
  } else if (entry.is_object() && entry.contains("content") && entry["content"].is_string()) {
    value = entry["content"].get<std::string>();
    refuseAddedTokenFlags(entry, file + ": \"" + key + "\"");
  } else {
    throwInvalid(file + ": \"" + key + "\" should be a string or {\"content\": string}, not " +
                 entry.dump());
  }
}

/// BERT's options from tokenizer_config.json; HuggingFace's defaults when the file is missing.
WordPieceOptions readWordPieceOptions(const std::filesystem::path& config_path) {
  WordPieceOptions options;
  if (!std::filesystem::exists(config_path)) return options;
  const std::string file = config_path.filename().string();
  const std::string content = model_text::readFile(config_path);
  Json config;
  try {
    config = Json::parse(content);
  } catch (const Json::exception& e) {
    throwInvalid(file + ": malformed JSON (" + e.what() + ")");
  }
  if (!config.is_object()) throwInvalid(file + ": expected a JSON object");
  readBool(config, "do_lower_case", file, options.do_lower_case);
  readBool(config, "tokenize_chinese_chars", file, options.tokenize_chinese_chars);
  if (config.contains("strip_accents") && !config["strip_accents"].is_null()) {
    bool strip = false;
    readBool(config, "strip_accents", file, strip);
    options.strip_accents = strip;
  }
  readToken(config, "unk_token", file, options.unk_token);
  readToken(config, "cls_token", file, options.cls_token);
  readToken(config, "sep_token", file, options.sep_token);
  readToken(config, "pad_token", file, options.pad_token);
  readToken(config, "mask_token", file, options.mask_token);
  // BertTokenizer's options that change the ids and are not reproduced.
  bool basic = true;
  readBool(config, "do_basic_tokenize", file, basic);
  if (!basic) {
    throw Error(ErrorCode::kInvalidArgument,
                file + ": do_basic_tokenize = false is not supported (WordPiece on the raw text)");
  }
  if (config.contains("never_split") && !config["never_split"].is_null() &&
      !(config["never_split"].is_array() && config["never_split"].empty())) {
    throw Error(ErrorCode::kInvalidArgument,
                file + ": never_split " + config["never_split"].dump() + " is not supported");
  }
  // transformers ≥ 4.34 lists the added tokens with their flags; only the five special tokens
  // above are recognised in the text.
  if (config.contains("added_tokens_decoder") && config["added_tokens_decoder"].is_object()) {
    for (const auto& [id, entry] : config["added_tokens_decoder"].items()) {
      const std::string where = file + ": added_tokens_decoder " + id;
      if (!entry.is_object() || !entry.contains("content") || !entry["content"].is_string()) {
        throwInvalid(where + ": expected {\"content\": string, ...}");
      }
      const std::string content = entry["content"].get<std::string>();
      refuseAddedTokenFlags(entry, where);
      if (content != options.unk_token && content != options.cls_token &&
          content != options.sep_token && content != options.pad_token &&
          content != options.mask_token) {
        throw Error(ErrorCode::kInvalidArgument,
                    where + ": added token \"" + content +
                        "\" is not supported (only unk, cls, sep, pad and mask tokens are)");
      }
    }
  }
  return options;
}

/// A byte-level BPE folder's tokenizer_config.json: the options with which transformers would
/// change what tokenizer.json (or vocab.json + merges.txt) gives — a space before the text
/// (add_prefix_space: GPT2TokenizerFast rebuilds the pre-tokenizer with it), BOS / EOS added by
/// the tokenizer class (add_bos_token, add_eos_token) — are refused when true; false is what the
/// files already do. Everything else in it names tokens or the class (irrelevant to the ids).
void refuseBpeConfigOptions(const std::filesystem::path& config_path) {
  if (!std::filesystem::exists(config_path)) return;
  const std::string file = config_path.filename().string();
  Json config;
  try {
    config = Json::parse(model_text::readFile(config_path));
  } catch (const Json::exception& e) {
    throwInvalid(file + ": malformed JSON (" + e.what() + ")");
  }
  if (!config.is_object()) throwInvalid(file + ": expected a JSON object");
  for (const char* key : {"add_prefix_space", "add_bos_token", "add_eos_token"}) {
    bool on = false;
    readBool(config, key, file, on);
    if (on) {
      throw Error(ErrorCode::kInvalidArgument,
                  file + ": " + key + " = true is not supported (the tokens would differ from "
                  "tokenizer.json's)");
    }
  }
}

}  // namespace

std::unique_ptr<ModelTokenizer> loadModelTokenizer(const std::filesystem::path& dir,
                                                   std::string_view model_type) {
  namespace fs = std::filesystem;
  const bool gemma = model_type == "gemma2" || model_type == "gemma3_text" || model_type == "gemma3";
  if (model_type != "bert" && model_type != "gpt2" && model_type != "llama" && !gemma) {
    throw Error(ErrorCode::kInvalidArgument,
                "model type \"" + std::string(model_type) +
                    "\" has no tokenizer here (supported: bert, gpt2, llama, gemma2, gemma3)");
  }
  if (!fs::is_directory(dir)) {
    throw Error(ErrorCode::kIo, "model folder " + dir.string() + " does not exist");
  }
  if (model_type == "bert") {
    const fs::path vocab = dir / "vocab.txt";
    if (!fs::exists(vocab)) {
      throw Error(ErrorCode::kIo, vocab.string() +
                                      " not found: a BERT model folder needs its vocab.txt "
                                      "(copy it from the model's HuggingFace repository)");
    }
    return loadWordPiece(vocab, readWordPieceOptions(dir / "tokenizer_config.json"));
  }
  refuseBpeConfigOptions(dir / "tokenizer_config.json");
  if (model_type == "llama" || gemma) {
    // Llama-family folders with a byte-level BPE (SmolLM2, Llama 3) keep it in tokenizer.json.
    const fs::path tokenizer = dir / "tokenizer.json";
    if (!fs::exists(tokenizer)) {
      throw Error(ErrorCode::kIo,
                  tokenizer.string() + " not found: a Llama or Gemma model folder needs tokenizer.json");
    }
    return loadByteLevelBpe(tokenizer);
  }
  // tokenizer.json first, as transformers' AutoTokenizer loads it (the fast tokenizer, with its
  // added tokens and their flags) when the folder has one.
  const fs::path tokenizer = dir / "tokenizer.json";
  if (fs::exists(tokenizer)) return loadByteLevelBpe(tokenizer);
  const fs::path vocab = dir / "vocab.json";
  const fs::path merges = dir / "merges.txt";
  if (fs::exists(vocab) && fs::exists(merges)) {
    if (fs::exists(dir / "added_tokens.json")) {
      throw Error(ErrorCode::kInvalidArgument,
                  "added_tokens.json is not supported (its tokens would be split out of the "
                  "text; a tokenizer.json with them in added_tokens is)");
    }
    return loadByteLevelBpe(vocab, merges);
  }
  const fs::path missing = fs::exists(vocab) ? merges : vocab;
  throw Error(ErrorCode::kIo, missing.string() +
                                  " not found: a GPT-2 model folder needs vocab.json and "
                                  "merges.txt, or tokenizer.json (copy them from the model's "
                                  "HuggingFace repository)");
}

}  // namespace attnlab
