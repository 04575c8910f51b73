--
-- Bulk paths: gsst.compress_table and gsst.load, encoded in the backend
-- (gsst.gpu = off) and by the gsst worker (its CPU mode: CI has no GPU).
-- Either way every stored datum must equal per-row encoding with the same
-- dictionary: gsst.datum(c) = gsst.datum(gsst.compress(c::text, family)).
--
SET client_min_messages = warning;
\set VERBOSITY terse

-- rows whose stored bytes differ from per-row encoding with the column's
-- current dictionary
CREATE FUNCTION bulk_mismatches(rel regclass, col name DEFAULT 'c') RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    fam integer;
    n bigint;
BEGIN
    SELECT atttypmod INTO fam FROM pg_attribute WHERE attrelid = rel AND attname = col;
    EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL
                      AND gsst.datum(%I) IS DISTINCT FROM gsst.datum(gsst.compress(%I::text, %s))',
                   rel, col, col, col, fam) INTO n;
    RETURN n;
END $$;

CREATE FUNCTION bulk_wait_for_worker(want text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. 300 LOOP
        EXIT WHEN (SELECT mode FROM gsst.worker_status) = want
               OR (want = 'cpu' AND (SELECT mode FROM gsst.worker_status) = 'gpu');
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN (SELECT CASE WHEN mode = 'gpu' THEN 'cpu' ELSE mode END FROM gsst.worker_status);
END $$;

-- the worker runs (shared_preload_libraries) and says what it has
SELECT pid IS NOT NULL AS running, mode IN ('gpu', 'cpu', 'off') AS known_mode,
       starts >= 1 AS started, in_flight FROM gsst.worker_status;

CREATE TABLE bulk_src (id int PRIMARY KEY, c text, note text);
INSERT INTO bulk_src
SELECT i,
       CASE i % 4
         WHEN 0 THEN 'customer ' || i || ' from city ' || (i % 37) || ' ordered item ' || (i * 7 % 1000)
         WHEN 1 THEN 'https://www.example.com/products/' || (i % 500) || '?ref=mail&id=' || i
         WHEN 2 THEN 'x'
         ELSE CASE WHEN i % 1000 = 3 THEN repeat('long text line ' || i || ' ', 300)
                   ELSE 'größer als ' || i || ' — naïve café' END
       END,
       'note ' || i
FROM generate_series(1, 20000) i;
UPDATE bulk_src SET c = NULL WHERE id % 101 = 0;
UPDATE bulk_src SET c = '' WHERE id % 103 = 0;

--
-- compress_table in the backend
--
CREATE TABLE ct (id int PRIMARY KEY, c text, note text);
INSERT INTO ct SELECT * FROM bulk_src;
ALTER TABLE ct ALTER COLUMN c SET COMPRESSION gsst;
-- hash: long values do not fit a btree once they are stored uncompressed
CREATE INDEX ct_c ON ct USING hash (c);
SELECT "values", encoded_values FROM gsst.column_stats('ct');
SELECT md5(string_agg(id || ':' || coalesce(c, '<null>') || note, E'\n' ORDER BY id)) AS ct_md5 FROM ct \gset
SELECT relfilenode AS ct_node FROM pg_class WHERE relname = 'ct' \gset

SET gsst.gpu = off;
SELECT gsst.compress_table('ct');
SELECT "values", encoded_values > 12000 AS most_encoded, cardinality(dictionaries) AS ndicts,
       stored_bytes < raw_bytes * 0.7 AS compressed
FROM gsst.column_stats('ct');
SELECT bulk_mismatches('ct');
SELECT md5(string_agg(id || ':' || coalesce(c, '<null>') || note, E'\n' ORDER BY id)) = :'ct_md5' AS same_rows FROM ct;
SELECT relfilenode <> :ct_node AS rewritten FROM pg_class WHERE relname = 'ct';
-- long values went through TOAST and came back
SELECT count(*), sum(length(c)) FROM ct WHERE length(c) > 2000;
-- indexes were rebuilt and work
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ct WHERE c = 'x';
SELECT count(*) FROM ct WHERE c = 'x';
SELECT id FROM ct WHERE c = 'customer 400 from city 30 ordered item 800';
RESET enable_seqscan;
RESET enable_bitmapscan;

-- values already in the current dictionary keep their bytes: only the
-- raw ones go through the encoder again
SELECT "values" - encoded_values AS raw_values FROM gsst.column_stats('ct') \gset
SELECT gsst.compress_table('ct', 'c') = :raw_values AS only_raw_values;
SELECT bulk_mismatches('ct');

--
-- compress_table through the worker, retraining first, in small batches
--
ALTER SYSTEM SET gsst.worker_cpu = on;
SELECT pg_reload_conf();
SELECT bulk_wait_for_worker('cpu') AS worker_mode;
SELECT cpu_batches + gpu_batches AS batches_before FROM gsst.worker_status \gset
SELECT max(id) AS dict_before FROM gsst.dictionaries \gset

SET gsst.gpu = on;
SET gsst.batch_bytes = '128kB';
SELECT gsst.compress_table('ct', 'c', retrain => true);
SELECT dictionaries = ARRAY[(SELECT max(id) FROM gsst.dictionaries)] AS new_dictionary,
       dictionaries[1] > :dict_before AS retrained
FROM gsst.column_stats('ct');
SELECT bulk_mismatches('ct');
SELECT md5(string_agg(id || ':' || coalesce(c, '<null>') || note, E'\n' ORDER BY id)) = :'ct_md5' AS same_rows FROM ct;
SELECT cpu_batches + gpu_batches - :batches_before > 4 AS several_batches_on_worker,
       failed_batches, backend_fallbacks, in_flight, bytes_out < bytes_in AS smaller
FROM gsst.worker_status;

-- transactional: a rolled-back rewrite leaves the table as it was
BEGIN;
DELETE FROM ct WHERE id <= 1000;
SELECT gsst.compress_table('ct', retrain => true) > 0 AS encoded;
SELECT count(*) FROM ct;
ROLLBACK;
SELECT count(*) FROM ct;
SELECT md5(string_agg(id || ':' || coalesce(c, '<null>') || note, E'\n' ORDER BY id)) = :'ct_md5' AS same_rows FROM ct;
SELECT bulk_mismatches('ct');
-- committed: deleted rows are gone for good
BEGIN;
DELETE FROM ct WHERE id <= 1000;
SELECT gsst.compress_table('ct') >= 0 AS done;
COMMIT;
SELECT count(*), min(id) FROM ct;
SELECT bulk_mismatches('ct');

-- a partitioned table: every partition is rewritten
CREATE TABLE pt (id int, c text COMPRESSION gsst) PARTITION BY RANGE (id);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (0) TO (10000);
CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (10000) TO (30000);
SET gsst.learn_sample_bytes = 0;	-- rows stay raw until compress_table
INSERT INTO pt SELECT id, c FROM bulk_src;
RESET gsst.learn_sample_bytes;
SELECT encoded_values FROM gsst.column_stats('pt');
SELECT gsst.compress_table('pt') > 0 AS encoded;
SELECT encoded_values > 12000 AS most_encoded FROM gsst.column_stats('pt');
SELECT bulk_mismatches('pt'), bulk_mismatches('pt_1'), bulk_mismatches('pt_2');
SELECT (SELECT md5(string_agg(coalesce(c, '<null>'), E'\n' ORDER BY id)) FROM pt) =
       (SELECT md5(string_agg(coalesce(c, '<null>'), E'\n' ORDER BY id)) FROM bulk_src) AS same_rows;

-- what compress_table refuses
SELECT gsst.compress_table('bulk_src', 'c');
SELECT gsst.compress_table('ct', 'nope');
CREATE VIEW ct_view AS SELECT * FROM ct;
SELECT gsst.compress_table('ct_view');
SELECT gsst.compress_table('bulk_src');	-- no gsst columns: nothing to do
CREATE ROLE regress_gsst_bulk;
GRANT SELECT, INSERT ON ct TO regress_gsst_bulk;
SET ROLE regress_gsst_bulk;
SELECT gsst.compress_table('ct');
RESET ROLE;

--
-- gsst.load
--
CREATE TABLE lt (id int PRIMARY KEY, c text COMPRESSION gsst, note text);
-- a new column learns its dictionary from the first batch
SELECT gsst.load('lt', 'SELECT id, c, note FROM bulk_src', 3000);
SELECT "values", encoded_values > 12000 AS most_encoded, cardinality(dictionaries) AS ndicts
FROM gsst.column_stats('lt');
SELECT bulk_mismatches('lt');
SELECT (SELECT md5(string_agg(id || ':' || coalesce(c, '<null>') || note, E'\n' ORDER BY id)) FROM lt) =
       (SELECT md5(string_agg(id || ':' || coalesce(c, '<null>') || note, E'\n' ORDER BY id)) FROM bulk_src) AS same_rows;

-- the worker and the backend store the same bytes
SET gsst.gpu = off;
SELECT gsst.load('lt', 'SELECT id + 100000, c, note FROM bulk_src', 3000);
SET gsst.gpu = on;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE gsst.datum(a.c) IS DISTINCT FROM gsst.datum(b.c)) AS differ
FROM lt a JOIN lt b ON b.id = a.id + 100000;

