/*
 * worker.c - the gsst background worker.
 *
 * A static background worker (started from shared_preload_libraries, no
 * database connection) encodes batches of values for the bulk paths.  The
 * GPU is held by a helper process the worker starts (gpu_helper.c): the
 * only process that loads gsst_gpu.so, and one outside PostgreSQL's shared
 * memory, so that a crash in the CUDA driver, the OOM killer or a kill -9
 * costs one batch (encoded on the CPU instead) and never the cluster.  The
 * worker restarts a helper that died, waiting longer after each failure.
 *
 * Backends hand it requests through a ring of slots in shared memory
 * (worker_shmem.h; their side is request.c).  It serves them oldest first,
 * writing one tile per part into the request's slice of the batch region.
 */
#include "worker/worker.h"

#include <errno.h>
#include <unistd.h>

#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "gsst_gpu.h"
#include "worker/batch_region.h"
#include "worker/gpu_helper.h"
#include "worker/worker_shmem.h"

#define GSST_WORKER_LOCK_NAME	"gsst worker"
#define GSST_HELPER_NAME		"gsst_gpu_helper"
/* restarts of a helper that died: 1 s, doubling up to a minute */
#define HELPER_BACKOFF_MIN_MS	1000
#define HELPER_BACKOFF_MAX_MS	(60 * 1000)
/* opening a CUDA context can take seconds: a short gsst.worker_timeout,
 * meant for batches, must not kill every helper before it is up */
#define HELPER_OPEN_MIN_MS		(60 * 1000)

/* GUCs */
bool		gsst_gpu_enabled = true;
int			gsst_gpu_device = 0;
int			gsst_batch_bytes = 16 * 1024 * 1024;
int			gsst_worker_timeout_ms = 60 * 1000;
static char *gsst_gpu_library = NULL;
static bool gsst_worker_cpu = false;
static int	gsst_worker_delay_ms = 0;

WorkerShared *gsst_worker_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* ---- shared memory ---- */

static void
gsst_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(WorkerShared)));
	RequestNamedLWLockTranche(GSST_WORKER_LOCK_NAME, 1);
}

static void
gsst_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gsst_worker_shared = ShmemInitStruct("gsst worker", sizeof(WorkerShared), &found);
	if (!found)
	{
		memset(gsst_worker_shared, 0, sizeof(WorkerShared));
		gsst_worker_shared->lock = &(GetNamedLWLockTranche(GSST_WORKER_LOCK_NAME))->lock;
		gsst_worker_shared->worker_procno = -1;
	}
	LWLockRelease(AddinShmemInitLock);
	gsst_batch_region_create();
}

/* ---- GUCs and registration (from _PG_init) ---- */

