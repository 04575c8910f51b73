# cuda/gpu.mk - builds gsst_gpu.so (GPU encoder/decoder, C ABI in
# cuda/gsst_gpu.h) when nvcc is found, and always gsst_gpu_cpu.so, the same
# ABI on the CPU codec; included by the top-level Makefile with
# "-include cuda/gpu.mk", or run alone from the repository root:
#   make -f cuda/gpu.mk gsst-gpu
# Without nvcc, gsst_gpu.so is not built and CPU-only builds still pass.

GSST_GPU_ROOT := $(patsubst %/cuda/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
NVCC ?= $(shell command -v nvcc 2>/dev/null)
GSST_GPU_BUILD := $(GSST_GPU_ROOT)/cuda/build
GSST_GPU_LIB := $(GSST_GPU_BUILD)/gsst_gpu.so
# sm_90 machine code plus compute_90 PTX for later GPUs
GSST_GPU_ARCH ?= -gencode arch=compute_90,code=[sm_90,compute_90]
# the host compiler nvcc uses, when the default one is newer than it supports
GSST_GPU_CCBIN ?=
GSST_GPU_NVFLAGS ?= -O3 -std=c++17 $(GSST_GPU_ARCH) -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra,-Werror \
	-Xptxas -warn-spills $(if $(GSST_GPU_CCBIN),-ccbin $(GSST_GPU_CCBIN))
GSST_GPU_CFLAGS ?= -O2 -std=c11 -fPIC -fvisibility=hidden -Wall -Wextra -Werror
GSST_GPU_CODEC_SRC := $(wildcard $(GSST_GPU_ROOT)/src/codec/*.c)
GSST_GPU_CODEC_OBJ := $(patsubst $(GSST_GPU_ROOT)/src/codec/%.c,$(GSST_GPU_BUILD)/codec_%.o,$(GSST_GPU_CODEC_SRC))
GSST_GPU_HEADERS := $(wildcard $(GSST_GPU_ROOT)/cuda/*.h) $(wildcard $(GSST_GPU_ROOT)/src/codec/*.h)
# the library's CUDA files, each its own compilation unit (no relocatable
# device code: what they share is inline, in cuda/*.cuh)
GSST_GPU_CU := $(wildcard $(GSST_GPU_ROOT)/cuda/*.cu)
GSST_GPU_OBJ := $(patsubst $(GSST_GPU_ROOT)/cuda/%.cu,$(GSST_GPU_BUILD)/%.o,$(GSST_GPU_CU))
GSST_GPU_CUDA_HEADERS := $(wildcard $(GSST_GPU_ROOT)/cuda/*.cuh)

# The same ABI on the CPU codec: what CI's helper tests load (no nvcc needed).
GSST_GPU_CPU_LIB := $(GSST_GPU_BUILD)/gsst_gpu_cpu.so

.PHONY: gsst-gpu gsst-gpu-clean

all: $(GSST_GPU_CPU_LIB)

$(GSST_GPU_BUILD)/codec_%.o: $(GSST_GPU_ROOT)/src/codec/%.c $(GSST_GPU_HEADERS)
	@mkdir -p $(GSST_GPU_BUILD)
	$(CC) $(GSST_GPU_CFLAGS) -c -o $@ $<

$(GSST_GPU_CPU_LIB): $(GSST_GPU_ROOT)/cuda/gsst_gpu_cpu.c $(GSST_GPU_CODEC_OBJ) $(GSST_GPU_HEADERS)
	@mkdir -p $(GSST_GPU_BUILD)
	$(CC) $(GSST_GPU_CFLAGS) -shared -I$(GSST_GPU_ROOT)/src/codec -I$(GSST_GPU_ROOT)/cuda \
		-o $@ $< $(GSST_GPU_CODEC_OBJ) -lm

ifneq ($(NVCC),)
gsst-gpu: $(GSST_GPU_LIB)

all: $(GSST_GPU_LIB)

# each unit's register, spill and shared memory figures: build/UNIT.ptxas.log
$(GSST_GPU_OBJ): $(GSST_GPU_BUILD)/%.o: $(GSST_GPU_ROOT)/cuda/%.cu $(GSST_GPU_HEADERS) $(GSST_GPU_CUDA_HEADERS)
	@mkdir -p $(GSST_GPU_BUILD)
	$(NVCC) $(GSST_GPU_NVFLAGS) -I$(GSST_GPU_ROOT)/src/codec -I$(GSST_GPU_ROOT)/cuda \
		-Xptxas -v -c -o $@ $< 2> $(GSST_GPU_BUILD)/$*.ptxas.log || { cat $(GSST_GPU_BUILD)/$*.ptxas.log; exit 1; }

# static CUDA runtime: the library needs only the driver (libcuda), which
# is looked up at gsst_gpu_init; without it init says "no device"
$(GSST_GPU_LIB): $(GSST_GPU_OBJ) $(GSST_GPU_CODEC_OBJ)
	$(NVCC) -shared $(GSST_GPU_ARCH) $(if $(GSST_GPU_CCBIN),-ccbin $(GSST_GPU_CCBIN)) -cudart static -o $@ $^
else
gsst-gpu:
	@echo "nvcc not found: gsst_gpu.so not built"
endif

gsst-gpu-clean:
	rm -rf $(GSST_GPU_BUILD)