-- a gsst source (another family) is decoded and encoded again
CREATE TABLE lt2 (id int, c text COMPRESSION gsst);
SELECT gsst.load('lt2', 'SELECT id, c FROM ct WHERE id % 2 = 0');
SELECT bulk_mismatches('lt2');
SELECT (SELECT md5(string_agg(coalesce(c, '<null>'), E'\n' ORDER BY id)) FROM lt2) =
       (SELECT md5(string_agg(coalesce(c, '<null>'), E'\n' ORDER BY id)) FROM ct WHERE id % 2 = 0) AS same_rows;

-- triggers fire: row triggers per row, statement triggers per batch
CREATE TABLE lt_log (rows int, statements int);
INSERT INTO lt_log VALUES (0, 0);
CREATE FUNCTION lt_count_row() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN UPDATE lt_log SET rows = rows + 1; RETURN NEW; END $$;
CREATE FUNCTION lt_count_statement() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN UPDATE lt_log SET statements = statements + 1; RETURN NULL; END $$;
CREATE TABLE lt3 (id int, c text COMPRESSION gsst, n int DEFAULT 7 CHECK (n > 0));
CREATE TRIGGER lt3_row BEFORE INSERT ON lt3 FOR EACH ROW EXECUTE FUNCTION lt_count_row();
CREATE TRIGGER lt3_statement AFTER INSERT ON lt3 FOR EACH STATEMENT EXECUTE FUNCTION lt_count_statement();
SELECT gsst.load('lt3', 'SELECT id, c FROM bulk_src WHERE id <= 2500', 1000);
SELECT rows, statements FROM lt_log;
SELECT count(*), min(n), max(n) FROM lt3;
SELECT bulk_mismatches('lt3');

