#!/bin/sh
# same_message.sh CLI WINDOW MODEL_DIR [LLAMA_DIR]: every input attention-lab-cli refuses with
# exit 2, the window's --screenshot refuses with exit 2 and the same line (after the program
# name) — the inputs issue 10 found accepted by the window, and more; with LLAMA_DIR (the tiny
# Llama fixture) also broken GGUF files and a text longer than the model's context.
cli="$1"
window="$2"
model="$3"
llama="$4"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0
check() {
  cli_err=$("$cli" render --out "$out/x.png" "$@" 2>&1 >/dev/null)
  cli_rc=$?
  win_err=$("$window" --screenshot "$out/w.png" "$@" 2>&1 >/dev/null)
  win_rc=$?
  cli_line=${cli_err#attention-lab-cli: }
  win_line=${win_err#attention-lab: }
  if [ "$cli_rc" -ne 2 ] || [ "$win_rc" -ne 2 ] || [ "$cli_line" != "$win_line" ]; then
    printf 'FAIL %s\n  cli    (%s): %s\n  window (%s): %s\n' "$*" "$cli_rc" "$cli_err" "$win_rc" "$win_err"
    failures=$((failures + 1))
  else
    printf 'ok   %s → %s\n' "$*" "$cli_line"
  fi
}
check --text "$(printf 'caf\303')"
check --text "$(printf '\377')"
check --text ""
check --text "   "
check --heads 3 --d-model 64
check --d-k 2048
check --mechanism cosine
check --causal --source "the source"
check --temperature 0
check --backend cuda
check --layer 1
check --model "$model" --layer -1
check --model "$model" --layer 7
check --model "$model" --heads 2
check --model /nonexistent/model
check --head 9
check --diff "--text other words"
check --diff "--head 9"
check --diff "--bogus"
check --rollout
check --model "$model" --rollout --head 1 --layer 0
check --color-scale rainbow
# Issue 12's variants: the same refusals in the same words.
check --kv-heads 3
check --window 0
check --window 3 --source "the source"
check --pad-to 20 --source "the source"
check --positions rope --heads 2 --d-model 10
check --global 12
check --pad-to 5
check --positions learned
check --stride 2
check --model "$model" --window 4
if [ -n "$llama" ]; then
  head -c 1000 "$llama/tiny-llama.gguf" > "$out/cut.gguf"
  { printf 'GGML'; tail -c +5 "$llama/tiny-llama.gguf"; } > "$out/magic.gguf"
  check --model "$out/cut.gguf"
  check --model "$out/magic.gguf"
  check --model "$llama/tiny-llama.gguf" --text "$(printf 'cat %.0s' $(seq 80))"
  check --model "$llama" --layer 2
fi
# --lang is the window's own: fr is refused there with exit 2 too.
win_err=$("$window" --lang fr --screenshot "$out/w.png" 2>&1 >/dev/null)
win_rc=$?
if [ "$win_rc" -ne 2 ] || [ "$win_err" != "attention-lab: --lang must be en or zh_CN (got 'fr')" ]; then
  printf 'FAIL --lang fr (%s): %s\n' "$win_rc" "$win_err"
  failures=$((failures + 1))
else
  printf 'ok   --lang fr → %s\n' "${win_err#attention-lab: }"
fi
[ "$failures" -eq 0 ]
