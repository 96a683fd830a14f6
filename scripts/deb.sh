#!/bin/bash
# The Debian package: archiver_VERSION_ARCH.deb in .build/deb, for machines without a Swift toolchain.
#
#   deb.sh          (make deb) builds the executables with `swift build -c release`, stages them under /usr
#                   with the desktop integration (scripts/desktop-integration.sh, system-wide), runs
#                   dpkg-shlibdeps, dpkg-deb and lintian, and prints the package's path last.
#
# Environment: EXECUTABLES (default: the Makefile's list), BUILT_BIN (already-built release executables:
# no build), VERSION (default: the newest <release> of the AppStream metainfo), SWIFT (default swift).
#
# The Swift runtime is shared, not linked into every executable: the libraries of the toolchain that the
# executables need go into /usr/lib/archiver, and each executable's RUNPATH names that folder alone (the
# toolchain's own libraries find each other through their $ORIGIN). Caches need no maintainer scripts:
# shared-mime-info, desktop-file-utils, libglib2.0-0 and the hicolor theme's users update theirs through
# dpkg triggers on the folders we install into.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SWIFT=${SWIFT:-swift}
PACKAGE=archiver
LIBDIR=/usr/lib/archiver
EXECUTABLES=${EXECUTABLES:-$(sed -n '/^EXECUTABLES *=/,/[^\\]$/p' Makefile | sed 's/^EXECUTABLES *=//; s/\\$//')}
VERSION=${VERSION:-$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' desktop-files/io.github.archiver.metainfo.xml | head -1)}
ARCH=$(dpkg --print-architecture)

die() { printf 'deb: %s\n' "$*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps patchelf help2man; do
    command -v "$tool" > /dev/null || die "$tool is missing: run make deps"
done

if [ -z "${BUILT_BIN:-}" ]; then
    "$SWIFT" build -c release
    BUILT_BIN=$("$SWIFT" build -c release --show-bin-path)
fi

# dpkg-shlibdeps wants a source tree: debian/control, and the package's files in debian/archiver.
WORK=$ROOT/.build/deb/work
STAGE=$WORK/debian/$PACKAGE
rm -rf "$WORK"
mkdir -p "$STAGE/DEBIAN" "$STAGE/usr/bin" "$STAGE$LIBDIR"

# --- Executables and the Swift runtime they share ---------------------------------------------------
runtime=()
for exe in $EXECUTABLES; do
    [ -x "$BUILT_BIN/$exe" ] || die "$BUILT_BIN/$exe is not built"
    while read -r lib; do runtime+=("$lib"); done < <(ldd "$BUILT_BIN/$exe" | awk '$3 ~ /\/lib\/swift\/linux\// { print $3 }')
    install -m 755 "$BUILT_BIN/$exe" "$STAGE/usr/bin/$exe"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$STAGE/usr/bin/$exe"
    patchelf --set-rpath "$LIBDIR" "$STAGE/usr/bin/$exe"
done
[ "${#runtime[@]}" -gt 0 ] || die "the executables link no Swift runtime: were they built with --static-swift-stdlib?"
for lib in $(printf '%s\n' "${runtime[@]}" | sort -u); do
    install -m 644 "$lib" "$STAGE$LIBDIR/$(basename "$lib")"
    strip --strip-unneeded --remove-section=.comment "$STAGE$LIBDIR/$(basename "$lib")"
done

# --- Desktop integration, system-wide, and the license ------------------------------------------------
HOME=$WORK/home PREFIX=/usr BINDIR=/usr/bin DESTDIR=$STAGE EXECUTABLES="$EXECUTABLES" \
    bash scripts/desktop-integration.sh install > /dev/null
rm -rf "$STAGE/usr/share/io.github.archiver"  # install's manifest: dpkg keeps its own list
mkdir -p "$STAGE/usr/share/doc/$PACKAGE"
{
    printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
    printf 'Upstream-Name: Archiver\nSource: https://github.com/archiver/archiver\n\n'
    printf 'Files: *\nCopyright: 2026 The Archiver developers\nLicense: MIT\n\n'
    printf 'Files: usr/lib/archiver/*\nCopyright: 2014-2026 Apple Inc. and the Swift project authors\n'
    printf 'License: Apache-2.0 with Runtime Library Exception\n See https://swift.org/LICENSE.txt\n\n'
    cat <<'EOF'
License: MIT
 Copyright (c) 2026 The Archiver developers
 .
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.
EOF
} > "$STAGE/usr/share/doc/$PACKAGE/copyright"
printf '%s (%s) unstable; urgency=medium\n\n  * Package built from the Archiver sources.\n\n -- The Archiver developers <archiver@users.noreply.github.com>  %s\n' \
    "$PACKAGE" "$VERSION" "$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")" |
    gzip -9n > "$STAGE/usr/share/doc/$PACKAGE/changelog.gz"

# --- Man pages: help2man from each tool's --help; the windows, which take only files, get a short one ---
mkdir -p "$STAGE/usr/share/man/man1"
for exe in $EXECUTABLES; do
    page=$STAGE/usr/share/man/man1/$exe.1
    if LANG=C LC_ALL=C "$BUILT_BIN/$exe" --help > /dev/null 2>&1 </dev/null; then
        # The command-line tools' overview line; the windows answer with GLib's generic help.
        summary=$(LANG=C LC_ALL=C "$BUILT_BIN/$exe" --help 2>&1 </dev/null | sed -n 's/^OVERVIEW: //p' | head -1 | sed 's/\.$//')
        LANG=C LC_ALL=C help2man --no-info --no-discard-stderr --version-string="$VERSION" --output="$page" \
            --name="${summary:-a window of Archiver, for the files given}" "$BUILT_BIN/$exe" < /dev/null
    else
        printf '.TH %s 1 "" "Archiver %s" "User Commands"\n.SH NAME\n%s \\- a window of Archiver\n.SH SYNOPSIS\n.B %s\n[\\fIFILE\\fR...]\n.SH DESCRIPTION\nOpens the window for the files given; see /usr/share/doc/archiver.\n' \
            "${exe^^}" "$VERSION" "$exe" "$exe" > "$page"
    fi
    gzip -9n "$page"
done

# --- Control ----------------------------------------------------------------------------------------
cat > "$WORK/debian/control" <<EOF
Source: $PACKAGE

Package: $PACKAGE
Architecture: $ARCH
EOF
depends=$(cd "$WORK" && dpkg-shlibdeps -O -l"$STAGE$LIBDIR" -e "$STAGE"/usr/bin/* 2> "$WORK/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') ||
    die "dpkg-shlibdeps failed: $(cat "$WORK/shlibdeps.log")"
# The windows open poppler-glib at the first PDF preview (dlopen, UI/PDFFirstPage.swift), which
# dpkg-shlibdeps cannot see.
depends="$depends, libpoppler-glib8"
cat > "$STAGE/DEBIAN/control" <<EOF
Package: $PACKAGE
Version: $VERSION
Architecture: $ARCH
Maintainer: The Archiver developers <archiver@users.noreply.github.com>
Installed-Size: $(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
Depends: $depends
Recommends: 7zip, fuse3, python3-nautilus
Suggests: unrar
Section: utils
Priority: optional
Homepage: https://github.com/archiver/archiver
Description: right-click compression for the Linux desktop
 Archiver puts files into archives and takes them out again, from the file
 manager's right-click menu (Nautilus, Dolphin, Thunar, Nemo, Caja, PCManFM),
 from "Open with", from its own window or from the command line: zip, 7z,
 tar.gz, tar.xz, tar.zst and more, with passwords and parts; safe extraction
 that never writes outside its folder; smaller copies of PDFs and photos; and
 archives opened as read-only folders.
 .
 7zip is used for encrypted 7z archives, fuse3 for Open as Folder, and
 RARLAB's unrar (non-free) for encrypted rar archives.
EOF
find "$STAGE" -type d -exec chmod 755 {} +

OUT=$ROOT/.build/deb/${PACKAGE}_${VERSION}_${ARCH}.deb
# DEB_COMPRESSION=gzip for the tests: xz takes minutes on a busy machine.
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$STAGE" "$OUT" > /dev/null
if command -v lintian > /dev/null; then
    lintian --suppress-tags-from-file "$ROOT/scripts/lintian-overrides" "$OUT" >&2 || die "lintian found errors"
fi
printf 'Installed size %s KiB, package %s KiB\n' "$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)" "$(du -k "$OUT" | cut -f1)" >&2
echo "$OUT"
