#!/usr/bin/env bash
# Exports the figures a lecture on scaled dot-product attention needs, into a folder
# (default ./lecture-figures):
#   1-2  scaled vs unscaled at d_k = 8 and d_k = 512 (the unscaled 512 heads go one-hot),
#   3-4  encoder (no mask) vs decoder (causal mask),
#   5    a multi-head grid,
#   6    cross-attention of a translation pair,
#   7    the saturation plot with the sentence's own points.
# Uses attention-lab-cli from the build (scripts/build) or $ATTNLAB_CLI; prints each path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cli="${ATTNLAB_CLI:-$root/build/${ATTNLAB_PRESET:-release}/app/attention-lab-cli}"
if [ ! -x "$cli" ]; then
  "$root/scripts/build" >&2
fi
out="${1:-lecture-figures}"
mkdir -p "$out"
text="The cat sat on the mat because it was tired."
common=(--text "$text" --heads 4 --seed 1)

for dk in 8 512; do
  # 1a/1b: scaled, 2a/2b: unscaled (a = d_k 8, b = d_k 512), so a sorted listing reads in order.
  letter=$([ "$dk" = 8 ] && echo a || echo b)
  "$cli" render "${common[@]}" --d-k "$dk" --d-model 256 --head all \
    --out "$out/1$letter-scaled-dk$dk.png"
  "$cli" render "${common[@]}" --d-k "$dk" --d-model 256 --head all --no-scale \
    --out "$out/2$letter-unscaled-dk$dk.png"
done
"$cli" render "${common[@]}" --d-model 64 --head 0 --out "$out/3-encoder-no-mask.png"
"$cli" render "${common[@]}" --d-model 64 --head 0 --causal --out "$out/4-decoder-causal.png"
"$cli" render --text "$text" --heads 8 --d-model 64 --head all --out "$out/5-multi-head.png"
"$cli" render --source "The cat sat on the mat." --text "Le chat était assis sur le tapis." \
  --heads 4 --d-model 64 --head all --out "$out/6-cross-attention.png"
"$cli" saturation --text "$text" --heads 4 --d-model 64 --mark 512 --no-scale \
  --out "$out/7-saturation.png"
