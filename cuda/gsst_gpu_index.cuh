/*
 * gsst_gpu_index.cuh - how the warp decoders read a tile's value index:
 * offset entries of a width known at compile time (version 1), and a
 * warp's cursor over a version 2 index, with the checks of its blocks and
 * its ends.  Device code, inlined into the kernels.
 */
#ifndef GSST_GPU_INDEX_CUH
#define GSST_GPU_INDEX_CUH

#include "gsst_gpu_internal.cuh"

/*
 * An offset entry with the width known at compile time: the load's result
 * is not touched until it is used, so its latency overlaps other work (a
 * run-time width made the compiler wait right after each load, to widen).
 */
/*
 * Offsets and positions inside a tile: 32-bit where its index entries are
 * (the header parser holds such a tile's values and bytes below 2^32), so
 * that the decoders' compares and sums are single instructions.  Value
 * indices stay 64-bit.
 */
template <uint32_t W>
struct pos_of
{
	typedef uint64_t type;
};
template <>
struct pos_of<4>
{
	typedef uint32_t type;
};

template <uint32_t W>
__device__ __forceinline__ typename pos_of<W>::type
entry(const uint8_t *base, uint64_t i)
{
	if (W == 4)
		return __ldg((const unsigned int *) base + i);
	return __ldg((const unsigned long long *) base + i);
}

/*
 * ---- reading a version 2 index directly ----
 *
 * A warp walks consecutive values with a cursor: the start (comp, raw) of
 * its next value and the index of its first long entry.  A group of 32
 * values, one per lane, gets its offsets from the cursor and a warp scan of
 * their length bytes: one scan of cl | rl << 16 when no value of the group
 * is long (32 x 254 fits 16 bits), else two scans of the lengths, long
 * values taking theirs from the long list.  The kernels check every rule
 * of the index (lengths, long entries, block sums, the sentinels) on the
 * blocks they read, each block once (v2_check_blocks); the decoders need
 * only what keeps them inside the tile and the output: a long entry that
 * exists, and sums that do not wrap.
 */

/* value i's length bytes as cl | rl << 16; 0 for i >= N */
__device__ __forceinline__ uint32_t
v2_packed(const gg_decode_args *a, uint64_t i)
{
	if (i >= a->n)
		return 0;
	return (uint32_t) __ldg(a->clens + i) | (uint32_t) __ldg(a->rlens + i) << 16;
}

/*
 * The same, unpacked, for loads whose use is in a later block: loaded from
 * a clamped index, with no branch or select here, so that nothing waits
 * on the load before its use; the use zeroes a lane past N (*in false).
 */
__device__ __forceinline__ void
v2_load_lengths(const gg_decode_args *a, uint64_t i, uint32_t *cl, uint32_t *rl, bool *in)
{
	uint64_t	j = i < a->n ? i : (a->n > 0 ? a->n - 1 : 0);

	*in = i < a->n;
	*cl = __ldg(a->clens + j);
	*rl = __ldg(a->rlens + j);
}

template <class P>
struct v2_cursor
{
	P			c,
				r,
				k;
};

/* the offsets of the 32 values from a cursor's, one per lane */
template <class P>
struct v2_group
{
	P			c0,
				r0,
				c1,
				r1;
	uint32_t	longs;			/* ballot of long values */
	bool		bad;			/* this lane: its long entry missing or broken, or a sum wrapped */
};

template <class P>
__device__ __forceinline__ P
warp_exclusive_sum_p(P x, unsigned lane)
{
	if (sizeof(P) == 4)
	{
		uint32_t	total;

		return (P) warp_exclusive_sum((uint32_t) x, lane, &total);
	}
	return (P) warp_exclusive_sum64((uint64_t) x, lane);
}

