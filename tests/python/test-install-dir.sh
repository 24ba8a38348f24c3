#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python package is installed where the prefix's python3 looks (issue 28: with meson's default prefix
# it went to /usr/local/lib/python3/dist-packages, which Debian's python3 never searches). This build's
# package is installed with meson install --destdir into a scratch folder; its folder, as installed, must
# be one of python3's site folders (site.getsitepackages()) and lie below the build's prefix, with the
# extension module beside the sources. As root, python3 then imports it without PYTHONPATH in a mount
# namespace of its own where the installed folder stands in for the real one.
#
#   test-install-dir.sh MESON BUILD_DIR PYTHON PREFIX
set -euo pipefail

meson=$1 build=$2 python=$3 prefix=$4
dest=$(mktemp -d "${TMPDIR:-/tmp}/nvprofiled-install-XXXXXX")
trap 'rm -rf "$dest"' EXIT

"$meson" install -C "$build" --no-rebuild --destdir "$dest" --tags python-runtime --quiet >/dev/null
mapfile -t inits < <(cd "$dest" && find . -path '*/nvprofiled/__init__.py' | sed 's|^\.||')
if [ ${#inits[@]} -ne 1 ]; then
    echo "FAIL: expected one nvprofiled/__init__.py installed, found ${#inits[@]}: ${inits[*]}" >&2
    exit 1
fi
site_dir=${inits[0]%/nvprofiled/__init__.py}
echo "installed in $site_dir (prefix $prefix)"

"$python" - "$site_dir" "$prefix" <<'END'
import os
import site
import sys

site_dir, prefix = sys.argv[1:]
searched = [os.path.normpath(p) for p in site.getsitepackages()]
if site_dir not in searched:
    sys.exit(f"FAIL: {site_dir} is not one of {sys.executable}'s site folders: {', '.join(searched)}")
if os.path.commonpath([site_dir, prefix]) != os.path.normpath(prefix):
    sys.exit(f"FAIL: {site_dir} is not below the prefix {prefix}")
END
if ! compgen -G "$dest$site_dir/nvprofiled/_ncu_report*.so" >/dev/null; then
    echo "FAIL: the extension module is not beside the sources in $site_dir/nvprofiled" >&2
    exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "not root: the import without PYTHONPATH (a mount namespace) is not tried"
    exit 0
fi
# The deepest folder of the site folder's path that exists here is replaced by the installed one.
over=$site_dir
while [ ! -d "$over" ]; do over=$(dirname "$over"); done
mkdir -p "$dest$over"
found=$(unshare --mount --propagation private env -u PYTHONPATH -u NVPROFILED_PYTHON_DIR sh -c \
    'mount --bind "$1" "$2" && cd / && exec "$3" -c "import nvprofiled, nvprofiled._ncu_report; print(nvprofiled.__file__)"' \
    _ "$dest$over" "$over" "$python")
if [ "$found" != "$site_dir/nvprofiled/__init__.py" ]; then
    echo "FAIL: python3 imported nvprofiled from ${found:-nowhere}, not from $site_dir" >&2
    exit 1
fi
echo "imported without PYTHONPATH from $found"
