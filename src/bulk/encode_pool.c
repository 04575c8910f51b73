/*
 * encode_pool.c - background workers that encode gsst.load's batches on
 * the CPU; see encode_pool.h.
 *
 * Each worker has a queue from the backend and one back.  A request is a
 * chunk of one column's consecutive values with their table; the answer is
 * their datums, back to back, each MAXALIGNed.  A worker holds one chunk
 * at a time: the backend reads a worker's answer before it sends it the
 * next chunk, so neither can wait on the other with both queues full.
 */
#include "bulk/encode_pool.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"


#define POOL_MAGIC			0x67737370	/* "gssp" */
#define POOL_QUEUE_BYTES	(1024 * 1024)

/* A chunk is sent to a worker only when it holds at least this much text. */
#define POOL_MIN_CHUNK_BYTES	(64 * 1024)

/* The request's fixed part; then the table, nvalues uint32 lengths, data. */
typedef struct PoolRequest
{
	uint32		table_id;
	uint32		table_len;
	uint32		nvalues;
	uint32		compress_len;	/* the column's GsstToastRule */
	uint64		data_len;
	char		method;
} PoolRequest;

typedef struct PoolChunk
{
	GsstBatch  *batch;
	int			column;
	int			first;
	int			count;
} PoolChunk;

typedef struct PoolWorker
{
	shm_mq_handle *to_worker;
	shm_mq_handle *from_worker;
	BackgroundWorkerHandle *handle;
	bool		alive;
	bool		busy;			/* holds chunk */
	PoolChunk	chunk;
} PoolWorker;

struct GsstEncodePool
{
	dsm_segment *seg;
	int			nworkers;
	PoolWorker *workers;
	int			next;			/* the worker the next chunk goes to */
	uint32	   *lengths;		/* a request's value lengths */
	int			lengths_cap;
};

/* ---- the backend ---- */

/*
 * A segment for the pool, or NULL when none can be had: out of DSM slots,
 * or out of memory for it (a full /dev/shm raises an error, which we catch
 * in a subtransaction: no memory for encoder workers is a reason to encode
 * in this backend, not to fail the load).  The segment
 * belongs to the caller's resource owner, so an error or cancel later
 * detaches it.
 */
static dsm_segment *
try_dsm_create(Size size)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	dsm_segment *seg = NULL;

	/*
	 * No subtransaction can start in parallel mode (compress_table's
	 * parallel workers): there a full /dev/shm fails the operation.
	 */
	if (IsInParallelMode())
		return dsm_create(size, DSM_CREATE_NULL_IF_MAXSEGMENTS);

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		seg = dsm_create(size, DSM_CREATE_NULL_IF_MAXSEGMENTS);
		/* out of the subtransaction's resource owner ... */
		if (seg != NULL)
			dsm_pin_mapping(seg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		ereport(LOG,
				(errmsg("gsst: no shared memory for a batch of %zu bytes, encoding it in this backend: %s",
						size, edata->message)));
		FreeErrorData(edata);
		seg = NULL;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	/* ... into the caller's */
	if (seg != NULL)
		dsm_unpin_mapping(seg);
	return seg;
}

/*
 * Start up to nworkers workers; NULL when none could be registered (no
 * background worker slot, or max_parallel_workers reached).
 */
