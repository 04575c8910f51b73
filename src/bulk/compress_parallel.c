/*
 * compress_parallel.c - gsst.compress_table's rewrite with parallel workers
 * that write the new heap themselves.
 *
 * As parallel CREATE INDEX does, the backend enters parallel mode and starts
 * workers through a parallel context; they share its transaction, and their
 * locks do not conflict with its ACCESS EXCLUSIVE lock.  The old heap is cut
 * into ranges of blocks.  A worker takes the next free range and reads it
 * with rewrite.c's producer (visibility as VACUUM FULL judges it, batches to
 * the gsst worker or encoded on its own CPU, new tuples formed).
 *
 * Nearly every new tuple the worker writes itself, as rewriteheap.c writes
 * one: the old version's xmin and xmax, frozen where the cutoffs allow,
 * t_ctid pointing at itself.  Its pages are blocks it claims a chunk at a
 * time from a shared counter, filled in its memory and written together,
 * as a bulk write writes them: WAL-logged as full pages where the new heap
 * needs WAL, checksummed, written past shared buffers.  A chunk's blocks
 * are added to the file when it is claimed, in claim order, so that no
 * segment is ever short under another segment's pages; the unused pages of
 * a worker's last chunk are written empty, so that the file has no holes.  PostgreSQL's own parallel index
 * builds and CLUSTER leave the writing to the leader; here the writing is
 * most of the work, so it is divided.
 *
 * The others go to this backend through the worker's shm_mq, and heapam's
 * rewrite writes them after every worker's pages:
 * - a recently dead version that has a successor, and a version that may be
 *   one's successor: rewriteheap.c links the chain, wherever its parts lie;
 * - dead versions, for the same chains;
 * - tuples to TOAST: a TOAST table takes its rows through heap_insert,
 *   which parallel workers may not call;
 * - tuples whose xmax is a MultiXact: freezing one may create a MultiXact,
 *   which parallel mode forbids.
 * The backend spools them to a temporary file while the workers run.
 *
 * The new heap holds the same tuples as the serial rewrite's, with the same
 * headers, but each chunk holds one worker's tuples, in block order.
 *
 * A worker's error reaches the backend as parallel workers' errors do; a
 * worker that vanishes leaves a range unfinished, and the backend fails.
 * Either way the transaction aborts: the new heap was made in it and goes
 * with it, and the parallel context and its DSM segment are freed at abort.
 */
#include "bulk/compress_parallel.h"

#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/buffile.h"
#include "storage/condition_variable.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "worker/worker.h"

#define KEY_SHARED		UINT64CONST(0x6753535401)
#define KEY_COLUMNS		UINT64CONST(0x6753535402)
#define KEY_COUNTS		UINT64CONST(0x6753535403)
#define KEY_QUEUES		UINT64CONST(0x6753535404)

/* Each worker's queue to this backend. */
#define QUEUE_BYTES		(1024 * 1024)

/* The most blocks a worker claims at once: 1 MB of pages. */
#define MAX_CHUNK_BLOCKS	128

#if PG_VERSION_NUM >= 160000
#define NEW_HEAP_LOCATOR(rel)	(&(rel)->rd_locator)
#define alloc_pages(n)			((char *) palloc_aligned((Size) (n) * BLCKSZ, PG_IO_ALIGN_SIZE, MCXT_ALLOC_ZERO))
#else
#define NEW_HEAP_LOCATOR(rel)	(&(rel)->rd_node)
#define alloc_pages(n)			((char *) palloc0((Size) (n) * BLCKSZ))
#endif

typedef struct ParallelShared
{
	Oid			relid;
	Oid			new_relid;
	TransactionId oldest_xmin;
	TransactionId freeze_xid;
	MultiXactId multi_cutoff;
	bool		use_wal;		/* the backend's RelationNeedsWAL(new heap) */
	Size		save_free;		/* bytes a page keeps free (fillfactor) */
	int			ncolumns;
	int			nranges;
	BlockNumber nblocks;
	BlockNumber range_blocks;
	BlockNumber chunk_blocks;
	pg_atomic_uint32 next_range;
	pg_atomic_uint32 ranges_done;
	pg_atomic_uint32 blocks_scanned;
	pg_atomic_uint64 tuples_placed;
	/* new heap blocks: claimed, and added to the file (in claim order) */
	pg_atomic_uint32 next_block;
	pg_atomic_uint32 extended_to;
	ConditionVariable extended;
	/* held by the worker writing a chunk */
	pg_atomic_flag writing;
	ConditionVariable written;
} ParallelShared;

