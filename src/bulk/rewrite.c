/*
 * rewrite.c - the producing half of gsst.compress_table's heap rewrite; see
 * rewrite.h.
 *
 * A producer takes block ranges one at a time and reads each in block
 * order.  Batches never cross a range, so a range's tuples come out
 * together, in block order, after those of the range before.  The
 * pipeline: batch N goes to the gsst worker, then batch N-1's tuples are
 * formed and emitted, then batch N+1 is read, then batch N is waited for.
 */
#include "bulk/rewrite.h"

#include "access/detoast.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "worker/worker.h"

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
	int			value_cap;		/* live tuples value_index has room for */
	int			nlive;
	Size		tuple_bytes;
	int			range_no;
	bool		ends_range;		/* the last batch of its range */
	GsstArena	tuples;			/* the copies of the old tuples */
	GsstBuffer	decoded;		/* a value decoded for recoding */
} RewriteBatch;

/*
 * New tuples are formed and emitted in groups of at most this many tuples
 * and bytes, in a context reset after each group: its kept block holds a
 * group, so forming takes no fresh memory.
 */
#define FORM_GROUP_TUPLES	256
#define FORM_GROUP_BYTES	(512 * 1024)
#define FORM_CONTEXT_BYTES	(1024 * 1024)

/* The range being read. */
typedef struct RangeScan
{
	TableScanDesc scan;			/* NULL between ranges */
	TupleTableSlot *slot;
	int			range_no;
} RangeScan;

/* The attribute numbers of the columns in rel. */
AttrNumber *
gsst_rewrite_attnums(Relation rel, int ncolumns, const GsstColumn *columns)
{
	AttrNumber *attnums = palloc(sizeof(AttrNumber) * Max(ncolumns, 1));

	for (int c = 0; c < ncolumns; c++)
	{
		attnums[c] = get_attnum(RelationGetRelid(rel), columns[c].name);
		if (attnums[c] <= 0)
			elog(ERROR, "column \"%s\" not found in relation \"%s\"",
				 columns[c].name, RelationGetRelationName(rel));
	}
	return attnums;
}

/* A copy of tuple in arena, as heap_copytuple makes one. */
static HeapTuple
copy_tuple(GsstArena *arena, HeapTuple tuple)
{
	HeapTuple	copy = gsst_arena_alloc(arena, HEAPTUPLESIZE + tuple->t_len);

	copy->t_len = tuple->t_len;
	copy->t_self = tuple->t_self;
	copy->t_tableOid = tuple->t_tableOid;
	copy->t_data = (HeapTupleHeader) ((char *) copy + HEAPTUPLESIZE);
	memcpy(copy->t_data, tuple->t_data, tuple->t_len);
	return copy;
}

/* An empty batch: reuse, a batch done with, or else a new one. */
static RewriteBatch *
empty_batch(GsstRewriteProducer *p, RewriteBatch *reuse, MemoryContext parent)
{
	GsstBatch  *encode;
	RewriteBatch *batch;

	if (reuse != NULL)
	{
		batch = reuse;
		gsst_batch_reset(batch->encode);
		gsst_arena_reset(&batch->tuples);
		batch->nentries = 0;
		batch->nlive = 0;
		batch->tuple_bytes = 0;
		batch->ends_range = false;
	}
	else
	{
		encode = gsst_batch_create(parent, p->ncolumns);
		gsst_batch_gather_in_region(encode);
		batch = MemoryContextAllocZero(encode->cxt, sizeof(RewriteBatch));
		batch->encode = encode;
		batch->capacity = 1024;
		batch->entries = MemoryContextAlloc(encode->cxt,
											sizeof(RewriteEntry) * batch->capacity);
		batch->value_cap = 1024;
		batch->value_index = MemoryContextAlloc(encode->cxt, sizeof(int32) *
												batch->value_cap * Max(p->ncolumns, 1));
		gsst_arena_init(&batch->tuples, encode->cxt);
		batch->decoded.cxt = encode->cxt;
	}
	for (int c = 0; c < p->ncolumns; c++)
		gsst_batch_set_table(&batch->encode->columns[c], p->columns[c].family,
							 p->columns[c].table_id, p->columns[c].encoder,
							 batch->encode->cxt);
	return batch;
}

/*
 * Read tuples into an empty batch until it holds gsst.batch_bytes of text
 * to encode or its range ends; NULL when no range is left.  Visibility is
 * judged as VACUUM FULL does.
 */
