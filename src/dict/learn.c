/*
 * learn.c - a new gsst column learns its first dictionary from the values
 * written to it.
 *
 * While a family has no dictionary, each backend keeps (a prefix of) the
 * values written to it, stored raw meanwhile, and trains a table once
 * gsst.learn_sample_bytes are together.  Only writers may teach a family
 * (the LEARN right: INSERT or UPDATE on its column; checked by datum.c).
 *
 * One learning event gives the column one dictionary, however many
 * sessions write to it at once.  The table is stored by a short-lived
 * background worker, the learner, in a transaction of its own: it takes a
 * lock on the family, stores the table unless the family got one
 * meanwhile, and commits.  Concurrent writers therefore wait a few
 * milliseconds, then all encode with the same dictionary, which is visible
 * at once to every session and survives the writer's rollback: no value
 * can outlive its dictionary, and an id is lost only when the column itself
 * rolls back, as a sequence would lose it.
 *
 * So the type's input functions and casts write nothing in the caller's
 * transaction, and can be STABLE.  Explicit and bulk paths (gsst.compress,
 * gsst.load, both VOLATILE) store the table themselves, in their own
 * transaction, when no learner can run, if they get the family's lock
 * without waiting; other writers keep storing raw until it commits.
 *
 * Learners come from a pool of their own, so that they never take a worker
 * that parallel query counts on: at most gsst.max_learners run at once
 * (counted in shared memory), and the postmaster's max_worker_processes is
 * raised by that many plus gsst's static worker (module/gsst.c).  A
 * backend whose sample is complete while the pool is full waits a little
 * for a slot, as it would wait for its own learner; then it keeps its
 * trained table and tries again at the family's next writes.  Without gsst in
 * shared_preload_libraries there is no pool and no learner.
 *
 * A learner is a transaction of its own, so it cannot see what the
 * writer's transaction has not committed.  When that transaction created
 * or updated the extension, or holds a lock on gsst.dictionaries that the
 * learner would wait for (a restore holding the id lock, say), no learner
 * starts: the writer stores the table in its own transaction, which then
 * owns everything the dictionary could outlive.  A learner that starts and
 * fails anyway (the log says why) is not started again for that family in
 * the same transaction, nor until a back-off has passed; the session is
 * told once, with a NOTICE.
 */
#include "dict/dict.h"

#include "access/table.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

/* How long the learner waits for a family's lock before it gives up. */
#define GSST_LEARNER_LOCK_TIMEOUT "5s"

/* After a learner failed, its family waits this long, doubling, to the next. */
#define LEARNER_BACKOFF_MIN_MS	(10 * 1000)
#define LEARNER_BACKOFF_MAX_MS	(10 * 60 * 1000)

/*
 * A learner its backend gave up on, and that has not started this long
 * after, never will (the postmaster could not fork it): its slot is free.
 */
#define LEARNER_LOST_MS			(60 * 1000)

/*
 * How long a backend whose sample is complete waits for a free slot.
 * Learners take milliseconds, or up to their lock timeout when they wait.
 */
#define LEARNER_SLOT_WAIT_MS	(10 * 1000)

int			gsst_learn_sample_bytes = 16 * 1024;
int			gsst_max_learners = 2;

/* ---- the learners' pool, in shared memory ---- */

/*
 * A slot is claimed by a backend before it registers a learner, and freed
 * by that backend once the learner's worker slot is free again.  A backend
 * that stops waiting (cancel, exit) hands it to its learner, which frees it
 * when it exits.
 */
typedef struct LearnerSlot
{
	uint32		generation;		/* bumped at each claim */
	pid_t		backend;		/* that claimed it; 0: free */
	pid_t		learner;		/* once the learner runs */
	bool		learner_done;	/* the learner has exited */
	bool		handed_over;	/* the learner frees it */
	TimestampTz handed_over_at;
} LearnerSlot;

typedef struct LearnerPool
{
	slock_t		mutex;
	pg_atomic_uint32 in_use;	/* claimed slots, for a look without the lock */
	ConditionVariable slot_freed;
	int			nslots;			/* gsst.max_learners at start */
	LearnerSlot slots[FLEXIBLE_ARRAY_MEMBER];
} LearnerPool;

/* What a learner finds in bgw_extra: its slot. */
typedef struct LearnerTicket
{
	int			slot;
	uint32		generation;
} LearnerTicket;

