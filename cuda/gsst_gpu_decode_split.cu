/*
 * gsst_gpu_decode_split.cu - a whole tile decoded on the GPU
 * (gsst_gpu_decode_device, gsst_gpu_decode): one warp per split, runs of
 * encoded values decoded 16 codes per lane into a shared-memory stage
 * (gsst_gpu_decode_run.cuh, cuda/NOTES.md).  The simpler
 * one-thread-per-split kernel stays behind GSST_GPU_FLAG_THREAD_SPLITS.
 */
#include "gsst_gpu_internal.cuh"
#include "gsst_gpu_decode_run.cuh"

#define DECODE_SPLIT_THREADS 64
#define WARP_SPLIT_THREADS 128

/* ---- kernels ---- */

__global__ void __launch_bounds__(DECODE_SPLIT_THREADS)
k_decode_split(gg_decode_args a, const gg_decoder *dec_global)
{
	__shared__ __align__(16) gg_decoder dec;
	uint64_t	s = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	load_shared(&dec, dec_global, sizeof(gg_decoder));
	__syncthreads();
	if (s < a.nsplits)
		gg_decode_split(&dec, &a, s);
}

/*
 * The 32 values from v on, one per lane: the value's offsets, its part
 * inside the split, and masks of values that are malformed, stored raw,
 * end the split, or lie beyond it.  Lane 0 is special when first: it holds
 * the value the split is inside, which starts at (c, r).
 */
template <class P>
struct warp_window
{
	P			ce,
				re;
	uint32_t	m_bad,
				m_raw,
				m_end,
				m_stop;
};

/* a window's offsets, loads only: value v + lane's starts, lane 31 also its end */
template <class P>
struct window_entries
{
	P			vc0,
				vr0,
				vc1,
				vr1;
};

template <uint32_t W>
__device__ __forceinline__ void
fetch_window(const gg_decode_args *a, uint64_t v, unsigned lane,
			 window_entries<typename pos_of<W>::type> *e)
{
	uint64_t	vv = v + lane;

	e->vc0 = e->vr0 = e->vc1 = e->vr1 = 0;
	if (vv <= a->n)
	{
		e->vc0 = entry<W>(a->comp, vv);
		e->vr0 = entry<W>(a->raw, vv);
	}
	if (lane == 31 && vv + 1 <= a->n)
	{
		e->vc1 = entry<W>(a->comp, vv + 1);
		e->vr1 = entry<W>(a->raw, vv + 1);
	}
}

template <class P>
__device__ __forceinline__ void
eval_window(const gg_decode_args *a, const window_entries<P> *e, uint64_t v, bool first,
			P c, P r, P c1, P r1, unsigned lane, warp_window<P> *w, bool broken = false)
{
	uint64_t	vv = v + lane;
	P			vc0 = e->vc0,
				vr0 = e->vr0,
				vc1,
				vr1,
				cs,
				rs;
	bool		exists = vv < a->n;
	bool		special = first && lane == 0;

	vc1 = __shfl_down_sync(FULL_MASK, vc0, 1);
	vr1 = __shfl_down_sync(FULL_MASK, vr0, 1);
	if (lane == 31)
	{
		vc1 = e->vc1;
		vr1 = e->vr1;
	}
	cs = special ? c : vc0;
	rs = special ? r : vr0;
	w->ce = vc1 < c1 ? vc1 : c1;
	w->re = vr1 < r1 ? vr1 : r1;
	w->m_bad = __ballot_sync(FULL_MASK, exists && (broken || vc1 < vc0 || vr1 < vr0 ||
												   vc1 - vc0 > vr1 - vr0 || cs > w->ce ||
												   rs > w->re));
	/* stored raw; empty values need no copy and do not break a run */
	w->m_raw = __ballot_sync(FULL_MASK, exists && vc1 - vc0 == vr1 - vr0 && vr1 > vr0);
	w->m_end = __ballot_sync(FULL_MASK, exists && (vc1 > c1 || vr1 > r1));
	/* values the split loop would not reach (or that do not exist) */
	w->m_stop = __ballot_sync(FULL_MASK, !special && !(exists && (vr0 < r1 || vc0 < c1)));
}