/* A column and its table, as the workers get them. */
typedef struct ParallelColumn
{
	NameData	name;
	int32		family;
	uint32		table_id;
	int32		table_len;		/* 0: no table */
	uint8		table[GSST_TABLE_MAX_BYTES];
} ParallelColumn;

typedef enum QueuedKind
{
	QUEUED_LIVE = 1,			/* the new version follows */
	QUEUED_DEAD
} QueuedKind;

/* Queued tuples go in messages of about this many bytes. */
#define MESSAGE_BYTES	(64 * 1024)

/*
 * A queued tuple; a live one's new version follows, new_len bytes, from the
 * next MAXALIGNed offset; the next record starts MAXALIGNed after it.
 */
typedef struct QueuedTuple
{
	uint32		kind;
	uint32		new_len;
	ItemPointerData old_self;
	char		old_header[MAXIMUM_ALIGNOF * 4];	/* SizeofHeapTupleHeader bytes */
} QueuedTuple;

StaticAssertDecl(SizeofHeapTupleHeader <= MAXIMUM_ALIGNOF * 4,
				 "a tuple header fits QueuedTuple.old_header");

#define RECORD_HEADER_BYTES		MAXALIGN(sizeof(QueuedTuple))

/*
 * A worker's pages of the new heap: a chunk of blocks, filled in memory
 * and written together, so that the workers take turns at the file (whose
 * writes the kernel serializes) a chunk at a time, not a page at a time.
 */
typedef struct PageWriter
{
	ParallelShared *shared;
	Relation	new_heap;
	TransactionId relfrozenxid; /* of the old heap, for freezing */
	MultiXactId relminmxid;
	char	   *chunk;			/* chunk_blocks pages */
	BlockNumber chunk_start;	/* InvalidBlockNumber: none claimed */
	BlockNumber chunk_used;		/* pages started; the last is being filled */
	Page		zero_page;
} PageWriter;

/* A worker's state. */
typedef struct WorkerState
{
	ParallelShared *shared;
	shm_mq_handle *mqh;
	StringInfoData message;		/* records not sent yet */
	PageWriter	pw;
	int64		tuples_placed;	/* not yet added to shared->tuples_placed */
	int			ranges;			/* ranges produced */
} WorkerState;

/*
 * Blocks a range holds.  A batch never crosses a range, and the GPU's cost
 * of a batch is mostly fixed, so a range holds as much heap as a batch of
 * gsst.batch_bytes of text; but no more than an eighth of a worker's
 * share, so that the ranges still spread evenly over the workers when the
 * table is a few batches; and at least a quarter of that heap (64 blocks
 * at the least), so that a table of less than two such ranges is not worth
 * starting workers for and is rewritten serially.
 */
static BlockNumber
range_blocks_for(BlockNumber nblocks, int nworkers)
{
	BlockNumber batch = (BlockNumber) (gsst_batch_bytes / BLCKSZ);
	BlockNumber share = nblocks / ((BlockNumber) Max(nworkers, 1) * 8);

	return Max(Max(64, batch / 4), Min(batch, share));
}

/*
 * Blocks a worker claims at once: a power of two, so that a chunk never
 * crosses a segment, and small against the table, so that the empty pages
 * the workers leave in their last chunks stay under 1/64 of the old heap.
 */
static BlockNumber
chunk_blocks_for(BlockNumber nblocks, int nworkers)
{
	BlockNumber target = nblocks / ((BlockNumber) nworkers * 64);
	BlockNumber chunk = 1;

	while (chunk * 2 <= Min(target, MAX_CHUNK_BLOCKS))
		chunk *= 2;
	if (RELSEG_SIZE % chunk != 0)
		chunk = 1;
	return chunk;
}

/* ---- the workers ---- */

/* The blocks of the old heap that range k covers: the last may be short. */
static BlockNumber
range_length(const ParallelShared *shared, uint32 k)
{
	BlockNumber start = (BlockNumber) k * shared->range_blocks;

	return Min(shared->range_blocks, shared->nblocks - start);
}

