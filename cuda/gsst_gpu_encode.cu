/*
 * gsst_gpu_encode.cu - GSST tile encode on the GPU: the encoder's kernels,
 * their launch, and gsst_gpu_encode_device, gsst_gpu_encode and
 * gsst_gpu_tile_bound.
 *
 * Encode pipeline (one stream, and a side stream for one copy; the host
 * joins only to train):
 *   sample    4096 spread-out values' lengths, a prefix sum, a copy of the
 *             first ~16 KB of them; one read-back.
 *   plan      while the host trains (gsst_train): each unit's first piece,
 *             and the raw offset entries into a side buffer (where they go
 *             in the tile waits for the table's size); then the encoder
 *             table (10.5 KB) and tile header go up, and the side stream
 *             copies the raw offsets into the tile beside the encoder.
 *   encode    one thread per work unit (~8 KB of values or segments), the
 *             encoder in shared memory; codes to a scratch area in the
 *             tile's own code area, unit-local comp offsets into the tile.
 *   resolve   raw-or-encoded for values split across units.
 *   scan      unit sizes -> unit offsets in the code area (CUB).
 *   compact   a chunk of units per launch (a quarter of the input): one
 *             warp per unit copies its final bytes to one of two temp
 *             areas (or straight into the code area when they end before
 *             the chunk's scratch) and turns unit-local offsets into tile
 *             offsets; the same launch copies the previous chunk back
 *             from the other temp area, over scratch already consumed.
 *   finish    the split table (a split starts at a unit start), sentinels,
 *             header with the code size; one 8-byte read-back of it.
 *
 * The per-thread work lives in gsst_gpu_body.h, shared with the CPU
 * emulation that test/gpu checks against the codec.
 */
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <string.h>

#include "gsst_gpu_internal.cuh"

#ifndef COMPACT_THREADS
#define COMPACT_THREADS 256
#endif

/* ---- kernels ---- */

__global__ void
k_meta(const uint64_t *off, uint64_t n, uint64_t *meta)
{
	meta[0] = off[0];
	meta[1] = off[n - 1];
	meta[2] = off[n];
}

/*
 * The sample's slot lengths and their prefix sums (the slots' places in the
 * sample), by one block: one launch instead of a kernel and a device-wide
 * scan, on the host's path to training.
 */
#define SAMPLE_SCAN_THREADS 1024
#define SAMPLE_SLOTS_PER_THREAD (GG_SAMPLE_SLOTS / SAMPLE_SCAN_THREADS)

__global__ void __launch_bounds__(SAMPLE_SCAN_THREADS)
k_sample_len(const uint64_t *off, uint64_t n, uint32_t *lens, uint32_t *starts, uint64_t *meta)
{
	typedef cub::BlockScan<uint32_t, SAMPLE_SCAN_THREADS> scan_t;
	__shared__ typename scan_t::TempStorage scan_tmp;
	uint32_t	mine[SAMPLE_SLOTS_PER_THREAD];
	uint32_t	sum = 0,
				at;
	uint32_t	k0 = threadIdx.x * SAMPLE_SLOTS_PER_THREAD;

	for (int j = 0; j < SAMPLE_SLOTS_PER_THREAD; j++)
	{
		gg_sample_len(off, n, k0 + j, lens);
		mine[j] = lens[k0 + j];
		sum += mine[j];
	}
	scan_t(scan_tmp).ExclusiveSum(sum, at);
	for (int j = 0; j < SAMPLE_SLOTS_PER_THREAD; j++)
	{
		starts[k0 + j] = at;
		at += mine[j];
	}
	if (threadIdx.x == 0)
	{
		meta[0] = off[0];
		meta[1] = off[n - 1];
		meta[2] = off[n];
	}
}

__global__ void
k_sample_copy(const uint8_t *data, const uint64_t *off, uint64_t n, const uint32_t *lens,
			  const uint32_t *starts, uint32_t target, uint8_t *sample)
{
	uint32_t	slot = (blockIdx.x * blockDim.x + threadIdx.x) / 32;

	if (slot < GG_SAMPLE_SLOTS)
		gg_sample_copy(data, off, n, slot, lens, starts, target, sample, threadIdx.x % 32, 32);
}

#ifndef ENCODE_MIN_BLOCKS
#define ENCODE_MIN_BLOCKS 8		/* 64 registers, no spill: 6% faster than 6 blocks;
								 * 9 and 10 spill and are slower */
#endif
__global__ void __launch_bounds__(ENCODE_THREADS, ENCODE_MIN_BLOCKS)
k_encode(gg_encode_args a)
{
	__shared__ __align__(16) gg_encoder enc;
	/* per thread: 32-byte sectors of codes and of offsets, 8 bytes of
	 * padding so that neighbouring threads use different banks */
	__shared__ __align__(16) uint64_t slots[ENCODE_THREADS][9];
	uint64_t	u = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	load_shared(&enc, a.enc_global, sizeof(gg_encoder));
	__syncthreads();
	if (u < a.nunits)
		gg_encode_unit(&enc, &a, u, (uint8_t *) slots[threadIdx.x]);
}

