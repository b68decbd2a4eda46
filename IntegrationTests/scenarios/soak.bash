#!/usr/bin/env bash
# The soak run: five daemons on five sandbox hosts, with discovery, exchanging requests, accepts, rejects,
# settlements and a subscription at a steady rate for a while; meanwhile a sixth host churns connections and sends
# garbage to every daemon, one host's link is cut and restored every minute, one daemon (d5) is SIGKILLed and
# restarted every few minutes, and avahi-daemon restarts once on every host. At the end, with the links restored and
# the traffic stopped: every payment is in both its payee's and its payer's ledger, in the same state; nothing is
# pending past its expiry; no daemon crashed or trapped; and RSS, descriptors and threads of the daemons that were
# never killed show no upward trend over the last two thirds of the run (slope × that time within noise: 3 MB or 5 %
# of RSS, 8 descriptors, 4 threads; held to it in runs of 10 minutes or more, reported in shorter ones). Prints the
# figures and writes an SVG plot of RSS and descriptors over time per daemon.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: IntegrationTests/scenarios/soak.bash [--seconds S] [--plot FILE]

  --seconds S   how long the traffic and the faults last (default: $SOAK_SECONDS, else 180; `make soak`: 1800)
  --plot FILE   where the SVG plot goes (default: .build/soak.svg)

Runs inside a fresh six-host scripts/lan-sandbox. Environment: INTERPAYD, INTERPAY (binaries; default .build/debug).
Prints PASS/FAIL per check and exits non-zero on any failure. Everything it starts ends with it.
EOF
}

