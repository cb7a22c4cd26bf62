#!/usr/bin/env python3
"""Makes tests/data/goldens/gemma-3-270m.safetensors: reference data for the real Gemma 3 270M
Q4_K_M GGUF (scripts/fetch-model gemma3), for Attention Lab's tokenizer, dequantisation and
forward-pass tests.

transformers 4.49 (the pinned version) has no Gemma 3 text model, so the attention weights come
from tests/reference/gemma3_reference.py (an independent NumPy float64 forward pass written from
the Gemma 3 report, weights dequantised by gguf.quants), and the next tokens from it and from
llama.cpp (llama-cpp-python, the optional peer of tests/reference/setup-env.sh with
ATTNLAB_WITH_LLAMA_CPP=1). Token ids are llama.cpp's (Llama.tokenize with add_bos, special
tokens parsed), the reference's tokenizer for GGUF files.

    build/reference-venv/bin/python tests/reference/make_gemma3_goldens.py [--gguf FILE]

Layout:
  tokNN.ids        I32 [n]     llama.cpp's ids of tokenizer case NN (BOS first)
  random.ids I32 [Σn], random.lengths I32 [300]   llama.cpp's ids of 300 random texts (metadata
                               "random_texts"), concatenated
  caseNN.input_ids I32 [n]     forward case NN (BOS first)
  caseNN.row_index I32 [r]     the query positions kept
  caseNN.rows      F32 [L, h, r, n]  the reference's attention weights at those rows
  caseNN.mean_key  F32 [L, h, n]     Σ_j j·p_ij per row (moves if any weight does)
  caseNN.next_ids  I32 [5], caseNN.next_logits F32 [5]        the reference's top 5
  caseNN.llama_cpp_ids I32 [5], caseNN.llama_cpp_logits F32 [5]  llama.cpp's top 5
  caseNN.llama_cpp_at_ref F32 [5]   llama.cpp's logits at the reference's top-5 ids
  deq.NAME.rows I32 [k], deq.NAME.values F32 [k, cols]   rows of tensor NAME dequantised by
                                                          gguf.quants (one tensor per type)
Metadata: "model", "sha256", "cases" (JSON [{name, text}]), "tokenizer_cases" (JSON
[{name, text}]), "dequantised" (JSON {name: type}), "versions", "logit_gap" (JSON per case: max
|reference − llama.cpp| over the top 5).
"""

import argparse
import ctypes
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
from safetensors.numpy import save_file

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import gemma3_reference as ref  # noqa: E402
from make_goldens import sort_metadata  # noqa: E402
from make_llama_goldens import PARAGRAPH  # noqa: E402  (the tiny Llama's long input, reused)

OUT = ROOT / "tests/data/goldens/gemma-3-270m.safetensors"

TOKENIZER_CASES = [
    ("english", "The cat sat on the mat because it was tired."),
    ("chinese", "我们今天在北京大学学习注意力机制。"),
    ("japanese_korean", "東京は日本の首都です。 서울은 한국의 수도입니다."),
    ("emoji", "Family 👨\u200d👩\u200d👧 wave 👋🏽 smile 😀 heart ❤️!"),
    ("digits", "In 1969, 3 astronauts flew 384400 km; 12.5% of 80 is 10. 007 3.14159"),
    ("spaces", "  two leading, three   inside,    four, trailing  "),
    ("one_space", " "),
    ("newlines", "line one\nline two\n\nafter a blank\n\n\n\nfour\r\nwindows"),
    ("tabs", "\tindented\n\t\ttwice\tand\ttabs"),
    ("code", "def f(x):\n    return x ** 2  # square\n"),
    ("chat", "<start_of_turn>user\nWhat is attention?<end_of_turn>\n<start_of_turn>model\n"),
    ("specials_inline", "a<bos>b<eos> <unk> <mask> [multimodal] <start_of_image>"),
    ("html", "<table><tr><td>cell</td></tr></table> <h1>Title</h1> <b>bold</b>"),
    ("accents", "Café naïve résumé Straße façade Ångström"),
    ("rare_bytes", "\u0001\u001f\u007f \ufeffBOM inside \u200b zero-width"),
    ("leading_bom", "\ufeffstart"),
    ("arabic_hindi", "مرحبا بالعالم नमस्ते दुनिया"),
    ("math", "∑_{i=1}^{n} x_i² ≤ √(n·∑x_i²) → ∞"),
    ("punctuation", "\"Quoted,\" she said — 'single' … (brackets) [square] {curly}!?"),
    ("long_word", "Pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism"),
]

