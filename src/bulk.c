/*
 * bulk.c - batches of values, and the two bulk paths built on them:
 *
 *	gsst.compress_table(rel [, column] [, retrain])
 *		re-encodes every value of a table's gsst columns with the column's
 *		current dictionary while rewriting the heap the way VACUUM FULL does
 *		(make_new_heap, heap rewrite keeping xmin/xmax and update chains,
 *		finish_heap_swap, which rebuilds the indexes and swaps TOAST);
 *
 *	gsst.load(target, source_query [, batch_rows] [, columns])
 *		reads the source query in batches, encodes the gsst columns of each
 *		batch in one request, and inserts the batch with INSERT ... SELECT
 *		through the executor (triggers, constraints, indexes, partitions).
 *
 * Both pipeline their batches: while the worker encodes batch N, the backend
 * writes batch N-1 and then reads batch N+1.  Without the worker the backend
 * encodes each value itself, which gives the same bytes.
 */
#include "worker.h"

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

/* Tuples (or rows) a batch holds at most, whatever their size. */
#define GSST_BATCH_MAX_ROWS		(1024 * 1024)

/* Seconds between progress NOTICEs of a long compress_table. */
#define GSST_PROGRESS_SECONDS	10

/* ---- batches ---- */

GsstBatch *
gsst_batch_create(MemoryContext parent, int ncolumns)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "gsst batch",
											  ALLOCSET_DEFAULT_SIZES);
	GsstBatch  *batch = MemoryContextAllocZero(cxt, sizeof(GsstBatch));

	batch->cxt = cxt;
	batch->ncolumns = ncolumns;
	batch->columns = MemoryContextAllocZero(cxt, sizeof(GsstBatchColumn) * Max(ncolumns, 1));
	return batch;
}

/*
 * Set the table a column is encoded with (table_id 0: none, values stay
 * raw).  The encoder must stay valid as long as the batch.
 */
void
gsst_batch_set_table(GsstBatchColumn *col, int32 family, uint32 table_id,
					 const gsst_encoder *encoder, MemoryContext cxt)
{
	col->family = family;
	col->table_id = encoder ? table_id : 0;
	col->encoder = encoder;
	col->capacity = 1024;
	col->offsets = MemoryContextAlloc(cxt, sizeof(uint64) * (col->capacity + 1));
	col->offsets[0] = 0;
	col->data_cap = 64 * 1024;
	col->data = MemoryContextAllocHuge(cxt, col->data_cap);
	col->len = 0;
	col->nvalues = 0;
	if (encoder)
	{
		int			n;

		col->table_bytes = MemoryContextAlloc(cxt, GSST_TABLE_MAX_BYTES);
		n = gsst_table_serialize(&encoder->table, col->table_bytes, GSST_TABLE_MAX_BYTES);
		if (n < 0)
			elog(ERROR, "could not serialize gsst table %u: %s", table_id, gsst_strerror(n));
		col->table_len = n;
	}
}

/* Append a value; returns its index in the column. */
int
gsst_batch_add(GsstBatchColumn *col, const char *data, Size len)
{
	MemoryContext cxt = GetMemoryChunkContext(col->offsets);

	if (col->nvalues == col->capacity)
	{
		col->capacity *= 2;
		col->offsets = repalloc_huge(col->offsets, sizeof(uint64) * (col->capacity + 1));
	}
	if (col->len + len > col->data_cap)
	{
		Size		cap = col->data_cap;

		while (cap < col->len + len)
			cap *= 2;
		col->data = repalloc_huge(col->data, cap);
		col->data_cap = cap;
	}
	(void) cxt;
	memcpy(col->data + col->len, data, len);
	col->len += len;
	col->nvalues++;
	col->offsets[col->nvalues] = col->len;
	return col->nvalues - 1;
}

Size
gsst_batch_raw_bytes(const GsstBatch *batch)
{
	Size		n = 0;

	for (int c = 0; c < batch->ncolumns; c++)
		n += batch->columns[c].len;
	return n;
}

/* A raw datum holding the bytes. */
static struct varlena *
raw_datum(const char *data, Size len)
{
	struct varlena *result = (struct varlena *) palloc(VARHDRSZ + len);

	memcpy(VARDATA(result), data, len);
	SET_VARSIZE(result, VARHDRSZ + len);
	return result;
}

/*
 * Encode one value in the backend, exactly as gsst_encode_bytes() does
 * with a table at hand: encoded when header plus codes are shorter than
 * the text, else raw.
 */
