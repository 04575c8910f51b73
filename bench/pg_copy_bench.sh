#!/bin/bash
# bench/pg_copy_bench.sh - COPY into a gsst column against COPY into text,
# and compress_table against VACUUM FULL, with bulk-load settings
# (wal_level = minimal, fsync = off), in a throwaway cluster (./tmp/copybench,
# gsst preloaded; as root the server runs as $TEST_USER).  Needs make install.
#
#   bench/pg_copy_bench.sh [ROUNDS]
#
# Two files made from l_comment ($GSST_DATA_DIR/l_comment): "short", its
# lines as they are (27 bytes on average), and "long", 16 lines joined
# (about 430 bytes, as bench/pg_gpu_bench.sh's table big), each about
# $MB megabytes.  Each round COPYs each file into a table truncated in the
# same transaction (so that wal_level = minimal writes no WAL for it), text
# and gsst alternating; the gsst table's column was trained before the
# rounds, so they time encoding with a dictionary, not learning one.  Then
# it rewrites a raw gsst copy of "long" with VACUUM FULL and compress_table,
# serially and with as many parallel workers as cores, alternating.  Prints each time and, per operation, the best
# of the rounds and the ratio of the bests, and the median of the rounds' own
# ratios (text and gsst back to back).  With PERF=1, records a perf
# profile of the backend during one gsst COPY of each file.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${GSST_DATA_DIR:-$ROOT/../shared/data/dbtext}
ROUNDS=${1:-5}
MB=${MB:-200}
CLUSTER_DIR=${BENCH_DIR:-$ROOT/tmp/copybench}
CLUSTER_PORT=${BENCH_PORT:-5488}
CLUSTER_CONF="shared_buffers = 1GB
wal_level = minimal
max_wal_senders = 0
fsync = off
synchronous_commit = off
full_page_writes = off
max_wal_size = 20GB
checkpoint_timeout = 1h
autovacuum = off
jit = off
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
max_worker_processes = 16
max_parallel_workers = 8
gsst.gpu = off"
. "$ROOT/scripts/pgcluster.sh"

cluster_start >&2
WORK=$CLUSTER_DIR/files
mkdir -p "$WORK"
# the files, made once: short = l_comment's lines, long = 16 of them joined
awk -v mb="$MB" '{ line[n++] = $0 } END {
	total = 0; while (total < mb * 1000000) for (i = 0; i < n && total < mb * 1000000; i++) { print line[i]; total += length(line[i]) + 1 } }' \
	"$DATA/l_comment" > "$WORK/short"
awk -v mb="$MB" '{ line[n++] = $0 } END {
	total = 0; while (total < mb * 1000000) for (i = 0; i + 16 <= n && total < mb * 1000000; i += 16) {
		s = line[i]; for (j = 1; j < 16; j++) s = s " " line[i + j]; print s; total += length(s) + 1 } }' \
	"$DATA/l_comment" > "$WORK/long"
chmod -R a+rX "$WORK"
[ "$(id -u)" = 0 ] && chown -R "$TEST_USER" "$WORK"

psql_do -q -c 'CREATE EXTENSION gsst' >&2
# per file: a text table, and a gsst table whose column is trained on it
for f in short long; do
	psql_do -q -v ON_ERROR_STOP=1 <<SQL >&2
CREATE TABLE t_$f (c text);
CREATE TABLE g_$f (c text);
COPY g_$f FROM '$WORK/$f';
ALTER TABLE g_$f ALTER COLUMN c SET COMPRESSION gsst;
SELECT gsst.train('g_$f', 'c');
SQL
done
echo "# files: short $(wc -l < "$WORK/short") rows, long $(wc -l < "$WORK/long") rows, $MB MB each; $(nproc) cores"

timed() {
	local label=$1 sql=$2 t0 t1
	t0=$(date +%s.%N)
	psql_do -q -v ON_ERROR_STOP=1 -c "$sql" >/dev/null
	t1=$(date +%s.%N)
	awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s\t%.3f\n", l, b - a }'
}

# COPY into a table truncated in the same transaction: with wal_level =
# minimal no WAL is written, as for a bulk load
copy_into() {
	local table=$1 file=$2
	echo "BEGIN; TRUNCATE $table; COPY $table FROM '$WORK/$file'; COMMIT;"
}

