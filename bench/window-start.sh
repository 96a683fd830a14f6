#!/bin/bash
# How long a window takes to come up: exec of COMMAND to its first top-level window mapped on the X display
# (or, with --atspi NAME, to the application NAME showing a window on AT-SPI), median of N runs.
# Each run gets the same fresh display as the window tests (Xvfb 1280x800x24, a private D-Bus session bus that
# is also the AT-SPI bus, the AT-SPI registry, GSK_RENDERER=cairo), so figures compare with theirs.
#
#   bench/window-start.sh [-n RUNS] [--atspi NAME] -- COMMAND [ARGS…]
#   bench/window-start.sh -- zenity --forms --title=Archiver --add-entry=Name
#   bench/window-start.sh --atspi zenity -- zenity --forms --title=Archiver --add-entry=Name
#   bench/window-start.sh -- .build/debug/archiver-compress ~/Pictures
#
# The comparison issue 33 asks for, both ways (mapped and on AT-SPI), in one run: Compress… (on a folder) and
# Extract… (on a small zip) against the floor (bench/window-floor.c: a minimal C GTK 4 + libadwaita window,
# built here) and `zenity --info`, with each one's ratio to both:
#   bench/window-start.sh [-n RUNS] --compare [BIN]      (BIN: the folder holding archiver-compress and
#                                                         archiver-extract; default .build/release)
# Targets: Compress… and Extract… ≤ 1.2× the floor on AT-SPI; the ratio to zenity is reported.
# Each window's CPU time up to that moment (every thread of its process) is reported too: on a busy machine
# the wall-clock figures mostly measure the load, the CPU time much less.
set -euo pipefail

runs=10 atspi="" compare=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n) runs=$2; shift 2 ;;
	--atspi) atspi=$2; shift 2 ;;
	--compare) compare=1; shift; break ;;
	--) shift; break ;;
	*) break ;;
	esac
done
root=$(cd "$(dirname "$0")/.." && pwd)

if [ -n "$compare" ]; then
	bin=$(cd "${1:-$root/.build/release}" && pwd)
	for program in archiver-compress archiver-extract compress-with-archiver extract-with-archiver; do
		[ -x "$bin/$program" ] || { echo "no $bin/$program: build first (swift build -c release)" >&2; exit 2; }
	done
	tmp=$(mktemp -d /tmp/window-compare.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	# shellcheck disable=SC2046  # pkg-config's flags are words
	cc -O2 -o "$tmp/window-floor" "$root/bench/window-floor.c" $(pkg-config --cflags --libs libadwaita-1)
	mkdir -p "$tmp/Photos"
	head -c 100000 /dev/urandom >"$tmp/Photos/notes.bin"
	(cd "$tmp" && python3 -c "import zipfile; z = zipfile.ZipFile('Photos.zip', 'w'); [z.writestr(f'Photos/{i}.txt', 'notes\\n' * 100) for i in range(50)]; z.close()")
	# name on AT-SPI | command
	windows=(
		"window-floor|$tmp/window-floor"
		"zenity|zenity --info --text=Archiver"
		"archiver-compress|$bin/archiver-compress $tmp/Photos"
		"archiver-extract|$bin/archiver-extract $tmp/Photos.zip"
	)
	echo "exec to window, median of $runs, load $(cut -d' ' -f1 /proc/loadavg) at the start"
	printf '%-18s %10s %10s %10s %10s %10s %10s\n' window way "median ms" "× floor" "× zenity" "cpu ms" "cpu × floor"
	for way in mapped atspi; do
		declare -A median=() cpu=()
		for entry in "${windows[@]}"; do
			name=${entry%%|*} command=${entry#*|}
			flag=()
			[ "$way" = atspi ] && flag=(--atspi "$name")
			# shellcheck disable=SC2086  # the command's words
			# (pyatspi's warnings about the registry's cache only on a failure)
			line=$("$0" -n "$runs" "${flag[@]}" -- $command 2>"$tmp/errors") || { cat "$tmp/errors" >&2; exit 1; }
			median[$name]=$(echo "$line" | sed -n 's/.*median of [0-9]*: \([0-9]*\) ms.*/\1/p')
			cpu[$name]=$(echo "$line" | sed -n 's/.*CPU median \([0-9]*\) ms.*/\1/p')
		done
		for entry in "${windows[@]}"; do
			name=${entry%%|*}
			printf '%-18s %10s %10s %10s %10s %10s %10s\n' "$name" "$way" "${median[$name]}" \
				"$(awk -v a="${median[$name]}" -v b="${median[window-floor]}" 'BEGIN {printf "%.2f", a / b}')" \
				"$(awk -v a="${median[$name]}" -v b="${median[zenity]}" 'BEGIN {printf "%.2f", a / b}')" \
				"${cpu[$name]}" "$(awk -v a="${cpu[$name]}" -v b="${cpu[window-floor]}" 'BEGIN {printf "%.2f", a / b}')"
		done
		unset median cpu
	done
	exit 0
fi
[ $# -gt 0 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
work=$(mktemp -d /tmp/window-start.XXXXXX)
chmod 700 "$work"
pids=()
source "$root/bench/display-session.sh"
trap 'session_stop; rm -rf "$work"' EXIT

# The first top-level window (other than those listed in $1) that is mapped and larger than GTK's 1x1 helpers.
new_window() {
	local id
	for id in $(xwininfo -root -children 2>/dev/null | awk '/^ +0x/ {print $1}'); do
		case " $1 " in *" $id "*) continue ;; esac
		xwininfo -id "$id" 2>/dev/null | awk '/Map State:/ {m=$3} /Width:/ {w=$2} /Height:/ {h=$2}
			END {exit !(m == "IsViewable" && w > 1 && h > 1)}' && return 0
	done
	return 1
}

# The CPU time PID's threads have used so far, in ms (schedstat: nanoseconds on a CPU, per thread).
cpu_ms() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ns += $1} END {printf "%d", ns / 1e6}'
}

