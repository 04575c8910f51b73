#!/bin/bash
# make demo: a throwaway cluster in ./tmp/demo with gsst preloaded; loads a
# few dbtext columns as plain text, text with lz4, and gsst; prints the size
# comparison and a few queries; stops the cluster.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${GSST_DATA_DIR:-$ROOT/../shared/data/dbtext}
CLUSTER_DIR=${DEMO_DIR:-$ROOT/tmp/demo}
CLUSTER_PORT=${DEMO_PORT:-5488}
. "$ROOT/scripts/pgcluster.sh"

FILES="email urls2 l_comment c_name"
for f in $FILES; do
	[ -r "$DATA/$f" ] || { echo "missing data file $DATA/$f" >&2; exit 1; }
done

echo "== starting a throwaway cluster in $CLUSTER_DIR (shared_preload_libraries = gsst)"
cluster_start
psql_do -q -c 'CREATE EXTENSION gsst'

for f in $FILES; do
	echo "== loading $f: $(wc -l < "$DATA/$f") values, as text, text COMPRESSION lz4 and text COMPRESSION gsst"
	psql_do -q <<SQL
CREATE TABLE ${f}_text (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text);
CREATE TABLE ${f}_lz4  (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text COMPRESSION lz4);
CREATE TABLE ${f}_gsst (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text COMPRESSION gsst);
\copy ${f}_text (c) FROM program 'sed -e "s/\r\$//" $DATA/$f' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', FORCE_NOT_NULL (c))
\copy ${f}_lz4 (c) FROM program 'sed -e "s/\r\$//" $DATA/$f' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', FORCE_NOT_NULL (c))
\copy ${f}_gsst (c) FROM program 'sed -e "s/\r\$//" $DATA/$f' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', FORCE_NOT_NULL (c))
CREATE INDEX ON ${f}_gsst (c);
VACUUM ANALYZE ${f}_text, ${f}_lz4, ${f}_gsst;
SQL
done

echo
echo "== column sizes: sum(pg_column_size(c)); the gsst column learned its dictionary from its first 16 KB"
psql_do -q <<SQL
SELECT f AS data_set, n AS "values",
       pg_size_pretty(t) AS text, pg_size_pretty(l) AS lz4, pg_size_pretty(g) AS gsst,
       round(g::numeric / t, 3) AS gsst_vs_text, round(l::numeric / t, 3) AS lz4_vs_text
FROM (VALUES
  ('email',     (SELECT count(*) FROM email_text),     (SELECT sum(pg_column_size(c)) FROM email_text),     (SELECT sum(pg_column_size(c)) FROM email_lz4),     (SELECT sum(pg_column_size(c)) FROM email_gsst)),
  ('urls2',     (SELECT count(*) FROM urls2_text),     (SELECT sum(pg_column_size(c)) FROM urls2_text),     (SELECT sum(pg_column_size(c)) FROM urls2_lz4),     (SELECT sum(pg_column_size(c)) FROM urls2_gsst)),
  ('l_comment', (SELECT count(*) FROM l_comment_text), (SELECT sum(pg_column_size(c)) FROM l_comment_text), (SELECT sum(pg_column_size(c)) FROM l_comment_lz4), (SELECT sum(pg_column_size(c)) FROM l_comment_gsst)),
  ('c_name',    (SELECT count(*) FROM c_name_text),    (SELECT sum(pg_column_size(c)) FROM c_name_text),    (SELECT sum(pg_column_size(c)) FROM c_name_lz4),    (SELECT sum(pg_column_size(c)) FROM c_name_gsst))
) v(f, n, t, l, g);
SQL

echo "== table sizes (the gsst tables also carry an index on c)"
psql_do -q -c "SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS heap,
                      pg_size_pretty(pg_table_size(oid) - pg_relation_size(oid)) AS toast_fsm_vm,
                      pg_size_pretty(pg_indexes_size(oid)) AS indexes
               FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname"

echo "== the column is still text to every query"
psql_do <<'SQL'
\d+ email_gsst
-- point lookup through the index on the gsst column, with a text parameter
PREPARE lookup(text) AS SELECT id, c FROM email_gsst WHERE c = $1;
EXPLAIN (COSTS OFF) EXECUTE lookup('x');
SELECT c AS wanted FROM email_text WHERE id = 4242 \gset
EXECUTE lookup(:'wanted');
-- LIKE and regular expressions
SELECT count(*) AS gmail FROM email_gsst WHERE c LIKE '%@gmail.com';
SELECT count(*) AS https FROM urls2_gsst WHERE c ~ '^https://';
-- ORDER BY ... LIMIT, GROUP BY
SELECT c FROM c_name_gsst ORDER BY c DESC LIMIT 3;
SELECT split_part(c, '@', 2) AS domain, count(*) FROM email_gsst GROUP BY 1 ORDER BY 2 DESC LIMIT 5;
-- what compression achieved, per column
SELECT column_name, "values", encoded_values, raw_bytes, stored_bytes, round(ratio::numeric, 2) AS ratio, dictionaries
FROM gsst.column_stats('l_comment_gsst');
-- what the dictionary of l_comment learned: its longest symbols
SELECT code, length, symbol FROM gsst.dictionary((SELECT dictionaries[1] FROM gsst.column_stats('l_comment_gsst')))
ORDER BY length DESC, code LIMIT 12;
SQL

echo "== SET COMPRESSION gsst on an existing text column: metadata only, no rewrite"
psql_do <<'SQL'
SELECT pg_relation_filenode('urls2_text') AS filenode_before \gset
ALTER TABLE urls2_text ALTER COLUMN c SET COMPRESSION gsst;
SELECT pg_relation_filenode('urls2_text') = :filenode_before AS same_file;
UPDATE urls2_text SET c = c::text WHERE id <= 10000;
SELECT column_name, "values", encoded_values, round(ratio::numeric, 2) AS ratio FROM gsst.column_stats('urls2_text');
SQL

echo "== stopping the cluster"
cluster_stop
trap - EXIT
echo "demo done"
