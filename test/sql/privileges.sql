--
-- A family belongs to its column: what each role can do with the symbols,
-- the dictionaries and the functions of gsst, and the guards that keep
-- stored values decodable.  (Lock-free refusals need two sessions:
-- test/tap/007_privileges.pl.)
--
\set SHOW_CONTEXT never
\set VERBOSITY default
\getenv abs_builddir PG_ABS_BUILDDIR
\set crafted_file :abs_builddir '/results/privileges_crafted.bin'
SET gsst.learn_sample_bytes = 4096;

CREATE ROLE priv_owner;
CREATE ROLE priv_reader;
CREATE ROLE priv_writer;
CREATE ROLE priv_intruder;
CREATE ROLE priv_auditor IN ROLE pg_read_all_data;
CREATE ROLE priv_loader IN ROLE pg_read_server_files;
GRANT CREATE ON SCHEMA public TO priv_owner, priv_reader, priv_writer, priv_intruder, priv_loader;

-- the victim: a table of e-mail addresses with its own dictionary
SET ROLE priv_owner;
CREATE TABLE priv_secret (id int, email text COMPRESSION gsst);
INSERT INTO priv_secret SELECT i, 'person.' || i || '@secret-corp.example'
FROM generate_series(1, 3000) i;
GRANT SELECT ON priv_secret TO priv_reader;
GRANT INSERT ON priv_secret TO priv_writer;
RESET ROLE;
SELECT atttypmod AS fam FROM pg_attribute
WHERE attrelid = 'priv_secret'::regclass AND attname = 'email' \gset
SELECT max(id) AS dict, count(*) AS dicts_before FROM gsst.dictionaries WHERE family = :fam \gset
SELECT md5(string_agg(encode(symbols, 'hex'), ',' ORDER BY id)) AS victim_symbols
FROM gsst.dictionaries WHERE family = :fam \gset
SELECT :dicts_before AS victim_dictionaries, count(*) FILTER (WHERE gsst.value_dictionary(email) IS NOT NULL) > 2500 AS encoded
FROM priv_secret;
-- the bytes of an encoded value naming the victim's dictionary and its code
-- 0, as a crafted input: 0x00, the header varint id * 4 (LEB128), the code
SELECT '\x00'::bytea ||
       CASE WHEN :dict * 4 < 128 THEN decode(lpad(to_hex(:dict * 4), 2, '0'), 'hex')
            ELSE decode(lpad(to_hex((:dict * 4) % 128 + 128), 2, '0') ||
                        lpad(to_hex((:dict * 4) / 128), 2, '0'), 'hex') END ||
       '\x00'::bytea AS crafted \gset
CREATE TABLE priv_crafted (b bytea);
INSERT INTO priv_crafted VALUES (:'crafted');
COPY priv_crafted TO :'crafted_file' (FORMAT binary);

-- 1. Symbols are as readable as the column they come from.
SET ROLE priv_intruder;
SELECT count(*) FROM gsst.dictionary(:dict);
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.decompress(:'crafted'::bytea);
\echo :LAST_ERROR_SQLSTATE
-- encoding with the family gives nothing away: the value stays raw, so it
-- names no dictionary, and no symbol's size can be probed
SELECT gsst.datum(gsst.compress('person.1@secret-corp.example', :fam)) = 'person.1@secret-corp.example'::bytea AS raw,
       gsst.value_dictionary(gsst.compress('person.1@secret-corp.example', :fam)) AS dictionary,
       gsst.datum(('person.1@secret-corp.example')::gsst(:fam)) = 'person.1@secret-corp.example'::bytea AS literal_raw;
