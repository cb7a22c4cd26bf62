#!/bin/sh
# generated_docs.sh DOCS_TOOL GENERATED_DIR CLI WINDOW: the man pages and completion that
# attention-lab-docs writes from the option table now are the committed copies in GENERATED_DIR
# (docs/generated), every option of each program's --help appears in its man page and both
# completion scripts, and the bash scripts parse. After changing an option, refresh the copies:
#   build/release/app/attention-lab-docs docs/generated
set -u
tool="$1" committed="$2" cli="$3" window="$4"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$tool" "$tmp" || { echo "FAIL: $tool exited $?"; exit 1; }
fail=0
for f in attention-lab-cli.1 attention-lab.1 attention-lab-cli.bash attention-lab.bash \
         _attention-lab-cli _attention-lab; do
  if ! diff -u "$committed/$f" "$tmp/$f"; then
    echo "FAIL: $committed/$f is not what the option table gives now; run: $tool $committed"
    fail=1
  fi
done
# check PROGRAM NAME: each option --help lists (its lines "  --name ...") in NAME.1, NAME.bash
# and _NAME.
check() {
  options=$(QT_QPA_PLATFORM=offscreen "$1" --help | sed -n 's/^  \(--[a-z][a-z0-9-]*\).*/\1/p' | sort -u)
  [ -n "$options" ] || { echo "FAIL: $1 --help lists no options"; fail=1; return; }
  count=0
  for option in $options; do
    count=$((count + 1))
    roff=$(printf '%s' "$option" | sed 's/-/\\\\-/g')
    grep -q -- "$roff" "$tmp/$2.1" || { echo "FAIL: $option of $1 --help is not in $2.1"; fail=1; }
    grep -q -- "$option" "$tmp/$2.bash" || { echo "FAIL: $option is not in $2.bash"; fail=1; }
    grep -q -- "'$option" "$tmp/_$2" || { echo "FAIL: $option is not in _$2"; fail=1; }
  done
  echo "$2: $count options of --help in the man page and both completions"
  bash -n "$tmp/$2.bash" || { echo "FAIL: $2.bash does not parse"; fail=1; }
}
check "$cli" attention-lab-cli
check "$window" attention-lab
exit $fail
