#!/usr/bin/env python3
"""Makes the HuggingFace reference data for Attention Lab's Llama-family variants.

For each of Qwen2, Mistral and Phi-3 a tiny random-weight checkpoint (2 layers, 4 query heads
sharing 2 K/V heads, d_model 64, d_ff 96, context 64, the byte-level BPE of tests/data/models/
tiny-llama reused) is written twice, as the same model:

* tests/data/models/tiny-NAME/: a HuggingFace folder (config.json, model.safetensors in F16,
  tokenizer.json), saved by transformers' own NAMEForCausalLM;
* tests/data/models/tiny-NAME/tiny-NAME.gguf: llama.cpp's layout (gguf-py's
  constants.MODEL_TENSORS names and "<arch>.*" keys, as convert_hf_to_gguf.py writes them):
  - qwen2 (general.architecture "qwen2"): blk.N.attn_q / attn_k / attn_v with .bias tensors,
    W_Q / W_K rows left in HuggingFace's rotate-half order (llama.cpp rotates qwen2 NEOX-style);
  - mistral (general.architecture "llama", as llama.cpp's converter writes Mistral): W_Q / W_K
    permuted to interleaved pairs as for Llama, and llama.attention.sliding_window = 4 — a key
    the converter does NOT write for llama (llama.cpp's llama has no window; see docs/models.md);
  - phi3 (general.architecture "phi3"): fused blk.N.attn_qkv and blk.N.ffn_up = W_gate | W_up,
    rotate-half order, phi3.attention.sliding_window and phi3.rope.scaling.original_context_length
    as the converter writes them.
  Matrices are F16, vectors F32; every value is F16-representable, so folder and GGUF hold the
  same numbers.

What each fixture exercises, with random values everywhere a reader could drop something (the
Q/K/V biases, every norm's gain, the untied output layer):
* tiny-qwen2: Q/K/V biases, rope_theta 1e6, tied embeddings, use_sliding_window false with
  sliding_window = max_position_embeddings (as Qwen2.5's own configs: no window binds);
* tiny-mistral: sliding_window 4 on every layer (transformers 4.49's eager mask hides keys
  j ≤ i − 4), head_dim 24 ≠ d_model / heads, an untied lm_head, d_ff 64 (to stay < 300 KB);
* tiny-phi3: fused qkv_proj and gate_up_proj, sliding_window 5, rms_norm_eps 1e-5.

Goldens tests/data/goldens/tiny-NAME.safetensors: per case caseNN.input_ids I32 [n],
caseNN.attentions F32 [L, h, n, n] (transformers 4.49, eager attention, output_attentions=True,
float32), caseNN.next_ids I32 [5], caseNN.next_probs F32 [5]; metadata "model", "cases" (JSON
list of {name, text}), "versions", and "gguf_vs_folder_max_abs" where transformers' own GGUF
loader (load_gguf_checkpoint, written against llama.cpp's converter) reads the GGUF back to the
same attention — a check that the GGUF layout is llama.cpp's.

    tests/reference/setup-env.sh
    build/reference-venv/bin/python tests/reference/make_llama_family_goldens.py
"""

import json
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import gguf
import numpy as np
import torch
from gguf import GGMLQuantizationType as Q
from safetensors.numpy import save_file
from transformers import (MistralConfig, MistralForCausalLM, Phi3Config, Phi3ForCausalLM,
                          Qwen2Config, Qwen2ForCausalLM)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_goldens import sort_metadata  # noqa: E402
from make_llama_goldens import (TINY_SPECIALS, forward, permute_qk,  # noqa: E402
                                reference_tokenizer, versions)

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests/data/models"
GOLDEN_DIR = ROOT / "tests/data/goldens"
TOKENIZER = MODELS / "tiny-llama/tokenizer.json"
SEED = 20261201
STD = 0.25
H, G, D_MODEL, D_FF, CONTEXT = 4, 2, 64, 96, 64

CASES = [
    ("cat_it", "The cat sat on the mat because it was tired."),
    ("question", "Why do transformers need positional information at all?"),
    ("code_digits", "for i in range(10):\n    total += 2024 * 3.14 - x[i]"),
    ("numbers", "In 1969, 3 astronauts flew 384400 km; 12.5% of 80 is 10."),
    ("chat_specials", "<|im_start|>user\nWhat is attention?<|im_end|>\n<|im_start|>assistant\n"),
    ("single", "Hello"),
    ("keeper", "Every evening the keeper climbed the narrow stairs of the old lighthouse."),
]


