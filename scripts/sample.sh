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

# A 6-megapixel photo (noise, so it does not compress to nothing) and a PDF of text around it.
vips gaussnoise "$work/noise.v" 3000 2000 --mean 128 --sigma 40
vips cast "$work/noise.v" "$work/noise8.v" uchar
vips colourspace "$work/noise8.v" "$work/Photo.jpg" b-w
"$bin/compress-photos-with-archiver" --no-notify "$work/Photo.jpg"
[ "$(vipsheader -f width "$work/Photo (compressed).jpg")" = 1500 ]
/usr/bin/python3 - "$work/Photo.jpg" "$work/Report.pdf" <<'PY'
import sys
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas
c = canvas.Canvas(sys.argv[2], pagesize=A4)
c.drawString(72, 800, "Archiver keeps this text searchable.")
c.drawImage(sys.argv[1], 72, 300, width=450, height=300)
c.save()
PY
"$bin/compress-pdf-with-archiver" --no-notify "$work/Report.pdf"
[ "$(pdftotext "$work/Report (compressed).pdf" -)" = "$(pdftotext "$work/Report.pdf" -)" ]
echo "Sample photo and PDF OK: Photo.jpg → 1500 px copy, Report.pdf → smaller copy with the same text."
