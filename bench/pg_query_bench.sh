#!/bin/bash
# bench/pg_query_bench.sh [data set ...]
#
# Times queries on a gsst column against the same queries on a text column,
# per dbtext file, in one throwaway cluster (./tmp/qbench, gsst preloaded):
# each file is loaded into q_text (id bigint primary key, c text) and
# q_gsst (the same with c text COMPRESSION gsst, rewritten with
# gsst.compress_table so that every value had the chance to be encoded).
# Each query runs $RUNS times on each table, text and gsst alternating,
# timed server-side (clock_timestamp around EXECUTE in PL/pgSQL, a fresh
# plan each time, so that constants are Consts); the median of each is kept.
# QUERIES="hash_join min_max" runs only those queries.
# BENCH_CLOCK=cpu times the backend's time on a CPU instead
# (/proc/self/schedstat, Linux), which other load on the machine does not
# lengthen: for a shared machine.  That counter moves in steps, so a query
# then runs until 100 ms are counted (50 times at most) and a run is the
# mean of its repetitions.
#
#   eq          SELECT count(*) WHERE c = '<a value>'            (seq scan)
#   in          ... WHERE c IN (5 values)                         (seq scan)
#   prefix      ... WHERE c LIKE '<first 3 characters>%'
#   substring   ... WHERE c LIKE '%<3 characters>%'
#   order_by    count(*) over a subquery ORDER BY c (a full sort)
#   group_by    count(*) over SELECT c ... GROUP BY c
#   hash_join   count(*) of the table JOIN a text copy ON c = c
#   length      sum(length(c))
#   lookup      2000 primary-key lookups returning c as text (PL/pgSQL loop)
#   top_n       SELECT c ... ORDER BY c LIMIT 10 (a bounded heap sort)
#   offset_last SELECT c ... ORDER BY c OFFSET n - 1 LIMIT 1 (a bounded
#               sort of every row: no abbreviated keys)
#   min_max     SELECT min(c), max(c) (no index)
#   merge_join  count(*) of the table JOIN itself ON c = c, hash and
#               nested-loop joins off (two sorts and a merge)
#   create_index CREATE INDEX ON the table (c), dropped after each run
#   btree_insert INSERT of the column's values into a copy of the table
#               (its own column, dictionaries learned) with an empty btree
#               on c: the table inserts its rows again under negative ids,
#               and a partial index on them takes every key; index and rows
#               are rolled back after each run (a subtransaction)
#
# Prints TSV (file, query, text_ms, gsst_ms, gsst/text), then per query the
# geomean of the ratio over the files and the worst file, and the geomean
# over everything; EXPLAIN (COSTS OFF) of every query on both tables goes to
# $CLUSTER_DIR/explain.txt.  Data sets are file names in $GSST_DATA_DIR or
# paths.  No
# parallel workers, work_mem = 1GB, shared_buffers = 1GB, tables read once
# before timing.  Needs the extension installed (make install); run as root
# it runs the server as $TEST_USER.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${GSST_DATA_DIR:-$ROOT/../shared/data/dbtext}
CLUSTER_DIR=${BENCH_DIR:-$ROOT/tmp/qbench}
CLUSTER_PORT=${BENCH_PORT:-5490}
RUNS=${RUNS:-7}
# QUERIES="hash_join min_max": only these queries
if [ -n "${QUERIES:-}" ]; then
	ONLY="ARRAY['$(echo "$QUERIES" | sed "s/ \+/','/g")']"
else
	ONLY=NULL
fi
CLOCK=${BENCH_CLOCK:-wall}
CLUSTER_CONF="shared_buffers = 1GB
work_mem = 1GB
max_parallel_workers_per_gather = 0
jit = off
autovacuum = off
synchronous_commit = off
max_wal_size = 4GB
checkpoint_timeout = 30min"
. "$ROOT/scripts/pgcluster.sh"

