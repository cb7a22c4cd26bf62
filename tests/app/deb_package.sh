#!/bin/sh
# deb_package.sh BUILD_DIR: packs the build's programs into a .deb with CPack (the same
# CPackConfig.cmake scripts/package uses, so no second build), unpacks it with dpkg-deb -x into a
# temporary root and runs the unpacked CLI from there: info, a synthetic render, a bundled
# translator found through ../share/attention-lab/models (then that copy's vocab.json removed:
# the error must name the unpacked root, so it is the copy read), and its man pages rendered by man -l.
# Skipped when dpkg-deb or dpkg-shlibdeps is missing.
set -u
build="$1"
for tool in dpkg-deb dpkg-shlibdeps cpack; do
  command -v "$tool" >/dev/null 2>&1 || { echo "ATTNLAB_TEST_SKIPPED: $tool is not installed"; exit 0; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$tmp"/out/attention-lab_*.deb) || fail "cpack wrote no .deb"
echo "built $(basename "$deb"): $(wc -c <"$deb") bytes"
dpkg-deb --field "$deb" Package Version Depends | sed 's/^/  /'
dpkg-deb --field "$deb" Depends | grep -q python3-pip || fail "the package does not depend on python3-pip"
root="$tmp/root"
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x failed"
for f in usr/bin/attention-lab usr/bin/attention-lab-cli usr/share/applications/attention-lab.desktop \
         usr/share/metainfo/attention-lab.metainfo.xml usr/share/icons/hicolor/scalable/apps/attention-lab.svg \
         usr/share/man/man1/attention-lab.1.gz usr/share/man/man1/attention-lab-cli.1.gz \
         usr/share/bash-completion/completions/attention-lab-cli usr/share/bash-completion/completions/attention-lab \
         usr/share/zsh/vendor-completions/_attention-lab-cli usr/share/zsh/vendor-completions/_attention-lab \
         usr/share/doc/attention-lab/copyright usr/share/doc/attention-lab/changelog.gz \
         usr/share/attention-lab/models/dates-additive/config.json; do
  [ -e "$root/$f" ] || fail "the package has no /$f"
done
cli="$root/usr/bin/attention-lab-cli"
export QT_QPA_PLATFORM=offscreen
unset ATTNLAB_MODELS_DIR
"$cli" info >"$tmp/info.txt" || fail "attention-lab-cli info exited $?"
grep -q "cpu" "$tmp/info.txt" || fail "info names no CPU backend"
"$cli" render --head all --out "$tmp/heads.png" || fail "a synthetic render exited $?"
[ -s "$tmp/heads.png" ] || fail "the synthetic render wrote no picture"
"$cli" render --model dates-additive --source "2021年3月3日" --out "$tmp/dates.png" ||
  fail "render --model dates-additive exited $?"
[ -s "$tmp/dates.png" ] || fail "the translator render wrote no picture"
# The unpacked copy is the one found: broken, the same command names it.
rm "$root/usr/share/attention-lab/models/dates-additive/vocab.json"
err=$("$cli" render --model dates-additive --source "2021年3月3日" --out "$tmp/broken.png" 2>&1 >/dev/null)
case "$err" in
  *"$root/usr/share/attention-lab/models/dates-additive"*) echo "the bundled translator was read from the unpacked root" ;;
  *) fail "a broken unpacked dates-additive did not fail naming it (stderr: $err)" ;;
esac
if command -v man >/dev/null 2>&1; then
  for page in attention-lab attention-lab-cli; do
    warnings=$(man --warnings -E UTF-8 -l -Tutf8 -Z "$root/usr/share/man/man1/$page.1.gz" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "man -l $page.1.gz warns: $warnings"
    MANWIDTH=80 man -l "$root/usr/share/man/man1/$page.1.gz" 2>/dev/null | grep -q "^NAME" ||
      fail "man -l $page.1.gz renders no NAME section"
  done
  echo "man -l renders both man pages without warnings"
else
  echo "ATTNLAB_TEST_SKIPPED: man is not installed (the package itself passed)"
fi
exit 0