/* Returns the number of static background workers it registered. */
int
gsst_worker_init(void)
{
	BackgroundWorker bgw;

	DefineCustomBoolVariable("gsst.gpu",
							 "Sends the batches of bulk paths to the gsst worker, which encodes them on the GPU.",
							 "Off: bulk paths encode in the backend, on the CPU.  In the server's configuration, off also keeps the worker from initialising CUDA.",
							 &gsst_gpu_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gsst.gpu_device",
							"CUDA device the gsst worker encodes on.",
							NULL,
							&gsst_gpu_device,
							0, 0, 1024,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);
	DefineCustomStringVariable("gsst.gpu_library",
							   "Path of the GPU library the gsst worker loads.",
							   "$libdir stands for the package library directory.",
							   &gsst_gpu_library,
							   "$libdir/gsst_gpu.so",
							   PGC_SIGHUP,
							   GUC_SUPERUSER_ONLY,
							   NULL, NULL, NULL);
	DefineCustomIntVariable("gsst.batch_bytes",
							"Bytes of text a bulk path gathers into one batch.",
							NULL,
							&gsst_batch_bytes,
							16 * 1024 * 1024, 64 * 1024, 512 * 1024 * 1024,
							PGC_USERSET,
							GUC_UNIT_BYTE,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gsst.worker_timeout",
							"How long a backend waits for the gsst worker before it encodes a batch itself.",
							NULL,
							&gsst_worker_timeout_ms,
							60 * 1000, 10, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("gsst.worker_cpu",
							 "Lets the gsst worker encode batches on its own CPU when it has no GPU.",
							 "The backend then reads and writes while the worker encodes; used by the tests.",
							 &gsst_worker_cpu,
							 false,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gsst.worker_delay",
							"Milliseconds the gsst worker waits before it answers a batch (for tests).",
							NULL,
							&gsst_worker_delay_ms,
							0, 0, 600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	if (!process_shared_preload_libraries_in_progress)
		return 0;
	/* a PGC_POSTMASTER setting: defined only where the postmaster reads it */
	gsst_batch_region_define_guc();

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = gsst_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = gsst_shmem_startup;

	memset(&bgw, 0, sizeof(bgw));
	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS;
	bgw.bgw_start_time = BgWorkerStart_PostmasterStart;
	bgw.bgw_restart_time = 1;
	snprintf(bgw.bgw_library_name, BGW_MAXLEN, "gsst");
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "gsst_worker_main");
	snprintf(bgw.bgw_name, BGW_MAXLEN, "gsst worker");
	snprintf(bgw.bgw_type, BGW_MAXLEN, "gsst worker");
	RegisterBackgroundWorker(&bgw);
	return 1;
}

/* ---- the worker ---- */

static gsst_encoder *cpu_encoder = NULL;

/* The GPU helper, as the worker manages it. */
static bool helper_blocked = false;	/* not to be started until a reload */
static char *helper_library = NULL;	/* the library the running helper loaded */
static int	helper_device = -1;
static TimestampTz helper_next_start = 0;
static int	helper_backoff_ms = HELPER_BACKOFF_MIN_MS;
static bool region_failure_told = false;

/* A real failure: a broken library, a CUDA error.  Logged each time. */
static void
set_last_error(const char *msg)
{
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	strlcpy(gsst_worker_shared->last_error, msg, sizeof(gsst_worker_shared->last_error));
	LWLockRelease(gsst_worker_shared->lock);
	ereport(WARNING,
			(errmsg("gsst worker: %s; bulk paths encode on the CPU", msg)));
}

/*
 * No GPU, for an ordinary reason (no library installed, no device,
 * gsst.gpu off): the server runs on the CPU.  Said once, at LOG level,
 * until the server restarts; worker_status shows it as the reason.
 */
static void
set_cpu_reason(const char *reason)
{
	bool		tell;

	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	tell = !gsst_worker_shared->cpu_reason_told || strcmp(gsst_worker_shared->cpu_reason, reason) != 0;
	strlcpy(gsst_worker_shared->cpu_reason, reason, sizeof(gsst_worker_shared->cpu_reason));
	gsst_worker_shared->cpu_reason_told = true;
	LWLockRelease(gsst_worker_shared->lock);
	if (tell)
		ereport(LOG,
				(errmsg("gsst: %s; bulk paths encode on the CPU", reason)));
}

/* A passing state as the reason, shown in worker_status but not logged. */
static void
show_cpu_reason(const char *reason)
{
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	strlcpy(gsst_worker_shared->cpu_reason, reason, sizeof(gsst_worker_shared->cpu_reason));
	LWLockRelease(gsst_worker_shared->lock);
}

static char *
library_path(void)
{
	const char *lib = gsst_gpu_library ? gsst_gpu_library : "";

	if (strncmp(lib, "$libdir", 7) == 0)
		return psprintf("%s%s", pkglib_path, lib + 7);
	return pstrdup(lib);
}

/*
 * Take batches while there is a GPU, or the worker may use its CPU, and the
 * batch region has its memory (reserved once, when first needed).
 */
static void
update_accepting(void)
{
	bool		serving = gsst_worker_shared->gpu_ready || gsst_worker_cpu;
	char		msg[GSST_ERROR_LEN];

	if (serving && !gsst_batch_region_reserve(msg, sizeof(msg)))
	{
		if (!region_failure_told)
			ereport(LOG,
					(errmsg("gsst worker: takes no batches: %s", msg),
					 errdetail("Bulk paths encode in their backends.")));
		region_failure_told = true;
		serving = false;
	}
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	gsst_worker_shared->accepting = serving;
	LWLockRelease(gsst_worker_shared->lock);
}

static void
set_helper_gone(void)
{
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	gsst_worker_shared->gpu_ready = false;
	gsst_worker_shared->device[0] = '\0';
	gsst_worker_shared->helper_pid = 0;
	LWLockRelease(gsst_worker_shared->lock);
}

/*
 * The helper died, hung or lost its context: count it, say so, and start
 * another after the backoff, which doubles with each failure in a row.
 */
static void
helper_failed(const char *msg)
{
	set_helper_gone();
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	gsst_worker_shared->helper_failures++;
	gsst_worker_shared->errors++;
	LWLockRelease(gsst_worker_shared->lock);
	set_last_error(psprintf("%s; a new helper starts in %d ms", msg, helper_backoff_ms));
	helper_next_start = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), helper_backoff_ms);
	helper_backoff_ms = Min(helper_backoff_ms * 2, HELPER_BACKOFF_MAX_MS);
	update_accepting();
}

