/*
 * batch.c - batches of values of gsst columns, encoded in one request to
 * the gsst worker or, when the worker cannot take them, in this backend.
 * See batch.h.
 */
#include "bulk/batch.h"

#include "access/detoast.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "worker/request.h"
#include "worker/worker.h"

/*
 * A column's current table, copied so no cache flush can pull it away;
 * none when the role may not encode with the family (as gsst_encode_bytes).
 */
void
gsst_column_resolve(GsstColumn *gc, MemoryContext cxt)
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

/*
 * Is this stored value already encoded with table_id?  Then a bulk path
 * keeps it as it is.
 */
bool
gsst_value_encoded_with(Datum d, uint32 table_id)
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

GsstBatch *
gsst_batch_create(MemoryContext parent, int ncolumns)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "gsst batch",
											  ALLOCSET_DEFAULT_SIZES);
	GsstBatch  *batch = MemoryContextAllocZero(cxt, sizeof(GsstBatch));

	batch->cxt = cxt;
	batch->ncolumns = ncolumns;
	batch->columns = MemoryContextAllocZero(cxt, sizeof(GsstBatchColumn) * Max(ncolumns, 1));
	batch->request_column = MemoryContextAlloc(cxt, sizeof(int) * Max(ncolumns, 1));
	gsst_arena_init(&batch->results_arena, cxt);
	return batch;
}

/*
 * Gather the text of a batch of one column straight into a slice of the
 * batch region while the worker can take it, so that handing the batch to
 * the worker copies nothing.
 */
void
gsst_batch_gather_in_region(GsstBatch *batch)
{
	if (batch->ncolumns == 1)
		batch->columns[0].gather = true;
}

/* The column's text back in its own buffer, of at least need bytes. */
static void
use_local_data(GsstBatchColumn *col, Size need)
{
	if (col->local_cap < need)
	{
		Size		cap = col->local_cap;

		while (cap < need)
			cap *= 2;
		col->local_data = repalloc_huge(col->local_data, cap);
		col->local_cap = cap;
	}
	if (col->slice != NULL)
	{
		memcpy(col->local_data, col->data, col->len);
		col->slice = NULL;
	}
	col->data = col->local_data;
	col->data_cap = col->local_cap;
}

/*
 * Give up the batch's request and the slices its columns gather in: their
 * text is not read again until the next values.
 */
static void
release_requests(GsstBatch *batch)
{
	for (int c = 0; c < batch->ncolumns; c++)
	{
		GsstBatchColumn *col = &batch->columns[c];

		if (col->slice != NULL && col->slice != batch->request)
			gsst_request_release(col->slice);
		col->slice = NULL;
		col->data = col->local_data;
		col->data_cap = col->local_cap;
	}
	if (batch->request != NULL)
		gsst_request_release(batch->request);
	batch->request = NULL;
}

/* Empty a batch for new values; it keeps its memory and its tables. */
void
gsst_batch_reset(GsstBatch *batch)
{
	release_requests(batch);
	batch->nparts = 0;
	batch->finished = false;
	batch->used_worker = false;
	memset(&batch->times, 0, sizeof(batch->times));
	for (int c = 0; c < batch->ncolumns; c++)
	{
		GsstBatchColumn *col = &batch->columns[c];

		col->nvalues = 0;
		col->len = 0;
		col->results_ready = false;
		if (col->offsets != NULL)
			col->offsets[0] = 0;
	}
	gsst_arena_reset(&batch->results_arena);
}

/*
 * Encode the column's values, those it holds and those to come, with
 * table_id (0, or no encoder: none, values stay raw).  The encoder must
 * stay valid as long as the batch.
 */
