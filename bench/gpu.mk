# bench/gpu.mk - the GPU benchmark; from the repository root:
#   make -f bench/gpu.mk gpu-bench     -> bench/build-gpu/gpu_bench
# Needs nvcc; links the library's objects statically (cuda/gpu.mk), and the
# GPU baselines of bench/baselines (our LZSS codec, always; NVIDIA nvCOMP only
# when NVCOMP_DIR holds include/nvcomp.h and lib64/libnvcomp.so*, by default
# .nvcomp/whl/nvidia/libnvcomp, the unpacked nvidia-libnvcomp-cu13 wheel;
# nothing of gsst itself depends on it).

include cuda/gpu.mk

GPU_BENCH := $(GSST_GPU_ROOT)/bench/build-gpu/gpu_bench
BASE_DIR := $(GSST_GPU_ROOT)/bench/baselines
BASE_BUILD := $(GSST_GPU_ROOT)/bench/build-gpu
BASE_SRC := $(BASE_DIR)/lzss_gpu.cu $(BASE_DIR)/lzss_bench.cu $(BASE_DIR)/nvcomp_bench.cu
BASE_OBJ := $(patsubst $(BASE_DIR)/%.cu,$(BASE_BUILD)/base_%.o,$(BASE_SRC))
BASE_HDR := $(wildcard $(BASE_DIR)/*.h)
BASE_NVFLAGS := -O3 -std=c++17 $(GSST_GPU_ARCH) -Xcompiler -Wall,-Wextra,-Werror

NVCOMP_DIR ?= $(GSST_GPU_ROOT)/.nvcomp/whl/nvidia/libnvcomp
NVCOMP_LIB := $(firstword $(wildcard $(NVCOMP_DIR)/lib64/libnvcomp.so $(NVCOMP_DIR)/lib64/libnvcomp.so.*))
ifneq ($(and $(NVCOMP_LIB),$(wildcard $(NVCOMP_DIR)/include/nvcomp.h)),)
BASE_NVCOMP_FLAGS := -DGSST_HAVE_NVCOMP -I$(NVCOMP_DIR)/include
BASE_NVCOMP_LINK := -Xlinker $(NVCOMP_LIB) -Xlinker -rpath,'$$ORIGIN/../../.nvcomp/whl/nvidia/libnvcomp/lib64' \
	-Xlinker -rpath,$(NVCOMP_DIR)/lib64
endif

.PHONY: gpu-bench lzss-ref-test

lzss-ref-test: $(BASE_BUILD)/lzss_ref_test
	$(BASE_BUILD)/lzss_ref_test $(GSST_GPU_ROOT)/.gpudata/dbtext/l_comment 8000000

$(BASE_BUILD)/lzss_ref_test: $(BASE_DIR)/lzss_ref_test.c $(BASE_HDR)
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -o $@ $<

ifneq ($(NVCC),)
gpu-bench: $(GPU_BENCH)

$(BASE_BUILD)/base_%.o: $(BASE_DIR)/%.cu $(BASE_HDR)
	@mkdir -p $(dir $@)
	$(NVCC) $(BASE_NVFLAGS) $(BASE_NVCOMP_FLAGS) -c -o $@ $<

$(GPU_BENCH): $(GSST_GPU_ROOT)/bench/gpu_bench.cu $(GSST_GPU_OBJ) $(GSST_GPU_CODEC_OBJ) \
		$(GSST_GPU_HEADERS) $(GSST_GPU_ROOT)/test/gpu/batch.h $(BASE_OBJ) $(BASE_HDR)
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -std=c++17 $(GSST_GPU_ARCH) -Xcompiler -Wall,-Wextra,-Werror \
		-I$(GSST_GPU_ROOT)/src/codec -I$(GSST_GPU_ROOT)/cuda -I$(GSST_GPU_ROOT)/test/gpu -I$(BASE_DIR) \
		-o $@ $< $(GSST_GPU_OBJ) $(GSST_GPU_CODEC_OBJ) $(BASE_OBJ) $(BASE_NVCOMP_LINK)
else
gpu-bench:
	@echo "nvcc not found: gpu_bench not built"
endif
