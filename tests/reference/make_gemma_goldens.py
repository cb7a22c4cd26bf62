#!/usr/bin/env python3
"""Makes the reference data for Attention Lab's Gemma 2 and Gemma 3 tests.

Two tiny random-weight checkpoints, each written twice from the same values, as a HuggingFace
folder (config.json, model.safetensors, tokenizer.json) and as a GGUF file the way llama.cpp's
convert_hf_to_gguf.py writes Gemma (general.architecture gemma2 / gemma3, llama.cpp's tensor
names from gguf.constants, every *norm.weight stored as 1 + w, W_Q / W_K rows left in
HuggingFace's rotate-half order because llama.cpp runs Gemma with NEOX-style RoPE):

- tests/data/models/tiny-gemma2/: Gemma 2 — 4 layers (0 and 2 local with a window of 4 keys, 1 and
  3 global: HF 4.49's `not layer_idx % 2`), 4 query heads sharing 2 K/V heads, head_dim 24 (so h·d_k
  = 96 ≠ d_model = 64), query_pre_attn_scalar 32 (≠ head_dim), attention logits soft-capped at 5,
  final logits at 3, GeGLU with gelu_pytorch_tanh, the embedding scaled by √d_model, four RMSNorms
  (1 + w) per layer.
- tests/data/models/tiny-gemma3/: Gemma 3 — 6 layers, sliding_window_pattern 6 (layers 0–4 local,
  window 4, RoPE base rope_local_base_freq = 10000; layer 5 global, RoPE base rope_theta = 1e6), 4
  query heads sharing 1 K/V head (multi-query, as Gemma 3 270M), head_dim 16,
  query_pre_attn_scalar 24, q_norm / k_norm (RMSNorm over each head, 1 + w), no soft-capping.

Both reuse tests/data/models/tiny-llama's byte-level BPE (600 tokens) as their tokenizer; the
GGUFs carry it as tokenizer.ggml.model "gpt2", pre "smollm" (what the tiny Llama's GGUF does).
Matrices are float16 in both files (so the two hold identical values), norms float32.

The GGUF differs from the folder in one number, as a converted file does: llama.cpp's converter
writes no query_pre_attn_scalar, and llama.cpp scales by 1/√key_length except for the 27B models
(46 layers for gemma2, 62 for gemma3: 1/√(d_model/h)). So the GGUF goldens are computed with
query_pre_attn_scalar = head_dim.

References:
- Gemma 2: transformers 4.49's Gemma2ForCausalLM, eager attention, float32, on the folder
  ("attentions") and on the same weights with query_pre_attn_scalar = head_dim ("gguf_*").
- Gemma 3: transformers 4.49 has no Gemma 3. The reference is `reference_forward` below, a torch
  float32 forward pass written from the Gemma 2 and Gemma 3 technical reports and the config's
  fields (not HF code): the Gemma 2 block plus q_norm / k_norm, a RoPE base per layer kind and the
  sliding_window_pattern rule of HF ≥ 4.50 (layer l local unless (l + 1) % pattern == 0, which is
  llama.cpp's set_swa_pattern(6)). Two checks make it trustworthy: on the tiny Gemma 2 it must
  equal HF's Gemma2ForCausalLM (every layer's weights and the logits, max |Δ| < 1e-5: the shared
  parts are HF's numbers), and on the tiny Gemma 3 it must equal tests/reference/
  gemma3_reference.py (written separately, NumPy float64), both on the folder (config.json +
  HF names) and on the GGUF through that file's own GGUF reader (max |Δ| < 1e-5). Every weight
  the window hides is checked to be exactly 0.

    build/reference-venv/bin/python tests/reference/make_gemma_goldens.py

Golden layout (tests/data/goldens/tiny-gemma2.safetensors, tiny-gemma3.safetensors; NN from 00):
caseNN.input_ids I32 [n]; caseNN.attentions F32 [L, h, n, n] (the folder's model),
caseNN.next_ids I32 [5], caseNN.next_probs F32 [5]; caseNN.gguf_attentions, caseNN.gguf_next_ids,
caseNN.gguf_next_probs the same for the GGUF's; Gemma 3's last case also linear8_attentions,
linear8_next_ids, linear8_next_probs (the folder with rope_scaling linear ×8). Metadata: "model", "cases" (JSON list of {name,
text, tokens}), "versions", "reference", "local_layers" (JSON), "reference_vs_hf_max_abs"
(Gemma 2), "reference_vs_gemma3_reference_max_abs" (Gemma 3).
"""

