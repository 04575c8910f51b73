#!/bin/bash
# bench/pg_gpu_scaling_ab.sh - bench/pg_gpu_scaling.sh for two builds of gsst
# in one device call, alternating (run as root from the repository root):
#
#   bench/pg_gpu_scaling_ab.sh PG_TARBALL OVERLAY_TARBALL ROUNDS [COPIES] [DEGREES]
#
# A is PG_TARBALL as bench/pg_bundle.sh made it; B is the same tree with
# OVERLAY_TARBALL unpacked over it (pg/usr/..., e.g. the files of make install
# DESTDIR=D of another commit, moved under pg/).  Each round runs A, then B
# (B first in even rounds), each output under $OUT/{A,B}-ROUND.
set -u -o pipefail
A=${1:?usage: bench/pg_gpu_scaling_ab.sh PG_TARBALL OVERLAY_TARBALL ROUNDS [COPIES] [DEGREES]}
OVERLAY=${2:?overlay tarball}
ROUNDS=${3:?rounds}
COPIES=${4:-800}
DEGREES=${5:-0 16}
OUT=${OUT:-/tmp/pg_gpu_scaling_ab}
mkdir -p "$OUT"
B=$OUT/pg-b.tgz
stage=$(mktemp -d)
tar -C "$stage" -xzf "$A" && tar -C "$stage" -xzf "$OVERLAY" && tar -C "$stage" -czf "$B" . || exit 1
rm -rf "$stage"
for round in $(seq 1 "$ROUNDS"); do
	order="A B"
	[ $((round % 2)) = 0 ] && order="B A"
	for side in $order; do
		tarball=$A
		[ "$side" = B ] && tarball=$B
		echo "=== round $round, build $side"
		OUT=$OUT/$side-$round "$(dirname "$0")/pg_gpu_scaling.sh" "$tarball" "$COPIES" "$DEGREES" > "$OUT/$side-$round.log" 2>&1
		grep -E '^(vacuum_full|raw_|recode_)' "$OUT/$side-$round.log"
	done
done
