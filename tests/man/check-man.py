#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks a built man page against what it documents, so the pages cannot drift from the code.

  check-man.py client PAGE NVPROFILECTL
      every verb of "nvprofilectl --help" and every option of it and of "nvprofilectl help VERB" (both
      written from nvprofilectl's option tables) has an entry, and every entry is still there
  check-man.py daemon PAGE NVPROFILED XML
      every option and signal of "nvprofiled --help", every interface, property, method and signal of
      the D-Bus XML (with its arguments) has an entry
  check-man.py conf PAGE NVPROFILED_CONF MANAGER_CONFIG_C
      every [Section] Key= of the example file and of the parser's table has an entry with its default
  check-man.py app PAGE NVPROFILED_GTK
      every option of the "Application Options:" block of "nvprofiled-gtk --help" has an entry, and
      every option entry is still there (GApplication's own --help options are GLib's to document)
  check-man.py missing TOOL
      reports that TOOL is not installed (exit 77: skipped)

Every page must also render with groff -man -ww without a single warning, and have the sections
every page needs. Exit status: 0 pass, 1 fail, 77 skip (groff missing).
"""

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77
failures = []


def fail(msg):
    failures.append(msg)


def groff_env():
    env = dict(os.environ)
    env['LC_ALL'] = 'C.UTF-8'
    return env


def render(page):
    """Returns the page as plain text lines, one per paragraph (no wrapping, no hyphenation)."""
    groff = shutil.which('groff')
    if not groff:
        print('groff is not installed (Debian: groff-base); cannot check', page)
        sys.exit(SKIP)
    with open(page, 'rb') as f:
        for n, line in enumerate(f, 1):
            if any(b > 0x7e or (b < 0x20 and b not in (9, 10)) for b in line):
                fail(f'{page}:{n}: a byte outside printable ASCII (write troff escapes instead): {line!r}')
    # Warnings at the width a reader sees: every category (-ww), nothing written (-z).
    p = subprocess.run([groff, '-man', '-Tutf8', '-ww', '-z', page], capture_output=True, text=True,
                       env=groff_env())
    if p.returncode != 0 or p.stderr.strip():
        fail(f'{page}: groff -man -Tutf8 -ww reports:\n{p.stderr.strip()} (exit {p.returncode})')
    # Text for the comparisons: a very long line and no hyphenation, so each paragraph is one line
    # and no option is split; no SGR or overstriking.
    p = subprocess.run([groff, '-man', '-Tutf8', '-rLL=1000n', '-rHY=0', '-P-cbou', page],
                       capture_output=True, text=True, env=groff_env())
    if p.returncode != 0:
        fail(f'{page}: groff failed: {p.stderr.strip()}')
    text = p.stdout
    for dash in ('\u2010', '\u2011', '\u2212', '\u2013'):
        text = text.replace(dash, '-')
    return text.splitlines()


def indent(line):
    return len(line) - len(line.lstrip(' '))


class Page:
    """A rendered page: sections (column 0), subsections (indent 3), and definition-list entries: a
    term line followed by its description, more deeply indented."""

    def __init__(self, path):
        self.path = path
        self.lines = render(path)
        # (section, subsection, term, description)
        self.entries = []
        self.sections = []
        self.subsections = []
        section = subsection = None
        lines = self.lines
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            n = indent(line)
            if n == 0:
                # The header and footer lines name the page; sections are the rest.
                if i == 0 or line.rstrip().endswith(')') and '  ' in line.strip():
                    continue
                section = line.strip()
                subsection = None
                self.sections.append(section)
                continue
            if n == 3:
                subsection = line.strip()
                self.subsections.append((section, subsection))
                continue
            if n == 7:
                # A term when the next non-empty line is indented further.
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                if j < len(lines) and indent(lines[j]) > 7:
                    desc = []
                    k = j
                    while k < len(lines) and (not lines[k].strip() or indent(lines[k]) > 7):
                        desc.append(lines[k].strip())
                        k += 1
                    self.entries.append((section, subsection, line.strip(), ' '.join(d for d in desc if d)))

    def require_sections(self, names):
        for name in names:
            if name not in self.sections:
                fail(f'{self.path}: no {name} section (sections: {", ".join(self.sections)})')

    def terms(self, section=None, subsection=None):
        return [(t, d) for (s, sub, t, d) in self.entries
                if (section is None or s == section) and (subsection is None or sub == subsection)]

    def find_term(self, pattern, section=None, subsection=None):
        rx = re.compile(pattern)
        for t, d in self.terms(section, subsection):
            if rx.search(t):
                return t, d
        return None


OPTION_RX = re.compile(r'(?<![\w-])(--?[A-Za-z][\w-]*)')


def help_text(binary, args=('--help',)):
    try:
        p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f'cannot run {binary} {" ".join(args)}: {e}')
        return ''
    if p.returncode != 0:
        fail(f'{binary} {" ".join(args)} exited {p.returncode}: {p.stderr.strip()}')
    return p.stdout


def check_common(page, extra_sections):
    page.require_sections(['NAME', 'SYNOPSIS', 'DESCRIPTION', 'SEE ALSO'] + extra_sections)
    see_also = [line for line in page.lines if re.search(r'\w\(\d\)', line)]
    if not see_also:
        fail(f'{page.path}: refers to no other page')


def check_options(page, help, what):
    """Each option of --help is in a term of the page; each option term of the page is in --help."""
    options = set(OPTION_RX.findall(help))
    if not options:
        fail(f'{what} --help lists no options')
    option_terms = [t for t, _ in page.terms() if t.startswith('-')]
    documented = set()
    for t in option_terms:
        documented.update(OPTION_RX.findall(t))
    for o in sorted(options - documented):
        fail(f'{page.path}: option {o} of {what} --help has no entry')
    for o in sorted(documented - options):
        fail(f'{page.path}: documents option {o}, which {what} --help does not list')


def check_exit_status(page):
    codes = {t.split()[0] for t, _ in page.terms('EXIT STATUS')}
    for code in ('0', '1', '2'):
        if code not in codes:
            fail(f'{page.path}: EXIT STATUS does not describe exit status {code}')


def check_client(page_path, binary):
    page = Page(page_path)
    help = help_text(binary)
    check_common(page, ['COMMANDS', 'OPTIONS', 'EXIT STATUS', 'FILES'])
    check_exit_status(page)

    # Verbs: the lines of the "Verbs:" block that start with two spaces and a word.
    m = re.search(r'^Verbs:\n(.*?)(?:\n\S|\Z)', help, re.S | re.M)
    if not m:
        fail('nvprofilectl --help has no "Verbs:" block')
        return
    verbs = {v for v in re.findall(r'^  ([a-z][\w-]*)(?=\s|$)', m.group(1), re.M)}
    if not verbs:
        fail('nvprofilectl --help lists no verbs')
    # --help lists the options of every verb; each verb's help its own and its commands'.
    all_help = help + ''.join(help_text(binary, ('help', v)) for v in sorted(verbs))
    check_options(page, all_help, 'nvprofilectl')
    # Each command of a verb ("report summary") has an entry of its own.
    commands = set(re.findall(r'^  ([a-z][\w-]* [a-z][\w-]*)(?=\s|$)', all_help, re.M))
    command_terms = [t for t, _ in page.terms('COMMANDS')]
    for c in sorted(commands):
        if not any(re.search(rf'\b{re.escape(c)}\b', t) for t in command_terms):
            fail(f'{page.path}: command {c} of nvprofilectl help has no entry under COMMANDS')
    documented = {t.split()[0] for t, _ in page.terms('COMMANDS')}
    for v in sorted(verbs - documented):
        fail(f'{page.path}: verb {v} of nvprofilectl --help has no entry under COMMANDS')
    for v in sorted(documented - verbs):
        fail(f'{page.path}: documents verb {v}, which nvprofilectl --help does not list')


def check_app(page_path, binary):
    page = Page(page_path)
    help = help_text(binary)
    check_common(page, ['OPTIONS'])
    m = re.search(r'^Application Options:\n(.*?)(?:\n\n|\Z)', help, re.S | re.M)
    if not m:
        fail(f'{binary} --help has no "Application Options:" block')
        return
    check_options(page, m.group(1), 'nvprofiled-gtk')


def xml_members(xml_path):
    tree = ET.parse(xml_path)
    out = []
    for iface in tree.getroot().iter('interface'):
        members = []
        for el in iface:
            if el.tag not in ('property', 'method', 'signal'):
                continue
            args = [(a.get('direction') or ('out' if el.tag == 'method' else None), a.get('type'), a.get('name'))
                    for a in el.findall('arg')]
            members.append((el.tag, el.get('name'), el.get('type'), args))
        out.append((iface.get('name'), members))
    return out


RESOLUTION = '(sa{sv}a(suussb)a(svssuussa(vssuu))as)'


def check_daemon(page_path, binary, xml_path):
    page = Page(page_path)
    help = help_text(binary)
    check_common(page, ['OPTIONS', 'SIGNALS', 'D-BUS INTERFACE', 'SECURITY', 'FILES', 'EXIT STATUS'])
    check_options(page, help, 'nvprofiled')
    check_exit_status(page)

    signals = set(re.findall(r'\bSIG[A-Z]+\b', help))
    for s in ('SIGTERM', 'SIGHUP'):
        if s not in signals:
            fail(f'nvprofiled --help does not mention {s}')
        signals.add(s)
    documented = set()
    for t, _ in page.terms('SIGNALS'):
        documented.update(re.findall(r'\bSIG[A-Z]+\b', t))
    for s in sorted(signals - documented):
        fail(f'{page.path}: signal {s} has no entry under SIGNALS')

    interfaces = xml_members(xml_path)
    if not interfaces:
        fail(f'{xml_path}: no interfaces')
    for iface, members in interfaces:
        if ('D-BUS INTERFACE', iface) not in page.subsections:
            fail(f'{page.path}: no subsection for interface {iface} under D-BUS INTERFACE')
            continue
        for kind, name, ptype, args in members:
            found = page.find_term(r'^' + re.escape(name) + r'(?![\w])', 'D-BUS INTERFACE', iface)
            if not found:
                fail(f'{page.path}: {kind} {iface}.{name} has no entry')
                continue
            term, desc = found
            if not desc:
                fail(f'{page.path}: {kind} {iface}.{name} has no description')
            if kind == 'property':
                if not term.startswith(f'{name} ({ptype}'):
                    fail(f'{page.path}: property {name} should read "{name} ({ptype}...", not "{term}"')
                continue
            ins = [(t, n) for d, t, n in args if d in ('in', None)]
            outs = [(t, n) for d, t, n in args if d == 'out' and kind == 'method']
            want = name + '(' + ', '.join(f'{t} {n}' for t, n in ins) + ')'
            if not term.startswith(want):
                fail(f'{page.path}: {kind} {name} should read "{want}...", not "{term}"')
            if outs:
                shown = ', '.join(f'{"RESOLUTION" if t == RESOLUTION else t} {n}' for t, n in outs)
                if not term.endswith('-> ' + shown):
                    fail(f'{page.path}: method {name} should end "-> {shown}", not "{term}"')
            elif '->' in term:
                fail(f'{page.path}: {kind} {name} returns nothing, but its entry says "{term}"')
        # And nothing documented that the XML lacks.
        names = {n for _, n, _, _ in members}
        for t, _ in page.terms('D-BUS INTERFACE', iface):
            n = re.match(r'[A-Za-z_]\w*', t)
            if n and n.group(0) not in names:
                fail(f'{page.path}: documents {iface}.{n.group(0)}, which {os.path.basename(xml_path)} lacks')


def conf_keys(conf_path, source_path):
    """{(section, key): default or None}: the example file's commented defaults and the parser's table."""
    keys = {}
    section = None
    with open(conf_path, encoding='utf-8') as f:
        for line in f:
            m = re.match(r'^\[(\w+)\]\s*$', line)
            if m:
                section = m.group(1)
                continue
            m = re.match(r'^#?([A-Z]\w*)=(.*?)\s*$', line)
            if m and section:
                keys[(section, m.group(1))] = m.group(2)
    with open(source_path, encoding='utf-8') as f:
        src = f.read()
    table = re.findall(r'\{\s*"(\w+)",\s*"(\w+)",', src)
    if not table:
        fail(f'{source_path}: no configuration table found')
    for section, key in table:
        keys.setdefault((section, key), None)
    return keys


def check_conf(page_path, conf_path, source_path):
    page = Page(page_path)
    check_common(page, ['SYNTAX', 'FILES'])
    keys = conf_keys(conf_path, source_path)
    if not keys:
        fail(f'{conf_path}: no keys found')
    for (section, key), default in sorted(keys.items()):
        heading = f'[{section}] SECTION'
        if heading not in page.sections:
            fail(f'{page.path}: no "{heading}" for key {key}=')
            continue
        found = page.find_term(r'^' + re.escape(key) + '=', heading)
        if not found:
            fail(f'{page.path}: [{section}] {key}= has no entry')
            continue
        _, desc = found
        if default is None:
            fail(f'{page.path}: [{section}] {key}= is not in {os.path.basename(conf_path)}, so its default is '
                 'not documented there')
        elif 'default' not in desc.lower():
            fail(f'{page.path}: [{section}] {key}= does not give its default')
        elif default and not re.search(r'(?<![\w/.-])' + re.escape(default) + r'(?![\w/-])', desc):
            fail(f'{page.path}: [{section}] {key}= should give its default "{default}": "{desc}"')
        elif not default and 'empty' not in desc.lower():
            fail(f'{page.path}: [{section}] {key}= defaults to empty, which its entry does not say')
    for section in page.sections:
        m = re.match(r'^\[(\w+)\] SECTION$', section)
        if not m:
            continue
        for t, _ in page.terms(section):
            k = re.match(r'(\w+)=', t)
            if k and (m.group(1), k.group(1)) not in keys:
                fail(f'{page.path}: documents [{m.group(1)}] {k.group(1)}=, which the daemon does not read')


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    mode, args = argv[1], argv[2:]
    if mode == 'missing' and len(args) == 1:
        print(f'{args[0]} is not installed (Debian: {args[0]}): the man pages are not built')
        return SKIP
    if mode == 'client' and len(args) == 2:
        check_client(*args)
    elif mode == 'app' and len(args) == 2:
        check_app(*args)
    elif mode == 'daemon' and len(args) == 3:
        check_daemon(*args)
    elif mode == 'conf' and len(args) == 3:
        check_conf(*args)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for f in failures:
        print('FAIL:', f)
    if failures:
        return 1
    print(f'{args[0]}: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
