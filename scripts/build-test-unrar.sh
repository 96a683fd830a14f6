#!/usr/bin/env bash
# Builds RARLAB's unrar, for the tests of the unrar backend only, from the unrar source that the
# unrar2-cffi package on PyPI carries (Debian's unrar is non-free, so CI has no package to install).
# Archiver never installs unrar for its users. Prints the program's path; builds once into .build-unrar/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build-unrar"
if [ -x "$out/unrar" ]; then
    echo "$out/unrar"
    exit 0
fi
version=0.5.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: -d "$work" "unrar2-cffi==$version" >&2
tar -xzf "$work/unrar2_cffi-$version.tar.gz" -C "$work"
make -s -C "$work/unrar2_cffi-$version/unrarsrc" -j"$(nproc)" unrar >&2
mkdir -p "$out"
cp "$work/unrar2_cffi-$version/unrarsrc/unrar" "$out/unrar"
echo "$out/unrar"
