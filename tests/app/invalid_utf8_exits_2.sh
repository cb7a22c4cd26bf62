#!/bin/sh
# invalid_utf8_exits_2.sh PROGRAM [ARG...]: PROGRAM ARG... --text <byte 0xFF> exits 2 naming the
# byte offset (the arguments are raw bytes; they are never decoded to U+FFFD first).
dir=$(dirname "$0")
exec sh "$dir/exits_2.sh" "the text: invalid UTF-8 at byte offset 0" "$@" --text "$(printf '\377')"
