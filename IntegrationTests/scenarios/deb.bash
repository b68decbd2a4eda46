#!/usr/bin/env bash
# deb — the Debian package on a fresh Debian 12, with no Swift anywhere.
#
#   IntegrationTests/scenarios/deb.bash [PATH/interpay_VERSION_amd64.deb]   (`make test-deb` builds the package first)
#
# Without a path, the newest package of .build/deb/ (what `make deb` leaves). Not in the default scenario lists:
# it downloads Debian packages and boots containers.
#
# 1. A minimal bookworm root, made with debootstrap from the Debian archive this machine's apt uses. It is cached
#    in $INTERPAY_TEST_DEB_CACHE (default /var/cache/interpay-test-deb) and made again when missing; the downloaded
#    packages are cached there too (apt-archives/).
# 2. A copy of it, where `apt-get install ./interpay_*.deb` resolves the dependencies from the archive (avahi-daemon
#    comes as a recommendation), and where no Swift library or toolchain exists.
# 3. Two containers booted from that root (systemd-nspawn -b, each on an overlay of it), alice and bob, each in a
#    network namespace of its own; a veth pair joins the two (198.19.X.1 and .2). Nothing is created in the calling
#    network namespace: avahi and every daemon run inside the containers.
# 4. In them: interpayd.service active (enabled by the package), `interpay status` as root and as a member of the
#    group interpay ([control] group = "interpay"), `systemd-analyze security interpayd` at most 2.0, and a payment
#    request from alice to bob, accepted by bob, in the state accepted on both sides.
#
# Needs root. Ends with "deb: N passed, M failed"; exit 0 only when nothing failed.
set -euo pipefail

PROG=deb
# The harness for pass, fail and eventually; this scenario makes its own containers, work directory and teardown.
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
# shellcheck disable=SC2012  # package file names have no odd characters; ls -t orders them by age
deb=${1:-$(ls -t "$root"/.build/deb/interpay_*_amd64.deb 2>/dev/null | head -n 1)}
[[ -n $deb ]] || { echo "usage: $PROG PATH/interpay_VERSION_amd64.deb (none in .build/deb/: run 'make deb')" >&2; exit 2; }
deb=$(readlink -f -- "$deb")
[[ -f $deb ]] || { echo "$PROG: $deb not found" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "$PROG: needs root (debootstrap, systemd-nspawn, network namespaces)" >&2; exit 2; }
for tool in debootstrap systemd-nspawn ip nsenter; do
    command -v "$tool" >/dev/null || { echo "$PROG: $tool missing: run 'make deps-deb'" >&2; exit 2; }
done

cache=${INTERPAY_TEST_DEB_CACHE:-/var/cache/interpay-test-deb}
base=$cache/bookworm
archives=$cache/apt-archives
started=$SECONDS
note() { echo "$PROG: [$((SECONDS - started)) s] $*" >&2; }

