/*
 * gsst_gpu_decode_values.cu - chosen values of a tile, or all of them,
 * decoded on the GPU (gsst_gpu_decode_values_device,
 * gsst_gpu_decode_values): a warp gathers its values' codes, each through
 * the value's own offsets, and decodes them in batches with the run
 * decoder of gsst_gpu_decode_run.cuh.  The simpler one-thread-per-value
 * kernels stay behind GSST_GPU_FLAG_DIRECT_VALUES and
 * GSST_GPU_FLAG_STAGED_VALUES.
 */
#include <cub/device/device_scan.cuh>

#include "gsst_gpu_internal.cuh"
#include "gsst_gpu_decode_run.cuh"

#define DECODE_VALUE_THREADS 256
#define VALUES_STAGE_BYTES 1024	/* per warp, for 32 values */

/* ---- kernels ---- */

__global__ void __launch_bounds__(DECODE_VALUE_THREADS)
k_decode_value(gg_decode_args a, const gg_decoder *dec_global, uint64_t count)
{
	__shared__ __align__(16) gg_decoder dec;
	uint64_t	t = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	load_shared(&dec, dec_global, sizeof(gg_decoder));
	__syncthreads();
	if (t < count)
		gg_decode_value(&dec, &a, t);
}

__global__ void
k_selected_len(gg_decode_args a, uint64_t *lens)
{
	uint64_t	t = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (t < a.nsel)
		gg_selected_len(&a, t, lens);
	else if (t == a.nsel)
		lens[t] = 0;
}

/*
 * Selected values of a version 2 tile read through its index: a thread per
 * value finds its offsets through its block (gg_v2_value_offsets), and
 * keeps its raw length for the output's prefix sum and its code offset and
 * length for the decoder (code length UINT64_MAX: malformed, which the
 * decoder's one-thread fallback reports).
 */
__global__ void
k_selected_v2(gg_decode_args a, uint64_t *lens, uint64_t *sel_c, uint64_t *sel_nc)
{
	uint64_t	t = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
	uint64_t	c0,
				c1,
				r0,
				r1;

	if (t > a.nsel)
		return;
	if (t == a.nsel)
	{
		lens[t] = 0;
		return;
	}
	if (a.sel[t] < a.n && gg_v2_value_offsets(&a, a.sel[t], &c0, &c1, &r0, &r1) == GSST_OK)
	{
		lens[t] = r1 - r0;
		sel_c[t] = c0;
		sel_nc[t] = c1 - c0;
	}
	else
	{
		lens[t] = 0;
		sel_nc[t] = UINT64_MAX;
	}
}

/* append the code bytes [c, end) of the tile to a lane's accumulator */
__device__ __forceinline__ void
acc8_copy_codes(stage_acc8 *acc, const gg_decode_args *a, uint64_t c, uint64_t end)
{
	gg_in		in;

	in.lo = (uintptr_t) a->codes;
	in.hi = (uintptr_t) a->codes + a->code_bytes;
	gg_in_seek(&in, in.lo + c);
	while (c < end)
	{
		unsigned	k = end - c < 8 ? (unsigned) (end - c) : 8u;

		stage_acc8_put(acc, gg_in_peek(&in, in.lo + c) & gg_low_mask(k), k);
		c += k;
		gg_in_advance(&in, in.lo + c);
	}
}

/* tunables, overridable for variant builds (bench/gpu_variants.sh) */
#define WARP_VALUE_THREADS 128
#ifndef VALUES_PER_WARP
#define VALUES_PER_WARP 1024	/* a warp's share of decode_values */
#endif
#ifndef GATHER_BYTES
#define GATHER_BYTES 2048		/* codes gathered per batch */
#endif
#define GATHER_VALUES 256		/* values per batch */
#ifndef VALUES_MIN_BLOCKS
#define VALUES_MIN_BLOCKS 7		/* 72 registers, no spill: 3% over 6 blocks */
#endif

/*
 * One value of a decode_values window (t-th of the selection, or value
 * t), checked as gg_decode_value checks it.  Not "streamable" when it is
 * malformed, does not fit the output, or claims more bytes than its codes
 * can give (8 per code): the warp then leaves the batched path.
 */
