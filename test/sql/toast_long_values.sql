--
-- Long values: what text stores and indexes, gsst stores and indexes.
-- TOAST compresses long gsst values and index entries as it compresses
-- text's; a long value that TOAST stores smaller raw than as codes is
-- stored raw.  Every reader copes with TOAST-compressed datums.
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SET gsst.learn_sample_bytes = 4096;

-- TOAST may compress the type, its columns and their index entries
SELECT typstorage FROM pg_type WHERE oid = 'gsst'::regtype;

-- an API log line; a long value is one repeated 60 to 460 times (2-16 kB)
CREATE FUNCTION long_line(i int) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT 'GET /api/v1/orders/' || i || ' 200 ' || (i % 97) || E'ms\n' $$;
CREATE FUNCTION long_value(i int) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT repeat(long_line(i), 60 + i % 401) $$;

CREATE TABLE long_g (id int PRIMARY KEY, c text COMPRESSION gsst);
CREATE INDEX long_g_c ON long_g (c);
CREATE TABLE long_t (id int PRIMARY KEY, c text);
CREATE INDEX long_t_c ON long_t (c);
SELECT attrelid::regclass, attstorage FROM pg_attribute
WHERE attrelid IN ('long_g'::regclass, 'long_g_c'::regclass) AND attname = 'c' ORDER BY 1;

-- short lines teach the column its dictionary
INSERT INTO long_g SELECT 100000 + i, rtrim(long_line(i), E'\n') FROM generate_series(1, 3000) i;
INSERT INTO long_t SELECT 100000 + i, rtrim(long_line(i), E'\n') FROM generate_series(1, 3000) i;
SELECT count(*) > 2500 AS short_encoded FROM long_g WHERE gsst.value_dictionary(c) IS NOT NULL;

-- 2,000 long values into the indexed column: no index row too large
INSERT INTO long_g SELECT i, long_value(i) FROM generate_series(1, 2000) i;
INSERT INTO long_t SELECT i, long_value(i) FROM generate_series(1, 2000) i;
-- a value FSST cannot shrink, that TOAST shrinks to a few bytes, and one
-- of log lines and hashes that TOAST shrinks more than FSST does
INSERT INTO long_g VALUES (5001, repeat('a', 3000));
INSERT INTO long_t VALUES (5001, repeat('a', 3000));
INSERT INTO long_g SELECT 5002, string_agg(CASE WHEN j % 3 = 0 THEN md5(j::text)
                                                 ELSE 'GET /api/v1/orders/' || j END, ' ')
FROM generate_series(1, 120) j;
INSERT INTO long_t SELECT id, c::text FROM long_g WHERE id = 5002;

-- content equals text's
SELECT count(*) AS rows, count(*) FILTER (WHERE g.c::text = t.c) AS equal,
       min(octet_length(g.c)) AS min_bytes, max(octet_length(g.c)) AS max_bytes
FROM long_g g JOIN long_t t USING (id) WHERE id <= 2000;

-- no value is stored larger than text stores it, and the table with its
-- TOAST table and indexes is not larger either
SELECT count(*) FILTER (WHERE pg_column_size(g.c) > pg_column_size(t.c)) AS stored_larger
FROM long_g g JOIN long_t t USING (id);
SELECT id, pg_column_size(g.c) <= pg_column_size(t.c) AS not_larger,
       pg_column_compression(g.c) AS compressed
FROM long_g g JOIN long_t t USING (id) WHERE id > 5000 AND id < 100000 ORDER BY id;
SELECT pg_total_relation_size('long_g') <= pg_total_relation_size('long_t') AS total_not_larger,
       pg_relation_size('long_g_c') <= pg_relation_size('long_t_c') AS index_not_larger;

-- how long values are stored: the log lines as codes compressed with
-- TOAST's method (their codes compress better than their text; those too
-- short for TOAST in this table as codes), the others as text compressed
SELECT id > 5000 AS other, gsst.value_dictionary(c) IS NOT NULL AS encoded,
       pg_column_compression(c) AS compressed, count(*)
FROM long_g WHERE id < 100000 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- the index is used, and finds the value
SET enable_seqscan = off;
SET enable_bitmapscan = off;
PREPARE long_find(text) AS SELECT id FROM long_g WHERE c = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE long_find(long_value(1999));
EXECUTE long_find(long_value(1999));
RESET plan_cache_mode;
SELECT id FROM long_g WHERE c = long_value(1999);
SELECT id FROM long_g WHERE c = (SELECT c FROM long_t WHERE id = 7);
SELECT id FROM long_g WHERE c = repeat('a', 3000);
SELECT count(*) FROM long_g WHERE c >= long_value(1000) AND c < long_value(1001);
RESET enable_seqscan;
RESET enable_bitmapscan;

