# gsst - FSST/GSST string compression for PostgreSQL text columns (PGXS).
#
#   make              build gsst.so (codec + glue)
#   make install      install it into the PostgreSQL of $(PG_CONFIG)
#   make test         (as root) install what is missing, build, install, run
#                     the codec tests, pg_regress and the TAP tests
#   make demo         (as root) a throwaway cluster with a size comparison
#
# Tests run PostgreSQL as the unprivileged user $(TEST_USER) (initdb refuses
# root), in a copy of the test files under $(TEST_DIR).

EXTENSION  = gsst
MODULE_big = gsst
PGFILEDESC = "gsst - FSST/GSST string compression for text columns"
DATA       = sql/gsst--1.0.sql sql/gsst--1.1.sql sql/gsst--1.0--1.1.sql

GLUE_SRCS  = $(sort $(wildcard src/*.c))
CODEC_SRCS = $(sort $(wildcard src/codec/*.c))
GLUE_OBJS  = $(GLUE_SRCS:.c=.o)
CODEC_OBJS = $(CODEC_SRCS:.c=.o)
OBJS       = $(GLUE_OBJS) $(CODEC_OBJS)

# Ours are warning-free under -Wall -Wextra; the three -Wno- silence what
# PostgreSQL's headers and fmgr conventions trigger under -Wextra.
PG_CPPFLAGS = -I$(CURDIR)/src
PG_CFLAGS   = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
              -Wno-missing-field-initializers
# The codec is C11: it may declare variables after statements.
$(CODEC_OBJS): CFLAGS += -Wno-declaration-after-statement

# No LLVM bitcode for JIT: it needs clang and buys nothing here.
override with_llvm = no

PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/15/bin/pg_config) pg_config)
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)

ifneq ($(PGXS),)
include $(PGXS)
PG_BINDIR  := $(shell $(PG_CONFIG) --bindir)
PGXS_DIR   := $(dir $(PGXS))../..
PG_REGRESS_BIN := $(PGXS_DIR)/src/test/regress/pg_regress
PG_TAP_LIB := $(PGXS_DIR)/src/test/perl
else
all install:
	@echo "pg_config not found: run 'make test' as root to install PostgreSQL 15 and its headers" >&2; exit 1
endif

# PGXS tracks no header dependencies: rebuild everything when a header changes.
$(OBJS): $(wildcard src/*.h src/codec/*.h)

# GPU library (cuda/): the GPU engineer's rules build gsst_gpu.so when nvcc
# is found.  gsst.so itself never links CUDA.
-include cuda/gpu.mk
# installs gsst_gpu.so beside gsst.so for the gsst worker
-include src/worker.mk

#--------------------------------------------------------------------------
# Tests
#--------------------------------------------------------------------------

REGRESS_TESTS = type casts ops ddl learn binary toast functions bulk privileges
TAP_TESTS_GLOB = test/tap/*.pl

TEST_USER ?= gsst_test
TEST_DIR  ?= /tmp/gsst-test
DEB_PACKAGES = postgresql-15 postgresql-server-dev-15 libipc-run-perl \
               liblz4-dev libzstd-dev gcc make perl clang libclang-rt-14-dev
IS_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo yes)
ifeq ($(IS_ROOT),yes)
RUN_AS = runuser -u $(TEST_USER) -- env HOME=$(TEST_DIR)
else
RUN_AS = env
endif

.PHONY: test deps test-user test-codec test-gpu test-regress test-tap demo bench-pg

# Install missing Debian packages (root only, only what is missing).
deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  missing=""; \
	  for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    echo "== installing:$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  fi; \
	fi

test-user:
ifeq ($(IS_ROOT),yes)
	@id -u $(TEST_USER) >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin $(TEST_USER)
endif

test: deps
	$(MAKE) all
	$(MAKE) install
	$(MAKE) test-codec
	$(MAKE) test-gpu
	$(MAKE) test-regress
	$(MAKE) test-tap

# CPU-side tests of the GPU code: the kernels' logic emulated on the CPU
# against the codec, and the ABI's no-device path (no GPU needed).
test-gpu:
	@echo "== gpu (CPU side): make -C test/gpu check"
	$(MAKE) -C test/gpu check

# The codec engineer's suite; each target runs once it exists.
test-codec:
	@if [ ! -f test/codec/Makefile ]; then \
	  echo "== codec tests: test/codec/Makefile not there yet, skipped"; \
	else \
	  for t in check check-sanitize fuzz-smoke; do \
	    if $(MAKE) -s -C test/codec -n $$t >/dev/null 2>&1; then \
	      echo "== codec: make -C test/codec $$t"; \
	      $(MAKE) -C test/codec $$t || exit 1; \
	    else \
	      echo "== codec: target $$t not there yet, skipped"; \
	    fi; \
	  done; \
	fi

# A copy of the test inputs that the unprivileged user can read and write.
define prepare_test_dir
rm -rf $(TEST_DIR)/$(1) && mkdir -p $(TEST_DIR)/$(1) && \
cp -r sql expected test $(TEST_DIR)/$(1)/ && \
if [ "$(IS_ROOT)" = yes ]; then chown -R $(TEST_USER) $(TEST_DIR); chmod 755 $(TEST_DIR); fi
endef

test-regress: test-user
	@$(call prepare_test_dir,regress)
	cd $(TEST_DIR)/regress && $(RUN_AS) $(PG_REGRESS_BIN) \
	  --bindir=$(PG_BINDIR) --inputdir=. --outputdir=. \
	  --temp-instance=./instance --temp-config=test/regress.conf \
	  --encoding=UTF8 --no-locale $(REGRESS_TESTS) \
	|| { cat $(TEST_DIR)/regress/regression.diffs 2>/dev/null | head -200; exit 1; }

test-tap: test-user
	@$(call prepare_test_dir,tap)
	cd $(TEST_DIR)/tap && $(RUN_AS) TESTDIR=$(TEST_DIR)/tap \
	  PATH="$(PG_BINDIR):$$PATH" PG_REGRESS=$(PG_REGRESS_BIN) \
	  GSST_DATA_DIR=$(abspath $(CURDIR)/../shared/data/dbtext) \
	  prove -I $(PG_TAP_LIB) -I test/tap $(TAP_TESTS_GLOB) \
	|| { tail -n 80 $(TEST_DIR)/tap/tmp_check/log/regress_log_* 2>/dev/null; exit 1; }

#--------------------------------------------------------------------------
# Demo and benchmark
#--------------------------------------------------------------------------

demo: deps
	$(MAKE) all
	$(MAKE) install
	$(MAKE) test-user
	TEST_USER=$(TEST_USER) PG_BINDIR=$(PG_BINDIR) scripts/demo.sh

bench-pg: test-user
	TEST_USER=$(TEST_USER) PG_BINDIR=$(PG_BINDIR) bench/pg_bench.sh
