# Shared by scripts/run, scripts/test and scripts/bench: install what is missing, then build.
# Sourced, not run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${AE_BUILD_DIR:-$ROOT/build/release}"
JOBS="$(nproc 2>/dev/null || echo 2)"

# What building and running needs (Debian 12 package names).
BUILD_PACKAGES=(g++ cmake ninja-build pkg-config ccache
    qt6-base-dev qt6-svg-dev qt6-tools-dev qt6-l10n-tools qt6-translations-l10n libgl-dev
    libeigen3-dev nlohmann-json3-dev libicu-dev
    fonts-dejavu-core fonts-wqy-microhei)
# What the fuzz harnesses add (libFuzzer comes with clang's runtime libraries).
FUZZ_PACKAGES=(clang libclang-rt-14-dev libicu-dev)
# What the tests use besides: the PyTorch export is run with torch, the .npy reader is checked
# against NumPy, the report's text is read back with poppler's pdftotext.
TEST_PACKAGES=(xvfb xauth python3-torch python3-numpy poppler-utils)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# ensure_packages PKG...: installs with apt-get, without prompting, whatever is not installed yet.
ensure_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "scripts: need root (or sudo) to install: ${missing[*]}" >&2; return 1; }
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# configure_and_build DIR BUILD_TYPE [CMAKE ARGS...]: incremental build of the project in DIR.
configure_and_build() {
    configure_and_build_source "$ROOT" "$@"
}

# configure_and_build_source SOURCE DIR BUILD_TYPE [CMAKE ARGS...]: the same for any CMake source folder.
configure_and_build_source() {
    local src="$1" dir="$2" type="$3"
    shift 3
    local gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    # ccache keeps objects across builds and clones: paths are taken relative to the source folder,
    # so a fresh clone of the same tree compiles from the cache.
    if command -v ccache >/dev/null; then
        gen+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
        export CCACHE_BASEDIR="$src" CCACHE_NOHASHDIR=1
    fi
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        say "configuring $type build in ${dir#"$ROOT"/}"
        cmake -S "$src" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
    else
        cmake -S "$src" -B "$dir" "$@" >/dev/null
    fi
    say "building in ${dir#"$ROOT"/}"
    cmake --build "$dir" -j"$JOBS"
}

# Seconds since the epoch, for the phase timings.
now() { date +%s; }
