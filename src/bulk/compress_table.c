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
#include "bulk/compress_parallel.h"
#include "column/column.h"

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
#include "postmaster/bgworker_internals.h"
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

#include "scaleout/citus.h"
#include "worker/worker.h"

/* Seconds between progress NOTICEs of a long compress_table. */
#define GSST_PROGRESS_SECONDS	10

/* The writer: this backend, which alone writes the new heap. */
typedef struct RewriteWriter
{
	Relation	old_heap;
	RewriteState rw;
	BlockNumber nblocks;
	BlockNumber blocks_done;	/* blocks whose tuples were all written */
	double		tuples_written;
	double		tuples_vacuumed;
	double		recently_dead_adjust;
	TimestampTz last_notice;
} RewriteWriter;

/* Report progress; a NOTICE every GSST_PROGRESS_SECONDS. */
static void
report_progress(RewriteWriter *w, BlockNumber blocks_done, double tuples_written)
{
	const int	progress_index[] = {
		PROGRESS_CLUSTER_HEAP_BLKS_SCANNED,
		PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED,
		PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN
	};
	int64		progress_values[3];
	TimestampTz now;

	progress_values[0] = blocks_done;
	progress_values[1] = (int64) (tuples_written + w->tuples_vacuumed);
	progress_values[2] = (int64) tuples_written;
	pgstat_progress_update_multi_param(3, progress_index, progress_values);
	now = GetCurrentTimestamp();
	if (TimestampDifferenceExceeds(w->last_notice, now, GSST_PROGRESS_SECONDS * 1000))
	{
		w->last_notice = now;
		ereport(NOTICE,
				(errmsg("gsst.compress_table: \"%s\": %u of %u blocks scanned, %.0f rows written so far",
						RelationGetRelationName(w->old_heap), blocks_done, w->nblocks,
						tuples_written)));
	}
}

/* Progress of a parallel rewrite, while its workers run. */
static void
parallel_progress(void *arg, BlockNumber blocks_scanned, double tuples_written)
{
	report_progress((RewriteWriter *) arg, blocks_scanned, tuples_written);
}

/*
 * Write a tuple into the new heap (new NULL: the old one is dead), and
 * report progress when tuples come in block order (a serial rewrite).
 */
static void
write_tuple(void *arg, HeapTuple old, HeapTuple new)
{
	RewriteWriter *w = (RewriteWriter *) arg;
	BlockNumber block = ItemPointerGetBlockNumber(&old->t_self);

	if (new == NULL)
	{
		w->tuples_vacuumed += 1;
		/* the rewrite module still needs to see it */
		if (rewrite_heap_dead_tuple(w->rw, old))
		{
			w->tuples_vacuumed += 1;
			w->recently_dead_adjust -= 1;
		}
	}
	else
	{
		rewrite_heap_tuple(w->rw, old, new);
		w->tuples_written += 1;
	}

	if (block >= w->blocks_done)
	{
		w->blocks_done = block + 1;
		report_progress(w, w->blocks_done, w->tuples_written);
	}
}

/* The serial rewrite reads one range: the whole heap. */
static bool
whole_heap(void *arg, BlockNumber *start, BlockNumber *nblocks, int *range_no)
{
	BlockNumber *left = (BlockNumber *) arg;

	if (*left == InvalidBlockNumber)
		return false;
	*start = 0;
	*nblocks = *left;
	*range_no = 0;
	*left = InvalidBlockNumber;
	return true;
}

/* What a rewrite did, for the closing NOTICE. */
typedef struct RewriteReport
{
	double		tuples_written;
	double		tuples_vacuumed;
	int			nworkers;		/* parallel workers; 0: serial */
	double		receive_s;		/* parallel: this backend waiting for the workers */
	double		write_s;		/* parallel: this backend writing their leftovers */
	BlockNumber worker_pages;	/* parallel: the pages the workers wrote */
	GsstRewriteCounts counts;	/* the producers' */
} RewriteReport;

/*
 * Copy the old heap into the new one, re-encoding the gsst columns: heapam's
 * copy for VACUUM FULL with the tuples passed through batches, produced here
 * or by up to nworkers parallel workers.
 */