/*
 * How many values of the window (from lane 0, or from lane 1 when the
 * first is the split's current value) a run of encoded values takes: it
 * stops before a malformed, raw or unreached value, and after the value
 * that ends the split.
 */
template <class P>
__device__ __forceinline__ unsigned
window_run(const warp_window<P> *w, bool first)
{
	uint32_t	brk = (w->m_stop | w->m_raw | w->m_bad) & (first ? ~1u : ~0u);
	unsigned	k = brk ? (unsigned) __ffs(brk) - 1 : 32u;

	if (w->m_end && (unsigned) __ffs(w->m_end) < k)
		k = (unsigned) __ffs(w->m_end);
	return k;
}

/*
 * How the split loop (warp_decode_split) gets its windows of 32 values
 * and their offsets, and how it hands a run to the run decoder: one policy
 * per index version, resolved at compile time.  Version 1 loads each
 * window's entries from the offset arrays, the next window ahead.
 */
template <uint32_t W>
struct split_windows_v1
{
	typedef typename pos_of<W>::type P;
	window_entries<P> ahead;	/* the window after the last one evaluated */

	/* the split's first value is v; false: the index is broken there */
	__device__ __forceinline__ bool seek(const gg_decode_args *a, uint64_t v, unsigned lane)
	{
		(void) a;
		(void) v;
		(void) lane;
		return true;
	}
	/* the window from v, the value the split is inside, which starts at (c, r) */
	__device__ __forceinline__ void first(const gg_decode_args *a, uint64_t v, P c, P r, P c1, P r1,
										  unsigned lane, warp_window<P> *w)
	{
		window_entries<P> ents;

		/* the window after this one is fetched too: a run usually goes on */
		fetch_window<W>(a, v, lane, &ents);
		fetch_window<W>(a, v + 32, lane, &ahead);
		eval_window(a, &ents, v, true, c, r, c1, r1, lane, w);
	}
	/* the first window's value 0 was stored raw and copied */
	__device__ __forceinline__ void took_raw()
	{
	}
	/* a run starts with the first window's values */
	__device__ __forceinline__ void run_started()
	{
	}
	/*
	 * The run's next window, from value vw: true when it takes the whole
	 * window, whose last value ends at (*c_end, *r_end) inside the split;
	 * else evaluated into w.
	 */
	__device__ __forceinline__ bool next(const gg_decode_args *a, uint64_t vw, P c, P r, P c1, P r1,
										 unsigned lane, warp_window<P> *w, P *c_end, P *r_end)
	{
		/* the window at vw is in ahead; fetch the next one meanwhile */
		window_entries<P> ents = ahead;

		(void) c_end;
		(void) r_end;
		fetch_window<W>(a, vw + 32, lane, &ahead);
		eval_window(a, &ents, vw, false, c, r, c1, r1, lane, w);
		return false;
	}
	/* the run took the evaluated window's values and may go on */
	__device__ __forceinline__ void took_window()
	{
	}
	/* decodes the run; value starts are checked from vn on */
	__device__ __forceinline__ int decode_run(const dec_smem &dec, const gg_decode_args *a,
											  warp_stage *o, uint4 *cum, P c, P c_end, P r,
											  P expect, uint64_t vn, uint64_t vlast, unsigned lane)
	{
		src_tile<W> src(a);

		return warp_decode_run(dec, src, o, cum, c, c_end, r, expect, vn, vlast, lane);
	}
	/*
	 * Values the loop did not reach (empty ones at the split's end) must
	 * start and end there too, as gsst_tile_open checks: offsets v .. v1.
	 */
	__device__ __forceinline__ bool rest_empty(const gg_decode_args *a, uint64_t v, uint64_t v1,
											   P c1, P r1, unsigned lane)
	{
		for (uint64_t at = v; at <= v1; at += 32)
		{
			uint64_t	i = at + lane;
			bool		bad = i <= v1 && (entry<W>(a->comp, i) != c1 || entry<W>(a->raw, i) != r1);

			if (__any_sync(FULL_MASK, bad))
				return false;
		}
		return true;
	}
	/* after a clean decode of split s, whose values end at v1 */
	__device__ __forceinline__ void finish(const gg_decode_args *a, uint64_t s, uint64_t v1,
										   unsigned lane)
	{
		(void) a;
		(void) s;
		(void) v1;
		(void) lane;
	}
};