--
-- Readers on TOAST-compressed datums, against text
--
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
-- equality with constants (probes), IN lists, and length functions
SELECT id FROM long_g WHERE c = long_value(42);
SELECT id FROM long_g WHERE c IN (long_value(3), long_value(4), repeat('a', 3000)) ORDER BY id;
SELECT count(*) FROM long_g WHERE c <> long_value(42);
SELECT sum(length(g.c)) = sum(length(t.c)) AS length_equal,
       sum(octet_length(g.c)) = sum(octet_length(t.c)) AS octet_length_equal,
       count(*) FILTER (WHERE substr(g.c, 2000, 40) <> substr(t.c, 2000, 40)) AS substr_differ
FROM long_g g JOIN long_t t USING (id);
-- hash join gsst = text, and gsst = gsst
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM long_g g JOIN long_t t ON g.c = t.c;
SELECT count(*) FROM long_g g JOIN long_t t ON g.c = t.c;
SELECT count(*) FROM long_g g JOIN long_t t ON g.c = t.c WHERE g.id = t.id;
SELECT count(*) FROM long_g a JOIN long_g b ON a.c = b.c WHERE a.id = b.id;
RESET enable_mergejoin;
RESET enable_nestloop;
-- merge join sorts both sides
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT count(*) FROM long_g g JOIN long_t t ON g.c = t.c WHERE g.id = t.id;
RESET enable_hashjoin;
RESET enable_nestloop;
-- GROUP BY by hashing and by sorting
SET enable_sort = off;
SELECT count(*) FROM (SELECT c FROM long_g GROUP BY c) s;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) FROM (SELECT c FROM long_g GROUP BY c) s;
RESET enable_hashagg;
SELECT count(*) FROM (SELECT c FROM long_t GROUP BY c) s;
SELECT count(DISTINCT c) FROM long_g;
-- ORDER BY: the same order as text's, in the C collation and an ICU one
SELECT (SELECT md5(string_agg(id::text, ',' ORDER BY c, id)) FROM long_g) =
       (SELECT md5(string_agg(id::text, ',' ORDER BY c, id)) FROM long_t) AS same_order;
SELECT (SELECT md5(string_agg(id::text, ',' ORDER BY c COLLATE "und-x-icu" DESC, id)) FROM long_g) =
       (SELECT md5(string_agg(id::text, ',' ORDER BY c COLLATE "und-x-icu" DESC, id)) FROM long_t) AS same_order_desc;
-- a nondeterministic collation hashes and compares decoded text
CREATE COLLATION long_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT (SELECT count(*) FROM (SELECT c COLLATE long_ci FROM long_g GROUP BY 1) s) AS ci_groups,
       (SELECT count(*) FROM long_g g JOIN long_t t ON g.c = upper(t.c) COLLATE long_ci) AS ci_join;
SELECT max(c) = (SELECT max(c) FROM long_t) AS same_max, min(c) = (SELECT min(c) FROM long_t) AS same_min
FROM long_g;
-- LIKE: prefix, exact, contains, other patterns
SELECT (SELECT count(*) FROM long_g WHERE c LIKE 'GET /api/v1/orders/12%') AS gsst_prefix,
       (SELECT count(*) FROM long_t WHERE c LIKE 'GET /api/v1/orders/12%') AS text_prefix;
SELECT (SELECT count(*) FROM long_g WHERE c LIKE '%orders/1999 200%') AS gsst_contains,
       (SELECT count(*) FROM long_t WHERE c LIKE '%orders/1999 200%') AS text_contains;
SELECT (SELECT count(*) FROM long_g WHERE c LIKE 'GET /api/v1/orders/7_ 200%ms_') AS gsst_pattern,
       (SELECT count(*) FROM long_t WHERE c LIKE 'GET /api/v1/orders/7_ 200%ms_') AS text_pattern;
SELECT count(*) FROM long_g WHERE c LIKE repeat('a', 3000);
SELECT count(*) FROM long_g WHERE c NOT LIKE 'GET%';
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;

