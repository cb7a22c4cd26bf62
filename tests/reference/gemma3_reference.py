#!/usr/bin/env python3
"""An independent Gemma 3 text-model forward pass in NumPy (float64), written from the Gemma 3
Technical Report (Gemma Team, 2025, arXiv:2503.19786, §2 "Model Architecture") and the Gemma 2
report it builds on (arXiv:2408.00118, §2), for checking Attention Lab's engine on Gemma 3 where
the pinned transformers (4.49) has no Gemma 3 text model. It copies no code from transformers or
llama.cpp.

What the forward pass computes, per token sequence ids [n] (0-based positions 0 … n−1):

    x = E[ids] · √d_model                                       embedding, scaled (Gemma 2 §2)
    for each layer l:
        a = RMSNorm_attn(x)
        q_i = RMSNorm_q(a · W_Q,i), k_g = RMSNorm_k(a · W_K,g)  per head, over d_k  (Gemma 3 §2)
        q_i, k_g = RoPE(q_i, θ_l), RoPE(k_g, θ_l)               rotate-half pairs (i, i + d_k/2)
        scores_i = q_i · k_g(i)ᵀ / √query_pre_attn_scalar       g(i) = i // (h / h_kv): GQA/MQA
        causal mask; local layers also mask keys j ≤ i − window (a window of `window` keys,
        the query's own included)
        attention weights p_i = softmax(scores_i)                                [h, n, n]
        x = x + RMSNorm_post_attn(concat_i(p_i · v_g(i)) · W_O)
        x = x + RMSNorm_post_ffw(W_down · (gelu_tanh(W_gate · m) ⊙ (W_up · m))),
            m = RMSNorm_pre_ffw(x)                              GeGLU, four norms per layer
    logits = RMSNorm_final(x) · Eᵀ                              tied embedding

RMSNorm(x) = x / √(mean(x²) + ε) · γ. HuggingFace checkpoints store w with γ = 1 + w; llama.cpp's
GGUF converter stores γ = 1 + w already (the file's norms average ≈ 2 and more). Layer l is local
(sliding window, RoPE base rope_local_base_freq = 10 000) unless (l + 1) is a multiple of
sliding_window_pattern (6: five local layers to one global one, Gemma 3 §2.1); global layers use
rope_theta (10⁶ for Gemma 3). Optional Gemma 2 soft-capping (attn_logit_softcapping,
final_logit_softcapping: c · tanh(s / c)) is applied when the config gives it.

The API (for this file's goldens and for other Gemma tests):

    config, weights = load_gguf(path)          # GGUF names, weights dequantised by gguf.quants
    config = config_from_hf(config_json_dict)  # HuggingFace config.json fields
    out = forward(weights, config, ids)        # weights: GGUF or HuggingFace names
    out.attentions  list of L arrays [h, n, n] (float64), out.logits [vocab] at the last position

The weights dict maps names to arrays; the embedding may be any object with .shape and NumPy
slicing (load_gguf gives one that dequantises rows on demand). HuggingFace names are recognised by
their "model." prefix; then every norm's γ is 1 + w (config["norm_offset"] = 1.0, set by
config_from_hf); GGUF names take the stored γ (norm_offset 0.0, set by load_gguf).

    build/reference-venv/bin/python tests/reference/gemma3_reference.py FILE.gguf [--text T]

prints the top-5 next tokens of the text (the file's own tokens are used through llama-cpp-python
when installed, else ids must be given with --ids).
"""

import argparse
import math
from dataclasses import dataclass

import numpy as np

# GGUF tensor name per layer ← HuggingFace name (Gemma3ForCausalLM / Gemma3TextModel).
_HF_LAYER = {
    "input_layernorm": "attn_norm",
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "self_attn.q_norm": "attn_q_norm",
    "self_attn.k_norm": "attn_k_norm",
    "post_attention_layernorm": "post_attention_norm",
    "pre_feedforward_layernorm": "ffn_norm",
    "post_feedforward_layernorm": "post_ffw_norm",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}


