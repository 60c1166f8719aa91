# GateKit: `make demo` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := build

# `make help`: the commands a developer types, each with what it does (CONTRIBUTING.md has
# the habits around them).
define HELP
The two commands:
  make demo            installs what is missing, builds, runs the C example host end to end
  make test            everything CI runs: swift test, the C tests, pytest, the install test,
                       the wheel and Debian packages installed as a user would, the
                       container recipe built, fuzz smoke
While working:
  make build           the debug library and the gatekit tool (what plain `make` does)
  make tool            the gatekit tool (and the library it needs)
  make check           the Swift, C and Python suites with their services (no packages, no fuzz)
  make quick DOMAIN=d  one domain's tests on SQLite after an incremental build (Tests/domains.tsv)
  make mutation        one-line mutants of the rules, each must be killed (MUTANTS=L01,J04 or DOMAIN=d)
  make screenshots     the report's screenshots in docs/images (headless Chromium)
Speed (BENCHMARKS.md):
  make bench           the benchmarks against the release library, each beside its reference
  make bench-floor     the ingestion benchmarks against the floor experiments (bench/floor)
  make launch-order    the order of the functions a first verdict runs, for the linker (scripts/launch-order.py)
Hardening (RELIABILITY.md):
  make fuzz            every fuzz target for FUZZ_SECONDS (default 300) each
  make test-asan       the C tests, the tool and pytest on an ASan+UBSan build
  make test-valgrind   the C tests under valgrind memcheck
  make soak            the memory and 16-thread soaks against the release library