# The Debian archive this machine's apt uses (deb822 .sources, else sources.list), for debootstrap and the root.
apt_sources() {
    local file
    for file in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/*.sources; do
        [[ -f $file ]] && grep -qE '^URIs:.*debian' "$file" && { echo "$file"; return; }
    done
    [[ -f /etc/apt/sources.list ]] && grep -qE '^deb .*debian' /etc/apt/sources.list && echo /etc/apt/sources.list
}
sources=$(apt_sources)
[[ -n $sources ]] || { echo "$PROG: no Debian archive in this machine's apt sources" >&2; exit 2; }
if [[ $sources == *.sources ]]; then
    mirror=$(awk '/^URIs:/ && /debian\/?$/ {print $2; exit}' "$sources")
else
    mirror=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ {print $2; exit}' "$sources")
fi
[[ -n $mirror ]] || { echo "$PROG: no Debian mirror found in $sources" >&2; exit 2; }

# ---- 1. the cached bookworm root -------------------------------------------------------------------------------
mkdir -p "$cache" "$archives/partial"
if [[ ! -e $base/.interpay-test-deb-complete ]]; then
    note "debootstrap bookworm from $mirror into $base (cached for later runs)"
    rm -rf "$base" "$base.tmp"
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus \
        --cache-dir="$archives" bookworm "$base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        { tail -n 20 "$cache/debootstrap.log" >&2; echo "$PROG: debootstrap failed" >&2; exit 1; }
    # The same sources as this machine (main, updates, security), for apt in the root.
    rm -f "$base.tmp/etc/apt/sources.list"
    cp "$sources" "$base.tmp/etc/apt/sources.list.d/"
    touch "$base.tmp/.interpay-test-deb-complete"
    mv "$base.tmp" "$base"
else
    note "cached bookworm root: $base"
fi

# ---- 2. the package installed with apt in a copy of it ---------------------------------------------------------
work=$(mktemp -d /var/tmp/interpay-test-deb.XXXXXX)
id=$(basename "$work" | cut -d. -f2 | tr -dc 'a-z0-9' | head -c 6)
subnet=198.19.$((RANDOM % 200 + 20))
declare -A nspawn_pids=() netns=() addr=()
cleanup() {
    local name pid
    for name in "${!nspawn_pids[@]}"; do kill -TERM "${nspawn_pids[$name]}" 2>/dev/null || true; done
    for name in "${!nspawn_pids[@]}"; do
        pid=${nspawn_pids[$name]}
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    for name in "${!netns[@]}"; do ip netns del "${netns[$name]}" 2>/dev/null || true; done
    for name in alice bob; do
        mountpoint -q "$work/$name/root" 2>/dev/null && umount "$work/$name/root"
    done
    if ((failed > 0)); then
        for log in "$work"/*.log; do [[ -f $log ]] && { echo "--- $log"; tail -n 30 "$log"; }; done
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

root=$work/root
note "copying the root"
cp -a "$base" "$root"
cp "$deb" "$root/root/"
# Nothing may start while packages install (there is no booted systemd yet, but avahi-daemon's scripts look).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
note "apt-get install ./$(basename "$deb") (dependencies from $mirror)"
# --register=no --keep-unit: no machined and no scope unit, so that this works where systemd is not PID 1 either.
if systemd-nspawn -q -D "$root" --register=no --keep-unit --bind="$archives:/var/cache/apt/archives" \
    -E DEBIAN_FRONTEND=noninteractive -E LANG=C.UTF-8 \
    sh -c "apt-get update -qq && apt-get install -y -qq '/root/$(basename "$deb")'" >"$work/apt.log" 2>&1; then
    pass "apt-get install of the package on bookworm resolves its dependencies from the archive"
else
    fail "apt-get install: $(tail -n 5 "$work/apt.log")"
    exit 1
fi
rm -f "$root/usr/sbin/policy-rc.d" "$root/root/$(basename "$deb")"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
swift_files=$(find "$root" -xdev \( -name 'libswift*' -o -name 'libFoundation*' -o -name 'libicu*swift*' \
    -o -name 'swift' -o -name 'swiftc' \) -print 2>/dev/null | sed "s|^$root||")
if [[ -z $swift_files ]]; then pass "no Swift library or toolchain in the root"; else fail "Swift in the root: $swift_files"; fi
missing=$(in_root ldd /usr/bin/interpayd /usr/bin/interpay 2>&1 | grep -E 'not found|swift|Foundation|icu' || true)
if [[ -z $missing ]]; then
    pass "ldd: both binaries load only Debian's libraries"
else
    fail "ldd: $missing"
fi
for path in /usr/bin/interpayd /usr/bin/interpay /lib/systemd/system/interpayd.service \
    /usr/lib/systemd/user/interpayd.service /usr/lib/sysusers.d/interpay.conf /usr/lib/tmpfiles.d/interpay.conf \
    /usr/share/doc/interpay/examples/interpayd.toml /usr/share/man/man1/interpayd.1.gz \
    /usr/share/man/man1/interpay.1.gz /usr/share/bash-completion/completions/interpay; do
    [[ -e $root$path ]] || fail "not installed: $path"
done
if in_root getent group interpay >/dev/null && in_root getent passwd interpay >/dev/null; then
    pass "the package made the user and group interpay (sysusers)"
else
    fail "no user or group interpay"
fi
if [[ $(stat -c '%a %U' "$root/etc/interpay" 2>/dev/null) == "750 root" ]] &&
    [[ $(in_root stat -c %G /etc/interpay) == interpay ]]; then
    pass "the package made /etc/interpay, 0750 root:interpay (tmpfiles)"
else
    fail "/etc/interpay: $(ls -ld "$root/etc/interpay" 2>&1)"
fi
if [[ -L $root/etc/systemd/system/multi-user.target.wants/interpayd.service ]]; then
    pass "interpayd.service is enabled by the package"
else
    fail "interpayd.service is not enabled"
fi
# A member of the group interpay, for the CLI over the group-readable socket.
in_root useradd --create-home --groups interpay carol

# ---- 3. two containers, one veth between their network namespaces ---------------------------------------------
start_container() { # NAME INDEX PEER_ADDRESS
    local name=$1 index=$2 peer=$3 dir=$work/$1
    mkdir -p "$dir/upper" "$dir/work" "$dir/root"
    mount -t overlay overlay -o "lowerdir=$root,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
    echo "ipdeb-$id-$name" >"$dir/root/etc/hostname"
    cat >"$dir/root/etc/interpay/interpayd.toml" <<TOML
name = "$name"
port = 7420

[control]
group = "interpay"

[discovery]
peers = ["$peer:7420"]

# Nothing listens there: a fetch shows that libcurl, loaded at the first one, is found and tries to connect.
[rates]
url = "http://127.0.0.1:9/v6/latest/{base}"
TOML
    # The group by its name in the root (this machine may have no group interpay, or another ID for it).
    chroot "$dir/root" chown root:interpay /etc/interpay/interpayd.toml
    chmod 0640 "$dir/root/etc/interpay/interpayd.toml"
    systemd-nspawn -q -b -D "$dir/root" -M "ipdeb-$id-$name" --register=no --keep-unit \
        --network-namespace-path="/run/netns/${netns[$name]}" --console=read-only \
        >"$work/$name-console.log" 2>&1 &
    nspawn_pids[$name]=$!
    : "$index"
}

# The container's PID 1 seen from here: the process in its network namespace whose PID there is 1.
container_pid() { # NAME
    local pid
    for pid in $(ip netns pids "${netns[$1]}" 2>/dev/null); do
        if awk '/^NSpid:/ {exit !($NF == 1)}' "/proc/$pid/status" 2>/dev/null; then echo "$pid"; return 0; fi
    done
    return 1
}
# run NAME CMD...: CMD inside the booted container NAME, as root, with a plain environment.
run() {
    local name=$1 pid
    shift
    pid=$(container_pid "$name") || { echo "container $name is not running" >&2; return 125; }
    nsenter -t "$pid" -m -u -i -n -p -r -w -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}

netns[alice]=ipdeb-$id-a
netns[bob]=ipdeb-$id-b
addr[alice]=$subnet.1
addr[bob]=$subnet.2
for name in alice bob; do ip netns add "${netns[$name]}"; done
ip link add deb0 netns "${netns[alice]}" type veth peer name deb0 netns "${netns[bob]}"
for name in alice bob; do
    ip -n "${netns[$name]}" addr add "${addr[$name]}/24" dev deb0
    ip -n "${netns[$name]}" link set lo up
    ip -n "${netns[$name]}" link set deb0 up
done
note "booting alice (${addr[alice]}) and bob (${addr[bob]})"
start_container alice 1 "${addr[bob]}"
start_container bob 2 "${addr[alice]}"

# ---- 4. the checks ------------------------------------------------------------------------------------------------
for name in alice bob; do
    if eventually 90 run "$name" systemctl is-active --quiet interpayd; then
        pass "$name: systemctl is-active interpayd"
    else
        fail "$name: interpayd not active: $(run "$name" systemctl status --no-pager interpayd 2>&1 | tail -n 15)"
    fi
done
note "both booted"

if dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Status}' avahi-daemon 2>/dev/null | grep -q "ok installed" &&
    run alice systemctl is-active --quiet avahi-daemon; then
    pass "avahi-daemon (recommended by the package) installed and running in the container"
else
    fail "avahi-daemon: $(run alice systemctl status --no-pager avahi-daemon 2>&1 | tail -n 5)"
fi
if out=$(run alice interpay status 2>&1); then pass "interpay status as root"; else fail "interpay status as root: $out"; fi
if out=$(run alice runuser -u carol -- interpay status 2>&1); then
    pass "interpay status as carol, a member of the group interpay"
else
    fail "interpay status as carol: $out"
fi
# libcurl is not linked but loaded at the first fetch: it must be there (a dependency of the package), and the
# service's sandbox must let the daemon load it.
out=$(run alice interpay convert 1 EUR USD 2>&1) || true
if [[ $out == *"cannot connect to http://127.0.0.1:9/"* ]]; then
    pass "a rates fetch loads libcurl in the service and reaches the network stack ($out)"
else
    fail "rates fetch: '$out'"
fi
if out=$(run alice runuser -u nobody -- interpay status 2>&1); then
    fail "interpay status as nobody (not in the group) should be refused: $out"
else
    pass "interpay status as a user outside the group is refused"
fi

security=$(run alice systemd-analyze security --no-pager interpayd.service 2>&1 | tail -n 1)
score=$(grep -oE 'level for interpayd.service: [0-9.]+' <<<"$security" | awk '{print $NF}')
if [[ -n $score ]] && awk -v s="$score" 'BEGIN {exit !(s <= 2.0)}'; then
    pass "systemd-analyze security interpayd: $score (at most 2.0)"
else
    fail "systemd-analyze security interpayd: '$security'"
fi

# The CLI's JSON is read here, outside the containers (the minimal root has no Python).
session_up() { # NAME PEER
    run "$1" interpay peers --json | python3 -c "
import json, sys
sys.exit(0 if any(p['name'] == '$2' and p['session'] == 'up' for p in json.load(sys.stdin)['peers']) else 1)"
}
state() { # NAME PAYMENT
    run "$1" interpay show "$2" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'
}
# state_is NAME PAYMENT STATE: a command for eventually, which calls it again and again.
state_is() { [[ $(state "$1" "$2") == "$3" ]]; }
if eventually 60 session_up alice bob && eventually 20 session_up bob alice; then
    pass "alice and bob have a session over the private link"
    payment=$(run alice interpay send bob 12.50 MXN --memo "from the package" 2>&1) || payment=""
    if [[ -n $payment ]] && eventually 20 state_is bob "$payment" pending; then
        out=$(run bob interpay accept "${payment:0:8}" 2>&1) || true
        if eventually 20 state_is alice "$payment" accepted && [[ $(state bob "$payment") == accepted ]]; then
            pass "a payment request from alice, accepted by bob: accepted on both sides ($out)"
        else
            fail "payment $payment: alice $(state alice "$payment"), bob $(state bob "$payment"): $out"
        fi
    else
        fail "send: '$payment', bob sees state '$(state bob "$payment" 2>&1)'"
    fi
else
    fail "no session: alice $(run alice interpay peers 2>&1), bob $(run bob interpay peers 2>&1)"
fi
for name in alice bob; do run "$name" journalctl -u interpayd --no-pager >"$work/$name-interpayd.log" 2>&1 || true; done

note "done"
finish