GsstEncodePool *
gsst_encode_pool_start(int nworkers)
{
	shm_toc_estimator e;
	Size		size;
	dsm_segment *seg;
	shm_toc    *toc;
	GsstEncodePool *pool;
	int			started = 0;

	if (nworkers <= 0 || !IsUnderPostmaster)
		return NULL;
	shm_toc_initialize_estimator(&e);
	for (int i = 0; i < 2 * nworkers; i++)
		shm_toc_estimate_chunk(&e, POOL_QUEUE_BYTES);
	shm_toc_estimate_keys(&e, 2 * nworkers);
	size = shm_toc_estimate(&e);
	seg = try_dsm_create(size);
	if (seg == NULL)
		return NULL;
	toc = shm_toc_create(POOL_MAGIC, dsm_segment_address(seg), size);

	pool = palloc0(sizeof(GsstEncodePool));
	pool->seg = seg;
	pool->workers = palloc0(sizeof(PoolWorker) * nworkers);
	for (int i = 0; i < nworkers; i++)
	{
		shm_mq	   *to = shm_mq_create(shm_toc_allocate(toc, POOL_QUEUE_BYTES), POOL_QUEUE_BYTES);
		shm_mq	   *from = shm_mq_create(shm_toc_allocate(toc, POOL_QUEUE_BYTES), POOL_QUEUE_BYTES);
		BackgroundWorker bgw;
		PoolWorker *w = &pool->workers[started];

		shm_toc_insert(toc, 2 * i, to);
		shm_toc_insert(toc, 2 * i + 1, from);
		shm_mq_set_sender(to, MyProc);
		shm_mq_set_receiver(from, MyProc);

		memset(&bgw, 0, sizeof(bgw));
		/*
		 * Counted as a parallel worker, against max_parallel_workers.  It
		 * connects to no database, only to be seen in pg_stat_activity.
		 */
		bgw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION |
			BGWORKER_CLASS_PARALLEL;
		bgw.bgw_start_time = BgWorkerStart_ConsistentState;
		bgw.bgw_restart_time = BGW_NEVER_RESTART;
		snprintf(bgw.bgw_library_name, BGW_MAXLEN, "gsst");
		snprintf(bgw.bgw_function_name, BGW_MAXLEN, "gsst_encode_pool_main");
		snprintf(bgw.bgw_name, BGW_MAXLEN, "gsst encoder for PID %d", MyProcPid);
		snprintf(bgw.bgw_type, BGW_MAXLEN, "gsst encoder");
		bgw.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
		memcpy(bgw.bgw_extra, &i, sizeof(int));
		bgw.bgw_notify_pid = MyProcPid;
		if (!RegisterDynamicBackgroundWorker(&bgw, &w->handle))
		{
			/* its queues stay unused; the worker they were for never runs */
			continue;
		}
		w->to_worker = shm_mq_attach(to, seg, w->handle);
		w->from_worker = shm_mq_attach(from, seg, w->handle);
		w->alive = true;
		started++;
	}
	if (started == 0)
	{
		dsm_detach(seg);
		pfree(pool->workers);
		pfree(pool);
		return NULL;
	}
	pool->nworkers = started;
	return pool;
}

/* Workers still taking chunks. */
int
gsst_encode_pool_size(const GsstEncodePool *pool)
{
	int			n = 0;

	if (pool == NULL)
		return 0;
	for (int i = 0; i < pool->nworkers; i++)
		if (pool->workers[i].alive)
			n++;
	return n;
}

/*
 * Read worker w's answer into its chunk's results.  A worker that failed
 * leaves them NULL, for gsst_batch_finish to encode, and takes no more.
 */
static void
receive_chunk(PoolWorker *w)
{
	PoolChunk  *chunk = &w->chunk;
	GsstBatchColumn *col = &chunk->batch->columns[chunk->column];
	Size		nbytes;
	void	   *data;
	char	   *copy;
	Size		at = 0;
	int			i;

	Assert(w->busy);
	w->busy = false;
	if (shm_mq_receive(w->from_worker, &nbytes, &data, false) != SHM_MQ_SUCCESS)
	{
		w->alive = false;
		return;
	}
	copy = gsst_arena_alloc(&chunk->batch->results_arena, Max(nbytes, 1));
	memcpy(copy, data, nbytes);
	/* the answer must be count datums, of their lengths, and nothing else */
	for (i = 0; i < chunk->count; i++)
	{
		struct varlena *v = (struct varlena *) (copy + at);
		int			value = chunk->first + i;
		Size		raw = col->offsets[value + 1] - col->offsets[value];

		if (nbytes - at < VARHDRSZ || VARSIZE(v) < VARHDRSZ ||
			VARSIZE(v) > VARHDRSZ + raw || VARSIZE(v) > nbytes - at)
			break;
		col->results[value] = v;
		at += MAXALIGN(VARSIZE(v));
	}
	if (i < chunk->count || at != MAXALIGN(nbytes))
	{
		ereport(WARNING,
				(errmsg("gsst encoder returned an answer that does not match its chunk; encoding it in this backend")));
		for (i = 0; i < chunk->count; i++)
			col->results[chunk->first + i] = NULL;
		w->alive = false;
	}
}

