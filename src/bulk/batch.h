/*
 * batch.h - batches of values of gsst columns, encoded in one request.
 *
 * The bulk paths (compress_table.c, load.c) gather the values of a table's
 * gsst columns in batches.  A batch goes to the gsst worker (request.c),
 * which encodes each column's values into a GSST tile on the GPU; the tile
 * is turned back into one datum per value.  When the worker is not there,
 * has no GPU, is busy, fails or times out, the backend encodes the batch
 * itself, per value, with the same table and the same rule
 * (gsst_codes_are_shorter), which gives the same bytes.
 */
#ifndef GSST_BATCH_H
#define GSST_BATCH_H

#include "type/type.h"

#include "portability/instr_time.h"

#include "bulk/arena.h"

/* Tuples (or rows) a batch holds at most, whatever their size. */
#define GSST_BATCH_MAX_ROWS		(1024 * 1024)

/* A gsst column of the relation a bulk path works on, and its table. */
typedef struct GsstColumn
{
	char	   *name;
	int32		family;
	uint32		table_id;		/* 0: none the role may use */
	gsst_encoder *encoder;		/* a copy, in the operation's context */
} GsstColumn;

typedef struct GsstRequest GsstRequest;

/*
 * The values of one gsst column in a batch, and the table they are
 * encoded with.  The values lie back to back in data; value i is
 * data[offsets[i] .. offsets[i + 1]).  results[i] is filled by
 * gsst_batch_finish.
 */
typedef struct GsstBatchColumn
{
	int32		family;
	uint32		table_id;		/* 0: no table, every value stays raw */
	const gsst_encoder *encoder;	/* of table_id, for the CPU path */
	GsstToastRule toast;		/* the family's, for long text */
	uint8	   *table_bytes;	/* serialized table, for the worker */
	int			table_len;
	int			nvalues;
	int			capacity;		/* entries of offsets, less one */
	char	   *data;			/* local_data, or the text area of slice */
	Size		len;			/* bytes in data */
	Size		data_cap;
	char	   *local_data;		/* this process's buffer for the text */
	Size		local_cap;
	bool		gather;			/* gather the text in a slice of the batch region */
	GsstRequest *slice;			/* the request whose slice data is in, or NULL */
	int			slice_values;	/* values the slice takes */
	uint64	   *offsets;		/* nvalues + 1 entries */
	struct varlena **results;
	int			results_cap;	/* entries of results */
	bool		results_ready;	/* filled before finish; NULL ones still to encode */
} GsstBatchColumn;

/* Where a bulk path's time went, summed over its batches. */
typedef struct GsstBatchTimes
{
	instr_time	handoff;		/* handing to the worker (a copy unless gathered there) */
	instr_time	results;		/* the worker's tiles back into datums */
	instr_time	wait;			/* waiting for the worker */
	instr_time	encode;			/* encoding in this backend */
} GsstBatchTimes;

/*
 * A batch: some gsst columns' values, encoded in one request.  A batch can
 * be reset and filled again: it keeps its memory.
 */
typedef struct GsstBatch
{
	MemoryContext cxt;			/* holds the batch */
	GsstArena	results_arena;	/* the datums of results */
	int			ncolumns;
	GsstBatchColumn *columns;
	GsstRequest *request;		/* NULL unless the worker has it */
	int			nparts;			/* columns in the request */
	int		   *request_column; /* per part of the request: its column */
	bool		finished;
	bool		used_worker;	/* results came from the worker */
	GsstBatchTimes times;
} GsstBatch;

extern void gsst_column_resolve(GsstColumn *gc, MemoryContext cxt);
extern bool gsst_value_encoded_with(Datum d, uint32 table_id);

extern GsstBatch *gsst_batch_create(MemoryContext parent, int ncolumns);
extern void gsst_batch_gather_in_region(GsstBatch *batch);
extern void gsst_batch_set_table(GsstBatchColumn *col, int32 family,
								 uint32 table_id, const gsst_encoder *encoder,
								 MemoryContext cxt);
extern void gsst_batch_use_table(GsstBatchColumn *col, uint32 table_id,
								 const gsst_encoder *encoder, MemoryContext cxt);
extern int	gsst_batch_add(GsstBatchColumn *col, const char *data, Size len);
extern Size gsst_batch_raw_bytes(const GsstBatch *batch);
extern void gsst_batch_submit(GsstBatch *batch);
extern void gsst_batch_finish(GsstBatch *batch);
extern void gsst_batch_reset(GsstBatch *batch);
extern void gsst_batch_results_init(GsstBatch *batch, int column);
extern void gsst_batch_free(GsstBatch *batch);
extern void gsst_batch_times_add(GsstBatchTimes *sum, const GsstBatchTimes *add);

#endif							/* GSST_BATCH_H */