# Pieces the random tokenizer cases are drawn from: runs of spaces (user-defined tokens up to 31),
# newlines and tabs, CJK, emoji with joiners and skin tones, digits, HTML and control tokens, a
# combining accent, Arabic, rare code points (byte fallback).
PIECES = [" ", "  ", "   ", " " * 33, "\n", "\n\n", "\t", "\t\t", "\r\n", "the", "The", " cat",
          "sat", "ing", "ly", "un", "注意", "力", "我们", "機械学習", "한국어", "😀", "👨\u200d👩\u200d👧",
          "👋🏽", "❤️", "0", "7", "42", "2024", "3.14", "<b>", "</b>", "<table>", "<start_of_turn>",
          "<end_of_turn>", "<bos>", "<eos>", "<unk>", "<unused7>", "e\u0301", "é", "ß", "مرحبا",
          "\u0001", "\u00a0", "\u2581", "\ufeff", "\u200b", "𝔸", "\U0010fffd", "<", ">", "_", "-",
          "...", "!!", "?", "'s", "n't", "http://x.org/a?b=1"]


def random_texts(count, seed=20260301):
    rng = np.random.default_rng(seed)
    texts = []
    for _ in range(count):
        k = int(rng.integers(1, 14))
        texts.append("".join(PIECES[int(i)] for i in rng.integers(0, len(PIECES), k)))
    return texts




def long_text(tokenize, target):
    """PARAGRAPH repeated and cut at a word so that the text has `target` tokens or just over
    (BOS included)."""
    words = (PARAGRAPH + " ") * 8
    words = words.split(" ")
    for k in range(1, len(words)):
        text = " ".join(words[:k])
        if len(tokenize(text)) >= target:
            return text
    raise ValueError("the paragraph is too short")


FORWARD_CASES = [
    ("cat_it", "The cat sat on the mat because it was tired."),
    ("chinese", "我们今天在北京大学学习注意力机制。"),
    ("chat", "<start_of_turn>user\nWhat is attention?<end_of_turn>\n<start_of_turn>model\n"),
    ("capital", "The capital of France is"),
    ("paragraph_600", None),  # > 512 tokens: the local layers' window cuts the earliest keys
]

# One tensor per type the file uses (and both types where a name has two).
DEQUANTISED = ["token_embd.weight", "blk.0.attn_q.weight", "blk.0.attn_v.weight",
               "blk.0.attn_output.weight", "blk.0.ffn_down.weight", "blk.2.ffn_down.weight",
               "blk.0.attn_q_norm.weight", "blk.17.ffn_up.weight"]


def fetch():
    return Path(subprocess.run([str(ROOT / "scripts/fetch-model"), "gemma3"], check=True,
                               capture_output=True, text=True).stdout.strip())


def versions():
    import importlib.metadata as md
    return json.dumps({"gguf": md.version("gguf"), "numpy": np.__version__,
                       "llama_cpp_python": md.version("llama_cpp_python")}, sort_keys=True)


class LlamaCpp:
    """llama.cpp through llama-cpp-python: tokenize and the last position's logits."""

    def __init__(self, path):
        import llama_cpp
        self._lib = llama_cpp
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=1024, n_batch=1024, n_ubatch=1024,
                                   n_threads=2, n_threads_batch=2, logits_all=False,
                                   verbose=False)
        self.vocab = self.llm.n_vocab()

    def tokenize(self, text):
        return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    def logits(self, ids):
        self.llm.reset()
        self.llm.eval(ids)
        ptr = self._lib.llama_get_logits_ith(self.llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)),
                                     shape=(self.vocab,)).astype(np.float64)