static LearnerPool *pool = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
pool_size(void)
{
	return add_size(offsetof(LearnerPool, slots),
					mul_size(sizeof(LearnerSlot), gsst_max_learners));
}

static void
learn_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(pool_size()));
}

static void
learn_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	pool = ShmemInitStruct("gsst learners", pool_size(), &found);
	if (!found)
	{
		memset(pool, 0, pool_size());
		SpinLockInit(&pool->mutex);
		pg_atomic_init_u32(&pool->in_use, 0);
		ConditionVariableInit(&pool->slot_freed);
		pool->nslots = gsst_max_learners;
	}
	LWLockRelease(AddinShmemInitLock);
}

static void
free_slot_locked(LearnerSlot *slot)
{
	slot->backend = 0;
	slot->learner = 0;
	slot->learner_done = false;
	slot->handed_over = false;
	pg_atomic_sub_fetch_u32(&pool->in_use, 1);
}

/* Might a slot be free?  A look without the lock, for every raw write. */
static bool
pool_may_have_room(void)
{
	return pool != NULL && pool->nslots > 0 &&
		pg_atomic_read_u32(&pool->in_use) < (uint32) pool->nslots;
}

/* Claim a free slot for a learner; false when the pool is full. */
static bool
claim_slot(LearnerTicket *ticket)
{
	TimestampTz now;
	bool		claimed = false;

	if (pool == NULL || pool->nslots <= 0)
		return false;
	now = GetCurrentTimestamp();
	SpinLockAcquire(&pool->mutex);
	for (int i = 0; i < pool->nslots; i++)
	{
		LearnerSlot *slot = &pool->slots[i];

		if (slot->backend != 0 && slot->handed_over && slot->learner == 0 &&
			TimestampDifferenceExceeds(slot->handed_over_at, now, LEARNER_LOST_MS))
			free_slot_locked(slot);
		if (slot->backend == 0)
		{
			slot->generation++;
			slot->backend = MyProcPid;
			slot->learner = 0;
			slot->learner_done = false;
			slot->handed_over = false;
			pg_atomic_add_fetch_u32(&pool->in_use, 1);
			ticket->slot = i;
			ticket->generation = slot->generation;
			claimed = true;
			break;
		}
	}
	SpinLockRelease(&pool->mutex);
	return claimed;
}

/* Claim a slot, waiting up to LEARNER_SLOT_WAIT_MS for one when wait. */
static bool
claim_slot_waiting(LearnerTicket *ticket, bool wait)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   LEARNER_SLOT_WAIT_MS);
	bool		claimed;

	for (;;)
	{
		long		remaining;

		if ((claimed = claim_slot(ticket)) || !wait)
			break;
		remaining = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (remaining <= 0)
			break;
		(void) ConditionVariableTimedSleep(&pool->slot_freed, remaining, PG_WAIT_EXTENSION);
	}
	if (wait)
		ConditionVariableCancelSleep();
	return claimed;
}

/* The backend frees its slot: its learner's worker slot is free again. */
static void
release_slot(const LearnerTicket *ticket)
{
	LearnerSlot *slot = &pool->slots[ticket->slot];
	bool		freed = false;

	SpinLockAcquire(&pool->mutex);
	if (slot->generation == ticket->generation && slot->backend == MyProcPid &&
		!slot->handed_over)
	{
		free_slot_locked(slot);
		freed = true;
	}
	SpinLockRelease(&pool->mutex);
	if (freed)
		ConditionVariableBroadcast(&pool->slot_freed);
}

/* The learner a backend waits for, for the cleanup when it stops waiting. */
typedef struct LearnerWait
{
	LearnerTicket ticket;
	BackgroundWorkerHandle *handle;
} LearnerWait;

/*
 * The backend stops waiting (an error, or its exit): the slot is freed now
 * if the learner is gone, else the learner frees it when it exits.
 */
