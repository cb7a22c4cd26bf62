/// \file byte_level_bpe_files.cpp
/// The files a byte-level BPE tokenizer (byte_level_bpe.cpp) is read from: vocab.json +
/// merges.txt (GPT-2's folders) and tokenizer.json (HuggingFace tokenizers: its BPE model, the
/// ByteLevel pre-tokenizer alone or after Digits or Llama 3's / Qwen2's Split, the NFC
/// normalizer, added tokens with their flags and the TemplateProcessing / ByteLevel
/// post-processors). Every field is checked, each fault one
/// Error(kInvalidInput) line naming the file and the field; what is not reproduced is refused by
/// name (Error(kInvalidArgument)).

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "model/byte_level_bpe.hpp"
#include "model/tokenizer_common.hpp"

namespace attnlab {
namespace {

using Json = nlohmann::json;
using bpe::AddedToken;
using bpe::BpeData;

[[noreturn]] void throwInvalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, message);
}

/// obj[key] as a boolean; `fallback` when absent or null. Error naming `where`.key otherwise (a
/// tokenizer.json with "ignore_merges": "" once escaped as nlohmann's own exception).
bool jsonBool(const Json& obj, const char* key, bool fallback, const std::string& where) {
  const auto it = obj.find(key);  // end() for a non-object too
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    throwInvalid(where + "." + key + " should be true or false, not " + it->dump());
  }
  return it->get<bool>();
}

/// The "type" of a JSON object, for messages: its string value, else the value as JSON.
std::string jsonType(const Json& value) {
  const auto it = value.find("type");
  if (it != value.end() && it->is_string()) return it->get<std::string>();
  return value.dump();
}

Json parseJson(const std::filesystem::path& path, std::string_view hint) {
  const std::string content = model_text::readFile(path, hint);
  try {
    return Json::parse(content);
  } catch (const Json::exception& e) {
    throwInvalid(path.filename().string() + ": malformed JSON (" + e.what() + ")");
  }
}

/// Reads a {token: id} object; `where` names it in errors.
std::unordered_map<std::string, int> readVocab(const Json& json, const std::string& where) {
  if (!json.is_object()) throwInvalid(where + ": expected an object {token: id}");
  std::unordered_map<std::string, int> vocab;
  vocab.reserve(json.size());
  std::unordered_map<int, std::string> seen;
  seen.reserve(json.size());
  for (const auto& [token, value] : json.items()) {
    if (!value.is_number_integer() || value.get<long long>() < 0 ||
        value.get<long long>() > 100'000'000) {
      throwInvalid(where + ": token \"" + token + "\" has id " + value.dump() +
                   " (expected an integer in [0, 1e8])");
    }
    const int id = value.get<int>();
    const auto [it, inserted] = seen.emplace(id, token);
    if (!inserted) {
      throwInvalid(where + ": id " + std::to_string(id) + " is given to both \"" + it->second +
                   "\" and \"" + token + "\"");
    }
    vocab.emplace(token, id);
  }
  return vocab;
}

}  // namespace

using bpe::addMerge;
using bpe::splitMerge;

