#!/usr/bin/env bash
# A site of two segments (a till VLAN and an office VLAN): scripts/lan-sandbox --segments 2, host 1 the router (IP
# forwarding, the only avahi-daemon with enable-reflector=yes, reflect-filters=_interpay._tcp as the README advises),
# hosts 2-3 on the first segment, 4-5 on the second.
# - Through the reflector, daemons on both sides find each other with DNS-SD, pair and pay; another service type
#   is not reflected.
# - Without it (the router's avahi-daemon stopped), DNS-SD stays on each segment, and a peer given by host name
#   (the site's names, as a name server would give them) still reaches across: a session, a payment.
# Ends with "segments: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
sandbox_flags=(--segments 2 --reflect-filters _interpay._tcp)
in_sandbox 5 "$@"
make_work

field() { on "$1" show "$2" --json | json_get "$3"; }
is_state() { [[ $(field "$1" "$2" state) == "$3" ]]; }
both_state() { is_state "$1" "$3" "$4" && is_state "$2" "$3" "$4"; }
# address_of NAME PEER: where NAME's daemon reaches the peer named PEER (HOST:PORT), or "-".
address_of() {
    on "$1" peers --json | python3 -c '
import json, sys
print(next((p.get("address") or "-" for p in json.load(sys.stdin)["peers"] if p["name"] == sys.argv[1]), "-"))' "$2"
}
# sees NAME PEER: NAME's daemon lists the peer named PEER at all (found, or with a session).
# browse HOST [TYPE]: what avahi on sandbox host HOST lists of TYPE (default _interpay._tcp), in avahi-browse -p form.
browse() { "$sandbox" exec "$1" -- timeout 5 avahi-browse -pt "${2:-_interpay._tcp}" 2>/dev/null; }
lists_dave() { browse "$1" | grep -q ';dave;'; }
sees() {
    on "$1" peers --json | python3 -c '
import json, sys
sys.exit(0 if any(p["name"] == sys.argv[1] for p in json.load(sys.stdin)["peers"]) else 1)' "$2"
}

echo "== through the reflector: alice (first segment) and bob (second) find each other with DNS-SD"
expect_eq "alice's host and bob's host are on different segments" "1 2" "$HOST2_SEGMENT $HOST4_SEGMENT"
start_daemon 2 alice
start_daemon 4 bob
sessions_between alice bob
expect_match "alice reaches bob at his address on the second segment" "${SANDBOX_SUBNET2%.*/*}.4:*" \
    "$(address_of alice bob)"

"$sandbox" exec 4 -- avahi-publish -s printer _ipp._tcp 631 >/dev/null 2>&1 &
background+=($!)
if eventually 10 eval 'browse 5 _ipp._tcp | grep -q ";printer;"' && ! browse 2 _ipp._tcp | grep -q ';printer;'; then
    pass "a printer on bob's segment is listed there, not across the router (reflect-filters)"
else
    fail "the printer: on bob's segment '$(browse 5 _ipp._tcp)', across '$(browse 2 _ipp._tcp)'"
fi

pair alice bob

id=$(on alice send bob 18.40 EUR --memo "lunch across the router")
eventually 10 is_state bob "$id" pending || true
on bob accept "$id" >/dev/null
if eventually 10 both_state alice bob "$id" accepted; then pass "bob accepts alice's request"; else
    fail "accept: alice $(field alice "$id" state), bob $(field bob "$id" state)"
fi
on bob paid "$id" >/dev/null
eventually 10 is_state alice "$id" paid || true
on alice received "$id" >/dev/null
if eventually 10 both_state alice bob "$id" settled && [[ $(field bob "$id" receipt) == True ]]; then
    pass "the payment is settled on both sides and bob holds the receipt"
else
    fail "settle: alice $(field alice "$id" state), bob $(field bob "$id" state)"
fi

echo "== without the reflector: DNS-SD stays on its segment; a peer given by host name still reaches across"
"$sandbox" avahi 1 stop >/dev/null
# carol (first segment) is given dave (second segment) by his host name and port; both still use DNS-SD.
start_daemon 5 dave --port 7420
start_daemon 3 carol --peer "$HOST5_HOSTNAME:7420"
sessions_between carol dave
static_pin() {
    on carol peers --json | python3 -c '
import json, sys
print(" ".join(f"{s['"'"'address'"'"']}={s['"'"'peerID'"'"']}/{s['"'"'pin'"'"']}" for s in json.load(sys.stdin)["static"]))'
}
expect_eq "carol reached dave by his host name and pinned his key there" \
    "$HOST5_HOSTNAME:7420=$(on dave status --json | json_get id)/first-seen" "$(static_pin)"
# bob and dave share the second segment: DNS-SD still works there.
if eventually 15 sees bob dave; then pass "bob finds dave on their own segment"; else fail "bob does not see dave"; fi
# dave started after the reflector stopped: his service is seen on his own segment, not on the other one.
if eventually 10 lists_dave 4; then pass "avahi on bob's segment lists dave's service"; else
    fail "dave's service is not on his segment: $(browse 4)"
fi
if browse 2 | grep -q ';dave;'; then fail "dave's service crossed without a reflector"; else
    pass "avahi on alice's segment does not list dave's service"
fi
id=$(on carol send dave 7.00 EUR --memo "by host name")
eventually 10 is_state dave "$id" pending || true
on dave accept "$id" >/dev/null
if eventually 10 both_state carol dave "$id" accepted; then pass "carol's request to dave is accepted across the router"; else
    fail "accept: carol $(field carol "$id" state), dave $(field dave "$id" state)"
fi
if session_up alice bob && session_up bob alice; then pass "alice and bob's session outlives the reflector"; else
    fail "alice and bob lost their session when the reflector stopped"
fi

finish