/*
 * While the host trains: unit starts, and the raw offset entries into a
 * side buffer (the tile's layout, and so where they go, waits for the
 * table's size).
 */
__global__ void
k_plan_units(gg_encode_args a)
{
	uint64_t	u = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (u <= a.nunits)
		gg_plan_unit(&a, u);
}

__global__ void
k_raw_entries(gg_encode_args a, uint8_t *raw)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i <= a.n)
		gg_raw_entry(&a, raw, i);
}

__global__ void
k_resolve(gg_encode_args a)
{
	uint64_t	u = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (u < a.nunits)
		gg_resolve_unit(&a, u);
}

__global__ void
k_unit_size(gg_encode_args a)
{
	uint64_t	u = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (u < a.nunits)
		gg_unit_size(&a, u);
}

/*
 * Compaction of a unit whose final bytes are the first bytes of its scratch
 * (no part stored raw or re-encoded: almost every unit), staged through
 * shared memory by cp.async: the warp puts a round's code bytes (up to
 * COMPACT_STAGE_BYTES) and comp entries (up to COMPACT_STAGE_ENTRY_BYTES) in
 * flight at once, then writes them out as aligned 16-byte stores and
 * rebased entries.  The plain copy (gg_compact_unit) waits a round trip per
 * few words.
 */
#ifndef COMPACT_STAGED
#define COMPACT_STAGED 1
#endif
#ifndef COMPACT_STAGE_BYTES
#define COMPACT_STAGE_BYTES 4096	/* a multiple of 16 */
#endif
#ifndef COMPACT_STAGE_ENTRY_BYTES
#define COMPACT_STAGE_ENTRY_BYTES 1920	/* a multiple of 8 */
#endif
#define COMPACT_WARPS (COMPACT_THREADS / 32)

typedef struct compact_stage
{
	uint8_t		codes[COMPACT_STAGE_BYTES + 16];	/* 16: the last word's neighbour */
	uint8_t		entries[COMPACT_STAGE_ENTRY_BYTES];
} compact_stage;

__device__ __forceinline__ void
cp_async16(uint32_t to, const void *from, uint32_t bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"::"r"(to), "l"(from), "r"(bytes));
}

__device__ __forceinline__ void
cp_async_entry(uint32_t to, const void *from, uint32_t width)
{
	if (width == 4)
		asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"::"r"(to), "l"(from));
	else
		asm volatile("cp.async.ca.shared.global [%0], [%1], 8;"::"r"(to), "l"(from));
}

/* n staged bytes to dst (any alignment): whole 16-byte blocks inside, bytes at the edges */
__device__ __forceinline__ void
stage_out(uint8_t *dst, const uint8_t *stage, uint32_t n, unsigned lane)
{
	uint32_t	head = (uint32_t) (16 - ((uintptr_t) dst & 15)) & 15;
	uint32_t	blocks,
				tail;

	if (head > n)
		head = n;
	if (lane < head)
		dst[lane] = stage[lane];
	blocks = (n - head) / 16;
	for (uint32_t j = lane; j < blocks; j += 32)
	{
		uint32_t	o = head + 16 * j;
		const uint32_t *w = (const uint32_t *) (stage + (o & ~3u));
		uint32_t	sh = 8 * (o & 3);
		uint32_t	w0 = w[0],
					w1 = w[1],
					w2 = w[2],
					w3 = w[3],
					w4 = w[4];
		uint4		v;

		v.x = __funnelshift_r(w0, w1, sh);
		v.y = __funnelshift_r(w1, w2, sh);
		v.z = __funnelshift_r(w2, w3, sh);
		v.w = __funnelshift_r(w3, w4, sh);
		*(uint4 *) (dst + o) = v;
	}
	tail = head + 16 * blocks;
	if (tail + lane < n)
		dst[tail + lane] = stage[tail + lane];
}

/* whether unit r's final bytes are its scratch's first bytes */
__device__ __forceinline__ bool
unit_is_plain(const gg_unit *r)
{
	return !(r->flags & (GG_LEAD_OVER | GG_TRAIL_OVER)) && !r->lead_is_raw && !r->trail_is_raw;
}

