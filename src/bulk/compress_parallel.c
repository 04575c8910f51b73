/*
 * compress_parallel.c - gsst.compress_table's rewrite with parallel workers.
 *
 * As parallel CREATE INDEX does, the backend enters parallel mode and starts
 * workers through a parallel context; they share its transaction, and their
 * locks do not conflict with its ACCESS EXCLUSIVE lock.  The old heap is cut
 * into ranges of blocks.  A worker takes the next free range, reads it with
 * rewrite.c's producer (visibility as VACUUM FULL judges it, batches to the
 * gsst worker or encoded on its own CPU, new tuples formed) and queues each
 * tuple, with its old version's header, on its shm_mq to the backend (many
 * tuples to a message: a message per tuple cost the writer more than
 * writing the tuple).  The
 * backend, the only writer, takes the ranges in block order, each from the
 * queue of the worker that took it, and hands the tuples to heapam's
 * rewrite as a serial rewrite does: the same tuples in the same order, so
 * the same new heap.
 *
 * A worker's error reaches the backend as parallel workers' errors do; a
 * worker that vanishes detaches its queue, and the backend fails.  Either
 * way the transaction aborts: the new heap was made in it and goes with it,
 * and the parallel context and its DSM segment are freed at abort.
 */
#include "bulk/compress_parallel.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/condition_variable.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "worker/worker.h"

#define KEY_SHARED		UINT64CONST(0x6753535401)
#define KEY_COLUMNS		UINT64CONST(0x6753535402)
#define KEY_COUNTS		UINT64CONST(0x6753535403)
#define KEY_QUEUES		UINT64CONST(0x6753535404)

/* Each worker's queue to the writer. */
#define QUEUE_BYTES		(8 * 1024 * 1024)

typedef struct ParallelShared
{
	Oid			relid;
	TransactionId oldest_xmin;
	int			ncolumns;
	int			nranges;
	BlockNumber nblocks;
	BlockNumber range_blocks;
	pg_atomic_uint32 next_range;
	ConditionVariable range_taken;
	/* per range: the number of the worker that took it, -1 until then */
	int			range_owner[FLEXIBLE_ARRAY_MEMBER];
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
	QUEUED_DEAD,
	QUEUED_RANGE_END
} QueuedKind;

/*
 * Queued tuples go in messages of about this many bytes; a range's last
 * message ends with its QUEUED_RANGE_END, so no message spans two ranges.
 */
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

/* A worker's state. */
typedef struct WorkerState
{
	ParallelShared *shared;
	shm_mq_handle *mqh;
	StringInfoData message;		/* records not sent yet */
} WorkerState;

#define RECORD_HEADER_BYTES		MAXALIGN(sizeof(QueuedTuple))

/*
 * Blocks a range holds: a quarter of gsst.batch_bytes of heap, so that the
 * ranges spread evenly over the workers even for a table of a few batches.
 */
BlockNumber
gsst_rewrite_range_blocks(void)
{
	return Max(64, (BlockNumber) (gsst_batch_bytes / BLCKSZ / 4));
}

/* ---- the workers ---- */

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
	*nblocks = Min(shared->range_blocks, shared->nblocks - *start);
	/* the writer reads range k from this worker's queue */
	shared->range_owner[k] = ParallelWorkerNumber;
	pg_write_barrier();
	ConditionVariableBroadcast(&shared->range_taken);
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
				 errmsg("gsst.compress_table: the writer stopped reading a parallel worker's tuples")));
	resetStringInfo(&ws->message);
}

/* Add a record to the message (the new version, MAXALIGNed, after it). */
static void
add_record(WorkerState *ws, QueuedTuple *qt, HeapTuple new)
{
	StringInfo	m = &ws->message;
	Size		bytes = RECORD_HEADER_BYTES + (new != NULL ? MAXALIGN(new->t_len) : 0);

	enlargeStringInfo(m, bytes);
	memset(m->data + m->len, 0, bytes);
	memcpy(m->data + m->len, qt, sizeof(QueuedTuple));
	if (new != NULL)
		memcpy(m->data + m->len + RECORD_HEADER_BYTES, new->t_data, new->t_len);
	m->len += bytes;
}