/* Stop the helper on purpose (gsst.gpu off, another device or library). */
static void
helper_stop(void)
{
	gpu_helper_stop();
	set_helper_gone();
}

/* Start the GPU helper; when it cannot be, say why in the right voice. */
static void
helper_start(void)
{
	char		msg[GSST_ERROR_LEN];
	char	   *path;
	char	   *helper;
	GpuHelperStart started;

	if (!gsst_gpu_enabled)
	{
		set_cpu_reason("gsst.gpu is off in the server configuration");
		helper_blocked = true;
		return;
	}
	path = library_path();
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	strlcpy(gsst_worker_shared->library, path, sizeof(gsst_worker_shared->library));
	LWLockRelease(gsst_worker_shared->lock);
	/* no library is the CPU-only installation, not a fault */
	if (access(path, F_OK) != 0 && errno == ENOENT)
	{
		set_cpu_reason(psprintf("no GPU library is installed (%s)", path));
		helper_blocked = true;
		return;
	}

	/* the helper pins the whole region for the GPU */
	if (!gsst_batch_region_reserve(msg, sizeof(msg)))
	{
		set_cpu_reason(psprintf("no batch region for the GPU: %s", msg));
		helper_blocked = true;
		return;
	}

	helper = psprintf("%s/%s", pkglib_path, GSST_HELPER_NAME);
	show_cpu_reason("the GPU helper is starting");
	started = gpu_helper_start(helper, path, gsst_gpu_device,
							   Max(gsst_worker_timeout_ms, HELPER_OPEN_MIN_MS),
							   msg, sizeof(msg));
	switch (started)
	{
		case GPU_HELPER_STARTED:
			if (helper_library)
				pfree(helper_library);
			helper_library = MemoryContextStrdup(TopMemoryContext, path);
			helper_device = gsst_gpu_device;
			LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
			strlcpy(gsst_worker_shared->device, msg, sizeof(gsst_worker_shared->device));
			gsst_worker_shared->gpu_ready = true;
			gsst_worker_shared->helper_pid = gpu_helper_pid();
			gsst_worker_shared->helper_starts++;
			gsst_worker_shared->cpu_reason[0] = '\0';
			gsst_worker_shared->last_error[0] = '\0';
			LWLockRelease(gsst_worker_shared->lock);
			ereport(LOG,
					(errmsg("gsst worker: encoding on GPU %s, in helper process %d",
							msg, (int) gpu_helper_pid())));
			break;
		case GPU_HELPER_NO_DEVICE:
			/* a machine without a device or driver is a CPU-only machine */
			set_cpu_reason(psprintf("no GPU: %s", msg));
			helper_blocked = true;
			break;
		case GPU_HELPER_REFUSED:
			show_cpu_reason("");
			set_last_error(msg);
			helper_blocked = true;
			break;
		case GPU_HELPER_LOST_AT_START:
			show_cpu_reason("");
			helper_failed(msg);
			break;
	}
}

/* Fail what the worker has not answered, so that nobody waits for it. */
static void
worker_exit_callback(int code, Datum arg)
{
	LWLockReleaseAll();
	gpu_helper_kill();
	if (gsst_worker_shared == NULL)
		return;
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < GSST_WORKER_SLOTS; i++)
	{
		RequestSlot *slot = &gsst_worker_shared->slots[i];

		if (slot->state == SLOT_SUBMITTED || slot->state == SLOT_RUNNING)
		{
			slot->state = SLOT_FAILED;
			SetLatch(&ProcGlobal->allProcs[slot->backend_procno].procLatch);
		}
		else if (slot->state == SLOT_ABANDONED)
			slot->state = SLOT_FREE;
	}
	gsst_worker_shared->worker_pid = 0;
	gsst_worker_shared->worker_procno = -1;
	gsst_worker_shared->accepting = false;
	gsst_worker_shared->gpu_ready = false;
	gsst_worker_shared->helper_pid = 0;
	LWLockRelease(gsst_worker_shared->lock);
}