__device__ __forceinline__ void
compact_unit_staged(const gg_encode_args *a, const gg_unit *r, uint64_t base, uint64_t u,
					unsigned lane, uint8_t *out, uint64_t out_base, compact_stage *st)
{
	uint8_t    *dst = out + (base - out_base);
	const uint8_t *src = a->scratch + gg_unit_scratch(u, r->raw_start);
	uint64_t	size = (uint64_t) ((r->flags & GG_HAS_LEAD) ? r->lead_codes : 0) + r->whole_bytes +
		((r->flags & GG_HAS_TRAIL) ? r->trail_codes : 0);
	uint64_t	first_whole = r->first_value + (r->first_seg > 0 ? 1 : 0);
	uint64_t	nentries = r->end_value > first_whole ? r->end_value - first_whole : 0;
	uint32_t	width = a->width;
	uint32_t	per_round = COMPACT_STAGE_ENTRY_BYTES / width;
	uint8_t    *comp = a->comp_entries;
	uint64_t	add = base + r->lead_final;
	uint32_t	s_codes = (uint32_t) __cvta_generic_to_shared(st->codes);
	uint32_t	s_entries = (uint32_t) __cvta_generic_to_shared(st->entries);

	for (uint64_t c0 = 0, e0 = 0; c0 < size || e0 < nentries;
		 c0 += COMPACT_STAGE_BYTES, e0 += per_round)
	{
		uint32_t	cn = c0 < size ? (uint32_t) min((uint64_t) COMPACT_STAGE_BYTES, size - c0) : 0;
		uint32_t	en = e0 < nentries ? (uint32_t) min((uint64_t) per_round, nentries - e0) : 0;

		for (uint32_t j = lane; 16 * j < cn; j += 32)
			cp_async16(s_codes + 16 * j, src + c0 + 16 * j, min(16u, cn - 16 * j));
		for (uint32_t j = lane; j < en; j += 32)
			cp_async_entry(s_entries + j * width, comp + (first_whole + e0 + j) * width, width);
		asm volatile("cp.async.wait_all;"::: "memory");
		__syncwarp();
		for (uint32_t j = lane; j < en; j += 32)
		{
			uint64_t	w = first_whole + e0 + j;

			if (width == 4)
				((uint32_t *) comp)[w] = ((const uint32_t *) st->entries)[j] + (uint32_t) add;
			else
				((uint64_t *) comp)[w] = ((const uint64_t *) st->entries)[j] + add;
		}
		stage_out(dst + c0, st->codes, cn, lane);
		__syncwarp();
	}
	if ((r->flags & GG_HAS_TRAIL) && lane == 0)
		gsst_tile_put_entry(comp, r->end_value, width, base + r->lead_final + r->whole_bytes);
}

/*
 * Chunk c = units [u0, u1), one warp each, compacted into its temp area
 * (or straight into the tile); and, by the whole grid, chunk c - 1 =
 * units [p0, u0) copied back from its temp area into the tile (p0 == u0:
 * none).  One launch per chunk, plus one for the last copy-back.
 */
#ifndef COMPACT_MIN_BLOCKS
#define COMPACT_MIN_BLOCKS 4
#endif
__global__ void __launch_bounds__(COMPACT_THREADS, COMPACT_MIN_BLOCKS)
k_compact(gg_encode_args a, uint64_t c, uint64_t p0, uint64_t u0, uint64_t u1)
{
	uint64_t	t = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
	uint64_t	u = u0 + t / 32;
#if COMPACT_STAGED
	gg_unit		r;
	uint64_t	base = 0;

	/* the unit's record is loaded beside the chunk's checks, not after them */
	if (u < u1)
	{
		r = a.units[u];
		base = a.bases[u];
	}
#endif

	if (u0 < u1 && !gg_chunk_safe(&a, u0, u1))
	{
		if (t == 0)
			a.code_bytes_out[1] = 1;	/* the host fails the call */
		return;
	}
	if (u < u1)
	{
		bool		direct = gg_chunk_direct(&a, u0, u1);
		uint8_t    *out = direct ? a.tile + a.codes_at : gg_chunk_temp(&a, c);
		uint64_t	out_base = direct ? 0 : a.bases[u0];

#if COMPACT_STAGED
		__shared__ __align__(16) compact_stage stage[COMPACT_WARPS];

		if (unit_is_plain(&r))
			compact_unit_staged(&a, &r, base, u, threadIdx.x % 32, out, out_base,
								&stage[threadIdx.x / 32]);
		else
#endif
			gg_compact_unit(&a, u, threadIdx.x % 32, 32, out, out_base);
	}
	if (p0 < u0)
		gg_copy_back(&a, p0, u0, gg_chunk_temp(&a, c - 1), (unsigned) t,
					 gridDim.x * blockDim.x);
}

/* the split table with the index sentinels, and the header bytes */
__global__ void
k_finish(gg_encode_args a, uint64_t prefix_count)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i <= a.nsplits)
		gg_split_entry(&a, i);
	if (i < prefix_count)
		gg_prefix_byte(&a, i);
}

/*
 * The raw length bytes, and the long values of each block (and 0 for the
 * sentinel) for their scan
 */
__global__ void __launch_bounds__(V2_THREADS)
k_v2_block_raw(gg_encode_args a, uint64_t *longs)
{
	uint64_t	b = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;
	unsigned	lane = threadIdx.x & 31;
	uint32_t	n;

	if (b > a.layout.nblocks)
		return;
	n = b < a.layout.nblocks ? gg_v2_lane_raw(&a, b, lane, 1) : 0;
	n = __reduce_add_sync(FULL_MASK, n);
	if (lane == 0)
		longs[b] = n;
}

__global__ void __launch_bounds__(V2_THREADS)
k_v2_pack(gg_encode_args a, const uint64_t *long_first)
{
	uint64_t	b = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;
	unsigned	lane = threadIdx.x & 31;
	uint32_t	total;
	uint32_t	before;

	if (b >= a.layout.nblocks)
		return;
	/* long values are rare: a block without any skips counting them again */
	before = 0;
	if (long_first[b + 1] != long_first[b])
		before = warp_exclusive_sum(gg_v2_lane_raw(&a, b, lane, 0), lane, &total);
	gg_v2_pack_lane(&a, b, lane, long_first[b] + before, long_first);
}

