/* gsst 1.2 -> 1.3: no internal entry point a role can call. */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.3'" to load this file. \quit

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
