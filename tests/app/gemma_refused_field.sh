#!/bin/sh
# gemma_refused_field.sh SRC_DIR OUT_DIR CLI: OUT_DIR is the tiny Gemma 3 folder SRC_DIR with
# config.json's "rope_scaling": null replaced by a longrope scaling, which the engine does not
# implement; the CLI must exit 2 with one line naming it (tests/app/exits_2.sh).
src="$1"; out="$2"; cli="$3"
rm -rf "$out" && mkdir -p "$out" || exit 1
cp "$src/model.safetensors" "$src/tokenizer.json" "$out/" || exit 1
sed 's/"rope_scaling": null/"rope_scaling": {"rope_type": "longrope", "factor": 8.0}/' \
  "$src/config.json" > "$out/config.json" || exit 1
grep -q longrope "$out/config.json" || { echo "FAIL: config.json not edited"; exit 1; }
exec sh "$(dirname "$0")/exits_2.sh" 'longrope' "$cli" compute --model "$out" --text "the cat"
