#!/bin/bash
# The Compress Photos… grid on 100 photos (issue 17's targets): exec until every cell on screen shows its
# placeholder (< 1 s) and until every thumbnail is made and drawn (< 10 s), with a cold thumbnail cache
# (a fresh $XDG_CACHE_HOME per run), then the same with the cache the first run wrote (warm). Medians of N
# runs, each in a fresh display session like the window tests', with the window's CPU time (all threads) until
# every thumbnail is drawn, which the machine's load changes less than the wall-clock figures. The photos: 100 phone-sized JPEGs
# (4032x3024, q92) made by Pillow, 10 distinct pictures, each under 10 names.
#
#   bench/photo-grid.sh [-n RUNS] [BIN]      BIN: the folder of archiver-compress-photos (default
#                                             .build/timings/release, an optimised build with the timings hook:
#                                             `make bench-build`)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/display-session.sh"
bench_window_setup archiver-compress-photos photo-grid "$@"

mkdir -p "$work/photos"
/usr/bin/python3 - "$work/photos" <<'PY'
import shutil, sys
from PIL import Image, ImageDraw, ImageFilter
folder = sys.argv[1]
for i in range(10):
    picture = Image.linear_gradient("L").resize((4032, 3024)).convert("RGB")
    draw = ImageDraw.Draw(picture)
    for k in range(40):
        x, y = (k * 397 + i * 131) % 4032, (k * 211 + i * 89) % 3024
        draw.ellipse([x, y, x + 200 + k * 9, y + 150 + k * 7], fill=((k * 37 + i * 50) % 256, (k * 91) % 256, (i * 23 + k * 5) % 256))
    noise = Image.effect_noise((4032, 3024), 24).convert("RGB")
    picture = Image.blend(picture.filter(ImageFilter.GaussianBlur(3)), noise, 0.15)
    picture.save(f"{folder}/IMG_{i:04}.jpg", quality=92)
    for copy in range(1, 10):
        shutil.copyfile(f"{folder}/IMG_{i:04}.jpg", f"{folder}/IMG_{copy * 10 + i:04}.jpg")
PY


echo "archiver-compress-photos from $bin; 100 photos, $(du -sh "$work/photos" | cut -f1); $runs runs each; load $(cut -d' ' -f1 /proc/loadavg)"
for cache in cold warm; do
	placeholders=() thumbnails=() cpu=()
	for run in $(seq "$runs"); do
		session_start
		timings="$work/timings.$cache.$run"
		# Cold: a cache folder of its own per run. Warm: the one the first cold run filled.
		cachedir="$work/cache.$run"
		[ "$cache" = warm ] && cachedir="$work/cache.1"
		start=$(now_ms)
		ARCHIVER_UI_TIMINGS="$timings" ARCHIVER_UI_TIMINGS_EXIT=1 XDG_CACHE_HOME="$cachedir" HOME="$work/home" \
			GSETTINGS_BACKEND=memory timeout 120 "$bin/archiver-compress-photos" "$work/photos" >/dev/null 2>&1 ||
			{ echo "$cache run $run: archiver-compress-photos failed or timed out" >&2; exit 1; }
		placeholders+=($(($(value placeholders "$timings") - start)))
		thumbnails+=($(($(value thumbnails "$timings") - start)))
		cpu+=($(value thumbnails-cpu-ms "$timings"))
		session_stop
	done
	printf '%-4s placeholders %5d ms | every thumbnail %6d ms | CPU of the window until then %6d ms\n' "$cache" \
		"$(median "${placeholders[@]}")" "$(median "${thumbnails[@]}")" "$(median "${cpu[@]}")"
	echo "     runs: placeholders ${placeholders[*]} ms; thumbnails ${thumbnails[*]} ms; CPU ${cpu[*]} ms"
done
echo "thumbnails in the cache: $(find "$work/cache.1/thumbnails/large" -name '*.png' | wc -l)"