/* The oldest submitted request, now RUNNING; false if there is none. */
static bool
take_request(int *slotno, uint64 *region_off, uint64 *region_len, uint64 *request_id)
{
	int			best = -1;

	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < GSST_WORKER_SLOTS; i++)
	{
		RequestSlot *slot = &gsst_worker_shared->slots[i];

		if (slot->state == SLOT_SUBMITTED &&
			(best < 0 || slot->request_id < gsst_worker_shared->slots[best].request_id))
			best = i;
	}
	if (best >= 0)
	{
		gsst_worker_shared->slots[best].state = SLOT_RUNNING;
		*slotno = best;
		*region_off = gsst_worker_shared->slots[best].region_off;
		*region_len = gsst_worker_shared->slots[best].region_len;
		*request_id = gsst_worker_shared->slots[best].request_id;
	}
	LWLockRelease(gsst_worker_shared->lock);
	return best >= 0;
}

/*
 * Sleep for gsst.worker_delay, interruptibly (tests kill the worker here).
 * With a GPU helper the helper sleeps instead, so that tests kill it
 * mid-batch.
 */
static void
test_delay(void)
{
	TimestampTz until;

	if (gsst_worker_delay_ms <= 0)
		return;
	until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), gsst_worker_delay_ms);
	for (;;)
	{
		long		remaining = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), until);

		CHECK_FOR_INTERRUPTS();
		if (remaining <= 0)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 remaining, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/* Encode one part with the CPU codec. */
static int
encode_part_cpu(RequestPart *part, char *base, char *err, Size errlen)
{
	gsst_table	table;
	size_t		consumed;
	size_t		tile_len = 0;
	int			rc;

	rc = gsst_table_load(&table, (const uint8 *) base + part->table_off,
						 part->table_len, &consumed);
	if (rc == GSST_OK)
	{
		if (cpu_encoder == NULL)
			cpu_encoder = MemoryContextAlloc(TopMemoryContext, sizeof(gsst_encoder));
		gsst_encoder_init(cpu_encoder, &table);
		rc = gsst_tile_encode(cpu_encoder, (const uint8 *) base + part->data_off,
							  (const uint64 *) (base + part->offsets_off),
							  part->nvalues, 0, (uint8 *) base + part->tile_off,
							  part->tile_cap, &tile_len);
	}
	if (rc != GSST_OK)
	{
		snprintf(err, errlen, "CPU encoder: %s", gsst_strerror(rc));
		return rc;
	}
	part->tile_len = tile_len;
	return 0;
}

/*
 * Encode one part in the GPU helper.  A helper that dies or hangs, or
 * whose CUDA context broke, is replaced later; this part is encoded on the
 * CPU now, with the same bytes, and *on_gpu cleared.
 */
static int
encode_part_gpu(RequestPart *part, char *base, bool *on_gpu, char *err, Size errlen)
{
	Size		tile_len = 0;
	int			rc;

	rc = gpu_helper_encode((const uint8 *) base + part->table_off, part->table_len,
						   (const uint8 *) base + part->data_off,
						   (const uint64 *) (base + part->offsets_off), part->nvalues,
						   (uint8 *) base + part->tile_off, part->tile_cap, &tile_len,
						   gsst_worker_delay_ms, gsst_worker_timeout_ms, err, errlen);
	if (rc == GSST_GPU_OK)
	{
		part->tile_len = tile_len;
		return 0;
	}
	if (rc == GPU_HELPER_LOST || rc == GSST_GPU_ERR_CUDA || rc == GSST_GPU_ERR_BROKEN)
	{
		if (rc != GPU_HELPER_LOST)
		{
			/* it exits after a broken context; reap it */
			char	   *what = psprintf("GPU encoder: %s", err);

			gpu_helper_stop();
			helper_failed(what);
		}
		else
			helper_failed(err);
		*on_gpu = false;
		return encode_part_cpu(part, base, err, errlen);
	}
	/*
	 * The GPU refuses a few batches it cannot place safely (long values
	 * whose parts expand): the CPU encodes them, here when the worker may
	 * use its CPU, else in the backend.
	 */
	if (rc == GSST_GPU_ERR_LIMIT && gsst_worker_cpu)
	{
		*on_gpu = false;
		return encode_part_cpu(part, base, err, errlen);
	}
	if (err[0] == '\0')
		snprintf(err, errlen, "GPU encoder: status %d", rc);
	return rc;
}

