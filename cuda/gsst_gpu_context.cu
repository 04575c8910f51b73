/*
 * gsst_gpu_context.cu - gsst_gpu.so's context: init (device, streams,
 * events, fixed device buffers, pinned memory, training's work area),
 * info, stats, error texts, pinning of the caller's host memory, shutdown;
 * and the ABI's version, config and status texts (gsst_gpu_common.h).
 *
 * gsst_gpu.so encodes and decodes GSST tiles on an NVIDIA GPU (sm_90),
 * behind the C ABI of gsst_gpu.h: encode in gsst_gpu_encode.cu, decode in
 * gsst_gpu_decode_split.cu and gsst_gpu_decode_values.cu around
 * gsst_gpu_open_tile.cu; what they share is in gsst_gpu_internal.cuh
 * (cuda/NOTES.md, "Files").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gsst_gpu_internal.cuh"
#include "gsst_gpu_common.h"

static __thread char init_message[512];

GG_EXPORT const char *
gsst_gpu_init_error(void)
{
	return init_message;
}

GG_EXPORT const char *
gsst_gpu_last_error(const gsst_gpu *ctx)
{
	return ctx ? ctx->msg : "no context";
}

static void
release(gsst_gpu *ctx)
{
	if (ctx->d_work)
		cudaFree(ctx->d_work);
	if (ctx->d_stage_in)
		cudaFree(ctx->d_stage_in);
	if (ctx->d_stage_out)
		cudaFree(ctx->d_stage_out);
	if (ctx->d_fixed)
		cudaFree(ctx->d_fixed);
	if (ctx->h_pinned)
		cudaFreeHost(ctx->h_pinned);
	if (ctx->stream)
		cudaStreamDestroy(ctx->stream);
	if (ctx->side)
		cudaStreamDestroy(ctx->side);
	if (ctx->ev_side_go)
		cudaEventDestroy(ctx->ev_side_go);
	if (ctx->ev_side_done)
		cudaEventDestroy(ctx->ev_side_done);
	if (ctx->ev_start)
		cudaEventDestroy(ctx->ev_start);
	if (ctx->ev_kernel)
		cudaEventDestroy(ctx->ev_kernel);
	if (ctx->ev_plan)
		cudaEventDestroy(ctx->ev_plan);
	if (ctx->ev_kernel_end)
		cudaEventDestroy(ctx->ev_kernel_end);
	if (ctx->ev_end)
		cudaEventDestroy(ctx->ev_end);
	for (int i = 0; i < 3; i++)
		if (ctx->ev_stage[i])
			cudaEventDestroy(ctx->ev_stage[i]);
	free(ctx->train_work);
	free(ctx->h_enc);
	free(ctx);
}

GG_EXPORT void
gsst_gpu_shutdown(gsst_gpu *ctx)
{
	if (ctx == NULL)
		return;
	if (!ctx->broken)
		cudaStreamSynchronize(ctx->stream);
	release(ctx);
}

GG_EXPORT int
gsst_gpu_init(const gsst_gpu_config *config, gsst_gpu **out)
{
	gsst_gpu_config cfg;
	gsst_gpu   *ctx;
	int			count = 0;
	cudaError_t e;
	cudaDeviceProp prop;
	int			driver = 0;
	size_t		train_bytes;
	size_t		at;

	init_message[0] = '\0';
	if (out == NULL)
	{
		snprintf(init_message, sizeof(init_message), "ctx pointer is NULL");
		return GSST_GPU_ERR_ARG;
	}
	*out = NULL;
	gsst_gpu_config_default(&cfg);
	if (config)
	{
		cfg = *config;
		if (cfg.split_bytes == 0)
			cfg.split_bytes = GSST_GPU_DEFAULT_SPLIT_BYTES;
		if (cfg.unit_bytes == 0)
			cfg.unit_bytes = cfg.split_bytes < GSST_GPU_DEFAULT_UNIT_BYTES ?
				cfg.split_bytes : GSST_GPU_DEFAULT_UNIT_BYTES;
		if (cfg.sample_bytes == 0)
			cfg.sample_bytes = GSST_GPU_DEFAULT_SAMPLE_BYTES;
	}
	if (!gg_sizes_valid(cfg.split_bytes, cfg.unit_bytes))
	{
		snprintf(init_message, sizeof(init_message),
				 "split_bytes %u and unit_bytes %u: both must be multiples of 4096 "
				 "(at most 1 GiB) and unit_bytes must divide split_bytes",
				 cfg.split_bytes, cfg.unit_bytes);
		return GSST_GPU_ERR_ARG;
	}
	if (cfg.sample_bytes > 32768 || cfg.sample_bytes < 1024)
	{
		snprintf(init_message, sizeof(init_message), "sample_bytes %u not in 1 KiB..32 KiB",
				 cfg.sample_bytes);
		return GSST_GPU_ERR_ARG;
	}
	if (cfg.flags & ~GSST_GPU_FLAGS_ALL)
	{
		snprintf(init_message, sizeof(init_message), "flags 0x%x: unknown bits 0x%x", cfg.flags,
				 cfg.flags & ~GSST_GPU_FLAGS_ALL);
		return GSST_GPU_ERR_ARG;
	}

	/*
	 * The CUDA runtime is linked in, so only the driver comes from the
	 * system.  Without one, or with one older than this runtime, the
	 * runtime says "driver version is insufficient" either way: say which.
	 * A driver of the runtime's major release runs it (CUDA's minor version
	 * compatibility).
	 */
	if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
	{
		cudaGetLastError();
		snprintf(init_message, sizeof(init_message),
				 "no NVIDIA driver: libcuda.so.1 not found");
		return GSST_GPU_ERR_NO_DEVICE;
	}
	if (driver / 1000 < CUDART_VERSION / 1000)
	{
		snprintf(init_message, sizeof(init_message),
				 "the NVIDIA driver supports CUDA %d.%d; this library needs CUDA %d",
				 driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000);
		return GSST_GPU_ERR_NO_DEVICE;
	}
	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0)
	{
		cudaGetLastError();
		snprintf(init_message, sizeof(init_message), "no CUDA device: %s",
				 e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
		return GSST_GPU_ERR_NO_DEVICE;
	}
	if (cfg.device >= count)
	{
		snprintf(init_message, sizeof(init_message), "device %d: only %d devices", cfg.device,
				 count);
		return GSST_GPU_ERR_ARG;
	}
	ctx = (gsst_gpu *) calloc(1, sizeof(gsst_gpu));
	if (ctx == NULL)
	{
		snprintf(init_message, sizeof(init_message), "out of host memory");
		return GSST_GPU_ERR_NOMEM;
	}
	ctx->cfg = cfg;
	ctx->device = cfg.device < 0 ? 0 : cfg.device;

#define INIT_CU(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			snprintf(init_message, sizeof(init_message), "%s: %s", #call, cudaGetErrorString(e_)); \
			cudaGetLastError(); \
			release(ctx); \
			return e_ == cudaErrorMemoryAllocation ? GSST_GPU_ERR_NOMEM : GSST_GPU_ERR_NO_DEVICE; \
		} \
	} while (0)

	INIT_CU(cudaSetDevice(ctx->device));
	INIT_CU(cudaGetDeviceProperties(&prop, ctx->device));
	if (prop.major < 9)
	{
		snprintf(init_message, sizeof(init_message),
				 "device %d (%s) has compute capability %d.%d; gsst_gpu needs 9.0",
				 ctx->device, prop.name, prop.major, prop.minor);
		release(ctx);
		return GSST_GPU_ERR_NO_DEVICE;
	}
	/* the copy-back grid: 8 blocks per SM cover any chunk in a few strides */
	ctx->copy_blocks = 8 * (unsigned) prop.multiProcessorCount;
	{
		int			per_sm = 0;

		INIT_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_encode, ENCODE_THREADS, 0));
		ctx->encode_slots = (uint64_t) (per_sm > 0 ? per_sm : 1) * prop.multiProcessorCount *
			ENCODE_THREADS;
	}
	{
		int			least,
					greatest;

		/*
		 * The kernels' stream first: the side stream's copy then probably never
		 * takes the encoder's slots (k_encode 5.95 -> 5.85 ms on the H200)
		 */
		INIT_CU(cudaDeviceGetStreamPriorityRange(&least, &greatest));
		/*
		 * A blocking stream: ordered after work the caller queued on the
		 * legacy default stream (a cudaMemset of the output, say), as the
		 * API promises.  The priority had let a decode overtake such a
		 * memset in gpu_bench.
		 */
		INIT_CU(cudaStreamCreateWithPriority(&ctx->stream, cudaStreamDefault, greatest));
	}
	INIT_CU(cudaStreamCreateWithFlags(&ctx->side, cudaStreamNonBlocking));
	INIT_CU(cudaEventCreateWithFlags(&ctx->ev_side_go, cudaEventDisableTiming));
	INIT_CU(cudaEventCreateWithFlags(&ctx->ev_side_done, cudaEventDisableTiming));
	INIT_CU(cudaEventCreate(&ctx->ev_start));
	INIT_CU(cudaEventCreate(&ctx->ev_kernel));
	INIT_CU(cudaEventCreate(&ctx->ev_plan));
	INIT_CU(cudaEventCreate(&ctx->ev_kernel_end));
	INIT_CU(cudaEventCreate(&ctx->ev_end));
	for (int i = 0; i < 3; i++)
		INIT_CU(cudaEventCreate(&ctx->ev_stage[i]));

	/*
	 * fixed device buffers: encoder table and tile prefix (next to each
	 * other, as in h_pinned, so that one copy uploads both), decoder table,
	 * error word, code size, sample
	 */
	at = 0;
	{
		size_t		enc_at = at;
		size_t		prefix_at = enc_at + sizeof(gg_encoder);
		size_t		dec_at = gsst_align_up(prefix_at + PREFIX_MAX_BYTES, 256);
		size_t		err_at = dec_at + sizeof(gg_decoder);
		size_t		cb_at = err_at + 64;
		size_t		blob_at = gsst_align_up(cb_at + 64, 256);

		ctx->fixed_bytes = blob_at + SAMPLE_BLOB_BYTES;
		INIT_CU(cudaMalloc((void **) &ctx->d_fixed, ctx->fixed_bytes));
		ctx->d_enc = (gg_encoder *) (ctx->d_fixed + enc_at);
		ctx->d_dec = (gg_decoder *) (ctx->d_fixed + dec_at);
		ctx->d_err = (gg_error *) (ctx->d_fixed + err_at);
		ctx->d_code_bytes = (uint64_t *) (ctx->d_fixed + cb_at);
		ctx->d_prefix = ctx->d_fixed + prefix_at;
		ctx->d_sample_blob = ctx->d_fixed + blob_at;
	}
	INIT_CU(cudaHostAlloc((void **) &ctx->h_pinned, PINNED_BYTES, cudaHostAllocDefault));

	/*
	 * Training's 3 MB of counters on huge pages: on 4 kB pages its time
	 * varied by process between 0.37 and 0.60 ms on the device host (the
	 * pages' placement), on huge pages it stays at the low end
	 */
	train_bytes = (gsst_train_work_bytes() + (2u << 20) - 1) / (2u << 20) * (2u << 20);
	ctx->train_work = aligned_alloc(2u << 20, train_bytes);
