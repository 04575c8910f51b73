--
-- Every path that compares gsst values, against text's answer on the same
-- data: bounded sorts, merge joins, btree builds, inserts and searches,
-- min/max, DISTINCT and GROUP BY, under "C", the database's default and
-- an ICU collation.  (Named to run last: it creates families, and other
-- files print family numbers.)
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 4096;
SELECT setseed(0.30);

-- Dictionary ids past 30 first: the column's dictionaries then straddle
-- the datum headers of 2 bytes (ids below 32) and 3 bytes (from 32 on),
-- both of which the comparisons read inline.
CREATE TABLE cp_ids (c text COMPRESSION gsst);
INSERT INTO cp_ids SELECT 'dictionary id ' || i FROM generate_series(1, 50) i;
DO $$
BEGIN
	WHILE coalesce((SELECT max(id) FROM gsst.dictionaries), 0) < 30 LOOP
		PERFORM gsst.train('cp_ids', 'c');
	END LOOP;
END $$;
DROP TABLE cp_ids;

-- Values of two dictionaries of the column, of another column's
-- dictionary, raw values, empty strings, non-ASCII text, and values that
-- are prefixes of each other (encoded and raw).
CREATE TABLE cp (id serial PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO cp (c)
SELECT 'user' || (i % 400) || '@' || (ARRAY['example.com', 'mail.org', 'web.de'])[1 + i % 3]
       || repeat('.x', i % 3)
FROM generate_series(1, 1500) i;
INSERT INTO cp (c)
SELECT 'https://www.' || (ARRAY['shop', 'news', 'wiki'])[1 + i % 3] || '.example/'
       || substr(md5(i::text), 1, 1 + i % 12)
FROM generate_series(1, 500) i;
INSERT INTO cp (c) SELECT 'naïve café ✓ ' || (i % 50) || repeat('é', i % 4) FROM generate_series(1, 200) i;
SELECT gsst.train('cp', 'c') > 0 AS trained;
INSERT INTO cp (c)
SELECT 'https://www.' || (ARRAY['shop', 'news', 'wiki'])[1 + i % 3] || '.example/'
       || substr(md5(i::text), 1, 1 + i % 12)
FROM generate_series(1, 400) i;
INSERT INTO cp (c)
SELECT 'user' || (i % 400) || '@' || (ARRAY['example.com', 'mail.org', 'web.de'])[1 + i % 3]
FROM generate_series(1, 300) i;
INSERT INTO cp (c) SELECT 'naïve café ✓ ' || (i % 50) || repeat('é', i % 4) FROM generate_series(1, 200) i;
CREATE TABLE cp_other (c text COMPRESSION gsst);
INSERT INTO cp_other SELECT 'user' || (i % 300) || '@web.de' FROM generate_series(1, 2000) i;
INSERT INTO cp (c) SELECT c FROM cp_other
WHERE c LIKE 'user2%' AND gsst.value_dictionary(c) IS NOT NULL;
INSERT INTO cp (c) VALUES (''), (''), ('u'), ('us'), ('use'), ('user'), ('user1'), ('user1@'),
	('Zoë'), ('東京'), ('東京都'), ('ÅÄÖ'), ('Ä'), ('A'), ('a'), ('z'), ('~'), ('é'), ('e'), ('E'),
	('user1@example.com'), ('user1@example.co'), ('user1@example.comm'), (NULL), (NULL);
INSERT INTO cp (c)
SELECT substr(md5(random()::text), 1, (random() * 30)::int) FROM generate_series(1, 200);
ANALYZE cp;
CREATE TABLE cp_t AS SELECT id, c::text AS c FROM cp;
ANALYZE cp_t;
SELECT bool_or(gsst.value_dictionary(c) >= 32) AS three_byte_headers FROM cp;

SELECT count(DISTINCT gsst.value_dictionary(c)) AS dictionaries,
       count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL AND c IS NOT NULL) > 200 AS many_raw,
       count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 2500 AS many_encoded,
       count(*) FILTER (WHERE c = '') AS empty,
       count(*) FILTER (WHERE c IS NULL) AS nulls
FROM cp;
-- texts stored in two ways: raw and with a dictionary, or with two
SELECT c::text AS c, count(DISTINCT coalesce(gsst.value_dictionary(c), 0)) AS spellings,
       bool_or(gsst.value_dictionary(c) IS NULL) AS raw
