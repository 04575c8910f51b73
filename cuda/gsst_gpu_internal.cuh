/*
 * gsst_gpu_internal.cuh - what the CUDA files of gsst_gpu.so share: the
 * context (struct gsst_gpu) with its host helpers (errors, CUDA checks,
 * buffers), the warp primitives of both the encoder and the decoders, and
 * the few functions one file defines for another.  The helpers are static
 * inline, so that each .cu compiles on its own, without relocatable device
 * code.
 */
#ifndef GSST_GPU_INTERNAL_CUH
#define GSST_GPU_INTERNAL_CUH

#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gsst_gpu.h"
#include "gsst_gpu_plan.h"

#define GG_EXPORT extern "C" __attribute__((visibility("default")))

/* ---- the encoder kernel, for gsst_gpu_init's occupancy query ---- */

#ifndef ENCODE_THREADS
#define ENCODE_THREADS 128
#endif

__global__ void k_encode(gg_encode_args a);

/* ---- device: what the encoder's and the decoders' kernels share ---- */

__device__ __forceinline__ void
load_shared(void *dst, const void *src, size_t bytes)
{
	uint4	   *d = (uint4 *) dst;
	const uint4 *s = (const uint4 *) src;

	for (size_t i = threadIdx.x; i < bytes / 16; i += blockDim.x)
		d[i] = s[i];
}

#define FULL_MASK 0xffffffffu

/* the sum of x over the lanes up to this one (a Hillis-Steele scan) */
template <class T>
__device__ __forceinline__ T
warp_inclusive_sum(T x, unsigned lane)
{
	T			incl = x;

	for (uint32_t d = 1; d < 32; d <<= 1)
	{
		T			t = __shfl_up_sync(FULL_MASK, incl, d);

		if (lane >= d)
			incl += t;
	}
	return incl;
}

/* the sum of x over the lanes below this one; *total: over all 32 */
__device__ __forceinline__ uint32_t
warp_exclusive_sum(uint32_t x, unsigned lane, uint32_t *total)
{
	uint32_t	incl = warp_inclusive_sum(x, lane);

	*total = __shfl_sync(FULL_MASK, incl, 31);
	return incl - x;
}

/* warp_exclusive_sum without the total */
__device__ __forceinline__ uint32_t
warp_exclusive_scan(uint32_t x, unsigned lane)
{
	return warp_inclusive_sum(x, lane) - x;
}

/* warp_exclusive_sum of 64-bit values, without the total */
__device__ __forceinline__ uint64_t
warp_exclusive_sum64(uint64_t x, unsigned lane)
{
	return warp_inclusive_sum(x, lane) - x;
}

/*
 * The version 2 index (gsst_gpu_body.h, "the version 2 value index"): a
 * warp per block of values, V2_THREADS threads a block.
 */
#define V2_THREADS 256

/* ---- the context ---- */

#define SAMPLE_META_BYTES 64
#define SAMPLE_BLOB_BYTES (SAMPLE_META_BYTES + 2 * 4 * GG_SAMPLE_SLOTS + 32768 + GG_SAMPLE_PIECE)
#define PREFIX_MAX_BYTES (GSST_TILE_HEADER_BYTES + GSST_TABLE_MAX_BYTES + 16)
#define PINNED_BYTES (SAMPLE_BLOB_BYTES + sizeof(gg_encoder) + PREFIX_MAX_BYTES + 4096)

struct gsst_gpu
{
	gsst_gpu_config cfg;
	int			device;
	unsigned	copy_blocks;
	uint64_t	encode_slots;	/* encoder threads the GPU holds at once */
	int			broken;
	char		msg[512];
	gsst_gpu_stats stats;
	cudaStream_t stream;
	cudaStream_t side;			/* copies that overlap the encoding kernel */
	cudaEvent_t ev_side_go,
				ev_side_done;
	cudaEvent_t ev_start,
				ev_kernel,
				ev_plan,
				ev_kernel_end,
				ev_end,
				ev_stage[3];