/* Send values [first, first + count) of a column to worker w. */
static void
send_chunk(GsstEncodePool *pool, PoolWorker *w, GsstBatch *batch, int column,
		   int first, int count)
{
	GsstBatchColumn *col = &batch->columns[column];
	PoolRequest req;
	shm_mq_iovec iov[4];

	if (pool->lengths_cap < count)
	{
		if (pool->lengths != NULL)
			pfree(pool->lengths);
		pool->lengths_cap = Max(count, 1024);
		pool->lengths = MemoryContextAllocHuge(GetMemoryChunkContext(pool),
											   sizeof(uint32) * pool->lengths_cap);
	}
	for (int i = 0; i < count; i++)
		pool->lengths[i] = (uint32) (col->offsets[first + i + 1] - col->offsets[first + i]);

	memset(&req, 0, sizeof(req));
	req.table_id = col->table_id;
	req.table_len = (uint32) col->table_len;
	req.nvalues = (uint32) count;
	req.compress_len = col->toast.compress_len;
	req.method = col->toast.method;
	req.data_len = col->offsets[first + count] - col->offsets[first];
	iov[0].data = (const char *) &req;
	iov[0].len = sizeof(req);
	iov[1].data = (const char *) col->table_bytes;
	iov[1].len = col->table_len;
	iov[2].data = (const char *) pool->lengths;
	iov[2].len = sizeof(uint32) * count;
	iov[3].data = col->data + col->offsets[first];
	iov[3].len = req.data_len;
	if (shm_mq_sendv(w->to_worker, iov, 4, false, true) != SHM_MQ_SUCCESS)
	{
		w->alive = false;
		return;
	}
	w->chunk.batch = batch;
	w->chunk.column = column;
	w->chunk.first = first;
	w->chunk.count = count;
	w->busy = true;
}

/* The next worker that takes chunks, its last answer read; NULL if none. */
static PoolWorker *
next_worker(GsstEncodePool *pool)
{
	for (int tries = 0; tries < pool->nworkers; tries++)
	{
		PoolWorker *w = &pool->workers[pool->next];

		pool->next = (pool->next + 1) % pool->nworkers;
		if (w->busy)
			receive_chunk(w);
		if (w->alive)
			return w;
	}
	return NULL;
}

/*
 * Hand a batch's columns to the workers, each split in one chunk per
 * worker (by bytes, none smaller than POOL_MIN_CHUNK_BYTES).  Never mind
 * what the gsst worker took: call it only for batches it did not.
 */
void
gsst_encode_pool_submit(GsstEncodePool *pool, GsstBatch *batch)
{
	for (int c = 0; c < batch->ncolumns; c++)
	{
		GsstBatchColumn *col = &batch->columns[c];
		int			alive = gsst_encode_pool_size(pool);
		Size		chunk_bytes;
		int			first = 0;

		if (col->table_id == 0 || col->nvalues == 0 || alive == 0)
			continue;
		gsst_batch_results_init(batch, c);
		chunk_bytes = Max(col->len / alive + 1, POOL_MIN_CHUNK_BYTES);
		while (first < col->nvalues)
		{
			PoolWorker *w = next_worker(pool);
			int			count = 0;
			uint64		start = col->offsets[first];

			if (w == NULL)
				return;			/* the rest is encoded by finish */
			while (first + count < col->nvalues &&
				   (count == 0 || col->offsets[first + count] - start < chunk_bytes))
				count++;
			send_chunk(pool, w, batch, c, first, count);
			first += count;
		}
	}
}

/* Read every answer for batch; call before gsst_batch_finish. */
void
gsst_encode_pool_collect(GsstEncodePool *pool, GsstBatch *batch)
{
	for (int i = 0; i < pool->nworkers; i++)
	{
		PoolWorker *w = &pool->workers[i];

		if (w->busy && w->chunk.batch == batch)
			receive_chunk(w);
	}
}

/* Let the workers go (their queues detach) and wait until they are gone. */
void
gsst_encode_pool_stop(GsstEncodePool *pool)
{
	if (pool == NULL)
		return;
	for (int i = 0; i < pool->nworkers; i++)
	{
		if (pool->workers[i].to_worker != NULL)
			shm_mq_detach(pool->workers[i].to_worker);
		if (pool->workers[i].from_worker != NULL)
			shm_mq_detach(pool->workers[i].from_worker);
	}
	for (int i = 0; i < pool->nworkers; i++)
		(void) WaitForBackgroundWorkerShutdown(pool->workers[i].handle);
	dsm_detach(pool->seg);
}

