/*
 * worker_shmem.h - what the gsst worker and the backends share: a ring of
 * request slots in shared memory, and the layout of a request in its slice
 * of the batch region (batch_region.h).  request.c is the backends' side,
 * worker.c the worker's.
 */
#ifndef GSST_WORKER_SHMEM_H
#define GSST_WORKER_SHMEM_H

#include "base/gsst.h"

#include "datatype/timestamp.h"
#include "storage/lwlock.h"
#include "storage/proc.h"

/* enough for 32 parallel workers with two batches each in flight */
#define GSST_WORKER_SLOTS		64
#define GSST_REQUEST_MAGIC		0x51525347u	/* "GSRQ" */
#define GSST_ERROR_LEN			256

typedef enum SlotState
{
	SLOT_FREE = 0,
	SLOT_FILLING,				/* the backend lays its request out */
	SLOT_SUBMITTED,				/* waiting for the worker */
	SLOT_RUNNING,				/* the worker has it */
	SLOT_DONE,					/* answered: tiles are in the slice */
	SLOT_FAILED,				/* answered: encode on the CPU */
	SLOT_ABANDONED				/* the backend left; the worker frees it */
} SlotState;

typedef struct RequestSlot
{
	SlotState	state;
	uint64		request_id;
	uint64		region_off;		/* the request's slice of the batch region, */
	uint64		region_len;		/* held while the slot is not FREE */
	int			backend_procno;
	pid_t		backend_pid;
} RequestSlot;

typedef struct WorkerShared
{
	LWLock	   *lock;
	pid_t		worker_pid;		/* 0 while no worker runs */
	int			worker_procno;
	bool		accepting;		/* takes requests (GPU ready, or CPU mode) */
	bool		gpu_ready;
	int			starts;
	TimestampTz started_at;
	uint64		next_request_id;
	char		device[GSST_ERROR_LEN];
	char		library[MAXPGPATH];
	char		cpu_reason[GSST_ERROR_LEN];	/* why there is no GPU, in plain words */
	bool		cpu_reason_told;	/* logged once since the server started */
	char		last_error[GSST_ERROR_LEN];	/* the last real failure */
	uint64		gpu_batches;
	uint64		cpu_batches;
	uint64		failed_batches;
	uint64		abandoned_batches;
	uint64		backend_fallbacks;
	uint64		bytes_in;
	uint64		bytes_out;
	uint64		errors;
	pid_t		helper_pid;		/* the GPU helper; 0 while none runs */
	int			helper_starts;	/* helpers that opened the GPU */
	uint64		helper_failures;	/* helpers that died, hung or broke */
	RequestSlot slots[GSST_WORKER_SLOTS];
} WorkerShared;

/* One column of a request, as laid out in its slice; offsets from its start. */
typedef struct RequestPart
{
	uint64		nvalues;
	uint64		raw_bytes;
	uint64		table_off;
	uint64		table_len;
	uint64		offsets_off;	/* nvalues + 1 uint64, starting at 0 */
	uint64		data_off;
	uint64		tile_off;
	uint64		tile_cap;
	uint64		tile_len;		/* written by the worker */
	int32		column;			/* index into the batch's columns */
	int32		pad;
} RequestPart;

typedef struct RequestHeader
{
	uint32		magic;
	uint32		nparts;
	uint64		request_id;
	int32		status;			/* written by the worker: 0 = tiles are good */
	bool		on_gpu;
	char		error[GSST_ERROR_LEN];
	RequestPart parts[FLEXIBLE_ARRAY_MEMBER];
} RequestHeader;

/* in shared memory; NULL unless gsst was preloaded (worker.c) */
extern WorkerShared *gsst_worker_shared;

/* MyProc's index in ProcGlobal->allProcs (PGPROC.pgprocno until 17). */
static inline int
gsst_my_procno(void)
{
	return (int) (MyProc - ProcGlobal->allProcs);
}

#endif							/* GSST_WORKER_SHMEM_H */
