#!/bin/bash
# bench/pg_gpu_scaling.sh - gsst.compress_table against VACUUM FULL with 0 to
# 16 parallel workers, on the GPU and on the CPU, on the device machine (run
# as root from the repository root; the tree comes from bench/pg_bundle.sh):
#
#   bench/pg_gpu_scaling.sh PG_TARBALL [COPIES] [DEGREES]
#
# Table big as in bench/pg_gpu_bench.sh (COPIES copies, default 800: 5 M
# rows, 2.19 GB of text).  Timed, each with the CPU seconds of every server
# process (cpu_sample in pg_gpu_setup.sh):
#   - raw -> gsst: VACUUM FULL of a raw copy, then compress_table of a fresh
#     raw copy at 0 workers and at the largest degree, GPU and CPU;
#   - recode (retrain => true: decode, learn, encode) at each degree of
#     DEGREES (default "0 1 2 4 8 16"), GPU then CPU, with VACUUM FULL of the
#     compressed table before each pair.
# Checks the last rewrite of each kind against per-row encoding (5% sample).
# Each compress_table runs in its own transaction, so that the closing
# NOTICEs give the statement and its COMMIT apart: the commit drops the old
# heap's files and buffers, which VACUUM FULL (timed whole) does too.
#
# LARGE=1, for tables too big to copy on the machine's disk (COPIES 8000:
# 50 M rows, 22 GB): no copies; VACUUM FULL of the raw table, raw -> gsst of
# it at the largest degree on the GPU, then recode on the GPU and the CPU
# at that degree with a VACUUM FULL before each.  Both modes record the
# peak GPU memory in use and the peak resident memory of the gsst worker
# and of its GPU helper, sampled every half second.
set -u -o pipefail
TARBALL=${1:?usage: bench/pg_gpu_scaling.sh PG_TARBALL [COPIES] [DEGREES]}
COPIES=${2:-800}
DEGREES=${3:-0 1 2 4 8 16}
OUT=${OUT:-/tmp/pg_gpu_scaling}
. "$(dirname "$0")/pg_gpu_setup.sh"

MAX=$(echo "$DEGREES" | tr ' ' '\n' | sort -n | tail -1)
PSQL -At -c "SELECT gsst.train('big', 'c')" >/dev/null

# rewrite LABEL GPU(on|off) ARGS: compress_table(ARGS), then COMMIT, each timed
rewrite() {
	run "$1" -c "SET gsst.gpu = $2" -c '\timing on' -c BEGIN \
		-c "SELECT gsst.compress_table($3)" -c COMMIT
}

# peaks: GPU memory used (MiB), gsst worker and GPU helper VmHWM (kB)
peak_sampler() {
	local g=0 w=0 h=0 v d kb
	while :; do
		v=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1)
		[ -n "$v" ] && [ "$v" -gt "$g" ] && g=$v
		for d in /proc/[0-9]*; do
			kb=$(awk '/^VmHWM/ { print $2 }' "$d/status" 2>/dev/null)
			[ -n "$kb" ] || continue
			case "$(tr '\0' ' ' < "$d/cmdline" 2>/dev/null)" in
				*gsst_gpu_helper*) [ "$kb" -gt "$h" ] && h=$kb ;;
				*"gsst worker"*) [ "$kb" -gt "$w" ] && w=$kb ;;
			esac
		done
		echo "peak GPU memory used $g MiB; gsst worker VmHWM $((w / 1024)) MiB; GPU helper VmHWM $((h / 1024)) MiB" > "$OUT/peaks.txt"
		sleep 0.5
	done
}
peak_sampler &
SAMPLER=$!

