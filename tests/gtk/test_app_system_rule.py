#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop app writes a system rc file through polkit (issue 22: "user files directly as the user, system
files with polkit"), as an unprivileged user the test creates. As root: a private system-like bus,
python3-dbusmock's polkitd on it, and the real nvprofiled as root on that bus with --root= the scratch
directory (so the /etc/nvidia it writes is the scratch one) over the e2e test's usage fixture, glxgears
being the created user's process. As that user (setpriv), in a child process that reports back over a
pipe: Xvfb, a session bus and the AT-SPI bus it activates (both check the uid), nvprofiled-gtk, driven
through pyatspi. "Add a rule for glxgears" into the system's file: the preview (AddRule's dry run) needs no
authorisation and shows the process's change; Apply, polkit refusing edit-system-profiles, shows the
refusal in the preview and writes nothing; Apply again once polkit allows it writes the scratch
etc/nvidia/nvidia-application-profiles-rc.d file, root's and 0644, with the rule; the daemon reloads and
glxgears's row shows the new setting. Then each system edit's Undo (the app reads the files through the
daemon's ReadSystemFile): of the added rule, refused by polkit, of the rule edited in its dialog, and of the
rule removed from the Profiles page. The toast's Undo, polkit allowing, removes the file again (RevertEdit,
with what the app read through ReadSystemFile: the app's /etc is not the daemon's) and glxgears loses the
setting. Written again into a file that exists, an Undo polkit refuses leaves the file as written and the
app says so. That rule edited in the Edit Rule dialog (the rule read, and named by its id, in the file as
the daemon reads it: the app's /etc has no such file), then the edit undone: the file's previous bytes
exactly, and glxgears's setting as it was. The file's profile opens in the Edit Profile dialog, read so too.

Every process either side starts is killed (process groups, then whatever still runs as the created
user), the scratch directory removed and the user deleted, whatever happened."""

import json
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import time
import unittest
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from appworld import APP, CTL, DAEMON, FIXTURE_TOOL, POLICY, SHOTS, TOOLS, WAIT, AppWorld, wait_for  # noqa: E402

USER = "nvptest-gtkpk"
ACTION_EDIT = "io.github.nvprofiled.NvProfiled1.edit-system-profiles"
ACTION_RELOAD = "io.github.nvprofiled.NvProfiled1.reload"
POLKIT_ACTIONS = os.environ.get("NVPROFILED_POLKIT_POLICY", "")
RCD = os.path.join("etc", "nvidia", "nvidia-application-profiles-rc.d")
TARGET = os.path.join(RCD, "50-nvprofilectl")  # the app's default file name (RC_EDIT_DEFAULT_FILE_NAME)
SYSTEM_TARGET = "/" + TARGET  # as the daemon (and so the app) names it
SYSTEM_FILE = "The system's file (/etc/nvidia; an administrator's authorisation)"
REFUSAL = "You are not allowed to write the system's file: Access denied by polkit. Nothing was written."
# Root stands in for polkit on the private bus, and the daemon (root) asks it.
POLKIT_BUS_POLICY = """  <policy user="root">
    <allow own="org.freedesktop.PolicyKit1"/>
    <allow send_destination="org.freedesktop.PolicyKit1"/>
  </policy>"""
CODE = ("appworld.py", "test_app_e2e.py", os.path.basename(__file__))


# --- root's side -----------------------------------------------------------------------------------------------


def user_pids(uid):
    """The live (not zombie: their parent reaps them) processes of uid."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(os.path.join("/proc", name)).st_uid != uid:
                    continue
                with open(os.path.join("/proc", name, "stat")) as f:
                    if f.read().rpartition(")")[2].split()[0] != "Z":
                        pids.append(int(name))
            except OSError:
                pass
    return pids


def kill_user_processes(uid):
    """Whatever still runs as the created user (the child's Xvfb, buses, AT-SPI launcher, app): the user is
    the test's own, so all of it is the test's."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = user_pids(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    raise AssertionError(f"processes of uid {uid} survived SIGKILL: {user_pids(uid)}")


class SystemRuleTest(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root: creates a user and runs the daemon as root")
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY),
                                  ("NVPROFILECTL_BIN", CTL),
                                  ("NVPROFILED_POLKIT_POLICY", POLKIT_ACTIONS))
                   if not v or not os.path.exists(v)]
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "setpriv", "useradd", "userdel"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed")
        if subprocess.run(["/usr/bin/python3", "-c", "import dbusmock"], capture_output=True).returncode != 0:
            self.skipTest("python3-dbusmock is not installed")
        # The action the daemon asks polkit about, as its polkit policy declares it.
        actions = [a.get("id") for a in ElementTree.parse(POLKIT_ACTIONS).getroot().iter("action")]
        self.assertIn(ACTION_EDIT, actions)
        self.assertIn(ACTION_RELOAD, actions)

        if subprocess.run(["getent", "passwd", USER], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
                           check=True)
        self.addCleanup(subprocess.run, ["userdel", USER], check=False)
        self.user = pwd.getpwnam(USER)
        self.assertNotEqual(self.user.pw_uid, 0)
        self.w = AppWorld()
        self.addCleanup(self.w.teardown)
        self.addCleanup(kill_user_processes, self.user.pw_uid)

    def test_system_rule(self):
        try:
            self.run_case()
        except BaseException:
            for name in ("daemon", "polkitd", "user-side"):
                sys.stderr.write(f"--- {name} log ---\n{self.w.log(name)}\n")
            sys.stderr.write(f"--- app log ---\n{self.w.log(os.path.join('user', 'app'))}\n")
            raise
        finally:
            shots = os.path.join(self.w.dir, "user", "shots")
            if SHOTS and os.path.isdir(shots):
                os.makedirs(SHOTS, exist_ok=True)
                for name in os.listdir(shots):
                    shutil.copy(os.path.join(shots, name), os.path.join(SHOTS, name))

    def busctl(self, *args):
        return subprocess.run(["busctl", f"--address={self.w.address}", *args], capture_output=True, text=True)

    def polkit_call(self, method, *args):
        """A method of the polkit mock's own interface (python3-dbusmock's polkitd template)."""
        r = self.busctl("call", "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                        "org.freedesktop.DBus.Mock", method, *args)
        r.check_returncode()
        return r

    def polkit_allow(self, *actions):
        self.polkit_call("SetAllowed", "as", str(len(actions)), *actions)

    def run_case(self):
        d = self.w.dir
        uid, gid = self.user.pw_uid, self.user.pw_gid
        # The root the daemon sees: the system's and the driver's rc folders, empty.
        self.etc = os.path.join(d, "etc", "nvidia")
        for p in (self.etc, os.path.join(d, "usr", "share", "nvidia")):
            os.makedirs(p, mode=0o755)
        self.w.start_daemon(root=d, uid=uid, bus_policy=POLKIT_BUS_POLICY)
        self.w.spawn("polkitd", ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "polkitd"],
                     env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.w.address))
        wait_for("polkit on the bus", lambda: self.busctl("status", "org.freedesktop.PolicyKit1").returncode == 0)
        # polkit allows something, not the edit; and holds its answer about the edit until told (below).
        self.polkit_allow(ACTION_RELOAD)
        self.polkit_call("SimulateHangActions", "as", "1", ACTION_EDIT)

        # The user's side: its code and the app copied where the user can read them (the checkout and the
        # build may be root's alone), its own folder, $HOME (the fixture's, owned by the user) and runtime dir.
        code, user_dir = os.path.join(d, "code"), os.path.join(d, "user")
        os.makedirs(code, mode=0o755)
        for name in CODE:
            shutil.copy(os.path.join(HERE, name), code)
        shutil.copy(APP, code)
        os.makedirs(os.path.join(user_dir, "run"), mode=0o700)
        for p in (user_dir, os.path.join(user_dir, "run")):
            os.chown(p, uid, gid)
        env = dict(os.environ, HOME=self.w.home, USER=USER, LOGNAME=USER, XDG_RUNTIME_DIR=os.path.join(user_dir, "run"),
                   NVPROFILED_GTK_BIN=os.path.join(code, os.path.basename(APP)),
                   NVPROFILED_SCREENSHOT_DIR=os.path.join(user_dir, "shots"), NVPROFILED_USER_DIR=user_dir,
                   NVPROFILED_SYSTEM_BUS=self.w.address)
        # Root's scratch XDG_*_HOME (tests/lib/test-reaper.py) too: the user's follow its $HOME.
        for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "XAUTHORITY", "XDG_CONFIG_HOME",
                  "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            env.pop(k, None)
        # The sanitizer build's LeakSanitizer suppressions, where the user can read them.
        options = env.get("LSAN_OPTIONS", "").split(":")
        for i, option in enumerate(options):
            if option.startswith("suppressions="):
                options[i] = "suppressions=" + shutil.copy(option.split("=", 1)[1], code)
        if "LSAN_OPTIONS" in env:
            env["LSAN_OPTIONS"] = ":".join(options)
        child = self.w.spawn("user-side", ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--init-groups",
                                           "/usr/bin/python3", os.path.join(code, os.path.basename(__file__)),
                                           "--user-side"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=user_dir)
        talk = Pipe(child)

        # 1. Previewed without authorisation; Apply asks polkit, which holds its answer while the dialog is
        # looked at (nothing can be sent twice), then refuses: shown, and nothing written.
        self.assertEqual(talk.read(), "asked")
        wait_for("polkit asked", lambda: self.polkit_call("HaveHangingCalls").stdout.strip() == "b true")
        self.polkit_call("SimulateHangActions", "as", "0")
        self.polkit_call("ReleaseHangingCalls")
        self.assertEqual(talk.read(), "refused")
        self.assertEqual(os.listdir(self.etc), [], "a file was written under etc/nvidia without authorisation")

        # 2. polkit allows the edit, and holds its answer again: the edit under way is the previewed one,
        # written once polkit answers (root's file, 0644), and the dialogs close.
        self.polkit_allow(ACTION_RELOAD, ACTION_EDIT)
        self.polkit_call("SimulateHangActions", "as", "1", ACTION_EDIT)
        talk.write("apply")
        self.assertEqual(talk.read(), "changed")
        wait_for("polkit asked again", lambda: self.polkit_call("HaveHangingCalls").stdout.strip() == "b true")
        self.polkit_call("SimulateHangActions", "as", "0")
        self.polkit_call("ReleaseHangingCalls")
        self.assertEqual(talk.read(), "shown")
        target = os.path.join(d, TARGET)
        st = os.stat(target)
        self.assertEqual((st.st_uid, st.st_gid, st.st_mode & 0o7777), (0, 0, 0o644))
        self.assertEqual(os.stat(os.path.dirname(target)).st_uid, 0)
        with open(target) as f:
            written = f.read()
        self.assertIn('"matches": "glxgears"', written)
        self.assertIn('{ "key": "GLFSAAMode", "value": 5 }', written)
        self.assertFalse(os.path.exists(os.path.join(self.w.home, ".nv", "nvidia-application-profiles-rc.d")),
                         "the user's own rc.d was written")

        # 3. The toast's Undo, polkit allowing: the file the edit created is removed, and the daemon reloads
        # (the user's side sees glxgears lose the setting).
        talk.write("undo")
        self.assertEqual(talk.read(), "undone")
        self.assertFalse(os.path.exists(target), "Undo left the file the edit created")
        self.assertEqual(os.listdir(os.path.dirname(target)), [])

        # 4. Into a file that exists, written again; an Undo polkit refuses leaves it exactly as written.
        kept = (b'# kept as it is\n{ "rules": [], "profiles": [ { "name": "Kept", "settings": [ '
                b'{ "key": "GLSyncToVblank", "value": false } ] } ] }\n')
        with open(target, "wb") as f:
            f.write(kept)
        talk.write("again")
        self.assertEqual(talk.read(), "shown")
        with open(target, "rb") as f:
            written = f.read()
        self.assertTrue(written.startswith(b"# kept as it is\n"), written)
        self.assertIn(b'"matches": "glxgears"', written)
        self.polkit_allow(ACTION_RELOAD)
        talk.write("undo")
        self.assertEqual(talk.read(), "not undone")
        with open(target, "rb") as f:
            self.assertEqual(f.read(), written, "a refused Undo changed the file")

        # 5. The rule edited in the Edit Rule dialog (the app's action, with the rule's id as the daemon lists
        # it), then undone, polkit allowing: the file's previous bytes exactly.
        rules = json.loads(subprocess.run([CTL, f"--bus={self.w.address}", "--json=short", "rules"],
                                          capture_output=True, text=True, check=True).stdout)["rules"]
        ids = [r["id"] for r in rules if r["file"] == SYSTEM_TARGET]
        self.assertEqual(len(ids), 1, rules)
        self.polkit_allow(ACTION_RELOAD, ACTION_EDIT)
        talk.write("edit " + ids[0])
        self.assertEqual(talk.read(), "edited")
        with open(target, "rb") as f:
            edited = f.read()
        self.assertIn(b'{ "key": "GLFSAAMode", "value": 0 }', edited)
        talk.write("undo")
        self.assertEqual(talk.read(), "undone")
        with open(target, "rb") as f:
            self.assertEqual(f.read(), written, "the edit's Undo did not put the file back byte for byte")

        # 6. The rule removed from the Profiles page (its Remove button, named by where the daemon lists it),
        # then undone: the rule gone from the file, then the file's bytes back exactly.
        rule = [r for r in json.loads(subprocess.run(
            [CTL, f"--bus={self.w.address}", "--json=short", "rules"], capture_output=True, text=True,
            check=True).stdout)["rules"] if r["file"] == SYSTEM_TARGET][0]
        talk.write(f"remove {rule['file']}:{rule['line']}:{rule['column']}")
        self.assertEqual(talk.read(), "removed")
        with open(target, "rb") as f:
            self.assertNotIn(b'"glxgears"', f.read())
        talk.write("undo")
        self.assertEqual(talk.read(), "undone")
        with open(target, "rb") as f:
            self.assertEqual(f.read(), written, "the removal's Undo did not put the file back byte for byte")

        talk.write("quit")
        self.assertEqual(child.wait(timeout=WAIT), 0)
        # A sanitizer build's daemon reports what it found when it exits.
        self.w.daemon.terminate()
        self.assertEqual(self.w.daemon.wait(timeout=WAIT), 0)
        with open(os.path.join(d, "daemon.log"), errors="replace") as f:
            log = f.read()
        self.assertNotIn("Sanitizer", log)
        self.assertNotIn("runtime error:", log)


class Pipe:
    """Lines to and from the user's side, each read bounded by WAIT."""

    def __init__(self, child):
        self.child = child

    def read(self):
        deadline = time.monotonic() + 4 * WAIT
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.child.stdout], [], [], left)[0]:
                raise AssertionError(f"the user's side said nothing in time (so far: {line!r})")
            byte = os.read(self.child.stdout.fileno(), 1)
            if not byte:
                raise AssertionError(f"the user's side ended (status {self.child.wait()}) after {line!r}")
            line += byte
        return line.decode().strip()

    def write(self, word):
        self.child.stdin.write(word.encode() + b"\n")
        self.child.stdin.flush()