static bool
take_range(void *arg, BlockNumber *start, BlockNumber *nblocks, int *range_no)
{
	WorkerState *ws = (WorkerState *) arg;
	ParallelShared *shared = ws->shared;
	uint32		k = pg_atomic_fetch_add_u32(&shared->next_range, 1);

	if (k >= (uint32) shared->nranges)
		return false;
	*range_no = (int) k;
	*start = k * shared->range_blocks;
	*nblocks = range_length(shared, k);
	return true;
}

/* Send the records gathered so far. */
static void
send_message(WorkerState *ws)
{
	shm_mq_result res;

	if (ws->message.len == 0)
		return;
	res = shm_mq_send(ws->mqh, ws->message.len, ws->message.data, false, true);
	if (res != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsst.compress_table: the backend stopped reading a parallel worker's tuples")));
	resetStringInfo(&ws->message);
}

/* Queue a tuple for the backend's rewrite (new NULL: the old one is dead). */
static void
queue_tuple(WorkerState *ws, HeapTuple old, HeapTuple new)
{
	StringInfo	m = &ws->message;
	Size		bytes = RECORD_HEADER_BYTES + (new != NULL ? MAXALIGN(new->t_len) : 0);
	QueuedTuple qt;

	memset(&qt, 0, sizeof(qt));
	qt.kind = new != NULL ? QUEUED_LIVE : QUEUED_DEAD;
	qt.new_len = new != NULL ? new->t_len : 0;
	qt.old_self = old->t_self;
	memcpy(qt.old_header, old->t_data, SizeofHeapTupleHeader);

	enlargeStringInfo(m, bytes);
	memset(m->data + m->len, 0, bytes);
	memcpy(m->data + m->len, &qt, sizeof(QueuedTuple));
	if (new != NULL)
		memcpy(m->data + m->len + RECORD_HEADER_BYTES, new->t_data, new->t_len);
	m->len += bytes;
	if (m->len >= MESSAGE_BYTES)
		send_message(ws);
}

/*
 * Whether a live tuple must go through heapam's rewrite in the backend
 * rather than onto a worker's page; see the file's comment.
 */
static bool
needs_backend(HeapTuple old, HeapTuple new, TransactionId oldest_xmin)
{
	HeapTupleHeader h = old->t_data;

	if (HeapTupleHasExternal(new) || new->t_len > TOAST_TUPLE_THRESHOLD)
		return true;
	if (h->t_infomask & (HEAP_XMAX_IS_MULTI | HEAP_MOVED))
		return true;
	/* a successor to link to (rewrite_heap_tuple's test) */
	if (!((h->t_infomask & HEAP_XMAX_INVALID) || HeapTupleHeaderIsOnlyLocked(h)) &&
		!HeapTupleHeaderIndicatesMovedPartitions(h) &&
		!ItemPointerEquals(&old->t_self, &h->t_ctid))
		return true;
	/* a recently dead predecessor may link to it */
	if ((h->t_infomask & HEAP_UPDATED) &&
		!TransactionIdPrecedes(HeapTupleHeaderGetXmin(h), oldest_xmin))
		return true;
	return false;
}

/*
 * Claim the next chunk of blocks and add them to the file, after every
 * chunk claimed before it has been added: md.c fills a short segment with
 * zeros before it starts the next, which must never overwrite a page.
 */
static void
claim_chunk(PageWriter *pw)
{
	ParallelShared *shared = pw->shared;
	BlockNumber chunk = shared->chunk_blocks;
	BlockNumber start = pg_atomic_fetch_add_u32(&shared->next_block, chunk);

	if ((uint64) start + chunk >= (uint64) MaxBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot extend relation \"%s\" beyond %u blocks",
						RelationGetRelationName(pw->new_heap), MaxBlockNumber)));
	ConditionVariablePrepareToSleep(&shared->extended);
	while (pg_atomic_read_u32(&shared->extended_to) != start)
		ConditionVariableSleep(&shared->extended, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	/* the chunk's last block makes the file long enough; the rest come later */
	smgrextend(RelationGetSmgr(pw->new_heap), MAIN_FORKNUM, start + chunk - 1,
			   (char *) pw->zero_page, true);
	pg_atomic_write_u32(&shared->extended_to, start + chunk);
	ConditionVariableBroadcast(&shared->extended);

	pw->chunk_start = start;
	pw->chunk_used = 0;
}

