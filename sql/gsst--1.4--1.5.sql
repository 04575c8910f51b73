/* gsst 1.4 -> 1.5 */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.5'" to load this file. \quit

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
