/*
 * gpu_helper.h - the gsst worker's GPU helper process, from the worker's
 * side: start it, hand it batches, notice when it is gone.
 *
 * The helper (src/worker/helper/gsst_gpu_helper.c) is the only process that loads
 * the GPU library.  It holds no PostgreSQL shared memory, so its death
 * costs a batch, never the cluster.  Only the worker calls these.
 */
#ifndef GSST_GPU_HELPER_H
#define GSST_GPU_HELPER_H

#include "postgres.h"

/* gpu_helper_encode's answer when the helper did not answer: it is gone */
#define GPU_HELPER_LOST		(-1)

typedef enum GpuHelperStart
{
	GPU_HELPER_STARTED,			/* ready; message describes the device */
	GPU_HELPER_NO_DEVICE,		/* the library found no GPU or driver */
	GPU_HELPER_REFUSED,			/* the library or device failed to open */
	GPU_HELPER_LOST_AT_START	/* the helper died or hung before it answered */
} GpuHelperStart;

extern GpuHelperStart gpu_helper_start(const char *helper_path, const char *library,
									   int device, int timeout_ms,
									   char *message, Size message_len);
extern int	gpu_helper_encode(const uint8 *table, Size table_len, const uint8 *data,
							  const uint64 *offsets, Size nvalues, uint8 *tile,
							  Size tile_cap, Size *tile_len, int delay_ms,
							  int timeout_ms, char *message, Size message_len);
extern bool gpu_helper_check(char *message, Size message_len);
extern void gpu_helper_stop(void);
extern void gpu_helper_kill(void);
extern void gpu_helper_reap(void);
extern pid_t gpu_helper_pid(void);
extern int	gpu_helper_reply_fd(void);

#endif							/* GSST_GPU_HELPER_H */