typedef struct value_slot
{
	uint64_t	vc0,
				nc,				/* its code (or stored) bytes */
				nr,				/* its raw bytes */
				dst;			/* its place in the output */
	bool		in,
				bad,
				stored_raw;
} value_slot;

template <uint32_t W>
__device__ __forceinline__ void
read_value_slot(const gg_decode_args *a, uint64_t t, uint64_t t1, value_slot *v)
{
	uint64_t	i = a->sel ? a->sel[t < t1 ? t : t1 - 1] : t;
	uint64_t	vc1,
				vr0,
				vr1;

	v->in = t < t1;
	v->bad = false;
	v->stored_raw = false;
	v->vc0 = v->nc = v->nr = v->dst = 0;
	if (!v->in)
		return;
	if (i >= a->n)
	{
		v->bad = true;
		return;
	}
	v->vc0 = entry<W>(a->comp, i);
	vc1 = entry<W>(a->comp, i + 1);
	vr0 = entry<W>(a->raw, i);
	vr1 = entry<W>(a->raw, i + 1);
	v->dst = a->sel ? a->sel_off[t] : vr0;
	v->nc = vc1 - v->vc0;
	v->nr = vr1 - vr0;
	v->bad = vc1 < v->vc0 || vr1 < vr0 || v->nc > v->nr || vc1 > a->code_bytes ||
		v->dst > a->out_cap || a->out_cap - v->dst < v->nr || v->nr / 8 > v->nc ||
		(a->sel && a->sel_off[t + 1] != v->dst + v->nr);
	v->stored_raw = !v->bad && v->nc == v->nr && v->nr > 0;
}

/*
 * The same on a version 2 tile: value t of all (cursor g, at value t -
 * lane; pk its length bytes, v2_packed, when t < t1), or the t-th selected
 * one, whose code offset and length were found through its block before
 * (k_selected_v2).
 */
template <uint32_t W>
__device__ __forceinline__ void
read_value_slot_v2(const gg_decode_args *a, uint64_t t, uint64_t t1, uint32_t pk,
				   const v2_cursor<typename pos_of<W>::type> &cur,
				   v2_group<typename pos_of<W>::type> *g, unsigned lane, value_slot *v)
{
	uint64_t	vc1,
				vr0;

	v->in = t < t1;
	v->bad = false;
	v->stored_raw = false;
	v->vc0 = v->nc = v->nr = v->dst = 0;
	if (a->sel == NULL)
	{
		v2_group_of<W>(a, cur, v->in ? pk : 0, lane, g);
		if (!v->in)
			return;
		v->vc0 = g->c0;
		vc1 = g->c1;
		vr0 = g->r0;
		v->dst = vr0;
		v->nc = g->c1 - g->c0;
		v->nr = g->r1 - g->r0;
		v->bad = g->bad;
	}
	else
	{
		if (!v->in)
			return;
		if (a->sel[t] >= a->n || a->sel_nc[t] == UINT64_MAX)
		{
			v->bad = true;
			return;
		}
		v->vc0 = a->sel_c[t];
		v->nc = a->sel_nc[t];
		vc1 = v->vc0 + v->nc;
		v->dst = a->sel_off[t];
		v->nr = a->sel_off[t + 1] - v->dst;
		v->bad = vc1 < v->vc0 || a->sel_off[t + 1] < v->dst;
	}
	v->bad = v->bad || v->nc > v->nr || vc1 > a->code_bytes || v->dst > a->out_cap ||
		a->out_cap - v->dst < v->nr || v->nr / 8 > v->nc;
	v->stored_raw = !v->bad && v->nc == v->nr && v->nr > 0;
}

/*
 * decode_values, batched: the warp's values are gathered, each through its
 * own offsets, one lane per value, into shared memory until about
 * GATHER_BYTES of codes; the batch is then decoded as one run (wide steps,
 * every value's start checked at exactly its place in the output), into a
 * stage that goes on across batches, since the values' outputs follow one
 * another.  A value stored raw is copied into the stage, and one with more
 * codes than a batch holds is decoded by the warp straight from the tile.
 * A malformed value or a failed batch sends all the warp's values to
 * gg_decode_value, which reports the error as the one-thread path does.
 */
