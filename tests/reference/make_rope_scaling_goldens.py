#!/usr/bin/env python3
"""Makes tests/data/goldens/tiny-llama-rope-scaling.safetensors: the tiny Llama
(tests/data/models/tiny-llama, context 64, heads of 16 = 8 RoPE pairs) run by transformers 4.49 with
each kind of RoPE scaling the engine honours, so that a reader that ignores a scaling field fails.

Variants (name: what transformers runs; the engine test gives the same model each way it can be
written, as a config.json or as GGUF keys):
  default    rope_scaling null (the baseline: every other variant must differ from it)
  freqs      the frequencies divided by [1, 1, 1, 1.5, 2, 4, 8, 8] (inv_freq / f, set on the rotary
             embedding after loading): what llama.cpp does with a GGUF tensor rope_freqs.weight
  linear4    {"rope_type": "linear", "factor": 4}
  llama3     {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
              "original_max_position_embeddings": 16}
  yarn4      {"rope_type": "yarn", "factor": 4} (context 64: transformers 4.49 takes YaRN's original
             context from max_position_embeddings)
  dynamic2   {"rope_type": "dynamic", "factor": 2}: inputs within the context keep the default angles

One input of 32 tokens (ids from the folder's tokenizer). Layout: input_ids I32 [n];
VARIANT.attentions F32 [L, h, n, n]; metadata "variants" (JSON {name: rope_scaling}), "freqs"
(JSON list), "versions".

    build/reference-venv/bin/python tests/reference/make_rope_scaling_goldens.py
"""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import transformers
from safetensors.numpy import save_file
from tokenizers import Tokenizer
from transformers import LlamaConfig, LlamaForCausalLM

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_goldens import sort_metadata  # noqa: E402

FOLDER = ROOT / "tests/data/models/tiny-llama"
OUT = ROOT / "tests/data/goldens/tiny-llama-rope-scaling.safetensors"
FREQS = [1, 1, 1, 1.5, 2, 4, 8, 8]
VARIANTS = {
    "default": None,
    "freqs": None,
    "linear4": {"rope_type": "linear", "factor": 4.0},
    "llama3": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 16},
    "yarn4": {"rope_type": "yarn", "factor": 4.0},
    "dynamic2": {"rope_type": "dynamic", "factor": 2.0},
}
TEXT = ("The quick brown fox jumps over the lazy dog while 12 cats watch; "
        "attention weights move as the positions rotate, far and near.")


def run(variant, ids):
    config = LlamaConfig.from_pretrained(FOLDER)
    config.rope_scaling = VARIANTS[variant]
    config._attn_implementation = "eager"
    model = LlamaForCausalLM.from_pretrained(FOLDER, config=config, attn_implementation="eager")
    model.eval()
    if variant == "freqs":
        rotary = model.model.rotary_emb
        rotary.inv_freq = rotary.inv_freq / torch.tensor(FREQS, dtype=torch.float32)
        rotary.original_inv_freq = rotary.inv_freq
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    return np.stack([a[0].numpy() for a in out.attentions]).astype(np.float32)


def main():
    torch.set_num_threads(2)
    tok = Tokenizer.from_file(str(FOLDER / "tokenizer.json"))
    ids = tok.encode(TEXT).ids[:32]
    assert len(ids) == 32, len(ids)
    tensors = {"input_ids": np.array(ids, dtype=np.int32)}
    for name in VARIANTS:
        tensors[name + ".attentions"] = run(name, ids)
    base = tensors["default.attentions"]
    for name in VARIANTS:
        diff = float(np.abs(tensors[name + ".attentions"] - base).max())
        print(f"{name:9s} max |ΔW| from default = {diff:.4f}")
    import importlib.metadata as md
    versions = {p: md.version(p) for p in ("transformers", "tokenizers", "safetensors")}
    versions["torch"] = torch.__version__
    save_file(tensors, str(OUT), metadata={
        "model": "tiny-llama", "variants": json.dumps(VARIANTS), "freqs": json.dumps(FREQS),
        "versions": json.dumps(versions), "text": TEXT})
    sort_metadata(OUT)
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
