#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Set-up for a fresh Debian 12 machine, run as root from a checkout (anywhere: /root/src too):
#
#   scripts/setup.sh install    install what the build needs, build a release with Debian's layout (/usr,
#                               /etc, /var), install it, create the nvprofiled user, reload systemd and
#                               D-Bus, enable and start nvprofiled.service and show nvprofilectl status
#                               (where systemd is not running, a chroot: installed and enabled, not started)
#   scripts/setup.sh uninstall  stop and disable the service, remove every installed file, the service's
#                               state (/var/lib/nvprofiled), the user and the folders the install created
#                               when empty; a configuration file that differs from the installed one is
#                               kept as FILE.nvprofiled-save
#   scripts/setup.sh demo       install what is missing, build, and run nvprofiled on a private D-Bus over
#                               this machine's real /proc with the example rc files from conf/, then show
#                               with nvprofilectl what it resolved (installs nothing of nvprofiled, starts
#                               no service)
#   scripts/setup.sh test       install what is missing, build twice (plain, and with ASan+UBSan), run the
#                               whole suite in both, print "N passed, M failed"; exits non-zero
#                               on any failure
#   scripts/setup.sh deps       only install what is missing
#   scripts/setup.sh packages [install|demo|test]   print the Debian packages each needs, one a line
#
# Options: --corpus-required (CI: fail instead of skip when ../shared/corpus or a checking tool is
#          missing, and count any skipped test as a failure; CI=true in the environment does the same),
#          --check-format (also check that every tracked .c/.h file is as clang-format writes it),
#          --no-install (do not call apt-get).
#          test only: --only=plain (the plain build's suite and the left-overs check, nothing else),
#          --in-fresh-root (CI: the plain build's suite runs in a fresh Debian 12 root, set up only by
#          `scripts/setup.sh test --only=plain` inside it, scripts/test-in-fresh-root.sh; the rest here).
set -euo pipefail

cd "$(dirname "$0")/.."
top=$(pwd)

mode=${1:-}
shift || true
corpus_required=false
install=true
check_format=false
only_plain=false
in_fresh_root=false
# In CI nothing may be skipped: a skip there means a check that did not run.
ci=false
[ "${CI:-}" = true ] && ci=true
for arg in "$@"; do
    case "$mode:$arg" in
        packages:install | packages:demo | packages:test) continue ;;
    esac
    case "$arg" in
        --corpus-required) corpus_required=true; ci=true ;;
        --check-format) check_format=true ;;
        --no-install) install=false ;;
        --only=plain) only_plain=true ;;
        --in-fresh-root) in_fresh_root=true ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

# What each mode needs, by Debian package name. install: the build of the daemon, the client and the
# Python package, and what the service runs on (pci.ids: the PCI ID database that names DRM devices).
# demo: also GLib (the usage fixture). test: everything
# the suites use; the system test (tests/system) builds a Debian root with mmdebstrap and boots it with
# systemd-nspawn; llvm-symbolizer (llvm-14) names the frames of sanitizer reports and leak suppressions;
# the desktop app (client/gtk) builds with GTK 4 and libadwaita, and its tests run it under Xvfb, driven
# through AT-SPI (pyatspi), with screenshots by ImageMagick's import; its install test guesses a report's
# MIME type with shared-mime-info's database (update-mime-database), which the install's post-install step
# updates with the icon cache (gtk-update-icon-cache); tests/gtk/test_app_desktop.py runs
# a real window manager in that display (openbox: minimising is the WM's doing, Xvfb has none) and
# sends it and the app what a user's mouse and keyboard would (xdotool). bash-completion loads
# nvprofilectl's completion script (its pkg-config file says where it goes).
install_packages=(
    gcc pkg-config meson ninja-build python3 python3-dev procps
    libsystemd-dev libjson-c-dev libdrm-dev libprotobuf-c-dev protobuf-c-compiler libprotobuf-dev
    libzstd-dev libseccomp-dev libncurses-dev scdoc libdbus-1-dev libpolkit-gobject-1-dev
    dbus systemd man-db bash-completion pci.ids
)
demo_packages=("${install_packages[@]}" libglib2.0-dev)
# prometheus and prometheus-node-exporter only for their checkers (promtool, the textfile collector run
# by the tests themselves): never left running, see install_missing.
test_packages=("${demo_packages[@]}"
    git protobuf-compiler libxml2-utils locales
    clang libclang-rt-14-dev clang-format llvm-14
    python3-dbusmock groff-base
    tmux prometheus-node-exporter prometheus iproute2 zsh fish
    mmdebstrap systemd-container
    libgtk-4-dev libadwaita-1-dev gettext desktop-file-utils appstream shared-mime-info gtk-update-icon-cache
    xvfb xauth at-spi2-core python3-pyatspi imagemagick openbox xdotool
)
# Network services a Debian postinst would start and enable: the tests need only their programs.
no_service_packages=(prometheus prometheus-node-exporter)