/* Check that every range of the request lies inside its slice. */
static bool
request_fits(RequestHeader *hdr, Size slice_len)
{
	if (slice_len < offsetof(RequestHeader, parts) ||
		hdr->nparts > (slice_len - offsetof(RequestHeader, parts)) / sizeof(RequestPart))
		return false;
	for (uint32 p = 0; p < hdr->nparts; p++)
	{
		RequestPart *part = &hdr->parts[p];

		if (part->nvalues >= slice_len / sizeof(uint64) ||
			part->table_off + part->table_len > slice_len ||
			part->offsets_off + sizeof(uint64) * (part->nvalues + 1) > slice_len ||
			part->data_off + part->raw_bytes > slice_len ||
			part->tile_off + part->tile_cap > slice_len ||
			part->tile_off < part->data_off + part->raw_bytes)
			return false;
	}
	return true;
}

/* The offsets of each part run from 0 to its raw bytes, in order. */
static bool
request_offsets_valid(RequestHeader *hdr)
{
	for (uint32 p = 0; p < hdr->nparts; p++)
	{
		RequestPart *part = &hdr->parts[p];
		const uint64 *offsets = (const uint64 *) ((char *) hdr + part->offsets_off);

		if (offsets[0] != 0 || offsets[part->nvalues] != part->raw_bytes)
			return false;
		for (uint64 i = 0; i < part->nvalues; i++)
			if (offsets[i] > offsets[i + 1])
				return false;
	}
	return true;
}

static void
serve_request(int slotno, uint64 region_off, uint64 region_len, uint64 request_id)
{
	char	   *region = gsst_batch_region_map();
	RequestHeader *hdr = NULL;
	char		err[GSST_ERROR_LEN] = "";
	bool		ok = false;
	bool		declined = false;	/* no GPU now: the backend encodes it */
	bool		on_gpu = false;
	bool		started_on_gpu = false;
	uint64		bytes_in = 0;
	uint64		bytes_out = 0;
	RequestSlot *slot = &gsst_worker_shared->slots[slotno];
	int			procno = -1;
	bool		abandoned;

	if (region == NULL || region_off > gsst_batch_region_size() ||
		region_len > gsst_batch_region_size() - region_off)
		strlcpy(err, "the request's slice is outside the batch region", sizeof(err));
	else
	{
		hdr = (RequestHeader *) (region + region_off);
		if (hdr->magic != GSST_REQUEST_MAGIC || hdr->request_id != request_id ||
			!request_fits(hdr, region_len) ||
			!request_offsets_valid(hdr))
			strlcpy(err, "malformed request", sizeof(err));
		else
		{
			on_gpu = started_on_gpu = gsst_worker_shared->gpu_ready;
			if (!on_gpu && gsst_worker_cpu)
				test_delay();
			ok = true;
			for (uint32 p = 0; ok && p < hdr->nparts; p++)
			{
				RequestPart *part = &hdr->parts[p];

				if (on_gpu)
					ok = encode_part_gpu(part, (char *) hdr, &on_gpu, err, sizeof(err)) == 0;
				else if (gsst_worker_cpu || started_on_gpu)	/* helper lost */
					ok = encode_part_cpu(part, (char *) hdr, err, sizeof(err)) == 0;
				else
				{
					/* the GPU went away after the backend asked */
					strlcpy(err, "no GPU", sizeof(err));
					declined = true;
					ok = false;
				}
				bytes_in += part->raw_bytes;
				bytes_out += part->tile_len;
			}
			hdr->on_gpu = on_gpu;
			strlcpy(hdr->error, err, sizeof(hdr->error));
			pg_write_barrier();
			hdr->status = ok ? 0 : -1;
		}
	}

	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	abandoned = slot->state == SLOT_ABANDONED;
	if (slot->request_id == request_id)
	{
		if (abandoned)
			slot->state = SLOT_FREE;
		else if (slot->state == SLOT_RUNNING)
		{
			slot->state = ok ? SLOT_DONE : SLOT_FAILED;
			procno = slot->backend_procno;
		}
	}
	if (ok)
	{
		if (on_gpu)
			gsst_worker_shared->gpu_batches++;
		else
			gsst_worker_shared->cpu_batches++;
		gsst_worker_shared->bytes_in += bytes_in;
		gsst_worker_shared->bytes_out += bytes_out;
	}
	else if (!declined)
	{
		gsst_worker_shared->failed_batches++;
		if (!abandoned)
		{
			gsst_worker_shared->errors++;
			strlcpy(gsst_worker_shared->last_error, err, sizeof(gsst_worker_shared->last_error));
		}
	}
	LWLockRelease(gsst_worker_shared->lock);
	/* a helper that answers has earned a quick restart next time */
	if (ok && on_gpu)
		helper_backoff_ms = HELPER_BACKOFF_MIN_MS;
	if (procno >= 0)
		SetLatch(&ProcGlobal->allProcs[procno].procLatch);
}

