/*
 * compress_table.c - gsst.compress_table(rel [, column] [, retrain]).
 *
 * Re-encodes every value of a table's gsst columns with the column's
 * current dictionary while rewriting the heap the way VACUUM FULL does:
 * make_new_heap, heapam's rewrite keeping xmin/xmax and update chains
 * (rewriteheap.c), finish_heap_swap, which rebuilds the indexes and swaps
 * TOAST.  Tuples pass through batches (batch.c) so that the worker encodes
 * a batch while this backend writes the one before and reads the one
 * after.  Progress shows in pg_stat_progress_cluster; the closing NOTICE
 * says where the time went.
 */
#include "batch.h"

#include "access/detoast.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/relscan.h"
#include "access/rewriteheap.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/indexing.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/cluster.h"
#include "commands/progress.h"
#include "commands/tablecmds.h"
#include "commands/vacuum.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "worker.h"

/* Seconds between progress NOTICEs of a long compress_table. */
#define GSST_PROGRESS_SECONDS	10

/* One tuple of a rewrite batch. */
typedef struct RewriteEntry
{
	HeapTuple	tuple;			/* copy of the old tuple */
	bool		dead;
	int32		first_value;	/* index into value_index, -1 when dead */
} RewriteEntry;

typedef struct RewriteBatch
{
	GsstBatch  *encode;
	RewriteEntry *entries;
	int			nentries;
	int			capacity;
	int32	   *value_index;	/* per live tuple and column: value, or -1 */
	int			nlive;
	Size		tuple_bytes;
} RewriteBatch;

typedef struct RewriteScan
{
	Relation	old_heap;
	Relation	new_heap;
	RewriteState rw;
	TableScanDesc scan;
	TupleTableSlot *slot;
	TransactionId oldest_xmin;
	int			ncolumns;
	GsstColumn *columns;
	AttrNumber *attnums;		/* of the columns in this relation */
	Datum	   *values;
	bool	   *isnull;
	bool		scan_done;
	/* counts */
	double		tuples_written;
	double		tuples_vacuumed;
	double		tuples_recently_dead;
	int64		values_encoded;
	int64		values_kept;
	int64		raw_bytes;
	int64		batches_on_worker;
	int64		batches_here;
	BlockNumber prev_block;
	TimestampTz last_notice;
	/* where the time went */
	instr_time	scan_time;		/* reading, visibility, gathering values */
	instr_time	form_time;		/* new tuples from old ones and results */
	instr_time	write_time;		/* into the new heap (rewriteheap.c) */
	GsstBatchTimes batch_times; /* handing off, waiting, encoding here */
} RewriteScan;

static void
report_scan_progress(RewriteScan *rs)
{
	HeapScanDesc hscan = (HeapScanDesc) rs->scan;
	TimestampTz now;

	if (hscan->rs_nblocks == 0 || hscan->rs_cblock == InvalidBlockNumber ||
		hscan->rs_cblock == rs->prev_block)
		return;
	rs->prev_block = hscan->rs_cblock;
	pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_BLKS_SCANNED,
								 (hscan->rs_cblock + hscan->rs_nblocks -
								  hscan->rs_startblock) % hscan->rs_nblocks + 1);
	now = GetCurrentTimestamp();
	if (TimestampDifferenceExceeds(rs->last_notice, now, GSST_PROGRESS_SECONDS * 1000))
	{
		rs->last_notice = now;
		ereport(NOTICE,
				(errmsg("gsst.compress_table: \"%s\": %u of %u blocks scanned, %lld values (%lld MB) encoded so far",
						RelationGetRelationName(rs->old_heap),
						(hscan->rs_cblock + hscan->rs_nblocks - hscan->rs_startblock) % hscan->rs_nblocks + 1,
						hscan->rs_nblocks, (long long) rs->values_encoded,
						(long long) (rs->raw_bytes >> 20))));
	}
}

/*
 * Read tuples into a new batch until it holds gsst.batch_bytes of text to
 * encode (or the scan ends).  Visibility is judged as VACUUM FULL does.
 */
