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

# The folders before the install: after the uninstall none may be left that was not there before.
dirs_before=$(mktemp)
find /etc /usr /var/lib -xdev -type d | sort > "$dirs_before"

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
check "the installed man pages can be read (man-db came with the install)" \
    sh -c "man -P cat nvprofilectl 2>/dev/null | grep -q 'rules add' && man -P cat 8 nvprofiled 2>/dev/null | grep -q Subscribe"
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
check "the report in $user's home is $user's own, mode 0600 (no one else may read it)" \
    sh -c "[ \"\$(stat -c '%U %a' /home/$user/report.ncu-rep)\" = '$user 600' ]"
check "report summary as $user (the confined worker, under the unit's sandbox)" \
    sh -c "setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl report summary /home/$user/report.ncu-rep | grep -q ."
for verb in raw details; do
    check "report $verb --csv as $user (the confined worker, under the unit's sandbox)" \
        ctl report "$verb" --csv "/home/$user/report.ncu-rep"
done
show "nvprofilectl report summary (as $user)" ctl report summary "/home/$user/report.ncu-rep"
check "sections list as $user" ctl sections list
check "top --once as $user" env COLUMNS=100 setpriv --reuid="$user" --regid="$user" --init-groups \
    nvprofilectl top --once --interval=0.2

# --- the user's own rc files: what the daemon reads with the user's credentials -----------------------
# The user's own rule (~/.nv/nvidia-application-profiles-rc, the user's file, 0600: only they and the
# daemon acting as them can read it) for a program they run: once with nothing in its environment, once
# with the __GL_* variable of the rule's setting, which overrides it in the driver.
home=/home/$user
install -d -o "$user" -g "$user" -m 0700 "$home/.nv"
cat > "$home/.nv/nvidia-application-profiles-rc" <<'END'
{"rules": [{"pattern": "nvptestmine", "profile": {"name": "UserTest", "settings": ["GLThreadedOptimizations", true]}}]}
END
chown "$user:" "$home/.nv/nvidia-application-profiles-rc"
chmod 0600 "$home/.nv/nvidia-application-profiles-rc"
install -o "$user" -g "$user" -m 0755 /bin/sleep "$home/nvptestmine"
# setpriv execs env, which execs the program: $! is the program's pid. --reset-env sets HOME, as a login does.
setpriv --reuid="$user" --regid="$user" --init-groups --reset-env "$home/nvptestmine" 600 &
mine=$!
setpriv --reuid="$user" --regid="$user" --init-groups --reset-env \
    env __GL_THREADED_OPTIMIZATIONS=0 "$home/nvptestmine" 600 &
mine_env=$!

# explained_setting PID KEY CONDITION: nvprofilectl explain --json PID, as the user, has setting KEY
# and CONDITION (a Python expression over the setting s and the process's facts f) holds for it.
explained_setting() {
    ctl explain --json "$1" | python3 -c '
import json, sys
res = json.load(sys.stdin)
f = res.get("facts") or {}
for s in res.get("settings") or []:
    if s.get("key") == sys.argv[1] and eval(sys.argv[2]):
        sys.exit(0)
json.dump(res, sys.stdout, indent=1)
sys.exit(1)' "$2" "$3"
}
user_rule="s['profile'] == 'UserTest' and s['rule']['file'] == '$home/.nv/nvidia-application-profiles-rc'"
check "$user's own rule applies to $user's process (HOME known, not overridden)" \
    until_ok 30 explained_setting "$mine" GLThreadedOptimizations \
    "$user_rule and f.get('home') == '$home' and not s['overridden']"
show "nvprofilectl explain $mine (as $user)" ctl explain "$mine"
check "__GL_THREADED_OPTIMIZATIONS=0 in the environment of $user's process is shown as overriding (--json)" \
    until_ok 30 explained_setting "$mine_env" GLThreadedOptimizations \
    "$user_rule and s['overridden'] and s['env_variable'] == '__GL_THREADED_OPTIMIZATIONS' and s['env_value'] == '0'"
check "... and as \"overridden by the environment\" in the text" \
    sh -c "setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl explain $mine_env | grep -F 'overridden by the environment: __GL_THREADED_OPTIMIZATIONS=0'"