static RewriteBatch *
fill_batch(GsstRewriteProducer *p, RangeScan *rs, RewriteBatch *reuse, MemoryContext parent)
{
	GsstBatch  *encode;
	RewriteBatch *batch;
	MemoryContext old;
	TupleDesc	desc = RelationGetDescr(p->old_heap);
	BufferHeapTupleTableSlot *hslot = (BufferHeapTupleTableSlot *) rs->slot;
	int			ncolumns = p->ncolumns;

	if (rs->scan == NULL)
	{
		BlockNumber start;
		BlockNumber nblocks;

		if (!p->next_range(p->range_arg, &start, &nblocks, &rs->range_no))
			return NULL;
		/* block order, no synchronized start: every run reads alike */
		rs->scan = table_beginscan_strat(p->old_heap, SnapshotAny, 0, NULL, true, false);
		heap_setscanlimits(rs->scan, start, nblocks);
	}
	batch = empty_batch(p, reuse, parent);
	encode = batch->encode;
	old = MemoryContextSwitchTo(encode->cxt);
	batch->range_no = rs->range_no;

	while (gsst_batch_raw_bytes(encode) < (Size) gsst_batch_bytes &&
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
			table_endscan(rs->scan);
			rs->scan = NULL;
			batch->ends_range = true;
			break;
		}

		tuple = ExecFetchSlotHeapTuple(rs->slot, false, NULL);
		buf = hslot->buffer;
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		switch (HeapTupleSatisfiesVacuum(tuple, p->oldest_xmin, buf))
		{
			case HEAPTUPLE_DEAD:
				isdead = true;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				p->counts.tuples_recently_dead += 1;
				isdead = false;
				break;
			case HEAPTUPLE_LIVE:
				isdead = false;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				/* with AccessExclusiveLock, only our own transaction's */
				if (!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
					elog(WARNING, "concurrent insert in progress within table \"%s\"",
						 RelationGetRelationName(p->old_heap));
				isdead = false;
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				if (!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tuple->t_data)))
					elog(WARNING, "concurrent delete in progress within table \"%s\"",
						 RelationGetRelationName(p->old_heap));
				p->counts.tuples_recently_dead += 1;
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
		e->tuple = copy_tuple(&batch->tuples, tuple);
		e->dead = isdead;
		e->first_value = -1;
		batch->tuple_bytes += tuple->t_len;
		if (isdead)
			continue;

		if (batch->nlive == batch->value_cap)
		{
			batch->value_cap *= 2;
			batch->value_index = repalloc_huge(batch->value_index, sizeof(int32) *
											   batch->value_cap * Max(ncolumns, 1));
		}
		e->first_value = batch->nlive * ncolumns;
		batch->nlive++;
		for (int c = 0; c < ncolumns; c++)
		{
			GsstBatchColumn *col = &encode->columns[c];
			bool		null;
			Datum		d = heap_getattr(e->tuple, p->attnums[c], desc, &null);
			int32		vi = -1;

			if (!null && !(col->table_id != 0 && gsst_value_encoded_with(d, col->table_id)))
			{
				struct varlena *value = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
				Size		len;
				const char *bytes = gsst_value_bytes(value, &len, &batch->decoded);

				vi = gsst_batch_add(col, bytes, len);
				if ((Pointer) value != DatumGetPointer(d))
					pfree(value);
			}
			else if (!null)
				p->counts.values_kept++;
			batch->value_index[e->first_value + c] = vi;
		}
	}
	MemoryContextSwitchTo(old);
	return batch;
}

/*
 * Form the new tuples of a finished batch and emit them with their old
 * versions, in scan order: a group is formed, then emitted, so that each
 * step is timed once a group.
 */