-- reading the table, its statistics or the dictionaries table directly
SELECT count(*) FROM priv_secret;
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM gsst.column_stats('priv_secret');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM gsst.dictionaries;
\echo :LAST_ERROR_SQLSTATE
-- raw bytes decode for anyone: they are text
SELECT gsst.decompress('plain text'::bytea) AS raw_decodes;
RESET ROLE;
-- binary input of the same bytes into a table of one's own (by a role that
-- may read server files, not the column)
SET ROLE priv_loader;
CREATE TABLE priv_mine (c gsst);
COPY priv_mine FROM :'crafted_file' (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS stored FROM priv_mine;
RESET ROLE;

-- a reader of the column sees its symbols, and decodes codes of its own making
SET ROLE priv_reader;
SELECT count(*) > 0 AS reader_sees_symbols FROM gsst.dictionary(:dict);
SELECT gsst.decompress(:'crafted'::bytea) = (SELECT symbol FROM gsst.dictionary(:dict) WHERE code = 0) AS reader_decodes;
SELECT count(*) = 1 AS stats_visible FROM gsst.column_stats('priv_secret');
RESET ROLE;
-- with column privileges only, column_stats shows just those columns
CREATE TABLE priv_cols (a text COMPRESSION gsst, b text COMPRESSION gsst);
INSERT INTO priv_cols SELECT 'column a value ' || i, 'column b value ' || i FROM generate_series(1, 500) i;
GRANT SELECT (b) ON priv_cols TO priv_intruder;
SET ROLE priv_intruder;
SELECT column_name, "values" FROM gsst.column_stats('priv_cols');
RESET ROLE;
-- a writer encodes (it could probe sizes through the table anyway), but
-- does not see the symbols
SET ROLE priv_writer;
SELECT gsst.value_dictionary(gsst.compress('person.1@secret-corp.example', :fam)) = :dict AS writer_encodes;
SELECT count(*) FROM gsst.dictionary(:dict);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO priv_secret VALUES (3001, 'person.3001@secret-corp.example');
RESET ROLE;
-- pg_read_all_data reads every dictionary
SET ROLE priv_auditor;
SELECT count(*) > 0 AS auditor_sees_symbols FROM gsst.dictionary(:dict);
RESET ROLE;

-- 2. A family cannot be hijacked or poisoned.
SET ROLE priv_intruder;
-- declaring the victim's family gives the column one of its own
CREATE TABLE priv_hijack (c public.gsst(:fam));
SELECT atttypmod <> :fam AS own_family FROM pg_attribute
WHERE attrelid = 'priv_hijack'::regclass AND attname = 'c';
INSERT INTO priv_hijack SELECT md5(i::text) || md5((i * 7)::text) FROM generate_series(1, 2000) i;
SELECT gsst.train('priv_hijack', 'c') IS NOT NULL AS trained_own;
ALTER TABLE priv_hijack ADD COLUMN d gsst(:fam);
SELECT atttypmod <> :fam AS added_column_own_family FROM pg_attribute
WHERE attrelid = 'priv_hijack'::regclass AND attname = 'd';
-- the victim's column cannot be trained, compressed or loaded into
SELECT gsst.train('priv_secret', 'email');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.compress_table('priv_secret');
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('priv_secret', 'SELECT 1, ''x''');
\echo :LAST_ERROR_SQLSTATE
-- a family no column has yet learns nothing from gsst.compress or casts
RESET ROLE;
SELECT last_value + 10 AS unused_family FROM gsst.family_seq \gset
SET ROLE priv_intruder;
SELECT count(*) FROM (SELECT gsst.compress('junk ' || md5(i::text), :unused_family)
                      FROM generate_series(1, 2000) i) s;
SELECT count(*) FROM (SELECT ('junk ' || md5(i::text))::gsst(:unused_family)
                      FROM generate_series(1, 2000) i) s;
RESET ROLE;
SELECT count(*) AS unused_family_dictionaries FROM gsst.dictionaries WHERE family = :unused_family;
-- a copy of the victim's table (LIKE, CREATE TABLE AS) gets families of its
-- own; training it leaves the victim alone
SET ROLE priv_reader;
CREATE TABLE priv_like (LIKE priv_secret);
CREATE TABLE priv_copy AS SELECT * FROM priv_secret;
SELECT attrelid::regclass AS copy, atttypmod <> :fam AS own_family FROM pg_attribute
WHERE attrelid IN ('priv_like'::regclass, 'priv_copy'::regclass) AND attname = 'email' ORDER BY 1;
SELECT count(*) = 3001 AS copied, bool_and(c.email = s.email) AS same_text
FROM priv_copy c JOIN priv_secret s USING (id);
SELECT gsst.train('priv_copy', 'email') IS NOT NULL AS trained_copy;
RESET ROLE;
-- the victim's dictionaries are exactly as they were, and its writes encode
SELECT count(*) = :dicts_before AS same_count,
       md5(string_agg(encode(symbols, 'hex'), ',' ORDER BY id)) = :'victim_symbols' AS same_symbols
FROM gsst.dictionaries WHERE family = :fam;
INSERT INTO priv_secret SELECT i, 'person.' || i || '@secret-corp.example' FROM generate_series(5001, 5100) i;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(email) = :dict) AS encoded_with_victim_dictionary
FROM priv_secret WHERE id > 5000;

