#!/usr/bin/env python3
"""Reference numbers for the interventions (engine/include/attnlab/interventions.hpp).

Writes tests/data/goldens/interventions.safetensors:

1. all-MiniLM-L6-v2 with HuggingFace's own head_mask (0 for the heads ablated: the attention
   probabilities of those heads multiplied by 0, so their outputs before W_O are 0 — the engine's
   zero ablation): every layer's attention [L, h, n, n] (minilm.attentions), the ids
   (minilm.input_ids) and the heads (metadata "minilm_heads").
2. SmolLM2-135M-Instruct from its Q4_1 GGUF, loaded by transformers 4.49 as make_llama_goldens.py
   loads it (eager attention, float32), with forward hooks written here:
   - ablation (zero / mean / uniform) of the heads in metadata "smollm_heads": a forward pre-hook
     on each layer's o_proj replaces the head's 64 input columns (zero; their mean over the
     positions; the mean of the head's values v_j = v_proj(x)_j over the keys j ≤ i it may see,
     the values taken by a forward hook on v_proj of the same layer). Saved per mode: the
     last position's top-5 ids and probabilities (smollm.MODE.next_ids / next_probs), the loss of
     every next token in nats (smollm.MODE.loss [n − 1]) and the attention of layers 21 and 29
     (smollm.MODE.attn [2, h, n, n]); "none" is the run without ablation.
   - the logit lens: each decoder layer's output through model.norm and lm_head; per layer and
     position the top id and probability and the rank and probability of the final layer's top
     token (smollm.lens.top_ids, top_probs, final_rank, final_probs [L, n]).
   - direct logit attribution of target − versus at the last position (target: the model's top
     token, versus: its second), in float64 from the float32 activations the hooks saw: each
     head's o_proj input columns times its o_proj weight slice, the embedding, each MLP's output
     (the decoder layer's output minus its input minus its attention output), all through the
     final RMSNorm with its scale frozen at the final residual stream's and onto
     lm_head[target] − lm_head[versus] (smollm.dla.heads [L, h], mlp [L], embedding, logit).

Run: build/reference-venv/bin/python tests/reference/make_intervention_goldens.py (about 1 min).
"""

import json
import sys
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import save_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_goldens import GOLDEN_DIR, fetch_minilm, sort_metadata, versions  # noqa: E402
from make_llama_goldens import fetch_smollm, load_gguf_model, smollm_reference_tokenizer  # noqa: E402

MINILM_TEXT = "The cat sat on the mat because it was tired."
MINILM_HEADS = [(1, 3), (2, 0), (4, 5)]
SMOLLM_TEXT = "The capital of France is Paris. The capital of Germany is"
SMOLLM_HEADS = [(3, 2), (10, 5), (20, 0)]
KEPT_LAYERS = [21, 29]


def minilm(tensors, meta):
    from transformers import AutoModel, AutoTokenizer
    folder = fetch_minilm()
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    tok = AutoTokenizer.from_pretrained(folder)
    ids = tok(MINILM_TEXT)["input_ids"]
    cfg = model.config
    mask = torch.ones(cfg.num_hidden_layers, cfg.num_attention_heads)
    for layer, head in MINILM_HEADS:
        mask[layer, head] = 0
    with torch.no_grad():
        out = model(torch.tensor([ids]), head_mask=mask, output_attentions=True)
    tensors["minilm.input_ids"] = np.array(ids, dtype=np.int32)
    tensors["minilm.attentions"] = torch.stack([a[0] for a in out.attentions]).numpy().astype(np.float32)
    meta["minilm_heads"] = json.dumps(MINILM_HEADS)
    meta["minilm_text"] = MINILM_TEXT


class Hooks:
    """Forward hooks on every layer: v_proj's output (the values), o_proj's input (the heads'
    outputs, changed by the ablation) and each decoder layer's output (the residual stream)."""

    def __init__(self, model, heads, mode):
        self.heads, self.mode = heads, mode
        self.values, self.context, self.residual = {}, {}, {}
        self.d = model.config.hidden_size // model.config.num_attention_heads
        self.group = model.config.num_attention_heads // model.config.num_key_value_heads
        self.handles = []
        for l, layer in enumerate(model.model.layers):
            attn = layer.self_attn
            self.handles.append(attn.v_proj.register_forward_hook(self.keep_values(l)))
            self.handles.append(attn.o_proj.register_forward_pre_hook(self.change_context(l)))
            self.handles.append(layer.register_forward_hook(self.keep_residual(l)))

    def keep_values(self, l):
        def hook(_module, _inputs, output):
            self.values[l] = output[0].detach().clone()
        return hook

    def change_context(self, l):
        def hook(_module, inputs):
            x = inputs[0].clone()  # [1, n, h·d]
            d = self.d
            for layer, head in self.heads:
                if layer != l or self.mode == "none":
                    continue
                cols = slice(head * d, (head + 1) * d)
                if self.mode == "zero":
                    x[0, :, cols] = 0
                elif self.mode == "mean":
                    x[0, :, cols] = x[0, :, cols].mean(dim=0, keepdim=True)
                elif self.mode == "uniform":
                    g = head // self.group
                    v = self.values[l][:, g * d:(g + 1) * d]  # [n, d]
                    n = v.shape[0]
                    counts = torch.arange(1, n + 1, dtype=torch.float32).unsqueeze(1)
                    x[0, :, cols] = torch.cumsum(v, dim=0) / counts  # keys j ≤ i, uniformly
            self.context[l] = x[0].detach().clone()
            return (x,)
        return hook

    def keep_residual(self, l):
        def hook(_module, _inputs, output):
            out = output[0] if isinstance(output, tuple) else output
            self.residual[l] = out[0].detach().clone()
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()