# --- the user's side --------------------------------------------------------------------------------------------


class UserWorld(AppWorld):
    """Xvfb, the session bus and the app, as the user, in the folder root made for it."""

    def __init__(self, folder, address, home):
        self.procs = []
        self.dir = folder
        self.address = address
        self.home = home

    def teardown(self):
        self.stop()  # the folder is root's to remove, after it has read the logs


def user_side():
    import test_app_e2e  # the AT-SPI helpers of the e2e test

    w = UserWorld(os.environ["NVPROFILED_USER_DIR"], os.environ["NVPROFILED_SYSTEM_BUS"], os.environ["HOME"])
    try:
        drive(test_app_e2e.AppTest("test_app"), w)
    finally:
        w.teardown()


def tell(word):
    sys.stdout.write(word + "\n")
    sys.stdout.flush()


def hear():
    return sys.stdin.readline().strip()


def preview_rule(t, main):
    """The Add a Rule dialog for glxgears, GLFSAAMode 5 into the system's file, and its preview (AddRule's dry
    run: no authorisation asked) with the process's change; returns the preview and its Apply, offered."""
    t.click(t.button(main, "Add a rule for glxgears (4100)"))
    dialog = wait_for("the Add a Rule dialog", lambda: t.window("Add a Rule"))
    t.a11y.pick(dialog, "Value", "5: 4x (4xMS)")
    t.a11y.pick(dialog, "Write into", SYSTEM_FILE)
    t.click(t.button(dialog, "Preview…"))
    preview = wait_for("the preview", lambda: (t.a11y.windows("Preview: Add a rule for ") or [None])[0])
    wait_for("the preview's changes", lambda: any("4100 glxgears: GLFSAAMode = 5 (new)" in s for s in t.texts(preview)))
    apply_button = t.button(preview, "Apply")
    wait_for("Apply offered", lambda: apply_button.getState().contains(t.pyatspi.STATE_SENSITIVE))
    return preview, apply_button