-- a constraint violation stops the whole load
SELECT gsst.load('lt3', 'SELECT id, c, CASE WHEN id = 1500 THEN -1 ELSE 1 END FROM bulk_src WHERE id <= 2000', 500);
SELECT count(*) FROM lt3;

-- partitions: rows are routed
CREATE TABLE lpt (id int, c text COMPRESSION gsst) PARTITION BY RANGE (id);
CREATE TABLE lpt_1 PARTITION OF lpt FOR VALUES FROM (0) TO (5000);
CREATE TABLE lpt_2 PARTITION OF lpt FOR VALUES FROM (5000) TO (30000);
SELECT gsst.load('lpt', 'SELECT id, c FROM bulk_src', 4000);
SELECT (SELECT count(*) FROM lpt_1) AS part_1, (SELECT count(*) FROM lpt_2) AS part_2;
SELECT bulk_mismatches('lpt');

-- what load refuses
SELECT gsst.load('lt', 'SELECT id, id, note FROM bulk_src');
SELECT gsst.load('lt', 'SELECT id, c, note, note FROM bulk_src');
SELECT gsst.load('lt', 'SELECT id, c, note FROM bulk_src', 0);
SELECT gsst.load('lt', 'SELECT id, c, note FROM bulk_src WHERE id = 1');
SELECT gsst.load('ct_view', 'SELECT 1');
SELECT gsst.load_rows(1);

SELECT failed_batches, in_flight FROM gsst.worker_status;

ALTER SYSTEM RESET gsst.worker_cpu;
SELECT pg_reload_conf();
SELECT bulk_wait_for_worker('off') IN ('off', 'cpu') AS worker_mode;
DROP TABLE ct, pt, lt, lt2, lt3, lt_log, lpt, bulk_src CASCADE;
DROP ROLE regress_gsst_bulk;
DROP FUNCTION bulk_mismatches(regclass, name), bulk_wait_for_worker(text),
    lt_count_row(), lt_count_statement();