/* ---- the workers ---- */

void
gsst_encode_pool_main(Datum main_arg)
{
	dsm_segment *seg;
	shm_toc    *toc;
	int			index;
	shm_mq_handle *from_backend;
	shm_mq_handle *to_backend;
	gsst_encoder *encoder = palloc(sizeof(gsst_encoder));
	uint8	   *table_bytes = palloc(GSST_TABLE_MAX_BYTES);
	uint32		table_len = 0;
	char	   *out = NULL;
	Size		out_cap = 0;

	BackgroundWorkerUnblockSignals();
	CurrentResourceOwner = ResourceOwnerCreate(NULL, "gsst encoder");
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the backend is done already */
	toc = shm_toc_attach(POOL_MAGIC, dsm_segment_address(seg));
	if (toc == NULL)
		elog(ERROR, "gsst encoder: bad shared memory segment");
	memcpy(&index, MyBgworkerEntry->bgw_extra, sizeof(int));
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	{
		shm_mq	   *from = shm_toc_lookup(toc, 2 * index, false);
		shm_mq	   *to = shm_toc_lookup(toc, 2 * index + 1, false);

		shm_mq_set_receiver(from, MyProc);
		shm_mq_set_sender(to, MyProc);
		from_backend = shm_mq_attach(from, seg, NULL);
		to_backend = shm_mq_attach(to, seg, NULL);
	}
	pgstat_report_activity(STATE_RUNNING, "encoding for gsst.load");

	for (;;)
	{
		Size		nbytes;
		void	   *data;
		PoolRequest req;
		GsstToastRule toast;
		const uint8 *table;
		const uint32 *lengths;
		const char *values;
		Size		bound;
		Size		total = 0;
		Size		at = 0;
		size_t		consumed;
		gsst_table	parsed;

		/* the backend detached: it is done, or gone */
		if (shm_mq_receive(from_backend, &nbytes, &data, false) != SHM_MQ_SUCCESS)
			break;
		if (nbytes < sizeof(PoolRequest))
			elog(ERROR, "gsst encoder: request too short");
		memcpy(&req, data, sizeof(req));
		toast.compress_len = req.compress_len;
		toast.method = req.method;
		if (req.table_len == 0 || req.table_len > GSST_TABLE_MAX_BYTES ||
			nbytes != sizeof(PoolRequest) + req.table_len +
			sizeof(uint32) * (Size) req.nvalues + req.data_len)
			elog(ERROR, "gsst encoder: malformed request");
		table = (const uint8 *) data + sizeof(PoolRequest);
		lengths = (const uint32 *) (table + req.table_len);
		values = (const char *) (lengths + req.nvalues);
		for (uint32 i = 0; i < req.nvalues; i++)
			total += lengths[i];
		if (total != req.data_len)
			elog(ERROR, "gsst encoder: malformed request");
		/* the same table as the last request's: its encoder stays */
		if (req.table_len != table_len || memcmp(table, table_bytes, table_len) != 0)
		{
			if (gsst_table_load(&parsed, table, req.table_len, &consumed) != GSST_OK ||
				consumed != req.table_len)
				elog(ERROR, "gsst encoder: invalid table in the request");
			gsst_encoder_init(encoder, &parsed);
			memcpy(table_bytes, table, req.table_len);
			table_len = req.table_len;
		}

		bound = (Size) req.nvalues * (VARHDRSZ + GSST_ENCODE_SLACK + MAXIMUM_ALIGNOF) +
			req.data_len;
		if (bound > out_cap)
		{
			if (out != NULL)
				pfree(out);
			out_cap = bound;
			out = MemoryContextAllocHuge(TopMemoryContext, out_cap);
		}
		for (uint32 i = 0; i < req.nvalues; i++)
		{
			struct varlena *v = (struct varlena *) (out + at);
			Size		size;

			gsst_datum_encode_into(encoder, req.table_id, values, lengths[i], &toast, v);
			values += lengths[i];
			size = VARSIZE(v);
			/* padding of its own: the answer holds nothing but the datums */
			memset((char *) v + size, 0, MAXALIGN(size) - size);
			at += MAXALIGN(size);
			CHECK_FOR_INTERRUPTS();
		}
		if (shm_mq_send(to_backend, at, out, false, true) != SHM_MQ_SUCCESS)
			break;
	}
	proc_exit(0);
}