-- an index built over existing long values, with lz4 as TOAST's method
SET default_toast_compression = lz4;
CREATE TABLE long_z (id int, c text COMPRESSION gsst);
INSERT INTO long_z SELECT 100000 + i, rtrim(long_line(i), E'\n') FROM generate_series(1, 3000) i;
INSERT INTO long_z SELECT i, long_value(i) FROM generate_series(1, 2000) i;
CREATE INDEX long_z_c ON long_z (c);
CREATE TABLE long_zt (id int, c text);
INSERT INTO long_zt SELECT id, c FROM long_t;
SELECT count(*) FILTER (WHERE pg_column_size(z.c) > pg_column_size(t.c)) AS stored_larger,
       count(*) FILTER (WHERE z.c = t.c) AS equal,
       count(*) FILTER (WHERE pg_column_compression(z.c) = 'lz4') > 1900 AS lz4
FROM long_z z JOIN long_zt t USING (id);
SELECT count(*) FROM long_z z JOIN long_g g ON z.c = g.c;
RESET default_toast_compression;

-- a column whose storage keeps TOAST from compressing keeps gsst from it too
CREATE TABLE long_e (id int, c text COMPRESSION gsst);
ALTER TABLE long_e ALTER COLUMN c SET STORAGE EXTERNAL;
INSERT INTO long_e SELECT id, c FROM long_t ORDER BY id DESC;
SELECT count(*) FILTER (WHERE pg_column_compression(e.c) IS NOT NULL) AS compressed,
       count(*) FILTER (WHERE gsst.value_dictionary(e.c) IS NOT NULL) > 4000 AS encoded,
       count(*) FILTER (WHERE e.c = t.c) AS equal
FROM long_e e JOIN long_t t USING (id);

--
-- Bulk paths keep long values right: SET COMPRESSION gsst on a text
-- column, compress_table, gsst.load
--
CREATE TABLE long_s (id int PRIMARY KEY, c text);
INSERT INTO long_s SELECT id, c FROM long_t;
CREATE INDEX long_s_c ON long_s (c);
ALTER TABLE long_s ALTER COLUMN c SET COMPRESSION gsst;
SELECT format_type(atttypid, NULL), attstorage FROM pg_attribute
WHERE attrelid = 'long_s'::regclass AND attname = 'c';
SELECT count(*) FILTER (WHERE s.c = t.c) AS equal, count(*) AS rows
FROM long_s s JOIN long_t t USING (id);
SELECT gsst.compress_table('long_s') > 0 AS encoded_some;
SELECT count(*) FILTER (WHERE s.c = t.c AND s.c::text = t.c) AS equal,
       count(*) FILTER (WHERE pg_column_size(s.c) > pg_column_size(t.c)) AS stored_larger
FROM long_s s JOIN long_t t USING (id);
SELECT id > 5000 AS other, gsst.value_dictionary(c) IS NOT NULL AS encoded,
       pg_column_compression(c) AS compressed, count(*)
FROM long_s WHERE id < 100000 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SET enable_seqscan = off;
SELECT id FROM long_s WHERE c = long_value(1234);
RESET enable_seqscan;
-- the same bytes as per-row encoding
SELECT count(*) AS differ FROM long_s
WHERE gsst.datum(c) IS DISTINCT FROM
      gsst.datum(gsst.compress(c::text, (SELECT atttypmod FROM pg_attribute
                                         WHERE attrelid = 'long_s'::regclass AND attname = 'c')));

CREATE TABLE long_l (id int PRIMARY KEY, c text COMPRESSION gsst);
CREATE INDEX long_l_c ON long_l (c);
SELECT gsst.load('long_l', 'SELECT id, c FROM long_t WHERE id > 100000');
SELECT gsst.load('long_l', 'SELECT id, c FROM long_t WHERE id <= 100000', 500);
SELECT count(*) FILTER (WHERE l.c = t.c AND l.c::text = t.c) AS equal,
       count(*) FILTER (WHERE pg_column_size(l.c) > pg_column_size(t.c)) AS stored_larger,
       count(*) FILTER (WHERE pg_column_compression(l.c) IS NOT NULL) > 1900 AS compressed
FROM long_l l JOIN long_t t USING (id);
SELECT count(*) AS differ FROM long_l
WHERE gsst.datum(c) IS DISTINCT FROM
      gsst.datum(gsst.compress(c::text, (SELECT atttypmod FROM pg_attribute
                                         WHERE attrelid = 'long_l'::regclass AND attname = 'c')));

DROP TABLE long_g, long_t, long_z, long_zt, long_e, long_s, long_l;
DROP FUNCTION long_value(int), long_line(int);
DROP COLLATION long_ci;
