/* gsst 1.5: FSST/GSST string compression for text columns. */

\echo Use "CREATE EXTENSION gsst" to load this file. \quit

-- Functions and tables live in schema gsst; the type gsst, its operators
-- and operator classes in the extension's schema (public by default), so
-- that "CREATE TABLE t (c gsst)" works with the usual search_path.
CREATE SCHEMA gsst;
COMMENT ON SCHEMA gsst IS 'gsst: dictionaries and functions of the gsst extension';
GRANT USAGE ON SCHEMA gsst TO PUBLIC;

--------------------------------------------------------------------------
-- Dictionaries: immutable symbol tables, referred to by id from values.
--------------------------------------------------------------------------

-- Ids fit the datum header (< 2^30); a new one is one past the highest
-- stored.  This sequence is no longer used; it stays so that dumps made
-- with version 1.0 restore.
CREATE SEQUENCE gsst.dictionary_id_seq AS integer MAXVALUE 1073741823;
-- A family is the dictionary lineage of one column: its typmod gsst(family).
CREATE SEQUENCE gsst.family_seq AS integer;

-- owner: the role that owned the family's column when the dictionary was
-- stored (gsst.max_dictionaries_per_role counts them).
CREATE TABLE gsst.dictionaries (
    id       integer     NOT NULL,
    family   integer     NOT NULL,
    created  timestamptz NOT NULL,
    nsymbols integer     NOT NULL,
    symbols  bytea       NOT NULL,
    owner    oid         NOT NULL DEFAULT 0,
    CONSTRAINT dictionaries_pkey PRIMARY KEY (id)
);
CREATE INDEX dictionaries_family_id_idx ON gsst.dictionaries (family, id);
COMMENT ON TABLE gsst.dictionaries IS
    'gsst symbol tables; values refer to them by id, which is never reused: a dropped one leaves its row with nsymbols -1';

-- Logical decoding decodes gsst values with this table.
ALTER TABLE gsst.dictionaries SET (user_catalog_table = true);

-- the tombstones of dropped dictionaries mean nothing to another database
SELECT pg_catalog.pg_extension_config_dump('gsst.dictionaries', 'WHERE nsymbols >= 0');
SELECT pg_catalog.pg_extension_config_dump('gsst.dictionary_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gsst.family_seq', '');

-- Symbols are fragments of the data: readable only by roles granted so.
REVOKE ALL ON TABLE gsst.dictionaries FROM PUBLIC;
REVOKE ALL ON SEQUENCE gsst.dictionary_id_seq, gsst.family_seq FROM PUBLIC;

CREATE FUNCTION gsst.dictionaries_guard() RETURNS trigger
    AS 'MODULE_PATHNAME', 'gsst_dictionaries_guard' LANGUAGE C;
CREATE FUNCTION gsst.dictionaries_before_insert() RETURNS trigger
    AS 'MODULE_PATHNAME', 'gsst_dictionaries_before_insert' LANGUAGE C;
-- rows inserted through SQL (restoring a dump) are validated, join only a
-- family whose column the inserting role owns, and get a fresh id when
-- theirs is taken; rows a subscription replicates are skipped.  Both
-- triggers fire ALWAYS, under session_replication_role = replica too.
CREATE TRIGGER dictionaries_validate
    BEFORE INSERT ON gsst.dictionaries
    FOR EACH ROW EXECUTE FUNCTION gsst.dictionaries_before_insert();
CREATE TRIGGER dictionaries_immutable
    BEFORE UPDATE OR DELETE OR TRUNCATE ON gsst.dictionaries
    FOR EACH STATEMENT EXECUTE FUNCTION gsst.dictionaries_guard();
ALTER TABLE gsst.dictionaries ENABLE ALWAYS TRIGGER dictionaries_validate;
ALTER TABLE gsst.dictionaries ENABLE ALWAYS TRIGGER dictionaries_immutable;

--------------------------------------------------------------------------
-- The type gsst
--------------------------------------------------------------------------

CREATE TYPE @extschema@.gsst;