static void
abandon_learner(int code, Datum arg)
{
	LearnerWait *wait = (LearnerWait *) DatumGetPointer(arg);
	LearnerSlot *slot = &pool->slots[wait->ticket.slot];
	pid_t		pid;
	bool		gone = GetBackgroundWorkerPid(wait->handle, &pid) == BGWH_STOPPED;
	bool		freed = false;

	SpinLockAcquire(&pool->mutex);
	if (slot->generation == wait->ticket.generation && slot->backend == MyProcPid &&
		!slot->handed_over)
	{
		if (gone || slot->learner_done)
		{
			free_slot_locked(slot);
			freed = true;
		}
		else
		{
			slot->handed_over = true;
			slot->handed_over_at = GetCurrentTimestamp();
		}
	}
	SpinLockRelease(&pool->mutex);
	if (freed)
		ConditionVariableBroadcast(&pool->slot_freed);
}

/* The learner exits: it frees a slot its backend handed over. */
static void
learner_exit(int code, Datum arg)
{
	LearnerTicket *ticket = (LearnerTicket *) DatumGetPointer(arg);
	LearnerSlot *slot = &pool->slots[ticket->slot];
	bool		freed = false;

	SpinLockAcquire(&pool->mutex);
	if (slot->generation == ticket->generation && slot->backend != 0)
	{
		if (slot->handed_over)
		{
			free_slot_locked(slot);
			freed = true;
		}
		else
			slot->learner_done = true;
	}
	SpinLockRelease(&pool->mutex);
	if (freed)
		ConditionVariableBroadcast(&pool->slot_freed);
}

/* Values kept for a family without a dictionary. */
typedef struct SampleEntry
{
	int32		family;			/* hash key */
	MemoryContext cxt;			/* holds the arrays and the values */
	Size		bytes;
	int			nvalues;
	int			capacity;
	const uint8 **values;
	size_t	   *lens;
	gsst_table *trained;		/* trained, waiting for a learner */
} SampleEntry;

static HTAB *sample_hash = NULL;

/* What this session knows of a family's learning. */
typedef struct LearnState
{
	int32		family;			/* hash key */
	bool		given_up;		/* the owner's quota is used up */
	bool		failed_here;	/* a learner failed in this transaction */
	bool		told;			/* the session got the NOTICE */
	int			backoff_ms;
	TimestampTz retry_after;	/* no learner before this */
} LearnState;

static HTAB *learn_states = NULL;

/* The request a backend hands the learner, in a DSM segment. */
typedef struct LearnRequest
{
	Oid			database;
	int32		family;
	Oid			owner;			/* of the family's table, as the backend sees it */
	int			quota;			/* gsst.max_dictionaries_per_role of the requester */
	int			pending;		/* the requester's dictionaries that count too */
	int			table_len;
	uint8		table[GSST_TABLE_MAX_BYTES];
	/* written by the learner once it committed */
	uint32		id;
	int			status;			/* GsstLearnStatus; FAILED until then */
} LearnRequest;

/* What came of asking for a learner. */
typedef enum LearnerOutcome
{
	LEARNER_DONE,				/* it ran; the request's status says how */
	LEARNER_NOT_STARTED,		/* none could start now: no slot, no pool */
	LEARNER_FAILED				/* it started and failed, or died */
} LearnerOutcome;

/* ---- the learner (background worker) ---- */

void
gsst_learner_main(Datum main_arg)
{
	dsm_segment *seg;
	LearnRequest *req;
	gsst_table	table;
	size_t		consumed = 0;
	GsstLearnStatus status = GSST_LEARN_FAILED;
	uint32		id;
	LearnerTicket *ticket;
	LearnerSlot *slot;
	bool		mine;

	/* free the slot at exit, whatever happens from here */
	ticket = MemoryContextAlloc(TopMemoryContext, sizeof(LearnerTicket));
	memcpy(ticket, MyBgworkerEntry->bgw_extra, sizeof(LearnerTicket));
	if (pool == NULL || ticket->slot < 0 || ticket->slot >= pool->nslots)
		proc_exit(0);
	before_shmem_exit(learner_exit, PointerGetDatum(ticket));
	slot = &pool->slots[ticket->slot];
	SpinLockAcquire(&pool->mutex);
	mine = slot->generation == ticket->generation && slot->backend != 0;
	if (mine)
		slot->learner = MyProcPid;
	SpinLockRelease(&pool->mutex);
	if (!mine)
		proc_exit(0);			/* started too late: the slot went to another */

	BackgroundWorkerUnblockSignals();
	CurrentResourceOwner = ResourceOwnerCreate(NULL, "gsst learner");
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the backend gave up waiting */
	req = (LearnRequest *) dsm_segment_address(seg);
	if (req->table_len <= 0 || req->table_len > GSST_TABLE_MAX_BYTES ||
		gsst_table_load(&table, req->table, (size_t) req->table_len, &consumed) != GSST_OK)
		elog(ERROR, "gsst learner: invalid table in the request");

	/* the bootstrap superuser: it only stores the table it was handed */
	BackgroundWorkerInitializeConnectionByOid(req->database, InvalidOid, 0);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SetConfigOption("lock_timeout", GSST_LEARNER_LOCK_TIMEOUT, PGC_SUSET, PGC_S_OVERRIDE);
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "storing a gsst dictionary");

	id = gsst_dict_create_once(req->family, &table, req->owner, true, req->quota,
							   req->pending, &status);

	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);

	req->id = id;
	pg_write_barrier();
	req->status = (int) status;
	dsm_detach(seg);
	proc_exit(0);
}