void
gsst_batch_use_table(GsstBatchColumn *col, uint32 table_id,
					 const gsst_encoder *encoder, MemoryContext cxt)
{
	col->table_id = encoder ? table_id : 0;
	col->encoder = encoder;
	if (encoder)
	{
		int			n;

		col->toast = gsst_family_toast_rule(col->family);

		if (col->table_bytes == NULL)
			col->table_bytes = MemoryContextAlloc(cxt, GSST_TABLE_MAX_BYTES);
		n = gsst_table_serialize(&encoder->table, col->table_bytes, GSST_TABLE_MAX_BYTES);
		if (n < 0)
			elog(ERROR, "could not serialize gsst table %u: %s", table_id, gsst_strerror(n));
		col->table_len = n;
	}
}

/* Empty a column of a family for values encoded with table_id. */
void
gsst_batch_set_table(GsstBatchColumn *col, int32 family, uint32 table_id,
					 const gsst_encoder *encoder, MemoryContext cxt)
{
	col->family = family;
	/* a reset batch keeps its buffers */
	if (col->offsets == NULL)
	{
		col->capacity = 1024;
		col->offsets = MemoryContextAlloc(cxt, sizeof(uint64) * (col->capacity + 1));
		col->local_cap = 64 * 1024;
		col->local_data = MemoryContextAllocHuge(cxt, col->local_cap);
		col->data = col->local_data;
		col->data_cap = col->local_cap;
	}
	col->offsets[0] = 0;
	col->len = 0;
	col->nvalues = 0;
	gsst_batch_use_table(col, table_id, encoder, cxt);
}

/*
 * A slice for the column's text, where the worker can take it: room for a
 * batch of gsst.batch_bytes and the value that crosses that line, and for
 * values of 128 bytes on average.  A batch that outgrows it goes on in the
 * column's own buffer, as every batch does without a slice.
 */
static void
gather_in_slice(GsstBatchColumn *col)
{
	Size		cap = (Size) gsst_batch_bytes + (Size) gsst_batch_bytes / 16;
	int			max_values = (int) Min(Max(cap / 128, 1024), GSST_BATCH_MAX_ROWS);

	col->slice = gsst_request_reserve(cap, max_values);
	if (col->slice != NULL)
	{
		col->data = gsst_request_data(col->slice, &col->data_cap);
		col->slice_values = max_values;
	}
}