-- Input and casts into gsst are STABLE, not IMMUTABLE: the bytes they
-- return depend on the family's current dictionary and on the caller's
-- rights on it.  They write nothing in the caller's transaction: a new
-- column's first dictionary is stored by the learner in its own.
CREATE FUNCTION gsst.gsst_in(cstring, oid, integer) RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_in' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_out(@extschema@.gsst) RETURNS cstring
    AS 'MODULE_PATHNAME', 'gsst_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_recv(internal, oid, integer) RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_recv' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_send(@extschema@.gsst) RETURNS bytea
    AS 'MODULE_PATHNAME', 'gsst_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_typmod_in(cstring[]) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_typmod_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_typmod_out(integer) RETURNS cstring
    AS 'MODULE_PATHNAME', 'gsst_typmod_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE extended: TOAST compresses long values (pglz or lz4, as for text)
-- and index entries, so that a long value that FSST cannot shrink, or that
-- TOAST shrinks more, is stored and indexed as text would be.
CREATE TYPE @extschema@.gsst (
    INPUT = gsst.gsst_in,
    OUTPUT = gsst.gsst_out,
    RECEIVE = gsst.gsst_recv,
    SEND = gsst.gsst_send,
    TYPMOD_IN = gsst.gsst_typmod_in,
    TYPMOD_OUT = gsst.gsst_typmod_out,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended,
    CATEGORY = 'S',
    COLLATABLE = true
);
COMMENT ON TYPE @extschema@.gsst IS
    'text compressed with FSST symbol tables; gsst(family) names the column''s dictionary family';

-- A carrier type for SET COMPRESSION gsst: text -> passthrough -> gsst are
-- binary relabels, so ALTER COLUMN TYPE does not rewrite the table.
CREATE TYPE gsst.passthrough;
CREATE FUNCTION gsst.passthrough_in(cstring) RETURNS gsst.passthrough
    AS 'textin' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.passthrough_out(gsst.passthrough) RETURNS cstring
    AS 'textout' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE gsst.passthrough (
    INPUT = gsst.passthrough_in,
    OUTPUT = gsst.passthrough_out,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended,
    CATEGORY = 'X',
    COLLATABLE = true
);
COMMENT ON TYPE gsst.passthrough IS 'internal to gsst: relabels text as gsst without rewriting';
-- Only the DDL hook's casts use it: no role stores a value of it.
REVOKE USAGE ON TYPE gsst.passthrough FROM PUBLIC;

--------------------------------------------------------------------------
-- Conversions
--------------------------------------------------------------------------

CREATE FUNCTION gsst.decompress(@extschema@.gsst) RETURNS text
    AS 'MODULE_PATHNAME', 'gsst_to_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsst.decompress(@extschema@.gsst) IS 'the text of a gsst value';

-- STABLE: codes are decoded only for roles that may read their family.
CREATE FUNCTION gsst.decompress(bytea) RETURNS text
    AS 'MODULE_PATHNAME', 'gsst_decompress_bytea' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsst.decompress(bytea) IS
    'decode the payload of a gsst datum given as bytes (codes only with SELECT on their dictionary''s column); invalid input raises data_corrupted';

CREATE FUNCTION gsst.compress(text, family integer) RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_compress' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsst.compress(text, integer) IS
    'encode text with the current dictionary of a family whose column the caller may read or write; raw otherwise';

-- The cast text -> gsst.  PostgreSQL calls it with all three arguments;
-- Citus's INSERT ... SELECT planner calls a cast function with the value
-- alone, and the defaults make that a cast to gsst without a family, which
-- keeps the value raw until the column that stores it encodes it.
CREATE FUNCTION gsst.gsst_from_text(text, integer DEFAULT -1, boolean DEFAULT false)
    RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_from_text' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gsst.gsst_apply_family_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'gsst_apply_family_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_apply_family(@extschema@.gsst, integer, boolean) RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_apply_family' LANGUAGE C STABLE STRICT PARALLEL SAFE
    SUPPORT gsst.gsst_apply_family_support;

