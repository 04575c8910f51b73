/* gsst 1.4 -> 1.5 */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.5'" to load this file. \quit

CREATE FUNCTION gsst.learn(rel regclass, column_name name, sample text[]) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_learn_sql' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.learn(regclass, name, text[]) IS
    'a gsst column with no dictionary yet learns its first from a sample of values, as from its first writes; returns its id (on a Citus distributed table: the placements that learned one)';

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
