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
 * transaction, and can be STABLE.  Without a free background worker slot
 * they learn later, from the next sample; explicit and bulk paths
 * (gsst.compress, gsst.load, both VOLATILE) then store the table
 * themselves, in their own transaction, if they get the family's lock
 * without waiting, and other writers keep storing raw until it commits.
 */
#include "gsst.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

/* How long the learner waits for a family's lock before it gives up. */
#define GSST_LEARNER_LOCK_TIMEOUT "5s"

int			gsst_learn_sample_bytes = 16 * 1024;

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
} SampleEntry;

static HTAB *sample_hash = NULL;

/* Families this session stopped trying to teach (quota, failures). */
static HTAB *given_up = NULL;

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
 * Have the learner store the table; *status says what came of it
 * (GSST_LEARN_FAILED when no learner could run).
 */
static uint32
request_learner(int32 family, const gsst_table *table, GsstLearnStatus *status)
{
	dsm_segment *seg;
	LearnRequest *req;
	BackgroundWorker bgw;
	BackgroundWorkerHandle *handle;
	pid_t		pid;
	uint32		id = 0;

	*status = GSST_LEARN_FAILED;
	if (!IsUnderPostmaster)
		return 0;

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
		return 0;
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

	if (!RegisterDynamicBackgroundWorker(&bgw, &handle))
	{
		dsm_detach(seg);
		return 0;
	}
	if (WaitForBackgroundWorkerStartup(handle, &pid) == BGWH_STARTED)
		(void) WaitForBackgroundWorkerShutdown(handle);
	pg_read_barrier();
	*status = (GsstLearnStatus) req->status;
	if (*status == GSST_LEARN_STORED || *status == GSST_LEARN_EXISTS)
		id = req->id;
	else if (*status == GSST_LEARN_FAILED)
		*status = GSST_LEARN_BUSY;	/* it ran and failed: the log says why */
	pfree(handle);
	dsm_detach(seg);
	return id;
}

/* ---- backends ---- */

static void
give_up(int32 family)
{
	if (given_up == NULL)
	{
		given_up = gsst_id_hash_create("gsst families not learning", 16, sizeof(int32), TopMemoryContext);
	}
	(void) hash_search(given_up, &family, HASH_ENTER, NULL);
}

static bool
has_given_up(int32 family)
{
	return given_up != NULL && hash_search(given_up, &family, HASH_FIND, NULL) != NULL;
}

/*
 * Store a family's first dictionary, learned from values written to its
 * column (the caller checked the LEARN right).  Returns the id of the
 * family's dictionary, the one stored or the one another session stored
 * first, or 0 when there is none yet (values stay raw for now).  Without a
 * learner, the table is stored in the current transaction only when
 * may_write_here.
 */
uint32
gsst_learn_store(int32 family, const gsst_table *table, bool may_write_here)
{
	GsstLearnStatus status;
	uint32		id = 0;

	if (!gsst_can_write_dictionaries() || has_given_up(family))
		return 0;

	/*
	 * A transaction that restored dictionary rows holds the id lock to its
	 * end (pg_restore --single-transaction): it stores the table itself.
	 */
	if (gsst_dict_ids_locked_here())
	{
		status = GSST_LEARN_FAILED;
		may_write_here = true;
	}
	else
		id = request_learner(family, table, &status);
	if (status == GSST_LEARN_FAILED && may_write_here)
		id = gsst_dict_create_once(family, table, gsst_family_owner(family), false,
								   gsst_max_dictionaries_per_role,
								   gsst_dict_pending_for(gsst_family_owner(family)),
								   &status);
	switch (status)
	{
		case GSST_LEARN_STORED:
		case GSST_LEARN_EXISTS:
			/* see the learner's commit: the family's cache entry goes stale */
			AcceptInvalidationMessages();
			return id;
		case GSST_LEARN_QUOTA:
			give_up(family);
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

static void
learn_from_sample(SampleEntry *se, bool may_write_here)
{
	int32		family = se->family;
	uint32		table_id;
	gsst_table	table;
	void	   *work;
	int			rc;

	/* another session's dictionary may have committed meanwhile */
	AcceptInvalidationMessages();
	if (gsst_family_encoder(family, &table_id) != NULL)
	{
		drop_sample(se);
		return;
	}
	work = palloc(gsst_train_work_bytes());
	rc = gsst_train_generations(&table, se->values, se->lens, se->nvalues, work,
								GSST_PG_TRAIN_GENERATIONS);
	pfree(work);
	drop_sample(se);
	if (rc != GSST_OK)
	{
		ereport(WARNING,
				(errmsg("gsst could not learn a table for family %d: %s",
						family, gsst_strerror(rc))));
		return;
	}
	(void) gsst_learn_store(family, &table, may_write_here);
}

/*
 * A value was stored raw because its family has no table yet: keep (a
 * prefix of) it, and once enough bytes are together, learn the family's
 * first table.  Values of aborted transactions are dropped.
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
	if (event == XACT_EVENT_ABORT)
		drop_all_samples();
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
}
