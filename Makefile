# Archiver: `make install` sets everything up and runs a sample; `make test` runs the whole suite.
PREFIX ?= $(HOME)/.local
BINDIR = $(PREFIX)/bin
SWIFT ?= swift
EXECUTABLES = compress-with-archiver extract-with-archiver edit-with-archiver compress-pdf-with-archiver compress-photos-with-archiver \
	archiver-compress archiver-extract archiver-compress-pdf archiver-compress-photos open-with-archiver archiver
# System packages: libarchive to build against; the other tools are what the tests check our archives with
# (pigz and libdeflate-dev: what bench/deflate.sh compares against; ghostscript: what bench/pdf.sh and
# bench/pdf-text.sh compare against).
APT_PACKAGES = libarchive-dev libzstd-dev zstd bzip2 xz-utils zlib1g-dev libisal-dev liblzma-dev libbz2-dev pkg-config libarchive-tools 7zip unzip zip python3 time \
	libglib2.0-dev libglib2.0-bin dconf-gsettings-backend libnotify-dev libnotify-bin gsettings-desktop-schemas dbus python3-dbusmock \
	desktop-file-utils shared-mime-info xdg-utils zenity python3-gi gir1.2-nautilus-4.0 python3-nautilus libxml2-utils xorriso shellcheck \
	libvips-dev libexif-dev libvips-tools libqpdf-dev libharfbuzz-dev qpdf poppler-utils libimage-exiftool-perl libheif-examples python3-reportlab python3-pil \
	gettext locales \
	libgtk-4-dev libadwaita-1-dev xvfb at-spi2-core python3-pyatspi imagemagick gir1.2-gtk-4.0 x11-utils xsettingsd xdotool \
	dosfstools exfatprogs exfat-fuse xfsprogs \
	libfuse3-dev fuse3 appstream e2fsprogs lz4 libsquashfs-dev squashfs-tools libpoppler-glib-dev \
	dpkg-dev patchelf help2man lintian mmdebstrap git pigz libdeflate-dev ghostscript nettle-dev fonts-urw-base35
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release bench-build install install-files uninstall set-default sample deb test fuzz fuzz-smoke bench clean pot update-po mo check-po

all: build

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:" $$missing; \
		$(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

build: deps mo
	$(SWIFT) build

# Translations (po/, scripts/po.sh): `make pot` after changing strings, `make update-po` to merge them into
# every language; `make mo` compiles the catalogs into .build/locale (ARCHIVER_LOCALEDIR for a build tree).
LOCALEDIR_BUILD = .build/locale
pot:
	bash scripts/po.sh pot
update-po:
	bash scripts/po.sh update
mo:
	bash scripts/po.sh mo $(LOCALEDIR_BUILD)
check-po:
	bash scripts/po.sh check

release: deps mo
	$(SWIFT) build -c release --static-swift-stdlib

# The window benchmarks (bench/extract-tree.sh, bench/photo-grid.sh, bench/photo-filter.sh) read figures the windows write only
# through a test hook, which release builds leave out (Package.swift): an optimised build with the hooks.
bench-build: deps mo
	$(SWIFT) build -c release -Xswiftc -DARCHIVER_TEST_HOOKS --scratch-path .build/timings

# Desktop integration (menus, "Open with", MIME types, settings schema): scripts/desktop-integration.sh.
INTEGRATION = PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" DESTDIR="$(DESTDIR)" EXECUTABLES="$(EXECUTABLES)" bash scripts/desktop-integration.sh

install: release
	@$(MAKE) --no-print-directory install-files BUILT_BIN="$$($(SWIFT) build -c release --static-swift-stdlib --show-bin-path)"
	@$(MAKE) --no-print-directory sample BIN="$(DESTDIR)$(BINDIR)"

# Installs executables that are already built (in BUILT_BIN) and the desktop integration; builds nothing.
BUILT_BIN ?= .build/debug
install-files:
	install -d "$(DESTDIR)$(BINDIR)"
	for e in $(EXECUTABLES); do install -m 755 "$(BUILT_BIN)/$$e" "$(DESTDIR)$(BINDIR)/$$e"; done
	@echo "Installed $(EXECUTABLES) into $(BINDIR)"
	$(INTEGRATION) install

uninstall:
	$(INTEGRATION) uninstall
	for e in $(EXECUTABLES); do rm -f "$(DESTDIR)$(BINDIR)/$$e"; done

# Makes Archiver the default application for every archive type (only when asked; uninstall undoes it).
set-default:
	$(INTEGRATION) set-default

# The Debian package, for machines without a Swift toolchain (scripts/deb.sh): .build/deb/archiver_VERSION_ARCH.deb,
# its path printed last. The executables share one Swift runtime in /usr/lib/archiver.
deb: deps mo
	@EXECUTABLES="$(EXECUTABLES)" SWIFT="$(SWIFT)" bash scripts/deb.sh

# Compresses a small sample tree and extracts it again with the installed tools.
sample:
	@BIN="$(BIN)" sh scripts/sample.sh

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	@$(MAKE) --no-print-directory fuzz-smoke

# Coverage-guided fuzzing (fuzz/, libFuzzer): `make fuzz` runs every target FUZZ_SECONDS (default 600),
# `make fuzz-smoke` 25 s each (CI, through `make test`). A finding fails the run and is kept in .build/fuzz/findings/.
FUZZ_SECONDS ?= 600
fuzz: deps
	bash fuzz/build.sh
	bash fuzz/run.sh $(FUZZ_SECONDS)
fuzz-smoke:
	bash fuzz/build.sh
	bash fuzz/run.sh 25

bench: deps
	bash bench/compare.sh

clean:
	rm -rf .build