/*
 * Write the claimed chunk, its unused pages empty: WAL-logged as full pages
 * where the heap needs WAL, checksummed, and written as a bulk write does.
 */
static void
write_chunk(PageWriter *pw)
{
	BlockNumber n = pw->shared->chunk_blocks;
	BlockNumber blknos[MAX_CHUNK_BLOCKS];
	Page		pages[MAX_CHUNK_BLOCKS];

	if (pw->chunk_start == InvalidBlockNumber)
		return;
	for (BlockNumber i = 0; i < n; i++)
	{
		pages[i] = (Page) (pw->chunk + (Size) i * BLCKSZ);
		blknos[i] = pw->chunk_start + i;
		if (i >= pw->chunk_used)
			PageInit(pages[i], BLCKSZ, 0);
	}
	if (pw->shared->use_wal)
		log_newpages(NEW_HEAP_LOCATOR(pw->new_heap), MAIN_FORKNUM, (int) n, blknos, pages, true);
	for (BlockNumber i = 0; i < n; i++)
		PageSetChecksumInplace(pages[i], blknos[i]);

	/*
	 * One worker writes at a time: the kernel serializes writes to a file
	 * anyway, and sixteen writers spinning for its lock a page at a time
	 * cost more than they wrote.  The others sleep until it is done.
	 */
	ConditionVariablePrepareToSleep(&pw->shared->written);
	while (!pg_atomic_test_set_flag(&pw->shared->writing))
		ConditionVariableSleep(&pw->shared->written, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
#if PG_VERSION_NUM >= 170000
	smgrwritev(RelationGetSmgr(pw->new_heap), MAIN_FORKNUM, pw->chunk_start,
			   (const void **) pages, n, true);
#else
	for (BlockNumber i = 0; i < n; i++)
		smgrwrite(RelationGetSmgr(pw->new_heap), MAIN_FORKNUM, blknos[i], (char *) pages[i], true);
#endif
	pg_atomic_clear_flag(&pw->shared->writing);
	ConditionVariableSignal(&pw->shared->written);
	pw->chunk_start = InvalidBlockNumber;
}

/* The page being filled. */
static inline Page
current_page(PageWriter *pw)
{
	return (Page) (pw->chunk + (Size) (pw->chunk_used - 1) * BLCKSZ);
}

/* Start a new page: the chunk's next, or the first of a new chunk. */
static void
start_page(PageWriter *pw)
{
	if (pw->chunk_start != InvalidBlockNumber && pw->chunk_used == pw->shared->chunk_blocks)
		write_chunk(pw);
	if (pw->chunk_start == InvalidBlockNumber)
		claim_chunk(pw);
	pw->chunk_used++;
	PageInit(current_page(pw), BLCKSZ, 0);
}

/*
 * Put a live tuple on this worker's page, as rewrite_heap_tuple and
 * raw_heap_insert would put it on theirs.
 */
static void
place_tuple(PageWriter *pw, HeapTuple old, HeapTuple new)
{
	HeapTupleHeader h = new->t_data;
	Size		len = MAXALIGN(new->t_len);
	Page		page;
	OffsetNumber off;
	HeapTupleHeader on_page;

	memcpy(&h->t_choice.t_heap, &old->t_data->t_choice.t_heap, sizeof(HeapTupleFields));
	h->t_infomask &= ~HEAP_XACT_MASK;
	h->t_infomask2 &= ~HEAP2_XACT_MASK;
	h->t_infomask |= old->t_data->t_infomask & HEAP_XACT_MASK;
	heap_freeze_tuple(h, pw->relfrozenxid, pw->relminmxid,
					  pw->shared->freeze_xid, pw->shared->multi_cutoff);

	if (len > MaxHeapTupleSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						len, MaxHeapTupleSize)));
	if (pw->chunk_start == InvalidBlockNumber ||
		len + pw->shared->save_free > PageGetHeapFreeSpace(current_page(pw)))
		start_page(pw);
	page = current_page(pw);
	off = PageAddItem(page, (Item) h, new->t_len, InvalidOffsetNumber, false, true);
	if (off == InvalidOffsetNumber)
		elog(ERROR, "gsst parallel worker: failed to add a tuple to a page");
	on_page = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off));
	ItemPointerSet(&on_page->t_ctid, pw->chunk_start + pw->chunk_used - 1, off);
}