/* ---- host side ---- */

/* the smallest split that fitted sizes give for a configured split */
static size_t
least_fitted_split(size_t split_bytes)
{
	if (split_bytes == 0)
		split_bytes = GSST_GPU_DEFAULT_SPLIT_BYTES;
	return split_bytes / 2 > GSST_SEGMENT_BYTES ? split_bytes / 2 : GSST_SEGMENT_BYTES;
}

GG_EXPORT size_t
gsst_gpu_tile_bound(size_t n, size_t raw_bytes, size_t split_bytes)
{
	size_t		bound = gsst_tile_bound(n, raw_bytes, least_fitted_split(split_bytes));

	if (bound == 0 || bound > SIZE_MAX - gg_scratch_slack(raw_bytes))
		return 0;
	return bound + gg_scratch_slack(raw_bytes);
}

/* the tile format version that encode writes */
static uint32_t
tile_version(const gsst_gpu *ctx)
{
	return (ctx->cfg.flags & GSST_GPU_FLAG_TILE_V1) ? 1 : GSST_TILE_VERSION;
}

/* n == 0: the codec builds the (tiny) tile on the host */
static int
encode_empty(gsst_gpu *ctx, const gsst_table *table, void *d_tile, size_t tile_cap,
			 size_t *tile_len)
{
	gsst_encoder *enc = ctx->h_enc;
	uint64_t	zero = 0;
	int			rc;

	gsst_encoder_init(enc, table);
	rc = gsst_tile_encode_version(enc, NULL, &zero, 0, ctx->cfg.split_bytes, tile_version(ctx),
								  ctx->h_pinned, PINNED_BYTES, tile_len);
	if (rc != GSST_OK)
		return set_error(ctx, GSST_GPU_ERR_CODEC, "empty tile: %s", gsst_strerror(rc));
	if (*tile_len > tile_cap)
		return set_error(ctx, GSST_GPU_ERR_SPACE, "tile needs %zu bytes", *tile_len);
	CU(cudaMemcpyAsync(d_tile, ctx->h_pinned, *tile_len, cudaMemcpyHostToDevice, ctx->stream));
	CU(cudaStreamSynchronize(ctx->stream));
	return GSST_GPU_OK;
}

/*
 * gsst_gpu_encode_device, whose finished tile must also fit final_cap (the
 * host API's buffer; sizes are fitted only where the fitted split's bound
 * fits it)
 */
