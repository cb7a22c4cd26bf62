#!/usr/bin/env python3
"""Makes tests/data/tokenizers/added-token-flags.json: the ids HuggingFace tokenizers gives to
texts with the tiny Llama's tokenizer.json (tests/data/models/tiny-llama) when its added tokens
carry the flags lstrip, rstrip, single_word and normalized, with model and pre-tokenizer options
changed (ignore_merges, unk_token, fuse_unk, add_prefix_space, use_regex, a BOS/EOS template),
with Qwen2's pre-tokenizer and NFC normalizer, and the ids of texts whose bytes Qt's conversions
could alter (a leading U+FEFF, noncharacters, CR line ends, NFC and NFD forms) on the tiny
Llama's and the tiny GPT-2's tokenizer.json. tests/engine/test_tokenizer_flags.cpp
writes each variant's tokenizer.json (the tiny Llama's with `added_tokens` replaced) and compares
the engine's ids with these.

    build/reference-venv/bin/python tests/reference/make_tokenizer_flag_goldens.py

Each variant: {"name", "base": "tiny-llama" | "tiny-gpt2", "added_tokens": [...] or null (the
file's own), "cases": [{"text", "ids"}]}.
"""

import copy
import json
import random
from pathlib import Path

import tokenizers
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]
# Qwen2's Split pattern (its tokenizer.json; llama.cpp's LLAMA_VOCAB_PRE_TYPE_QWEN2).
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+"
               r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
POOL = (["a", "b", "e", "l", "r", "s", "t", "A", "S", "T", "\u017f", "'", "1", "2", "3", "0",
         "\u0663", " ", " ", "\t", "\n", "\r", "\u00a0", "\u3000", ".", ",", "!", "(", "-",
         "\u4e2d", "\U0001F600", "\u00e9", "e\u0301", "\u0301", "\u212b", "A\u030a"] +
        ["the", " cat", "'S", "'ll", "123456", " 42", "\r\n", "<|im_end|>", "<|im_start|>"])
OUT = ROOT / "tests/data/tokenizers/added-token-flags.json"
BASES = {
    "tiny-llama": ROOT / "tests/data/models/tiny-llama/tokenizer.json",
    "tiny-gpt2": ROOT / "tests/data/models/tiny-gpt2/tokenizer.json",
}


def token(id_, content, lstrip=False, rstrip=False, single_word=False, normalized=False,
          special=True):
    return {"id": id_, "content": content, "single_word": single_word, "lstrip": lstrip,
            "rstrip": rstrip, "normalized": normalized, "special": special}


CHATML = ["The cat <|im_end|>  sat", "<|im_start|>  user\nhi<|im_end|>\n",
          "<|im_start|> user <|im_end|> \t\n <|im_end|><|im_end|>",
          " <|im_end|>", "<|im_end|> ", "   ", "a\u3000<|im_end|>\u00a0\u2003b",
          "x\r\n<|im_end|>\r\ny", "<|im_start|>\u200b<|im_end|>\u0085z",
          "<|im_end|>\u3000\u3000<|im_start|>  <|im_end|>"]
WORDS = ["concat at cat", "at", "at at", "the_at at_ _at", "éat atü at\u0301 \u0301at",
         "5at at5 \u0663at at\u00b2 \u00b2at", "-at- (at) 'at'", "at\u200dx \u200dat \u24b6at",
         "<|im_end|>at at<|im_end|>", "cat\tat\nat.", "\u4e2dat at\u4e2d", "\U0001F600at"]
BYTES = ["\ufeffstart", "\ufeff", "\ufeff\ufeffx", "a\ufeffb", "\ufffe\uffff\ufdd0", "\x00",
         "\u0301", "\u0301a", "a\r\nb\rc\n", "\r", "caf\u00e9 cafe\u0301", "\u00c5 A\u030a",
         "\u2028\u2029", "\U0010ffff\U000e0001"]


