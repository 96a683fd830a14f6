#!/bin/bash
# The Extract… window on a 100,000-entry zip (issue 15's targets): exec to the first rows painted (≤ 0.5 s),
# exec to the whole listing painted (≤ 1.5× `bsdtar -tf` on the same archive, same run), the frames drawn
# while scrolling a page per frame (p95 < 16 ms) and the window's peak memory (< 150 MiB). Medians of N runs,
# each in a fresh display session like the window tests'. Two archives: 100,000 files in one folder (the
# longest list) and in 100 folders of 1,000 (the tree as people mostly meet it; folders start closed).
# Then the search (issue 30, ≤ 50 ms a keystroke): "file-09999" typed a character at a time and cleared
# again, each keystroke measured from the filter to the end of the frame that shows it.
#
#   bench/extract-tree.sh [-n RUNS] [BIN]      BIN: the folder of archiver-extract (default .build/timings/release,
#                                               an optimised build with the timings hook: `make bench-build`)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/display-session.sh"
bench_window_setup archiver-extract extract-tree "$@"

/usr/bin/python3 - "$work" <<'PY'
import sys, zipfile
work = sys.argv[1]
for name, path in (("flat", lambda i: f"file-{i:06}.txt"), ("nested", lambda i: f"folder-{i // 1000:03}/file-{i:06}.txt")):
    with zipfile.ZipFile(f"{work}/{name}.zip", "w", zipfile.ZIP_STORED) as archive:
        for i in range(100_000):
            archive.writestr(path(i), b"x" * (i % 64))
PY


echo "archiver-extract from $bin; $runs runs each; load $(cut -d' ' -f1 /proc/loadavg)"
for shape in flat nested; do
	zip="$work/$shape.zip"
	bsdtar_ms=()
	for _ in $(seq "$runs"); do
		start=$(now_ms)
		bsdtar -tf "$zip" >/dev/null
		bsdtar_ms+=($(($(now_ms) - start)))
	done
	first=() listed=() p95=() rss=()
	for run in $(seq "$runs"); do
		session_start
		timings="$work/timings.$shape.$run"
		start=$(now_ms)
		ARCHIVER_UI_TIMINGS="$timings" ARCHIVER_UI_TIMINGS_SCROLL=120 timeout 120 "$bin/archiver-extract" "$zip" >/dev/null 2>&1 ||
			{ echo "$shape run $run: archiver-extract failed or timed out" >&2; exit 1; }
		first+=($(($(value first-rows "$timings") - start)))
		listed+=($(($(value listed "$timings") - start)))
		p95+=($(value scroll-p95-us "$timings"))
		rss+=($(($(value peak-rss-kib "$timings") / 1024)))
		session_stop
	done
	b=$(median "${bsdtar_ms[@]}") l=$(median "${listed[@]}")
	printf '%-6s first rows %5d ms | listed %5d ms, bsdtar -tf %4d ms, ratio %s | scroll p95 %s ms | peak %d MiB\n' \
		"$shape" "$(median "${first[@]}")" "$l" "$b" "$(awk -v l="$l" -v b="$b" 'BEGIN {printf "%.2f", l / b}')" \
		"$(awk -v u="$(median "${p95[@]}")" 'BEGIN {printf "%.1f", u / 1000}')" "$(median "${rss[@]}")"
	echo "       runs: first ${first[*]} ms; listed ${listed[*]} ms; bsdtar ${bsdtar_ms[*]} ms; p95 ${p95[*]} µs; peak ${rss[*]} MiB"
done

for shape in flat nested; do
	zip="$work/$shape.zip"
	worst=() middle=() each=""
	for run in $(seq "$runs"); do
		session_start
		timings="$work/search.$shape.$run"
		ARCHIVER_UI_TIMINGS="$timings" ARCHIVER_UI_TIMINGS_SEARCH=file-09999 timeout 120 "$bin/archiver-extract" "$zip" >/dev/null 2>&1 ||
			{ echo "$shape search run $run: archiver-extract failed or timed out" >&2; exit 1; }
		worst+=($(value search-max-us "$timings"))
		middle+=($(value search-p50-us "$timings"))
		each=$(value search-each-us "$timings")
		session_stop
	done
	printf '%-6s search "file-09999" then cleared: keystroke median %s ms, slowest %s ms (medians of %d runs)\n' "$shape" \
		"$(awk -v u="$(median "${middle[@]}")" 'BEGIN {printf "%.1f", u / 1000}')" \
		"$(awk -v u="$(median "${worst[@]}")" 'BEGIN {printf "%.1f", u / 1000}')" "$runs"
	echo "       last run, each keystroke: $each µs"
done
