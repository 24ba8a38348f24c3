#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Set-up for a fresh Debian 12 machine, run as root from a checkout:
#
#   scripts/setup.sh demo   install what is missing, build, and run nvprofiled on a private D-Bus over
#                           this machine's real /proc with the example rc files from conf/, then show
#                           with nvprofilectl what it resolved
#   scripts/setup.sh test   install what is missing, build twice (plain, and with ASan+UBSan), run the
#                           whole suite in both, print "N passed, M failed"
#
# Options: --corpus-required (fail instead of skip when ../shared/corpus is missing; CI sets it),
#          --no-install (do not call apt-get).
set -euo pipefail

cd "$(dirname "$0")/.."
top=$(pwd)

mode=${1:-}
shift || true
corpus_required=false
install=true
for arg in "$@"; do
    case "$arg" in
        --corpus-required) corpus_required=true ;;
        --no-install) install=false ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

# Everything the build, the daemon and the tests use, by Debian package name.
packages=(
    gcc pkg-config meson ninja-build
    libsystemd-dev libjson-c-dev libdrm-dev libprotobuf-c-dev protobuf-c-compiler
    libglib2.0-dev dbus systemd libxml2-utils locales
    clang libclang-rt-14-dev
)

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages (run as root to install): ${missing[*]}" >&2
        exit 1
    fi
    echo "==> installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# configure DIR [meson options...]: (re)configures a build directory.
configure() {
    local dir=$1
    shift
    if [ -d "$dir" ] && [ -f "$dir/build.ninja" ]; then
        meson configure "$dir" "$@" >/dev/null
    else
        rm -rf "$dir"
        meson setup "$dir" "$@" >/dev/null
    fi
}

# Counts meson's per-test results of one build directory into the totals.
passed=0
failed=0
skipped=0
count_results() {
    local log=$1/meson-logs/testlog.json
    [ -f "$log" ] || return 0
    local counts
    counts=$(python3 - "$log" <<'EOF'
import json, sys
ok = fail = skip = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line).get('result')
    if r in ('OK', 'EXPECTEDFAIL'):
        ok += 1
    elif r == 'SKIP':
        skip += 1
    else:
        fail += 1
print(ok, fail, skip)
EOF
)
    read -r p f s <<<"$counts"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

run_suite() {
    local dir=$1
    shift
    echo "==> test: $dir"
    meson test -C "$dir" --print-errorlogs --num-processes "$(nproc)" "$@" || true
    count_results "$dir"
}

do_test() {
    local common=(-Dwarning_level=3 -Dwerror=true -Dcorpus_required=$corpus_required)

    echo "==> build: plain"
    configure build "${common[@]}"
    ninja -C build

    echo "==> build: ASan+UBSan"
    configure build-sanitize "${common[@]}" -Db_sanitize=address,undefined -Db_lundef=false
    ninja -C build-sanitize

    run_suite build
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export LSAN_OPTIONS=suppressions=$top/tests/sanitizers/lsan.supp:print_suppressions=0
    run_suite build-sanitize

    if command -v clang >/dev/null && [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
        echo "==> build: libFuzzer (clang), short fuzzing run"
        CC=clang configure build-fuzz "${common[@]}" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false
        ninja -C build-fuzz
        run_suite build-fuzz --suite fuzz-smoke
    fi

    echo "${passed} passed, ${failed} failed, ${skipped} skipped"
    [ "$failed" -eq 0 ]
}

do_demo() {
    configure build-demo -Dtests=false -Dwarning_level=3 -Dwerror=true
    ninja -C build-demo
    exec "$top/build-demo/client/nvprofiled-demo" "$top"
}

case "$mode" in
    test)
        $install && install_missing
        do_test
        ;;
    demo)
        $install && install_missing
        do_demo
        ;;
    *)
        sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
