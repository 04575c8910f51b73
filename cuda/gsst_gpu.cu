/*
 * gsst_gpu.cu - gsst_gpu.so: GSST tile encode and decode on an NVIDIA GPU
 * (sm_90), behind the C ABI of gsst_gpu.h.
 *
 * Encode: gsst_gpu_encode.cu.
 * Decode: one warp per split, runs of encoded values decoded 16 codes per
 * lane into a shared-memory stage (cuda/NOTES.md); decode_values: a warp
 * gathers its values' codes, each through the value's own offsets, and
 * decodes them in batches with the same run decoder.  The simpler
 * one-thread-per-split and one-thread-per-value kernels stay behind
 * GSST_GPU_FLAG_*.
 *
 * The per-thread work lives in gsst_gpu_body.h, shared with the CPU
 * emulation that test/gpu checks against the codec.
 */
#include <cub/device/device_scan.cuh>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gsst_gpu_internal.cuh"
#include "gsst_gpu_common.h"

#define DECODE_SPLIT_THREADS 64

#define WARP_SPLIT_THREADS 128

#define DECODE_VALUE_THREADS 256

#define VALUES_STAGE_BYTES 1024	/* per warp, for 32 values */

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

/* ---- warp-cooperative decoding ---- */

#ifndef SPLIT_STAGE_BYTES
#define SPLIT_STAGE_BYTES 2560	/* per warp */
#endif
#ifndef SPLIT_FLUSH_AT
#define SPLIT_FLUSH_AT 1024		/* fill stays below this between steps, so a
								 * narrow step (<= 256 bytes) or a raw piece
								 * (<= 128) always fits; a wide step needs
								 * its output to fit after a flush, else the
								 * step goes narrow (symbols of ~5+ bytes) */
#endif
#define WIDE_CODES 16			/* codes per lane in a wide step */

/*
 * A warp's output stage: bytes for global addresses base + i live in
 * stg[i]; base is 16-aligned, so flushing writes whole 16-byte chunks,
 * coalesced, except at the ends of [lo, hi), which are written bytewise.
 * The split decoder keeps every stage byte at and after fill zero, so
 * lanes can OR their bytes into chunks they share.
 */
typedef struct warp_stage
{
	uint8_t    *stg;
	uintptr_t	base;
	uint32_t	fill;
	uintptr_t	lo,
				hi;
} warp_stage;

__device__ __forceinline__ void
stage_init(warp_stage *o, uint8_t *stg, uintptr_t lo, uintptr_t hi)
{
	o->stg = stg;
	o->lo = lo;
	o->hi = hi;
	o->base = lo & ~(uintptr_t) 15;
	o->fill = (uint32_t) (lo - o->base);
}

/*
 * Write out the full chunks (all of it when final); the caller synced.  A
 * non-final flush zeroes what it wrote and moves the partial last chunk to
 * the front, keeping the stage zero at and after fill.
 */
