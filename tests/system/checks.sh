#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The system test's checks, run inside the booted container by nvprofiled-system-test.service
# (tests/system/run-system-test.sh): systemd is PID 1, the bus is the real system bus, polkitd is the
# real one. Installs with exactly the README's command, then checks the service as root and as an
# unprivileged user it creates. Prints TAP; exits non-zero when any check failed.
set -u
export LC_ALL=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
here=/nvp-system-test
user=tester
bus_name=io.github.nvprofiled.NvProfiled1
bus_path=/io/github/nvprofiled/NvProfiled1
manager=io.github.nvprofiled.NvProfiled1.Manager
reload_action=io.github.nvprofiled.NvProfiled1.reload
edit_action=io.github.nvprofiled.NvProfiled1.edit-system-profiles
message_profile_edited=325620354de543efa6fd363ad5015be2
# From daemon/shared/log.h: a profile applied to a process, the rc files (re)loaded.
message_profile_applied=8603d37240a74c31a51d7b41ddc7cde3
message_rc_reloaded=24225ab1414645b59510fee7bf99c32e

n=0
failed=0
# check DESCRIPTION COMMAND...: one TAP line; the command's output is shown (as comments) when it fails.
check() {
    local what=$1 out status=0
    shift
    n=$((n + 1))
    out=$("$@" 2>&1) || status=$?
    if [ "$status" -eq 0 ]; then
        echo "ok $n - $what"
    else
        echo "not ok $n - $what (exit status $status)"
        printf '%s\n' "$out" | sed 's/^/#   /'
        failed=$((failed + 1))
    fi
}
# show TITLE COMMAND...: the command's whole output, for the log.
show() {
    local title=$1
    shift
    echo "# \$ $title"
    "$@" 2>&1 | sed 's/^/#   /'
}
# until_ok SECONDS COMMAND...: runs the command every 0.2 s until it succeeds; after SECONDS, once more
# with its output shown, and fails.
until_ok() {
    local deadline=$(($(date +%s) + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            "$@"
            return 1
        fi
        sleep 0.2
    done
}
as_user() {
    setpriv --reuid="$user" --regid="$user" --init-groups --reset-env "$@"
}
ctl() {
    as_user nvprofilectl "$@"
}
unit_prop() {
    systemctl show --property="$1" --value nvprofiled.service
}
is_active() {
    [ "$(systemctl is-active nvprofiled.service)" = active ]
}
is_inactive() {
    [ "$(systemctl is-active nvprofiled.service)" = inactive ]
}

# Not is-system-running --wait: the boot counts as running until this very unit's job is done.
echo "# waiting for multi-user.target"
until_ok 300 systemctl is-active --quiet multi-user.target
show "systemctl --failed" systemctl --failed --no-pager --no-legend

# --- the README's install command, from a checkout in root's 0700 home --------------------------------
echo "# \$ cd /root/src && scripts/setup.sh install"
install_log=$(mktemp)
start=$(date +%s)
install_status=0
(cd /root/src && scripts/setup.sh install) > "$install_log" 2>&1 || install_status=$?
sed 's/^/#   /' "$install_log"
echo "# (install took $(($(date +%s) - start)) s)"
check "scripts/setup.sh install exits 0" test "$install_status" -eq 0
check "install printed nvprofilectl status" grep -q '^==> nvprofilectl status' "$install_log"
check "the nvprofiled user exists (systemd-sysusers)" id -u nvprofiled
check "the unit is enabled" systemctl is-enabled --quiet nvprofiled.service
check "the service is active" is_active
status_text=$(unit_prop StatusText)
echo "# StatusText: $status_text"
check "the service reported a status line (sd_notify STATUS=)" test -n "$status_text"
pid=$(unit_prop MainPID)
check "the daemon runs as nvprofiled, with no new privileges" \
    sh -c "grep -q '^NoNewPrivs:[[:space:]]*1' /proc/$pid/status && [ \$(stat -c %U /proc/$pid) = nvprofiled ]"

# --- an unprivileged user --------------------------------------------------------------------------------
useradd --create-home --shell /bin/bash "$user"
install -o "$user" -g "$user" -m 0600 "$here/report.ncu-rep" "/home/$user/report.ncu-rep"
# A system rule for a program the user runs, so that a profile is applied (and logged) while we look.
mkdir -p /etc/nvidia/nvidia-application-profiles-rc.d
cat > /etc/nvidia/nvidia-application-profiles-rc.d/50-system-test <<'END'
{"rules": [{"pattern": "nvptestgame", "profile": {"name": "SystemTest", "settings": ["GLShaderDiskCache", false]}}]}
END
install -o "$user" -g "$user" -m 0755 /bin/sleep "/home/$user/nvptestgame"
# setpriv itself, not a function: $! is then the program's pid.
setpriv --reuid="$user" --regid="$user" --init-groups --reset-env "/home/$user/nvptestgame" 600 &
game=$!

check "status as $user" ctl status
show "nvprofilectl status (as $user)" ctl status
check "processes as $user" ctl processes
check "explain of $user's own process shows the applied profile" \
    until_ok 30 sh -c "setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl explain $game | grep -q SystemTest"
show "nvprofilectl explain $game (as $user)" ctl explain "$game"
check "report summary as $user (the confined worker, under the unit's sandbox)" \
    ctl report summary "/home/$user/report.ncu-rep"
for verb in raw details; do
    check "report $verb --csv as $user (the confined worker, under the unit's sandbox)" \
        ctl report "$verb" --csv "/home/$user/report.ncu-rep"
done
show "nvprofilectl report summary (as $user)" ctl report summary "/home/$user/report.ncu-rep"
check "sections list as $user" ctl sections list
check "top --once as $user" env COLUMNS=100 setpriv --reuid="$user" --regid="$user" --init-groups \
    nvprofilectl top --once --interval=0.2

# --- D-Bus activation from stopped -----------------------------------------------------------------------
systemctl stop nvprofiled.service
check "the service stopped" is_inactive
start=$(date +%s%N)
check "status as $user activates the stopped service over D-Bus" ctl status
echo "# activation and the first reply: $((($(date +%s%N) - start) / 1000000)) ms"
check "the service is active again" is_active

# --- Reload: polkit ---------------------------------------------------------------------------------------
reload() {
    as_user busctl call "$bus_name" "$bus_path" "$manager" Reload
}
# polkit's own answer (auth_admin: authentication, which no agent here can give), not a failure to ask it.
refused_by_polkit() {
    reload 2>&1 | tee /dev/stderr | grep -q 'Interactive authentication required'
}
check "Reload as $user is refused by polkit (no rule)" refused_by_polkit
mkdir -p /etc/polkit-1/rules.d
cat > /etc/polkit-1/rules.d/60-nvprofiled-system-test.rules <<END
polkit.addRule(function(action, subject) {
    if (action.id == "$reload_action" && subject.user == "$user")
        return polkit.Result.YES;
});
END
# polkitd reads rules.d again when it changes.
check "Reload as $user is allowed by the polkit rule" until_ok 20 reload
show "journalctl -u polkit.service" journalctl --no-pager -u polkit.service -o short-monotonic
rm /etc/polkit-1/rules.d/60-nvprofiled-system-test.rules

# --- Editing the system's rc files: polkit decides, the unit's sandbox lets the daemon write /etc/nvidia --
edited=/etc/nvidia/nvidia-application-profiles-rc.d/60-edit
system_edit() {
    ctl rules add --system --file 60-edit --procname nvptestgame --setting GLVidHeapReuseRatio=0
}
check "rules add --system as $user is refused by polkit (no rule)" sh -c "! setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl rules add --system --file 60-edit --procname nvptestgame --setting GLVidHeapReuseRatio=0"
check "nothing was written for the refused edit" test ! -e "$edited"
check "rules add --system --dry-run as $user needs no authorisation and writes nothing" \
    sh -c "setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl rules add --system --file 60-edit --procname nvptestgame --setting GLVidHeapReuseRatio=0 --dry-run | grep -q 'GLVidHeapReuseRatio = 0 (new)' && [ ! -e $edited ]"
cat > /etc/polkit-1/rules.d/60-nvprofiled-system-test.rules <<END
polkit.addRule(function(action, subject) {
    if (action.id == "$edit_action" && subject.user == "$user")
        return polkit.Result.YES;
});
END
check "rules add --system as $user is allowed by the polkit rule" until_ok 20 system_edit
show "the edited file" cat "$edited"
check "the daemon (user nvprofiled, file-system uid 0) wrote it root's, mode 0644" \
    sh -c "[ \"\$(stat -c '%U %a' $edited)\" = 'root 644' ]"
check "no temporary file is left in rc.d" sh -c "[ \$(ls -A /etc/nvidia/nvidia-application-profiles-rc.d | wc -l) -eq 2 ]"
check "explain of $user's process shows the edited setting" \
    until_ok 30 sh -c "setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl explain $game | grep -q GLVidHeapReuseRatio"
check "the journal has MESSAGE_ID=$message_profile_edited with the caller's uid" \
    sh -c "journalctl --no-pager -q -u nvprofiled.service MESSAGE_ID=$message_profile_edited -o verbose | grep -q NVPROFILED_UID=\$(id -u $user)"
rm /etc/polkit-1/rules.d/60-nvprofiled-system-test.rules

# --- systemctl reload, dbus restart ----------------------------------------------------------------------
pid=$(unit_prop MainPID)
check "systemctl reload nvprofiled" systemctl reload nvprofiled.service
check "the daemon survived the reload (same process, active)" \
    sh -c "[ \"\$(systemctl show --property=MainPID --value nvprofiled.service)\" = $pid ] && [ \"\$(systemctl is-active nvprofiled.service)\" = active ]"
check "status after the reload" ctl status
check "systemctl restart dbus" systemctl restart dbus.service
check "status after dbus restarted" until_ok 30 ctl status
check "the service is active after dbus restarted" until_ok 30 is_active

# --- the journal ------------------------------------------------------------------------------------------
journalctl --sync 2>/dev/null || true
show "journalctl -u nvprofiled.service" journalctl --no-pager -u nvprofiled.service -o short-monotonic
check "no warning or error from the service in the journal" \
    sh -c '[ -z "$(journalctl --no-pager -q -u nvprofiled.service -p warning -o cat)" ]'
check "the journal has MESSAGE_ID=$message_profile_applied (profile applied)" \
    sh -c "journalctl --no-pager -q -u nvprofiled.service MESSAGE_ID=$message_profile_applied -o cat | grep -q ."
check "the journal has MESSAGE_ID=$message_rc_reloaded (rc files reloaded)" \
    sh -c "journalctl --no-pager -q -u nvprofiled.service MESSAGE_ID=$message_rc_reloaded -o cat | grep -q ."

# --- the unit's hardening ---------------------------------------------------------------------------------
security=$(systemd-analyze security --no-pager nvprofiled.service 2>&1)
printf '%s\n' "$security" | grep -v '✓' | sed 's/^/#   /'
score=$(printf '%s\n' "$security" | sed -n 's/.*Overall exposure level for nvprofiled.service: \([0-9.]*\).*/\1/p')
check "systemd-analyze security nvprofiled.service is at most 2.4 (is ${score:-unknown})" \
    awk -v s="${score:-99}" 'BEGIN { exit !(s + 0 <= 2.4) }'

kill "$game" 2>/dev/null
wait "$game" 2>/dev/null

# --- uninstall --------------------------------------------------------------------------------------------
manifest=$(cat /var/lib/nvprofiled-setup/installed-files 2>/dev/null)
check "scripts/setup.sh uninstall" sh -c 'cd /root/src && scripts/setup.sh uninstall'
check "every installed file is gone" sh -c "for f in $(printf '%s ' $manifest); do [ ! -e \"\$f\" ] || { echo \"left: \$f\"; exit 1; }; done"
check "the nvprofiled user is gone" sh -c '! id -u nvprofiled'
check "the unit is gone" sh -c '! systemctl cat nvprofiled.service'

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