static void
queue_tuple(void *arg, HeapTuple old, HeapTuple new)
{
	WorkerState *ws = (WorkerState *) arg;
	QueuedTuple qt;

	memset(&qt, 0, sizeof(qt));
	qt.kind = new != NULL ? QUEUED_LIVE : QUEUED_DEAD;
	qt.new_len = new != NULL ? new->t_len : 0;
	qt.old_self = old->t_self;
	memcpy(qt.old_header, old->t_data, SizeofHeapTupleHeader);
	add_record(ws, &qt, new);
	if (ws->message.len >= MESSAGE_BYTES)
		send_message(ws);
}

static void
queue_range_end(void *arg, int range_no)
{
	WorkerState *ws = (WorkerState *) arg;
	QueuedTuple qt;

	memset(&qt, 0, sizeof(qt));
	qt.kind = QUEUED_RANGE_END;
	add_record(ws, &qt, NULL);
	/* the writer waits for it */
	send_message(ws);
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
	ws.shared = shared;
	ws.mqh = shm_mq_attach(mq, seg, NULL);
	initStringInfo(&ws.message);
	/* the backend holds ACCESS EXCLUSIVE; a lock group does not conflict */
	rel = table_open(shared->relid, AccessShareLock);

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
	p.emit = queue_tuple;
	p.range_done = queue_range_end;
	p.arg = &ws;
	gsst_rewrite_produce(&p);

	counts[ParallelWorkerNumber] = p.counts;
	shm_mq_detach(ws.mqh);
	table_close(rel, AccessShareLock);
}

/* ---- the writer ---- */

typedef struct WriterState
{
	ParallelContext *pcxt;
	ParallelShared *shared;
	shm_mq_handle **mqh;		/* per launched worker */
} WriterState;

/* A worker is gone without an error it told us: say so. */
static void
workers_failed(WriterState *w, int range_no)
{
	/* rethrows the error of a worker that failed, if one did */
	WaitForParallelWorkersToFinish(w->pcxt);
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("gsst.compress_table: a parallel worker stopped before finishing block range %d",
					range_no)));
}

/* The worker that took range k, once one has. */
static int
owner_of(WriterState *w, int k)
{
	volatile int *owner = &w->shared->range_owner[k];
	int			result;

	ConditionVariablePrepareToSleep(&w->shared->range_taken);
	for (;;)
	{
		result = *owner;
		pg_read_barrier();
		if (result >= 0)
			break;
		if (ConditionVariableTimedSleep(&w->shared->range_taken, 1000L, PG_WAIT_EXTENSION))
		{
			/* a second without news: is anyone still there? */
			bool		any_running = false;

			for (int i = 0; i < w->pcxt->nworkers_launched; i++)
			{
				pid_t		pid;

				if (GetBackgroundWorkerPid(w->pcxt->worker[i].bgwhandle, &pid) != BGWH_STOPPED)
					any_running = true;
			}
			if (!any_running && *owner < 0)
			{
				ConditionVariableCancelSleep();
				workers_failed(w, k);
			}
		}
	}
	ConditionVariableCancelSleep();
	return result;
}