namespace {

/// Llama 3's pre-tokenizer regex, as its tokenizer.json writes it.
constexpr const char* kLlama3Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/// Qwen2's: Llama 3's with \p{N} for \p{N}{1,3}.
constexpr const char* kQwen2Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/// The pattern of a Split pre-tokenizer with exactly Llama 3's or Qwen2's regex, isolating the
/// matches; nullopt for any other Split.
std::optional<bpe::Pattern> splitPattern(const Json& split) {
  if (!split.contains("pattern") || !split["pattern"].is_object() ||
      split.value("behavior", std::string()) != "Isolated" || split.value("invert", false)) {
    return std::nullopt;
  }
  const std::string regex = split["pattern"].value("Regex", std::string());
  if (regex == kLlama3Regex) return bpe::Pattern::kLlama3;
  if (regex == kQwen2Regex) return bpe::Pattern::kQwen2;
  return std::nullopt;
}

/// The post-processor: ByteLevel (adds nothing) or TemplateProcessing of the form
/// [special …] $A [special …] (a Llama tokenizer's BOS), alone or in a Sequence.
void readPostProcessor(const Json& post, const std::string& name, BpeData& data) {
  const std::string type = jsonType(post);
  if (type == "ByteLevel") return;
  if (type == "Sequence" && post.contains("processors") && post["processors"].is_array()) {
    for (const Json& p : post["processors"]) readPostProcessor(p, name, data);
    return;
  }
  if (type != "TemplateProcessing" || !post.contains("single") || !post["single"].is_array()) {
    throwInvalid(name + ": post_processor " + type + " is not supported (ByteLevel or a "
                 "TemplateProcessing that adds special tokens around $A are)");
  }
  bool seen_sequence = false;
  for (const Json& piece : post["single"]) {
    if (piece.contains("Sequence")) {
      seen_sequence = true;
      continue;
    }
    const Json* special = piece.contains("SpecialToken") ? &piece["SpecialToken"] : nullptr;
    if (special == nullptr || !special->contains("id") || !(*special)["id"].is_string() ||
        !post.contains("special_tokens") ||
        !post["special_tokens"].contains((*special)["id"].get<std::string>())) {
      throwInvalid(name + ": post_processor TemplateProcessing entry " + piece.dump() +
                   " is not supported");
    }
    const Json& entry = post["special_tokens"][(*special)["id"].get<std::string>()];
    if (!entry.contains("ids") || !entry["ids"].is_array()) {
      throwInvalid(name + ": post_processor special token " + entry.dump() + " has no ids");
    }
    for (const Json& id : entry["ids"]) {
      if (!id.is_number_integer() || id.get<long long>() < 0) {
        throwInvalid(name + ": post_processor special token id " + id.dump() + " is not valid");
      }
      (seen_sequence ? data.suffix_ids : data.prefix_ids).push_back(id.get<int>());
    }
  }
}

}  // namespace

