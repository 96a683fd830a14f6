# Sourced by the window benchmarks: a fresh display session like the window tests' (Xvfb 1280x800x24, a private
# D-Bus session bus that is also the AT-SPI bus, the AT-SPI registry, GSK_RENDERER=cairo), so that figures
# compare with theirs. `session_start` exports DISPLAY and the bus; `session_stop` ends everything it started.
# Needs $root (the checkout), $work (a private folder, removed by the caller) and the caller's `pids` array.


display=""

session_start() {
	exec 3< <(exec Xvfb -displayfd 1 -nolisten tcp -screen 0 1280x800x24 2>/dev/null)
	read -r display <&3
	pids+=($!)
	exec 4< <(exec dbus-daemon --config-file="$root/Tests/ArchiverTestSupport/session-bus.conf" --nofork --print-address 2>/dev/null)
	read -r bus <&4
	pids+=($!)
	export DISPLAY=":$display" DBUS_SESSION_BUS_ADDRESS="$bus" AT_SPI_BUS_ADDRESS="$bus" GSK_RENDERER=cairo \
		GTK_A11Y=atspi XDG_RUNTIME_DIR="$work" LC_ALL=C.UTF-8
	unset NO_AT_BRIDGE WAYLAND_DISPLAY
	/usr/libexec/at-spi2-registryd >/dev/null 2>&1 &
	pids+=($!)
	gdbus wait --session --timeout 10 org.a11y.atspi.Registry
}

session_stop() {
	for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -z "$display" ] || rm -f "/tmp/.X$display-lock" "/tmp/.X11-unix/X$display"
	pids=()
	display=""
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The start of a window benchmark run as `SCRIPT [-n RUNS] [BIN]`: sets runs (default 5), bin (BIN, default
# .build/timings/release, which must hold PROGRAM), a private $work removed at exit with the session, and pids.
# The window writes its figures only where ARCHIVER_UI_TIMINGS says, a test hook that release builds leave
# out: `make bench-build` makes an optimised build with the hooks in .build/timings.
bench_window_setup() {
	local program=$1 name=$2
	shift 2
	runs=5
	[ "${1:-}" = -n ] && { runs=$2; shift 2; }
	bin=$(cd "${1:-$root/.build/timings/release}" && pwd)
	[ -x "$bin/$program" ] || { echo "no $bin/$program: build with 'make bench-build' first" >&2; exit 2; }
	grep -q ARCHIVER_UI_TIMINGS "$bin/$program" ||
		{ echo "$bin/$program has no timings hook (a release build): build with 'make bench-build'" >&2; exit 2; }
	work=$(mktemp -d "/tmp/$name.XXXXXX")
	chmod 700 "$work"
	pids=()
	trap 'session_stop; rm -rf "$work"' EXIT
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
value() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