/* Take every range, in block order, and write its tuples. */
static void
write_ranges(WriterState *w, GsstRewriteEmit write, void *write_arg,
			 GsstParallelResult *result)
{
	char	   *old_header = palloc(MAXALIGN(SizeofHeapTupleHeader));
	Oid			relid = w->shared->relid;
	char	   *message = NULL;		/* a received message, MAXALIGNed, ours */
	Size		message_cap = 0;

	for (int k = 0; k < w->shared->nranges; k++)
	{
		int			owner = owner_of(w, k);
		bool		range_done = false;

		if (owner >= w->pcxt->nworkers_launched)
			workers_failed(w, k);
		while (!range_done)
		{
			Size		nbytes;
			void	   *data;
			Size		at = 0;
			instr_time	start;
			instr_time	received;
			instr_time	written;
			shm_mq_result res;

			INSTR_TIME_SET_CURRENT(start);
			res = shm_mq_receive(w->mqh[owner], &nbytes, &data, false);
			if (res != SHM_MQ_SUCCESS)
				workers_failed(w, k);
			/* a copy: rewriteheap.c changes new tuples' headers in place */
			if (nbytes > message_cap)
			{
				if (message != NULL)
					pfree(message);
				message_cap = Max(nbytes, 2 * MESSAGE_BYTES);
				message = MemoryContextAllocHuge(CurrentMemoryContext, message_cap);
			}
			memcpy(message, data, nbytes);
			INSTR_TIME_SET_CURRENT(received);

			while (at < nbytes)
			{
				QueuedTuple qt;
				HeapTupleData old;
				HeapTupleData new;

				if (range_done || nbytes - at < RECORD_HEADER_BYTES)
					workers_failed(w, k);	/* nothing may follow a range's end */
				memcpy(&qt, message + at, sizeof(QueuedTuple));
				at += RECORD_HEADER_BYTES;
				if (qt.kind == QUEUED_RANGE_END)
				{
					range_done = true;
					continue;
				}
				if ((qt.kind != QUEUED_LIVE && qt.kind != QUEUED_DEAD) ||
					(qt.kind == QUEUED_LIVE && MAXALIGN(qt.new_len) > nbytes - at))
					workers_failed(w, k);

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
			INSTR_TIME_SET_CURRENT(written);
			INSTR_TIME_SUBTRACT(written, received);
			INSTR_TIME_SUBTRACT(received, start);
			result->receive_s += INSTR_TIME_GET_DOUBLE(received);
			result->write_s += INSTR_TIME_GET_DOUBLE(written);
		}
	}
	if (message != NULL)
		pfree(message);
	pfree(old_header);
}

/*
 * Rewrite old_heap's nblocks with up to nworkers parallel workers, handing
 * every tuple to write in block order.  result->nworkers is 0 when no
 * worker could be started: then nothing was read, and the caller rewrites
 * serially.
 */
void
gsst_rewrite_parallel(Relation old_heap, TransactionId oldest_xmin,
					  int ncolumns, const GsstColumn *columns,
					  BlockNumber nblocks, int nworkers,
					  GsstRewriteEmit write, void *write_arg,
					  GsstParallelResult *result)
{
	BlockNumber range_blocks = gsst_rewrite_range_blocks();
	int			nranges = (int) ((nblocks + range_blocks - 1) / range_blocks);
	Size		shared_size = add_size(offsetof(ParallelShared, range_owner),
									   mul_size(sizeof(int), Max(nranges, 1)));
	Size		columns_size = mul_size(sizeof(ParallelColumn), Max(ncolumns, 1));
	Size		counts_size;
	Size		queues_size;
	ParallelContext *pcxt;
	ParallelShared *shared;
	ParallelColumn *pcols;
	GsstRewriteCounts *counts;
	char	   *queues;
	WriterState w;

	memset(result, 0, sizeof(*result));
	if (nworkers <= 0 || nranges < 2)
		return;
	nworkers = Min(nworkers, nranges);
	counts_size = mul_size(sizeof(GsstRewriteCounts), nworkers);
	queues_size = mul_size(QUEUE_BYTES, nworkers);

	EnterParallelMode();
	pcxt = CreateParallelContext("gsst", "gsst_rewrite_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
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

	shared = shm_toc_allocate(pcxt->toc, shared_size);
	shared->relid = RelationGetRelid(old_heap);
	shared->oldest_xmin = oldest_xmin;
	shared->ncolumns = ncolumns;
	shared->nranges = nranges;
	shared->nblocks = nblocks;
	shared->range_blocks = range_blocks;
	pg_atomic_init_u32(&shared->next_range, 0);
	ConditionVariableInit(&shared->range_taken);
	for (int k = 0; k < nranges; k++)
		shared->range_owner[k] = -1;
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

	LaunchParallelWorkers(pcxt);
	if (pcxt->nworkers_launched == 0)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return;
	}
	result->nworkers = pcxt->nworkers_launched;

	w.pcxt = pcxt;
	w.shared = shared;
	w.mqh = palloc(sizeof(shm_mq_handle *) * pcxt->nworkers_launched);
	for (int i = 0; i < pcxt->nworkers_launched; i++)
	{
		w.mqh[i] = shm_mq_attach((shm_mq *) (queues + (Size) i * QUEUE_BYTES), pcxt->seg,
								 pcxt->worker[i].bgwhandle);
	}

	write_ranges(&w, write, write_arg, result);

	WaitForParallelWorkersToFinish(pcxt);
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		gsst_rewrite_counts_add(&result->counts, &counts[i]);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
}
