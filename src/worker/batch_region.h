/*
 * batch_region.h - the memory where bulk batches meet the GPU.
 *
 * One region, the size of gsst.batch_region, is shared by every backend,
 * the gsst worker and its GPU helper.  A backend lays its request out in a
 * slice of it (request.c hands slices out with the worker's slots), the
 * helper encodes it there, in memory pinned for the GPU, and writes the
 * tiles beside it, and the backend reads them in place: nobody copies a
 * batch on its way to the GPU or a tile on its way back.
 */
#ifndef GSST_BATCH_REGION_H
#define GSST_BATCH_REGION_H

#include "base/gsst.h"

/* Slices start at page boundaries. */
#define GSST_REGION_ALIGN		4096

extern int	gsst_batch_region_mb;	/* GUC gsst.batch_region */

extern void gsst_batch_region_define_guc(void);
extern void gsst_batch_region_create(void);
extern Size gsst_batch_region_size(void);
extern int	gsst_batch_region_fd(void);
extern char *gsst_batch_region_map(void);
extern bool gsst_batch_region_reserve(char *message, Size message_len);

#endif							/* GSST_BATCH_REGION_H */
