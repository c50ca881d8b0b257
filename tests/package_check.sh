#!/usr/bin/env bash
# tst_package: builds the Debian package from this build's install rules with CPack, checks its
# fields and contents with dpkg-deb, unpacks it into a scratch root and runs the unpacked program.
# Usage: package_check.sh BUILD_DIR VERSION
set -euo pipefail

BUILD_DIR="$1"
VERSION="$2"
SCRATCH="$BUILD_DIR/tests/package-check"
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"

# 1. The package, into the scratch folder (CPack stages its install there too).
if ! cpack -G DEB --config "$BUILD_DIR/CPackConfig.cmake" -B "$SCRATCH" >"$SCRATCH/cpack.log" 2>&1; then
    cat "$SCRATCH/cpack.log" >&2
    echo "FAIL: cpack could not build the package" >&2
    exit 1
fi
debs=("$SCRATCH"/attention-explorer_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    echo "FAIL: expected one attention-explorer_*.deb in the scratch folder, found: ${debs[*]}" >&2
    exit 1
fi
deb="${debs[0]}"
arch="$(dpkg --print-architecture)"
[ "$(basename "$deb")" = "attention-explorer_${VERSION}_${arch}.deb" ] \
    || fail "the package is named $(basename "$deb"), not attention-explorer_${VERSION}_${arch}.deb"

# 2. The control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = attention-explorer ] || fail "Package is \"$(field Package)\""
[ "$(field Version)" = "$VERSION" ] || fail "Version is \"$(field Version)\", the project's is $VERSION"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture is \"$(field Architecture)\", not $arch"
case "$(field Section)" in science|education) ;; *) fail "Section is \"$(field Section)\", not science or education" ;; esac
grep -Eq '^[^<]+ <[^<>@ ]+@[^<>@ ]+>$' <<<"$(field Maintainer)" || fail "Maintainer \"$(field Maintainer)\" is not Name <e-mail>"
description="$(field Description)"
[ "$(printf '%s\n' "$description" | wc -l)" -ge 3 ] || fail "Description has no long description: \"$description\""
# Depends comes from dpkg-shlibdeps: the libraries the binary links, with their versions.
depends="$(field Depends)"
depends_names="$(printf '%s\n' "$depends" | tr ',|' '\n\n' | awk '{print $1}')"
for lib in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6; do
    grep -qxF "$lib" <<<"$depends_names" || fail "Depends lacks $lib: $depends"
done
grep -qF '(>=' <<<"$depends" || fail "Depends carries no versions, so dpkg-shlibdeps did not run: $depends"

# 3. The contents: the program, its menu entry, icon, man page, licence and the model in the box, under /usr only.
dpkg-deb -c "$deb" >"$SCRATCH/contents.txt"
paths="$(awk '{print $6}' "$SCRATCH/contents.txt")"
for path in ./usr/bin/attention-explorer \
    ./usr/share/applications/attention-explorer.desktop \
    ./usr/share/icons/hicolor/scalable/apps/attention-explorer.svg \
    ./usr/share/man/man1/attention-explorer.1.gz \
    ./usr/share/doc/attention-explorer/copyright \
    ./usr/share/doc/attention-explorer/changelog.gz \
    ./usr/share/attention-explorer/models/builtin/config.json \
    ./usr/share/attention-explorer/models/builtin/model.safetensors \
    ./usr/share/attention-explorer/models/builtin/tokenizer.json; do
    grep -qxF "$path" <<<"$paths" || fail "the package lacks $path"
done
outside="$(grep -v -e '^\./$' -e '^\./usr/' <<<"$paths" || true)"
[ -z "$outside" ] || fail "the package installs outside /usr: $outside"
binary_entry="$(grep -E ' \./usr/bin/attention-explorer$' "$SCRATCH/contents.txt" || true)"
[[ "$binary_entry" == "-rwxr-xr-x root/root "* ]] \
    || fail "/usr/bin/attention-explorer is not an executable owned by root: $binary_entry"

# 4. Unpacked into a scratch root, the files are what they claim to be, and the program runs.
root="$SCRATCH/root"
dpkg-deb -x "$deb" "$root"
program="$root/usr/bin/attention-explorer"
got="$("$program" --version 2>&1)" || fail "--version failed: $got"
[ "$got" = "attention-explorer $VERSION" ] || fail "--version printed \"$got\", not \"attention-explorer $VERSION\""
out="$SCRATCH/weights.png"
if "$program" --export-heatmap "$out" --preset illustrated --annotate >"$SCRATCH/export.log" 2>&1; then
    [ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$out is not a PNG"
else
    fail "--export-heatmap failed: $(cat "$SCRATCH/export.log")"
fi
"$program" --compute --model builtin --text "When Mary and John" >"$SCRATCH/builtin.json" 2>&1 \
    || fail "--model builtin failed: $(head -c 300 "$SCRATCH/builtin.json")"
man_page="$SCRATCH/attention-explorer.1"
gzip -dc "$root/usr/share/man/man1/attention-explorer.1.gz" >"$man_page" 2>/dev/null \
    && grep -qF ".TH ATTENTION-EXPLORER 1 " "$man_page" || fail "the man page is not a gzipped page of section 1"
grep -qF "\"Attention Explorer $VERSION\"" "$man_page" || fail "the man page does not name version $VERSION"
# Every option --help lists is in the man page.
man_text="$(sed 's/\\-/-/g' "$man_page")"
help_text="$("$program" --help)" || fail "--help failed"
for option in $(grep -Eo -- '--[a-z][a-z-]*' <<<"$help_text" | sort -u); do
    grep -qF -- "$option" <<<"$man_text" || fail "the man page does not describe $option"
done
cmp -s "$root/usr/share/doc/attention-explorer/copyright" "$(dirname "$0")/../LICENSE" \
    || fail "/usr/share/doc/attention-explorer/copyright is not the licence"
desktop="$root/usr/share/applications/attention-explorer.desktop"
if [ -f "$desktop" ]; then
    grep -qx 'Exec=attention-explorer %f' "$desktop" || fail "the menu entry does not start attention-explorer"
    grep -qx 'Icon=attention-explorer' "$desktop" || fail "the menu entry does not name the installed icon"
    if command -v desktop-file-validate >/dev/null; then
        desktop-file-validate "$desktop" || fail "desktop-file-validate refuses the menu entry"
    fi
fi

if [ "$failures" -gt 0 ]; then
    echo "tst_package: $failures check(s) failed; the package is $deb" >&2
    exit 1
fi
echo "tst_package: $(basename "$deb") passed every check"
rm -rf "$SCRATCH"
