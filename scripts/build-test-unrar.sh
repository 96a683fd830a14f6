#!/usr/bin/env bash
# Builds RARLAB's unrar, for the tests of the unrar backend only, from the unrar source that the
# unrar2-cffi package on PyPI carries (Debian's unrar is non-free, so CI has no package to install), and
# keeps that package's one-password encrypted RAR5 sample beside it, in samples/. Archiver never installs
# unrar for its users. Prints the program's path; builds once into .build-unrar/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build-unrar"
if [ -x "$out/unrar" ] && [ -f "$out/samples/test_rar_pwd.rar" ]; then
    echo "$out/unrar"
    exit 0
fi
version=0.5.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: -d "$work" "unrar2-cffi==$version" >&2
tar -xzf "$work/unrar2_cffi-$version.tar.gz" -C "$work"
source="$work/unrar2_cffi-$version"
make -s -C "$source/unrarsrc" -j"$(nproc)" unrar >&2
mkdir -p "$out/samples"
cp "$source/tests/test_rar_pwd.rar" "$out/samples/"
cp "$source/unrarsrc/unrar" "$out/unrar"
echo "$out/unrar"