template <uint32_t W>
__device__ __forceinline__ void
v2_group_of(const gg_decode_args *a, const v2_cursor<typename pos_of<W>::type> &cur, uint32_t pk,
			unsigned lane, v2_group<typename pos_of<W>::type> *g)
{
	typedef typename pos_of<W>::type P;
	uint32_t	cl8 = pk & 0xFF,
				rl8 = pk >> 16;
	bool		is_long = rl8 == GSST_TILE_LONG;

	g->longs = __ballot_sync(FULL_MASK, is_long);
	g->bad = false;
	if (g->longs == 0)
	{
		uint32_t	ex = warp_exclusive_scan(pk, lane);

		g->c0 = cur.c + (P) (ex & 0xFFFF);
		g->r0 = cur.r + (P) (ex >> 16);
		g->c1 = g->c0 + (P) cl8;
		g->r1 = g->r0 + (P) rl8;
	}
	else
	{
		P			cl = cl8,
					rl = rl8;

		if (is_long)
		{
			P			kk = cur.k + (P) __popc(g->longs & ((1u << lane) - 1));

			if (cl8 != GSST_TILE_LONG || kk >= a->layout.nlongs)
			{
				g->bad = true;
				cl = rl = 0;
			}
			else
			{
				const uint8_t *e = a->tile + a->layout.longs_at + (uint64_t) kk * 2 * W;

				cl = (P) entry<W>(e, 0);
				rl = (P) entry<W>(e, 1);
				g->bad = rl < GSST_TILE_LONG || cl > rl;
			}
		}
		g->c0 = cur.c + warp_exclusive_sum_p<P>(cl, lane);
		g->r0 = cur.r + warp_exclusive_sum_p<P>(rl, lane);
		g->c1 = g->c0 + cl;
		g->r1 = g->r0 + rl;
	}
	/* the first lane whose sum passes 2^(8W) wraps in its own add */
	g->bad |= g->c1 < g->c0 || g->r1 < g->r0;
}

/* move the cursor past the group's first n values (1..32, warp-uniform) */
template <class P>
__device__ __forceinline__ void
v2_advance(v2_cursor<P> *cur, const v2_group<P> &g, unsigned n)
{
	cur->c = __shfl_sync(FULL_MASK, g.c1, n - 1);
	cur->r = __shfl_sync(FULL_MASK, g.r1, n - 1);
	cur->k += (P) __popc(n >= 32 ? g.longs : g.longs & ((1u << n) - 1));
}

/* block b's entry, field f (0 comp, 1 raw, 2 long) */
template <uint32_t W>
__device__ __forceinline__ uint64_t
v2_block_field(const gg_decode_args *a, uint64_t b, unsigned f)
{
	return entry<W>(a->tile + a->layout.blocks_at, 3 * b + f);
}

/* 4 bytes from p on, as a little-endian word (p may be unaligned; p + 7 readable) */
__device__ __forceinline__ uint32_t
v2_load4(const uint8_t *p)
{
	uintptr_t	at = (uintptr_t) p;
	const uint32_t *w = (const uint32_t *) (at & ~(uintptr_t) 3);

	if ((at & 3) == 0)
		return __ldg(w);
	return __funnelshift_r(__ldg(w), __ldg(w + 1), 8 * (unsigned) (at & 3));
}

/*
 * The cursor at value v (<= N): its block's entry, then the values of the
 * block before v.  Returns false (warp-uniform) when the entry lies beyond
 * the tile's sizes or a value's lengths are unreadable.  Where none of
 * those values is long, their lengths are loaded beside the entry, 4 a
 * lane, and summed in SIMD bytes (at most 127 x 255 each: 16 bits), one
 * memory round trip in all; else group by group.
 */
