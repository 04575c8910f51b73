--
-- gsst.learn: a column with no dictionary yet learns its first from a
-- sample, as from its first writes, and only from a role that may write.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse

CREATE TABLE ls_t (id int, c text COMPRESSION gsst);
CREATE FUNCTION ls_dicts(rel regclass) RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM gsst.dictionaries WHERE family =
     (SELECT atttypmod FROM pg_attribute WHERE attrelid = rel AND attname = 'c') $$;

-- a role that may only read the table may not teach it
CREATE ROLE ls_reader;
CREATE ROLE ls_writer;
GRANT SELECT ON ls_t TO ls_reader;
GRANT INSERT (c) ON ls_t TO ls_writer;
SET ROLE ls_reader;
SELECT gsst.learn('ls_t', 'c', ARRAY['some text']);
RESET ROLE;
SELECT ls_dicts('ls_t') AS dictionaries;

-- a role that may insert into the column may; the first rows are encoded
SET ROLE ls_writer;
SELECT gsst.learn('ls_t', 'c',
  (SELECT array_agg('customer#' || lpad(i::text, 9, '0') || ' lives at ' || i || ' main street')
   FROM generate_series(1, 500) i)) > 0 AS learned;
INSERT INTO ls_t (c) SELECT 'customer#' || lpad(i::text, 9, '0') || ' lives at ' || i || ' main street'
FROM generate_series(501, 520) i;
RESET ROLE;
SELECT ls_dicts('ls_t') AS dictionaries;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) AS raw, count(*) AS all_rows FROM ls_t;

-- a column that has a dictionary keeps it: NULL, nothing stored
SELECT gsst.learn('ls_t', 'c', ARRAY['other text', 'more other text']) IS NULL AS kept;
SELECT ls_dicts('ls_t') AS dictionaries;

-- what it refuses: a role that may insert into another column only
CREATE ROLE ls_other;
GRANT INSERT (id) ON ls_t TO ls_other;
SET ROLE ls_other;
\set VERBOSITY sqlstate
SELECT gsst.learn('ls_t', 'c', ARRAY['x']);
\set VERBOSITY terse
RESET ROLE;
DROP OWNED BY ls_other;
DROP ROLE ls_other;
SELECT gsst.learn('ls_t', 'id', ARRAY['x']);
SELECT gsst.learn('ls_t', 'nope', ARRAY['x']);
CREATE TABLE ls_empty (c text COMPRESSION gsst);
SELECT gsst.learn('ls_empty', 'c', ARRAY[]::text[]) AS nothing_to_learn;
SELECT gsst.learn('ls_empty', 'c', ARRAY[NULL, '']::text[]) AS nothing_to_learn;
SELECT ls_dicts('ls_empty') AS dictionaries;

DROP TABLE ls_t, ls_empty;
DROP FUNCTION ls_dicts(regclass);
DROP ROLE ls_reader, ls_writer;
