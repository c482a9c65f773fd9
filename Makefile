# lib — build, test, demo, benchmark, install.
# The two set-up commands on a fresh Debian 12 machine with Swift 6.3:
#   make demo     installs what is missing, builds, walks through lib's main job
#   make test     installs what is missing, builds, runs every test

SWIFT      ?= swift
PREFIX     ?= /usr/local
DEBUG_BIN   = .build/debug
RELEASE_BIN = .build/release
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: all deps build release test test-only test-postgres demo bench bench-server stress install install-files install-units generate startup-order clean fuzz fuzz-merge sanitize

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build --build-tests

# Only the programs: the test support targets are not part of a release.
# lib is a static executable (Package.swift); lib-online, which it execs for
# the commands that need the network or the keyring, is dynamic.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product lib
	$(SWIFT) build -c release --static-swift-stdlib --product lib-online
	$(SWIFT) build -c release --static-swift-stdlib --product lib-server

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

# lib-server's protocol suite and the write-intent sequences again, on a private PostgreSQL cluster.
test-postgres:
	LIB_BIN_DIR=$(CURDIR)/$(DEBUG_BIN) scripts/with-postgres.sh scripts/with-test-session.sh $(SWIFT) test --skip-build --filter "LibServerTests|WriteIntentTests"

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

# Regenerates completions/ and man/ from the registry in the built binary.
generate: build
	scripts/generate-docs.sh $(DEBUG_BIN)/lib

# install-files copies what INSTALL_BIN holds (the release build by default;
# a test installs the debug build the same way).
INSTALL_BIN ?= $(RELEASE_BIN)
install: release
	@$(MAKE) --no-print-directory install-files

install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/lib $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(INSTALL_BIN)/lib $(INSTALL_BIN)/lib-server $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(INSTALL_BIN)/lib-online $(DESTDIR)$(PREFIX)/libexec/lib/lib-online
	install -d $(DESTDIR)$(PREFIX)/share/lib/prompt
	install -m 0644 contrib/prompt/lib-prompt.bash contrib/prompt/lib-prompt.zsh contrib/prompt/lib-prompt.fish \
		contrib/prompt/lib-prompt.p10k.zsh contrib/prompt/starship.toml $(DESTDIR)$(PREFIX)/share/lib/prompt/
	install -m 0644 man/lib.1 $(DESTDIR)$(PREFIX)/share/man/man1/lib.1
	install -m 0644 completions/lib.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lib
	install -m 0644 completions/_lib $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_lib
	install -m 0644 completions/lib.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/lib.fish
	@$(MAKE) --no-print-directory install-units

# systemd user units (contrib/systemd), pointed at $(PREFIX)/bin/lib.
SYSTEMD_USER_UNITS = lib-push.service lib-push-once.service lib-push.timer
install-units:
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/user
	for unit in $(SYSTEMD_USER_UNITS); do \
		sed 's|/usr/local/bin/lib |$(PREFIX)/bin/lib |' contrib/systemd/$$unit > $(DESTDIR)$(PREFIX)/lib/systemd/user/$$unit && \
		chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/user/$$unit || exit 1; \
	done

clean:
	rm -rf .build