-- 3. A role cannot use up the database's dictionary ids.
SET gsst.max_dictionaries_per_role = 3;
SET ROLE priv_intruder;
SELECT gsst.train('priv_hijack', 'c') IS NOT NULL AS second;
SELECT gsst.train('priv_hijack', 'c') IS NOT NULL AS third;
SELECT gsst.train('priv_hijack', 'c');
\echo :LAST_ERROR_SQLSTATE
-- a new column of the same role learns nothing more: its values stay raw
CREATE TABLE priv_over (c text COMPRESSION gsst);
INSERT INTO priv_over SELECT 'over the limit value ' || i FROM generate_series(1, 1000) i;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) AS encoded FROM priv_over;
-- SET COMPRESSION still converts a column, without a dictionary
CREATE TABLE priv_over_text (c text);
INSERT INTO priv_over_text VALUES ('a value');
ALTER TABLE priv_over_text ALTER COLUMN c SET COMPRESSION gsst;
SELECT format_type(atttypid, NULL) FROM pg_attribute
WHERE attrelid = 'priv_over_text'::regclass AND attname = 'c';
RESET ROLE;
RESET gsst.max_dictionaries_per_role;
SELECT count(*) AS intruder_dictionaries FROM gsst.dictionaries WHERE owner = 'priv_intruder'::regrole;

-- 4. What every function asks of its caller.
SET ROLE priv_intruder;
SELECT count(*) >= 0 AS worker_status_readable FROM gsst.worker_status;
SELECT gsst.decompress(c) = c::text AS decompress_own, gsst.datum(c) IS NOT NULL AS datum_own,
       gsst.value_dictionary(c) IS NOT NULL AS value_dictionary_own
FROM priv_hijack LIMIT 1;
SELECT gsst.load('priv_hijack', 'SELECT md5(i::text) FROM generate_series(1, 10) i') AS loaded_own;
SET client_min_messages = warning;	-- its NOTICE reports the time taken
SELECT gsst.compress_table('priv_hijack') > 0 AS compressed_own;
RESET client_min_messages;
SELECT count(*) > 0 AS own_stats FROM gsst.column_stats('priv_hijack');
RESET ROLE;

-- 5. Volatility: nothing that may store a dictionary claims to be IMMUTABLE.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst')
  AND d.deptype = 'e'
  AND (p.proname IN ('gsst_in', 'gsst_recv', 'gsst_from_text', 'gsst_apply_family',
                     'compress', 'train', 'load', 'compress_table', 'dictionary')
       OR (p.proname = 'decompress' AND p.proargtypes[0] = 'bytea'::regtype))
ORDER BY p.oid::regprocedure::text;

-- 6. Guards: dictionaries stay, even under session_replication_role =
-- replica; replicated rows are not stored; the extension is not dropped
-- from under its columns.
SET session_replication_role = replica;
DELETE FROM gsst.dictionaries;
\echo :LAST_ERROR_SQLSTATE
UPDATE gsst.dictionaries SET family = 0;
\echo :LAST_ERROR_SQLSTATE
TRUNCATE gsst.dictionaries;
\echo :LAST_ERROR_SQLSTATE
INSERT INTO gsst.dictionaries SELECT * FROM gsst.dictionaries WHERE id = :dict;
RESET session_replication_role;
ALTER TABLE gsst.dictionaries DISABLE TRIGGER dictionaries_immutable;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE gsst.dictionaries DISABLE TRIGGER ALL;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE gsst.dictionaries ENABLE REPLICA TRIGGER dictionaries_immutable;
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER dictionaries_immutable ON gsst.dictionaries;
\echo :LAST_ERROR_SQLSTATE
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'gsst.dictionaries'::regclass ORDER BY 1;
SELECT count(*) = :dicts_before AS victim_dictionaries_intact FROM gsst.dictionaries WHERE family = :fam;
-- a dictionary inserted by hand joins only a family whose column one owns
SET ROLE priv_intruder;
INSERT INTO gsst.dictionaries SELECT * FROM gsst.dictionaries WHERE id = :dict;
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
INSERT INTO gsst.dictionaries (id, family, created, nsymbols, symbols)
SELECT 999990, :unused_family, created, nsymbols, symbols FROM gsst.dictionaries WHERE id = :dict;
SELECT count(*) AS stored_for_unused_family FROM gsst.dictionaries WHERE family = :unused_family;
\set VERBOSITY terse
DROP EXTENSION gsst;
\echo :LAST_ERROR_SQLSTATE
DROP EXTENSION gsst CASCADE;
\echo :LAST_ERROR_SQLSTATE
DROP SCHEMA public CASCADE;
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
-- the error names the columns and says how to convert them
DO $$
DECLARE
  detail text;
  hint text;
BEGIN
  DROP EXTENSION gsst CASCADE;
EXCEPTION WHEN dependent_objects_still_exist THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
  RAISE NOTICE 'names the columns: %, hint: %',
    detail ~ '^Dropping it would drop these columns and every value in them: public\.\w+\.\w+, ', hint;
END $$;
SELECT count(*) AS rows_intact, count(*) FILTER (WHERE email LIKE 'person.%@secret-corp.example') AS text_intact
FROM priv_secret;
