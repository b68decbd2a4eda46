#!/usr/bin/env bash
# Metrics scraped by a real Prometheus (Debian's): alice serves /metrics on her host's loopback with a token, a
# Prometheus on the same sandbox host scrapes it with the token file, payments are made, and Prometheus' HTTP API
# must show the payment counters moved by exactly the payments made. Without the token the endpoint answers 401, and
# it listens on loopback only. Ends with "metrics: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
need_tools prometheus
in_sandbox 2 "$@"
make_work

metrics_port=9464
prometheus_port=9090

# get_on HOST URL [TOKEN]: the HTTP status and body of a GET on sandbox host HOST ("-": here), on one line each.
get_on() {
    local host=$1 url=$2 token=${3:-}
    "$sandbox" exec "$host" -- python3 - "$url" "$token" <<'PY'
import sys, urllib.error, urllib.request
request = urllib.request.Request(sys.argv[1])
if sys.argv[2]:
    request.add_header("Authorization", "Bearer " + sys.argv[2])
try:
    with urllib.request.urlopen(request, timeout=5) as answer:
        print(answer.status)
        print(answer.read().decode())
except urllib.error.HTTPError as error:
    print(error.code)
    print(error.read().decode())
except OSError as error:
    print("refused")
    print(error)
PY
}

# query EXPR: the value of a PromQL expression, as Prometheus on host 1 answers it now ("none" without a result).
query() {
    "$sandbox" exec 1 -- python3 - "http://127.0.0.1:$prometheus_port/api/v1/query" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    with urllib.request.urlopen(url, timeout=5) as answer:
        result = json.load(answer)["data"]["result"]
except OSError:
    result = []
print(result[0]["value"][1] if result else "none")
PY
}

# query_is EXPR VALUE: Prometheus answers VALUE for EXPR now.
query_is() { [[ $(query "$1") == "$2" ]]; }

echo "== setup: alice serves metrics on 127.0.0.1:$metrics_port of host 1; Prometheus scrapes it every second"
daemon_config alice "[metrics]" "listen = \"127.0.0.1:$metrics_port\""
start_daemon 1 alice
start_daemon 2 bob
sessions_between alice bob
token_file=$work/alice/metrics-token
if [[ -f $token_file && $(stat -c %a "$token_file") == 600 ]]; then
    pass "the daemon made its metrics token file, mode 0600"
else
    fail "metrics token file: $(stat -c %a "$token_file" 2>&1)"
fi
cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: interpay
    authorization:
      credentials_file: $token_file
    static_configs:
      - targets: ["127.0.0.1:$metrics_port"]
YAML
"$sandbox" exec 1 -- prometheus --config.file "$work/prometheus.yml" --storage.tsdb.path "$work/prometheus" \
    --web.listen-address "127.0.0.1:$prometheus_port" >"$work/prometheus.log" 2>&1 &
background+=($!)
if eventually 30 query_is 'up{job="interpay"}' 1; then
    pass "Prometheus scrapes alice's metrics with the token file (up = 1)"
else
    fail "Prometheus does not scrape: up = $(query 'up{job="interpay"}'); $(tail -n 5 "$work/prometheus.log")"
fi

echo "== the endpoint: the token, read-only, loopback only"
out=$(get_on 1 "http://127.0.0.1:$metrics_port/metrics")
expect_eq "without the token /metrics answers 401" 401 "${out%%$'\n'*}"
out=$(get_on 1 "http://127.0.0.1:$metrics_port/metrics" "$(printf '0%.0s' {1..64})")
expect_eq "with a wrong token /metrics answers 401" 401 "${out%%$'\n'*}"
out=$(get_on 1 "http://127.0.0.1:$metrics_port/" "$(cat "$token_file")")
expect_eq "any other path answers 404" 404 "${out%%$'\n'*}"
out=$(get_on 1 "http://127.0.0.1:$metrics_port/metrics" "$(cat "$token_file")")
expect_eq "with the token it answers 200" 200 "${out%%$'\n'*}"
expect_match "the answer is Prometheus' text format" "*# TYPE interpay_ledger_commits_total counter*" "$out"
expect_match "it carries the process's figures" "*interpay_process_resident_bytes *" "$out"
listening=$("$sandbox" exec 1 -- ss -ltnH "sport = :$metrics_port" | awk '{print $4}' | sort -u | tr '\n' ' ')
expect_eq "the metrics port is bound on loopback only" "127.0.0.1:$metrics_port " "$listening"
# shellcheck disable=SC2016  # expanded inside host 1
address=$("$sandbox" exec 1 -- sh -c 'echo "$LAN_SANDBOX_ADDR"')
out=$(get_on 2 "http://$address:$metrics_port/metrics" "$(cat "$token_file")")
expect_eq "from the other host, on alice's LAN address, nothing answers" refused "${out%%$'\n'*}"
printf '[metrics]\nlisten = "0.0.0.0:9464"\n' >"$work/off-loopback.toml"
expect_exit 78 "a metrics address off loopback is refused (EX_CONFIG)" "$daemon" --check-config \
    --config "$work/off-loopback.toml"