def smollm(tensors, meta):
    path = fetch_smollm()
    model = load_gguf_model(path)
    ids = smollm_reference_tokenizer(path).encode(SMOLLM_TEXT).ids
    cfg = model.config
    layers, heads = cfg.num_hidden_layers, cfg.num_attention_heads
    x_ids = torch.tensor([ids])
    tensors["smollm.input_ids"] = np.array(ids, dtype=np.int32)
    meta["smollm_heads"] = json.dumps(SMOLLM_HEADS)
    meta["smollm_text"] = SMOLLM_TEXT
    meta["kept_layers"] = json.dumps(KEPT_LAYERS)
    clean = None
    for mode in ["none", "zero", "mean", "uniform"]:
        hooks = Hooks(model, SMOLLM_HEADS, mode)
        with torch.no_grad():
            out = model(x_ids, output_attentions=True, output_hidden_states=True)
        hooks.remove()
        logits = out.logits[0].double()
        probs = torch.softmax(logits[-1], -1)
        top = torch.topk(probs, 5)
        loss = torch.nn.functional.cross_entropy(logits[:-1], x_ids[0, 1:], reduction="none")
        tensors[f"smollm.{mode}.next_ids"] = top.indices.numpy().astype(np.int32)
        tensors[f"smollm.{mode}.next_probs"] = top.values.numpy().astype(np.float32)
        tensors[f"smollm.{mode}.loss"] = loss.numpy().astype(np.float32)
        tensors[f"smollm.{mode}.attn"] = np.ascontiguousarray(
            torch.stack([out.attentions[l][0] for l in KEPT_LAYERS]).numpy().astype(np.float32))
        print(f"{mode}: next {top.indices.tolist()} {np.round(top.values.numpy(), 4).tolist()}, "
              f"mean loss {loss.mean().item():.4f}")
        if mode == "none":
            clean = (hooks, out)
    hooks, out = clean
    eps = cfg.rms_norm_eps
    gain = model.model.norm.weight.detach().double()
    unembed = model.lm_head.weight.detach().double()
    # The logit lens: each layer's output through the final norm and lm_head.
    n = len(ids)
    final = out.logits[0].double().argmax(-1)
    top_ids = np.zeros((layers, n), np.int32)
    top_probs = np.zeros((layers, n), np.float32)
    final_rank = np.zeros((layers, n), np.int32)
    final_probs = np.zeros((layers, n), np.float32)
    with torch.no_grad():
        for l in range(layers):
            z = model.lm_head(model.model.norm(hooks.residual[l].unsqueeze(0)))[0].double()
            p = torch.softmax(z, -1)
            top_ids[l] = p.argmax(-1).numpy()
            top_probs[l] = p.max(-1).values.numpy()
            zf = z.gather(1, final.unsqueeze(1))
            final_rank[l] = (z > zf).sum(-1).numpy()
            final_probs[l] = p.gather(1, final.unsqueeze(1))[:, 0].numpy()
    tensors["smollm.lens.top_ids"] = top_ids
    tensors["smollm.lens.top_probs"] = top_probs
    tensors["smollm.lens.final_rank"] = final_rank
    tensors["smollm.lens.final_probs"] = final_probs
    # Direct logit attribution at the last position, float64.
    last_logits = out.logits[0, -1].double()
    order = torch.argsort(last_logits, descending=True)
    target, versus = int(order[0]), int(order[1])
    direction = unembed[target] - unembed[versus]
    resid = [out.hidden_states[0][0, -1].double()] + [hooks.residual[l][-1].double()
                                                       for l in range(layers)]
    scale = gain / torch.sqrt((resid[-1] ** 2).mean() + eps)
    project = lambda part: float((part * scale * direction).sum())
    d = cfg.hidden_size // heads
    dla_heads = np.zeros((layers, heads), np.float64)
    mlp = np.zeros(layers, np.float64)
    for l in range(layers):
        w_o = model.model.layers[l].self_attn.o_proj.weight.detach().double()  # [d_model, h·d]
        ctx = hooks.context[l][-1].double()
        attn_total = torch.zeros(cfg.hidden_size, dtype=torch.float64)
        for h in range(heads):
            part = w_o[:, h * d:(h + 1) * d] @ ctx[h * d:(h + 1) * d]
            dla_heads[l, h] = project(part)
            attn_total += part
        mlp[l] = project(resid[l + 1] - resid[l] - attn_total)
    embedding = project(resid[0])
    logit = project(resid[-1])
    total = embedding + dla_heads.sum() + mlp.sum()
    print(f"DLA {target} − {versus}: parts sum {total:.6f}, logit {logit:.6f}, model's "
          f"{float(last_logits[target] - last_logits[versus]):.6f}")
    tensors["smollm.dla.target_versus"] = np.array([target, versus], np.int32)
    tensors["smollm.dla.heads"] = dla_heads.astype(np.float32)
    tensors["smollm.dla.mlp"] = mlp.astype(np.float32)
    tensors["smollm.dla.embedding_logit"] = np.array([embedding, logit], np.float32)


def main():
    torch.set_num_threads(2)
    tensors, meta = {}, {"versions": json.dumps(versions())}
    minilm(tensors, meta)
    smollm(tensors, meta)
    out = GOLDEN_DIR / "interventions.safetensors"
    save_file(tensors, str(out), metadata=meta)
    sort_metadata(out)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
