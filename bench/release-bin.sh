# shellcheck shell=bash
# Sourced by the benchmarks: `release_bin ROOT` prints the folder of the executables under test,
# ARCHIVER_BIN_DIR when set, else the release build's of the project at ROOT (built first, its output on stderr).
release_bin() {
    if [[ -n ${ARCHIVER_BIN_DIR:-} ]]; then
        echo "$ARCHIVER_BIN_DIR"
    else
        (cd "$1" && swift build -c release >&2 && swift build -c release --show-bin-path)
    fi
}
