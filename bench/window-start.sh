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
set -euo pipefail

runs=10 atspi=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n) runs=$2; shift 2 ;;
	--atspi) atspi=$2; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
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

times=()
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
	session_stop
done

sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$((runs / 2))]}
echo "$(basename "$1"): exec to $([ -n "$atspi" ] && echo "window on AT-SPI" || echo "window mapped"), median of $runs: $median ms (runs: ${times[*]} ms; load $(cut -d' ' -f1 /proc/loadavg))"
