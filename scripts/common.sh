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
    libcurl4-openssl-dev libssl-dev libjansson-dev
    nginx
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

# pip flags for this interpreter: PEP 668 marks Debian's python "externally
# managed" and pip refuses plain installs there; say up front that we mean it.
pq_pip_flags() {
    "$1" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' &&
        echo --break-system-packages
    return 0
}

# pq_python_requirement_met PYTHON SPEC — whether the installed distribution
# satisfies SPEC's version ("moto[s3,server]>=5.2.5"), by pip's own parser.
pq_python_requirement_met() {
    "$1" - "$2" <<'EOF' >/dev/null 2>&1
import sys, importlib.metadata as md
from pip._vendor.packaging.requirements import Requirement
r = Requirement(sys.argv[1])
sys.exit(0 if r.specifier.contains(md.version(r.name), prereleases=True) else 1)
EOF
}

# pq_ensure_python_modules REQUIREMENTS_FILE — make every module the file
# lists importable for python3 (pip installs only when one is missing). The
# module name is the package name with '-' as '_' unless a line says
# "package  # module: name"; "package  # command: name" checks for a program
# on PATH or beside python3 instead.
pq_ensure_python_modules() {
    local req="$1" py missing=() line pkg mod
    py="$(command -v python3)" || pq_die "python3 not found"
    while IFS= read -r line || [ -n "$line" ]; do
        pkg="${line%%#*}"
        pkg="$(printf '%s' "$pkg" | tr -d '[:space:]')"
        [ -n "$pkg" ] || continue
        mod="${pkg%%[<>=!~;[]*}"
        mod="${mod//-/_}"
        case "$line" in *"module: "*) mod="${line##*module: }"; mod="${mod%% *}" ;; esac
        case "$line" in
        *"command: "*) # a package that installs a program, not a module
            local cmd="${line##*command: }"
            cmd="${cmd%% *}"
            command -v "$cmd" >/dev/null 2>&1 || [ -x "$(dirname "$py")/$cmd" ] || missing+=("$pkg")
            continue ;;
        esac
        if ! "$py" -c "import $mod" >/dev/null 2>&1; then
            missing+=("$pkg")
        elif [ "$pkg" != "${pkg%%[<>=!~]*}" ] && ! pq_python_requirement_met "$py" "$pkg"; then
            missing+=("$pkg") # installed, but not the version the line asks for
        fi
    done <"$req"
    [ "${#missing[@]}" -eq 0 ] && return 0
    if [ "${PQ_NO_INSTALL:-0}" = 1 ]; then
        pq_die "missing Python packages for $py (PQ_NO_INSTALL=1): ${missing[*]}"
    fi
    if ! "$py" -m pip --version >/dev/null 2>&1; then
        pq_apt_install python3-pip
    fi
    pq_say "installing for $py: ${missing[*]}"
    local flags
    flags="$(pq_pip_flags "$py")"
    # shellcheck disable=SC2086  # flags is empty or one word
    PIP_ROOT_USER_ACTION=ignore "$py" -m pip install -q $flags "${missing[@]}" ||
        pq_die "could not pip install: ${missing[*]}"
}

# Make python3 import everything the test suite imports (tests/requirements.txt).
pq_ensure_pyarrow() {
    pq_ensure_python_modules "$PQ_ROOT/tests/requirements.txt"
    python3 -c "import pyarrow, numpy, duckdb, fastparquet, geopandas, shapely, polars, boto3, botocore, cloudpickle, distributed, pandas, pyspark" ||
        pq_die "pyarrow, numpy, duckdb, fastparquet, geopandas, shapely, polars, boto3, botocore, cloudpickle, distributed, pandas or pyspark still does not import"
}

# pq_ensure_wheels DIR — the wheels `pip install <repo>` builds with
# (scikit-build-core and what it needs), downloaded into DIR once, so that the
# pip install check (tests/install/pip_check.sh) runs offline.
pq_ensure_wheels() {
    local dir="$1"
    compgen -G "$dir/scikit_build_core-*.whl" >/dev/null && return 0
    if [ "${PQ_NO_INSTALL:-0}" = 1 ]; then
        pq_say "no build-backend wheels in $dir (PQ_NO_INSTALL=1): the pip install check will skip"
        return 0
    fi
    pq_say "downloading the build backend's wheels into $dir"
    PIP_ROOT_USER_ACTION=ignore python3 -m pip download -q -d "$dir" "scikit-build-core>=0.10" ||
        pq_die "could not download scikit-build-core"
}

# pq_fresh_venv DIR — make DIR a new virtual environment (removing an old one)
# and put it first on PATH, so that what the suite needs must come from its
# own install step, not from what happened to be installed by hand.
pq_fresh_venv() {
    local dir="$1" base
    base="$(command -v python3)" || pq_die "python3 not found"
    rm -rf "$dir"
    if ! "$base" -m venv "$dir" >/dev/null 2>&1; then
        # Debian's python needs python3-venv for ensurepip
        pq_apt_install python3-venv
        rm -rf "$dir"
        "$base" -m venv "$dir" || pq_die "python3 -m venv $dir failed"
    fi
    export PATH="$dir/bin:$PATH"
    export VIRTUAL_ENV="$dir"
    pq_say "fresh virtual environment: $dir ($(python3 --version))"
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

# build-fuzz/: clang, libFuzzer + ASan/UBSan, every fuzz target and the seeds.
pq_build_fuzz() {
    CC=clang pq_configure build-fuzz -DCMAKE_BUILD_TYPE=Debug -DPQ_BUILD_FUZZ=ON \
        -DPQ_BUILD_TESTS=OFF -DPQ_BUILD_BENCH=OFF -DPQ_ENABLE_CUDA=OFF
    pq_build build-fuzz fuzzers fuzz_seeds
}
