# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by integration tests: real ibsim + opensm + infiniband-diags.
#
# Every background process a test starts is recorded by PID and stopped by
# that PID alone (never by name), so tests can run in parallel with each
# other and with anything else on the machine. Each test gets its own ibsim
# (a unique abstract socket name in IBSIM_SOCKNAME) and its own temp dir.
#
#   kr_tmpdir              create the private dir, set KR_TMP, install
#                          `trap kr_cleanup EXIT` (also INT/TERM/HUP)
#   kr_cleanup             kill the recorded PIDs (TERM, ~3 s grace, KILL),
#                          remove KR_TMP unless KR_KEEP=1
#   kr_have_sim            status 0 when ibsim, opensm, ibnetdiscover and
#                          the umad2sim preload library are all installed
#   kr_start_ibsim NET [N S P]
#                          start `ibsim -s NET` with a console FIFO kept open;
#                          node/switch/port limits are computed from NET
#                          unless given; returns when the simulator's socket
#                          is bound (status 1 on failure or timeout)
#   kr_stop_ibsim          stop this test's ibsim (to start another one)
#   kr_ibsim_cmd LINE...   send one console command (e.g. "unlink \"S1\" 3")
#                          and wait until ibsim has answered it
#   kr_sim CMD ARGS...     run a client (ibnetdiscover, saquery, smpquery,
#                          ibroute, ...) against this test's simulator;
#                          status 1 at once if that ibsim has exited
#   kr_sim_try OUTFILE CMD ARGS...
#                          kr_sim for a read-back that must succeed: retries
#                          a failed run (transient SA/SMP timeouts under load)
#                          up to KR_TRY_ATTEMPTS (def. 4) times, 0.2 s, 0.3 s,
#                          0.5 s apart; appends the stdout of the successful
#                          run only to OUTFILE; logs "# CMD succeeded on
#                          attempt K" (with the previous failure's status
#                          and last stderr line) after a retry, or after the
#                          last failure "# CMD failed after N attempts (exit
#                          S); its stderr:" and the tool's stderr, "#   "
#                          prefixed; status is the tool's
#   kr_start_opensm ARGS...
#                          start opensm in the background (no -o) with its
#                          cache, dumps and log in KR_TMP/osm; ARGS go last
#   kr_wait_sm [SECONDS]   wait until that opensm logs "SUBNET UP" (def. 60)
#                          and its SA answers a query
#   kr_stop_opensm         stop that opensm only (ibsim keeps running)
#   kr_run_opensm_once ARGS...
#                          run `opensm -o` in the foreground under a timeout
#                          (def. 90 s, KR_OSM_TIMEOUT), same dirs as above;
#                          status is opensm's
#   kr_net_with_pendants NET HOST
#                          print ibsim net NET with two pendant switches:
#                          "leaf" (CAs leaf-ca0, leaf-ca1) on a new port of
#                          switch HOST, "mgmt" (CA mgmt-ca0, listed first:
#                          ibsim's SM port) off leaf
#   kr_torus_conf NET     print a torus-2QoS.conf for torus NET made by
#                          `knsroute gen torus` (2-D or 3-D)
#   kr_net_with_two_homed NET A B
#                          print ibsim net NET with a switch "leaf" (CAs
#                          leaf-ca0, leaf-ca1) cabled to a new port of
#                          each of switches A and B (redundant uplinks)
#   kr_plan N / kr_ok STATUS "what" / kr_skip "why" / kr_skip_rest "why"
#                          TAP output; kr_ok passes when STATUS is 0;
#                          kr_skip_rest skips every remaining planned case;
#                          kr_done exits 1 if any case failed, else 0
#
# Variables: KR_BUILDDIR, KR_SRCDIR (default: this script's ../..),
# KR_CLI (the knsroute binary), KR_PLUGINDIR (built OpenSM plugin),
# KR_TMP, KR_OSM_DIR (opensm's cache/dump dir), KR_OSM_LOG (its log),
# KR_IBSIM_LOG (ibsim's console output), KR_PRELOAD (umad2sim library).

KR_LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${KR_SRCDIR:=$(cd "$KR_LIBDIR/../.." && pwd)}"
: "${KR_BUILDDIR:=$KR_SRCDIR}"
KR_CLI="$KR_BUILDDIR/tools/knsroute"
KR_PLUGINDIR="$KR_BUILDDIR/osm_plugin/.libs"
KR_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
KR_PIDS=()
KR_TAP_N=0
KR_TAP_PLAN=0
KR_TAP_FAILED=0
KR_OSM_PID=
KR_IBSIM_PID=

