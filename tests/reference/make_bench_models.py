#!/usr/bin/env python3
"""Writes the models bench_models.py times that no package ships: a Qwen2-shaped GGUF with random
weights — Qwen2.5-0.5B's shape (24 layers, d_model 896, 14 query heads sharing 2 K/V heads of
64, d_ff 4864, Q/K/V biases, RoPE base 10⁶, tied embeddings), weights Q8_0 (norms and biases F32),
SmolLM2-135M-Instruct's tokenizer copied from its GGUF (so the vocabulary is 49 152 rather than
Qwen2's 151 936: only the embedding lookup and the last row's logits see the vocabulary).

Random weights (normal, σ = 0.02, seed 20261201) are enough to time a forward pass: the work per
token does not depend on the values. Nothing here is committed; the file goes to
build/bench-models/ (≈ 420 MB) and is made once.

    build/reference-venv/bin/python tests/reference/make_bench_models.py      # prints the path
"""

import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
from gguf import GGMLQuantizationType as Q

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build/bench-models/qwen2-shaped-0.5b-q8_0.gguf"
SHAPE = dict(layers=24, d_model=896, heads=14, kv_heads=2, head=64, d_ff=4864, context=32768)


def smollm2():
    return Path(subprocess.run([str(ROOT / "scripts/fetch-model"), "smollm2"], check=True,
                               capture_output=True, text=True).stdout.strip())


def copy_tokenizer(writer, path):
    reader = gguf.GGUFReader(str(path))
    f = reader.fields
    def text(key):
        return bytes(f[key].parts[f[key].data[0]]).decode("utf-8")
    def strings(key):
        return [bytes(f[key].parts[i]).decode("utf-8") for i in f[key].data]
    def ints(key):
        return [int(f[key].parts[i][0]) for i in f[key].data]
    writer.add_tokenizer_model(text("tokenizer.ggml.model"))
    writer.add_tokenizer_pre(text("tokenizer.ggml.pre"))
    tokens = strings("tokenizer.ggml.tokens")
    writer.add_token_list(tokens)
    writer.add_token_types(ints("tokenizer.ggml.token_type"))
    writer.add_token_merges(strings("tokenizer.ggml.merges"))
    for key, add in (("tokenizer.ggml.bos_token_id", writer.add_bos_token_id),
                     ("tokenizer.ggml.eos_token_id", writer.add_eos_token_id)):
        if key in f:
            add(int(f[key].parts[f[key].data[0]][0]))
    writer.add_add_bos_token(False)
    return len(tokens)


def main():
    if OUT.exists():
        print(OUT)
        return
    OUT.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261201)
    s = SHAPE
    tmp = OUT.with_suffix(".part")
    w = gguf.GGUFWriter(str(tmp), "qwen2")
    w.add_name("qwen2-shaped-0.5b (random weights, for timing)")
    w.add_block_count(s["layers"])
    w.add_context_length(s["context"])
    w.add_embedding_length(s["d_model"])
    w.add_feed_forward_length(s["d_ff"])
    w.add_head_count(s["heads"])
    w.add_head_count_kv(s["kv_heads"])
    w.add_rope_freq_base(1e6)
    w.add_layer_norm_rms_eps(1e-6)
    vocab = copy_tokenizer(w, smollm2())

    def mat(rows, cols):
        x = (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(np.float32)
        return gguf.quants.quantize(x, Q.Q8_0), Q.Q8_0

    def vec(n, mean=0.0):
        return (mean + rng.standard_normal(n, dtype=np.float32) * 0.02).astype(np.float32), Q.F32

    d, hd = s["d_model"], s["head"]
    tensors = [("token_embd.weight", mat(vocab, d)), ("output_norm.weight", vec(d, 1.0))]
    for l in range(s["layers"]):
        b = f"blk.{l}."
        tensors += [
            (b + "attn_norm.weight", vec(d, 1.0)),
            (b + "attn_q.weight", mat(s["heads"] * hd, d)), (b + "attn_q.bias", vec(s["heads"] * hd)),
            (b + "attn_k.weight", mat(s["kv_heads"] * hd, d)), (b + "attn_k.bias", vec(s["kv_heads"] * hd)),
            (b + "attn_v.weight", mat(s["kv_heads"] * hd, d)), (b + "attn_v.bias", vec(s["kv_heads"] * hd)),
            (b + "attn_output.weight", mat(d, s["heads"] * hd)),
            (b + "ffn_norm.weight", vec(d, 1.0)),
            (b + "ffn_gate.weight", mat(s["d_ff"], d)), (b + "ffn_up.weight", mat(s["d_ff"], d)),
            (b + "ffn_down.weight", mat(d, s["d_ff"])),
        ]
    for name, (data, qtype) in tensors:
        w.add_tensor(name, data, raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    tmp.rename(OUT)
    print(OUT)


if __name__ == "__main__":
    sys.exit(main())