/*
 * Have a learner store the table, waiting for a free slot when
 * wait_for_slot.
 * LEARNER_DONE: *status says what came of it, and *id is the family's
 * dictionary when it has one.
 */
static LearnerOutcome
request_learner(int32 family, const gsst_table *table, bool wait_for_slot,
				GsstLearnStatus *status, uint32 *id)
{
	dsm_segment *seg;
	LearnRequest *req;
	BackgroundWorker bgw;
	LearnerWait wait;
	pid_t		pid;
	LearnerOutcome outcome;

	*status = GSST_LEARN_FAILED;
	*id = 0;
	if (!IsUnderPostmaster || pool == NULL || pool->nslots <= 0 ||
		(!wait_for_slot && !pool_may_have_room()))
		return LEARNER_NOT_STARTED;

	seg = dsm_create(sizeof(LearnRequest), 0);
	req = (LearnRequest *) dsm_segment_address(seg);
	memset(req, 0, sizeof(LearnRequest));
	req->database = MyDatabaseId;
	req->family = family;
	req->owner = gsst_family_owner(family);
	req->quota = gsst_max_dictionaries_per_role;
	req->pending = gsst_dict_pending_for(req->owner);
	req->table_len = gsst_table_serialize(table, req->table, sizeof(req->table));
	req->status = (int) GSST_LEARN_FAILED;
	if (req->table_len <= 0)
	{
		dsm_detach(seg);
		return LEARNER_NOT_STARTED;
	}

	memset(&bgw, 0, sizeof(bgw));
	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bgw.bgw_start_time = BgWorkerStart_RecoveryFinished;
	bgw.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(bgw.bgw_library_name, BGW_MAXLEN, "gsst");
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "gsst_learner_main");
	snprintf(bgw.bgw_name, BGW_MAXLEN, "gsst learner");
	snprintf(bgw.bgw_type, BGW_MAXLEN, "gsst learner");
	bgw.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	bgw.bgw_notify_pid = MyProcPid;

	/* nothing can fail between the claim and the cleanup's registration */
	if (!claim_slot_waiting(&wait.ticket, wait_for_slot))
	{
		dsm_detach(seg);
		return LEARNER_NOT_STARTED;
	}
	StaticAssertStmt(sizeof(LearnerTicket) <= BGW_EXTRALEN, "a ticket fits bgw_extra");
	memcpy(bgw.bgw_extra, &wait.ticket, sizeof(LearnerTicket));
	if (!RegisterDynamicBackgroundWorker(&bgw, &wait.handle))
	{
		dsm_detach(seg);
		release_slot(&wait.ticket);
		return LEARNER_NOT_STARTED;
	}
	PG_ENSURE_ERROR_CLEANUP(abandon_learner, PointerGetDatum(&wait));
	{
		if (WaitForBackgroundWorkerStartup(wait.handle, &pid) == BGWH_STARTED)
			(void) WaitForBackgroundWorkerShutdown(wait.handle);
	}
	PG_END_ENSURE_ERROR_CLEANUP(abandon_learner, PointerGetDatum(&wait));
	/* the postmaster freed the learner's worker slot before it told us */
	release_slot(&wait.ticket);

	pg_read_barrier();
	*status = (GsstLearnStatus) req->status;
	if (*status == GSST_LEARN_STORED || *status == GSST_LEARN_EXISTS)
		*id = req->id;
	outcome = *status == GSST_LEARN_FAILED ? LEARNER_FAILED : LEARNER_DONE;
	pfree(wait.handle);
	dsm_detach(seg);
	return outcome;
}