__device__ __forceinline__ void
stage_flush(warp_stage *o, unsigned lane, bool final)
{
	uint32_t	full = o->fill / 16;
	uint32_t	chunks = final ? (o->fill + 15) / 16 : full;

	if (!final && o->base >= o->lo && o->base + 16 * (uintptr_t) full <= o->hi)
	{
		/* every chunk whole and inside the output: no per-chunk checks */
		uint32_t	sa = (uint32_t) __cvta_generic_to_shared(o->stg);

		for (uint32_t k = lane; k < full; k += 32)
		{
			uint4		x;

			asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
						 : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w) : "r"(sa + 16 * k) : "memory");
			*(uint4 *) (o->base + 16 * (uintptr_t) k) = x;
			asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" :: "r"(sa + 16 * k), "r"(0u)
						 : "memory");
		}
		chunks = 0;
	}
	for (uint32_t k = lane; k < chunks; k += 32)
	{
		uintptr_t	g = o->base + 16 * (uintptr_t) k;
		uint32_t	n = o->fill - 16 * k < 16 ? o->fill - 16 * k : 16;

		if (n == 16 && g >= o->lo && g + 16 <= o->hi)
			*(uint4 *) g = *(const uint4 *) (o->stg + 16 * k);
		else
			for (uint32_t b = 0; b < n; b++)
				if (g + b >= o->lo && g + b < o->hi)
					*(uint8_t *) (g + b) = o->stg[16 * k + b];
		if (!final)
			*(uint4 *) (o->stg + 16 * k) = make_uint4(0, 0, 0, 0);
	}
	if (!final)
	{
		uint32_t	rem = o->fill - 16 * full;

		__syncwarp();
		if (lane == 0 && rem > 0 && full > 0)
		{
			uint4		t = *(const uint4 *) (o->stg + 16 * full);

			*(uint4 *) (o->stg + 16 * full) = make_uint4(0, 0, 0, 0);
			*(uint4 *) o->stg = t;
		}
		__syncwarp();
		o->base += 16 * (uintptr_t) full;
		o->fill = rem;
	}
}

/* copy stored-raw bytes codes[c, c + n) into the stage */
__device__ __forceinline__ void
stage_copy_raw(warp_stage *o, const uint8_t *codes, uint64_t c, uint64_t n, unsigned lane)
{
	while (n > 0)
	{
		uint32_t	w = n < 128 ? (uint32_t) n : 128u;

		for (uint32_t b = 4 * lane; b < 4 * lane + 4 && b < w; b++)
			o->stg[o->fill + b] = codes[c + b];
		o->fill += w;
		c += w;
		n -= w;
		__syncwarp();
		if (o->fill >= SPLIT_FLUSH_AT)
			stage_flush(o, lane, false);
	}
}

/*
 * The decoder table in shared memory, by 32-bit shared addresses.  The
 * base goes through an opaque move once, so that it stays in a register:
 * otherwise the compiler rebuilds a __shared__ variable's address from the
 * CTA id (an S2R and two more instructions) at every table lookup.
 */
struct dec_smem
{
	uint32_t	sym,
				len;