static struct varlena *
encode_value_cpu(const GsstBatchColumn *col, const char *data, Size len)
{
	if (col->table_id != 0 && len > 2 &&
		len < MaxAllocSize - VARHDRSZ - GSST_ENCODE_SLACK)
	{
		uint8		header[GSST_DATUM_MAX_HEADER];
		size_t		hlen = gsst_datum_header_write(col->table_id, header);

		if (len > hlen + 1)
		{
			struct varlena *result = (struct varlena *) palloc(VARHDRSZ + len + GSST_ENCODE_SLACK);
			size_t		ncodes = gsst_encode_value(col->encoder, (const uint8 *) data, len,
												   (uint8 *) VARDATA(result) + hlen,
												   len - hlen - 1);

			if (ncodes != (size_t) -1)
			{
				memcpy(VARDATA(result), header, hlen);
				SET_VARSIZE(result, VARHDRSZ + hlen + ncodes);
				return result;
			}
			pfree(result);
		}
	}
	return raw_datum(data, len);
}

/*
 * Turn the worker's tile for a column into one datum per value.  Returns
 * false, with no results, when the tile does not belong to the column's
 * values and table.
 */
bool
gsst_batch_results_from_tile(GsstBatchColumn *col, const uint8 *tile, size_t tile_len)
{
	gsst_tile	t;
	uint8		header[GSST_DATUM_MAX_HEADER];
	size_t		hlen = gsst_datum_header_write(col->table_id, header);
	uint8		table_bytes[GSST_TABLE_MAX_BYTES];
	int			table_len;
	char	   *arena;
	Size		arena_at = 0;

	if (gsst_tile_open(&t, tile, tile_len) != GSST_OK ||
		t.nvalues != (uint64) col->nvalues || t.raw_bytes != (uint64) col->len)
		return false;
	table_len = gsst_table_serialize(&t.table, table_bytes, sizeof(table_bytes));
	if (table_len != col->table_len || memcmp(table_bytes, col->table_bytes, table_len) != 0)
		return false;
	for (int i = 0; i <= col->nvalues; i++)
		if (gsst_tile_raw_offset(&t, i) != col->offsets[i])
			return false;

	/* datums are never longer than their text plus the varlena header */
	arena = MemoryContextAllocHuge(CurrentMemoryContext,
								   (Size) col->nvalues * (VARHDRSZ + MAXIMUM_ALIGNOF) + col->len);
	for (int i = 0; i < col->nvalues; i++)
	{
		uint64		c0 = gsst_tile_comp_offset(&t, i);
		uint64		clen = gsst_tile_comp_offset(&t, i + 1) - c0;
		uint64		rlen = col->offsets[i + 1] - col->offsets[i];
		struct varlena *v = (struct varlena *) (arena + arena_at);

		if (clen < rlen && hlen + clen < rlen)
		{
			memcpy(VARDATA(v), header, hlen);
			memcpy(VARDATA(v) + hlen, t.codes + c0, clen);
			SET_VARSIZE(v, VARHDRSZ + hlen + clen);
		}
		else
		{
			memcpy(VARDATA(v), col->data + col->offsets[i], rlen);
			SET_VARSIZE(v, VARHDRSZ + rlen);
		}
		col->results[i] = v;
		arena_at += MAXALIGN(VARSIZE(v));
	}
	return true;
}

/* Hand the batch to the worker if it can take it (never waits). */
void
gsst_batch_submit(GsstBatch *batch)
{
	Assert(batch->request == NULL && !batch->finished);
	batch->request = gsst_request_submit(batch);
}

/*
 * Fill every column's results: from the worker's answer, or encoded here
 * when the worker did not take the batch or could not answer it.
 */
