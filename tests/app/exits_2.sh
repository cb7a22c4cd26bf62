#!/bin/sh
# exits_2.sh NEEDLE COMMAND [ARG...]: runs COMMAND and passes when it exits with status 2 exactly
# (not any non-zero status) after printing one line on stderr that contains NEEDLE.
needle="$1"
shift
err=$("$@" 2>&1 >/dev/null)
rc=$?
lines=$(printf '%s\n' "$err" | grep -c .)
printf 'exit status %s, stderr: %s\n' "$rc" "$err"
[ "$rc" -eq 2 ] || { echo "FAIL: expected exit status 2"; exit 1; }
[ "$lines" -eq 1 ] || { echo "FAIL: expected one line on stderr, got $lines"; exit 1; }
case "$err" in
  *"$needle"*) exit 0 ;;
  *) echo "FAIL: stderr does not contain: $needle"; exit 1 ;;
esac
