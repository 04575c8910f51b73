/* gsst 1.1 -> 1.2: queries on compressed values. */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.2'" to load this file. \quit

-- gsst = text and text = gsst merge-join.  ALTER OPERATOR ... SET (MERGES)
-- exists from PostgreSQL 17 on; the catalog row is what it sets.
UPDATE pg_catalog.pg_operator SET oprcanmerge = true
WHERE oid IN ('@extschema@.=(@extschema@.gsst, text)'::regoperator,
              '@extschema@.=(text, @extschema@.gsst)'::regoperator);

-- text's own operators too: the family then orders text and gsst alike, so
-- that gsst = text merge-joins (each side sorted by its type's <) and a text
-- column can reference a gsst key (FOREIGN KEY needs = (text, text) in the
-- key's family).  text_ops stays the first family of text's =, so plain
-- text plans do not change.
ALTER OPERATOR FAMILY @extschema@.gsst_ops USING btree ADD
    OPERATOR 1 pg_catalog.< (text, text),
    OPERATOR 2 pg_catalog.<= (text, text),
    OPERATOR 3 pg_catalog.= (text, text),
    OPERATOR 4 pg_catalog.>= (text, text),
    OPERATOR 5 pg_catalog.> (text, text);
ALTER OPERATOR FAMILY @extschema@.gsst_ops USING hash ADD
    OPERATOR 1 pg_catalog.= (text, text);

-- Length without decoding: length(c) and octet_length(c) pick these over
-- the text functions (an exact match of the argument type).
CREATE FUNCTION @extschema@.length(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_length' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.length(@extschema@.gsst) IS
    'number of characters of the decoded text, counted on the codes';
CREATE FUNCTION @extschema@.octet_length(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_octet_length' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.octet_length(@extschema@.gsst) IS
    'number of bytes of the decoded text, counted on the codes';

-- LIKE and NOT LIKE: c LIKE pattern picks these over text's (an exact
-- match of the left type).  A literal prefix compares the value's first
-- bytes only; the support function gives an index of c the conditions
-- text's like_support gives a text column.

CREATE FUNCTION gsst.gsst_like_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'gsst_like_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_like(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_like' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
    SUPPORT gsst.gsst_like_support;
CREATE FUNCTION gsst.gsst_not_like(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_not_like' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_like_sel(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME', 'gsst_like_sel' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_not_like_sel(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME', 'gsst_not_like_sel' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.~~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_like,
    NEGATOR = OPERATOR(@extschema@.!~~),
    RESTRICT = gsst.gsst_like_sel, JOIN = likejoinsel);
CREATE OPERATOR @extschema@.!~~ (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_not_like,
    NEGATOR = OPERATOR(@extschema@.~~),
    RESTRICT = gsst.gsst_not_like_sel, JOIN = nlikejoinsel);