import json
import math
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
from transformers import Gemma2Config, Gemma2ForCausalLM

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_goldens import sort_metadata  # noqa: E402
from make_llama_goldens import CASES, PARAGRAPH, TINY_SPECIALS, reference_tokenizer, versions  # noqa: E402

TOKENIZER = ROOT / "tests/data/models/tiny-llama/tokenizer.json"
MODELS = ROOT / "tests/data/models"
GOLDENS = ROOT / "tests/data/goldens"
STD = 0.25  # matrices ~ N(0, 0.25²); norms w ~ N(0, 0.2²), so 1 + w spreads around 1

GEMMA2 = dict(model_type="gemma2", vocab_size=600, hidden_size=64, intermediate_size=32,
              num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=24,
              max_position_embeddings=64, rms_norm_eps=1e-6, rope_theta=10000.0,
              query_pre_attn_scalar=32, sliding_window=4, attn_logit_softcapping=5.0,
              final_logit_softcapping=3.0, hidden_activation="gelu_pytorch_tanh",
              tie_word_embeddings=True, attention_bias=False, bos_token_id=1, eos_token_id=2,
              pad_token_id=0, seed=20260301)
GEMMA3 = dict(model_type="gemma3_text", vocab_size=600, hidden_size=64, intermediate_size=32,
              num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=1, head_dim=16,
              max_position_embeddings=64, rms_norm_eps=1e-6, rope_theta=1000000.0,
              rope_local_base_freq=10000.0, query_pre_attn_scalar=24, sliding_window=4,
              sliding_window_pattern=6, attn_logit_softcapping=None,
              final_logit_softcapping=None, hidden_activation="gelu_pytorch_tanh",
              tie_word_embeddings=True, attention_bias=False, rope_scaling=None,
              bos_token_id=1, eos_token_id=2, pad_token_id=0, seed=20260302)

# Shorter than the tiny Llama's list: the goldens hold two sets of [L, h, n, n] weights.
GEMMA_CASES = [CASES[i] for i in (0, 6, 10)]  # cat_it, chat_specials, single


# --- The weights ------------------------------------------------------------------------------

def is_local(cfg, layer):
    """Whether `layer` has the sliding window: Gemma 2 even layers (HF 4.49 `not layer_idx % 2`,
    llama.cpp set_swa_pattern(2)); Gemma 3 all but every sliding_window_pattern-th (HF ≥ 4.50
    `bool((layer_idx + 1) % pattern)`, llama.cpp set_swa_pattern(6))."""
    if cfg["model_type"] == "gemma2":
        return layer % 2 == 0
    return (layer + 1) % cfg["sliding_window_pattern"] != 0


def make_weights(cfg):
    """HF-named float32 arrays (matrices rounded through float16, so both files hold them exactly)."""
    rng = np.random.default_rng(cfg["seed"])
    d, h, g, hd, ff = (cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"],
                       cfg["head_dim"], cfg["intermediate_size"])
    gemma3 = cfg["model_type"] == "gemma3_text"

    def mat(rows, cols):
        return (STD * rng.standard_normal((rows, cols))).astype(np.float16).astype(np.float32)

    def norm(n):
        return (0.2 * rng.standard_normal(n)).astype(np.float32)

    w = {"model.embed_tokens.weight": mat(cfg["vocab_size"], d), "model.norm.weight": norm(d)}
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        w[p + "input_layernorm.weight"] = norm(d)
        w[p + "self_attn.q_proj.weight"] = mat(h * hd, d)
        w[p + "self_attn.k_proj.weight"] = mat(g * hd, d)
        w[p + "self_attn.v_proj.weight"] = mat(g * hd, d)
        w[p + "self_attn.o_proj.weight"] = mat(d, h * hd)
        if gemma3:
            w[p + "self_attn.q_norm.weight"] = norm(hd)
            w[p + "self_attn.k_norm.weight"] = norm(hd)
        w[p + "post_attention_layernorm.weight"] = norm(d)
        w[p + "pre_feedforward_layernorm.weight"] = norm(d)
        w[p + "post_feedforward_layernorm.weight"] = norm(d)
        w[p + "mlp.gate_proj.weight"] = mat(ff, d)
        w[p + "mlp.up_proj.weight"] = mat(ff, d)
        w[p + "mlp.down_proj.weight"] = mat(d, ff)
    return w


