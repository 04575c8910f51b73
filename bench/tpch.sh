#!/bin/bash
# bench/tpch.sh: TPC-H's 22 queries on gsst against text.
#
# Builds dbgen and qgen from $TPCH_DBGEN (../shared/deps/tpch-dbgen.tar.gz)
# in ./tmp/tpch, generates scale $SCALE (default 1) and loads it twice into
# one throwaway cluster (./tmp/tpch-cluster, gsst preloaded):
#   tpch_text  the TPC-H schema as dss.ddl gives it (char(n), varchar(n))
#   tpch_gsst  the same with every string column text COMPRESSION gsst,
#              then gsst.compress_table on every table
# Both get the same primary keys, foreign keys and foreign-key indexes, then
# VACUUM (FREEZE, ANALYZE).  The queries come from qgen with a fixed seed
# ($SEED), made PostgreSQL's SQL (intervals, rownum -> LIMIT).
#
# Each query runs once on each database to warm up, then $RUNS times (default
# 3), text and gsst alternating (gsst first in even runs), each database in
# one psql session of its own, timed by psql's \timing (Q15 is three
# statements: the sum).  The median of each is kept.  Every run's result is
# compared between the two: md5 of psql's unaligned output, with the blanks
# that char(n) pads a field with removed.
#
# Prints TSV (query, text_ms, gsst_ms, gsst_vs_text, result), the geomean and
# the worst ratio, then the database sizes and each string column's size
# (sum of pg_column_size).  Saved to bench/results/tpch-<scale>-vm2core-
# <commit>.tsv; EXPLAIN (COSTS OFF) on both of every query above
# $SLOW_RATIO (1.2), and EXPLAIN ANALYZE of both, to ...-explain.txt.
#
# Settings: max_parallel_workers_per_gather = $PARALLEL (0), work_mem =
# $WORK_MEM (256MB), shared_buffers = $SHARED_BUFFERS (4GB: both databases
# of scale 1 fit), jit off,
# statement_timeout = $STATEMENT_TIMEOUT (10min), C collation.  Needs the
# extension installed (make install); run as root it runs the server as
# $TEST_USER.  PG_CONFIG or PG_BINDIR picks the PostgreSQL.  KEEP_CLUSTER=1
# leaves the cluster running at the end, for EXPLAIN ANALYZE by hand.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TPCH_DBGEN=${TPCH_DBGEN:-$ROOT/../shared/deps/tpch-dbgen.tar.gz}
WORK=${TPCH_WORK:-$ROOT/tmp/tpch}
SCALE=${SCALE:-1}
RUNS=${RUNS:-3}
SEED=${SEED:-1}
PARALLEL=${PARALLEL:-0}
WORK_MEM=${WORK_MEM:-256MB}
SHARED_BUFFERS=${SHARED_BUFFERS:-4GB}
STATEMENT_TIMEOUT=${STATEMENT_TIMEOUT:-10min}
SLOW_RATIO=${SLOW_RATIO:-1.2}
RESULTS=${RESULTS_DIR:-$ROOT/bench/results}
CLUSTER_DIR=${BENCH_DIR:-$ROOT/tmp/tpch-cluster}
CLUSTER_PORT=${BENCH_PORT:-5491}
if [ -z "${PG_BINDIR:-}" ] && [ -n "${PG_CONFIG:-}" ]; then
	PG_BINDIR=$("$PG_CONFIG" --bindir)
fi
CLUSTER_CONF="shared_buffers = $SHARED_BUFFERS
work_mem = $WORK_MEM
maintenance_work_mem = 1GB
max_parallel_workers_per_gather = $PARALLEL
jit = off
autovacuum = off
synchronous_commit = off
max_wal_size = 8GB
checkpoint_timeout = 30min"
. "$ROOT/scripts/pgcluster.sh"

COMMIT=$(git -C "$ROOT" rev-parse --short HEAD)
git -C "$ROOT" diff --quiet HEAD -- src sql bench/tpch.sh || COMMIT=$COMMIT-dirty
NAME=tpch-$SCALE-vm2core-$COMMIT

# --- dbgen, qgen, data, queries -------------------------------------------

SRC=$WORK/tpch-dbgen
if [ ! -x "$SRC/dbgen" ] || [ ! -x "$SRC/qgen" ]; then
	[ -f "$TPCH_DBGEN" ] || { echo "no $TPCH_DBGEN (set TPCH_DBGEN)" >&2; exit 1; }
	rm -rf "$SRC"
	mkdir -p "$WORK"
	tar -xzf "$TPCH_DBGEN" -C "$WORK"
	echo "building dbgen and qgen in $SRC" >&2
	make -C "$SRC" -s -j"$(nproc)" MACHINE=LINUX DATABASE=ORACLE WORKLOAD=TPCH \
		dbgen qgen >"$WORK/build.log" 2>&1 ||
		{ tail -20 "$WORK/build.log" >&2; exit 1; }
