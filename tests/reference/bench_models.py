#!/usr/bin/env python3
"""Speed of Attention Lab's model forward pass beside HuggingFace transformers (and llama.cpp when
llama-cpp-python happens to be installed), on the same inputs, in the same run.

For each model (all-MiniLM-L6-v2, SmolLM2-135M-Instruct Q4_1 GGUF; Gemma 3 270M Q4_K_M GGUF
with --models gemma3, beside llama.cpp only, as transformers 4.49 has no Gemma 3) and each length
(32, 128, 512 tokens) it times, in alternating rounds so that both see the same machine load:
  - attention-lab-bench --model PATH --tokens N (one forward pass with every layer's and head's
    attention kept, the model view);
  - transformers: one forward pass with output_attentions=True (eager attention, float32,
    torch.set_num_threads(2)) on the same token ids;
  - llama.cpp (optional peer, never a dependency): prompt evaluation of the same ids with
    2 threads (llama-cpp-python's Llama.eval), the GGUF models only.
and prints a Markdown table with medians and the ratio HF / ours (> 1: we are faster).

    build/reference-venv/bin/python tests/reference/bench_models.py [--rounds 7]
        [--bench build/release/app/attention-lab-bench]

The inputs are the bench's own: "the cat sat on the mat because …" repeated until the model's
tokenizer gives N tokens (special tokens included); the C++ bench prints the ids it used, and
this script feeds the same ids to transformers.
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# This process holds torch's and llama.cpp's thread pools side by side: their OpenMP threads must
# sleep when idle, or they spin against each other (HuggingFace took 335 ms instead of 70 for
# SmolLM2 at 32 tokens). The bench is a process of its own, timed while this one sleeps: it runs
# with the OpenMP defaults, as a user runs it, unless the caller set OMP_WAIT_POLICY.
_USER_WAIT_POLICY = os.environ.get("OMP_WAIT_POLICY")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
import transformers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def fetch(name):
    return Path(subprocess.run([str(ROOT / "scripts/fetch-model"), name], check=True,
                               capture_output=True, text=True).stdout.strip())


def ours(bench, model, tokens, runs):
    """(median ms, ids) of attention-lab-bench --model MODEL --tokens N --runs R --json."""
    env = dict(os.environ)
    if _USER_WAIT_POLICY is None:
        env.pop("OMP_WAIT_POLICY")
    out = subprocess.run([str(bench), "--model", str(model), "--tokens", str(tokens), "--runs",
                          str(runs), "--json"], check=True, capture_output=True, text=True,
                         env=env).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result


@torch.no_grad()
def hf_time(model, ids, runs):
    x = torch.tensor([ids])
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        model(x, output_attentions=True)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


_LLAMA_CPP_TIMER = r"""
import json, statistics, sys, time
from llama_cpp import Llama
path, ids, runs = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
llm = Llama(model_path=path, n_threads=2, n_threads_batch=2, n_ctx=max(1024, len(ids) + 8),
            n_batch=512, verbose=False)
times = []
for _ in range(runs + 1):
    llm.reset()
    t0 = time.perf_counter()
    llm.eval(ids)
    times.append((time.perf_counter() - t0) * 1e3)
print(statistics.median(times[1:]))
"""


def llama_cpp_time(path, ids, runs):
    """Median ms of llama.cpp's prompt evaluation of ids, or None when llama-cpp-python is not
    installed. In a process of its own: its thread pool, kept in this process, spun against
    torch's and the bench's threads (our 512-token pass took 2.3 s instead of 0.4)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    out = subprocess.run([sys.executable, "-c", _LLAMA_CPP_TIMER, str(path), json.dumps(ids),
                          str(runs)], check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", type=Path, default=ROOT / "build/release/app/attention-lab-bench")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lengths", default="32,128,512")
    parser.add_argument("--models", default="minilm,smollm2",
                        help="comma-separated: minilm, smollm2, gemma3 (transformers 4.49 has no "
                             "Gemma 3: llama.cpp only)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    lengths = [int(x) for x in args.lengths.split(",")]
    chosen = args.models.split(",")

    from make_llama_goldens import load_gguf_model
    models = []
    if "minilm" in chosen:
        minilm_dir = fetch("minilm")
        t0 = time.perf_counter()
        hf_minilm = transformers.AutoModel.from_pretrained(minilm_dir,
                                                           attn_implementation="eager").eval()
        models.append(("all-MiniLM-L6-v2", minilm_dir, hf_minilm,
                       (time.perf_counter() - t0) * 1e3, "minilm"))
    if "smollm2" in chosen:
        smollm = fetch("smollm2")
        t0 = time.perf_counter()
        hf_smol = load_gguf_model(smollm)
        models.append(("SmolLM2-135M-Instruct Q4_1", smollm, hf_smol,
                       (time.perf_counter() - t0) * 1e3, "smollm2"))
    if "gemma3" in chosen:
        models.append(("Gemma 3 270M Q4_K_M", fetch("gemma3"), None, None, "gemma3"))

    rows = []
    for label, path, hf_model, hf_load, _ in models:
        for n in lengths:
            mine, theirs, peer = [], [], []
            info = None
            for r in range(args.rounds):
                runs = 3 if n >= 512 else 10
                info = ours(args.bench, path, n, runs)
                mine.append(info["forward_ms"])
                if hf_model is not None:
                    theirs.append(hf_time(hf_model, info["ids"], runs))
                if path.suffix == ".gguf":
                    t = llama_cpp_time(path, info["ids"], runs)
                    if t is not None:
                        peer.append(t)
            m = statistics.median(mine)
            h = statistics.median(theirs) if theirs else None
            p = statistics.median(peer) if peer else None
            rows.append((label, len(info["ids"]), m, h, h / m if h else None, p, info))
            print(f"{label} n={len(info['ids'])}: ours {m:.1f} ms"
                  + (f", HF {h:.1f} ms, ratio {h / m:.2f}" if h else "")
                  + (f", llama.cpp {p:.1f} ms ({p / m:.2f}× ours)" if p else ""), file=sys.stderr)

    print(f"\ntorch {torch.__version__}, transformers {transformers.__version__}, "
          f"{torch.get_num_threads()} threads; medians of {args.rounds} alternating rounds\n")
    print("| model | tokens | Attention Lab (ms) | HuggingFace (ms) | HF / ours | llama.cpp (ms) "
          "| llama.cpp / ours |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, n, m, h, ratio, p, _ in rows:
        print(f"| {label} | {n} | {m:.1f} | " + (f"{h:.1f} | {ratio:.2f}× | " if h else "— | — | ")
              + (f"{p:.0f} | {p / m:.2f}× |" if p else "not installed | |"))
    print()
    for label, path, _, hf_load, _ in models:
        info = next(r[6] for r in rows if r[0] == label)
        print(f"{label}: load {info['load_ms']:.0f} ms"
              + (f" (HF {hf_load:.0f} ms)" if hf_load is not None else "")
              + f", resident memory {info['rss_mb']:.0f} MB after the runs (peak "
              f"{info['peak_rss_mb']:.0f} MB)")


if __name__ == "__main__":
    main()