namespace {

std::unique_ptr<ModelTokenizer> loadFromVocabAndMerges(const std::filesystem::path& vocab_json,
                                                       const std::filesystem::path& merges_txt) {
  BpeData data;
  const std::string vocab_name = vocab_json.filename().string();
  data.vocab = readVocab(
      parseJson(vocab_json, "a GPT-2 model folder needs vocab.json and merges.txt"), vocab_name);

  const std::string merges_name = merges_txt.filename().string();
  const std::string content =
      model_text::readFile(merges_txt, "a GPT-2 model folder needs vocab.json and merges.txt");
  std::size_t begin = 0;
  int line_number = 0;
  int rank = 0;
  std::string left;
  std::string right;
  while (begin < content.size()) {
    std::size_t end = content.find('\n', begin);
    if (end == std::string::npos) end = content.size();
    std::string_view line(content.data() + begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_number == 1 && line.rfind("#version", 0) == 0) continue;
    const std::string where = merges_name + " line " + std::to_string(line_number);
    if (!splitMerge(line, left, right)) {
      throwInvalid(where + ": expected two tokens separated by one space, got \"" +
                   std::string(line) + "\"");
    }
    addMerge(data, left, right, rank++, where);
  }

  // GPT2Tokenizer's bos, eos and unk token.
  const auto eot = data.vocab.find("<|endoftext|>");
  if (eot != data.vocab.end()) data.added.push_back({eot->first, eot->second, true});
  return bpe::makeByteLevelBpe(std::move(data));
}

std::unique_ptr<ModelTokenizer> loadFromTokenizerJson(const std::filesystem::path& tokenizer_json) {
  const std::string name = tokenizer_json.filename().string();
  const Json json = parseJson(tokenizer_json,
                              "a GPT-2 model folder needs tokenizer.json, or "
                              "vocab.json and merges.txt");
  auto unsupported = [&](const std::string& what) {
    throwInvalid(name + ": " + what + " is not supported (GPT-2's byte-level BPE expected)");
  };
  if (!json.is_object() || !json.contains("model") || !json["model"].is_object()) {
    throwInvalid(name + ": no \"model\" object");
  }
  const Json& model = json["model"];
  if (model.contains("type") && model["type"] != "BPE") {
    unsupported("model type " + model["type"].dump());
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (model.contains(key) && !model[key].is_null() && model[key] != "") {
      unsupported(std::string("model.") + key + " " + model[key].dump());
    }
  }
  if (model.contains("dropout") && model["dropout"].is_number() &&
      model["dropout"].get<double>() > 0.0) {
    unsupported("BPE dropout (random segmentation)");
  }
  if (jsonBool(model, "byte_fallback", false, name + ": model")) unsupported("model.byte_fallback");
  BpeData data;
  data.origin = name;
  // NFC (Qwen2's) is the one normalizer reproduced; any other is refused by its type.
  if (json.contains("normalizer") && !json["normalizer"].is_null()) {
    const Json& normalizer = json["normalizer"];
    if (!normalizer.is_object() || jsonType(normalizer) != "NFC" || normalizer.size() != 1) {
      unsupported("normalizer " + jsonType(normalizer));
    }
    data.nfc = true;
  }
  if (json.contains("pre_tokenizer") && !json["pre_tokenizer"].is_null()) {
    const Json& pre = json["pre_tokenizer"];
    const Json* byte_level = &pre;
    // SmolLM2 / StarCoder: Sequence [Digits(individual_digits), ByteLevel]; Llama 3 and Qwen2:
    // Sequence [Split(its pattern, Isolated), ByteLevel(use_regex = false)].
    if (pre.is_object() && jsonType(pre) == "Sequence" && pre.contains("pretokenizers") &&
        pre["pretokenizers"].is_array() && pre["pretokenizers"].size() == 2) {
      const Json& first = pre["pretokenizers"][0];
      if (first.is_object() && jsonType(first) == "Digits" &&
          jsonBool(first, "individual_digits", false, name + ": pre_tokenizer")) {
        data.split_digits = true;
        byte_level = &pre["pretokenizers"][1];
      } else if (const auto split = first.is_object() && jsonType(first) == "Split"
                                        ? splitPattern(first)
                                        : std::nullopt) {
        data.pattern = *split;
        byte_level = &pre["pretokenizers"][1];
        if (jsonBool(*byte_level, "use_regex", true, name + ": pre_tokenizer"))
          unsupported("a Split followed by a regex ByteLevel");
      }
    }
    if (!byte_level->is_object() || jsonType(*byte_level) != "ByteLevel")
      unsupported("pre_tokenizer " + jsonType(pre));
    data.add_prefix_space =
        jsonBool(*byte_level, "add_prefix_space", false, name + ": pre_tokenizer");
    data.use_regex = jsonBool(*byte_level, "use_regex", true, name + ": pre_tokenizer") ||
                     data.pattern != bpe::Pattern::kGpt2;
  }
  if (json.contains("post_processor") && !json["post_processor"].is_null()) {
    readPostProcessor(json["post_processor"], name, data);
  }

  if (!model.contains("vocab")) throwInvalid(name + ": model.vocab is missing");
  data.vocab = readVocab(model["vocab"], name + ": model.vocab");
  data.ignore_merges = jsonBool(model, "ignore_merges", false, name + ": model");
  data.fuse_unk = jsonBool(model, "fuse_unk", false, name + ": model");
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    const auto it = data.vocab.find(model["unk_token"].get<std::string>());
    if (it == data.vocab.end()) {
      throwInvalid(name + ": model.unk_token " + model["unk_token"].dump() +
                   " is not in the vocabulary");
    }
    data.unk_id = it->second;
  }