template <uint32_t W, bool V2>
__device__ __forceinline__ void
warp_decode_values(const gg_decoder *table, const gg_decode_args *a, uint64_t t0, uint64_t t1,
				   uint8_t *stg, uint8_t *gbuf, uint32_t *vcs, uint32_t *vrs, uint4 *cum,
				   unsigned lane)
{
	typedef typename pos_of<W>::type P;
	dec_smem	dec(table);
	v2_cursor<P> cur = {0, 0, 0};	/* V2, all values: the start of value j */
	v2_group<P> g;
	src_gathered src = {gbuf, vcs, vrs};
	warp_stage	o;
	uint32_t	gfill = 0,		/* gathered code bytes */
				nvals = 0,		/* gathered values */
				braw = 0;		/* their raw bytes */
	uint64_t	j = t0;
	bool		started = false;
	int			rc;

	/* a warp's share starts a block (VALUES_PER_WARP is a multiple of 128) */
	if (V2 && a->sel == NULL && !v2_seek<W>(a, t0, lane, &cur))
		goto one_by_one;
	while (j < t1)
	{
		value_slot	v;
		uint32_t	nc32,
					excl,
					rexcl,
					total,
					ok,
					k;
		bool		sums;

		if (V2)
		{
			/* loaded before the slot's branches: measured faster than inside them */
			uint32_t	pk = a->sel == NULL && j + lane < t1 ? v2_packed(a, j + lane) : 0;

			read_value_slot_v2<W>(a, j + lane, t1, pk, cur, &g, lane, &v);
		}
		else
			read_value_slot<W>(a, j + lane, t1, &v);
		if (!started)
		{
			/* the outputs follow one another from the first value's place */
			uint64_t	d0 = __shfl_sync(FULL_MASK, v.dst, 0);

			stage_init(&o, stg, (uintptr_t) a->out + d0, (uintptr_t) a->out + a->out_cap);
			started = true;
		}
		/*
		 * All values of a version 2 tile, none long (warp-uniform): the
		 * group's scan gave the gather places already (a value's code and
		 * raw bytes are its length bytes, lanes past the end have none).
		 */
		sums = V2 && a->sel == NULL && g.longs == 0;
		nc32 = v.nc > GATHER_BYTES ? GATHER_BYTES + 1 : (uint32_t) v.nc;
		if (sums)
			excl = (uint32_t) (g.c0 - cur.c);
		else
			excl = warp_exclusive_sum(v.in ? nc32 : 0, lane, &total);
		ok = __ballot_sync(FULL_MASK, v.in && !v.bad && !v.stored_raw &&
						   excl + nc32 <= GATHER_BYTES - gfill && lane < GATHER_VALUES - nvals);
		k = ok == FULL_MASK ? 32u : (unsigned) __ffs(~ok) - 1;
		if (k > 0)
		{
			/* lanes 0..k-1 gather their values' codes */
			uint32_t	nr32 = lane < k ? (uint32_t) v.nr : 0;	/* <= 8 * GATHER_BYTES */
			bool		copies = lane < k && v.nc > 0;
			stage_acc8	acc;

			if (sums)
			{
				P			r0 = cur.r;

				rexcl = (uint32_t) (g.r0 - r0);
				v2_advance(&cur, g, k);
				total = (uint32_t) (cur.r - r0);
			}
			else
				rexcl = warp_exclusive_sum(nr32, lane, &total);
			if (lane < k)
			{
				vcs[nvals + lane] = gfill + excl;
				vrs[nvals + lane] = braw + rexcl;
			}
			if (copies)
			{
				stage_acc8_init(&acc, gbuf, gfill + excl);
				acc8_copy_codes(&acc, a, v.vc0, v.vc0 + v.nc);
			}
			__syncwarp();
			if (copies)
				stage_acc8_end(&acc);
			gfill += __shfl_sync(FULL_MASK, excl + nc32, k - 1);
			braw += total;
			nvals += k;
			j += k;
			if (V2 && a->sel == NULL && !sums)
				v2_advance(&cur, g, k);
			__syncwarp();
			/* a batch is decoded when the next window might not fit */
			if (!(k < 32 || nvals > GATHER_VALUES - 32 || j >= t1))
				continue;
		}
		if (nvals > 0)
		{
			rc = warp_decode_run(dec, src, &o, cum, 0, gfill, 0, braw, 1, nvals, lane);
			if (rc != GSST_OK)
				goto one_by_one;
			/* the gather buffer is zero again at and after its fill */
			for (uint32_t z = lane; z < (gfill + 15) / 16; z += 32)
				*(uint4 *) (gbuf + 16 * z) = make_uint4(0, 0, 0, 0);
			__syncwarp();
			gfill = nvals = braw = 0;
			continue;
		}
		if (k == 0)
		{
			/* the first value: malformed, stored raw, or too long for a batch */
			bool		bad0 = __shfl_sync(FULL_MASK, v.bad, 0);
			bool		raw0 = __shfl_sync(FULL_MASK, v.stored_raw, 0);
			uint64_t	vc0 = __shfl_sync(FULL_MASK, v.vc0, 0);
			uint64_t	nc = __shfl_sync(FULL_MASK, v.nc, 0);
			uint64_t	nr = __shfl_sync(FULL_MASK, v.nr, 0);

			if (bad0)
				goto one_by_one;
			if (raw0)
				stage_copy_raw(&o, a->codes, vc0, nc, lane);
			else
			{
				src_tile<W>	codes(a);

				rc = warp_decode_run(dec, codes, &o, cum, (P) vc0, (P) (vc0 + nc), 0, (P) nr, 0, 0,
									 lane);
				if (rc != GSST_OK)
					goto one_by_one;
			}
			j++;
			if (V2 && a->sel == NULL)
				v2_advance(&cur, g, 1);
		}
	}
	if (started)
	{
		__syncwarp();
		stage_flush(&o, lane, true);
	}
	if (V2 && a->sel == NULL)
		v2_check_blocks<W>(a, t0 / GSST_TILE_BLOCK_VALUES,
						(t1 + GSST_TILE_BLOCK_VALUES - 1) / GSST_TILE_BLOCK_VALUES, lane);
	return;

one_by_one:
	/* rewrites the whole share: the stage may hold earlier values' bytes */
	__syncwarp();
	for (uint64_t t = t0 + lane; t < t1; t += 32)
		gg_decode_value(table, a, t);
}

