#!/usr/bin/env bash
# Runs each fuzz target (built by fuzz/build.sh) for SECONDS, from the committed seeds in fuzz/corpus/TARGET
# plus what earlier runs found (.build/fuzz/corpus/TARGET). A crash, a broken invariant, an input taking
# longer than 10 s or 2 GiB fails the run; the input is kept in .build/fuzz/findings/TARGET/.
# Usage: fuzz/run.sh SECONDS [TARGET...]
set -uo pipefail
cd "$(dirname "$0")/.." || exit
seconds=${1:?seconds per target}
shift
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz-entry-path fuzz-name-encoding fuzz-volume-name fuzz-7zip-listing fuzz-unrar-listing fuzz-settings fuzz-extract fuzz-single-stream fuzz-photo fuzz-pdf-images)
failed=()
for target in "${TARGETS[@]}"; do
    mkdir -p ".build/fuzz/corpus/$target" ".build/fuzz/findings/$target"
    log=".build/fuzz/findings/$target/last.log"
    # ASan: Swift's runtime keeps metadata for the life of the process, which leak checking misreads;
    # Swift's own backtracer trips over ASan, and libFuzzer prints the stack anyway.
    ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no nice -n 10 ".build/fuzz/release/$target" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 -artifact_prefix=".build/fuzz/findings/$target/" \
        ".build/fuzz/corpus/$target" "fuzz/corpus/$target" >"$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    summary=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)
    echo "$target: ${runs:-?} runs in ${seconds}s, $summary, exit $status"
    if [ "$status" != 0 ]; then
        failed+=("$target")
        grep -E 'ERROR|invariant broken|Fatal error|Test unit written|SUMMARY' "$log" | head -8
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in ${failed[*]} (inputs and logs in .build/fuzz/findings/)" >&2
    exit 1
fi