static void
emit_batch(GsstRewriteProducer *p, RewriteBatch *batch, MemoryContext form_cxt,
		   Datum *values, bool *isnull)
{
	TupleDesc	desc = RelationGetDescr(p->old_heap);
	HeapTuple	formed[FORM_GROUP_TUPLES];
	int			next;

	for (int first = 0; first < batch->nentries; first = next)
	{
		Size		bytes = 0;
		instr_time	start;
		instr_time	formed_at;
		instr_time	end;
		MemoryContext old;

		INSTR_TIME_SET_CURRENT(start);
		old = MemoryContextSwitchTo(form_cxt);
		for (next = first; next < batch->nentries && next - first < FORM_GROUP_TUPLES &&
			 bytes < FORM_GROUP_BYTES; next++)
		{
			RewriteEntry *e = &batch->entries[next];

			formed[next - first] = NULL;
			if (e->dead)
				continue;
			heap_deform_tuple(e->tuple, desc, values, isnull);
			/* the new heap has the old one's attributes, dropped ones too */
			for (int a = 0; a < desc->natts; a++)
				if (TupleDescAttr(desc, a)->attisdropped)
					isnull[a] = true;
			for (int c = 0; c < p->ncolumns; c++)
			{
				int32		vi = batch->value_index[e->first_value + c];

				if (vi >= 0)
				{
					values[p->attnums[c] - 1] =
						PointerGetDatum(batch->encode->columns[c].results[vi]);
					p->counts.values_encoded++;
				}
			}
			formed[next - first] = heap_form_tuple(desc, values, isnull);
			bytes += formed[next - first]->t_len;
		}
		MemoryContextSwitchTo(old);
		INSTR_TIME_SET_CURRENT(formed_at);

		for (int i = first; i < next; i++)
			p->emit(p->arg, batch->entries[i].tuple, formed[i - first]);
		MemoryContextReset(form_cxt);
		CHECK_FOR_INTERRUPTS();
		INSTR_TIME_SET_CURRENT(end);
		INSTR_TIME_SUBTRACT(end, formed_at);
		INSTR_TIME_SUBTRACT(formed_at, start);
		p->counts.form_s += INSTR_TIME_GET_DOUBLE(formed_at);
		p->counts.emit_s += INSTR_TIME_GET_DOUBLE(end);
	}

	for (int c = 0; c < p->ncolumns; c++)
		p->counts.raw_bytes += batch->encode->columns[c].len;
	if (batch->encode->nparts > 0)
	{
		if (batch->encode->used_worker)
			p->counts.batches_on_worker++;
		else
			p->counts.batches_here++;
	}
	p->counts.handoff_s += INSTR_TIME_GET_DOUBLE(batch->encode->times.handoff);
	p->counts.results_s += INSTR_TIME_GET_DOUBLE(batch->encode->times.results);
	p->counts.wait_s += INSTR_TIME_GET_DOUBLE(batch->encode->times.wait);
	p->counts.encode_s += INSTR_TIME_GET_DOUBLE(batch->encode->times.encode);
}

/*
 * Produce every range next_range gives, until it gives none.  Two batches
 * take turns: one is read while the other is encoded, and each is filled
 * again once its tuples are out.
 */
void
gsst_rewrite_produce(GsstRewriteProducer *p)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "gsst rewrite",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext form_cxt = AllocSetContextCreate(cxt, "gsst rewrite form",
												   FORM_CONTEXT_BYTES, FORM_CONTEXT_BYTES,
												   ALLOCSET_DEFAULT_MAXSIZE);
	TupleDesc	desc = RelationGetDescr(p->old_heap);
	Datum	   *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	bool	   *isnull = palloc(sizeof(bool) * Max(desc->natts, 1));
	RangeScan	rs;
	RewriteBatch *pending = NULL;
	RewriteBatch *spare = NULL;
	bool		ranges_left = true;

	memset(&rs, 0, sizeof(rs));
	rs.slot = table_slot_create(p->old_heap, NULL);
	for (;;)
	{
		RewriteBatch *current = NULL;

		if (ranges_left)
		{
			instr_time	start;
			instr_time	end;

			INSTR_TIME_SET_CURRENT(start);
			current = fill_batch(p, &rs, spare, cxt);
			INSTR_TIME_SET_CURRENT(end);
			INSTR_TIME_SUBTRACT(end, start);
			p->counts.scan_s += INSTR_TIME_GET_DOUBLE(end);
			if (current == NULL)
				ranges_left = false;
			else
			{
				spare = NULL;
				gsst_batch_submit(current->encode);
			}
		}
		if (pending != NULL)
		{
			gsst_batch_finish(pending->encode);
			emit_batch(p, pending, form_cxt, values, isnull);
			if (pending->ends_range && p->range_done != NULL)
				p->range_done(p->arg, pending->range_no);
			if (spare != NULL)
				gsst_batch_free(spare->encode);
			spare = pending;
		}
		pending = current;
		if (pending == NULL && !ranges_left)
			break;
	}
	if (spare != NULL)
		gsst_batch_free(spare->encode);
	ExecDropSingleTupleTableSlot(rs.slot);
	pfree(values);
	pfree(isnull);
	MemoryContextDelete(cxt);
}

void
gsst_rewrite_counts_add(GsstRewriteCounts *sum, const GsstRewriteCounts *add)
{
	sum->tuples_recently_dead += add->tuples_recently_dead;
	sum->values_encoded += add->values_encoded;
	sum->values_kept += add->values_kept;
	sum->raw_bytes += add->raw_bytes;
	sum->batches_on_worker += add->batches_on_worker;
	sum->batches_here += add->batches_here;
	sum->scan_s += add->scan_s;
	sum->handoff_s += add->handoff_s;
	sum->results_s += add->results_s;
	sum->wait_s += add->wait_s;
	sum->encode_s += add->encode_s;
	sum->form_s += add->form_s;
	sum->emit_s += add->emit_s;
}