void
gsst_batch_finish(GsstBatch *batch)
{
	MemoryContext old = MemoryContextSwitchTo(batch->cxt);

	for (int c = 0; c < batch->ncolumns; c++)
	{
		GsstBatchColumn *col = &batch->columns[c];

		col->results = MemoryContextAllocHuge(batch->cxt,
											  sizeof(struct varlena *) * Max(col->nvalues, 1));
	}
	batch->used_worker = false;
	if (batch->request != NULL)
	{
		batch->used_worker = gsst_request_wait(batch->request, batch);
		gsst_request_release(batch->request);
		batch->request = NULL;
	}
	for (int c = 0; c < batch->ncolumns; c++)
	{
		GsstBatchColumn *col = &batch->columns[c];

		/* columns without a table never went to the worker */
		if (batch->used_worker && col->table_id != 0)
			continue;
		for (int i = 0; i < col->nvalues; i++)
		{
			col->results[i] = encode_value_cpu(col, col->data + col->offsets[i],
											   col->offsets[i + 1] - col->offsets[i]);
			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	batch->finished = true;
	MemoryContextSwitchTo(old);
}

void
gsst_batch_free(GsstBatch *batch)
{
	if (batch->request != NULL)
		gsst_request_release(batch->request);
	MemoryContextDelete(batch->cxt);
}

/* ---- columns of a table ---- */

typedef struct GsstColumn
{
	char	   *name;
	int32		family;
	uint32		table_id;
	gsst_encoder *encoder;		/* a copy, in the operation's context */
} GsstColumn;

/*
 * The family's current table, copied so no cache flush can pull it away;
 * none when the role may not encode with the family (as gsst_encode_bytes).
 */
static void
resolve_table(GsstColumn *gc, MemoryContext cxt)
{
	uint32		table_id = 0;
	const gsst_encoder *enc = NULL;

	if (gsst_family_may(gc->family, GSST_RIGHT_ENCODE))
		enc = gsst_family_encoder(gc->family, &table_id);

	gc->table_id = 0;
	gc->encoder = NULL;
	if (enc != NULL)
	{
		gc->encoder = MemoryContextAlloc(cxt, sizeof(gsst_encoder));
		memcpy(gc->encoder, enc, sizeof(gsst_encoder));
		gc->table_id = table_id;
	}
}

/* ---- gsst.compress_table ---- */

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
} RewriteScan;

/* Is this stored value already encoded with table_id? */
static bool
encoded_with(Datum d, uint32 table_id)
{
	struct varlena *attr = (struct varlena *) DatumGetPointer(d);
	struct varlena *head = attr;
	uint32		id = 0;
	bool		result;

	if (VARATT_IS_EXTENDED(attr))
		head = detoast_attr_slice(attr, 0, GSST_DATUM_MAX_HEADER);
	result = !gsst_value_is_raw(head) &&
		gsst_datum_header_parse((const uint8 *) VARDATA_ANY(head),
								VARSIZE_ANY_EXHDR(head), &id) > 0 &&
		id == table_id;
	if (head != attr)
		pfree(head);
	return result;
}

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

			if (!null && !(col->table_id != 0 && encoded_with(d, col->table_id)))
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

/* Write a finished batch into the new heap, in scan order. */
static void
write_rewrite_batch(RewriteScan *rs, RewriteBatch *batch)
{
	TupleDesc	old_desc = RelationGetDescr(rs->old_heap);
	TupleDesc	new_desc = RelationGetDescr(rs->new_heap);
	MemoryContext old = MemoryContextSwitchTo(batch->encode->cxt);
	const int	progress_index[] = {
		PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED,
		PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN
	};
	int64		progress_values[2];

	for (int i = 0; i < batch->nentries; i++)
	{
		RewriteEntry *e = &batch->entries[i];
		HeapTuple	copy;

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
		copy = heap_form_tuple(new_desc, rs->values, rs->isnull);
		rewrite_heap_tuple(rs->rw, e->tuple, copy);
		heap_freetuple(copy);
		rs->tuples_written += 1;
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (int c = 0; c < rs->ncolumns; c++)
		rs->raw_bytes += batch->encode->columns[c].len;
	if (batch->encode->used_worker)
		rs->batches_on_worker++;
	else
		rs->batches_here++;
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
			current = fill_rewrite_batch(rs, cxt);
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
	TimestampTz start = GetCurrentTimestamp();
	long		secs;
	int			usecs;

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

	pgstat_progress_start_command(PROGRESS_COMMAND_CLUSTER, relid);
	memset(&rs, 0, sizeof(rs));
	new_heap = make_new_heap(relid, tablespace, access_method, relpersistence,
							 AccessExclusiveLock);
	copy_and_encode(new_heap, relid, ncolumns, columns, &frozen_xid, &cutoff_multi, &rs);

	/* swap files, rebuild indexes, swap TOAST by links, drop the old heap */
	finish_heap_swap(relid, new_heap, false, false, false, true,
					 frozen_xid, cutoff_multi, relpersistence);

	AtEOXact_GUC(false, save_nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	pgstat_progress_end_command();

	TimestampDifference(start, GetCurrentTimestamp(), &secs, &usecs);
	ereport(NOTICE,
			(errmsg("gsst.compress_table: \"%s\": %.0f rows written, %lld values encoded (%lld MB of text), %lld already current; %.0f dead rows removed",
					get_rel_name(relid), rs.tuples_written, (long long) rs.values_encoded,
					(long long) (rs.raw_bytes >> 20), (long long) rs.values_kept,
					rs.tuples_vacuumed),
			 errdetail("%lld batches encoded by the gsst worker, %lld in this backend, in %ld.%03d s.",
					   (long long) rs.batches_on_worker, (long long) rs.batches_here,
					   secs, usecs / 1000)));
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
		resolve_table(&columns[c], CurrentMemoryContext);
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

/* ---- gsst.load ---- */

/* A batch of source rows on its way into the target. */
typedef struct LoadBatch
{
	GsstBatch  *encode;
	SPITupleTable *tuptable;
	uint64		nrows;
	int32	   *value_index;	/* per row and gsst column: value, or -1 */
	const int  *source_col;		/* per gsst column: its source column */
	int64		token;
	uint64		first_row;		/* its first row's number in the source, from 1 */
} LoadBatch;

/* What gsst.load knows of the target's columns. */
typedef struct LoadPlan
{
	int			nsource;		/* columns of the source query */
	int			ncolumns;		/* of them, gsst target columns */
	int		   *source_col;		/* per gsst column: its source column (0-based) */
	int		   *gsst_of_source; /* per source column: gsst column, or -1 */
	GsstColumn *columns;
	bool		may_learn;
	TupleDesc	source_desc;
} LoadPlan;

static LoadBatch *current_load = NULL;
static int64 load_token = 0;

/* Train a family's first table from a sample of a batch, as learning does. */
static void
learn_from_batch(GsstColumn *gc, GsstBatchColumn *col)
{
	const uint8 **values;
	size_t	   *lens;
	int			n = 0;
	int			step;
	Size		bytes = 0;
	gsst_table	table;
	void	   *work;
	int			rc;

	if (col->nvalues == 0 || !gsst_can_write_dictionaries() ||
		!gsst_family_may(gc->family, GSST_RIGHT_LEARN))
		return;
	/* about GSST_TRAIN_SAMPLE_BYTES, spread over the batch */
	step = Max(1, (int) (col->len / GSST_TRAIN_SAMPLE_BYTES));
	values = palloc(sizeof(uint8 *) * (col->nvalues / step + 1));
	lens = palloc(sizeof(size_t) * (col->nvalues / step + 1));
	for (int i = 0; i < col->nvalues && bytes < 2 * GSST_TRAIN_SAMPLE_BYTES; i += step)
	{
		Size		len = Min(col->offsets[i + 1] - col->offsets[i], GSST_SAMPLE_VALUE_MAX);

		if (len == 0)
			continue;
		values[n] = (const uint8 *) col->data + col->offsets[i];
		lens[n] = len;
		bytes += len;
		n++;
	}
	if (n == 0)
		return;
	work = palloc0(gsst_train_work_bytes());
	rc = gsst_train_generations(&table, values, lens, n, work, GSST_PG_TRAIN_GENERATIONS);
	pfree(work);
	if (rc != GSST_OK)
	{
		ereport(WARNING,
				(errmsg("gsst could not learn a table for family %d: %s",
						gc->family, gsst_strerror(rc))));
		return;
	}
	(void) gsst_learn_store(gc->family, &table, true);
}

/* The text of a source value for a gsst column (decoded if it is gsst). */
static const char *
source_text(Datum d, Oid typid, Oid gsst_type, Size *len, GsstBuffer *buf,
			struct varlena **detoasted)
{
	struct varlena *value = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);

	*detoasted = (Pointer) value != DatumGetPointer(d) ? value : NULL;
	if (typid == gsst_type)
		return gsst_value_bytes(value, len, buf);
	*len = VARSIZE_ANY_EXHDR(value);
	return VARDATA_ANY(value);
}

static LoadBatch *
make_load_batch(LoadPlan *lp, SPITupleTable *tuptable, uint64 nrows, MemoryContext parent)
{
	const GsstCatalog *cat = gsst_catalog(false);
	GsstBatch  *encode = gsst_batch_create(parent, lp->ncolumns);
	LoadBatch  *batch = MemoryContextAllocZero(encode->cxt, sizeof(LoadBatch));
	MemoryContext old = MemoryContextSwitchTo(encode->cxt);
	GsstBuffer	decoded = GSST_BUFFER_INIT;
	bool		need_learning = false;

	decoded.cxt = encode->cxt;
	batch->encode = encode;
	batch->tuptable = tuptable;
	batch->nrows = nrows;
	batch->source_col = lp->source_col;
	batch->value_index = MemoryContextAllocHuge(encode->cxt,
												sizeof(int32) * nrows * Max(lp->ncolumns, 1));
	for (int c = 0; c < lp->ncolumns; c++)
	{
		gsst_batch_set_table(&encode->columns[c], lp->columns[c].family,
							 lp->columns[c].table_id, lp->columns[c].encoder, encode->cxt);
		if (lp->columns[c].table_id == 0 && lp->may_learn)
			need_learning = true;
	}

	for (uint64 r = 0; r < nrows; r++)
	{
		HeapTuple	tup = tuptable->vals[r];

		for (int c = 0; c < lp->ncolumns; c++)
		{
			int			src = lp->source_col[c];
			Oid			typid = TupleDescAttr(lp->source_desc, src)->atttypid;
			bool		null;
			Datum		d = SPI_getbinval(tup, tuptable->tupdesc, src + 1, &null);
			int32		vi = -1;

			if (!null && !(typid == cat->gsst_type && lp->columns[c].table_id != 0 &&
						   encoded_with(d, lp->columns[c].table_id)))
			{
				Size		len;
				struct varlena *detoasted;
				const char *bytes = source_text(d, typid, cat->gsst_type, &len,
												&decoded, &detoasted);

				vi = gsst_batch_add(&encode->columns[c], bytes, len);
				if (detoasted)
					pfree(detoasted);
			}
			batch->value_index[r * lp->ncolumns + c] = vi;
		}
		if ((r & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}

	/* a new column learns its first table from the first batch */
	if (need_learning)
	{
		for (int c = 0; c < lp->ncolumns; c++)
		{
			GsstColumn *gc = &lp->columns[c];

			if (gc->table_id != 0)
				continue;
			learn_from_batch(gc, &encode->columns[c]);
			resolve_table(gc, parent);
			if (gc->table_id != 0)
			{
				/* the values gathered so far go with the new table */
				GsstBatchColumn *col = &encode->columns[c];

				col->table_id = gc->table_id;
				col->encoder = gc->encoder;
				col->table_bytes = palloc(GSST_TABLE_MAX_BYTES);
				col->table_len = gsst_table_serialize(&gc->encoder->table, col->table_bytes,
													  GSST_TABLE_MAX_BYTES);
			}
		}
		lp->may_learn = false;
	}
	if (decoded.data)
		pfree(decoded.data);
	MemoryContextSwitchTo(old);
	return batch;
}

/*
 * gsst.load_rows(token): the rows of the batch gsst.load is inserting, with
 * the gsst columns encoded.  Internal to gsst.load.
 */
PG_FUNCTION_INFO_V1(gsst_load_rows);
Datum
gsst_load_rows(PG_FUNCTION_ARGS)
{
	int64		token = PG_GETARG_INT64(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	LoadBatch  *batch = current_load;
	TupleDesc	src_desc;
	int			ncolumns;
	Datum	   *values;
	bool	   *nulls;

	if (batch == NULL || batch->token != token)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gsst.load_rows() can only be called by gsst.load()")));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	src_desc = batch->tuptable->tupdesc;
	if (rsinfo->setDesc->natts != src_desc->natts)
		elog(ERROR, "gsst.load_rows: expected %d columns, the batch has %d",
			 rsinfo->setDesc->natts, src_desc->natts);
	ncolumns = batch->encode->ncolumns;
	values = palloc(sizeof(Datum) * src_desc->natts);
	nulls = palloc(sizeof(bool) * src_desc->natts);
	for (uint64 r = 0; r < batch->nrows; r++)
	{
		heap_deform_tuple(batch->tuptable->vals[r], src_desc, values, nulls);
		for (int c = 0; c < ncolumns; c++)
		{
			int32		vi = batch->value_index[r * ncolumns + c];

			/* vi < 0: NULL, or a gsst value already encoded with the table */
			if (vi >= 0)
				values[batch->source_col[c]] =
					PointerGetDatum(batch->encode->columns[c].results[vi]);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * Errors of gsst.load speak of the call: its target and the rows it reads
 * or inserts, never of the INSERT ... SELECT FROM gsst.load_rows() it runs.
 */
typedef enum LoadPhase
{
	LOAD_CALL,					/* checking the call, planning the INSERT */
	LOAD_OPENING,				/* preparing and opening the source query */
	LOAD_READING,				/* fetching a batch, submitting its encoding */
	LOAD_BATCH					/* finishing a batch's encoding, inserting it */
} LoadPhase;

typedef struct LoadErrorContext
{
	const char *relname;
	const char *insert_sql;		/* the internal INSERT, kept out of errors */
	LoadPhase	phase;
	uint64		first_row;		/* LOAD_READING, LOAD_BATCH: rows first_row.. */
	uint64		last_row;		/* LOAD_BATCH: ..last_row */
} LoadErrorContext;

static void
load_error_callback(void *arg)
{
	LoadErrorContext *ec = (LoadErrorContext *) arg;

	switch (ec->phase)
	{
		case LOAD_CALL:
			errcontext("gsst.load into table \"%s\"", ec->relname);
			break;
		case LOAD_OPENING:
			errcontext("gsst.load into table \"%s\", opening the source query",
					   ec->relname);
			break;
		case LOAD_READING:
			errcontext("gsst.load into table \"%s\", reading source rows from %llu",
					   ec->relname, (unsigned long long) ec->first_row);
			break;
		case LOAD_BATCH:
			errcontext("gsst.load into table \"%s\", rows %llu to %llu",
					   ec->relname, (unsigned long long) ec->first_row,
					   (unsigned long long) ec->last_row);
			break;
	}
}

/*
 * An error context less its lines that show the query: SPI's "SQL
 * statement" line of the internal INSERT (the query may span lines, as a
 * quoted column name may hold a newline).  NULL when nothing is left.
 */
static char *
context_without(const char *context, const char *query)
{
	StringInfoData buf;
	const char *p = context;
	const char *hit;
	size_t		qlen = strlen(query);

	initStringInfo(&buf);
	while (qlen > 0 && (hit = strstr(p, query)) != NULL)
	{
		const char *start = hit;
		const char *end = hit + qlen;

		while (start > p && start[-1] != '\n')
			start--;
		end += strcspn(end, "\n");
		appendBinaryStringInfo(&buf, p, start - p);
		p = *end == '\n' ? end + 1 : end;
	}
	appendStringInfoString(&buf, p);
	while (buf.len > 0 && buf.data[buf.len - 1] == '\n')
		buf.data[--buf.len] = '\0';
	if (buf.len == 0)
	{
		pfree(buf.data);
		return NULL;
	}
	return buf.data;
}

/*
 * Re-throw an error of the internal INSERT as gsst.load's: its SQLSTATE,
 * message, detail, hint, and the context of the user's objects (triggers,
 * functions) and of the call stay; the INSERT's text and position go.
 */
static GSST_NORETURN void
rethrow_as_load(MemoryContext cxt, const char *query)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	if (edata->internalquery != NULL && strcmp(edata->internalquery, query) == 0)
	{
		edata->internalquery = NULL;
		edata->internalpos = 0;
	}
	if (edata->context != NULL)
		edata->context = context_without(edata->context, query);
	ReThrowError(edata);
}

/* Prepare the internal INSERT; its errors are re-thrown as the call's. */
static SPIPlanPtr
prepare_insert(const char *sql)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			argtype = INT8OID;
	SPIPlanPtr	plan;

	PG_TRY();
	{
		plan = SPI_prepare(sql, 1, &argtype);
	}
	PG_CATCH();
	{
		rethrow_as_load(cxt, sql);
	}
	PG_END_TRY();
	if (plan == NULL)
		elog(ERROR, "gsst.load: could not prepare its INSERT: %s",
			 SPI_result_code_string(SPI_result));
	return plan;
}

/* Insert a finished batch through the prepared INSERT ... SELECT. */
static uint64
write_load_batch(SPIPlanPtr insert_plan, const char *insert_sql, LoadBatch *batch)
{
	MemoryContext cxt = CurrentMemoryContext;
	LoadBatch  *outer = current_load;
	Datum		arg;
	int			rc;

	batch->token = ++load_token;
	arg = Int64GetDatum(batch->token);
	current_load = batch;
	PG_TRY();
	{
		rc = SPI_execute_plan(insert_plan, &arg, NULL, false, 0);
	}
	PG_CATCH();
	{
		current_load = outer;
		rethrow_as_load(cxt, insert_sql);
	}
	PG_END_TRY();
	current_load = outer;
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "gsst.load: INSERT failed: %s", SPI_result_code_string(rc));
	return SPI_processed;
}

/* The source columns a gsst column can take: text-like, or gsst itself. */
static bool
text_like_source(Oid typid, Oid gsst_type)
{
	return typid == TEXTOID || typid == VARCHAROID || typid == gsst_type;
}

/*
 * The target columns the columns argument names, in its order, as INSERT's
 * column list takes them; what INSERT would refuse is refused here, before
 * the source query runs.
 */
static int
named_target_columns(Relation rel, ArrayType *names, int *target_att)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool	   *named = palloc0(sizeof(bool) * Max(desc->natts, 1));
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			ntarget = 0;

	if (ARR_NDIM(names) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsst.load: columns must be a one-dimensional array")));
	deconstruct_array(names, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("gsst.load: columns must name at least one column")));
	for (int k = 0; k < n; k++)
	{
		const char *name;
		Form_pg_attribute att = NULL;
		int			i;

		if (nulls[k])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("gsst.load: columns must not contain nulls")));
		name = NameStr(*DatumGetName(elems[k]));
		for (i = 0; i < desc->natts; i++)
		{
			att = TupleDescAttr(desc, i);
			if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
				break;
		}
		if (i == desc->natts)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("gsst.load: column \"%s\" of relation \"%s\" does not exist",
							name, RelationGetRelationName(rel))));
		if (named[i])
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_COLUMN),
					 errmsg("gsst.load: column \"%s\" of relation \"%s\" is named more than once in columns",
							name, RelationGetRelationName(rel))));
		if (att->attgenerated)
			ereport(ERROR,
					(errcode(ERRCODE_GENERATED_ALWAYS),
					 errmsg("gsst.load: cannot insert into column \"%s\" of relation \"%s\"",
							name, RelationGetRelationName(rel)),
					 errdetail("Column \"%s\" is a generated column.", name),
					 errhint("Leave it out of columns: it is computed from the others.")));
		if (att->attidentity == ATTRIBUTE_IDENTITY_ALWAYS)
			ereport(ERROR,
					(errcode(ERRCODE_GENERATED_ALWAYS),
					 errmsg("gsst.load: cannot insert into column \"%s\" of relation \"%s\"",
							name, RelationGetRelationName(rel)),
					 errdetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.",
							   name),
					 errhint("Leave it out of columns: it takes the next value of its identity.")));
		named[i] = true;
		target_att[ntarget++] = i;
	}
	pfree(named);
	return ntarget;
}

