/*
 * encode_pool.h - background workers that encode gsst.load's batches on
 * the CPU.
 *
 * gsst.load inserts through the executor, which parallel mode forbids, so
 * it cannot have a parallel context as compress_table has.  Encoding needs
 * no database, though: workers without a connection take chunks of a
 * batch's values and their serialized table over shm_mq and send the
 * datums back, made by the same rule (gsst_datum_encode_into), so the bytes
 * are the backend's.  They count against max_parallel_workers as parallel
 * workers do.  A chunk whose worker failed or exited is encoded by the
 * backend when it finishes the batch.
 */
#ifndef GSST_ENCODE_POOL_H
#define GSST_ENCODE_POOL_H

#include "bulk/batch.h"

typedef struct GsstEncodePool GsstEncodePool;

extern GsstEncodePool *gsst_encode_pool_start(int nworkers);
extern int	gsst_encode_pool_size(const GsstEncodePool *pool);
extern void gsst_encode_pool_submit(GsstEncodePool *pool, GsstBatch *batch);
extern void gsst_encode_pool_collect(GsstEncodePool *pool, GsstBatch *batch);
extern void gsst_encode_pool_stop(GsstEncodePool *pool);
extern PGDLLEXPORT void gsst_encode_pool_main(Datum main_arg);

#endif							/* GSST_ENCODE_POOL_H */