def gguf_name(hf):
    """llama.cpp's tensor name for an HF Gemma tensor (gguf.constants' TENSOR_NAMES)."""
    T, names = gguf.MODEL_TENSOR, gguf.TENSOR_NAMES
    if hf == "model.embed_tokens.weight":
        return names[T.TOKEN_EMBD] + ".weight"
    if hf == "model.norm.weight":
        return names[T.OUTPUT_NORM] + ".weight"
    parts = hf.split(".")
    bid, rest = int(parts[2]), ".".join(parts[3:-1])
    kind = {"input_layernorm": T.ATTN_NORM, "self_attn.q_proj": T.ATTN_Q,
            "self_attn.k_proj": T.ATTN_K, "self_attn.v_proj": T.ATTN_V,
            "self_attn.o_proj": T.ATTN_OUT, "self_attn.q_norm": T.ATTN_Q_NORM,
            "self_attn.k_norm": T.ATTN_K_NORM, "post_attention_layernorm": T.ATTN_POST_NORM,
            "pre_feedforward_layernorm": T.FFN_PRE_NORM,
            "post_feedforward_layernorm": T.FFN_POST_NORM, "mlp.gate_proj": T.FFN_GATE,
            "mlp.up_proj": T.FFN_UP, "mlp.down_proj": T.FFN_DOWN}[rest]
    return names[kind].format(bid=bid) + ".weight"


def config_json(cfg):
    out = {k: v for k, v in cfg.items() if k != "seed"}
    out["architectures"] = ["Gemma2ForCausalLM" if cfg["model_type"] == "gemma2"
                            else "Gemma3ForCausalLM"]
    out["torch_dtype"] = "float32"
    return dict(sorted(out.items()))


def write_folder(cfg, weights, name):
    folder = MODELS / name
    folder.mkdir(parents=True, exist_ok=True)
    tensors = {k: (v.astype(np.float16) if v.ndim == 2 else v) for k, v in weights.items()}
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    (folder / "config.json").write_text(json.dumps(config_json(cfg), indent=2) + "\n")
    shutil.copyfile(TOKENIZER, folder / "tokenizer.json")
    return folder


