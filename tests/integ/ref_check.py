#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A reference credit-loop check, written for the tests alone.

Walks every (CA port, destination LID) pair hop by hop over a fabric's
tables and prints, per traffic class, how many pairs arrive and whether the
channel dependency graph has a cycle:

    data PAIRS DELIVERED ok|loop
    all PAIRS DELIVERED ok|loop

"data" is traffic to CA LIDs, "all" adds traffic to switch LIDs and, given
the SM's LID and SL, the SM node's: every CA port to that LID and the SM's
port to every CA LID on that SL (the SA's), and every port, switches'
included, to that LID and the SM's port to every LID on SL 0 (OpenSM's
PerfMgr), whatever the path SLs say. It shares
no code with knsroute's checker: it reads the normalised files that
`knsroute info --nodes/--links` and `knsroute check --write-lfts/
--write-sl2vl/--write-path-sl` print, and nothing else.

Usage: ref_check.py NODES LINKS LFTS SL2VL PATH_SL [SM_LID SM_SL]
"""
import sys


def read_nodes(path):
    """GUID -> (type, [port GUIDs]); a switch lists port 0's GUID only."""
    nodes = {}
    for line in open(path):
        f = line.split()
        if f:
            nodes[int(f[0], 16)] = (f[1], [int(g, 16) for g in f[3:]])
    return nodes


def read_links(path):
    """(GUID, port) -> (GUID, port), both ways."""
    peer = {}
    for line in open(path):
        f = line.split()
        if f:
            a, b = (int(f[0], 16), int(f[1])), (int(f[2], 16), int(f[3]))
            peer[a], peer[b] = b, a
    return peer


def read_lfts(path):
    """Switch GUID -> {LID: port}, and LID -> port GUID from the comments."""
    lft, owner, cur = {}, {}, None
    for line in open(path):
        if line.startswith("Unicast lids"):
            cur = lft.setdefault(int(line.split(" guid ")[1].split()[0], 16), {})
        elif line.startswith("0x") and cur is not None:
            f = line.split()
            lid = int(f[0], 16)
            cur[lid] = int(f[1])
            if "portguid" in f:
                owner[lid] = int(f[f.index("portguid") + 1].rstrip(":"), 16)
    return lft, owner


def read_sl2vl(path):
    """(GUID, in, out) -> [VL per SL]; a CA port's map under (port GUID, 0, 0)."""
    maps, cur = {}, None
    for line in open(path):
        if line.startswith("Switch ") or line.startswith("Channel Adapter "):
            cur = int(line.split("0x", 1)[1].split(",")[0], 16)
        elif cur is not None and line[:1].isdigit() and ":" in line:
            io, vls = line.split(":")
            i, o = (int(x) for x in io.split())
            maps[(cur, i, o)] = [int(v) for v in vls.split()]
    return maps


def read_path_sl(path):
    """{DLID: SL} and {(SLID, DLID): SL}."""
    dsl, psl = {}, {}
    for line in open(path):
        f = line.split("#")[0].split()
        if len(f) == 2:
            dsl[int(f[0])] = int(f[1])
        elif len(f) == 3:
            psl[(int(f[0]), int(f[1]))] = int(f[2])
    return dsl, psl


def has_cycle(edges):
    """Kahn's algorithm: a cycle leaves nodes with incoming edges."""
    succ, indeg = {}, {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        indeg[b] = indeg.get(b, 0) + 1
        indeg.setdefault(a, 0)
    ready = [n for n, d in indeg.items() if d == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for m in succ.get(n, ()):
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    return seen != len(indeg)


def main(argv):
    if len(argv) not in (6, 8):
        sys.exit(__doc__)
    nodes = read_nodes(argv[1])
    peer = read_links(argv[2])
    lft, owner = read_lfts(argv[3])
    maps = read_sl2vl(argv[4])
    dsl, psl = read_path_sl(argv[5])
    sm_lid, sm_sl = (int(argv[6]), int(argv[7])) if len(argv) == 8 else (0, 0)

    # port GUID -> (node GUID, port number); switches own port 0
    where = {}
    for g, (kind, ports) in nodes.items():
        if kind == "Switch":
            where[ports[0]] = (g, 0)
        else:
            for i, pg in enumerate(ports, 1):
                where[pg] = (g, i)
    lids_of = {}
    for lid, pg in owner.items():
        lids_of.setdefault(pg, []).append(lid)
    sources = [(pg, min(lids)) for pg, lids in lids_of.items()
               if nodes[where[pg][0]][0] != "Switch" and where[pg] in peer]
    nsw = len(lft)

    def is_switch(pg):
        return nodes[where[pg][0]][0] == "Switch"

    def walk(pg, dlid, sl, edges):
        """1 when port pg's packet to dlid on sl arrives; its hops' edges."""
        dpg = owner[dlid]
        if is_switch(pg):
            ch, (node, inp) = None, where[pg]
        else:
            ca = where[pg]
            ch = (ca, maps.get((pg, 0, 0), [0] * 16)[sl])
            node, inp = peer[ca]
        for _ in range(nsw + 1):
            out = lft.get(node, {}).get(dlid, 255)
            if out == 0:
                return int((node, 0) == where[dpg])
            nxt = peer.get((node, out))
            vl = maps.get((node, inp, out), [0] * 16)[sl]
            if nxt is None or vl == 15:
                return 0
            here = ((node, out), vl)
            if ch is not None:
                edges.add((ch, here))
            ch = here
            if nodes[nxt[0]][0] != "Switch":
                return int(nxt == where[dpg])
            node, inp = nxt
        return 0

    edges = {"data": set(), "mgmt": set()}
    pairs = {"data": 0, "mgmt": 0}
    delivered = {"data": 0, "mgmt": 0}
    for pg, slid in sources:
        for dlid, dpg in owner.items():
            if dpg == pg:
                continue
            cls = "mgmt" if is_switch(dpg) else "data"
            pairs[cls] += 1
            sl = psl.get((slid, dlid), dsl.get(dlid, 0))
            delivered[cls] += walk(pg, dlid, sl, edges[cls])
    if sm_lid in owner:
        sm = owner[sm_lid]
        switches = [pg for pg in lids_of if is_switch(pg)]
        cas = [pg for pg, _ in sources]
        # (SL, sources to the SM, whether switch LIDs are destinations)
        walks = [(0, cas + switches, True)]
        if sm_sl != 0:
            walks.append((sm_sl, cas, False))
        for sl, srcs, to_switches in walks:
            for pg in srcs:
                if pg != sm:
                    pairs["mgmt"] += 1
                    delivered["mgmt"] += walk(pg, sm_lid, sl, edges["mgmt"])
            for dlid, dpg in owner.items():
                if dpg != sm and (is_switch(dpg) and to_switches or
                                  not is_switch(dpg) and where[dpg] in peer):
                    pairs["mgmt"] += 1
                    delivered["mgmt"] += walk(sm, dlid, sl, edges["mgmt"])
    data = edges["data"]
    both = data | edges["mgmt"]
    print("data", pairs["data"], delivered["data"],
          "loop" if has_cycle(data) else "ok")
    print("all", pairs["data"] + pairs["mgmt"],
          delivered["data"] + delivered["mgmt"],
          "loop" if has_cycle(both) else "ok")


if __name__ == "__main__":
    main(sys.argv)
