#!/usr/bin/env python3
"""Makes tests/data/tokenizers/llama3-pretokenizer.{gguf,json}: a GGUF vocabulary (the tiny
Llama's 600 byte-level tokens and merges) marked tokenizer.ggml.pre = "llama-bpe", and 1000 random
texts with the ids that HuggingFace tokenizers gives them with Llama 3's pre-tokenizer
(Sequence[Split(its regex, Isolated), ByteLevel(use_regex=False)], as Llama 3's tokenizer.json
has it). The engine's hand-written Llama 3 pattern must give the same ids
(tests/engine/test_gguf_tokenizer.cpp).

    build/reference-venv/bin/python tests/reference/make_llama3_pretokenizer_goldens.py

Texts mix letters of both cases, apostrophes before s/t/re/ve/m/ll/d in any case (and ſ), digit
runs of every length, ASCII and non-ASCII digits, spaces, tabs, \\r, \\n, no-break and
ideographic spaces, punctuation, CJK and emoji.
"""

import json
import random
from pathlib import Path

import gguf
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/data/tokenizers"
REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"
         r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
POOL = (["a", "b", "e", "l", "r", "s", "t", "v", "m", "d", "A", "S", "T", "L", "R", "E", "V", "M",
         "D", "\u017f", "'", "'", "1", "2", "3", "0", "\u0663", " ", " ", " ", "\t", "\n", "\n",
         "\r", "\u00a0", "\u3000", ".", ",", "!", "?", "(", ")", "-", "\u4e2d", "\u6587",
         "\U0001F600", "\u00e9"] + ["the", " cat", "'S", "'ll", "'RE", "123456", " 42", "\r\n"])


def main():
    spec = json.loads((ROOT / "tests/data/models/tiny-llama/tokenizer.json").read_text())
    vocab = spec["model"]["vocab"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    tokens = [None] * len(vocab)
    for t, i in vocab.items():
        tokens[i] = t
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m.split(" ", 1)) for m in merges]))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()

    OUT.mkdir(parents=True, exist_ok=True)
    w = gguf.GGUFWriter(str(OUT / "llama3-pretokenizer.gguf"), "llama")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe")
    w.add_token_list(tokens)
    w.add_token_merges(merges)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

    rng = random.Random(20250301)
    cases = []
    for _ in range(1000):
        text = "".join(rng.choice(POOL) for _ in range(rng.randint(1, 24)))
        cases.append({"text": text, "ids": tok.encode(text).ids})
    (OUT / "llama3-pretokenizer.json").write_text(json.dumps(cases, ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main()
