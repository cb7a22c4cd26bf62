#!/usr/bin/env python3
"""Writes the models the benchmarks time that no package ships: GGUF files with random weights in
the shapes of real models, readable by Attention Lab and by llama.cpp alike.

    build/reference-venv/bin/python tests/reference/make_bench_models.py [SHAPE[:TYPE] ...]

prints one path per model (made once, then reused) under build/bench-models/. Without arguments:
qwen2-shaped-0.5b:q8_0. SHAPE is one of

    qwen2-shaped-0.5b  Qwen2.5-0.5B: 24 layers, d_model 896, 14 query / 2 K/V heads of 64,
                       d_ff 4864, Q/K/V biases, RoPE base 10⁶, tied embeddings
    llama-3.2-1b       Llama-3.2-1B: 16 layers, d_model 2048, 32 / 8 heads of 64, d_ff 8192,
                       vocabulary 128 256, RoPE base 500 000, tied embeddings
    llama-3.1-8b       Llama-3.1-8B: 32 layers, d_model 4096, 32 / 8 heads of 128, d_ff 14 336,
                       vocabulary 128 256, RoPE base 500 000, separate output layer
    qwen2.5-7b         Qwen2.5-7B: 28 layers, d_model 3584, 28 / 4 heads of 128, d_ff 18 944,
                       Q/K/V biases, vocabulary 152 064, RoPE base 10⁶, separate output layer
    gemma-3-4b         Gemma-3-4B: 34 layers, d_model 2560, 8 / 4 heads of 256, d_ff 10 240,
                       vocabulary 262 208, five local layers (window 1024, RoPE base 10 000) to
                       one global (RoPE base 10⁶, linear scaling ×8), QK-norm, tied embeddings

and TYPE q8_0 (every matrix Q8_0) or q4_k (every matrix Q4_K, a separate output layer Q6_K, as
llama.cpp's Q4_K mixes keep it); norms and biases are F32.

The weights are random blocks: random bytes with each block's float16 scales set to a fixed small
value (|w| of order 0.01, as trained weights), so nothing overflows through the layers — the work
per token does not depend on the values, and writing 8 GB takes seconds rather than the hours
gguf.quants.quantize would. The tokenizer is SmolLM2-135M-Instruct's (copied from its GGUF),
padded with unused tokens to the shape's vocabulary, so that the embedding and the output layer
have their real size for llama.cpp and for the lab. Nothing here is committed.
"""

import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
from gguf import GGMLQuantizationType as Q

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "build/bench-models"

SHAPES = {
    "qwen2-shaped-0.5b": dict(arch="qwen2", layers=24, d_model=896, heads=14, kv_heads=2, head=64,
                              d_ff=4864, vocab=None, context=32768, rope=1e6, tied=True,
                              bias=True),
    "llama-3.2-1b": dict(arch="llama", layers=16, d_model=2048, heads=32, kv_heads=8, head=64,
                         d_ff=8192, vocab=128256, context=131072, rope=500000.0, tied=True),
    "llama-3.1-8b": dict(arch="llama", layers=32, d_model=4096, heads=32, kv_heads=8, head=128,
                         d_ff=14336, vocab=128256, context=131072, rope=500000.0, tied=False),
    "qwen2.5-7b": dict(arch="qwen2", layers=28, d_model=3584, heads=28, kv_heads=4, head=128,
                       d_ff=18944, vocab=152064, context=32768, rope=1e6, tied=False, bias=True),
    "gemma-3-4b": dict(arch="gemma3", layers=34, d_model=2560, heads=8, kv_heads=4, head=256,
                       d_ff=10240, vocab=262208, context=131072, rope=1e6, tied=True,
                       window=1024, rope_scale=8.0),
}

# Bytes per block, elements per block and the offsets of the float16 scale fields, with the value
# each scale field gets (d, dmin …).
BLOCKS = {
    Q.Q8_0: (34, 32, [(0, 3e-4)]),
    Q.Q4_K: (144, 256, [(0, 1e-4), (2, 1e-4)]),
    Q.Q6_K: (210, 256, [(208, 3e-4)]),
}


def path_of(shape, qtype):
    return OUT_DIR / f"{shape}-{qtype}.gguf"


def smollm2():
    return Path(subprocess.run([str(ROOT / "scripts/fetch-model"), "smollm2"], check=True,
                               capture_output=True, text=True).stdout.strip())


def copy_tokenizer(writer, path, vocab):
    """SmolLM2's tokenizer, padded with unused tokens (type 5) to `vocab` entries."""
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
    types = ints("tokenizer.ggml.token_type")
    if vocab is not None and vocab > len(tokens):
        pad = vocab - len(tokens)
        tokens += [f"<unused_{i}>" for i in range(pad)]
        types += [5] * pad
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(strings("tokenizer.ggml.merges"))
    for key, add in (("tokenizer.ggml.bos_token_id", writer.add_bos_token_id),
                     ("tokenizer.ggml.eos_token_id", writer.add_eos_token_id)):
        if key in f:
            add(int(f[key].parts[f[key].data[0]][0]))
    writer.add_add_bos_token(False)
    return len(tokens)


