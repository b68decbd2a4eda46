# InterPay — build, test and format. `make test` sets up a fresh Debian machine by itself (run as root).
SWIFT ?= swift
PYTHON ?= python3
SANDBOX := scripts/lan-sandbox

.PHONY: all deps build build-tests check debug-checks scenarios soak churn lint-scripts test test-swift test-vectors test-sandbox test-discovery-swift test-discovery \
	test-payments test-web test-notifications test-receipts test-subscriptions test-service test-bad-input test-hostile test-install test-crash test-partition demo format lint clean help \
	release stage man install uninstall deb deps-deb test-deb bench bench-build bench-smoke bench-smoke-run bench-lan bench-lan-hosts bench-micro \
	bench-micro-smoke bench-micro-smoke-run fuzz fuzz-build test-fuzz

# Installation: `make install PREFIX=/usr/local DESTDIR=` (README.md, "Install").
PREFIX ?= /usr/local
DESTDIR ?=
# Flags of every release build: the Swift runtime and Foundation linked in statically, so that the binaries need no
# Swift toolchain at run time (ldd lists only Debian's libraries), and symbols stripped (dead code is dropped by
# SwiftPM's release link, --gc-sections). The link is lld's, for what makes an idle daemon smaller
# (docs/performance.md): packed relative relocations (glibc 2.36), no exported symbols (--no-export-dynamic: the static
# stdlib's link arguments export every symbol of the executable; nothing looks them up), and the code and data of
# start-up and rest laid out together (linker/link.order, made by scripts/link-order, and linker/layout.ld for the
# functions no symbol names; the build does not track either file: after changing one, delete the binaries to
# relink). Every function and datum in a section of its own (Swift's
# -function-sections, clang's -ffunction-sections -fdata-sections), as the toolchain's static libraries already are:
# the order then moves single functions rather than whole files, and --gc-sections drops single dead ones. (The
# Swift driver does not recompile for a changed -Xfrontend flag: after changing one, delete the release build.)
# SWIFT_RELEASE_FLAGS= links the toolchain's shared libraries with its default linker instead.
SWIFT_RELEASE_FLAGS ?= --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --no-export-dynamic -Xlinker --symbol-ordering-file=$(CURDIR)/linker/link.order \
	-Xlinker --no-warn-symbol-ordering -Xlinker --script=$(CURDIR)/linker/layout.ld -Xlinker -s \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections
# Release builds have a build directory of their own, beside the debug build's .build: SwiftPM lets one build at a
# time use a build directory, and `make test` compiles the debug, release and fuzz builds at once (on two cores each
# build alone leaves a core idle for much of its time, waiting on one module before the next).
RELEASE_SCRATCH ?= $(CURDIR)/.build-release
SWIFT_RELEASE = $(SWIFT) build -c release --scratch-path $(RELEASE_SCRATCH) $(SWIFT_RELEASE_FLAGS)
# How long `make fuzz` runs each libFuzzer target, in seconds.
FUZZ_SECONDS ?= 300
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/interpay
# systemd searches /usr/local/lib/{systemd/system,systemd/user,sysusers.d,tmpfiles.d} as well as /usr/lib; with
# PREFIX=/usr the system unit goes where Debian's systemd puts its own (pkg-config --variable=systemdsystemunitdir).
ifeq ($(PREFIX),/usr)
SYSTEMDSYSTEMUNITDIR ?= /lib/systemd/system
else
SYSTEMDSYSTEMUNITDIR ?= $(PREFIX)/lib/systemd/system
endif
SYSTEMDUSERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
# Everything `make install` puts in place, without DESTDIR: `make uninstall` removes exactly these.
INSTALLED_FILES = $(BINDIR)/interpayd $(BINDIR)/interpay \
	$(SYSTEMDSYSTEMUNITDIR)/interpayd.service $(SYSTEMDUSERUNITDIR)/interpayd.service \
	$(SYSUSERSDIR)/interpay.conf $(TMPFILESDIR)/interpay.conf \
	$(DOCDIR)/examples/interpayd.toml \
	$(MANDIR)/man1/interpayd.1 $(MANDIR)/man1/interpay.1 \
	$(BASHCOMPDIR)/interpayd $(BASHCOMPDIR)/interpay $(ZSHCOMPDIR)/_interpayd $(ZSHCOMPDIR)/_interpay \
	$(FISHCOMPDIR)/interpayd.fish $(FISHCOMPDIR)/interpay.fish
