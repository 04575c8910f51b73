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

-- Wait (30 s at most) until the worker is in mode want, 'cpu' or
-- 'stopped', and return its mode; 'gpu' counts as 'cpu' (a GPU encodes
-- what the CPU mode does) and is returned as 'cpu'.  The mode does not say
-- whether the worker takes batches (gsst.worker_cpu, once a reload reached
-- it): with probe, a table like bulk_src whose c has a dictionary, wait
-- until a batch loaded into it went to the worker (the rows are rolled
-- back).
CREATE FUNCTION bulk_wait_for_worker(want text, probe regclass DEFAULT NULL)
RETURNS text LANGUAGE plpgsql SET gsst.gpu = on AS $$
DECLARE
    now_mode text;
    batches bigint;
BEGIN
    FOR i IN 1 .. 300 LOOP
        SELECT CASE WHEN mode = 'gpu' THEN 'cpu' ELSE mode END, cpu_batches + gpu_batches
        INTO now_mode, batches FROM gsst.worker_status;
        IF now_mode = want AND probe IS NOT NULL THEN
            BEGIN
                PERFORM gsst.load(probe, 'SELECT id + 1000000, c, note FROM bulk_src WHERE id <= 100');
                RAISE EXCEPTION USING ERRCODE = 'query_canceled';
            EXCEPTION WHEN query_canceled THEN
                NULL;
            END;
            EXIT WHEN (SELECT cpu_batches + gpu_batches FROM gsst.worker_status) > batches;
        ELSE
            EXIT WHEN now_mode = want;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN (SELECT CASE WHEN mode = 'gpu' THEN 'cpu' ELSE mode END FROM gsst.worker_status);
END $$;

-- the worker runs (shared_preload_libraries) and says what it has: a
-- reason only when there is no GPU
SELECT pid IS NOT NULL AS running, mode IN ('gpu', 'cpu') AS known_mode,
       reason IS NULL OR mode = 'cpu' AS reason_only_without_gpu,
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
SELECT bulk_wait_for_worker('cpu', probe => 'ct') AS worker_mode;
SELECT cpu_batches + gpu_batches AS batches_before FROM gsst.worker_status \gset
SELECT max(id) AS dict_before FROM gsst.dictionaries \gset

SET gsst.gpu = on;
SET gsst.batch_bytes = '128kB';
-- serially: parallel workers would encode a batch themselves whenever the
-- one CPU worker is busy with another's, as many as the scheduler decides
SELECT gsst.compress_table('ct', 'c', retrain => true, workers => 0);
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