/* After a reload: stop a helper that no longer matches the settings. */
static void
reload_settings(void)
{
	char	   *path;

	ProcessConfigFile(PGC_SIGHUP);
	path = library_path();
	if (gsst_worker_shared->gpu_ready &&
		(!gsst_gpu_enabled || helper_device != gsst_gpu_device ||
		 helper_library == NULL || strcmp(helper_library, path) != 0))
		helper_stop();
	pfree(path);
	/* what kept the helper from starting may have changed */
	helper_blocked = false;
}

void
gsst_worker_main(Datum main_arg)
{
	MemoryContext request_cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	if (gsst_worker_shared == NULL)
		ereport(FATAL,
				(errmsg("gsst worker started without its shared memory"),
				 errhint("Load gsst through shared_preload_libraries.")));

	before_shmem_exit(worker_exit_callback, (Datum) 0);
	/* a worker that takes batches on its CPU takes them from its start */
	if (gsst_worker_cpu)
	{
		char		msg[GSST_ERROR_LEN];

		(void) gsst_batch_region_reserve(msg, sizeof(msg));
	}
	LWLockAcquire(gsst_worker_shared->lock, LW_EXCLUSIVE);
	gsst_worker_shared->worker_pid = MyProcPid;
	gsst_worker_shared->worker_procno = gsst_my_procno();
	gsst_worker_shared->starts++;
	gsst_worker_shared->started_at = GetCurrentTimestamp();
	gsst_worker_shared->gpu_ready = false;
	gsst_worker_shared->accepting = false;
	gsst_worker_shared->helper_pid = 0;
	/* slots a previous worker left behind: their backends were told */
	for (int i = 0; i < GSST_WORKER_SLOTS; i++)
		if (gsst_worker_shared->slots[i].state == SLOT_RUNNING ||
			gsst_worker_shared->slots[i].state == SLOT_ABANDONED)
			gsst_worker_shared->slots[i].state = gsst_worker_shared->slots[i].state == SLOT_RUNNING ?
				SLOT_FAILED : SLOT_FREE;
	LWLockRelease(gsst_worker_shared->lock);

	request_cxt = AllocSetContextCreate(TopMemoryContext, "gsst worker request",
										ALLOCSET_DEFAULT_SIZES);

	for (;;)
	{
		int			slotno;
		uint64		region_off;
		uint64		region_len;
		uint64		request_id;
		int			events = WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH;
		long		timeout = 10 * 1000L;
		int			fired;

		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		gpu_helper_reap();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			reload_settings();
		}
		if (!gsst_worker_shared->gpu_ready && !helper_blocked &&
			GetCurrentTimestamp() >= helper_next_start)
			helper_start();
		update_accepting();

		while (take_request(&slotno, &region_off, &region_len, &request_id))
		{
			MemoryContext old = MemoryContextSwitchTo(request_cxt);

			serve_request(slotno, region_off, region_len, request_id);
			MemoryContextSwitchTo(old);
			MemoryContextReset(request_cxt);
			update_accepting();
			CHECK_FOR_INTERRUPTS();
		}

		/* a helper that dies while idle closes its reply pipe */
		if (gpu_helper_pid() != 0)
			events |= WL_SOCKET_READABLE;
		else if (!helper_blocked)
			timeout = Max(1L, Min(timeout,
								  TimestampDifferenceMilliseconds(GetCurrentTimestamp(),
																  helper_next_start)));
		fired = WaitLatchOrSocket(MyLatch, events, gpu_helper_reply_fd(), timeout,
								  PG_WAIT_EXTENSION);
		if (fired & WL_SOCKET_READABLE)
		{
			char		msg[GSST_ERROR_LEN];

			if (!gpu_helper_check(msg, sizeof(msg)))
				helper_failed(msg);
		}
	}
}

