#!/usr/bin/env bash
# Builds the fuzz targets (or those named) with libFuzzer and AddressSanitizer into .build/fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz-entry-path fuzz-name-encoding fuzz-volume-name fuzz-7zip-listing fuzz-unrar-listing fuzz-settings fuzz-extract fuzz-single-stream fuzz-photo fuzz-pdf-images)
for target in "${TARGETS[@]}"; do
    # (the filter drops the linker's and SwiftPM's noise about ASan symbols and pkg-config's -pthread)
    ARCHIVER_FUZZ=1 swift build -c release --scratch-path .build/fuzz --product "$target" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing 2>&1 | { grep -v 'ld.gold: warning: Cannot export\|prohibited flag' || true; }
    [ "${PIPESTATUS[0]}" = 0 ] || { echo "fuzz: $target did not build" >&2; exit 1; }
done