/*
 * Version 2: the value offsets of each window come from the warp's cursor
 * (v2_group_of) instead of loaded entries, and the run decoder checks value
 * starts through its own cursor (src_tile_v2).  A window of 32 encoded
 * values that all end inside the split is taken from the sums of its
 * length bytes alone.  After a clean decode the warp checks the index
 * blocks that start among its values, so that the splits together check
 * every block once.
 */
template <uint32_t W>
struct split_windows_v2
{
	typedef typename pos_of<W>::type P;
	v2_cursor<P> cur;			/* the start of the split loop's value v */
	v2_cursor<P> wcur;			/* in a run: the start of its next window */
	v2_group<P> g;				/* the last window evaluated */
	uint32_t	ahead_c,
				ahead_r;		/* the next window's length bytes, packed at their use */
	bool		ahead_in;		/* whether they are a value's (else taken as 0) */

	__device__ __forceinline__ bool seek(const gg_decode_args *a, uint64_t v, unsigned lane)
	{
		return v2_seek<W>(a, v, lane, &cur);
	}
	__device__ __forceinline__ void first(const gg_decode_args *a, uint64_t v, P c, P r, P c1, P r1,
										  unsigned lane, warp_window<P> *w)
	{
		window_entries<P> ents;

		wcur = cur;
		/* the window after this one is loaded too: a run usually goes on */
		v2_group_of<W>(a, cur, v2_packed(a, v + lane), lane, &g);
		v2_load_lengths(a, v + 32 + lane, &ahead_c, &ahead_r, &ahead_in);
		ents.vc0 = g.c0;
		ents.vr0 = g.r0;
		ents.vc1 = g.c1;
		ents.vr1 = g.r1;
		eval_window(a, &ents, v, true, c, r, c1, r1, lane, w, g.bad);
	}
	__device__ __forceinline__ void took_raw()
	{
		v2_advance(&cur, g, 1);
	}
	__device__ __forceinline__ void run_started()
	{
		/* wcur: the start of the next window; the run's value starts are checked from v + 1 on */
		v2_advance(&wcur, g, 32);
		v2_advance(&cur, g, 1);
	}
	__device__ __forceinline__ bool next(const gg_decode_args *a, uint64_t vw, P c, P r, P c1, P r1,
										 unsigned lane, warp_window<P> *w, P *c_end, P *r_end)
	{
		window_entries<P> ents;
		uint32_t	cl8 = ahead_in ? ahead_c : 0,
					rl8 = ahead_in ? ahead_r : 0;
		uint32_t	pk = cl8 | rl8 << 16;
		uint32_t	sums = __reduce_add_sync(FULL_MASK, pk);
		P			tc = sums & 0xFFFF,
					tr = sums >> 16;

		/* long, malformed or stored raw: the window needs the full evaluation */
		bool		odd = rl8 == GSST_TILE_LONG || cl8 > rl8 || (cl8 == rl8 && rl8 > 0);

		v2_load_lengths(a, vw + 32 + lane, &ahead_c, &ahead_r, &ahead_in);
		if (!__any_sync(FULL_MASK, odd) && vw + 32 <= a->n && tc <= c1 - wcur.c &&
			tr < r1 - wcur.r)
		{
			/*
			 * The whole window, of encoded values that end inside the
			 * split, goes to the run: eval_window would find exactly
			 * that, so its sums are all it takes.
			 */
			wcur.c += tc;
			wcur.r += tr;
			*c_end = wcur.c;
			*r_end = wcur.r;
			return true;
		}
		v2_group_of<W>(a, wcur, pk, lane, &g);
		ents.vc0 = g.c0;
		ents.vr0 = g.r0;
		ents.vc1 = g.c1;
		ents.vr1 = g.r1;
		eval_window(a, &ents, vw, false, c, r, c1, r1, lane, w, g.bad);
		return false;
	}
	__device__ __forceinline__ void took_window()
	{
		v2_advance(&wcur, g, 32);
	}
	__device__ __forceinline__ int decode_run(const dec_smem &dec, const gg_decode_args *a,
											  warp_stage *o, uint4 *cum, P c, P c_end, P r,
											  P expect, uint64_t vn, uint64_t vlast, unsigned lane)
	{
		src_tile_v2<W> src(a, cur);
		int			rc = warp_decode_run(dec, src, o, cum, c, c_end, r, expect, vn, vlast, lane);

		/* its cursor went past every value of the run */
		cur = src.cur;
		return rc;
	}
	/*
	 * Value v starts at the split's end, and v .. v1 - 1 are empty, as
	 * gsst_tile_open checks.
	 */
	__device__ __forceinline__ bool rest_empty(const gg_decode_args *a, uint64_t v, uint64_t v1,
											   P c1, P r1, unsigned lane)
	{
		if (cur.c != c1 || cur.r != r1)
			return false;
		for (uint64_t at = v; at < v1; at += 32)
			if (__any_sync(FULL_MASK, at + lane < v1 && v2_packed(a, at + lane) != 0))
				return false;
		return true;
	}
	__device__ __forceinline__ void finish(const gg_decode_args *a, uint64_t s, uint64_t v1,
										   unsigned lane)
	{
		uint64_t	v,
					c64,
					r64;

		/* the split's first value again: kept in a register through the loop, it spilled */
		gg_read_split(a, s, &v, &c64, &r64);
		v2_check_blocks<W>(a, (v + GSST_TILE_BLOCK_VALUES - 1) / GSST_TILE_BLOCK_VALUES,
						   (v1 + GSST_TILE_BLOCK_VALUES - 1) / GSST_TILE_BLOCK_VALUES, lane);
	}
};