	/* fixed device buffers */
	uint8_t    *d_fixed;
	gg_encoder *d_enc;
	gg_decoder *d_dec;
	gg_error   *d_err;
	uint64_t   *d_code_bytes;
	uint8_t    *d_prefix;
	uint8_t    *d_sample_blob;	/* meta, lens, starts, sample */
	size_t		fixed_bytes;

	/* workspace, grown on demand */
	uint8_t    *d_work;
	size_t		work_cap;
	/* staging for the host-memory API, grown on demand */
	uint8_t    *d_stage_in;
	size_t		stage_in_cap;
	uint8_t    *d_stage_out;
	size_t		stage_out_cap;

	uint8_t    *h_pinned;
	void	   *train_work;
	gsst_encoder *h_enc;
};

static inline int
set_error(gsst_gpu *ctx, int status, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
	va_end(ap);
	return status;
}

/* A CUDA call failed: out of memory is recoverable, the rest is not. */
static inline int
cuda_failure(gsst_gpu *ctx, cudaError_t e, const char *what)
{
	cudaGetLastError();			/* clear a non-sticky error */
	if (e == cudaErrorMemoryAllocation)
		return set_error(ctx, GSST_GPU_ERR_NOMEM, "%s: %s", what, cudaGetErrorString(e));
	ctx->broken = 1;
	return set_error(ctx, GSST_GPU_ERR_CUDA, "%s: %s (the context is unusable; shut it down)",
					 what, cudaGetErrorString(e));
}

#define CU(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
			return cuda_failure(ctx, e_, #call); \
	} while (0)

#define CU_LAUNCH(what) \
	do { \
		cudaError_t e_ = cudaGetLastError(); \
		if (e_ != cudaSuccess) \
			return cuda_failure(ctx, e_, what); \
	} while (0)

static inline double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static inline unsigned
blocks_for(uint64_t items, unsigned threads)
{
	return (unsigned) ((items + threads - 1) / threads);
}

/* grow a device buffer, within the context's memory cap */
static inline int
ensure_buffer(gsst_gpu *ctx, uint8_t **buf, size_t *cap, size_t need)
{
	size_t		others;

	if (need <= *cap)
		return GSST_GPU_OK;
	others = ctx->fixed_bytes + ctx->work_cap + ctx->stage_in_cap + ctx->stage_out_cap - *cap;
	if (ctx->cfg.max_device_bytes && others + need > ctx->cfg.max_device_bytes)
		return set_error(ctx, GSST_GPU_ERR_LIMIT,
						 "batch needs %zu bytes of device memory, over the cap of %zu",
						 others + need, ctx->cfg.max_device_bytes);
	if (*buf)
		cudaFree(*buf);
	*buf = NULL;
	*cap = 0;
	need = (need + 255) & ~(size_t) 255;
	CU(cudaMalloc((void **) buf, need));
	*cap = need;
	return GSST_GPU_OK;
}

static inline int
check_ctx(gsst_gpu *ctx)
{
	if (ctx == NULL)
		return GSST_GPU_ERR_ARG;
	if (ctx->broken)
		return GSST_GPU_ERR_BROKEN;
	ctx->msg[0] = '\0';
	memset(&ctx->stats, 0, sizeof(ctx->stats));
	return GSST_GPU_OK;
}

/* ---- what both decoders do around their kernels (gsst_gpu_open_tile.cu) ---- */

int			gg_open_device_tile(gsst_gpu *ctx, const void *d_tile, size_t tile_len,
								gg_decode_args *a, gsst_tile_layout *lout, size_t work_after,
								size_t *work_at, bool expand);
int			gg_expand_index(gsst_gpu *ctx, const void *d_tile, const gsst_tile_layout *l,
							const gg_decode_args *a);
int			gg_finish_decode(gsst_gpu *ctx);
int			gg_stage_tile(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len);

#endif							/* GSST_GPU_INTERNAL_CUH */
