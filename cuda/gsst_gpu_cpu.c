/*
 * gsst_gpu_cpu.c - the GPU library's C ABI (gsst_gpu.h) implemented with the
 * CPU codec: gsst_gpu_cpu.so.
 *
 * The worker's helper process loads it like gsst_gpu.so, so that machines
 * without a GPU (CI among them) exercise the helper, its protocol and its
 * failure handling.  It makes the same tiles as the CPU codec, which the
 * GPU library matches bit for bit.  The device-pointer calls have no CPU
 * meaning and fail with GSST_GPU_ERR_NO_DEVICE.
 *
 * For the tests of a slow start (a CUDA context can take seconds to open),
 * GSST_GPU_CPU_INIT_DELAY_MS in the environment makes init wait that long.
 * For the tests of an answer that is a valid tile of other values, as a
 * faulty device could give, GSST_GPU_CPU_SHIFT_BYTE=1 encodes each batch
 * of 600 values or more with one byte moved from its middle value to the
 * value before.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsst_codec.h"
#include "gsst_gpu.h"

#define GG_EXPORT __attribute__((visibility("default")))
#include "gsst_gpu_common.h"

struct gsst_gpu
{
	gsst_gpu_config config;
	char		last_error[256];
	gsst_gpu_stats stats;
	gsst_encoder encoder;
};

static _Thread_local char init_error[256];

static int
fail(gsst_gpu *ctx, int status, const char *what)
{
	snprintf(ctx->last_error, sizeof(ctx->last_error), "%s", what);
	return status;
}

GG_EXPORT int
gsst_gpu_init(const gsst_gpu_config *config, gsst_gpu **ctx)
{
	gsst_gpu   *c;
	const char *delay = getenv("GSST_GPU_CPU_INIT_DELAY_MS");
	int			delay_ms = delay != NULL ? atoi(delay) : 0;

	*ctx = NULL;
	if (delay_ms > 0)
	{
		struct timespec wait = {delay_ms / 1000, (long) (delay_ms % 1000) * 1000000L};

		nanosleep(&wait, NULL);
	}
	c = calloc(1, sizeof(gsst_gpu));
	if (c == NULL)
	{
		snprintf(init_error, sizeof(init_error), "out of memory");
		return GSST_GPU_ERR_NOMEM;
	}
	if (config != NULL)
		c->config = *config;
	else
		gsst_gpu_config_default(&c->config);
	if (c->config.split_bytes == 0)
		c->config.split_bytes = GSST_GPU_DEFAULT_SPLIT_BYTES;
	*ctx = c;
	init_error[0] = '\0';
	return GSST_GPU_OK;
}

GG_EXPORT const char *
gsst_gpu_init_error(void)
{
	return init_error;
}

GG_EXPORT void
gsst_gpu_shutdown(gsst_gpu *ctx)
{
	free(ctx);
}

GG_EXPORT const char *
gsst_gpu_last_error(const gsst_gpu *ctx)
{
	return ctx != NULL ? ctx->last_error : "";
}

GG_EXPORT int
gsst_gpu_get_info(gsst_gpu *ctx, gsst_gpu_info *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "CPU (gsst_gpu_cpu.so)");
	info->device = ctx->config.device;
	return GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_last_stats(const gsst_gpu *ctx, gsst_gpu_stats *stats)
{
	*stats = ctx->stats;
	return GSST_GPU_OK;
}

/* Host memory needs no pinning here: the calls only check their arguments. */
GG_EXPORT int
gsst_gpu_host_register(gsst_gpu *ctx, void *ptr, size_t bytes)
{
	return ctx == NULL || ptr == NULL || bytes == 0 ? GSST_GPU_ERR_ARG : GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_host_unregister(gsst_gpu *ctx, void *ptr)
{
	return ctx == NULL || ptr == NULL ? GSST_GPU_ERR_ARG : GSST_GPU_OK;
}

GG_EXPORT size_t
gsst_gpu_tile_bound(size_t n, size_t raw_bytes, size_t split_bytes)
{
	return gsst_tile_bound(n, raw_bytes, split_bytes);
}

/* The table to encode with: the one given, or one trained on the batch. */
static int
load_or_train(gsst_gpu *ctx, const uint8_t *table_bytes, size_t table_len,
			  const uint8_t *data, const uint64_t *offsets, size_t n, gsst_table *table)
{
	if (table_bytes != NULL && table_len > 0)
	{
		size_t		consumed = 0;

		if (gsst_table_load(table, table_bytes, table_len, &consumed) != GSST_OK ||
			consumed != table_len)
			return fail(ctx, GSST_GPU_ERR_CODEC, "invalid table");
		return GSST_GPU_OK;
	}
	else
	{
		size_t		take = n < 4096 ? n : 4096;
		const uint8_t **values = malloc(sizeof(uint8_t *) * (take ? take : 1));
		size_t	   *lens = malloc(sizeof(size_t) * (take ? take : 1));
		void	   *work = malloc(gsst_train_work_bytes());
		int			rc = GSST_GPU_ERR_NOMEM;

		if (values != NULL && lens != NULL && work != NULL)
		{
			for (size_t i = 0; i < take; i++)
			{
				size_t		v = n <= take ? i : i * (n / take);

				values[i] = data + offsets[v];
				lens[i] = offsets[v + 1] - offsets[v];
			}
			rc = gsst_train(table, values, lens, take, work) == GSST_OK ?
				GSST_GPU_OK : fail(ctx, GSST_GPU_ERR_CODEC, "training failed");
		}
		free(values);
		free(lens);
		free(work);
		return rc;
	}
}

/*
 * GSST_GPU_CPU_SHIFT_BYTE: a copy of the offsets with the middle value's
 * first byte given to the value before, or NULL (not asked, too few values,
 * or the middle value is empty).
 */
static uint64_t *
shift_byte_offsets(const uint64_t *offsets, size_t n)
{
	const char *shift = getenv("GSST_GPU_CPU_SHIFT_BYTE");
	uint64_t   *copy;

	if (shift == NULL || strcmp(shift, "1") != 0 || n < 600 ||
		offsets[n / 2 + 1] == offsets[n / 2])
		return NULL;
	copy = malloc(sizeof(uint64_t) * (n + 1));
	if (copy == NULL)
		return NULL;
	memcpy(copy, offsets, sizeof(uint64_t) * (n + 1));
	copy[n / 2]++;
	return copy;
}

GG_EXPORT int
gsst_gpu_encode(gsst_gpu *ctx, const uint8_t *table_bytes, size_t table_len,
				const uint8_t *data, const uint64_t *offsets, size_t n,
				uint8_t *tile, size_t tile_cap, size_t *tile_len)
{
	gsst_table	table;
	uint64_t   *shifted;
	int			rc;

	if (ctx == NULL || (n > 0 && (data == NULL || offsets == NULL)) || tile == NULL ||
		tile_len == NULL)
		return ctx ? fail(ctx, GSST_GPU_ERR_ARG, "invalid argument") : GSST_GPU_ERR_ARG;
	rc = load_or_train(ctx, table_bytes, table_len, data, offsets, n, &table);
	if (rc != GSST_GPU_OK)
		return rc;
	gsst_encoder_init(&ctx->encoder, &table);
	shifted = shift_byte_offsets(offsets, n);
	rc = gsst_tile_encode_version(&ctx->encoder, data, shifted ? shifted : offsets, n,
								  ctx->config.split_bytes,
								  (ctx->config.flags & GSST_GPU_FLAG_TILE_V1) ? 1 : GSST_TILE_VERSION,
								  tile, tile_cap, tile_len);
	free(shifted);
	if (rc != GSST_OK)
		return fail(ctx, rc == GSST_ERR_SPACE ? GSST_GPU_ERR_SPACE : GSST_GPU_ERR_CODEC,
					gsst_strerror(rc));
	memset(&ctx->stats, 0, sizeof(ctx->stats));
	ctx->stats.split_bytes = ctx->config.split_bytes;
	ctx->last_error[0] = '\0';
	return GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_decode(gsst_gpu *ctx, const uint8_t *tile_bytes, size_t tile_len,
				uint8_t *out, size_t out_cap, size_t *out_len)
{
	gsst_tile	tile;

	if (gsst_tile_open(&tile, tile_bytes, tile_len) != GSST_OK)
		return fail(ctx, GSST_GPU_ERR_CORRUPT, "tile failed validation");
	if (tile.raw_bytes > out_cap)
		return fail(ctx, GSST_GPU_ERR_SPACE, "output buffer too small");
	if (gsst_tile_decode_all(&tile, out, out_cap) != GSST_OK)
		return fail(ctx, GSST_GPU_ERR_CORRUPT, "tile failed validation");
	*out_len = tile.raw_bytes;
	return GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_decode_values(gsst_gpu *ctx, const uint8_t *tile_bytes, size_t tile_len,
					   const uint64_t *indices, size_t k, uint8_t *out,
					   size_t out_cap, uint64_t *out_offsets)
{
	gsst_tile	tile;
	uint64_t	at = 0;

	if (gsst_tile_open(&tile, tile_bytes, tile_len) != GSST_OK)
		return fail(ctx, GSST_GPU_ERR_CORRUPT, "tile failed validation");
	for (size_t j = 0; j < k; j++)
	{
		int64_t		got;

		if (indices[j] >= tile.nvalues)
			return fail(ctx, GSST_GPU_ERR_ARG, "index out of range");
		out_offsets[j] = at;
		got = gsst_tile_decode_one(&tile, indices[j], out + at, out_cap - at);
		if (got < 0)
			return fail(ctx, got == GSST_ERR_SPACE ? GSST_GPU_ERR_SPACE : GSST_GPU_ERR_CORRUPT,
						gsst_strerror((int) got));
		at += (uint64_t) got;
	}
	out_offsets[k] = at;
	return GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_encode_device(gsst_gpu *ctx, const uint8_t *table, size_t table_len,
					   const void *d_data, const void *d_offsets, size_t n,
					   void *d_tile, size_t tile_cap, size_t *tile_len)
{
	(void) table;
	(void) table_len;
	(void) d_data;
	(void) d_offsets;
	(void) n;
	(void) d_tile;
	(void) tile_cap;
	(void) tile_len;
	return fail(ctx, GSST_GPU_ERR_NO_DEVICE, "the CPU build has no device memory");
}

GG_EXPORT int
gsst_gpu_decode_device(gsst_gpu *ctx, const void *d_tile, size_t tile_len,
					   void *d_out, size_t out_cap, size_t *out_len)
{
	(void) d_tile;
	(void) tile_len;
	(void) d_out;
	(void) out_cap;
	(void) out_len;
	return fail(ctx, GSST_GPU_ERR_NO_DEVICE, "the CPU build has no device memory");
}

GG_EXPORT int
gsst_gpu_decode_values_device(gsst_gpu *ctx, const void *d_tile, size_t tile_len,
							  const void *d_indices, size_t k, void *d_out,
							  size_t out_cap, void *d_out_offsets)
{
	(void) d_tile;
	(void) tile_len;
	(void) d_indices;
	(void) k;
	(void) d_out;
	(void) out_cap;
	(void) d_out_offsets;
	return fail(ctx, GSST_GPU_ERR_NO_DEVICE, "the CPU build has no device memory");
}
