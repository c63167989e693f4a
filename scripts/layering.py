#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The shape of the tree, checked from the sources (scripts/layering.sh).

1. Every source file of core/ is in a stage folder, but for core/plan.c
   and the public headers core/kr.h and core/kr_plan.h.
2. A file includes, of core's headers, only its own folder's, and the
   face headers (kr_*.h) of the folders its stage may use (STAGE_USES);
   tools/, osm_plugin/, bench/ and tests/fuzz/ only face headers;
   tests/unit/STAGE/ its stage's headers and face headers.
3. No circle of calls between files: file A calls a function defined in
   file B, which calls back into A, directly or around a longer ring. The
   definitions come from Universal Ctags, the calls from the sources.
4. A stage's calls go only to the stages it may use.

Prints one line per violation and exits 1 when there is any.
"""
import collections
import os
import re
import subprocess
import sys

# Which stages a stage may use, below it in the pipeline. plan.c (TOP)
# may use them all; output, the plan as files, only reads a finished plan;
# draw, pictures and the report page, only reads a finished check.
STAGE_USES = {
    'model': [],
    'formats': ['model'],
    'conf': ['model', 'formats'],
    'topo': ['model', 'formats', 'conf'],
    'gen': ['model', 'topo'],
    'budget': ['model', 'conf', 'topo'],
    'updn': ['model', 'topo'],
    'route': ['model', 'conf', 'topo', 'budget', 'updn'],
    'slvl': ['model', 'conf', 'topo', 'budget', 'route'],
    'cdg': ['model'],
    'repair': ['model', 'conf', 'topo', 'updn', 'route', 'slvl', 'cdg'],
    'mcast': ['model', 'conf', 'topo', 'updn', 'route', 'slvl', 'cdg'],
    'check': ['model', 'formats', 'conf', 'topo', 'cdg'],
    'stats': ['model'],
    'sim': ['model', 'formats', 'conf', 'topo', 'route', 'slvl', 'check',
            'stats'],
    'draw': ['model', 'formats', 'topo', 'check'],
    'output': ['model', 'formats', 'conf', 'topo', 'budget', 'updn', 'route', 'slvl',
               'cdg', 'repair', 'mcast', 'check', 'stats', 'TOP'],
}
TOP_FILES = {'core/plan.c', 'core/kr.h', 'core/kr_plan.h'}
STAGE_USES['TOP'] = [s for s in STAGE_USES
                     if s not in ('output', 'sim', 'draw')]


def git_files(root, *patterns):
    out = subprocess.run(['git', '-C', root, 'ls-files', '--cached',
                          '--others', '--exclude-standard', '--'] +
                         list(patterns), capture_output=True, text=True,
                         check=True).stdout
    return sorted(set(f for f in out.split() if os.path.exists(
        os.path.join(root, f))))


def stage_of(path):
    """core/STAGE/... -> STAGE; core/plan.c and public headers -> TOP."""
    if path in TOP_FILES:
        return 'TOP'
    parts = path.split('/')
    if parts[0] == 'core' and len(parts) == 3:
        return parts[1]
    return None


def strip(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group().count('\n'),
                  text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def definitions(root, files):
    """Function name -> defining .c file, for functions with external
    linkage (ctags: kind f, not static)."""
    out = subprocess.run(['ctags', '-x', '--c-kinds=f', '--language-force=C',
                          '--_xformat=%N %F %C'] + files, cwd=root,
                         capture_output=True, text=True, check=True).stdout
    owner = {}
    for line in out.splitlines():
        name, path, src = (line.split(' ', 2) + [''])[:3]
        if path.endswith('.c') and not src.lstrip().startswith('static'):
            owner[name] = path
    return owner


def circles(edges, nodes):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return found


def check_placement(core, bad):
    for f in core:
        if stage_of(f) is None:
            bad.append(f'{f}: outside a stage folder (core/STAGE/)')
        elif stage_of(f) not in STAGE_USES:
            bad.append(f'{f}: core/{stage_of(f)}/ is no stage scripts/'
                       'layering.py knows')


def may_include(f, hdr_path, hdr):
    """Whether file f may include core header hdr (at hdr_path)."""
    own, theirs = stage_of(f), stage_of(hdr_path)
    face = hdr.startswith('kr') and hdr.endswith('.h')
    if own is None:
        m = re.match(r'tests/unit/([a-z]+)/', f)
        if m and m.group(1) == theirs:
            return True
        return face
    if own == theirs:
        return True
    return face and (theirs in STAGE_USES.get(own, []) or theirs == 'TOP'
                     and own == 'output')


def check_includes(root, files, headers, bad):
    for f in files:
        text = open(os.path.join(root, f), errors='replace').read()
        for hdr in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            where = headers.get(os.path.basename(hdr))
            if where and not may_include(f, where, os.path.basename(hdr)):
                bad.append(f'{f}: includes {where}')


def check_calls(root, files, owner, bad):
    edges = collections.defaultdict(set)
    why = {}
    for f in files:
        if not f.endswith('.c'):
            continue
        text = strip(open(os.path.join(root, f), errors='replace').read())
        for name in set(re.findall(r'\b([A-Za-z_]\w*)\s*\(', text)):
            to = owner.get(name)
            if to and to != f:
                edges[f].add(to)
                why.setdefault((f, to), name)
    for comp in circles(edges, sorted(edges)):
        ring = ', '.join(f'{a} -> {b} ({why[a, b]})' for a in comp
                         for b in sorted(edges[a]) if b in comp)
        bad.append(f'circle of calls: {ring}')
    for (a, b), name in sorted(why.items()):
        sa, sb = stage_of(a), stage_of(b)
        if sa and sb and sa != sb and sb not in STAGE_USES.get(sa, []) \
                and not (sa == 'output' and sb == 'TOP'):
            bad.append(f'{a}: calls {name} of {b}: core/{sa}/ may not '
                       f'use core/{sb}/')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    core = git_files(root, 'core/*.c', 'core/*.h')
    others = git_files(root, 'tools/*.c', 'tools/*.h', 'osm_plugin/*.c',
                       'bench/*.c', 'tests/unit/*.c', 'tests/fuzz/*.c')
    headers = {os.path.basename(f): f for f in core if f.endswith('.h')}
    bad = []
    check_placement(core, bad)
    check_includes(root, core + others, headers, bad)
    code = [f for f in core + others if not f.startswith('tests/')]
    check_calls(root, code, definitions(root, code), bad)
    for line in bad:
        print(line)
    print(f'layering: {len(core)} core files, {len(bad)} problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
