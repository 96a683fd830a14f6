#!/bin/bash
# The Compress… window's Leave out section on a node project of 100,000 files (issue 31): from the scan's
# start to its first figures painted (≤ 0.5 s), and to the whole count painted; exec to the first figures
# besides. Medians of N runs, each in a fresh display session like the window tests'. The tree: 50,000 files
# in node_modules (2,500 packages of 20), 50,000 of the project's own in 500 folders, a .git and some junk.
#
#   bench/leave-out-scan.sh [-n RUNS] [BIN]    BIN: the folder of archiver-compress (default .build/timings/release,
#                                               an optimised build with the timings hook: `make bench-build`)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/display-session.sh"
bench_window_setup archiver-compress leave-out-scan "$@"

/usr/bin/python3 - "$work/project" <<'PY'
import os, sys
top = sys.argv[1]
def write(path, size):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"x" * size)
for i in range(50_000):
    write(f"{top}/node_modules/pkg-{i // 20:04}/lib/file-{i % 20:02}.js", 100 + i % 900)
for i in range(50_000):
    write(f"{top}/src/part-{i // 100:03}/file-{i % 100:02}.ts", 200 + i % 500)
for name in (".DS_Store", "src/Thumbs.db", ".git/HEAD", "src/__pycache__/a.pyc"):
    write(f"{top}/{name}", 10)
PY

echo "archiver-compress from $bin; $runs runs; load $(cut -d' ' -f1 /proc/loadavg)"
first=() counted=() exec_first=()
for run in $(seq "$runs"); do
	session_start
	timings="$work/timings.$run"
	start=$(now_ms)
	ARCHIVER_UI_TIMINGS="$timings" ARCHIVER_UI_TIMINGS_EXIT=1 timeout 120 "$bin/archiver-compress" "$work/project" >/dev/null 2>&1 ||
		{ echo "run $run: archiver-compress failed or timed out" >&2; exit 1; }
	began=$(value leave-out-started "$timings")
	first+=($(($(value leave-out-first "$timings") - began)))
	counted+=($(($(value leave-out-counted "$timings") - began)))
	exec_first+=($(($(value leave-out-first "$timings") - start)))
	session_stop
done
printf 'first figures %4d ms after the scan starts (target ≤ 500) | all counted %5d ms | exec to first figures %5d ms\n' \
	"$(median "${first[@]}")" "$(median "${counted[@]}")" "$(median "${exec_first[@]}")"
echo "runs: first ${first[*]} ms; counted ${counted[*]} ms; exec to first ${exec_first[*]} ms"
