#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Writes an ibdiagnet (v1, ibutils 1.5.7) output directory for the tables
`knsroute route` wrote: ibdiagnet.lst, .fdbs, .mcfdbs, .slvl, .psl and .sm,
in the formats ibdiagnet(1) and ibdmchk(1) document and ibdiagnet's
writers (ibdebug.tcl: writeLstFile, writeFdbsFile, GetAllSL2VLTables,
GetAllLidToLidDefaultSLs, DumpSMReport) produce. ibdiagnet itself cannot
run here (it crashes under ibsim), so this stands in for it.

Usage: ibdiag_dir.py KNSROUTE ROUTE_DIR OUT_DIR SM_LID (0: no .sm)
"""
import os
import re
import subprocess
import sys


def lines(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout.splitlines()


def read_fabric(k, topo):
    """nodes: guid -> (type, nports, port guids); links: (a, pa, b, pb)."""
    nodes, links = {}, []
    for l in lines(k, "info", "--nodes", topo):
        f = l.split()
        nodes[int(f[0], 16)] = (f[1], int(f[2]), [int(g, 16) for g in f[3:]])
    for l in lines(k, "info", "--links", topo):
        a, pa, b, pb = l.split()
        links.append((int(a, 16), int(pa), int(b, 16), int(pb)))
    return nodes, links


def read_lfts(path):
    """LFTs by switch GUID, LIDs and descriptions by port GUID."""
    lft, lid, desc, sw = {}, {}, {}, None
    head = re.compile(r"Unicast lids \[0-(\d+)\] of switch Lid (\d+) "
                      r"guid 0x([0-9a-f]+) \('(.*)'\):")
    entry = re.compile(r"0x([0-9a-f]+) (\d+) # .* portguid 0x([0-9a-f]+): '(.*)'")
    for l in open(path):
        m = head.match(l)
        if m:
            sw = int(m.group(3), 16)
            lft[sw] = {}
            lid[sw], desc[sw] = int(m.group(2)), m.group(4)
            continue
        m = entry.match(l)
        if m:
            dlid, port, guid = int(m.group(1), 16), int(m.group(2)), int(m.group(3), 16)
            lft[sw][dlid] = port
            lid.setdefault(guid, dlid)
            desc.setdefault(guid, m.group(4))
    return lft, lid, desc


def lst_end(nodes, lid, desc, guid, port):
    kind, nports, pguids = nodes[guid]
    pg = pguids[0] if kind == "Switch" else pguids[port - 1]
    return ("{ %s Ports:%02X SystemGUID:%016x NodeGUID:%016x PortGUID:%016x "
            "VenID:000002C9 DevID:5A5A Rev:000000A0 {%s} LID:%04X PN:%02X }"
            % ("SW" if kind == "Switch" else "CA", nports, guid, guid, pg,
               desc[pg], lid[pg], port))


def write_lst(out, nodes, links, lid, desc):
    with open(os.path.join(out, "ibdiagnet.lst"), "w") as f:
        for a, pa, b, pb in links:
            f.write("%s %s PHY=4x LOG=ACT SPD=2.5\n" % (
                lst_end(nodes, lid, desc, a, pa),
                lst_end(nodes, lid, desc, b, pb)))


def write_fdbs(out, lft):
    with open(os.path.join(out, "ibdiagnet.fdbs"), "w") as f:
        for sw in sorted(lft):
            f.write("dump_ucast_routes: Switch 0x%016x\n" % sw)
            f.write("LID    : Port : Hops : Optimal\n")
            for dlid in sorted(lft[sw]):
                f.write("0x%04X : %03d  : 00   : yes\n" % (dlid, lft[sw][dlid]))
            f.write("\n")


def write_slvl(out, sl2vl_dump, nodes):
    """Switches only, as ibdiagnet asks only them: 0x(sl0)(sl1) bytes."""
    sw = None
    with open(os.path.join(out, "ibdiagnet.slvl"), "w") as f:
        for l in open(sl2vl_dump):
            m = re.match(r"(Switch|Channel Adapter|Router) 0x([0-9a-f]+),", l)
            if m:
                sw = int(m.group(2), 16) if m.group(1) == "Switch" else None
                continue
            m = re.match(r"(\d+)\s+(\d+)\s+:((\s+\d+){16})", l)
            if m and sw is not None:
                vl = [int(v) for v in m.group(3).split()]
                f.write("0x%016x %s %s %s\n" % (sw, m.group(1), m.group(2), " ".join(
                    "0x%x%x" % (vl[2 * i], vl[2 * i + 1]) for i in range(8))))


def write_psl(out, path_sl, nodes, lid):
    """Every source node (a switch's port 0, every CA port with a LID) to
    every LID, as ibdiagnet's SA queries give them."""
    dlid_sl, pair = {}, {}
    for l in open(path_sl):
        f = l.split("#")[0].split()
        if len(f) == 2:
            dlid_sl[int(f[0], 0)] = int(f[1])
        elif len(f) == 3:
            pair[(int(f[0], 0), int(f[1], 0))] = int(f[2])
    with open(os.path.join(out, "ibdiagnet.psl"), "w") as f:
        for guid in sorted(nodes):
            for pg in nodes[guid][2]:
                if pg not in lid:
                    continue
                for dlid in sorted(dlid_sl):
                    sl = pair.get((lid[pg], dlid), dlid_sl[dlid])
                    f.write("0x%016x %d %d\n" % (guid, dlid, sl))


def write_sm(out, lid, desc, sm_lid):
    guid = next(g for g in lid if lid[g] == sm_lid)
    with open(os.path.join(out, "ibdiagnet.sm"), "w") as f:
        f.write("ibdiagnet fabric SM report\n\n  SM - master\n")
        f.write("    %s/P1 lid=0x%04x guid=0x%016x dev=23108 priority:0\n"
                % (desc[guid], sm_lid, guid))


def main():
    k, rdir, out, sm_lid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    nodes, links = read_fabric(k, os.path.join(rdir, "topology.net"))
    lft, lid, desc = read_lfts(os.path.join(rdir, "opensm-lfts.dump"))
    os.makedirs(out, exist_ok=True)
    write_lst(out, nodes, links, lid, desc)
    write_fdbs(out, lft)
    with open(os.path.join(rdir, "opensm.mcfdbs")) as src, \
            open(os.path.join(out, "ibdiagnet.mcfdbs"), "w") as dst:
        dst.write(src.read())
    write_slvl(out, os.path.join(rdir, "opensm-sl2vl.dump"), nodes)
    write_psl(out, os.path.join(rdir, "path-sl"), nodes, lid)
    if sm_lid:
        write_sm(out, lid, desc, sm_lid)


main()
