--
-- gsst.drop_unused_dictionaries(regclass) drops a family's dictionaries
-- that no stored value needs.  Each of d1..d5 below is named by one holder
-- only: btree pivots, a materialized view, an array in another table, a
-- composite in another table, the statistics.  The call keeps all five,
-- and drops each one once its holder is gone.  A partition bound, parsed
-- into codes when the partition was created, keeps one too.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET gsst.learn_sample_bytes = 0;
SET client_min_messages = warning;   -- family numbers depend on the tests before

CREATE TABLE du (id int, c text COMPRESSION gsst) WITH (autovacuum_enabled = false);
INSERT INTO du SELECT g, 'item ' || (g % 97) || ' of the catalogue, colour ' || (g % 13) || ', shelf ' || g
  FROM generate_series(1, 3000) g;
SELECT md5(string_agg(c::text, ',' ORDER BY id)) AS content FROM du \gset

-- d1: the keys of an index on a copy of the rows
SELECT gsst.train('du', 'c') AS d1 \gset
UPDATE du SET c = c::text;
CREATE TABLE du_k WITH (autovacuum_enabled = false) AS SELECT id, c FROM du;
CREATE INDEX du_k_c ON du_k (c);
-- d2: a materialized view
SELECT gsst.train('du', 'c') AS d2 \gset
UPDATE du SET c = c::text;
CREATE MATERIALIZED VIEW du_mv AS SELECT c FROM du WHERE id <= 10;
-- d3: an array of gsst in another table
SELECT gsst.train('du', 'c') AS d3 \gset
UPDATE du SET c = c::text;
CREATE TABLE du_arrays AS SELECT array_agg(c) AS a FROM du WHERE id <= 10;
-- d4: a composite value in another table
SELECT gsst.train('du', 'c') AS d4 \gset
UPDATE du SET c = c::text;
CREATE TYPE du_pair AS (n int, c gsst);
CREATE TABLE du_pairs AS SELECT ROW(id, c)::du_pair AS p FROM du WHERE id <= 10;
-- d5: the statistics (most common values, histogram) of a copy
SELECT gsst.train('du', 'c') AS d5 \gset
UPDATE du SET c = c::text;
CREATE TABLE du_s WITH (autovacuum_enabled = false) AS SELECT c FROM du;
ANALYZE du_s;
UPDATE du_s SET c = NULL;
-- d6, the newest: the rows, and the index's leaf entries
SELECT gsst.train('du', 'c') AS d6 \gset
UPDATE du SET c = c::text;
UPDATE du_k SET c = c::text;
VACUUM du;
VACUUM du_k;
VACUUM du_s;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) = :d6) AS rows_on_d6 FROM du;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) = :d6) AS rows_on_d6 FROM du_k;

-- Another session of this database that connected before a dictionary was
-- replaced keeps it (it may hold its codes in memory); let those end.
CREATE FUNCTION du_wait_alone() RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..200 LOOP
		PERFORM pg_stat_clear_snapshot();
		IF NOT EXISTS (SELECT FROM pg_stat_activity
					   WHERE datname = current_database() AND pid <> pg_backend_pid()
						 AND backend_type NOT IN ('autovacuum worker', 'walsender')) THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
	RETURN false;
END $$;
SELECT du_wait_alone();

-- 1. each is named somewhere: none is dropped
SELECT gsst.drop_unused_dictionaries('du');

-- 2. the index: VACUUM took its d1 leaf entries, but the pivots of inner
-- pages and the high keys keep d1 codes, and every descent compares them
SET enable_seqscan = off;
SELECT count(*) FROM du_k WHERE c = 'item 5 of the catalogue, colour 5, shelf 5';
RESET enable_seqscan;
DROP INDEX du_k_c;
SELECT gsst.drop_unused_dictionaries('du') = ARRAY[:d1] AS dropped_d1;

-- 3. the materialized view
SELECT count(*) FROM du_mv;
DROP MATERIALIZED VIEW du_mv;
SELECT gsst.drop_unused_dictionaries('du') = ARRAY[:d2] AS dropped_d2;