def gguf_name(hf_name):
    """The llama.cpp tensor name of a HuggingFace Gemma 3 tensor name ('model.' or
    'language_model.model.' prefix), or None for names the text model does not use."""
    name = hf_name
    for prefix in ("language_model.", "model.language_model.", "model."):
        if name.startswith(prefix):
            name = name[len(prefix):]
    if name.startswith("model."):
        name = name[len("model."):]
    if name == "embed_tokens.weight":
        return "token_embd.weight"
    if name == "norm.weight":
        return "output_norm.weight"
    if name == "lm_head.weight":
        return "output.weight"
    parts = name.split(".")
    if parts[0] == "layers" and len(parts) >= 4:
        inner = ".".join(parts[2:-1])
        if inner in _HF_LAYER:
            return f"blk.{parts[1]}.{_HF_LAYER[inner]}.{parts[-1]}"
    return None


def normalise_weights(weights):
    """The weights under GGUF names: HuggingFace names are renamed, GGUF names kept."""
    out = {}
    for name, value in weights.items():
        if name.startswith("blk.") or name in ("token_embd.weight", "output_norm.weight",
                                                "output.weight"):
            out[name] = value
        else:
            mapped = gguf_name(name)
            if mapped is not None:
                out[mapped] = value
    return out


def is_global(config, layer):
    """True when layer (0-based) attends to every earlier key (no sliding window)."""
    types = config.get("layer_types")
    if types:
        return types[layer] == "full_attention"
    pattern = config.get("sliding_window_pattern") or 0
    if not config.get("sliding_window") or pattern <= 0:
        return True
    return (layer + 1) % pattern == 0