static void
copy_and_encode(Oid new_heap_oid, Oid old_heap_oid, int ncolumns, GsstColumn *columns,
				int nworkers, TransactionId *frozen_xid, MultiXactId *cutoff_multi,
				RewriteReport *report)
{
	TransactionId oldest_xmin;
	TransactionId freeze_xid;
	MultiXactId multi_cutoff;
	Relation	old_heap;
	Relation	new_heap;
	Relation	rel_relation;
	HeapTuple	reltup;
	Form_pg_class relform;
	RewriteWriter w;
	GsstParallelResult parallel;

	new_heap = table_open(new_heap_oid, AccessExclusiveLock);
	old_heap = table_open(old_heap_oid, AccessExclusiveLock);

	/* keep autovacuum off the old TOAST table (see copy_table_data) */
	if (old_heap->rd_rel->reltoastrelid)
		LockRelationOid(old_heap->rd_rel->reltoastrelid, AccessExclusiveLock);

#if PG_VERSION_NUM >= 160000
	{
		VacuumParams params;
		struct VacuumCutoffs cutoffs;

		memset(&params, 0, sizeof(params));
		vacuum_get_cutoffs(old_heap, &params, &cutoffs);
		oldest_xmin = cutoffs.OldestXmin;
		freeze_xid = cutoffs.FreezeLimit;
		multi_cutoff = cutoffs.MultiXactCutoff;
	}
#else
	{
		MultiXactId oldest_mxact;

		vacuum_set_xid_limits(old_heap, 0, 0, 0, 0, &oldest_xmin, &oldest_mxact,
							  &freeze_xid, &multi_cutoff);
	}
#endif
	/* relfrozenxid and relminmxid must not go backwards */
	if (TransactionIdIsValid(old_heap->rd_rel->relfrozenxid) &&
		TransactionIdPrecedes(freeze_xid, old_heap->rd_rel->relfrozenxid))
		freeze_xid = old_heap->rd_rel->relfrozenxid;
	if (MultiXactIdIsValid(old_heap->rd_rel->relminmxid) &&
		MultiXactIdPrecedes(multi_cutoff, old_heap->rd_rel->relminmxid))
		multi_cutoff = old_heap->rd_rel->relminmxid;

	memset(&w, 0, sizeof(w));
	w.old_heap = old_heap;
	w.nblocks = RelationGetNumberOfBlocks(old_heap);
	w.last_notice = GetCurrentTimestamp();
	pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
								 PROGRESS_CLUSTER_PHASE_SEQ_SCAN_HEAP);
	pgstat_progress_update_param(PROGRESS_CLUSTER_TOTAL_HEAP_BLKS, w.nblocks);

	/*
	 * Parallel workers cannot read this backend's local buffers, nor log the
	 * mappings logical decoding needs of a catalog's rewrite.
	 */
	if (RelationUsesLocalBuffers(old_heap) || RelationIsAccessibleInLogicalDecoding(old_heap))
		nworkers = 0;
	gsst_rewrite_parallel(old_heap, new_heap, oldest_xmin, freeze_xid, multi_cutoff,
						  ncolumns, columns, w.nblocks, nworkers,
						  parallel_progress, &w, &parallel);
	memset(report, 0, sizeof(*report));
	if (parallel.nworkers > 0)
	{
		instr_time	start;
		instr_time	end;

		report->nworkers = parallel.nworkers;
		report->receive_s = parallel.receive_s;
		report->counts = parallel.counts;
		report->worker_pages = parallel.pages;
		w.tuples_written = parallel.tuples_placed;
		/* no more progress by block: the rest come in any order */
		w.blocks_done = w.nblocks;

		/* heapam's rewrite appends the workers' leftovers after their pages */
		INSTR_TIME_SET_CURRENT(start);
		w.rw = begin_heap_rewrite(old_heap, new_heap, oldest_xmin, freeze_xid, multi_cutoff);
		gsst_rewrite_parallel_replay(&parallel, RelationGetRelid(old_heap), write_tuple, &w);
		end_heap_rewrite(w.rw);
		INSTR_TIME_SET_CURRENT(end);
		INSTR_TIME_SUBTRACT(end, start);
		report->write_s = INSTR_TIME_GET_DOUBLE(end);
	}
	else
	{
		GsstRewriteProducer p;
		BlockNumber left = w.nblocks;

		w.rw = begin_heap_rewrite(old_heap, new_heap, oldest_xmin, freeze_xid, multi_cutoff);
		memset(&p, 0, sizeof(p));
		p.old_heap = old_heap;
		p.oldest_xmin = oldest_xmin;
		p.ncolumns = ncolumns;
		p.columns = columns;
		p.attnums = gsst_rewrite_attnums(old_heap, ncolumns, columns);
		p.next_range = whole_heap;
		p.range_arg = &left;
		p.emit = write_tuple;
		p.arg = &w;
		gsst_rewrite_produce(&p);
		report->counts = p.counts;
		end_heap_rewrite(w.rw);
	}
	report_progress(&w, w.nblocks, w.tuples_written);
	report->tuples_written = w.tuples_written;
	report->tuples_vacuumed = w.tuples_vacuumed;

	*frozen_xid = freeze_xid;
	*cutoff_multi = multi_cutoff;

	/* pg_class statistics of the new heap, as copy_table_data does */
	rel_relation = table_open(RelationRelationId, RowExclusiveLock);
	reltup = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(new_heap_oid));
	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", new_heap_oid);
	relform = (Form_pg_class) GETSTRUCT(reltup);
	relform->relpages = RelationGetNumberOfBlocks(new_heap);
	relform->reltuples = w.tuples_written;
	CatalogTupleUpdate(rel_relation, &reltup->t_self, reltup);
	heap_freetuple(reltup);
	table_close(rel_relation, RowExclusiveLock);

	table_close(old_heap, NoLock);
	table_close(new_heap, NoLock);
	CommandCounterIncrement();
}