static RewriteBatch *
fill_rewrite_batch(RewriteScan *rs, MemoryContext parent)
{
	GsstBatch  *encode = gsst_batch_create(parent, rs->ncolumns);
	RewriteBatch *batch = MemoryContextAllocZero(encode->cxt, sizeof(RewriteBatch));
	MemoryContext old = MemoryContextSwitchTo(encode->cxt);
	TupleDesc	desc = RelationGetDescr(rs->old_heap);
	BufferHeapTupleTableSlot *hslot = (BufferHeapTupleTableSlot *) rs->slot;
	GsstBuffer	decoded = GSST_BUFFER_INIT;
	int			value_cap = 1024;

	batch->encode = encode;
	batch->capacity = 1024;
	batch->entries = palloc(sizeof(RewriteEntry) * batch->capacity);
	batch->value_index = palloc(sizeof(int32) * value_cap * Max(rs->ncolumns, 1));
	for (int c = 0; c < rs->ncolumns; c++)
		gsst_batch_set_table(&encode->columns[c], rs->columns[c].family,
							 rs->columns[c].table_id, rs->columns[c].encoder, encode->cxt);
	decoded.cxt = encode->cxt;

	while (!rs->scan_done &&
		   gsst_batch_raw_bytes(encode) < (Size) gsst_batch_bytes &&
		   batch->tuple_bytes < 4 * (Size) gsst_batch_bytes &&
		   batch->nentries < GSST_BATCH_MAX_ROWS)
	{
		HeapTuple	tuple;
		Buffer		buf;
		bool		isdead;
		RewriteEntry *e;

		CHECK_FOR_INTERRUPTS();
		if (!table_scan_getnextslot(rs->scan, ForwardScanDirection, rs->slot))
		{
			rs->scan_done = true;
			pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_BLKS_SCANNED,
										 ((HeapScanDesc) rs->scan)->rs_nblocks);
			break;
		}
		report_scan_progress(rs);

		tuple = ExecFetchSlotHeapTuple(rs->slot, false, NULL);
		buf = hslot->buffer;
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		switch (HeapTupleSatisfiesVacuum(tuple, rs->oldest_xmin, buf))
		{
			case HEAPTUPLE_DEAD:
				isdead = true;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				rs->tuples_recently_dead += 1;
				isdead = false;
				break;
			case HEAPTUPLE_LIVE:
				isdead = false;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				/* with AccessExclusiveLock, only our own transaction's */
				if (!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
					elog(WARNING, "concurrent insert in progress within table \"%s\"",
						 RelationGetRelationName(rs->old_heap));
				isdead = false;
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				if (!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tuple->t_data)))
					elog(WARNING, "concurrent delete in progress within table \"%s\"",
						 RelationGetRelationName(rs->old_heap));
				rs->tuples_recently_dead += 1;
				isdead = false;
				break;
			default:
				elog(ERROR, "unexpected HeapTupleSatisfiesVacuum result");
				isdead = false;
				break;
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		if (batch->nentries == batch->capacity)
		{
			batch->capacity *= 2;
			batch->entries = repalloc_huge(batch->entries, sizeof(RewriteEntry) * batch->capacity);
		}
		e = &batch->entries[batch->nentries++];
		e->tuple = heap_copytuple(tuple);
		e->dead = isdead;
		e->first_value = -1;
		batch->tuple_bytes += tuple->t_len;
		if (isdead)
			continue;

		if (batch->nlive == value_cap)
		{
			value_cap *= 2;
			batch->value_index = repalloc_huge(batch->value_index,
											   sizeof(int32) * value_cap * Max(rs->ncolumns, 1));
		}
		e->first_value = batch->nlive * rs->ncolumns;
		batch->nlive++;
		for (int c = 0; c < rs->ncolumns; c++)
		{
			GsstBatchColumn *col = &encode->columns[c];
			bool		null;
			Datum		d = heap_getattr(e->tuple, rs->attnums[c], desc, &null);
			int32		vi = -1;

			if (!null && !(col->table_id != 0 && gsst_value_encoded_with(d, col->table_id)))
			{
				struct varlena *value = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
				Size		len;
				const char *bytes = gsst_value_bytes(value, &len, &decoded);

				vi = gsst_batch_add(col, bytes, len);
				if ((Pointer) value != DatumGetPointer(d))
					pfree(value);
			}
			else if (!null)
				rs->values_kept++;
			batch->value_index[e->first_value + c] = vi;
		}
	}
	if (decoded.data)
		pfree(decoded.data);
	MemoryContextSwitchTo(old);
	return batch;
}

