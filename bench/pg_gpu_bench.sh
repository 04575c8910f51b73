#!/bin/bash
# bench/pg_gpu_bench.sh - end-to-end run of gsst in PostgreSQL with the GPU
# worker, on the device machine (run as root from the repository root):
#
#   bench/pg_gpu_bench.sh PG_TARBALL [COPIES]
#
# PG_TARBALL holds pg/ (a PostgreSQL tree from Debian's packages, with
# gsst.so and gsst_gpu.so in pg/usr/lib/postgresql/N/lib, and the shared
# libraries it needs in pg/libs) and l_comment (dbtext).  The device reaches
# no registry, so the tree is carried.  The server runs as an unprivileged
# user (initdb refuses root).
#
# Table big: values of 16 consecutive l_comment lines (~430 bytes), the
# 6,250 of them repeated COPIES times (default 800: about 2.2 GB of text).
# Timed: gsst.compress_table of the raw table (after SET COMPRESSION gsst)
# with gsst.gpu on (big) and off (big_cpu, a copy), VACUUM FULL of the raw
# copy; then, on the compressed table, VACUUM FULL and compress_table with
# retrain (decode, learn, encode) on and off; and gsst.load (GPU, CPU, and
# CPU with $LOAD_WORKERS encoder workers, default 8) against COPY on a
# quarter of the rows.  Checked: every row of big (GPU) against big_cpu
# (CPU, its own dictionary trained on the same values: sizes and text), a
# sample of each against per-row encoding, and every row gsst.load
# stored via the GPU against the same row loaded on the CPU.  Then the GPU
# helper is killed (-9) in the middle of a compress_table: the rewrite must
# finish with per-row bytes, the cluster must not restart, a new helper must
# come back.  bench/pg_bundle.sh builds PG_TARBALL.
set -u -o pipefail
TARBALL=${1:?usage: bench/pg_gpu_bench.sh PG_TARBALL [COPIES]}
COPIES=${2:-800}
OUT=${OUT:-/tmp/pg_gpu_bench}
. "$(dirname "$0")/pg_gpu_setup.sh"

# a dictionary trained in a fresh backend
PSQL -At -c "SELECT gsst.train('big', 'c')" >/dev/null
PSQL -At -c "SELECT 'dictionary ' || id || ': ' || nsymbols || ' symbols' FROM gsst.dictionaries ORDER BY id DESC LIMIT 1"
# big_cpu: the same raw rows in a gsst column of its own (a column's family
# is its own, so big_cpu trains its own dictionary, from the same values)
PSQL -q -c "CREATE TABLE big_cpu (id bigint, c text)" -c "INSERT INTO big_cpu SELECT id, c::text FROM big" \
	-c "ALTER TABLE big_cpu ALTER COLUMN c SET COMPRESSION gsst"
PSQL -At -c "SELECT gsst.train('big_cpu', 'c')" >/dev/null

say "timings"
run vacuum_full_raw      -c "VACUUM FULL big_cpu"
run compress_raw_gpu     -c "SET gsst.gpu = on" -c "SELECT gsst.compress_table('big')"
run compress_raw_cpu     -c "SET gsst.gpu = off" -c "SELECT gsst.compress_table('big_cpu')"
PSQL -c "SELECT 'big' AS t, \"values\", encoded_values, raw_bytes, stored_bytes, round(ratio::numeric, 3) AS ratio, dictionaries, pg_size_pretty(pg_table_size('big')) AS heap FROM gsst.column_stats('big') UNION ALL SELECT 'big_cpu', \"values\", encoded_values, raw_bytes, stored_bytes, round(ratio::numeric, 3), dictionaries, pg_size_pretty(pg_table_size('big_cpu')) FROM gsst.column_stats('big_cpu')"
PSQL -At -c "SELECT 'big and big_cpu rows whose stored sizes differ: ' || count(*) FILTER (WHERE pg_column_size(a.c) <> pg_column_size(b.c)) || ', text differs: ' || count(*) FILTER (WHERE a.c::text <> b.c::text) || ' of ' || count(*) FROM big a JOIN big_cpu b USING (id)"
PSQL -At -c "SELECT 'big_cpu (CPU) against per-row encoding, 5% sample: ' || count(*) || ', differing ' || count(*) FILTER (WHERE gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text, (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'big_cpu'::regclass AND attname = 'c')))) FROM big_cpu TABLESAMPLE SYSTEM (5)"
PSQL -q -c "DROP TABLE big_cpu"
run vacuum_full          -c "VACUUM FULL big"
run recode_gpu           -c "SET gsst.gpu = on" -c "SELECT gsst.compress_table('big', retrain => true)"
run recode_cpu           -c "SET gsst.gpu = off" -c "SELECT gsst.compress_table('big', retrain => true)"
if [ -n "${REPEAT:-}" ]; then
	run recode_gpu_again     -c "SET gsst.gpu = on" -c "SELECT gsst.compress_table('big', retrain => true)"
	run vacuum_full_again    -c "VACUUM FULL big"