def q8_0(x):
    """ggml's Q8_0 rounding of activations [.., k·32] (quantize_row_q8_0_ref): per block of 32,
    d = amax / 127 stored as float16, q = round(x / d)."""
    b = x.reshape(-1, 32)
    amax = np.abs(b).max(axis=1, keepdims=True)
    d = amax / 127.0
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d > 0)
    q = np.round(b * inv)
    return (q * d.astype(np.float16).astype(np.float64)).reshape(x.shape)


def q8_k(x):
    """ggml's Q8_K rounding of activations [.., k·256] (quantize_row_q8_K_ref): per block of
    256, the value of largest magnitude m, scale −127 / m, q = min(127, round(x · scale))."""
    b = x.reshape(-1, 256).astype(np.float32)
    pick = np.abs(b).argmax(axis=1)
    m = b[np.arange(len(b)), pick][:, None]
    iscale = np.divide(np.float32(-127.0), m, out=np.zeros_like(m), where=m != 0)
    q = np.minimum(127, np.round(iscale * b))
    d = np.divide(np.float32(1.0), iscale, out=np.zeros_like(iscale), where=iscale != 0)
    return (q * d).astype(np.float64).reshape(x.shape)


def llama_cpp_hooks(path):
    """forward()'s hooks that round as llama.cpp's CPU backend does: every product with a
    quantised weight takes its activations rounded to Q8_0 (weights Q4_0 … Q8_0) or Q8_K (the
    k-quants) first (ggml-cpu's vec_dot_type), and the queries, keys and values are float16 (the
    KV cache's type; the query is converted to it for the products), and GELU is read from a
    float16 table (GGML_GELU_FP16). Accumulation order and the SIMD kernels' own roundings are not
    emulated, so this moves the logits by as much as llama.cpp's do, not onto them."""
    reader = gguf.GGUFReader(str(path))
    kind = {t.name: t.tensor_type.name for t in reader.tensors}

    def project(x, name, m):
        t = kind[name]
        if t.endswith("_K"):
            x = q8_k(x)
        elif t.startswith("Q"):
            x = q8_0(x)
        return x @ m.T

    def gelu(x):  # ggml-cpu's GELU: a float16 table at the float16-rounded input
        y = ref.gelu_tanh(x.astype(np.float16).astype(np.float64))
        y = y.astype(np.float16).astype(np.float64)
        return np.where(x <= -10.0, 0.0, np.where(x >= 10.0, x, y))

    return project, lambda t: t.astype(np.float16).astype(np.float64), gelu