template <uint32_t W>
__device__ __forceinline__ bool
v2_seek(const gg_decode_args *a, uint64_t v, unsigned lane, v2_cursor<typename pos_of<W>::type> *cur)
{
	typedef typename pos_of<W>::type P;
	uint64_t	b = v / GSST_TILE_BLOCK_VALUES,
				u = b * GSST_TILE_BLOCK_VALUES;
	uint64_t	c = v2_block_field<W>(a, b, 0),
				r = v2_block_field<W>(a, b, 1),
				k = v2_block_field<W>(a, b, 2);
	uint64_t	first = u + 4 * lane;
	uint32_t	cl = 0,
				rl = 0;
	bool		ok;

	if (first < v)
	{
		uint32_t	count = v - first < 4 ? (uint32_t) (v - first) : 4u;
		uint32_t	keep = count == 4 ? 0xFFFFFFFFu : (1u << (8 * count)) - 1;

		cl = v2_load4(a->clens + first) & keep;
		rl = v2_load4(a->rlens + first) & keep;
	}
	ok = c <= a->code_bytes && r <= a->raw_bytes && k <= a->layout.nlongs;
	if (!__any_sync(FULL_MASK, __vcmpeq4(rl, 0xFFFFFFFFu) != 0))
	{
		uint32_t	sums = __reduce_add_sync(FULL_MASK, __vsadu4(cl, 0) | __vsadu4(rl, 0) << 16);

		c += sums & 0xFFFF;
		r += sums >> 16;
		cur->c = (P) c;
		cur->r = (P) r;
		cur->k = (P) k;
		/* a sum past P: where the group by group walk finds a wrap */
		return ok && (uint64_t) cur->c == c && (uint64_t) cur->r == r;
	}
	cur->c = (P) c;
	cur->r = (P) r;
	cur->k = (P) k;
	while (ok && u < v)
	{
		unsigned	n = v - u < 32 ? (unsigned) (v - u) : 32u;
		v2_group<P> g;

		v2_group_of<W>(a, *cur, lane < n ? v2_packed(a, u + lane) : 0, lane, &g);
		ok = !__any_sync(FULL_MASK, g.bad);
		v2_advance(cur, g, n);
		u += n;
	}
	return ok;
}

/* block b value by value (v2_check_blocks) */
__device__ __forceinline__ void
v2_check_block_slow(const gg_decode_args *a, uint64_t b, unsigned lane)
{
	const gsst_tile_layout *l = &a->layout;
	uint64_t	c0,
				r0,
				k0,
				code_sum,
				raw_sum,
				first;
	uint32_t	total;
	uint32_t	longs = gg_v2_expand_lane_longs(a->tile, l, b, lane);
	uint32_t	count = gg_v2_lane_values(l, b, lane, &first);
	uint64_t	block_end = b * GSST_TILE_BLOCK_VALUES + GSST_TILE_BLOCK_VALUES;
	uint64_t	long_at,
				ce,
				re;
	int			bad;

	gg_v2_block_start(a->tile, l, b, &c0, &r0, &k0);
	long_at = k0 + warp_exclusive_sum(longs, lane, &total);
	bad = gg_v2_expand_lane_sums(a->tile, l, a->raw_bytes, b, lane, long_at, &code_sum, &raw_sum);
	ce = c0 + warp_exclusive_sum64(code_sum, lane) + code_sum;
	re = r0 + warp_exclusive_sum64(raw_sum, lane) + raw_sum;
	if (block_end > l->nvalues)
		block_end = l->nvalues;
	if (count > 0 && first + count == block_end)
		bad |= ce != gsst_tile_block_field(a->tile, l, b + 1, 0) ||
			re != gsst_tile_block_field(a->tile, l, b + 1, 1) ||
			long_at + longs != gsst_tile_block_field(a->tile, l, b + 1, 2);
	if (__any_sync(FULL_MASK, bad))
	{
		if (lane == 0)
			gg_set_error(a->err, GSST_ERR_OFFSET, 2, b * GSST_TILE_BLOCK_VALUES);
	}
}

