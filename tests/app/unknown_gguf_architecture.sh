#!/bin/sh
# unknown_gguf_architecture.sh SRC.gguf OUT.gguf CLI: OUT is SRC with its architecture renamed
# "qwen2" → "mamba" (same length, so every offset stays valid); the CLI must exit 2 with one line
# naming mamba and listing the supported architectures (tests/app/exits_2.sh).
src="$1"; out="$2"; cli="$3"
perl -pe 's/qwen2/mamba/g' < "$src" > "$out" || exit 1
exec sh "$(dirname "$0")/exits_2.sh" \
  'general.architecture "mamba" is not supported (supported: config.json model_type' \
  "$cli" compute --model "$out" --text "the cat"