def random_blocks(rng, qtype, rows, cols):
    """[rows, row bytes] uint8 of random blocks of `qtype` with fixed small scales."""
    block_bytes, block_elems, halves = BLOCKS[qtype]
    assert cols % block_elems == 0, (qtype, cols)
    blocks = rows * cols // block_elems
    raw = np.frombuffer(rng.bytes(blocks * block_bytes), dtype=np.uint8).reshape(blocks, block_bytes).copy()
    for offset, value in halves:
        raw[:, offset:offset + 2] = np.full(blocks, value, dtype=np.float16).view(np.uint8).reshape(blocks, 2)
    return raw.reshape(rows, cols // block_elems * block_bytes)


def write(shape_name, qtype_name):
    s = SHAPES[shape_name]
    out = path_of(shape_name, qtype_name)
    if out.exists():
        return out
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    layer_type = {"q8_0": Q.Q8_0, "q4_k": Q.Q4_K}[qtype_name]
    output_type = Q.Q6_K if qtype_name == "q4_k" else Q.Q8_0
    rng = np.random.default_rng(20261206)
    tmp = out.with_suffix(".part")
    arch = s["arch"]
    w = gguf.GGUFWriter(str(tmp), arch)
    w.add_name(f"{shape_name} {qtype_name} (random weights, for timing)")
    w.add_block_count(s["layers"])
    w.add_context_length(s["context"])
    w.add_embedding_length(s["d_model"])
    w.add_feed_forward_length(s["d_ff"])
    w.add_head_count(s["heads"])
    w.add_head_count_kv(s["kv_heads"])
    w.add_key_length(s["head"])
    w.add_value_length(s["head"])
    w.add_rope_freq_base(s["rope"])
    w.add_layer_norm_rms_eps(1e-6)
    if arch == "gemma3":
        w.add_sliding_window(s["window"])
        w.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        w.add_rope_scaling_factor(s["rope_scale"])
    vocab = copy_tokenizer(w, smollm2(), s["vocab"])

    d, hd, ff = s["d_model"], s["head"], s["d_ff"]
    qr, kvr = s["heads"] * hd, s["kv_heads"] * hd
    # (name, rows, cols, type) for matrices; (name, n, mean) for F32 vectors.
    mats, vecs = [("token_embd.weight", vocab, d, layer_type)], [("output_norm.weight", d, 1.0)]
    if not s["tied"]:
        mats.append(("output.weight", vocab, d, output_type))
    for l in range(s["layers"]):
        b = f"blk.{l}."
        vecs.append((b + "attn_norm.weight", d, 1.0))
        vecs.append((b + "ffn_norm.weight", d, 1.0))
        mats += [(b + "attn_q.weight", qr, d, layer_type), (b + "attn_k.weight", kvr, d, layer_type),
                 (b + "attn_v.weight", kvr, d, layer_type), (b + "attn_output.weight", d, qr, layer_type),
                 (b + "ffn_gate.weight", ff, d, layer_type), (b + "ffn_up.weight", ff, d, layer_type),
                 (b + "ffn_down.weight", d, ff, layer_type)]
        if s.get("bias"):
            vecs += [(b + "attn_q.bias", qr, 0.0), (b + "attn_k.bias", kvr, 0.0),
                     (b + "attn_v.bias", kvr, 0.0)]
        if arch == "gemma3":
            vecs += [(b + "post_attention_norm.weight", d, 1.0), (b + "post_ffw_norm.weight", d, 1.0),
                     (b + "attn_q_norm.weight", hd, 1.0), (b + "attn_k_norm.weight", hd, 1.0)]
    # Tensor infos first, then the data tensor by tensor (never the whole model in memory).
    for name, rows, cols, qtype in mats:
        nbytes = rows * cols // BLOCKS[qtype][1] * BLOCKS[qtype][0]
        w.add_tensor_info(name, (rows, nbytes // rows), np.dtype(np.uint8), nbytes, raw_dtype=qtype)
    for name, n, _ in vecs:
        w.add_tensor_info(name, (n,), np.dtype(np.float32), 4 * n)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    for name, rows, cols, qtype in mats:
        w.write_tensor_data(random_blocks(rng, qtype, rows, cols))
    for name, n, mean in vecs:
        w.write_tensor_data((mean + rng.standard_normal(n, dtype=np.float32) * 0.02).astype(np.float32))
    w.close()
    tmp.rename(out)
    return out


def main(argv):
    wanted = argv or ["qwen2-shaped-0.5b:q8_0"]
    for item in wanted:
        shape, _, qtype = item.partition(":")
        qtype = qtype or "q8_0"
        if shape not in SHAPES or qtype not in ("q8_0", "q4_k"):
            sys.exit(f"make_bench_models: unknown model {item!r} (shapes: {', '.join(SHAPES)}; "
                     "types: q8_0, q4_k)")
        print(write(shape, qtype), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
