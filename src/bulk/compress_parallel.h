/*
 * compress_parallel.h - gsst.compress_table's rewrite with parallel workers
 * that produce the new tuples and write the new heap's pages; this backend
 * rewrites only the tuples that update chains, TOAST or MultiXacts concern.
 */
#ifndef GSST_COMPRESS_PARALLEL_H
#define GSST_COMPRESS_PARALLEL_H

#include "bulk/rewrite.h"

#include "access/multixact.h"
#include "storage/buffile.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"
#include "utils/relcache.h"

/* Progress while the workers run: blocks read, tuples they wrote. */
typedef void (*GsstRewriteProgress) (void *arg, BlockNumber blocks_scanned,
									 double tuples_written);

/* What a parallel rewrite did. */
typedef struct GsstParallelResult
{
	int			nworkers;		/* launched; 0: nothing was done */
	double		receive_s;		/* this backend waiting for the workers */
	BlockNumber pages;			/* the workers wrote */
	double		tuples_placed;	/* on them */
	BufFile    *spool;			/* tuples left for heapam's rewrite */
	GsstRewriteCounts counts;	/* the workers', summed */
} GsstParallelResult;

extern void gsst_rewrite_parallel(Relation old_heap, Relation new_heap,
								  TransactionId oldest_xmin, TransactionId freeze_xid,
								  MultiXactId multi_cutoff,
								  int ncolumns, const GsstColumn *columns,
								  BlockNumber nblocks, int nworkers,
								  GsstRewriteProgress progress, void *progress_arg,
								  GsstParallelResult *result);
extern void gsst_rewrite_parallel_replay(GsstParallelResult *result, Oid relid,
										 GsstRewriteEmit write, void *write_arg);
extern PGDLLEXPORT void gsst_rewrite_worker_main(dsm_segment *seg, shm_toc *toc);

#endif							/* GSST_COMPRESS_PARALLEL_H */