	__device__	__forceinline__ explicit dec_smem(const gg_decoder *dec)
	{
		uint32_t	b = (uint32_t) __cvta_generic_to_shared(dec);

		asm volatile("mov.b32 %0, %0;" : "+r"(b));
		sym = b + (uint32_t) offsetof(gg_decoder, symbol);
		len = b + (uint32_t) offsetof(gg_decoder, len);
	}
	__device__ __forceinline__ uint64_t symbol(uint32_t code) const
	{
		uint64_t	v;

		asm("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(sym + 8 * code));
		return v;
	}
	__device__ __forceinline__ uint32_t length(uint32_t code) const
	{
		uint32_t	v;

		asm("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(len + code));
		return v;
	}
};

/* x >> n for n in 0..64 (PTX clamps the shift: 0 for n = 64) */
__device__ __forceinline__ uint64_t
shr64_clamped(uint64_t x, uint32_t n)
{
	uint64_t	r;

	asm("shr.b64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(n));
	return r;
}

/*
 * A lane's 8-byte output accumulator over a stage whose bytes at and after
 * the lanes' output start are zero: bytes are appended at any offset, and
 * a word that fills up is stored whole, by a predicated store (no branch).
 * Only a lane's first word (which may hold earlier bytes) and its last,
 * partial word can be shared.  The first is read at the start, so its
 * store keeps the earlier bytes; an earlier lane's bytes in it, and a later
 * lane's in the last word, are OR-ed in by stage_acc8_end, which callers
 * run after a __syncwarp, so that every OR lands after every store.
 */
typedef struct stage_acc8
{
	uint32_t	at;				/* shared address of the word being filled */
	uint32_t	g;				/* bytes in u, < 8 */
	uint64_t	u;
} stage_acc8;

__device__ __forceinline__ void
stage_acc8_init(stage_acc8 *acc, uint8_t *stg, uint32_t pos)
{
	acc->at = (uint32_t) __cvta_generic_to_shared(stg) + (pos & ~7u);
	acc->g = pos & 7;
	/* an aligned start keeps nothing (and may be the stage's end) */
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tmov.b64 %0, 0;\n\t"
				 "@p ld.shared.u64 %0, [%2];\n\t}"
				 : "=l"(acc->u) : "r"(acc->g), "r"(acc->at) : "memory");
}

/* append l (1..8) bytes of sym, whose bytes above l are zero */
__device__ __forceinline__ void
stage_acc8_put(stage_acc8 *acc, uint64_t sym, uint32_t l)
{
	uint32_t	sh = 8 * acc->g;
	uint64_t	carry = shr64_clamped(sym, 64 - sh);
	uint64_t	u = acc->u | (sym << sh);
	uint32_t	g = acc->g + l; /* <= 15: bit 3 says the word is full */

	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t"
				 "@p st.shared.u64 [%1], %2;\n\t}"
				 :: "r"(g & 8), "r"(acc->at), "l"(u) : "memory");
	acc->u = (g & 8) ? carry : u;
	acc->at += g & 8;
	acc->g = g & 7;
}

/*
 * After a __syncwarp that follows every lane's puts: OR the partial last
 * word in, as two native 32-bit shared reductions (a 64-bit atomic OR on
 * shared memory is a compare-and-swap loop).
 */
__device__ __forceinline__ void
stage_acc8_end(const stage_acc8 *acc)
{
	if (acc->g > 0)
	{
		asm volatile("red.shared.or.b32 [%0], %1;" :: "r"(acc->at), "r"((uint32_t) acc->u)
					 : "memory");
		asm volatile("red.shared.or.b32 [%0], %1;" :: "r"(acc->at + 4),
					 "r"((uint32_t) (acc->u >> 32)) : "memory");
	}
}

/*
 * A wide step's two passes over a lane's kl codes (16 when FULL): the
 * symbol lengths, summed, with the running sums kept as bytes in cw; then
 * the symbols appended at the lane's place pos in the stage.
 */
template <bool FULL>
__device__ __forceinline__ uint32_t
wide_lengths(const dec_smem &dec, uint64_t w0, uint64_t w1, uint32_t kl, uint32_t cw[4],
			 bool *bad)
{
	uint32_t	sum = 0;

#pragma unroll
	for (uint32_t j = 0; j < WIDE_CODES; j++)
	{
		uint32_t	code = (uint32_t) ((j < 8 ? w0 : w1) >> (8 * (j & 7))) & 0xFF;
		bool		in = FULL || j < kl;
		uint32_t	l = in ? dec.length(code) : 0;

		*bad |= in && l == 0;
		cw[j / 4] |= sum << (8 * (j & 3));
		sum += l;
	}
	return sum;
}

template <bool FULL>
__device__ __forceinline__ void
wide_append(const dec_smem &dec, uint64_t w0, uint64_t w1, uint32_t kl, const uint32_t cw[4],
			uint32_t sum, uint8_t *stg, uint32_t pos)
{
	stage_acc8	acc;

	stage_acc8_init(&acc, stg, pos);
#pragma unroll
	for (uint32_t j = 0; j < WIDE_CODES; j++)
	{
		if (FULL || j < kl)
		{
			uint32_t	code = (uint32_t) ((j < 8 ? w0 : w1) >> (8 * (j & 7))) & 0xFF;
			/* the length from the running sums: no second table load */
			uint32_t	next = j + 1 == (FULL ? WIDE_CODES : kl) ? sum :
				(cw[(j + 1) / 4] >> (8 * ((j + 1) & 3))) & 0xFF;
			uint32_t	l = next - ((cw[j / 4] >> (8 * (j & 3))) & 0xFF);

			stage_acc8_put(&acc, dec.symbol(code), l);
		}
	}
	__syncwarp();
	stage_acc8_end(&acc);
}

/*
 * Check the starts of values *vn .. vlast-1 that lie in this step's codes
 * [cs, step_end): each must be where the output has reached exactly the
 * value's raw offset, and (narrow steps) not an escaped literal.  What
 * the first 64 starts need was loaded by the caller (Src::preload).  Output
 * offsets: base + e of the owning lane, plus, in a wide step, the owner's
 * running sum in cum.  Value starts are sorted (the run scan checked).
 */
template <class Src>
__device__ __forceinline__ int
check_value_starts(Src &src, uint64_t *vn, uint64_t vlast, typename Src::pos cs,
				   typename Src::pos step_end, typename Src::pos base, bool wide, uint32_t e,
				   const uint4 *cum, uint32_t lit_mask, const typename Src::pre &pre, unsigned lane)
{
	typedef typename Src::pos P;

	for (unsigned it = 0; *vn < vlast; it++)
	{
		uint64_t	i = *vn + lane;
		bool		inr = i < vlast;
		P			vc,
					vr;
		bool		broken = src.starts(pre, it, i, inr, &vc, &vr);
		bool		here = inr && vc < step_end;
		uint32_t	m = __ballot_sync(FULL_MASK, here);
		uint32_t	off = here && vc >= cs ? (uint32_t) (vc - cs) : 0;
		uint32_t	owner = wide ? off / WIDE_CODES : off;
		uint32_t	pos = __shfl_sync(FULL_MASK, e, owner);
		bool		bad;

		if (wide)
		{
			uint4		cw = cum[owner];
			uint32_t	j = off % WIDE_CODES;
			uint32_t	word = j < 4 ? cw.x : j < 8 ? cw.y : j < 12 ? cw.z : cw.w;

			pos += (word >> (8 * (j & 3))) & 0xFF;
		}
		bad = broken ||
			(here && (vc < cs || base + pos != vr || (!wide && ((lit_mask >> off) & 1))));
		if (__any_sync(FULL_MASK, bad))
			return GSST_ERR_LENGTH;
		*vn += __popc(m);
		src.advance(__popc(m));
		if (m != FULL_MASK)
			break;
	}
	return GSST_OK;
}

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

/*
 * Where a run's codes and its value starts come from.  src_tile: the tile
 * in global memory, value i's offsets from its index.  src_gathered: codes
 * that decode_values gathered value by value into shared memory, with
 * each value's start in the gathered codes and in the output.
 */
/* 16 code bytes in flight: two aligned chunks and the offset into them */
struct code_chunks
{
	uint64_t	x0,
				x1,
				x2,
				x3;
	unsigned	o;

