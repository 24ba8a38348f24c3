#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs an integration test binary (with its arguments) as an unprivileged user, to show that the cases
# which claim to need no root really do not: CI runs as root, so without this they would never be run
# any other way. As root, a user of this run's own is created (a system user without a home or a shell,
# removed when the script ends, whether the test passed, failed or was stopped) and everything the test
# reads is copied where that user can read it, since the checkout may sit in root's home (the corpus
# too). Not root: the command runs as it is.
set -eu

if [ "$(id -u)" -ne 0 ]; then
    exec "$@"
fi

# Cases run side by side, each as a user of its own: none removes another's.
user=nvptest-unpriv-$$
stage=$(mktemp -d "${TMPDIR:-/tmp}/nvptest-unprivileged-XXXXXX")
cleanup() {
    userdel -f "$user" 2>/dev/null || true
    rm -rf "$stage"
}
trap cleanup EXIT
# meson's timeout (SIGTERM), ^C: exit, and so clean up.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
chmod 755 "$stage"
# Another useradd may hold the lock on /etc/passwd for a moment.
for attempt in 1 2 3 4 5 6 7 8 9 10; do
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user" \
        2>/dev/null && break
    [ "$attempt" -lt 10 ] || { echo "run-unprivileged.sh: useradd $user failed" >&2; exit 1; }
    sleep 0.2
done

# stage VAR: copies the file the variable names into the stage and points the variable there.
stage() {
    eval "src=\${$1:-}"
    [ -n "$src" ] || return 0
    cp "$src" "$stage/"
    eval "$1=\$stage/\$(basename \"\$src\")"
    export "$1"
}
for v in NVPROFILED_BIN NVPROFILECTL_BIN NVPROFILED_HELPER NVPROFILED_DSO_LIB NVPROFILED_DBUS_POLICY \
        NVPROFILED_DBUS_XML NVPROFILED_REPORT_WORKER NVPROFILED_FAKE_WORKER_CRASH NVPROFILED_NVTX_FIXTURE \
        NVPROFILED_JSON_SCHEMA_CHECK; do
    stage "$v"
done

# The --json schemas the checker reads (client/json-schemas).
if [ -n "${NVPROFILED_JSON_SCHEMAS:-}" ]; then
    cp -r "$NVPROFILED_JSON_SCHEMAS" "$stage/json-schemas"
    NVPROFILED_JSON_SCHEMAS=$stage/json-schemas
    export NVPROFILED_JSON_SCHEMAS
fi

# The bus configuration templates the harness fills in (tests/lib/test-bus-daemon.c).
if [ -n "${NVPROFILED_TEST_LIB_DIR:-}" ]; then
    mkdir "$stage/lib"
    cp "$NVPROFILED_TEST_LIB_DIR"/test-bus-*.conf "$stage/lib/"
    NVPROFILED_TEST_LIB_DIR=$stage/lib
    export NVPROFILED_TEST_LIB_DIR
fi

# The sanitizer build's leak suppressions, if any, must be readable too.
supp=$(printf '%s\n' "${LSAN_OPTIONS:-}" | tr ':' '\n' | sed -n 's/^suppressions=//p')
if [ -n "$supp" ]; then
    cp "$supp" "$stage/lsan.supp"
    LSAN_OPTIONS=$(printf '%s\n' "$LSAN_OPTIONS" | sed "s|suppressions=[^:]*|suppressions=$stage/lsan.supp|")
    export LSAN_OPTIONS
fi

# The Python package (report-diff: PYTHONPATH) and the interpreter wrapper of the sanitizer build, where
# they are in the build tree or the checkout.
if [ -n "${PYTHONPATH:-}" ]; then
    staged=""
    for d in $(printf '%s\n' "$PYTHONPATH" | tr ':' ' '); do
        [ -d "$d" ] || continue
        mkdir -p "$stage/pythonpath"
        cp -r "$d" "$stage/pythonpath/$(printf '%s' "$d" | md5sum | cut -c1-8)"
        staged="${staged:+$staged:}$stage/pythonpath/$(printf '%s' "$d" | md5sum | cut -c1-8)"
    done
    PYTHONPATH=$staged
    export PYTHONPATH
fi
stage NVPROFILED_PYTHON

test_bin=$1
shift
cp "$test_bin" "$stage/"
chmod -R a+rX "$stage"

# The corpus, if the user cannot read it where it is (a checkout's ../shared under /root, mode 0700):
# hard links into the stage (the files are readable by all; only a directory above is not), or a copy
# where the stage is on another file system.
if [ -n "${NVPROFILED_CORPUS:-}" ] && [ -d "$NVPROFILED_CORPUS" ] &&
    ! setpriv --reuid="$user" --regid="$user" --clear-groups -- test -x "$NVPROFILED_CORPUS"; then
    cp -al "$NVPROFILED_CORPUS" "$stage/corpus" 2>/dev/null ||
        { rm -rf "$stage/corpus"; cp -a "$NVPROFILED_CORPUS" "$stage/corpus"; chmod -R a+rX "$stage/corpus"; }
    NVPROFILED_CORPUS=$stage/corpus
    export NVPROFILED_CORPUS
fi

export HOME="$stage"
cd "$stage"
status=0
setpriv --reuid="$user" --regid="$user" --clear-groups --inh-caps=-all -- "$stage/$(basename "$test_bin")" "$@" \
    || status=$?
exit "$status"