static int
encode_device(gsst_gpu *ctx, const uint8_t *table_bytes, size_t table_len,
			  const void *d_data, const void *d_offsets, size_t n, void *d_tile,
			  size_t tile_cap, size_t final_cap, size_t *tile_len)
{
	const uint64_t *off = (const uint64_t *) d_offsets;
	gsst_table	table;
	uint8_t		serialized[GSST_TABLE_MAX_BYTES];
	int			ser_len;
	uint64_t	meta[3];
	uint64_t	split_bytes,
				unit_bytes;
	gg_plan		plan;
	gg_encode_args a;
	uint64_t	prefix_count;
	size_t		scan_bytes = 0;
	size_t		work_need,
				at,
				side_scan_at = 0,
				scratch_at;
	uint8_t    *h_enc_up,
			   *h_prefix_up,
			   *raw_side,
			   *comp_side;
	uint64_t   *h_code_bytes,
			   *d_longs,
			   *d_long_first;
	uint32_t	version = tile_version(ctx);
	uint64_t	index_at;
	double		t0;
	float		ms;
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (d_offsets == NULL || d_tile == NULL || tile_len == NULL || (d_data == NULL && n > 0) ||
		((uintptr_t) d_offsets & 7) || ((uintptr_t) d_tile & 15) ||
		(table_bytes == NULL && table_len > 0))
		return set_error(ctx, GSST_GPU_ERR_ARG,
						 "encode: NULL or misaligned pointer (offsets 8-, tile 16-byte aligned)");
	*tile_len = 0;
	ctx->stats.split_bytes = ctx->cfg.split_bytes;
	ctx->stats.unit_bytes = ctx->cfg.unit_bytes;

	/* the table: given, or trained on a sample of the batch */
	if (table_bytes != NULL)
	{
		size_t		consumed = 0;

		rc = gsst_table_load(&table, table_bytes, table_len, &consumed);
		if (rc != GSST_OK || consumed != table_len)
			return set_error(ctx, GSST_GPU_ERR_CODEC, "table: %s",
							 rc != GSST_OK ? gsst_strerror(rc) : "trailing bytes");
	}
	if (n == 0)
	{
		if (table_bytes == NULL)
		{
			rc = gsst_table_build(&table, NULL, NULL, 0);
			if (rc != GSST_OK)
				return set_error(ctx, GSST_GPU_ERR_CODEC, "empty table: %s", gsst_strerror(rc));
		}
		return encode_empty(ctx, &table, d_tile, tile_cap, tile_len);
	}

	CU(cudaEventRecord(ctx->ev_start, ctx->stream));
	t0 = now_ms();
	if (table_bytes == NULL)
	{
		uint64_t   *d_meta = (uint64_t *) ctx->d_sample_blob;
		uint32_t   *d_lens = (uint32_t *) (ctx->d_sample_blob + SAMPLE_META_BYTES);
		uint32_t   *d_starts = d_lens + GG_SAMPLE_SLOTS;
		uint8_t    *d_sample = (uint8_t *) (d_starts + GG_SAMPLE_SLOTS);

		k_sample_len<<<1, SAMPLE_SCAN_THREADS, 0, ctx->stream>>>(off, n, d_lens, d_starts, d_meta);
		CU_LAUNCH("sample lengths");
		k_sample_copy<<<GG_SAMPLE_SLOTS * 32 / 256, 256, 0, ctx->stream>>>(
			(const uint8_t *) d_data, off, n, d_lens, d_starts, ctx->cfg.sample_bytes, d_sample);
		CU_LAUNCH("sample copy");
		CU(cudaMemcpyAsync(ctx->h_pinned, ctx->d_sample_blob,
						   SAMPLE_META_BYTES + 2 * 4 * GG_SAMPLE_SLOTS + ctx->cfg.sample_bytes,
						   cudaMemcpyDeviceToHost, ctx->stream));
	}
	else
	{
		k_meta<<<1, 1, 0, ctx->stream>>>(off, n, (uint64_t *) ctx->d_sample_blob);
		CU_LAUNCH("meta");
		CU(cudaMemcpyAsync(ctx->h_pinned, ctx->d_sample_blob, sizeof(meta),
						   cudaMemcpyDeviceToHost, ctx->stream));
	}
	CU(cudaStreamSynchronize(ctx->stream));
	memcpy(meta, ctx->h_pinned, sizeof(meta));
	ctx->stats.sample_ms = now_ms() - t0;
	ctx->stats.fit_ms = 0;
	if (meta[2] < meta[1] || meta[1] < meta[0])
		return set_error(ctx, GSST_GPU_ERR_ARG, "encode: offsets decrease");
	gg_fit_sizes(meta[2] - meta[0], ctx->encode_slots, ctx->cfg.split_bytes, ctx->cfg.unit_bytes,
				 (ctx->cfg.flags & GSST_GPU_FLAG_FIXED_SIZES) != 0, &split_bytes, &unit_bytes);
	if (split_bytes != ctx->cfg.split_bytes)
	{
		size_t		fitted = gsst_tile_bound(n, meta[2] - meta[0], split_bytes);

		if (fitted == 0 || fitted > final_cap ||
			tile_cap - fitted < gg_scratch_slack(meta[2] - meta[0]) || tile_cap < fitted)
		{
			split_bytes = ctx->cfg.split_bytes;
			unit_bytes = ctx->cfg.unit_bytes;
		}
	}
	ctx->stats.split_bytes = (uint32_t) split_bytes;
	ctx->stats.unit_bytes = (uint32_t) unit_bytes;

	/*
	 * Units and workspace first (the table's size moves only the tile's
	 * index): the unit starts are found on the GPU while the host trains.
	 */
	if (gg_plan_encode(&plan, version, n, meta[0], meta[1], meta[2], 0, split_bytes,
					   unit_bytes) != 0)
		return set_error(ctx, GSST_GPU_ERR_LIMIT, "encode: batch too large");
	if (plan.nunits > (uint64_t) INT32_MAX - 1 || plan.nunits * 32 / COMPACT_THREADS > (uint64_t) INT32_MAX)
		return set_error(ctx, GSST_GPU_ERR_LIMIT, "encode: too many work units");
	{
		uint64_t   *null_u64 = NULL;
		size_t		longs_scan_bytes = 0;

		CU(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, null_u64, null_u64,
										 (int) plan.nunits, ctx->stream));
		if (version == 2)
		{
			if (plan.layout.nblocks >= (uint64_t) INT32_MAX)
				return set_error(ctx, GSST_GPU_ERR_LIMIT, "encode: too many index blocks");
			CU(cub::DeviceScan::ExclusiveSum(NULL, longs_scan_bytes, null_u64, null_u64,
											 (int) plan.layout.nblocks + 1, ctx->stream));
			if (longs_scan_bytes > scan_bytes)
				scan_bytes = longs_scan_bytes;
		}
	}
	memset(&a, 0, sizeof(a));
	{
		size_t		units_at = gsst_align_up(2 * plan.temp_bytes, 256);
		size_t		starts_at = gsst_align_up(units_at + plan.nunits * sizeof(gg_unit), 256);
		size_t		sizes_at = gsst_align_up(starts_at + (plan.nunits + 1) * sizeof(gg_piece), 256);
		size_t		bases_at = gsst_align_up(sizes_at + plan.nunits * 8, 256);
		size_t		raw_at = gsst_align_up(bases_at + plan.nunits * 8, 256);
		/* a version 2 tile's comp offsets, and its long values per block */
		size_t		comp_at = gsst_align_up(raw_at + (n + 1) * plan.layout.width, 256);
		size_t		longs_at = gsst_align_up(comp_at + (version == 2 ? (n + 1) * plan.layout.width : 0), 256);
		size_t		long_first_at = gsst_align_up(longs_at + (plan.layout.nblocks + 1) * 8, 256);
		size_t		scan_at = version == 2 ?
			gsst_align_up(long_first_at + (plan.layout.nblocks + 1) * 8, 256) : comp_at;

		/* the side stream's scan (version 2) has a workspace of its own */
		side_scan_at = gsst_align_up(scan_at + scan_bytes, 256);
		work_need = version == 2 ? side_scan_at + scan_bytes : scan_at + scan_bytes;
		rc = ensure_buffer(ctx, &ctx->d_work, &ctx->work_cap, work_need);
		if (rc != GSST_GPU_OK)
			return rc;
		a.temp = ctx->d_work;
		a.temp_bytes = plan.temp_bytes;
		a.units = (gg_unit *) (ctx->d_work + units_at);
		a.starts = (gg_piece *) (ctx->d_work + starts_at);
		a.sizes = (uint64_t *) (ctx->d_work + sizes_at);
		a.bases = (uint64_t *) (ctx->d_work + bases_at);
		raw_side = ctx->d_work + raw_at;
		comp_side = ctx->d_work + comp_at;
		d_longs = (uint64_t *) (ctx->d_work + longs_at);
		d_long_first = (uint64_t *) (ctx->d_work + long_first_at);
		at = scan_at;
	}
	a.data = (const uint8_t *) d_data;
	a.off = off;
	a.enc_global = ctx->d_enc;
	a.n = n;
	a.off0 = meta[0];
	a.off_end = meta[2];
	a.nunits = plan.nunits;
	a.unit_bytes = unit_bytes;
	a.width = plan.layout.width;
	CU(cudaMemsetAsync(ctx->d_code_bytes + 1, 0, 8, ctx->stream));	/* compaction's failure flag */
	k_plan_units<<<blocks_for(plan.nunits + 1, 256), 256, 0, ctx->stream>>>(a);
	CU_LAUNCH("unit plan kernel");
	k_raw_entries<<<blocks_for(n + 1, 256), 256, 0, ctx->stream>>>(a, raw_side);
	CU_LAUNCH("raw offsets kernel");
	CU(cudaEventRecord(ctx->ev_plan, ctx->stream));

	/* the table: given, or trained on the sample */
	if (table_bytes == NULL)
	{
		const uint32_t *h_lens = (const uint32_t *) (ctx->h_pinned + SAMPLE_META_BYTES);
		const uint32_t *h_starts = h_lens + GG_SAMPLE_SLOTS;
		const uint8_t *h_sample = (const uint8_t *) (h_starts + GG_SAMPLE_SLOTS);
		const uint8_t *values[GG_SAMPLE_SLOTS];
		size_t		lens[GG_SAMPLE_SLOTS];
		size_t		count = 0;

		for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
			if (gg_sample_index(n, k) != GG_NO_INDEX && h_starts[k] + h_lens[k] <= ctx->cfg.sample_bytes)
			{
				values[count] = h_sample + h_starts[k];
				lens[count] = h_lens[k];
				count++;
			}
		{
			double		t1 = now_ms();

			rc = gsst_train(&table, values, lens, count, ctx->train_work);
			ctx->stats.fit_ms = now_ms() - t1;
		}
		if (rc != GSST_OK)
			return set_error(ctx, GSST_GPU_ERR_CODEC, "training: %s", gsst_strerror(rc));
	}

	/* the tile's layout */
	ser_len = gsst_table_serialize(&table, serialized, sizeof(serialized));
	if (ser_len < 0 ||
		gg_plan_encode(&plan, version, n, meta[0], meta[1], meta[2], (uint32_t) ser_len,
					   split_bytes, unit_bytes) != 0)
		return set_error(ctx, GSST_GPU_ERR_LIMIT, "encode: batch too large");
	index_at = version == 1 ? plan.layout.comp_at : plan.layout.blocks_at;
	/* the scratch goes in the tile, from its code area's first 32-aligned byte */
	scratch_at = gsst_align_up((uintptr_t) d_tile + plan.layout.codes_at, 32) - (uintptr_t) d_tile;
	if (tile_cap < gsst_tile_bound(n, plan.raw_bytes, split_bytes) ||
		tile_cap < scratch_at + plan.scratch_bytes)
		return set_error(ctx, GSST_GPU_ERR_SPACE, "encode: tile buffer of %zu bytes, need %zu",
						 tile_cap, gsst_gpu_tile_bound(n, plan.raw_bytes, ctx->cfg.split_bytes));

	/* encoder table and tile prefix go up together */
	gsst_encoder_init(ctx->h_enc, &table);
	ctx->stats.train_ms = now_ms() - t0;
	h_enc_up = ctx->h_pinned + SAMPLE_BLOB_BYTES;
	h_prefix_up = h_enc_up + sizeof(gg_encoder);
	h_code_bytes = (uint64_t *) (h_prefix_up + PREFIX_MAX_BYTES);
	gg_encoder_from_codec((gg_encoder *) h_enc_up, ctx->h_enc);
	gsst_tile_write_header(h_prefix_up, &plan.layout, serialized, plan.raw_bytes, 0);
	/* d_prefix follows d_enc as h_prefix_up follows h_enc_up: one copy */
	CU(cudaMemcpyAsync(ctx->d_enc, h_enc_up, sizeof(gg_encoder) + index_at,
					   cudaMemcpyHostToDevice, ctx->stream));

	/*
	 * The raw offsets go into the tile by a device copy on the side
	 * stream, which runs beside the encoding kernel (that kernel waits on
	 * its arithmetic, and writes nowhere near the index)
	 */
	CU(cudaEventRecord(ctx->ev_side_go, ctx->stream));
	CU(cudaStreamWaitEvent(ctx->side, ctx->ev_side_go, 0));
	if (version == 1)
		CU(cudaMemcpyAsync((uint8_t *) d_tile + plan.layout.raw_at, raw_side, n * plan.layout.width,
						   cudaMemcpyDeviceToDevice, ctx->side));
	else
	{
		/* the raw length bytes, and where each block's long values go: beside the encoding */
		uint64_t	nb = plan.layout.nblocks;

		a.layout = plan.layout;
		a.raw_entries = raw_side;
		a.tile = (uint8_t *) d_tile;
		k_v2_block_raw<<<blocks_for((nb + 1) * 32, V2_THREADS), V2_THREADS, 0, ctx->side>>>(a, d_longs);
		CU_LAUNCH("index raw lengths kernel");
		CU(cub::DeviceScan::ExclusiveSum(ctx->d_work + side_scan_at, scan_bytes, d_longs, d_long_first,
										 (int) nb + 1, ctx->side));
	}
	CU(cudaEventRecord(ctx->ev_side_done, ctx->side));

	a.scratch = (uint8_t *) d_tile + scratch_at;
	a.units_per_split = plan.units_per_split;
	a.nsplits = plan.nsplits;
	a.raw_bytes = plan.raw_bytes;
	a.width = plan.layout.width;
	a.scratch_bytes = plan.scratch_bytes;
	a.tile = (uint8_t *) d_tile;
	a.layout = plan.layout;
	a.index_at = index_at;
	/* a version 1 index is written in place; a version 2 one is packed from side arrays */
	a.comp_entries = version == 1 ? (uint8_t *) d_tile + plan.layout.comp_at : comp_side;
	a.raw_entries = version == 1 ? (uint8_t *) d_tile + plan.layout.raw_at : raw_side;
	a.splits_at = plan.layout.splits_at;
	a.splits_end = plan.layout.splits_end;
	a.codes_at = plan.layout.codes_at;
	a.code_bytes_out = ctx->d_code_bytes;
	a.prefix = ctx->d_prefix;
	prefix_count = index_at + (plan.layout.codes_at - plan.layout.splits_end);

	CU(cudaEventRecord(ctx->ev_kernel, ctx->stream));
	k_encode<<<blocks_for(plan.nunits, ENCODE_THREADS), ENCODE_THREADS, 0, ctx->stream>>>(a);
	CU_LAUNCH("encode kernel");
	CU(cudaEventRecord(ctx->ev_stage[0], ctx->stream));
	k_resolve<<<blocks_for(plan.nunits, 256), 256, 0, ctx->stream>>>(a);
	CU_LAUNCH("resolve kernel");
	k_unit_size<<<blocks_for(plan.nunits, 256), 256, 0, ctx->stream>>>(a);
	CU_LAUNCH("unit size kernel");
	CU(cub::DeviceScan::ExclusiveSum(ctx->d_work + at, scan_bytes, a.sizes, a.bases,
									 (int) plan.nunits, ctx->stream));
	CU(cudaEventRecord(ctx->ev_stage[1], ctx->stream));
	for (uint64_t c = 0, p0 = 0, u0 = 0; p0 < plan.nunits; c++)
	{
		uint64_t	u1 = u0 < plan.nunits ? gg_chunk_stop(&plan, u0) : plan.nunits;
		unsigned	blocks = blocks_for((u1 - u0) * 32, COMPACT_THREADS);

		k_compact<<<blocks > ctx->copy_blocks ? blocks : ctx->copy_blocks, COMPACT_THREADS, 0,
			ctx->stream>>>(a, c, p0, u0, u1);
		CU_LAUNCH("compact kernel");
		p0 = u0;
		u0 = u1;
	}
	CU(cudaEventRecord(ctx->ev_stage[2], ctx->stream));
	CU(cudaStreamWaitEvent(ctx->stream, ctx->ev_side_done, 0));
	k_finish<<<blocks_for(plan.nsplits + 1 > prefix_count ? plan.nsplits + 1 : prefix_count, 256),
		256, 0, ctx->stream>>>(a, prefix_count);
	CU_LAUNCH("split table and header kernel");
	if (version == 2)
	{
		uint64_t	nb = plan.layout.nblocks;

		k_v2_pack<<<blocks_for(nb * 32, V2_THREADS), V2_THREADS, 0, ctx->stream>>>(a, d_long_first);
		CU_LAUNCH("index pack kernel");
		CU(cudaMemcpyAsync(h_code_bytes + 2, d_long_first + nb, 8, cudaMemcpyDeviceToHost,
						   ctx->stream));
	}
	else
		h_code_bytes[2] = 0;
	CU(cudaEventRecord(ctx->ev_kernel_end, ctx->stream));
	CU(cudaMemcpyAsync(h_code_bytes, ctx->d_code_bytes, 16, cudaMemcpyDeviceToHost, ctx->stream));
	CU(cudaEventRecord(ctx->ev_end, ctx->stream));
	CU(cudaStreamSynchronize(ctx->stream));

	if (h_code_bytes[1] != 0)
		return set_error(ctx, GSST_GPU_ERR_LIMIT,
						 "encode: parts of a long value came out longer than their raw bytes by too much; "
						 "encode this batch on the CPU");
	if (gsst_tile_layout_finish(&plan.layout, h_code_bytes[0], h_code_bytes[2]) != 0)
		return set_error(ctx, GSST_GPU_ERR_LIMIT, "encode: tile too large");
	*tile_len = (size_t) plan.layout.end;
	CU(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_end));
	ctx->stats.total_ms = ms;
	CU(cudaEventElapsedTime(&ms, ctx->ev_kernel, ctx->ev_kernel_end));
	ctx->stats.kernel_ms = ms;
	CU(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_plan));
	ctx->stats.plan_ms = ms;
	{
		cudaEvent_t marks[5] = {ctx->ev_kernel, ctx->ev_stage[0], ctx->ev_stage[1],
		ctx->ev_stage[2], ctx->ev_kernel_end};

		for (int i = 0; i < 4; i++)
		{
			CU(cudaEventElapsedTime(&ms, marks[i], marks[i + 1]));
			ctx->stats.stage_ms[i] = ms;
		}
	}
	ctx->stats.extra_device_bytes = work_need + ctx->fixed_bytes;
	if (*tile_len > tile_cap)	/* cannot happen: C <= R */
		return set_error(ctx, GSST_GPU_ERR_SPACE, "encode: tile overflow");
	return GSST_GPU_OK;
}