def has_setting(t, main, setting="GLFSAAMode = 5"):
    return bool([s for s in t.cells(main, "glxgears (4100)") or [] if setting in s])


def near_top(root, pred, depth=10):
    """The first node below root satisfying pred, level by level, down to depth levels. A toast lies a few
    levels below the window: a walk of every node first takes longer, under ASan, than a toast is shown."""
    level = [root]
    for _ in range(depth):
        below = []
        for node in level:
            for i in range(node.childCount if node is not None else 0):
                child = node.getChildAtIndex(i)
                if child is None:
                    continue
                if pred(child):
                    return child
                below.append(child)
        level = below
    return None


def undo_button(t, main):
    """The Undo button of the toast of the last change written."""
    return near_top(main, lambda a: a.getRoleName() == "push button"
                    and "Undo" in [(a.name or "").replace("_", ""), *t.texts(a)])


def toast_says(t, main, pred):
    """Whether a toast shows a text satisfying pred."""
    return near_top(main, lambda a: a.getRoleName() == "label" and pred(t.text_of(a))) is not None


def drive(t, w):
    t.w = w
    w.start_x_and_session()
    t.connect_atspi()
    w.start_app()
    main = wait_for("the app's window", lambda: t.window("nvprofiled"))
    t.show_page(main, "Applications")
    wait_for("the Flatpak application's row", lambda: t.table_row(main, "org.example.Game"))
    t.expand(main, "org.example.Game", "glxgears (4100)")
    wait_for("glxgears's profile", lambda: [
        s for s in t.cells(main, "glxgears (4100)") or [] if "GLThreadedOptimizations = true" in s])

    preview, apply_button = preview_rule(t, main)
    diff = t.find(preview, "text", name="Difference of the file")
    t.assertIn('"GLFSAAMode"', t.text_of(diff))
    w.screenshot("system-rule-preview")

    # While polkit has not answered, Apply sends nothing more; refused, the preview says so and stays open to
    # try again.
    t.click(apply_button)
    wait_for("Apply held", lambda: not apply_button.getState().contains(t.pyatspi.STATE_SENSITIVE))
    tell("asked")
    wait_for("the refusal", lambda: REFUSAL in t.texts(preview))
    t.assertTrue(t.a11y.windows("Preview: Add a rule for "))
    w.screenshot("system-rule-refused")
    tell("refused")

    t.assertEqual(hear(), "apply")
    t.assertTrue(apply_button.getState().contains(t.pyatspi.STATE_SENSITIVE), "Apply is not offered again")
    t.click(apply_button)
    wait_for("Apply held again", lambda: not apply_button.getState().contains(t.pyatspi.STATE_SENSITIVE))
    tell("changed")
    wait_for("the dialogs to close", lambda: t.window("Add a Rule") is None and not t.a11y.windows("Preview: "))
    wait_for("the new setting in glxgears's row", lambda: has_setting(t, main))
    w.screenshot("system-rule-applied")
    tell("shown")

    # Undo: the toast's button; the daemon reverts and reloads, glxgears loses the setting.
    t.assertEqual(hear(), "undo")
    t.click(wait_for("the toast's Undo", lambda: undo_button(t, main)))
    wait_for("the Undo said", lambda: toast_says(t, main, lambda s: s.startswith("Undone: Add a rule for ")))
    wait_for("the setting gone from glxgears's row", lambda: not has_setting(t, main))
    w.screenshot("system-rule-undone")
    tell("undone")

    # Written again (polkit allows at once); its Undo refused: the app says so.
    t.assertEqual(hear(), "again")
    preview, apply_button = preview_rule(t, main)
    t.click(apply_button)
    wait_for("the dialogs to close", lambda: t.window("Add a Rule") is None and not t.a11y.windows("Preview: "))
    wait_for("the new setting in glxgears's row", lambda: has_setting(t, main))
    tell("shown")
    t.assertEqual(hear(), "undo")
    t.click(wait_for("the toast's Undo", lambda: undo_button(t, main)))
    wait_for("the refused Undo said", lambda: toast_says(t, main, lambda s: "was not undone: " in s))
    t.assertTrue(has_setting(t, main), "glxgears lost the setting though the Undo was refused")
    w.screenshot("system-rule-undo-refused")
    tell("not undone")

    # The rule edited in place, through the dialog the app's edit-rule action opens; then undone. First the
    # file's profile, in the dialog the edit-profile action opens: read through the daemon too.
    word, _, rule_id = hear().partition(" ")
    t.assertEqual(word, "edit")
    w.app_action_with("edit-profile", f"('{SYSTEM_TARGET}', 'Kept')")
    dialog = wait_for("the Edit Profile dialog", lambda: t.window("Edit Profile Kept"))
    preview_button = t.button(dialog, "Preview…")
    wait_for("the profile read", lambda: preview_button.getState().contains(t.pyatspi.STATE_SENSITIVE))
    t.assertIn("GLSyncToVblank", t.texts(dialog))
    t.click(t.button(dialog, "Close"))
    wait_for("the Edit Profile dialog to close", lambda: t.window("Edit Profile Kept") is None)
    w.app_action_with("edit-rule", f"('{SYSTEM_TARGET}', '{rule_id}')")
    dialog = wait_for("the Edit Rule dialog", lambda: t.window("Edit Rule"))
    preview_button = t.button(dialog, "Preview…")
    wait_for("the rule read", lambda: preview_button.getState().contains(t.pyatspi.STATE_SENSITIVE))
    # Off, the first item: reached whether the popover's list starts at the current item or at the top.
    t.a11y.pick(dialog, "Value", "0: Off")
    t.click(preview_button)
    preview = wait_for("the edit's preview", lambda: (t.a11y.windows("Preview: ") or [None])[0])
    try:
        wait_for("the edit's change", lambda: any("4100 glxgears: GLFSAAMode = 0 (5)" in s for s in t.texts(preview)))
    except AssertionError:
        raise AssertionError(f"the preview says {t.texts(preview)}")
    apply_button = t.button(preview, "Apply")
    wait_for("Apply offered", lambda: apply_button.getState().contains(t.pyatspi.STATE_SENSITIVE))
    t.click(apply_button)
    wait_for("the dialogs to close", lambda: t.window("Edit Rule") is None and not t.a11y.windows("Preview: "))
    wait_for("the edited setting in glxgears's row", lambda: has_setting(t, main, "GLFSAAMode = 0"))
    tell("edited")
    t.assertEqual(hear(), "undo")
    t.click(wait_for("the toast's Undo", lambda: undo_button(t, main)))
    wait_for("the setting back in glxgears's row", lambda: has_setting(t, main))
    w.screenshot("system-rule-edit-undone")
    tell("undone")

    # Removed from the Profiles page, which lists the system's rules for this user (its $HOME is not under
    # the daemon's root: no rc files of its own); then undone.
    word, _, where = hear().partition(" ")
    t.assertEqual(word, "remove")
    t.show_page(main, "Profiles")
    remove = wait_for("the rule's Remove button", lambda: t.pyatspi.findDescendant(
        main, lambda a: a is not None and a.getRoleName() == "push button" and a.name == f"Remove {where}"))
    t.click(remove)
    preview = wait_for("the removal's preview", lambda: (t.a11y.windows("Preview: ") or [None])[0])
    apply_button = t.button(preview, "Apply")
    wait_for("Apply offered", lambda: apply_button.getState().contains(t.pyatspi.STATE_SENSITIVE))
    t.click(apply_button)
    wait_for("the preview to close", lambda: not t.a11y.windows("Preview: "))
    t.show_page(main, "Applications")
    wait_for("the setting gone from glxgears's row", lambda: not has_setting(t, main))
    tell("removed")
    t.assertEqual(hear(), "undo")
    t.click(wait_for("the toast's Undo", lambda: undo_button(t, main)))
    wait_for("the setting back in glxgears's row", lambda: has_setting(t, main))
    tell("undone")

    t.assertEqual(hear(), "quit")
    w.app_action("quit")
    t.assertEqual(w.app.wait(timeout=WAIT), 0)


if __name__ == "__main__":
    if sys.argv[1:] == ["--user-side"]:
        user_side()
        sys.exit(0)
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import tap  # noqa: E402
    tap.main()
