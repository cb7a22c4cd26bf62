#!/usr/bin/env python3
"""Speed of Attention Lab's model forward pass beside HuggingFace transformers and llama.cpp, on the
same inputs, in the same run.

--peer llama-bench (the default when tests/reference/setup-env.sh built it, with
ATTNLAB_WITH_LLAMA_BENCH=1): llama.cpp measured the way it measures itself, by its own C++
llama-bench — prompt processing (pp N: -p N -n 0) and generation (tg 32 after a prompt of N
tokens: -p 0 -n 32 -d N) — built for the instruction set of the CPU path measured
(build/llama-bench/native for avx512 or an unforced run, avx2, baseline), on the same GGUF file,
2 threads, in alternating rounds with ours: attention-lab-bench --model M --tokens N (every layer's
and head's attention kept) and --generate N (32 new tokens, every head's row kept). The models
may be the generated random-weight files of real shapes (make_bench_models.py: llama-3.2-1b:q8_0,
llama-3.1-8b:q4_k, qwen2.5-7b:q8_0, gemma-3-4b:q4_k …), which HuggingFace is not run on.

    build/reference-venv/bin/python tests/reference/bench_models.py --peer llama-bench \
        --models llama-3.2-1b:q8_0,gemma3 --lengths 128,512 [--generate-lengths 1,512]

--peer llama-cpp-python keeps the older comparison below through llama-cpp-python's Python
calls, whose per-call overhead exceeds a small model's step (it printed 3.4× for SmolLM2's
generation where llama-bench says 0.82×): not for generation figures.

For each model (all-MiniLM-L6-v2, SmolLM2-135M-Instruct Q4_1 GGUF by default; --models adds
qwen2-shaped — a random-weight GGUF with Qwen2.5-0.5B's shape written by make_bench_models.py —
and gemma3, Gemma 3 270M Q4_K_M, which transformers 4.49 cannot run) and each length (32, 128, 512
tokens) it times, in alternating rounds so that all see the same machine load:
  - attention-lab-bench --model PATH --tokens N (one forward pass with every layer's and head's
    attention kept, the model view);
  - transformers: one forward pass with output_attentions=True (eager attention, float32,
    torch.set_num_threads(2)) on the same token ids;
  - llama.cpp (optional peer, never a dependency): prompt evaluation of the same ids with
    2 threads (llama-cpp-python's Llama.eval), for the GGUF models.
and prints a Markdown table with medians and the ratio HF / ours (> 1: we are faster).

--generate: generation instead (SmolLM2 by default, prompts of --lengths 32,512 tokens): in
alternating rounds, attention-lab-bench --model M --generate N --json (32 new tokens through the
KV cache with every layer's and head's row kept) and llama.cpp's generation of the same tokens
after the same prompt (llama-cpp-python: eval of the prompt, then one eval per token, 2 threads),
tokens per second each.

    build/reference-venv/bin/python tests/reference/bench_models.py [--rounds 7]
        [--bench build/release/app/attention-lab-bench] [--hf-isa native|avx2|baseline]

With ATTNLAB_CPU_PATH=avx2 (or baseline) the bench runs that CPU path; --hf-isa avx2 (or
baseline) gives HuggingFace the kernels of the same instruction set, for a like-for-like ratio.

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


def bench_env():
    """The environment for attention-lab-bench: this process's, with OMP_WAIT_POLICY as the
    caller left it (PASSIVE made our 32-token MiniLM pass 10.5 ms instead of 7.5: each of its
    parallel regions then wakes sleeping threads)."""
    env = dict(os.environ)
    if _USER_WAIT_POLICY is None:
        env.pop("OMP_WAIT_POLICY", None)
    return env

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def fetch(name):
    return Path(subprocess.run([str(ROOT / "scripts/fetch-model"), name], check=True,
                               capture_output=True, text=True).stdout.strip())


def ours(bench, model, tokens, runs, int8=False):
    """(median ms, ids) of attention-lab-bench --model MODEL --tokens N --runs R --json
    [--int8-activations]."""
    out = subprocess.run([str(bench), "--model", str(model), "--tokens", str(tokens), "--runs",
                          str(runs), "--json"] + (["--int8-activations"] if int8 else []),
                         check=True, capture_output=True, text=True, env=bench_env()).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result


def hf_time(model, ids, runs):
    import torch
    x = torch.tensor([ids])
    times = []
    with torch.no_grad():
        for _ in range(runs):
            t0 = time.perf_counter()
            model(x, output_attentions=True)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def llama_bench_binary():
    """llama-bench built for the instruction set of the CPU path measured, or None."""
    name = {"avx2": "avx2", "baseline": "baseline"}.get(os.environ.get("ATTNLAB_CPU_PATH", ""), "native")
    path = ROOT / "build/llama-bench" / name / "bin/llama-bench"
    return path if path.exists() else None


def llama_bench(binary, model, prompt, gen, depth, reps):
    """llama-bench's own result (JSON) of one test: prompt processing of `prompt` tokens (gen 0)
    or `gen` generated tokens after `depth` tokens of context (prompt 0); 2 threads, with the
    OpenMP wait policy the caller left (this process's PASSIVE, set for torch, slowed
    llama-bench's SmolLM2 generation from about 170 to 58 tokens/s)."""
    out = subprocess.run([str(binary), "-m", str(model), "-p", str(prompt), "-n", str(gen),
                          "-d", str(depth), "-r", str(reps), "-t", "2", "-o", "json"],
                         check=True, capture_output=True, text=True, env=bench_env()).stdout
    return json.loads(out)[0]


def model_path(name):
    """A fetched model by name (minilm, smollm2, gemma3) or a generated one (SHAPE:TYPE, e.g.
    llama-3.1-8b:q4_k; make_bench_models.py writes it once)."""
    if name in ("minilm", "smollm2", "gemma3"):
        return fetch(name)
    out = subprocess.run([sys.executable, str(ROOT / "tests/reference/make_bench_models.py"), name],
                         check=True, capture_output=True, text=True).stdout
    return Path(out.strip().splitlines()[-1])


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def versus_llama_bench(args):
    """The --peer llama-bench tables: prompt processing and generation, ours beside llama-bench's
    on the same file, alternating rounds; medians of the rounds."""
    binary = llama_bench_binary()
    if binary is None:
        sys.exit("bench_models: no llama-bench for this CPU path under build/llama-bench (run "
                 "ATTNLAB_WITH_LLAMA_BENCH=1 tests/reference/setup-env.sh)")
    path_name = os.environ.get("ATTNLAB_CPU_PATH") or "best"
    lengths = [int(x) for x in args.lengths.split(",")] if args.lengths else []
    gen_lengths = [int(x) for x in args.generate_lengths.split(",")] if args.generate_lengths else []
    prompt_rows, gen_rows = [], []
    for name in args.models.split(","):
        path = model_path(name)
        for n in lengths:
            mine, mine8, theirs = [], [], []
            for _ in range(args.rounds):
                info = ours(args.bench, path, n, args.runs)
                mine.append(info["forward_ms"])
                if args.int8:
                    mine8.append(ours(args.bench, path, n, args.runs, int8=True)["forward_ms"])
                peer = llama_bench(binary, path, len(info["ids"]), 0, 0, args.runs)
                theirs.append(statistics.median(peer["samples_ns"]) / 1e6)
            m, p = statistics.median(mine), statistics.median(theirs)
            m8 = statistics.median(mine8) if mine8 else None
            prompt_rows.append((name, len(info["ids"]), m, p, info, m8))
            print(f"{name} pp{n}: ours {m:.0f} ms" + (f", int8 activations {m8:.0f} ms" if m8 else "")
                  + f", llama-bench {p:.0f} ms, {p / m:.2f}×", file=sys.stderr)
        def our_rate(n, int8):
            out = subprocess.run([str(args.bench), "--model", str(path), "--generate", str(n),
                                  "--new-tokens", "32", "--runs", str(args.runs), "--json"]
                                 + (["--int8-activations"] if int8 else []),
                                 check=True, capture_output=True, text=True, env=bench_env()).stdout
            return json.loads(out.strip().splitlines()[-1])["tokens_per_s"]

        for n in gen_lengths:
            mine, mine8, theirs = [], [], []
            for _ in range(args.rounds):
                mine.append(our_rate(n, False))
                if args.int8:
                    mine8.append(our_rate(n, True))
                peer = llama_bench(binary, path, 0, 32, 0 if n <= 1 else n, args.runs)
                theirs.append(32 / (statistics.median(peer["samples_ns"]) / 1e9))
            m, p = statistics.median(mine), statistics.median(theirs)
            m8 = statistics.median(mine8) if mine8 else None
            gen_rows.append((name, n, m, p, m8))
            print(f"{name} tg32 after {n}: ours {m:.1f} tokens/s"
                  + (f", int8 activations {m8:.1f}" if m8 else "")
                  + f", llama-bench {p:.1f}, {m / p:.2f}×", file=sys.stderr)
    print(f"\n{cpu_model()}, 2 threads; Attention Lab's CPU path {path_name}, llama-bench built "
          f"{binary.parent.parent.name}; medians of {args.rounds} alternating rounds of {args.runs} "
          f"runs; load average {os.getloadavg()[0]:.1f}\n")
    print("| model | prompt tokens | Attention Lab (ms, every head kept) | llama-bench pp (ms) "
          "| ours vs llama-bench | peak RSS ours (MB) |"
          + (" ours, int8 activations (ms) | int8 vs llama-bench |" if args.int8 else ""))
    print("|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.int8 else ""))
    for name, n, m, p, info, m8 in prompt_rows:
        print(f"| {name} | {n} | {m:.0f} | {p:.0f} | {p / m:.2f}× | {info['peak_rss_mb']:.0f} |"
              + (f" {m8:.0f} | {p / m8:.2f}× |" if m8 else ""))
    if gen_rows:
        int8 = args.int8
        print("\n| model | context before | Attention Lab (tokens/s, every head's row kept) "
              "| llama-bench tg32 (tokens/s) | ours vs llama-bench |"
              + (" ours, int8 activations (tokens/s) | int8 vs llama-bench |" if int8 else ""))
        print("|---|---:|---:|---:|---:|" + ("---:|---:|" if int8 else ""))
        for name, n, m, p, m8 in gen_rows:
            print(f"| {name} | {n} | {m:.1f} | {p:.1f} | {m / p:.2f}× |"
                  + (f" {m8:.1f} | {m8 / p:.2f}× |" if int8 else ""))


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


_LLAMA_CPP_GENERATE = r"""
import json, statistics, sys, time
from llama_cpp import Llama
path, prompt, new, runs = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
llm = Llama(model_path=path, n_threads=2, n_threads_batch=2, n_ctx=max(1024, len(prompt) + len(new) + 8),
            n_batch=512, verbose=False)
rates = []
for _ in range(runs + 1):
    llm.reset()
    llm.eval(prompt)
    t0 = time.perf_counter()
    for token in new:  # one token per eval: llama.cpp's decode step
        llm.eval([token])
    rates.append(len(new) / (time.perf_counter() - t0))
print(statistics.median(rates[1:]))
"""


def generate_rates(bench, path, lengths, rounds, runs=40):
    """Rows (prompt, ours tokens/s, llama.cpp tokens/s) of --generate, alternating rounds; ours
    the median of `runs` generations per round."""
    rows = []
    for n in lengths:
        mine, peer = [], []
        for _ in range(rounds):
            out = subprocess.run([str(bench), "--model", str(path), "--generate", str(n), "--runs", str(runs),
                                  "--json"], check=True, capture_output=True, text=True,
                                 env=bench_env()).stdout
            info = json.loads(out.strip().splitlines()[-1])
            mine.append(info["tokens_per_s"])
            ids = info["ids"]
            if importlib.util.find_spec("llama_cpp") is not None:
                out = subprocess.run([sys.executable, "-c", _LLAMA_CPP_GENERATE, str(path),
                                      json.dumps(ids[:n]), json.dumps(ids[n:-1]), "1"],
                                     check=True, capture_output=True, text=True).stdout
                peer.append(float(out.strip().splitlines()[-1]))
        m = statistics.median(mine)
        p = statistics.median(peer) if peer else None
        print(f"prompt {n}: ours {m:.1f} tokens/s" + (f", llama.cpp {p:.1f} tokens/s" if p else ""),
              file=sys.stderr)
        rows.append((n, m, p, info))
    return rows


def hf_gguf_model(path):
    """transformers' own GGUF loading for any architecture 4.49 reads from GGUF (llama, qwen2 …)."""
    from make_llama_goldens import load_gguf_model
    return load_gguf_model(path)


# --hf-isa: HuggingFace restricted to an instruction set, to measure a CPU path of ours against
# the same class of machine (an AVX2-only CPU runs OpenBLAS's Haswell kernels and ATen's avx2
# ones; an x86-64-v2 CPU, Nehalem's and ATen's default). Both read their variable at load, so
# the script starts again with them set.
HF_ISA = {
    "native": {},
    "avx2": {"OPENBLAS_CORETYPE": "Haswell", "ATEN_CPU_CAPABILITY": "avx2"},
    "baseline": {"OPENBLAS_CORETYPE": "Nehalem", "ATEN_CPU_CAPABILITY": "default"},
}


def restrict_hf(isa):
    wanted = HF_ISA[isa]
    if all(os.environ.get(k) == v for k, v in wanted.items()):
        return
    # The new process must see OMP_WAIT_POLICY as the caller left it, not the default set above:
    # until 5 Dec 2026 it took that PASSIVE for the caller's and gave it to our bench, whose
    # avx2 and baseline rows (the ones run with --hf-isa) were measured with sleeping threads.
    env = bench_env() | wanted
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def hf_isa_text():
    core = os.environ.get("OPENBLAS_CORETYPE") or "its own choice"
    aten = os.environ.get("ATEN_CPU_CAPABILITY") or "its own choice"
    return f"HuggingFace's OpenBLAS kernels: {core}, ATen CPU capability: {aten}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", type=Path, default=ROOT / "build/release/app/attention-lab-bench")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lengths", default="32,128,512")
    parser.add_argument("--models", default="minilm,smollm2",
                        help="comma-separated: minilm, smollm2, qwen2-shaped, gemma3")
    parser.add_argument("--generate", action="store_true",
                        help="generation tokens/s beside llama.cpp's (SmolLM2; --lengths 32,512)")
    parser.add_argument("--generate-runs", type=int, default=40,
                        help="--generate: generations per round of ours, median taken (default 40)")
    parser.add_argument("--hf-isa", choices=sorted(HF_ISA), default="native",
                        help="HuggingFace on the kernels of: native (its own choice), avx2 "
                             "(OpenBLAS Haswell, ATen avx2) or baseline (OpenBLAS Nehalem, ATen default)")
    parser.add_argument("--peer", choices=["llama-bench", "llama-cpp-python"],
                        default="llama-bench" if llama_bench_binary() else "llama-cpp-python",
                        help="llama.cpp as llama-bench (C++; default when built) or through "
                             "llama-cpp-python beside HuggingFace (the older tables)")
    parser.add_argument("--runs", type=int, default=3,
                        help="--peer llama-bench: runs per round of each side, median taken")
    parser.add_argument("--int8", action="store_true",
                        help="with --peer llama-bench: also our prompts and generation with int8 activations "
                             "(attention-lab-bench --int8-activations), llama.cpp's own arithmetic")
    parser.add_argument("--generate-lengths", default="1,512",
                        help="--peer llama-bench: prompt lengths before 32 generated tokens "
                             "(1: llama-bench's tg32 at depth 0); empty: none")
    args = parser.parse_args()
    if args.peer == "llama-bench":
        if args.models == "minilm,smollm2":
            args.models = "smollm2,gemma3,llama-3.2-1b:q8_0"
        if args.lengths == "32,128,512":
            args.lengths = "128,512"
        versus_llama_bench(args)
        return
    restrict_hf(args.hf_isa)
    import torch
    import transformers
    torch.set_num_threads(2)
    if args.generate:
        lengths = [int(x) for x in (args.lengths if args.lengths != "32,128,512" else "32,512").split(",")]
        rows = generate_rates(args.bench, fetch("smollm2"), lengths, args.rounds, args.generate_runs)
        path = os.environ.get("ATTNLAB_CPU_PATH") or "best"
        print(f"\nSmolLM2-135M-Instruct Q4_1, 32 new tokens, 2 threads, CPU path {path}; medians of "
              f"{args.rounds} alternating rounds; load average {os.getloadavg()[0]:.1f}\n")
        print("| prompt | Attention Lab (tokens/s, every head kept) | llama.cpp (tokens/s) | ours / llama.cpp |")
        print("|---:|---:|---:|---:|")
        for n, m, p, _ in rows:
            print(f"| {n} | {m:.1f} | " + (f"{p:.1f} | {m / p:.2f}× |" if p else "not run | — |"))
        return
    lengths = [int(x) for x in args.lengths.split(",")]

    # name: (label, path, HuggingFace loader or None where transformers 4.49 lacks the
    # architecture, llama.cpp peer?)
    def hf_bert(path):
        return transformers.AutoModel.from_pretrained(path, attn_implementation="eager").eval()

    def bench_model(name):
        return Path(subprocess.run([sys.executable, str(ROOT / "tests/reference/make_bench_models.py")],
                                   check=True, capture_output=True, text=True).stdout.strip())

    known = {
        "minilm": ("all-MiniLM-L6-v2", lambda: fetch("minilm"), hf_bert, False),
        "smollm2": ("SmolLM2-135M-Instruct Q4_1", lambda: fetch("smollm2"), hf_gguf_model, True),
        "qwen2-shaped": ("Qwen2-shaped 0.5B Q8_0 (random)", lambda: bench_model("qwen2-shaped"),
                         hf_gguf_model, True),
        "gemma3": ("Gemma 3 270M Q4_K_M", lambda: fetch("gemma3"), None, True),
    }
    chosen = args.models.split(",")
    for name in chosen:
        if name not in known:
            sys.exit(f"bench_models: unknown model {name} (known: {', '.join(known)})")
    models = []
    for name in chosen:
        label, path_of, loader, peer = known[name]
        path = path_of()
        hf_model, hf_load = None, None
        if loader is not None:
            t0 = time.perf_counter()
            hf_model = loader(path)
            hf_load = (time.perf_counter() - t0) * 1e3
        models.append((label, path, hf_model, hf_load, peer))

    rows = []
    for label, path, hf_model, hf_load, with_peer in models:
        for n in lengths:
            mine, theirs, peer = [], [], []
            info = None
            for r in range(args.rounds):
                runs = 3 if n >= 512 else 10
                info = ours(args.bench, path, n, runs)
                mine.append(info["forward_ms"])
                if hf_model is not None:
                    theirs.append(hf_time(hf_model, info["ids"], runs))
                if with_peer:
                    t = llama_cpp_time(path, info["ids"], runs)
                    if t is not None:
                        peer.append(t)
            m = statistics.median(mine)
            h = statistics.median(theirs) if theirs else None
            p = statistics.median(peer) if peer else None
            rows.append((label, len(info["ids"]), m, h, h / m if h else None, p, info))
            print(f"{label} n={len(info['ids'])}: ours {m:.1f} ms"
                  + (f", HF {h:.1f} ms, ratio {h / m:.2f}" if h else ", HF n/a")
                  + (f", llama.cpp {p:.1f} ms (llama.cpp / ours {p / m:.2f})" if p else ""),
                  file=sys.stderr)

    path = os.environ.get("ATTNLAB_CPU_PATH") or "best"
    print(f"\ntorch {torch.__version__}, transformers {transformers.__version__}, "
          f"{torch.get_num_threads()} threads; medians of {args.rounds} alternating rounds; "
          f"Attention Lab's CPU path: {path}, OMP_WAIT_POLICY {_USER_WAIT_POLICY or 'unset'}; "
          f"{hf_isa_text()}; "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| model | tokens | Attention Lab (ms) | HuggingFace (ms) | HF / ours | llama.cpp (ms) "
          "| llama.cpp / ours |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, n, m, h, ratio, p, _ in rows:
        hf = f"{h:.1f} | {ratio:.2f}×" if h else "n/a (not in transformers 4.49) | —"
        peer = f"{p:.0f} | {p / m:.2f}×" if p else "not run | —"
        print(f"| {label} | {n} | {m:.1f} | {hf} | {peer} |")
    print()
    for label, path, _, hf_load, _ in models:
        info = next(r[6] for r in rows if r[0] == label)
        hf = f"HF {hf_load:.0f} ms" if hf_load else "no HF"
        print(f"{label}: load {info['load_ms']:.0f} ms ({hf}), resident memory "
              f"{info['rss_mb']:.0f} MB after the runs (peak {info['peak_rss_mb']:.0f} MB)")


if __name__ == "__main__":
    main()
