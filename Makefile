# InterPay — build, test and format. `make test` sets up a fresh Debian machine by itself (run as root).
SWIFT ?= swift
PYTHON ?= python3
SANDBOX := scripts/lan-sandbox

.PHONY: all deps build build-tests test test-swift test-vectors test-sandbox test-discovery-link format lint clean help

all: build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-20s %s\n", $$1, $$2}'

deps: ## install missing Debian packages and Python modules (only what is missing)
	@scripts/install-deps

build: deps ## debug build of every target
	$(SWIFT) build

build-tests: deps
	$(SWIFT) build --build-tests

test: build-tests test-swift test-vectors test-sandbox test-discovery-link ## everything CI runs
	@echo "make test: all checks passed"

test-swift: build-tests ## the Swift test suites (no network needed)
	$(SWIFT) test --skip-build

test-vectors: deps ## validate protocol/vectors against protocol/schema with jsonschema
	$(PYTHON) scripts/check-vectors.py

test-sandbox: deps ## two simulated LAN hosts: avahi-publish on one is resolved on the other; clean teardown
	scripts/sandbox-selftest

test-discovery-link: build-tests ## libdns_sd answers inside a sandbox host (DNSServiceBrowse succeeds)
	$(SANDBOX) run --hosts 1 -- $(SANDBOX) exec 1 -- $(SWIFT) test --skip-build --filter CDNSSDTests

format: ## format Swift sources in place with swift-format
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint: ## report formatting issues without changing files
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build
