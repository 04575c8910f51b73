/*
 * gsst 1.3 -> 1.4: dictionaries no stored value needs can be dropped; the
 * cast text -> gsst takes the value alone, as Citus calls it.
 */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.4'" to load this file. \quit

COMMENT ON TABLE gsst.dictionaries IS
    'gsst symbol tables; values refer to them by id, which is never reused: a dropped one leaves its row with nsymbols -1';
-- the tombstones of dropped dictionaries mean nothing to another database
SELECT pg_catalog.pg_extension_config_dump('gsst.dictionaries', 'WHERE nsymbols >= 0');

-- For the database's operator (it reads every table that may hold gsst
-- values and locks each while it runs): not PUBLIC's; the caller must also
-- own the table.
CREATE FUNCTION gsst.drop_unused_dictionaries(rel regclass) RETURNS integer[]
    AS 'MODULE_PATHNAME', 'gsst_drop_unused_dictionaries' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.drop_unused_dictionaries(regclass) IS
    'drop the dictionaries of the table''s gsst columns that no stored value needs; returns their ids';
REVOKE ALL ON FUNCTION gsst.drop_unused_dictionaries(regclass) FROM PUBLIC;

-- Citus's INSERT ... SELECT planner calls a cast function with the value
-- alone: the defaults make that a cast to gsst without a family (raw).
CREATE OR REPLACE FUNCTION gsst.gsst_from_text(text, integer DEFAULT -1, boolean DEFAULT false)
    RETURNS @extschema@.gsst
    AS 'MODULE_PATHNAME', 'gsst_from_text' LANGUAGE C STABLE STRICT PARALLEL SAFE;
