# lib — build, test, demo, benchmark, install.
# The two set-up commands on a fresh Debian 12 machine with Swift 6.3:
#   make demo     installs what is missing, builds, walks through lib's main job
#   make test     installs what is missing, builds, runs every test

SWIFT      ?= swift
PREFIX     ?= /usr/local
DEBUG_BIN   = .build/debug
RELEASE_BIN = .build/release
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: all deps build release test test-only test-postgres test-failover demo bench bench-server stress install install-files install-units deb deb-check generate startup-order clean fuzz fuzz-merge sanitize

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build --build-tests

# Only the programs: the test support targets are not part of a release.
# lib is a static executable (Package.swift); lib-online, which it execs for
# the commands that need the network or the keyring, is dynamic. No
# $ORIGIN run path: nothing they load sits beside them (Debian forbids it).
RELEASE_FLAGS = -c release --static-swift-stdlib --disable-local-rpath
release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product lib
	$(SWIFT) build $(RELEASE_FLAGS) --product lib-online
	$(SWIFT) build $(RELEASE_FLAGS) --product lib-server

# Every test: unit, protocol and end-to-end (against the built binaries).
test: build
	@$(MAKE) --no-print-directory test-only

# The Swift suites include FuzzRegressionTests (every saved fuzz input) and
# OpenAPIDriftTests; then schemathesis checks a live lib-server against
# docs/openapi.yaml (bounded: about 30 s).
test-only:
	LIB_BIN_DIR=$(CURDIR)/$(DEBUG_BIN) scripts/with-test-session.sh $(SWIFT) test --skip-build
	@$(MAKE) --no-print-directory test-postgres
	scripts/schemathesis/run.sh $(CURDIR)/$(DEBUG_BIN)

# lib-server's protocol suite, the write-intent sequences, the waiting
# change feed across two instances and a restore from pg_dump again, on a
# private PostgreSQL cluster.
test-postgres:
	LIB_BIN_DIR=$(CURDIR)/$(DEBUG_BIN) scripts/with-postgres.sh scripts/with-test-session.sh $(SWIFT) test --skip-build --filter "LibServerTests|WriteIntentTests|FeedWatchTests/aChangeOnOneInstanceReachesWatchersOfTheOther|BackupRestoreTests"

# Ten failovers of replicated PostgreSQL (three clusters, synchronous, as
# docs/DEPLOY.md's recipe) under pushes and a pull, then ten with
# asynchronous replication to show what it loses; `make test` runs one.
test-failover: build
	LIB_FAILOVERS=10 LIB_FAILOVER_ASYNC=1 LIB_BIN_DIR=$(CURDIR)/$(DEBUG_BIN) scripts/with-test-session.sh $(SWIFT) test --skip-build --filter FailoverTests

demo: release
	@scripts/with-test-session.sh scripts/demo.sh $(CURDIR)/$(RELEASE_BIN)

bench: release
	@bench/run.sh $(CURDIR)/$(RELEASE_BIN)

# libFuzzer targets (Tests/Fuzz/README.md), FUZZ_SECONDS each; stops at the
# first finding and saves its input under Tests/Fuzz/Regressions/, which
# `make test` replays (FuzzRegressionTests). FUZZ_TARGETS picks some.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_TARGETS)

# Adds the inputs the fuzzers found that reach new code to Tests/Fuzz/Corpus.
fuzz-merge:
	scripts/fuzz.sh --merge $(FUZZ_TARGETS)

# Unit and protocol tests under ThreadSanitizer, then AddressSanitizer.
sanitize: deps
	scripts/sanitize.sh

# lib-server against nginx (wrk): authenticated GETs, mixed reads and writes on SQLite and PostgreSQL.
bench-server: deps
	$(SWIFT) build -c release --product lib-server
	@bench/server.sh $(CURDIR)/$(RELEASE_BIN)

# Long randomized trials, kept out of `make test`.
stress: build
	LIB_STRESS=1 LIB_BIN_DIR=$(CURDIR)/$(DEBUG_BIN) scripts/with-test-session.sh $(SWIFT) test --skip-build

# Regenerates Sources/lib/startup-order.txt, the order the linker lays out
# lib's start-up functions in (run after changing what start-up runs).
startup-order: release
	scripts/startup-order.sh $(CURDIR)/$(RELEASE_BIN)

# Regenerates completions/ and man/ from the registries in the built
# binaries: lib's commands (lib.1, completions), lib-server's flags (lib-server.1).
generate: build
	scripts/generate-docs.sh $(DEBUG_BIN)/lib $(DEBUG_BIN)/lib-server

# install-files copies what INSTALL_BIN holds (the release build by default;
# a test installs the debug build the same way).
INSTALL_BIN ?= $(RELEASE_BIN)
install: release
	@$(MAKE) --no-print-directory install-files

install-files:
	packaging/install.sh --prefix $(PREFIX) --bin $(INSTALL_BIN) --destdir "$(DESTDIR)" lib lib-server

# systemd user units (contrib/systemd), pointed at $(PREFIX)/bin/lib.
install-units:
	packaging/install.sh --prefix $(PREFIX) --destdir "$(DESTDIR)" user-units

# The Debian packages lib and lib-server, from the release build, into
# $(DEB_DIR) (README: Install from packages). lintian must find no error and
# no warning; packaging/debian/*.lintian-overrides say why for the rest.
DEB_DIR ?= $(CURDIR)/.build/deb
deb: release
	packaging/build-debs.sh $(CURDIR)/$(RELEASE_BIN) $(DEB_DIR)
	lintian --fail-on error,warning --info $(DEB_DIR)/*.deb

# Boots a throwaway copy of this machine under systemd (root, systemd-nspawn)
# with the packages installed, and checks lib-server.service really runs.
deb-check: deb
	packaging/service-check.sh $(DEB_DIR)

clean:
	rm -rf .build
