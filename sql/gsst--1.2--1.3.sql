/* gsst 1.2 -> 1.3: no internal entry point a role can call. */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.3'" to load this file. \quit

-- gsst.load hands each batch to its INSERT through a relation registered in
-- its own SPI connection; the function it read batches from before, which
-- any role could call with a column list of its choosing, goes.
DROP FUNCTION gsst.load_rows(bigint);

-- A gsst value relabelled as gsst.passthrough, and from there as text, would
-- be text holding a gsst value's codes.  SET COMPRESSION gsst on a column
-- that is gsst already relabels it without this cast; no role stores a value
-- of the carrier type.
DROP CAST (@extschema@.gsst AS gsst.passthrough);
REVOKE USAGE ON TYPE gsst.passthrough FROM PUBLIC;

--------------------------------------------------------------------------
-- Text functions and operators on gsst values.
--
-- A call on text finds pg_catalog's function as an exact match, and
-- pg_catalog is searched first.  A gsst value has no exact match there, so
-- without these the first schema on the search_path that holds one wins:
-- a schema other roles may create objects in could offer lower(gsst), or
-- ~~(gsst, gsst) for c LIKE 'x%' (an untyped literal takes the other
-- side's type), run with the caller's rights on the caller's data.  These
-- are those exact matches, beside the type and owned by the extension, so
-- that no role can create them: for a gsst value as the string a function
-- works on (its first text argument; either one for strpos and
-- starts_with), and on either side of an operator.  Most are SQL functions
-- whose bodies name every object by schema; the planner inlines them
-- (parsing them with the call's collation) into text's function on the
-- decoded text, so plans, costs and expression indexes are text's.  The
-- pattern operators on (gsst, text) are in C (src/type/textops.c).  SUBSTRING(..
-- FROM ..), POSITION(.. IN ..), TRIM(..), OVERLAY(.. PLACING ..),
-- NORMALIZE(..) and IS NORMALIZED call pg_catalog's by name.  concat,
-- concat_ws and format take "any": a role can offer a better match for text
-- there too.  test/sql/shadowing.sql checks the list.
--------------------------------------------------------------------------

-- Before the overloads: functions and operators on gsst that some role put
-- in the type's schema.  One with a signature below makes this update fail
-- (it already exists); others can still be picked, or make calls ambiguous.
DO $$
DECLARE
    foreign_objects text;
BEGIN
    SELECT pg_catalog.string_agg(o, ', ' ORDER BY o) INTO foreign_objects
      FROM (SELECT p.oid::pg_catalog.regprocedure::pg_catalog.text AS o
              FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = '@extschema@'::pg_catalog.regnamespace
               AND '@extschema@.gsst'::pg_catalog.regtype = ANY (p.proargtypes)
               AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                                WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                                  AND d.objid = p.oid AND d.deptype = 'e')
            UNION ALL
            SELECT o.oid::pg_catalog.regoperator::pg_catalog.text
              FROM pg_catalog.pg_operator o
             WHERE o.oprnamespace = '@extschema@'::pg_catalog.regnamespace
               AND '@extschema@.gsst'::pg_catalog.regtype IN (o.oprleft, o.oprright)
               AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                                WHERE d.classid = 'pg_catalog.pg_operator'::pg_catalog.regclass
                                  AND d.objid = o.oid AND d.deptype = 'e')) s;
    IF foreign_objects IS NOT NULL THEN
        RAISE WARNING 'schema % holds functions or operators on gsst that are not part of the extension: %',
            '@extschema@', foreign_objects
            USING DETAIL = 'A call on a gsst column can run them, with the caller''s rights and data, or fail as ambiguous.',
                  HINT = 'Drop those that no trusted role created, then update again if this update failed.';
    END IF;
END
$$;

