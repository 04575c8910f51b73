#!/bin/bash
# bench/pg_citus_bench.sh - gsst.compress_table of a Citus distributed
# table from the coordinator, against the same on one node's table and
# against VACUUM FULL of the distributed table, on the device machine (run
# as root from the repository root; the tree comes from
# GSST_CITUS=1 bench/pg_bundle.sh, PostgreSQL 15 with Citus):
#
#   bench/pg_citus_bench.sh PG_TARBALL [COPIES] [SHARDS] [ROUNDS]
#
# A coordinator (port 5432, which holds the single-node table) and two
# workers (5433, 5434) on one machine, each as pg_gpu_setup.sh sets up its
# server.  Table big (COPIES copies, default 800: 5 M rows, 2.19 GB of
# text) is built on the coordinator; r is a raw gsst copy of it there, and
# d the same rows in a table distributed over SHARDS shards (default 32).
# Timed, with the CPU seconds of all three servers' processes:
#   - VACUUM FULL r, then compress_table('r', workers => 16) on the
#     coordinator, GPU then CPU (each on a fresh raw r);
#   - VACUUM FULL d, then compress_table('d') from the coordinator, GPU
#     then CPU (each on a fresh raw d; gsst.gpu set on every node).
# Then the column's size on each side, and the text of r and d against big.
# ROUNDS (default 2) repeats it all, the CPU path first in even rounds.
set -u -o pipefail
TARBALL=${1:?usage: bench/pg_citus_bench.sh PG_TARBALL [COPIES] [SHARDS]}
COPIES=${2:-800}
SHARDS=${3:-32}
ROUNDS=${4:-2}
OUT=${OUT:-/tmp/pg_citus_bench}
PRELOAD=citus,gsst
LISTEN=127.0.0.1
. "$(dirname "$0")/pg_gpu_setup.sh"

PORTS="5433 5434"
PSQLP() { local port=$1; shift; as_pg "$PGBIN/psql" -X -h "$ROOT/sock" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

say "workers"
for port in $PORTS; do
	dir=$ROOT/data$port
	mkdir -p "$dir" && chown "$PGUSER_UID:$PGUSER_GID" "$dir"
	as_pg "$PGBIN/initdb" -D "$dir" --no-locale -E UTF8 -U postgres >/dev/null || exit 1
	grep -v -e '^port' "$ROOT/data/postgresql.conf" > "$dir/postgresql.conf.new"
	mv "$dir/postgresql.conf.new" "$dir/postgresql.conf"
	echo "port = $port" >> "$dir/postgresql.conf"
	chown "$PGUSER_UID:$PGUSER_GID" "$dir/postgresql.conf"
	as_pg "$PGBIN/pg_ctl" -D "$dir" -l "$ROOT/sock/server$port.log" -w start >/dev/null ||
		{ cat "$ROOT/sock/server$port.log"; exit 1; }
	PSQLP "$port" -q -c "CREATE EXTENSION citus" -c "CREATE EXTENSION gsst" || exit 1
done
PSQL -q -c "CREATE EXTENSION citus" -c "SELECT citus_set_coordinator_host('127.0.0.1', 5432)" || exit 1
for port in $PORTS; do
	PSQL -q -c "SELECT citus_add_node('127.0.0.1', $port)" || exit 1
done
PSQL -At -c "SELECT 'nodes: ' || string_agg(nodeport::text, ' ' ORDER BY nodeport) FROM pg_dist_node"

# gpu MODE: gsst.gpu on or off on every node
gpu() {
	for port in 5432 $PORTS; do
		PSQLP "$port" -q -c "ALTER SYSTEM SET gsst.gpu = $1" -c "SELECT pg_reload_conf()" >/dev/null || exit 1
	done
}
checkpoint() { for port in 5432 $PORTS; do PSQLP "$port" -q -c CHECKPOINT; done; }

PSQL -q -c "CREATE TABLE big_text AS SELECT id, c::text AS c FROM big" || exit 1

# raw_local: r, a raw gsst copy of big on the coordinator, trained
raw_local() {
	PSQL -q -c "DROP TABLE IF EXISTS r" -c "CREATE TABLE r (id bigint, c text)" \
		-c "INSERT INTO r SELECT * FROM big_text" -c "ALTER TABLE r ALTER COLUMN c SET COMPRESSION gsst" \
		>/dev/null 2>&1 || exit 1
	PSQL -At -c "SELECT gsst.train('r', 'c')" >/dev/null || exit 1
	checkpoint
}

# raw_dist: d, the same rows distributed over $SHARDS shards, raw gsst,
# each shard trained
raw_dist() {
	PSQL -q -c "DROP TABLE IF EXISTS d" -c "CREATE TABLE d (id bigint, c text)" \
		-c "SELECT create_distributed_table('d', 'id', shard_count => $SHARDS)" \
		-c "INSERT INTO d SELECT * FROM big_text" -c "ALTER TABLE d ALTER COLUMN c SET COMPRESSION gsst" \
		>/dev/null 2>&1 || exit 1
	PSQL -At -c "SELECT gsst.train('d', 'c')" >/dev/null || exit 1
	checkpoint
}

sizes() {
	PSQL -At -c "SELECT '$1: r ' || pg_size_pretty(pg_table_size('r')) || ', column ' || pg_size_pretty((SELECT sum(pg_column_size(c)) FROM r)) || '; d ' || pg_size_pretty(citus_table_size('d')) || ', column ' || pg_size_pretty((SELECT sum(pg_column_size(c)) FROM d))"
	PSQL -At -c "SELECT '$1: column bytes d / r = ' || round((SELECT sum(pg_column_size(c)) FROM d)::numeric / (SELECT sum(pg_column_size(c)) FROM r), 4)"
}

same_text() {
	PSQL -At -c "SELECT '$1: text equal to big''s: ' || ((SELECT count(*) || ' rows, ' || sum(hashtextextended(c::text, id)) FROM $1) = (SELECT count(*) || ' rows, ' || sum(hashtextextended(c, id)) FROM big_text))"
}

for round in $(seq 1 "$ROUNDS"); do
	modes="gpu cpu"
	[ $((round % 2)) = 0 ] && modes="cpu gpu"
	for mode in $modes; do
		say "round $round: $mode"
		gpu "$([ $mode = gpu ] && echo on || echo off)"
		raw_local
		[ "$mode" = gpu ] && run "vacuum_full_single_r$round" -c "VACUUM FULL r"
		run "single_${mode}_w16_r$round" -c "SELECT gsst.compress_table('r', workers => 16)"
		raw_dist
		[ "$mode" = gpu ] && run "vacuum_full_dist_r$round" -c "VACUUM FULL d"
		run "dist_${mode}_${SHARDS}shards_r$round" -c "SELECT gsst.compress_table('d')"
		sizes "$mode"
		same_text r
		same_text d
	done
done
PSQL -x -c "SELECT mode, device, gpu_batches, cpu_batches, failed_batches, backend_fallbacks, errors FROM gsst.worker_status"
for port in $PORTS; do
	PSQLP "$port" -At -c "SELECT 'worker $port: ' || mode || ' ' || coalesce(device, '') || ', gpu batches ' || gpu_batches || ', cpu batches ' || cpu_batches || ', errors ' || errors FROM gsst.worker_status"
done
say "done"
echo "== times"
cat "$OUT/times.txt"
for dir in "$ROOT"/data5433 "$ROOT"/data5434 "$ROOT"/data; do
	as_pg "$PGBIN/pg_ctl" -D "$dir" -m fast stop >/dev/null
done