def config_from_hf(hf):
    """The forward pass's config from a HuggingFace Gemma 3 config.json dict (its "text_config"
    when the dict is a multimodal Gemma3Config). Defaults are Gemma3TextConfig's."""
    hf = hf.get("text_config", hf)
    d = hf["hidden_size"]
    h = hf["num_attention_heads"]
    head_dim = hf.get("head_dim", d // h)
    return {
        "hidden_size": d,
        "num_hidden_layers": hf["num_hidden_layers"],
        "num_attention_heads": h,
        "num_key_value_heads": hf.get("num_key_value_heads", h),
        "head_dim": head_dim,
        "intermediate_size": hf["intermediate_size"],
        "rms_norm_eps": hf.get("rms_norm_eps", 1e-6),
        "rope_theta": hf.get("rope_theta", 1_000_000.0),
        "rope_local_base_freq": hf.get("rope_local_base_freq", 10_000.0),
        "rope_scaling": hf.get("rope_scaling"),
        "sliding_window": hf.get("sliding_window", 4096),
        "sliding_window_pattern": hf.get("sliding_window_pattern", 6),
        "layer_types": hf.get("layer_types"),
        "query_pre_attn_scalar": hf.get("query_pre_attn_scalar", head_dim),
        "attn_logit_softcapping": hf.get("attn_logit_softcapping"),
        "final_logit_softcapping": hf.get("final_logit_softcapping"),
        "norm_offset": 1.0,
    }


class DequantisedRows:
    """A quantised GGUF matrix [rows, cols] read row by row: indexing (ints, slices, index arrays)
    dequantises only the rows asked for, with gguf.quants.dequantize. Shape in NumPy order."""

    def __init__(self, tensor):
        from gguf.quants import dequantize
        self._dequantize = dequantize
        self._raw = tensor.data  # [rows, bytes per row] for block types, [rows, cols] for floats
        self._type = tensor.tensor_type
        self.shape = (int(tensor.shape[1]), int(tensor.shape[0]))

    def __getitem__(self, index):
        return self._dequantize(self._raw[index], self._type).astype(np.float64)


def load_gguf(path, lazy_embedding=True):
    """(config, weights) of a llama.cpp Gemma 3 GGUF (general.architecture = gemma3): weights
    under GGUF names as float64 arrays in PyTorch orientation ([out, in]), dequantised by
    gguf.quants; token_embd.weight as DequantisedRows when lazy_embedding. llama.cpp's fixed
    Gemma 3 values fill what the file does not say: local RoPE base 10 000, pattern 6,
    query_pre_attn_scalar = head_dim (llama.cpp's rule for every size but 27B)."""
    import gguf
    reader = gguf.GGUFReader(str(path))

    def field(key, default=None):
        f = reader.fields.get(key)
        return default if f is None else f.contents()

    arch = field("general.architecture")
    if arch != "gemma3":
        raise ValueError(f"{path}: general.architecture is {arch!r}, not 'gemma3'")
    d = int(field("gemma3.embedding_length"))
    h = int(field("gemma3.attention.head_count"))
    head_dim = int(field("gemma3.attention.key_length", d // h))
    layers = int(field("gemma3.block_count"))
    config = {
        "hidden_size": d,
        "num_hidden_layers": layers,
        "num_attention_heads": h,
        "num_key_value_heads": int(field("gemma3.attention.head_count_kv", h)),
        "head_dim": head_dim,
        "intermediate_size": int(field("gemma3.feed_forward_length")),
        "rms_norm_eps": float(field("gemma3.attention.layer_norm_rms_epsilon", 1e-6)),
        "rope_theta": float(field("gemma3.rope.freq_base", 1_000_000.0)),
        "rope_local_base_freq": 10_000.0,
        "rope_scaling": None,
        "sliding_window": int(field("gemma3.attention.sliding_window", 0)) or None,
        "sliding_window_pattern": 6,
        "layer_types": None,
        "query_pre_attn_scalar": head_dim,
        "attn_logit_softcapping": None,
        "final_logit_softcapping": None,
        "norm_offset": 0.0,
    }
    if field("gemma3.rope.scaling.type") not in (None, "none") or \
            field("gemma3.rope.scaling.factor") not in (None, 1.0):
        raise ValueError(f"{path}: RoPE scaling is not written in this reference")
    weights = {}
    for t in reader.tensors:
        if t.name == "token_embd.weight" and lazy_embedding:
            weights[t.name] = DequantisedRows(t)
            continue
        values = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float64)
        shape = [int(s) for s in reversed(t.shape)]  # GGUF lists ne0 (the row length) first
        weights[t.name] = values.reshape(shape)
    return config, weights


@dataclass
class Output:
    attentions: list  # L arrays [h, n, n], float64: every layer's attention weights
    logits: np.ndarray  # [vocab] float64: next-token logits at the last position
    hidden: np.ndarray  # [n, d_model] float64: the final norm's output


def rms_norm(x, gamma, eps):
    """x / √(mean(x²) + ε) · γ over the last axis; x [..., d], γ [d]."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gamma


def gelu_tanh(x):
    """GELU, tanh approximation (Hendrycks & Gimpel 2016, eq. 2's approximation)."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def rope(x, base):
    """Rotary position embedding (Su et al. 2021, RoFormer, eq. 34) in the rotate-half layout
    (pairs i and i + d/2, frequency base^(−2i/d)), positions 0 … n−1. x [heads, n, d]."""
    _, n, dim = x.shape
    inv = base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)  # [d/2]
    angle = np.arange(n, dtype=np.float64)[:, None] * inv[None, :]  # [n, d/2]
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = x[..., : dim // 2], x[..., dim // 2:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def forward(weights, config, ids, layers=None, project=None, round_qkv=None, gelu=None):
    """Runs the model on ids [n] (ints; include BOS yourself). weights: GGUF or HuggingFace
    names (see the module docstring); config: load_gguf's or config_from_hf's dict. layers: how
    many layers to run (default all; the logits then come from the last one run). Returns Output.
    project(x, name, W), round_qkv(t) and gelu(x) replace x · Wᵀ for the weight `name`, the
    identity on the rotated queries, keys and values, and gelu_tanh: hooks for emulating another
    implementation's
    arithmetic (make_gemma3_goldens.py emulates llama.cpp's); the defaults are exact float64.
    """
    w = normalise_weights(weights)
    d = config["hidden_size"]
    h = config["num_attention_heads"]
    h_kv = config["num_key_value_heads"]
    dk = config["head_dim"]
    eps = config["rms_norm_eps"]
    off = config.get("norm_offset", 0.0)
    if config.get("rope_scaling"):
        raise ValueError("rope_scaling is not written in this reference")
    if h % h_kv:
        raise ValueError(f"{h} query heads do not split into {h_kv} K/V groups")
    ids = np.asarray(ids, dtype=np.int64)
    n = len(ids)
    norm = lambda x, name: rms_norm(x, np.asarray(w[name], dtype=np.float64) + off, eps)
    mat = lambda name: np.asarray(w[name], dtype=np.float64)
    if project is None:
        project = lambda x, name, m: x @ m.T
    if round_qkv is None:
        round_qkv = lambda t: t
    lin = lambda x, name: project(x, name, mat(name))
    gelu = gelu or gelu_tanh

    embed = w["token_embd.weight"]
    x = np.asarray(embed[ids], dtype=np.float64).reshape(n, d) * math.sqrt(d)
    causal = np.tril(np.ones((n, n), dtype=bool))
    pos = np.arange(n)
    scale = config["query_pre_attn_scalar"] ** -0.5
    attentions = []
    count = config["num_hidden_layers"] if layers is None else layers
    for l in range(count):
        p = f"blk.{l}."
        local = not is_global(config, l)
        base = config["rope_local_base_freq"] if local else config["rope_theta"]
        a = norm(x, p + "attn_norm.weight")
        q = lin(a, p + "attn_q.weight").reshape(n, h, dk).transpose(1, 0, 2)
        k = lin(a, p + "attn_k.weight").reshape(n, h_kv, dk).transpose(1, 0, 2)
        v = round_qkv(lin(a, p + "attn_v.weight").reshape(n, h_kv, dk).transpose(1, 0, 2))
        q = round_qkv(rope(norm(q, p + "attn_q_norm.weight"), base))
        k = round_qkv(rope(norm(k, p + "attn_k_norm.weight"), base))
        group = np.arange(h) // (h // h_kv)
        scores = np.einsum("hid,hjd->hij", q, k[group]) * scale  # [h, n, n]
        cap = config.get("attn_logit_softcapping")
        if cap:
            scores = cap * np.tanh(scores / cap)
        allowed = causal.copy()
        if local and config.get("sliding_window"):
            allowed &= (pos[:, None] - pos[None, :]) < config["sliding_window"]
        scores = np.where(allowed[None], scores, -np.inf)
        scores -= scores.max(axis=-1, keepdims=True)
        e = np.exp(scores)
        probs = e / e.sum(axis=-1, keepdims=True)
        attentions.append(probs)
        ctx = np.einsum("hij,hjd->hid", probs, v[group]).transpose(1, 0, 2).reshape(n, h * dk)
        x = x + norm(lin(ctx, p + "attn_output.weight"), p + "post_attention_norm.weight")
        m = norm(x, p + "ffn_norm.weight")
        f = gelu(lin(m, p + "ffn_gate.weight")) * lin(m, p + "ffn_up.weight")
        x = x + norm(lin(f, p + "ffn_down.weight"), p + "post_ffw_norm.weight")
    final = norm(x, "output_norm.weight")
    head = w.get("output.weight", embed)
    last = final[-1]
    rows = head.shape[0]
    logits = np.empty(rows, dtype=np.float64)
    for start in range(0, rows, 16384):  # the 262 144-row embedding, a slice at a time
        stop = min(rows, start + 16384)
        logits[start:stop] = project(last[None], "token_embd.weight",
                                     np.asarray(head[start:stop], dtype=np.float64))[0]
    cap = config.get("final_logit_softcapping")
    if cap:
        logits = cap * np.tanh(logits / cap)
    return Output(attentions=attentions, logits=logits, hidden=final)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gguf")
    parser.add_argument("--text", default="The capital of France is")
    parser.add_argument("--ids", help="comma-separated token ids (BOS included)")
    args = parser.parse_args()
    config, weights = load_gguf(args.gguf)
    if args.ids:
        ids = [int(s) for s in args.ids.split(",")]
        llm = None
    else:
        from llama_cpp import Llama
        llm = Llama(model_path=args.gguf, n_ctx=64, verbose=False)
        ids = llm.tokenize(args.text.encode(), add_bos=True, special=True)
    out = forward(weights, config, ids)
    top = np.argsort(-out.logits)[:5]
    words = [llm.detokenize([int(i)]).decode(errors="replace") for i in top] if llm else []
    print("ids", ids)
    print("top-5", top.tolist(), np.round(out.logits[top], 4).tolist(), words)


if __name__ == "__main__":
    main()
