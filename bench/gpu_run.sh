#!/bin/bash
# bench/gpu_run.sh - the whole GPU run in one command, on the device
# machine, from the repository root:
#   bench/gpu_run.sh [DATA_DIR] [BYTES] [baselines]
# Uses binaries built here and carried (bench/build-gpu, cuda/build) when
# they run, else builds with nvcc.  Bit-exactness over every dbtext file,
# random, empty and long values; the benchmark on l_comment (with the
# full-size CPU comparison and the split/unit variants) and on email,
# urls2, uuid; a compute-sanitizer pass on a small check.  Writes logs and
# the TSV under $OUT (or bench/results/run when OUT is unset) and prints a
# short table last.  Then the GPU baselines (bench/baselines: our LZSS, and
# nvCOMP when gpu_bench was built with it) next to gsst on l_comment, with a
# TSV that has a codec column.  With a third argument "baselines" only that
# step runs (DATA_DIR then needs only l_comment); SKIP_BASELINES=1 leaves
# them out of the whole run, SKIP_SANITIZER=1 the compute-sanitizer runs.
# With "sanitizers" as third argument only the compute-sanitizer runs (the
# whole run does not fit one 10-minute device call); SKIP_NCU=1 leaves
# out the ncu profile.  For a short run: CHECK_MB (8) sizes each file of the
# checks, SKIP_VARIANTS=1 leaves out the split/unit variants, BENCH_FILES
# ("email urls2 uuid") names the files timed after l_comment, and
# TILE_AB=1 times l_comment again with version 1 tiles in the same process
# (a row "l_comment@v1").
set -u -o pipefail
DATA=${1:-.gpudata/dbtext}
BYTES=${2:-2147483648}
OUT=${OUT:-bench/results/run}
mkdir -p "$OUT"
BENCH=bench/build-gpu/gpu_bench
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
SHORT=$(echo "$GPU" | grep -o -i 'H[0-9]00' | head -1 | tr 'A-Z' 'a-z')
SHORT=${SHORT:-gpu}
TSV="$OUT/gpu-$SHORT-$(date +%Y%m%d).tsv"
rm -f "$TSV"
echo "== device: $GPU"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/device.txt"

"$BENCH" >/dev/null 2>&1
if [ $? -ne 2 ]; then
	echo "== carried gpu_bench does not run here: building"
	make -f bench/gpu.mk gpu-bench 2>&1 | tail -5
fi

baselines() {
	BTSV="$OUT/baselines-$SHORT-$(date +%Y%m%d).tsv"
	rm -f "$BTSV"
	echo "== GPU baselines: quick exactness pass, 16 MB"
	timeout 120 "$BENCH" baselines "$DATA/l_comment" 16777216 --runs 2 2>&1 | tee "$OUT/baselines-quick.log" | tail -13
	echo "== GPU baselines: $BYTES bytes"
	timeout 400 "$BENCH" baselines "$DATA/l_comment" "$BYTES" --tsv "$BTSV" 2>&1 | tee "$OUT/baselines.log"
	column -t -s $'\t' "$BTSV" 2>/dev/null || cat "$BTSV"
}
if [ "${3:-}" = baselines ]; then
	baselines
	exit 0
fi

sanitizers() {
	echo "== compute-sanitizer: memcheck over every file at 1 MB; racecheck and synccheck on a small check"
	timeout 240 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 \
		"$BENCH" check "$DATA" 1 quick > "$OUT/sanitizer.log" 2>&1
	echo "memcheck exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer.log") clean summaries)"
	grep -m5 -E 'Invalid|ERROR SUMMARY|FAIL|^checks:' "$OUT/sanitizer.log"
	mkdir -p /tmp/gsst_small && for f in l_comment uuid chinese; do ln -sf "$(realpath "$DATA/$f")" /tmp/gsst_small/$f; done
	for tool in racecheck synccheck; do
		timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 \
			"$BENCH" check /tmp/gsst_small 1 quick > "$OUT/sanitizer-$tool.log" 2>&1
		echo "$tool exit $?"
		grep -m5 -E 'ERROR SUMMARY|hazard|FAIL|^checks:' "$OUT/sanitizer-$tool.log"
	done
}
if [ "${3:-}" = sanitizers ]; then
	sanitizers
	exit 0
fi

echo "== bit-exactness checks"
timeout 150 "$BENCH" check "$DATA" "${CHECK_MB:-8}" 2>&1 | tee "$OUT/check.log" | grep -v ' ok$'
CHECK_RC=${PIPESTATUS[0]}
if [ "$CHECK_RC" -ge 2 ]; then
	echo "== checks crashed (exit $CHECK_RC): no benchmark"
	exit 1
fi

echo "== benchmark"
VARIANTS=--variants
[ -n "${SKIP_VARIANTS:-}" ] && VARIANTS=
AB=
[ -n "${TILE_AB:-}" ] && AB=--tile-v1
timeout 170 "$BENCH" bench "$DATA/l_comment" "$BYTES" --cpu-check $VARIANTS $AB --tsv "$TSV" 2>&1 | tee "$OUT/bench.log"
for f in ${BENCH_FILES-email urls2 uuid}; do
	timeout 50 "$BENCH" bench "$DATA/$f" "$BYTES" --tsv "$TSV" 2>&1 | tee -a "$OUT/bench.log"
done

echo "== profile (ncu) of the main kernels, 256 MB of l_comment"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ] && [ -z "${SKIP_NCU:-}" ]; then
	timeout 120 "$NCU" --clock-control none -k regex:'k_encode|k_compact|k_decode_split_warp|k_decode_values_warp' -c 4 \
		--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
		--section MemoryWorkloadAnalysis --section LaunchStats \
		"$BENCH" bench "$DATA/l_comment" 268435456 --runs 1 > "$OUT/ncu.txt" 2>&1
	echo "ncu exit $?"
	grep -E '^  k_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy' "$OUT/ncu.txt" | head -40
fi
for o in cuda/build/gsst_gpu_*.o; do cuobjdump -sass "$o" 2>/dev/null | awk '/Function : .*k_encode|Function : .*k_decode_split_warp|Function : .*k_decode_values_warp/{p=1} /Function : .*(k_resolve|k_sample|k_meta|k_unit|k_plan_units|k_raw_entries|k_finish|k_compact|k_decode_value_staged|k_decode_value[^s]|k_selected|cub)/{p=0} p'; done | head -20000 > "$OUT/sass.txt"

[ -n "${SKIP_SANITIZER:-}" ] || sanitizers

echo "== summary (checks exit $CHECK_RC)"
grep -E '^checks:' "$OUT/check.log"
column -t -s $'\t' "$TSV" 2>/dev/null || cat "$TSV"
[ -n "${SKIP_BASELINES:-}" ] || baselines