static void
emit_tuple(void *arg, HeapTuple old, HeapTuple new)
{
	WorkerState *ws = (WorkerState *) arg;

	if (new == NULL || needs_backend(old, new, ws->shared->oldest_xmin))
		queue_tuple(ws, old, new);
	else
	{
		place_tuple(&ws->pw, old, new);
		ws->tuples_placed++;
	}
}

static void
range_done(void *arg, int range_no)
{
	WorkerState *ws = (WorkerState *) arg;
	ParallelShared *shared = ws->shared;

	pg_atomic_fetch_add_u32(&shared->blocks_scanned, range_length(shared, (uint32) range_no));
	pg_atomic_fetch_add_u64(&shared->tuples_placed, ws->tuples_placed);
	ws->tuples_placed = 0;
	/* shared->ranges_done counts it once its pages are written */
	ws->ranges++;
}

void
gsst_rewrite_worker_main(dsm_segment *seg, shm_toc *toc)
{
	ParallelShared *shared = shm_toc_lookup(toc, KEY_SHARED, false);
	ParallelColumn *pcols = shm_toc_lookup(toc, KEY_COLUMNS, false);
	GsstRewriteCounts *counts = shm_toc_lookup(toc, KEY_COUNTS, false);
	char	   *queues = shm_toc_lookup(toc, KEY_QUEUES, false);
	shm_mq	   *mq = (shm_mq *) (queues + (Size) ParallelWorkerNumber * QUEUE_BYTES);
	GsstColumn *columns = palloc0(sizeof(GsstColumn) * Max(shared->ncolumns, 1));
	GsstRewriteProducer p;
	WorkerState ws;
	Relation	rel;

	shm_mq_set_sender(mq, MyProc);
	memset(&ws, 0, sizeof(ws));
	ws.shared = shared;
	ws.mqh = shm_mq_attach(mq, seg, NULL);
	initStringInfo(&ws.message);
	/* the backend holds ACCESS EXCLUSIVE on both; a lock group does not conflict */
	rel = table_open(shared->relid, AccessShareLock);
	ws.pw.shared = shared;
	ws.pw.new_heap = table_open(shared->new_relid, AccessShareLock);
	ws.pw.relfrozenxid = rel->rd_rel->relfrozenxid;
	ws.pw.relminmxid = rel->rd_rel->relminmxid;
	ws.pw.chunk = alloc_pages(shared->chunk_blocks);
	ws.pw.chunk_start = InvalidBlockNumber;
	ws.pw.zero_page = (Page) alloc_pages(1);

	for (int c = 0; c < shared->ncolumns; c++)
	{
		ParallelColumn *pc = &pcols[c];

		columns[c].name = pstrdup(NameStr(pc->name));
		columns[c].family = pc->family;
		if (pc->table_len > 0)
		{
			gsst_table	table;
			size_t		consumed;
			int			rc = gsst_table_load(&table, pc->table, pc->table_len, &consumed);

			if (rc != GSST_OK)
				elog(ERROR, "gsst parallel worker: could not load table %u: %s",
					 pc->table_id, gsst_strerror(rc));
			columns[c].encoder = palloc(sizeof(gsst_encoder));
			gsst_encoder_init(columns[c].encoder, &table);
			columns[c].table_id = pc->table_id;
		}
	}

	memset(&p, 0, sizeof(p));
	p.old_heap = rel;
	p.oldest_xmin = shared->oldest_xmin;
	p.ncolumns = shared->ncolumns;
	p.columns = columns;
	p.attnums = gsst_rewrite_attnums(rel, shared->ncolumns, columns);
	p.next_range = take_range;
	p.range_arg = &ws;
	p.emit = emit_tuple;
	p.range_done = range_done;
	p.arg = &ws;
	gsst_rewrite_produce(&p);

	/* the last chunk, its unused pages empty */
	write_chunk(&ws.pw);
	send_message(&ws);
	counts[ParallelWorkerNumber] = p.counts;
	/* every range this worker took is written */
	pg_atomic_fetch_add_u32(&shared->ranges_done, (uint32) ws.ranges);
	shm_mq_detach(ws.mqh);
	table_close(ws.pw.new_heap, AccessShareLock);
	table_close(rel, AccessShareLock);
}

