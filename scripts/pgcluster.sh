# Shared by scripts/demo.sh and bench/pg_bench.sh (sourced, not run):
# a throwaway PostgreSQL cluster with gsst preloaded, run by an
# unprivileged user when we are root (initdb refuses root).
#
# In: CLUSTER_DIR, CLUSTER_PORT, PG_BINDIR, TEST_USER; optional CLUSTER_CONF.
# Out: functions cluster_start, cluster_stop, psql_do.

PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
TEST_USER=${TEST_USER:-gsst_test}

if [ "$(id -u)" = 0 ]; then
	RUN_AS=(runuser -u "$TEST_USER" --)
	DB_USER=$TEST_USER
else
	RUN_AS=()
	DB_USER=$(id -un)
fi

cluster_start() {
	rm -rf "$CLUSTER_DIR"
	mkdir -p "$CLUSTER_DIR"
	if [ "$(id -u)" = 0 ]; then
		chown "$TEST_USER" "$CLUSTER_DIR"
		if ! "${RUN_AS[@]}" test -w "$CLUSTER_DIR"; then
			# a parent directory is private to root (a clone under /root)
			local fallback="/tmp/gsst-$(basename "$CLUSTER_DIR")"
			echo "$TEST_USER cannot reach $CLUSTER_DIR; using $fallback" >&2
			rm -rf "$CLUSTER_DIR"
			CLUSTER_DIR=$fallback
			rm -rf "$CLUSTER_DIR"
			mkdir -p "$CLUSTER_DIR"
			chown "$TEST_USER" "$CLUSTER_DIR"
		fi
	fi
	"${RUN_AS[@]}" "$PG_BINDIR/initdb" -D "$CLUSTER_DIR/data" -E UTF8 --no-locale -A trust >/dev/null
	cat >> "$CLUSTER_DIR/data/postgresql.conf" <<CONF
shared_preload_libraries = 'gsst'
port = $CLUSTER_PORT
listen_addresses = ''
unix_socket_directories = '$CLUSTER_DIR'
${CLUSTER_CONF:-}
CONF
	"${RUN_AS[@]}" "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w start >/dev/null
	trap cluster_stop EXIT
}

cluster_stop() {
	if [ -f "$CLUSTER_DIR/data/postmaster.pid" ]; then
		"${RUN_AS[@]}" "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null || true
	fi
}

# cluster_remove: stop the cluster and delete its files
cluster_remove() {
	cluster_stop
	rm -rf "$CLUSTER_DIR"
}

# psql_do [psql args...]: a psql connected to the throwaway cluster.
psql_do() {
	"$PG_BINDIR/psql" -X -h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -U "$DB_USER" -d postgres "$@"
}
