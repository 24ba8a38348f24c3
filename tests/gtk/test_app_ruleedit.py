#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The app's profile editing (issue 32), in the end-to-end test's world (the real nvprofiled over the
usage fixture, a fixture rc file in a scratch $HOME, nvprofiled-gtk driven through AT-SPI): each edit is
previewed (the diff and the running processes whose settings change), written only on Apply, read back
through the daemon's explanation (`nvprofilectl explain`) or `nvprofilectl rules`, and undone (the toast's
Undo, or Ctrl+Z's action), which restores the file byte for byte (removes the file the edit created).

- a new rule with a composite pattern (procname glxgears and not procname ollama) and a typed setting;
- the fixture's rule edited in place: its pattern written as JSON, still referring to its profile;
- a profile's boolean setting turned off with its switch;
- a new profile, then removed.

Every process it starts is killed and its scratch directory removed (AppWorld.teardown)."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import CTL, WAIT, wait_for  # noqa: E402
import test_app_e2e  # noqa: E402  (a module, not its class: its own test is not collected here)


class RuleEditTest(test_app_e2e.AppTest):
    test_app = None  # the end-to-end case is test_app_e2e.py's; this reuses its world and helpers

    def test_ruleedit(self):
        try:
            self.run_edits()
        except BaseException:
            for name in ("daemon", "app"):
                sys.stderr.write(f"--- {name} log ---\n{self.w.log(name)}\n")
            raise

    # --- reading back --------------------------------------------------------------------------------------

    def ctl(self, *args):
        return json.loads(subprocess.run([CTL, f"--bus={self.w.address}", "--json=short", *args],
                                         capture_output=True, text=True, check=True, timeout=WAIT).stdout)

    def setting(self, key):
        """glxgears's value of key as the daemon explains it, or None."""
        found = [s for s in self.ctl("explain", "4100")["settings"] if s["key"] == key]
        return found[0]["value"] if found else None

    @staticmethod
    def read(path):
        if not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    def switch(self, root, name):
        """The GtkSwitch named name (its AT-SPI role differs between versions: any but a label's)."""
        return self.pyatspi.findDescendant(root, lambda a: a is not None and a.name == name and a.getRoleName() in (
            "switch", "toggle button", "check box", "push button"))

    # --- the edit flow ---------------------------------------------------------------------------------------

    def preview_and_apply(self, title_prefix, change=None, diff_has=()):
        """The preview window of an edit: its changes hold change, its diff each of diff_has; nothing is
        written until Apply."""
        preview = wait_for(f"the preview {title_prefix}", lambda: (self.a11y.windows("Preview: " + title_prefix)
                                                                  or [None])[0])
        apply_button = self.button(preview, "Apply")
        wait_for("Apply offered", lambda: apply_button.getState().contains(self.pyatspi.STATE_SENSITIVE))
        diff = self.text_of(self.find(preview, "text", name="Difference of the file"))
        for text in diff_has:
            self.assertIn(text, diff)
        if change is not None:
            self.assertTrue(any(change in t for t in self.texts(preview)), self.texts(preview))
        self.click(apply_button)
        wait_for("the preview to close", lambda: not self.a11y.windows("Preview: "))

    def undo(self, main, path, before, by_toast=True):
        """Undoes the last edit: the toast's Undo button (else the app's action, as Ctrl+Z); the file is
        back byte for byte."""
        if by_toast:
            def undo_button():
                return self.pyatspi.findDescendant(main, lambda a: a is not None and a.getRoleName() == "push button"
                                                   and "Undo" in [(a.name or "").replace("_", ""), *self.texts(a)])
            try:
                button = wait_for("the toast's Undo", undo_button)
            except AssertionError:
                buttons = self.pyatspi.findAllDescendants(main, lambda a: a is not None and "button" in a.getRoleName())
                raise AssertionError(f"no Undo: {[(b.getRoleName(), b.name, self.texts(b)) for b in buttons]}")
            self.click(button)
        else:
            self.w.app_action("undo-profile-edit")
        wait_for(f"{path} restored byte for byte", lambda: self.read(path) == before)

    def run_edits(self):
        self.w.start_x_and_session()
        self.w.start_daemon()
        self.connect_atspi()
        self.w.start_app()
        main = wait_for("the app's window", lambda: self.window("nvprofiled"))
        self.show_page(main, "Applications")
        wait_for("the Flatpak application's row", lambda: self.table_row(main, "org.example.Game"))
        self.expand(main, "org.example.Game", "glxgears (4100)")
        wait_for("glxgears's profile", lambda: self.setting("GLThreadedOptimizations") is True)
        rc_before = self.read(self.w.rc)
        target = os.path.join(self.w.home, ".nv", "nvidia-application-profiles-rc.d", "50-nvprofilectl")

        # 1. A new rule, composite: procname glxgears and not procname ollama; GLFSAAMode from its values.
        self.click(self.button(main, "Add a rule for glxgears (4100)"))
        dialog = wait_for("the Add a Rule dialog", lambda: self.window("Add a Rule"))
        self.click(self.button(dialog, "Add Condition"))
        self.set_entry(dialog, "Matches of condition 2", "ollama")
        negate = wait_for("condition 2's not", lambda: self.pyatspi.findAllDescendants(
            dialog, lambda a: a is not None and a.getRoleName() == "check box" and a.name == "not")[1])
        self.a11y.point(negate)
        wait_for("condition 2 negated", lambda: negate.getState().contains(self.pyatspi.STATE_CHECKED))
        self.a11y.pick(dialog, "Value", "10: 8x (8xMS)")
        self.click(self.button(dialog, "Preview…"))
        self.preview_and_apply("Add a rule for ", "4100 glxgears: GLFSAAMode = 10 (new)",
                               ('"op": "and"', '"op": "not"', '"matches": "ollama"', '"GLFSAAMode"'))
        wait_for("the new rule in effect", lambda: self.setting("GLFSAAMode") == 10)
        self.assertIsNotNone(self.read(target))
        self.undo(main, target, None)
        wait_for("the rule gone", lambda: self.setting("GLFSAAMode") is None)

        # 2. The fixture's rule edited in place: its pattern written as JSON (cmdline), still applying the
        # profile it refers to; inline settings cannot replace a reference (the dialog says so).
        rule = [r for r in self.ctl("rules", "--home", self.w.home)["rules"] if r["file"] == self.w.rc][0]
        self.w.app_action_with("edit-rule", f"('{self.w.rc}', '{rule['id']}')")
        dialog = wait_for("the Edit Rule dialog", lambda: self.window("Edit Rule"))
        self.a11y.point(wait_for("the JSON switch", lambda: self.switch(dialog, "Write the pattern as JSON")))
        json_view = wait_for("the pattern's JSON", lambda: self.find(dialog, "text", name="Pattern as JSON"))
        self.assertIn('"glxgears"', self.text_of(json_view))
        json_view.queryEditableText().setTextContents('{ "feature": "cmdline", "matches": "glxgears" }')
        self.a11y.pick(dialog, "Applies", "Settings written in the rule")
        self.click(self.button(dialog, "Preview…"))
        wait_for("the reference kept", lambda: any("refers to the profile Threaded" in t for t in self.texts(dialog)))
        self.a11y.pick(dialog, "Applies", "An existing profile")
        self.click(self.button(dialog, "Preview…"))
        self.preview_and_apply("Change the rule for ", None, ('"cmdline"',))
        wait_for("the edited rule listed", lambda: [
            r for r in self.ctl("rules", "--home", self.w.home)["rules"]
            if r["file"] == self.w.rc and "cmdline" in r["pattern"] and r["profile"] == "Threaded"])
        self.undo(main, self.w.rc, rc_before, by_toast=False)
        wait_for("the procname rule again", lambda: [
            r for r in self.ctl("rules", "--home", self.w.home)["rules"]
            if r["file"] == self.w.rc and "procname" in r["pattern"]])

        # 3. The profile's boolean, off with its switch.
        self.w.app_action_with("edit-profile", f"('{self.w.rc}', 'Threaded')")
        dialog = wait_for("the Edit Profile dialog", lambda: self.window("Edit Profile Threaded"))
        switch = wait_for("the boolean's switch", lambda: self.switch(dialog, "Value"))
        self.a11y.point(switch)
        self.click(self.button(dialog, "Preview…"))
        self.preview_and_apply("Change the profile Threaded", "GLThreadedOptimizations = false (true)",
                               ('"value": false',))
        wait_for("the setting off", lambda: self.setting("GLThreadedOptimizations") is False)
        self.undo(main, self.w.rc, rc_before)

        # 4. A new profile, then removed.
        self.w.app_action_with("edit-profile", f"('{self.w.rc}', '')")
        dialog = wait_for("the Add a Profile dialog", lambda: self.window("Add a Profile"))
        self.set_entry(dialog, "Profile name", "Sharp")
        self.click(self.button(dialog, "Preview…"))
        self.preview_and_apply("Add the profile Sharp", None, ('"Sharp"',))
        wait_for("the profile listed", lambda: any(p["name"] == "Sharp" for p in self.ctl("profiles", "--home", self.w.home)["profiles"]))
        added = self.read(self.w.rc)
        self.w.app_action_with("remove-profile", f"('{self.w.rc}', 'Sharp')")
        self.preview_and_apply("Remove the profile Sharp", None, ('-',))
        wait_for("the profile gone", lambda: not any(p["name"] == "Sharp" for p in self.ctl("profiles", "--home", self.w.home)["profiles"]))
        self.undo(main, self.w.rc, added)
        self.w.app_action("undo-profile-edit")  # nothing left to undo: the file stays
        self.assertEqual(self.read(self.w.rc), added)

        self.w.app_action("quit")
        self.assertEqual(self.w.app.wait(timeout=WAIT), 0)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
