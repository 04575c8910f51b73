#!/bin/bash
# bench/gpu_variants.sh - build gpu_bench variants of the library's compile-time
# tunables, for one device call that times them all, from the repository root:
#   bench/gpu_variants.sh NAME "-DMACRO=VALUE ..." [NAME "-D..."]...
# Each lands in .gpubase/var/NAME/gpu_bench (ignored; carry .gpubase/var),
# linked without nvCOMP so that several fit the device tool's carry limit.
set -euo pipefail
ROOT=$(pwd)
OUT=.gpubase/var
ARCH="-gencode arch=compute_90,code=[sm_90,compute_90]"
mkdir -p "$OUT"
make -s -f bench/gpu.mk gpu-bench >/dev/null	# codec objects and baselines
nvcc -O3 -std=c++17 $ARCH -I"$ROOT/bench/baselines" -c -o "$OUT/base_nvcomp_none.o" bench/baselines/nvcomp_bench.cu
while [ $# -ge 2 ]; do
	name=$1 defs=$2
	shift 2
	mkdir -p "$OUT/$name"
	: > "$OUT/$name/ptxas.log"
	objs=()
	for cu in cuda/*.cu; do
		obj="$OUT/$name/$(basename "$cu" .cu).o"
		# shellcheck disable=SC2086
		nvcc -O3 -std=c++17 $ARCH -Xcompiler -fPIC,-Wall,-Wextra,-Werror -Xptxas -v $defs \
			-Isrc/codec -Icuda -c -o "$obj" "$cu" 2>> "$OUT/$name/ptxas.log"
		objs+=("$obj")
	done
	nvcc -O2 -std=c++17 $ARCH -Isrc/codec -Icuda -Itest/gpu -Ibench/baselines \
		-o "$OUT/$name/gpu_bench" bench/gpu_bench.cu "${objs[@]}" cuda/build/codec_*.o \
		bench/build-gpu/base_lzss_gpu.o bench/build-gpu/base_lzss_bench.o "$OUT/base_nvcomp_none.o"
	echo "$name: $defs: $(grep -A2 'k_decode_values_warp\|k_decode_split_warp' "$OUT/$name/ptxas.log" | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | tr '\n' ' ')"
done