def write_gguf(cfg, weights, path, tokens, merges):
    arch = "gemma2" if cfg["model_type"] == "gemma2" else "gemma3"
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_name(path.stem)
    writer.add_context_length(cfg["max_position_embeddings"])
    writer.add_embedding_length(cfg["hidden_size"])
    writer.add_block_count(cfg["num_hidden_layers"])
    writer.add_feed_forward_length(cfg["intermediate_size"])
    writer.add_head_count(cfg["num_attention_heads"])
    writer.add_head_count_kv(cfg["num_key_value_heads"])
    writer.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
    writer.add_key_length(cfg["head_dim"])
    writer.add_value_length(cfg["head_dim"])
    writer.add_rope_freq_base(cfg["rope_theta"])
    writer.add_sliding_window(cfg["sliding_window"])
    if arch == "gemma2":
        writer.add_attn_logit_softcapping(cfg["attn_logit_softcapping"])
        writer.add_final_logit_softcapping(cfg["final_logit_softcapping"])
    writer.add_vocab_size(cfg["vocab_size"])
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types([3 if t in TINY_SPECIALS else 1 for t in tokens])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(False)
    for hf, value in weights.items():
        if hf.endswith("norm.weight"):
            writer.add_tensor(gguf_name(hf), (1.0 + value).astype(np.float32))  # converter: w + 1
        else:
            writer.add_tensor(gguf_name(hf), value.astype(np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


# --- The reference forward pass -----------------------------------------------------------------

def rms_norm(x, w, eps):
    """Gemma's RMSNorm: x / √(mean(x²) + eps) · (1 + w), in float32 (Gemma 2 report §2)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + w)


def rope(x, base, factor=1.0):
    """RoPE (Su et al. 2021) in the rotate-half pairing (m, m + d/2) over x [heads, n, d]; linear
    scaling (Chen et al. 2023, position interpolation) divides every frequency by `factor`."""
    d, n = x.shape[-1], x.shape[-2]
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    if factor != 1.0:
        inv = inv / factor
    angle = torch.arange(n, dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = torch.cat([angle, angle], -1).cos(), torch.cat([angle, angle], -1).sin()
    half = torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1)
    return x * cos + half * sin


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


@torch.no_grad()
def reference_forward(cfg, weights, ids, scalar=None, global_rope_factor=1.0):
    """Every layer's attention weights [L, h, n, n] and the last position's logits [vocab].

    Gemma 2 (Gemma Team 2024, "Gemma 2", §2): h_0 = E[ids]·√d_model; per layer
    a = Attn(RMSNorm(h)), h = h + RMSNorm_post(a), f = W_down(gelu_tanh(W_gate x) ⊙ W_up x) with
    x = RMSNorm_pre(h), h = h + RMSNorm_post_ff(f); scores q·k / √query_pre_attn_scalar,
    soft-capped c·tanh(s / c), then the causal mask and, on local layers, the window i − j < W;
    logits = RMSNorm(h)·Eᵀ, soft-capped. Gemma 3 (Gemma Team 2025, "Gemma 3", §2): no caps;
    q and k RMS-normalised per head (1 + w) before RoPE; local layers rotate with
    rope_local_base_freq, global ones with rope_theta and the config's rope_scaling (here linear,
    `global_rope_factor`; the local layers are never scaled)."""
    t = {k: torch.from_numpy(v) for k, v in weights.items()}
    d, h, g, hd = (cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"],
                   cfg["head_dim"])
    eps, n = cfg["rms_norm_eps"], len(ids)
    gemma3 = cfg["model_type"] == "gemma3_text"
    scalar = cfg["query_pre_attn_scalar"] if scalar is None else scalar
    cap, final_cap = cfg.get("attn_logit_softcapping"), cfg.get("final_logit_softcapping")
    x = t["model.embed_tokens.weight"][torch.tensor(ids)] * torch.tensor(d ** 0.5)
    causal = torch.arange(n)[None, :] <= torch.arange(n)[:, None]
    window = (torch.arange(n)[:, None] - torch.arange(n)[None, :]) < cfg["sliding_window"]
    attentions = []
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        local = is_local(cfg, l)
        xn = rms_norm(x, t[p + "input_layernorm.weight"], eps)
        q = (xn @ t[p + "self_attn.q_proj.weight"].T).view(n, h, hd).transpose(0, 1)
        k = (xn @ t[p + "self_attn.k_proj.weight"].T).view(n, g, hd).transpose(0, 1)
        v = (xn @ t[p + "self_attn.v_proj.weight"].T).view(n, g, hd).transpose(0, 1)
        if gemma3:
            q = rms_norm(q, t[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, t[p + "self_attn.k_norm.weight"], eps)
        base = cfg["rope_local_base_freq"] if gemma3 and local else cfg["rope_theta"]
        factor = 1.0 if local else global_rope_factor
        q, k = rope(q, base, factor), rope(k, base, factor)
        k = k.repeat_interleave(h // g, 0)  # query head i reads K/V head i // (h / G)
        v = v.repeat_interleave(h // g, 0)
        s = (q @ k.transpose(1, 2)) * scalar ** -0.5
        if cap:
            s = torch.tanh(s / cap) * cap
        visible = causal & window if local else causal
        s = s.masked_fill(~visible, float("-inf"))
        p_attn = torch.softmax(s, -1)
        attentions.append(p_attn)
        o = (p_attn @ v).transpose(0, 1).reshape(n, h * hd) @ t[p + "self_attn.o_proj.weight"].T
        x = x + rms_norm(o, t[p + "post_attention_layernorm.weight"], eps)
        xn = rms_norm(x, t[p + "pre_feedforward_layernorm.weight"], eps)
        f = gelu_tanh(xn @ t[p + "mlp.gate_proj.weight"].T) * (xn @ t[p + "mlp.up_proj.weight"].T)
        f = f @ t[p + "mlp.down_proj.weight"].T
        x = x + rms_norm(f, t[p + "post_feedforward_layernorm.weight"], eps)
    x = rms_norm(x, t["model.norm.weight"], eps)
    logits = x[-1] @ t["model.embed_tokens.weight"].T
    if final_cap:
        logits = torch.tanh(logits / final_cap) * final_cap
    return torch.stack(attentions).numpy().astype(np.float32), logits


def hf_gemma2(cfg, weights, scalar):
    kwargs = {k: v for k, v in cfg.items() if k not in ("model_type", "seed")}
    kwargs["query_pre_attn_scalar"] = scalar
    config = Gemma2Config(**kwargs, torch_dtype="float32")
    config._attn_implementation = "eager"
    model = Gemma2ForCausalLM(config).to(torch.float32).eval()
    state = {k: torch.from_numpy(v) for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected and set(missing) <= {"lm_head.weight"}, (missing, unexpected)
    model.tie_weights()
    return model


@torch.no_grad()
def hf_forward(model, ids):
    input_ids = torch.tensor([ids])
    out = model(input_ids, attention_mask=torch.ones_like(input_ids), use_cache=False,
                output_attentions=True)
    attn = torch.stack([a[0] for a in out.attentions]).numpy().astype(np.float32)
    return attn, out.logits[0, -1]


def check_gguf_layout(path, weights, model):
    """transformers' own GGUF reader (load_gguf_checkpoint: llama.cpp's names, norm − 1, W_Q / W_K
    not permuted for Gemma) gives back the HF weights the file was written from."""
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint
    state = load_gguf_checkpoint(str(path), return_tensors=True, model_to_load=model)["tensors"]
    assert set(state) == set(weights), sorted(set(state) ^ set(weights))
    worst = max(float(np.abs(np.asarray(state[k], dtype=np.float32) - v).max())
                for k, v in weights.items())
    assert worst < 1e-6, worst
    return worst


def gemma3_cross_check(cfg, weights, folder, gguf_path, cases, goldens):
    """The goldens against tests/reference/gemma3_reference.py (another helper's NumPy float64
    forward, written separately): the folder's config.json + HF weights, and the GGUF through its
    own reader (load_gguf, llama.cpp's rules). Returns the largest |Δ| of attention and logits."""
    import gemma3_reference as g3
    hf_config = g3.config_from_hf(json.loads((folder / "config.json").read_text()))
    gguf_config, gguf_weights = g3.load_gguf(gguf_path, lazy_embedding=False)
    hf_weights = {k: v.astype(np.float64) for k, v in weights.items()}
    worst = 0.0
    for key, ids in cases:
        for prefix, (config, w) in (("", (hf_config, hf_weights)),
                                    ("gguf_", (gguf_config, gguf_weights))):
            out = g3.forward(w, config, ids)
            attn = np.stack(out.attentions)
            worst = max(worst, float(np.abs(attn - goldens[f"{key}.{prefix}attentions"]).max()))
            ours = reference_forward(cfg, weights, ids, config["query_pre_attn_scalar"])[1]
            worst = max(worst, float(np.abs(out.logits - ours.double().numpy()).max()))
    return worst


def top5(logits):
    probs = torch.softmax(logits.double(), -1)
    top = torch.topk(probs, 5)
    return top.indices.numpy().astype(np.int32), top.values.numpy().astype(np.float32)


def check_window(cfg, attn):
    """Every weight outside the causal band (and, on local layers, outside the window) is 0."""
    n = attn.shape[-1]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    for l in range(cfg["num_hidden_layers"]):
        hidden = (j > i) | ((i - j >= cfg["sliding_window"]) if is_local(cfg, l) else False)
        assert (attn[l][:, hidden] == 0).all(), f"layer {l}: a hidden weight is not 0"


# --- Goldens ------------------------------------------------------------------------------------

def make(cfg, name, tok, tokens, merges):
    weights = make_weights(cfg)
    folder = write_folder(cfg, weights, name)
    gguf_path = folder / f"{name}.gguf"
    write_gguf(cfg, weights, gguf_path, tokens, merges)
    gemma2 = cfg["model_type"] == "gemma2"
    hf = {s: hf_gemma2(cfg, weights, s) for s in (cfg["query_pre_attn_scalar"], cfg["head_dim"])} \
        if gemma2 else {}
    if gemma2:
        worst = check_gguf_layout(gguf_path, weights, hf[cfg["head_dim"]])
        print(f"{name}: transformers' GGUF reader gives the folder's weights back (max |Δ| = "
              f"{worst:.3g})")
    cases_in = GEMMA_CASES + [("paragraph_24", PARAGRAPH)]
    tensors, cases, worst_ref = {}, [], 0.0
    for index, (case, text) in enumerate(cases_in):
        ids = tok.encode(text).ids
        if case == "paragraph_24":
            ids = ids[:24]
        key = f"case{index:02d}"
        tensors[key + ".input_ids"] = np.array(ids, dtype=np.int32)
        for prefix, scalar in (("", cfg["query_pre_attn_scalar"]), ("gguf_", cfg["head_dim"])):
            attn, logits = reference_forward(cfg, weights, ids, scalar)
            if gemma2:
                hf_attn, hf_logits = hf_forward(hf[scalar], ids)
                worst_ref = max(worst_ref, float(np.abs(attn - hf_attn).max()),
                                float((logits - hf_logits).abs().max()))
                attn, logits = hf_attn, hf_logits  # the goldens are HF's own numbers
            check_window(cfg, attn)
            next_ids, next_probs = top5(logits)
            tensors[key + f".{prefix}attentions"] = attn
            tensors[key + f".{prefix}next_ids"] = next_ids
            tensors[key + f".{prefix}next_probs"] = next_probs
        cases.append({"name": case, "text": tok.decode(ids) if case == "paragraph_24" else text,
                      "tokens": tok.encode(text).tokens[:len(ids)]})
    if not gemma2:
        # The last case once more with rope_scaling {"rope_type": "linear", "factor": 8} (Gemma 3
        # 4B–27B's), which transformers ≥ 4.50 applies to the global layers only.
        last = f"case{len(cases) - 1:02d}"
        ids = [int(x) for x in tensors[last + ".input_ids"]]
        attn, logits = reference_forward(cfg, weights, ids, global_rope_factor=8.0)
        check_window(cfg, attn)
        tensors[last + ".linear8_attentions"] = attn
        tensors[last + ".linear8_next_ids"], tensors[last + ".linear8_next_probs"] = top5(logits)
    local = [l for l in range(cfg["num_hidden_layers"]) if is_local(cfg, l)]
    meta = {"model": name, "cases": json.dumps(cases), "versions": versions(),
            "local_layers": json.dumps(local),
            "reference": ("transformers Gemma2ForCausalLM (eager, float32)" if gemma2 else
                          "make_gemma_goldens.reference_forward (torch, float32), checked against "
                          "gemma3_reference.py")}
    if not gemma2:
        ids_of = [(f"case{i:02d}", [int(x) for x in tensors[f"case{i:02d}.input_ids"]])
                  for i in range(len(cases))]
        worst = gemma3_cross_check(cfg, weights, folder, gguf_path, ids_of, tensors)
        print(f"{name}: reference_forward vs gemma3_reference.py (folder and GGUF), max |Δ| = "
              f"{worst:.3g} (attention weights and logits)")
        assert worst < 1e-5, worst
        meta["reference_vs_gemma3_reference_max_abs"] = f"{worst:.3g}"
    if gemma2:
        print(f"{name}: reference_forward vs transformers Gemma2ForCausalLM, max |Δ| = "
              f"{worst_ref:.3g} (attention weights and logits)")
        assert worst_ref < 1e-5, worst_ref
        meta["reference_vs_hf_max_abs"] = f"{worst_ref:.3g}"
    out = GOLDENS / f"{name}.safetensors"
    save_file(tensors, str(out), metadata=meta)
    sort_metadata(out)
    for f in (folder / "model.safetensors", gguf_path, out):
        print(f"wrote {f.relative_to(ROOT)} ({f.stat().st_size} bytes)")


def main():
    torch.set_num_threads(2)
    spec = json.loads(TOKENIZER.read_text())
    vocab = spec["model"]["vocab"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    tokens = [None] * len(vocab)
    for t, i in vocab.items():
        tokens[i] = t
    assert len(tokens) == GEMMA2["vocab_size"] == GEMMA3["vocab_size"]
    tok = reference_tokenizer(vocab, merges, TINY_SPECIALS)
    make(GEMMA2, "tiny-gemma2", tok, tokens, merges)
    make(GEMMA3, "tiny-gemma3", tok, tokens, merges)


if __name__ == "__main__":
    main()
