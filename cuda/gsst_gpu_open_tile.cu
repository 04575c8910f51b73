/*
 * gsst_gpu_open_tile.cu - what both decoders (gsst_gpu_decode_split.cu,
 * gsst_gpu_decode_values.cu) do around their kernels: open a device tile
 * (its header and table read back and checked, the decoder table uploaded,
 * the workspace sized), expand a version 2 index into the version 1
 * entries that the one-thread kernels read (k_v2_expand), read the error
 * word back at the end; and stage a tile from host memory.
 */
#include <string.h>

#include "gsst_gpu_internal.cuh"

/* ---- kernels ---- */

/* a version 2 tile's index, checked, as version 1 entries for the decoders */
__global__ void __launch_bounds__(V2_THREADS)
k_v2_expand(const uint8_t *tile, gsst_tile_layout l, uint64_t raw_bytes, uint8_t *comp,
			uint8_t *raw, gg_error *err)
{
	uint64_t	b = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;
	unsigned	lane = threadIdx.x & 31;
	uint64_t	c0,
				r0,
				k0,
				long_at,
				code_sum,
				raw_sum;
	uint32_t	total;
	int			bad;

	/* block 0 always runs: it checks the sentinel, also of an empty tile */
	if (b > 0 && b >= l.nblocks)
		return;
	gg_v2_block_start(tile, &l, b, &c0, &r0, &k0);
	long_at = k0 + warp_exclusive_sum(gg_v2_expand_lane_longs(tile, &l, b, lane), lane, &total);
	bad = gg_v2_expand_lane_sums(tile, &l, raw_bytes, b, lane, long_at, &code_sum, &raw_sum);
	c0 += warp_exclusive_sum64(code_sum, lane);
	r0 += warp_exclusive_sum64(raw_sum, lane);
	bad |= gg_v2_expand_lane_write(tile, &l, raw_bytes, b, lane, long_at, c0, r0, comp, raw);
	if (__any_sync(FULL_MASK, bad) && lane == 0)
		gg_set_error(err, GSST_ERR_OFFSET, 2, b * GSST_TILE_BLOCK_VALUES);
}

/* ---- host side ---- */

/*
 * Read and check the tile header and table; fill args and upload the
 * decoder.  With expand, the workspace gets room for a version 2 tile's
 * index as version 1 entries (gg_expand_index: the simple kernels read only
 * those); then work_after bytes more from *work_at on.
 */
int
gg_open_device_tile(gsst_gpu *ctx, const void *d_tile, size_t tile_len, gg_decode_args *a,
					gsst_tile_layout *lout, size_t work_after, size_t *work_at, bool expand)
{
	size_t		avail = tile_len < GSST_TILE_HEADER_BYTES + GSST_TABLE_MAX_BYTES ?
		tile_len : GSST_TILE_HEADER_BYTES + GSST_TABLE_MAX_BYTES;
	uint8_t    *h = ctx->h_pinned;
	gsst_tile_layout	l;
	uint64_t	raw_bytes,
				code_bytes;
	gsst_table	table;
	size_t		consumed = 0;
	int			rc;

	if (d_tile == NULL || ((uintptr_t) d_tile & 15))
		return set_error(ctx, GSST_GPU_ERR_ARG, "tile pointer NULL or not 16-byte aligned");
	if (avail > 0)
		CU(cudaMemcpyAsync(h, d_tile, avail, cudaMemcpyDeviceToHost, ctx->stream));
	CU(cudaStreamSynchronize(ctx->stream));
	rc = gsst_tile_parse_header(h, avail, tile_len, &l, &raw_bytes, &code_bytes);
	if (rc == GSST_OK)
	{
		if (avail < GSST_TILE_HEADER_BYTES + (size_t) l.table_bytes)
			rc = GSST_ERR_TRUNCATED;
		else
			rc = gsst_table_load(&table, h + GSST_TILE_HEADER_BYTES, l.table_bytes, &consumed);
		if (rc == GSST_OK && consumed != l.table_bytes)
			rc = GSST_ERR_BAD_TABLE;
	}
	if (rc != GSST_OK)
		return set_error(ctx, GSST_GPU_ERR_CORRUPT, "tile header: %s", gsst_strerror(rc));
	gg_decoder_from_table((gg_decoder *) (h + SAMPLE_BLOB_BYTES), &table);
	CU(cudaMemcpyAsync(ctx->d_dec, h + SAMPLE_BLOB_BYTES, sizeof(gg_decoder),
					   cudaMemcpyHostToDevice, ctx->stream));
	CU(cudaMemsetAsync(ctx->d_err, 0, sizeof(gg_error), ctx->stream));

	*work_at = l.version == 2 && expand ? gsst_align_up(2 * (l.nvalues + 1) * l.width, 256) : 0;
	if (*work_at + work_after > 0)
	{
		rc = ensure_buffer(ctx, &ctx->d_work, &ctx->work_cap, *work_at + work_after);
		if (rc != GSST_GPU_OK)
			return rc;
	}
	*lout = l;
	memset(a, 0, sizeof(*a));
	if (l.version == 1)
	{
		a->comp = (const uint8_t *) d_tile + l.comp_at;
		a->raw = (const uint8_t *) d_tile + l.raw_at;
	}
	else if (expand)
	{
		a->comp = ctx->d_work;
		a->raw = ctx->d_work + (l.nvalues + 1) * l.width;
	}
	/* a version 2 tile that the kernels read through its own index: comp NULL */
	a->version = l.version;
	a->tile = (const uint8_t *) d_tile;
	a->layout = l;
	if (l.version == 2)
	{
		a->clens = (const uint8_t *) d_tile + l.code_lens_at;
		a->rlens = (const uint8_t *) d_tile + l.raw_lens_at;
	}
	a->splits = (const uint8_t *) d_tile + l.splits_at;
	a->codes = (const uint8_t *) d_tile + l.codes_at;
	a->n = l.nvalues;
	a->nsplits = l.nsplits;
	a->raw_bytes = raw_bytes;
	a->code_bytes = code_bytes;
	a->width = l.width;
	a->err = ctx->d_err;
	return GSST_GPU_OK;
}