#ifdef MADV_HUGEPAGE
	if (ctx->train_work)
		madvise(ctx->train_work, train_bytes, MADV_HUGEPAGE);
#endif
	ctx->h_enc = (gsst_encoder *) aligned_alloc(64, (sizeof(gsst_encoder) + 63) / 64 * 64);
	if (ctx->train_work == NULL || ctx->h_enc == NULL)
	{
		snprintf(init_message, sizeof(init_message), "out of host memory");
		release(ctx);
		return GSST_GPU_ERR_NOMEM;
	}
	memset(ctx->train_work, 0, train_bytes);	/* gsst_train wants it zeroed once */
	*out = ctx;
	return GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_get_info(gsst_gpu *ctx, gsst_gpu_info *info)
{
	cudaDeviceProp prop;
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (info == NULL)
		return GSST_GPU_ERR_ARG;
	CU(cudaGetDeviceProperties(&prop, ctx->device));
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", prop.name);
	info->device = ctx->device;
	info->multiprocessors = prop.multiProcessorCount;
	info->cc_major = prop.major;
	info->cc_minor = prop.minor;
	info->total_memory = prop.totalGlobalMem;
	info->l2_bytes = (size_t) prop.l2CacheSize;
	return GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_last_stats(const gsst_gpu *ctx, gsst_gpu_stats *stats)
{
	if (ctx == NULL || stats == NULL)
		return GSST_GPU_ERR_ARG;
	*stats = ctx->stats;
	return GSST_GPU_OK;
}

/* ---- pinning the caller's host memory ---- */

/*
 * Pinning failed: not an error of the context (pinning is optional to its
 * callers), so it is cleared and said, and the context stays usable.
 */
static int
host_memory_failure(gsst_gpu *ctx, cudaError_t e, const char *what)
{
	cudaGetLastError();
	return set_error(ctx, GSST_GPU_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

GG_EXPORT int
gsst_gpu_host_register(gsst_gpu *ctx, void *ptr, size_t bytes)
{
	cudaError_t e;

	if (ctx == NULL || ptr == NULL || bytes == 0)
		return GSST_GPU_ERR_ARG;
	e = cudaHostRegister(ptr, bytes, cudaHostRegisterDefault);
	return e == cudaSuccess ? GSST_GPU_OK : host_memory_failure(ctx, e, "cudaHostRegister");
}

GG_EXPORT int
gsst_gpu_host_unregister(gsst_gpu *ctx, void *ptr)
{
	cudaError_t e;

	if (ctx == NULL || ptr == NULL)
		return GSST_GPU_ERR_ARG;
	e = cudaHostUnregister(ptr);
	return e == cudaSuccess ? GSST_GPU_OK : host_memory_failure(ctx, e, "cudaHostUnregister");
}