/* ---- backends ---- */

static LearnState *
learn_state(int32 family, bool create)
{
	bool		found;
	LearnState *st;

	if (learn_states == NULL)
	{
		if (!create)
			return NULL;
		learn_states = gsst_id_hash_create("gsst learning", 16, sizeof(LearnState),
										   TopMemoryContext);
	}
	st = hash_search(learn_states, &family, create ? HASH_ENTER : HASH_FIND, &found);
	if (create && !found)
	{
		st->given_up = false;
		st->failed_here = false;
		st->told = false;
		st->backoff_ms = 0;
		st->retry_after = 0;
	}
	return st;
}

static bool
has_given_up(int32 family)
{
	LearnState *st = learn_state(family, false);

	return st != NULL && st->given_up;
}

/* May a learner start for the family now, as far as this session knows? */
static bool
learner_allowed(int32 family)
{
	LearnState *st = learn_state(family, false);

	if (st == NULL)
		return true;
	if (st->given_up || st->failed_here)
		return false;
	return st->retry_after == 0 || GetCurrentTimestamp() >= st->retry_after;
}

/*
 * A learner started and failed: none for this family again in this
 * transaction, nor before a back-off; the session hears of it once.
 */
static void
learner_failed(int32 family)
{
	LearnState *st = learn_state(family, true);
	Oid			relid;
	AttrNumber	attnum;

	st->failed_here = true;
	st->backoff_ms = st->backoff_ms == 0 ? LEARNER_BACKOFF_MIN_MS :
		Min(st->backoff_ms * 2, LEARNER_BACKOFF_MAX_MS);
	st->retry_after = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), st->backoff_ms);
	if (st->told)
		return;
	st->told = true;
	if (gsst_family_root(family, &relid, &attnum))
	{
		char	   *relname = get_rel_name(relid);
		char	   *nspname = get_namespace_name(get_rel_namespace(relid));
		char	   *attname = get_attname(relid, attnum, true);

		if (relname != NULL && nspname != NULL && attname != NULL)
		{
			ereport(NOTICE,
					(errmsg("column \"%s\" of relation \"%s\" stores its values uncompressed for now: the learner that was to store its first gsst dictionary failed",
							attname, relname),
					 errdetail("The server log says why. The column tries again in a later transaction."),
					 errhint("Once it has a dictionary, SELECT gsst.compress_table(%s) compresses the rows stored uncompressed.",
							 quote_literal_cstr(quote_qualified_identifier(nspname, relname)))));
			return;
		}
	}
	ereport(NOTICE,
			(errmsg("gsst family %d stores its values uncompressed for now: the learner that was to store its first dictionary failed",
					family),
			 errdetail("The server log says why. The family tries again in a later transaction."),
			 errhint("Once it has a dictionary, gsst.compress_table compresses the rows stored uncompressed.")));
}

/*
 * Would a learner, a transaction of its own, miss or wait for what this
 * transaction changed?  The extension created or updated here (the learner
 * would not find it, or wait on its table), the lock on new dictionary ids
 * kept by a restore, or a lock on gsst.dictionaries that the learner's
 * insert would wait for.
 */
static bool
learner_blocked_here(void)
{
	const GsstCatalog *cat;
	Relation	rel;
	bool		locked;

	if (gsst_dict_ids_locked_here() || gsst_extension_changed_here())
		return true;
	cat = gsst_catalog(false);
	rel = table_open(cat->dictionaries, AccessShareLock);
	/* ShareLock and stronger conflict with the learner's RowExclusiveLock */
	locked = CheckRelationLockedByMe(rel, ShareLock, true);
	table_close(rel, NoLock);
	return locked;
}

/*
 * Store a family's first dictionary, learned from values written to it
 * (the caller checked the LEARN right).  Returns the id of the family's
 * dictionary, the one stored or the one another session stored first, or 0
 * when there is none yet (values stay raw for now); *retry then says
 * whether the table is worth offering again at the next write (no learner
 * could start now).  Without a learner, the table is stored in the current
 * transaction only when may_write_here; otherwise, with wait_for_slot, a
 * full pool is waited for a while.
 */