kr_tmpdir() {
	KR_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kr-integ.XXXXXX") || exit 99
	trap kr_cleanup EXIT
	trap 'exit 130' INT TERM HUP
}

# Stop one PID we started: TERM, then KILL if it outlives a short grace.
kr_stop_pid() {
	local pid=$1 i
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 30); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

kr_cleanup() {
	local pid
	# opensm first: it is a client of ibsim and logs errors if ibsim goes first.
	[ -n "$KR_OSM_PID" ] && kr_stop_pid "$KR_OSM_PID"
	for pid in "${KR_PIDS[@]}"; do
		kr_stop_pid "$pid"
	done
	KR_PIDS=()
	exec 8>&-
	if [ -n "$KR_TMP" ] && [ "${KR_KEEP:-0}" != 1 ]; then
		rm -rf "$KR_TMP"
	elif [ -n "$KR_TMP" ]; then
		echo "# KR_KEEP=1: left $KR_TMP" >&2
	fi
}

kr_have_sim() {
	command -v ibsim >/dev/null && command -v opensm >/dev/null &&
		command -v ibnetdiscover >/dev/null && [ -r "$KR_PRELOAD" ]
}

# ibsim's limits, from its net file: switches, nodes, and ports (a switch
# also has port 0). Never below ibsim's own defaults.
kr_ibsim_limits() {
	awk '
	/^[ \t]*(Switch|Hca|Ca|Rt)[ \t]/ {
		nodes++; np = $2 + 0
		if ($1 == "Switch") { sw++; np++ }
		ports += np
	}
	END {
		if (sw < 256) sw = 256
		if (nodes < 2048) nodes = 2048
		if (ports < 256 * 36 + 2048 * 2) ports = 256 * 36 + 2048 * 2
		print nodes, sw, ports
	}' "$1"
}

kr_start_ibsim() {
	local net=$1 lim n s p i
	lim=$(kr_ibsim_limits "$net") || return 1
	read -r n s p <<<"$lim"
	n=${2:-$n} s=${3:-$s} p=${4:-$p}
	export IBSIM_SOCKNAME="kr$$-$RANDOM"
	KR_IBSIM_LOG="$KR_TMP/ibsim.$IBSIM_SOCKNAME.log"
	KR_IBSIM_IN="$KR_TMP/ibsim.$IBSIM_SOCKNAME.in"
	mkfifo "$KR_IBSIM_IN" || return 1
	ibsim -s -N "$n" -S "$s" -P "$p" "$net" <"$KR_IBSIM_IN" \
		>"$KR_IBSIM_LOG" 2>&1 &
	KR_IBSIM_PID=$!
	KR_PIDS+=("$KR_IBSIM_PID")
	# Holding the write end open keeps ibsim's console from seeing EOF.
	exec 8>"$KR_IBSIM_IN"
	# The simulator is usable once its control socket is bound.
	for i in $(seq 200); do
		grep -qE "@$IBSIM_SOCKNAME:ctl@?\$" /proc/net/unix && return 0
		kill -0 "$KR_IBSIM_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "# ibsim did not start; its output:" >&2
	sed 's/^/#   /' "$KR_IBSIM_LOG" >&2
	return 1
}

kr_stop_ibsim() {
	local pid keep=()
	[ -n "$KR_IBSIM_PID" ] || return 0
	kr_stop_pid "$KR_IBSIM_PID"
	for pid in "${KR_PIDS[@]}"; do
		[ "$pid" = "$KR_IBSIM_PID" ] || keep+=("$pid")
	done
	KR_PIDS=("${keep[@]}")
	KR_IBSIM_PID=
	exec 8>&-
	rm -f "$KR_IBSIM_IN"
}

# Console commands are answered with a new "sim> " prompt; count prompts so
# the command has taken effect before the caller goes on.
kr_ibsim_cmd() {
	local before i
	before=$(grep -o 'sim> ' "$KR_IBSIM_LOG" | wc -l)
	echo "$*" >&8 || return 1
	for i in $(seq 100); do
		[ "$(grep -o 'sim> ' "$KR_IBSIM_LOG" | wc -l)" -gt "$before" ] &&
			return 0
		sleep 0.05
	done
	return 1
}

# umad2sim waits forever for a simulator that is gone, so a client is not
# started without one (kill -0 is a builtin: no fork per call).
kr_sim() {
	if [ -n "$KR_IBSIM_PID" ] && ! kill -0 "$KR_IBSIM_PID" 2>/dev/null; then
		echo "# ibsim (PID $KR_IBSIM_PID) has exited; not running $1" >&2
		return 1
	fi
	LD_PRELOAD="$KR_PRELOAD" "$@"
}