/* ---- the backend ---- */

/*
 * Spool the workers' queued tuples until every worker has detached,
 * reporting progress as the workers count it.
 */
static void
drain_queues(ParallelContext *pcxt, ParallelShared *shared, shm_mq_handle **mqh,
			 BufFile *spool, GsstRewriteProgress progress, void *progress_arg)
{
	int			nlaunched = pcxt->nworkers_launched;
	bool	   *detached = palloc0(sizeof(bool) * nlaunched);
	int			left = nlaunched;

	while (left > 0)
	{
		bool		received = false;

		for (int i = 0; i < nlaunched; i++)
		{
			Size		nbytes;
			void	   *data;
			shm_mq_result res;

			if (detached[i])
				continue;
			res = shm_mq_receive(mqh[i], &nbytes, &data, true);
			if (res == SHM_MQ_WOULD_BLOCK)
				continue;
			if (res == SHM_MQ_DETACHED)
			{
				detached[i] = true;
				left--;
				continue;
			}
			BufFileWrite(spool, &nbytes, sizeof(nbytes));
			BufFileWrite(spool, data, nbytes);
			received = true;
		}
		progress(progress_arg, pg_atomic_read_u32(&shared->blocks_scanned),
				 (double) pg_atomic_read_u64(&shared->tuples_placed));
		if (!received && left > 0)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 100L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
		CHECK_FOR_INTERRUPTS();
	}
	pfree(detached);
}

#if PG_VERSION_NUM >= 170000
/*
 * The workers wrote their pages past shared buffers with skipFsync, as a
 * bulk write does; as smgr_bulk_finish does, have the next checkpoint sync
 * them, or sync them now if a checkpoint began since they started and so
 * will not replay their WAL.  (On 15, end_heap_rewrite syncs the whole
 * heap when it needs WAL.)
 */
static void
sync_worker_pages(Relation new_heap, XLogRecPtr redo_at_start)
{
	Assert((MyProc->delayChkptFlags & DELAY_CHKPT_START) == 0);
	MyProc->delayChkptFlags |= DELAY_CHKPT_START;
	if (redo_at_start != GetRedoRecPtr())
	{
		MyProc->delayChkptFlags &= ~DELAY_CHKPT_START;
		smgrimmedsync(RelationGetSmgr(new_heap), MAIN_FORKNUM);
	}
	else
	{
		smgrregistersync(RelationGetSmgr(new_heap), MAIN_FORKNUM);
		MyProc->delayChkptFlags &= ~DELAY_CHKPT_START;
	}
}
#endif

/*
 * Rewrite old_heap's nblocks into new_heap with up to nworkers parallel
 * workers.  result->nworkers is 0 when no worker could be started: then
 * nothing was read or written, and the caller rewrites serially.
 * Otherwise the workers have written result->pages pages holding
 * result->tuples_placed tuples, and result->spool holds the tuples left
 * for heapam's rewrite: begin one on new_heap (it appends after the
 * workers' pages) and hand it them with gsst_rewrite_parallel_replay.
 */
