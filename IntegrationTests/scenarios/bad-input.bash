#!/usr/bin/env bash
# Bad input against running daemons: junk before TLS, no client certificate, oversize and truncated frames,
# invalid UTF-8 and JSON, wrong types, bad amounts and currencies, expired and replayed requests, the memo limit,
# the local limits (pending requests and requests per minute per peer, unauthenticated connections, handshake
# deadline), and invalid JSON-RPC on the control socket. After each group the daemon must still serve.
#
# Two interpayd run in this network namespace with --no-discovery on 127.0.0.1: "main" with the default limits, and
# "limits" with small ones from a configuration file. The prober (IntegrationTests/lib/bad-input-probe.py) speaks the
# wire protocol itself with a client certificate made by openssl. Ends with "bad-input: N passed, M failed".
set -euo pipefail

usage() {
    cat <<'EOF'
usage: IntegrationTests/run bad-input (or IntegrationTests/scenarios/bad-input.bash) [--only GROUP] [--keep]

  --only GROUP  run only the prober groups whose names contain GROUP (pre-session, framing, fields, replay,
                memo, control, pending, rate, unauthenticated)
  --keep        keep the work directory (daemon logs) after the run

Environment: INTERPAYD and INTERPAY override the binaries (default: .build/debug/interpayd and interpay).
Needs python3 and openssl (scripts/install-deps installs them).
EOF
}

only=()
keep=no
while (($# > 0)); do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --only) only=(--only "$2"); shift 2 ;;
        --keep) keep=yes; shift ;;
        *) usage >&2; exit 2 ;;
    esac
done

# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
need_tools python3 openssl
[[ $keep == no ]] || KEEP_WORK=1
make_work
log_lines=60
# Info, not debug: the floods of the limit checks would fill the logs the prober reads.
daemon_log_level=info

# The small limits of the "limits" daemon.
max_pending=5
max_per_minute=30
max_unauthenticated=4
handshake_timeout=20
daemon_config limits "max_pending_per_peer = $max_pending" "max_requests_per_minute = $max_per_minute" \
    "max_unauthenticated = $max_unauthenticated" "handshake_timeout = \"${handshake_timeout}s\""
daemon_config main

# start NAME: a daemon on 127.0.0.1 on a free port, without discovery or the web app.
start() {
    start_daemon - "$1" --no-discovery --no-web --listen 127.0.0.1 --port 0
}

port_of() { on "$1" status --json | json_get port; }

start main
start limits
out=$("$daemon" --check-config --config "$work/limits.toml")
if grep -q "max_pending_per_peer = $max_pending" <<<"$out" && grep -q "max_requests_per_minute = $max_per_minute" <<<"$out" \
    && grep -q "max_unauthenticated = $max_unauthenticated" <<<"$out"; then
    pass "--check-config shows the three new limits from the file"
else
    fail "--check-config does not show the new limits: $out"
fi

python3 "$tests_dir/lib/bad-input-probe.py" --cli "$cli" --work "$work" \
    --main "$(port_of main)" "$work/main.sock" "${pids[main]}" "$work/main.log" \
    --limits "$(port_of limits)" "$work/limits.sock" "${pids[limits]}" "$work/limits.log" \
    --max-pending "$max_pending" --max-per-minute "$max_per_minute" --max-unauthenticated "$max_unauthenticated" \
    --handshake-timeout "$handshake_timeout" "${only[@]}" | tee "$work/probe.out" || true
summary=$(grep -E '^bad-input: [0-9]+ passed, [0-9]+ failed$' "$work/probe.out" || true)
if [[ $summary =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
else
    fail "the prober did not finish (no summary line)"
fi

# Nothing of the run may have crashed a daemon: both still answer and stop cleanly on SIGTERM.
for name in main limits; do
    if ! kill -0 "${pids[$name]}" 2>/dev/null; then
        fail "the $name daemon is gone"
        unset "pids[$name]"
        continue
    fi
    kill -TERM "${pids[$name]}"
    code=0
    wait "${pids[$name]}" || code=$?
    unset "pids[$name]"
    if ((code == 0)); then pass "the $name daemon exits 0 on SIGTERM"; else fail "the $name daemon exited $code on SIGTERM"; fi
done

finish
