#!/usr/bin/env bash
# Makes the Python environment that tests/reference/make_goldens.py runs in: a venv at
# build/reference-venv on Debian's /usr/bin/python3 (3.11), seeing Debian's python3-torch 1.13
# (CPU only) and python3-numpy through --system-site-packages, plus pinned HuggingFace packages
# from PyPI. PyPI's torch is never installed (it would pull gigabytes of CUDA libraries).
#
#   tests/reference/setup-env.sh     # then: build/reference-venv/bin/python tests/reference/make_goldens.py
#
# transformers 4.49 is the newest release that still runs on torch 1.13 (4.50 imports
# torch.distributed.tensor, which 1.13 lacks). Safe to run repeatedly. Needs root or sudo only
# when a Debian package is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/build/reference-venv"
python=/usr/bin/python3
pins=(
  "transformers==4.49.0"
  "tokenizers==0.21.4"
  "safetensors==0.8.0"
  "huggingface-hub==0.36.2"
  "gguf==0.19.0"
  "accelerate==0.34.2"
)

packages=(python3-torch python3-numpy python3-venv python3-pip libopenblas0-pthread)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "setup-env: missing packages (${missing[*]}) and not root; run as root or install sudo" >&2
      exit 1
    fi
  fi
  echo "setup-env: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "setup-env: creating $venv" >&2
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv --system-site-packages "$venv"
fi

"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"

# Optional peer for tests/reference/bench_models.py, never a dependency: llama.cpp's Python
# bindings, compiled from source (about 10 minutes on 2 cores). Only with ATTNLAB_WITH_LLAMA_CPP=1.
# Built for this CPU but without AMX: on a virtual Intel Xeon that reports AMX (seen 5 Dec 2026,
# family 6 model 167) ggml's AMX matrix product died with SIGSEGV on the first prompt; the
# AVX-512 (VNNI) kernels are llama.cpp's fastest float path there. A build that has AMX is rebuilt.
if [ "${ATTNLAB_WITH_LLAMA_CPP:-}" = "1" ]; then
  reinstall=()
  if "$venv/bin/python" -c 'import llama_cpp, sys; sys.exit("AMX_INT8 = 1" not in llama_cpp.llama_print_system_info().decode())' 2>/dev/null; then
    reinstall=(--force-reinstall --no-deps --no-cache-dir)
  fi
  echo "setup-env: building llama-cpp-python 0.3.36 (optional peer)" >&2
  CFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" CXXFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" \
    CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${reinstall[@]}" \
    "llama-cpp-python==0.3.36"
fi

# Optional peer for tests/reference/bench_models.py --peer llama-bench, never a dependency:
# llama.cpp's own benchmark program, llama-bench (C++), built from the llama.cpp that
# llama-cpp-python 0.3.36's source distribution carries (vendor/llama.cpp) — llama.cpp measured
# the way it measures itself, without a Python binding's per-call overhead. One build per CPU
# path of ours, for the same instruction set: build/llama-bench/native (GGML_NATIVE=ON, what a
# user's build gets; the peer of the avx512 path on an AVX-512 machine), avx2 (AVX2 + FMA + F16C,
# as x86-64-v3) and baseline (SSE4.2, as x86-64-v2). AMX is off, as above. About 5 minutes each
# on 2 cores; a build that exists is kept. Only with ATTNLAB_WITH_LLAMA_BENCH=1.
if [ "${ATTNLAB_WITH_LLAMA_BENCH:-}" = "1" ]; then
  for p in cmake ninja-build build-essential; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      { echo "setup-env: llama-bench needs $p (scripts/setup installs it)" >&2; exit 1; }
  done
  src="$root/build/llama-cpp-src"
  if [ ! -f "$src/vendor/llama.cpp/CMakeLists.txt" ]; then
    echo "setup-env: fetching the llama-cpp-python 0.3.36 source distribution (llama.cpp inside)" >&2
    rm -rf "$src" "$src.tmp" && mkdir -p "$src.tmp"
    "$venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
      --no-binary :all: --dest "$src.tmp" "llama-cpp-python==0.3.36"
    tar -xzf "$src.tmp"/llama_cpp_python-0.3.36.tar.gz -C "$src.tmp"
    mv "$src.tmp/llama_cpp_python-0.3.36" "$src" && rm -rf "$src.tmp"
  fi
  no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  declare -A isa=(
    [native]="-DGGML_NATIVE=ON"
    [avx2]="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AVX_VNNI=OFF"
    [baseline]="-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF -DGGML_AVX512=OFF"
  )
  for name in native avx2 baseline; do
    out="$root/build/llama-bench/$name"
    [ -x "$out/bin/llama-bench" ] && continue
    echo "setup-env: building llama-bench ($name) into $out" >&2
    # shellcheck disable=SC2086
    cmake -S "$src/vendor/llama.cpp" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF \
      -DBUILD_SHARED_LIBS=OFF ${isa[$name]} -DCMAKE_C_FLAGS="$no_amx" -DCMAKE_CXX_FLAGS="$no_amx" \
      >/dev/null
    cmake --build "$out" --target llama-bench >/dev/null
  done
fi

# Torch must be Debian's: a PyPI torch in the venv would shadow it.
"$venv/bin/python" - <<'EOF'
import sys
import torch, transformers, tokenizers, safetensors, numpy
if not torch.__file__.startswith("/usr/lib/python3/dist-packages/"):
    sys.exit(f"setup-env: torch comes from {torch.__file__}, expected Debian's python3-torch")
print(f"setup-env: torch {torch.__version__}, transformers {transformers.__version__}, "
      f"tokenizers {tokenizers.__version__}, safetensors {safetensors.__version__}, "
      f"numpy {numpy.__version__}", file=sys.stderr)
EOF