# Running processes are those the daemon tracks; explain resolves any pid on the spot. Where the daemon
# polls /proc (a container: no proc connector) it tracks a new process at its next poll, up to
# PollIntervalSec= (2 s) later, and an edit before that has no running process to name.
tracks() {
    local listing pid
    listing=$(ctl processes --json=short) || return 1
    for pid in "$@"; do
        grep -qE "\"pid\":$pid[,}]" <<<"$listing" || return 1
    done
}
check "the daemon tracks $user's two processes" until_ok 30 tracks "$mine" "$mine_env"

# An edit of the user's own files, by the user: the daemon reloads (inotify), the command says what
# changed for the user's process, and explain shows it, all within 2 s.
user_edit_log=$(mktemp)
start=$(date +%s%N)
user_edit_status=0
ctl rules add --procname nvptestmine --setting GLVidHeapReuseRatio=0 > "$user_edit_log" 2>&1 || user_edit_status=$?
until explained_setting "$mine" GLVidHeapReuseRatio "True" >/dev/null 2>&1 ||
    [ $((($(date +%s%N) - start) / 1000000)) -ge 2000 ]; do
    sleep 0.05
done
user_edit_ms=$((($(date +%s%N) - start) / 1000000))
sed 's/^/#   /' "$user_edit_log"
echo "# (the edit and its explanation took $user_edit_ms ms)"
check "rules add (the user's own file) as $user exits 0" test "$user_edit_status" -eq 0
check "... and the daemon reloaded (no \"did not reload\")" sh -c "! grep -F 'did not reload' $user_edit_log"
check "... and it names $user's process as changed" \
    grep -E "^  $mine nvptestmine: GLVidHeapReuseRatio " "$user_edit_log"
check "... and explain of $user's process shows the edit within 2 s (took $user_edit_ms ms)" \
    sh -c "[ $user_edit_ms -lt 2000 ] && setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl explain $mine | grep -F GLVidHeapReuseRatio"
rm -f "$user_edit_log"
check "rules --home $home as $user lists the rule of $user's own file" \
    sh -c "setpriv --reuid=$user --regid=$user --init-groups --reset-env nvprofilectl rules --home $home | grep -F nvptestmine"

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

# --- Editing the system's rc files as root: root is root (its preview sees every process, the journal
# names uid 0), not the daemon's own user ---------------------------------------------------------------
root_edited=/etc/nvidia/nvidia-application-profiles-rc.d/70-root-edit
root_edit=(nvprofilectl rules add --system --file 70-root-edit --procname nvptestmine --setting GLAllowFXAAUsage=false)
root_edit_log=$(mktemp)
"${root_edit[@]}" --dry-run > "$root_edit_log" 2>&1
sed 's/^/#   /' "$root_edit_log"
check "rules add --system --dry-run as root previews the file's diff" grep -F 70-root-edit "$root_edit_log"
# The diff is printed as lines, so the heading stands on a line of its own.
check "... and names $user's running processes that would change" \
    sh -c "grep -Fx 'Running processes that would change:' $root_edit_log && grep -E '^\+' $root_edit_log && grep -E '^  $mine nvptestmine: GLAllowFXAAUsage ' $root_edit_log && grep -E '^  $mine_env nvptestmine: GLAllowFXAAUsage ' $root_edit_log"
check "... and writes nothing" test ! -e "$root_edited"
"${root_edit[@]}" > "$root_edit_log" 2>&1
sed 's/^/#   /' "$root_edit_log"
check "rules add --system as root names $user's processes changed" \
    sh -c "grep -Fx 'Running processes changed:' $root_edit_log && grep -E '^  $mine nvptestmine: GLAllowFXAAUsage ' $root_edit_log"
check "explain of $user's process shows root's edit" \
    until_ok 30 explained_setting "$mine" GLAllowFXAAUsage "s['rule']['file'] == '$root_edited'"
