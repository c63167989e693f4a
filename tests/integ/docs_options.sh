#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute(8) and docs/user-guide.md name every option `--help` shows, each
# where its command is described, and document none that --help lacks, so
# the three cannot drift apart. Also:
# the diags scripts go by Debian's names (dump_lfts, not dump_lfts.sh), and
# the README lists every package scripts/deps.sh installs.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 6
if [ ! -x "$KR_CLI" ] || ! command -v python3 >/dev/null; then
	kr_skip_rest "needs knsroute built and python3"
	kr_done
fi
T=$KR_TMP
CMDS="gen info topo route capture check path stats faults sim report"
for c in $CMDS; do
	"$KR_CLI" "$c" --help >"$T/$c.help" || exit 99
done

# Options from --help: the spec before the description on lines that
# start with a dash ("-o, --out DIR", "--k K, --n N").
cat >"$T/docs.py" <<'PY'
import re, sys

t, src, which = sys.argv[1], sys.argv[2], sys.argv[3]
cmds = sys.argv[4].split()
OPT = r'(?<![\w-])%s(?![\w-])'

def options(cmd):
    out = set()
    for line in open("%s/%s.help" % (t, cmd)):
        m = re.match(r'\s+(-\S.*?)(\s{2,}|$)', line)
        if m:
            out.update(re.findall(r'(?<![\w-])--?[A-Za-z][\w-]*', m.group(1)))
    return out - {"-h", "--help"}

def man_blocks():
    """COMMANDS items by command, and the .SS sections by title."""
    text = open(src + "/docs/knsroute.8").read().replace("\\-", "-")
    blocks, key = {}, None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            key = None
        elif line.startswith(".SS"):
            key = line[4:]
        elif (line.startswith(".B ") and i and lines[i - 1] in (".TP", ".TQ")
              and line.split()[1] in cmds):
            key = line.split()[1]
        if key:
            blocks[key] = blocks.get(key, "") + line + "\n"
    return blocks

def guide_blocks():
    """### sections of the guide's "Options by command"."""
    blocks, key, inside = {}, None, False
    for line in open(src + "/docs/user-guide.md"):
        if line.startswith("## "):
            inside = line.strip() == "## Options by command"
            key = None
        elif inside and line.startswith("### "):
            key = line[4:].strip().strip("`")
        elif inside and key:
            blocks[key] = blocks.get(key, "") + line
    return blocks

def block_cmds(key):
    """The commands a block describes."""
    if key in cmds:
        return [key]
    if key.startswith("knsroute ") and key[9:] in cmds:
        return [key[9:]]
    if key == "Capture":
        return ["capture"]
    m = re.search(r'\((.*)\)', key)
    return [c for c in re.split(r'[ ,]+', m.group(1)) if c in cmds] if m else []

def items(text):
    """Options an item names: the .B/.BR/.BI line after .TP or .TQ in
    knsroute(8), the head of a "- `--opt`: ..." item in the guide."""
    out, prev = set(), ""
    for line in text.split("\n"):
        head = None
        if prev in (".TP", ".TQ") and re.match(r'\.B[RI]? ', line):
            head = line
        elif line.startswith("- `-"):
            head = line.split("`:", 1)[0]
        if head:
            out.update(re.findall(r'(?<![\w-])--?[A-Za-z][\w-]*', head))
        prev = line
    return out

blocks = man_blocks() if which.startswith("man") else guide_blocks()
missing = []
if which.endswith("-back"):
    # every option an item documents is in --help of each command it is for
    for k, v in blocks.items():
        for c in block_cmds(k):
            missing += ["%s %s" % (c, o) for o in sorted(items(v) - options(c) - {"-h", "--help"})]
    print(" ".join(missing))
    sys.exit(1 if missing else 0)
for c in cmds:
    # shared sections say in parentheses which commands take them
    text = blocks.get(c, "") + blocks.get("knsroute " + c, "") + "".join(
        v for k, v in blocks.items()
        if re.search(r'\(.*\b%s\b.*\)' % c, k) or (k == "Capture" and c == "capture"))
    missing += ["%s %s" % (c, o) for o in sorted(options(c))
                if not re.search(OPT % re.escape(o), text)]
print(" ".join(missing))
sys.exit(1 if missing else 0)
PY
miss=$(python3 "$T/docs.py" "$T" "$KR_SRCDIR" man "$CMDS")
kr_ok $? "knsroute(8) describes every option with its command${miss:+; missing: $miss}"
miss=$(python3 "$T/docs.py" "$T" "$KR_SRCDIR" guide "$CMDS")
kr_ok $? "the user guide's 'Options by command' names every option${miss:+; missing: $miss}"
miss=$(python3 "$T/docs.py" "$T" "$KR_SRCDIR" man-back "$CMDS")
kr_ok $? "knsroute(8) documents no option its command's --help lacks${miss:+; extra: $miss}"
miss=$(python3 "$T/docs.py" "$T" "$KR_SRCDIR" guide-back "$CMDS")
kr_ok $? "the user guide documents no option its command's --help lacks${miss:+; extra: $miss}"

! grep -n 'dump_[lfm]*fts\.sh' "$KR_SRCDIR/docs/"*.md "$KR_SRCDIR/docs/knsroute.8" \
	"$KR_SRCDIR/README.md" "$KR_SRCDIR"/tools/*.c >&2
kr_ok $? "the diags scripts by Debian's names: dump_lfts, dump_fts, dump_mfts"

# the default list: the words between pkgs=" and the closing quote
miss=
for p in $(sed -n '/^pkgs="/,/"$/p' "$KR_SRCDIR/scripts/deps.sh" | tr -d '"' |
	sed 's/^pkgs=//'); do
	sed -n '1,/^# knsroute/p' "$KR_SRCDIR/README.md" | tr -s ' ,()\n' '\n' |
		grep -qx "$p" || miss="$miss $p"
done
[ -z "$miss" ]
kr_ok $? "the README's set-up paragraph names every package scripts/deps.sh installs${miss:+; missing:$miss}"

kr_done
