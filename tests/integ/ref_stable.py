#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Two sweeps' tables of one fabric, compared pair by pair, written for
the tests alone (shares no code with knsroute): for every CA port (its
base LID) and every CA LID, the route each sweep's LFTs take (the ports
it leaves switches by, on that sweep's links) and the pair's SL. Prints
"SAME n MOVED m CHANGED c": n pairs delivered on the same route in both,
m of them with another SL, c pairs with another SL in all.

Usage: ref_stable.py NODES1 LINKS1 LFTS1 PATH_SL1 NODES2 LINKS2 LFTS2 PATH_SL2
(NODES, LINKS from `knsroute info --nodes/--links`, LFTS in the format
of opensm-lfts.dump, PATH_SL as `knsroute route` writes it; a node may
be gone in the second)
"""
import sys

from ref_check import read_links, read_lfts, read_nodes, read_path_sl


def main(argv):
    if len(argv) != 9:
        sys.exit(__doc__)
    nodes, sweeps = {}, []
    for nodes_file, links, lfts, path_sl in (argv[1:5], argv[5:9]):
        nodes.update(read_nodes(nodes_file))
        lft, owner = read_lfts(lfts)
        sweeps.append((read_links(links), lft, owner, read_path_sl(path_sl)))

    where = {}
    for g, (kind, ports) in nodes.items():
        for i, pg in enumerate(ports, 1):
            if kind != "Switch":
                where[pg] = (g, i)

    def route(peer, lft, owner, pg, dlid):
        """The (switch, out port) hops from CA port pg to dlid, or None."""
        hops, (node, _) = [], peer.get(where[pg], (None, 0))
        for _ in range(len(lft) + 1):
            if node is None or nodes[node][0] != "Switch":
                return None
            out = lft.get(node, {}).get(dlid, 255)
            hops.append((node, out))
            if out == 0:
                return None
            nxt = peer.get((node, out))
            if nxt is None:
                return None
            if nodes[nxt[0]][0] != "Switch":
                return hops if nxt == where.get(owner.get(dlid)) else None
            node = nxt[0]
        return None

    owner = sweeps[0][2]
    cas = {}
    for lid, pg in owner.items():
        if pg in where:
            cas[pg] = min(cas.get(pg, lid), lid)
    same = moved = changed = 0
    for pg, slid in sorted(cas.items()):
        for dlid, dpg in sorted(owner.items()):
            if dpg == pg or dpg not in where:
                continue
            sls, routes = [], []
            for peer, lft, own, (dsl, psl) in sweeps:
                sls.append(psl.get((slid, dlid), dsl.get(dlid)))
                routes.append(route(peer, lft, own, pg, dlid))
            changed += sls[0] != sls[1]
            if routes[0] is not None and routes[0] == routes[1]:
                same += 1
                moved += sls[0] != sls[1]
    print("SAME", same, "MOVED", moved, "CHANGED", changed)


if __name__ == "__main__":
    main(sys.argv)
