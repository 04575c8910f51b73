/*
 * request.c - a backend's side of the gsst worker's protocol.
 *
 * Shared memory holds a ring of request slots (worker_shmem.h).  A backend
 * takes a free slot together with a slice of the batch region
 * (batch_region.h) that no other slot holds (FILLING), lays its request
 * out in the slice, marks the slot SUBMITTED and sets the worker's latch.
 * A rewrite reserves its slice before it reads a batch and gathers the
 * text straight into it, so that handing the batch over copies nothing.
 * The worker marks the slot RUNNING, has the request's tiles written into
 * the slice, and marks the slot DONE or FAILED, then sets the backend's
 * latch.  The backend waits with a timeout, handling interrupts, reads the
 * tiles where they lie and frees the slot, and with it the slice.
 *
 * Nothing leaks and nothing is half applied:
 *	- a request belongs to the resource owner that was current when it was
 *	  made: an error or cancel releases it with that owner, and exit
 *	  releases whatever is left.  Releasing gives the slot up: a RUNNING
 *	  slot becomes ABANDONED, and the worker frees it, slice and all, when
 *	  it is done with it;
 *	- a backend that times out gives the slot up the same way and encodes
 *	  the batch itself; one whose text lies in the slice keeps the slot
 *	  until it has encoded that text, and gives it up then;
 *	- a worker that exits fails every slot it has not answered, so waiting
 *	  backends fall back at once; the postmaster starts it again;
 *	- results are used only when the slot says DONE; a tile that does not
 *	  match its batch is thrown away and the batch encoded on the CPU.
 */
#include "worker/request.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "worker/batch_region.h"
#include "worker/worker.h"
#include "worker/worker_shmem.h"

struct GsstRequest
{
	int			slot;			/* -1 once given up */
	int			nparts;
	uint64		request_id;
	char	   *base;			/* the slice, in this process's mapping */
	Size		len;
	ResourceOwner owner;		/* releases it on error */
	TimestampTz submitted;
	bool		reserved;		/* the caller gathers a part's text in the slice */
	Size		data_cap;		/* reserved: bytes of text the slice takes */
	int			max_values;		/* reserved: values it takes */
	GsstRequest *next;			/* this backend's requests */
};

/* The requests this backend holds, for release on error and at exit. */
static GsstRequest *requests = NULL;
static bool cleanup_registered = false;

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

