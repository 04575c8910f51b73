--
-- Binary I/O (COPY BINARY, send/recv) and decoding of untrusted bytes.
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 4096;
\getenv abs_builddir PG_ABS_BUILDDIR
\set bin_file :abs_builddir '/results/binary.bin'
\set bad_file :abs_builddir '/results/binary_bad.bin'

CREATE TABLE bin_t (id int, c text COMPRESSION gsst);
INSERT INTO bin_t SELECT i, 'binary row ' || i || ' — ünïcödé ✓ with some repeated text'
FROM generate_series(1, 1000) i;
INSERT INTO bin_t VALUES (1001, ''), (1002, NULL);
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 800 AS mostly_encoded FROM bin_t;

-- COPY BINARY round trip into gsst, and into text: send writes plain text
COPY bin_t TO :'bin_file' (FORMAT binary);
CREATE TABLE bin_back (id int, c text COMPRESSION gsst);
COPY bin_back FROM :'bin_file' (FORMAT binary);
CREATE TABLE bin_text (id int, c text);
COPY bin_text FROM :'bin_file' (FORMAT binary);
SELECT count(*) AS rows_back,
       count(*) FILTER (WHERE b.c IS NOT DISTINCT FROM t.c) AS equal_gsst,
       count(*) FILTER (WHERE x.c IS NOT DISTINCT FROM t.c::text) AS equal_text
FROM bin_t t JOIN bin_back b USING (id) JOIN bin_text x USING (id);
-- recv encoded them with the new column's own family
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 800 AS mostly_encoded FROM bin_back;
SELECT gsst.gsst_send(c) = textsend(c::text) AS send_is_text FROM bin_t WHERE id = 500;

-- recv takes raw bytes from a binary COPY of a bytea column
CREATE TABLE bin_bytes (id int, b bytea);
CREATE TABLE bin_in (id int, c gsst);
-- an encoded datum that refers to a dictionary that exists: accepted as is
INSERT INTO bin_bytes SELECT 1, gsst.datum(c) FROM bin_t WHERE id = 700;
COPY bin_bytes TO :'bad_file' (FORMAT binary);
COPY bin_in FROM :'bad_file' (FORMAT binary);
SELECT c = (SELECT c FROM bin_t WHERE id = 700) AS same, gsst.value_dictionary(c) IS NOT NULL AS encoded FROM bin_in;
-- hostile inputs
TRUNCATE bin_bytes;
INSERT INTO bin_bytes VALUES (2, '\x00fc91f401414243'::bytea);  -- unknown dictionary 999999
COPY bin_bytes TO :'bad_file' (FORMAT binary);
COPY bin_in FROM :'bad_file' (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
TRUNCATE bin_bytes;
INSERT INTO bin_bytes SELECT 3, substr(gsst.datum(c), 1, 2) || '\xff'::bytea FROM bin_t WHERE id = 700;  -- dangling escape
COPY bin_bytes TO :'bad_file' (FORMAT binary);
COPY bin_in FROM :'bad_file' (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
TRUNCATE bin_bytes;
INSERT INTO bin_bytes SELECT 4, substr(gsst.datum(c), 1, 2) || '\xff00'::bytea FROM bin_t WHERE id = 700;  -- a NUL literal
COPY bin_bytes TO :'bad_file' (FORMAT binary);
COPY bin_in FROM :'bad_file' (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
TRUNCATE bin_bytes;
INSERT INTO bin_bytes VALUES (5, '\xc328'::bytea);  -- raw, invalid UTF-8
COPY bin_bytes TO :'bad_file' (FORMAT binary);
COPY bin_in FROM :'bad_file' (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
TRUNCATE bin_bytes;
INSERT INTO bin_bytes VALUES (6, '\x610062'::bytea);  -- raw with a NUL inside
COPY bin_bytes TO :'bad_file' (FORMAT binary);
COPY bin_in FROM :'bad_file' (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS rows_in FROM bin_in;

-- gsst.decompress(bytea) validates everything
SELECT gsst.decompress(gsst.datum(c)) = c::text AS roundtrip FROM bin_t WHERE id = 321;
SELECT gsst.decompress('plain text'::bytea);
SELECT gsst.decompress(''::bytea) = '' AS empty;
SELECT gsst.decompress('\x00'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress('\x0001'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress('\x00ffffffffff'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress('\x00fdffffff03'::bytea);  -- datum version 2
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress('\x00fc91f401414243'::bytea);  -- dictionary 999999
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress(substr(gsst.datum(c), 1, 2) || '\xff'::bytea) FROM bin_t WHERE id = 321;
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress(substr(gsst.datum(c), 1, 2) || '\xfe'::bytea) FROM bin_t WHERE id = 321;
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress(substr(gsst.datum(c), 1, 2) || '\xffc3ff28'::bytea) FROM bin_t WHERE id = 321;
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress('\xff'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress('\x610062'::bytea);
\echo :LAST_ERROR_SQLSTATE
-- every truncation and every single-byte corruption of an encoded value
-- either decodes or raises data_corrupted, never anything else
CREATE FUNCTION bin_try(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gsst.decompress(b);
  RETURN 'ok';
EXCEPTION WHEN data_corrupted THEN
  RETURN 'data_corrupted';
END $$;
SELECT bin_try(substr(d, 1, n)) AS outcome, count(*) > 0 AS seen
FROM (SELECT gsst.datum(c) AS d FROM bin_t WHERE id = 999) v,
     generate_series(1, 40) n
GROUP BY 1 ORDER BY 1;
SELECT count(*) AS other_outcomes
FROM (SELECT gsst.datum(c) AS d FROM bin_t WHERE id = 999) v,
     generate_series(0, 30) pos, generate_series(0, 255, 5) val,
     LATERAL (SELECT bin_try(set_byte(d, least(pos, length(d) - 1), val)) AS o) t
WHERE o NOT IN ('ok', 'data_corrupted');
