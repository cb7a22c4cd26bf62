#!/bin/sh
# leading_bom.sh CLI MODEL IDS LONE_IDS: the issue-22 command as a user types it — a leading
# U+FEFF from the real command line (printf '\357\273\277start') — gives HuggingFace tokenizers'
# input ids IDS (comma-separated), and a lone U+FEFF gives LONE_IDS (not "the text is empty").
cli="$1" model="$2"
ids=$("$cli" compute --model "$model" --layer 0 --backend cpu --text "$(printf '\357\273\277start')" |
      grep -o '"input_ids":\[[^]]*\]')
echo "start with a BOM: $ids"
[ "$ids" = "\"input_ids\":[$3]" ] || { echo "FAIL: expected [$3]"; exit 1; }
lone=$("$cli" compute --model "$model" --layer 0 --backend cpu --text "$(printf '\357\273\277')" |
       grep -o '"input_ids":\[[^]]*\]')
echo "a lone BOM: $lone"
[ "$lone" = "\"input_ids\":[$4]" ] || { echo "FAIL: expected [$4]"; exit 1; }
