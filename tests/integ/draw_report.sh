#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Pictures and the report page end to end: topo --svg and check --svg
# read back with xmllint (well formed; a link element per direction of
# every switch cable, missing links and switches, the witness cycle), a
# fabric that is no grid laid out by Graphviz's dot (and a clear error
# without it), then `knsroute report` on a dry run with fault and
# simulation results beside it, rendered by Debian's chromium headless:
# its DOM holds every section and the pictures' elements where they
# belong, and its screenshot is a picture. Needs no simulator;
# scripts/deps.sh installs graphviz, chromium and xmllint, and the cases
# needing one that is missing are skipped.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 12
if [ ! -x "$KR_CLI" ] || ! command -v python3 >/dev/null; then
	kr_skip_rest "needs knsroute built and python3"
	kr_done
fi
T=$KR_TMP
K=$KR_CLI
D=$KR_SRCDIR/tests/data

# count FILE CLASS: elements of that class in an SVG or HTML file.
count() {
	grep -o "class=\"$2\"" "$1" | wc -l
}

# A 6x6 torus, two links and a switch left out: well formed, 35 boxes,
# a link element per direction of the cables left, the missing parts.
"$K" gen torus --dims 6x6 --p 1 --fail 2 --seed 4 -o "$T/f.net" 2>/dev/null &&
awk -v RS= -v ORS='\n\n' '!/(Switch|Ca)\t[0-9]+ "(switch\(2,3\)|ca\(2,3\)\/0)"/' \
	"$T/f.net" | grep -v '"switch(2,3)"' >"$T/g.net" &&
"$K" topo "$T/g.net" --svg "$T/g.svg" >"$T/g.out" &&
links=$(awk '/^Switch/ { sw = 1 } /^Ca/ { sw = 0 }
	sw && /^\[[0-9]+\]\t"switch/' "$T/g.net" | wc -l) &&
{ ! command -v xmllint >/dev/null || xmllint --noout "$T/g.svg"; } &&
[ "$(count "$T/g.svg" switch)" -eq 35 ] &&
[ "$(count "$T/g.svg" missing-switch)" -eq 1 ] &&
[ "$(count "$T/g.svg" link)" -eq "$links" ] &&
[ "$(count "$T/g.svg" missing-link)" -ge 2 ] &&
grep -q '^missing switches: 1' "$T/g.out"
kr_ok $? "topo --svg: 35 switches, $links link directions, the missing ones marked"

# Names from a node-name-map above the boxes, every switch's.
awk '/^switchguid/ { split($1, a, "="); sub(/\(.*/, "", a[2]);
	printf "%s \"rack-%d\"\n", a[2], n++ }' "$T/g.net" >"$T/map" &&
"$K" topo "$T/g.net" --svg "$T/named.svg" --node-name-map "$T/map" >/dev/null &&
[ "$(count "$T/named.svg" name)" -eq 35 ] && grep -q '>rack-34</text>' "$T/named.svg"
kr_ok $? "topo --svg --node-name-map: the map's names on the switches"

# The credit loop of OpenSM's dor on a 3x3 torus, every SL given.
awk '/^0x/ { print strtonum($1), 0 }' "$D/chk_t33-lfts.dump" | sort -un \
	>"$T/t33.path-sl"
"$K" check "$D/chk_t33.ibnd" --lfts "$D/chk_t33-lfts.dump" \
	--sl2vl "$D/chk_t33-sl2vl.dump" --path-sl "$T/t33.path-sl" \
	--svg "$T/loop.svg" >"$T/loop.out" 2>&1
rc=$?
[ $rc -eq 1 ] && [ "$(count "$T/loop.svg" cycle-edge)" -eq 4 ] &&
[ "$(grep -c '>[1-4]: VL 0</text>' "$T/loop.svg")" -eq 4 ] &&
grep -q 'paths per link direction' "$T/loop.svg" &&
{ ! command -v xmllint >/dev/null || xmllint --noout "$T/loop.svg"; }
kr_ok $? "check --svg: exit 1, the 4-channel witness as numbered arrows (exit $rc)"

# A fat tree is no grid: dot lays it out; without dot, a clear error and
# no file.
if command -v dot >/dev/null; then
	"$K" topo "$D/chk_fattree.ibnd" --svg "$T/ft.svg" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 1 ] && [ "$(count "$T/ft.svg" switch)" -eq 6 ] &&
	grep -q 'laid out by Graphviz' "$T/ft.svg"
	kr_ok $? "topo --svg on a fat tree: not recognised (exit $rc), dot's layout"
else
	kr_skip "Graphviz's dot is not installed"
fi
mkdir "$T/nodot"
PATH=$T/nodot "$K" topo "$D/chk_fattree.ibnd" --svg "$T/ft2.svg" \
	>/dev/null 2>"$T/nodot.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/ft2.svg" ] && grep -q 'apt-get install graphviz' "$T/nodot.err"
kr_ok $? "without dot: exit 2, the package named, nothing written (exit $rc)"