expect_match "it says why" "*not a loopback address*metrics*" "$last_out$last_err"

echo "== payments move the counters by exactly the payments made"
declare -A before
for counter in 'pending' 'accepted' 'rejected'; do
    before[$counter]=$(query "sum(interpay_payments_total{role=\"payee\",state=\"$counter\"}) or vector(0)")
done
ids=()
for amount in 1 2 3 4 5; do
    ids+=("$(on alice send bob "$amount.00" EUR --memo "metrics $amount")")
done
for id in "${ids[@]:0:3}"; do on bob accept "$id" >/dev/null; done
for id in "${ids[@]:3:2}"; do on bob reject "$id" >/dev/null; done
moved() {
    local state=$1 count=$2
    query_is "sum(interpay_payments_total{role=\"payee\",state=\"$state\"}) - ${before[$state]}" "$count"
}
if eventually 20 moved pending 5; then pass "payee, pending: +5 (five requests)"; else fail "pending: $(query 'sum(interpay_payments_total{role="payee",state="pending"})') (before ${before[pending]})"; fi
if eventually 20 moved accepted 3; then pass "payee, accepted: +3"; else fail "accepted: $(query 'sum(interpay_payments_total{role="payee",state="accepted"})')"; fi
if eventually 20 moved rejected 2; then pass "payee, rejected: +2"; else fail "rejected: $(query 'sum(interpay_payments_total{role="payee",state="rejected"})')"; fi
expect_eq "no payer-side counts on the payee (alice was never asked to pay)" 0 \
    "$(query 'sum(interpay_payments_total{role="payer"}) or vector(0)')"
expect_eq "one session up, unpaired" 1 "$(query 'sum(interpay_sessions{trust="unpaired"})')"
# Web requests with a method of the client's making: the counter's labels are the app's status and route only.
"$sandbox" exec 1 -- python3 - <<'PY' >/dev/null 2>&1 || true
import http.client
for method in ("GET", "GET", "XMETHOD"):
    connection = http.client.HTTPConnection("127.0.0.1", 7780, timeout=5)
    try:
        connection.request(method, "/no-such-page-" + method)
        connection.getresponse().read()
    except OSError:
        pass
    connection.close()
PY
web_requests() { [[ $(query 'sum(interpay_web_requests_total)') =~ ^[0-9]+$ ]] && (($(query 'sum(interpay_web_requests_total)') >= 2)); }
if eventually 10 web_requests; then
    pass "the web app's requests are counted ($(query 'sum(interpay_web_requests_total)'))"
else
    fail "web requests: $(query 'sum(interpay_web_requests_total)')"
fi
expect_eq "their labels are the status and the route, not the client's method or path" \
    "['route', 'status'] clean" "$("$sandbox" exec 1 -- python3 - "http://127.0.0.1:$prometheus_port/api/v1/series" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"match[]": "interpay_web_requests_total"})
series = json.load(urllib.request.urlopen(url, timeout=5))["data"]
names = sorted({k for s in series for k in s if k not in ("__name__", "instance", "job")})
values = " ".join(v for s in series for v in s.values())
print(names, "clean" if "XMETHOD" not in values and "no-such-page" not in values else values)
PY
)"
# A limit hit shows: a control-socket line over 64 KiB is refused and counted.
python3 - "$work/alice.sock" <<'PY'
import socket, sys
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.connect(sys.argv[1])
try:
    client.sendall(b"x" * 70000 + b"\n")
    client.recv(4096)
except OSError:
    pass
client.close()
PY
if eventually 10 query_is 'interpay_limit_hits_total{limit="control_line"}' 1; then
    pass "a control line over the limit shows as one hit of limit=\"control_line\""
else
    fail "control_line hits: $(query 'interpay_limit_hits_total{limit="control_line"}')"
fi
commits=$(query 'interpay_ledger_commits_total')
if [[ $commits =~ ^[0-9]+$ ]] && ((commits >= 10)); then
    pass "ledger commits are counted ($commits for 10 changes and more)"
else
    fail "ledger commits: $commits"
fi

finish
