#!/usr/bin/env python3
"""Makes tests/data/quants/dequant.safetensors: generated blocks of every ggml type the engine
dequantises, with the float32 values the `gguf` Python package's dequantiser (gguf.quants)
gives for them. The engine's dequantize() must reproduce every value bit for bit
(tests/engine/test_gguf.cpp).

Run with the venv of tests/reference/setup-env.sh:

    build/reference-venv/bin/python tests/reference/make_quant_goldens.py

Blocks are random bytes (seeded) except for the float16 scales and minimums, which are drawn as
finite float16 values of realistic size (random bytes would often be inf/NaN, which no quantiser
writes); F16, BF16 and F32 also get ±0, subnormals, ±inf and NaN. Layout per type NAME:
    NAME.bytes   U8  [blocks · block bytes]   the raw blocks
    NAME.values  F32 [blocks · block elements] what gguf.quants.dequantize returns
Metadata: "gguf_version", "numpy_version", "counts" (JSON: values per type).
"""

import json
from pathlib import Path

import gguf
import numpy as np
from gguf import GGMLQuantizationType as T
from gguf.quants import dequantize
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parents[2] / "tests/data/quants/dequant.safetensors"
SEED = 20250101

# Offsets of the float16 fields (d, dmin / m) inside each block.
HALF_FIELDS = {
    T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
    T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208],
    T.Q2_K: [80, 82], T.Q3_K: [108], T.IQ4_NL: [0], T.IQ4_XS: [0],
}
BLOCKS = {T.Q4_0: 96, T.Q4_1: 96, T.Q5_0: 96, T.Q5_1: 96, T.Q8_0: 96,
          T.Q4_K: 24, T.Q5_K: 24, T.Q6_K: 24,
          T.Q2_K: 24, T.Q3_K: 24, T.IQ4_NL: 96, T.IQ4_XS: 24}


def quant_blocks(rng, qtype):
    block_elems, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
    n = BLOCKS[qtype]
    raw = rng.integers(0, 256, size=(n, block_bytes), dtype=np.uint8)
    for off in HALF_FIELDS[qtype]:
        scales = (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 1, n)).astype(np.float16)
        raw[:, off:off + 2] = scales.view(np.uint8).reshape(n, 2)
    # A few blocks with a zero or negative scale, which real files contain too.
    raw[0, HALF_FIELDS[qtype][0]:HALF_FIELDS[qtype][0] + 2] = 0
    return raw.reshape(-1)


def float_values(rng, qtype):
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -2.5, 65504.0, 6.1e-5, 5.96e-8,
                         3.0e-8, 1e-40, 3.4e38], dtype=np.float64)
    if qtype == T.F32:
        vals = np.concatenate([specials, rng.standard_normal(500) * 100]).astype(np.float32)
        return vals.view(np.uint8)
    if qtype == T.F16:
        vals = np.concatenate([specials, rng.standard_normal(500) * 100]).astype(np.float16)
        bits = np.concatenate([vals.view(np.uint16), np.arange(0, 65536, 97, dtype=np.uint16)])
        return bits.view(np.uint8)
    # BF16: every 97th bit pattern plus random ones (NaN payloads and subnormals included).
    bits = np.concatenate([np.arange(0, 65536, 97, dtype=np.uint16),
                           rng.integers(0, 65536, 500, dtype=np.uint16)]).astype(np.uint16)
    return bits.view(np.uint8)


def main():
    rng = np.random.default_rng(SEED)
    tensors = {}
    counts = {}
    # Types added later come last, so that the earlier types' blocks stay as they were drawn.
    for qtype in [T.F32, T.F16, T.BF16, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q4_K, T.Q5_K,
                  T.Q6_K, T.Q2_K, T.Q3_K, T.IQ4_NL, T.IQ4_XS]:
        raw = float_values(rng, qtype) if qtype in (T.F32, T.F16, T.BF16) else quant_blocks(rng, qtype)
        values = dequantize(raw, qtype).astype(np.float32).reshape(-1)
        tensors[f"{qtype.name}.bytes"] = raw.astype(np.uint8)
        tensors[f"{qtype.name}.values"] = values
        counts[qtype.name] = int(values.size)
        print(f"{qtype.name}: {raw.size} bytes -> {values.size} values")
    metadata = {"gguf_version": gguf.__version__ if hasattr(gguf, "__version__") else
                __import__("importlib.metadata").metadata.version("gguf"),
                "numpy_version": np.__version__, "counts": json.dumps(counts, sort_keys=True)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    save_file(dict(sorted(tensors.items())), str(OUT), metadata=metadata)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