	__device__ __forceinline__ void assemble(uint64_t *w0, uint64_t *w1) const
	{
		unsigned	sh = 8 * (o & 7);
		uint64_t	a = o < 8 ? x0 : x1;
		uint64_t	b = o < 8 ? x1 : x2;
		uint64_t	c = o < 8 ? x2 : x3;

		*w0 = (a >> sh) | ((b << 1) << (63 - sh));
		*w1 = (b >> sh) | ((c << 1) << (63 - sh));
	}
};

/*
 * What a step's first 64 value starts need, two windows of 32 values from
 * vn, through load(i, &x, &y); zero for a lane past vlast.
 */
template <class T, class Load>
__device__ __forceinline__ void
preload_two_windows(uint64_t vn, uint64_t vlast, unsigned lane, Load load, T *x, T *y, T *x2,
					T *y2)
{
	*x = *y = *x2 = *y2 = 0;
	if (vn + lane < vlast)
		load(vn + lane, x, y);
	if (vn + 32 + lane < vlast)
		load(vn + 32 + lane, x2, y2);
}

template <uint32_t W>
struct src_tile
{
	typedef typename pos_of<W>::type pos;
	const gg_decode_args *a;

	__device__	__forceinline__ src_tile(const gg_decode_args *args):a(args)
	{
	}
	/* the two 16-byte chunks that hold codes p .. p+15: loads only */
	__device__ __forceinline__ void fetch(uint64_t p, code_chunks *k) const
	{
		uintptr_t	at = (uintptr_t) a->codes + p;
		uintptr_t	base = at & ~(uintptr_t) 15;
		uintptr_t	lo = (uintptr_t) a->codes,
					hi = lo + a->code_bytes;

		k->o = (unsigned) (at - base);
		if (base >= lo && base + 32 <= hi)
		{
			/* one check for both chunks: the usual case */
			gg_ldg128((const uint8_t *) base, &k->x0, &k->x1);
			gg_ldg128((const uint8_t *) base + 16, &k->x2, &k->x3);
			return;
		}
		gg_load_chunk_guarded(base, lo, hi, &k->x0, &k->x1);
		gg_load_chunk_guarded(base + 16, lo, hi, &k->x2, &k->x3);
	}
	__device__ __forceinline__ void load16(uint64_t p, uint64_t *w0, uint64_t *w1) const
	{
		code_chunks k;

		fetch(p, &k);
		k.assemble(w0, w1);
	}
	__device__ __forceinline__ uint32_t byte(uint64_t p) const
	{
		return __ldg(a->codes + p);
	}

