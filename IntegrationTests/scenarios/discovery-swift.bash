#!/usr/bin/env bash
# The InterPayDiscovery Swift tests that need a real avahi-daemon, each inside scripts/lan-sandbox hosts:
#   1. one host: advertise/browse/resolve, name conflicts, no leaked DNS-SD refs;
#   2. avahi-daemon restarted under a running discovery: unavailable, available, registered again;
#   3. two hosts advertising the same name: each sees the other at its address, one is renamed.
# Runs the already built test bundle (.build/debug/InterPayPackageTests.xctest); builds nothing.
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
# The commands run inside the sandbox name the bundle and the sandbox tool relative to the package root.
cd "$root"
tests=${INTERPAY_TEST_BUNDLE:-.build/debug/InterPayPackageTests.xctest}
need_binaries tests
export TESTS="$tests --testing-library swift-testing --filter"

echo "== one sandbox host: DNS-SD link, advertise, browse, resolve, conflicts"
# shellcheck disable=SC2086  # $TESTS is a command and its options, split on purpose
"$sandbox" run --hosts 1 -- "$sandbox" exec 1 -- $TESTS "CDNSSDTests|InterPayDiscoveryTests.ServiceDiscoveryTests"

echo "== one sandbox host: avahi-daemon restarted under a running discovery"
"$sandbox" run --hosts 1 -- bash -c '
    (sleep 8; scripts/lan-sandbox avahi 1 restart >/dev/null) &
    scripts/lan-sandbox exec 1 -- env DISCOVERY_AVAHI_RESTART=1 \
        $TESTS InterPayDiscoveryTests.ServiceDiscoveryTests/avahiRestart
    status=$?; wait; exit $status'

echo "== two sandbox hosts advertising the same name"
"$sandbox" run --hosts 2 -- bash -c '
    export DISCOVERY_TWO_HOSTS="Pair $RANDOM" DISCOVERY_SAME_NAME=1
    for h in 1 2; do
        scripts/lan-sandbox exec $h -- $TESTS InterPayDiscoveryTests.TwoHostDiscoveryTests &
    done
    wait -n && wait -n'
