# src/worker/helper/helper.mk - the GPU helper program, and what the gsst
# worker finds in $libdir: gsst_gpu_helper, which it starts, and the GPU libraries
# the helper loads (gsst.gpu_library): gsst_gpu.so when nvcc built it, and
# gsst_gpu_cpu.so, the same ABI on the CPU codec.  Included by the
# Makefile after cuda/gpu.mk.  The helper is plain C: no PostgreSQL header.

GSST_HELPER := src/worker/helper/gsst_gpu_helper
# messages are cut to the protocol's length on purpose
GSST_HELPER_CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -Wno-format-truncation \
                     -Icuda -Isrc/worker/helper

all: $(GSST_HELPER)

$(GSST_HELPER): src/worker/helper/gsst_gpu_helper.c src/worker/helper/helper_protocol.h cuda/gsst_gpu.h
	$(CC) $(GSST_HELPER_CFLAGS) -o $@ $< -ldl

.PHONY: install-gsst-helper
install: install-gsst-helper
install-gsst-helper: $(GSST_HELPER) $(GSST_GPU_CPU_LIB) $(if $(NVCC),$(GSST_GPU_LIB))
	$(MKDIR_P) '$(DESTDIR)$(pkglibdir)'
	$(INSTALL_PROGRAM) $(GSST_HELPER) '$(DESTDIR)$(pkglibdir)/gsst_gpu_helper'
	$(INSTALL_SHLIB) $(GSST_GPU_CPU_LIB) '$(DESTDIR)$(pkglibdir)/gsst_gpu_cpu.so'
ifneq ($(NVCC),)
	$(INSTALL_SHLIB) $(GSST_GPU_LIB) '$(DESTDIR)$(pkglibdir)/gsst_gpu.so'
endif

EXTRA_CLEAN += $(GSST_HELPER)
