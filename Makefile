# gsst - FSST/GSST string compression for PostgreSQL text columns (PGXS).
#
#   make              build gsst.so (codec + glue), and gsst_gpu.so when nvcc is found
#   make install      install them into the PostgreSQL of $(PG_CONFIG)
#   make test         (as root) install the Debian packages the tests use, build,
#                     install, run every suite: codec, GPU code on the CPU,
#                     pg_regress, TAP
#   make test-citus   the Citus suite: a coordinator and two workers (Citus
#                     built from ../shared/deps when it is not installed)
#   make demo         (as root) a throwaway cluster with a size comparison
#   make matrix       (as root) make test on PostgreSQL 15, 17 and 18, each in a
#                     Debian root of the suite that carries it, then the
#                     Citus suite and the package test of each (scripts/matrix.sh)
#   make deb          build the Debian package postgresql-$(PG_MAJOR)-gsst
#   make deb-test     (as root) install that package into a fresh Debian root and
#                     run the regression suite against it (installcheck);
#                     PG_MAJOR=17 or 18 builds and tests in that suite's root
#   make deb-matrix   (as root) make deb-test on PostgreSQL 15, 17 and 18
#
# The PostgreSQL major is the one Debian's suite carries (bookworm 15,
# trixie 17, forky 18), or PG_MAJOR=.. / PG_CONFIG=.. to pick another.
# Tests run PostgreSQL as the unprivileged user $(TEST_USER) (initdb refuses
# root), in a copy of the test files under $(TEST_DIR).

EXTENSION  = gsst
MODULE_big = gsst
PGFILEDESC = "gsst - FSST/GSST string compression for text columns"
DATA       = $(sort $(wildcard sql/gsst--*.sql))