template <uint32_t W, bool V2>
__global__ void __launch_bounds__(WARP_VALUE_THREADS, VALUES_MIN_BLOCKS)
k_decode_values_warp(gg_decode_args a, const gg_decoder *dec_global, uint64_t count)
{
	__shared__ __align__(16) gg_decoder dec;
	__shared__ __align__(16) uint8_t stage[WARP_VALUE_THREADS / 32][SPLIT_STAGE_BYTES];
	__shared__ __align__(16) uint8_t gbuf[WARP_VALUE_THREADS / 32][GATHER_BYTES + 32];
	__shared__ uint32_t vcs[WARP_VALUE_THREADS / 32][GATHER_VALUES];
	__shared__ uint32_t vrs[WARP_VALUE_THREADS / 32][GATHER_VALUES];
	__shared__ uint4 cum[WARP_VALUE_THREADS / 32][32];
	unsigned	warp = threadIdx.x / 32;
	unsigned	lane = threadIdx.x % 32;
	uint64_t	t0 = ((uint64_t) blockIdx.x * (WARP_VALUE_THREADS / 32) + warp) * VALUES_PER_WARP;

	load_shared(&dec, dec_global, sizeof(gg_decoder));
	/* both start zero: lanes OR their bytes into words they share */
	for (unsigned i = lane; i < SPLIT_STAGE_BYTES / 16; i += 32)
		*(uint4 *) (stage[warp] + 16 * i) = make_uint4(0, 0, 0, 0);
	for (unsigned i = lane; i < (GATHER_BYTES + 32) / 16; i += 32)
		*(uint4 *) (gbuf[warp] + 16 * i) = make_uint4(0, 0, 0, 0);
	__syncthreads();
	if (t0 < count)
		warp_decode_values<W, V2>(&dec, &a, t0, t0 + VALUES_PER_WARP < count ? t0 + VALUES_PER_WARP : count,
						   stage[warp], gbuf[warp], vcs[warp], vrs[warp], cum[warp], lane);
}

