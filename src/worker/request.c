/*
 * request.c - a backend's side of the gsst worker's protocol.
 *
 * Shared memory holds a ring of request slots (worker_shmem.h).  A backend
 * puts a request into a DSM segment of its own, takes a free slot
 * (SUBMITTED) and sets the worker's latch.  The worker marks the slot
 * RUNNING, attaches the segment, writes one tile per part into it and marks
 * the slot DONE or FAILED, then sets the backend's latch.  The backend
 * waits with a timeout, handling interrupts, and frees the slot when it has
 * read the answer.
 *
 * Nothing leaks and nothing is half applied:
 *	- the backend owns the segment through its resource owner; whenever it
 *	  detaches (after reading the answer, on error or cancel, at exit), a
 *	  detach callback gives the slot up: a RUNNING slot becomes ABANDONED and
 *	  the worker frees it when it is done, so the segment dies with the
 *	  worker's own detach;
 *	- a backend that times out gives the slot up the same way and encodes
 *	  the batch itself;
 *	- a worker that exits fails every slot it has not answered, so waiting
 *	  backends fall back at once; the postmaster starts it again;
 *	- results are used only when the slot says DONE; a tile that does not
 *	  match its batch is thrown away and the batch encoded on the CPU.
 */
#include "worker/request.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "worker/worker.h"
#include "worker/worker_shmem.h"

struct GsstRequest
{
	int			slot;			/* -1 once given up */
	int			nparts;
	uint64		request_id;
	dsm_segment *seg;
	TimestampTz submitted;
	bool		answered;		/* the worker is done with seg */
};

/*
 * Segments of answered requests, kept for the next ones of the same bulk
 * operation: a new segment's pages are faulted in and zeroed by the kernel
 * as the batch is copied in, which costs more than the copy.  Two, as a
 * bulk path has two batches in flight.  gsst_request_release_spares lets
 * them go at the end of the operation; an error detaches them with their
 * resource owner, and spare_detached forgets them then.
 */
#define MAX_SPARES		2
static dsm_segment *spares[MAX_SPARES];

/* Room a new segment gets beyond its first request's, for the next ones. */
#define SEGMENT_HEADROOM(size)	((size) / 8)

static inline uint64
align16(uint64 n)
{
	return (n + 15) & ~(uint64) 15;
}

static void
wake_worker(void)
{
	int			procno = gsst_worker_shared->worker_procno;

	if (procno >= 0)
		SetLatch(&ProcGlobal->allProcs[procno].procLatch);
}

static void
spare_detached(dsm_segment *seg, Datum arg)
{
	for (int i = 0; i < MAX_SPARES; i++)
		if (spares[i] == seg)
			spares[i] = NULL;
}

/* A kept segment of at least size bytes, or NULL. */
static dsm_segment *
take_spare(Size size)
{
	for (int i = 0; i < MAX_SPARES; i++)
	{
		dsm_segment *seg = spares[i];

		if (seg != NULL && dsm_segment_map_length(seg) >= size)
		{
			spares[i] = NULL;
			cancel_on_dsm_detach(seg, spare_detached, (Datum) 0);
			return seg;
		}
	}
	return NULL;
}

/* Keep seg for a later request, or detach it when two are kept. */
static void
keep_spare(dsm_segment *seg)
{
	for (int i = 0; i < MAX_SPARES; i++)
		if (spares[i] == NULL)
		{
			spares[i] = seg;
			on_dsm_detach(seg, spare_detached, (Datum) 0);
			return;
		}
	dsm_detach(seg);
}

/* The bulk operation is done: detach the segments kept for it. */
void
gsst_request_release_spares(void)
{
	for (int i = 0; i < MAX_SPARES; i++)
		if (spares[i] != NULL)
			dsm_detach(spares[i]);	/* spare_detached clears the entry */
}

/*
 * The segment is going away (answer read, error, cancel, exit): give the
 * slot up if it is still ours.
 */
static void
request_detach_callback(dsm_segment *seg, Datum arg)
{
	GsstRequest *req = (GsstRequest *) DatumGetPointer(arg);

	if (req->slot >= 0 && gsst_worker_shared != NULL)
	{
		RequestSlot *slot = &gsst_worker_shared->slots[req->slot];

		LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
		if (slot->request_id == req->request_id && slot->backend_pid == MyProcPid &&
			slot->state != SLOT_FREE)
		{
			if (slot->state == SLOT_RUNNING)
			{
				slot->state = SLOT_ABANDONED;
				gsst_worker_shared->abandoned_batches++;
			}
			else
				slot->state = SLOT_FREE;
		}
		LWLockRelease(gsst_worker_shared->lock);
		req->slot = -1;
	}
	pfree(req);
}

/*
 * This backend encoded a batch itself after handing it to the worker; a
 * bad answer (tiles that do not match the batch) counts as an error too.
 */
void
gsst_request_count_fallback(bool bad_answer)
{
	if (gsst_worker_shared == NULL)
		return;
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	gsst_worker_shared->backend_fallbacks++;
	if (bad_answer)
		gsst_worker_shared->errors++;
	LWLockRelease(gsst_worker_shared->lock);
}

