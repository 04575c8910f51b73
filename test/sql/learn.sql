--
-- Dictionaries: learning, transactions, retraining, protection.
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 8192;

CREATE TABLE learn_t (id serial, c text COMPRESSION gsst);
CREATE FUNCTION learn_family(rel regclass, col name) RETURNS int LANGUAGE sql AS
$$ SELECT atttypmod FROM pg_attribute WHERE attrelid = rel AND attname = col $$;
CREATE FUNCTION learn_dicts(family int) RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM gsst.dictionaries WHERE gsst.dictionaries.family = $1 $$;

-- a bulk COPY into a new column: raw until the first 8 KB are seen, then encoded
COPY learn_t (c) FROM STDIN;
the first values of a column are stored raw while gsst learns from them
\.
INSERT INTO learn_t (c)
SELECT 'customer#' || lpad(i::text, 9, '0') || ' lives at ' || i || ' main street, springfield'
FROM generate_series(1, 2000) i;
SELECT learn_dicts(learn_family('learn_t', 'c')) AS dictionaries;
-- 8 KB are about 150 of these values
SELECT raw BETWEEN 100 AND 250 AS raw_only_while_learning, encoded > 1700 AS encoded_after
FROM (SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) AS raw,
             count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) AS encoded
      FROM learn_t) s;
SELECT sum(pg_column_size(c)) < sum(octet_length(c)) AS smaller FROM learn_t;
SELECT count(*) AS wrong FROM learn_t
WHERE id > 1 AND c <> 'customer#' || lpad((id - 1)::text, 9, '0') || ' lives at ' || (id - 1) || ' main street, springfield';

-- a new column's first dictionary is stored by the learner, in a
-- transaction of its own: it stays when the writes it was learned from roll
-- back, no id is burnt, and the next writes use it
CREATE TABLE learn_abort (c text COMPRESSION gsst);
BEGIN;
INSERT INTO learn_abort SELECT 'aborted transaction value number ' || i FROM generate_series(1, 1000) i;
SELECT count(*) > 0 AS encoded_inside FROM learn_abort WHERE gsst.value_dictionary(c) IS NOT NULL;
ROLLBACK;
SELECT learn_dicts(learn_family('learn_abort', 'c')) AS dictionaries_after_rollback;
INSERT INTO learn_abort SELECT 'aborted transaction value number ' || i FROM generate_series(1001, 2000) i;
SELECT learn_dicts(learn_family('learn_abort', 'c')) AS dictionaries_after_commit;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) AS raw,
       count(DISTINCT gsst.value_dictionary(c)) AS dictionaries_used
FROM learn_abort;
SELECT count(*) AS dangling FROM learn_abort
WHERE gsst.value_dictionary(c) IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM gsst.dictionaries d WHERE d.id = gsst.value_dictionary(c));

-- trained inside a subtransaction that aborts, while a value encoded with
-- it survives in a variable: the dictionary is stored again at commit
SET gsst.learn_sample_bytes = 0;
CREATE TABLE learn_sub (c gsst);
INSERT INTO learn_sub SELECT 'subtransaction value number ' || i FROM generate_series(1, 800) i;
DO $$
DECLARE
  kept gsst;
BEGIN
  BEGIN
    PERFORM gsst.train('learn_sub', 'c');
    INSERT INTO learn_sub VALUES ('subtransaction value number 801') RETURNING c INTO kept;
    RAISE EXCEPTION 'roll back the subtransaction';
  EXCEPTION WHEN raise_exception THEN
    NULL;
  END;
  INSERT INTO learn_sub VALUES (kept);
END $$;
SELECT c, gsst.value_dictionary(c) IS NOT NULL AS encoded,
       EXISTS (SELECT 1 FROM gsst.dictionaries d WHERE d.id = gsst.value_dictionary(c)) AS dictionary_exists
FROM learn_sub WHERE c = 'subtransaction value number 801';
RESET gsst.learn_sample_bytes;

-- no learning in a read-only transaction (or on a standby)
CREATE TABLE learn_ro (c text COMPRESSION gsst);
BEGIN READ ONLY;
SELECT count(*) FROM (SELECT ('read only ' || i)::gsst(999999) FROM generate_series(1, 1000) i) s;
COMMIT;
SELECT learn_dicts(999999) AS dictionaries_for_read_only;