/*
 * decode_values, all values: each thread still decodes one value on its
 * own (FSST random access), but into its warp's shared-memory stage, at
 * the value's place among the warp's 32 consecutive values, through an
 * 8-byte accumulator (words shared with a neighbouring value are OR-ed in);
 * the warp then writes the stage out with coalesced 16-byte stores.  Warps
 * whose values do not fit the stage write directly.
 */
__global__ void __launch_bounds__(DECODE_VALUE_THREADS)
k_decode_value_staged(gg_decode_args a, const gg_decoder *dec_global, uint64_t count)
{
	__shared__ __align__(16) gg_decoder dec;
	__shared__ __align__(16) uint8_t stage[DECODE_VALUE_THREADS / 32][VALUES_STAGE_BYTES];
	unsigned	lane = threadIdx.x % 32;
	uint8_t    *stg = stage[threadIdx.x / 32];
	uint64_t	first = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) & ~(uint64_t) 31;
	uint64_t	t = first + lane;
	uint64_t	last,
				r_first,
				r_last;
	uintptr_t	base,
				head;
	uint32_t	W = a.width;
	stage_acc8	acc;
	bool		filled = false; /* acc holds this lane's value, to be ended */

	load_shared(&dec, dec_global, sizeof(gg_decoder));
	__syncthreads();
	if (first >= count)
		return;
	last = first + 32 < count ? first + 32 : count;
	r_first = gg_read_entry(a.raw, first, W);
	r_last = gg_read_entry(a.raw, last, W);
	base = ((uintptr_t) a.out + r_first) & ~(uintptr_t) 15;
	head = (uintptr_t) a.out + r_first - base;
	if (r_last < r_first || r_last > a.out_cap || r_last - r_first + head > VALUES_STAGE_BYTES)
	{
		if (t < count)
			gg_decode_value(&dec, &a, t);
		return;
	}
	/* the stage starts zero: lanes OR their bytes into chunks they share */
	for (uint32_t k = lane; k < (uint32_t) (head + (r_last - r_first) + 15) / 16; k += 32)
		*(uint4 *) (stg + 16 * k) = make_uint4(0, 0, 0, 0);
	__syncwarp();
	if (t < count)
	{
		uint64_t	vc0 = gg_read_entry(a.comp, t, W),
					vc1 = gg_read_entry(a.comp, t + 1, W),
					vr0 = gg_read_entry(a.raw, t, W),
					vr1 = gg_read_entry(a.raw, t + 1, W);
		int			rc = GSST_OK;

		if (vc1 < vc0 || vr1 < vr0 || vc1 - vc0 > vr1 - vr0 || vc1 > a.code_bytes ||
			vr0 < r_first || vr1 > r_last)
			rc = GSST_ERR_OFFSET;
		else if (vr1 > vr0)
		{
			gg_in		in;
			uint64_t	c = vc0,
						produced = 0,
						nout = vr1 - vr0;

			stage_acc8_init(&acc, stg, (uint32_t) (head + (vr0 - r_first)));
			in.lo = (uintptr_t) a.codes;
			in.hi = (uintptr_t) a.codes + a.code_bytes;
			gg_in_seek(&in, in.lo + vc0);
			if (vc1 - vc0 == nout)
				acc8_copy_codes(&acc, &a, vc0, vc1);	/* stored raw */
			else
				while (c < vc1)
				{
					uint64_t	word = gg_in_peek(&in, in.lo + c);
					unsigned	code = (unsigned) (word & 0xFF);
					uint64_t	sym;
					unsigned	len,
								adv;

					if (code == GSST_ESCAPE)
					{
						if (vc1 - c < 2)
						{
							rc = GSST_ERR_DANGLING_ESCAPE;
							break;
						}
						sym = (word >> 8) & 0xFF;
						len = 1;
						adv = 2;
					}
					else
					{
						len = dec.len[code];
						sym = dec.symbol[code];
						adv = 1;
						if (len == 0)
						{
							rc = GSST_ERR_BAD_CODE;
							break;
						}
					}
					if (produced + len > nout)
					{
						rc = GSST_ERR_LENGTH;
						break;
					}
					stage_acc8_put(&acc, sym, len);
					produced += len;
					c += adv;
					gg_in_advance(&in, in.lo + c);
				}
			if (rc == GSST_OK && vc1 - vc0 != nout && produced != nout)
				rc = GSST_ERR_LENGTH;
			filled = rc == GSST_OK;
		}
		if (rc != GSST_OK)
			gg_set_error(a.err, rc, 2, t);
	}
	__syncwarp();
	if (filled)
		stage_acc8_end(&acc);
	__syncwarp();
	{
		warp_stage	o;

		o.stg = stg;
		o.base = base;
		o.fill = (uint32_t) (head + (r_last - r_first));
		o.lo = (uintptr_t) a.out + r_first;
		o.hi = (uintptr_t) a.out + r_last;
		stage_flush(&o, lane, true);
	}
}