journalctl --sync 2>/dev/null || true
check "the journal names uid 0 for root's edit, not the daemon's user (uid $(id -u nvprofiled))" \
    sh -c "journalctl --no-pager -q -u nvprofiled.service MESSAGE_ID=$message_profile_edited NVPROFILED_FILE=$root_edited -o export | grep -a -E '^(MESSAGE|NVPROFILED_UID)=' > $root_edit_log; cat $root_edit_log; grep -qx NVPROFILED_UID=0 $root_edit_log && ! grep -vx NVPROFILED_UID=0 $root_edit_log | grep -q ^NVPROFILED_UID="
rm -f "$root_edit_log" "$root_edited"

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

kill "$game" "$mine" "$mine_env" 2>/dev/null
wait "$game" "$mine" "$mine_env" 2>/dev/null

# --- uninstall --------------------------------------------------------------------------------------------
# What the checks put into the folders the install made goes first; the administrator's edit of the
# configuration stays (kept beside).
rm -f /etc/nvidia/nvidia-application-profiles-rc.d/50-system-test "$edited"
conf=/etc/nvprofiled/nvprofiled.conf
echo "# edited by the administrator (the system test)" >> "$conf"
edited_conf=$(cat "$conf")
manifest=$(cat /var/lib/nvprofiled-setup/installed-files 2>/dev/null)
uninstall_log=$(mktemp)
# uninstall: scripts/setup.sh uninstall, its output in the log and in uninstall_log; sets uninstall_status.
uninstall() {
    echo "# \$ cd /root/src && scripts/setup.sh uninstall"
    uninstall_status=0
    (cd /root/src && scripts/setup.sh uninstall) > "$uninstall_log" 2>&1 || uninstall_status=$?
    sed 's/^/#   /' "$uninstall_log"
}
uninstall
check "scripts/setup.sh uninstall" test "$uninstall_status" -eq 0
# installed_files_gone [KEPT]: nothing the install's manifest lists is left, but the folder KEPT.
installed_files_gone() {
    local f left=0
    for f in $manifest; do
        [ ! -e "$f" ] || [ "$f" = "${1:-}" ] || { echo "left: $f"; left=1; }
    done
    return "$left"
}
check "every installed file is gone (but the folder of the kept configuration)" installed_files_gone "${conf%/*}"
check "the nvprofiled user is gone" sh -c '! id -u nvprofiled'
check "the unit is gone" sh -c '! systemctl cat nvprofiled.service'
check "the edited configuration is kept as $conf.nvprofiled-save" \
    sh -c "[ \"\$(cat $conf.nvprofiled-save)\" = \"\$1\" ]" sh "$edited_conf"
check "... and uninstall said so" grep -Fx "==> kept $conf, which differs from the installed one, as $conf.nvprofiled-save" "$uninstall_log"
# Debian 12 has no /etc/nvidia: the install made it and its rc.d (tmpfiles), and nothing else is in them.
check "/etc/nvidia, which the install created, is gone (it is empty)" \
    sh -c "! grep -qx /etc/nvidia $dirs_before && [ ! -e /etc/nvidia ]"
# dirs_left_are [DIR...]: the folders that were not there before the install are exactly these.
dirs_left_are() {
    local left
    left=$(find /etc /usr /var/lib -xdev -type d | sort | comm -13 "$dirs_before" -)
    [ "$left" = "$(printf '%s\n' "$@" | sed '/^$/d')" ] || { echo "left: $left"; return 1; }
}
check "no folder is left that the install created but the kept configuration's" dirs_left_are /etc/nvprofiled
rm -rf /etc/nvprofiled

# Installed again and removed with the configuration as installed: nothing is kept.
check "scripts/setup.sh install, again" sh -c 'cd /root/src && scripts/setup.sh install > /dev/null 2>&1'
manifest=$(cat /var/lib/nvprofiled-setup/installed-files 2>/dev/null)
uninstall
check "scripts/setup.sh uninstall, again" test "$uninstall_status" -eq 0
check "every installed file is gone" installed_files_gone
check "the unchanged configuration is not kept" sh -c "[ ! -e $conf.nvprofiled-save ] && ! grep -F kept $uninstall_log"
check "no folder is left that was not there before the install" dirs_left_are
rm -f "$uninstall_log" "$dirs_before"

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
