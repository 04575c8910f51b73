--
-- COMPRESSION gsst in CREATE TABLE and ALTER TABLE (the DDL hook).
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 4096;

-- CREATE TABLE: the column becomes gsst(<new family>) without compression
CREATE TABLE ddl_t (id int PRIMARY KEY, a text COMPRESSION gsst, b text COMPRESSION lz4,
                    c varchar COMPRESSION gsst, d text COMPRESSION gsst COLLATE "C");
SELECT attname, format_type(atttypid, NULL) AS type, atttypmod > 0 AS has_family,
       attcompression = '' AS no_core_compression, attstorage,
       (SELECT collname FROM pg_collation WHERE oid = attcollation) AS collation
FROM pg_attribute WHERE attrelid = 'ddl_t'::regclass AND attnum > 0 ORDER BY attnum;
SELECT count(DISTINCT atttypmod) = 3 AS one_family_per_column FROM pg_attribute
WHERE attrelid = 'ddl_t'::regclass AND attname IN ('a', 'c', 'd');

-- ADD COLUMN
ALTER TABLE ddl_t ADD COLUMN e text COMPRESSION gsst;
SELECT format_type(atttypid, NULL), atttypmod > 0 FROM pg_attribute
WHERE attrelid = 'ddl_t'::regclass AND attname = 'e';

-- errors: only text columns
CREATE TABLE ddl_bad (c int COMPRESSION gsst);
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE ddl_bad (c varchar(20) COMPRESSION gsst);
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE ddl_bad (c char(3) COMPRESSION gsst);
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE ddl_bad (c text[] COMPRESSION gsst);
\echo :LAST_ERROR_SQLSTATE
CREATE DOMAIN ddl_dom AS text;
CREATE TABLE ddl_bad (c ddl_dom COMPRESSION gsst);
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE ddl_t ALTER COLUMN id SET COMPRESSION gsst;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE ddl_t ADD COLUMN f jsonb COMPRESSION gsst;
\echo :LAST_ERROR_SQLSTATE

-- SET COMPRESSION gsst on a text column: a relabel, no table rewrite
CREATE TABLE ddl_s (id int PRIMARY KEY, c text COLLATE "C");
INSERT INTO ddl_s SELECT i, 'existing row number ' || i || ' before the change' FROM generate_series(1, 2000) i;
CREATE INDEX ddl_s_c ON ddl_s (c);
CREATE TEMP TABLE ddl_before AS
SELECT relfilenode, pg_relation_size('ddl_s') AS size FROM pg_class WHERE relname = 'ddl_s';
ALTER TABLE ddl_s ALTER COLUMN c SET COMPRESSION gsst;
SELECT c.relfilenode = b.relfilenode AS same_relfilenode,
       pg_relation_size('ddl_s') = b.size AS same_size
FROM pg_class c, ddl_before b WHERE c.relname = 'ddl_s';
SELECT format_type(atttypid, NULL), atttypmod > 0, attcompression = '' AS no_core_compression,
       (SELECT collname FROM pg_collation WHERE oid = attcollation) AS collation
FROM pg_attribute WHERE attrelid = 'ddl_s'::regclass AND attname = 'c';
-- the old rows are still raw, new rows use the dictionary learned from them
INSERT INTO ddl_s VALUES (5000, 'existing row number 5000 before the change');
SELECT id, gsst.value_dictionary(c) IS NOT NULL AS encoded, c FROM ddl_s WHERE id IN (1, 5000) ORDER BY id;
SELECT (SELECT family FROM gsst.dictionaries WHERE id = gsst.value_dictionary(c))
       = (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'ddl_s'::regclass AND attname = 'c')
       AS dictionary_of_the_column
FROM ddl_s WHERE id = 5000;
-- the index was rebuilt as a gsst index and still answers
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ddl_s WHERE c = 'existing row number 77 before the change';
SELECT id FROM ddl_s WHERE c = 'existing row number 77 before the change';
SELECT id FROM ddl_s WHERE c = 'existing row number 5000 before the change';
RESET enable_seqscan;
-- writing a row again through text encodes it (c = c keeps the bytes)
UPDATE ddl_s SET c = c WHERE id <= 5;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) AS encoded FROM ddl_s WHERE id <= 10;
UPDATE ddl_s SET c = c::text WHERE id <= 10;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) AS encoded FROM ddl_s WHERE id <= 10;
-- already gsst
ALTER TABLE ddl_s ALTER COLUMN c SET COMPRESSION gsst;

-- SET COMPRESSION on an empty table: nothing to learn yet
CREATE TABLE ddl_empty (c text);
ALTER TABLE ddl_empty ALTER COLUMN c SET COMPRESSION gsst;

-- SET COMPRESSION pglz|lz4|default on a gsst column: back to text, decoded
ALTER TABLE ddl_s ALTER COLUMN c SET COMPRESSION lz4;
SELECT format_type(atttypid, atttypmod), attcompression,
       (SELECT collname FROM pg_collation WHERE oid = attcollation) AS collation