FROM cp WHERE c IN ('user1@mail.org.x', 'user2@web.de', 'user1@example.com', 'naïve café ✓ 7ééé')
GROUP BY 1 ORDER BY c::text COLLATE "C";

-- the collations checked: "C", the default, and ICU's root
CREATE COLLATION cp_icu (provider = icu, locale = 'und');

-- A query on cp and the same on cp_t give the same rows in the same order.
CREATE FUNCTION cp_same(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	g text[]; t text[];
BEGIN
	EXECUTE format('SELECT array_agg(x::text) FROM (%s) s(x)', replace(q, '$tbl', 'cp')) INTO g;
	EXECUTE format('SELECT array_agg(x::text) FROM (%s) s(x)', replace(q, '$tbl', 'cp_t')) INTO t;
	IF g IS DISTINCT FROM t THEN
		RETURN 'differs: ' || left(g::text, 200) || ' / ' || left(t::text, 200);
	END IF;
	RETURN 'same (' || coalesce(cardinality(t), 0) || ')';
END $$;

-- The plan node a query uses, to show that the path is the one meant.
CREATE FUNCTION cp_plan(q text, node text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%' || node || '%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;

-- Bounded sorts (a Sort under a Limit: a top-N heapsort, no abbreviated
-- keys; EXPLAIN ANALYZE of 18 may call its method "still in progress"),
-- with and without OFFSET, in both directions, under each collation.
SELECT cp_plan('SELECT c FROM cp ORDER BY c LIMIT 10', 'Limit')
       AND cp_plan('SELECT c FROM cp ORDER BY c LIMIT 10', '->  Sort') AS top_n;
SELECT coll, cp_same(format('SELECT c FROM $tbl ORDER BY c COLLATE %s, id LIMIT 25', coll)) AS first_25,
       cp_same(format('SELECT c FROM $tbl ORDER BY c COLLATE %s DESC, id LIMIT 25', coll)) AS last_25,
       cp_same(format('SELECT c FROM $tbl ORDER BY c COLLATE %s NULLS FIRST, id OFFSET 2000 LIMIT 5', coll)) AS offset_2000,
       cp_same(format('SELECT c FROM $tbl WHERE c IS NOT NULL ORDER BY c COLLATE %s OFFSET (SELECT count(c) - 1 FROM cp_t) LIMIT 1', coll)) AS offset_last
FROM unnest(ARRAY['"C"', '"default"', 'cp_icu']) coll;
-- a full sort of every row, for comparison
SELECT coll, cp_same(format('SELECT c FROM $tbl ORDER BY c COLLATE %s, id', coll)) AS full_sort
FROM unnest(ARRAY['"C"', '"default"', 'cp_icu']) coll;

-- min and max, as aggregates and as index lookups later: gsst's own
-- aggregates, which compare stored values
SELECT pg_typeof(min(c)) AS min_type, pg_typeof(max(c)) AS max_type FROM cp;
SELECT coll, cp_same(format('SELECT min(c COLLATE %1$s) FROM $tbl UNION ALL SELECT max(c COLLATE %1$s) FROM $tbl', coll)) AS min_max
FROM unnest(ARRAY['"C"', '"default"', 'cp_icu']) coll;
SELECT min(c) = (SELECT min(c) FROM cp_t) AS min_c, max(c) = (SELECT max(c) FROM cp_t) AS max_c,
       min(c COLLATE cp_icu) = (SELECT min(c COLLATE cp_icu) FROM cp_t) AS min_icu
FROM cp;

-- DISTINCT and GROUP BY, by sorting and by hashing
SET enable_hashagg = off;
SELECT cp_plan('SELECT DISTINCT c FROM cp', 'Unique') AS sorted_distinct;
SELECT coll, cp_same(format('SELECT DISTINCT c COLLATE %s FROM $tbl ORDER BY 1', coll)) AS distinct_sorted,
       cp_same(format('SELECT c COLLATE %s || '':'' || count(*) FROM $tbl GROUP BY c COLLATE %1$s ORDER BY c COLLATE %1$s', coll)) AS group_by_sorted
FROM unnest(ARRAY['"C"', '"default"', 'cp_icu']) coll;
RESET enable_hashagg;
SET enable_sort = off;
SELECT cp_plan('SELECT DISTINCT c FROM cp', 'HashAggregate') AS hashed_distinct;
SELECT cp_same('SELECT x FROM (SELECT DISTINCT c FROM $tbl) s(x) ORDER BY x') AS distinct_hashed,
       cp_same('SELECT x FROM (SELECT c || '':'' || count(*) FROM $tbl GROUP BY c) s(x) ORDER BY x') AS group_by_hashed;
RESET enable_sort;

-- Merge joins: gsst with gsst (one column, and two columns with their own
-- dictionaries), gsst with text, text with gsst.
CREATE TABLE cp2 (id serial PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO cp2 (c) SELECT c FROM cp_t ORDER BY id DESC;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(a.c) IS NOT NULL) > 1000 AS cp2_encoded,
       count(*) FILTER (WHERE a.c IS NOT DISTINCT FROM b.c) AS same_text
FROM cp2 a JOIN cp_t b ON b.id = (SELECT max(id) FROM cp_t) + 1 - a.id;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT cp_plan('SELECT count(*) FROM cp a JOIN cp b ON a.c = b.c', 'Merge Join') AS merge_join;
SELECT (SELECT count(*) FROM cp a JOIN cp b ON a.c = b.c) AS gsst_gsst,
       (SELECT count(*) FROM cp a JOIN cp2 b ON a.c = b.c) AS gsst_other_column,
       (SELECT count(*) FROM cp a JOIN cp_t b ON a.c = b.c) AS gsst_text,
       (SELECT count(*) FROM cp_t a JOIN cp b ON a.c = b.c) AS text_gsst,
       (SELECT count(*) FROM cp_t a JOIN cp_t b ON a.c = b.c) AS text_text;
SELECT cp_same('SELECT a.id || '':'' || b.id FROM $tbl a JOIN $tbl b ON a.c = b.c ORDER BY a.id, b.id') AS merge_pairs,
       cp_same('SELECT a.id || '':'' || b.id FROM $tbl a JOIN cp2 b ON a.c = b.c ORDER BY a.id, b.id') AS merge_pairs_other,
       cp_same('SELECT a.id || '':'' || b.id FROM $tbl a LEFT JOIN cp_t b ON a.c = b.c ORDER BY a.id, b.id') AS merge_left_text;
SELECT cp_same('SELECT a.id || '':'' || b.id FROM $tbl a JOIN $tbl b ON a.c = b.c COLLATE cp_icu ORDER BY a.id, b.id') AS merge_pairs_icu;
RESET enable_hashjoin;
RESET enable_nestloop;

-- Hash joins, gsst hashed and probed with text and the other way round: a
-- match tests the codes against the text as far as they differ; values
-- one character longer or shorter than a match differ at the end.
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT cp_plan('SELECT count(*) FROM cp_t a JOIN cp b ON a.c = b.c', 'Hash Join') AS hash_join;
SELECT cp_same('SELECT a.id || '':'' || b.id FROM cp_t a JOIN $tbl b ON a.c = b.c ORDER BY a.id, b.id') AS hash_pairs_text_gsst,
       cp_same('SELECT a.id || '':'' || b.id FROM $tbl a JOIN cp_t b ON a.c = b.c ORDER BY a.id, b.id') AS hash_pairs_gsst_text,
       cp_same('SELECT a.id || '':'' || b.id FROM $tbl a JOIN cp_t b ON a.c = b.c || ''x'' ORDER BY a.id, b.id') AS hash_pairs_longer,
       cp_same('SELECT a.id || '':'' || b.id FROM $tbl a JOIN cp_t b ON a.c = left(b.c, -1) ORDER BY a.id, b.id') AS hash_pairs_shorter;
RESET enable_mergejoin;
RESET enable_nestloop;

-- Btree builds (sorted, with abbreviated keys), and btree inserts one at
-- a time, under "C" and ICU; the index order is text's order.
CREATE INDEX cp_c ON cp (c);
CREATE INDEX cp_c_icu ON cp ((c COLLATE cp_icu));
CREATE INDEX cp_t_c ON cp_t (c);
CREATE INDEX cp_t_c_icu ON cp_t ((c COLLATE cp_icu));
CREATE TABLE cp_ins (id int, c text COMPRESSION gsst);
CREATE INDEX cp_ins_c ON cp_ins (c);
CREATE INDEX cp_ins_c_icu ON cp_ins ((c COLLATE cp_icu));
INSERT INTO cp_ins SELECT id, c FROM cp ORDER BY md5(id::text);
INSERT INTO cp_ins SELECT id, c FROM cp2 WHERE id % 5 = 0;
CREATE TABLE cp_ins_t AS SELECT id, c::text AS c FROM cp_ins;
ANALYZE cp, cp_t, cp_ins, cp_ins_t;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 3000 AS inserted_encoded FROM cp_ins;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
SELECT cp_plan('SELECT c FROM cp ORDER BY c', 'Index Only Scan using cp_c') AS index_order,
       cp_plan('SELECT c COLLATE cp_icu FROM cp ORDER BY c COLLATE cp_icu', 'Index Only Scan using cp_c_icu') AS index_order_icu,
       cp_plan('SELECT c FROM cp_ins ORDER BY c', 'Index Only Scan using cp_ins_c') AS inserted_order;
SELECT cp_same('SELECT c FROM $tbl ORDER BY c') AS built_order,
       cp_same('SELECT c FROM $tbl ORDER BY c COLLATE cp_icu') AS built_order_icu,
       cp_same('SELECT c FROM $tbl ORDER BY c DESC') AS built_order_desc;
SELECT (SELECT array_agg(c::text ORDER BY c) FROM cp_ins) = (SELECT array_agg(c ORDER BY c) FROM cp_ins_t) AS inserted_order,
       (SELECT array_agg(c::text ORDER BY c COLLATE cp_icu) FROM cp_ins)
       = (SELECT array_agg(c ORDER BY c COLLATE cp_icu) FROM cp_ins_t) AS inserted_order_icu;
-- min and max read off the index
SELECT cp_plan('SELECT min(c) FROM cp', 'Index Only Scan using cp_c') AS min_from_index;
SELECT cp_same('SELECT min(c) FROM $tbl UNION ALL SELECT max(c) FROM $tbl') AS index_min_max,
       cp_same('SELECT min(c COLLATE cp_icu) FROM $tbl UNION ALL SELECT max(c COLLATE cp_icu) FROM $tbl') AS index_min_max_icu;

-- Btree searches with a text key: =, <, >, <=, >=, BETWEEN, as constants
-- and as a text parameter, for every distinct value and text in no row.
CREATE TABLE cp_probe (p text);
INSERT INTO cp_probe SELECT DISTINCT c FROM cp_t WHERE c IS NOT NULL;
INSERT INTO cp_probe VALUES ('user1@example.c'), ('user1@example.comx'), ('user'), ('usez'), ('東'),
	('Zoe'), ('zzz'), ('0'), (' '), ('https://www.'), ('https://www.wiki.example/f');
PREPARE cp_search(text, text) AS
SELECT count(*) FILTER (WHERE c = $1) AS eq FROM cp WHERE c = $1
UNION ALL SELECT count(*) FROM cp WHERE c < $1
UNION ALL SELECT count(*) FROM cp WHERE c > $1
UNION ALL SELECT count(*) FROM cp WHERE c <= $1
UNION ALL SELECT count(*) FROM cp WHERE c >= $1
UNION ALL SELECT count(*) FROM cp WHERE c BETWEEN $1 AND $2
UNION ALL SELECT count(*) FROM cp WHERE c COLLATE cp_icu < $1
UNION ALL SELECT count(*) FROM cp WHERE c COLLATE cp_icu BETWEEN $1 AND $2;
PREPARE cp_search_t(text, text) AS
SELECT count(*) FILTER (WHERE c = $1) AS eq FROM cp_t WHERE c = $1
UNION ALL SELECT count(*) FROM cp_t WHERE c < $1
UNION ALL SELECT count(*) FROM cp_t WHERE c > $1
UNION ALL SELECT count(*) FROM cp_t WHERE c <= $1
UNION ALL SELECT count(*) FROM cp_t WHERE c >= $1
UNION ALL SELECT count(*) FROM cp_t WHERE c BETWEEN $1 AND $2
UNION ALL SELECT count(*) FROM cp_t WHERE c COLLATE cp_icu < $1
UNION ALL SELECT count(*) FROM cp_t WHERE c COLLATE cp_icu BETWEEN $1 AND $2;
SET plan_cache_mode = force_generic_plan;
SELECT cp_plan('EXECUTE cp_search(''user1'', ''user2'')', 'Index Only Scan using cp_c on cp') AS param_index_search,
       cp_plan('EXECUTE cp_search(''user1'', ''user2'')', 'Index Only Scan using cp_c_icu on cp') AS param_index_search_icu;
CREATE FUNCTION cp_search_differs(a text, b text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	g bigint[]; t bigint[]; r record;
BEGIN
	g := '{}'; t := '{}';
	FOR r IN EXECUTE format('EXECUTE cp_search(%L, %L)', a, b) LOOP g := g || r.eq; END LOOP;
	FOR r IN EXECUTE format('EXECUTE cp_search_t(%L, %L)', a, b) LOOP t := t || r.eq; END LOOP;
	IF g IS DISTINCT FROM t THEN
		RAISE NOTICE 'search differs: % % (gsst %, text %)', a, b, g, t;
		RETURN 1;
	END IF;
	RETURN 0;
END $$;
SELECT count(*) AS probes, sum(cp_search_differs(p, q)) AS param_searches_differing
FROM (SELECT p, lead(p, 17, 'zzz') OVER (ORDER BY p COLLATE "C") AS q FROM cp_probe) s
WHERE p IN (SELECT p FROM cp_probe ORDER BY md5(p) LIMIT 500) OR p !~ '^[a-z0-9:/.@]*$';
RESET plan_cache_mode;
-- the same with constants in the query
CREATE FUNCTION cp_const_differs(p text, q text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	preds text[] := ARRAY['c = %1$L', 'c < %1$L', 'c > %1$L::text', 'c <= %1$L', 'c >= %1$L',
	                      'c BETWEEN %1$L AND %2$L', 'c COLLATE cp_icu >= %1$L'];
	pred text; g bigint; t bigint; bad int := 0;
BEGIN
	FOREACH pred IN ARRAY preds LOOP
		EXECUTE format('SELECT count(*) FROM cp WHERE ' || pred, p, q) INTO g;
		EXECUTE format('SELECT count(*) FROM cp_t WHERE ' || pred, p, q) INTO t;
		IF g <> t THEN
			RAISE NOTICE 'differs: % with % % (gsst %, text %)', pred, p, q, g, t;
			bad := bad + 1;
		END IF;
	END LOOP;
	RETURN bad;
END $$;
SELECT cp_plan('SELECT count(*) FROM cp WHERE c BETWEEN ''user1'' AND ''user2''', 'Index Only Scan using cp_c') AS const_index_search;
SELECT count(*) AS probes, sum(cp_const_differs(p, q)) AS const_searches_differing
FROM (SELECT p, lead(p, 29, 'zzz') OVER (ORDER BY p COLLATE "C") AS q FROM cp_probe) s
WHERE p IN (SELECT p FROM cp_probe ORDER BY md5(p) LIMIT 300) OR p !~ '^[a-z0-9:/.@]*$';
-- the same searches on the index built by inserts
SELECT count(*) AS inserted_searches_differing
FROM cp_probe
WHERE (SELECT count(*) FROM cp_ins WHERE c >= p AND c < p || 'zz') <>
      (SELECT count(*) FROM cp_ins_t WHERE c >= p AND c < p || 'zz')
   OR (SELECT count(*) FROM cp_ins WHERE c = p) <> (SELECT count(*) FROM cp_ins_t WHERE c = p);
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_sort;

-- Values that all share their first 8 bytes, and values of a few dozen
-- 8-byte prefixes: their abbreviated keys settle almost nothing, so sorts
-- give them up and compare in full.  The order is still text's, in a
-- full sort, a merge join's sorts and a btree build.
CREATE TABLE cp_prefix (id serial PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO cp_prefix (c)
SELECT 'Customer#' || lpad(((i * 7919) % 6000)::text, 9, '0') FROM generate_series(1, 6000) i;
INSERT INTO cp_prefix (c)
SELECT 'https://' || (ARRAY['www.', 'en.', 'de.', 'api.', 'news.'])[1 + i % 5]
       || substr(md5(i::text), 1, 2 + i % 20) FROM generate_series(1, 6000) i;
SELECT gsst.train('cp_prefix', 'c') > 0 AS trained;
SET client_min_messages = warning;
SELECT gsst.compress_table('cp_prefix') > 0 AS recoded;
RESET client_min_messages;
CREATE TABLE cp_prefix_t AS SELECT id, c::text AS c FROM cp_prefix;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 11000 AS encoded FROM cp_prefix;
SELECT (SELECT array_agg(c::text ORDER BY c, id) FROM cp_prefix WHERE c LIKE 'Customer#%')
       = (SELECT array_agg(c ORDER BY c COLLATE "C", id) FROM cp_prefix_t WHERE c LIKE 'Customer#%') AS one_prefix_sorted,
       (SELECT array_agg(c::text ORDER BY c, id) FROM cp_prefix)
       = (SELECT array_agg(c ORDER BY c COLLATE "C", id) FROM cp_prefix_t) AS few_prefixes_sorted;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT (SELECT count(*) FROM cp_prefix a JOIN cp_prefix b ON a.c = b.c)
       = (SELECT count(*) FROM cp_prefix_t a JOIN cp_prefix_t b ON a.c = b.c COLLATE "C") AS merge_join_same;
RESET enable_hashjoin;
RESET enable_nestloop;
CREATE INDEX cp_prefix_c ON cp_prefix (c);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT cp_plan('SELECT c FROM cp_prefix ORDER BY c', 'Index Only Scan using cp_prefix_c') AS prefix_index_order;
SELECT (SELECT array_agg(c::text ORDER BY c) FROM (SELECT c FROM cp_prefix ORDER BY c) s)
       = (SELECT array_agg(c ORDER BY c COLLATE "C") FROM cp_prefix_t) AS prefix_index_built;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Short values, which a sort compares by their first 8 bytes or codes:
-- raw and encoded ones mixed, of 1 to 12 bytes, digits that the
-- dictionary cuts into symbols in more than one way, and values that end
-- where another goes on.  A sort with a bound above the row count uses no
-- abbreviated keys, so every comparison takes the full comparator.
CREATE TABLE cp_short (id serial PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO cp_short (c) SELECT 'C#' || lpad(((i * 7919) % 3000)::text, 6, '0') FROM generate_series(1, 3000) i;
INSERT INTO cp_short (c) SELECT substr(md5(i::text), 1, 1 + i % 12) FROM generate_series(1, 3000) i;
INSERT INTO cp_short (c) SELECT ((i * 37) % 1000)::text FROM generate_series(1, 1000) i;
INSERT INTO cp_short (c) SELECT 'C#' || i FROM generate_series(1, 300) i;
SELECT gsst.train('cp_short', 'c') > 0 AS trained;
SET client_min_messages = warning;
SELECT gsst.compress_table('cp_short') > 0 AS recoded;
RESET client_min_messages;
CREATE TABLE cp_short_t AS SELECT id, c::text AS c FROM cp_short;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 2000 AS some_encoded,
       count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) > 1000 AS some_raw
FROM cp_short;
SELECT (SELECT array_agg(c::text) FROM (SELECT c FROM cp_short ORDER BY c LIMIT 100000) s)
       = (SELECT array_agg(c) FROM (SELECT c FROM cp_short_t ORDER BY c COLLATE "C" LIMIT 100000) s)
       AS short_bounded_sorted,
       (SELECT array_agg(c::text ORDER BY c, id) FROM cp_short)
       = (SELECT array_agg(c ORDER BY c COLLATE "C", id) FROM cp_short_t) AS short_sorted,
       (SELECT array_agg(c::text) FROM (SELECT c FROM cp_short ORDER BY c DESC LIMIT 50) s)
       = (SELECT array_agg(c) FROM (SELECT c FROM cp_short_t ORDER BY c COLLATE "C" DESC LIMIT 50) s)
       AS short_top_n;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT (SELECT count(*) FROM cp_short a JOIN cp_short b ON a.c = b.c)
       = (SELECT count(*) FROM cp_short_t a JOIN cp_short_t b ON a.c = b.c COLLATE "C") AS short_merge_join;
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT (SELECT min(c)::text || max(c)::text FROM cp_short)
       = (SELECT min(c COLLATE "C") || max(c COLLATE "C") FROM cp_short_t) AS short_min_max;
CREATE INDEX cp_short_c ON cp_short (c);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT array_agg(c::text) FROM (SELECT c FROM cp_short ORDER BY c) s)
       = (SELECT array_agg(c ORDER BY c COLLATE "C") FROM cp_short_t) AS short_index_built,
       (SELECT count(*) FROM cp_short_t t WHERE t.id % 97 = 0
          AND (SELECT count(*) FROM cp_short s WHERE s.c >= t.c)
              <> (SELECT count(*) FROM cp_short_t u WHERE u.c >= t.c COLLATE "C")) AS short_range_differ;
RESET enable_seqscan;
RESET enable_bitmapscan;