/*
 * Write a finished batch into the new heap, in scan order: first form every
 * new tuple, then hand them to the rewrite, so that each step is timed
 * once a batch.
 */
static void
write_rewrite_batch(RewriteScan *rs, RewriteBatch *batch)
{
	TupleDesc	old_desc = RelationGetDescr(rs->old_heap);
	TupleDesc	new_desc = RelationGetDescr(rs->new_heap);
	MemoryContext old = MemoryContextSwitchTo(batch->encode->cxt);
	HeapTuple  *formed = palloc(sizeof(HeapTuple) * Max(batch->nentries, 1));
	const int	progress_index[] = {
		PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED,
		PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN
	};
	int64		progress_values[2];
	instr_time	start;
	instr_time	formed_at;
	instr_time	end;

	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < batch->nentries; i++)
	{
		RewriteEntry *e = &batch->entries[i];

		formed[i] = NULL;
		if (e->dead)
			continue;
		heap_deform_tuple(e->tuple, old_desc, rs->values, rs->isnull);
		for (int a = 0; a < new_desc->natts; a++)
			if (TupleDescAttr(new_desc, a)->attisdropped)
				rs->isnull[a] = true;
		for (int c = 0; c < rs->ncolumns; c++)
		{
			int32		vi = batch->value_index[e->first_value + c];

			if (vi >= 0)
			{
				rs->values[rs->attnums[c] - 1] =
					PointerGetDatum(batch->encode->columns[c].results[vi]);
				rs->values_encoded++;
			}
		}
		formed[i] = heap_form_tuple(new_desc, rs->values, rs->isnull);
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	INSTR_TIME_SET_CURRENT(formed_at);

	for (int i = 0; i < batch->nentries; i++)
	{
		RewriteEntry *e = &batch->entries[i];

		if (e->dead)
		{
			rs->tuples_vacuumed += 1;
			/* the rewrite module still needs to see it */
			if (rewrite_heap_dead_tuple(rs->rw, e->tuple))
			{
				rs->tuples_vacuumed += 1;
				rs->tuples_recently_dead -= 1;
			}
			continue;
		}
		rewrite_heap_tuple(rs->rw, e->tuple, formed[i]);
		heap_freetuple(formed[i]);
		rs->tuples_written += 1;
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(rs->form_time, formed_at, start);
	INSTR_TIME_ACCUM_DIFF(rs->write_time, end, formed_at);

	for (int c = 0; c < rs->ncolumns; c++)
		rs->raw_bytes += batch->encode->columns[c].len;
	if (batch->encode->used_worker)
		rs->batches_on_worker++;
	else
		rs->batches_here++;
	gsst_batch_times_add(&rs->batch_times, &batch->encode->times);
	progress_values[0] = (int64) (rs->tuples_written + rs->tuples_vacuumed);
	progress_values[1] = (int64) rs->tuples_written;
	pgstat_progress_update_multi_param(2, progress_index, progress_values);
	MemoryContextSwitchTo(old);
}

/*
 * Copy the old heap into the new one, re-encoding the gsst columns.  This
 * is heapam's copy for VACUUM FULL with the tuples passed through batches.
 */
static void
copy_and_encode(Oid new_heap_oid, Oid old_heap_oid, int ncolumns, GsstColumn *columns,
				TransactionId *frozen_xid, MultiXactId *cutoff_multi, RewriteScan *rs)
{
	TransactionId oldest_xmin;
	TransactionId freeze_xid;
	MultiXactId multi_cutoff;
	RewriteBatch *pending = NULL;
	Relation	rel_relation;
	HeapTuple	reltup;
	Form_pg_class relform;
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "gsst compress_table",
											  ALLOCSET_DEFAULT_SIZES);

	rs->new_heap = table_open(new_heap_oid, AccessExclusiveLock);
	rs->old_heap = table_open(old_heap_oid, AccessExclusiveLock);

	/* keep autovacuum off the old TOAST table (see copy_table_data) */
	if (rs->old_heap->rd_rel->reltoastrelid)
		LockRelationOid(rs->old_heap->rd_rel->reltoastrelid, AccessExclusiveLock);

#if PG_VERSION_NUM >= 160000
	{
		VacuumParams params;
		struct VacuumCutoffs cutoffs;

		memset(&params, 0, sizeof(params));
		vacuum_get_cutoffs(rs->old_heap, &params, &cutoffs);
		oldest_xmin = cutoffs.OldestXmin;
		freeze_xid = cutoffs.FreezeLimit;
		multi_cutoff = cutoffs.MultiXactCutoff;
	}
#else
	{
		MultiXactId oldest_mxact;

		vacuum_set_xid_limits(rs->old_heap, 0, 0, 0, 0, &oldest_xmin, &oldest_mxact,
							  &freeze_xid, &multi_cutoff);
	}
#endif
	/* relfrozenxid and relminmxid must not go backwards */
	if (TransactionIdIsValid(rs->old_heap->rd_rel->relfrozenxid) &&
		TransactionIdPrecedes(freeze_xid, rs->old_heap->rd_rel->relfrozenxid))
		freeze_xid = rs->old_heap->rd_rel->relfrozenxid;
	if (MultiXactIdIsValid(rs->old_heap->rd_rel->relminmxid) &&
		MultiXactIdPrecedes(multi_cutoff, rs->old_heap->rd_rel->relminmxid))
		multi_cutoff = rs->old_heap->rd_rel->relminmxid;

	rs->oldest_xmin = oldest_xmin;
	rs->ncolumns = ncolumns;
	rs->columns = columns;
	rs->attnums = palloc(sizeof(AttrNumber) * Max(ncolumns, 1));
	for (int c = 0; c < ncolumns; c++)
	{
		rs->attnums[c] = get_attnum(old_heap_oid, columns[c].name);
		if (rs->attnums[c] <= 0)
			elog(ERROR, "column \"%s\" not found in relation %u", columns[c].name, old_heap_oid);
	}
	rs->values = palloc(sizeof(Datum) * RelationGetDescr(rs->new_heap)->natts);
	rs->isnull = palloc(sizeof(bool) * RelationGetDescr(rs->new_heap)->natts);
	rs->prev_block = InvalidBlockNumber;
	rs->last_notice = GetCurrentTimestamp();

	rs->rw = begin_heap_rewrite(rs->old_heap, rs->new_heap, oldest_xmin, freeze_xid,
								multi_cutoff);
	pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
								 PROGRESS_CLUSTER_PHASE_SEQ_SCAN_HEAP);
	rs->scan = table_beginscan(rs->old_heap, SnapshotAny, 0, NULL);
	pgstat_progress_update_param(PROGRESS_CLUSTER_TOTAL_HEAP_BLKS,
								 ((HeapScanDesc) rs->scan)->rs_nblocks);
	rs->slot = table_slot_create(rs->old_heap, NULL);

	/*
	 * The pipeline: batch N goes to the worker, then batch N-1 is written,
	 * then batch N+1 is read, then batch N is waited for.
	 */
	for (;;)
	{
		RewriteBatch *current = NULL;

		if (!rs->scan_done)
		{
			instr_time	start;
			instr_time	end;

			INSTR_TIME_SET_CURRENT(start);
			current = fill_rewrite_batch(rs, cxt);
			INSTR_TIME_SET_CURRENT(end);
			INSTR_TIME_ACCUM_DIFF(rs->scan_time, end, start);
			if (current->nentries == 0)
			{
				gsst_batch_free(current->encode);
				current = NULL;
			}
			else
				gsst_batch_submit(current->encode);
		}
		if (pending != NULL)
		{
			gsst_batch_finish(pending->encode);
			write_rewrite_batch(rs, pending);
			gsst_batch_free(pending->encode);
		}
		pending = current;
		if (pending == NULL && rs->scan_done)
			break;
	}

	table_endscan(rs->scan);
	ExecDropSingleTupleTableSlot(rs->slot);
	end_heap_rewrite(rs->rw);

	*frozen_xid = freeze_xid;
	*cutoff_multi = multi_cutoff;

	/* pg_class statistics of the new heap, as copy_table_data does */
	rel_relation = table_open(RelationRelationId, RowExclusiveLock);
	reltup = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(new_heap_oid));
	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", new_heap_oid);
	relform = (Form_pg_class) GETSTRUCT(reltup);
	relform->relpages = RelationGetNumberOfBlocks(rs->new_heap);
	relform->reltuples = rs->tuples_written;
	CatalogTupleUpdate(rel_relation, &reltup->t_self, reltup);
	heap_freetuple(reltup);
	table_close(rel_relation, RowExclusiveLock);

	table_close(rs->old_heap, NoLock);
	table_close(rs->new_heap, NoLock);
	CommandCounterIncrement();
	MemoryContextDelete(cxt);
}