-- a gsst source (another family) is decoded and encoded again, here into
-- a table keyed by an identity.  Without a column list, source columns go
-- by position to the columns an INSERT can take a value for: generated
-- columns and GENERATED ALWAYS identity columns are passed over and get
-- their values as with INSERT (the identity in the source's order)
CREATE TABLE lt2 (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text COMPRESSION gsst);
SELECT gsst.load('lt2', 'SELECT c FROM ct WHERE id % 2 = 0 ORDER BY id', 3000);
SELECT count(*), min(id), max(id) FROM lt2;
SELECT bulk_mismatches('lt2');
SELECT (SELECT md5(string_agg(coalesce(c, '<null>'), E'\n' ORDER BY id)) FROM lt2) =
       (SELECT md5(string_agg(coalesce(c, '<null>'), E'\n' ORDER BY id)) FROM ct WHERE id % 2 = 0) AS same_rows;
-- with a column list (named argument columns): the identity goes on
SELECT gsst.load('lt2', 'SELECT c FROM bulk_src WHERE id % 4 = 0 AND id <= 2000 ORDER BY id',
                 columns => '{c}');
SELECT count(*), min(id), max(id) FROM lt2;
-- every value decodes to its source row's, is stored as per-row encoding
-- stores it, and is compressed unless it is too short to gain ('x', '')
SELECT count(*) AS rows, count(l.c) AS non_null,
       count(*) FILTER (WHERE l.c::text IS DISTINCT FROM s.c) AS differ,
       count(*) FILTER (WHERE gsst.value_dictionary(l.c) IS NOT NULL) AS compressed,
       count(*) FILTER (WHERE s.c NOT IN ('x', '') AND gsst.value_dictionary(l.c) IS NULL) AS uncompressed
FROM lt2 l
JOIN (SELECT row_number() OVER (ORDER BY k, id) AS n, c
      FROM (SELECT 1 AS k, id, c::text AS c FROM ct WHERE id % 2 = 0
            UNION ALL
            SELECT 2, id, c FROM bulk_src WHERE id % 4 = 0 AND id <= 2000) u) s ON s.n = l.id;
SELECT bulk_mismatches('lt2');

-- triggers fire: row triggers per row, statement triggers per batch.  The
-- key is a BY DEFAULT identity: without a list it takes the first source
-- column; the generated column g is passed over, and n, after the last
-- source column, gets its default
CREATE TABLE lt_log (rows int, statements int);
INSERT INTO lt_log VALUES (0, 0);
CREATE FUNCTION lt_count_row() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN UPDATE lt_log SET rows = rows + 1; RETURN NEW; END $$;
CREATE FUNCTION lt_count_statement() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN UPDATE lt_log SET statements = statements + 1; RETURN NULL; END $$;
CREATE TABLE lt3 (id int GENERATED BY DEFAULT AS IDENTITY, c text COMPRESSION gsst,
                  g int GENERATED ALWAYS AS (n * 2) STORED, n int DEFAULT 7 CHECK (n > 0));
CREATE TRIGGER lt3_row BEFORE INSERT ON lt3 FOR EACH ROW EXECUTE FUNCTION lt_count_row();
CREATE TRIGGER lt3_statement AFTER INSERT ON lt3 FOR EACH STATEMENT EXECUTE FUNCTION lt_count_statement();
SELECT gsst.load('lt3', 'SELECT id, c FROM bulk_src WHERE id <= 2500', 1000);
SELECT rows, statements FROM lt_log;
SELECT count(*), min(n), max(n) FROM lt3;
SELECT min(id), max(id), min(g), max(g) FROM lt3;
SELECT bulk_mismatches('lt3');
-- with a list, the identity takes its next value (the explicit values did
-- not advance it, as with INSERT) and the named columns the source's
SELECT gsst.load('lt3', 'SELECT c, id % 5 + 1 FROM bulk_src WHERE id <= 100 ORDER BY id',
                 columns => '{c,n}');
SELECT count(*), min(id), max(id), min(n), max(n), min(g), max(g) FROM lt3 WHERE n <> 7;
SELECT count(*) AS rows, count(*) FILTER (WHERE l.c::text IS DISTINCT FROM s.c) AS differ
FROM lt3 l JOIN bulk_src s USING (id) WHERE l.n <> 7;
SELECT bulk_mismatches('lt3');

-- a constraint violation stops the whole load; its error keeps its
-- SQLSTATE, message and detail, and its context names the call and the
-- rows, not the INSERT gsst.load runs
\set VERBOSITY default
SELECT gsst.load('lt3', 'SELECT id, c, CASE WHEN id = 1500 THEN -1 ELSE 1 END FROM bulk_src WHERE id <= 2000 ORDER BY id', 500);
\echo :LAST_ERROR_SQLSTATE
-- so does an error of a row trigger, and one of the source query
CREATE FUNCTION lt_refuse_row() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN IF NEW.id = 1234 THEN RAISE EXCEPTION 'row % refused', NEW.id; END IF; RETURN NEW; END $$;
CREATE TRIGGER lt3_refuse BEFORE INSERT ON lt3 FOR EACH ROW EXECUTE FUNCTION lt_refuse_row();
SELECT gsst.load('lt3', 'SELECT id, c FROM bulk_src WHERE id <= 2000 ORDER BY id', 500);
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER lt3_refuse ON lt3;
SELECT gsst.load('lt3', 'SELECT i, (SELECT c FROM bulk_src WHERE id = i), 1 + 0 * (1 / (1500 - i))
                         FROM generate_series(1, 2000) i', 500);
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY terse
SELECT count(*) FROM lt3;

-- partitions: rows are routed
CREATE TABLE lpt (id int, c text COMPRESSION gsst) PARTITION BY RANGE (id);
CREATE TABLE lpt_1 PARTITION OF lpt FOR VALUES FROM (0) TO (5000);
CREATE TABLE lpt_2 PARTITION OF lpt FOR VALUES FROM (5000) TO (30000);
SELECT gsst.load('lpt', 'SELECT id, c FROM bulk_src', 4000);
SELECT (SELECT count(*) FROM lpt_1) AS part_1, (SELECT count(*) FROM lpt_2) AS part_2;
SELECT bulk_mismatches('lpt');

-- column INSERT privileges on the columns it fills are enough, as for
-- INSERT
GRANT SELECT ON bulk_src TO regress_gsst_bulk;
GRANT INSERT (c) ON lt2, lt3 TO regress_gsst_bulk;
SET ROLE regress_gsst_bulk;
SELECT gsst.load('lt2', 'SELECT c FROM bulk_src WHERE id <= 10', columns => '{c}');
SELECT gsst.load('lt2', 'SELECT c FROM bulk_src WHERE id <= 10');
SELECT gsst.load('lt3', 'SELECT c, 1 FROM bulk_src WHERE id <= 10', columns => '{c,n}');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- what load refuses about target columns: its errors speak of the call,
-- never of the INSERT it runs
\set VERBOSITY default
SELECT gsst.load('lt3', 'SELECT c FROM bulk_src', columns => '{nope}');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('lt3', 'SELECT c, c FROM bulk_src', columns => '{c,c}');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('lt3', 'SELECT c, 1 FROM bulk_src', columns => '{c,g}');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('lt2', 'SELECT 1, c FROM bulk_src', columns => '{id,c}');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('lt3', 'SELECT c, 1, 2 FROM bulk_src', columns => '{c,n}');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('lt3', 'SELECT c FROM bulk_src', columns => '{c,n}');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('lt3', 'SELECT 1, c, 2, 3 FROM bulk_src');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('lt3', 'SELECT id, 1 FROM bulk_src', columns => '{n,c}');
\echo :LAST_ERROR_SQLSTATE
-- a BY DEFAULT identity takes the first source column: name the others
SELECT gsst.load('lt3', 'SELECT c FROM bulk_src');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY terse
SELECT count(*) FROM lt3;

-- what load refuses
SELECT gsst.load('lt', 'SELECT id, id, note FROM bulk_src');
SELECT gsst.load('lt', 'SELECT id, c, note, note FROM bulk_src');
SELECT gsst.load('lt', 'SELECT id, c, note FROM bulk_src', 0);
SELECT gsst.load('lt', 'SELECT id, c, note FROM bulk_src WHERE id = 1');
SELECT gsst.load('ct_view', 'SELECT 1');

SELECT failed_batches, in_flight FROM gsst.worker_status;

ALTER SYSTEM RESET gsst.worker_cpu;
SELECT pg_reload_conf();
SELECT bulk_wait_for_worker('cpu') AS worker_mode;
DROP TABLE ct, pt, lt, lt2, lt3, lt_log, lpt, bulk_src CASCADE;
DROP ROLE regress_gsst_bulk;
DROP FUNCTION bulk_mismatches(regclass, name), bulk_wait_for_worker(text, regclass),
    lt_count_row(), lt_count_statement(), lt_refuse_row();
