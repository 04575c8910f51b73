--
-- Inspection functions: column_stats, dictionary, privileges.
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 4096;

CREATE TABLE fn_t (id int, a text COMPRESSION gsst, b text COMPRESSION gsst, n int, plain text);
INSERT INTO fn_t SELECT i, 'alpha value ' || i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'beta ' || i END, i, 'x'
FROM generate_series(1, 1000) i;
SELECT column_name, "values", encoded_values > 600 AS mostly_encoded,
       raw_bytes = (SELECT sum(octet_length(t.a)) FROM fn_t t) AS raw_a,
       stored_bytes = (SELECT sum(pg_column_size(t.a)) FROM fn_t t) AS stored_a,
       ratio > 1 AS compresses, cardinality(dictionaries) AS ndicts
FROM gsst.column_stats('fn_t') WHERE column_name = 'a';
SELECT column_name, "values", family = (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'fn_t'::regclass AND attname = column_name) AS family_ok
FROM gsst.column_stats('fn_t') ORDER BY column_name;
SELECT gsst.train('fn_t', 'a') IS NOT NULL AS retrained;
UPDATE fn_t SET a = a::text WHERE id <= 100;
SELECT cardinality(dictionaries) AS ndicts,
       dictionaries = ARRAY(SELECT DISTINCT gsst.value_dictionary(a) FROM fn_t WHERE gsst.value_dictionary(a) IS NOT NULL ORDER BY 1) AS same_ids
FROM gsst.column_stats('fn_t') WHERE column_name = 'a';
SELECT * FROM gsst.column_stats('pg_class');
SELECT * FROM gsst.column_stats('fn_t_nope');
\echo :LAST_ERROR_SQLSTATE

-- dictionary(id): every symbol, its code and length, bytes and text
SELECT gsst.value_dictionary(a) AS dict FROM fn_t WHERE id = 1000 \gset
SELECT count(*) = (SELECT nsymbols FROM gsst.dictionaries WHERE id = :dict) AS all_symbols,
       bool_and(length = octet_length(bytes)) AS lengths_match,
       bool_and(length BETWEEN 1 AND 8) AS lengths_in_range,
       count(DISTINCT code) = count(*) AS codes_unique,
       bool_and(symbol IS NOT NULL) AS printable
FROM gsst.dictionary(:dict);
-- symbols of the learned table are pieces of the data
SELECT count(*) > 0 AS has_alpha FROM gsst.dictionary(:dict) WHERE position(symbol IN 'alpha value') > 0 AND length >= 3;
-- canonical order: by length, then bytes
SELECT bool_and(ok) AS canonical FROM (
  SELECT (length, bytes) > lag((length, bytes)) OVER (ORDER BY code) OR code = (SELECT min(code) FROM gsst.dictionary(:dict)) AS ok
  FROM gsst.dictionary(:dict)) s;
SELECT * FROM gsst.dictionary(999999);
\echo :LAST_ERROR_SQLSTATE

-- non-printable bytes and backslashes are shown escaped
SET gsst.learn_sample_bytes = 1024;
CREATE TABLE fn_esc (c text COMPRESSION gsst);
INSERT INTO fn_esc SELECT E'tab\t\t\there\\\\slash ' || i FROM generate_series(1, 200) i;
SELECT max(gsst.value_dictionary(c)) AS esc_dict FROM fn_esc \gset
SELECT count(*) FILTER (WHERE position('\x09'::bytea IN bytes) > 0) > 0 AS has_tab_symbols,
       bool_and(position('\x09'::bytea IN bytes) = 0 OR strpos(symbol, '\x09') > 0) AS tabs_escaped,
       count(*) FILTER (WHERE position('\x5c'::bytea IN bytes) > 0) > 0 AS has_backslash_symbols,
       bool_and(position('\x5c'::bytea IN bytes) = 0 OR strpos(symbol, '\\') > 0) AS backslashes_escaped,
       bool_and(position('\x09'::bytea IN bytes) > 0 OR position('\x5c'::bytea IN bytes) > 0
                OR symbol = convert_from(bytes, 'UTF8')) AS others_verbatim
FROM gsst.dictionary(:esc_dict);

-- dictionaries show pieces of the data: only for roles granted so
CREATE ROLE fn_user;
GRANT SELECT ON fn_t TO fn_user;
SET ROLE fn_user;
SELECT column_name, "values" FROM gsst.column_stats('fn_t') ORDER BY 1;
SELECT count(*) FROM gsst.dictionary(1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM gsst.column_stats('fn_esc');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
