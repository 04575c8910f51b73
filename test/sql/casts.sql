--
-- Casts and text functions on gsst.
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 2048;

CREATE TABLE casts_t (id int, c text COMPRESSION gsst);
INSERT INTO casts_t
SELECT i, 'row ' || i || ': the quick brown fox jumps over the lazy dog'
FROM generate_series(1, 300) i;
-- the first ~2 KB were stored raw while the column learned; the rest is encoded
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) > 0 AS some_raw,
       count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 200 AS mostly_encoded
FROM casts_t;

-- implicit cast to text: every text function works
SELECT c, length(c), upper(c), substr(c, 5, 3), position('fox' IN c),
       c || '!' AS concat, left(c, 3), replace(c, 'dog', 'cat')
FROM casts_t WHERE id = 250;
SELECT count(*) FROM casts_t WHERE c LIKE 'row 1%';
SELECT count(*) FROM casts_t WHERE c ILIKE 'ROW 2__:%';
SELECT count(*) FROM casts_t WHERE c ~ '^row [0-9]+5:';
SELECT count(*) FROM casts_t WHERE c SIMILAR TO 'row 1(0|1)%';
SELECT split_part(c, ':', 1), regexp_replace(c, '[aeiou]', '', 'g')
FROM casts_t WHERE id = 299;
SELECT string_agg(c, '|' ORDER BY id) = string_agg(c::text, '|' ORDER BY id) AS agg_equal
FROM casts_t;
SELECT md5(c) = md5(c::text) AS md5_equal FROM casts_t WHERE id = 123;
SELECT to_tsvector('simple', c) FROM casts_t WHERE id = 7;

-- output inside arrays and records (their output functions pfree ours)
SELECT array_agg(c ORDER BY id) FROM casts_t WHERE id IN (250, 251);
SELECT (c, id) AS rec FROM casts_t WHERE id = 252;
SELECT ARRAY['a', 'b']::gsst[] AS arr, pg_typeof(ARRAY['a']::gsst[]);

-- every value decodes to exactly what was written
SELECT count(*) AS mismatches FROM casts_t
WHERE c::text <> 'row ' || id || ': the quick brown fox jumps over the lazy dog';

-- assignment casts: text and varchar into gsst, gsst into text and varchar
CREATE TABLE casts_text (t text, v varchar, v5 varchar(5));
INSERT INTO casts_text SELECT c, c, c::varchar(5) FROM casts_t WHERE id = 1;
SELECT t, v, v5 FROM casts_text;
INSERT INTO casts_t (id, c) SELECT 1000, v FROM casts_text;
INSERT INTO casts_t (id, c) VALUES (1001, 'literal'::varchar(10));
SELECT id, c FROM casts_t WHERE id >= 1000 ORDER BY id;
SELECT pg_typeof(c::text), pg_typeof(c::varchar) FROM casts_t WHERE id = 1;
SELECT gsst.decompress(c) = c::text AS decompress_equal FROM casts_t WHERE id = 42;

-- like text, other types are assigned through their text form
INSERT INTO casts_t (id, c) VALUES (1002, 12345), (1003, 12345::text), (1004, now()::date - now()::date);
SELECT id, c FROM casts_t WHERE id >= 1002 ORDER BY id;

-- compress(text, family) encodes with that family's dictionary
SELECT gsst.value_dictionary(gsst.compress('row 9: the quick brown fox', atttypmod)) IS NOT NULL AS encoded,
       gsst.compress('row 9: the quick brown fox', atttypmod)::text AS decoded
FROM pg_attribute WHERE attrelid = 'casts_t'::regclass AND attname = 'c';
SELECT gsst.compress('x', 0);
\echo :LAST_ERROR_SQLSTATE

-- COPY text format in and out
CREATE TABLE casts_copy (LIKE casts_t);
COPY (SELECT id, c FROM casts_t WHERE id <= 5 ORDER BY id) TO STDOUT;
COPY casts_copy FROM STDIN;
1	copied line one: the quick brown fox
2	copied line two: ünïcödé ✓
3	\N
4	
\.
SELECT id, c, c IS NULL AS is_null FROM casts_copy ORDER BY id;