/* Append a value; returns its index in the column. */
int
gsst_batch_add(GsstBatchColumn *col, const char *data, Size len)
{
	if (col->nvalues == 0 && col->gather && col->slice == NULL && col->table_id != 0)
		gather_in_slice(col);
	if (col->nvalues == col->capacity)
	{
		col->capacity *= 2;
		col->offsets = repalloc_huge(col->offsets, sizeof(uint64) * (col->capacity + 1));
	}
	if (col->len + len > col->data_cap ||
		(col->slice != NULL && col->nvalues >= col->slice_values))
	{
		GsstRequest *slice = col->slice;

		use_local_data(col, col->len + len);
		if (slice != NULL)
			gsst_request_release(slice);
	}
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

/* values whose offsets results_from_tile reads from the tile at a time */
#define RESULT_WINDOW 256

/*
 * Turn the worker's tile for a column into one datum per value, by the
 * rule gsst_datum_encode_into follows.  Returns false when the tile does
 * not belong to the column's values and table; the results it made by then
 * are the caller's to overwrite (gsst_batch_finish encodes the batch here).
 */
static bool
results_from_tile(GsstBatchColumn *col, GsstArena *results_arena,
				  const uint8 *tile, size_t tile_len)
{
	gsst_tile	t;
	uint8		header[GSST_DATUM_MAX_HEADER];
	size_t		hlen = gsst_datum_header_write(col->table_id, header);
	uint8		table_bytes[GSST_TABLE_MAX_BYTES];
	int			table_len;
	char	   *arena;
	Size		arena_at = 0;
	uint64		comp[RESULT_WINDOW + 1];
	uint64		raw[RESULT_WINDOW + 1];

	if (gsst_tile_open(&t, tile, tile_len) != GSST_OK ||
		t.nvalues != (uint64) col->nvalues || t.raw_bytes != (uint64) col->len)
		return false;
	table_len = gsst_table_serialize(&t.table, table_bytes, sizeof(table_bytes));
	if (table_len != col->table_len || memcmp(table_bytes, col->table_bytes, table_len) != 0)
		return false;

	/* datums are never longer than their text plus the varlena header */
	arena = gsst_arena_alloc(results_arena,
							 (Size) col->nvalues * (VARHDRSZ + MAXIMUM_ALIGNOF) + col->len);
	for (int i = 0; i < col->nvalues; i++)
	{
		uint64		c0,
					clen;
		uint64		rlen = col->offsets[i + 1] - col->offsets[i];
		struct varlena *v = (struct varlena *) (arena + arena_at);
		struct varlena *text_compressed = NULL;

		/* the index a window at a time, each value's text checked as it goes */
		if (i % RESULT_WINDOW == 0)
		{
			int			count = Min(RESULT_WINDOW, col->nvalues - i);

			if (gsst_tile_offsets(&t, i, count, comp, raw) != GSST_OK)
				return false;
			for (int j = 0; j <= count; j++)
				if (raw[j] != col->offsets[i + j])
					return false;
		}
		c0 = comp[i % RESULT_WINDOW];
		clen = comp[i % RESULT_WINDOW + 1] - c0;

		if (rlen >= col->toast.compress_len)
			text_compressed = gsst_text_compressed(col->data + col->offsets[i], rlen,
												   &col->toast, v);
		if (gsst_codes_are_shorter(hlen, clen, rlen))
		{
			memcpy(VARDATA(v), header, hlen);
			memcpy(VARDATA(v) + hlen, t.codes + c0, clen);
			SET_VARSIZE(v, VARHDRSZ + hlen + clen);
		}
		else if (rlen < col->toast.compress_len)
		{
			/* (else gsst_text_compressed put the text there) */
			memcpy(VARDATA(v), col->data + col->offsets[i], rlen);
			SET_VARSIZE(v, VARHDRSZ + rlen);
		}
		if (text_compressed != NULL)
			gsst_datum_keep_smallest(v, text_compressed, &col->toast);
		col->results[i] = v;
		arena_at += MAXALIGN(VARSIZE(v));
	}
	return true;
}

/* Hand the batch to the worker if it can take it (never waits). */
void
gsst_batch_submit(GsstBatch *batch)
{
	GsstRequestPart *parts;
	int			nparts = 0;
	instr_time	start;
	instr_time	end;

	Assert(batch->request == NULL && !batch->finished);
	INSTR_TIME_SET_CURRENT(start);
	parts = palloc(sizeof(GsstRequestPart) * Max(batch->ncolumns, 1));
	/* columns without a table, or without values, need no worker */
	for (int c = 0; c < batch->ncolumns; c++)
	{
		GsstBatchColumn *col = &batch->columns[c];

		if (col->table_id == 0 || col->nvalues == 0)
			continue;
		parts[nparts].table = col->table_bytes;
		parts[nparts].table_len = col->table_len;
		parts[nparts].data = col->data;
		parts[nparts].len = col->len;
		parts[nparts].offsets = col->offsets;
		parts[nparts].nvalues = col->nvalues;
		batch->request_column[nparts] = c;
		nparts++;
	}
	batch->nparts = nparts;
	/* text gathered in a slice goes as it lies, or stays there to encode here */
	if (nparts == 1 && batch->columns[batch->request_column[0]].slice != NULL)
	{
		GsstRequest *slice = batch->columns[batch->request_column[0]].slice;

		if (gsst_request_submit_reserved(slice, &parts[0]))
			batch->request = slice;
	}
	else
		batch->request = gsst_request_submit(parts, nparts);
	pfree(parts);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(batch->times.handoff, end, start);
}

/*
 * Take the worker's tiles; false when the batch must be encoded here
 * instead (the worker did not answer, or its tiles do not match).
 */
static bool
results_from_worker(GsstBatch *batch)
{
	GsstRequest *req = batch->request;
	bool		ok;
	instr_time	start;
	instr_time	answered;
	instr_time	end;

	INSTR_TIME_SET_CURRENT(start);
	ok = gsst_request_wait(req);
	INSTR_TIME_SET_CURRENT(answered);
	INSTR_TIME_ACCUM_DIFF(batch->times.wait, answered, start);
	if (ok)
	{
		for (int p = 0; ok && p < batch->nparts; p++)
		{
			Size		tile_len = 0;
			const uint8 *tile = gsst_request_tile(req, p, &tile_len);

			ok = tile != NULL &&
				results_from_tile(&batch->columns[batch->request_column[p]],
								  &batch->results_arena, tile, tile_len);
		}
		if (!ok)
		{
			ereport(WARNING,
					(errmsg("gsst worker returned a batch that does not match the request; encoding it in this backend")));
			gsst_request_count_fallback(true);
		}
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(batch->times.results, end, answered);
	return ok;
}

/* Room in col->results for every value. */
static void
results_reserve(GsstBatch *batch, GsstBatchColumn *col)
{
	if (col->results == NULL || col->results_cap < col->nvalues)
	{
		if (col->results != NULL)
			pfree(col->results);
		col->results_cap = Max(col->nvalues, col->capacity);
		col->results = MemoryContextAllocHuge(batch->cxt,
											  sizeof(struct varlena *) * Max(col->results_cap, 1));
	}
}

/*
 * A column whose results are filled before gsst_batch_finish (by
 * encode_pool.c): they start NULL, and finish encodes those left NULL.
 */
void
gsst_batch_results_init(GsstBatch *batch, int column)
{
	GsstBatchColumn *col = &batch->columns[column];

	results_reserve(batch, col);
	memset(col->results, 0, sizeof(struct varlena *) * col->nvalues);
	col->results_ready = true;
}

/*
 * Fill every column's results: from the worker's answer, or encoded here
 * when the worker did not take the batch or could not answer it (and for
 * values results_init left to it).
 */
void
gsst_batch_finish(GsstBatch *batch)
{
	MemoryContext old = MemoryContextSwitchTo(batch->cxt);
	instr_time	start;
	instr_time	end;

	for (int c = 0; c < batch->ncolumns; c++)
	{
		if (!batch->columns[c].results_ready)
			results_reserve(batch, &batch->columns[c]);
	}
	batch->used_worker = batch->request != NULL && results_from_worker(batch);

	INSTR_TIME_SET_CURRENT(start);
	for (int c = 0; c < batch->ncolumns; c++)
	{
		GsstBatchColumn *col = &batch->columns[c];

		/* columns without a table never went to the worker */
		if (batch->used_worker && col->table_id != 0)
			continue;
		for (int i = 0; i < col->nvalues; i++)
		{
			Size		len = col->offsets[i + 1] - col->offsets[i];
			struct varlena *v;

			if (col->results_ready && col->results[i] != NULL)
				continue;
			v = gsst_arena_alloc(&batch->results_arena, GSST_DATUM_ENCODE_BOUND(len));
			col->results[i] = gsst_datum_encode_into(col->encoder, col->table_id,
													 col->data + col->offsets[i], len,
													 &col->toast, v);
			gsst_arena_shrink_last(&batch->results_arena, v, VARSIZE(v));
			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(batch->times.encode, end, start);
	/* the results hold their own bytes: the text and the tiles may go */
	release_requests(batch);
	batch->finished = true;
	MemoryContextSwitchTo(old);
}

void
gsst_batch_free(GsstBatch *batch)
{
	release_requests(batch);
	MemoryContextDelete(batch->cxt);
}

void
gsst_batch_times_add(GsstBatchTimes *sum, const GsstBatchTimes *add)
{
	INSTR_TIME_ADD(sum->handoff, add->handoff);
	INSTR_TIME_ADD(sum->results, add->results);
	INSTR_TIME_ADD(sum->wait, add->wait);
	INSTR_TIME_ADD(sum->encode, add->encode);
}