/* ---- host side ---- */

GG_EXPORT int
gsst_gpu_decode_values_device(gsst_gpu *ctx, const void *d_tile, size_t tile_len,
							  const void *d_indices, size_t k, void *d_out, size_t out_cap,
							  void *d_out_offsets)
{
	gg_decode_args a;
	gsst_tile_layout l;
	uint64_t	count;
	size_t		work_at,
				scan_bytes = 0,
				lens_bytes = gsst_align_up((k + 1) * 8, 256);
	bool		expand;
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (d_indices != NULL && (d_out_offsets == NULL || ((uintptr_t) d_indices & 7) ||
							  ((uintptr_t) d_out_offsets & 7)))
		return set_error(ctx, GSST_GPU_ERR_ARG,
						 "decode_values: offsets NULL, or indices/offsets not 8-byte aligned");
	if (d_indices != NULL)
	{
		uint64_t   *null_u64 = NULL;

		if (k >= (size_t) INT32_MAX)
			return set_error(ctx, GSST_GPU_ERR_LIMIT, "decode_values: too many indices");
		CU(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, null_u64, null_u64, (int) (k + 1),
										 ctx->stream));
	}
	CU(cudaEventRecord(ctx->ev_start, ctx->stream));
	/* the one-thread kernels read version 1 entries: a version 2 index is expanded for them */
	expand = (ctx->cfg.flags & (GSST_GPU_FLAG_DIRECT_VALUES | GSST_GPU_FLAG_STAGED_VALUES)) != 0;
	rc = gg_open_device_tile(ctx, d_tile, tile_len, &a, &l,
							 d_indices != NULL ? lens_bytes + gsst_align_up(scan_bytes, 256) + 2 * lens_bytes : 0,
							 &work_at,
							 expand);
	if (rc != GSST_GPU_OK)
		return rc;
	a.out = (uint8_t *) d_out;
	a.out_cap = out_cap;
	ctx->stats.extra_device_bytes = ctx->fixed_bytes + work_at;
	if (d_indices == NULL)
	{
		if (out_cap < a.raw_bytes || (d_out == NULL && a.raw_bytes > 0))
			return set_error(ctx, GSST_GPU_ERR_SPACE, "decode_values: output of %zu bytes, need %llu",
							 out_cap, (unsigned long long) a.raw_bytes);
		count = a.n;
		CU(cudaEventRecord(ctx->ev_kernel, ctx->stream));
		if (expand)
		{
			rc = gg_expand_index(ctx, d_tile, &l, &a);
			if (rc != GSST_GPU_OK)
				return rc;
		}
	}
	else
	{
		uint64_t   *lens;

		a.sel = (const uint64_t *) d_indices;
		a.sel_off = (const uint64_t *) d_out_offsets;
		a.nsel = k;
		lens = (uint64_t *) (ctx->d_work + work_at);
		CU(cudaEventRecord(ctx->ev_kernel, ctx->stream));
		if (l.version == 2 && !expand)
		{
			/* each value's code offset and length through its block, beside its length */
			uint64_t   *sel_c = (uint64_t *) (ctx->d_work + work_at + lens_bytes +
											  gsst_align_up(scan_bytes, 256));
			uint64_t   *sel_nc = sel_c + lens_bytes / 8;

			ctx->stats.extra_device_bytes += 2 * lens_bytes;
			a.sel_c = sel_c;
			a.sel_nc = sel_nc;
			k_selected_v2<<<blocks_for(k + 1, 256), 256, 0, ctx->stream>>>(a, lens, sel_c, sel_nc);
		}
		else
		{
			rc = gg_expand_index(ctx, d_tile, &l, &a);
			if (rc != GSST_GPU_OK)
				return rc;
			k_selected_len<<<blocks_for(k + 1, 256), 256, 0, ctx->stream>>>(a, lens);
		}
		ctx->stats.extra_device_bytes += lens_bytes + scan_bytes;
		CU_LAUNCH("selected lengths kernel");
		CU(cub::DeviceScan::ExclusiveSum(ctx->d_work + work_at + lens_bytes, scan_bytes, lens,
										 (uint64_t *) d_out_offsets, (int) (k + 1), ctx->stream));
		count = k;
	}
	if (count > 0)
	{
		if (count > (uint64_t) INT32_MAX * DECODE_VALUE_THREADS)
			return set_error(ctx, GSST_GPU_ERR_LIMIT, "decode_values: too many values");
		if (!(ctx->cfg.flags & (GSST_GPU_FLAG_DIRECT_VALUES | GSST_GPU_FLAG_STAGED_VALUES)))
		{
			unsigned	blocks = blocks_for(count, VALUES_PER_WARP * (WARP_VALUE_THREADS / 32));

			if (a.width == 4 && l.version == 2)
				k_decode_values_warp<4, true><<<blocks, WARP_VALUE_THREADS, 0, ctx->stream>>>(a, ctx->d_dec,
																					   count);
			else if (l.version == 2)
				k_decode_values_warp<8, true><<<blocks, WARP_VALUE_THREADS, 0, ctx->stream>>>(a, ctx->d_dec,
																					   count);
			else if (a.width == 4)
				k_decode_values_warp<4, false><<<blocks, WARP_VALUE_THREADS, 0, ctx->stream>>>(a, ctx->d_dec,
																						count);
			else
				k_decode_values_warp<8, false><<<blocks, WARP_VALUE_THREADS, 0, ctx->stream>>>(a, ctx->d_dec,
																						count);
		}
		else if (d_indices == NULL && !(ctx->cfg.flags & GSST_GPU_FLAG_DIRECT_VALUES))
			k_decode_value_staged<<<blocks_for(count, DECODE_VALUE_THREADS), DECODE_VALUE_THREADS,
				0, ctx->stream>>>(a, ctx->d_dec, count);
		else
			k_decode_value<<<blocks_for(count, DECODE_VALUE_THREADS), DECODE_VALUE_THREADS, 0,
				ctx->stream>>>(a, ctx->d_dec, count);
		CU_LAUNCH("decode values kernel");
	}
	return gg_finish_decode(ctx);
}