/* Rewrite one heap relation; returns the number of values encoded. */
static int64
rewrite_relation(Oid relid, int ncolumns, GsstColumn *columns)
{
	Relation	rel = table_open(relid, AccessExclusiveLock);
	Oid			tablespace = rel->rd_rel->reltablespace;
	Oid			access_method = rel->rd_rel->relam;
	char		relpersistence = rel->rd_rel->relpersistence;
	Oid			new_heap;
	TransactionId frozen_xid;
	MultiXactId cutoff_multi;
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
	RewriteScan rs;
	instr_time	start;
	instr_time	swap_start;
	instr_time	end;

	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot compress temporary tables of other sessions")));
	if (access_method != HEAP_TABLE_AM_OID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gsst.compress_table supports heap tables only, and \"%s\" uses another access method",
						RelationGetRelationName(rel))));
	CheckTableNotInUse(rel, "gsst.compress_table");
	if (rel->rd_rel->relkind == RELKIND_MATVIEW && !RelationIsPopulated(rel))
	{
		table_close(rel, NoLock);
		return 0;
	}
	TransferPredicateLocksToHeapRelation(rel);

	/* as CLUSTER: index functions run as the owner, restricted */
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(rel->rd_rel->relowner,
						   save_sec_context | SECURITY_RESTRICTED_OPERATION);
	save_nestlevel = NewGUCNestLevel();
	table_close(rel, NoLock);

	INSTR_TIME_SET_CURRENT(start);
	pgstat_progress_start_command(PROGRESS_COMMAND_CLUSTER, relid);
	memset(&rs, 0, sizeof(rs));
	new_heap = make_new_heap(relid, tablespace, access_method, relpersistence,
							 AccessExclusiveLock);
	copy_and_encode(new_heap, relid, ncolumns, columns, &frozen_xid, &cutoff_multi, &rs);

	/* swap files, rebuild indexes, swap TOAST by links, drop the old heap */
	INSTR_TIME_SET_CURRENT(swap_start);
	finish_heap_swap(relid, new_heap, false, false, false, true,
					 frozen_xid, cutoff_multi, relpersistence);

	AtEOXact_GUC(false, save_nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	pgstat_progress_end_command();

	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	INSTR_TIME_SUBTRACT(swap_start, start);
	ereport(NOTICE,
			(errmsg("gsst.compress_table: \"%s\": %.0f rows written, %lld values encoded (%lld MB of text), %lld already current; %.0f dead rows removed",
					get_rel_name(relid), rs.tuples_written, (long long) rs.values_encoded,
					(long long) (rs.raw_bytes >> 20), (long long) rs.values_kept,
					rs.tuples_vacuumed),
			 errdetail("%lld batches encoded by the gsst worker, %lld in this backend, in %.3f s: "
					   "scan %.3f s, hand-off %.3f s, wait for the worker %.3f s, encode here %.3f s, "
					   "form tuples %.3f s, write %.3f s, swap and reindex %.3f s.",
					   (long long) rs.batches_on_worker, (long long) rs.batches_here,
					   INSTR_TIME_GET_DOUBLE(end),
					   INSTR_TIME_GET_DOUBLE(rs.scan_time),
					   INSTR_TIME_GET_DOUBLE(rs.batch_times.handoff),
					   INSTR_TIME_GET_DOUBLE(rs.batch_times.wait),
					   INSTR_TIME_GET_DOUBLE(rs.batch_times.encode),
					   INSTR_TIME_GET_DOUBLE(rs.form_time),
					   INSTR_TIME_GET_DOUBLE(rs.write_time),
					   INSTR_TIME_GET_DOUBLE(end) - INSTR_TIME_GET_DOUBLE(swap_start))));
	return rs.values_encoded;
}