results=$(mktemp)
for r in $(seq 1 "$ROUNDS"); do
	for f in short long; do
		timed "copy_text_$f" "$(copy_into "t_$f" "$f")" | tee -a "$results"
		timed "copy_gsst_$f" "$(copy_into "g_$f" "$f")" | tee -a "$results"
	done
	# rewrites of the long file's raw rows in a gsst column
	psql_do -q -v ON_ERROR_STOP=1 -c "DROP TABLE IF EXISTS rw" \
		-c "CREATE TABLE rw (id serial, c text)" -c "COPY rw (c) FROM '$WORK/long'" \
		-c "ALTER TABLE rw ALTER COLUMN c SET COMPRESSION gsst" -c "CHECKPOINT" >/dev/null 2>&1
	timed vacuum_full_raw "VACUUM FULL rw" | tee -a "$results"
	timed compress_table "SELECT gsst.compress_table('rw', workers => 0)" | tee -a "$results"
	# and again from raw, with as many parallel workers as cores
	psql_do -q -v ON_ERROR_STOP=1 -c "DROP TABLE rw" -c "CREATE TABLE rw (id serial, c text)" \
		-c "COPY rw (c) FROM '$WORK/long'" -c "ALTER TABLE rw ALTER COLUMN c SET COMPRESSION gsst" \
		-c "CHECKPOINT" >/dev/null 2>&1
	timed compress_table_parallel "SELECT gsst.compress_table('rw', workers => $(nproc))" | tee -a "$results"
done

echo "# best of $ROUNDS (s) and ratios"
awk -F'\t' '{ if (!($1 in best) || $2 < best[$1]) best[$1] = $2 }
END {
	for (k in best) printf "%s\t%.3f\n", k, best[k]
	printf "ratio copy gsst/text short\t%.3f\n", best["copy_gsst_short"] / best["copy_text_short"]
	printf "ratio copy gsst/text long\t%.3f\n", best["copy_gsst_long"] / best["copy_text_long"]
	printf "ratio compress_table/vacuum_full\t%.3f\n", best["compress_table"] / best["vacuum_full_raw"]
	printf "ratio compress_table parallel/vacuum_full\t%.3f\n", best["compress_table_parallel"] / best["vacuum_full_raw"]
}' "$results" | sort
# the times of a COPY into text move by 50% between rounds while gsst's stay
# put: the ratio within each round (the two COPYs back to back), median
echo "# median of the $ROUNDS rounds' own ratios"
awk -F'\t' '{ n[$1]++; t[$1, n[$1]] = $2 }
function median(a, b,   i, j, k, v, r) {
	k = 0
	for (i = 1; i <= n[a]; i++) r[++k] = t[a, i] / t[b, i]
	for (i = 2; i <= k; i++) { v = r[i]; for (j = i - 1; j > 0 && r[j] > v; j--) r[j + 1] = r[j]; r[j + 1] = v }
	return k % 2 ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2
}
END {
	printf "median ratio copy gsst/text short\t%.3f\n", median("copy_gsst_short", "copy_text_short")
	printf "median ratio copy gsst/text long\t%.3f\n", median("copy_gsst_long", "copy_text_long")
	printf "median ratio compress_table/vacuum_full\t%.3f\n", median("compress_table", "vacuum_full_raw")
	printf "median ratio compress_table parallel/vacuum_full\t%.3f\n", median("compress_table_parallel", "vacuum_full_raw")
}' "$results"
psql_do -At -c "SELECT 'encoded: ' || string_agg(t || ' ' || encoded_values || '/' || \"values\", ', ') FROM (SELECT 'short' AS t, * FROM gsst.column_stats('g_short') UNION ALL SELECT 'long', * FROM gsst.column_stats('g_long')) s"
psql_do -At -c "SELECT 'stored: long ' || pg_size_pretty(pg_table_size('g_long')) || ' gsst vs ' || pg_size_pretty(pg_table_size('t_long')) || ' text; short ' || pg_size_pretty(pg_table_size('g_short')) || ' vs ' || pg_size_pretty(pg_table_size('t_short'))"

if [ -n "${PERF:-}" ]; then
	for f in short long; do
		coproc PSQL { psql_do -q -At; }
		echo "SELECT pg_backend_pid();" >&"${PSQL[1]}"
		read -r pid <&"${PSQL[0]}"
		perf record -q -g -p "$pid" -o "$CLUSTER_DIR/perf-$f.data" 2>/dev/null &
		perf_pid=$!
		sleep 1
		echo "BEGIN; TRUNCATE g_$f; COPY g_$f FROM '$WORK/$f'; COMMIT; SELECT 'done';" >&"${PSQL[1]}"
		read -r _ <&"${PSQL[0]}"
		kill -INT "$perf_pid"; wait "$perf_pid" || true
		psql_pid=$PSQL_PID
		echo "\\q" >&"${PSQL[1]}"
		wait "$psql_pid" 2>/dev/null || true
		echo "# perf, gsst COPY of $f: top symbols (self)"
		perf report -i "$CLUSTER_DIR/perf-$f.data" --no-children --stdio 2>/dev/null |
			grep -E '^ +[0-9]+\.[0-9]+%' | head -25 || true
	done
fi
rm -f "$results"