# The man pages' date: the release's, from debian/changelog, so that a page generated again is the same file.
MAN_DATE = $$(date -u -d "$$(dpkg-parsechangelog -S Date)" +%F)
# Generated files (units with @BINDIR@ substituted, man pages, completions) are staged here before installing.
STAGE := .build/install-stage

all: build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-20s %s\n", $$1, $$2}'

deps: ## install missing Debian packages and Python modules (only what is missing)
	@scripts/install-deps

build: deps ## debug build of every target (fails on a warning, scripts/check-warnings)
	scripts/check-warnings $(SWIFT) build

build-tests: deps
	scripts/check-warnings $(SWIFT) build --build-tests

# Test tiers. Every integration scenario (IntegrationTests/scenarios/NAME.bash, and each scenario of the hostile-peer
# suite IntegrationTests/hostile/) runs in a sandbox of its own or on its own loopback ports, so IntegrationTests/run
# runs SCENARIO_JOBS of them at once; `make test-NAME` runs one alone. `make check` is for every change (a warm debug
# build, the Swift tests, the fast scenarios); `make test` is what CI runs: everything, with one release compilation
# shared by the install check and the benchmarks (the micro benchmarks build in the root package). Each step's time
# is printed at the end (scripts/timed).
# The longest first: they start in this order. The hostile-peer suite runs as its scenarios, one job each.
RUN_SCENARIOS := IntegrationTests/run
HOSTILE := $(patsubst IntegrationTests/hostile/scenario_%.py,hostile/%,$(wildcard IntegrationTests/hostile/scenario_*.py))
SCENARIOS := soak hostile/sessions hostile/flood crash partition hostile/pairing discovery-swift \
	bad-input payments web receipts refunds bills subscriptions metrics backup notifications discovery discovery-flood avahi-restart segments shutdown shutdown-lan \
	$(filter-out hostile/sessions hostile/flood hostile/pairing,$(HOSTILE)) sandbox-selftest service
CHECK_SCENARIOS := payments receipts subscriptions bad-input $(HOSTILE) service
SCENARIO_JOBS ?= 3
TIMES := .build/step-times.tsv
TIMED := scripts/timed $(TIMES)
# The Swift tests, in their own process group with a deadline: a hung run prints its threads' backtraces and is
# ended whole (scripts/with-deadline) instead of holding CI until its own limit. A whole run takes 30-110 s here.
SWIFT_TESTS := scripts/with-deadline 900 $(SWIFT) test --skip-build

check: deps ## for every change: debug build, Swift tests, vectors, the fast scenarios (SCENARIO_JOBS at once)
	@rm -f $(TIMES)
	$(TIMED) build-tests $(MAKE) --no-print-directory build-tests
	$(TIMED) swift-tests $(SWIFT_TESTS)
	$(TIMED) vectors $(PYTHON) scripts/check-vectors.py
	$(TIMED) lint-scripts $(MAKE) --no-print-directory lint-scripts
	$(TIMED) lint $(MAKE) --no-print-directory lint
	$(TIMED) scenarios $(RUN_SCENARIOS) -j $(SCENARIO_JOBS) $(CHECK_SCENARIOS)
	@echo "make check: all checks passed"
	@scripts/timed --report $(TIMES)

# `make test` compiles its three builds at once (debug with the tests, release, fuzz), each in its own build
# directory, each build's output printed when it ends; the checks that need only the debug build (the Swift tests,
# the vectors, shellcheck) run as soon as it is done, while the release build still compiles (their steps, named
# +NAME, are inside `builds` and not added to the total).
# The scenarios then run the release binaries, the ones the install check and the package ship: the debug daemons
# took half again as long for the same scenarios (254 → 171 s, three at once), and the Swift tests still run the
# debug build with its assertions. `make check` and `make scenarios` run the debug build's binaries.
test: deps ## everything CI runs: check, every scenario, install, fuzz, benchmark smoke (step times at the end)
	@rm -f $(TIMES)
	$(TIMED) builds $(MAKE) --no-print-directory -j3 --output-sync=target debug-checks bench-build fuzz-build
	$(TIMED) scenarios env INTERPAYD="$(RELEASE_BIN)/interpayd" INTERPAY="$(RELEASE_BIN)/interpay" \
		$(RUN_SCENARIOS) -j $(SCENARIO_JOBS) $(SCENARIOS)
	$(TIMED) install $(MAKE) --no-print-directory test-install
	$(TIMED) fuzz $(MAKE) --no-print-directory test-fuzz
	$(TIMED) bench-smoke $(MAKE) --no-print-directory bench-smoke-run
	@echo "make test: all checks passed"
	@scripts/timed --report $(TIMES)