# A dot that fails, and one that answers nonsense: said, nothing written.
mkdir "$T/baddot" && printf '#!/bin/sh\necho "dot: out of luck" >&2\nexit 1\n' \
	>"$T/baddot/dot" && chmod +x "$T/baddot/dot" &&
{ PATH=$T/baddot:$PATH "$K" topo "$D/chk_fattree.ibnd" --svg "$T/ft3.svg" \
	>/dev/null 2>"$T/baddot.err"; [ $? -eq 2 ]; } &&
grep -q 'dot -Tplain failed (exit status 1)' "$T/baddot.err" &&
grep -q 'out of luck' "$T/baddot.err" &&
printf '#!/bin/sh\necho "graph 1 2 2"\necho "node x"\n' >"$T/baddot/dot" &&
{ PATH=$T/baddot:$PATH "$K" topo "$D/chk_fattree.ibnd" --svg "$T/ft3.svg" \
	>/dev/null 2>"$T/baddot.err"; [ $? -eq 2 ]; } &&
grep -q 'dot -Tplain:2: expected "node sN X Y W H"' "$T/baddot.err" &&
[ ! -e "$T/ft3.svg" ]
kr_ok $? "a failing dot and a nonsense answer: exit 2 with why, nothing written"

# A dry run with a fault experiment and a simulation sweep beside it.
"$K" route "$T/f.net" -o "$T/r" -q >/dev/null &&
"$K" faults "$T/f.net" --random 1 --trials 4 --json -q >"$T/r/faults.json" &&
"$K" sim "$T/r" --json --sweep 0.2,0.4 --cycles 4000 --warmup 1000 \
	>"$T/r/sim.json" &&
"$K" report "$T/r" -o "$T/report.html" 2>"$T/report.err"
rc=$?
[ $rc -eq 0 ] && [ "$(count "$T/report.html" kr-fabric)" -eq 2 ] &&
! grep -Eq '(src|href)="(https?:)?//|@import|url\(http' "$T/report.html" &&
[ "$(grep -c '<section id=' "$T/report.html")" -eq 7 ]
kr_ok $? "report: exit 0, 7 sections, 2 pictures, nothing to fetch (exit $rc)"

cp -r "$T/r" "$T/bad" && printf '{"trials": 4,\n "x" 1}\n' >"$T/bad/faults.json"
"$K" report "$T/bad" -o "$T/bad.html" 2>"$T/bad.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/bad.html" ] &&
grep -q "bad/faults.json: byte 20: expected the JSON object of knsroute faults" "$T/bad.err"
kr_ok $? "report on a bad faults.json: exit 2, file and byte named, nothing written"

"$K" report "$T/f.net" -o "$T/x.html" 2>"$T/x.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'f.net: expected a directory' "$T/x.err"
kr_ok $? "report on a file: exit 2, a directory expected"

# The page in a real browser. As root chromium needs --no-sandbox; its
# profile goes to the test's own directory.
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
	kr_skip_rest "chromium is not installed (scripts/deps.sh installs it)"
	kr_done
fi
chrome() {
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$T/chrome" "$@" 2>>"$T/chrome.err"
}

chrome --dump-dom "file://$T/report.html" >"$T/dom.html"
kr_ok $? "chromium loads the page"

# The DOM chromium built: each section in place, the pictures inside
# their figures as SVG elements, as many links as the file has.
python3 - "$T/dom.html" "$(count "$T/report.html" link)" <<'EOF'
import sys
from html.parser import HTMLParser

VOID = ("meta", "br", "hr", "img", "input", "link")

class Walk(HTMLParser):
    def __init__(self):
        super().__init__()
        self.path, self.sections, self.links, self.svgs = [], [], 0, 0
        self.cells = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.seen(tag, a)
        if tag not in VOID:
            self.path.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.seen(tag, dict(attrs))
    def seen(self, tag, a):
        if tag == "section":
            self.sections.append(a.get("id"))
            self.section = a.get("id")
        if tag == "svg" and self.path[-2:] == ["section", "figure"]:
            self.svgs += 1
        if a.get("class") == "link" and "svg" in self.path:
            self.links += 1
        if tag == "td" and self.sections[-1:] in (["faults"], ["sim"]):
            self.cells += 1
    def handle_endtag(self, tag):
        while self.path and self.path.pop() != tag:
            pass

w = Walk()
w.feed(open(sys.argv[1]).read())
want = ["summary", "plan", "check", "pictures", "links", "faults", "sim"]
assert w.sections == want, w.sections
assert w.svgs == 2, w.svgs
assert w.links == int(sys.argv[2]) > 0, (w.links, sys.argv[2])
assert w.cells > 10, w.cells
EOF
kr_ok $? "the browser's DOM: 7 sections in order, 2 SVG figures, every link element"

chrome --screenshot="$T/page.png" --window-size=1200,2000 \
	"file://$T/report.html" >/dev/null
python3 - "$T/page.png" <<'EOF'
import struct, sys
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
assert (w, h) == (1200, 2000), (w, h)
assert len(png) > 20000, "too small for a rendered page: %d bytes" % len(png)
EOF
kr_ok $? "chromium's screenshot of the page: a 1200x2000 PNG with content"
kr_done
