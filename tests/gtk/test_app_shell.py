#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The app's window shell on a desktop (Xvfb with openbox, as test_app_desktop.py), against the real
daemon over the fixture world (appworld.py), driven by X keys (xdotool) and read through AT-SPI. Proves:
- narrow: the window manager can make the window 360 px wide (a phone, half a small screen); the view
  switcher then sits in a bar at the bottom, and every page's widgets fit in the width and are shown;
- wide: at 1400 px the page's content spans most of the width (no 600 px column);
- keys: Alt+1..4 switch the views, Ctrl+F goes to the applications' search, Escape and Ctrl+W close the
  explanation dialog, F1 and Ctrl+? open the keyboard shortcuts window, the main menu the About window
  (version, licence), both closed by the keyboard too.

Every process it starts is killed, and its scratch directory removed, by AppWorld.teardown, whatever
happened."""

import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, CORPUS, DAEMON, FIXTURE_TOOL, POLICY, REPORT, TOOLS, WAIT,  # noqa: E402
                      AppWorld, AtSpi, wait_for)

PAGES = ("GPUs", "Applications", "Profiles", "Reports")
NARROW, WIDE = 360, 1400
VERSION = "0.2.0"  # meson.build's project version


class ShellTest(unittest.TestCase):
    maxDiff = None
    """One world for the module (pyatspi keeps the AT-SPI bus it first connected to): Xvfb wide enough
    for 1400 px, openbox, the session bus, the daemon; each case starts the app afresh and quits it."""

    @classmethod
    def setUpClass(cls):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
                   if not v or not os.path.exists(v)]
        if missing:
            raise unittest.SkipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "openbox", "xdotool"):
            if not shutil.which(tool):
                raise unittest.SkipTest(f"{tool} is not installed")
        cls.w = AppWorld()
        cls.addClassCleanup(cls.w.teardown)
        cls.w.start_x_and_session(screen="1600x1024x24")
        cls.w.start_window_manager()
        cls.w.start_daemon()
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

    def start_app(self, args=()):
        self.w.start_app(args=args, leak_check=False)  # see appworld.start_app()
        self.addCleanup(self.stop_app, self.w.app)
        self.main = wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))
        self.xid = wait_for("the window on the X screen", lambda: (self.w.xdotool(
            "search", "--onlyvisible", "--name", "^nvprofiled$", check=False) or "").split()[:1])[0]
        self.w.xdotool("windowactivate", "--sync", self.xid)
        wait_for("the keyboard focus in the window", lambda: self.a11y.focused(self.main))

    def stop_app(self, app):
        self.w.quit_app(app)
        self.assertEqual(app.returncode, 0, "the app's exit status")

    # --- helpers ----------------------------------------------------------------------------------------------

    def key(self, *keys):
        self.w.xdotool("key", "--clearmodifiers", *keys)

    def extents(self, node):
        """(x, y, width, height) in the window's coordinates; None for a node without extents. GTK 4.8
        keeps the last allocation of a widget no longer shown, and sets no "showing" state: tests compare
        places, not states."""
        try:
            e = node.queryComponent().getExtents(self.pyatspi.WINDOW_COORDS)
        except NotImplementedError:
            return None
        return e.x, e.y, e.width, e.height

    def nodes(self, root, pred=lambda a: True):
        return self.pyatspi.findAllDescendants(root, lambda a: a is not None and pred(a))

    def page_tabs(self, title):
        """The page tabs named title (the header's switcher's and the bottom bar's)."""
        return self.nodes(self.main, lambda a: a.getRoleName() == "page tab" and a.name == title)

    def selected_page(self):
        selected = {a.name for a in self.nodes(self.main, lambda a: a.getRoleName() == "page tab"
                                               and a.getState().contains(self.pyatspi.STATE_SELECTED))}
        return selected.pop() if len(selected) == 1 else None

    def show_page(self, title):
        """Clicks the page tabs named title: those of a switcher not shown (the bottom bar in a wide
        window, the header's in a narrow one) are not realized and do nothing."""
        tabs = wait_for(f"the page tab {title}", lambda: self.page_tabs(title))
        for tab in tabs:
            self.click(tab)
        wait_for(f"the page {title} selected", lambda: self.selected_page() == title)

    def resize(self, width, height):
        """As a user drags the window's edge: the window manager resizes it, within the size hints the app
        gives (its minimum size)."""
        self.w.xdotool("windowsize", "--sync", self.xid, str(width), str(height))

        def size():
            geometry = self.w.xdotool("getwindowgeometry", self.xid)
            w, h = geometry.split("Geometry: ")[1].split()[0].split("x")
            return int(w), int(h)
        try:
            wait_for(f"the window {width} px wide", lambda: size()[0] == width and self.extents(self.main)[2] <= width)
        except AssertionError:
            raise AssertionError(f"the window manager could make the window only {size()} for "
                                 f"{width}x{height}: its minimum width is too large") from None

    def click(self, node):
        action = node.queryAction()
        names = [action.getName(i) for i in range(action.nActions)]
        for i, name in enumerate(names):
            if name in ("click", "activate", "press"):
                action.doAction(i)
                return
        raise AssertionError(f"{node.getRoleName()} {node.name!r} has no click action: {names}")

    def window_named(self, pred):
        app = self.a11y.app()
        for i in range(app.childCount if app is not None else 0):
            w = app.getChildAtIndex(i)
            if w is not None and pred(w):
                return w
        return None

    # --- 1. narrow ---------------------------------------------------------------------------------------------

    def test_narrow(self):
        self.logged(self.narrow_case)

    def layout(self):
        """{node's object path: (role, name, extents)} of what the window lays out below its header bar."""
        found = {}
        for a in self.nodes(self.main, lambda a: a.getRoleName() in ("label", "push button", "list item", "list",
                                                                    "panel", "table", "tree table", "scroll pane")):
            e = self.extents(a)
            if e is not None and e[2] > 0 and e[3] > 0 and e[1] >= 48:
                found[a.path] = (a.getRoleName(), a.name, e)
        return found

    def narrow_case(self):
        # With a corpus report open: its kernels' rows in the Reports page too.
        report = os.path.join(CORPUS, "reports", REPORT)
        self.assertTrue(os.path.exists(report), f"{report} is not there (corpus_dir)")
        self.start_app(args=[report])
        self.show_page("GPUs")
        wait_for("the GPU's rows", lambda: self.nodes(self.main, lambda a: a.getRoleName() == "list item"))
        # GTK 4.8 keeps the extents of a widget no longer shown (a page, a status page replaced by the
        # figures): what keeps its wide extents once narrow is not shown, and not checked.
        before = self.layout()
        self.resize(NARROW, 700)
        _, _, width, height = self.extents(self.main)
        for title in PAGES:
            self.show_page(title)
            # The bottom bar's tabs are laid out in the window's lower part, within its width.
            def bar_tab():
                for tab in self.page_tabs(title):
                    x, y, w, h = self.extents(tab)
                    if y > height // 2 and x >= 0 and x + w <= width and w > 0 and h > 0:
                        return tab
                return None
            tab = wait_for(f"the page tab {title} in the bottom bar", bar_tab)
            bar_top = self.extents(tab)[1]
            # Every widget laid out between the header bar and the bottom bar fits in the window's width:
            # nothing runs off its right edge; and the page shows something there.
            def content():
                return [n for path, n in self.layout().items() if n[2][1] < bar_top - 6 and before.get(path) != n]
            nodes = wait_for(f"the page {title}'s widgets laid out", content)
            if title == "Reports":
                nodes = wait_for("the report's kernels laid out", lambda: [
                    n for n in content() if n[0] == "tree table" and n[1] == f"Kernels of {REPORT}"] and content())
            wide = [n for n in nodes if n[2][0] < 0 or n[2][0] + n[2][2] > width]
            self.assertEqual(wide, [], f"widgets of {title} wider than the {width} px window")

    # --- 2. wide -----------------------------------------------------------------------------------------------

    def test_wide(self):
        self.logged(self.wide_case)

    def wide_case(self):
        self.start_app()
        self.resize(WIDE, 800)
        self.show_page("GPUs")
        # The device's group (a list of rows) spans most of the window, not a 600 px column in its middle.
        lists = wait_for("the device's rows", lambda: self.nodes(self.main, lambda a: a.getRoleName() == "list"))
        widest = max(self.extents(a)[2] for a in lists if self.extents(a))
        self.assertGreaterEqual(widest, 0.8 * WIDE, f"the widest list is {widest} px of {WIDE}")

    # --- 3. keys -----------------------------------------------------------------------------------------------

    def test_keys(self):
        self.logged(self.keys_case)

    def keys_case(self):
        self.start_app()
        self.assertEqual(self.selected_page(), "GPUs")
        for n, title in ((2, "Applications"), (3, "Profiles"), (4, "Reports"), (1, "GPUs")):
            self.key(f"alt+{n}")
            wait_for(f"Alt+{n} to show {title}", lambda: self.selected_page() == title)
        # Ctrl+F: the applications, to search them.
        self.key("ctrl+f")
        wait_for("Ctrl+F to show Applications", lambda: self.selected_page() == "Applications")

        # The explanation dialog, closed by Escape, then by Ctrl+W. Its button is shown (and works) once
        # the application's row is expanded (the search Ctrl+F opened is closed first, as a user does).
        self.key("Escape")
        self.a11y.expand_row(self.main, "org.example.Game", "glxgears (4100)")
        title = "Explanation of glxgears (4100)"
        for keys in ("Escape", "ctrl+w"):
            button = wait_for("glxgears's Explain button", lambda: self.pyatspi.findDescendant(
                self.main, lambda a: a is not None and a.getRoleName() == "push button"
                and a.name == "Explain glxgears (4100)"))
            self.click(button)
            dialog = wait_for("the explanation window", lambda: self.a11y.window(title))
            wait_for("the focus in the explanation window", lambda: self.a11y.focused(dialog) or
                     self.w.xdotool("getactivewindow", check=False) != self.xid)
            self.key(keys)
            wait_for(f"{keys} to close the explanation", lambda: self.a11y.window(title) is None)
            self.assertIsNotNone(self.a11y.window("nvprofiled"), f"{keys} closed the main window")

        # The keyboard shortcuts window: F1 and Ctrl+?; Escape and Ctrl+W close it.
        self.w.xdotool("windowactivate", "--sync", self.xid)
        for keys, close in (("F1", "Escape"), ("ctrl+question", "ctrl+w")):
            self.key(keys)
            shortcuts = wait_for(f"{keys} to open the shortcuts window",
                                 lambda: self.a11y.window("Keyboard Shortcuts"))
            labels = self.label_texts(shortcuts)
            for expected in PAGES + ("Search applications", "Close a dialog"):
                self.assertIn(expected, labels)
            self.key(close)
            wait_for(f"{close} to close the shortcuts window", lambda: self.a11y.window("Keyboard Shortcuts") is None)
            self.w.xdotool("windowactivate", "--sync", self.xid)

        # About, from the main menu.
        menu = wait_for("the main menu button", lambda: self.pyatspi.findDescendant(
            self.main, lambda a: a is not None and a.getRoleName() in ("push button", "toggle button")
            and a.name == "Main menu"))
        # GtkMenuButton's inner toggle button is what has the action.
        toggles = [menu] + self.nodes(menu, lambda a: a.queryAction().nActions > 0)
        self.click(toggles[-1])
        item = wait_for("the menu's About item", lambda: self.pyatspi.findDescendant(
            self.a11y.app(), lambda a: a is not None and (a.name or "").replace("_", "") == "About nvprofiled"))
        self.click(item)
        about = wait_for("the About window", lambda: self.window_named(
            lambda w: w.name != "nvprofiled" and VERSION in self.label_texts(w)))
        labels = self.label_texts(about)
        self.assertIn("nvprofiled", labels)
        about_name = about.name
        wait_for("the focus in the About window", lambda: self.w.xdotool("getactivewindow", check=False) != self.xid)
        self.key("ctrl+w")
        wait_for("Ctrl+W to close the About window", lambda: self.window_named(
            lambda w: w.name == about_name and VERSION in self.label_texts(w)) is None)
        # Ctrl+Q quits (the cleanup would quit it through the action otherwise).
        self.w.xdotool("windowactivate", "--sync", self.xid)
        self.key("ctrl+q")
        self.w.app.wait(timeout=WAIT)

    def label_texts(self, root):
        texts = set()
        for a in self.pyatspi.findAllDescendants(root, lambda a: a is not None and a.getRoleName() == "label"):
            try:
                t = a.queryText()
                texts.add(t.getText(0, t.characterCount))
            except NotImplementedError:
                texts.add(a.name or "")
        return texts


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
