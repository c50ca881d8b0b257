#!/usr/bin/env bash
# Runs the window-fit test (tst_windowfit) on a screen of the given size under a real window manager:
# Xvfb on a free display, openbox on it, the test with Qt's xcb platform; both are stopped afterwards.
# Usage: windowfit.sh TEST_BINARY WIDTHxHEIGHT
set -euo pipefail
binary="$1"
size="$2"

fifo_dir="$(mktemp -d)"
trap 'kill "${wm_pid:-}" "${x_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$fifo_dir"' EXIT
# Xvfb writes the display number it chose to the descriptor it is given once it accepts clients.
Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp 3>"$fifo_dir/display" 2>"$fifo_dir/xvfb.log" &
x_pid=$!
for _ in $(seq 100); do
    [ -s "$fifo_dir/display" ] && break
    sleep 0.1
done
display=":$(head -n1 "$fifo_dir/display")"
[ "$display" != ":" ] || { echo "windowfit.sh: Xvfb did not start:" >&2; cat "$fifo_dir/xvfb.log" >&2; exit 1; }
export DISPLAY="$display"
openbox --sm-disable >"$fifo_dir/openbox.log" 2>&1 &
wm_pid=$!
# The window manager names itself on the root window (_NET_SUPPORTING_WM_CHECK) once it manages windows.
for _ in $(seq 100); do
    xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id' && break
    sleep 0.1
done
# libxkbcommon-x11 strndup()s atom names that carry no terminating NUL, which is allowed but which
# strict string checks report inside that library; the sanitizer build keeps every other check here.
if [ -n "${ASAN_OPTIONS:-}" ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS//strict_string_checks=1/strict_string_checks=0}"
fi
QT_QPA_PLATFORM=xcb "$binary"
