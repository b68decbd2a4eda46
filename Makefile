# InterPay — build, test and format. `make test` sets up a fresh Debian machine by itself (run as root).
SWIFT ?= swift
PYTHON ?= python3
SANDBOX := scripts/lan-sandbox

.PHONY: all deps build build-tests test test-swift test-vectors test-sandbox test-discovery-swift test-discovery \
	test-payments test-service demo format lint clean help

all: build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-20s %s\n", $$1, $$2}'

deps: ## install missing Debian packages and Python modules (only what is missing)
	@scripts/install-deps

build: deps ## debug build of every target
	$(SWIFT) build

build-tests: deps
	$(SWIFT) build --build-tests

test: build-tests test-swift test-vectors test-sandbox test-discovery-swift test-discovery test-payments test-service ## everything CI runs
	@echo "make test: all checks passed"

test-swift: build-tests ## the Swift test suites (no network needed)
	$(SWIFT) test --skip-build

test-vectors: deps ## validate protocol/vectors against protocol/schema with jsonschema
	$(PYTHON) scripts/check-vectors.py

test-sandbox: deps ## two simulated LAN hosts: avahi-publish on one is resolved on the other; clean teardown
	scripts/sandbox-selftest

test-discovery-swift: build-tests ## libdns_sd and InterPayDiscovery against real avahi-daemons in sandbox hosts
	scripts/test-discovery-swift

test-discovery: build-tests ## real interpayd processes in sandbox hosts: discovery, sessions, keys, impostor, avahi restart
	scripts/test-discovery

test-payments: build-tests ## two daemons on two sandbox hosts driven through the real CLI
	scripts/test-payments

test-service: build-tests ## sd_notify (READY after the control socket, WATCHDOG, STOPPING), SIGTERM, config errors
	scripts/test-service

demo: build ## a narrated payment between two simulated LAN hosts
	scripts/demo

format: ## format Swift sources in place with swift-format
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint: ## report formatting issues without changing files
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build