times=() cpus=()
for run in $(seq "$runs"); do
	# A fresh session per run, as each window test gets.
	session_start
	before=$(xwininfo -root -children | awk '/^ +0x/ {print $1}' | tr '\n' ' ')
	if [ -n "$atspi" ]; then
		# The driver's Python and pyatspi start first, so the clock covers only the command.
		coproc DRIVER { exec /usr/bin/python3 "$root/Tests/ArchiverTestSupport/atspi/driver.py" serve; }
		pids+=($DRIVER_PID)
		echo '{"cmd": "labels"}' >&"${DRIVER[1]}"
		read -r _ <&"${DRIVER[0]}"
	fi
	start=$(now_ms)
	"$@" >/dev/null 2>&1 &
	app=$!
	pids+=($app)
	if [ -n "$atspi" ]; then
		echo "{\"cmd\": \"wait-app\", \"app\": \"$atspi\", \"timeout\": 30}" >&"${DRIVER[1]}"
		read -r reply <&"${DRIVER[0]}"
		case "$reply" in *'"ok": true'*) ;; *) echo "run $run: $reply" >&2; exit 1 ;; esac
	else
		until new_window "$before"; do
			kill -0 "$app" 2>/dev/null || { echo "run $run: the command ended before a window showed" >&2; exit 1; }
			if [ $(($(now_ms) - start)) -gt 30000 ]; then echo "run $run: no window within 30 s" >&2; exit 1; fi
			sleep 0.005
		done
	fi
	times+=($(($(now_ms) - start)))
	cpus+=("$(cpu_ms "$app")")
	session_stop
done

sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$((runs / 2))]}
mapfile -t cpu_sorted < <(printf '%s\n' "${cpus[@]}" | sort -n)
echo "$(basename "$1"): exec to $([ -n "$atspi" ] && echo "window on AT-SPI" || echo "window mapped"), median of $runs: $median ms (runs: ${times[*]} ms; CPU median ${cpu_sorted[$((runs / 2))]} ms; load $(cut -d' ' -f1 /proc/loadavg))"