debug-checks: build-tests
	$(TIMED) +swift-tests $(SWIFT_TESTS)
	$(TIMED) +vectors $(PYTHON) scripts/check-vectors.py
	$(TIMED) +lint-scripts $(MAKE) --no-print-directory lint-scripts
	$(TIMED) +lint $(MAKE) --no-print-directory lint

scenarios: build-tests ## every integration scenario, SCENARIO_JOBS at once (IntegrationTests/run NAME runs one)
	$(RUN_SCENARIOS) -j $(SCENARIO_JOBS) $(SCENARIOS)

# The soak run (IntegrationTests/scenarios/soak.bash): five sandbox daemons under steady traffic, a hostile host,
# link cuts, kill -9 restarts and an avahi restart; `make test` runs it for 3 minutes, `make soak` for SOAK_SECONDS.
SOAK_SECONDS ?= 1800
soak: build-tests ## the soak run for SOAK_SECONDS (default 1800): ledgers agree, no crash, no upward trend, a plot
	SOAK_SECONDS=$(SOAK_SECONDS) IntegrationTests/scenarios/soak.bash

# Memory under session churn (scripts/session-churn): one daemon on 127.0.0.1, CHURN_SESSIONS sessions opened and
# dropped (half under one key, half under fresh keys), then a minute's wait; fails when RSS ends more than 5 MiB above
# its level before. About 4 minutes; not part of `make test`.
CHURN_SESSIONS ?= 20000
churn: build-tests ## memory under session churn: RSS back within 5 MiB a minute after CHURN_SESSIONS sessions
	$(PYTHON) scripts/session-churn --daemon .build/debug/interpayd --cli .build/debug/interpay \
		--sessions $(CHURN_SESSIONS) --heap

test-swift: build-tests ## the Swift test suites (no network needed)
	$(SWIFT_TESTS)

test-vectors: deps ## validate protocol/vectors against protocol/schema with jsonschema
	$(PYTHON) scripts/check-vectors.py

test-sandbox: deps ## two simulated LAN hosts: avahi-publish on one is resolved on the other; clean teardown
	IntegrationTests/scenarios/sandbox-selftest.bash

test-discovery-swift: build-tests ## libdns_sd and InterPayDiscovery against real avahi-daemons in sandbox hosts
	IntegrationTests/scenarios/discovery-swift.bash

test-discovery: build-tests ## real interpayd processes in sandbox hosts: discovery, sessions, keys, impostor, avahi restart
	IntegrationTests/scenarios/discovery.bash

test-payments: build-tests ## two daemons on two sandbox hosts driven through the real CLI
	IntegrationTests/scenarios/payments.bash

test-web: build-tests ## the web app in headless chromium on two sandbox hosts (Selenium), and its access checks
	IntegrationTests/scenarios/web.bash

test-notifications: build-tests ## desktop notifications on a private session bus: a request told, Accept on it accepts
	IntegrationTests/scenarios/notifications.bash

test-receipts: build-tests ## settlement and signed receipts through the real CLI; verify-receipt on a host with no daemon
	IntegrationTests/scenarios/receipts.bash

test-subscriptions: build-tests ## subscriptions through the real CLI: standing approval, cap, unsubscribe, restart, SIGKILL
	IntegrationTests/scenarios/subscriptions.bash

test-bad-input: build-tests ## junk, broken frames and JSON-RPC, replays and the local limits against running daemons
	IntegrationTests/scenarios/bad-input.bash

test-hostile: build-tests ## a peer with its own keys attacks real daemons: one scenario per finding of SECURITY.md
	IntegrationTests/scenarios/hostile.bash

test-crash: build-tests ## SIGKILL and restart the receiving, then the sending daemon during 1,000 sends; ledgers agree
	IntegrationTests/scenarios/crash.bash

test-partition: build-tests ## cut the link between two sandbox hosts during requests and decisions; ledgers agree
	IntegrationTests/scenarios/partition.bash

