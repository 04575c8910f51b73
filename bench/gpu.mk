# bench/gpu.mk - the GPU benchmark; from the repository root:
#   make -f bench/gpu.mk gpu-bench     -> bench/build-gpu/gpu_bench
# Needs nvcc; links the library's objects statically (cuda/gpu.mk).

include cuda/gpu.mk

GPU_BENCH := $(GSST_GPU_ROOT)/bench/build-gpu/gpu_bench

.PHONY: gpu-bench

ifneq ($(NVCC),)
gpu-bench: $(GPU_BENCH)

$(GPU_BENCH): $(GSST_GPU_ROOT)/bench/gpu_bench.cu $(GSST_GPU_BUILD)/gsst_gpu.o $(GSST_GPU_CODEC_OBJ) \
		$(GSST_GPU_HEADERS) $(GSST_GPU_ROOT)/test/gpu/batch.h
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -std=c++17 $(GSST_GPU_ARCH) -Xcompiler -Wall,-Wextra,-Werror \
		-I$(GSST_GPU_ROOT)/src/codec -I$(GSST_GPU_ROOT)/cuda -I$(GSST_GPU_ROOT)/test/gpu \
		-o $@ $< $(GSST_GPU_BUILD)/gsst_gpu.o $(GSST_GPU_CODEC_OBJ)
else
gpu-bench:
	@echo "nvcc not found: gpu_bench not built"
endif
