#!/usr/bin/env bash
# The shutdown scenario in the LAN sandbox: ten daemons on five sandbox hosts, finding each other by DNS-SD, sent
# SIGTERM at once, five rounds (IntegrationTests/scenarios/shutdown.bash --lan; its --help says more).
exec "$(dirname "${BASH_SOURCE[0]}")/shutdown.bash" --lan "$@"