CREATE FUNCTION gsst.value_dictionary(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_value_dictionary' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsst.value_dictionary(@extschema@.gsst) IS
    'the dictionary an encoded value refers to; NULL for a value stored raw';

CREATE FUNCTION gsst.datum(@extschema@.gsst) RETURNS bytea
    AS 'MODULE_PATHNAME', 'gsst_datum_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsst.datum(@extschema@.gsst) IS
    'the stored bytes of a gsst value: its text, or 0x00 + header + codes';

CREATE CAST (@extschema@.gsst AS text)
    WITH FUNCTION gsst.decompress(@extschema@.gsst) AS IMPLICIT;
CREATE CAST (text AS @extschema@.gsst)
    WITH FUNCTION gsst.gsst_from_text(text, integer, boolean) AS ASSIGNMENT;
CREATE CAST (varchar AS @extschema@.gsst)
    WITH FUNCTION gsst.gsst_from_text(text, integer, boolean) AS ASSIGNMENT;
-- Length coercion: literals and untyped parameters reach gsst(family) here.
CREATE CAST (@extschema@.gsst AS @extschema@.gsst)
    WITH FUNCTION gsst.gsst_apply_family(@extschema@.gsst, integer, boolean) AS IMPLICIT;

CREATE CAST (text AS gsst.passthrough) WITHOUT FUNCTION;
CREATE CAST (varchar AS gsst.passthrough) WITHOUT FUNCTION;
CREATE CAST (gsst.passthrough AS @extschema@.gsst) WITHOUT FUNCTION;

--------------------------------------------------------------------------
-- Comparison: as the decoded text, with the expression's collation.
--------------------------------------------------------------------------

CREATE FUNCTION gsst.gsst_eq(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_ne(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_lt(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_le(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_gt(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_ge(@extschema@.gsst, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_cmp(@extschema@.gsst, @extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_sortsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME', 'gsst_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_hash(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_hash_extended(@extschema@.gsst, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'gsst_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gsst.gsst_text_eq(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_text_ne(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_text_lt(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_text_le(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_text_gt(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_text_ge(@extschema@.gsst, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'gsst_text_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_text_cmp(@extschema@.gsst, text) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_text_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gsst.text_gsst_eq(text, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'text_gsst_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.text_gsst_ne(text, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'text_gsst_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.text_gsst_lt(text, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'text_gsst_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.text_gsst_le(text, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'text_gsst_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.text_gsst_gt(text, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'text_gsst_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.text_gsst_ge(text, @extschema@.gsst) RETURNS boolean
    AS 'MODULE_PATHNAME', 'text_gsst_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.text_gsst_cmp(text, @extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'text_gsst_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- gsst <op> gsst
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.gsst, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.gsst_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);

-- gsst <op> text
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_text_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_text_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_text_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_text_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_text_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.gsst, RIGHTARG = text, FUNCTION = gsst.gsst_text_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);

-- text <op> gsst
CREATE OPERATOR @extschema@.= (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.text_gsst_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.text_gsst_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.text_gsst_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.text_gsst_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.text_gsst_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = text, RIGHTARG = @extschema@.gsst, FUNCTION = gsst.text_gsst_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);

-- btree: gsst's own class plus the cross-type members, so that an index on
-- a gsst column serves WHERE c = $1 with a text $1.  No equalimage function:
-- equal texts may be stored differently, so no deduplication.
CREATE OPERATOR CLASS @extschema@.gsst_ops
    DEFAULT FOR TYPE @extschema@.gsst USING btree AS
        OPERATOR 1 @extschema@.< ,
        OPERATOR 2 @extschema@.<= ,
        OPERATOR 3 @extschema@.= ,
        OPERATOR 4 @extschema@.>= ,
        OPERATOR 5 @extschema@.> ,
        FUNCTION 1 gsst.gsst_cmp(@extschema@.gsst, @extschema@.gsst),
        FUNCTION 2 gsst.gsst_sortsupport(internal);

ALTER OPERATOR FAMILY @extschema@.gsst_ops USING btree ADD
    OPERATOR 1 @extschema@.< (@extschema@.gsst, text),
    OPERATOR 2 @extschema@.<= (@extschema@.gsst, text),
    OPERATOR 3 @extschema@.= (@extschema@.gsst, text),
    OPERATOR 4 @extschema@.>= (@extschema@.gsst, text),
    OPERATOR 5 @extschema@.> (@extschema@.gsst, text),
    FUNCTION 1 (@extschema@.gsst, text) gsst.gsst_text_cmp(@extschema@.gsst, text),
    OPERATOR 1 @extschema@.< (text, @extschema@.gsst),
    OPERATOR 2 @extschema@.<= (text, @extschema@.gsst),
    OPERATOR 3 @extschema@.= (text, @extschema@.gsst),
    OPERATOR 4 @extschema@.>= (text, @extschema@.gsst),
    OPERATOR 5 @extschema@.> (text, @extschema@.gsst),
    FUNCTION 1 (text, @extschema@.gsst) gsst.text_gsst_cmp(text, @extschema@.gsst),
    -- btree sorts the text elements of c = ANY($1::text[]) with this
    FUNCTION 1 (text, text) pg_catalog.bttextcmp(text, text);

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

-- hash: gsst hashes like the text it decodes to.
CREATE OPERATOR CLASS @extschema@.gsst_ops
    DEFAULT FOR TYPE @extschema@.gsst USING hash AS
        OPERATOR 1 @extschema@.= ,
        FUNCTION 1 gsst.gsst_hash(@extschema@.gsst),
        FUNCTION 2 gsst.gsst_hash_extended(@extschema@.gsst, bigint);

ALTER OPERATOR FAMILY @extschema@.gsst_ops USING hash ADD
    OPERATOR 1 @extschema@.= (@extschema@.gsst, text),
    OPERATOR 1 @extschema@.= (text, @extschema@.gsst),
    FUNCTION 1 (text, text) pg_catalog.hashtext(text),
    FUNCTION 2 (text, text) pg_catalog.hashtextextended(text, bigint);
ALTER OPERATOR FAMILY @extschema@.gsst_ops USING hash ADD
    OPERATOR 1 pg_catalog.= (text, text);

--------------------------------------------------------------------------
-- min and max of gsst compare stored values as the operators do (text's
-- would decode every value through the cast), and read an index on the
-- column (SORTOP).
--------------------------------------------------------------------------

CREATE FUNCTION gsst.gsst_smaller(@extschema@.gsst, @extschema@.gsst) RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsst.gsst_larger(@extschema@.gsst, @extschema@.gsst) RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE @extschema@.min(@extschema@.gsst) (
    SFUNC = gsst.gsst_smaller, STYPE = @extschema@.gsst, COMBINEFUNC = gsst.gsst_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.gsst) (
    SFUNC = gsst.gsst_larger, STYPE = @extschema@.gsst, COMBINEFUNC = gsst.gsst_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);

--------------------------------------------------------------------------
-- Length without decoding: length(c) and octet_length(c) pick these over
-- the text functions (an exact match of the argument type).
--------------------------------------------------------------------------

CREATE FUNCTION @extschema@.length(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_length' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.length(@extschema@.gsst) IS
    'number of characters of the decoded text, counted on the codes';
CREATE FUNCTION @extschema@.octet_length(@extschema@.gsst) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_octet_length' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.octet_length(@extschema@.gsst) IS
    'number of bytes of the decoded text, counted on the codes';

--------------------------------------------------------------------------
-- LIKE and NOT LIKE: c LIKE pattern picks these over text's (an exact
-- match of the left type).  A literal prefix compares the value's first
-- bytes only; the support function gives an index of c the conditions
-- text's like_support gives a text column.
--------------------------------------------------------------------------

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
-- Training and inspection
--------------------------------------------------------------------------

CREATE FUNCTION gsst.train(rel regclass, column_name name) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_train_sql' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.train(regclass, name) IS
    'learn a new dictionary for a gsst column from a sample of its rows; returns its id';

CREATE FUNCTION gsst.learn(rel regclass, column_name name, sample text[]) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_learn_sql' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.learn(regclass, name, text[]) IS
    'a gsst column with no dictionary yet learns its first from a sample of values, as from its first writes; returns its id (on a Citus distributed table: the placements that learned one)';

CREATE FUNCTION gsst.column_stats(rel regclass)
    RETURNS TABLE (column_name name, family integer, "values" bigint,
                   encoded_values bigint, raw_bytes bigint, stored_bytes bigint,
                   ratio double precision, dictionaries integer[])
    AS 'MODULE_PATHNAME', 'gsst_column_stats' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION gsst.column_stats(regclass) IS
    'per gsst column: values, how many are encoded, decoded and stored bytes, ratio, dictionaries in use';

-- For the database's operator (it reads every table that may hold gsst
-- values and locks each while it runs): not PUBLIC's; the caller must also
-- own the table.
CREATE FUNCTION gsst.drop_unused_dictionaries(rel regclass) RETURNS integer[]
    AS 'MODULE_PATHNAME', 'gsst_drop_unused_dictionaries' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.drop_unused_dictionaries(regclass) IS
    'drop the dictionaries of the table''s gsst columns that no stored value needs; returns their ids';
REVOKE ALL ON FUNCTION gsst.drop_unused_dictionaries(regclass) FROM PUBLIC;

-- Anyone may call it; it shows a dictionary only to roles that may read
-- the column the dictionary belongs to.
CREATE FUNCTION gsst.dictionary(id integer)
    RETURNS TABLE (code integer, length integer, symbol text, bytes bytea)
    AS 'MODULE_PATHNAME', 'gsst_dictionary' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsst.dictionary(integer) IS
    'the symbols of a dictionary, by code (needs SELECT on the column it belongs to)';

--------------------------------------------------------------------------
-- Guards: DROP EXTENSION while gsst columns exist, the dictionaries'
-- triggers, and, without gsst in shared_preload_libraries (no DDL hook),
-- statements that would need the hook.
--------------------------------------------------------------------------

CREATE FUNCTION gsst.ddl_guard() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'gsst_ddl_guard' LANGUAGE C;
CREATE EVENT TRIGGER gsst_ddl_guard ON ddl_command_start
    WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE',
                 'CREATE FOREIGN TABLE', 'DROP EXTENSION', 'DROP SCHEMA', 'DROP TRIGGER')
    EXECUTE FUNCTION gsst.ddl_guard();
CREATE EVENT TRIGGER gsst_ddl_check ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE',
                 'CREATE FOREIGN TABLE')
    EXECUTE FUNCTION gsst.ddl_guard();

--------------------------------------------------------------------------
-- Bulk paths and the GPU worker (src/worker/, src/bulk/)
--------------------------------------------------------------------------

CREATE FUNCTION gsst.worker_status(
    OUT pid integer, OUT mode text, OUT reason text, OUT gpu boolean, OUT device text,
    OUT library text, OUT started timestamptz, OUT starts integer,
    OUT gpu_batches bigint, OUT cpu_batches bigint, OUT failed_batches bigint,
    OUT backend_fallbacks bigint, OUT bytes_in bigint, OUT bytes_out bigint,
    OUT errors bigint, OUT last_error text, OUT in_flight integer,
    OUT helper_pid integer, OUT helper_starts integer, OUT helper_failures bigint)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'gsst_worker_status' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE VIEW gsst.worker_status AS SELECT * FROM gsst.worker_status();
COMMENT ON VIEW gsst.worker_status IS
    'the gsst worker: pid, mode (gpu, cpu, stopped), why there is no GPU, device, batches, bytes in and out, real failures, requests in flight, and its GPU helper process: pid, starts, failures (deaths, hangs, broken contexts)';
GRANT SELECT ON gsst.worker_status TO PUBLIC;

CREATE FUNCTION gsst.compress_table(rel regclass, column_name name DEFAULT NULL,
                                    retrain boolean DEFAULT false, workers integer DEFAULT NULL)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'gsst_compress_table' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.compress_table(regclass, name, boolean, integer) IS
    're-encode every value of the gsst columns with their current dictionary (retrain: learn a new one first), rewriting the table as VACUUM FULL does, with up to workers parallel workers (default max_parallel_maintenance_workers); returns the number of values encoded';

-- Source columns go to the columns named by columns, in order, as with
-- INSERT INTO target (columns) SELECT; without it, by position to those
-- that take a value: neither generated nor GENERATED ALWAYS AS IDENTITY.
CREATE FUNCTION gsst.load(target regclass, source_query text, batch_rows integer DEFAULT 10000,
                          columns name[] DEFAULT NULL)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'gsst_load' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.load(regclass, text, integer, name[]) IS
    'insert the rows of a query into a table (into the columns named, or by position into those that take a value) in batches, encoding its gsst columns batch by batch (on the GPU worker when there is one); returns the number of rows inserted';
