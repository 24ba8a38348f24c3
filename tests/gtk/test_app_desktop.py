#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop app on a desktop (issue 22, "The app"): what the end-to-end test cannot show without a window
manager, a desktop's settings and a keyboard. The real nvprofiled over the fixture of appworld.py, the real
nvprofiled-gtk under Xvfb with openbox managing its window, driven with X input events (xdotool, XTest) as a
user's mouse and keyboard drive it, and read through AT-SPI (pyatspi) and the screen's pixels. Proves:
- minimising the window (its own header bar button, or the window manager's iconify request as a taskbar
  sends it) releases the WatchUsage descriptor: the daemon's Watchers drops to 0 while the app runs on;
  restoring it takes one again;
- the app follows the desktop's style: GSettings org.gnome.desktop.interface color-scheme (what libadwaita
  reads without the Settings portal), 'prefer-dark' gives a dark window and 'default' a light one, at start
  and when the setting changes while the app runs;
- keyboard navigation: Ctrl+O opens the file chooser and Escape closes it; Tab reaches the view switcher and
  Return switches the page; Tab reaches glxgears's Explain button and Return opens its explanation; every
  control of every main view and of the Add a Rule dialog has an accessible name.
Screenshots (dark, light, minimised and restored) go to $NVPROFILED_SCREENSHOT_DIR.

