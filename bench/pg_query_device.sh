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
# RUNS, BENCH_CLOCK and QUERIES pass through to pg_query_bench.sh.  Output
# goes to $OUT (default /tmp/pg_query_device): results.tsv, explain.txt and
# the streams' logs in streams.log.
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
tar -C "$WORK/data" -xzf "$DATA_TGZ"
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
	BENCH_DIR=$WORK/stream$s BENCH_PORT=$((5500 + s)) \
		"$ROOT/bench/pg_query_bench.sh" ${SHARE[s]} >"$OUT/stream$s.tsv" 2>"$OUT/stream$s.log" &
	pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
for log in "$OUT"/stream[0-9]*.log; do echo "== $log"; cat "$log"; done >"$OUT/streams.log"
rm -f "$OUT"/stream[0-9]*.log
[ "$failed" = 0 ] || { echo "a stream failed:" >&2; grep -i -e error -e fatal "$OUT/streams.log" | head >&2; exit 1; }

{
	printf 'file\tquery\ttext_ms\tgsst_ms\tgsst_vs_text\n'
	cat "$OUT"/stream*.tsv | grep -v -e '^file' -e '^#' | sort
} >"$OUT/results.tsv"
awk -f "$ROOT/bench/query_summary.awk" "$OUT/results.tsv" | sort | tee -a "$OUT/results.tsv"
cat "$WORK"/stream*/explain.txt >"$OUT/explain.txt" 2>/dev/null || true
rm -f "$OUT"/stream*.tsv
