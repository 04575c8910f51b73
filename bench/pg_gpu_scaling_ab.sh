#!/bin/bash
# bench/pg_gpu_scaling_ab.sh - bench/pg_gpu_scaling.sh for two builds of gsst,
# each with its own batch settings, in one device call (run as root from the
# repository root):
#
#   bench/pg_gpu_scaling_ab.sh PG_TARBALL OVERLAY_TARBALL COPIES DEGREES RUN...
#
# Build a is PG_TARBALL as bench/pg_bundle.sh made it; build b is the same
# tree with OVERLAY_TARBALL unpacked over it (pg/usr/..., e.g. gsst.so and
# gsst_gpu_helper of another commit's make install DESTDIR=D, moved under
# pg/).  Each RUN is NAME:BUILD:BATCH_BYTES:BATCH_REGION (region - for none,
# as a build without gsst.batch_region needs), run in the order given: list
# them again in reverse to alternate.  Output of each under $OUT/NAME.log.
#
#   bench/pg_gpu_scaling_ab.sh tmp/pgdev/pg-bench.tgz tmp/pgdev/old-overlay.tgz 800 "0 16" \
#     new16:a:16MB:1GB old16:b:16MB:- old64:b:64MB:-
set -u -o pipefail
A=${1:?usage: bench/pg_gpu_scaling_ab.sh PG_TARBALL OVERLAY_TARBALL COPIES DEGREES RUN...}
OVERLAY=${2:?overlay tarball}
COPIES=${3:?copies}
DEGREES=${4:?degrees}
shift 4
OUT=${OUT:-/tmp/pg_gpu_scaling_ab}
mkdir -p "$OUT"
B=$OUT/pg-b.tgz
stage=$(mktemp -d)
tar -C "$stage" -xzf "$A" && tar -C "$stage" -xzf "$OVERLAY" && tar -C "$stage" -czf "$B" . || exit 1
rm -rf "$stage"
for run in "$@"; do
	IFS=: read -r name build batch region <<<"$run"
	tarball=$A
	[ "$build" = b ] && tarball=$B
	[ "$region" = - ] && region=
	echo "=== $name: build $build, gsst.batch_bytes $batch, gsst.batch_region ${region:-not set}"
	BATCH_BYTES=$batch BATCH_REGION=$region OUT=$OUT/$name \
		"$(dirname "$0")/pg_gpu_scaling.sh" "$tarball" "$COPIES" "$DEGREES" > "$OUT/$name.log" 2>&1
	grep -E '^(vacuum_full|raw_|recode_)|differ|peak' "$OUT/$name.log" | sort -u
done