void
gsst_rewrite_parallel(Relation old_heap, Relation new_heap, TransactionId oldest_xmin,
					  TransactionId freeze_xid, MultiXactId multi_cutoff,
					  int ncolumns, const GsstColumn *columns,
					  BlockNumber nblocks, int nworkers,
					  GsstRewriteProgress progress, void *progress_arg,
					  GsstParallelResult *result)
{
	BlockNumber range_blocks = range_blocks_for(nblocks, nworkers);
	int			nranges = (int) ((nblocks + range_blocks - 1) / range_blocks);
	Size		columns_size = mul_size(sizeof(ParallelColumn), Max(ncolumns, 1));
	Size		counts_size;
	Size		queues_size;
	ParallelContext *pcxt;
	ParallelShared *shared;
	ParallelColumn *pcols;
	GsstRewriteCounts *counts;
	char	   *queues;
	shm_mq_handle **mqh;
	BlockNumber first_block = RelationGetNumberOfBlocks(new_heap);
	BlockNumber written;
	instr_time	start;
	instr_time	end;
#if PG_VERSION_NUM >= 170000
	XLogRecPtr	redo_at_start;
#endif

	memset(result, 0, sizeof(*result));
	if (nworkers <= 0 || nranges < 2)
		return;
	nworkers = Min(nworkers, nranges);
	counts_size = mul_size(sizeof(GsstRewriteCounts), nworkers);
	queues_size = mul_size(QUEUE_BYTES, nworkers);

	EnterParallelMode();
	pcxt = CreateParallelContext("gsst", "gsst_rewrite_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ParallelShared));
	shm_toc_estimate_chunk(&pcxt->estimator, columns_size);
	shm_toc_estimate_chunk(&pcxt->estimator, counts_size);
	shm_toc_estimate_chunk(&pcxt->estimator, queues_size);
	shm_toc_estimate_keys(&pcxt->estimator, 4);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no DSM for the workers: rewrite serially */
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return;
	}

	shared = shm_toc_allocate(pcxt->toc, sizeof(ParallelShared));
	memset(shared, 0, sizeof(ParallelShared));
	shared->relid = RelationGetRelid(old_heap);
	shared->new_relid = RelationGetRelid(new_heap);
	shared->oldest_xmin = oldest_xmin;
	shared->freeze_xid = freeze_xid;
	shared->multi_cutoff = multi_cutoff;
	shared->use_wal = RelationNeedsWAL(new_heap);
	shared->save_free = RelationGetTargetPageFreeSpace(new_heap, HEAP_DEFAULT_FILLFACTOR);
	shared->ncolumns = ncolumns;
	shared->nranges = nranges;
	shared->nblocks = nblocks;
	shared->range_blocks = range_blocks;
	shared->chunk_blocks = chunk_blocks_for(nblocks, nworkers);
	pg_atomic_init_u32(&shared->next_range, 0);
	pg_atomic_init_u32(&shared->ranges_done, 0);
	pg_atomic_init_u32(&shared->blocks_scanned, 0);
	pg_atomic_init_u64(&shared->tuples_placed, 0);
	pg_atomic_init_u32(&shared->next_block, first_block);
	pg_atomic_init_u32(&shared->extended_to, first_block);
	ConditionVariableInit(&shared->extended);
	pg_atomic_init_flag(&shared->writing);
	ConditionVariableInit(&shared->written);
	shm_toc_insert(pcxt->toc, KEY_SHARED, shared);

	pcols = shm_toc_allocate(pcxt->toc, columns_size);
	memset(pcols, 0, columns_size);
	for (int c = 0; c < ncolumns; c++)
	{
		namestrcpy(&pcols[c].name, columns[c].name);
		pcols[c].family = columns[c].family;
		pcols[c].table_id = columns[c].table_id;
		if (columns[c].encoder != NULL)
		{
			int			n = gsst_table_serialize(&columns[c].encoder->table, pcols[c].table,
												 GSST_TABLE_MAX_BYTES);

			if (n < 0)
				elog(ERROR, "could not serialize gsst table %u: %s", columns[c].table_id,
					 gsst_strerror(n));
			pcols[c].table_len = n;
		}
	}
	shm_toc_insert(pcxt->toc, KEY_COLUMNS, pcols);

	counts = shm_toc_allocate(pcxt->toc, counts_size);
	memset(counts, 0, counts_size);
	shm_toc_insert(pcxt->toc, KEY_COUNTS, counts);

	queues = shm_toc_allocate(pcxt->toc, queues_size);
	for (int i = 0; i < nworkers; i++)
	{
		shm_mq	   *mq = shm_mq_create(queues + (Size) i * QUEUE_BYTES, QUEUE_BYTES);

		shm_mq_set_receiver(mq, MyProc);
	}
	shm_toc_insert(pcxt->toc, KEY_QUEUES, queues);

#if PG_VERSION_NUM >= 170000
	redo_at_start = GetRedoRecPtr();
#endif
	LaunchParallelWorkers(pcxt);
	if (pcxt->nworkers_launched == 0)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return;
	}
	result->nworkers = pcxt->nworkers_launched;

	mqh = palloc(sizeof(shm_mq_handle *) * pcxt->nworkers_launched);
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		mqh[i] = shm_mq_attach((shm_mq *) (queues + (Size) i * QUEUE_BYTES), pcxt->seg,
							   pcxt->worker[i].bgwhandle);

	INSTR_TIME_SET_CURRENT(start);
	result->spool = BufFileCreateTemp(false);
	drain_queues(pcxt, shared, mqh, result->spool, progress, progress_arg);
	WaitForParallelWorkersToFinish(pcxt);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	result->receive_s = INSTR_TIME_GET_DOUBLE(end);

	/* a worker that vanished without an error left a range undone */
	if (pg_atomic_read_u32(&shared->ranges_done) != (uint32) nranges)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsst.compress_table: a parallel worker stopped before finishing its block ranges")));
	written = pg_atomic_read_u32(&shared->next_block);
	if (RelationGetNumberOfBlocks(new_heap) != written)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("gsst.compress_table: the new heap has %u blocks where the parallel workers claimed %u",
						RelationGetNumberOfBlocks(new_heap), written)));
