#!/bin/sh
# metainfo.sh METAINFO DESKTOP: the AppStream metadata passes `appstreamcli validate --no-net`
# (the id is the desktop file's name, not reverse-DNS: the project has no domain yet, so that
# one warning is lowered to info) and names the desktop file, which passes desktop-file-validate.
# Skipped when neither tool is installed (scripts/setup installs both).
metainfo="$1" desktop="$2"
ran=0 fail=0
if command -v appstreamcli >/dev/null 2>&1; then
  ran=1
  appstreamcli validate --no-net --override=cid-desktopapp-is-not-rdns=info "$metainfo" || fail=1
  grep -q "<launchable type=\"desktop-id\">$(basename "$desktop")</launchable>" "$metainfo" ||
    { echo "FAIL: $metainfo does not launch $(basename "$desktop")"; fail=1; }
else
  echo "appstreamcli not installed: the metainfo is not validated"
fi
if command -v desktop-file-validate >/dev/null 2>&1; then
  ran=1
  out=$(desktop-file-validate "$desktop" 2>&1) || fail=1
  printf '%s\n' "$out"
  case "$out" in *error:*|*warning:*) fail=1 ;; esac
else
  echo "desktop-file-validate not installed: the desktop file is not validated"
fi
[ "$ran" -eq 1 ] || { echo "ATTNLAB_TEST_SKIPPED: neither appstreamcli nor desktop-file-validate is installed"; exit 0; }
exit $fail
