#!/bin/bash
# bench/gpu_ab.sh - A/B timing of gpu_bench builds in one device call, from
# the repository root: bench/gpu_ab.sh FILE BYTES ROUNDS BUILD... (each
# BUILD a gpu_bench binary); the builds alternate, ROUNDS times each, so
# that drifts of the machine hit them alike.  Prints each run's lines.
set -uo pipefail
file=$1 bytes=$2 rounds=$3
shift 3
for ((r = 0; r < rounds; r++)); do
	for b in "$@"; do
		echo "== $b"
		timeout 150 "$b" bench "$file" "$bytes" --runs 10 2>&1 | grep -E 'encode|decode' | head -4
	done
done