	__device__ __forceinline__ pos vc(uint64_t i) const
	{
		return entry<W>(a->comp, i);
	}
	__device__ __forceinline__ pos vr(uint64_t i) const
	{
		return entry<W>(a->raw, i);
	}

	/* a step's first 64 value starts, loaded ahead */
	struct pre
	{
		pos			vc,
					vr,
					vc2,
					vr2;
	};
	__device__ __forceinline__ void preload(uint64_t vn, uint64_t vlast, unsigned lane, pre *p) const
	{
		preload_two_windows(vn, vlast, lane, [this](uint64_t i, pos *c, pos *r) {
			*c = vc(i);
			*r = vr(i);
		}, &p->vc, &p->vr, &p->vc2, &p->vr2);
	}
	/* the starts of value i (the it-th group of 32 of a step); true: malformed */
	__device__ __forceinline__ bool starts(const pre &p, unsigned it, uint64_t i, bool inr,
										   pos *c, pos *r)
	{
		*c = it == 0 ? p.vc : it == 1 ? p.vc2 : inr ? vc(i) : 0;
		*r = it == 0 ? p.vr : it == 1 ? p.vr2 : inr ? vr(i) : 0;
		return false;
	}
	/* the group's first n values are done */
	__device__ __forceinline__ void advance(unsigned n)
	{
		(void) n;
	}
};

/*
 * A version 2 tile's codes, its value starts from a cursor (the start of
 * the next value whose start is asked for): the step's first 64 values'
 * length bytes are loaded ahead.
 */
template <uint32_t W>
struct src_tile_v2 : src_tile<W>
{
	typedef typename pos_of<W>::type pos;
	v2_cursor<pos> cur;
	v2_group<pos> g;

	__device__	__forceinline__ src_tile_v2(const gg_decode_args *args, const v2_cursor<pos> &at)
		: src_tile<W>(args), cur(at)
	{
	}
	/*
	 * The length bytes as loaded: packed where the step's decode already
	 * waits on them, the warp would wait on the loads at the step's start
	 * (ptxas keeps a use in the load's own block).
	 */
	struct pre
	{
		uint32_t	cl,
					rl,
					cl2,
					rl2;
	};
	__device__ __forceinline__ void preload(uint64_t vn, uint64_t vlast, unsigned lane, pre *p) const
	{
		const gg_decode_args *args = this->a;

		preload_two_windows(vn, vlast, lane, [args](uint64_t i, uint32_t *cl, uint32_t *rl) {
			*cl = __ldg(args->clens + i);
			*rl = __ldg(args->rlens + i);
		}, &p->cl, &p->rl, &p->cl2, &p->rl2);
	}
	__device__ __forceinline__ bool starts(const pre &p, unsigned it, uint64_t i, bool inr,
										   pos *c, pos *r)
	{
		uint32_t	pk = it == 0 ? p.cl | p.rl << 16 : it == 1 ? p.cl2 | p.rl2 << 16 :
			inr ? v2_packed(this->a, i) : 0;

		v2_group_of<W>(this->a, cur, pk, threadIdx.x & 31, &g);
		*c = g.c0;
		*r = g.r0;
		return inr && g.bad;
	}
	__device__ __forceinline__ void advance(unsigned n)
	{
		if (n > 0)
			v2_advance(&cur, g, n);
	}
};

struct src_gathered
{
	/* offsets in shared memory: nothing to load early */
	typedef uint32_t pos;
	const uint8_t *buf;			/* 16-aligned, readable 32 bytes past the codes */
	const uint32_t *vcs;		/* value k starts at buf[vcs[k]] */
	const uint32_t *vrs;		/* ... and at output byte vrs[k] of the batch */

