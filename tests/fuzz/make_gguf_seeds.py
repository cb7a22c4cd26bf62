#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_gguf.cpp into tests/fuzz/corpus/gguf/: small GGUF
files (v2 and v3) covering every metadata value type, nested arrays, a gpt2 and a llama
(SentencePiece) tokenizer, and tensors of each dequantised type. Uses the gguf package of
tests/reference/setup-env.sh's venv:

    build/reference-venv/bin/python tests/fuzz/make_gguf_seeds.py
"""

from pathlib import Path

import gguf
import numpy as np
from gguf import GGMLQuantizationType as Q

OUT = Path(__file__).resolve().parent / "corpus/gguf"


def writer(name):
    return gguf.GGUFWriter(str(OUT / name), "llama")


def finish(w, version=3):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    if version == 2:  # v2's layout equals v3's (64-bit counts); only the number differs
        path = Path(w.path) if hasattr(w, "path") and w.path else None
        data = bytearray(path.read_bytes())
        data[4:8] = (2).to_bytes(4, "little")
        path.write_bytes(bytes(data))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)

    w = writer("values.gguf")
    w.add_uint8("u8", 200)
    w.add_int8("i8", -5)
    w.add_uint16("u16", 65535)
    w.add_int16("i16", -300)
    w.add_uint32("u32", 7)
    w.add_int32("i32", -7)
    w.add_float32("f32", 1.5)
    w.add_uint64("u64", 1 << 63)
    w.add_int64("i64", -(1 << 40))
    w.add_float64("f64", 0.125)
    w.add_bool("yes", True)
    w.add_string("name", "caf\u00e9 \u4e2d")
    w.add_array("words", ["a", "", "\u4e2d"])
    w.add_array("ints", [1, 2, 3])
    w.add_array("nested", [[1, 2], [3]])
    w.add_tensor("f32", rng.standard_normal((2, 4)).astype(np.float32))
    finish(w)

    w = writer("quants.gguf")
    w.add_uint32("general.alignment", 64)
    for qtype in [Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1, Q.Q8_0]:
        x = rng.standard_normal((2, 32)).astype(np.float32)
        w.add_tensor(qtype.name, gguf.quants.quantize(x, qtype), raw_dtype=qtype)
    for qtype in [Q.Q4_K, Q.Q5_K, Q.Q6_K]:
        block = rng.integers(0, 256, size=(1, gguf.GGML_QUANT_SIZES[qtype][1]), dtype=np.uint8)
        w.add_tensor(qtype.name, block, raw_dtype=qtype)
    w.add_tensor("f16", rng.standard_normal(8).astype(np.float16))
    finish(w)

    tokens = ["<|endoftext|>", "<|im_start|>", "a", "b", "c", "\u0120", "ab", "\u0120a", "1", "2"]
    w = writer("gpt2_tokenizer.gguf")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(tokens)
    w.add_token_types([3, 3, 1, 1, 1, 1, 1, 1, 1, 1])
    w.add_token_merges(["a b", "\u0120 a"])
    w.add_bos_token_id(1)
    w.add_add_bos_token(True)
    finish(w)

    pieces = ["<unk>", "<s>", "</s>", "\u2581", "a", "b", "\u2581a", "ab", "<0x0A>", "<0xE4>"]
    w = writer("spm_tokenizer.gguf")
    w.add_tokenizer_model("llama")
    w.add_token_list(pieces)
    w.add_token_scores([0.0, 0.0, 0.0, -1.0, -2.0, -2.0, -0.5, -0.7, 0.0, 0.0])
    w.add_token_types([2, 3, 3, 1, 1, 1, 1, 1, 6, 6])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    finish(w, version=2)
    for p in sorted(OUT.iterdir()):
        print(p.name, p.stat().st_size)


if __name__ == "__main__":
    main()
