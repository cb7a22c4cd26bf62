#!/usr/bin/env python3
"""Makes the HuggingFace reference data for Attention Lab's real-model tests.

1. tests/data/models/tiny-gpt2/: a 2-layer, 4-head GPT-2 with a byte-level BPE tokenizer trained
   on tests/reference/corpus.txt and randomly initialised weights, saved in HuggingFace format.
2. tests/data/goldens/<model>.safetensors: for each input text, the token ids, the token type
   ids and every layer's attention weights, as computed by HuggingFace transformers itself
   (eager attention, float32, CPU) for all-MiniLM-L6-v2 and for the tiny GPT-2.

Run it with the venv that tests/reference/setup-env.sh makes:

    tests/reference/setup-env.sh
    build/reference-venv/bin/python tests/reference/make_goldens.py

Golden file layout (case index NN as two digits, from 00):
    caseNN.input_ids       I32 [n]
    caseNN.token_type_ids  I32 [n]           (all 0 for GPT-2)
    caseNN.attentions      F32 [L, h, n, n]  softmax weights; rows are queries, columns keys
Metadata: "model", "cases" (JSON list of {name, text, pair, tokens}), "versions" (JSON object),
and for MiniLM "hf_forward_ms_32_tokens" (median wall time of one forward pass in ms).
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Torch's OpenMP threads otherwise spin between ops and fight OpenBLAS's own threads for the
# cores: on 2 cores the forward pass then takes 20-350 ms instead of a steady ~12 ms. Must be set
# before torch loads libgomp, hence before the imports below.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import safetensors
import tokenizers
import torch
import transformers
from safetensors import safe_open
from safetensors.numpy import load_file, save_file
from tokenizers import ByteLevelBPETokenizer
from transformers import (AutoModel, AutoTokenizer, BertTokenizer, BertTokenizerFast, GPT2Config,
                          GPT2LMHeadModel, GPT2Tokenizer, GPT2TokenizerFast)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/reference/corpus.txt"
TINY_GPT2_DIR = ROOT / "tests/data/models/tiny-gpt2"
GOLDEN_DIR = ROOT / "tests/data/goldens"

# Tiny GPT-2 fixture.
END_OF_TEXT = "<|endoftext|>"
TINY_VOCAB_SIZE = 800
TINY_SEED = 20240501
# Weights ~ N(0, 0.2^2) give attention scores with a spread of a few units, so the weights are
# clearly non-uniform without collapsing onto one key (see the stats this script prints).
TINY_INITIALIZER_RANGE = 0.2
# HuggingFace initialises every bias to 0 and every LayerNorm to (1, 0); a reader that forgot a
# bias or a LayerNorm parameter would still match. Give them small random values instead.
TINY_BIAS_STD = 0.1
TINY_LAYER_NORM_GAIN_STD = 0.1

THREADS = 2
TIMING_TOKENS = 32
TIMING_WARMUP = 5
TIMING_RUNS = 20

# Long inputs: 128 WordPiece tokens for MiniLM (with [CLS] and [SEP]); ~100 BPE tokens for the
# tiny GPT-2.
PARAGRAPH_128 = (
    "Every evening the keeper climbed the narrow stairs of the old lighthouse, counting the "
    "steps out of habit, while the grey cat followed one step behind him. At the top he wiped "
    "the salt from the glass, checked the oil, and wrote the time in a small notebook that "
    "already held forty years of weather. Ships passed far out on the dark water and answered "
    "the beam with short flashes of their own. When the wind rose, the whole tower hummed like "
    "a bottle, and the old cat pressed itself against his boots. Neither of them minded the "
    "noise; they had learned that a storm always ends, sooner or later, before morning."
)

PARAGRAPH_100 = (
    "Every evening the keeper climbed the stairs of the lighthouse, and the grey cat followed "
    "one step behind. At the top he wiped the glass, checked the lamp, and wrote the time in "
    "his notebook. Ships passed far out on the water and answered the light. Then the two of "
    "them went down to sleep."
)

# (name, text, pair). Names are short ids; order fixes the case index.
MINILM_CASES = [
    ("plain", "Attention lets every token look at every other token.", None),
    ("cat_it", "The cat sat on the mat because it was tired.", None),
    ("unicode_punct",
     "She said, \u201cIt\u2019s fine\u201d \u2013 then left\u2026 \u2018Really?\u2019 "
     "\u00abOui\u00bb \u00bfQu\u00e9? 5\u00a7 \u2022 50\u2030 \u2014 done!", None),
    ("accents", "Caf\u00e9 na\u00efve \u00c5ngstr\u00f6m r\u00e9sum\u00e9 Stra\u00dfe "
     "\u00d8resund fa\u00e7ade ESPA\u00d1A", None),
    ("chinese", "\u6211\u4eec\u4eca\u5929\u5728\u5317\u4eac\u5927\u5b66\u5b66\u4e60\u6ce8\u610f"
     "\u529b\u673a\u5236 with BERT \u6a21\u578b\u3002", None),
    ("emoji", "Family \U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 flag "
     "\U0001F1EF\U0001F1F5 wave \U0001F44B\U0001F3FD smile \U0001F600 heart \u2764\ufe0f!", None),
    ("paragraph_128", PARAGRAPH_128, None),
    ("pair", "Where did the cat sleep?", "The cat slept on the warm windowsill."),
    ("special_literal", "Fill in the [MASK] here [SEP] and [cls] there.", None),
    ("long_word_numbers",
     "The word " + "antidisestablishmentarianism" * 4 + " is silly; pi is 3.14, e-mail the "
     "U.S.A. team at 10:30 on 2024-05-01 ($1,000).", None),
    ("whitespace", "tabs\there\nnew line\u00a0no-break\u3000ideographic  two spaces\r\nend",
     None),
    ("control", "ring the bell\u0007now\u200bplease \ufffd done", None),
    ("kana_hangul", "\u6771\u4eac\u30bf\u30ef\u30fc and \uc11c\uc6b8 Tower", None),
    ("empty", "", None),
]

TINY_GPT2_CASES = [
    ("plain", "Attention lets every token look at every other token.", None),
    ("cat_it", "The cat sat on the mat because it was tired.", None),
    ("spaces", "  two leading, three   inner and two trailing  ", None),
    ("newlines", "first line\nsecond line\n\nafter a blank line\r\nend\n", None),
    ("chinese", "\u6211\u4eec\u4eca\u5929\u5728\u5b66\u4e60\u6ce8\u610f\u529b\u673a\u5236\u3002"
     "\u732b\u7d2f\u4e86\u3002", None),
    ("emoji", "family \U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 flag "
     "\U0001F1EF\U0001F1F5 wave \U0001F44B\U0001F3FD done", None),
    ("curly_quotes", "She said \u201cit\u2019s fine\u201d and \u2018left\u2019.", None),
    ("contractions", "I don't know; it's late and we'll see. They're here, I'm sure, "
     "she'd've gone.", None),
    ("numbers", "In 2024 there were 3,141 cats and 59.26% of 1000000 slept at 06:30.", None),
    ("end_of_text_literal", "first document<|endoftext|>second document", None),
    ("paragraph_100", PARAGRAPH_100, None),
    ("mixed", "Caf\u00e9 na\u00efve \u00c5ngstr\u00f6m \u2014 \u6771\u4eac and \U0001F600.",
     None),
    ("single", "cat", None),
]


def versions():
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
    }


def fetch_minilm():
    out = subprocess.run([str(ROOT / "scripts/fetch-model")], check=True, capture_output=True,
                         text=True)
    return Path(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Tiny GPT-2 fixture


def make_tiny_gpt2(out_dir):
    """Trains the tokenizer, initialises the model and saves both into out_dir."""
    bpe = ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train([str(CORPUS)], vocab_size=TINY_VOCAB_SIZE, min_frequency=2,
              special_tokens=[END_OF_TEXT], show_progress=False)

    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        vocab_file, merges_file = bpe.save_model(tmp)
        # Built from vocab.json + merges.txt the same way as HuggingFace's own gpt2 checkpoint.
        tokenizer = GPT2TokenizerFast(vocab_file=vocab_file, merges_file=merges_file,
                                      unk_token=END_OF_TEXT, bos_token=END_OF_TEXT,
                                      eos_token=END_OF_TEXT, add_prefix_space=False,
                                      model_max_length=256)
        tokenizer.save_pretrained(str(out_dir))

    end_of_text_id = tokenizer.convert_tokens_to_ids(END_OF_TEXT)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=256, n_embd=64, n_layer=2,
                        n_head=4, initializer_range=TINY_INITIALIZER_RANGE,
                        bos_token_id=end_of_text_id, eos_token_id=end_of_text_id)
    torch.manual_seed(TINY_SEED)
    model = GPT2LMHeadModel(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".bias"):
                p.normal_(mean=0.0, std=TINY_BIAS_STD)
            elif ".ln_" in name and name.endswith(".weight"):
                p.normal_(mean=1.0, std=TINY_LAYER_NORM_GAIN_STD)
    model = model.float().eval()
    model.save_pretrained(str(out_dir), safe_serialization=True)
    # Generation settings are no part of the fixture.
    (out_dir / "generation_config.json").unlink(missing_ok=True)

    # The raw trained tokenizer, the fast one and the slow one must agree.
    slow = GPT2Tokenizer.from_pretrained(str(out_dir))
    for name, text, _ in TINY_GPT2_CASES:
        fast_ids = tokenizer(text)["input_ids"]
        if bpe.encode(text).ids != fast_ids or slow(text)["input_ids"] != fast_ids:
            sys.exit(f"tiny-gpt2: tokenizers disagree on case {name!r}")


# ---------------------------------------------------------------------------------------------
# Goldens


def attention_stats(attn, causal):
    """Max weight and mean row entropy (nats) over the rows that see more than one key."""
    n = attn.shape[-1]
    entropies, maxima, uniform = [], [], []
    for q in range(n):
        k = q + 1 if causal else n
        if k < 2:
            continue
        w = attn[:, :, q, :k].reshape(-1, k)
        ent = -(w * np.log(np.clip(w, 1e-30, None))).sum(axis=1)
        entropies.append(ent)
        maxima.append(w.max(axis=1))
        uniform.append(np.full(len(ent), np.log(k)))
    if not entropies:
        return None
    ent = np.concatenate(entropies)
    return {
        "max_weight_mean": float(np.concatenate(maxima).mean()),
        "max_weight_max": float(np.concatenate(maxima).max()),
        "entropy_mean": float(ent.mean()),
        "uniform_entropy_mean": float(np.concatenate(uniform).mean()),
    }


def run_case(model, tokenizer, text, pair, is_gpt2):
    enc = tokenizer(text, pair) if pair is not None else tokenizer(text)
    ids = enc["input_ids"]
    n = len(ids)
    type_ids = [0] * n if is_gpt2 else enc["token_type_ids"]
    input_ids = torch.tensor([ids], dtype=torch.long)
    kwargs = {"attention_mask": torch.ones_like(input_ids), "output_attentions": True}
    if not is_gpt2:  # GPT-2 would look token type ids up in its word embeddings
        kwargs["token_type_ids"] = torch.tensor([type_ids], dtype=torch.long)
    with torch.no_grad():
        out = model(input_ids=input_ids, **kwargs)
    attn = torch.stack([a[0] for a in out.attentions]).float().numpy()
    return {
        "input_ids": np.asarray(ids, dtype=np.int32),
        "token_type_ids": np.asarray(type_ids, dtype=np.int32),
        "attentions": np.ascontiguousarray(attn, dtype=np.float32),
        "tokens": tokenizer.convert_ids_to_tokens(ids),
    }


def check(result, name, is_gpt2, layers, heads):
    n = len(result["input_ids"])
    attn = result["attentions"]
    assert attn.shape == (layers, heads, n, n), (name, attn.shape)
    assert result["token_type_ids"].shape == (n,)
    assert np.allclose(attn.sum(axis=-1), 1.0, atol=1e-5), name
    if is_gpt2:
        assert not np.triu(attn, k=1).any(), f"{name}: causal upper triangle is not 0"


def sort_metadata(path):
    """Rewrites a safetensors header with its metadata keys sorted.

    safetensors keeps the metadata in a hash map, so the key order (and so the file's bytes)
    changes from run to run. Tensor entries and the data block stay as they are.
    """
    blob = path.read_bytes()
    header_len = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + header_len])
    header["__metadata__"] = dict(sorted(header["__metadata__"].items()))
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data block stays 8-byte aligned
    path.write_bytes(struct.pack("<Q", len(text)) + text + blob[8 + header_len:])


def time_forward(model, tokenizer):
    """Median ms of one forward pass with output_attentions=True on a 32-token input."""
    ids = tokenizer(PARAGRAPH_128)["input_ids"]
    ids = ids[:TIMING_TOKENS - 1] + [ids[-1]]  # [CLS] + 30 word pieces + [SEP]
    input_ids = torch.tensor([ids], dtype=torch.long)
    kwargs = {"attention_mask": torch.ones_like(input_ids),
              "token_type_ids": torch.zeros_like(input_ids), "output_attentions": True}
    times = []
    with torch.no_grad():
        for i in range(TIMING_WARMUP + TIMING_RUNS):
            start = time.perf_counter()
            model(input_ids=input_ids, **kwargs)
            if i >= TIMING_WARMUP:
                times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def load_model(folder):
    kwargs = {"torch_dtype": torch.float32}
    # attn_implementation appeared in transformers 4.36; eager is the only path that returns
    # attention weights and the only one that exists for torch < 2.
    kwargs["attn_implementation"] = "eager"
    return AutoModel.from_pretrained(str(folder), **kwargs).float().eval()


def make_goldens(model_name, folder, cases, is_gpt2, out_path):
    model = load_model(folder)
    if is_gpt2:
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
        other = GPT2Tokenizer.from_pretrained(str(folder))
    else:
        tokenizer = BertTokenizer.from_pretrained(str(folder))
        other = BertTokenizerFast.from_pretrained(str(folder))
    layers, heads = model.config.num_hidden_layers, model.config.num_attention_heads

    tensors, meta_cases, mismatches = {}, [], []
    print(f"{model_name}: {type(model).__name__} from {folder}, "
          f"{type(tokenizer).__name__} (checked against {type(other).__name__})")
    for i, (name, text, pair) in enumerate(cases):
        result = run_case(model, tokenizer, text, pair, is_gpt2)
        check(result, name, is_gpt2, layers, heads)
        other_enc = other(text, pair) if pair is not None else other(text)
        if other_enc["input_ids"] != result["input_ids"].tolist():
            mismatches.append(name)
        key = f"case{i:02d}"
        for field in ("input_ids", "token_type_ids", "attentions"):
            tensors[f"{key}.{field}"] = result[field]
        meta_cases.append({"name": name, "text": text, "pair": pair, "tokens": result["tokens"]})
        stats = attention_stats(result["attentions"], is_gpt2)
        stats_text = ("" if stats is None else
                      f"max w {stats['max_weight_mean']:.3f} (top {stats['max_weight_max']:.3f}), "
                      f"entropy {stats['entropy_mean']:.3f} nats "
                      f"vs uniform {stats['uniform_entropy_mean']:.3f}")
        print(f"  {key} {name:20s} n={len(result['input_ids']):3d}  {stats_text}")
        print(f"        {' '.join(result['tokens'])!r}")
    if mismatches:
        sys.exit(f"{model_name}: {type(other).__name__} gives other ids for {mismatches}")

    metadata = {
        "model": model_name,
        "cases": json.dumps(meta_cases, ensure_ascii=False),
        "versions": json.dumps(versions()),
    }
    if not is_gpt2:
        ms = time_forward(model, tokenizer)
        metadata["hf_forward_ms_32_tokens"] = f"{ms:.3f}"
        print(f"{model_name}: HuggingFace forward, {TIMING_TOKENS} tokens, output_attentions=True, "
              f"{THREADS} threads: median {ms:.3f} ms of {TIMING_RUNS}")

    out_path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(out_path), metadata=metadata)
    sort_metadata(out_path)
    reread = load_file(str(out_path))
    assert reread.keys() == tensors.keys()
    assert all(np.array_equal(reread[k], v) for k, v in tensors.items())
    with safe_open(str(out_path), "np") as f:
        assert f.metadata() == metadata
    print(f"{model_name}: wrote {out_path.relative_to(ROOT)} ({out_path.stat().st_size} bytes)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minilm", type=Path,
                        help="all-MiniLM-L6-v2 folder (default: what scripts/fetch-model prints)")
    args = parser.parse_args()

    torch.set_num_threads(THREADS)
    print(json.dumps(versions()))
    make_tiny_gpt2(TINY_GPT2_DIR)
    minilm = args.minilm or fetch_minilm()
    make_goldens("all-MiniLM-L6-v2", minilm, MINILM_CASES, False,
                 GOLDEN_DIR / "all-MiniLM-L6-v2.safetensors")
    make_goldens("tiny-gpt2", TINY_GPT2_DIR, TINY_GPT2_CASES, True,
                 GOLDEN_DIR / "tiny-gpt2.safetensors")


if __name__ == "__main__":
    main()