/* Whether the slot still holds this backend's request (caller holds the lock). */
static inline bool
slot_is_ours(const RequestSlot *slot, const GsstRequest *req)
{
	return slot->request_id == req->request_id && slot->backend_pid == MyProcPid;
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
	if (slot_is_ours(slot, req))
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
 * Stop waiting for a reserved request but keep its slice, whose text the
 * backend encodes next: a slot the worker has not taken is ours again
 * (FILLING); one it runs stays RUNNING, the helper only reading the text,
 * until the release gives it up.
 */
static void
take_back_reserved(GsstRequest *req)
{
	RequestSlot *slot = &gsst_worker_shared->slots[req->slot];

	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	if (slot_is_ours(slot, req) && slot->state == SLOT_SUBMITTED)
		slot->state = SLOT_FILLING;
	LWLockRelease(gsst_worker_shared->lock);
}

/* Let the request go: its slot and slice are no longer ours. */
void
gsst_request_release(GsstRequest *req)
{
	GsstRequest **link;

	if (req == NULL)
		return;
	give_up_slot(req);
	for (link = &requests; *link != NULL; link = &(*link)->next)
		if (*link == req)
		{
			*link = req->next;
			break;
		}
	pfree(req);
}

/* An owner is being released: so are the requests made under it. */
static void
release_owned_requests(ResourceReleasePhase phase, bool isCommit,
					   bool isTopLevel, void *arg)
{
	GsstRequest *req = requests;

	if (phase != RESOURCE_RELEASE_BEFORE_LOCKS)
		return;
	while (req != NULL)
	{
		GsstRequest *next = req->next;

		if (req->owner == CurrentResourceOwner)
		{
			if (isCommit)
				elog(WARNING, "gsst: a batch request was not released");
			gsst_request_release(req);
		}
		req = next;
	}
}

static void
release_all_requests(int code, Datum arg)
{
	while (requests != NULL)
		gsst_request_release(requests);
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
 * Where a slice of size bytes fits among the slices the slots hold, or
 * -1.  Caller holds the lock.
 */
static int64
find_slice(Size size, Size region_size)
{
	uint64		at = 0;
	bool		moved = true;

	while (moved)
	{
		moved = false;
		if (at + size > region_size)
			return -1;
		for (int i = 0; i < GSST_WORKER_SLOTS; i++)
		{
			const RequestSlot *slot = &gsst_worker_shared->slots[i];

			if (slot->state != SLOT_FREE &&
				at < slot->region_off + slot->region_len && slot->region_off < at + size)
			{
				at = TYPEALIGN(GSST_REGION_ALIGN, slot->region_off + slot->region_len);
				moved = true;
			}
		}
	}
	return (int64) at;
}

/*
 * A free slot and a slice of size bytes for this backend, FILLING (ours
 * alone: the worker does not look at it), or NULL when the worker cannot
 * take a request now (none running, no GPU, no free slot, no room in the
 * batch region).  Never waits.
 */
static GsstRequest *
take_slot(Size size)
{
	Size		region_size = gsst_batch_region_size();
	char	   *region;
	int64		slice = -1;
	GsstRequest *req;
	RequestSlot *slot;
	int			slotno = -1;

	if (!gsst_gpu_enabled || gsst_worker_shared == NULL || region_size == 0)
		return NULL;
	/* unlocked peek; the decision is made again under the lock */
	if (gsst_worker_shared->worker_pid == 0 || !gsst_worker_shared->accepting)
		return NULL;
	size = TYPEALIGN(GSST_REGION_ALIGN, size);
	if (size > region_size || (region = gsst_batch_region_map()) == NULL)
		return NULL;

	if (!cleanup_registered)
	{
		RegisterResourceReleaseCallback(release_owned_requests, NULL);
		before_shmem_exit(release_all_requests, (Datum) 0);
		cleanup_registered = true;
	}
	req = MemoryContextAllocZero(TopMemoryContext, sizeof(GsstRequest));

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
		if (slotno >= 0)
			slice = find_slice(size, region_size);
	}
	if (slice >= 0)
	{
		slot = &gsst_worker_shared->slots[slotno];
		slot->state = SLOT_FILLING;
		slot->request_id = ++gsst_worker_shared->next_request_id;
		slot->region_off = (uint64) slice;
		slot->region_len = size;
		slot->backend_procno = gsst_my_procno();
		slot->backend_pid = MyProcPid;
		req->slot = slotno;
		req->request_id = slot->request_id;
	}
	LWLockRelease(gsst_worker_shared->lock);
	if (slice < 0)
	{
		pfree(req);
		return NULL;
	}
	req->base = region + slice;
	req->len = size;
	req->owner = CurrentResourceOwner;
	req->next = requests;
	requests = req;
	return req;
}

/* Bytes a part takes after its text: table, offsets and tile. */
static uint64
part_tail_bytes(Size table_len, int nvalues, Size len)
{
	uint64		at = align16(table_len);

	at = align16(at + sizeof(uint64) * (nvalues + 1));
	return align16(at + gsst_tile_bound(nvalues, len, GSST_DEFAULT_SPLIT_BYTES));
}

/* Where a request of nparts parts lays out its first part, after the header. */
static uint64
parts_start(int nparts)
{
	return align16(offsetof(RequestHeader, parts) + sizeof(RequestPart) * nparts);
}

/*
 * Lay a part out in the request's slice at at, its text at data_at (where
 * it is copied unless it already lies there); returns where the part
 * ends.
 */
static uint64
lay_out_part(GsstRequest *req, int p, const GsstRequestPart *in, uint64 data_at, uint64 at)
{
	char	   *base = req->base;
	RequestPart *part = &((RequestHeader *) base)->parts[p];

	memset(part, 0, sizeof(RequestPart));
	part->column = p;
	part->nvalues = in->nvalues;
	part->raw_bytes = in->len;
	part->data_off = data_at;
	if (in->data != base + data_at)
		memcpy(base + data_at, in->data, in->len);
	part->table_off = at;
	part->table_len = in->table_len;
	memcpy(base + at, in->table, in->table_len);
	at = align16(at + in->table_len);
	part->offsets_off = at;
	memcpy(base + at, in->offsets, sizeof(uint64) * (in->nvalues + 1));
	at = align16(at + sizeof(uint64) * (in->nvalues + 1));
	part->tile_off = at;
	part->tile_cap = gsst_tile_bound(in->nvalues, in->len, GSST_DEFAULT_SPLIT_BYTES);
	return align16(at + part->tile_cap);
}

/* Fill in the header; the slot stays FILLING until submit_slot. */
static void
write_header(GsstRequest *req, int nparts)
{
	RequestHeader *hdr = (RequestHeader *) req->base;

	memset(hdr, 0, offsetof(RequestHeader, parts));
	hdr->magic = GSST_REQUEST_MAGIC;
	hdr->nparts = nparts;
	hdr->request_id = req->request_id;
	hdr->status = -1;
	req->nparts = nparts;
}

/*
 * Hand the laid out request to the worker; false (the slot still FILLING,
 * still ours) when the worker stopped taking requests meanwhile.
 */
static bool
submit_slot(GsstRequest *req)
{
	bool		accepting;

	/* the slot stays ours while FILLING: neither the worker nor others touch it */
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	accepting = gsst_worker_shared->worker_pid != 0 && gsst_worker_shared->accepting;
	if (accepting)
	{
		pg_write_barrier();
		gsst_worker_shared->slots[req->slot].state = SLOT_SUBMITTED;
	}
	LWLockRelease(gsst_worker_shared->lock);
	if (!accepting)
		return false;
	req->submitted = GetCurrentTimestamp();
	wake_worker();
	return true;
}

/*
 * Hand parts (each a column's values and table) to the worker.  Returns
 * NULL when the worker cannot take them now (none running, no GPU, no free
 * slot, no room in the batch region): then the caller encodes on the CPU.
 * Never waits.
 */
GsstRequest *
gsst_request_submit(const GsstRequestPart *parts, int nparts)
{
	uint64		at;
	uint64		data_at;
	GsstRequest *req;

	if (nparts == 0)
		return NULL;
	/* each part's text, then its table, offsets and tile */
	at = parts_start(nparts);
	for (int p = 0; p < nparts; p++)
		at = align16(at + parts[p].len) +
			part_tail_bytes(parts[p].table_len, parts[p].nvalues, parts[p].len);
	req = take_slot(at);
	if (req == NULL)
		return NULL;

	write_header(req, nparts);
	at = parts_start(nparts);
	for (int p = 0; p < nparts; p++)
	{
		data_at = at;
		at = lay_out_part(req, p, &parts[p], data_at, align16(data_at + parts[p].len));
	}
	if (!submit_slot(req))
	{
		gsst_request_release(req);
		return NULL;
	}
	return req;
}

/*
 * A slice for one part of up to data_cap bytes of text in up to
 * max_values values, whose text the caller gathers straight into it
 * (gsst_request_data) and hands over with gsst_request_submit_reserved:
 * the text is then never copied.  The slice stays the caller's until it
 * releases the request, whatever the worker does: gsst_request_wait
 * keeps it when it gives up, so that the caller can encode the text where
 * it lies.  NULL when the worker cannot take a request now.
 */
GsstRequest *
gsst_request_reserve(Size data_cap, int max_values)
{
	GsstRequest *req;

	req = take_slot(parts_start(1) + align16(data_cap) +
					part_tail_bytes(GSST_TABLE_MAX_BYTES, max_values, data_cap));
	if (req == NULL)
		return NULL;
	req->reserved = true;
	req->data_cap = data_cap;
	req->max_values = max_values;
	return req;
}

/* Where a reserved request's text goes, and how many bytes fit. */
char *
gsst_request_data(GsstRequest *req, Size *cap)
{
	Assert(req->reserved);
	*cap = req->data_cap;
	return req->base + parts_start(1);
}

/*
 * Hand a reserved request to the worker, its one part's text already in
 * the slice.  False when the part does not fit what was reserved or the
 * worker stopped taking requests: the slice is still the caller's.
 */
bool
gsst_request_submit_reserved(GsstRequest *req, const GsstRequestPart *part)
{
	uint64		data_at = parts_start(1);

	Assert(req->reserved && req->slot >= 0);
	if (part->data != req->base + data_at || part->len > req->data_cap ||
		part->nvalues > req->max_values || part->table_len > GSST_TABLE_MAX_BYTES ||
		data_at + align16(part->len) +
		part_tail_bytes(part->table_len, part->nvalues, part->len) > req->len)
		return false;
	write_header(req, 1);
	(void) lay_out_part(req, 0, part, data_at, data_at + align16(part->len));
	return submit_slot(req);
}

/*
 * Requests a submitted one may wait behind before its backend encodes it
 * instead.  The GPU answers a batch in a few milliseconds, where a backend
 * takes about ten times as long to encode it; the worker's CPU is no
 * faster than the backend's.
 */
#define QUEUE_AHEAD_GPU		4
#define QUEUE_AHEAD_CPU		1

/*
 * Whether the worker has so many requests before this one (running, or
 * submitted earlier) that encoding it here is sooner.  Caller holds the
 * lock.
 */
static bool
queue_too_long(uint64 request_id)
{
	int			ahead = 0;
	int			most = gsst_worker_shared->gpu_ready ? QUEUE_AHEAD_GPU : QUEUE_AHEAD_CPU;

	for (int i = 0; i < GSST_WORKER_SLOTS; i++)
	{
		const RequestSlot *slot = &gsst_worker_shared->slots[i];

		if (slot->state == SLOT_RUNNING || slot->state == SLOT_ABANDONED ||
			(slot->state == SLOT_SUBMITTED && slot->request_id < request_id))
			ahead++;
	}
	return ahead >= most;
}

/*
 * Wait for the worker's answer.  Returns true when the worker encoded every
 * part (gsst_request_tile gives the tiles), false when the caller must
 * encode on the CPU instead: the worker failed, exited or timed out (the
 * fallback is counted), or it had not taken the request yet while too
 * many were before it: the worker serves one batch at a time, so encoding
 * it here is then sooner, and leaves the worker to the batches it has.
 * Interrupts are handled while waiting; an error leaves the request to
 * its resource owner's release.
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
		ours = slot_is_ours(slot, req);
		if (!ours)
			state = SLOT_FAILED;	/* cannot happen; do not trust the slot */
		else
			state = slot->state;
		if (!ours)
			req->slot = -1;
		/* DONE and FAILED slots stay ours, slice and all, until released */
		else if (state == SLOT_SUBMITTED && queue_too_long(req->request_id))
		{
			/* the worker never saw it; a reserved slice stays ours */
			if (req->reserved)
				slot->state = SLOT_FILLING;
			else
			{
				slot->state = SLOT_FREE;
				req->slot = -1;
			}
			withdrawn = true;
		}
		LWLockRelease(gsst_worker_shared->lock);
		if (!ours && req->reserved)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gsst: another process took the batch region slice of a request")));
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
			if (req->reserved)
				take_back_reserved(req);
			else
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
	hdr = (RequestHeader *) req->base;
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
	RequestHeader *hdr = (RequestHeader *) req->base;
	Size		seglen = req->len;
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
