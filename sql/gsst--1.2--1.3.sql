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