PG_FUNCTION_INFO_V1(gsst_load);
Datum
gsst_load(PG_FUNCTION_ARGS)
{
	Oid			target;
	char	   *query;
	int			batch_rows = PG_ARGISNULL(2) ? 10000 : PG_GETARG_INT32(2);
	ArrayType  *names = PG_ARGISNULL(3) ? NULL : PG_GETARG_ARRAYTYPE_P(3);
	const GsstCatalog *cat = gsst_catalog(false);
	Relation	rel;
	TupleDesc	desc;
	char	   *relname;
	int		   *target_att;		/* per source column: its target column */
	int			ntarget = 0;
	SPIPlanPtr	source_plan;
	SPIPlanPtr	insert_plan;
	Portal		portal;
	LoadPlan	lp;
	StringInfoData sql;
	LoadBatch  *pending = NULL;
	uint64		total = 0;
	uint64		rows_read = 0;
	bool		source_done = false;
	MemoryContext cxt;
	LoadErrorContext ec;
	ErrorContextCallback errcallback;
	int64		batches_on_worker = 0;
	int64		batches_here = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gsst.load: the target and the source query must not be null")));
	if (batch_rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_rows must be at least 1")));
	target = PG_GETARG_OID(0);
	query = text_to_cstring(PG_GETARG_TEXT_PP(1));

	/*
	 * The INSERT takes the same lock; taking it now avoids an upgrade.  The
	 * INSERT privilege (on the table or some of its columns) is checked
	 * first, so that a refused call never holds the lock while its source
	 * query runs; the INSERT checks it again, column by column.
	 */
	rel = gsst_open_checked(target, RowExclusiveLock, GSST_CHECK_INSERT, "rp");
	desc = RelationGetDescr(rel);
	relname = pstrdup(RelationGetRelationName(rel));

	/* from here on, errors say which load raised them */
	ec.relname = relname;
	ec.insert_sql = NULL;
	ec.phase = LOAD_CALL;
	ec.first_row = 0;
	ec.last_row = 0;
	errcallback.callback = load_error_callback;
	errcallback.arg = &ec;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	/*
	 * The target columns, in the order the source columns go to them: those
	 * of the columns argument, or else every column that takes a value from
	 * an INSERT, that is all but generated columns and GENERATED ALWAYS
	 * identity columns (INSERT would refuse a value for them).  A column
	 * left out gets what INSERT gives it: its default, identity or
	 * generated value.
	 */
	target_att = palloc(sizeof(int) * Max(desc->natts, 1));
	if (names != NULL)
		ntarget = named_target_columns(rel, names, target_att);
	else
	{
		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (!att->attisdropped && !att->attgenerated &&
				att->attidentity != ATTRIBUTE_IDENTITY_ALWAYS)
				target_att[ntarget++] = i;
		}
	}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "gsst load", ALLOCSET_DEFAULT_SIZES);

	ec.phase = LOAD_OPENING;
	source_plan = SPI_prepare_cursor(query, 0, NULL, CURSOR_OPT_NO_SCROLL);
	if (source_plan == NULL)
		elog(ERROR, "gsst.load: could not prepare the source query: %s",
			 SPI_result_code_string(SPI_result));
	if (!SPI_is_cursor_plan(source_plan))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsst.load: the source query must return rows")));
	portal = SPI_cursor_open(NULL, source_plan, NULL, NULL, false);
	ec.phase = LOAD_CALL;

	memset(&lp, 0, sizeof(lp));
	lp.source_desc = CreateTupleDescCopy(portal->tupDesc);
	lp.nsource = lp.source_desc->natts;
	if (lp.nsource == 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("gsst.load: the source query returns no columns")));
	/* as INSERT's "more expressions than target columns", and the reverse */
	if (names != NULL && lp.nsource != ntarget)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 lp.nsource > ntarget ?
				 errmsg("gsst.load: the source query returns more columns than the columns argument names (%d and %d)",
						lp.nsource, ntarget) :
				 errmsg("gsst.load: the source query returns fewer columns than the columns argument names (%d and %d)",
						lp.nsource, ntarget)));
	if (lp.nsource > ntarget)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("gsst.load: the source query returns more columns than table \"%s\" takes (%d and %d)",
						relname, lp.nsource, ntarget),
				 errdetail("Without the columns argument, source columns go by position to the columns that are neither generated nor GENERATED ALWAYS AS IDENTITY.")));

	/* as the INSERT will: the table, or else each column it writes */
	if (pg_class_aclcheck(target, GetUserId(), ACL_INSERT) != ACLCHECK_OK)
	{
		for (int i = 0; i < lp.nsource; i++)
			if (pg_attribute_aclcheck(target, TupleDescAttr(desc, target_att[i])->attnum,
									  GetUserId(), ACL_INSERT) != ACLCHECK_OK)
				aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, relname);
	}

	lp.source_col = palloc(sizeof(int) * lp.nsource);
	lp.gsst_of_source = palloc(sizeof(int) * lp.nsource);
	lp.columns = palloc0(sizeof(GsstColumn) * lp.nsource);
	lp.may_learn = gsst_learn_sample_bytes > 0;

	/* INSERT INTO target (cols) SELECT * FROM gsst.load_rows($1) AS r(...) */
	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s (",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												relname));
	for (int i = 0; i < lp.nsource; i++)
		appendStringInfo(&sql, "%s%s", i ? ", " : "",
						 quote_identifier(NameStr(TupleDescAttr(desc, target_att[i])->attname)));
	appendStringInfoString(&sql, ") SELECT * FROM gsst.load_rows($1) AS r(");
	for (int i = 0; i < lp.nsource; i++)
	{
		Form_pg_attribute tatt = TupleDescAttr(desc, target_att[i]);
		Form_pg_attribute satt = TupleDescAttr(lp.source_desc, i);
		Oid			typid = satt->atttypid;
		int32		typmod = satt->atttypmod;

		lp.gsst_of_source[i] = -1;
		if (tatt->atttypid == cat->gsst_type && tatt->atttypmod > 0)
		{
			GsstColumn *gc = &lp.columns[lp.ncolumns];

			if (!text_like_source(satt->atttypid, cat->gsst_type))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("gsst.load: column %d of the source query has type %s, and gsst column \"%s\" takes text",
								i + 1, format_type_be(satt->atttypid), NameStr(tatt->attname)),
						 errhint("Cast it to text in the source query.")));
			gc->name = pstrdup(NameStr(tatt->attname));
			gc->family = tatt->atttypmod;
			resolve_table(gc, cxt);
			lp.source_col[lp.ncolumns] = i;
			lp.gsst_of_source[i] = lp.ncolumns;
			lp.ncolumns++;
			typid = cat->gsst_type;
			typmod = tatt->atttypmod;
		}
		else if (!can_coerce_type(1, &satt->atttypid, &tatt->atttypid, COERCION_ASSIGNMENT))
		{
			/*
			 * What the INSERT's parse analysis would say (the same test, the
			 * same SQLSTATE and message), and of which source column.
			 */
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" is of type %s but expression is of type %s",
							NameStr(tatt->attname), format_type_be(tatt->atttypid),
							format_type_be(satt->atttypid)),
					 errdetail("gsst.load puts column %d of the source query into column \"%s\" of table \"%s\".",
							   i + 1, NameStr(tatt->attname), relname),
					 names != NULL ?
					 errhint("Cast it in the source query.") :
					 errhint("Cast it in the source query, or name the target columns with the columns argument.")));
		}
		appendStringInfo(&sql, "%sc%d %s", i ? ", " : "", i + 1,
						 format_type_extended(typid, typmod,
											  FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY));
		if (satt->attcollation != InvalidOid && satt->attcollation != DEFAULT_COLLATION_OID)
			appendStringInfo(&sql, " COLLATE %s", generate_collation_name(satt->attcollation));
	}
	appendStringInfoChar(&sql, ')');
	relation_close(rel, NoLock);

	ec.insert_sql = sql.data;
	insert_plan = prepare_insert(sql.data);

	/*
	 * The pipeline: batch N goes to the worker, then batch N-1 is inserted,
	 * then batch N+1 is read, then batch N is waited for.
	 */
	for (;;)
	{
		LoadBatch  *current = NULL;

		if (!source_done)
		{
			uint64		nread;

			ec.phase = LOAD_READING;
			ec.first_row = rows_read + 1;
			SPI_cursor_fetch(portal, true, batch_rows);
			nread = SPI_processed;
			if (nread > 0)
			{
				current = make_load_batch(&lp, SPI_tuptable, nread, cxt);
				current->first_row = rows_read + 1;
				rows_read += nread;
				gsst_batch_submit(current->encode);
			}
			if (nread < (uint64) batch_rows)
				source_done = true;
			ec.phase = LOAD_CALL;
		}
		if (pending != NULL)
		{
			ec.phase = LOAD_BATCH;
			ec.first_row = pending->first_row;
			ec.last_row = pending->first_row + pending->nrows - 1;
			gsst_batch_finish(pending->encode);
			total += write_load_batch(insert_plan, ec.insert_sql, pending);
			ec.phase = LOAD_CALL;
			if (pending->encode->used_worker)
				batches_on_worker++;
			else
				batches_here++;
			SPI_freetuptable(pending->tuptable);
			gsst_batch_free(pending->encode);
		}
		pending = current;
		if (pending == NULL && source_done)
			break;
	}
	error_context_stack = errcallback.previous;

	SPI_cursor_close(portal);
	ereport(DEBUG1,
			(errmsg("gsst.load: %llu rows, %lld batches encoded by the gsst worker, %lld in the backend",
					(unsigned long long) total, (long long) batches_on_worker,
					(long long) batches_here)));
	MemoryContextDelete(cxt);
	SPI_finish();
	PG_RETURN_INT64((int64) total);
}
