/*
 * helper_protocol.h - what the gsst worker and its GPU helper process say to
 * each other.  Plain C: the helper includes no PostgreSQL header, the worker
 * no CUDA header.
 *
 * The worker starts the helper (src/worker/helper/gsst_gpu_helper.c) with three
 * descriptors: requests come in on fd 3, replies go out on fd 4, and fd 5 is
 * the server's batch region (a memfd), where backends lay their batches
 * out.  The worker sends an ENCODE request naming where a batch's table,
 * offsets and values lie in it; the helper writes the tile into the region
 * and replies.
 * Requests and replies are fixed-size records, smaller than PIPE_BUF, so
 * each is written and read whole.
 *
 * The helper loads the GPU library and holds no PostgreSQL shared memory:
 * if it dies (kill -9, the OOM killer, a crash in the driver) the worker
 * sees its reply pipe close, encodes the batch on the CPU and starts a new
 * helper; the postmaster never learns of it.
 */
#ifndef GSST_HELPER_PROTOCOL_H
#define GSST_HELPER_PROTOCOL_H

#include <stdint.h>

#define GSST_HELPER_MAGIC		0x50484753u	/* "SGHP" */
#define GSST_HELPER_REQUEST_FD	3
#define GSST_HELPER_REPLY_FD	4
#define GSST_HELPER_REGION_FD	5
#define GSST_HELPER_MESSAGE_LEN	256

/* argv: gsst_gpu_helper LIBRARY DEVICE PARENT_PID */
#define GSST_HELPER_ARGC		4

typedef enum gsst_helper_op
{
	GSST_HELPER_ENCODE = 1
} gsst_helper_op;

typedef struct gsst_helper_request
{
	uint32_t	magic;
	uint32_t	op;
	uint64_t	seq;			/* echoed in the reply */
	uint64_t	region_bytes;	/* the region's size */
	uint64_t	table_off;
	uint64_t	table_len;
	uint64_t	offsets_off;	/* nvalues + 1 uint64_t, 8-byte aligned */
	uint64_t	data_off;
	uint64_t	nvalues;
	uint64_t	tile_off;
	uint64_t	tile_cap;
	uint32_t	delay_ms;		/* sleep first (tests kill the helper here) */
	uint32_t	pad;
} gsst_helper_request;

/*
 * The first reply, seq 0, says whether the library opened the device:
 * status is a gsst_gpu_status, message the library's reason when it is
 * not GSST_GPU_OK, else the device's description.  Each ENCODE gets one
 * reply with its seq, status and tile_len (message: the library's error).
 */
typedef struct gsst_helper_reply
{
	uint32_t	magic;
	int32_t		status;
	uint64_t	seq;
	uint64_t	tile_len;
	char		message[GSST_HELPER_MESSAGE_LEN];
} gsst_helper_reply;

#endif							/* GSST_HELPER_PROTOCOL_H */
