/*
 * request.h - a backend's side of the gsst worker's protocol: hand parts
 * (a column's values with its table) to the worker, wait for its tiles.
 *
 * Nothing here knows batches or tables of the database; batch.c builds on
 * it.  Every function falls back quietly: a NULL request or a false wait
 * means "encode on the CPU", which gives the same bytes.
 */
#ifndef GSST_REQUEST_H
#define GSST_REQUEST_H

#include "base/gsst.h"

/* One part of a request: values data[offsets[i] .. offsets[i + 1]). */
typedef struct GsstRequestPart
{
	const uint8 *table;			/* serialized symbol table */
	Size		table_len;
	const char *data;
	Size		len;
	const uint64 *offsets;		/* nvalues + 1 entries, from 0 to len */
	int			nvalues;
} GsstRequestPart;

typedef struct GsstRequest GsstRequest;

extern GsstRequest *gsst_request_submit(const GsstRequestPart *parts, int nparts);
extern GsstRequest *gsst_request_reserve(Size data_cap, int max_values);
extern char *gsst_request_data(GsstRequest *req, Size *cap);
extern bool gsst_request_submit_reserved(GsstRequest *req, const GsstRequestPart *part);
extern bool gsst_request_wait(GsstRequest *req);
extern const uint8 *gsst_request_tile(GsstRequest *req, int part, Size *len);
extern void gsst_request_release(GsstRequest *req);
extern void gsst_request_count_fallback(bool bad_answer);

#endif							/* GSST_REQUEST_H */
