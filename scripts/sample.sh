#!/bin/sh
# Round trip of a small sample tree with the installed executables: what `make install` shows a newcomer.
set -eu
bin=${BIN:?BIN must name the folder holding the executables}
work=$(mktemp -d "${HOME:-/tmp}/archiver-sample.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sample/notes" "$work/out"
printf 'Hello from Archiver\n' > "$work/Sample/hello.txt"
printf 'é, 日本語, 🎉\n' > "$work/Sample/notes/unicode — names.txt"
ln -s hello.txt "$work/Sample/link-to-hello"
# A demonstration, not the user's work: no notifications, and a Recent list that goes away with $work.
# The settings schema is still found: the real data folder joins the system ones.
export XDG_DATA_DIRS="${XDG_DATA_HOME:-$HOME/.local/share}:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
export XDG_DATA_HOME="$work"
"$bin/compress-with-archiver" --no-notify --format zip "$work/Sample"
"$bin/extract-with-archiver" --no-notify --to "$work/out" "$work/Sample.zip"
diff -r "$work/Sample" "$work/out/Sample"
echo "Sample round trip OK: Sample → Sample.zip → Sample, identical."