test-service: build-tests ## sd_notify (READY after the control socket, WATCHDOG, STOPPING), SIGTERM, config errors
	IntegrationTests/scenarios/service.bash

# `make bench`: every figure of docs/performance.md in one run, on release builds. `make bench-smoke` (part of
# `make test`) runs each benchmark for a few iterations so that none can rot; it checks that they run, not how fast.
RELEASE_BIN = $$($(SWIFT_RELEASE) --show-bin-path)
BENCH_LAN = scripts/bench-lan --daemon "$(RELEASE_BIN)/interpayd" --cli "$(RELEASE_BIN)/interpay" \
	--bench "$(RELEASE_BIN)/interpay-bench" --json
BENCH_DAEMON = scripts/bench-daemon --daemon "$(RELEASE_BIN)/interpayd" --engine-bench "$(RELEASE_BIN)/interpay-bench" --runs 3 --json

# One release build of every target of the package (interpayd, interpay, interpay-bench, CoreBenchmarks,
# cli-parse-floor): one SwiftPM invocation plans once and compiles the products side by side, where one per product
# took 15 s each just to find what to do and compiled each product's own modules only after the one before had linked.
bench-build: deps
	scripts/check-warnings $(SWIFT_RELEASE)
	$(SWIFT_RELEASE) --product generate-manual

bench: bench-build deb ## every benchmark on release builds: engine vs baselines, daemon, LAN figures, .deb size, micro
	$(BENCH_LAN) --deb $(DEB_DIR)/interpay_$(DEB_VERSION)_amd64.deb >.build/bench-lan.json || true
	$(BENCH_DAEMON) >.build/bench-daemon.json || echo '{"figures": []}' >.build/bench-daemon.json
	"$(RELEASE_BIN)/interpay-bench" --merge .build/bench-lan.json --merge .build/bench-daemon.json
	$(MAKE) --no-print-directory bench-micro

bench-smoke: bench-build ## a few iterations of every benchmark (engine, LAN, micro): they still run (not how fast)
	$(MAKE) --no-print-directory bench-smoke-run

# The smoke runs on what `make bench-build` made, without asking SwiftPM again: `make test` builds in its first step,
# and a release build with nothing to do still takes SwiftPM about 15 s per product to find that out.
bench-smoke-run:
	$(BENCH_LAN) --smoke >.build/bench-lan.json
	$(BENCH_DAEMON) --smoke >.build/bench-daemon.json
	"$(RELEASE_BIN)/interpay-bench" --smoke --merge .build/bench-lan.json --merge .build/bench-daemon.json
	$(MAKE) --no-print-directory bench-micro-smoke-run

# Not part of `make test`: timings depend on the machine. BENCH_ARGS=--smoke for a 1-2 minute run, --json for
# one JSON object.
BENCH_ARGS ?=
bench-lan: deps ## process-level benchmarks of release daemons (discovery, CLI, RSS, scale, static mesh) against baselines
	$(SWIFT_RELEASE) --product interpayd
	$(SWIFT_RELEASE) --product interpay
	$(SWIFT_RELEASE) --product interpay-bench
	$(SWIFT_RELEASE) --product cli-parse-floor
	scripts/bench-lan --daemon "$(RELEASE_BIN)/interpayd" --cli "$(RELEASE_BIN)/interpay" \
		--bench "$(RELEASE_BIN)/interpay-bench" $(BENCH_ARGS)

# One daemon per simulated host: LAN_HOSTS sandbox hosts on one segment, each with its own avahi-daemon, started at
# once; the time to a full mesh next to the avahi baseline of the same run, the sessions per daemon, CPU, and one
# daemon with MANY_PEERS sessions at rest; MESH_DAEMONS daemons without discovery against the handshakes' CPU. Part of
# `make bench`.
LAN_HOSTS ?= 10 25 50 100
MANY_PEERS ?= 200
MESH_DAEMONS ?= 100
bench-lan-hosts: deps ## K sandbox hosts, one daemon each (LAN_HOSTS=10 25 50 100): full mesh vs avahi, CPU; 200 peers; 100 static
	$(SWIFT_RELEASE) --product interpayd
	$(SWIFT_RELEASE) --product interpay
	$(SWIFT_RELEASE) --product interpay-bench
	scripts/bench-lan --daemon "$(RELEASE_BIN)/interpayd" --cli "$(RELEASE_BIN)/interpay" \
		--bench "$(RELEASE_BIN)/interpay-bench" --only hosts --only many --only mesh \
		--host-sizes $(LAN_HOSTS) --many-peers $(MANY_PEERS) --mesh-daemons $(MESH_DAEMONS) $(BENCH_ARGS)