fi
PSQL -c "SELECT \"values\", encoded_values, round(ratio::numeric, 3) AS ratio, dictionaries, pg_size_pretty(pg_table_size('big')) AS heap FROM gsst.column_stats('big')"
grep -h "NOTICE\|DETAIL" "$OUT"/compress_*.out "$OUT"/recode_*.out | sed 's/^/  /'

say "GPU bytes against per-row (CPU) encoding, 5% sample"
PSQL -At -c "SELECT 'sampled ' || count(*) || ', differing ' || count(*) FILTER (WHERE gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text, (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'big'::regclass AND attname = 'c')))) FROM big TABLESAMPLE SYSTEM (5)"
PSQL -x -c "SELECT mode, device, gpu_batches, cpu_batches, failed_batches, backend_fallbacks, bytes_in, bytes_out, errors, last_error FROM gsst.worker_status"

say "kill -9 of the GPU helper in the middle of compress_table"
HELPER=$(PSQL -At -c "SELECT helper_pid FROM gsst.worker_status")
PSQL -At -c "SET gsst.gpu = on" -c "SELECT gsst.compress_table('big', retrain => true)" > "$OUT/kill.out" 2>&1 &
RUNNING=$!
sleep "${KILL_AFTER_S:-3}"
if [ -n "$HELPER" ] && kill -9 "$HELPER"; then echo "killed helper $HELPER"; else echo "no helper to kill"; fi
wait "$RUNNING"; echo "compress_table: rc $?, $(tail -1 "$OUT/kill.out")"
echo "crash restarts in the server log: $(grep -c 'terminating any other active server processes' "$ROOT/sock/server.log")"
sleep 2
PSQL -x -c "SELECT mode, device, gpu_batches, cpu_batches, failed_batches, backend_fallbacks, errors, helper_pid, helper_starts, helper_failures FROM gsst.worker_status"
grep -h "gsst" "$ROOT/sock/server.log" | grep -i "helper" | tail -3
PSQL -At -c "SELECT 'after the kill, sampled ' || count(*) || ', differing from per-row encoding ' || count(*) FILTER (WHERE gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text, (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'big'::regclass AND attname = 'c')))) FROM big TABLESAMPLE SYSTEM (5)"

if [ $(( $(date +%s) - START )) -gt ${LOAD_AFTER_S:-200} ]; then
	say "out of time: load and COPY skipped"
else
	say "gsst.load against COPY (a quarter of big)"
	PSQL -q <<EOF
CREATE TABLE src AS SELECT id, c::text AS c FROM big WHERE id % 4 = 0;
COPY src TO '$ROOT/sock/src.copy';
CREATE TABLE l (id bigint, c text COMPRESSION gsst);
CREATE TABLE l_copy (id bigint, c text COMPRESSION gsst);
CREATE TABLE l_text (id bigint, c text);
EOF
	PSQL -At -c "SELECT 'src: ' || count(*) || ' rows, ' || round(sum(length(c)) / 1e9, 2) || ' GB of text' FROM src"
	run load_gpu   -c "SET gsst.gpu = on" -c "SELECT gsst.load('l', 'SELECT id, c FROM src', 50000)"
	run load_cpu   -c "SET gsst.gpu = off" -c "SELECT gsst.load('l', 'SELECT id + 1000000000000, c FROM src', 50000)"
	run load_cpu_pool -c "SET gsst.gpu = off" -c "SET max_parallel_maintenance_workers = ${LOAD_WORKERS:-8}" \
		-c "SELECT gsst.load('l', 'SELECT id + 2000000000000, c FROM src', 50000)"
	run copy_gsst  -c "COPY l_copy FROM '$ROOT/sock/src.copy'"
	run copy_text  -c "COPY l_text FROM '$ROOT/sock/src.copy'"
	say "every row gsst.load stored via the GPU against the same row stored on the CPU"
	PSQL -At -c "SELECT 'pairs ' || count(*) || ', differing ' || count(*) FILTER (WHERE gsst.datum(a.c) IS DISTINCT FROM gsst.datum(b.c)) FROM l a JOIN l b ON b.id = a.id + 1000000000000"
	PSQL -At -c "SELECT 'encoder pool against the GPU: pairs ' || count(*) || ', differing ' || count(*) FILTER (WHERE gsst.datum(a.c) IS DISTINCT FROM gsst.datum(b.c)) FROM l a JOIN l b ON b.id = a.id + 2000000000000"
	PSQL -c "SELECT \"values\", encoded_values, round(ratio::numeric, 3) AS ratio, dictionaries FROM gsst.column_stats('l')"
	PSQL -x -c "SELECT mode, gpu_batches, cpu_batches, failed_batches, backend_fallbacks, errors FROM gsst.worker_status"
fi

say "done"
cat "$OUT/times.txt"
as_pg "$PGBIN/pg_ctl" -D "$ROOT/data" -m immediate stop >/dev/null
cp "$ROOT/sock/server.log" "$OUT/server.log"
