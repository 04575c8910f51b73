/*
 * gsst_gpu_decode_run.cuh - the warp run decoder that both warp decoders
 * (gsst_gpu_decode_split.cu, gsst_gpu_decode_values.cu) are built on, as
 * the codec's decode_run.h is its decoders' inner loop: a warp's output
 * stage in shared memory, the decoder table there, the lanes' output
 * accumulators, wide and narrow steps with the value start checks, and
 * where a run's codes come from (the tile, or codes gathered into shared
 * memory).  Device code, inlined into the kernels.
 */
#ifndef GSST_GPU_DECODE_RUN_CUH
#define GSST_GPU_DECODE_RUN_CUH

#include "gsst_gpu_internal.cuh"
#include "gsst_gpu_index.cuh"

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

#endif							/* GSST_GPU_DECODE_RUN_CUH */