/* The gsst columns of a relation (one, if column_name is given). */
static GsstColumn *
gsst_columns_of(Relation rel, const char *column_name, int *ncolumns)
{
	const GsstCatalog *cat = gsst_catalog(false);
	TupleDesc	desc = RelationGetDescr(rel);
	GsstColumn *result = palloc0(sizeof(GsstColumn) * Max(desc->natts, 1));
	int			n = 0;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (column_name != NULL && strcmp(NameStr(att->attname), column_name) != 0)
			continue;
		if (att->atttypid != cat->gsst_type || att->atttypmod <= 0)
		{
			if (column_name != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("column \"%s\" of relation \"%s\" is not a gsst column with a dictionary family",
								column_name, RelationGetRelationName(rel)),
						 errhint("Use ALTER TABLE ... ALTER COLUMN ... SET COMPRESSION gsst first.")));
			continue;
		}
		result[n].name = pstrdup(NameStr(att->attname));
		result[n].family = att->atttypmod;
		n++;
	}
	if (column_name != NULL && n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						column_name, RelationGetRelationName(rel))));
	*ncolumns = n;
	return result;
}

PG_FUNCTION_INFO_V1(gsst_compress_table);
Datum
gsst_compress_table(PG_FUNCTION_ARGS)
{
	Oid			relid;
	const char *column_name = PG_ARGISNULL(1) ? NULL : NameStr(*PG_GETARG_NAME(1));
	bool		retrain = PG_ARGISNULL(2) ? false : PG_GETARG_BOOL(2);
	Relation	rel;
	char		relkind;
	GsstColumn *columns;
	int			ncolumns;
	List	   *leaves = NIL;
	ListCell   *lc;
	int64		total = 0;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gsst.compress_table: the relation must not be null")));
	relid = PG_GETARG_OID(0);
	rel = gsst_open_checked(relid, AccessExclusiveLock,
							GSST_CHECK_OWNER | GSST_CHECK_NOT_CATALOG,
							GSST_RELKINDS_WITH_ROWS);
	relkind = rel->rd_rel->relkind;
	columns = gsst_columns_of(rel, column_name, &ncolumns);
	relation_close(rel, NoLock);
	if (ncolumns == 0)
	{
		ereport(NOTICE,
				(errmsg("relation \"%s\" has no gsst columns; nothing to do", get_rel_name(relid))));
		PG_RETURN_INT64(0);
	}

	for (int c = 0; c < ncolumns; c++)
	{
		uint32		id = 0;
		bool		may_train = gsst_family_may(columns[c].family, GSST_RIGHT_TRAIN);

		if (retrain && !may_train)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to train gsst family %d of column \"%s\"",
							columns[c].family, columns[c].name),
					 errdetail("The family belongs to a column of a table owned by another role.")));
		if (may_train && (retrain || gsst_family_encoder(columns[c].family, &id) == NULL))
			(void) gsst_train_column(relid, columns[c].name, columns[c].family, true);
		gsst_column_resolve(&columns[c], CurrentMemoryContext);
		if (columns[c].table_id == 0)
			ereport(NOTICE,
					(errmsg("column \"%s\" has no dictionary it may use, and no values to learn one from; its values stay as they are",
							columns[c].name)));
	}

	if (relkind == RELKIND_PARTITIONED_TABLE)
	{
		/* the parent's lock keeps the partitions attached */
		foreach(lc, find_all_inheritors(relid, NoLock, NULL))
		{
			Oid			leaf = lfirst_oid(lc);
			char		k = get_rel_relkind(leaf);

			if (k != RELKIND_RELATION && k != RELKIND_MATVIEW)
				continue;
			/* as CLUSTER and VACUUM: only the owner's, checked before locking */
			if (!gsst_owns_relation(leaf, GetUserId()))
			{
				ereport(WARNING,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("skipping partition \"%s\": only its owner can compress it",
								get_rel_name(leaf))));
				continue;
			}
			LockRelationOid(leaf, AccessExclusiveLock);
			leaves = lappend_oid(leaves, leaf);
		}
	}
	else
		leaves = list_make1_oid(relid);

	foreach(lc, leaves)
		total += rewrite_relation(lfirst_oid(lc), ncolumns, columns);
	PG_RETURN_INT64(total);
}