def dequantised_rows(path):
    reader = gguf.GGUFReader(str(path))
    by_name = {t.name: t for t in reader.tensors}
    out, types = {}, {}
    for name in DEQUANTISED:
        t = by_name[name]
        rows_total = int(t.shape[1]) if len(t.shape) > 1 else 1
        rows = sorted({0, 1, rows_total // 2, rows_total - 1}) if rows_total > 1 else [0]
        if name == "token_embd.weight":
            rows = [0, 2, 818, 5866, 236761, 262143]
        data = t.data if len(t.shape) > 1 else t.data.reshape(1, -1)
        values = gguf.quants.dequantize(np.ascontiguousarray(data[rows]), t.tensor_type)
        out[f"deq.{name}.rows"] = np.array(rows, dtype=np.int32)
        out[f"deq.{name}.values"] = np.ascontiguousarray(values, dtype=np.float32)
        types[name] = t.tensor_type.name
    return out, types


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gguf", type=Path, help="the Gemma 3 270M .gguf (default: fetch-model)")
    args = parser.parse_args()
    path = args.gguf or fetch()
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    lc = LlamaCpp(path)
    tensors, tok_meta = {}, []
    for index, (name, text) in enumerate(TOKENIZER_CASES):
        ids = lc.tokenize(text)
        tensors[f"tok{index:02d}.ids"] = np.array(ids, dtype=np.int32)
        tok_meta.append({"name": name, "text": text})
    random_cases = random_texts(300)
    tensors["random.ids"] = np.concatenate(
        [np.array(lc.tokenize(t), dtype=np.int32) for t in random_cases])
    tensors["random.lengths"] = np.array([len(lc.tokenize(t)) for t in random_cases],
                                         dtype=np.int32)
    deq, deq_types = dequantised_rows(path)
    tensors.update(deq)

    config, weights = ref.load_gguf(path)
    layers, heads = config["num_hidden_layers"], config["num_attention_heads"]
    cases, gaps = [], {}
    for index, (name, text) in enumerate(FORWARD_CASES):
        if text is None:
            text = long_text(lc.tokenize, 600)
        ids = lc.tokenize(text)
        n = len(ids)
        out = ref.forward(weights, config, ids)
        project, round_qkv, gelu = llama_cpp_hooks(path)
        emu = ref.forward(weights, config, ids, project=project, round_qkv=round_qkv,
                          gelu=gelu).logits
        attn = np.stack(out.attentions)  # [L, h, n, n]
        if n > 512:
            rows = sorted({0, 255, 511, 512, 513, n // 2, n - 2, n - 1})
        else:
            rows = sorted({n // 3, (2 * n) // 3, n - 1}) if n > 2 else list(range(n))
        key = f"case{index:02d}"
        tensors[key + ".input_ids"] = np.array(ids, dtype=np.int32)
        tensors[key + ".row_index"] = np.array(rows, dtype=np.int32)
        tensors[key + ".rows"] = np.ascontiguousarray(attn[:, :, rows, :], dtype=np.float32)
        tensors[key + ".mean_key"] = (attn @ np.arange(n)).astype(np.float32)
        top = np.argsort(-out.logits, kind="stable")[:5]
        lcl = lc.logits(ids)
        lc_top = np.argsort(-lcl, kind="stable")[:5]
        tensors[key + ".next_ids"] = top.astype(np.int32)
        tensors[key + ".next_logits"] = out.logits[top].astype(np.float32)
        tensors[key + ".llama_cpp_ids"] = lc_top.astype(np.int32)
        tensors[key + ".llama_cpp_logits"] = lcl[lc_top].astype(np.float32)
        tensors[key + ".llama_cpp_at_ref"] = lcl[top].astype(np.float32)
        gap = float(np.abs(out.logits[top] - lcl[top]).max())
        full_gap = float(np.abs(out.logits - lcl).max())
        emu_gap = float(np.abs(emu - lcl).max())
        emu_top = np.argsort(-emu, kind="stable")[:5]
        rms = lambda a, b: round(float(np.sqrt(np.mean((a - b) ** 2))), 4)
        gaps[name] = {"top5": round(gap, 4), "all": round(full_gap, 4), "all_rms": rms(out.logits, lcl),
                      "emulated_vs_exact": round(float(np.abs(emu - out.logits).max()), 4),
                      "emulated_rms": rms(emu, lcl),
                      "top5_equal": bool((top == lc_top).all()),
                      "top5_same_set": bool(set(top) == set(lc_top)),
                      "emulated_all": round(emu_gap, 4),
                      "emulated_top5_equal": bool((emu_top == lc_top).all())}
        words = [lc.llm.detokenize([int(i)]).decode(errors="replace") for i in top]
        print(f"{name}: {n} tokens; reference top-5 {top.tolist()} {words} "
              f"{np.round(out.logits[top], 3).tolist()}; llama.cpp {lc_top.tolist()} "
              f"{np.round(lcl[lc_top], 3).tolist()}; max |Δ logit| top-5 {gap:.4f}, "
              f"all {full_gap:.4f}; with llama.cpp's rounding emulated: all {emu_gap:.4f}, "
              f"top-5 {emu_top.tolist()}")
        cases.append({"name": name, "text": text})
        # The window matters: the local layers' rows past 511 give keys j ≤ i − 512 no weight.
        if n > 512:
            local = [l for l in range(layers) if not ref.is_global(config, l)]
            assert attn[local[0], :, n - 1, : n - 512].max() == 0.0
            assert attn[5, :, n - 1, : n - 512].max() > 0.0
    save_file(tensors, str(OUT), metadata={
        "model": path.name, "sha256": sha, "cases": json.dumps(cases),
        "tokenizer_cases": json.dumps(tok_meta), "random_texts": json.dumps(random_cases),
        "dequantised": json.dumps(deq_types), "versions": versions(),
        "logit_gap": json.dumps(gaps)})
    sort_metadata(OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
