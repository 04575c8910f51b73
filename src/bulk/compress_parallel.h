/*
 * compress_parallel.h - gsst.compress_table's rewrite with parallel workers
 * producing the new tuples and this backend writing them.
 */
#ifndef GSST_COMPRESS_PARALLEL_H
#define GSST_COMPRESS_PARALLEL_H

#include "bulk/rewrite.h"

#include "storage/dsm.h"
#include "storage/shm_toc.h"

/* What the writer (this backend) did in a parallel rewrite. */
typedef struct GsstParallelResult
{
	int			nworkers;		/* launched; 0: nothing was done */
	double		receive_s;		/* waiting for the workers' tuples */
	double		write_s;		/* writing them */
	GsstRewriteCounts counts;	/* the workers', summed */
} GsstParallelResult;

extern BlockNumber gsst_rewrite_range_blocks(void);
extern void gsst_rewrite_parallel(Relation old_heap, TransactionId oldest_xmin,
								  int ncolumns, const GsstColumn *columns,
								  BlockNumber nblocks, int nworkers,
								  GsstRewriteEmit write, void *write_arg,
								  GsstParallelResult *result);
extern PGDLLEXPORT void gsst_rewrite_worker_main(dsm_segment *seg, shm_toc *toc);

#endif							/* GSST_COMPRESS_PARALLEL_H */
