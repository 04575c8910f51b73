-- A hostile role on a shared server: no internal entry point of gsst.load,
-- no carrier type, and no path into a gsst value stores bytes that text
-- would refuse.
SET client_min_messages = warning;
CREATE ROLE trust_victim;
CREATE ROLE trust_attacker;
RESET client_min_messages;
GRANT CREATE ON SCHEMA public TO trust_victim, trust_attacker;

-- the victim's column, with a dictionary, and a text table the attacker
-- may only insert into
SET ROLE trust_victim;
CREATE TABLE trust_secret (c text COMPRESSION gsst);
INSERT INTO trust_secret SELECT 'secret-' || md5(i::text) FROM generate_series(1, 3000) i;
SELECT gsst.train('trust_secret', 'c') > 0 AS trained;
CREATE TABLE trust_inbox (c text);
GRANT INSERT ON trust_inbox TO trust_attacker;
RESET ROLE;

-- 1. gsst.load hands its batches to no function a role can call
SELECT to_regprocedure('gsst.load_rows(bigint)') IS NULL AS load_rows_gone;
-- what any role may call in schema gsst, besides support functions that
-- take internal (no SQL caller can give one): each checks its caller
-- (README, Security)
SELECT p.oid::regprocedure AS callable_by_public
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst') AND d.deptype = 'e'
  AND p.pronamespace = 'gsst'::regnamespace
  AND NOT 'internal'::regtype = ANY (p.proargtypes::oid[])
  AND has_function_privilege('public', p.oid, 'EXECUTE')
ORDER BY p.oid::regprocedure::text;

-- a trigger on the attacker's own load target looks for the batch, by the
-- old function and by the relation gsst.load reads it from: neither is there
SET ROLE trust_attacker;
CREATE TABLE trust_target (id bigint, c text COMPRESSION gsst);
CREATE TABLE trust_seen (what text);
CREATE FUNCTION trust_peek() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    EXECUTE 'SELECT count(*) FROM gsst_load_batch';
    INSERT INTO trust_seen VALUES ('batch relation visible');
  EXCEPTION WHEN undefined_table THEN
    INSERT INTO trust_seen VALUES ('no batch relation');
  END;
  BEGIN
    EXECUTE 'SELECT count(*) FROM gsst.load_rows(1) AS r(id text, c text)';
    INSERT INTO trust_seen VALUES ('batch function callable');
  EXCEPTION WHEN undefined_function THEN
    INSERT INTO trust_seen VALUES ('no batch function');
  END;
  RETURN NEW;
END $$;
CREATE TRIGGER trust_peek BEFORE INSERT ON trust_target
    FOR EACH ROW EXECUTE FUNCTION trust_peek();
SELECT gsst.load('trust_target', 'SELECT i::bigint, md5(i::text) FROM generate_series(1, 5) i');
SELECT what, count(*) FROM trust_seen GROUP BY what ORDER BY what;
-- the batch's columns have gsst.load's types, whatever the source's names
SELECT gsst.load('trust_target', 'SELECT 7::bigint AS c, ''seven''::text AS id');
SELECT id, c FROM trust_target WHERE id = 7;
DROP TRIGGER trust_peek ON trust_target;

-- 2. the carrier type of SET COMPRESSION: no gsst value becomes one with
-- its codes, and no role stores one
SELECT c::gsst.passthrough::text = c::text AS passthrough_decodes
FROM trust_target WHERE gsst.value_dictionary(c) IS NOT NULL LIMIT 1;
SELECT count(*) AS no_cast FROM pg_cast
WHERE castsource = 'gsst'::regtype AND casttarget = 'gsst.passthrough'::regtype;
CREATE TABLE trust_carrier (p gsst.passthrough);
\echo :LAST_ERROR_SQLSTATE

-- 3. bytes text refuses stay out, by every path into a gsst value
INSERT INTO trust_target VALUES (10, E'A\xffB');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO trust_target VALUES (11, convert_from('\x41ff42'::bytea, 'UTF8'));
\echo :LAST_ERROR_SQLSTATE
INSERT INTO trust_target VALUES (12, chr(0));
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.load('trust_target', $$SELECT 13::bigint, convert_from('\x41ff42'::bytea, 'UTF8')$$);
\echo :LAST_ERROR_SQLSTATE
SELECT gsst.compress(convert_from('\x41ff42'::bytea, 'UTF8'), 1);
\echo :LAST_ERROR_SQLSTATE
-- a bytea cast to gsst is its text form, not its bytes
INSERT INTO trust_target VALUES (14, '\x41ff42'::bytea::text);
SELECT c FROM trust_target WHERE id = 14;
-- a gsst value the attacker puts into the victim's text table is text
INSERT INTO trust_inbox SELECT c FROM trust_target WHERE id = 1;
RESET ROLE;

-- every stored value is text its database accepts: convert_to checks it
SELECT count(convert_to(c::text, 'UTF8')) AS valid_values, count(*) AS all_values FROM trust_target;
SELECT count(convert_to(c, 'UTF8')) AS valid_inbox FROM trust_inbox;

-- 4. the C string input takes what text's input takes: C strings that
-- the protocol, COPY or the scanner checked on their way in
SELECT gsst.gsst_in('plain'::cstring, 0, -1)::text AS cstring_input;

DROP TABLE trust_target, trust_seen, trust_secret, trust_inbox;
DROP FUNCTION trust_peek();
REVOKE CREATE ON SCHEMA public FROM trust_victim, trust_attacker;
DROP ROLE trust_victim, trust_attacker;