  if (!model.contains("merges") || !model["merges"].is_array()) {
    throwInvalid(name + ": model.merges is missing or not an array");
  }
  int rank = 0;
  std::string left;
  std::string right;
  for (const Json& entry : model["merges"]) {
    const std::string where = name + ": model.merges entry " + std::to_string(rank);
    if (entry.is_string()) {
      if (!splitMerge(entry.get<std::string>(), left, right)) {
        throwInvalid(where + ": expected \"a b\", got " + entry.dump());
      }
    } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() &&
               entry[1].is_string()) {
      left = entry[0].get<std::string>();
      right = entry[1].get<std::string>();
    } else {
      throwInvalid(where + ": expected \"a b\" or [\"a\", \"b\"], got " + entry.dump());
    }
    addMerge(data, left, right, rank++, where);
  }

  if (json.contains("added_tokens") && json["added_tokens"].is_array()) {
    int index = 0;
    for (const Json& entry : json["added_tokens"]) {
      const std::string where = name + ": added_tokens entry " + std::to_string(index++);
      if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_number_integer() ||
          entry["id"].get<long long>() < 0 || entry["id"].get<long long>() > 100'000'000 ||
          !entry.contains("content") || !entry["content"].is_string()) {
        throwInvalid(where + ": expected {\"id\": integer, \"content\": string, ...}");
      }
      AddedToken added{entry["content"].get<std::string>(), entry["id"].get<int>(),
                       jsonBool(entry, "special", false, where)};
      // tokenizers requires every flag; a file without them gets AddedToken::from's defaults.
      added.single_word = jsonBool(entry, "single_word", false, where);
      added.lstrip = jsonBool(entry, "lstrip", false, where);
      added.rstrip = jsonBool(entry, "rstrip", false, where);
      added.normalized = jsonBool(entry, "normalized", !added.special, where);
      const auto it = data.vocab.find(added.content);
      if (it != data.vocab.end() && it->second != added.id) {
        throwInvalid(where + ": \"" + added.content + "\" has id " + std::to_string(added.id) +
                     " but " + std::to_string(it->second) + " in model.vocab");
      }
      if (added.content.empty()) continue;
      // tokenizers matches a normalized token by its normalized content.
      if (added.normalized && data.nfc) added.content = bpe::toNfc(added.content);
      data.added.push_back(std::move(added));
    }
  }
  int max_id = -1;
  for (const auto& [token, id] : data.vocab) max_id = std::max(max_id, id);
  for (const auto& added : data.added) max_id = std::max(max_id, added.id);
  for (const auto* ids : {&data.prefix_ids, &data.suffix_ids}) {
    for (int id : *ids) {
      if (id > max_id) {
        throwInvalid(name + ": post_processor adds token id " + std::to_string(id) +
                     ", which is not in the vocabulary");
      }
    }
  }
  return bpe::makeByteLevelBpe(std::move(data));
}

// Every JSON value is type-checked where it is read; this catches what a check missed, so that
// nlohmann's own exceptions never leave the engine (fuzz_byte_level_bpe).
template <typename Load>
std::unique_ptr<ModelTokenizer> withJsonErrors(const std::filesystem::path& file, Load load) {
  try {
    return load();
  } catch (const Json::exception& e) {
    throwInvalid(file.filename().string() + ": unexpected JSON (" + e.what() + ")");
  }
}

}  // namespace

std::unique_ptr<ModelTokenizer> loadByteLevelBpe(const std::filesystem::path& vocab_json,
                                                 const std::filesystem::path& merges_txt) {
  return withJsonErrors(vocab_json,
                        [&] { return loadFromVocabAndMerges(vocab_json, merges_txt); });
}

std::unique_ptr<ModelTokenizer> loadByteLevelBpe(const std::filesystem::path& tokenizer_json) {
  return withJsonErrors(tokenizer_json, [&] { return loadFromTokenizerJson(tokenizer_json); });
}

}  // namespace attnlab