# Each attempt writes to files of its own, so a failed run's partial output
# never reaches OUTFILE; the stderr of failed runs goes to the test's log
# (our stderr), a successful run's is dropped. Nothing is forked on the
# way to a first-time success but the tool: a read-back runs it thousands
# of times, and a fork costs a lot on a loaded machine.
kr_sim_try() {
	local outfile=$1 max=${KR_TRY_ATTEMPTS:-4} n=0 rc=0 last_rc=0 last_err=''
	local out="$KR_TMP/kr_sim_try.$BASHPID.out" err="$KR_TMP/kr_sim_try.$BASHPID.err"
	local -a pause=(0.2 0.3 0.5) lines
	shift
	while [ "$n" -lt "$max" ]; do
		[ "$n" -gt 0 ] && sleep "${pause[n - 1]:-0.5}"
		n=$((n + 1))
		kr_sim "$@" >"$out" 2>"$err"
		rc=$?
		[ "$rc" -eq 0 ] && break
		last_rc=$rc
		last_err=$(grep . "$err" | tail -n 1)
	done
	if [ "$rc" -eq 0 ]; then
		mapfile lines <"$out"
		printf '%s' "${lines[@]}" >>"$outfile" || rc=1
		[ "$n" -gt 1 ] &&
			echo "# $* succeeded on attempt $n (the one before: exit $last_rc${last_err:+, \"$last_err\"})" >&2
	else
		echo "# $* failed after $n attempts (exit $rc); its stderr:" >&2
		sed 's/^/#   /' "$err" >&2
		[ -s "$err" ] || echo "#   (nothing)" >&2
	fi
	return "$rc"
}

kr_osm_dirs() {
	KR_OSM_DIR="$KR_TMP/osm"
	KR_OSM_LOG="$KR_OSM_DIR/opensm.log"
	mkdir -p "$KR_OSM_DIR"
}

# Log and dumps go to KR_OSM_DIR (the guid2lid cache too, via OSM_CACHE_DIR in
# the environment); the caller's options come last so they can override
# (e.g. -F with a config that loads the plugin).
kr_osm_args() {
	printf '%s\n' -f "$KR_OSM_LOG" --dump_files_dir "$KR_OSM_DIR" -d 2
}

kr_start_opensm() {
	local -a base
	kr_osm_dirs
	mapfile -t base < <(kr_osm_args)
	OSM_CACHE_DIR="$KR_OSM_DIR" OSM_TMP_DIR="$KR_OSM_DIR" \
		LD_PRELOAD="$KR_PRELOAD" opensm "${base[@]}" "$@" \
		</dev/null >"$KR_OSM_DIR/stdout" 2>&1 &
	KR_OSM_PID=$!
}

kr_wait_sm() {
	local i n=$(( ${1:-60} * 10 ))
	for i in $(seq "$n"); do
		grep -q "SUBNET UP" "$KR_OSM_LOG" 2>/dev/null && break
		kill -0 "$KR_OSM_PID" 2>/dev/null || break
		sleep 0.1
	done
	# A client that exited without detaching (opensm -o does) can swallow
	# the first SA reply; ibsim drops it after one failed query.
	rm -f "$KR_TMP/wait_sm.err"
	for i in 1 2 3; do
		grep -q "SUBNET UP" "$KR_OSM_LOG" 2>/dev/null || break
		kr_sim saquery -s >/dev/null 2>"$KR_TMP/wait_sm.err" && return 0
	done
	if [ -e "$KR_TMP/wait_sm.err" ]; then
		echo "# the subnet is up but saquery -s failed 3 times; its last stderr:" >&2
		sed 's/^/#   /' "$KR_TMP/wait_sm.err" >&2
	else
		echo "# opensm did not bring the subnet up" >&2
	fi
	echo "# opensm log tail:" >&2
	tail -n 20 "$KR_OSM_LOG" 2>/dev/null | sed 's/^/#   /' >&2
	return 1
}

kr_stop_opensm() {
	[ -n "$KR_OSM_PID" ] && kr_stop_pid "$KR_OSM_PID"
	KR_OSM_PID=
}

kr_run_opensm_once() {
	local -a base
	kr_osm_dirs
	mapfile -t base < <(kr_osm_args)
	OSM_CACHE_DIR="$KR_OSM_DIR" OSM_TMP_DIR="$KR_OSM_DIR" \
		LD_PRELOAD="$KR_PRELOAD" timeout -k 3 "${KR_OSM_TIMEOUT:-90}" \
		opensm -o "${base[@]}" "$@" </dev/null >"$KR_OSM_DIR/stdout" 2>&1
}