/*
 * One warp decodes split s (same result and checks as gg_decode_split):
 * a stored-raw value is copied; otherwise the longest run of encoded values
 * (found 32 values at a time) is decoded as one code stream.  Win is the
 * index version's policy (split_windows_v1, split_windows_v2).
 */
template <uint32_t W, class Win>
__device__ __forceinline__ void
warp_decode_split(const gg_decoder *table, const gg_decode_args *a, uint64_t s, uint8_t *stg,
				  uint4 *cum, unsigned lane)
{
	typedef typename pos_of<W>::type P;
	dec_smem	dec(table);
	Win			win;
	uint64_t	v, v1, c64, r64, c164, r164;
	P			c, r, c1, r1;
	warp_stage	o;
	int			rc = GSST_OK;
	bool		inside = false;	/* the split ends inside value v */

	gg_read_split(a, s, &v, &c64, &r64);
	gg_read_split(a, s + 1, &v1, &c164, &r164);

	if (!(v <= v1 && v1 <= a->n && c64 <= c164 && c164 <= a->code_bytes && r64 <= r164 &&
		  r164 <= a->raw_bytes))
	{
		if (lane == 0)
			gg_set_error(a->err, GSST_ERR_OFFSET, 1, s);
		return;
	}
	/* entries of W bytes: they fit P */
	c = (P) c64;
	r = (P) r64;
	c1 = (P) c164;
	r1 = (P) r164;
	stage_init(&o, stg, (uintptr_t) a->out + r, (uintptr_t) a->out + r1);
	if (!win.seek(a, v, lane))
		rc = GSST_ERR_OFFSET;
	while (rc == GSST_OK && (r < r1 || c < c1))
	{
		warp_window<P> w;
		unsigned	k,
					total_k;
		P			c_end,
					r_end;
		bool		ended;

		if (v >= a->n)
		{
			rc = GSST_ERR_OFFSET;
			break;
		}
		win.first(a, v, c, r, c1, r1, lane, &w);
		if (w.m_bad & 1)
		{
			rc = GSST_ERR_OFFSET;
			break;
		}
		if (w.m_raw & 1)
		{
			P			ce0 = __shfl_sync(FULL_MASK, w.ce, 0);
			P			re0 = __shfl_sync(FULL_MASK, w.re, 0);

			if (ce0 - c != re0 - r)
			{
				rc = GSST_ERR_LENGTH;
				break;
			}
			stage_copy_raw(&o, a->codes, c, ce0 - c, lane);
			if (w.m_end & 1)
			{
				inside = true;
				break;
			}
			c = ce0;
			r = re0;
			v++;
			win.took_raw();
			continue;
		}
		k = window_run(&w, true);
		c_end = __shfl_sync(FULL_MASK, w.ce, k - 1);
		r_end = __shfl_sync(FULL_MASK, w.re, k - 1);
		ended = (w.m_end >> (k - 1)) & 1;
		total_k = k;
		win.run_started();
		/* a whole window of encoded values: the run goes on */
		while (k == 32 && !ended)
		{
			if (win.next(a, v + total_k, c, r, c1, r1, lane, &w, &c_end, &r_end))
			{
				total_k += 32;
				continue;
			}
			k = window_run(&w, false);
			if (k == 0)
				break;
			c_end = __shfl_sync(FULL_MASK, w.ce, k - 1);
			r_end = __shfl_sync(FULL_MASK, w.re, k - 1);
			ended = (w.m_end >> (k - 1)) & 1;
			total_k += k;
			win.took_window();
		}
		rc = win.decode_run(dec, a, &o, cum, c, c_end, r, r_end - r, v + 1, v + total_k, lane);
		if (rc != GSST_OK)
			break;
		if (ended)
		{
			v += total_k - 1;	/* the value the split ends inside */
			inside = true;
			break;
		}
		c = c_end;
		r = r_end;
		v += total_k;
	}
	if (rc == GSST_OK && (inside ? v != v1 : v > v1))
		rc = GSST_ERR_OFFSET;
	if (rc == GSST_OK && !inside && !win.rest_empty(a, v, v1, c1, r1, lane))
		rc = GSST_ERR_OFFSET;
	if (rc != GSST_OK)
	{
		if (lane == 0)
			gg_set_error(a->err, rc, 1, s);
		return;
	}
	__syncwarp();
	stage_flush(&o, lane, true);
	win.finish(a, s, v1, lane);
}

