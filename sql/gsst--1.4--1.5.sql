/* gsst 1.4 -> 1.5 */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.5'" to load this file. \quit

CREATE FUNCTION gsst.learn(rel regclass, column_name name, sample text[]) RETURNS integer
    AS 'MODULE_PATHNAME', 'gsst_learn_sql' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.learn(regclass, name, text[]) IS
    'a gsst column with no dictionary yet learns its first from a sample of values, as from its first writes; returns its id (on a Citus distributed table: the placements that learned one)';