# torus-2QoS.conf for a generated torus: sizes and the links of the switch
# at the origin in every direction (torus-2QoS wants the - ones too on
# rings of 4), from the generator's switch names.
kr_torus_conf() {
	gawk '
	/^switchguid=/ { g = substr($1, 12); sub(/\(.*/, "", g) }
	/^Switch/ && match($0, /"switch\(([0-9,]+)\)"/, m) {
		n = split(m[1], c, ","); at[m[1]] = g
		for (i = 1; i <= n; i++) if (c[i] + 1 > k[i]) k[i] = c[i] + 1
		nd = n }
	END {
		o = nd == 2 ? "0,0" : "0,0,0"
		printf "torus %d %d %d\n", k[1], k[2], nd == 3 ? k[3] : 1
		split("x y z", key, " ")
		for (d = 1; d <= nd; d++)
			for (s = 1; s >= -1; s -= 2) {
				split(o, c, ","); c[d] = s > 0 ? 1 : k[d] - 1
				nb = c[1] "," c[2] (nd == 3 ? "," c[3] : "")
				if ((o in at) && (nb in at))
					print key[d] (s > 0 ? "p" : "m") "_link", at[o], at[nb]
			}
	}' "$1"
}

kr_plan() {
	KR_TAP_PLAN=$1
	echo "1..$1"
}

kr_ok() {
	KR_TAP_N=$((KR_TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $KR_TAP_N - $2"
	else
		echo "not ok $KR_TAP_N - $2"
		KR_TAP_FAILED=$((KR_TAP_FAILED + 1))
	fi
}

kr_skip() {
	KR_TAP_N=$((KR_TAP_N + 1))
	echo "ok $KR_TAP_N # SKIP $1"
}

kr_skip_rest() {
	while [ "$KR_TAP_N" -lt "$KR_TAP_PLAN" ]; do
		kr_skip "$1"
	done
}

kr_net_with_two_homed() {
	local net=$1 a=$2 b=$3
	awk -v a="$a" -v b="$b" '
	function uplink() { printf "[%d]\t\"leaf\"[%d]\n", np, mine }
	/^Switch\t/ { split($0, q, "\""); mine = q[2] == a ? 3 : q[2] == b ? 4 : 0
		if (mine) { np = $2 + 1; sub(/^Switch\t[0-9]+/, "Switch\t" np)
			    port[mine] = np } }
	mine && /^$/ { uplink(); mine = 0 }
	{ print }
	END { if (mine) uplink()
	      printf "\nswitchguid=0x7300\nSwitch\t4 \"leaf\"\n"
	      printf "[1]\t\"leaf-ca0\"[1]\n[2]\t\"leaf-ca1\"[1]\n"
	      printf "[3]\t\"%s\"[%d]\n[4]\t\"%s\"[%d]\n", a, port[3], b, port[4]
	      for (i = 0; i < 2; i++)
		      printf "\ncaguid=0x%x\nCa\t1 \"leaf-ca%d\"\n[1](%x) \t\"leaf\"[%d]\n",
			     0x7400 + i, i, 0x7400 + i, i + 1 }
	' "$net"
}

kr_net_with_pendants() {
	local net=$1 host=$2 np
	np=$(awk -v host="$host" '/^Switch\t/ { split($0, q, "\"")
		if (q[2] == host) print $2 + 1 }' "$net")
	cat <<-EOF
	caguid=0x7100
	Ca	1 "mgmt-ca0"
	[1](7101) 	"mgmt"[2]

	EOF
	awk -v host="$host" -v np="$np" '
	/^Switch\t/ { split($0, q, "\""); mine = q[2] == host
		if (mine) sub(/^Switch\t[0-9]+/, "Switch\t" np) }
	mine && /^$/ { printf "[%d]\t\"leaf\"[1]\n", np; mine = 0 }
	{ print }
	END { if (mine) printf "[%d]\t\"leaf\"[1]\n", np }
	' "$net"
	cat <<-EOF

	switchguid=0x7300
	Switch	4 "leaf"
	[1]	"$host"[$np]
	[2]	"leaf-ca0"[1]
	[3]	"leaf-ca1"[1]
	[4]	"mgmt"[1]

	switchguid=0x7200
	Switch	4 "mgmt"
	[1]	"leaf"[4]
	[2]	"mgmt-ca0"[1]

	caguid=0x7400
	Ca	1 "leaf-ca0"
	[1](7401) 	"leaf"[2]

	caguid=0x7410
	Ca	1 "leaf-ca1"
	[1](7411) 	"leaf"[3]
	EOF
}

kr_done() {
	[ "$KR_TAP_FAILED" -eq 0 ]
	exit $?
}