# True where systemd runs this system: not in a chroot, nor in a container or a machine without it.
systemd_running() {
    [ -d /run/systemd/system ] && ! systemd-detect-virt --quiet --chroot 2>/dev/null
}

# install_missing PACKAGE...: apt-get installs those not installed yet.
install_missing() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages (run as root to install): ${missing[*]}" >&2
        exit 1
    fi
    echo "==> installing Debian packages (a minute or more): ${missing[*]}"
    # While installing, no package's maintainer script starts a service (policy-rc.d's 101: "action
    # forbidden"), unless this machine has its own policy.
    local policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' > "$policy"
        chmod 755 "$policy"
    fi
    local status=0
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
        status=$?
    [ -z "$policy" ] || rm -f "$policy"
    [ "$status" -eq 0 ] || exit "$status"
    # Their postinst enabled them: not at the next boot either, also where systemd is not running (a chroot,
    # a container without it: systemctl disable works on the file system, its SysV links included).
    for p in "${no_service_packages[@]}"; do
        if printf '%s\n' "${missing[@]}" | grep -qx "$p"; then
            disable_units_of "$p"
        fi
    done
}

# disable_units_of PACKAGE: disables (and stops, where systemd runs) every unit the package ships.
disable_units_of() {
    local units=()
    mapfile -t units < <(dpkg-query -L "$1" | grep -E '^(/usr)?/lib/systemd/system/[^/]+\.(service|socket|timer|path)$' |
        xargs -r -n1 basename)
    [ ${#units[@]} -gt 0 ] || return 0
    if systemd_running; then
        systemctl disable --now "${units[@]}" >/dev/null 2>&1 || true
    else
        systemctl disable "${units[@]}" >/dev/null 2>&1 || true
    fi
    if systemctl is-enabled --quiet "${units[@]}" 2>/dev/null; then
        echo "==> could not disable ${units[*]} (of $1): disable them yourself" >&2
    fi
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
    t = json.loads(line)
    r = t.get('result')
    if r in ('OK', 'EXPECTEDFAIL'):
        ok += 1
    elif r == 'SKIP':
        skip += 1
        print('skipped:', t.get('name'), file=sys.stderr)
    else:
        fail += 1
        print('failed:', t.get('name'), r, file=sys.stderr)
print(ok, fail, skip)
EOF
)
    read -r p f s <<<"$counts"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

# build DIR: a build that fails counts as one failed test, and the run goes on to report.
build() {
    if ! ninja -C "$1"; then
        echo "==> build failed: $1" >&2
        failed=$((failed + 1))
        return 1
    fi
}

run_suite() {
    local dir=$1
    shift
    echo "==> test: $dir"
    meson test -C "$dir" --print-errorlogs --num-processes "$(nproc)" "$@" || true
    count_results "$dir"
}

# Every tracked .c/.h file must be byte for byte what clang-format (14, config .clang-format) writes.
# Counts as one test; the offending files are listed.
check_formatting() {
    local files=() bad=() f
    if ! command -v clang-format >/dev/null; then
        echo "==> formatting: clang-format is not installed (Debian package clang-format)" >&2
        failed=$((failed + 1))
        return 1
    fi
    echo "==> formatting: $(clang-format --version)"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        while IFS= read -r -d '' f; do files+=("$f"); done < <(git ls-files -z -- '*.c' '*.h')
    else
        while IFS= read -r -d '' f; do files+=("$f"); done < <(find daemon client tests -name '*.[ch]' -print0)
    fi
    for f in "${files[@]}"; do
        [ -f "$f" ] || continue
        clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
    done
    if [ ${#bad[@]} -gt 0 ]; then
        echo "==> not formatted as clang-format writes them (run clang-format -i on each):" >&2
        printf '    %s\n' "${bad[@]}" >&2
        failed=$((failed + 1))
        return 1
    fi
    echo "==> all ${#files[@]} tracked .c/.h files formatted"
    passed=$((passed + 1))
}

# stage NAME COMMAND...: runs one stage of the test run and says how long it took (CI's budget is kept
# by these figures).
stage() {
    local name=$1 start status=0
    shift
    start=$(date +%s)
    "$@" || status=$?
    echo "==> stage $name: $(($(date +%s) - start)) s"
    return "$status"
}

test_plain() {
    echo "==> build: plain"
    # The test packages include GTK's: the app is built and tested, never skipped for a missing library.
    configure build "${common[@]}" -Dgtk=enabled
    build build && run_suite build
}

# The plain build's suite in a fresh Debian 12 root, where `scripts/setup.sh test --only=plain` installs
# everything itself: its "N passed, M failed" line is added to the totals (a run that ends without one,
# one failed test).
test_plain_in_fresh_root() {
    local log line options=(--only=plain)
    $corpus_required && options+=(--corpus-required)
    log=$(mktemp /tmp/nvprofiled-fresh-root-XXXXXX.log)
    scripts/test-in-fresh-root.sh "$top" ../shared "${options[@]}" 2>&1 | tee "$log" || true
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
    rm -f "$log"
    if [ -z "$line" ]; then
        echo "==> the run in the fresh root ended without its count line: one failed test" >&2
        failed=$((failed + 1))
        return 1
    fi
    passed=$((passed + ${line%% passed*}))
    line=${line#* passed, }
    failed=$((failed + ${line%% failed}))
}

test_sanitize() {
    echo "==> build: ASan+UBSan"
    configure build-sanitize "${common[@]}" -Dgtk=enabled -Db_sanitize=address,undefined -Db_lundef=false
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export LSAN_OPTIONS=suppressions=$top/tests/sanitizers/lsan.supp:print_suppressions=0
    # Leak suppressions match function names: without a symbolizer a report has none (llvm-14 installs
    # it under this name only).
    export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
    # The system test builds inside its own root from the checkout: once, in the plain build, is enough.
    build build-sanitize && run_suite build-sanitize --no-suite system
}

test_fuzz() {
    if command -v clang >/dev/null && [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
        echo "==> build: clang with libFuzzer, a short fuzzing run of every target"
        CC=clang configure build-fuzz "${common[@]}" -Dfuzzing=true -Dgtk=disabled -Db_sanitize=address,undefined -Db_lundef=false
        build build-fuzz && run_suite build-fuzz --suite fuzz-smoke
    fi
}

# Counts as one test: nothing of ours may be left running, mounted, listening or in /tmp.
# The README's demo, as a user runs it, with the daemon polling /proc as in a container (where the proc
# connector is not ours): its listing must show the processes it started. Counts as one test.
test_demo() {
    local log
    log=$(mktemp)
    if (NVPROFILED_DEMO_WATCH=poll do_demo) > "$log" 2>&1 &&
        awk '/^==> nvprofilectl processes/ { p = 1; next } /^==> / { p = 0 } p' "$log" |
        grep -q '^5 processes listed'; then
        echo "==> the demo listed the processes it started (its daemon polling /proc)"
        passed=$((passed + 1))
    else
        sed 's/^/    /' "$log" >&2
        echo "==> the demo did not list the processes it started (its output above)" >&2
        failed=$((failed + 1))
    fi
    rm -f "$log"
}

test_leftovers() {
    if tests/leftovers.sh check "$1" "$top"; then
        echo "==> nothing left behind (processes, temporary directories, mounts, listeners, users, enabled units, files in root's home)"
        passed=$((passed + 1))
    else
        echo "==> left behind by the tests (listed above)" >&2
        failed=$((failed + 1))
    fi
}

do_test() {
    common=(-Dwarning_level=3 -Dwerror=true -Dcorpus_required=$corpus_required)
    local snapshot
    snapshot=$(mktemp)
    # Every process the tests start inherits it: how tests/leftovers.sh tells ours from others'.
    NVPROFILED_TEST_RUN=$$-$(date +%s%N)
    export NVPROFILED_TEST_RUN
    if ! tests/leftovers.sh snapshot "$snapshot"; then
        echo "==> tests/leftovers.sh snapshot failed: nothing can be checked" >&2
        echo "${passed} passed, $((failed + 1)) failed"
        return 1
    fi

    if $check_format; then
        stage formatting check_formatting || true
    fi
    if $in_fresh_root; then
        stage "plain (in a fresh root)" test_plain_in_fresh_root || true
    else
        stage plain test_plain || true
    fi
    if ! $only_plain; then
        stage "ASan+UBSan" test_sanitize || true
        stage fuzz test_fuzz || true
    else
        # On a fresh root (CI's --in-fresh-root): the README's demo command works there too.
        stage demo test_demo || true
    fi
    stage leftovers test_leftovers "$snapshot" || true
    rm -f "$snapshot"

    if [ "$skipped" -gt 0 ]; then
        if $ci; then
            # A check that did not run fails in CI.
            echo "==> ${skipped} tests skipped (listed above): counted as failed in CI" >&2
            failed=$((failed + skipped))
        else
            echo "==> ${skipped} tests skipped (listed above)" >&2
        fi
    fi
    echo "${passed} passed, ${failed} failed"
    [ "$failed" -eq 0 ] || return 1
}

write_demo_bus_config() {
    local work=$1
    # A private bus configured like the system bus (method calls denied by default), with our policy.
    cat > "$work/bus.conf" <<END_OF_BUS_CONFIG
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><deny own="*"/><deny send_type="method_call"/><allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/><allow receive_type="method_return"/>
    <allow receive_type="error"/><allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
  </policy>
  <include>$top/dbus/io.github.nvprofiled.NvProfiled1.conf</include>
</busconfig>
END_OF_BUS_CONFIG
}

# Stops every process the demo started, their children first (by parent pid, so nothing is left behind
# re-parented to init), and removes the scratch directory.
demo_cleanup() {
    local p
    for p in "${demo_pids[@]}"; do
        pkill -TERM -P "$p" 2>/dev/null || true
        kill "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$demo_work"
}

do_demo() {
    echo "==> building nvprofiled in build-demo (a few minutes the first time)"
    configure build-demo -Dtests=false -Dwarning_level=3 -Dwerror=true
    ninja -C build-demo >/dev/null

    local work
    work=$(mktemp -d /tmp/nvprofiled-demo-XXXXXX)
    chmod 755 "$work"
    demo_pids=()
    demo_work=$work
    trap demo_cleanup EXIT
    local ctl=(build-demo/client/nvprofilectl "--bus=unix:path=$work/bus")

    echo "==> starting a private D-Bus, and nvprofiled on it"
    write_demo_bus_config "$work"
    dbus-daemon --nofork --config-file="$work/bus.conf" 2>/dev/null &
    demo_pids+=($!)
    for _ in $(seq 100); do [ -S "$work/bus" ] && break; sleep 0.05; done

    echo "    (this machine's real /proc, rc files from conf/examples)"
    # NVPROFILED_DEMO_WATCH=poll: watch as in a container, where the proc connector is not ours (CI's
    # run of the demo checks that it waits for the daemon's poll).
    printf '[ProcessWatch]\nMode=%s\n' "${NVPROFILED_DEMO_WATCH:-auto}" > "$work/nvprofiled.conf"
    NVPROFILED_REPORT_WORKER="$top/build-demo/daemon/nsight/worker/nvprofiled-report-worker" \
    build-demo/daemon/nvprofiled --bus="unix:path=$work/bus" --root="$top/conf/examples" \
        --config="$work/nvprofiled.conf" --log-level=notice 2> "$work/daemon.log" &
    demo_pids+=($!)
    for _ in $(seq 200); do "${ctl[@]}" status >/dev/null 2>&1 && break; sleep 0.05; done

    # Processes the example rules are about: copies of sleep under other names, a Wine-style argv[0],
    # one that renames itself after exec, one with an environment override.
    echo "==> starting the processes the example rules are about (copies of sleep)"
    mkdir -p "$work/bin"
    for name in niri alacritty glxgears; do cp "$(command -v sleep)" "$work/bin/$name"; done
    "$work/bin/niri" 300 & demo_pids+=($!)
    __GL_THREADED_OPTIMIZATIONS=0 "$work/bin/alacritty" 300 & demo_pids+=($!)
    local alacritty=$!
    "$work/bin/glxgears" 300 & demo_pids+=($!)
    (exec -a 'C:\Games\game.exe' sleep 300) & demo_pids+=($!)
    local game=$!
    # Its sleep is its child: stopping the shell stops the sleep too (and demo_cleanup stops the children
    # of every process it started).
    bash -c 'printf demo-renamed > /proc/$$/comm; trap "kill \$child 2>/dev/null; exit 0" TERM; sleep 300 & child=$!; wait' &
    demo_pids+=($!)
    local renamed=$!
    # Until the daemon has seen each of them: at once through the proc connector, at its next poll of
    # /proc where it cannot subscribe (a container: every PollIntervalSec=, 2 s by default).
    local pid seen
    for pid in "$alacritty" "$game" "$renamed"; do
        seen=false
        for _ in $(seq 200); do
            "${ctl[@]}" processes --json=short 2>/dev/null | grep -q "\"pid\":$pid[,}]" && { seen=true; break; }
            sleep 0.05
        done
        $seen || echo "    (nvprofiled has not seen process $pid within 10 s)" >&2
    done

    echo; echo "==> nvprofilectl status"; "${ctl[@]}" status
    echo; echo "==> nvprofilectl processes"; "${ctl[@]}" processes
    echo; echo "==> nvprofilectl explain $alacritty   (alacritty: rules in two files, an environment override)"
    "${ctl[@]}" explain "$alacritty"
    echo; echo "==> nvprofilectl explain $game   (argv[0] is a Windows path: the cmdline feature)"
    "${ctl[@]}" explain "$game"
    echo; echo "==> nvprofilectl explain $renamed   (renamed itself after exec: the COMM event)"
    "${ctl[@]}" explain "$renamed"
    echo; echo "==> nvprofilectl resolve --exe /usr/bin/sway   (a process that is not running)"
    "${ctl[@]}" resolve --exe /usr/bin/sway
    echo; echo "==> nvprofilectl check conf/examples/etc/nvidia/...   (lint, no daemon needed)"
    "${ctl[@]}" check conf/examples/etc/nvidia/nvidia-application-profiles-rc \
        conf/examples/etc/nvidia/nvidia-application-profiles-rc.d
    echo; echo "==> nvprofilectl explain $alacritty as nobody   (another user's process: refused)"
    setpriv --reuid=nobody --regid=nogroup --clear-groups "${ctl[@]}" explain "$alacritty" || true

    # GPU usage: saved DRM fdinfo dumps, as users attach them to bug reports, parsed locally.
    local dumps=../shared/corpus/fdinfo
    if [ -d "$dumps" ]; then
        echo; echo "==> nvprofilectl fdinfo $dumps/amdgpu-1.txt   (a saved DRM fdinfo dump, no daemon needed)"
        "${ctl[@]}" fdinfo "$dumps/amdgpu-1.txt" || true
    fi
    # Nsight Compute section files: NVIDIA's stock sections read without NVIDIA's tools, locally.
    local sections=../shared/corpus/sections
    if [ -d "$sections" ]; then
        echo; echo "==> nvprofilectl sections check --schema=2024.1.1 $sections/ncu-2025.3.1   (as ncu 2024.1.1 reads newer files)"
        "${ctl[@]}" sections check --schema=2024.1.1 "$sections/ncu-2025.3.1" || true
        echo; echo "==> nvprofilectl sections check $sections/ncu-2025.3.1 $sections/ncu-2024.1.1   (extended schema)"
        "${ctl[@]}" sections check "$sections/ncu-2025.3.1" "$sections/ncu-2024.1.1" || true
    fi

    # Nsight Compute reports: the client hands the file's descriptor to the daemon, whose confined worker
    # (nobody, no capabilities, seccomp) parses it.
    local reports=../shared/corpus/reports
    if [ -d "$reports" ]; then
        echo; echo "==> nvprofilectl report summary   (each corpus report, parsed by the daemon's confined worker)"
        for f in "$reports"/*.ncu-rep; do
            echo "--- $(basename "$f")"
            "${ctl[@]}" report summary --no-legend "$f" || true
        done
        echo; echo "==> nvprofilectl report json $reports/armleth_report_ncu2024.2.1.ncu-rep > $work/model.json   (the model)"
        "${ctl[@]}" report json "$reports/armleth_report_ncu2024.2.1.ncu-rep" > "$work/model.json" || true
        python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(f"{len(open(sys.argv[1]).read())} bytes of JSON; top-level keys:", ", ".join(m) if isinstance(m, dict) else type(m).__name__)' \
            "$work/model.json" || true
        cp "$reports/armleth_report_ncu2024.2.1.ncu-rep" "$work/private.ncu-rep"
        chmod 600 "$work/private.ncu-rep"
        echo; echo "==> nvprofilectl report summary $work/private.ncu-rep as nobody   (a file nobody cannot read: refused)"
        setpriv --reuid=nobody --regid=nogroup --clear-groups "${ctl[@]}" report summary "$work/private.ncu-rep" || true
    fi

    # Nsight Compute rules: NVIDIA's stock rule files over a report, through our NvRules and reader, run as
    # the caller (never in the daemon); the package comes from the build tree.
    local reports=../shared/corpus/reports rules=../shared/corpus/rules/ncu-2024.1.1
    if [ -d "$reports" ] && [ -d "$rules" ]; then
        echo; echo "==> nvprofilectl report rules --rules-dir $rules --rule CPIStall .../armleth_report_ncu2024.2.1.ncu-rep"
        NVPROFILED_PYTHON_DIR="$top/build-demo/client/python" "${ctl[@]}" report rules --rules-dir "$rules" --rule CPIStall \
            "$reports/armleth_report_ncu2024.2.1.ncu-rep" || true
    fi
    demo_usage "$work"
}

# GPU usage served over D-Bus. This machine has no GPU: a second daemon reads fixture /proc and /sys trees
# (--proc, --sys) that tests/drm/usage-fixture builds, with nodes standing on /dev/full and /dev/zero
# (DrmMajor=1 declares them DRM), a client two processes share, and counters that move between two steps.
demo_usage() {
    local work=$1 fx=$1/usage
    echo; echo "==> starting a second nvprofiled over fixture /proc and /sys trees with GPU clients"
    mkdir -p "$fx/proc" "$fx/sys"
    cc -O1 -o "$work/usage-fixture" tests/drm/usage-fixture-tool.c tests/drm/usage-fixture.c \
        $(pkg-config --cflags --libs glib-2.0)
    cat > "$fx/script" <<END_OF_SCRIPT
node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu
node renderD129 /dev/zero pci 0000:00:02.0 0x8086 0x56a0 xe
process 4100 1000 5000 game /usr/bin/glxgears $top/conf/examples
process 4200 0 4000 compositor /usr/bin/niri $top/conf/examples
fd 4100 5 /dev/full
fd 4100 6 /dev/zero
fd 4200 3 /dev/full
step 1
fdinfo 4100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1000000000_ns drm-resident-vram=262144_KiB
fdinfo 4200 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1000000000_ns drm-resident-vram=262144_KiB
fdinfo 4100 6 keys drm-driver=xe drm-pdev=0000:00:02.0 drm-client-id=21 drm-cycles-rcs=100 drm-total-cycles-rcs=1000 drm-engine-capacity-rcs=1
clock 1000000
step 2
fdinfo 4100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1400000000_ns drm-resident-vram=262144_KiB
fdinfo 4200 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1400000000_ns drm-resident-vram=262144_KiB
fdinfo 4100 6 keys drm-driver=xe drm-pdev=0000:00:02.0 drm-client-id=21 drm-cycles-rcs=350 drm-total-cycles-rcs=2000 drm-engine-capacity-rcs=1
clock 2000000
END_OF_SCRIPT
    for step in 0 1; do "$work/usage-fixture" "$fx/script" "$fx/proc" "$fx/sys" /nonexistent $step; done
    printf '[ProcessWatch]\nDeviceDirectory=\n[Usage]\nDrmMajor=1\nIdleIntervalSec=200ms\nNVML=no\n' > "$fx/conf"
    mkdir -p "$fx/textfile"
    printf '[Export]\nExportTextfile=%s\nExportIntervalSec=1s\n' "$fx/textfile/nvprofiled.prom" >> "$fx/conf"

    sed "s|$work/bus|$work/bus-usage|" "$work/bus.conf" > "$work/bus-usage.conf"
    dbus-daemon --nofork --config-file="$work/bus-usage.conf" 2>/dev/null &
    demo_pids+=($!)
    for _ in $(seq 100); do [ -S "$work/bus-usage" ] && break; sleep 0.05; done
    build-demo/daemon/nvprofiled --bus="unix:path=$work/bus-usage" --root="$top/conf/examples" \
        --proc="$fx/proc" --sys="$fx/sys" --config="$fx/conf" --log-level=warning 2> "$work/daemon-usage.log" &
    demo_pids+=($!)
    sleep 1
    "$work/usage-fixture" "$fx/script" "$fx/proc" "$fx/sys" /nonexistent 2
    sleep 1

    echo; echo "==> GPU usage over D-Bus (a fixture tree: this machine has no GPU; 0.4 s of gfx in 1 s, 250 of 1000 xe cycles)"
    local call=(busctl --address="unix:path=$work/bus-usage" --json=short call io.github.nvprofiled.NvProfiled1
        /io/github/nvprofiled/NvProfiled1 io.github.nvprofiled.NvProfiled1.Usage)
    { "${call[@]}" ListGpuDevices; "${call[@]}" ListGpuClients; "${call[@]}" ListGpuProcesses; } | python3 -c '
import json, sys
devices, clients, processes = (json.loads(line)["data"][0] for line in sys.stdin)
for d in devices:
    engines = ", ".join(f"{e[0]} {e[1]:.0f}%" for e in d[10])
    print(f"device {d[0]} ({d[2]}, {d[1]}, state {d[8]}): {d[9]} clients; {engines}")
for c in clients:
    holders = ", ".join(f"pid {h[0]} fd {h[2]}" for h in c[5])
    engines = ", ".join(f"{e[0]} {e[2]:.0f}%" for e in c[8])
    print(f"client {c[2]} on {c[0]}: held by {holders}; {engines}")
for p in processes:
    engines = ", ".join(f"{e[0]} {e[2]} {e[3]:.0f}%" for e in p[7])
    memory = ", ".join(f"{m[0]} {m[2]} {m[3] // 1048576} MiB" for m in p[8])
    profiles = ", ".join(p[5]) or "none"
    print(f"process {p[1]} {p[4]} (profiles: {profiles}): {engines}; {memory}")
'
    echo; echo "==> nvprofilectl top --once   (the same usage as a person sees it, with the applied profiles)"
    COLUMNS=100 build-demo/client/nvprofilectl --bus="unix:path=$work/bus-usage" top --once --interval=0.2 || true
    echo; echo "==> the Prometheus export (ExportTextfile=, for node_exporter's textfile collector): $fx/textfile/nvprofiled.prom"
    sleep 1
    cat "$fx/textfile/nvprofiled.prom"
}

# What `install` put where, one absolute path a line (meson's install log): what `uninstall` removes.
install_manifest=/var/lib/nvprofiled-setup/installed-files
# The folders `install` created (they did not exist before it): `uninstall` removes those left empty.
install_created_dirs=/var/lib/nvprofiled-setup/created-dirs
# The configuration files as installed (sha256sum's lines): `uninstall` keeps one that differs.
install_config_sums=/var/lib/nvprofiled-setup/config-sha256
# Where install puts the configuration (--sysconfdir).
install_sysconfdir=/etc

require_root() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "scripts/setup.sh $mode: run as root (it installs into /usr and /etc)" >&2
        exit 1
    fi
}

# The folders that installing build directory $1 creates, one a line: the missing ones among the
# folders of the files meson installs and of the tmpfiles entries (install-hook.sh creates those), with
# their missing parents.
missing_install_dirs() {
    {
        meson introspect --installed "$1" |
            python3 -c 'import json, os, sys; print("\n".join(os.path.dirname(p) for p in json.load(sys.stdin).values()))'
        awk '$1 == "d" { print $2 }' systemd/nvprofiled.tmpfiles
    } | while IFS= read -r d; do
        while [ -n "$d" ] && [ "$d" != / ] && [ ! -e "$d" ]; do
            echo "$d"
            d=$(dirname "$d")
        done
    done | sort -u
}

do_install() {
    require_root
    local build=build-install
    echo "==> building a release with Debian's layout (/usr, /etc, /var) in $build (a few minutes)"
    configure "$build" --prefix=/usr --sysconfdir=/etc --localstatedir=/var --buildtype=release -Dtests=false
    ninja -C "$build" >/dev/null
    # meson install also runs systemd/install-hook.sh: the nvprofiled user (systemd-sysusers) and the
    # journal catalog.
    echo "==> installing (meson install), creating the nvprofiled user"
    local created_dirs
    created_dirs=$(missing_install_dirs "$build")
    meson install -C "$build" --no-rebuild --quiet
    mkdir -p "$(dirname "$install_manifest")"
    grep -v '^#' "$build/meson-logs/install-log.txt" > "$install_manifest"
    printf '%s\n' "$created_dirs" | sed '/^$/d' > "$install_created_dirs"
    grep "^$install_sysconfdir/" "$install_manifest" | while IFS= read -r f; do
        [ ! -f "$f" ] || sha256sum -- "$f"
    done > "$install_config_sums"
    systemctl enable nvprofiled.service 2>&1 | grep -v '^Created symlink' || true
    if ! systemd_running; then
        echo "==> systemd is not running here (a chroot, or a system booted without it): installed and enabled,"
        echo "    not started; it starts at the next boot, and on the first call over D-Bus"
        return
    fi
    echo "==> reloading systemd and D-Bus, starting nvprofiled.service"
    systemctl daemon-reload
    systemctl reload dbus.service
    systemctl restart nvprofiled.service
    echo "==> nvprofilectl status"
    nvprofilectl status
}

do_uninstall() {
    require_root
    if [ ! -f "$install_manifest" ]; then
        echo "nothing to remove: $install_manifest (written by scripts/setup.sh install) does not exist" >&2
        exit 1
    fi
    echo "==> stopping and disabling nvprofiled.service"
    if systemd_running; then
        systemctl disable --now nvprofiled.service 2>&1 | grep -v '^Removed' || true
    else
        systemctl disable nvprofiled.service 2>&1 | grep -v '^Removed' || true
    fi
    # A configuration file the administrator changed is theirs: kept beside, as a package manager does.
    # Without the checksums of the install (an older setup.sh installed it), every one is kept.
    local f sum
    while IFS= read -r f; do
        [ -f "$f" ] || continue
        sum=$(awk -v f="$f" 'substr($0, 67) == f { print $1 }' "$install_config_sums" 2>/dev/null)
        if [ -z "$sum" ] || [ "$(sha256sum < "$f" | cut -d' ' -f1)" != "$sum" ]; then
            mv -f -- "$f" "$f.nvprofiled-save"
            echo "==> kept $f, which differs from the installed one, as $f.nvprofiled-save"
        fi
    done < <(grep "^$install_sysconfdir/" "$install_manifest")
    echo "==> removing the files $install_manifest lists"
    local dirs=()
    while IFS= read -r f; do
        [ -n "$f" ] || continue
        # Our own folders go whole (a __pycache__ python3 left, the configuration folder), but for a
        # configuration file kept above.
        case "$f" in */nvprofiled/*) dirs+=("${f%/nvprofiled/*}/nvprofiled") ;; esac
        if [ -d "$f" ]; then
            dirs+=("$f")
        else
            rm -f -- "$f"
        fi
    done < "$install_manifest"
    # Folders meson lists and folders the install created go when nothing else is in them, deepest first.
    [ ! -f "$install_created_dirs" ] || mapfile -t -O "${#dirs[@]}" dirs < "$install_created_dirs"
    for f in $(printf '%s\n' "${dirs[@]}" | sort -ru); do
        [ -d "$f" ] || continue
        case "$f" in
            */nvprofiled) find "$f" -depth -mindepth 1 ! -name '*.nvprofiled-save' \( ! -type d -o -empty \) -delete || true ;;
        esac
        if ! rmdir -- "$f" 2>/dev/null && grep -qxF -- "$f" "$install_created_dirs" 2>/dev/null; then
            echo "==> left $f, which the install created: it is not empty"
        fi
    done
    rm -rf "$(dirname "$install_manifest")"
    # The service's state (StateDirectory=nvprofiled: the program names it remembered for the doctor) is
    # the service's, not the administrator's: it goes with it, as a package's purge does.
    if [ -d /var/lib/nvprofiled ]; then
        echo "==> removing /var/lib/nvprofiled (the program names the service remembered)"
        rm -rf /var/lib/nvprofiled
    fi
    if id -u nvprofiled >/dev/null 2>&1; then
        echo "==> removing the nvprofiled user"
        userdel nvprofiled
        ! getent group nvprofiled >/dev/null || groupdel nvprofiled
    fi
    journalctl --update-catalog 2>/dev/null || true
    if systemd_running; then
        systemctl daemon-reload
        systemctl reload dbus.service
    fi
    echo "==> nvprofiled is uninstalled"
}

case "$mode" in
    install)
        $install && install_missing "${install_packages[@]}"
        do_install
        ;;
    uninstall)
        do_uninstall
        ;;
    test)
        if $install; then stage "install" install_missing "${test_packages[@]}"; fi
        do_test
        ;;
    demo)
        $install && install_missing "${demo_packages[@]}"
        do_demo
        ;;
    deps)
        install_missing "${test_packages[@]}"
        ;;
    packages)
        case "${1:-}" in
            install) printf '%s\n' "${install_packages[@]}" ;;
            demo) printf '%s\n' "${demo_packages[@]}" ;;
            test|'') printf '%s\n' "${test_packages[@]}" ;;
            *) echo "packages: install, demo or test" >&2; exit 2 ;;
        esac
        ;;
    *)
        sed -n '3,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