/*
 * Block b without long values, a lane per 4 values in SIMD bytes: no raw
 * length byte 255, no code length above its raw length, and the block's
 * sums from its entry give the next entry (the long field unchanged).
 * Returns 1 when the block breaks a rule, 0 when it is good, -1 when it
 * has long values (or R < 254, where a length byte may pass R): the
 * caller then checks it value by value.  Warp-uniform.  From block 0's
 * (0, 0, 0) on, entries that are sums of such lengths never wrap, and the
 * sentinel (C, R, L) bounds them all, as gsst_tile_open's checks do.
 */
template <uint32_t W>
__device__ __forceinline__ int
v2_check_block_fast(const gg_decode_args *a, uint64_t b, unsigned lane)
{
	uint64_t	first = b * GSST_TILE_BLOCK_VALUES + 4 * lane;
	uint32_t	cl = 0,
				rl = 0;
	uint64_t	lo = 0,
				hi = 0;
	bool		bad;

	if (a->raw_bytes < GSST_TILE_LONG - 1)
		return -1;
	/* lane f < 3: field f of the block's entry and the next, beside the lengths */
	if (lane < 3)
	{
		lo = v2_block_field<W>(a, b, lane);
		hi = v2_block_field<W>(a, b + 1, lane);
	}
	if (first < a->n)
	{
		uint32_t	count = a->n - first < 4 ? (uint32_t) (a->n - first) : 4u;
		uint32_t	keep = count == 4 ? 0xFFFFFFFFu : (1u << (8 * count)) - 1;

		cl = v2_load4(a->clens + first) & keep;
		rl = v2_load4(a->rlens + first) & keep;
	}
	if (__any_sync(FULL_MASK, __vcmpeq4(rl, 0xFFFFFFFFu) != 0))
		return -1;
	bad = __vcmpgtu4(cl, rl) != 0;
	{
		/* at most 128 x 255 each: both sums in one reduction */
		uint32_t	sums = __reduce_add_sync(FULL_MASK, __vsadu4(cl, 0) | __vsadu4(rl, 0) << 16);

		if (lane < 3)
			bad |= lo + (lane == 0 ? sums & 0xFFFF : lane == 1 ? sums >> 16 : 0) != hi;
	}
	return __any_sync(FULL_MASK, bad) ? 1 : 0;
}

/*
 * Blocks b and b + 1 (b + 1 < nblocks) as v2_check_block_fast, in one
 * memory round trip: a lane loads 4 values of each, and lanes 0-5 the
 * fields of the three entries (lane 3h + f: field f of blocks b + h and
 * b + h + 1); each block's two sums (at most 128 x 255: 16 bits) share a
 * reduction with the other block's.  Returns 0 when both are good, else
 * -1: the caller then checks them one by one.  Warp-uniform.
 */
template <uint32_t W>
__device__ __forceinline__ int
v2_check_pair_fast(const gg_decode_args *a, uint64_t b, unsigned lane)
{
	uint32_t	cl0 = 0,
				rl0 = 0,
				cl1 = 0,
				rl1 = 0;
	uint64_t	lo = 0,
				hi = 0;
	uint64_t	first = b * GSST_TILE_BLOCK_VALUES + 4 * lane;
	bool		bad = false;

	if (a->raw_bytes < GSST_TILE_LONG - 1)
		return -1;
	if (lane < 6)
	{
		uint64_t	bb = b + lane / 3;

		lo = v2_block_field<W>(a, bb, lane % 3);
		hi = v2_block_field<W>(a, bb + 1, lane % 3);
	}
	/* block b is whole: b + 1 exists */
	cl0 = v2_load4(a->clens + first);
	rl0 = v2_load4(a->rlens + first);
	first += GSST_TILE_BLOCK_VALUES;
	if (first < a->n)
	{
		uint32_t	count = a->n - first < 4 ? (uint32_t) (a->n - first) : 4u;
		uint32_t	keep = count == 4 ? 0xFFFFFFFFu : (1u << (8 * count)) - 1;

		cl1 = v2_load4(a->clens + first) & keep;
		rl1 = v2_load4(a->rlens + first) & keep;
	}
	if (__any_sync(FULL_MASK, (__vcmpeq4(rl0, 0xFFFFFFFFu) | __vcmpeq4(rl1, 0xFFFFFFFFu)) != 0))
		return -1;
	bad = (__vcmpgtu4(cl0, rl0) | __vcmpgtu4(cl1, rl1)) != 0;
	{
		uint32_t	sc = __reduce_add_sync(FULL_MASK, __vsadu4(cl0, 0) | __vsadu4(cl1, 0) << 16);
		uint32_t	sr = __reduce_add_sync(FULL_MASK, __vsadu4(rl0, 0) | __vsadu4(rl1, 0) << 16);

		if (lane < 6)
		{
			unsigned	f = lane % 3,
						sh = lane < 3 ? 0 : 16;
			uint64_t	want = f == 0 ? (sc >> sh) & 0xFFFF : f == 1 ? (sr >> sh) & 0xFFFF : 0;

			bad |= lo + want != hi;
		}
	}
	return __any_sync(FULL_MASK, bad) ? -1 : 0;
}