/*
 * A version 2 index, checked block by block, into the version 1 entries
 * that the decoders read (gg_open_device_tile placed them).  Part of the
 * decode's kernel time.
 */
int
gg_expand_index(gsst_gpu *ctx, const void *d_tile, const gsst_tile_layout *l,
				const gg_decode_args *a)
{
	if (l->version != 2)
		return GSST_GPU_OK;
	k_v2_expand<<<blocks_for((l->nblocks > 0 ? l->nblocks : 1) * 32, V2_THREADS), V2_THREADS, 0,
		ctx->stream>>>(
		(const uint8_t *) d_tile, *l, a->raw_bytes, (uint8_t *) a->comp, (uint8_t *) a->raw, a->err);
	CU_LAUNCH("index expand kernel");
	return GSST_GPU_OK;
}

int
gg_finish_decode(gsst_gpu *ctx)
{
	gg_error   *h_err = (gg_error *) (ctx->h_pinned + SAMPLE_BLOB_BYTES + sizeof(gg_decoder));
	float		ms;

	CU(cudaEventRecord(ctx->ev_kernel_end, ctx->stream));
	CU(cudaMemcpyAsync(h_err, ctx->d_err, sizeof(gg_error), cudaMemcpyDeviceToHost, ctx->stream));
	CU(cudaEventRecord(ctx->ev_end, ctx->stream));
	CU(cudaStreamSynchronize(ctx->stream));
	CU(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_end));
	ctx->stats.total_ms = ms;
	CU(cudaEventElapsedTime(&ms, ctx->ev_kernel, ctx->ev_kernel_end));
	ctx->stats.kernel_ms = ms;
	if (h_err->code != 0)
		return set_error(ctx, h_err->code == GSST_ERR_SPACE ? GSST_GPU_ERR_SPACE : GSST_GPU_ERR_CORRUPT,
						 "%s %llu: %s", h_err->kind == 1 ? "split" : "value",
						 (unsigned long long) h_err->where, gsst_strerror(h_err->code));
	return GSST_GPU_OK;
}

int
gg_stage_tile(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len)
{
	int			rc;

	if (tile == NULL && tile_len > 0)
		return set_error(ctx, GSST_GPU_ERR_ARG, "tile is NULL");
	rc = ensure_buffer(ctx, &ctx->d_stage_in, &ctx->stage_in_cap, tile_len + 16);
	if (rc != GSST_GPU_OK)
		return rc;
	if (tile_len > 0)
		CU(cudaMemcpyAsync(ctx->d_stage_in, tile, tile_len, cudaMemcpyHostToDevice, ctx->stream));
	return GSST_GPU_OK;
}