-- 4. the array
SELECT cardinality(a) FROM du_arrays;
DROP TABLE du_arrays;
SELECT gsst.drop_unused_dictionaries('du') = ARRAY[:d3] AS dropped_d3;

-- 5. the composite
SELECT gsst.value_dictionary((p).c) = :d4 AS on_d4 FROM du_pairs LIMIT 1;
DROP TABLE du_pairs;
DROP TYPE du_pair;
SELECT gsst.drop_unused_dictionaries('du') = ARRAY[:d4] AS dropped_d4;

-- 6. the statistics, until ANALYZE replaces them
SELECT gsst.drop_unused_dictionaries('du');
ANALYZE du_s;
SELECT gsst.drop_unused_dictionaries('du') = ARRAY[:d5] AS dropped_d5;

-- what is left decodes as it did; a dropped one is a tombstone, and a
-- value naming it could not decode with another table
SELECT md5(string_agg(c::text, ',' ORDER BY id)) = :'content' AS same_content FROM du;
SELECT id = ANY (ARRAY[:d1, :d2, :d3, :d4, :d5]) AS dropped, nsymbols >= 0 AS has_symbols,
       octet_length(symbols) > 0 AS has_bytes
  FROM gsst.dictionaries WHERE family = (SELECT family FROM gsst.dictionaries WHERE id = :d6) ORDER BY id;
SELECT gsst.drop_unused_dictionaries('du');      -- the newest stays

-- a partition bound is a constant in pg_class.relpartbound, encoded with the
-- family's dictionary of the day
CREATE TABLE du_p (c text COMPRESSION gsst) PARTITION BY LIST (c);
CREATE TABLE du_p_rest PARTITION OF du_p DEFAULT WITH (autovacuum_enabled = false);
INSERT INTO du_p SELECT c FROM du;
SELECT gsst.train('du_p', 'c') AS p1 \gset
CREATE TABLE du_p_one PARTITION OF du_p FOR VALUES IN ('item 1 of the catalogue, colour 1, shelf 0');
SELECT gsst.train('du_p', 'c') AS p2 \gset
UPDATE du_p SET c = c::text;
VACUUM du_p_rest, du_p_one;
SELECT count(*) FROM du_p_one;
SELECT gsst.drop_unused_dictionaries('du_p');
DROP TABLE du_p_one;
SELECT gsst.drop_unused_dictionaries('du_p') = ARRAY[:p1] AS dropped_p1;
DROP TABLE du_p;

-- 7. who may call it: not PUBLIC; with EXECUTE, only the table's owner
CREATE ROLE du_tenant;
SET ROLE du_tenant;
SELECT gsst.drop_unused_dictionaries('du');
RESET ROLE;
GRANT EXECUTE ON FUNCTION gsst.drop_unused_dictionaries(regclass) TO du_tenant;
SET ROLE du_tenant;
SELECT gsst.drop_unused_dictionaries('du');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION gsst.drop_unused_dictionaries(regclass) FROM du_tenant;
DROP ROLE du_tenant;

-- 8. what it cannot read stops it before anything is dropped
SELECT gsst.train('du', 'c') AS d7 \gset
UPDATE du SET c = c::text;
VACUUM du;
CREATE TYPE du_range AS RANGE (subtype = gsst);
CREATE TABLE du_ranges (r du_range);
SELECT gsst.drop_unused_dictionaries('du');
DROP TABLE du_ranges;
DROP TYPE du_range;
CREATE STATISTICS du_stats (mcv) ON id, c FROM du;
SELECT gsst.drop_unused_dictionaries('du');
DROP STATISTICS du_stats;
SELECT gsst.drop_unused_dictionaries('du') = ARRAY[:d6] AS dropped_d6;

DROP TABLE du, du_k, du_s;
DROP FUNCTION du_wait_alone();
RESET gsst.learn_sample_bytes;
RESET client_min_messages;
