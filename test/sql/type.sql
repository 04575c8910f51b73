--
-- The type gsst: input/output, NULLs, empty strings, UTF-8, typmod.
--
\set SHOW_CONTEXT never

-- the type lives in the extension's schema, functions in schema gsst
SELECT n.nspname, t.typname, t.typcategory, t.typstorage, t.typcollation <> 0 AS collatable
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE t.typname IN ('gsst', 'passthrough') ORDER BY 1, 2;

SELECT 'hello'::gsst AS plain, ''::gsst AS empty, NULL::gsst AS null_value;
SELECT ''::gsst = ''::gsst AS empty_equal, length(''::gsst) AS empty_length;
SELECT 'héllo wörld ✓ 日本語 🎉'::gsst AS utf8;
SELECT length('héllo wörld ✓ 日本語 🎉'::gsst) AS chars,
       octet_length('héllo wörld ✓ 日本語 🎉'::gsst) AS bytes;

-- typmod: the dictionary family
SELECT format_type('gsst'::regtype, 7) AS with_family,
       format_type('gsst'::regtype, -1) AS without;
SELECT 'x'::gsst(7) AS family_7;
SELECT 'x'::gsst(0);
\echo :LAST_ERROR_SQLSTATE
SELECT 'x'::gsst(1, 2);
\echo :LAST_ERROR_SQLSTATE
SELECT 'x'::gsst(-3);
\echo :LAST_ERROR_SQLSTATE

-- a value of a family without a dictionary is stored raw: its bytes are text
SELECT gsst.datum('plain text'::gsst(424242)) = 'plain text'::bytea AS raw_is_text;
SELECT gsst.value_dictionary('plain text'::gsst) IS NULL AS not_encoded;

-- NULLs and empty strings in a table
CREATE TABLE type_t (id int, c gsst(424243));
INSERT INTO type_t VALUES (1, NULL), (2, ''), (3, 'abc'), (4, 'ü');
SELECT id, c, c IS NULL AS is_null, length(c) FROM type_t ORDER BY id;
SELECT count(c), count(*) FROM type_t;

-- a column declared gsst without a family gets one (DDL hook)
CREATE TABLE type_auto (c gsst);
SELECT atttypmod > 0 AS has_family FROM pg_attribute
WHERE attrelid = 'type_auto'::regclass AND attname = 'c';
ALTER TABLE type_auto ADD COLUMN d gsst;
SELECT count(DISTINCT atttypmod) AS distinct_families FROM pg_attribute
WHERE attrelid = 'type_auto'::regclass AND attname IN ('c', 'd');

-- text never contains NUL; neither may gsst
SELECT gsst.compress(convert_from('\x00'::bytea, 'UTF8'), 1);
\echo :LAST_ERROR_SQLSTATE
