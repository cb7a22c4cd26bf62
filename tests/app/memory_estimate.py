#!/usr/bin/env python3
"""The memory a run says before it starts is the memory it takes (issue 47): for three real models
of three shapes and storage kinds — SmolLM2-135M (GGUF Q4_1, mapped), Gemma 3 270M (GGUF Q4_K_M,
mapped; a 262 144-token vocabulary) and all-MiniLM-L6-v2 (BERT, its weights copied at load) —
attention-lab-cli render of every layer at about 512 tokens with ATTNLAB_MEMORY_REPORT=1 prints
the estimate ("about X at the peak": the process before the run + weights + activations + kept
attention); the child's peak resident set (wait4's ru_maxrss) must be within 10 % of it.

    memory_estimate.py CLI OUT_DIR

The models come from ATTNLAB_SMOLLM2_GGUF, ATTNLAB_GEMMA3_GGUF and ATTNLAB_MINILM_DIR
(scripts/test sets them); a model that is not there is reported as skipped (the marker CTest
reads), never as passed.
"""

import os
import re
import subprocess
import sys

SKIP = "ATTNLAB_TEST_SKIPPED"
TEXT = "The cat sat on the mat because it was tired. " * 46
UNITS = {"bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}


def estimate(stderr):
    m = re.search(r"about ([0-9.]+) (bytes|kB|MB|GB) at the peak", stderr)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def main():
    cli, out_dir = sys.argv[1], sys.argv[2]
    models = [("SmolLM2-135M Q4_1", os.environ.get("ATTNLAB_SMOLLM2_GGUF")),
              ("Gemma 3 270M Q4_K_M", os.environ.get("ATTNLAB_GEMMA3_GGUF")),
              ("all-MiniLM-L6-v2", os.environ.get("ATTNLAB_MINILM_DIR"))]
    missing = [name for name, path in models if not path or not os.path.exists(path)]
    if missing:
        print(f"{SKIP}: not fetched: {', '.join(missing)} (scripts/fetch-model; scripts/test sets "
              "ATTNLAB_SMOLLM2_GGUF, ATTNLAB_GEMMA3_GGUF, ATTNLAB_MINILM_DIR)")
        return 0
    env = dict(os.environ, ATTNLAB_MEMORY_REPORT="1", QT_QPA_PLATFORM="offscreen")
    failed = False
    for name, path in models:
        png = os.path.join(out_dir, "memory_estimate.png")
        child = subprocess.Popen([cli, "render", "--model", path, "--text", TEXT, "--backend", "cpu",
                                  "--out", png], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True, env=env)
        err = child.stderr.read()  # a few lines: read before the child is reaped by wait4
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        peak = usage.ru_maxrss * 1024  # kilobytes on Linux
        said = estimate(err)
        if child.returncode != 0 or said is None:
            print(f"FAIL: {name}: exit {child.returncode}, no estimate or a failed run: {err.strip()}")
            failed = True
            continue
        off = (said - peak) / peak
        print(f"{name}: estimate {said / 1e6:.0f} MB, measured peak {peak / 1e6:.0f} MB "
              f"({off:+.1%})")
        if abs(off) > 0.10:
            print(f"FAIL: {name}: the estimate is {off:+.1%} from the measured peak (at most ±10 %)")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
