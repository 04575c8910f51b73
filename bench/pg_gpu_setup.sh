# bench/pg_gpu_setup.sh - sourced by bench/pg_gpu_bench.sh and
# bench/pg_gpu_scaling.sh on the device machine: unpacks the PostgreSQL tree
# that bench/pg_bundle.sh made (TARBALL), starts a server as nobody with
# bulk-load settings, builds table big from l_comment (COPIES copies of 6,250
# values of 16 lines each) with its column converted to gsst, and defines
# PSQL, say, cpu_sample and run.  PRELOAD (default gsst) is the server's
# shared_preload_libraries; LISTEN (default none) its TCP address, on
# port 5432; BATCH_BYTES (default 16MB, the setting's own) its gsst.batch_bytes, and
# BATCH_REGION, when set, its gsst.batch_region.
OUT=${OUT:-/tmp/pg_gpu_bench}
ROOT=/tmp/pggpu
mkdir -p "$OUT"
rm -f "$OUT/times.txt"
START=$(date +%s)
say() { echo "== [$(( $(date +%s) - START ))s] $*"; }

rm -rf "$ROOT" && mkdir -p "$ROOT" && tar -C "$ROOT" -xzf "$TARBALL" || exit 1
chmod -R a+rX "$ROOT"
# the one major the bundle holds
PGBIN=$(ls -d "$ROOT"/pg/usr/lib/postgresql/*/bin | head -n 1)
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
listen_addresses = '${LISTEN:-}'
unix_socket_directories = '$ROOT/sock'
shared_preload_libraries = '${PRELOAD:-gsst}'
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
max_worker_processes = 40
max_parallel_workers = 32
max_parallel_maintenance_workers = ${MAINTENANCE_WORKERS:-0}
gsst.worker_timeout = '10min'
gsst.batch_bytes = '${BATCH_BYTES:-16MB}'
${BATCH_REGION:+gsst.batch_region = '$BATCH_REGION'}
EOF
as_pg "$PGBIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/sock/server.log" -w start >/dev/null || { cat "$ROOT/sock/server.log"; exit 1; }
PSQL() { as_pg "$PGBIN/psql" -X -h "$ROOT/sock" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
say "server up: $(PSQL -At -c "SHOW server_version")"

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

# cpu_sample: CPU seconds of the server's processes, "TOTAL HELPER WORKER":
# all of them, the GPU helper, the gsst worker (by their command lines, as
# ps shows them); each living one's own and those of its children that
# have exited (the postmaster's parallel workers and backends, the gsst
# worker's GPU helpers), from /proc, in one pass
cpu_sample() {
	local hz d kind
	hz=$(getconf CLK_TCK)
	for d in /proc/[0-9]*; do
		[ "$(stat -c %u "$d/stat" 2>/dev/null)" = "$PGUSER_UID" ] || continue
		case "$(tr '\0' ' ' < "$d/cmdline" 2>/dev/null)" in
			*gsst_gpu_helper*) kind=helper ;;
			*"gsst worker"*) kind=worker ;;
			*) kind=other ;;
		esac
		echo "$kind $(sed 's/^.*) //' "$d/stat" 2>/dev/null)"
	done | awk -v hz="$hz" '{ t = $13 + $14 + $15 + $16; all += t; by[$1] += t }
		END { printf "%.2f %.2f %.2f", all / hz, by["helper"] / hz, by["worker"] / hz }'
}

# run LABEL PSQL-ARGS...: time it, wall and CPU, into $OUT/times.txt.  A
# backend's seconds move to the postmaster's children's when it has exited
# and been reaped, which psql does not wait for: each sample waits a second
# first, so that the last session's backend is counted in its own run and
# not half in the next (a VACUUM FULL read 0.01 s of CPU without it).
run() {
	local label=$1; shift
	local t0 t1 cpu0 cpu1
	sleep 1
	cpu0=$(cpu_sample)
	t0=$(date +%s.%N)
	PSQL -q -At "$@" > "$OUT/$label.out" 2>&1
	local rc=$?
	t1=$(date +%s.%N)
	sleep 1
	cpu1=$(cpu_sample)
	# shellcheck disable=SC2086
	set -- $cpu0 $cpu1
	printf '%-28s %8.2f s  cpu %8.2f s  helper %6.2f s  worker %6.2f s  (rc %d)  %s\n' "$label" \
		"$(awk "BEGIN { print $t1 - $t0 }")" "$(awk "BEGIN { print $4 - $1 }")" \
		"$(awk "BEGIN { print $5 - $2 }")" "$(awk "BEGIN { print $6 - $3 }")" "$rc" \
		"$(grep -v '^$' "$OUT/$label.out" | tail -1 | cut -c1-160)" | tee -a "$OUT/times.txt"
}