GG_EXPORT int
gsst_gpu_decode_values(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len,
					   const uint64_t *indices, size_t k, uint8_t *out, size_t out_cap,
					   uint64_t *out_offsets)
{
	size_t		idx_at = gsst_align_up(out_cap + 16, 256);
	size_t		offs_at = idx_at + gsst_align_up(k * 8 + 8, 256);
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (indices == NULL || out_offsets == NULL || (out == NULL && out_cap > 0))
		return set_error(ctx, GSST_GPU_ERR_ARG, "decode_values: NULL pointer");
	rc = gg_stage_tile(ctx, tile, tile_len);
	if (rc == GSST_GPU_OK)
		rc = ensure_buffer(ctx, &ctx->d_stage_out, &ctx->stage_out_cap, offs_at + (k + 1) * 8);
	if (rc != GSST_GPU_OK)
		return rc;
	if (k > 0)
		CU(cudaMemcpyAsync(ctx->d_stage_out + idx_at, indices, k * 8, cudaMemcpyHostToDevice,
						   ctx->stream));
	rc = gsst_gpu_decode_values_device(ctx, ctx->d_stage_in, tile_len, ctx->d_stage_out + idx_at,
									   k, ctx->d_stage_out, out_cap, ctx->d_stage_out + offs_at);
	if (rc != GSST_GPU_OK)
		return rc;
	CU(cudaMemcpy(out_offsets, ctx->d_stage_out + offs_at, (k + 1) * 8, cudaMemcpyDeviceToHost));
	if (out_offsets[k] > 0)
		CU(cudaMemcpy(out, ctx->d_stage_out, out_offsets[k], cudaMemcpyDeviceToHost));
	return GSST_GPU_OK;
}