if [ $# -gt 0 ]; then
	FILES="$*"
else
	FILES=$(cd "$DATA" && ls | grep -v -e '\.md$' -e SHA256SUMS | sort)
fi

cluster_start >&2
psql_do -q -c 'CREATE EXTENSION gsst' >&2
psql_do -q >&2 <<'SQL'
-- the queries, for table tbl, with constants drawn from the data
-- setup and cleanup run untimed around each run of sql
CREATE FUNCTION bench_queries(tbl text) RETURNS TABLE (name text, sql text, setup text, cleanup text)
LANGUAGE plpgsql AS $$
DECLARE
	n bigint; v text; vs text[]; pre text; sub text; ins text := tbl || '_ins';
BEGIN
	setup := 'SELECT'; cleanup := 'SELECT';
	SELECT count(*) INTO n FROM q_text;
	SELECT c INTO v FROM q_text WHERE id = n / 2;
	SELECT array_agg(c ORDER BY id) INTO vs FROM q_text WHERE id IN (n / 7, n / 5, n / 3, n / 2 + 1, n - 1);
	pre := replace(replace(replace(left(v, 3), '\', '\\'), '%', '\%'), '_', '\_');
	sub := replace(replace(replace(substr(v, greatest(length(v) / 2, 1), 3), '\', '\\'), '%', '\%'), '_', '\_');
	name := 'eq'; sql := format('SELECT count(*) FROM %I WHERE c = %L', tbl, v); RETURN NEXT;
	name := 'in'; sql := format('SELECT count(*) FROM %I WHERE c IN (%L, %L, %L, %L, %L)',
	                            tbl, vs[1], vs[2], vs[3], vs[4], vs[5]); RETURN NEXT;
	name := 'prefix'; sql := format('SELECT count(*) FROM %I WHERE c LIKE %L', tbl, pre || '%'); RETURN NEXT;
	name := 'substring'; sql := format('SELECT count(*) FROM %I WHERE c LIKE %L', tbl, '%' || sub || '%'); RETURN NEXT;
	name := 'order_by'; sql := format('SELECT count(*) FROM (SELECT c FROM %I ORDER BY c OFFSET 0) s', tbl); RETURN NEXT;
	name := 'group_by'; sql := format('SELECT count(*) FROM (SELECT c FROM %I GROUP BY c) s', tbl); RETURN NEXT;
	name := 'hash_join'; sql := format('SELECT count(*) FROM %I a JOIN q_text_copy b ON a.c = b.c', tbl); RETURN NEXT;
	name := 'length'; sql := format('SELECT sum(length(c)) FROM %I', tbl); RETURN NEXT;
	name := 'lookup'; sql := format('SELECT bench_lookups(%L, %s, 2000)', tbl, n); RETURN NEXT;
	name := 'top_n'; sql := format('SELECT c FROM %I ORDER BY c LIMIT 10', tbl); RETURN NEXT;
	name := 'offset_last'; sql := format('SELECT c FROM %I ORDER BY c OFFSET %s LIMIT 1', tbl, n - 1); RETURN NEXT;
	name := 'min_max'; sql := format('SELECT min(c), max(c) FROM %I', tbl); RETURN NEXT;
	name := 'merge_join'; sql := format('SELECT count(*) FROM %I a JOIN %I b ON a.c = b.c', tbl, tbl);
	setup := 'SELECT set_config(''enable_hashjoin'', ''off'', false), set_config(''enable_nestloop'', ''off'', false)';
	cleanup := 'SELECT set_config(''enable_hashjoin'', ''on'', false), set_config(''enable_nestloop'', ''on'', false)';
	RETURN NEXT;
	name := 'create_index'; sql := format('CREATE INDEX bench_c ON %I (c)', tbl);
	setup := 'SELECT'; cleanup := 'DROP INDEX bench_c'; RETURN NEXT;
	name := 'btree_insert'; sql := format('INSERT INTO %I SELECT -id, c FROM %I WHERE id > 0', ins, ins);
	setup := format('CREATE INDEX bench_ins_c ON %I (c) WHERE id < 0', ins);
	cleanup := 'ROLLBACK'; RETURN NEXT;
END $$;

CREATE FUNCTION bench_lookups(tbl text, n bigint, iters int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE v text; total int := 0;
BEGIN
	FOR i IN 1..iters LOOP
		EXECUTE format('SELECT c::text FROM %I WHERE id = $1', tbl) INTO v USING 1 + (i::bigint * 7919) % n;
		total := total + length(v);
	END LOOP;
	RETURN total;
END $$;

-- the backend's time on a CPU (ns, from /proc/self/schedstat)
CREATE FUNCTION bench_cpu_ns() RETURNS bigint LANGUAGE sql AS
$$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint $$;

-- cleanup 'ROLLBACK': setup and sql run in a subtransaction that is rolled
-- back, so that what they wrote is gone for the next repetition (rows only
-- deleted in the transaction that runs the benchmark would still go into
-- the next setup's index)
CREATE FUNCTION bench_time(sql text, setup text, cleanup text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; c0 bigint; ms float8; total float8 := 0;
BEGIN
	IF cleanup = 'ROLLBACK' THEN
		FOR i IN 1..50 LOOP
			BEGIN
				EXECUTE setup;
				c0 := bench_cpu_ns();
				t0 := clock_timestamp();
				EXECUTE sql;
				IF current_setting('bench.clock') = 'cpu' THEN
					ms := (bench_cpu_ns() - c0) / 1e6;
				ELSE
					ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
				END IF;
				RAISE EXCEPTION USING ERRCODE = 'GS001';
			EXCEPTION WHEN SQLSTATE 'GS001' THEN
				total := total + ms;
			END;
			IF current_setting('bench.clock') <> 'cpu' THEN
				RETURN total;
			END IF;
			IF total >= 100 OR i = 50 THEN
				RETURN total / i;
			END IF;
		END LOOP;
	END IF;
	EXECUTE setup;
	IF current_setting('bench.clock') = 'cpu' THEN
		-- the counter moves at scheduler ticks: short queries repeat until
		-- 100 ms are counted, and the mean of the repetitions is kept
		ms := 0;
		FOR i IN 1..50 LOOP
			IF i > 1 THEN
				EXECUTE setup;
			END IF;
			c0 := bench_cpu_ns();
			EXECUTE sql;
			ms := ms + (bench_cpu_ns() - c0) / 1e6;
			EXECUTE cleanup;
			IF ms >= 100 OR i = 50 THEN
				RETURN ms / i;
			END IF;
		END LOOP;
	ELSE
		t0 := clock_timestamp();
		EXECUTE sql;
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	END IF;
	EXECUTE cleanup;
	RETURN ms;
END $$;

-- each query runs times on text and gsst, alternating; medians in ms
CREATE FUNCTION bench_run(runs int, wanted text[]) RETURNS TABLE (query text, text_ms float8, gsst_ms float8)
LANGUAGE plpgsql AS $$
DECLARE
	q record; g record; t float8[]; s float8[];
BEGIN
	FOR q IN SELECT * FROM bench_queries('q_text') b WHERE wanted IS NULL OR b.name = ANY (wanted) LOOP
		SELECT * INTO g FROM bench_queries('q_gsst') b WHERE b.name = q.name;
		t := '{}'; s := '{}';
		-- once each to warm the caches and the plans' dictionaries
		PERFORM bench_time(q.sql, q.setup, q.cleanup), bench_time(g.sql, g.setup, g.cleanup);
		FOR r IN 1..runs LOOP
			t := t || bench_time(q.sql, q.setup, q.cleanup);
			s := s || bench_time(g.sql, g.setup, g.cleanup);
		END LOOP;
		query := q.name;
		SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO text_ms FROM unnest(t) x;
		SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO gsst_ms FROM unnest(s) x;
		RETURN NEXT;
	END LOOP;
END $$;
SQL

q() { psql_do -qAt -c "$1"; }

: > "$CLUSTER_DIR/explain.txt"
{
printf 'file\tquery\ttext_ms\tgsst_ms\tgsst_vs_text\n'
for file in $FILES; do
	case $file in /*) path=$file; file=$(basename "$file") ;; *) path=$DATA/$file ;; esac
	# one extension for all files: dictionary ids climb from file to file, and
	# the later files' values have 3-byte headers (ids from 32 on)
	psql_do -q -c 'SET client_min_messages = warning' \
		-c 'DROP TABLE IF EXISTS q_text, q_text_copy, q_gsst, q_text_ins, q_gsst_ins' >&2
	psql_do -q >&2 <<SQL
SET client_min_messages = warning;
CREATE TABLE q_text (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text);
COPY q_text (c) FROM PROGRAM 'sed -e "s/\r\$//" $path'
  WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', FORCE_NOT_NULL (c));
CREATE TABLE q_text_copy AS SELECT c FROM q_text;
CREATE TABLE q_gsst (id bigint PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO q_gsst SELECT id, c FROM q_text ORDER BY id;
SELECT gsst.compress_table('q_gsst');
CREATE TABLE q_text_ins AS SELECT id, c FROM q_text;
CREATE TABLE q_gsst_ins (id bigint, c text COMPRESSION gsst);
INSERT INTO q_gsst_ins SELECT id, c FROM q_text ORDER BY id;
SELECT gsst.compress_table('q_gsst_ins');
VACUUM ANALYZE q_text, q_text_copy, q_gsst, q_text_ins, q_gsst_ins;
SELECT count(*) FROM q_text; SELECT count(*) FROM q_gsst; SELECT count(*) FROM q_text_copy;
SELECT count(*) FROM q_text_ins; SELECT count(*) FROM q_gsst_ins;
SQL
	check=$(q "SELECT count(*) FROM q_text t JOIN q_gsst g USING (id) WHERE t.c IS DISTINCT FROM g.c::text")
	[ "$check" = 0 ] || { echo "$file: $check values differ between text and gsst" >&2; exit 1; }
	{
		echo "== $file"
		psql_do -qAt -c "SELECT name, sql, setup FROM bench_queries('q_text') UNION ALL SELECT name, sql, setup FROM bench_queries('q_gsst') ORDER BY 1, 2" |
		while IFS='|' read -r name sql setup; do
			echo "-- $name: $sql"
			case $setup in
				*set_config*) psql_do -qAt -c "SET enable_hashjoin = off" -c "SET enable_nestloop = off" -c "EXPLAIN (COSTS OFF) $sql" ;;
				*bench_ins_c*|SELECT) case $sql in CREATE*) ;; *) psql_do -qAt -c "EXPLAIN (COSTS OFF) $sql" ;; esac ;;
			esac
		done
	} >> "$CLUSTER_DIR/explain.txt"
	psql_do -qAt -F $'\t' -c "SET bench.clock = '$CLOCK'" -c "SELECT '$file', query, round(text_ms::numeric, 3), round(gsst_ms::numeric, 3),
	                               round((gsst_ms / text_ms)::numeric, 3) FROM bench_run($RUNS, $ONLY)"
done
} | tee "$CLUSTER_DIR/results.tsv"

awk -f "$ROOT/bench/query_summary.awk" "$CLUSTER_DIR/results.tsv" | sort | tee -a "$CLUSTER_DIR/results.tsv"

cluster_stop
trap - EXIT