Every process it starts (Xvfb, openbox, both buses and what they activate, the daemon, the app) is killed,
and its scratch directory removed, by AppWorld.teardown, whatever happened."""

import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import APP, DAEMON, FIXTURE_TOOL, POLICY, TOOLS, AppWorld, AtSpi, wait_for  # noqa: E402

# Roles of what a user operates (GTK 4.8's AT-SPI roles): each needs a name a screen reader can say.
CONTROL_ROLES = {"push button", "toggle button", "check box", "radio button", "page tab", "text", "entry",
                 "password text", "combo box", "spin button", "switch", "slider", "menu item"}
# A name GTK makes up from the widget's type when the app gave none ("GtkImage" for an icon-only button).
TYPE_NAME = re.compile(r"(Gtk|Adw)[A-Z]\w*")


class DesktopTest(unittest.TestCase):
    """One world for the module (pyatspi keeps the AT-SPI bus it first connected to): Xvfb, openbox, the
    session bus, the daemon; each case starts the app afresh and quits it."""

    @classmethod
    def setUpClass(cls):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
                   if not v or not os.path.exists(v)]
        if missing:
            raise unittest.SkipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "openbox", "xdotool", "import", "gsettings"):
            if not shutil.which(tool):
                raise unittest.SkipTest(f"{tool} is not installed")
        cls.w = AppWorld()
        cls.addClassCleanup(cls.w.teardown)
        cls.w.start_x_and_session()
        cls.w.start_window_manager()
        cls.w.start_daemon()
        # The desktop's GSettings: the keyfile backend, its file in the scratch directory.
        config = os.path.join(cls.w.dir, "config")
        os.makedirs(os.path.join(config, "glib-2.0", "settings"))
        cls.w.env.update(GSETTINGS_BACKEND="keyfile", XDG_CONFIG_HOME=config)
        cls.a11y = AtSpi()
        cls.pyatspi = cls.a11y.pyatspi

    def logged(self, case):
        """Runs case; on a failure, the logs of the daemon, the app and openbox go with it."""
        try:
            case()
        except BaseException:
            if getattr(self.w, "app", None) is not None:
                sys.stderr.write(f"app: exit status {self.w.app.poll()}\n")
            self.w.write_logs("daemon", "app", "openbox")
            raise

    def start_app(self, color_scheme="default"):
        """The app with the desktop's color-scheme set, its main window shown and watching."""
        self.gsettings_set("color-scheme", color_scheme)
        self.assertEqual(self.w.watchers(), 0)
        self.w.start_app(leak_check=False)  # CI's time: see appworld.start_app()
        self.addCleanup(self.stop_app, self.w.app)
        self.main = wait_for("the app's window", lambda: self.window("nvprofiled"))
        wait_for("Watchers 1 while the window is shown", lambda: self.w.watchers() == 1)
        self.xid = wait_for("the window on the X screen", self.x_window)

    def stop_app(self, app):
        """Quits the app (Ctrl+Q's action); it must exit with 0 (under the sanitizers: nothing leaked)."""
        self.w.quit_app(app)
        wait_for("Watchers 0 once the app is gone", lambda: self.w.watchers() == 0)
        self.assertEqual(app.returncode, 0, "the app's exit status")

    def gsettings_set(self, key, value):
        """What a desktop's settings panel does: the key written through GSettings (here its keyfile
        backend, which the app's GSettings watches)."""
        subprocess.run(["gsettings", "set", "org.gnome.desktop.interface", key, value], env=self.w.env,
                       check=True, capture_output=True)

    # --- X and AT-SPI ------------------------------------------------------------------------------------------

    def x_window(self):
        """The X id of the app's main window while it is viewable (not minimised), else None."""
        found = self.w.xdotool("search", "--onlyvisible", "--name", "^nvprofiled$", check=False)
        return found.split()[0] if found else None

    def key(self, *keys):
        """Keys as a user types them (XTest), into the window that has the focus."""
        self.w.xdotool("key", "--clearmodifiers", *keys)

    def window(self, title):
        return self.a11y.window(title)

    def descendants(self, root, pred):
        return self.pyatspi.findAllDescendants(root, lambda a: a is not None and pred(a))

    def has(self, node, state):
        return node.getState().contains(state)

    def focused(self, root, pred=lambda node: True):
        return self.a11y.focused(root, pred)

    def tab_to(self, root, what, pred):
        """Tab as xdotool types it, like every key of this test."""
        return self.a11y.tab_to(root, what, pred, press_tab=lambda: self.key("Tab"))

    def tab_to_row(self, root, name, limit=20):
        """Presses Tab until the focus is on the Applications row of name. The focused nodes there all have
        one role and name (GTK 4.8 gives a list's rows no accessible name of their own), so a move is told
        by the node's place and first label."""
        def place(a):
            if a is None:
                return None
            label = self.pyatspi.findDescendant(a, lambda x: x is not None and x.getRoleName() == "label")
            return self.a11y.role_name(a), a.getIndexInParent(), label.name if label is not None else None

        node, seen = self.focused(root), []
        for _ in range(limit):
            if node is not None and self.row_named(node, name):
                return node
            before = place(node)
            self.key("Tab")
            node = wait_for("the focus to move", lambda: self.focused(root, lambda a: place(a) != before))
            seen.append(place(node))
        raise AssertionError(f"Tab never reached the row {name}; focus went through {seen}")

    def row_named(self, node, name):
        """Whether node is a row of the Applications column view, or the tree expander in its first cell
        (which takes the focus), whose first label is name."""
        if node.getRoleName() not in ("table row", "panel"):
            return False
        label = self.pyatspi.findDescendant(node, lambda a: a is not None and a.getRoleName() == "label")
        return label is not None and label.name == name

    def page_tab(self, title):
        return wait_for(f"the page tab {title}", lambda: self.pyatspi.findDescendant(
            self.main, lambda a: a is not None and a.getRoleName() == "page tab" and a.name == title))

    # --- 1. minimising releases the watch ---------------------------------------------------------------------

    def test_minimise_releases_watch(self):
        self.logged(self.minimise_case)

    def minimise_case(self):
        self.start_app()
        # The header bar's Minimize button, as a user clicks it: GTK asks the window manager to iconify.
        minimize = wait_for("the Minimize button", lambda: self.pyatspi.findDescendant(
            self.main, lambda a: a is not None and a.getRoleName() == "push button" and a.name == "Minimize"))
        minimize.queryAction().doAction(0)
        self.assert_minimised()
        self.w.xdotool("windowactivate", self.xid)
        self.assert_restored()
        # The window manager's own request (ICCCM WM_CHANGE_STATE Iconic), as a taskbar or a key sends it.
        self.w.xdotool("windowminimize", self.xid)
        self.assert_minimised()
        self.w.screenshot("minimised")
        self.w.xdotool("windowactivate", self.xid)
        self.assert_restored()
        self.w.screenshot("restored")

    def assert_minimised(self):
        wait_for("openbox to iconify the window", lambda: self.x_window() is None)
        wait_for("Watchers 0 once the window is minimised", lambda: self.w.watchers() == 0)
        self.assertIsNone(self.w.app.poll(), "the app exited")
        self.assertIsNotNone(self.window("nvprofiled"), "the app closed its window")

    def assert_restored(self):
        wait_for("the window viewable again", self.x_window)
        wait_for("Watchers 1 once the window is restored", lambda: self.w.watchers() == 1)

    # --- 2. the desktop's dark or light style ----------------------------------------------------------------

    def background(self):
        """The most common colour of the app's window (r, g, b): its background."""
        _, _, pixels = self.w.window_pixels(self.xid)
        counts = {}
        for i in range(0, len(pixels), 3 * 7):  # every 7th pixel is plenty
            rgb = pixels[i:i + 3]
            counts[rgb] = counts.get(rgb, 0) + 1
        rgb = max(counts, key=counts.get)
        return tuple(rgb)

    def wait_style(self, dark):
        """Waits until the window's background is dark (below 30 % luminance) or light (above 80 %)."""
        def matches():
            r, g, b = self.background()
            luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255
            return (luminance < 0.3) if dark else (luminance > 0.8)
        try:
            wait_for("a dark window" if dark else "a light window", matches)
        except AssertionError:
            style = "dark" if dark else "light"
            raise AssertionError(f"the window's background is {self.background()}, not {style}") from None

    def test_follows_color_scheme(self):
        self.logged(self.color_scheme_case)

    def color_scheme_case(self):
        self.start_app(color_scheme="prefer-dark")
        self.wait_style(dark=True)
        self.w.screenshot("dark")
        # Changed while the app runs, as the desktop's Appearance panel changes it.
        self.gsettings_set("color-scheme", "default")
        self.wait_style(dark=False)
        self.w.screenshot("light")
        # Started with the light style set.
        self.stop_app(self.w.app)
        self.start_app(color_scheme="default")
        self.wait_style(dark=False)
        self.gsettings_set("color-scheme", "prefer-dark")
        self.wait_style(dark=True)

    # --- 3. keyboard navigation and accessible names ----------------------------------------------------------

    def test_keyboard(self):
        self.logged(self.keyboard_case)

    def keyboard_case(self):
        self.start_app()
        self.w.xdotool("windowactivate", "--sync", self.xid)
        wait_for("the keyboard focus in the window", lambda: self.focused(self.main))

        # Ctrl+O: the file chooser; Escape closes it.
        self.key("ctrl+o")
        chooser = wait_for("the file chooser", lambda: self.window("Open an Nsight Compute Report"))
        wait_for("the focus in the file chooser", lambda: self.focused(chooser))
        self.key("Escape")
        wait_for("the file chooser to close", lambda: self.window("Open an Nsight Compute Report") is None)
        self.assertTrue(self.has(self.page_tab("Reports"), self.pyatspi.STATE_SELECTED))

        # Tab to the view switcher, Return switches the page.
        names = self.control_names(self.main)
        for title in ("GPUs", "Applications", "Profiles", "Reports"):
            tab = self.tab_to(self.main, f"the page tab {title}",
                              lambda a: a.getRoleName() == "page tab" and a.name == title)
            if not self.has(tab, self.pyatspi.STATE_SELECTED):
                self.key("Return")
                wait_for(f"the page {title} selected", lambda: self.has(tab, self.pyatspi.STATE_SELECTED))
            names.update(self.control_names(self.main))
            for other in ("GPUs", "Applications", "Profiles", "Reports"):
                if other != title:
                    self.assertFalse(self.has(self.page_tab(other), self.pyatspi.STATE_SELECTED), other)

        # The arrow keys move between the page tabs too (the focus is on Reports, the last).
        self.key("Left")
        profiles = wait_for("the focus on the page tab Profiles", lambda: self.focused(
            self.main, lambda a: self.a11y.role_name(a) == ("page tab", "Profiles")))
        self.key("Return")
        wait_for("the page Profiles selected", lambda: self.has(profiles, self.pyatspi.STATE_SELECTED))

        # In Applications, glxgears's Explain button by Tab, pressed with Return.
        self.tab_to(self.main, "the page tab Applications",
                    lambda a: a.getRoleName() == "page tab" and a.name == "Applications")
        self.key("Return")
        wait_for("the page Applications selected",
                 lambda: self.has(self.page_tab("Applications"), self.pyatspi.STATE_SELECTED))
        # Applications start collapsed: Return on the application's row expands it; Down moves to its
        # process's row, Tab into the row's buttons.
        self.tab_to_row(self.main, "org.example.Game")
        self.key("Return")
        wait_for("glxgears's row", lambda: self.pyatspi.findDescendant(
            self.main, lambda a: a is not None and self.row_named(a, "glxgears (4100)")))
        self.key("Down")
        wait_for("the focus on glxgears's row", lambda: self.focused(
            self.main, lambda a: self.row_named(a, "glxgears (4100)")))
        self.tab_to(self.main, "glxgears's Explain button",
                    lambda a: a.getRoleName() == "push button" and a.name == "Explain glxgears (4100)")
        names.update(self.control_names(self.main))  # the process's buttons, now that its row is shown
        self.key("Return")
        explain = wait_for("the explanation window", lambda: self.window("Explanation of glxgears (4100)"))
        names.update(self.control_names(explain))
        self.a11y.close_window(explain)

        # Add a Rule for glxgears, by keyboard too: its entries and combo boxes.
        self.w.xdotool("windowactivate", "--sync", self.xid)
        self.tab_to(self.main, "glxgears's Add a rule button",
                    lambda a: a.getRoleName() == "push button" and (a.name or "").startswith("Add a rule for glxgears"))
        self.key("Return")
        dialog = wait_for("the Add a Rule dialog", lambda: self.window("Add a Rule"))
        dialog_names = self.control_names(dialog)
        self.assertLessEqual({"text", "combo box"}, {role for role, _ in dialog_names}, dialog_names)
        names.update(dialog_names)
        self.a11y.close_window(dialog)

        # Every control has a name a screen reader can say, and the walk saw the ones it must.
        unnamed = sorted((role, name) for role, name in names if not name.strip() or TYPE_NAME.fullmatch(name))
        self.assertEqual(unnamed, [], "controls without an accessible name")
        for role, start in (("push button", "Main menu"), ("push button", "Explain glxgears (4100)"),
                            ("push button", "Open Report"), ("page tab", "Profiles")):
            self.assertTrue([n for r, n in names if r == role and n.replace("_", "").startswith(start)],
                            f"no {role} {start} in {sorted(names)}")

    def control_names(self, root):
        """(role, accessible name) of every control under root."""
        controls = self.descendants(root, lambda a: a.getRoleName() in CONTROL_ROLES)
        return {(a.getRoleName(), a.name or "") for a in controls}


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
