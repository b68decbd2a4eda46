#!/usr/bin/env bash
# The hostile-peer suite (IntegrationTests/hostile/): a peer with keys of its own, speaking the wire protocol, attacks
# real daemons on 127.0.0.1; each scenario is a regression test of a finding in SECURITY.md. Arguments go to the
# suite's runner (--only NAME, --list, --keep); `IntegrationTests/run hostile/NAME` runs one scenario.
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
exec python3 "$tests_dir/hostile/run.py" --daemon "$daemon" --cli "$cli" "$@"
