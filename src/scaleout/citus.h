/*
 * citus.h - gsst's bulk and inspection functions on a Citus distributed or
 * reference table (src/scaleout/citus.c): the work runs on every shard
 * placement through Citus's own functions, and the results are summed; and
 * a new shard's first dictionary (src/scaleout/shards.c).
 *
 * Above dict/ (privileges); column/ and bulk/ call it.  It never includes
 * Citus's headers nor links against Citus.
 */
#ifndef GSST_SCALEOUT_CITUS_H
#define GSST_SCALEOUT_CITUS_H

#include "base/gsst.h"

#include "nodes/execnodes.h"
#include "utils/array.h"

/* Does Citus's metadata here list relid as distributed (any kind)? */
extern bool gsst_citus_distributed(Oid relid);

/*
 * gsst.compress_table on every placement; workers < 0: each node's own
 * default.  Returns the values encoded, summed.
 */
extern int64 gsst_citus_compress_table(Oid relid, const char *column_name,
									   bool retrain, int workers);

/* gsst.train on every placement; returns the placements that learned one. */
extern int32 gsst_citus_train(Oid relid, const char *column_name);

/*
 * gsst.learn on every placement: each whose family has no dictionary yet
 * learns one from sample (text[]); returns how many did.
 */
extern int32 gsst_citus_learn(Oid relid, const char *column_name, ArrayType *sample);

/* gsst.column_stats summed over the shards, into a materialized SRF. */
extern void gsst_citus_column_stats(Oid relid, ReturnSetInfo *rsinfo);

/*
 * SET COMPRESSION gsst on a distributed table: the placements learned, each
 * from its own rows; the coordinator's NOTICE says so.
 */
extern void gsst_citus_report_learned(Oid relid, const char *column_name);

/* shards.c: a new shard takes a dictionary of a shard on this node. */
extern void gsst_citus_seed_shard(Oid relid);

#endif							/* GSST_SCALEOUT_CITUS_H */