fi

DATA=$WORK/sf$SCALE
if [ ! -f "$DATA/.done" ]; then
	echo "generating scale $SCALE in $DATA" >&2
	rm -rf "$DATA"
	mkdir -p "$DATA"
	(cd "$SRC" && DSS_PATH=$DATA ./dbgen -q -f -s "$SCALE")
	chmod 644 "$DATA"/*.tbl   # dbgen creates some with a garbage mode
	touch "$DATA/.done"
fi

QUERIES=$WORK/queries-sf$SCALE-seed$SEED
rm -rf "$QUERIES"
mkdir -p "$QUERIES"
for q in $(seq 1 22); do
	# qgen writes Oracle's dialect: interval '90' day (3), and a
	# "where rownum <= N;" line after the statement for a row limit
	(cd "$SRC" && DSS_QUERY=queries ./qgen -r "$SEED" -s "$SCALE" "$q") |
	perl -0pe '
		s/interval \x27(\d+)\x27 (day|month|year)( \(\d+\))?/interval \x27$1 $2\x27/g;
		s/;\s*\nwhere rownum <= -1;\s*\n?/;\n/;
		s/;\s*\nwhere rownum <= (\d+);\s*\n?/\nlimit $1;\n/;
		s/\r//g' >"$QUERIES/q$q.sql"
	if grep -q -i -e rownum -e 'day (' "$QUERIES/q$q.sql"; then
		echo "q$q: qgen output not rewritten:" >&2; cat "$QUERIES/q$q.sql" >&2; exit 1
	fi
done

# --- the cluster and the two databases -------------------------------------

cluster_start >&2
psql_db() { local db=$1; shift; "$PG_BINDIR/psql" -X -v ON_ERROR_STOP=1 -h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -U "$DB_USER" -d "$db" "$@"; }
psql_do -q -c 'CREATE DATABASE tpch_text' -c 'CREATE DATABASE tpch_gsst' >&2

# the schema of dss.ddl; st TYPE gives a string column's type in database $1
schema() {
	local db=$1
	st() { if [ "$db" = gsst ]; then echo 'text COMPRESSION gsst'; else echo "$1"; fi; }
	cat <<SQL
CREATE TABLE region   (r_regionkey integer NOT NULL, r_name $(st 'char(25)') NOT NULL, r_comment $(st 'varchar(152)'));
CREATE TABLE nation   (n_nationkey integer NOT NULL, n_name $(st 'char(25)') NOT NULL, n_regionkey integer NOT NULL,
                       n_comment $(st 'varchar(152)'));
CREATE TABLE part     (p_partkey integer NOT NULL, p_name $(st 'varchar(55)') NOT NULL, p_mfgr $(st 'char(25)') NOT NULL,
                       p_brand $(st 'char(10)') NOT NULL, p_type $(st 'varchar(25)') NOT NULL, p_size integer NOT NULL,
                       p_container $(st 'char(10)') NOT NULL, p_retailprice decimal(15,2) NOT NULL,
                       p_comment $(st 'varchar(23)') NOT NULL);
CREATE TABLE supplier (s_suppkey integer NOT NULL, s_name $(st 'char(25)') NOT NULL, s_address $(st 'varchar(40)') NOT NULL,
                       s_nationkey integer NOT NULL, s_phone $(st 'char(15)') NOT NULL, s_acctbal decimal(15,2) NOT NULL,
                       s_comment $(st 'varchar(101)') NOT NULL);
CREATE TABLE partsupp (ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL,
                       ps_supplycost decimal(15,2) NOT NULL, ps_comment $(st 'varchar(199)') NOT NULL);
CREATE TABLE customer (c_custkey integer NOT NULL, c_name $(st 'varchar(25)') NOT NULL, c_address $(st 'varchar(40)') NOT NULL,
                       c_nationkey integer NOT NULL, c_phone $(st 'char(15)') NOT NULL, c_acctbal decimal(15,2) NOT NULL,
                       c_mktsegment $(st 'char(10)') NOT NULL, c_comment $(st 'varchar(117)') NOT NULL);
CREATE TABLE orders   (o_orderkey integer NOT NULL, o_custkey integer NOT NULL, o_orderstatus $(st 'char(1)') NOT NULL,
                       o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL,
                       o_orderpriority $(st 'char(15)') NOT NULL, o_clerk $(st 'char(15)') NOT NULL,
                       o_shippriority integer NOT NULL, o_comment $(st 'varchar(79)') NOT NULL);
CREATE TABLE lineitem (l_orderkey integer NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL,
                       l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL,
                       l_extendedprice decimal(15,2) NOT NULL, l_discount decimal(15,2) NOT NULL,
                       l_tax decimal(15,2) NOT NULL, l_returnflag $(st 'char(1)') NOT NULL,
                       l_linestatus $(st 'char(1)') NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL,
                       l_receiptdate date NOT NULL, l_shipinstruct $(st 'char(25)') NOT NULL,
                       l_shipmode $(st 'char(10)') NOT NULL, l_comment $(st 'varchar(44)') NOT NULL);
SQL
}

# keys as dss.ri gives them, and an index for every foreign key that no
# primary key leads with
KEYS="
ALTER TABLE region   ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation   ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part     ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders   ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
ALTER TABLE nation   ADD FOREIGN KEY (n_regionkey) REFERENCES region;
ALTER TABLE supplier ADD FOREIGN KEY (s_nationkey) REFERENCES nation;
ALTER TABLE customer ADD FOREIGN KEY (c_nationkey) REFERENCES nation;
ALTER TABLE partsupp ADD FOREIGN KEY (ps_partkey) REFERENCES part;
ALTER TABLE partsupp ADD FOREIGN KEY (ps_suppkey) REFERENCES supplier;
ALTER TABLE orders   ADD FOREIGN KEY (o_custkey) REFERENCES customer;
ALTER TABLE lineitem ADD FOREIGN KEY (l_orderkey) REFERENCES orders;
ALTER TABLE lineitem ADD FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp;
CREATE INDEX ON nation (n_regionkey);
CREATE INDEX ON supplier (s_nationkey);
CREATE INDEX ON customer (c_nationkey);
CREATE INDEX ON partsupp (ps_suppkey);
CREATE INDEX ON orders (o_custkey);
CREATE INDEX ON lineitem (l_partkey, l_suppkey);
CREATE INDEX ON lineitem (l_suppkey);"

TABLES="region nation part supplier partsupp customer orders lineitem"
: >"$CLUSTER_DIR/load.tsv"
for db in text gsst; do
	t0=$(date +%s.%N)
	[ $db = gsst ] && psql_db tpch_$db -q -c 'CREATE EXTENSION gsst' >&2
	schema $db | psql_db tpch_$db -q >&2
	for t in $TABLES; do
		# .tbl rows end in a | that COPY would take for an empty column
		sed -e 's/|$//' "$DATA/$t.tbl" |
			psql_db tpch_$db -q -c "COPY $t FROM STDIN WITH (FORMAT text, DELIMITER '|')" >&2
	done
	t1=$(date +%s.%N)
	if [ $db = gsst ]; then
		for t in $TABLES; do
			psql_db tpch_$db -q -c "SET client_min_messages = warning" -c "SELECT gsst.compress_table('$t')" >/dev/null
		done
	fi
	t2=$(date +%s.%N)
	psql_db tpch_$db -q -c "$KEYS" -c 'VACUUM (FREEZE, ANALYZE)' >&2
	t3=$(date +%s.%N)
	printf '%s\tcopy_s\t%.1f\n%s\tcompress_table_s\t%.1f\n%s\tkeys_indexes_analyze_s\t%.1f\n' \
		$db "$(echo "$t1 - $t0" | bc)" $db "$(echo "$t2 - $t1" | bc)" $db "$(echo "$t3 - $t2" | bc)" \
		>>"$CLUSTER_DIR/load.tsv"
done
for t in $TABLES; do
	a=$(psql_db tpch_text -qAt -c "SELECT count(*) FROM $t")
	b=$(psql_db tpch_gsst -qAt -c "SELECT count(*) FROM $t")
	[ "$a" = "$b" ] || { echo "$t: $a rows in text, $b in gsst" >&2; exit 1; }
done

# --- the runs ---------------------------------------------------------------

# one psql session per database, fed through a FIFO; its stdout (the \timing
# lines and a marker after each query) is line-buffered into a log
declare -A FD LOG PID
for db in text gsst; do
	mkfifo "$CLUSTER_DIR/in-$db"
	LOG[$db]=$CLUSTER_DIR/session-$db.log
	stdbuf -oL -eL "$PG_BINDIR/psql" -X -q -A -t -F '|' -h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -U "$DB_USER" \
		-d tpch_$db -c "SET statement_timeout = '$STATEMENT_TIMEOUT'" -f - \
		<"$CLUSTER_DIR/in-$db" >"${LOG[$db]}" 2>&1 &
	PID[$db]=$!
	exec {fd}>"$CLUSTER_DIR/in-$db"
	FD[$db]=$fd
	printf '\\timing on\n' >&"$fd"
done
stop_sessions() {
	for db in text gsst; do
		[ -n "${FD[$db]:-}" ] && { printf '\\q\n' >&"${FD[$db]}" 2>/dev/null || true; eval "exec ${FD[$db]}>&-"; }
		[ -n "${PID[$db]:-}" ] && wait "${PID[$db]}" 2>/dev/null || true
	done
}
trap 'stop_sessions; cluster_stop' EXIT

SEQ=0
# run_query DB Q OUTFILE: prints the query's time in ms, or "error"
run_query() {
	local db=$1 q=$2 out=$3 mark start
	SEQ=$((SEQ + 1))
	mark="@@done $SEQ"
	start=$(wc -l <"${LOG[$db]}")
	{ printf '\\o %s\n' "$out"; cat "$QUERIES/q$q.sql"; printf '\n\\o\n\\echo %s\n' "$mark"; } >&"${FD[$db]}"
	until tail -n +"$((start + 1))" "${LOG[$db]}" | grep -qxF "$mark"; do
		kill -0 "${PID[$db]}" 2>/dev/null || { echo "the psql session of tpch_$db ended" >&2; exit 1; }
		sleep 0.02
	done
	tail -n +"$((start + 1))" "${LOG[$db]}" | awk -v mark="$mark" '
		$0 == mark { exit }
		/ERROR|FATAL/ { err = 1 }
		/^Time: / { ms += $2 }
		END { if (err) print "error"; else printf "%.3f\n", ms }'
}

# the result as it would compare: char(n)'s padding blanks removed
result_md5() { sed -E -e 's/ +\|/|/g' -e 's/ +$//' "$1" | md5sum | cut -d' ' -f1; }

OUTS=$CLUSTER_DIR/out
mkdir -p "$OUTS"
: >"$CLUSTER_DIR/times.tsv"
for q in $(seq 1 22); do
	for db in text gsst; do run_query $db "$q" "$OUTS/q$q-$db-warm.txt" >/dev/null; done
done
for r in $(seq 1 "$RUNS"); do
	order="text gsst"
	[ $((r % 2)) = 0 ] && order="gsst text"
	for q in $(seq 1 22); do
		for db in $order; do
			ms=$(run_query $db "$q" "$OUTS/q$q-$db-$r.txt")
			printf '%s\t%s\t%s\t%s\t%s\n' "$q" "$r" "$db" "$ms" "$(result_md5 "$OUTS/q$q-$db-$r.txt")" \
				>>"$CLUSTER_DIR/times.tsv"
		done
		echo "run $r q$q done" >&2
	done
done

# --- sizes ------------------------------------------------------------------

sizes() {
	local db=$1
	psql_db tpch_$db -qAt -F $'\t' -c "SELECT 'database', '-', pg_database_size(current_database())"
	psql_db tpch_$db -qAt -F $'\t' <<'SQL' | psql_db tpch_$db -qAt -F $'\t'
SELECT format('SELECT %L, %L, sum(pg_column_size(%I)) FROM %I;', c.relname, a.attname, a.attname, c.relname)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
  AND a.atttypid IN ('bpchar'::regtype, 'varchar'::regtype, 'text'::regtype,
                     coalesce(to_regtype('gsst'), 'text'::regtype))
ORDER BY c.relname, a.attnum;
SQL
	psql_db tpch_$db -qAt -F $'\t' -c "SELECT relname, '(table)', pg_table_size(oid) FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY relname"
}
sizes text >"$CLUSTER_DIR/sizes-text.tsv"
sizes gsst >"$CLUSTER_DIR/sizes-gsst.tsv"

# --- the report -------------------------------------------------------------

mkdir -p "$RESULTS"
TSV=$RESULTS/$NAME.tsv
EXPLAIN=$RESULTS/$NAME-explain.txt
{
	printf '# TPC-H scale %s, qgen seed %s, %s runs (median), commit %s, %s\n' \
		"$SCALE" "$SEED" "$RUNS" "$COMMIT" "$("$PG_BINDIR/postgres" --version)"
	printf '# max_parallel_workers_per_gather = %s, work_mem = %s, shared_buffers = %s, jit off, statement_timeout = %s\n' \
		"$PARALLEL" "$WORK_MEM" "$SHARED_BUFFERS" "$STATEMENT_TIMEOUT"
	printf 'query\ttext_ms\tgsst_ms\tgsst_vs_text\tresult\n'
	awk -F'\t' '
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		k = $1 SUBSEP $3
		if ($4 == "error") err[$1] = 1; else ms[k] = ms[k] " " $4
		md5[$1, $2, $3] = $5; runs[$2] = 1; qs[$1] = 1
	}
	END {
		for (q = 1; q <= 22; q++) {
			if (!(q in qs)) continue
			same = "identical"
			for (r in runs) if (md5[q, r, "text"] != md5[q, r, "gsst"]) same = "DIFFERENT"
			if (err[q]) { printf "q%d\terror\terror\t-\t%s\n", q, same; continue }
			t = median(ms[q SUBSEP "text"]); g = median(ms[q SUBSEP "gsst"])
			printf "q%d\t%.1f\t%.1f\t%.3f\t%s\n", q, t, g, g / t, same
			s += log(g / t); n++
			if (g / t > worst) { worst = g / t; wq = q }
			tt += t; tg += g
		}
		printf "# geomean\t\t\t%.3f\n", exp(s / n)
		printf "# worst\tq%d\t\t%.3f\n", wq, worst
		printf "# total_ms\t%.1f\t%.1f\t%.3f\n", tt, tg, tg / tt
	}' "$CLUSTER_DIR/times.tsv"
	printf '\ntable\tcolumn\ttext_bytes\tgsst_bytes\tgsst_vs_text\n'
	join -t $'\t' <(awk -F'\t' '{ print $1 "/" $2 "\t" $3 }' "$CLUSTER_DIR/sizes-text.tsv" | sort) \
		<(awk -F'\t' '{ print $1 "/" $2 "\t" $3 }' "$CLUSTER_DIR/sizes-gsst.tsv" | sort) |
		awk -F'\t' '{ split($1, k, "/"); printf "%s\t%s\t%d\t%d\t%.3f\n", k[1], k[2], $2, $3, $3 / $2 }' |
		sort -t $'\t' -k1,1 -k2,2
	paste <(awk -F'\t' '$2 != "(table)" && $1 != "database" { s += $3 } END { print s }' "$CLUSTER_DIR/sizes-text.tsv") \
		<(awk -F'\t' '$2 != "(table)" && $1 != "database" { s += $3 } END { print s }' "$CLUSTER_DIR/sizes-gsst.tsv") |
		awk -F'\t' '{ printf "all strings\t-\t%d\t%d\t%.3f\n", $1, $2, $2 / $1 }'
	printf '\nstep\ttext_s\tgsst_s\n'
	awk -F'\t' '{ v[$2, $1] = $3; s[$2] = 1 } END { for (k in s) printf "%s\t%s\t%s\n", k, v[k, "text"], v[k, "gsst"] }' \
		"$CLUSTER_DIR/load.tsv" | sort
} >"$TSV"

# EXPLAIN of both for every query above $SLOW_RATIO
explain_of() {
	local db=$1 q=$2 opts=$3
	sed -e "s/^select\$/explain ($opts) select/" "$QUERIES/q$q.sql" |
		psql_db tpch_$db -q -c "SET statement_timeout = '$STATEMENT_TIMEOUT'" -f - 2>&1 || true
}
SLOW=$(awk -F'\t' -v lim="$SLOW_RATIO" '/^q[0-9]/ && $4 != "-" && $4 + 0 > lim + 0 { print substr($1, 2) }' "$TSV")
{
	echo "# TPC-H scale $SCALE, commit $COMMIT: queries above ${SLOW_RATIO}x: ${SLOW:-none}"
	for q in $SLOW; do
		for db in text gsst; do
			echo "== q$q $db: EXPLAIN (COSTS OFF)"
			explain_of $db "$q" 'costs off'
		done
		for db in text gsst; do
			echo "== q$q $db: EXPLAIN (ANALYZE, BUFFERS)"
			explain_of $db "$q" 'analyze, buffers'
		done
	done
} >"$EXPLAIN"

if [ "${KEEP_CLUSTER:-0}" = 1 ]; then
	stop_sessions
	trap - EXIT
	echo "cluster left running: psql -h $CLUSTER_DIR -p $CLUSTER_PORT -U $DB_USER -d tpch_text (or tpch_gsst)" >&2
fi
cat "$TSV"
echo "raw: $TSV; plans: $EXPLAIN" >&2
column -t -s $'\t' <(sed -n '/^query/,/^$/p' "$TSV") >&2