#ifndef SPLIT_MIN_BLOCKS
#define SPLIT_MIN_BLOCKS 8		/* 64 registers */
#endif
template <uint32_t W, bool V2>
__global__ void __launch_bounds__(WARP_SPLIT_THREADS, SPLIT_MIN_BLOCKS)
k_decode_split_warp(gg_decode_args a, const gg_decoder *dec_global)
{
	__shared__ __align__(16) gg_decoder dec;
	__shared__ __align__(16) uint8_t stage[WARP_SPLIT_THREADS / 32][SPLIT_STAGE_BYTES];
	__shared__ uint4 cum[WARP_SPLIT_THREADS / 32][32];
	unsigned	warp = threadIdx.x / 32;
	unsigned	lane = threadIdx.x % 32;
	uint64_t	s = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;

	load_shared(&dec, dec_global, sizeof(gg_decoder));
	/* the stage starts zero: lanes OR their bytes into shared chunks */
	for (unsigned i = lane; i < SPLIT_STAGE_BYTES / 16; i += 32)
		*(uint4 *) (stage[warp] + 16 * i) = make_uint4(0, 0, 0, 0);
	__syncthreads();
	if (V2)
	{
		/* launched with one warp at least: an empty tile's sentinel is checked too */
		if (s == 0 && lane == 0)
			v2_check_ends(&a, true);
		if (s < a.nsplits)
			warp_decode_split<W, split_windows_v2<W> >(&dec, &a, s, stage[warp], cum[warp], lane);
	}
	else if (s < a.nsplits)
		warp_decode_split<W, split_windows_v1<W> >(&dec, &a, s, stage[warp], cum[warp], lane);
}

/* ---- host side ---- */

