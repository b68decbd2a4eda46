#!/usr/bin/env bash
# The web app in a real browser: two interpayd on two simulated LAN hosts (scripts/lan-sandbox), a headless Debian
# chromium in each host's network namespace (no route out), driven with Selenium
# (IntegrationTests/lib/web-browser.py). alice requests 12.50 MXN from bob on her Request page; bob's open Inbox shows
# it within 2 s; bob accepts; both pages show it accepted; bob marks it paid by transfer with a reference, alice sees
# it and confirms Received, both pages show it settled and each browser downloads the receipt, which
# `interpay verify-receipt` accepts; alice offers bob a subscription, bob approves it with a cap naming her short ID,
# alice ends it, each page following live; bob's Sales totals equal `interpay stats --json` and the
# chart is drawn; a server on another port of 127.0.0.1 that alice's browser visits gets no session. Then the access
# checks: no token, the login code, wrong Host, a cross-origin POST, the token file's mode, a
# non-loopback address. Screenshots of every page are kept in .build/web-screenshots/. Ends with "web: N passed, M
# failed". shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
need_tools /usr/bin/chromium /usr/bin/chromedriver
python3 -c 'import selenium' 2>/dev/null || die "no selenium module; run scripts/install-deps"
in_sandbox 3 "$@"
make_work
log_lines=30
daemon_log_level=info

# run_side HOST ROLE NAME [ARGS...]: the browser driver (lib/web-browser.py) as ROLE in HOST's namespace, against
# NAME's daemon; its PASS/FAIL lines go to $work/browser-ROLE.out.
run_side() {
    local host=$1 role=$2 name=$3
    shift 3
    "$sandbox" exec "$host" -- python3 "$tests_dir/lib/web-browser.py" "$role" "$work" "$cli" "$work/$name.sock" "$@" \
        >"$work/browser-$role.out" 2>"$work/browser-$role.log"
}

echo "== setup"
# Exchange rates from a fixture server on each host's own loopback (the Converter page reads them).
mkdir -p "$work/rates/v6/latest"
cat >"$work/rates/v6/latest/USD" <<JSON
{"result":"success","base_code":"USD","time_last_update_unix":$(date +%s),"time_next_update_unix":$(($(date +%s) + 86400)),
 "conversion_rates":{"USD":1,"MXN":18.5,"EUR":0.86,"JPY":140.5,"KWD":0.307}}
JSON
rates="http://127.0.0.1:8765/v6/latest/{base}"
for host in 1 2; do
    "$sandbox" exec "$host" -- python3 -m http.server --bind 127.0.0.1 --directory "$work/rates" 8765 \
        >"$work/rates-$host.log" 2>&1 &
    background+=($!)
done
# alice's web app on a free port (port 0), bob's on the default 127.0.0.1:7780: each host has its own loopback.
start_daemon 1 alice --rates-url "$rates" --currency USD --web 127.0.0.1:0
start_daemon 2 bob --rates-url "$rates"
sessions_between alice bob
# carol, a third table guest for the Split page, has no browser of her own.
start_daemon 3 carol
sessions_between alice carol
eventually 10 on bob web --no-open || fail "bob's web app is not listening"

echo "== browsers"
started=$SECONDS
run_side 2 bob bob &
bob_side=$!
run_side 1 alice alice &
alice_side=$!
wait "$alice_side" || true
wait "$bob_side" || true
count_results "$work/browser-alice.out"
count_results "$work/browser-bob.out"
for side in alice bob; do
    [[ -s $work/browser-$side.log ]] && grep -v '^\s*$' "$work/browser-$side.log" | tail -n 5 | sed "s/^/  $side: /"
done
echo "   (browsers: $((SECONDS - started)) s)"

echo "== access"
run_side 1 security alice "$daemon" || true
count_results "$work/browser-security.out"
alice_port=$(on alice status --json | json_get webPort)
# shellcheck disable=SC2016  # expanded inside host 1
host1=$("$sandbox" exec 1 -- sh -c 'echo $LAN_SANDBOX_ADDR')
if "$sandbox" exec 2 -- curl -s -o /dev/null --max-time 3 "http://$host1:$alice_port/"; then
    fail "alice's web app answers on her LAN address $host1:$alice_port"
else
    pass "nothing is served on the LAN address ($host1:$alice_port refused from host 2)"
fi

mkdir -p "$root/.build/web-screenshots"
cp "$work"/screenshots/*.png "$root/.build/web-screenshots/" 2>/dev/null || true
echo "   screenshots: .build/web-screenshots/ ($(find "$root/.build/web-screenshots" -name '*.png' | wc -l) files)"

finish