Packages and installing:
  make static          the toolchain-free release library (.build-static)
  make wheel           dist/libgatekit-*.whl (the library, the binding and the tool)
  make deb             dist/*.deb (libgatekit0, libgatekit-dev, gatekit-tools)
  make test-dist       the wheel and the packages installed and run as a user would
  make test-container  examples/Containerfile built and started as written, without an engine
  make install         PREFIX=/usr/local: library, header, pkg-config file, tool, man page
  make clean           removes every build folder
  make help            this list
endef
export HELP

help:
	@echo "$$HELP"

SWIFT   ?= swift
PYTHON  ?= python3
CC      ?= cc
PREFIX  ?= /usr/local
CWARN   := -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE

DEBUG_DIR  := .build/debug
STATIC_SCRATCH := .build-static
STATIC_DIR := $(STATIC_SCRATCH)/release
C_OUT      := .build/c

export PKG_CONFIG_PATH := $(CURDIR)/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
export GATEKIT_FIXTURES ?= $(abspath $(CURDIR)/../shared/fixtures)
export GATEKIT_LIBRARY  ?= $(CURDIR)/$(DEBUG_DIR)/libgatekit.so

GK_CFLAGS = $(shell PKG_CONFIG_PATH=$(PKG_CONFIG_PATH) pkg-config --cflags gatekit)
GK_LIBS   = $(shell PKG_CONFIG_PATH=$(PKG_CONFIG_PATH) pkg-config --libs gatekit)

TOOL_SOURCES := $(wildcard tools/gatekit/*.c)
C_TESTS      := $(patsubst Tests/c/%.c,$(C_OUT)/tests/%,$(wildcard Tests/c/test_*.c))

HEADERS := include/gatekit.h $(wildcard include/gatekit/*.h)
VERSION := $(shell sed -n 's/^\#define GATEKIT_VERSION_STRING "\(.*\)"/\1/p' include/gatekit/common.h)

.PHONY: help quick test-abi test-demo test-stages test-c-local test-c-postgres typecheck test-python-parallel test-python-alone \
        test-swift-sqlite test-swift-postgres mutation launch-order build deps python-deps lib tool static demo test check test-swift test-c test-python test-install test-dist test-container container-base wheel deb bench bench-floor install clean \
        fuzz fuzz-build fuzz-smoke-build test-fuzz-smoke test-asan test-valgrind soak screenshots

deps:
	@scripts/install-deps.sh

# One debug build of the library serves the C tool, the C tests, pytest and `swift test`.
lib: deps
	$(SWIFT) build --product gatekit
	@ln -sfn libgatekit.so $(DEBUG_DIR)/libgatekit.so.0

build: lib tool

tool: lib $(C_OUT)/gatekit $(C_OUT)/gatekit.1

# gatekit(1) and the bash completion, from the tool's own --help texts.
$(C_OUT)/gatekit.1: $(C_OUT)/gatekit scripts/gen-man-and-completion.sh
	@scripts/gen-man-and-completion.sh $(C_OUT)/gatekit $(C_OUT)

$(C_OUT)/gatekit: $(TOOL_SOURCES) $(wildcard tools/gatekit/*.h) $(HEADERS) $(DEBUG_DIR)/libgatekit.so
	@mkdir -p $(C_OUT)
	$(CC) $(CWARN) -O2 -g -o $@ $(TOOL_SOURCES) $(GK_CFLAGS) $(GK_LIBS)

$(C_OUT)/tests/%: Tests/c/%.c Tests/c/check.h Tests/c/jws_signing.h Tests/c/stack_dump.h $(HEADERS) $(DEBUG_DIR)/libgatekit.so
	@mkdir -p $(C_OUT)/tests
	$(CC) $(CWARN) -O1 -g -pthread -o $@ $< $(GK_CFLAGS) $(GK_LIBS)

# The thread-soak test runs the benchmark's soak (it #includes bench/soak_threads.c).
$(C_OUT)/tests/test_thread_soak: bench/soak_threads.c

# Toolchain-free release library (Swift runtime linked in), for `make install` and `make bench`.
# The Swift runtime's C++ runtime is linked in too: `-static-stdlib` names -lstdc++ itself, so a
# folder whose libstdc++.so is a linker script naming libstdc++.a and libgcc_eh.a comes first in
# the search. The library then loads no libstdc++ or libgcc_s (a part of every launch, measured
# in BENCHMARKS.md); exports.map keeps their symbols local, so a C++ host's own are untouched.
STATIC_CXX_DIR := $(STATIC_SCRATCH)/static-cxx
# The order of the functions a first verdict runs, for the linker (Package.swift).
LAUNCH_ORDER := Sources/GateKit/launch-order.txt

static: deps
	@mkdir -p $(STATIC_CXX_DIR)
	@for a in libstdc++.a libgcc_eh.a; do p=$$($(CC) -print-file-name=$$a); \
	  [[ "$$p" == /* ]] || { echo "static: $(CC) finds no $$a (Debian: libstdc++-12-dev)" >&2; exit 1; }; echo "$$p"; done | \
	  { echo "/* make static: the C++ runtime, linked statically */"; echo "INPUT($$(tr '\n' ' '))"; } > $(STATIC_CXX_DIR)/libstdc++.so
	$(SWIFT) build -c release -Xswiftc -static-stdlib --scratch-path $(STATIC_SCRATCH) --product gatekit -Xlinker -L$(CURDIR)/$(STATIC_CXX_DIR)
	@! readelf -d $(STATIC_DIR)/libgatekit.so | grep -E 'NEEDED.*(libstdc|libgcc_s)' || { echo "static: libgatekit still needs a shared C++ runtime" >&2; exit 1; }
	@! nm $(STATIC_DIR)/libgatekit.so | grep -qE '_StringProcessing|_RegexParser' || { echo "static: libgatekit carries the regex modules (a module imports them: Package.swift, noRegexModules)" >&2; exit 1; }
	@total=$$(grep -vc '^#' $(LAUNCH_ORDER)); found=$$(nm $(STATIC_DIR)/libgatekit.so | awk 'NR == FNR { want[$$0] = 1; next } ($$3 in want && !seen[$$3]++) { n++ } END { print n + 0 }' $(LAUNCH_ORDER) -); \
	  [ $$((found * 2)) -ge $$total ] || { echo "static: only $$found of the $$total functions of $(LAUNCH_ORDER) are in libgatekit (renamed since): run make launch-order" >&2; exit 1; }
	@ln -sfn libgatekit.so $(STATIC_DIR)/libgatekit.so.0