#if PG_VERSION_NUM >= 170000
	if (shared->use_wal)
		sync_worker_pages(new_heap, redo_at_start);
#endif
	result->pages = written - first_block;
	result->tuples_placed = (double) pg_atomic_read_u64(&shared->tuples_placed);
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		gsst_rewrite_counts_add(&result->counts, &counts[i]);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
}

/* Hand the spooled tuples to write, and close the spool. */
void
gsst_rewrite_parallel_replay(GsstParallelResult *result, Oid relid,
							 GsstRewriteEmit write, void *write_arg)
{
	BufFile    *spool = result->spool;
	char	   *old_header = palloc(MAXALIGN(SizeofHeapTupleHeader));
	char	   *message = NULL;		/* MAXALIGNed, ours: rewriteheap.c changes
									 * new tuples' headers in place */
	Size		message_cap = 0;

	if (spool == NULL)
		return;
	if (BufFileSeek(spool, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind the parallel rewrite's temporary file: %m")));
	for (;;)
	{
		Size		nbytes;
		Size		at = 0;
		size_t		got = BufFileRead(spool, &nbytes, sizeof(nbytes));

		if (got == 0)
			break;
		if (got != sizeof(nbytes))
			elog(ERROR, "gsst.compress_table: the parallel rewrite's temporary file is truncated");
		if (nbytes > message_cap)
		{
			if (message != NULL)
				pfree(message);
			message_cap = Max(nbytes, 2 * MESSAGE_BYTES);
			message = MemoryContextAllocHuge(CurrentMemoryContext, message_cap);
		}
		if (BufFileRead(spool, message, nbytes) != nbytes)
			elog(ERROR, "gsst.compress_table: the parallel rewrite's temporary file is truncated");

		while (at < nbytes)
		{
			QueuedTuple qt;
			HeapTupleData old;
			HeapTupleData new;

			if (nbytes - at < RECORD_HEADER_BYTES)
				elog(ERROR, "gsst.compress_table: a parallel worker queued a partial tuple");
			memcpy(&qt, message + at, sizeof(QueuedTuple));
			at += RECORD_HEADER_BYTES;
			if ((qt.kind != QUEUED_LIVE && qt.kind != QUEUED_DEAD) ||
				(qt.kind == QUEUED_LIVE && MAXALIGN(qt.new_len) > nbytes - at))
				elog(ERROR, "gsst.compress_table: a parallel worker queued a malformed tuple");

			memcpy(old_header, qt.old_header, SizeofHeapTupleHeader);
			old.t_len = SizeofHeapTupleHeader;
			old.t_self = qt.old_self;
			old.t_tableOid = relid;
			old.t_data = (HeapTupleHeader) old_header;
			if (qt.kind == QUEUED_LIVE)
			{
				new.t_len = qt.new_len;
				ItemPointerSetInvalid(&new.t_self);
				new.t_tableOid = InvalidOid;
				new.t_data = (HeapTupleHeader) (message + at);
				at += MAXALIGN(qt.new_len);
				write(write_arg, &old, &new);
			}
			else
				write(write_arg, &old, NULL);
		}
	}
	BufFileClose(spool);
	result->spool = NULL;
	if (message != NULL)
		pfree(message);
	pfree(old_header);
}