fuzz: deps ## libFuzzer on frames and control requests, FUZZ_SECONDS (300) each; failing inputs in fuzz-artifacts/
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz

test-fuzz: deps ## each libFuzzer target for 60 s; fails on a crash, hang or leak
	FUZZ_SECONDS=60 scripts/fuzz

fuzz-build: deps
	scripts/fuzz --build-only

demo: build ## a narrated payment between two simulated LAN hosts
	scripts/demo

# Micro benchmarks of InterPayCore and of one engine step (package-benchmark, the CoreBenchmarks target in
# Benchmarks/). Results are per operation: time, throughput and mallocs. `make bench-micro` runs them through
# package-benchmark's plugin, whose release build lacks -static-stdlib: it gets a scratch directory of its own so
# that it does not recompile .build-release back and forth. The smoke run (part of `make test`) runs the binary that
# `make bench-build` links from the shared release build, a few iterations each.
bench-micro: ## micro benchmarks (frame codec, money, peer ID, lifecycle, engine step), about 2 minutes after the build
	$(SWIFT) package --scratch-path .build/bench-micro benchmark --no-progress

bench-micro-smoke: bench-build ## every micro benchmark for a few iterations: checks that they run, numbers are meaningless
	$(MAKE) --no-print-directory bench-micro-smoke-run

bench-micro-smoke-run:
	INTERPAY_BENCH_SMOKE=1 "$(RELEASE_BIN)/CoreBenchmarks" >.build/bench-micro-smoke.log 2>&1 || \
		{ tail -n 40 .build/bench-micro-smoke.log; exit 1; }
	@echo "bench-micro-smoke: $$(grep -c '^Debug results for' .build/bench-micro-smoke.log) micro benchmarks ran" \
		"(.build/bench-micro-smoke.log)"

format: ## format Swift sources in place with swift-format
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

