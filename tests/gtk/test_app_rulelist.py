#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Profiles page (issue 32): the real daemon and app in the headless world of the other app tests
(appworld.py), the user's rc.d holding copies of the example rc files (they are edited) and, read in place
through links, CachyOS's file, the broken Pop!_OS file (a trailing comma) and the driver's 570 file.

Proves: the rules are grouped by file in the order `nvprofilectl rules` (the daemon's ListRules) gives;
the broken file's error is shown at its file with file:line:column and ListErrors' message, and "Open file"
asks the desktop's default handler for it (a test handler that records its argument); the search entry
leaves only the matching rules; remove, move down, move up across a file boundary, disable and enable each
go through the preview's Apply and are read back through `nvprofilectl rules --json`; Explain opens on the
matched rule and the effective settings, the unmatched rules behind their expander.

Every process it starts is killed and its scratch directory removed, whatever happened (appworld)."""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, CORPUS, CTL, DAEMON, FIXTURE_TOOL, POLICY, TOOLS, WAIT, AppWorld, AtSpi,  # noqa: E402
                      click, text_of, wait_for)

EXAMPLES = os.environ.get("NVPROFILED_EXAMPLES", "")
# A bound on the page's reload after an edit: 150 rules' rows are made again, each announced over AT-SPI.
RELOAD = WAIT * 4
RC_D = "nvidia-application-profiles-rc.d"
# name in the user's rc.d -> the file it copies (edited by the test) or links to (read in place)
COPIES = {"40-examples-rc": "etc/nvidia/nvidia-application-profiles-rc",
          "50-limit-free-buffer-pool.json": f"etc/nvidia/{RC_D}/50-limit-free-buffer-pool.json",
          "60-terminals": f"etc/nvidia/{RC_D}/60-terminals"}
LINKS = {"70-cachyos.json": "cachyos-cuda-no-stable-perf-limit-2025-12.json",
         "80-popos.json": "popos-cuda-no-stable-perf-limit-TRAILINGCOMMA.json",
         "90-nvidia-570": "nvidia-shipped-570.153.02-rc"}
HANDLER = """[Desktop Entry]
Type=Application
Name=Test editor
Exec={script} %f
MimeType=application/json;text/plain;application/octet-stream;
"""


class RuleListTest(unittest.TestCase):
    def setUp(self):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP), ("NVPROFILECTL_BIN", CTL),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY),
                                  ("NVPROFILED_EXAMPLES", EXAMPLES))
                   if not v or not os.path.exists(v)]
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        for tool in TOOLS:
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed")
        self.corpus = os.path.join(CORPUS, "appprofiles")
        if not all(os.path.exists(os.path.join(self.corpus, f)) for f in LINKS.values()):
            self.skipTest(f"{self.corpus} lacks {list(LINKS.values())} (corpus_dir)")
        self.w = AppWorld()
        self.addCleanup(self.w.teardown)

    # --- helpers -----------------------------------------------------------------------------------------------

    def find(self, root, role, name=None, contains=None):
        def pred(a):
            if a is None or a.getRoleName() != role:
                return False
            if name is not None and a.name != name:
                return False
            return contains is None or contains in (a.name or "")
        return self.pyatspi.findDescendant(root, pred)

    def texts(self, node):
        return self.a11y.texts(node)

    def button(self, root, name):
        return wait_for(f"the button {name}", lambda: self.pyatspi.findDescendant(
            root, lambda a: a is not None and a.getRoleName() == "push button" and a.name == name), timeout=RELOAD)

    @staticmethod
    def height(node):
        return node.queryComponent().getExtents(0).height  # 0: ATSPI_COORD_TYPE_SCREEN; only the size is used

    def dump(self, node, depth=0):
        """The tree below node (role, name, states of interest), for a failure's message."""
        states = [s for s in ("visible", "showing", "expandable", "expanded") if node.getState().contains(
            getattr(self.pyatspi, "STATE_" + s.upper()))]
        out = f"{'  ' * depth}{node.getRoleName()} {node.name!r} {states}\n"
        for i in range(min(node.childCount, 40)):
            child = node.getChildAtIndex(i)
            if child is not None:
                out += self.dump(child, depth + 1)
        return out

    def shown_rules(self, main):
        """The titles of the rules' rows the search leaves visible ("pattern → profile")."""
        return [a.name for a in self.pyatspi.findAllDescendants(
            main, lambda a: a is not None and a.getRoleName() == "list item" and " → " in (a.name or "")
            and a.getState().contains(self.pyatspi.STATE_VISIBLE))]

    def wait_button(self, main, name):
        """Waits for the page to show the button name (once it reloaded after an edit)."""
        try:
            return wait_for(f"the button {name}", lambda: self.find(main, "push button", name=name), timeout=RELOAD)
        except AssertionError:
            verb = name.split(" /")[0]
            buttons = self.pyatspi.findAllDescendants(main, lambda a: a is not None and a.getRoleName() == "push button"
                                                      and (a.name or "").startswith(verb + " /"))
            raise AssertionError(f"no button {name}: {[b.name for b in buttons][:12]}")

    def ctl_rules(self):
        """`nvprofilectl rules --json` for the scratch home: the daemon's rules in precedence order."""
        out = subprocess.run([CTL, f"--bus={self.w.address}", "--json=short", "rules", "--home", self.w.home],
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out)["rules"]

    def where(self, rule):
        return f"{rule['file']}:{rule['line']}:{rule['column']}"

    def rules_of(self, name):
        return [r for r in self.ctl_rules() if r["file"] == os.path.join(self.rcd, name)]

    def file_titles(self, main):
        """The group titles of the Profiles page that are files, in the page's order."""
        labels = self.pyatspi.findAllDescendants(main, lambda a: a is not None and a.getRoleName() == "label"
                                                 and text_of(a).startswith("/") and "\n" not in text_of(a)
                                                 and ":" not in text_of(a))
        titles = []
        for label in labels:
            t = text_of(label)
            if t not in titles:
                titles.append(t)
        return titles

    def apply_preview(self, what):
        """The edit's preview (profile_edit_run()), applied as a user does."""
        preview = wait_for(f"the preview of {what}", lambda: (self.a11y.windows("Preview: ") or [None])[0])
        apply_button = self.button(preview, "Apply")
        wait_for(f"Apply offered for {what}", lambda: apply_button.getState().contains(self.pyatspi.STATE_SENSITIVE))
        click(apply_button)
        wait_for("the preview to close", lambda: not self.a11y.windows("Preview: "))

    def show_page(self, main, title):
        tab = wait_for(f"page tab {title}", lambda: self.find(main, "page tab", name=title))
        click(tab)
        wait_for(f"page {title} selected", lambda: tab.getState().contains(self.pyatspi.STATE_SELECTED))

    # --- the case ----------------------------------------------------------------------------------------------

    def test_rule_list(self):
        try:
            self.run_case()
        except BaseException:
            self.w.write_logs("daemon", "app")
            raise

    def setup_files(self):
        self.rcd = os.path.join(self.w.home, ".nv", RC_D)
        os.makedirs(self.rcd)
        for name, src in COPIES.items():
            shutil.copy(os.path.join(EXAMPLES, src), os.path.join(self.rcd, name))
        for name, src in LINKS.items():
            os.symlink(os.path.join(self.corpus, src), os.path.join(self.rcd, name))
        # The desktop's default handler for the rc files: a test editor recording what it was asked to open.
        self.opened = os.path.join(self.w.dir, "opened.log")
        data, config = os.path.join(self.w.dir, "xdg-data"), os.path.join(self.w.dir, "xdg-config")
        os.makedirs(os.path.join(data, "applications"))
        os.makedirs(config)
        script = os.path.join(self.w.dir, "test-editor")
        with open(script, "w") as f:
            f.write(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {self.opened}\n')
        os.chmod(script, 0o755)
        with open(os.path.join(data, "applications", "test-editor.desktop"), "w") as f:
            f.write(HANDLER.format(script=script))
        with open(os.path.join(config, "mimeapps.list"), "w") as f:
            f.write("[Default Applications]\n" + "".join(f"{t}=test-editor.desktop\n" for t in (
                "application/json", "text/plain", "application/octet-stream")))
        return {"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": config}

    def run_case(self):
        self.w.start_x_and_session()
        self.w.start_daemon()
        env = self.setup_files()
        self.a11y = AtSpi()
        self.pyatspi = self.a11y.pyatspi
        wait_for("the daemon's rules of every file", lambda: len({r["file"] for r in self.ctl_rules()}) == 6)
        # 153 rules and the driver's profiles: rows that the ASan build lays out within the test's bounds
        # only without LeakSanitizer's slow unwinding (appworld.start_app()).
        self.w.start_app(env=env, leak_check=False)
        main = wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))
        self.show_page(main, "Profiles")

        # Grouped by file, in the daemon's precedence order; the broken file (no rules) with its error.
        rules = self.ctl_rules()
        files = []
        for r in rules:
            if r["file"] not in files:
                files.append(r["file"])
        self.assertEqual(files[0], self.w.rc)
        self.assertEqual(len(rules), 1 + 4 + 1 + 2 + 1 + 144, [self.where(r) for r in rules])
        popos = os.path.join(self.rcd, "80-popos.json")
        wait_for("every file's group", lambda: len(self.file_titles(main)) == len(files) + 1)
        self.assertEqual(self.file_titles(main), files + [popos])
        # Each rule's row is there, by the buttons that name it.
        for r in (rules[0], rules[5], rules[-1]):
            self.assertIsNotNone(self.find(main, "push button", name=f"Edit {self.where(r)}"), self.where(r))

        # The broken file's error, as ListErrors gives it, at file:line:column; "Open file" opens it.
        errors = [e for e in self.w.busctl("call", "/io/github/nvprofiled/NvProfiled1", "Manager", "ListErrors")[0]
                  if e[0] == popos and e[2] == "error"]
        self.assertTrue(errors, "the daemon reports no error for the Pop!_OS file")
        error_where = f"{popos}:{errors[0][3]}:{errors[0][4]}"
        row = wait_for("the error's row", lambda: self.find(main, "list item", name=error_where))
        self.assertIn(f"error: {errors[0][5]}", self.texts(row))
        click(self.button(main, f"Open {popos}"))
        wait_for("the editor asked to open the file", lambda: os.path.exists(self.opened)
                 and open(self.opened).read().split("\n")[0] == popos)

        # The doctor's findings for the same home (Manager.Doctor), each at its file with file:line:column,
        # its kind, its sentence and its fix, which "Copy Fix" offers (issue 33).
        findings = self.w.busctl("call", "/io/github/nvprofiled/NvProfiled1", "Manager", "Doctor", "ss", "user",
                                 self.w.home)[0]
        cachy_file = os.path.join(self.rcd, "70-cachyos.json")
        self.assertIn(["installed-file", cachy_file, 0, 0], [f[:4] for f in findings])
        wait_for("the installed file's finding", lambda: [
            r for r in self.pyatspi.findAllDescendants(main, lambda a: a is not None and a.getRoleName() == "list item"
                                                       and a.name == cachy_file)
            if any(t.startswith("installed-file: ") for t in self.texts(r))])
        with_fix = [f for f in findings if f[5] and f[2]]
        self.assertTrue(with_fix, findings)
        f = with_fix[0]
        where = f"{f[1]}:{f[2]}:{f[3]}"
        row = wait_for("the finding's row", lambda: self.find(main, "list item", name=where))
        self.assertIn(f"{f[0]}: {f[4]}\nFix: {f[5]}", self.texts(row))
        click(self.button(main, f"Copy the fix of {where}"))

        # Search: only the rules that match every word are left (pattern, profile, settings, file).
        search = wait_for("the search entry", lambda: self.find(main, "entry", name="Search rules"))
        cachy = os.path.join(self.rcd, "70-cachyos.json")
        cachy_rules = [r for r in rules if r["file"] == cachy]
        search.queryEditableText().setTextContents("0x166c5e")  # a setting key only CachyOS's profile sets
        expected = [f"{r['pattern']} → {r['profile']}" for r in cachy_rules]
        try:
            wait_for("only CachyOS's rule", lambda: self.shown_rules(main) == expected)
        except AssertionError:
            raise AssertionError(f"shown: {self.shown_rules(main)[:5]}, expected {expected}")
        search.queryEditableText().setTextContents("")
        wait_for("every rule again", lambda: len(self.shown_rules(main)) == len(rules))

        # Move down within a file: 60-terminals' two rules change places.
        terminals = self.rules_of("60-terminals")
        self.assertEqual([r["profile"] for r in terminals][0], "Threaded")
        click(self.button(main, f"Move down {self.where(terminals[0])}"))
        self.apply_preview("the move down")
        wait_for("the rules swapped", lambda: [r["profile"] for r in self.rules_of("60-terminals")][1] == "Threaded")

        # Move up across the boundary: 60-terminals' first rule goes to the end of the file before it.
        first = self.rules_of("60-terminals")[0]
        self.wait_button(main, f"Move up {self.where(first)}")
        before = self.rules_of("50-limit-free-buffer-pool.json")
        source, destination = first["file"], before[0]["file"]
        texts = {path: open(path, "rb").read() for path in (source, destination)}
        click(self.button(main, f"Move up {self.where(first)}"))
        self.apply_preview("the move up")
        wait_for("the rule at the end of the file before", lambda: len(
            self.rules_of("50-limit-free-buffer-pool.json")) == len(before) + 1)
        # Undo takes a move into another file back whole: both files byte for byte; then it is made again.
        self.w.app_action("undo-profile-edit")
        wait_for("both files of the move restored byte for byte", lambda: all(
            open(path, "rb").read() == text for path, text in texts.items()))
        wait_for("the rule back in its file", lambda: len(self.rules_of("60-terminals")) == 2)
        self.wait_button(main, f"Move up {self.where(first)}")
        click(self.button(main, f"Move up {self.where(first)}"))
        self.apply_preview("the move up, again")
        wait_for("the rule at the end of the file before", lambda: len(
            self.rules_of("50-limit-free-buffer-pool.json")) == len(before) + 1)
        moved = self.rules_of("50-limit-free-buffer-pool.json")[-1]
        self.assertEqual(moved["pattern"], first["pattern"])
        self.assertEqual(len(self.rules_of("60-terminals")), 1)

        # Disable: the rule leaves what the driver reads, and is listed as disabled; Enable brings it back.
        rule = self.rules_of("60-terminals")[0]
        total = len(self.ctl_rules())
        click(self.button(main, f"Disable {self.where(rule)}"))
        self.apply_preview("disabling")
        wait_for("the rule gone from what the driver reads", lambda: not self.rules_of("60-terminals")
                 and len(self.ctl_rules()) == total - 1)
        disabled = os.path.join(self.w.home, ".nv", "nvidia-application-profiles-rc.disabled")
        self.assertIn('"alacritty"', open(disabled).read())
        enable = wait_for("the disabled rule's row", lambda: self.find(main, "push button", contains=f"Enable {disabled}:"),
                          timeout=RELOAD)
        click(enable)
        self.apply_preview("enabling")
        wait_for("the rule enabled in the app's file", lambda: [
            r for r in self.rules_of("50-nvprofilectl") if r["pattern"] == rule["pattern"]])

        # Remove: the rule is gone from the daemon's rules.
        victim = self.rules_of("40-examples-rc")[1]
        self.wait_button(main, f"Remove {self.where(victim)}")
        click(self.button(main, f"Remove {self.where(victim)}"))
        self.apply_preview("the removal")
        wait_for("the rule removed", lambda: len(self.rules_of("40-examples-rc")) == 3)
        self.assertNotIn(victim["pattern"], [r["pattern"] for r in self.rules_of("40-examples-rc")])

        # Explain opens on what matched and took effect; the rules that did not match one click away.
        self.show_page(main, "Applications")
        self.a11y.expand_row(main, "org.example.Game", "glxgears (4100)")
        click(self.button(main, "Explain glxgears (4100)"))
        explain = wait_for("the explanation", lambda: self.a11y.window("Explanation of glxgears (4100)"))
        wait_for("the effective setting", lambda: self.find(explain, "list item", name="GLThreadedOptimizations = true"))
        explained = json.loads(subprocess.run([CTL, f"--bus={self.w.address}", "--json=short", "explain", "4100"],
                                              capture_output=True, text=True, check=True).stdout)
        matched = [self.where(r) for r in explained["rules"] if r["matched"]]
        self.assertTrue(matched)
        for where in matched:
            row = self.find(explain, "list item", name=where)
            self.assertIsNotNone(row, where)
            self.assertIsNone(self.pyatspi.findAncestor(row, lambda a: a is not None and "did not match" in (a.name or "")),
                              f"{where} is among the unmatched")
        # The unmatched rules: hidden until "Show" is clicked.
        self.assertIsNotNone(self.find(explain, "label", name=f"{len(explained['rules']) - len(matched)} rules did "
                                       "not match"), self.dump(explain))
        other = [self.where(r) for r in explained["rules"] if not r["matched"]][0]
        # GTK leaves a hidden row out of the accessibility tree.
        self.assertIsNone(self.find(explain, "list item", name=other), "the unmatched rules are shown at first")
        click(self.button(explain, "Show the rules that did not match"))
        wait_for("the unmatched rules once shown", lambda: self.find(explain, "list item", name=other))
        self.a11y.close_window(explain)
        self.w.quit_app(self.w.app)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
