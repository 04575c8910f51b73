/*
 * worker.h - the gsst background worker and the batches it encodes.
 *
 * Bulk paths (gsst.compress_table, gsst.load) gather the values of a gsst
 * column in batches.  A batch goes to the background worker, which encodes
 * it on the GPU (gsst_gpu.so, dlopen()ed by the worker alone) into a GSST
 * tile; the backend turns the tile back into one datum per value.  When the
 * worker is not there, has no GPU, is busy, fails or times out, the backend
 * encodes the batch itself: per value, with the same table, giving the same
 * bytes (the GPU library and the tile encoder match gsst_encode_value bit
 * for bit).
 */
#ifndef GSST_WORKER_H
#define GSST_WORKER_H

#include "gsst.h"

/* GUCs (worker.c) */
extern bool gsst_gpu_enabled;
extern int	gsst_gpu_device;
extern int	gsst_batch_bytes;
extern int	gsst_worker_timeout_ms;

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
	uint8	   *table_bytes;	/* serialized table, for the worker */
	int			table_len;
	int			nvalues;
	int			capacity;		/* entries of offsets, less one */
	char	   *data;
	Size		len;			/* bytes in data */
	Size		data_cap;
	uint64	   *offsets;		/* nvalues + 1 entries */
	struct varlena **results;
} GsstBatchColumn;

/* An outstanding request to the worker (worker.c). */
typedef struct GsstRequest GsstRequest;

/* A batch: some gsst columns' values, encoded in one request. */
typedef struct GsstBatch
{
	MemoryContext cxt;			/* holds the batch and its results */
	int			ncolumns;
	GsstBatchColumn *columns;
	GsstRequest *request;		/* NULL unless the worker has it */
	bool		finished;
	bool		used_worker;	/* results came from the worker */
} GsstBatch;

/* worker.c: GUCs, shared memory, the worker, the protocol. */
extern void gsst_worker_init(void);
extern PGDLLEXPORT void gsst_worker_main(Datum main_arg);
extern GsstRequest *gsst_request_submit(GsstBatch *batch);
extern bool gsst_request_wait(GsstRequest *req, GsstBatch *batch);
extern void gsst_request_release(GsstRequest *req);
extern void gsst_worker_count_fallback(void);

/* bulk.c: batches. */
extern GsstBatch *gsst_batch_create(MemoryContext parent, int ncolumns);
extern void gsst_batch_set_table(GsstBatchColumn *col, int32 family,
								 uint32 table_id, const gsst_encoder *encoder,
								 MemoryContext cxt);
extern int	gsst_batch_add(GsstBatchColumn *col, const char *data, Size len);
extern Size gsst_batch_raw_bytes(const GsstBatch *batch);
extern void gsst_batch_submit(GsstBatch *batch);
extern void gsst_batch_finish(GsstBatch *batch);
extern void gsst_batch_free(GsstBatch *batch);
extern bool gsst_batch_results_from_tile(GsstBatchColumn *col,
										 const uint8 *tile, size_t tile_len);

#endif							/* GSST_WORKER_H */