/*
 * A segment for a batch, or NULL when none can be had: out of DSM slots, or
 * out of memory for it (a full /dev/shm raises an error, which we catch in a
 * subtransaction: no memory for the GPU path, or for encoder workers, is a
 * reason to encode in this backend, not to fail the load).  The segment
 * belongs to the caller's resource owner, so an error or cancel later
 * detaches it.
 */
dsm_segment *
gsst_try_dsm_create(Size size)
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
 * Hand parts (each a column's values and table) to the worker.  Returns
 * NULL when the worker cannot take them now (none running, no GPU, no free
 * slot, no segment): then the caller encodes on the CPU.  Never waits.
 */
GsstRequest *
gsst_request_submit(const GsstRequestPart *parts, int nparts)
{
	Size		size;
	dsm_segment *seg;
	RequestHeader *hdr;
	char	   *base;
	uint64		at;
	GsstRequest *req;
	int			slotno = -1;

	if (!gsst_gpu_enabled || gsst_worker_shared == NULL || nparts == 0)
		return NULL;
	/* unlocked peek; the decision is made again under the lock */
	if (gsst_worker_shared->worker_pid == 0 || !gsst_worker_shared->accepting)
		return NULL;

	/* lay the segment out */
	at = align16(offsetof(RequestHeader, parts) + sizeof(RequestPart) * nparts);
	for (int p = 0; p < nparts; p++)
	{
		at = align16(at + parts[p].table_len);
		at = align16(at + sizeof(uint64) * (parts[p].nvalues + 1));
		at = align16(at + parts[p].len);
		at = align16(at + gsst_tile_bound(parts[p].nvalues, parts[p].len,
										  GSST_DEFAULT_SPLIT_BYTES));
	}
	size = at;

	seg = take_spare(size);
	if (seg == NULL)
		seg = gsst_try_dsm_create(size + SEGMENT_HEADROOM(size));
	if (seg == NULL)
		return NULL;
	req = MemoryContextAllocZero(TopMemoryContext, sizeof(GsstRequest));
	req->slot = -1;
	req->seg = seg;
	req->nparts = nparts;
	on_dsm_detach(seg, request_detach_callback, PointerGetDatum(req));

	base = dsm_segment_address(seg);
	hdr = (RequestHeader *) base;
	memset(hdr, 0, offsetof(RequestHeader, parts));
	hdr->magic = GSST_REQUEST_MAGIC;
	hdr->nparts = nparts;
	hdr->status = -1;
	at = align16(offsetof(RequestHeader, parts) + sizeof(RequestPart) * nparts);
	for (int p = 0; p < nparts; p++)
	{
		const GsstRequestPart *in = &parts[p];
		RequestPart *part = &hdr->parts[p];

		memset(part, 0, sizeof(RequestPart));
		part->column = p;
		part->nvalues = in->nvalues;
		part->raw_bytes = in->len;
		part->table_off = at;
		part->table_len = in->table_len;
		memcpy(base + at, in->table, in->table_len);
		at = align16(at + in->table_len);
		part->offsets_off = at;
		memcpy(base + at, in->offsets, sizeof(uint64) * (in->nvalues + 1));
		at = align16(at + sizeof(uint64) * (in->nvalues + 1));
		part->data_off = at;
		memcpy(base + at, in->data, in->len);
		at = align16(at + in->len);
		part->tile_off = at;
		part->tile_cap = gsst_tile_bound(in->nvalues, in->len, GSST_DEFAULT_SPLIT_BYTES);
		at = align16(at + part->tile_cap);
	}

	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	if (gsst_worker_shared->worker_pid != 0 && gsst_worker_shared->accepting)
	{
		for (int i = 0; i < GSST_WORKER_SLOTS; i++)
		{
			if (gsst_worker_shared->slots[i].state == SLOT_FREE)
			{
				slotno = i;
				break;
			}
		}
	}
	if (slotno >= 0)
	{
		RequestSlot *slot = &gsst_worker_shared->slots[slotno];

		slot->request_id = ++gsst_worker_shared->next_request_id;
		slot->handle = dsm_segment_handle(seg);
		slot->backend_procno = gsst_my_procno();
		slot->backend_pid = MyProcPid;
		/* the worker checks the id before it trusts the segment */
		hdr->request_id = slot->request_id;
		pg_write_barrier();
		slot->state = SLOT_SUBMITTED;
		req->slot = slotno;
		req->request_id = slot->request_id;
	}
	LWLockRelease(gsst_worker_shared->lock);

	if (slotno < 0)
	{
		dsm_detach(seg);		/* frees req */
		return NULL;
	}
	req->submitted = GetCurrentTimestamp();
	wake_worker();
	return req;
}

/* Give the slot up (the answer is read, or we stop waiting). */
static void
give_up_slot(GsstRequest *req)
{
	RequestSlot *slot;

	if (req->slot < 0)
		return;
	slot = &gsst_worker_shared->slots[req->slot];
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	if (slot->request_id == req->request_id && slot->backend_pid == MyProcPid)
	{
		if (slot->state == SLOT_RUNNING)
		{
			slot->state = SLOT_ABANDONED;
			gsst_worker_shared->abandoned_batches++;
		}
		else if (slot->state != SLOT_FREE)
			slot->state = SLOT_FREE;
	}
	LWLockRelease(gsst_worker_shared->lock);
	req->slot = -1;
}

/*
 * Let the request go.  Its segment is kept for the next request when the
 * worker answered (it never touches a segment after that); else detached,
 * and req is freed by the detach callback.
 */
void
gsst_request_release(GsstRequest *req)
{
	dsm_segment *seg;

	if (req == NULL)
		return;
	give_up_slot(req);
	seg = req->seg;
	if (req->answered)
	{
		cancel_on_dsm_detach(seg, request_detach_callback, PointerGetDatum(req));
		pfree(req);
		keep_spare(seg);
	}
	else
		dsm_detach(seg);
}

/* Is the worker encoding some batch now?  Caller holds the lock. */
static bool
worker_busy(void)
{
	for (int i = 0; i < GSST_WORKER_SLOTS; i++)
	{
		if (gsst_worker_shared->slots[i].state == SLOT_RUNNING ||
			gsst_worker_shared->slots[i].state == SLOT_ABANDONED)
			return true;
	}
	return false;
}

/*
 * Wait for the worker's answer.  Returns true when the worker encoded every
 * part (gsst_request_tile gives the tiles), false when the caller must
 * encode on the CPU instead: the worker failed, exited or timed out (the
 * fallback is counted), or it had not taken the request yet while busy
 * with another batch.  The worker serves one batch at a time, so a request
 * queued behind others would wait for all of them: encoding it here is
 * sooner, and leaves the worker to the batches it already has.
 * Interrupts are handled while waiting; an error leaves the slot to the
 * detach callback.
 */
bool
gsst_request_wait(GsstRequest *req)
{
	RequestSlot *slot = &gsst_worker_shared->slots[req->slot];
	TimestampTz deadline = TimestampTzPlusMilliseconds(req->submitted,
													   gsst_worker_timeout_ms);
	SlotState	state;
	RequestHeader *hdr;

	for (;;)
	{
		long		remaining;
		bool		ours;
		bool		withdrawn = false;

		LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
		ours = slot->request_id == req->request_id && slot->backend_pid == MyProcPid;
		if (!ours)
			state = SLOT_FAILED;	/* cannot happen; do not trust the slot */
		else
			state = slot->state;
		if (state == SLOT_DONE || state == SLOT_FAILED)
		{
			if (slot->request_id == req->request_id)
				slot->state = SLOT_FREE;
			req->slot = -1;
			/* the worker set it so: it is done with the segment */
			req->answered = ours;
		}
		else if (state == SLOT_SUBMITTED && worker_busy())
		{
			slot->state = SLOT_FREE;
			req->slot = -1;
			/* the worker never saw the segment: it can be used again */
			req->answered = true;
			withdrawn = true;
		}
		LWLockRelease(gsst_worker_shared->lock);
		if (withdrawn)
			return false;
		if (state == SLOT_DONE || state == SLOT_FAILED)
			break;

		remaining = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (remaining <= 0)
		{
			ereport(DEBUG1,
					(errmsg("gsst worker did not answer within %d ms; encoding the batch in this backend",
							gsst_worker_timeout_ms)));
			give_up_slot(req);
			gsst_request_count_fallback(false);
			return false;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(remaining, 1000L), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}

	if (state != SLOT_DONE)
	{
		gsst_request_count_fallback(false);
		return false;
	}
	hdr = (RequestHeader *) dsm_segment_address(req->seg);
	pg_read_barrier();
	if (hdr->magic != GSST_REQUEST_MAGIC || hdr->request_id != req->request_id ||
		hdr->status != 0 || hdr->nparts != (uint32) req->nparts)
	{
		ereport(WARNING,
				(errmsg("gsst worker returned an answer that does not match the request; encoding the batch in this backend")));
		gsst_request_count_fallback(true);
		return false;
	}
	return true;
}

/*
 * The tile the worker wrote for a part, or NULL when its place in the
 * segment is not sound (the caller then encodes the batch itself).
 */
const uint8 *
gsst_request_tile(GsstRequest *req, int part, Size *len)
{
	RequestHeader *hdr = (RequestHeader *) dsm_segment_address(req->seg);
	Size		seglen = dsm_segment_map_length(req->seg);
	RequestPart *p;

	if (part < 0 || part >= req->nparts)
		return NULL;
	p = &hdr->parts[part];
	if (p->column != part || p->tile_len > p->tile_cap ||
		p->tile_off > seglen || p->tile_cap > seglen - p->tile_off)
		return NULL;
	*len = p->tile_len;
	return (const uint8 *) hdr + p->tile_off;
}