if [ "${LARGE:-0}" = 1 ]; then
	say "large table: raw -> gsst"
	# the load's WAL (the table was made in another transaction) would fill
	# the disk before VACUUM FULL's copy: recycle it
	PSQL -q -c "ALTER SYSTEM SET max_wal_size = '4GB'" -c "SELECT pg_reload_conf()" -c "CHECKPOINT" >/dev/null
	df -h "$ROOT" | tail -1
	run vacuum_full_raw -c "VACUUM FULL big"
	rewrite "raw_gpu_w$MAX" on "'big', workers => $MAX"
	say "recode with retrain"
	for mode in gpu cpu; do
		run "vacuum_full_w$MAX" -c "VACUUM FULL big"
		rewrite "recode_${mode}_w$MAX" "$([ $mode = gpu ] && echo on || echo off)" \
			"'big', retrain => true, workers => $MAX"
	done
	PSQL -At -c "SELECT 'big: 1% sample against per-row encoding: ' || count(*) || ' rows, ' || count(*) FILTER (WHERE gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text, (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'big'::regclass AND attname = 'c')))) || ' differ; heap ' || pg_size_pretty(pg_table_size('big')) FROM big TABLESAMPLE SYSTEM (1)"
	DEGREES=
fi
[ "${LARGE:-0}" = 1 ] || PSQL -q -c "CREATE TABLE big_text AS SELECT id, c::text AS c FROM big"

# raw_copy NAME: a raw gsst table of big's rows, trained, checkpointed
raw_copy() {
	PSQL -q -c "DROP TABLE IF EXISTS $1" -c "CREATE TABLE $1 (id bigint, c text)" \
		-c "INSERT INTO $1 SELECT * FROM big_text" -c "ALTER TABLE $1 ALTER COLUMN c SET COMPRESSION gsst" \
		-c "CHECKPOINT" >/dev/null 2>&1
	PSQL -At -c "SELECT gsst.train('$1', 'c')" >/dev/null
}

sample_check() {
	PSQL -At -c "SELECT '$1: 5% sample against per-row encoding: ' || count(*) || ' rows, ' || count(*) FILTER (WHERE gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text, (SELECT atttypmod FROM pg_attribute WHERE attrelid = '$1'::regclass AND attname = 'c')))) || ' differ' FROM $1 TABLESAMPLE SYSTEM (5)"
}

if [ "${LARGE:-0}" != 1 ]; then
say "raw -> gsst"
raw_copy r
run vacuum_full_raw -c "VACUUM FULL r"
for mode in gpu cpu; do
	for w in 0 "$MAX"; do
		[ "$mode" = cpu ] && [ "$w" = 0 ] && continue
		raw_copy r
		rewrite "raw_${mode}_w$w" "$([ $mode = gpu ] && echo on || echo off)" "'r', workers => $w"
	done
done
sample_check r

say "recode with retrain"
for w in $DEGREES; do
	run "vacuum_full_w$w" -c "VACUUM FULL big"
	rewrite "recode_gpu_w$w" on "'big', retrain => true, workers => $w"
	rewrite "recode_cpu_w$w" off "'big', retrain => true, workers => $w"
done
sample_check big
fi
PSQL -x -c "SELECT mode, device, gpu_batches, cpu_batches, failed_batches, backend_fallbacks, errors, helper_failures FROM gsst.worker_status"

say "NOTICEs"
for f in "$OUT"/raw_*.out "$OUT"/recode_*.out; do
	# \timing's lines: BEGIN, the statement, COMMIT
	echo "$(basename "$f" .out): statement $(grep -h '^Time:' "$f" | sed -n 2p | cut -d' ' -f2) ms," \
		"commit $(grep -h '^Time:' "$f" | sed -n 3p | cut -d' ' -f2) ms;" \
		"$(grep -h 'DETAIL' "$f" | tail -1 | sed 's/^DETAIL:  //')"
done
kill "$SAMPLER" 2>/dev/null
say "done"
cat "$OUT/peaks.txt"
cat "$OUT/times.txt"
as_pg "$PGBIN/pg_ctl" -D "$ROOT/data" -m immediate stop >/dev/null
