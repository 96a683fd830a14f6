#!/bin/bash
# The Compress Photos… filters on 10,000 photos (issue 35: a filter applies within 0.2 s, from the metadata
# the estimate already read). The window opens the folder, the estimate reads every header (dates, GPS,
# IPTC places), then the timings hook applies seven filters one after another (the latest year, with a
# location, the first place, a name, over 5 MB, the last 30 days, none) and records each one's time from
# the change to the end of the frame that shows it. Medians of N runs of the slowest and the median filter,
# each run in a fresh display session like the window tests'. The photos: 10,000 small JPEGs (64x48, so
# that making them and their thumbnails stays quick; the filter's work does not depend on their pixels)
# made by Pillow with EXIF dates over ten years, a GPS position on every third, and an IPTC City on
# every fifth (exiftool, on one photo of each kind, then copied).
#
#   bench/photo-filter.sh [-n RUNS] [BIN]     BIN: the folder of archiver-compress-photos and
#                                              compress-photos-with-archiver (default .build/timings/release,
#                                              an optimised build with the timings hook: `make bench-build`)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/display-session.sh"
bench_window_setup archiver-compress-photos photo-filter "$@"

mkdir -p "$work/photos"
/usr/bin/python3 - "$work/photos" <<'PY'
import os, shutil, subprocess, sys
from PIL import Image
folder = sys.argv[1]
kinds = {}
# 60 kinds: a year (10), a month, located or not, a city or not; each photo copies one kind.
for kind in range(60):
    path = f"{folder}/kind-{kind:02}.jpg"
    Image.new("RGB", (64, 48), ((kind * 37) % 256, (kind * 91) % 256, 128)).save(path, quality=90)
    args = ["exiftool", "-q", "-overwrite_original", f"-ExifIFD:DateTimeOriginal={2015 + kind % 10}:{1 + kind % 12:02}:15 12:00:00"]
    if kind % 3 == 0:
        args += ["-GPS:GPSLatitudeRef=N", "-GPS:GPSLatitude=38.72", "-GPS:GPSLongitudeRef=W", "-GPS:GPSLongitude=9.14"]
    if kind % 5 == 0:
        args += [f"-IPTC:City={['Lisboa', 'Porto', 'Berlin'][kind % 3]}", "-IPTC:Country-PrimaryLocationName=Portugal"]
    subprocess.run(args + [path], check=True)
    kinds[kind] = path
os.makedirs(f"{folder}/album", exist_ok=True)
for index in range(10_000):
    shutil.copyfile(kinds[index % 60], f"{folder}/album/IMG_{index:05}.jpg")
for path in kinds.values():
    os.remove(path)
PY

echo "archiver-compress-photos from $bin; 10,000 photos; $runs runs; load $(cut -d' ' -f1 /proc/loadavg)"
p50=() max=() each=()
for run in $(seq "$runs"); do
	session_start
	timings="$work/timings.$run"
	ARCHIVER_UI_TIMINGS="$timings" ARCHIVER_UI_TIMINGS_FILTER=1 XDG_CACHE_HOME="$work/cache" HOME="$work/home" \
		GSETTINGS_BACKEND=memory timeout 600 "$bin/archiver-compress-photos" "$work/photos/album" >/dev/null 2>&1 ||
		{ echo "run $run: archiver-compress-photos failed or timed out" >&2; exit 1; }
	[ -n "$(value filter-max-us "$timings")" ] || { echo "run $run: no filter figures in $timings" >&2; exit 1; }
	p50+=($(($(value filter-p50-us "$timings") / 1000)))
	max+=($(($(value filter-max-us "$timings") / 1000)))
	each+=("$(value filter-each-us "$timings")")
	session_stop
done
printf 'filter applied and drawn: median %d ms, slowest %d ms (target: 200 ms)\n' "$(median "${p50[@]}")" "$(median "${max[@]}")"
echo "runs: median ${p50[*]} ms; slowest ${max[*]} ms"
echo "each filter, last run (µs): ${each[-1]}"
