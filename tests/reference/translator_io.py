"""Writes the trained translators' files (scripts/train-translators): the model folders (safetensors
written here, no safetensors package needed), the goldens and the test set. Layouts: docs/models.md
"Trained translators"."""

import json
import struct
from pathlib import Path

import torch

from translator_models import BOS, EOS

# (source, forced target or None): English and Chinese forms, Arabic and 〇一二 numerals, the
# shortest and the longest source, and one teacher-forced wrong target.
GOLDEN_CASES = [
    ("March 3rd, 2021", None),
    ("2021年3月3日", None),
    ("二〇二一年三月三日", None),
    ("3.3.2021", None),
    ("30th of September 2021", None),
    ("Wednesday, 3 Mar 21", "1999-12-31"),
]


def write_safetensors(path, tensors, dtype, metadata):
    """tensors: name -> float tensor, written in name order as F32 or F16 (little-endian)."""
    torch_dtype = {"F32": torch.float32, "F16": torch.float16}[dtype]
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        data = tensors[name].detach().to(torch_dtype).contiguous().numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path):
    """name -> float32 tensor (F32 or F16 files, as write_safetensors makes them)."""
    raw = Path(path).read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8: 8 + size])
    header.pop("__metadata__", None)
    dtypes = {"F32": torch.float32, "F16": torch.float16}
    out = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        data = bytearray(raw[8 + size + b: 8 + size + e])
        t = torch.frombuffer(data, dtype=dtypes[info["dtype"]]) if e > b else torch.zeros(0)
        out[name] = t.reshape(info["shape"]).float()
    return out


def dump_lines(obj):
    """JSON with one top-level key per line (lists stay on their line)."""
    items = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in obj.items()]
    return "{\n" + ",\n".join(items) + "\n}\n"


def write_folder(folder, config, vocab, model, training, dtype):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
    (folder / "vocab.json").write_text(
        dump_lines({"source": vocab.source, "target": vocab.target}), encoding="utf-8")
    write_safetensors(folder / "model.safetensors", dict(model.state_dict()), dtype,
                      {"format": "pt", "model": training["model"]})
    (folder / "training.json").write_text(dump_lines(training), encoding="utf-8")


def folder_bytes(folder):
    return sum(p.stat().st_size for p in Path(folder).iterdir())


def _attention(value):
    """Nested lists of weights rounded to 1e-8 (absolute), well inside the tests' 1e-5."""
    if isinstance(value, list):
        return [_attention(v) for v in value]
    return round(value, 8)


def _logits(value):
    if isinstance(value, list):
        return [_logits(v) for v in value]
    return float(f"{value:.7g}")


def golden_case(model, vocab, source, forced, max_target_length):
    """One golden case: a greedy (or forced) run of `source` alone, then its teacher-forced pass."""
    model.eval()
    src = torch.tensor([vocab.source_ids(source)])
    with torch.no_grad():
        if forced is None:
            tokens = model(src, max_len=max_target_length)[2][0].tolist()
            if EOS in tokens:
                tokens = tokens[: tokens.index(EOS) + 1]
        else:
            tokens = vocab.target_ids(forced)
        dec_in = torch.tensor([[BOS] + tokens[:-1]])
        logits, attn, _ = model(src, dec_in)
    case = {"source": source, "forced": forced is not None, "target": vocab.text(tokens),
            "source_ids": src[0].tolist(), "decoder_inputs": dec_in[0].tolist(),
            "target_ids": tokens, "logits": _logits(logits[0].tolist())}
    if isinstance(attn, dict):
        case["attention"] = {k: _attention([layer[0].tolist() for layer in v])
                             for k, v in attn.items()}
    else:
        case["attention"] = {"additive": _attention(attn[0].tolist())}
    return case


def write_goldens(path, name, model, vocab, max_source_length, max_target_length):
    longest = max(len(s) for s, _ in GOLDEN_CASES)
    assert longest == max_source_length, (longest, max_source_length)
    cases = [golden_case(model, vocab, s, t, max_target_length) for s, t in GOLDEN_CASES]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = ",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases)
    path.write_text(f'{{"model": {json.dumps(name)},\n"cases": [\n{body}\n]}}\n', encoding="utf-8")
    size = path.stat().st_size
    assert size < 300_000, f"{path}: {size} bytes, over the goldens' 300 KB"


def write_test_set(path, test, outputs, generator_seed, count):
    """The held-out examples, one per line, with every model's greedy output (outputs of models
    not trained this run are kept from the existing file)."""
    path = Path(path)
    old = {}
    if path.exists():
        committed = json.loads(path.read_text(encoding="utf-8"))
        if [e["source"] for e in committed["examples"]] == [e["source"] for e in test]:
            old = {i: e.get("outputs", {}) for i, e in enumerate(committed["examples"])}
    lines = []
    for i, e in enumerate(test):
        outs = dict(old.get(i, {}))
        outs.update({name: o[i] for name, o in outputs.items()})
        lines.append(json.dumps(dict(e, outputs=dict(sorted(outs.items()))), ensure_ascii=False,
                                separators=(",", ":")))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'{{"generator_seed": {generator_seed}, "count": {count},\n"examples": [\n'
                    + ",\n".join(lines) + "\n]}\n", encoding="utf-8")
