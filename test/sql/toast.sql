--
-- Values of several MB (TOAST, segments).
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 4096;

CREATE TABLE toast_t (id int, c text COMPRESSION gsst);
-- teach the column with ordinary values first
INSERT INTO toast_t SELECT i, 'log line ' || i || ': GET /index.html HTTP/1.1 200 ' || md5(i::text)
FROM generate_series(1, 300) i;
-- then values of 2 MB and 5 MB
INSERT INTO toast_t
SELECT 1000 + n, string_agg('log line ' || i || ': GET /index.html HTTP/1.1 200 ' || md5(i::text), E'\n')
FROM generate_series(1, 2) n, generate_series(1, n * 35000) i GROUP BY n;
SELECT id, octet_length(c) AS bytes, gsst.value_dictionary(c) IS NOT NULL AS encoded,
       pg_column_size(c) < octet_length(c) AS stored_smaller
FROM toast_t WHERE id > 1000 ORDER BY id;
-- round trip, compared through md5 of the decoded text
SELECT id, md5(c) = (SELECT md5(string_agg('log line ' || i || ': GET /index.html HTTP/1.1 200 ' || md5(i::text), E'\n'))
                     FROM generate_series(1, (id - 1000) * 35000) i) AS intact
FROM toast_t WHERE id > 1000 ORDER BY id;
-- stored out of line by TOAST
SELECT pg_total_relation_size(reltoastrelid) > 1000000 AS toasted
FROM pg_class WHERE relname = 'toast_t';
SELECT substr(c, 1000000, 30), length(c) FROM toast_t WHERE id = 1002;
SELECT count(*) FROM toast_t WHERE c LIKE '%line 69999: GET%';
-- a large value that does not compress is stored raw
INSERT INTO toast_t
SELECT 2000, string_agg(chr(19968 + ((i::bigint * 7919) % 20000)::int), '') FROM generate_series(1, 300000) i;
SELECT gsst.value_dictionary(c) IS NULL AS raw, length(c), octet_length(c)
FROM toast_t WHERE id = 2000;
-- column_stats counts large values too
SELECT "values", encoded_values > 200 AS mostly_encoded, raw_bytes > 9000000 AS raw_big, stored_bytes < raw_bytes AS smaller
FROM gsst.column_stats('toast_t');
-- back to text keeps every byte
ALTER TABLE toast_t ALTER COLUMN c SET COMPRESSION default;
SELECT md5(c) = (SELECT md5(string_agg('log line ' || i || ': GET /index.html HTTP/1.1 200 ' || md5(i::text), E'\n'))
                 FROM generate_series(1, 70000) i) AS intact_as_text
FROM toast_t WHERE id = 1002;