-- learning can be turned off
SET gsst.learn_sample_bytes = 0;
CREATE TABLE learn_off (c text COMPRESSION gsst);
INSERT INTO learn_off SELECT 'learning is off ' || i FROM generate_series(1, 1000) i;
SELECT learn_dicts(learn_family('learn_off', 'c')) AS dictionaries_when_off;
-- gsst.train learns from the rows and returns the new dictionary
SELECT gsst.train('learn_off', 'c') > 0 AS trained;
SELECT learn_dicts(learn_family('learn_off', 'c')) AS dictionaries_after_train;
INSERT INTO learn_off VALUES ('learning is off 1001');
SELECT gsst.value_dictionary(c) = (SELECT max(id) FROM gsst.dictionaries
                                   WHERE family = learn_family('learn_off', 'c')) AS uses_new
FROM learn_off WHERE c = 'learning is off 1001';
RESET gsst.learn_sample_bytes;

-- retraining adds a table; old values keep decoding with theirs
SELECT gsst.value_dictionary(c) AS old_dictionary FROM learn_t WHERE id = 2000 \gset
SELECT gsst.train('learn_t', 'c') > :old_dictionary AS new_dictionary;
INSERT INTO learn_t (c) VALUES ('customer#000002001 lives at 2001 main street, springfield');
SELECT count(DISTINCT gsst.value_dictionary(c)) AS dictionaries_in_use FROM learn_t;
SELECT c FROM learn_t WHERE id IN (2000, 2002) ORDER BY id;
SELECT gsst.train('learn_t', 'id');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.train('learn_t', 'nope');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.train('pg_class', 'relname');
\echo :LAST_ERROR_SQLSTATE
-- a table with no rows: nothing to learn
CREATE TABLE learn_empty (c text COMPRESSION gsst);
SELECT gsst.train('learn_empty', 'c') IS NULL AS nothing_learned;

-- dictionaries are never updated or deleted
UPDATE gsst.dictionaries SET family = 0;
\echo :LAST_ERROR_SQLSTATE
DELETE FROM gsst.dictionaries;
\echo :LAST_ERROR_SQLSTATE
TRUNCATE gsst.dictionaries;
\echo :LAST_ERROR_SQLSTATE
-- rows inserted through SQL (as a restored dump does) are validated, and
-- an id that is taken is replaced by a fresh one
INSERT INTO gsst.dictionaries VALUES (999998, 1, now(), 3, '\x0100'::bytea);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO gsst.dictionaries VALUES (0, 1, now(), 0, '\x01000000000000000000'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS copies_before FROM gsst.dictionaries
WHERE symbols = (SELECT symbols FROM gsst.dictionaries WHERE id = 1) \gset
INSERT INTO gsst.dictionaries SELECT * FROM gsst.dictionaries WHERE id = 1;
SELECT count(*) - :copies_before AS copies_added FROM gsst.dictionaries
WHERE symbols = (SELECT symbols FROM gsst.dictionaries WHERE id = 1);
SELECT has_table_privilege('public', 'gsst.dictionaries', 'SELECT') AS public_can_read,
       has_schema_privilege('public', 'gsst', 'USAGE') AS public_uses_schema;
SELECT reloptions FROM pg_class WHERE oid = 'gsst.dictionaries'::regclass;
SELECT extconfig::regclass[] FROM pg_extension WHERE extname = 'gsst';

-- a user without rights on gsst.dictionaries still learns through a column
CREATE ROLE learn_user;
GRANT CREATE ON SCHEMA public TO learn_user;
SET ROLE learn_user;
SELECT count(*) FROM gsst.dictionaries;
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE learn_owned (c text COMPRESSION gsst);
INSERT INTO learn_owned SELECT 'owned by an unprivileged role ' || i FROM generate_series(1, 2000) i;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 1000 AS encoded FROM learn_owned;
SELECT gsst.train('learn_t', 'c');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- a new column learns from the values gathered before the next one would
-- take its sample past gsst.learn_sample_bytes; that value is not learned
-- from (30-byte values, a 100-byte limit: rows 1-3 are the sample)
SET gsst.learn_sample_bytes = 100;
CREATE TABLE learn_limit (id int, c text COMPRESSION gsst);
INSERT INTO learn_limit VALUES (1, repeat('abc', 10)), (2, repeat('abc', 10)),
  (3, repeat('abc', 10)), (4, repeat('xyz', 10)), (5, repeat('abc', 10));
SELECT id, gsst.value_dictionary(c) IS NOT NULL AS encoded FROM learn_limit ORDER BY id;
SELECT gsst.value_dictionary(c) AS limit_dict FROM learn_limit WHERE id = 5 \gset
SELECT count(*) > 0 AS learned_abc,
       count(*) FILTER (WHERE position('x' IN symbol) > 0) AS symbols_with_x
FROM gsst.dictionary(:limit_dict);
RESET gsst.learn_sample_bytes;