static uint32
learn_store(int32 family, const gsst_table *table, bool may_write_here,
			bool wait_for_slot, bool *retry)
{
	GsstLearnStatus status = GSST_LEARN_FAILED;
	LearnerOutcome outcome = LEARNER_NOT_STARTED;
	uint32		id = 0;

	*retry = false;
	if (!gsst_can_write_dictionaries() || has_given_up(family))
		return 0;

	/* this transaction owns what the dictionary would depend on: store it here */
	if (learner_blocked_here())
		may_write_here = true;
	else if (learner_allowed(family))
		outcome = request_learner(family, table, wait_for_slot && !may_write_here,
								  &status, &id);

	if (outcome == LEARNER_FAILED)
	{
		learner_failed(family);
		*retry = true;
	}
	else if (outcome == LEARNER_NOT_STARTED)
	{
		if (may_write_here)
			id = gsst_dict_create_once(family, table, gsst_family_owner(family), false,
									   gsst_max_dictionaries_per_role,
									   gsst_dict_pending_for(gsst_family_owner(family)),
									   &status);
		else
			*retry = true;
	}
	switch (status)
	{
		case GSST_LEARN_STORED:
		case GSST_LEARN_EXISTS:
			/* see the learner's commit: the family's cache entry goes stale */
			AcceptInvalidationMessages();
			*retry = false;
			return id;
		case GSST_LEARN_QUOTA:
			learn_state(family, true)->given_up = true;
			*retry = false;
			ereport(WARNING,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("gsst family %d does not learn a dictionary: the tables of its owner hold the most gsst.max_dictionaries_per_role allows",
							family),
					 errdetail("Its values are stored as plain text."),
					 errhint("A superuser can raise gsst.max_dictionaries_per_role.")));
			return 0;
		case GSST_LEARN_BUSY:
		case GSST_LEARN_FAILED:
			break;
	}
	return 0;
}

uint32
gsst_learn_store(int32 family, const gsst_table *table, bool may_write_here)
{
	bool		retry;

	return learn_store(family, table, may_write_here, false, &retry);
}

static void
drop_sample(SampleEntry *se)
{
	int32		family = se->family;

	MemoryContextDelete(se->cxt);
	hash_search(sample_hash, &family, HASH_REMOVE, NULL);
}

static void
drop_all_samples(void)
{
	if (sample_hash)
	{
		HASH_SEQ_STATUS status;
		SampleEntry *se;

		hash_seq_init(&status, sample_hash);
		while ((se = hash_seq_search(&status)) != NULL)
			MemoryContextDelete(se->cxt);
		hash_destroy(sample_hash);
		sample_hash = NULL;
	}
}

/*
 * Offer the family's trained table for storing (waiting for a learner's
 * slot when wait_for_slot); keep it for the next write when no learner
 * could start now.
 */
static void
offer_trained(SampleEntry *se, bool may_write_here, bool wait_for_slot)
{
	bool		retry;
	uint32		table_id;

	/* another session's dictionary may have committed meanwhile */
	AcceptInvalidationMessages();
	if (gsst_family_encoder(se->family, &table_id) == NULL)
	{
		(void) learn_store(se->family, se->trained, may_write_here, wait_for_slot,
						   &retry);
		if (retry)
			return;
	}
	drop_sample(se);
}

static void
learn_from_sample(SampleEntry *se, bool may_write_here)
{
	int32		family = se->family;
	uint32		table_id;
	gsst_table *table;
	void	   *work;
	int			rc;

	/* another session's dictionary may have committed meanwhile */
	AcceptInvalidationMessages();
	if (gsst_family_encoder(family, &table_id) != NULL)
	{
		drop_sample(se);
		return;
	}
	table = MemoryContextAlloc(se->cxt, sizeof(gsst_table));
	work = palloc(gsst_train_work_bytes());
	rc = gsst_train_generations(table, se->values, se->lens, se->nvalues, work,
								GSST_PG_TRAIN_GENERATIONS);
	pfree(work);
	if (rc != GSST_OK)
	{
		drop_sample(se);
		ereport(WARNING,
				(errmsg("gsst could not learn a table for family %d: %s",
						family, gsst_strerror(rc))));
		return;
	}
	se->trained = table;
	offer_trained(se, may_write_here, true);
}

