#!/bin/bash
# bench/pg_gpu_bench.sh - end-to-end run of gsst in PostgreSQL with the GPU
# worker, on the device machine (run as root from the repository root):
#
#   bench/pg_gpu_bench.sh PG_TARBALL [COPIES]
#
# PG_TARBALL holds pg/ (a PostgreSQL 15 tree from Debian's packages, with
# gsst.so and gsst_gpu.so in pg/usr/lib/postgresql/15/lib, and the shared
# libraries it needs in pg/libs) and l_comment (dbtext).  The device reaches
# no registry, so the tree is carried.  The server runs as an unprivileged
# user (initdb refuses root).
#
# Table big: values of 16 consecutive l_comment lines (~430 bytes), the
# 6,250 of them repeated COPIES times (default 800: about 2.2 GB of text).
# Timed: gsst.compress_table of the raw table (after SET COMPRESSION gsst)
# with gsst.gpu on (big) and off (big_cpu, a copy), VACUUM FULL of the raw
# copy; then, on the compressed table, VACUUM FULL and compress_table with
# retrain (decode, learn, encode) on and off; and gsst.load against COPY on a
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
ROOT=/tmp/pggpu
mkdir -p "$OUT"
rm -f "$OUT/times.txt"
START=$(date +%s)
say() { echo "== [$(( $(date +%s) - START ))s] $*"; }

rm -rf "$ROOT" && mkdir -p "$ROOT" && tar -C "$ROOT" -xzf "$TARBALL" || exit 1
chmod -R a+rX "$ROOT"
PGBIN=$ROOT/pg/usr/lib/postgresql/15/bin
export LD_LIBRARY_PATH=$ROOT/pg/libs
PGUSER_UID=$(id -u nobody)
PGUSER_GID=$(id -g nobody)
as_pg() { setpriv --reuid="$PGUSER_UID" --regid="$PGUSER_GID" --clear-groups -- env HOME=/tmp LD_LIBRARY_PATH="$LD_LIBRARY_PATH" "$@"; }
mkdir -p "$ROOT/data" "$ROOT/sock"
chown "$PGUSER_UID:$PGUSER_GID" "$ROOT/data" "$ROOT/sock"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
nproc

as_pg "$PGBIN/initdb" -D "$ROOT/data" --no-locale -E UTF8 -U postgres >/dev/null || exit 1
cat >> "$ROOT/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$ROOT/sock'
shared_preload_libraries = 'gsst'
shared_buffers = ${SHARED_BUFFERS:-16GB}
maintenance_work_mem = 2GB
work_mem = 256MB
wal_level = minimal
max_wal_senders = 0
fsync = off
synchronous_commit = off
full_page_writes = off
max_wal_size = 200GB
checkpoint_timeout = 1h
autovacuum = off
jit = off
max_parallel_workers_per_gather = 0
gsst.worker_timeout = '10min'
gsst.batch_bytes = '64MB'
EOF
as_pg "$PGBIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/sock/server.log" -w start >/dev/null || { cat "$ROOT/sock/server.log"; exit 1; }
PSQL() { as_pg "$PGBIN/psql" -X -h "$ROOT/sock" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
say "server up"

PSQL -x -c "CREATE EXTENSION gsst" -c "SELECT pid, mode, gpu, device, last_error, helper_pid FROM gsst.worker_status"

say "building table big (${COPIES} copies)"
PSQL -q <<EOF || exit 1
CREATE UNLOGGED TABLE lc (n serial, c text);
COPY lc (c) FROM '$ROOT/l_comment';
CREATE UNLOGGED TABLE lc16 AS
  SELECT string_agg(c, ' ' ORDER BY n) AS c FROM lc GROUP BY (n - 1) / 16;
CREATE TABLE big (id bigint, c text);
INSERT INTO big SELECT g * 100000 + row_number() OVER (), c FROM lc16, generate_series(1, $COPIES) g;
ALTER TABLE big ALTER COLUMN c SET COMPRESSION gsst;
EOF
PSQL -At -c "SELECT 'big: ' || count(*) || ' rows, ' || round(sum(length(c)) / 1e9, 2) || ' GB of text, heap ' || pg_size_pretty(pg_table_size('big')) FROM big"

run() {
	local label=$1; shift
	local t0 t1
	t0=$(date +%s.%N)
	PSQL -q -At "$@" > "$OUT/$label.out" 2>&1
	local rc=$?
	t1=$(date +%s.%N)
	printf '%-28s %8.2f s  (rc %d)  %s\n' "$label" "$(awk "BEGIN { print $t1 - $t0 }")" "$rc" \
		"$(grep -v '^$' "$OUT/$label.out" | tail -1 | cut -c1-160)" | tee -a "$OUT/times.txt"
}

# a dictionary trained in a fresh backend (see the note in bench/README.md)
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
	run copy_gsst  -c "COPY l_copy FROM '$ROOT/sock/src.copy'"
	run copy_text  -c "COPY l_text FROM '$ROOT/sock/src.copy'"
	say "every row gsst.load stored via the GPU against the same row stored on the CPU"
	PSQL -At -c "SELECT 'pairs ' || count(*) || ', differing ' || count(*) FILTER (WHERE gsst.datum(a.c) IS DISTINCT FROM gsst.datum(b.c)) FROM l a JOIN l b ON b.id = a.id + 1000000000000"
	PSQL -c "SELECT \"values\", encoded_values, round(ratio::numeric, 3) AS ratio, dictionaries FROM gsst.column_stats('l')"
	PSQL -x -c "SELECT mode, gpu_batches, cpu_batches, failed_batches, backend_fallbacks, errors FROM gsst.worker_status"
fi

say "done"
cat "$OUT/times.txt"
as_pg "$PGBIN/pg_ctl" -D "$ROOT/data" -m immediate stop >/dev/null
cp "$ROOT/sock/server.log" "$OUT/server.log"