/* ---- gsst.worker_status() ---- */

/*
 * gpu: the worker encodes bulk batches on the GPU; cpu: no GPU (the reason
 * says why), batches are encoded on the CPU, by the worker when
 * gsst.worker_cpu is on (cpu_batches counts them), else by each backend.
 */
static const char *
slot_mode(const WorkerShared *s)
{
	if (s->worker_pid == 0)
		return "stopped";
	if (s->gpu_ready)
		return "gpu";
	return "cpu";
}

PG_FUNCTION_INFO_V1(gsst_worker_status);
Datum
gsst_worker_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WorkerShared snap;
	Datum		values[20];
	bool		nulls[20];
	bool		with_reason;
	bool		with_helper;
	int			in_flight = 0;
	int			i = 0;

	InitMaterializedSRF(fcinfo, 0);
	if (gsst_worker_shared == NULL)
		return (Datum) 0;		/* not preloaded: no worker */
	/* version 1.0 of the SQL objects had no reason and no helper columns */
	with_reason = rsinfo->setDesc->natts >= 17;
	with_helper = rsinfo->setDesc->natts >= 20;

	LWLockAcquire(gsst_worker_shared->lock, LW_SHARED);
	memcpy(&snap, gsst_worker_shared, sizeof(snap));
	LWLockRelease(gsst_worker_shared->lock);
	for (int s = 0; s < GSST_WORKER_SLOTS; s++)
		if (snap.slots[s].state != SLOT_FREE)
			in_flight++;

	memset(nulls, 0, sizeof(nulls));
	values[i] = Int32GetDatum(snap.worker_pid);
	nulls[i++] = snap.worker_pid == 0;
	values[i++] = CStringGetTextDatum(slot_mode(&snap));
	if (with_reason)
	{
		values[i] = CStringGetTextDatum(snap.cpu_reason);
		nulls[i++] = snap.gpu_ready || snap.cpu_reason[0] == '\0';
	}
	values[i++] = BoolGetDatum(snap.gpu_ready);
	values[i] = CStringGetTextDatum(snap.device);
	nulls[i++] = snap.device[0] == '\0';
	values[i] = CStringGetTextDatum(snap.library);
	nulls[i++] = snap.library[0] == '\0';
	values[i] = TimestampTzGetDatum(snap.started_at);
	nulls[i++] = snap.starts == 0;
	values[i++] = Int32GetDatum(snap.starts);
	values[i++] = Int64GetDatum((int64) snap.gpu_batches);
	values[i++] = Int64GetDatum((int64) snap.cpu_batches);
	values[i++] = Int64GetDatum((int64) snap.failed_batches);
	values[i++] = Int64GetDatum((int64) snap.backend_fallbacks);
	values[i++] = Int64GetDatum((int64) snap.bytes_in);
	values[i++] = Int64GetDatum((int64) snap.bytes_out);
	values[i++] = Int64GetDatum((int64) snap.errors);
	values[i] = CStringGetTextDatum(snap.last_error);
	nulls[i++] = snap.last_error[0] == '\0';
	values[i++] = Int32GetDatum(in_flight);
	if (with_helper)
	{
		values[i] = Int32GetDatum(snap.helper_pid);
		nulls[i++] = snap.helper_pid == 0;
		values[i++] = Int32GetDatum(snap.helper_starts);
		values[i++] = Int64GetDatum((int64) snap.helper_failures);
	}
	Assert(i == rsinfo->setDesc->natts);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