/*
 * A value was stored raw because its family has no table yet: keep (a
 * prefix of) it, and once enough bytes are together, learn the family's
 * first table.  A table trained while no learner could start waits for the
 * family's next write.  Values of aborted transactions are dropped.
 */
void
gsst_learn_observe(int32 family, const char *data, Size len, bool may_write_here)
{
	SampleEntry *se;
	bool		found;
	Size		take;
	uint8	   *copy;

	if (gsst_learn_sample_bytes <= 0 || len == 0 ||
		!gsst_can_write_dictionaries() || has_given_up(family))
		return;

	if (sample_hash == NULL)
	{
		sample_hash = gsst_id_hash_create("gsst samples", 16, sizeof(SampleEntry), TopMemoryContext);
	}
	se = hash_search(sample_hash, &family, HASH_ENTER, &found);
	if (!found)
	{
		se->cxt = AllocSetContextCreate(TopMemoryContext, "gsst sample",
										ALLOCSET_DEFAULT_SIZES);
		se->bytes = 0;
		se->nvalues = 0;
		se->capacity = 256;
		se->values = MemoryContextAlloc(se->cxt, se->capacity * sizeof(uint8 *));
		se->lens = MemoryContextAlloc(se->cxt, se->capacity * sizeof(size_t));
		se->trained = NULL;
	}
	if (se->trained != NULL)
	{
		/* a look at the pool without its lock, as for every raw write */
		if (may_write_here || (pool_may_have_room() && learner_allowed(family)))
			offer_trained(se, may_write_here, false);
		return;
	}
	if (se->nvalues == se->capacity)
	{
		se->capacity *= 2;
		se->values = repalloc(se->values, se->capacity * sizeof(uint8 *));
		se->lens = repalloc(se->lens, se->capacity * sizeof(size_t));
	}
	take = Min(len, GSST_SAMPLE_VALUE_MAX);

	/*
	 * Train before the sample passes the limit: at the default, which is the
	 * codec's own sample size, the codec then trains on every value gathered,
	 * in order.  A sample even one value larger makes it draw a 16 kB sample
	 * at random, with repeats, which compresses worse.
	 */
	if (se->nvalues > 0 && se->bytes + take > (Size) gsst_learn_sample_bytes)
	{
		learn_from_sample(se, may_write_here);
		return;
	}
	copy = MemoryContextAlloc(se->cxt, take);
	memcpy(copy, data, take);
	se->values[se->nvalues] = copy;
	se->lens[se->nvalues] = take;
	se->nvalues++;
	se->bytes += take;

	if (se->bytes >= (Size) gsst_learn_sample_bytes)
		learn_from_sample(se, may_write_here);
}

static void
learn_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_ABORT:
			drop_all_samples();
			/* FALLTHROUGH */
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PREPARE:
			if (learn_states != NULL)
			{
				HASH_SEQ_STATUS status;
				LearnState *st;

				hash_seq_init(&status, learn_states);
				while ((st = hash_seq_search(&status)) != NULL)
					st->failed_here = false;
			}
			break;
		default:
			break;
	}
}

void
gsst_learn_init(void)
{
	DefineCustomIntVariable("gsst.learn_sample_bytes",
							"Bytes of values a new gsst column buffers before it learns its first dictionary.",
							"0 turns learning off: such columns store raw text until gsst.train() is called.",
							&gsst_learn_sample_bytes,
							16 * 1024,
							0, 64 * 1024 * 1024,
							PGC_USERSET,
							GUC_UNIT_BYTE,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gsst.max_dictionaries_per_role",
							"Dictionaries the gsst columns of one role's tables may hold, in each database.",
							"Dictionary ids are shared by a database and never reused, so one role must not use them up. 0: no limit.",
							&gsst_max_dictionaries_per_role,
							1000,
							0, INT_MAX,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
	RegisterXactCallback(learn_xact_callback, NULL);

	/* the pool exists only in the postmaster's shared memory */
	if (!process_shared_preload_libraries_in_progress)
		return;
	DefineCustomIntVariable("gsst.max_learners",
							"Learners (background workers that store a new gsst column's first dictionary) that may run at once.",
							"They come on top of max_worker_processes, which gsst raises by this many at server start. 0: no learner; new columns then learn through gsst.train, gsst.compress_table and gsst.load.",
							&gsst_max_learners,
							2,
							0, 64,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = learn_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = learn_shmem_startup;
}