/* Rewrite one heap relation; returns the number of values encoded. */
static int64
rewrite_relation(Oid relid, int ncolumns, GsstColumn *columns, int nworkers)
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
	RewriteReport rs;
	GsstRewriteCounts *counts = &rs.counts;
	double		total_s;
	double		swap_s;
	char	   *detail;
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
	new_heap = make_new_heap(relid, tablespace, access_method, relpersistence,
							 AccessExclusiveLock);
	copy_and_encode(new_heap, relid, ncolumns, columns, nworkers, &frozen_xid, &cutoff_multi,
					&rs);

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
	total_s = INSTR_TIME_GET_DOUBLE(end);
	swap_s = total_s - INSTR_TIME_GET_DOUBLE(swap_start);
	if (rs.nworkers == 0)
		detail = psprintf("%lld batches encoded by the gsst worker, %lld in this backend, in %.3f s: "
						  "scan %.3f s, hand-off %.3f s, wait for the worker %.3f s, tiles to values %.3f s, encode here %.3f s, "
						  "form tuples %.3f s, write %.3f s, swap and reindex %.3f s.",
						  (long long) counts->batches_on_worker, (long long) counts->batches_here,
						  total_s, counts->scan_s, counts->handoff_s, counts->wait_s, counts->results_s,
						  counts->encode_s, counts->form_s, counts->emit_s, swap_s);
	else
		detail = psprintf("%d parallel workers; %lld batches encoded by the gsst worker, %lld by the parallel workers, in %.3f s. "
						  "This backend: wait for the parallel workers %.3f s, write %.3f s, swap and reindex %.3f s. "
						  "Parallel workers, summed: scan %.3f s, hand-off %.3f s, wait for the gsst worker %.3f s, tiles to values %.3f s, "
						  "encode %.3f s, form tuples %.3f s, write %u pages and queue the rest %.3f s.",
						  rs.nworkers, (long long) counts->batches_on_worker,
						  (long long) counts->batches_here, total_s,
						  rs.receive_s, rs.write_s, swap_s,
						  counts->scan_s, counts->handoff_s, counts->wait_s, counts->results_s,
						  counts->encode_s, counts->form_s, rs.worker_pages, counts->emit_s);
	ereport(NOTICE,
			(errmsg("gsst.compress_table: \"%s\": %.0f rows written, %lld values encoded (%lld MB of text), %lld already current; %.0f dead rows removed",
					get_rel_name(relid), rs.tuples_written, (long long) counts->values_encoded,
					(long long) (counts->raw_bytes >> 20), (long long) counts->values_kept,
					rs.tuples_vacuumed),
			 errdetail_internal("%s", detail)));
	return counts->values_encoded;
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
	int			nworkers;
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
	/* as CREATE INDEX: max_parallel_maintenance_workers unless told */
	nworkers = max_parallel_maintenance_workers;
	if (PG_NARGS() > 3 && !PG_ARGISNULL(3))
	{
		nworkers = PG_GETARG_INT32(3);
		if (nworkers < 0 || nworkers > MAX_PARALLEL_WORKER_LIMIT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gsst.compress_table: workers must be between 0 and %d",
							MAX_PARALLEL_WORKER_LIMIT)));
	}
	relid = PG_GETARG_OID(0);
	/* a Citus distributed table: its placements, each on its node */
	if (gsst_citus_distributed(relid))
		PG_RETURN_INT64(gsst_citus_compress_table(relid, column_name, retrain,
												  PG_NARGS() > 3 && !PG_ARGISNULL(3) ? nworkers : -1));
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
		total += rewrite_relation(lfirst_oid(lc), ncolumns, columns, nworkers);
	PG_RETURN_INT64(total);
}