/*
 * Check blocks [b0, b1) as gsst_tile_open does (every value's lengths and
 * long entry, and each block adding up to the next one's entry): blocks
 * without long values in SIMD bytes, others a lane per 4 values through
 * the codec's rules; the first failing block goes to the error record.
 */
template <uint32_t W>
__device__ __forceinline__ void
v2_check_blocks(const gg_decode_args *a, uint64_t b0, uint64_t b1, unsigned lane)
{
	const gsst_tile_layout *l = &a->layout;

	if (b1 > l->nblocks)
		b1 = l->nblocks;
	for (uint64_t b = b0; b < b1; b++)
	{
		int			fast;

		if (b + 1 < b1 && v2_check_pair_fast<W>(a, b, lane) == 0)
		{
			b++;
			continue;
		}
		fast = v2_check_block_fast<W>(a, b, lane);

		if (fast == 0)
			continue;
		if (fast == 1)
		{
			if (lane == 0)
				gg_set_error(a->err, GSST_ERR_OFFSET, 2, b * GSST_TILE_BLOCK_VALUES);
			return;
		}
		v2_check_block_slow(a, b, lane);
	}
}

/*
 * What ties the index to the header (lane 0 of one warp): block 0 is
 * (0, 0, 0) and the sentinel entry (C, R, L); with splits, split 0 is
 * (0, 0, 0) and the split sentinel (N, C, R), so that the splits' values
 * cover every block.
 */
__device__ __forceinline__ void
v2_check_ends(const gg_decode_args *a, bool splits)
{
	const gsst_tile_layout *l = &a->layout;
	bool		bad = gsst_tile_block_field(a->tile, l, 0, 0) != 0 ||
		gsst_tile_block_field(a->tile, l, 0, 1) != 0 || gsst_tile_block_field(a->tile, l, 0, 2) != 0 ||
		gsst_tile_block_field(a->tile, l, l->nblocks, 0) != a->code_bytes ||
		gsst_tile_block_field(a->tile, l, l->nblocks, 1) != a->raw_bytes ||
		gsst_tile_block_field(a->tile, l, l->nblocks, 2) != l->nlongs;

	if (!bad && splits && a->nsplits > 0)
	{
		uint64_t	v,
					c,
					r;

		gg_read_split(a, 0, &v, &c, &r);
		bad = v != 0 || c != 0 || r != 0;
		gg_read_split(a, a->nsplits, &v, &c, &r);
		bad |= v != a->n || c != a->code_bytes || r != a->raw_bytes;
	}
	if (bad)
		gg_set_error(a->err, GSST_ERR_OFFSET, 2, 0);
}

#endif							/* GSST_GPU_INDEX_CUH */