GG_EXPORT int
gsst_gpu_encode_device(gsst_gpu *ctx, const uint8_t *table_bytes, size_t table_len,
					   const void *d_data, const void *d_offsets, size_t n, void *d_tile,
					   size_t tile_cap, size_t *tile_len)
{
	return encode_device(ctx, table_bytes, table_len, d_data, d_offsets, n, d_tile, tile_cap,
						 tile_cap, tile_len);
}

GG_EXPORT int
gsst_gpu_encode(gsst_gpu *ctx, const uint8_t *table, size_t table_len, const uint8_t *data,
				const uint64_t *offsets, size_t n, uint8_t *tile, size_t tile_cap,
				size_t *tile_len)
{
	uint64_t	raw;
	size_t		bound,
				in_need,
				data_at;
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (offsets == NULL || tile == NULL || tile_len == NULL || (data == NULL && n > 0))
		return set_error(ctx, GSST_GPU_ERR_ARG, "encode: NULL pointer");
	for (size_t i = 0; i < n; i++)
		if (offsets[i + 1] < offsets[i])
			return set_error(ctx, GSST_GPU_ERR_ARG, "encode: offsets decrease at %zu", i);
	raw = offsets[n] - offsets[0];
	bound = gsst_tile_bound(n, raw, ctx->cfg.split_bytes);
	if (tile_cap < bound)
		return set_error(ctx, GSST_GPU_ERR_SPACE, "encode: tile buffer of %zu bytes, need %zu",
						 tile_cap, bound);
	data_at = gsst_align_up((n + 1) * 8, 256);
	in_need = data_at + raw + 16;
	rc = ensure_buffer(ctx, &ctx->d_stage_in, &ctx->stage_in_cap, in_need);
	/* the device tile also holds the encoder's scratch */
	if (rc == GSST_GPU_OK)
		rc = ensure_buffer(ctx, &ctx->d_stage_out, &ctx->stage_out_cap,
						   gsst_gpu_tile_bound(n, raw, ctx->cfg.split_bytes));
	if (rc != GSST_GPU_OK)
		return rc;
	CU(cudaMemcpyAsync(ctx->d_stage_in, offsets, (n + 1) * 8, cudaMemcpyHostToDevice, ctx->stream));
	if (raw > 0)
		CU(cudaMemcpyAsync(ctx->d_stage_in + data_at, data + offsets[0], raw,
						   cudaMemcpyHostToDevice, ctx->stream));
	/* the kernels address data + offsets[i]: shift the base to match */
	rc = encode_device(ctx, table, table_len,
					   (const void *) ((uintptr_t) (ctx->d_stage_in + data_at) - offsets[0]),
					   ctx->d_stage_in, n, ctx->d_stage_out, ctx->stage_out_cap, tile_cap, tile_len);
	if (rc != GSST_GPU_OK)
		return rc;
	CU(cudaMemcpy(tile, ctx->d_stage_out, *tile_len, cudaMemcpyDeviceToHost));
	return GSST_GPU_OK;
}