# The glue is src/<part>/*.c (README.md, Layout); the codec is src/codec/.
GLUE_SRCS  = $(filter-out src/codec/%,$(sort $(wildcard src/*/*.c)))
CODEC_SRCS = $(sort $(wildcard src/codec/*.c))
GLUE_OBJS  = $(GLUE_SRCS:.c=.o)
CODEC_OBJS = $(CODEC_SRCS:.c=.o)
OBJS       = $(GLUE_OBJS) $(CODEC_OBJS)

# Every test/sql/*.sql is a regression test, in name order; pg_regress
# creates the extension first (installcheck runs them too).
REGRESS      = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --load-extension=gsst --encoding=UTF8 --no-locale

# Ours are warning-free under -Wall -Wextra; the three -Wno- silence what
# PostgreSQL's headers and fmgr conventions trigger under -Wextra.
# Files include each other's headers by subsystem ("dict/dict.h") and the
# GPU library's ABI as "gsst_gpu.h".
PG_CPPFLAGS = -I$(CURDIR)/src -I$(CURDIR)/cuda
PG_CFLAGS   = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
              -Wno-missing-field-initializers
# The codec is C11: it may declare variables after statements.
$(CODEC_OBJS): CFLAGS += -Wno-declaration-after-statement

# No LLVM bitcode for JIT: it needs clang and buys nothing here.
override with_llvm = no

DEBIAN_SUITE := $(shell . /etc/os-release 2>/dev/null && echo $$VERSION_CODENAME)
PG_MAJOR ?= $(or $(if $(filter bookworm,$(DEBIAN_SUITE)),15),$(if $(filter trixie,$(DEBIAN_SUITE)),17),$(if $(filter forky sid,$(DEBIAN_SUITE)),18),15)
PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/$(PG_MAJOR)/bin/pg_config) pg_config)
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)

ifneq ($(PGXS),)
include $(PGXS)
PG_BINDIR  := $(shell $(PG_CONFIG) --bindir)
PGXS_DIR   := $(dir $(PGXS))../..
PG_REGRESS_BIN := $(PGXS_DIR)/src/test/regress/pg_regress
PG_TAP_LIB := $(PGXS_DIR)/src/test/perl
else
all install installcheck:
	@echo "pg_config not found: run 'make test' as root to install PostgreSQL $(PG_MAJOR) and its headers" >&2; exit 1
endif

# PGXS tracks no header dependencies: rebuild everything when a header changes.
$(OBJS): $(wildcard src/*/*.h src/*/*/*.h) cuda/gsst_gpu.h

# GPU library (cuda/): built when nvcc is found, for sm_90 plus PTX.
# gsst.so itself never links CUDA.
-include cuda/gpu.mk
# the GPU helper program, installed with the GPU libraries beside gsst.so
-include src/worker/helper/helper.mk

#--------------------------------------------------------------------------
# Dependencies: Debian packages, each step only what it uses, no
# recommended packages.  postgresql-server-dev-N may upgrade an installed
# postgresql-N to its own minor release.
#--------------------------------------------------------------------------

BUILD_PACKAGES = make gcc libc6-dev postgresql-server-dev-$(PG_MAJOR)
# the server, TAP's IPC::Run, clang and its runtime for the fuzzers,
# the Python drivers for the client tests (clients/python), a JDK and
# pgjdbc for the Java client's, Go and lib/pq for the Go client's (the
# Node client's: NODE_PACKAGES), pg_repack for the online rewrite's test
TEST_PACKAGES  = $(BUILD_PACKAGES) postgresql-$(PG_MAJOR) libipc-run-perl \
                 clang libclang-rt-dev python3-psycopg python3-psycopg2 \
                 python3-asyncpg python3-sqlalchemy postgresql-$(PG_MAJOR)-repack \
                 default-jdk-headless libpostgresql-jdbc-java \
                 golang-go golang-github-lib-pq-dev
# Debian's nodejs and node-pg for the Node client's test, unless this machine
# has a nodejs Debian does not carry (test/clients/node/foreign_nodejs.sh)
NODE_PACKAGES  = $(if $(shell test/clients/node/foreign_nodejs.sh),,nodejs node-pg)
DEMO_PACKAGES  = $(BUILD_PACKAGES) postgresql-$(PG_MAJOR)
# Citus's build (scripts/citus.sh) needs gssapi, lz4, zstd and ICU headers,
# and libcurl's where the server was built with it (18)
CITUS_PACKAGES = $(TEST_PACKAGES) libkrb5-dev liblz4-dev libzstd-dev libicu-dev \
                 $(if $(filter 18,$(PG_MAJOR)),libcurl4-openssl-dev)
# dpkg-buildpackage requires build-essential of every package it builds
DEB_PACKAGES   = $(BUILD_PACKAGES) build-essential dpkg-dev debhelper postgresql-server-dev-all

TEST_USER ?= gsst_test
TEST_DIR  ?= /tmp/gsst-test
IS_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo yes)
ifeq ($(IS_ROOT),yes)
RUN_AS = runuser -u $(TEST_USER) -- env HOME=$(TEST_DIR)
else
RUN_AS = env
endif

# apt_install PACKAGES: install those not installed yet (as root; else a no-op)
define apt_install
@if [ "$$(id -u)" = 0 ]; then \
  missing=""; \
  for p in $(1); do \
    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
  done; \
  if [ -n "$$missing" ]; then \
    echo "== installing:$$missing"; \
    apt-get update -q && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends $$missing; \
  fi; \
fi
endef

.PHONY: test deps-test deps-demo deps-deb deps-citus test-user test-codec test-gpu \
        test-regress test-tap test-citus demo demo-run bench-pg matrix deb deb-test deb-matrix

deps-test:
	$(call apt_install,$(TEST_PACKAGES) $(NODE_PACKAGES))
deps-demo:
	$(call apt_install,$(DEMO_PACKAGES))
deps-deb:
	$(call apt_install,$(DEB_PACKAGES))
deps-citus:
	$(call apt_install,$(CITUS_PACKAGES))

test-user:
ifeq ($(IS_ROOT),yes)
	@id -u $(TEST_USER) >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin $(TEST_USER)
endif

#--------------------------------------------------------------------------
# Tests
#--------------------------------------------------------------------------

# The test copies and clusters go once every suite passed; a failure
# leaves them in $(TEST_DIR) to look at.
test: deps-test
	$(MAKE) all
	$(MAKE) install
	$(MAKE) test-codec
	$(MAKE) test-gpu
	$(MAKE) test-regress
	$(MAKE) test-tap
	rm -rf $(TEST_DIR)

# The codec: unit tests (also under ASan/UBSan) and a short fuzzing run.
# The codec includes nothing of PostgreSQL, so make matrix runs the last
# two once, on the host's major, and the unit tests on every major's
# compiler (CODEC_CHECKS=check).
CODEC_CHECKS ?= check check-sanitize fuzz-smoke
test-codec:
	$(MAKE) -C test/codec $(CODEC_CHECKS)

# The GPU code on the CPU: the kernels' logic emulated against the codec,
# and the library's path without a device.
test-gpu:
	$(MAKE) -C test/gpu check

# A copy of the test inputs that the unprivileged user can read and write.
define prepare_test_dir
rm -rf $(TEST_DIR)/$(1) && mkdir -p $(TEST_DIR)/$(1) && \
cp -r test README.md clients $(TEST_DIR)/$(1)/ && \
if [ "$(IS_ROOT)" = yes ]; then chown -R $(TEST_USER) $(TEST_DIR); chmod 755 $(TEST_DIR); fi
endef

test-regress: test-user
	@$(call prepare_test_dir,regress)
	cd $(TEST_DIR)/regress && $(RUN_AS) $(PG_REGRESS_BIN) \
	  --bindir=$(PG_BINDIR) --outputdir=. \
	  --temp-instance=./instance --temp-config=test/regress.conf \
	  $(REGRESS_OPTS) $(REGRESS) \
	|| { cat $(TEST_DIR)/regress/regression.diffs 2>/dev/null | head -200; exit 1; }

# PostgreSQL 15 puts TAP files under TESTDIR; 16 and later under
# TESTDATADIR and TESTLOGDIR.  Both point to the same place here.
TAP_DIR = $(TEST_DIR)/tap
TAP_TESTS_GLOB ?= test/tap/*.pl
# TAP files run two at a time: most of their time is spent waiting on servers
TAP_JOBS ?= 2

test-tap: test-user
	@$(call prepare_test_dir,tap)
	cd $(TAP_DIR) && $(RUN_AS) TESTDIR=$(TAP_DIR) \
	  TESTDATADIR=$(TAP_DIR)/tmp_check TESTLOGDIR=$(TAP_DIR)/tmp_check/log \
	  PATH="$(PG_BINDIR):$$PATH" PG_REGRESS=$(PG_REGRESS_BIN) \
	  prove -j $(TAP_JOBS) --timer -I $(PG_TAP_LIB) -I test/tap $(TAP_TESTS_GLOB) \
	|| { tail -n 80 $(TAP_DIR)/tmp_check/log/regress_log_* 2>/dev/null; exit 1; }

# Citus: a coordinator and two workers on loopback (test/citus/*.pl).
# scripts/citus.sh installs Citus into this PostgreSQL first, built from
# ../shared/deps (or $CITUS_SOURCES) and cached; it fails, saying why, when
# it cannot, and so does this suite: it never skips.
CITUS_DIR = $(TEST_DIR)/citus
CITUS_TESTS_GLOB ?= test/citus/*.pl

test-citus: deps-citus test-user
	scripts/citus.sh $(PG_CONFIG)
	@$(call prepare_test_dir,citus)
	cd $(CITUS_DIR) && $(RUN_AS) TESTDIR=$(CITUS_DIR) \
	  TESTDATADIR=$(CITUS_DIR)/tmp_check TESTLOGDIR=$(CITUS_DIR)/tmp_check/log \
	  PATH="$(PG_BINDIR):$$PATH" PG_REGRESS=$(PG_REGRESS_BIN) \
	  prove -I $(PG_TAP_LIB) -I test/tap -I test/citus $(CITUS_TESTS_GLOB) \
	|| { tail -n 80 $(CITUS_DIR)/tmp_check/log/regress_log_* 2>/dev/null; exit 1; }

# The regression suite on PostgreSQL 15, 17 and 18.
matrix:
	scripts/matrix.sh

#--------------------------------------------------------------------------
# Demo, benchmark, package
#--------------------------------------------------------------------------

# demo-run is a make of its own: PG_BINDIR comes from the pg_config that
# deps-demo may have just installed, not from the one this make started with.
demo: deps-demo
	$(MAKE) all
	$(MAKE) install
	$(MAKE) test-user
	$(MAKE) demo-run

demo-run:
	TEST_USER=$(TEST_USER) PG_BINDIR=$(PG_BINDIR) scripts/demo.sh

bench-pg: test-user
	TEST_USER=$(TEST_USER) PG_BINDIR=$(PG_BINDIR) bench/pg_bench.sh

deb: deps-deb
	scripts/deb.sh build

deb-test:
	scripts/deb.sh test $(PG_MAJOR)

deb-matrix:
	for major in 15 17 18; do scripts/deb.sh test $$major || exit 1; done