	__device__ __forceinline__ void fetch(uint64_t p, code_chunks *k) const
	{
		uint32_t	base = (uint32_t) p & ~15u;
		uint4		x = *(const uint4 *) (buf + base);
		uint4		y = *(const uint4 *) (buf + base + 16);

		k->o = (unsigned) p & 15u;
		k->x0 = ((uint64_t) x.y << 32) | x.x;
		k->x1 = ((uint64_t) x.w << 32) | x.z;
		k->x2 = ((uint64_t) y.y << 32) | y.x;
		k->x3 = ((uint64_t) y.w << 32) | y.z;
	}
	__device__ __forceinline__ void load16(uint64_t p, uint64_t *w0, uint64_t *w1) const
	{
		code_chunks k;

		fetch(p, &k);
		k.assemble(w0, w1);
	}
	__device__ __forceinline__ uint32_t byte(uint64_t p) const
	{
		return buf[p];
	}

	__device__ __forceinline__ pos vc(uint64_t k) const
	{
		return vcs[k];
	}
	__device__ __forceinline__ pos vr(uint64_t k) const
	{
		return vrs[k];
	}

	struct pre
	{
	};
	__device__ __forceinline__ void preload(uint64_t, uint64_t, unsigned, pre *) const
	{
	}
	__device__ __forceinline__ bool starts(const pre &, unsigned, uint64_t i, bool inr, pos *c,
										   pos *r) const
	{
		*c = inr ? vc(i) : 0;
		*r = inr ? vr(i) : 0;
		return false;
	}
	__device__ __forceinline__ void advance(unsigned) const
	{
	}
};

/*
 * Decode the code run [c, c_end) of consecutive encoded values (the first
 * one, value vn - 1, may have begun before c) to exactly expect bytes into
 * the stage, and check the starts of values vn .. vlast-1 on the way.
 *
 * Wide steps (no escape among the next <= 512 codes): lane L decodes its
 * own 16 codes through a 16-byte accumulator, writing whole chunks it owns
 * plainly and chunks it shares with its neighbours by atomic OR; its place
 * comes from a warp prefix sum of the lanes' output lengths.  Otherwise a
 * narrow step of 32 codes, one per lane, with escapes resolved by a scan
 * of the ballot.  Returns a gsst_status (warp-uniform).
 */
template <class Src>
__device__ __forceinline__ int
warp_decode_run(const dec_smem &dec, Src &src, warp_stage *o, uint4 *cum,
				typename Src::pos c, typename Src::pos c_end, typename Src::pos r,
				typename Src::pos expect, uint64_t vn, uint64_t vlast, unsigned lane)
{
	typedef typename Src::pos P;
	P			produced = 0;
	uint32_t	carry = 0;		/* the next byte is an escaped literal */
	int			rc;

	while (c < c_end)
	{
		/* the first value starts to check, loaded early: the step hides the latency */
		typename Src::pre pre;

		src.preload(vn, vlast, lane, &pre);
		if (!carry)
		{
			P			left = c_end - c;
			uint32_t	n = left < 32 * WIDE_CODES ? (uint32_t) left : 32 * WIDE_CODES;
			uint32_t	first = WIDE_CODES * lane;
			uint32_t	kl = n > first ? (n - first < WIDE_CODES ? n - first : WIDE_CODES) : 0;
			uint64_t	w0 = 0,
						w1 = 0;

			if (kl > 0)
			{
				src.load16(c + first, &w0, &w1);
				w0 &= gg_low_mask(kl < 8 ? kl : 8);
				w1 &= gg_low_mask(kl > 8 ? kl - 8 : 0);
			}
			/* any byte 0xFF (an escape) among the lane's codes; a bool for the vote */
			if (!__any_sync(FULL_MASK, ((((~w0 - 0x0101010101010101ull) & w0) |
										 ((~w1 - 0x0101010101010101ull) & w1)) &
										0x8080808080808080ull) != 0))
			{
				uint32_t	cw[4] = {0, 0, 0, 0};
				uint32_t	sum,
							total,
							e;
				bool		bad = false;
				bool		full = n == 32 * WIDE_CODES;	/* every lane has 16 codes */

				sum = full ? wide_lengths<true>(dec, w0, w1, kl, cw, &bad) :
					wide_lengths<false>(dec, w0, w1, kl, cw, &bad);
				if (__any_sync(FULL_MASK, bad))
					return GSST_ERR_BAD_CODE;
				e = warp_exclusive_sum(sum, lane, &total);
				if (produced + total > expect)
					return GSST_ERR_LENGTH;
				if (total > SPLIT_STAGE_BYTES - 16)
					goto narrow;
				if (o->fill + total > SPLIT_STAGE_BYTES)
					stage_flush(o, lane, false);
				cum[lane] = make_uint4(cw[0], cw[1], cw[2], cw[3]);
				if (full)
					wide_append<true>(dec, w0, w1, kl, cw, sum, o->stg, o->fill + e);
				else
					wide_append<false>(dec, w0, w1, kl, cw, sum, o->stg, o->fill + e);
				__syncwarp();
				rc = check_value_starts(src, &vn, vlast, c, c + n, r + produced, true, e, cum, 0,
										pre, lane);
				if (rc != GSST_OK)
					return rc;
				o->fill += total;
				produced += total;
				c += n;
				__syncwarp();
				/* keep fill below FLUSH_AT between steps: narrow steps rely on it */
				if (o->fill >= SPLIT_FLUSH_AT)
					stage_flush(o, lane, false);
				continue;
			}
		}
narrow:
		{
			uint32_t	w = c_end - c < 32 ? (uint32_t) (c_end - c) : 32u;
			bool		in = lane < w;
			uint32_t	byte = in ? src.byte(c + lane) : 0;
			uint32_t	esc_mask = __ballot_sync(FULL_MASK, in && byte == GSST_ESCAPE);
			uint32_t	lit_mask = 0;
			uint32_t	len,
						total,
						excl;
			uint64_t	sym;
			bool		is_lit,
						is_esc;

			if (esc_mask | carry)
			{
				/* which bytes are literals: a plain scan */
				uint32_t	lit = carry;

				for (uint32_t i = 0; i < w; i++)
				{
					if (lit)
					{
						lit_mask |= 1u << i;
						lit = 0;
					}
					else if ((esc_mask >> i) & 1)
						lit = 1;
				}
				carry = lit;
			}
			is_lit = (lit_mask >> lane) & 1;
			is_esc = ((esc_mask >> lane) & 1) && !is_lit;
			if (!in || is_esc)
			{
				len = 0;
				sym = 0;
			}
			else if (is_lit)
			{
				len = 1;
				sym = byte;
			}
			else
			{
				len = dec.length(byte);
				sym = dec.symbol(byte);
			}
			if (__ballot_sync(FULL_MASK, in && !is_lit && !is_esc && len == 0))
				return GSST_ERR_BAD_CODE;
			excl = warp_exclusive_sum(len, lane, &total);
			if (produced + total > expect)
				return GSST_ERR_LENGTH;
			rc = check_value_starts(src, &vn, vlast, c, c + w, r + produced, false, excl, cum,
									lit_mask, pre, lane);
			if (rc != GSST_OK)
				return rc;
			for (uint32_t b = 0; b < len; b++)
				o->stg[o->fill + excl + b] = (uint8_t) (sym >> (8 * b));
			o->fill += total;
			produced += total;
			c += w;
			__syncwarp();
			if (o->fill >= SPLIT_FLUSH_AT)
				stage_flush(o, lane, false);
		}
	}
	if (carry)
		return GSST_ERR_DANGLING_ESCAPE;
	if (produced != expect)
		return GSST_ERR_LENGTH;
	/* values left start at the run's end: empty values */
	while (vn < vlast)
	{
		uint64_t	i = vn + lane;
		bool		inr = i < vlast;
		typename Src::pre none = {};
		P			vc,
					vr;
		bool		broken = src.starts(none, 2, i, inr, &vc, &vr);
		bool		bad = inr && (broken || vc != c_end || vr != r + expect);

		if (__any_sync(FULL_MASK, bad))
			return GSST_ERR_LENGTH;
		src.advance(vlast - vn < 32 ? (unsigned) (vlast - vn) : 32u);
		vn += 32;
	}
	return GSST_OK;
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

/* ---- decode ---- */

/*
 * Read and check the tile header and table; fill args and upload the
 * decoder.  With expand, the workspace gets room for a version 2 tile's
 * index as version 1 entries (expand_index: the simple kernels read only
 * those); then work_after bytes more from *work_at on.
 */
static int
open_device_tile(gsst_gpu *ctx, const void *d_tile, size_t tile_len, gg_decode_args *a,
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
 * that the decoders read (open_device_tile placed them).  Part of the
 * decode's kernel time.
 */
static int
expand_index(gsst_gpu *ctx, const void *d_tile, const gsst_tile_layout *l, const gg_decode_args *a)
{
	if (l->version != 2)
		return GSST_GPU_OK;
	k_v2_expand<<<blocks_for((l->nblocks > 0 ? l->nblocks : 1) * 32, V2_THREADS), V2_THREADS, 0,
		ctx->stream>>>(
		(const uint8_t *) d_tile, *l, a->raw_bytes, (uint8_t *) a->comp, (uint8_t *) a->raw, a->err);
	CU_LAUNCH("index expand kernel");
	return GSST_GPU_OK;
}

static int
finish_decode(gsst_gpu *ctx)
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
	rc = open_device_tile(ctx, d_tile, tile_len, &a, &l, 0, &work_at,
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
		rc = expand_index(ctx, d_tile, &l, &a);
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
	rc = finish_decode(ctx);
	ctx->stats.extra_device_bytes = ctx->fixed_bytes + work_at;
	if (rc == GSST_GPU_OK)
		*out_len = a.raw_bytes;
	return rc;
}

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
	rc = open_device_tile(ctx, d_tile, tile_len, &a, &l,
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
			rc = expand_index(ctx, d_tile, &l, &a);
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
			rc = expand_index(ctx, d_tile, &l, &a);
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
	return finish_decode(ctx);
}

/* ---- host-memory API: stage through device buffers ---- */

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

static int
stage_tile(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len)
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

GG_EXPORT int
gsst_gpu_decode(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len, uint8_t *out,
				size_t out_cap, size_t *out_len)
{
	int			rc = check_ctx(ctx);

	if (rc != GSST_GPU_OK)
		return rc;
	if (out_len == NULL || (out == NULL && out_cap > 0))
		return set_error(ctx, GSST_GPU_ERR_ARG, "decode: NULL pointer");
	rc = stage_tile(ctx, tile, tile_len);
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
	rc = stage_tile(ctx, tile, tile_len);
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
