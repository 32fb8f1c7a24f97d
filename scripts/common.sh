# shellcheck shell=bash
# common.sh — shared by scripts/test and scripts/demo (source it, do not run it).
#
# Installs what a fresh Debian 12 machine lacks (only what is missing), finds
# python3 with pyarrow, and configures/builds a CMake build directory.
#
# Environment:
#   PQ_JOBS          parallel build jobs (default 2)
#   PQ_BUILD_ROOT    directory holding the build dirs (default: the repo root)
#   PQ_NO_INSTALL=1  never call apt-get or pip; just report what is missing

PQ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PQ_JOBS="${PQ_JOBS:-2}"
# Where build/, build-asan/, ... go: the repo root unless PQ_BUILD_ROOT says
# otherwise (handy when several people share one checkout).
PQ_BUILD_ROOT="${PQ_BUILD_ROOT:-$PQ_ROOT}"

# Debian packages the build, the tests and the fuzzers need. The clang runtime
# package (libFuzzer lives in libclang-rt-<major>-dev on Debian 12) is added
# once we know clang's version.
PQ_DEB_PACKAGES=(
    build-essential cmake pkg-config
    libthrift-c-glib-dev thrift-compiler libglib2.0-dev
    check
    liblz4-dev libzstd-dev libsnappy-dev libdeflate-dev libbrotli-dev libxxhash-dev
    clang
)

pq_say() { printf '%s\n' "$*"; }
pq_warn() { printf 'warning: %s\n' "$*" >&2; }
pq_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# A visible banner between steps, so a long log stays easy to scan.
pq_banner() {
    printf '\n==== %s ====\n' "$*"
}

# Run a command as root: directly, through sudo, or not at all.
pq_as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        pq_die "need root (or sudo) to run: $*"
    fi
}

pq_deb_installed() {
    dpkg -s "$1" >/dev/null 2>&1 &&
        dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

PQ_APT_UPDATED=0
# Install the given Debian packages that are not installed yet.
pq_apt_install() {
    local missing=() p
    for p in "$@"; do
        pq_deb_installed "$p" || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    if [ "${PQ_NO_INSTALL:-0}" = 1 ]; then
        pq_die "missing Debian packages (PQ_NO_INSTALL=1): ${missing[*]}"
    fi
    command -v apt-get >/dev/null 2>&1 ||
        pq_die "no apt-get here; install these yourself: ${missing[*]}"
    pq_say "installing: ${missing[*]}"
    if [ "$PQ_APT_UPDATED" = 0 ]; then
        pq_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
        PQ_APT_UPDATED=1
    fi
    pq_as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The clang major version ("14"), or empty without clang.
pq_clang_major() {
    command -v clang >/dev/null 2>&1 || return 0
    clang -dumpversion 2>/dev/null | cut -d. -f1
}

pq_install_deps() {
    if ! command -v dpkg >/dev/null 2>&1; then
        pq_warn "not a Debian system: skipping package checks (see CONTRIBUTING.md for the list)"
        return 0
    fi
    local pkgs=("${PQ_DEB_PACKAGES[@]}")
    command -v python3 >/dev/null 2>&1 || pkgs+=(python3 python3-pip)
    pq_apt_install "${pkgs[@]}"
    local major
    major="$(pq_clang_major)"
    if [ -n "$major" ] && ! pq_fuzzer_runtime_present; then
        pq_apt_install "libclang-rt-${major}-dev"
    fi
}

# libFuzzer's runtime: clang finds it in its resource directory.
pq_fuzzer_runtime_present() {
    local dir
    dir="$(clang -print-resource-dir 2>/dev/null)" || return 1
    compgen -G "$dir/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null ||
        compgen -G "$dir/lib/*/libclang_rt.fuzzer.a" >/dev/null
}

# Make `python3 -c "import pyarrow"` work: pip, then pip with
# --break-system-packages (Debian's system python refuses plain pip installs).
pq_ensure_pyarrow() {
    local py
    py="$(command -v python3)" || pq_die "python3 not found"
    if "$py" -c "import pyarrow" >/dev/null 2>&1; then
        return 0
    fi
    if [ "${PQ_NO_INSTALL:-0}" = 1 ]; then
        pq_die "pyarrow is missing for $py (PQ_NO_INSTALL=1)"
    fi
    if ! "$py" -m pip --version >/dev/null 2>&1; then
        pq_apt_install python3-pip
    fi
    pq_say "installing pyarrow for $py"
    # PEP 668: Debian marks its python "externally managed" and pip refuses
    # plain installs there; say up front that we mean it.
    local flags=()
    if "$py" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
        flags+=(--break-system-packages)
    fi
    PIP_ROOT_USER_ACTION=ignore "$py" -m pip install -q "${flags[@]}" pyarrow ||
        pq_die "could not pip install pyarrow"
    "$py" -c "import pyarrow" || pq_die "pyarrow still does not import"
}

# pq_configure DIR [cmake args...] — configure DIR (relative to PQ_BUILD_ROOT)
# with the python that has pyarrow, so the Python tests use the same one.
pq_configure() {
    local dir="$1" py
    shift
    # The real interpreter, not a shim (pyenv): ctest runs it without our PATH tricks.
    py="$(python3 -c 'import sys; print(sys.executable)')"
    cmake -S "$PQ_ROOT" -B "$PQ_BUILD_ROOT/$dir" -DPython3_EXECUTABLE="$py" "$@"
}

# pq_build DIR [targets...]
pq_build() {
    local dir="$1" t args=()
    shift
    for t in "$@"; do args+=(--target "$t"); done
    cmake --build "$PQ_BUILD_ROOT/$dir" -j "$PQ_JOBS" "${args[@]}"
}