-- counted on the codes, as length(gsst) and octet_length(gsst)
CREATE FUNCTION @extschema@.char_length(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_length' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.character_length(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_length' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bit_length(@extschema@.gsst) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT @extschema@.octet_length($1) OPERATOR(pg_catalog.*) 8';

CREATE FUNCTION @extschema@.ascii(@extschema@.gsst) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.ascii($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.btrim(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.btrim($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.btrim(@extschema@.gsst, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.btrim($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.initcap(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.initcap($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.is_normalized(@extschema@.gsst, text DEFAULT 'NFC') RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.is_normalized($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@."left"(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog."left"($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.lower(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.lower($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.lpad(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.lpad($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.lpad(@extschema@.gsst, integer, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.lpad($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.ltrim(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.ltrim($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.ltrim(@extschema@.gsst, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.ltrim($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.md5(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.md5($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.overlay(@extschema@.gsst, text, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.overlay($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.overlay(@extschema@.gsst, text, integer, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.overlay($1::pg_catalog.text, $2, $3, $4)';
CREATE FUNCTION @extschema@.parse_ident(str @extschema@.gsst, strict boolean DEFAULT true)
    RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.parse_ident($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@."position"(@extschema@.gsst, text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog."position"($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.quote_ident(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.quote_ident($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.quote_literal(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.quote_literal($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.quote_nullable(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT pg_catalog.quote_nullable($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.repeat(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.repeat($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.replace(@extschema@.gsst, text, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.replace($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.reverse(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.reverse($1::pg_catalog.text)';
CREATE FUNCTION @extschema@."right"(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog."right"($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.rpad(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.rpad($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.rpad(@extschema@.gsst, integer, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.rpad($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.rtrim(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.rtrim($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.rtrim(@extschema@.gsst, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.rtrim($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.split_part(@extschema@.gsst, text, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.split_part($1::pg_catalog.text, $2, $3)';
-- strpos and starts_with compare two values, either of which may be gsst
CREATE FUNCTION @extschema@.starts_with(@extschema@.gsst, text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.starts_with($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.starts_with(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.starts_with($1::pg_catalog.text, $2::pg_catalog.text)';
CREATE FUNCTION @extschema@.starts_with(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.starts_with($1, $2::pg_catalog.text)';
-- string_to_array and string_to_table are not strict: a NULL delimiter
-- splits into characters.  No set-returning one here is strict, so that
-- it inlines in FROM; on a NULL value text's (strict) returns no rows.
CREATE FUNCTION @extschema@.string_to_array(@extschema@.gsst, text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT pg_catalog.string_to_array($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.string_to_array(@extschema@.gsst, text, text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT pg_catalog.string_to_array($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.string_to_table(@extschema@.gsst, text) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1000
    AS 'SELECT pg_catalog.string_to_table($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.string_to_table(@extschema@.gsst, text, text) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1000
    AS 'SELECT pg_catalog.string_to_table($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.strpos(@extschema@.gsst, text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.strpos($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.strpos(@extschema@.gsst, @extschema@.gsst) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.strpos($1::pg_catalog.text, $2::pg_catalog.text)';
CREATE FUNCTION @extschema@.strpos(text, @extschema@.gsst) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.strpos($1, $2::pg_catalog.text)';
CREATE FUNCTION @extschema@.substr(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.substr($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.substr(@extschema@.gsst, integer, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.substr($1::pg_catalog.text, $2, $3)';
-- substring(c, 2, 3) with commas is a plain call (FROM/FOR is not)
CREATE FUNCTION @extschema@."substring"(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog."substring"($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@."substring"(@extschema@.gsst, integer, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog."substring"($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@."substring"(@extschema@.gsst, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog."substring"($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@."substring"(@extschema@.gsst, text, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog."substring"($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.to_ascii(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_ascii($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.to_ascii(@extschema@.gsst, integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_ascii($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.to_ascii(@extschema@.gsst, name) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_ascii($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.translate(@extschema@.gsst, text, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.translate($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.unistr(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.unistr($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.upper(@extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.upper($1::pg_catalog.text)';

-- casefold (PostgreSQL 18) and unicode_assigned (17) where the server has them
DO $$
BEGIN
    IF pg_catalog.to_regprocedure('pg_catalog.casefold(pg_catalog.text)') IS NOT NULL THEN
        CREATE FUNCTION @extschema@.casefold(@extschema@.gsst) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS 'SELECT pg_catalog.casefold($1::pg_catalog.text)';
    END IF;
    IF pg_catalog.to_regprocedure('pg_catalog.unicode_assigned(pg_catalog.text)') IS NOT NULL THEN
        CREATE FUNCTION @extschema@.unicode_assigned(@extschema@.gsst) RETURNS boolean
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS 'SELECT pg_catalog.unicode_assigned($1::pg_catalog.text)';
    END IF;
END
$$;

-- Regular expressions (the argument names are the documentation's)
CREATE FUNCTION @extschema@.regexp_count(string @extschema@.gsst, pattern text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_count($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_count(string @extschema@.gsst, pattern text, start integer)
    RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_count($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_count(string @extschema@.gsst, pattern text, start integer,
                                         flags text)
    RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_count($1::pg_catalog.text, $2, $3, $4)';
CREATE FUNCTION @extschema@.regexp_instr(string @extschema@.gsst, pattern text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_instr($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_instr(string @extschema@.gsst, pattern text, start integer)
    RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_instr($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_instr(string @extschema@.gsst, pattern text, start integer,
                                         n integer)
    RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_instr($1::pg_catalog.text, $2, $3, $4)';
CREATE FUNCTION @extschema@.regexp_instr(string @extschema@.gsst, pattern text, start integer,
                                         n integer, endoption integer)
    RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_instr($1::pg_catalog.text, $2, $3, $4, $5)';
CREATE FUNCTION @extschema@.regexp_instr(string @extschema@.gsst, pattern text, start integer,
                                         n integer, endoption integer, flags text)
    RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_instr($1::pg_catalog.text, $2, $3, $4, $5, $6)';
CREATE FUNCTION @extschema@.regexp_instr(string @extschema@.gsst, pattern text, start integer,
                                         n integer, endoption integer, flags text,
                                         subexpr integer)
    RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_instr($1::pg_catalog.text, $2, $3, $4, $5, $6, $7)';
CREATE FUNCTION @extschema@.regexp_like(string @extschema@.gsst, pattern text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_like($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_like(string @extschema@.gsst, pattern text, flags text)
    RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_like($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_match(string @extschema@.gsst, pattern text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_match($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_match(string @extschema@.gsst, pattern text, flags text)
    RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_match($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_matches(string @extschema@.gsst, pattern text)
    RETURNS SETOF text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
    AS 'SELECT pg_catalog.regexp_matches($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_matches(string @extschema@.gsst, pattern text, flags text)
    RETURNS SETOF text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 10
    AS 'SELECT pg_catalog.regexp_matches($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_replace(string @extschema@.gsst, pattern text,
                                           replacement text)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_replace($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_replace(string @extschema@.gsst, pattern text,
                                           replacement text, flags text)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_replace($1::pg_catalog.text, $2, $3, $4)';
CREATE FUNCTION @extschema@.regexp_replace(string @extschema@.gsst, pattern text,
                                           replacement text, start integer)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_replace($1::pg_catalog.text, $2, $3, $4)';
CREATE FUNCTION @extschema@.regexp_replace(string @extschema@.gsst, pattern text,
                                           replacement text, start integer, n integer)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_replace($1::pg_catalog.text, $2, $3, $4, $5)';
CREATE FUNCTION @extschema@.regexp_replace(string @extschema@.gsst, pattern text,
                                           replacement text, start integer, n integer,
                                           flags text)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_replace($1::pg_catalog.text, $2, $3, $4, $5, $6)';
CREATE FUNCTION @extschema@.regexp_split_to_array(string @extschema@.gsst, pattern text)
    RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_split_to_array($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_split_to_array(string @extschema@.gsst, pattern text,
                                                  flags text)
    RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_split_to_array($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_split_to_table(string @extschema@.gsst, pattern text)
    RETURNS SETOF text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1000
    AS 'SELECT pg_catalog.regexp_split_to_table($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_split_to_table(string @extschema@.gsst, pattern text,
                                                  flags text)
    RETURNS SETOF text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1000
    AS 'SELECT pg_catalog.regexp_split_to_table($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_substr(string @extschema@.gsst, pattern text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_substr($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.regexp_substr(string @extschema@.gsst, pattern text, start integer)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_substr($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.regexp_substr(string @extschema@.gsst, pattern text, start integer,
                                          n integer)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_substr($1::pg_catalog.text, $2, $3, $4)';
CREATE FUNCTION @extschema@.regexp_substr(string @extschema@.gsst, pattern text, start integer,
                                          n integer, flags text)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_substr($1::pg_catalog.text, $2, $3, $4, $5)';
CREATE FUNCTION @extschema@.regexp_substr(string @extschema@.gsst, pattern text, start integer,
                                          n integer, flags text, subexpr integer)
    RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.regexp_substr($1::pg_catalog.text, $2, $3, $4, $5, $6)';

-- Conversions whose input is the text
CREATE FUNCTION @extschema@.convert_to(@extschema@.gsst, name) RETURNS bytea
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.convert_to($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.decode(@extschema@.gsst, text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.decode($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.to_date(@extschema@.gsst, text) RETURNS date
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_date($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.to_number(@extschema@.gsst, text) RETURNS numeric
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_number($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.to_timestamp(@extschema@.gsst, text) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_timestamp($1::pg_catalog.text, $2)';

-- Full text search: the document is the gsst value
CREATE FUNCTION @extschema@.to_tsvector(@extschema@.gsst) RETURNS tsvector
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_tsvector($1::pg_catalog.text)';
CREATE FUNCTION @extschema@.to_tsvector(regconfig, @extschema@.gsst) RETURNS tsvector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.to_tsvector($1, $2::pg_catalog.text)';
CREATE FUNCTION @extschema@.ts_headline(@extschema@.gsst, tsquery) RETURNS text
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.ts_headline($1::pg_catalog.text, $2)';
CREATE FUNCTION @extschema@.ts_headline(@extschema@.gsst, tsquery, text) RETURNS text
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.ts_headline($1::pg_catalog.text, $2, $3)';
CREATE FUNCTION @extschema@.ts_headline(regconfig, @extschema@.gsst, tsquery) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.ts_headline($1, $2::pg_catalog.text, $3)';
CREATE FUNCTION @extschema@.ts_headline(regconfig, @extschema@.gsst, tsquery, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT pg_catalog.ts_headline($1, $2::pg_catalog.text, $3, $4)';

-- Operators: each with gsst on either side or both, so that an untyped
-- literal (c || 'x', c ILIKE 'x%': the parser looks for (gsst, gsst)
-- first) and a text operand find gsst's.  LIKE (gsst, text) and the
-- comparisons are above, in C.
CREATE FUNCTION gsst.gsst_cat(@extschema@.gsst, @extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(pg_catalog.||) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_cat(@extschema@.gsst, text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(pg_catalog.||) $2';
CREATE FUNCTION gsst.gsst_cat(text, @extschema@.gsst) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.||) $2::pg_catalog.text';
CREATE OPERATOR @extschema@.|| (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_cat);
CREATE OPERATOR @extschema@.|| (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_cat);
CREATE OPERATOR @extschema@.|| (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_cat);

-- Comparisons with name (current_user, catalog columns), as text has them:
-- gsst's own comparisons with text, on the name as text
CREATE FUNCTION gsst.gsst_name_eq(@extschema@.gsst, name) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.=) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_name_ne(@extschema@.gsst, name) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.<>) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_name_lt(@extschema@.gsst, name) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.<) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_name_le(@extschema@.gsst, name) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.<=) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_name_gt(@extschema@.gsst, name) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.>) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_name_ge(@extschema@.gsst, name) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.>=) $2::pg_catalog.text';
CREATE FUNCTION gsst.name_gsst_eq(name, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(@extschema@.=) $2';
CREATE FUNCTION gsst.name_gsst_ne(name, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(@extschema@.<>) $2';
CREATE FUNCTION gsst.name_gsst_lt(name, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(@extschema@.<) $2';
CREATE FUNCTION gsst.name_gsst_le(name, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(@extschema@.<=) $2';
CREATE FUNCTION gsst.name_gsst_gt(name, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(@extschema@.>) $2';
CREATE FUNCTION gsst.name_gsst_ge(name, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1::pg_catalog.text OPERATOR(@extschema@.>=) $2';
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.gsst, RIGHTARG = name, FUNCTION = gsst.gsst_name_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.gsst, RIGHTARG = name, FUNCTION = gsst.gsst_name_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.gsst, RIGHTARG = name, FUNCTION = gsst.gsst_name_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.gsst, RIGHTARG = name, FUNCTION = gsst.gsst_name_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.gsst, RIGHTARG = name, FUNCTION = gsst.gsst_name_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.gsst, RIGHTARG = name, FUNCTION = gsst.gsst_name_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR @extschema@.= (
    LEFTARG = name, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.name_gsst_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = name, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.name_gsst_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = name, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.name_gsst_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = name, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.name_gsst_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = name, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.name_gsst_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = name, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.name_gsst_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);

-- LIKE with a gsst pattern, or a literal one (to gsst's own LIKE above)
CREATE FUNCTION gsst.gsst_like(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.~~) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_like(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.~~) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_like(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.!~~) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_like(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.!~~) $2::pg_catalog.text';
CREATE OPERATOR @extschema@.~~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_like,
    NEGATOR = OPERATOR(@extschema@.!~~), RESTRICT = likesel, JOIN = likejoinsel);
CREATE OPERATOR @extschema@.!~~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_like,
    NEGATOR = OPERATOR(@extschema@.~~), RESTRICT = nlikesel, JOIN = nlikejoinsel);
CREATE OPERATOR @extschema@.~~ (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_like,
    NEGATOR = OPERATOR(@extschema@.!~~), RESTRICT = likesel, JOIN = likejoinsel);
CREATE OPERATOR @extschema@.!~~ (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_like,
    NEGATOR = OPERATOR(@extschema@.~~), RESTRICT = nlikesel, JOIN = nlikejoinsel);

-- The pattern operators: (gsst, text) in C (src/type/textops.c: under ANY or
-- ALL an operator is not inlined), (gsst, gsst) inlined into it, and
-- (text, gsst) inlined into text's.

-- ILIKE and NOT ILIKE
CREATE FUNCTION gsst.gsst_iclike(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_iclike' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_not_iclike(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_not_iclike' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.~~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_iclike,
    NEGATOR = OPERATOR(@extschema@.!~~*), RESTRICT = iclikesel, JOIN = iclikejoinsel);
CREATE OPERATOR @extschema@.!~~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_not_iclike,
    NEGATOR = OPERATOR(@extschema@.~~*), RESTRICT = icnlikesel, JOIN = icnlikejoinsel);
CREATE FUNCTION gsst.gsst_iclike(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.~~*) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_iclike(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.!~~*) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_iclike(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.~~*) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_iclike(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.!~~*) $2::pg_catalog.text';
CREATE OPERATOR @extschema@.~~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_iclike,
    NEGATOR = OPERATOR(@extschema@.!~~*), RESTRICT = iclikesel, JOIN = iclikejoinsel);
CREATE OPERATOR @extschema@.!~~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_iclike,
    NEGATOR = OPERATOR(@extschema@.~~*), RESTRICT = icnlikesel, JOIN = icnlikejoinsel);
CREATE OPERATOR @extschema@.~~* (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_iclike,
    NEGATOR = OPERATOR(@extschema@.!~~*), RESTRICT = iclikesel, JOIN = iclikejoinsel);
CREATE OPERATOR @extschema@.!~~* (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_iclike,
    NEGATOR = OPERATOR(@extschema@.~~*), RESTRICT = icnlikesel, JOIN = icnlikejoinsel);

-- Regular expressions: ~ and !~ (SIMILAR TO too)
CREATE FUNCTION gsst.gsst_regex(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_regex' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_not_regex(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_not_regex' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_regex,
    NEGATOR = OPERATOR(@extschema@.!~), RESTRICT = regexeqsel, JOIN = regexeqjoinsel);
CREATE OPERATOR @extschema@.!~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_not_regex,
    NEGATOR = OPERATOR(@extschema@.~), RESTRICT = regexnesel, JOIN = regexnejoinsel);
CREATE FUNCTION gsst.gsst_regex(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.~) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_regex(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.!~) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_regex(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.~) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_regex(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.!~) $2::pg_catalog.text';
CREATE OPERATOR @extschema@.~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_regex,
    NEGATOR = OPERATOR(@extschema@.!~), RESTRICT = regexeqsel, JOIN = regexeqjoinsel);
CREATE OPERATOR @extschema@.!~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_regex,
    NEGATOR = OPERATOR(@extschema@.~), RESTRICT = regexnesel, JOIN = regexnejoinsel);
CREATE OPERATOR @extschema@.~ (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_regex,
    NEGATOR = OPERATOR(@extschema@.!~), RESTRICT = regexeqsel, JOIN = regexeqjoinsel);
CREATE OPERATOR @extschema@.!~ (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_regex,
    NEGATOR = OPERATOR(@extschema@.~), RESTRICT = regexnesel, JOIN = regexnejoinsel);

-- Regular expressions ignoring case: ~* and !~*
CREATE FUNCTION gsst.gsst_icregex(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_icregex' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_not_icregex(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_not_icregex' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_icregex,
    NEGATOR = OPERATOR(@extschema@.!~*), RESTRICT = icregexeqsel, JOIN = icregexeqjoinsel);
CREATE OPERATOR @extschema@.!~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_not_icregex,
    NEGATOR = OPERATOR(@extschema@.~*), RESTRICT = icregexnesel, JOIN = icregexnejoinsel);
CREATE FUNCTION gsst.gsst_icregex(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.~*) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_icregex(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.!~*) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_icregex(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.~*) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_not_icregex(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.!~*) $2::pg_catalog.text';
CREATE OPERATOR @extschema@.~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_icregex,
    NEGATOR = OPERATOR(@extschema@.!~*), RESTRICT = icregexeqsel, JOIN = icregexeqjoinsel);
CREATE OPERATOR @extschema@.!~* (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_icregex,
    NEGATOR = OPERATOR(@extschema@.~*), RESTRICT = icregexnesel, JOIN = icregexnejoinsel);
CREATE OPERATOR @extschema@.~* (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_icregex,
    NEGATOR = OPERATOR(@extschema@.!~*), RESTRICT = icregexeqsel, JOIN = icregexeqjoinsel);
CREATE OPERATOR @extschema@.!~* (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_not_icregex,
    NEGATOR = OPERATOR(@extschema@.~*), RESTRICT = icregexnesel, JOIN = icregexnejoinsel);

-- ^@: starts with
CREATE FUNCTION gsst.gsst_starts_with(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_starts_with' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.^@ (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_starts_with,
    RESTRICT = prefixsel, JOIN = prefixjoinsel);
CREATE FUNCTION gsst.gsst_starts_with(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.^@) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_starts_with(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.^@) $2::pg_catalog.text';
CREATE OPERATOR @extschema@.^@ (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_starts_with,
    RESTRICT = prefixsel, JOIN = prefixjoinsel);
CREATE OPERATOR @extschema@.^@ (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_starts_with,
    RESTRICT = prefixsel, JOIN = prefixjoinsel);

-- @@: full text match of the value as a document
CREATE FUNCTION gsst.gsst_ts_match(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_ts_match' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_ts_match(@extschema@.gsst, tsquery) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_tsquery_ts_match' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.@@ (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_ts_match,
    RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR @extschema@.@@ (
    LEFTARG = @extschema@.gsst, RIGHTARG = tsquery, FUNCTION = gsst.gsst_ts_match,
    RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE FUNCTION gsst.gsst_ts_match(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(@extschema@.@@) $2::pg_catalog.text';
CREATE FUNCTION gsst.gsst_ts_match(text, @extschema@.gsst) RETURNS boolean
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS 'SELECT $1 OPERATOR(pg_catalog.@@) $2::pg_catalog.text';
CREATE OPERATOR @extschema@.@@ (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_ts_match,
    RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR @extschema@.@@ (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_ts_match,
    RESTRICT = matchingsel, JOIN = matchingjoinsel);

-- A role that may create objects in the extension's schema can still add
-- functions on gsst of other names there (to_json(gsst), say), and make a
-- call fail as ambiguous: say so.  Not an error: it is every database
-- created before PostgreSQL 15, and the overloads above hold there.
DO $$
DECLARE
    writers text;
BEGIN
    SELECT pg_catalog.string_agg(CASE WHEN a.grantee = 0 THEN 'PUBLIC'
                                      ELSE pg_catalog.quote_ident(r.rolname) END,
                                 ', ' ORDER BY a.grantee)
      INTO writers
      FROM pg_catalog.pg_namespace n
     CROSS JOIN LATERAL pg_catalog.aclexplode(n.nspacl) a
      LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
     WHERE n.oid = '@extschema@'::pg_catalog.regnamespace
       AND a.privilege_type = 'CREATE'
       AND a.grantee <> n.nspowner
       AND NOT coalesce(r.rolsuper, false);
    IF writers IS NOT NULL THEN
        RAISE WARNING 'roles other than its owner may create objects in schema %, the schema of gsst: %',
            '@extschema@', writers
            USING DETAIL = 'gsst''s text functions and operators there cannot be replaced, but such a role can add functions on gsst that calls of other names would run, with the caller''s rights and data.',
                  HINT = 'REVOKE CREATE ON SCHEMA @extschema@ FROM ' || writers || ' (PUBLIC has no CREATE on public since PostgreSQL 15), or create the extension in a schema only trusted roles create objects in, and put it on search_path before any schema that others may.';
    END IF;
END
$$;

--------------------------------------------------------------------------
-- Long values: TOAST compresses gsst values and index entries as it
-- compresses text's (STORAGE extended; 1.2 had external).
--------------------------------------------------------------------------

ALTER TYPE @extschema@.gsst SET (STORAGE = extended);

-- ALTER TYPE sets the storage of columns made from now on (and of domains
-- over gsst); columns and index columns that kept the old one follow.  A
-- catalog row is what ALTER TABLE ... SET STORAGE writes, and it also
-- reaches columns of expression indexes, which ALTER TABLE cannot name.
WITH RECURSIVE gsst_types(oid) AS (
    SELECT '@extschema@.gsst'::pg_catalog.regtype::pg_catalog.oid
    UNION ALL
    SELECT t.oid FROM pg_catalog.pg_type t JOIN gsst_types g ON t.typbasetype = g.oid
    WHERE t.typtype = 'd'
)
UPDATE pg_catalog.pg_attribute a SET attstorage = 'x'
FROM gsst_types g
WHERE a.atttypid = g.oid AND a.attstorage = 'e';