# Every bash script of scripts/ and IntegrationTests/ (found by its first line), and the scenarios' shared harness,
# which they source (-x follows it); settings in .shellcheckrc.
LINT_SCRIPTS = $$(grep -l -m1 '^\#!/usr/bin/env bash' scripts/* IntegrationTests/run IntegrationTests/scenarios/* 2>/dev/null) \
	IntegrationTests/lib/harness.bash
lint-scripts: deps ## shellcheck on every shell script (part of make check and make test)
	shellcheck -x $(LINT_SCRIPTS)

lint: ## report formatting issues without changing files (part of make check and make test)
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

release: deps ## optimised builds of interpayd and interpay (what make install installs); fails on a warning
	scripts/check-warnings $(SWIFT_RELEASE) --product interpayd
	scripts/check-warnings $(SWIFT_RELEASE) --product interpay

# Units for BINDIR, man pages (swift-argument-parser's generate-manual, the tool behind its GenerateManual plugin,
# run on the release binaries) and shell completions (the binaries' --generate-completion-script).
stage: release
	$(SWIFT_RELEASE) --product generate-manual
	rm -rf $(STAGE)
	mkdir -p $(STAGE)/user $(STAGE)/man $(STAGE)/completions
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/interpayd.service >$(STAGE)/interpayd.service
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/user/interpayd.service >$(STAGE)/user/interpayd.service
	set -e; bin=$$($(SWIFT_RELEASE) --show-bin-path); \
	for tool in interpayd interpay; do \
		"$$bin/generate-manual" "$$bin/$$tool" --date $(MAN_DATE) --output-directory $(STAGE)/man; \
		for shell in bash zsh fish; do \
			"$$bin/$$tool" --generate-completion-script $$shell >$(STAGE)/completions/$$tool.$$shell; \
		done; \
	done

# The man pages also live in the repository (docs/interpay.1, docs/interpayd.1), so that `man ./docs/interpay.1`
# works before installing; `make test-install` fails when they differ from what the binaries generate.
man: build ## regenerate docs/interpay.1 and docs/interpayd.1 from the binaries' help
	$(SWIFT) build --product generate-manual
	set -e; for tool in interpayd interpay; do \
		.build/debug/generate-manual .build/debug/$$tool --date $(MAN_DATE) --output-directory docs; \
	done

install: stage ## install binaries, systemd units, man pages, completions into $(DESTDIR)$(PREFIX) (default /usr/local)
	set -e; bin=$$($(SWIFT_RELEASE) --show-bin-path); \
	install -D -m 0755 "$$bin/interpayd" "$(DESTDIR)$(BINDIR)/interpayd"; \
	install -D -m 0755 "$$bin/interpay" "$(DESTDIR)$(BINDIR)/interpay"
	install -D -m 0644 $(STAGE)/interpayd.service "$(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/interpayd.service"
	install -D -m 0644 $(STAGE)/user/interpayd.service "$(DESTDIR)$(SYSTEMDUSERUNITDIR)/interpayd.service"
	install -D -m 0644 systemd/sysusers.d/interpay.conf "$(DESTDIR)$(SYSUSERSDIR)/interpay.conf"
	install -D -m 0644 systemd/tmpfiles.d/interpay.conf "$(DESTDIR)$(TMPFILESDIR)/interpay.conf"
	install -D -m 0644 config/interpayd.toml "$(DESTDIR)$(DOCDIR)/examples/interpayd.toml"
	install -D -m 0644 $(STAGE)/man/interpayd.1 "$(DESTDIR)$(MANDIR)/man1/interpayd.1"
	install -D -m 0644 $(STAGE)/man/interpay.1 "$(DESTDIR)$(MANDIR)/man1/interpay.1"
	install -D -m 0644 $(STAGE)/completions/interpayd.bash "$(DESTDIR)$(BASHCOMPDIR)/interpayd"
	install -D -m 0644 $(STAGE)/completions/interpay.bash "$(DESTDIR)$(BASHCOMPDIR)/interpay"
	install -D -m 0644 $(STAGE)/completions/interpayd.zsh "$(DESTDIR)$(ZSHCOMPDIR)/_interpayd"
	install -D -m 0644 $(STAGE)/completions/interpay.zsh "$(DESTDIR)$(ZSHCOMPDIR)/_interpay"
	install -D -m 0644 $(STAGE)/completions/interpayd.fish "$(DESTDIR)$(FISHCOMPDIR)/interpayd.fish"
	install -D -m 0644 $(STAGE)/completions/interpay.fish "$(DESTDIR)$(FISHCOMPDIR)/interpay.fish"

uninstall: ## remove what make install installed (same PREFIX and DESTDIR)
	rm -f $(foreach file,$(INSTALLED_FILES),"$(DESTDIR)$(file)")
	for dir in "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)"; do \
		[ ! -d "$$dir" ] || rmdir --ignore-fail-on-non-empty "$$dir"; \
	done

# The Debian package, built by debian/rules (debhelper) from `make stage` and `make install PREFIX=/usr`.
DEB_VERSION = $$(dpkg-parsechangelog -S Version)
DEB_DIR := .build/deb

deps-deb: ## install the Debian packages that make deb and make test-deb need (debhelper, lintian, debootstrap, nspawn)
	@scripts/install-deps --deb

deb: deps deps-deb ## build .build/deb/interpay_VERSION_amd64.deb (debian/, debhelper) and check it with lintian
	dpkg-checkbuilddeps
	mkdir -p $(DEB_DIR)
	rm -f $(DEB_DIR)/interpay_*.deb
	debian/rules clean
	debian/rules binary DEB_DESTDIR=$(CURDIR)/$(DEB_DIR) SWIFT="$(SWIFT)" SWIFT_RELEASE_FLAGS="$(SWIFT_RELEASE_FLAGS)"
	debian/rules clean
	lintian --fail-on error $(DEB_DIR)/interpay_$(DEB_VERSION)_amd64.deb
	@echo "deb: $(DEB_DIR)/interpay_$(DEB_VERSION)_amd64.deb"

test-deb: deb ## the .deb on a fresh Debian 12 (debootstrap, cached) booted with systemd-nspawn: service, CLI, a payment
	IntegrationTests/scenarios/deb.bash $(DEB_DIR)/interpay_$(DEB_VERSION)_amd64.deb

test-install: ## make install into a scratch DESTDIR: tree, units (verify, security exposure), uninstall
	scripts/check-install

clean:
	rm -rf .build .build-release .build-fuzz
