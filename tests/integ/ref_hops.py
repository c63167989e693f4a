#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The hop counts of OpenSM's opensm-lid-matrix.dump against a walk of the
LFTs, written for the tests alone (shares no code with knsroute).

For every switch and every LID its LFT delivers, the matrix line must hold
the walked count on port 0 and on the LFT's port and 0xff on every other
port; a LID the LFT does not deliver must have no line. Prints
"MATCHED LINES" or the first mismatch and exits 1.

Usage: ref_hops.py NODES LINKS LFTS LID_MATRIX
(NODES, LINKS from `knsroute info --nodes/--links`, LFTS opensm-lfts.dump)
"""
import sys

from ref_check import read_links, read_lfts, read_nodes


def read_matrix(path):
    """Switch GUID -> {LID: [count per port, port 0 first]}."""
    rows, cur = {}, None
    for line in open(path):
        if line.startswith("Switch: guid "):
            cur = rows.setdefault(int(line.split()[2], 16), {})
        elif line.startswith("0x") and cur is not None:
            f = line.split("#")[0].replace(":", " ").split()
            cur[int(f[0], 16)] = [int(x, 16) for x in f[1:]]
    return rows


def walk(lft, peer, kind, owner_at, sw, lid):
    """Links from switch sw to lid's port, or None if not delivered."""
    for hops in range(len(lft) + 1):
        out = lft.get(sw, {}).get(lid, 255)
        if out == 0:
            return hops if owner_at.get(lid) == (sw, 0) else None
        if (sw, out) not in peer:
            return None
        node, port = peer[(sw, out)]
        if kind[node] != "Switch":
            return hops + 1 if owner_at.get(lid) == (node, port) else None
        sw = node
    return None


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    nodes = read_nodes(argv[1])
    peer = read_links(argv[2])
    lft, owner = read_lfts(argv[3])
    matrix = read_matrix(argv[4])
    kind = {g: k for g, (k, _) in nodes.items()}
    where = {}
    for g, (k, ports) in nodes.items():
        for i, pg in enumerate(ports, 0 if k == "Switch" else 1):
            where[pg] = (g, i)
    owner_at = {lid: where[pg] for lid, pg in owner.items()}
    lines = 0
    for sw in lft:
        for lid in owner:
            want = walk(lft, peer, kind, owner_at, sw, lid)
            row = matrix.get(sw, {}).get(lid)
            if want is None:
                if row is not None:
                    print(f"0x{sw:016x} LID {lid}: undelivered but listed")
                    return 1
                continue
            port = lft[sw][lid]
            if row is None or any(
                    h != (want if p in (0, port) else 0xff)
                    for p, h in enumerate(row)):
                print(f"0x{sw:016x} LID {lid} port {port}: walk says "
                      f"{want}, matrix {row}")
                return 1
            lines += 1
    print("MATCHED", lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