def variants():
    llama = json.loads(BASES["tiny-llama"].read_text())
    own = llama["added_tokens"]
    vocab = llama["model"]["vocab"]
    out = []

    def with_flags(name, changes, texts, extra=()):
        tokens = copy.deepcopy(own)
        for t in tokens:
            t.update(changes.get(t["content"], {}))
        tokens.extend(extra)
        out.append({"name": name, "base": "tiny-llama", "added_tokens": tokens, "texts": texts})

    with_flags("plain", {}, CHATML + BYTES)
    with_flags("lstrip+rstrip im_end", {"<|im_end|>": {"lstrip": True, "rstrip": True}}, CHATML)
    with_flags("lstrip im_end", {"<|im_end|>": {"lstrip": True}}, CHATML)
    with_flags("rstrip im_end", {"<|im_end|>": {"rstrip": True}}, CHATML)
    with_flags("rstrip im_start", {"<|im_start|>": {"rstrip": True}}, CHATML)
    with_flags("lstrip+rstrip both", {"<|im_start|>": {"lstrip": True, "rstrip": True},
                                      "<|im_end|>": {"lstrip": True, "rstrip": True}}, CHATML)
    with_flags("single_word at", {}, WORDS, [token(vocab["at"], "at", single_word=True,
                                                   special=False)])
    with_flags("single_word+lstrip+rstrip at", {}, WORDS,
               [token(vocab["at"], "at", single_word=True, lstrip=True, rstrip=True,
                      special=False)])
    cat_words = [w.replace("at", "cat") for w in WORDS]
    with_flags("single_word cat (not in the vocabulary)", {}, cat_words,
               [token(600, "cat", single_word=True, special=False)])
    with_flags("single_word im_end", {"<|im_end|>": {"single_word": True}}, CHATML + WORDS)
    # normalized: without a normalizer it decides only the order of matching — tokens with
    # normalized = false are split out of the whole text first, the others from what is left.
    with_flags("normalized at, not cat", {}, WORDS + ["concatenate", "cats"],
               [token(vocab["at"], "at", normalized=True, special=False),
                token(600, "cat", normalized=False, special=False)])
    with_flags("normalized cat, not at", {}, WORDS + ["concatenate", "cats"],
               [token(vocab["at"], "at", normalized=False, special=False),
                token(600, "cat", normalized=True, special=False)])
    with_flags("normalized overlap", {}, ["<|im_end|>x <|im_end|>", "a<|im_end|>b"],
               [token(601, "<|im_end|>x", normalized=True, special=False)])
    with_flags("normalized single_word", {}, ["<|im_end|>at at", "at<|im_end|>at"],
               [token(vocab["at"], "at", normalized=True, single_word=True, lstrip=True,
                      special=False)])
    # Model and pre-tokenizer fields the engine honours, each changing the ids of these texts.
    plain = [" The cat sat", "The cat", "concatenate 42", "\u00e9\u4e2d", "at\u00e9", "a  b\t\tc",
             "don't stop", "x!!y ... z"]
    for name, patch in [
            ("ignore_merges", {"model.ignore_merges": True, "model.vocab.concatenate": 600}),
            ("merges without ignore_merges", {"model.vocab.concatenate": 600}),
            ("add_prefix_space", {"pre_tokenizer.pretokenizers.1.add_prefix_space": True}),
            ("no regex", {"pre_tokenizer.pretokenizers.1.use_regex": False}),
            ("unk_token", {"model.unk_token": "<|endoftext|>", "drop": ["\u00c3", "\u00a9"]}),
            ("unk_token fuse_unk", {"model.unk_token": "<|endoftext|>", "model.fuse_unk": True,
                                    "drop": ["\u00c3", "\u00a9"]}),
            ("template BOS", {"post_processor": {
                "type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "<|im_start|>", "type_id": 0}},
                           {"Sequence": {"id": "A", "type_id": 0}},
                           {"SpecialToken": {"id": "<|im_end|>", "type_id": 0}}],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                         {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {
                    "<|im_start|>": {"id": "<|im_start|>", "ids": [1], "tokens": ["<|im_start|>"]},
                    "<|im_end|>": {"id": "<|im_end|>", "ids": [2], "tokens": ["<|im_end|>"]}}}}),
            ("truncation and padding", {"truncation": None, "padding": None})]:
        out.append({"name": name, "base": "tiny-llama", "added_tokens": None, "patch": patch,
                    "texts": plain})
    # Qwen2's pre-tokenizer (Llama 3's pattern with single digits) and its NFC normalizer, on
    # the tiny Llama's vocabulary: as tokenizer.json has it, and without the normalizer (what
    # llama.cpp does for tokenizer.ggml.pre = "qwen2").
    rng = random.Random(20261201)
    qwen_texts = ["".join(rng.choice(POOL) for _ in range(rng.randint(1, 24))) for _ in range(200)]
    qwen_texts += ["cafe\u0301 caf\u00e9", "A\u030a\u0301 \u212b", "\u1e9b\u0323 x\u0307\u0323",
                   "12345 \u0661\u0662\u0663", "e\u0301<|im_end|>\u0301", "<|im_start|>e\u0301"]
    qwen_pre = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": QWEN2_REGEX}, "behavior": "Isolated",
         "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
         "use_regex": False}]}
    out.append({"name": "qwen2 NFC", "base": "tiny-llama", "added_tokens": None,
                "patch": {"normalizer": {"type": "NFC"}, "pre_tokenizer": qwen_pre},
                "texts": qwen_texts})
    out.append({"name": "qwen2 without normalizer", "base": "tiny-llama", "added_tokens": None,
                "patch": {"pre_tokenizer": qwen_pre}, "texts": qwen_texts})
    out.append({"name": "gpt2 bytes", "base": "tiny-gpt2", "added_tokens": None,
                "texts": BYTES + ["<|endoftext|>\ufeff", "\ufeff<|endoftext|>"]})
    return out


def apply_patch(spec, patch):
    """Sets "a.b.0.c" paths of the tokenizer.json; "drop" removes vocabulary entries (and the
    merges that use them) so that unk_token has bytes to stand for."""
    for path, value in patch.items():
        if path == "drop":
            vocab = spec["model"]["vocab"]
            for t in value:
                del vocab[t]
            spec["model"]["merges"] = [
                m for m in spec["model"]["merges"]
                if not any(p in value or "".join(m if isinstance(m, list) else m.split(" "))
                           not in vocab for p in (m if isinstance(m, list) else m.split(" ")))]
            continue
        node = spec
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[keys[-1]] = value


def main():
    result = []
    for v in variants():
        spec = json.loads(BASES[v["base"]].read_text())
        if v["added_tokens"] is not None:
            spec["added_tokens"] = v["added_tokens"]
        apply_patch(spec, v.get("patch", {}))
        tok = Tokenizer.from_str(json.dumps(spec))
        cases = [{"text": t, "ids": tok.encode(t, add_special_tokens=True).ids}
                 for t in v["texts"]]
        result.append({"name": v["name"], "base": v["base"], "added_tokens": v["added_tokens"],
                       "patch": v.get("patch", {}), "cases": cases})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # One line per variant: small, and a diff still shows which variant changed.
    lines = [json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in result]
    OUT.write_text('{"tokenizers":' + json.dumps(tokenizers.__version__) + ',"variants":[\n' +
                   ",\n".join(lines) + "\n]}\n")
    print(f"wrote {sum(len(v['cases']) for v in result)} cases in {len(result)} variants")


if __name__ == "__main__":
    main()
