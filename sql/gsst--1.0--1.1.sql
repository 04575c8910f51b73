/* gsst 1.0 -> 1.1: a family belongs to its column. */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.1'" to load this file. \quit

-- Who owned the family's column when a dictionary was stored; 0 for the
-- dictionaries of 1.0, which count for nobody.
ALTER TABLE gsst.dictionaries ADD COLUMN owner oid NOT NULL DEFAULT 0;

-- The guards fire under session_replication_role = replica too, where the
-- insert trigger skips what a subscription replicates.
ALTER TABLE gsst.dictionaries ENABLE ALWAYS TRIGGER dictionaries_validate;
ALTER TABLE gsst.dictionaries ENABLE ALWAYS TRIGGER dictionaries_immutable;

-- Input and casts into gsst depend on the family's current dictionary and
-- the caller's rights: STABLE.  (They write nothing in the caller's
-- transaction: the learner stores a new column's first dictionary.)
ALTER FUNCTION gsst.gsst_in(cstring, oid, integer) STABLE;
ALTER FUNCTION gsst.gsst_recv(internal, oid, integer) STABLE;
ALTER FUNCTION gsst.gsst_from_text(text, integer, boolean) STABLE;
ALTER FUNCTION gsst.gsst_apply_family(@extschema@.gsst, integer, boolean) STABLE;
-- Codes are decoded only for roles that may read their family.
ALTER FUNCTION gsst.decompress(bytea) STABLE;
COMMENT ON FUNCTION gsst.decompress(bytea) IS
    'decode the payload of a gsst datum given as bytes (codes only with SELECT on their dictionary''s column); invalid input raises data_corrupted';
COMMENT ON FUNCTION gsst.compress(text, integer) IS
    'encode text with the current dictionary of a family whose column the caller may read or write; raw otherwise';

-- It checks the caller's right to read the dictionary's column itself.
GRANT EXECUTE ON FUNCTION gsst.dictionary(integer) TO PUBLIC;
COMMENT ON FUNCTION gsst.dictionary(integer) IS
    'the symbols of a dictionary, by code (needs SELECT on the column it belongs to)';

DROP EVENT TRIGGER gsst_ddl_guard;
CREATE EVENT TRIGGER gsst_ddl_guard ON ddl_command_start
    WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE',
                 'CREATE FOREIGN TABLE', 'DROP EXTENSION', 'DROP SCHEMA', 'DROP TRIGGER')
    EXECUTE FUNCTION gsst.ddl_guard();
CREATE EVENT TRIGGER gsst_ddl_check ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE',
                 'CREATE FOREIGN TABLE')
    EXECUTE FUNCTION gsst.ddl_guard();

-- worker_status says why there is no GPU (reason) and counts the GPU
-- helper process (helper_*); last_error keeps real failures.
DROP VIEW gsst.worker_status;
DROP FUNCTION gsst.worker_status();
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

-- A column list; without it, generated and GENERATED ALWAYS identity
-- columns take no source column.  The signature changes: drop, create.
DROP FUNCTION gsst.load(regclass, text, integer);
-- Source columns go to the columns named by columns, in order, as with
-- INSERT INTO target (columns) SELECT; without it, by position to those
-- that take a value: neither generated nor GENERATED ALWAYS AS IDENTITY.
CREATE FUNCTION gsst.load(target regclass, source_query text, batch_rows integer DEFAULT 10000,
                          columns name[] DEFAULT NULL)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'gsst_load' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.load(regclass, text, integer, name[]) IS
    'insert the rows of a query into a table (into the columns named, or by position into those that take a value) in batches, encoding its gsst columns batch by batch (on the GPU worker when there is one); returns the number of rows inserted';

-- compress_table takes a degree of parallelism.  The signature changes:
-- drop, create.
DROP FUNCTION gsst.compress_table(regclass, name, boolean);
CREATE FUNCTION gsst.compress_table(rel regclass, column_name name DEFAULT NULL,
                                    retrain boolean DEFAULT false, workers integer DEFAULT NULL)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'gsst_compress_table' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gsst.compress_table(regclass, name, boolean, integer) IS
    're-encode every value of the gsst columns with their current dictionary (retrain: learn a new one first), rewriting the table as VACUUM FULL does, with up to workers parallel workers (default max_parallel_maintenance_workers); returns the number of values encoded';