GG_EXPORT int
gsst_gpu_decode_device(gsst_gpu *ctx, const void *d_tile, size_t tile_len, void *d_out,
					   size_t out_cap, size_t *out_len)
{
	gg_decode_args a;
	gsst_tile_layout l;
	size_t		work_at;
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (out_len == NULL)
		return set_error(ctx, GSST_GPU_ERR_ARG, "decode: out_len is NULL");
	*out_len = 0;
	CU(cudaEventRecord(ctx->ev_start, ctx->stream));
	rc = gg_open_device_tile(ctx, d_tile, tile_len, &a, &l, 0, &work_at,
							 (ctx->cfg.flags & GSST_GPU_FLAG_THREAD_SPLITS) != 0);
	if (rc != GSST_GPU_OK)
		return rc;
	if (out_cap < a.raw_bytes || (d_out == NULL && a.raw_bytes > 0))
		return set_error(ctx, GSST_GPU_ERR_SPACE, "decode: output of %zu bytes, need %llu",
						 out_cap, (unsigned long long) a.raw_bytes);
	a.out = (uint8_t *) d_out;
	a.out_cap = out_cap;
	if (a.nsplits > (uint64_t) INT32_MAX * (WARP_SPLIT_THREADS / 32))
		return set_error(ctx, GSST_GPU_ERR_LIMIT, "decode: too many splits");
	CU(cudaEventRecord(ctx->ev_kernel, ctx->stream));
	if (ctx->cfg.flags & GSST_GPU_FLAG_THREAD_SPLITS)
	{
		rc = gg_expand_index(ctx, d_tile, &l, &a);
		if (rc != GSST_GPU_OK)
			return rc;
		if (a.nsplits > 0)
		{
			k_decode_split<<<blocks_for(a.nsplits, DECODE_SPLIT_THREADS), DECODE_SPLIT_THREADS, 0,
				ctx->stream>>>(a, ctx->d_dec);
			CU_LAUNCH("decode kernel");
		}
	}
	else if (a.nsplits > 0 || l.version == 2)
	{
		/* a version 2 tile gets a warp even without splits: it checks the sentinel */
		unsigned	blocks = blocks_for((a.nsplits > 0 ? a.nsplits : 1) * 32, WARP_SPLIT_THREADS);

		/* the tile's offset width is a kernel parameter: see entry() */
		if (a.width == 4 && l.version == 2)
			k_decode_split_warp<4, true><<<blocks, WARP_SPLIT_THREADS, 0, ctx->stream>>>(a, ctx->d_dec);
		else if (l.version == 2)
			k_decode_split_warp<8, true><<<blocks, WARP_SPLIT_THREADS, 0, ctx->stream>>>(a, ctx->d_dec);
		else if (a.width == 4)
			k_decode_split_warp<4, false><<<blocks, WARP_SPLIT_THREADS, 0, ctx->stream>>>(a, ctx->d_dec);
		else
			k_decode_split_warp<8, false><<<blocks, WARP_SPLIT_THREADS, 0, ctx->stream>>>(a, ctx->d_dec);
		CU_LAUNCH("decode kernel");
	}
	rc = gg_finish_decode(ctx);
	ctx->stats.extra_device_bytes = ctx->fixed_bytes + work_at;
	if (rc == GSST_GPU_OK)
		*out_len = a.raw_bytes;
	return rc;
}

GG_EXPORT int
gsst_gpu_decode(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len, uint8_t *out,
				size_t out_cap, size_t *out_len)
{
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (out_len == NULL || (out == NULL && out_cap > 0))
		return set_error(ctx, GSST_GPU_ERR_ARG, "decode: NULL pointer");
	rc = gg_stage_tile(ctx, tile, tile_len);
	if (rc == GSST_GPU_OK)
		rc = ensure_buffer(ctx, &ctx->d_stage_out, &ctx->stage_out_cap, out_cap + 16);
	if (rc != GSST_GPU_OK)
		return rc;
	rc = gsst_gpu_decode_device(ctx, ctx->d_stage_in, tile_len, ctx->d_stage_out, out_cap, out_len);
	if (rc != GSST_GPU_OK)
		return rc;
	if (*out_len > 0)
		CU(cudaMemcpy(out, ctx->d_stage_out, *out_len, cudaMemcpyDeviceToHost));
	return GSST_GPU_OK;
}
