/*
 * rewrite.h - the producing half of gsst.compress_table's heap rewrite:
 * read block ranges of the old heap, judge each tuple's visibility as
 * VACUUM FULL does, gather the gsst columns' values into batches, have them
 * encoded (batch.c), and form the new tuples.  Each tuple, in block order
 * within a range, goes to an emit callback with its old version: the
 * writer (compress_table.c) in a serial rewrite, a queue to the writer in a
 * parallel worker (compress_parallel.c).
 */
#ifndef GSST_REWRITE_H
#define GSST_REWRITE_H

#include "bulk/batch.h"

#include "access/htup.h"
#include "storage/block.h"

/* What a producer counts, and where its time went (seconds). */
typedef struct GsstRewriteCounts
{
	double		tuples_recently_dead;
	int64		values_encoded;
	int64		values_kept;
	int64		raw_bytes;
	int64		batches_on_worker;
	int64		batches_here;
	double		scan_s;			/* reading, visibility, gathering values */
	double		handoff_s;		/* handing to the worker (a copy unless gathered there) */
	double		results_s;		/* the worker's tiles back into datums */
	double		wait_s;			/* waiting for the gsst worker */
	double		encode_s;		/* encoding in this process */
	double		form_s;			/* new tuples from old ones and results */
	double		emit_s;			/* handing tuples on: writing them, or
								 * queueing them for the writer */
} GsstRewriteCounts;

/*
 * A tuple for the writer: old carries the old version's header and t_self
 * (all that rewriteheap.c reads of it); new is the new version, or NULL
 * when the old one is dead.
 */
typedef void (*GsstRewriteEmit) (void *arg, HeapTuple old, HeapTuple new);
/* Every tuple of range number range_no has been emitted. */
typedef void (*GsstRewriteRangeDone) (void *arg, int range_no);
/* The next range to produce; false when there is none. */
typedef bool (*GsstRewriteNextRange) (void *arg, BlockNumber *start, BlockNumber *nblocks,
									  int *range_no);

typedef struct GsstRewriteProducer
{
	Relation	old_heap;
	TransactionId oldest_xmin;
	int			ncolumns;
	GsstColumn *columns;
	AttrNumber *attnums;		/* of the columns in old_heap */
	GsstRewriteNextRange next_range;
	void	   *range_arg;		/* next_range's */
	GsstRewriteEmit emit;
	GsstRewriteRangeDone range_done;	/* may be NULL */
	void	   *arg;			/* emit's and range_done's */
	GsstRewriteCounts counts;
} GsstRewriteProducer;

extern AttrNumber *gsst_rewrite_attnums(Relation rel, int ncolumns, const GsstColumn *columns);
extern void gsst_rewrite_produce(GsstRewriteProducer *p);
extern void gsst_rewrite_counts_add(GsstRewriteCounts *sum, const GsstRewriteCounts *add);

#endif							/* GSST_REWRITE_H */
