#!/bin/bash
# bench/pg_query_device.sh BUNDLE.tgz DATA.tgz STREAMS [data set ...]
#
# bench/pg_query_bench.sh on a machine of many idle cores (the device
# machine, which reaches no registry), as root: unpacks the PostgreSQL tree
# that bench/pg_bundle.sh made (BUNDLE.tgz) and the data sets (DATA.tgz, a
# tarball of files at its top, as `tar -C ../shared/data/dbtext -czf
# DATA.tgz $(ls ../shared/data/dbtext)` makes), and runs STREAMS copies of
# pg_query_bench.sh at once, each with its own cluster, port and share of
# the data sets (dealt largest first, so that the shares take about as long),
# the servers run by nobody.  Each query's text and gsst runs still alternate
# within one backend; the streams share only the machine.  Then the streams'
# results are merged into one TSV with bench/query_summary.awk's summary.
#
# RUNS, BENCH_CLOCK and QUERIES pass through to pg_query_bench.sh.  With
# OVERLAY=TARBALL, gsst's files from another build (a tarball of pg/, made
# by make install DESTDIR=.../pg) replace the bundle's, to compare builds.  With
# MIXED1M=1 the data sets include mixed1m, made there as bench/README.md
# says.  STREAM_SECONDS (default 540) stops a stream that runs longer, so
# that what the others measured still comes back within the device's limit
# of a call.  Output goes to $OUT (default /tmp/pg_query_device): results.tsv,
# explain.txt and the streams' logs in streams.log.
set -euo pipefail
BUNDLE=${1:?usage: bench/pg_query_device.sh BUNDLE.tgz DATA.tgz STREAMS [data set ...]}
DATA_TGZ=${2:?usage: bench/pg_query_device.sh BUNDLE.tgz DATA.tgz STREAMS [data set ...]}
STREAMS=${3:?usage: bench/pg_query_device.sh BUNDLE.tgz DATA.tgz STREAMS [data set ...]}
shift 3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/pg_query_device}
WORK=/tmp/pgquery
rm -rf "$WORK" && mkdir -p "$WORK/data" "$OUT"
tar -C "$WORK" -xzf "$BUNDLE" pg
# another build of gsst over the bundle's (pg/... as make install DESTDIR puts it)
if [ -n "${OVERLAY:-}" ]; then tar -C "$WORK" -xzf "$OVERLAY"; fi
tar -C "$WORK/data" -xzf "$DATA_TGZ"
if [ "${MIXED1M:-0}" = 1 ]; then
	# head closes the pipe on shuf: not a failure here
	(cd "$WORK/data" && set +o pipefail && cat $(ls | grep -v -e '\.md$' -e SHA256SUMS) |
		shuf --random-source=<(yes) | head -n 1000000 >mixed1m)
	[ "$(wc -l <"$WORK/data/mixed1m")" = 1000000 ] || { echo "mixed1m: not a million lines" >&2; exit 1; }
fi
chmod -R a+rX "$WORK"
PG_BINDIR=$(ls -d "$WORK"/pg/usr/lib/postgresql/*/bin | head -n 1)
export PG_BINDIR LD_LIBRARY_PATH=$WORK/pg/libs TEST_USER=nobody GSST_DATA_DIR=$WORK/data
echo "$("$PG_BINDIR/postgres" --version), $(nproc) cores, $STREAMS streams"

if [ $# -gt 0 ]; then
	FILES="$*"
else
	FILES=$(cd "$WORK/data" && ls -S | grep -v -e '\.md$' -e SHA256SUMS)
fi
declare -a SHARE
i=0
for f in $FILES; do
	SHARE[i % STREAMS]="${SHARE[i % STREAMS]:-} $f"
	i=$((i + 1))
done

pids=()
for s in $(seq 0 $((STREAMS - 1))); do
	[ -n "${SHARE[s]:-}" ] || continue
	BENCH_DIR=$WORK/stream$s BENCH_PORT=$((5500 + s)) timeout "${STREAM_SECONDS:-540}" \
		"$ROOT/bench/pg_query_bench.sh" ${SHARE[s]} >"$WORK/stream$s.tsv" 2>"$WORK/stream$s.log" &
	pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
for s in $(seq 0 $((STREAMS - 1))); do
	[ -f "$WORK/stream$s.log" ] || continue
	echo "== stream $s:${SHARE[s]}"
	cat "$WORK/stream$s.log"
done >"$OUT/streams.log"
[ "$failed" = 0 ] || { echo "a stream failed or ran out of time (streams.log); merging what was measured" >&2; grep -i -e error -e fatal "$OUT/streams.log" | head >&2 || true; }

{
	printf 'file\tquery\ttext_ms\tgsst_ms\tgsst_vs_text\n'
	cat "$WORK"/stream*.tsv | grep -v -e '^file' -e '^#' | sort
} >"$OUT/results.tsv"
awk -f "$ROOT/bench/query_summary.awk" "$OUT/results.tsv" | sort | tee -a "$OUT/results.tsv"
cat "$WORK"/stream*/explain.txt >"$OUT/explain.txt" 2>/dev/null || true
exit "$failed"