def tokenizer_parts():
    spec = json.loads(TOKENIZER.read_text())
    vocab = spec["model"]["vocab"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    tokens = [None] * len(vocab)
    for t, i in vocab.items():
        tokens[i] = t
    return vocab, merges, tokens


def common(vocab_size):
    return dict(vocab_size=vocab_size, hidden_size=D_MODEL, intermediate_size=D_FF,
                num_hidden_layers=2, num_attention_heads=H, num_key_value_heads=G,
                max_position_embeddings=CONTEXT, bos_token_id=1, eos_token_id=2,
                torch_dtype="float16")


def build(kind, vocab_size):
    """(model class, config) of one fixture."""
    if kind == "qwen2":
        return Qwen2ForCausalLM, Qwen2Config(
            **common(vocab_size), rms_norm_eps=1e-6, rope_theta=1000000.0,
            tie_word_embeddings=True, use_sliding_window=False, sliding_window=CONTEXT,
            max_window_layers=1)
    if kind == "mistral":
        return MistralForCausalLM, MistralConfig(
            **{**common(vocab_size), "intermediate_size": 64}, head_dim=24, rms_norm_eps=1e-5, rope_theta=10000.0,
            sliding_window=4, tie_word_embeddings=False)
    return Phi3ForCausalLM, Phi3Config(
        **common(vocab_size), rms_norm_eps=1e-5, rope_theta=10000.0, sliding_window=5,
        original_max_position_embeddings=CONTEXT, tie_word_embeddings=False, pad_token_id=None)


def random_state(model, rng):
    """Every parameter random (norm gains 1 + N(0, 0.2²), the rest N(0, 0.25²)), rounded to F16."""
    state = {}
    for name, t in model.state_dict().items():
        if "norm" in name:
            w = 1.0 + 0.2 * rng.standard_normal(t.shape)
        else:
            w = STD * rng.standard_normal(t.shape)
        state[name] = torch.from_numpy(w.astype(np.float16).astype(np.float32))
    if model.config.tie_word_embeddings:  # one tensor: lm_head is the embedding
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    return state


def gguf_tensors(kind, state, config):
    """(GGUF name, float32 array) in llama.cpp's layout for the HF state of one fixture."""
    d = config.head_dim if kind == "mistral" else D_MODEL // H
    out = [("token_embd.weight", state["model.embed_tokens.weight"]),
           ("output_norm.weight", state["model.norm.weight"])]
    if not config.tie_word_embeddings:
        out.append(("output.weight", state["lm_head.weight"]))
    for l in range(config.num_hidden_layers):
        b, p = f"blk.{l}.", f"model.layers.{l}."
        out.append((b + "attn_norm.weight", state[p + "input_layernorm.weight"]))
        out.append((b + "ffn_norm.weight", state[p + "post_attention_layernorm.weight"]))
        out.append((b + "attn_output.weight", state[p + "self_attn.o_proj.weight"]))
        out.append((b + "ffn_down.weight", state[p + "mlp.down_proj.weight"]))
        if kind == "phi3":
            out.append((b + "attn_qkv.weight", state[p + "self_attn.qkv_proj.weight"]))
            out.append((b + "ffn_up.weight", state[p + "mlp.gate_up_proj.weight"]))
            continue
        q = state[p + "self_attn.q_proj.weight"]
        k = state[p + "self_attn.k_proj.weight"]
        if kind == "mistral":  # llama: interleaved pairs, as convert_hf_to_gguf.py permutes
            q, k = permute_qk(q, H), permute_qk(k, G)
        out += [(b + "attn_q.weight", q), (b + "attn_k.weight", k),
                (b + "attn_v.weight", state[p + "self_attn.v_proj.weight"]),
                (b + "ffn_gate.weight", state[p + "mlp.gate_proj.weight"]),
                (b + "ffn_up.weight", state[p + "mlp.up_proj.weight"])]
        if kind == "qwen2":
            for x in "qkv":
                out.append((b + f"attn_{x}.bias", state[p + f"self_attn.{x}_proj.bias"]))
    return d, out


def write_gguf(path, kind, config, state, tokens, merges):
    arch = {"qwen2": "qwen2", "mistral": "llama", "phi3": "phi3"}[kind]
    d, tensors = gguf_tensors(kind, state, config)
    w = gguf.GGUFWriter(str(path), arch)
    w.add_name(f"tiny-{kind}")
    w.add_block_count(config.num_hidden_layers)
    w.add_context_length(CONTEXT)
    w.add_embedding_length(D_MODEL)
    w.add_feed_forward_length(config.intermediate_size)
    w.add_head_count(H)
    w.add_head_count_kv(G)
    w.add_rope_freq_base(config.rope_theta)
    w.add_layer_norm_rms_eps(config.rms_norm_eps)
    w.add_rope_dimension_count(d)
    if kind == "mistral":
        w.add_key_length(d)
        w.add_value_length(d)
        w.add_vocab_size(len(tokens))
    if kind in ("mistral", "phi3"):
        w.add_sliding_window(config.sliding_window)
    if kind == "phi3":
        w.add_rope_scaling_orig_ctx_len(config.original_max_position_embeddings)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(tokens)
    w.add_token_types([3 if t in TINY_SPECIALS else 1 for t in tokens])
    w.add_token_merges(merges)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(False)
    for name, t in tensors:
        a = np.ascontiguousarray(np.asarray(t, dtype=np.float32))
        w.add_tensor(name, a.astype(np.float16) if a.ndim == 2 else a)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def gguf_through_transformers(path, cls, config):
    """transformers' GGUF reader (dequantisation, W_Q / W_K un-permuted for llama/mistral, fused
    tensors mapped back) on our file, into the fixture's own config (transformers reads no
    sliding window from GGUF keys)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint
    model = cls(config).to(torch.float32)
    # The file is general.architecture llama for Mistral; gguf-py 0.19 has no "mistral" names
    # for transformers' map, so the tensors are read as a Llama's with the same shapes.
    names = model if config.model_type != "mistral" else LlamaForCausalLM(LlamaConfig(
        **{k: getattr(config, k) for k in common(config.vocab_size) if k != "torch_dtype"},
        head_dim=config.head_dim))
    state = load_gguf_checkpoint(str(path), return_tensors=True, model_to_load=names)["tensors"]
    missing, unexpected = model.load_state_dict(
        {k: torch.as_tensor(v, dtype=torch.float32) for k, v in state.items()}, strict=False)
    assert not unexpected and set(missing) <= {"lm_head.weight"}, (missing, unexpected)
    model.tie_weights()
    return model.eval()


def make(kind, ref_tok, vocab, merges, tokens):
    out_dir = MODELS / f"tiny-{kind}"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    cls, config = build(kind, len(tokens))
    config._attn_implementation = "eager"
    torch.manual_seed(SEED)
    model = cls(config).eval()
    state = random_state(model, np.random.default_rng(
        SEED + {"qwen2": 1, "mistral": 2, "phi3": 3}[kind]))
    model.load_state_dict(state)
    model.to(torch.float16).save_pretrained(out_dir, safe_serialization=True)
    (out_dir / "generation_config.json").unlink(missing_ok=True)
    shutil.copy(TOKENIZER, out_dir / "tokenizer.json")
    gguf_path = out_dir / f"tiny-{kind}.gguf"
    write_gguf(gguf_path, kind, config, {k: v.numpy() for k, v in state.items()}, tokens, merges)

    ref = cls.from_pretrained(out_dir, torch_dtype=torch.float32,
                              attn_implementation="eager").eval()
    via_gguf = gguf_through_transformers(gguf_path, cls, config)
    tensors, cases, worst = {}, [], 0.0
    for index, (name, text) in enumerate(CASES):
        ids = ref_tok.encode(text).ids
        assert len(ids) <= CONTEXT, (name, len(ids))
        attn, next_ids, next_probs = forward(ref, ids)
        attn_g, next_g, _ = forward(via_gguf, ids)
        worst = max(worst, float(np.abs(attn - attn_g).max()))
        assert (next_ids == next_g).all(), name
        key = f"case{index:02d}"
        tensors[key + ".input_ids"] = np.array(ids, dtype=np.int32)
        tensors[key + ".attentions"] = attn
        tensors[key + ".next_ids"] = next_ids
        tensors[key + ".next_probs"] = next_probs
        cases.append({"name": name, "text": text})
        window = getattr(config, "sliding_window", None)
        if window and window < len(ids):  # the window really hides keys
            assert attn[:, :, -1, : len(ids) - window].max() == 0, name
    assert worst < 1e-5, worst
    golden = GOLDEN_DIR / f"tiny-{kind}.safetensors"
    save_file(tensors, str(golden), metadata={
        "model": f"tiny-{kind}", "cases": json.dumps(cases), "versions": versions(),
        "gguf_vs_folder_max_abs": f"{worst:.3g}"})
    sort_metadata(golden)
    sizes = {p.name: p.stat().st_size for p in sorted(out_dir.iterdir())}
    print(f"tiny-{kind}: {sizes}; golden {golden.stat().st_size} bytes; transformers on the GGUF "
          f"vs the folder: max |Δ attention| = {worst:.3g}")
    assert max(sizes.values()) < 300_000, sizes


def main():
    torch.set_num_threads(2)
    vocab, merges, tokens = tokenizer_parts()
    ref_tok = reference_tokenizer(vocab, merges, TINY_SPECIALS)
    for kind in ["qwen2", "mistral", "phi3"]:
        make(kind, ref_tok, vocab, merges, tokens)


if __name__ == "__main__":
    main()