seconds=${SOAK_SECONDS:-180}
plot=
while (($# > 0)); do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --plot) plot=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "soak: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 60)); then
    echo "soak: --seconds: a number, at least 60" >&2
    exit 2
fi

# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
plot=${plot:-$root/.build/soak.svg}
in_sandbox 6 --seconds "$seconds" --plot "$plot"
make_work
daemon_log_level=info
log_lines=20
names=(d1 d2 d3 d4 d5)
victim=d5
declare -A host_of=([d1]=1 [d2]=2 [d3]=3 [d4]=4 [d5]=5)

start() {
    local name=$1
    [[ -f $work/$name.toml ]] || daemon_config "$name" '[subscriptions]' 'period_seconds = 20' \
        'accept_test_periods = true'
    start_daemon "${host_of[$name]}" "$name" --no-web
}
for name in "${names[@]}"; do start "$name"; done

# sessions_of NAME: how many sessions NAME has up.
sessions_of() { on "$1" peers --json 2>/dev/null | grep -o '"session":"up"' | wc -l; }
meshed() {
    local name
    for name in "${names[@]}"; do (($(sessions_of "$name") >= ${#names[@]} - 1)) || return 1; done
}
if eventually 90 meshed; then pass "five daemons hold a full mesh"; else fail "no full mesh within 90 s"; fi

# The subscription: d1 bills d2 every 20 s; d2 approves it for the whole run.
peer_id() { on "$1" status --json | json_get id; }
series=$(on d1 subscribe d2 1 EUR --every month --memo soak 2>"$work/subscribe.err") || series=
if [[ -n $series ]] && eventually 10 bash -c "'$cli' subscriptions --json --socket '$work/d2.sock' | grep -q '$series'" \
    && on d2 approve "$series" --max 1 --periods 1000 --peer "$(peer_id d1)" >/dev/null 2>>"$work/subscribe.err"; then
    pass "d2 approved d1's subscription"
else
    fail "subscription: $(cat "$work/subscribe.err")"
fi

# pid_of NAME: the daemon's own process, found by its command line (the CLI's carry the same --socket).
pid_of() { pgrep -n -f -- "/interpayd --log-level [a-z]* --config $work/$1.toml" || true; }

# The sampler: every 5 s, RSS (kB), descriptors and threads of each daemon.
sample() {
    local name pid
    echo "t,name,rss_kb,fds,threads" >"$work/samples.csv"
    while [[ ! -f $work/stop ]]; do
        for name in "${names[@]}"; do
            pid=$(pid_of "$name")
            [[ -n $pid && -r /proc/$pid/status ]] || continue
            printf '%s,%s,%s,%s,%s\n' "$SECONDS" "$name" \
                "$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" \
                "$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" \
                "$(awk '/^Threads:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" >>"$work/samples.csv"
        done
        sleep 5
    done
}

# The traffic: one operation a second or so between random pairs; every outcome is allowed (a daemon may be down or
# cut off), and what was done is logged.
traffic() {
    local n=0 a b id out
    while [[ ! -f $work/stop ]]; do
        n=$((n + 1))
        a=${names[RANDOM % 5]}
        b=${names[RANDOM % 5]}
        [[ $a != "$b" ]] || continue
        id=$(on "$a" send "$b" "$((RANDOM % 50 + 1)).$((RANDOM % 100))" EUR --memo "soak-$n" --expires 5m \
            2>/dev/null) || { sleep 1; continue; }
        echo "$a send $b $id" >>"$work/traffic.log"
        sleep 0.5
        case $((RANDOM % 4)) in
            0) out=$(on "$b" reject "$id" 2>&1) || true ;;
            1) out=$(on "$a" cancel "$id" 2>&1) || true ;;
            *)
                out=$(on "$b" accept "$id" 2>&1) || true
                if ((RANDOM % 2 == 0)) && on "$b" paid "$id" --method cash >/dev/null 2>&1; then
                    on "$a" received "$id" >/dev/null 2>&1 || true
                fi
                ;;
        esac
        echo "  ${out%%$'\n'*}" >>"$work/traffic.log"
        sleep 0.5
    done
}

# The hostile host: connections that send garbage, or TLS without a certificate, to every daemon, ~10 a second.
hostile() {
    local targets=()
    local name
    for name in d1 d2 d3 d4 d5; do
        targets+=("$(eval "echo \$HOST${host_of[$name]}_ADDR"):$(on "$name" status --json | json_get port)")
    done
    "$sandbox" exec 6 -- python3 -c '
import os, random, socket, ssl, sys, time
targets = [(t.rsplit(":", 1)[0], int(t.rsplit(":", 1)[1])) for t in sys.argv[2:]]
stop = sys.argv[1]
context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
count = 0
while not os.path.exists(stop):
    host, port = random.choice(targets)
    try:
        with socket.create_connection((host, port), timeout=2) as raw:
            if count % 2:
                raw.sendall(os.urandom(random.randint(1, 2000)))
            else:
                with context.wrap_socket(raw) as tls:
                    tls.sendall(b"\x00\x00\x00\x05hello")
    except OSError:
        pass
    count += 1
    time.sleep(0.1)
print(count)' "$work/stop" "${targets[@]}" >"$work/hostile.count" 2>/dev/null
}

sample &
background+=($!)
traffic &
background+=($!)
hostile &
background+=($!)

# The faults, until the time is up.
started=$SECONDS
next_cut=$((started + 60))
next_kill=$((started + 90))
avahi_at=$((started + seconds / 2))
kills=0
cuts=0
while ((SECONDS - started < seconds)); do
    if ((SECONDS >= next_cut)); then
        host=$((RANDOM % 5 + 1))
        "$sandbox" link "$host" down >/dev/null
        on_teardown "'$sandbox' link $host up"
        sleep 10
        "$sandbox" link "$host" up >/dev/null
        cuts=$((cuts + 1))
        next_cut=$((SECONDS + 60))
    elif ((SECONDS >= next_kill)); then
        victim_pid=$(pid_of "$victim")
        [[ -z $victim_pid ]] || kill -KILL "$victim_pid" 2>/dev/null || true
        for _ in {1..50}; do running "$victim" || break; sleep 0.2; done
        if running "$victim"; then
            fail "$victim still running 10 s after SIGKILL (pid ${victim_pid:-not found})"
        else
            wait "${pids[$victim]}" 2>/dev/null || true
            echo "--- SIGKILL $(date +%T)" >>"$work/$victim.log"
            start "$victim"
            kills=$((kills + 1))
        fi
        next_kill=$((SECONDS + 150))
    elif ((avahi_at > 0 && SECONDS >= avahi_at)); then
        for host in 1 2 3 4 5 6; do "$sandbox" avahi "$host" restart >/dev/null; done
        avahi_at=0
    else
        sleep 1
    fi
done
touch "$work/stop"
for pid in "${background[@]}"; do wait "$pid" 2>/dev/null || true; done
background=()
echo "soak: $seconds s of traffic: $(grep -c ' send ' "$work/traffic.log" || true) requests, $cuts link cuts, $kills kills of $victim, $(cat "$work/hostile.count" 2>/dev/null || echo '?') hostile connections"

# Every daemon still running (the victim as restarted last), and none trapped.
for name in "${names[@]}"; do
    check "$name is running at the end" running "$name"
    if grep -q "Fatal error" "$work/$name.log"; then fail "$name trapped: $(grep -m1 'Fatal error' "$work/$name.log")"; fi
done

# The ledgers: given time to converge (sessions back, resends done), every payment is in both its payee's and its
# payer's ledger, in the same state, and none is pending past its expiry.
ledgers() {
    local name
    for name in "${names[@]}"; do on "$name" list --json --limit 100000 >"$work/$name.json" || return 1; done
    python3 - "$work" "${names[@]}" <<'PY' >"$work/ledgers.why"
import json, sys, time
work, names = sys.argv[1], sys.argv[2:]
ids = {}
for name in names:
    own = json.load(open("%s/%s.json" % (work, name)))
    for payment in own["payments"]:
        ids.setdefault(payment["id"], {})[name] = payment
problems = []
now = time.time()
for pid, sides in ids.items():
    if len(sides) != 2:
        problems.append("%s on %s only" % (pid, ",".join(sides)))
        continue
    states = {name: p["state"] for name, p in sides.items()}
    if len(set(states.values())) != 1:
        problems.append("%s: %s" % (pid, states))
    for name, p in sides.items():
        if p["state"] == "pending" and p["expiresAt"] < now - 10:
            problems.append("%s pending on %s past its expiry" % (pid, name))
print("%d payments; %d disagreements" % (len(ids), len(problems)))
for problem in problems[:10]:
    print(problem)
sys.exit(1 if problems else 0)
PY
}
if eventually 120 ledgers; then
    pass "every payment is on both sides in the same state, none pending past expiry: $(head -1 "$work/ledgers.why")"
else
    fail "ledgers disagree: $(cat "$work/ledgers.why")"
fi

# Trends over the last two thirds, for the daemons never killed; and the plot.
relay_results python3 - "$work/samples.csv" "$plot" "$seconds" "$victim" <<'PY'
import csv, sys
from collections import defaultdict
samples, plot, seconds, victim = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = defaultdict(list)
for row in csv.DictReader(open(samples)):
    if row["rss_kb"] and row["fds"] and row["threads"]:
        rows[row["name"]].append((int(row["t"]), int(row["rss_kb"]), int(row["fds"]), int(row["threads"])))
def slope(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / var if var else 0.0
t0 = min(r[0][0] for r in rows.values())
for name in sorted(rows):
    data = rows[name]
    if name == victim or len(data) < 6:
        continue
    start = t0 + (data[-1][0] - t0) / 3
    tail = [d for d in data if d[0] >= start]
    span = tail[-1][0] - tail[0][0]
    rss = slope([(d[0], d[1] / 1024) for d in tail]) * span
    fds = slope([(d[0], d[2]) for d in tail]) * span
    threads = slope([(d[0], d[3]) for d in tail]) * span
    mean_rss = sum(d[1] for d in tail) / len(tail) / 1024
    noise = max(3.0, 0.05 * mean_rss)
    figure = "RSS %.1f MB (trend %+.1f MB over %d s), descriptors %d (%+.1f), threads %d (%+.1f)" % (
        mean_rss, rss, span, tail[-1][2], fds, tail[-1][3], threads)
    ok = rss < noise and fds < 8 and threads < 4
    if seconds < 600:
        # Minutes of warm-up (caches, the allocator's arenas, the first link cut's reconnects) are most of a short
        # run: its trend is reported, and held to the bound only in runs of 10 minutes or more (`make soak`).
        print("%s: trend over the last two thirds (reported only, a run under 10 minutes): %s" % (name, figure))
        continue
    print("%s %s: no upward trend over the last two thirds: %s%s" % (
        "PASS" if ok else "FAIL", name, figure, "" if ok else " (noise: %.1f MB, 8 descriptors, 4 threads)" % noise))
# The plot: RSS and descriptors over time, a line per daemon.
colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
width, height, pad = 900, 260, 40
t_max = max(d[0] for r in rows.values() for d in r) - t0 or 1
parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
         % (width, 2 * height + 20)]
for panel, (index, label) in enumerate([(1, "RSS (MB)"), (2, "descriptors")]):
    top = panel * (height + 20)
    values = [d[index] / (1024 if index == 1 else 1) for r in rows.values() for d in r]
    v_max = max(values) * 1.1 or 1
    parts.append('<text x="%d" y="%d">%s, 0 to %.0f, over %d s</text>' % (pad, top + 15, label, v_max, t_max))
    parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>'
                 % (pad, top + 20, width - 2 * pad, height - 40))
    for number, name in enumerate(sorted(rows)):
        points = " ".join("%.1f,%.1f" % (pad + (d[0] - t0) / t_max * (width - 2 * pad),
                                         top + height - 20 - d[index] / (1024 if index == 1 else 1) / v_max * (height - 40))
                          for d in rows[name])
        parts.append('<polyline fill="none" stroke="%s" points="%s"/>' % (colors[number % 5], points))
        parts.append('<text x="%d" y="%d" fill="%s">%s</text>' % (width - pad - 200 + 40 * number, top + 15,
                                                                 colors[number % 5], name))
parts.append("</svg>")
open(plot, "w").write("\n".join(parts))
print("soak: plot written to %s" % plot)
PY
summary_detail="$seconds s"
finish
