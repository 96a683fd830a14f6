#!/usr/bin/env bash
# The Compress Photos estimate (--estimate, from headers only) against the real copies, on the shared photo
# corpus (../shared/bench/make-photos.sh): per-photo error, its median, the error of the total, and how long
# the estimate takes (warm cache, median of RUNS runs).
#
# Usage: bench/photo-estimate.sh [compress-photos-with-archiver options…]   (default: the settings' defaults,
#        1500 px, JPEG 75)
#   RUNS=5              timed runs of the estimate
#   ARCHIVER_BIN_DIR    use this compress-photos-with-archiver instead of the debug build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/bench/corpus/photos
work=$root/bench/out/photo-estimate
[[ -d $corpus/phone ]] || bash "$root/../shared/bench/make-photos.sh" "$root/bench/corpus" >&2
if [[ -z ${ARCHIVER_BIN_DIR:-} ]]; then
    (cd "$root" && swift build --product compress-photos-with-archiver >&2)
fi
bin=${ARCHIVER_BIN_DIR:-$(cd "$root" && swift build --show-bin-path)}/compress-photos-with-archiver
sets=("$corpus/wallpapers" "$corpus/phone" "$corpus/heic" "$corpus/png")
rm -rf "$work"; mkdir -p "$work"
export GSETTINGS_BACKEND=memory
"$bin" --no-notify --json "$@" -o "$work/copies" "${sets[@]}" > "$work/actual.json" 2>/dev/null || true
"$bin" --estimate --json "$@" "${sets[@]}" > "$work/estimate.json" 2>/dev/null
times=()
for _ in $(seq "${RUNS:-5}"); do
    start=$(date +%s.%N)
    "$bin" --estimate --json "$@" "${sets[@]}" > /dev/null 2>&1
    times+=("$(echo "$(date +%s.%N) - $start" | bc)")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
python3 - "$work/actual.json" "$work/estimate.json" "$median" <<'PY'
import json, sys, statistics
actual = {o["source"]: o["size"] for o in json.load(open(sys.argv[1]))["outputs"]}
rows = json.load(open(sys.argv[2]))["estimates"]
groups = {}
for row in rows:
    name = row["source"].split("/photos/")[1].split("/")[0]
    groups.setdefault(name, []).append((row["estimatedSize"], actual[row["source"]]))
groups["all"] = [pair for key in list(groups) for pair in groups[key]]
print("| set | photos | median error | error of the total | estimated | actual |")
print("|---|---|---|---|---|---|")
for name, pairs in groups.items():
    errors = [abs(e / a - 1) * 100 for e, a in pairs]
    est, act = sum(e for e, _ in pairs), sum(a for _, a in pairs)
    print(f"| {name} | {len(pairs)} | {statistics.median(errors):.0f} % | {(est / act - 1) * 100:+.0f} % | {est / 1e6:.2f} MB | {act / 1e6:.2f} MB |")
print(f"\nEstimate of all {len(rows)} photos: {float(sys.argv[3]):.2f} s (median, warm cache).")
PY
