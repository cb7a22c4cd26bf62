#!/bin/sh
# progress.sh CLI TINY_MODEL: the long CLI runs report progress on stderr (issue 50, item 8:
# decode --model ran 96 s with nothing said). ATTNLAB_PROGRESS=1 prints one line per report off a
# terminal; on a terminal the same words are rewritten in place from a second on.
set -u
cli="$1" model="$2"
fail=0
expect() {  # expect WORDS COMMAND...: stderr of COMMAND has a line "attention-lab-cli: WORDS"
  words="$1"; shift
  err=$(ATTNLAB_PROGRESS=1 QT_QPA_PLATFORM=offscreen "$@" 2>&1 >/dev/null) || { echo "FAIL: $* exited $?: $err"; fail=1; return; }
  printf '%s\n' "$err" | grep -q "^attention-lab-cli: $words" || { echo "FAIL: no '$words' from $*: $err"; fail=1; }
}
expect "scored token 7 of 12" "$cli" decode --model "$model" --text "the cat sat on the mat" --cache-window 2
expect "generated token 2 of 3" "$cli" generate --model "$model" --max-tokens 3
expect "layer 1 of " "$cli" compute --model "$model"
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
expect "lesson export: figure 1 of 4" "$cli" lesson export causal --out "$tmp/pack"
expect "sweep: frame 1 of 3" "$cli" sweep --param d-k --values 8,16,32 --out "$tmp/s.gif"
# (12: the 6 predicted tokens of 7, under the full cache and then the window.)
# Without the variable and off a terminal: nothing.
err=$(QT_QPA_PLATFORM=offscreen "$cli" generate --model "$model" --max-tokens 3 2>&1 >/dev/null)
[ -z "$err" ] || { echo "FAIL: progress off a terminal: $err"; fail=1; }
[ "$fail" -eq 0 ] && echo "progress reported"
exit "$fail"