FROM pg_attribute WHERE attrelid = 'ddl_s'::regclass AND attname = 'c';
SELECT count(*) AS wrong FROM ddl_s
WHERE c <> 'existing row number ' || id || ' before the change';
SELECT indexdef FROM pg_indexes WHERE indexname = 'ddl_s_c';
ALTER TABLE ddl_t ALTER COLUMN a SET COMPRESSION default;
ALTER TABLE ddl_t ALTER COLUMN c SET COMPRESSION pglz;
SELECT attname, format_type(atttypid, atttypmod), attcompression FROM pg_attribute
WHERE attrelid = 'ddl_t'::regclass AND attname IN ('a', 'c') ORDER BY attname;

-- a view on the column: PostgreSQL refuses to change its type
CREATE TABLE ddl_v (c text);
CREATE VIEW ddl_view AS SELECT c FROM ddl_v;
ALTER TABLE ddl_v ALTER COLUMN c SET COMPRESSION gsst;
\echo :LAST_ERROR_SQLSTATE

-- ALTER COLUMN ... TYPE gsst gets a family too (and rewrites, encoding)
CREATE TABLE ddl_type (c text);
INSERT INTO ddl_type SELECT 'converted by alter type ' || i FROM generate_series(1, 500) i;
ALTER TABLE ddl_type ALTER COLUMN c TYPE gsst;
SELECT format_type(atttypid, NULL), atttypmod > 0 FROM pg_attribute
WHERE attrelid = 'ddl_type'::regclass AND attname = 'c';
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 300 AS mostly_encoded FROM ddl_type;

-- partitioned tables: partitions inherit the type; no rewrite either
CREATE TABLE ddl_p (id int, c text) PARTITION BY RANGE (id);
CREATE TABLE ddl_p1 PARTITION OF ddl_p FOR VALUES FROM (0) TO (1000);
CREATE TABLE ddl_p2 PARTITION OF ddl_p FOR VALUES FROM (1000) TO (2000);
INSERT INTO ddl_p SELECT i, 'partitioned value ' || i FROM generate_series(0, 1999) i;
CREATE TEMP TABLE ddl_p_before AS SELECT relname, relfilenode FROM pg_class WHERE relname IN ('ddl_p1', 'ddl_p2');
ALTER TABLE ddl_p ALTER COLUMN c SET COMPRESSION gsst;
SELECT c.relname, c.relfilenode = b.relfilenode AS same_relfilenode, format_type(a.atttypid, NULL)
FROM pg_class c JOIN ddl_p_before b USING (relname)
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'c' ORDER BY 1;
INSERT INTO ddl_p VALUES (1999, 'partitioned value 1999');
SELECT count(*), count(DISTINCT c) FROM ddl_p;
CREATE TABLE ddl_pc (id int, c text COMPRESSION gsst) PARTITION BY LIST (id);
CREATE TABLE ddl_pc1 PARTITION OF ddl_pc FOR VALUES IN (1);
SELECT format_type(atttypid, NULL), atttypmod > 0 FROM pg_attribute
WHERE attrelid = 'ddl_pc1'::regclass AND attname = 'c';

-- several commands in one ALTER TABLE
CREATE TABLE ddl_multi (a text, b text, n int);
INSERT INTO ddl_multi SELECT 'a value ' || i, 'b value ' || i, i FROM generate_series(1, 100) i;
ALTER TABLE ddl_multi ALTER COLUMN a SET COMPRESSION gsst, ALTER COLUMN b SET COMPRESSION gsst,
  ALTER COLUMN n SET STATISTICS 100;
SELECT attname, format_type(atttypid, NULL) FROM pg_attribute
WHERE attrelid = 'ddl_multi'::regclass AND attnum > 0 ORDER BY attnum;

-- other compression methods are left to PostgreSQL
CREATE TABLE ddl_other (c text COMPRESSION lz4);
ALTER TABLE ddl_other ALTER COLUMN c SET COMPRESSION pglz;
SELECT attcompression FROM pg_attribute WHERE attrelid = 'ddl_other'::regclass AND attname = 'c';
CREATE TABLE ddl_other2 (c text COMPRESSION zzz);
\echo :LAST_ERROR_SQLSTATE

-- a materialized view over a gsst column keeps the stored values (REFRESH
-- copies datums, in the source column's family) and reads as text
CREATE MATERIALIZED VIEW ddl_mv AS SELECT id, c FROM ddl_p;
SELECT format_type(atttypid, NULL), atttypmod = (SELECT atttypmod FROM pg_attribute
  WHERE attrelid = 'ddl_p'::regclass AND attname = 'c') AS same_family
FROM pg_attribute WHERE attrelid = 'ddl_mv'::regclass AND attname = 'c';
SELECT (SELECT array_agg(gsst.datum(c) ORDER BY id, gsst.datum(c)) FROM ddl_mv)
     = (SELECT array_agg(gsst.datum(c) ORDER BY id, gsst.datum(c)) FROM ddl_p) AS same_stored_bytes,
       (SELECT count(*) FROM ddl_mv) AS rows;
INSERT INTO ddl_p VALUES (1500, 'a row after the view');
REFRESH MATERIALIZED VIEW ddl_mv;
SELECT count(*), count(*) FILTER (WHERE c = 'a row after the view') FROM ddl_mv;
