#!/usr/bin/env python3
"""The hostile-peer suite: each scenario file (scenario_*.py beside this runner) attacks real interpayd processes on
127.0.0.1 as a peer with keys of its own, speaking the wire protocol from protocol/PROTOCOL.md, and checks that the
daemon holds. One shared harness (this file), one file per scenario, run all or one by name:

    IntegrationTests/hostile/run.py --daemon .build/debug/interpayd --cli .build/debug/interpay [--only NAME] [--list]

A scenario module defines DESCRIPTION (one line) and run(h), where h is a Harness. Each scenario gets fresh daemons;
after it, every daemon it started must still be running and exit 0 on SIGTERM. Ends with "hostile: N passed, M
failed" and exits 1 if anything failed.
"""

import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import interpay_wire as wire  # noqa: E402 - the path above must be set first

HERE = os.path.dirname(os.path.abspath(__file__))

# The test timers every daemon of the suite runs with (as IntegrationTests/lib/harness.bash gives its daemons): the
# smallest keepalive interval the daemon allows, so that a silent or stalled peer is dropped within 15-20 s instead
# of waiting on the default meant for people's networks.
TEST_LIMITS = 'keepalive_interval = "5s"\n'


def with_test_limits(config):
    """`config` (TOML text) with TEST_LIMITS added to its [limits] table, or in a table of their own; a scenario
    that sets the keepalive interval itself keeps its own."""
    if "keepalive_interval" in config:
        return config
    if "[limits]\n" in config:
        return config.replace("[limits]\n", "[limits]\n" + TEST_LIMITS, 1)
    return "[limits]\n" + TEST_LIMITS + config


class Harness:
    """What a scenario works with: daemons it starts, identities it makes, and checks it records."""

    def __init__(self, scenario, daemon_binary, cli, work):
        self.scenario = scenario
        self.daemon_binary = daemon_binary
        self.cli = cli
        self.work = work
        self.daemons = []
        self.processes = {}

    def check(self, ok, what, detail=""):
        """One PASS or FAIL line, named by the scenario."""
        return wire.R.check(ok, "%s: %s" % (self.scenario, what), detail)

    def identity(self, name):
        """A fresh P-256 key and certificate of the attacker's own: {"key", "cert", "id"}."""
        return wire.make_identity(self.work, name)

    def daemon(self, name, config="", args=(), port=0, web=False):
        """Starts interpayd `name` on 127.0.0.1 (on `port`, 0 for any) with its own state directory, socket and log,
        the given TOML configuration and extra arguments (and its web app on a free loopback port with `web`);
        returns an interpay_wire.Daemon once its control socket answers. Starting a name again reuses its state
        directory (a restart)."""
        state = os.path.join(self.work, name)
        os.makedirs(state, exist_ok=True)
        config_path = os.path.join(self.work, name + ".toml")
        with open(config_path, "w") as file:
            file.write(with_test_limits(config))
        socket_path = os.path.join(self.work, name + ".sock")
        log_path = os.path.join(self.work, name + ".log")
        log = open(log_path, "ab")
        process = subprocess.Popen(
            [self.daemon_binary, "--config", config_path, "--name", name, "--no-discovery",
             *(["--web", "127.0.0.1:0"] if web else ["--no-web"]),
             "--listen", "127.0.0.1", "--port", str(port), "--state-dir", state, "--socket", socket_path, *args],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 30
        while True:
            out = subprocess.run([self.cli, "status", "--json", "--socket", socket_path], capture_output=True,
                                 text=True)
            if out.returncode == 0:
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("daemon %s did not start: %s" % (name, open(log_path).read()[-2000:]))
            time.sleep(0.2)
        port = json.loads(out.stdout)["port"]
        daemon = wire.Daemon(name, int(port), socket_path, process.pid, log_path, self.cli)
        self.daemons.append(daemon)
        self.processes[name] = process
        return daemon

    def connect(self, daemon, identity, **kwargs):
        """A TLS session with `daemon` as the peer `identity` (hello sent and answered unless hello=False)."""
        return wire.PeerConnection(daemon.port, identity, **kwargs)

    def stop(self, daemon):
        """SIGTERM; True when the daemon was still running and exited 0."""
        process = self.processes.pop(daemon.label, None)
        if process is None:
            return False
        if process.poll() is not None:
            return False
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=20) == 0
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return False

    def finish(self):
        """Every daemon still standing exits 0 on SIGTERM; a daemon that died during the scenario is a failure."""
        for daemon in list(self.daemons):
            if daemon.label not in self.processes:
                continue
            alive = self.processes[daemon.label].poll() is None
            self.check(alive, "the %s daemon survived the scenario" % daemon.label)
            if alive:
                self.check(self.stop(daemon), "the %s daemon exits 0 on SIGTERM" % daemon.label)
            else:
                self.processes.pop(daemon.label, None)
                print("--- %s (last lines)\n%s" % (daemon.log, open(daemon.log, errors="replace").read()[-3000:]))


def scenarios():
    """(name, module) of every scenario_*.py beside this file, in name order."""
    found = []
    for file in sorted(os.listdir(HERE)):
        if file.startswith("scenario_") and file.endswith(".py"):
            name = file[len("scenario_"):-3]
            spec = importlib.util.spec_from_file_location("scenario_" + name, os.path.join(HERE, file))
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            found.append((name, module))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", required=True, help="the interpayd binary")
    parser.add_argument("--cli", required=True, help="the interpay binary")
    parser.add_argument("--only", action="append", help="run only the scenario with this name (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (daemon logs)")
    args = parser.parse_args()

    found = scenarios()
    if args.list:
        for name, module in found:
            print("%-16s %s" % (name, module.DESCRIPTION))
        return 0
    unknown = [name for name in args.only or [] if name not in [known for known, _ in found]]
    if unknown:
        print("hostile: no scenario named %r (see --list)" % unknown[0], file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="interpay-hostile.")
    try:
        for name, module in found:
            if args.only and name not in args.only:
                continue
            print("== %s: %s" % (name, module.DESCRIPTION), flush=True)
            harness = Harness(name, args.daemon, args.cli, os.path.join(work, name))
            os.makedirs(harness.work)
            started = time.monotonic()
            try:
                module.run(harness)
            except Exception as error:  # noqa: BLE001 - a crash of the scenario is a failed check, then go on
                harness.check(False, "ran to its end", "%s: %s" % (type(error).__name__, error))
            finally:
                harness.finish()
                print("== %s took %.0f s" % (name, time.monotonic() - started), flush=True)
    finally:
        if args.keep or wire.R.failed:
            print("hostile: work directory kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("hostile: %d passed, %d failed" % (wire.R.passed, wire.R.failed))
    return 0 if wire.R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