# Writes LAUNCH_ORDER anew from the release library (callgrind over the launch check's host),
# then links the library again with it.
launch-order: static
	@$(PYTHON) scripts/launch-order.py $(STATIC_DIR)/libgatekit.so
	@rm -f $(STATIC_DIR)/libgatekit.so  # the list is no input SwiftPM tracks: link again
	@$(MAKE) --no-print-directory static

# DESTDIR stages the tree for packages; LIBDIR is where the library goes (a Debian package
# uses /usr/lib/<multiarch>). Hosts built against a library outside the loader's own folders
# get an rpath to it; in the system folders they need none.
DESTDIR ?=
LIBDIR  ?= $(PREFIX)/lib
INSTALL_PYTHON ?= 1
MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $(CC) -print-multiarch)
RPATH = $(if $(filter /lib /usr/lib /usr/lib/$(MULTIARCH) /lib/$(MULTIARCH),$(LIBDIR)),,-Wl,-rpath,$(LIBDIR))

install: static
	install -d "$(DESTDIR)$(LIBDIR)/pkgconfig" "$(DESTDIR)$(PREFIX)/include" "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 $(STATIC_DIR)/libgatekit.so "$(DESTDIR)$(LIBDIR)/libgatekit.so.$(VERSION)"
	strip --strip-unneeded "$(DESTDIR)$(LIBDIR)/libgatekit.so.$(VERSION)"
	ln -sfn libgatekit.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/libgatekit.so.0"
	ln -sfn libgatekit.so.0 "$(DESTDIR)$(LIBDIR)/libgatekit.so"
	install -d "$(DESTDIR)$(PREFIX)/include/gatekit"
	install -m 0644 include/gatekit.h "$(DESTDIR)$(PREFIX)/include/gatekit.h"
	install -m 0644 include/gatekit/*.h "$(DESTDIR)$(PREFIX)/include/gatekit/"
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@RPATH@|$(if $(RPATH),$(RPATH) ,)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  pkgconfig/gatekit.pc.in > "$(DESTDIR)$(LIBDIR)/pkgconfig/gatekit.pc"
	$(CC) $(CWARN) -O2 -o "$(DESTDIR)$(PREFIX)/bin/gatekit" $(TOOL_SOURCES) -I"$(DESTDIR)$(PREFIX)/include" -L"$(DESTDIR)$(LIBDIR)" $(RPATH) -lgatekit
	install -d "$(DESTDIR)$(PREFIX)/share/man/man1" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions"
	LD_LIBRARY_PATH="$(DESTDIR)$(LIBDIR)" scripts/gen-man-and-completion.sh "$(DESTDIR)$(PREFIX)/bin/gatekit" "$(DESTDIR)$(PREFIX)/share/man/man1"
	mv "$(DESTDIR)$(PREFIX)/share/man/man1/gatekit.bash" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/gatekit"
	@[ "$(INSTALL_PYTHON)" = 1 ] || exit 0; \
	  site=$$($(PYTHON) -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", vars={"base": sys.argv[1], "platbase": sys.argv[1]}))' "$(PREFIX)") && \
	  (cd python && find gatekit -name '*.py' -o -name py.typed) | while read -r f; do \
	    install -D -m 0644 "python/$$f" "$(DESTDIR)$$site/$$f" || exit 1; done && \
	  ln -sfn "$$($(PYTHON) -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$(LIBDIR)/libgatekit.so.0" "$$site/gatekit")" "$(DESTDIR)$$site/gatekit/libgatekit.so.0" && \
	  echo "installed the Python package in $(DESTDIR)$$site"

# Packages, into dist/: the Python wheel that carries the library (distribution libgatekit,
# import name gatekit) and the Debian packages libgatekit0, libgatekit-dev, gatekit-tools.
DIST_DIR := dist

wheel: static
	@scripts/build-wheel.sh $(STATIC_DIR)/libgatekit.so $(DIST_DIR)

deb: static
	@rm -rf $(C_OUT)/deb-tree
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(C_OUT)/deb-tree PREFIX=/usr LIBDIR=/usr/lib/$(MULTIARCH) INSTALL_PYTHON=0 >/dev/null
	@scripts/build-deb.sh $(C_OUT)/deb-tree $(DIST_DIR)

# Installs both as a user would (a fresh virtualenv with a clean environment; apt-get install
# of the .debs), runs the README's programs with them, then removes the packages.
test-dist: wheel deb
	@scripts/test-dist.sh $(DIST_DIR)

# examples/Containerfile built and started as written, with no container engine (none runs on
# the CI machine): its base debootstrapped once into CONTAINER_BASE, its steps in a chroot
# (scripts/test-container-recipe.py). Root and Debian's mirror: make test runs it.
CONTAINER_BASE := $(C_OUT)/container-base

CONTAINER_TEST := $(PYTHON) scripts/test-container-recipe.py --base $(CONTAINER_BASE)

container-base:
	@$(CONTAINER_TEST) --base-only

test-container: wheel deb
	@$(CONTAINER_TEST)

bench: static python-deps
	@scripts/with-postgres.sh scripts/with-desktop-session.sh scripts/with-appstore-standin.sh scripts/with-play-standin.sh bench/run.sh $(STATIC_DIR)/libgatekit.so

# Issue 29's floor: the ingestion benchmarks against this library and two experiment builds
# that write less (bench/floor/*.patch); see BENCHMARKS.md, "The floor of one call per item".
bench-floor: static
	@scripts/with-postgres.sh bench/floor.sh $(STATIC_DIR)/libgatekit.so

test-install:
	@rm -rf $(C_OUT)/install-test && $(MAKE) --no-print-directory install PREFIX=$(CURDIR)/$(C_OUT)/install-test >/dev/null
	@scripts/test-install.sh $(CURDIR)/$(C_OUT)/install-test

demo: build
	@scripts/demo.sh $(C_OUT)/gatekit

# The suites run against a private PostgreSQL server too (scripts/with-postgres.sh starts and
# stops it) and against local HTTPS stand-ins on loopback of the App Store Server API
# (scripts/with-appstore-standin.sh), of Google's Play endpoints (scripts/with-play-standin.sh) and of
# Stripe's API (scripts/with-stripe-standin.sh). GATEKIT_REQUIRE_POSTGRES, _DESKTOP (the private
# D-Bus session of the portal tests), _APPSTORE, _PLAY and _STRIPE make a missing service a failure,
# never a skip.
WITH_SERVICES := GATEKIT_REQUIRE_POSTGRES=1 GATEKIT_REQUIRE_DESKTOP=1 GATEKIT_REQUIRE_APPSTORE=1 GATEKIT_REQUIRE_BROWSER=1 \
                 GATEKIT_REQUIRE_PLAY=1 GATEKIT_REQUIRE_STRIPE=1 scripts/with-postgres.sh scripts/with-appstore-standin.sh \
                 scripts/with-play-standin.sh scripts/with-stripe-standin.sh

test: build python-deps
	$(WITH_SERVICES) $(MAKE) --no-print-directory test-stages

# Three stages, each in two lanes on the two cores; what runs beside writes a log, shown when it
# fails and summed up when it passes:
# 1. the ABI check, the demo and swift test on SQLite; beside: mypy.
# 2. pytest on three workers; beside: the Swift contract suites on PostgreSQL, then the release
#    library (test-install, test-dist).
# 3. the install and package tests; beside: the C tests on SQLite against stand-ins of their own
#    (pytest sets its stand-ins' worlds: not beside it); the pytest tests that restart the
#    PostgreSQL server, then the C tests on PostgreSQL; and the fuzz smoke's build and run, then
#    the container recipe's base (its test follows the packages' in the main lane).
BESIDE_SWIFT_LOG  := $(C_OUT)/beside-swift.log
BESIDE_PYTEST_LOG := $(C_OUT)/beside-pytest.log
BESIDE_PG_LOG     := $(C_OUT)/beside-postgres.log
BESIDE_FUZZ_LOG   := $(C_OUT)/beside-fuzz.log
BESIDE_C_LOG      := $(C_OUT)/beside-c.log

# Waits for the lane started beside (its pid in $$beside), then exits with the stage's status:
# $(1) the lane's log, $(2) what it ran.
define wait_beside
if wait $$beside; then grep -E ' passed|^Success|^fuzz: ' $(1) | tail -3; \
else tail -40 $(1); echo "make test: $(2) failed (log: $(1))" >&2; exit 1; fi
endef

# A stage's time, and its main lane's (the rest was the wait for the lane beside it).
define stage_took
echo "make test: stage $(1) took $$SECONDS s (its main lane $$main s)"
endef

test-stages:
	@mkdir -p $(C_OUT)
	@$(MAKE) --no-print-directory typecheck > $(BESIDE_SWIFT_LOG) 2>&1 & beside=$$!; \
	  $(MAKE) --no-print-directory test-abi test-demo test-swift-sqlite; status=$$?; main=$$SECONDS; \
	  $(call wait_beside,$(BESIDE_SWIFT_LOG),mypy beside swift test); $(call stage_took,1); exit $$status
	@{ $(MAKE) --no-print-directory test-swift-postgres && $(MAKE) --no-print-directory static; } > $(BESIDE_PYTEST_LOG) 2>&1 & beside=$$!; \
	  $(MAKE) --no-print-directory test-python-parallel; \
	  status=$$?; main=$$SECONDS; $(call wait_beside,$(BESIDE_PYTEST_LOG),the Swift suites on PostgreSQL or the builds beside pytest); \
	  $(call stage_took,2); exit $$status
	@$(MAKE) --no-print-directory $(C_TESTS) tool  # built once, before two lanes run them
	@$(MAKE) --no-print-directory test-python-alone test-c-postgres > $(BESIDE_PG_LOG) 2>&1 & pg=$$!; \
	  scripts/with-appstore-standin.sh scripts/with-play-standin.sh scripts/with-stripe-standin.sh \
	    $(MAKE) --no-print-directory test-c-local > $(BESIDE_C_LOG) 2>&1 & clocal=$$!; \
	  $(MAKE) --no-print-directory test-fuzz-smoke container-base > $(BESIDE_FUZZ_LOG) 2>&1 & beside=$$!; \
	  $(MAKE) --no-print-directory test-install test-dist; status=$$?; \
	  $(call wait_beside,$(BESIDE_FUZZ_LOG),the fuzz smoke or the container base beside the package tests); \
	  if [ $$status -eq 0 ]; then $(CONTAINER_TEST) > $(C_OUT)/container.log 2>&1 && grep '^container' $(C_OUT)/container.log \
	    || { status=1; tail -30 $(C_OUT)/container.log; echo "make test: the container recipe failed (log: $(C_OUT)/container.log)" >&2; }; fi; \
	  main=$$SECONDS; \
	  beside=$$clocal; $(call wait_beside,$(BESIDE_C_LOG),the C tests on SQLite); \
	  beside=$$pg; $(call wait_beside,$(BESIDE_PG_LOG),the PostgreSQL restart test or the C tests on PostgreSQL); \
	  $(call stage_took,3); exit $$status

# The report's screenshots in docs/images, made by its browser test (headless Chromium).
screenshots: build python-deps
	cd python && GATEKIT_REQUIRE_BROWSER=1 GATEKIT_SCREENSHOTS=$(CURDIR)/docs/images $(PYTHON) -m pytest -q tests/test_report_browser.py

# The README's other command, as part of the tests: a demo that breaks fails `make test`.
test-demo: build
	@scripts/demo.sh $(C_OUT)/gatekit > $(C_OUT)/demo.log 2>&1 || { tail -20 $(C_OUT)/demo.log; echo "make test: make demo failed (the whole run: $(C_OUT)/demo.log)" >&2; exit 1; }
	@echo "demo: 1 passed, 0 failed"

# The inner loop: the Swift, C and Python suites, without the install test and fuzzing
# (about a minute warm). `make test` is the full run CI does.
check: build python-deps
	$(WITH_SERVICES) $(MAKE) --no-print-directory test-abi test-swift test-c test-python

# One domain's Swift, C and Python tests on SQLite (Tests/domains.tsv), after an incremental
# build: the fast loop while changing a rule. DOMAIN=ledger, receipts, jws, eula, …
quick: deps
	@scripts/quick.sh $(DOMAIN)

# One-line mutants of the library's rules (Tests/mutation/mutants.tsv), each rebuilt and run
# against its domain's Swift suites: every mutant must be killed by an assertion. Not part of
# `make test` (a rebuild per mutant); MUTANTS=L01,J04 or DOMAIN=ledger to run some.
mutation: deps
	@$(PYTHON) Tests/mutation/run.py $(if $(MUTANTS),--only $(MUTANTS)) $(if $(DOMAIN),--domain $(DOMAIN))

# The store-contract suites again on PostgreSQL, directly and through the test PgBouncer
# (Tests/GateKitCoreTests/TestSupport.swift: TestStores).
SWIFT_CONTRACT_SUITES := EULAGateTests|EULAConsentTests|EULAPublicationTests|PermissionTests|PermissionWatcherTests|LedgerStoreTests|LedgerLivesTests|LedgerModelLivesTests|LedgerSyncTests|AppAccountTests|ChangeFeedTests|LedgerMetricsTests|PlayLedgerLivesTests|PlayMetricsTests|PlayMigrationTests|StripeLedgerLivesTests|SupportGrantTests

test-swift: test-swift-sqlite test-swift-postgres

test-swift-sqlite:
	@mkdir -p $(C_OUT)
	$(SWIFT) test 2>&1 | tee $(C_OUT)/swift-test.log; exit $${PIPESTATUS[0]}

test-swift-postgres:
	@set -e; if [ -n "$$GATEKIT_TEST_POSTGRES" ]; then \
	  echo "== swift test: $(SWIFT_CONTRACT_SUITES) on PostgreSQL"; \
	  GATEKIT_TEST_BACKEND=postgresql $(SWIFT) test --skip-build --filter '$(SWIFT_CONTRACT_SUITES)' 2>&1 | tee $(C_OUT)/swift-test-postgres.log; test $${PIPESTATUS[0]} = 0; \
	  echo "== swift test: the same through PgBouncer in transaction mode (pool of 4), hearing commits on a direct listen connection"; \
	  GATEKIT_TEST_BACKEND=postgresql GATEKIT_TEST_POSTGRES_LISTEN="$$GATEKIT_TEST_POSTGRES" GATEKIT_TEST_POSTGRES="$$GATEKIT_TEST_POSTGRES_POOLED" \
	    $(SWIFT) test --skip-build --filter '$(SWIFT_CONTRACT_SUITES)' 2>&1 | tee -a $(C_OUT)/swift-test-postgres.log; exit $${PIPESTATUS[0]}; \
	elif [ "$$GATEKIT_REQUIRE_POSTGRES" = 1 ]; then echo "test-swift: GATEKIT_REQUIRE_POSTGRES=1 but no server" >&2; exit 1; \
	else echo "SKIP: the Swift contract suites on PostgreSQL (no GATEKIT_TEST_POSTGRES; make test starts a server)"; fi

# The contract tests again on PostgreSQL, directly and through the test PgBouncer (Tests/c/check.h: check_store_open).
C_CONTRACT_TESTS := $(C_OUT)/tests/test_eula $(C_OUT)/tests/test_perm $(C_OUT)/tests/test_ledger $(C_OUT)/tests/test_ledger_sync \
                    $(C_OUT)/tests/test_fork

test-c: test-c-local test-c-postgres

# The C tests on SQLite, the exports and the symbols: nothing of the PostgreSQL server. The
# faults test (two minutes of killed processes and damaged files) runs beside the others.
C_SLOW_TESTS := $(C_OUT)/tests/test_store_faults
test-c-local: $(C_TESTS) tool
	@{ for t in $(C_SLOW_TESTS); do echo "== $$t"; GATEKIT_TOOL=$(CURDIR)/$(C_OUT)/gatekit $$t || exit 1; done; } > $(C_OUT)/c-slow.log 2>&1 & beside=$$!; \
	  for t in $(filter-out $(C_SLOW_TESTS),$(C_TESTS)); do echo "== $$t"; GATEKIT_TOOL=$(CURDIR)/$(C_OUT)/gatekit $$t || { wait $$beside; exit 1; }; done; \
	  if wait $$beside; then cat $(C_OUT)/c-slow.log; else cat $(C_OUT)/c-slow.log; echo "test-c-local: $(C_SLOW_TESTS) failed" >&2; exit 1; fi
	@scripts/check-exports.sh $(DEBUG_DIR)/libgatekit.so include/gatekit.h
	@scripts/check-symbols.sh $(DEBUG_DIR)/libgatekit.so

test-c-postgres: $(C_TESTS) tool
	@set -e; if [ -n "$$GATEKIT_TEST_POSTGRES" ]; then \
	  for t in $(C_CONTRACT_TESTS); do echo "== $$t (PostgreSQL)"; GATEKIT_TEST_BACKEND=postgresql GATEKIT_TOOL=$(CURDIR)/$(C_OUT)/gatekit $$t; done; \
	  for t in $(C_CONTRACT_TESTS); do echo "== $$t (PostgreSQL through PgBouncer, no listen connection)"; \
	    GATEKIT_TEST_BACKEND=postgresql GATEKIT_TEST_POSTGRES="$$GATEKIT_TEST_POSTGRES_POOLED" GATEKIT_TOOL=$(CURDIR)/$(C_OUT)/gatekit $$t; done; \
	elif [ "$$GATEKIT_REQUIRE_POSTGRES" = 1 ]; then echo "test-c: GATEKIT_REQUIRE_POSTGRES=1 but no server" >&2; exit 1; \
	else echo "SKIP: the C contract tests on PostgreSQL (no GATEKIT_TEST_POSTGRES; make test starts a server)"; fi

# The generated ABI files are current and the header's conventions hold (scripts/gen-abi.py):
# first, so a stale list or a broken rule stops the run before any suite.
test-abi:
	@$(PYTHON) scripts/gen-abi.py check

python-deps:
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r python/requirements-test.txt

# pytest's tests mostly wait (on servers, subprocesses, clocks): three workers (pytest-xdist)
# overlap the waits; tests that set a stand-in's one world share a worker (conftest.py,
# SHARED_WORLDS) and those marked `alone` (a server restart, in ALONE_TESTS) run by themselves.
PYTEST_WORKERS ?= 3
ALONE_TESTS    := tests/test_postgres.py
test-python: build python-deps typecheck test-python-parallel test-python-alone

# No build of their own: `make test` runs them beside `swift test` (one SwiftPM at a time).
typecheck: python-deps
	cd python && $(PYTHON) -m mypy --strict --cache-dir ../.build/mypy gatekit ../examples/*.py

test-python-parallel: python-deps
	cd python && $(PYTHON) -m pytest -q -rs --durations=25 -n $(PYTEST_WORKERS) --dist loadgroup -m 'not alone' tests

# They crash the server they run on: a fresh one of their own, whose recovery replays only their
# writes (on the server every suite shared, a restart under load once outlasted pg_ctl's 60 s).
test-python-alone: python-deps
	cd python && ../scripts/with-postgres.sh $(PYTHON) -m pytest -q -rs -m alone $(ALONE_TESTS)

# ---- Hardening: fuzzing, sanitizers, leaks, soak. See RELIABILITY.md. ----
FUZZ_SECONDS       ?= 300
FUZZ_SMOKE_SECONDS ?= 6
FUZZ_TARGETS       ?=
FUZZ_BIN     := .build/fuzz/gatekit-fuzz
FUZZ_SOURCES := $(shell find Sources/GateKitCore Fuzz/Targets -name '*.swift')

# The smoke's binary: the same sources at -Onone (a minute of build instead of three and a half,
# for seconds of fuzzing per target).
FUZZ_SMOKE_BIN := .build/fuzz-smoke/gatekit-fuzz
$(FUZZ_BIN) $(FUZZ_SMOKE_BIN): $(FUZZ_SOURCES) Fuzz/build.sh
	@set -o pipefail; FUZZ_OPT=$(if $(filter $(FUZZ_SMOKE_BIN),$@),-Onone,-O) Fuzz/build.sh $@ 2>&1 | { grep -v 'Cannot export local symbol' || true; }

fuzz-build: deps $(FUZZ_BIN)

fuzz-smoke-build: deps $(FUZZ_SMOKE_BIN)

# C tests + tool (ASan+UBSan) and pytest (ASan runtime preloaded) on an ASan build of the library.
test-asan: deps
	@scripts/test-asan.sh

# C tests under valgrind memcheck: definite leaks and memory errors fail.
test-valgrind: $(C_TESTS) tool
	@scripts/install-deps.sh valgrind
	@scripts/test-valgrind.sh $(C_TESTS)

# Memory soak (SOAK_CALLS receipt validations + as many JWS verifications, RSS curve) and the
# 16-thread soak (SOAK_SECONDS) against the release library; results in .build/bench/soak.md.
SOAK_CALLS   ?= 1000000
SOAK_SECONDS ?= 300
soak: static
	@mkdir -p .build/bench
	@flags="$$(pkg-config --define-variable=libdir=$(CURDIR)/$(STATIC_DIR) --cflags --libs gatekit)"; \
	  $(CC) $(CWARN) -O2 -o .build/bench/soak bench/soak.c $$flags && \
	  $(CC) $(CWARN) -O2 -pthread -o .build/bench/soak_threads bench/soak_threads.c $$flags
	@set -o pipefail; { .build/bench/soak $(SOAK_CALLS) && .build/bench/soak_threads $(SOAK_SECONDS); } | tee .build/bench/soak.md

# Every target for FUZZ_SECONDS (default 5 min each); summary in .build/fuzz/summary.md.
fuzz: fuzz-build
	@Fuzz/run.sh --regressions
	Fuzz/run.sh $(FUZZ_SECONDS) .build/fuzz/summary.md $(FUZZ_TARGETS)

# Part of `make test`: replays every committed regression input, then a short run per target.
test-fuzz-smoke: fuzz-smoke-build
	@FUZZ_BIN=$(FUZZ_SMOKE_BIN) Fuzz/run.sh --regressions
	@FUZZ_BIN=$(FUZZ_SMOKE_BIN) FUZZ_JOBS=2 Fuzz/run.sh $(FUZZ_SMOKE_SECONDS) .build/fuzz/smoke-summary.md $(FUZZ_TARGETS)

clean:
	rm -rf .build $(STATIC_SCRATCH) python/build $(DIST_DIR)
