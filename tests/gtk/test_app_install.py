#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The app's desktop integration as installed (meson install --destdir into a scratch directory): the
shared-mime-info definition makes a corpus .ncu-rep application/x-ncu-report by its name and by its
content (GIO's guess, which file managers and the desktop entry's MimeType= go by, with XDG_DATA_DIRS on
the installed tree after update-mime-database), a .ncu-repz by its name only (a zstd frame: its bytes are
zstd's); without the definition neither is; the app's icons are SVG documents where the icon theme
looks for them; the installed desktop entry and metainfo name that icon and pass their validators.
The scratch directory is removed whatever happened."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

BUILD = os.environ.get("MESON_BUILD_ROOT", "")
DATADIR = os.environ.get("NVPROFILED_DATADIR", "")  # prefix/datadir, absolute
CORPUS = os.environ.get("NVPROFILED_CORPUS", "")
REPORT = "nvidia_example_addConstDouble3_ncu2023.3.0.ncu-rep"
APP_ID = "io.github.nvprofiled.Monitor"
MIME_TYPE = "application/x-ncu-report"
SVG = "{http://www.w3.org/2000/svg}svg"
# A zstd frame's magic number (RFC 8878 §3.1.1), then bytes of no meaning.
ZSTD_FRAME = b"\x28\xb5\x2f\xfd" + bytes(60)


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ("meson", "update-mime-database", "gio", "desktop-file-validate", "appstreamcli"):
            if not shutil.which(tool):
                raise unittest.SkipTest(f"{tool} is not installed")
        if not BUILD or not DATADIR:
            raise unittest.SkipTest("MESON_BUILD_ROOT or NVPROFILED_DATADIR is not set")
        cls.report = os.path.join(CORPUS, "reports", REPORT)
        if not os.path.exists(cls.report):
            raise unittest.SkipTest(f"{cls.report} is not there (corpus_dir)")
        cls.dir = tempfile.mkdtemp(prefix="nvprofiled-gtk-install-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, ignore_errors=True)
        cls.destdir = os.path.join(cls.dir, "dest")
        subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet", "--destdir", cls.destdir],
                       check=True, capture_output=True)
        cls.datadir = cls.destdir + DATADIR
        r = subprocess.run(["update-mime-database", os.path.join(cls.datadir, "mime")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        # The files to guess: a report under its own name, the same bytes without a name that says
        # anything, other bytes under the report's names.
        cls.files = os.path.join(cls.dir, "files")
        os.makedirs(cls.files)
        cls.named = os.path.join(cls.files, REPORT)
        cls.unnamed = os.path.join(cls.files, "report-without-extension")
        for path in (cls.named, cls.unnamed):
            shutil.copyfile(cls.report, path)
        cls.compressed = os.path.join(cls.files, "report.ncu-repz")
        with open(cls.compressed, "wb") as f:
            f.write(ZSTD_FRAME)
        cls.renamed_text = os.path.join(cls.files, "notes.ncu-rep")
        with open(cls.renamed_text, "w") as f:
            f.write("not a report, but named like one\n")

    def content_type(self, path, data_dirs):
        """GIO's content type of path (by name, and by content where the name says nothing) with only
        data_dirs' MIME databases, as a desktop with those XDG_DATA_DIRS sees it."""
        home = os.path.join(self.dir, "home")
        os.makedirs(home, exist_ok=True)
        env = dict(os.environ, XDG_DATA_DIRS=":".join(data_dirs), XDG_DATA_HOME=os.path.join(home, "data"),
                   HOME=home, GIO_USE_VFS="local")
        r = subprocess.run(["gio", "info", "-a", "standard::content-type", path], env=env, capture_output=True,
                           text=True, check=True)
        for line in r.stdout.splitlines():
            key, _, value = line.strip().partition(": ")
            if key == "standard::content-type":
                return value
        raise AssertionError(f"gio info printed no content type: {r.stdout!r}")

    def test_mime_type_installed(self):
        package = os.path.join(self.datadir, "mime", "packages", APP_ID + ".xml")
        self.assertTrue(os.path.isfile(package), package)
        installed = [self.datadir, "/usr/share"]
        self.assertEqual(self.content_type(self.named, installed), MIME_TYPE, "a report by its name")
        self.assertEqual(self.content_type(self.unnamed, installed), MIME_TYPE, "a report by its content (NVR\\0)")
        self.assertEqual(self.content_type(self.compressed, installed), MIME_TYPE, "a .ncu-repz by its name")
        self.assertEqual(self.content_type(self.renamed_text, installed), MIME_TYPE, "any bytes named .ncu-rep")
        # Without our definition the desktop knows neither: the checks above can fail.
        for path in (self.named, self.unnamed, self.compressed):
            self.assertNotEqual(self.content_type(path, ["/usr/share"]), MIME_TYPE, path)

    def test_mime_magic_is_the_reports(self):
        """Every corpus .ncu-rep starts with the magic the definition claims."""
        tree = ET.parse(os.path.join(self.datadir, "mime", "packages", APP_ID + ".xml"))
        ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
        match = tree.find("m:mime-type/m:magic/m:match", ns)
        self.assertEqual((match.get("type"), match.get("offset")), ("big32", "0"))
        magic = int(match.get("value"), 16).to_bytes(4, "big")
        self.assertEqual(magic, b"NVR\0")
        reports = [f for f in os.listdir(os.path.join(CORPUS, "reports")) if f.endswith(".ncu-rep")]
        self.assertGreater(len(reports), 0)
        for name in reports:
            with open(os.path.join(CORPUS, "reports", name), "rb") as f:
                self.assertEqual(f.read(4), magic, name)

    def test_icons(self):
        icons = os.path.join(self.datadir, "icons", "hicolor")
        for path in ("scalable/apps/" + APP_ID + ".svg", "symbolic/apps/" + APP_ID + "-symbolic.svg"):
            root = ET.parse(os.path.join(icons, path)).getroot()
            self.assertEqual(root.tag, SVG, path)
            self.assertTrue(root.get("viewBox"), f"{path} has no viewBox")
            self.assertGreater(len(root), 0, f"{path} draws nothing")

    def test_desktop_entry_and_metainfo(self):
        desktop = os.path.join(self.datadir, "applications", APP_ID + ".desktop")
        with open(desktop) as f:
            lines = f.read().splitlines()
        self.assertIn("Icon=" + APP_ID, lines)
        self.assertIn(f"MimeType={MIME_TYPE};", lines)
        r = subprocess.run(["desktop-file-validate", desktop], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        metainfo = os.path.join(self.datadir, "metainfo", APP_ID + ".metainfo.xml")
        icon = ET.parse(metainfo).getroot().find("icon")
        self.assertEqual((icon.get("type"), icon.text), ("stock", APP_ID))
        r = subprocess.run(["appstreamcli", "validate", "--no-net", metainfo], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
