#!/bin/sh
# SPDX-License-Identifier: MIT
# Where the hypervisor's EL2 instructions go, exit by exit: runs the benchmark guest
# (tests/guest/bench.c) for a few rounds under QEMU with an instruction trace
# (-singlestep -d exec,nochain, -icount shift=0), then prints, for each trapped access of its
# last round of the PMU mix, the EL2 instructions from the exception vector to the ERET and
# the functions they ran in. Needs `make hyp` first. Usage: scripts/exit-profile.sh [ROUNDS];
# FASTTRAP=off profiles the hypervisor without its fast trap path (default on, as it boots).
set -eu
rounds=${1:-5}
fasttrap=${FASTTRAP:-on}
case $fasttrap in on) vectors=hyp_vectors_fast ;; off) vectors=hyp_vectors ;; *)
	echo "exit-profile: FASTTRAP is on or off" >&2
	exit 2
	;;
esac
hyp=build/hyp/perfvisor.elf
guest=build/guest/bench.bin
[ -f "$hyp" ] && [ -f "$guest" ] || { echo "exit-profile: run 'make hyp' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout "${QEMU_TIMEOUT:-600}" sh scripts/qemu.sh -serial stdio \
	-icount shift=0 -singlestep -d exec,nochain -D "$tmp/trace" -kernel "$hyp" -append "fasttrap=$fasttrap vm0=bench -- bench.rounds=$rounds" \
	-device loader,file="$guest",addr=0x48200000,force-raw=on </dev/null >"$tmp/log"
grep -q '^hyp: all VMs ended' "$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
aarch64-linux-gnu-nm -n "$hyp" >"$tmp/syms"
python3 - "$tmp/trace" "$tmp/syms" "$vectors" <<'PY'
import bisect, sys
trace, symfile, vectors = sys.argv[1], sys.argv[2], sys.argv[3]
syms = []
for line in open(symfile):
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), f[2]))
syms.sort()
addrs = [a for a, _ in syms]
sync_vector = dict((n, a) for a, n in syms)[vectors] + 0x400  # lower EL, AArch64, sync
# "Trace 0: host [ctx/pc/flags/...]": the flags tell EL2 from the guest.
exits, cur, el2_flags = [], None, None
for line in open(trace):
    if not line.startswith("Trace"):
        continue
    f = line.split("[", 1)[1].split("/")
    pc, flags = int(f[1], 16), f[2]
    if pc == sync_vector:
        cur, el2_flags = [], flags
        exits.append(cur)
    elif cur is not None and flags != el2_flags:
        cur = None
        continue
    if cur is not None:
        cur.append(pc)
def where(pc):
    return syms[bisect.bisect_right(addrs, pc) - 1][1]
def through(seq):
    return set(where(pc) for pc in seq)
# The mix is the last ten exits whose path went through the PMU dispatch or the fast path's
# way back (rt_writes), before the report.
pmu = [e for e in exits if through(e) & {"pv_trap_sys64", "rt_writes"}]
print("EL2 instructions per trapped access, the last round of the mix (vector to ERET):")
for e in pmu[-10:]:
    parts, order = {}, []
    for pc in e:
        n = where(pc)
        if n not in parts:
            order.append(n)
        parts[n] = parts.get(n, 0) + 1
    print("%5d  %s" % (len(e), "  ".join("%s %d" % (n, parts[n]) for n in order)))
plain = {vectors, "lower_sync_saved", "exc_lower_sync", "guest_enter"}
hvc = [len(e) for e in exits if "exc_lower_sync" in through(e) and through(e) <= plain]
if hvc:
    print("%5d  null HVC (the floor)" % min(hvc))
PY
