/*
 * gsst_gpu_body.h - the per-thread work of every gsst GPU kernel.
 *
 * Written in the common subset of C11 and CUDA C so that the same bodies
 * run in the kernels (gsst_gpu_*.cu) and, one "thread" after another, in the
 * CPU emulation of test/gpu, which checks the whole GPU pipeline against
 * the codec on machines with no GPU.  Device-only details (read-only
 * cached loads, 16-byte accesses, atomics) sit behind __CUDA_ARCH__.
 *
 * Memory-safety rule for every body: reads stay inside the ranges the
 * caller names (input data, tile code area), writes inside the caller's
 * output range; loads that would cross a range end fall back to bytes.
 */
#ifndef GSST_GPU_BODY_H
#define GSST_GPU_BODY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gsst_codec.h"
#include "tile_layout.h"

#ifdef __CUDACC__
#define GG_FN static __host__ __device__ __forceinline__
#else
#define GG_FN static inline
#endif

#define GG_SEG GSST_SEGMENT_BYTES
#define GG_NO_INDEX UINT64_MAX

/* ---- structures shared by host and device ---- */

/* The codec's encoder state, as the kernels keep it in shared memory. */
typedef struct gg_encoder
{
	uint32_t	long_hash[GSST_HASH_BUCKETS * GSST_HASH_WAYS];
	uint32_t	pair_hash[GSST_HASH_BUCKETS * GSST_HASH_WAYS];
	uint64_t	symbol[256];
	uint8_t		len[256];		/* len[GSST_ESCAPE] = 0 */
	uint8_t		byte_code[256];
} gg_encoder;

typedef struct gg_decoder
{
	uint64_t	symbol[256];
	uint8_t		len[256];		/* 0: unused code (and the escape) */
} gg_decoder;

/* unit flags */
#define GG_HAS_LEAD   1u		/* starts inside a value (segment > 0) */
#define GG_HAS_TRAIL  2u		/* ends inside a value it starts */
#define GG_LEAD_OVER  4u		/* lead codes longer than its raw bytes */
#define GG_TRAIL_OVER 8u

/*
 * One encoder work unit: the pieces from the first piece at or after
 * u * unit_bytes up to the next unit's first piece.  Its scratch area holds
 * [lead codes][whole values, final bytes][trail codes].  A value that
 * crosses units (only values longer than a segment can) is encoded in
 * parts; resolve decides raw or encoded once all parts are counted.
 */
typedef struct gg_unit
{
	uint64_t	first_value;
	uint64_t	end_value;		/* value of the next unit's first piece, or n */
	uint64_t	raw_start;		/* raw offset of the first piece (batch relative) */
	uint32_t	first_seg;
	uint32_t	end_seg;
	uint32_t	lead_codes;		/* exact code bytes of the lead piece */
	uint32_t	lead_raw;
	uint32_t	whole_bytes;
	uint32_t	trail_codes;
	uint32_t	trail_raw;
	uint32_t	flags;
	/* set by resolve: the lead's by the unit owning its value, the rest by
	 * the unit itself (separate words: two threads write one record) */
	uint32_t	lead_final;		/* bytes in the tile: codes, or raw */
	uint32_t	lead_is_raw;
	uint32_t	trail_final;
	uint32_t	trail_is_raw;
} gg_unit;

/* where a unit starts: its first piece (value, segment) */
typedef struct gg_piece
{
	uint64_t	value;
	uint32_t	seg;
	uint32_t	pad;
} gg_piece;

typedef struct gg_encode_args
{
	const uint8_t *data;
	const uint64_t *off;
	const gg_encoder *enc_global;	/* for the rare re-encode in compaction */
	uint64_t	n;
	uint64_t	off0;
	uint64_t	off_end;		/* off[n] */
	uint64_t	nunits;
	uint64_t	unit_bytes;
	uint64_t	units_per_split;
	uint64_t	nsplits;
	uint64_t	raw_bytes;
	uint32_t	width;
	uint8_t    *scratch;		/* in the tile's code area (see the plan) */
	uint64_t	scratch_bytes;
	uint8_t    *temp;			/* compaction goes through it, a chunk at a time */
	uint64_t	temp_bytes;
	uint8_t    *tile;
	gsst_tile_layout layout;	/* up to the code area */
	uint8_t    *comp_entries;	/* N + 1 comp offsets: the tile's (v1) or a side array (v2) */
	uint8_t    *raw_entries;	/* N + 1 raw offsets: the same */
	uint64_t	index_at;		/* the header region ends at the index */
	uint64_t	splits_at;
	uint64_t	splits_end;
	uint64_t	codes_at;
	gg_unit    *units;
	gg_piece   *starts;			/* nunits + 1 unit starts (gg_plan_unit) */
	uint64_t   *sizes;			/* final bytes per unit */
	uint64_t   *bases;			/* exclusive prefix sum of sizes */
	uint64_t   *code_bytes_out;	/* C, for the host */
	const uint8_t *prefix;		/* header + table + padding, [0, index_at) */
} gg_encode_args;

typedef struct gg_error
{
	int32_t		code;			/* first gsst_status seen, 0 = none */
	int32_t		kind;			/* 1 split, 2 value */
	uint64_t	where;
} gg_error;

typedef struct gg_decode_args
{
	const uint8_t *comp;
	const uint8_t *raw;
	const uint8_t *splits;
	const uint8_t *codes;
	uint64_t	n;
	uint64_t	nsplits;
	uint64_t	raw_bytes;
	uint64_t	code_bytes;
	uint32_t	width;
	uint8_t    *out;
	uint64_t	out_cap;
	const uint64_t *sel;		/* selected value indices, or NULL = all */
	const uint64_t *sel_off;	/* their output offsets (nsel + 1) */
	uint64_t	nsel;
	gg_error   *err;
	/*
	 * A version 2 tile read through its own index (comp and raw NULL):
	 * the tile, its layout (finished) and where its length bytes lie.
	 * sel_c, sel_nc: each selected value's code offset and code length
	 * (UINT64_MAX: malformed), found through its block beforehand.
	 */
	uint32_t	version;
	const uint8_t *tile;
	gsst_tile_layout layout;
	const uint8_t *clens;
	const uint8_t *rlens;
	const uint64_t *sel_c;
	const uint64_t *sel_nc;
} gg_decode_args;

/* ---- memory helpers ---- */

GG_FN uint64_t
gg_low_mask(unsigned nbytes)	/* nbytes in 0..8 */
{
	return nbytes >= 8 ? ~(uint64_t) 0 : (((uint64_t) 1 << (8 * nbytes)) - 1);
}

/* 8 bytes at an 8-aligned address written by an earlier kernel or host */
GG_FN uint64_t
gg_ldg64(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
	return __ldg((const unsigned long long *) p);
#else
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
#endif
}

/* 8 bytes at an 8-aligned address this thread may have written */
GG_FN uint64_t
gg_ld64_own(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
	return *(const uint64_t *) p;
#else
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
#endif
}

GG_FN void
gg_st64(uint8_t *p, uint64_t v)	/* p 8-aligned */
{
#ifdef __CUDA_ARCH__
	*(uint64_t *) p = v;
#else
	memcpy(p, &v, 8);
#endif
}

GG_FN void
gg_st32(uint8_t *p, uint32_t v)	/* p 4-aligned */
{
#ifdef __CUDA_ARCH__
	*(uint32_t *) p = v;
#else
	memcpy(p, &v, 4);
#endif
}

GG_FN void
gg_st16(uint8_t *p, uint16_t v)	/* p 2-aligned */
{
#ifdef __CUDA_ARCH__
	*(uint16_t *) p = v;
#else
	memcpy(p, &v, 2);
#endif
}

GG_FN void
gg_st128(uint8_t *p, uint64_t lo, uint64_t hi)	/* p 16-aligned */
{
#ifdef __CUDA_ARCH__
	ulonglong2	v;

	v.x = lo;
	v.y = hi;
	*(ulonglong2 *) p = v;
#else
	memcpy(p, &lo, 8);
	memcpy(p + 8, &hi, 8);
#endif
}

/* 16 bytes at a 16-aligned address, read-only */
GG_FN void
gg_ldg128(const uint8_t *p, uint64_t *lo, uint64_t *hi)
{
#ifdef __CUDA_ARCH__
	ulonglong2	v = __ldg((const ulonglong2 *) p);

	*lo = v.x;
	*hi = v.y;
#else
	memcpy(lo, p, 8);
	memcpy(hi, p + 8, 8);
#endif
}

/* The 8-aligned word at a, with bytes outside [lo, hi) read as zero. */
GG_FN uint64_t
gg_load_word_guarded(uintptr_t a, uintptr_t lo, uintptr_t hi)
{
	uint64_t	v = 0;

	if (a >= lo && a + 8 <= hi)
		return gg_ldg64((const uint8_t *) a);
	for (unsigned i = 0; i < 8; i++)
		if (a + i >= lo && a + i < hi)
			v |= (uint64_t) (*(const uint8_t *) (a + i)) << (8 * i);
	return v;
}

/* 16-byte aligned chunk at a, bytes outside [lo, hi) zero. */
GG_FN void
gg_load_chunk_guarded(uintptr_t a, uintptr_t lo, uintptr_t hi, uint64_t *w0, uint64_t *w1)
{
	if (a >= lo && a + 16 <= hi)
	{
		gg_ldg128((const uint8_t *) a, w0, w1);
		return;
	}
	*w0 = gg_load_word_guarded(a, lo, hi);
	*w1 = gg_load_word_guarded(a + 8, lo, hi);
}

/* Bytes [from, to) of the 16-byte chunk (lo, hi) at 16-aligned p. */
GG_FN void
gg_store_chunk_part(uint8_t *p, uint64_t lo, uint64_t hi, unsigned from, unsigned to)
{
	while (from < to)
	{
		unsigned	left = to - from;
		uint64_t	word = from < 8 ? lo : hi;
		unsigned	shift = 8 * (from & 7);

		if ((from & 7) == 0 && left >= 8)
		{
			gg_st64(p + from, word);
			from += 8;
		}
		else if ((from & 3) == 0 && left >= 4)
		{
			gg_st32(p + from, (uint32_t) (word >> shift));
			from += 4;
		}
		else if ((from & 1) == 0 && left >= 2)
		{
			gg_st16(p + from, (uint16_t) (word >> shift));
			from += 2;
		}
		else
		{
			p[from] = (uint8_t) (word >> shift);
			from += 1;
		}
	}
}

GG_FN uint64_t
gg_read_entry(const uint8_t *base, uint64_t i, uint32_t width)
{
#ifdef __CUDA_ARCH__
	if (width == 4)
		return __ldg((const unsigned int *) base + i);
	return __ldg((const unsigned long long *) base + i);
#else
	if (width == 4)
	{
		uint32_t	v;

		memcpy(&v, base + i * 4, 4);
		return v;
	}
	else
	{
		uint64_t	v;

		memcpy(&v, base + i * 8, 8);
		return v;
	}
#endif
}

/* read an entry this kernel (or thread) wrote: no read-only cache */
GG_FN uint64_t
gg_read_entry_rw(const uint8_t *base, uint64_t i, uint32_t width)
{
#ifdef __CUDA_ARCH__
	if (width == 4)
		return ((const uint32_t *) base)[i];
	return ((const uint64_t *) base)[i];
#else
	return gg_read_entry(base, i, width);
#endif
}

GG_FN uint64_t
gg_ld_off(const uint64_t *off, uint64_t i)
{
#ifdef __CUDA_ARCH__
	return __ldg((const unsigned long long *) off + i);
#else
	return off[i];
#endif
}

GG_FN void
gg_set_error(gg_error *err, int32_t code, int32_t kind, uint64_t where)
{
#ifdef __CUDA_ARCH__
	if (atomicCAS(&err->code, 0, code) == 0)
	{
		err->kind = kind;
		err->where = where;
	}
#else
	if (err->code == 0)
	{
		err->code = code;
		err->kind = kind;
		err->where = where;
	}
#endif
}

/* ---- input window: 8 bytes at any position of a byte stream ---- */

typedef struct gg_win
{
	uintptr_t	base;			/* 8-aligned address of w0 */
	uint64_t	w0;
	uint64_t	w1;
	uintptr_t	lo;				/* readable range */
	uintptr_t	hi;
} gg_win;

GG_FN void
gg_win_seek(gg_win *w, uintptr_t p)
{
	w->base = p & ~(uintptr_t) 7;
	w->w0 = gg_load_word_guarded(w->base, w->lo, w->hi);
	w->w1 = gg_load_word_guarded(w->base + 8, w->lo, w->hi);
}

GG_FN uint64_t
gg_win_peek(const gg_win *w, uintptr_t p)
{
	unsigned	shift = ((unsigned) p - (unsigned) w->base) * 8;	/* < 64 */

	/* (w1 << 1) << (63 - shift) is w1 << (64 - shift), and 0 for shift 0 */
	return (w->w0 >> shift) | ((w->w1 << 1) << (63 - shift));
}

/* after moving forward by at most 8 bytes */
GG_FN void
gg_win_advance(gg_win *w, uintptr_t p)
{
	if ((unsigned) p - (unsigned) w->base >= 8)
	{
		w->base += 8;
		w->w0 = w->w1;
		w->w1 = gg_load_word_guarded(w->base + 8, w->lo, w->hi);
	}
}

/* ---- packer: bytes appended to a 32-aligned scratch area ---- */

/*
 * Words are gathered in a 32-byte slot (shared memory on the GPU) and
 * written a whole 32-byte sector at a time: one thread's scattered 8-byte
 * stores would each be a partial-sector write to L2.
 */
typedef struct gg_packer
{
	uint8_t    *base;			/* 32-aligned */
	uint8_t    *slot;			/* 32 bytes, 8-aligned */
	uint64_t	acc;
	uint32_t	fill;			/* bytes in acc, < 8 */
	uint32_t	word_pos;		/* offset of acc's first byte, multiple of 8 */
} gg_packer;

GG_FN uint32_t
gg_pack_pos(const gg_packer *pk)
{
	return pk->word_pos + pk->fill;
}

GG_FN void
gg_pack_flush_sector(gg_packer *pk, uint32_t sector)
{
	gg_st128(pk->base + sector, gg_ld64_own(pk->slot), gg_ld64_own(pk->slot + 8));
	gg_st128(pk->base + sector + 16, gg_ld64_own(pk->slot + 16), gg_ld64_own(pk->slot + 24));
}

/* the word at word_pos is complete */
GG_FN void
gg_pack_store_word(gg_packer *pk)
{
	gg_st64(pk->slot + (pk->word_pos & 31), pk->acc);
	if ((pk->word_pos & 31) == 24)
		gg_pack_flush_sector(pk, pk->word_pos & ~31u);
}

/* append n (1..8) bytes; bytes of `bytes` above n must be zero */
GG_FN void
gg_pack_put(gg_packer *pk, uint64_t bytes, unsigned n)
{
	unsigned	fill = pk->fill;

	pk->acc |= bytes << (8 * fill);
	if (fill + n >= 8)
	{
		gg_pack_store_word(pk);
		pk->word_pos += 8;
		pk->acc = fill + n > 8 ? bytes >> (8 * (8 - fill)) : 0;
		pk->fill = fill + n - 8;
	}
	else
		pk->fill = fill + n;
}

/* move the write position to p (back, or forward leaving garbage) */
GG_FN void
gg_pack_seek(gg_packer *pk, uint32_t p)
{
	uint32_t	sector = pk->word_pos & ~31u;

	if (p >= pk->word_pos && p < pk->word_pos + 8)
	{
		if (p < pk->word_pos + pk->fill)
			pk->acc &= gg_low_mask(p - pk->word_pos);
		pk->fill = p - pk->word_pos;
		return;
	}
	if (p > pk->word_pos)
	{
		/* forward past the current word: keep it, and its sector */
		gg_st64(pk->slot + (pk->word_pos & 31), pk->acc);
		if ((p & ~31u) != sector)
			gg_pack_flush_sector(pk, sector);
		pk->word_pos = p & ~7u;
		pk->fill = p & 7u;
		pk->acc = 0;
		return;
	}
	/* back: into the slot, or into a sector already written out */
	if ((p & ~31u) != sector)
		for (uint32_t i = 0; i < 32; i += 8)
			gg_st64(pk->slot + i, gg_ld64_own(pk->base + (p & ~31u) + i));
	pk->word_pos = p & ~7u;
	pk->fill = p & 7u;
	pk->acc = gg_ld64_own(pk->slot + (pk->word_pos & 31)) & gg_low_mask(pk->fill);
}

GG_FN void
gg_pack_finish(gg_packer *pk)
{
	if (pk->fill > 0)
		gg_st64(pk->slot + (pk->word_pos & 31), pk->acc);
	if (pk->fill > 0 || (pk->word_pos & 31) != 0)
		gg_pack_flush_sector(pk, pk->word_pos & ~31u);
}

/*
 * Per-value comp offsets, gathered like the packer's words: a 32-byte
 * sector of entries goes out in one piece when this thread wrote all of
 * it; the sectors it shares with neighbouring units, entry by entry.
 */
typedef struct gg_entries
{
	uint8_t    *slot;			/* 32 bytes, 8-aligned */
	uintptr_t	first;			/* address of this thread's first entry */
	uintptr_t	last;			/* address of the last entry written, 0 = none */
	uint32_t	width;
} gg_entries;

GG_FN void
gg_entries_write_part(gg_entries *e, uintptr_t from, uintptr_t to)
{
	for (uintptr_t at = from; at < to; at += e->width)
	{
		if (e->width == 4)
			gg_st32((uint8_t *) at, (uint32_t) (gg_ld64_own(e->slot + (at & 24)) >> (8 * (at & 4))));
		else
			gg_st64((uint8_t *) at, gg_ld64_own(e->slot + (at & 31)));
	}
}

GG_FN void
gg_entries_finish(gg_entries *e)
{
	uintptr_t	sector;

	if (e->last == 0 || ((e->last + e->width) & 31) == 0)
		return;
	sector = e->last & ~(uintptr_t) 31;
	gg_entries_write_part(e, sector > e->first ? sector : e->first, e->last + e->width);
}

/* ---- the encoding rule (mirrors the codec's gsst_match exactly) ---- */

/*
 * The encoder table in shared memory, by 32-bit shared addresses (gg_sptr;
 * a plain address in the emulation).  The base goes through an opaque move
 * once, so that it stays in a register: otherwise the compiler rebuilds a
 * __shared__ variable's address from the CTA id (S2R and two more
 * instructions) at every lookup, as it did in the decoders.
 */
#ifdef __CUDA_ARCH__
typedef uint32_t gg_sptr;

GG_FN gg_sptr
gg_sptr_of(const void *p)
{
	uint32_t	b = (uint32_t) __cvta_generic_to_shared(p);

	asm volatile("mov.b32 %0, %0;" : "+r"(b));
	return b;
}

GG_FN void
gg_lds128(gg_sptr a, uint32_t e[4])
{
	asm("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
		: "=r"(e[0]), "=r"(e[1]), "=r"(e[2]), "=r"(e[3]) : "r"(a));
}

GG_FN uint64_t
gg_lds64(gg_sptr a)
{
	uint64_t	v;

	asm("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(a));
	return v;
}

GG_FN uint32_t
gg_lds8(gg_sptr a)
{
	uint32_t	v;

	asm("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(a));
	return v;
}
#else
typedef uintptr_t gg_sptr;

GG_FN gg_sptr
gg_sptr_of(const void *p)
{
	return (uintptr_t) p;
}

GG_FN void
gg_lds128(gg_sptr a, uint32_t e[4])
{
	memcpy(e, (const void *) a, 16);
}

GG_FN uint64_t
gg_lds64(gg_sptr a)
{
	uint64_t	v;

	memcpy(&v, (const void *) a, 8);
	return v;
}

GG_FN uint32_t
gg_lds8(gg_sptr a)
{
	return *(const uint8_t *) a;
}
#endif

/*
 * Predicated accesses for the step loop's value-end block: on the GPU one
 * predicated instruction each, so that the block runs in step on all lanes
 * instead of branching.
 */
#ifdef __CUDA_ARCH__
/* *p (read-only data) when c, else old */
GG_FN uint32_t
gg_ldg32_if(int c, const void *p, uint32_t old)
{
	asm("{\n\t.reg .pred q;\n\tsetp.ne.s32 q, %2, 0;\n\t@q ld.global.nc.u32 %0, [%1];\n\t}"
		: "+r"(old) : "l"(p), "r"(c));
	return old;
}

GG_FN uint64_t
gg_ldg64_if(int c, const void *p, uint64_t old)
{
	asm("{\n\t.reg .pred q;\n\tsetp.ne.s32 q, %2, 0;\n\t@q ld.global.nc.u64 %0, [%1];\n\t}"
		: "+l"(old) : "l"(p), "r"(c));
	return old;
}

GG_FN void
gg_sts32_if(int c, gg_sptr a, uint32_t v)
{
	asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.s32 q, %0, 0;\n\t@q st.shared.u32 [%1], %2;\n\t}"
				 :: "r"(c), "r"(a), "r"(v) : "memory");
}

GG_FN void
gg_sts64_if(int c, gg_sptr a, uint64_t v)
{
	asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.s32 q, %0, 0;\n\t@q st.shared.u64 [%1], %2;\n\t}"
				 :: "r"(c), "r"(a), "l"(v) : "memory");
}

#define gg_funnel_l(lo, hi, s) __funnelshift_l(lo, hi, s)
#define gg_funnel_r(lo, hi, s) __funnelshift_r(lo, hi, s)
#else
GG_FN uint32_t
gg_ldg32_if(int c, const void *p, uint32_t old)
{
	if (c)
		memcpy(&old, p, 4);
	return old;
}

GG_FN uint64_t
gg_ldg64_if(int c, const void *p, uint64_t old)
{
	if (c)
		memcpy(&old, p, 8);
	return old;
}

GG_FN void
gg_sts32_if(int c, gg_sptr a, uint32_t v)
{
	if (c)
		memcpy((void *) a, &v, 4);
}

GG_FN void
gg_sts64_if(int c, gg_sptr a, uint64_t v)
{
	if (c)
		memcpy((void *) a, &v, 8);
}

/*
 * CUDA's funnel shifts, to the letter, so that the emulation runs the same
 * expressions as the device: the high word of (hi:lo) << (s % 32), the low
 * word of (hi:lo) >> (s % 32).
 */
GG_FN uint32_t
gg_funnel_l(uint32_t lo, uint32_t hi, uint32_t s)
{
	s &= 31;
	return s ? (hi << s) | (lo >> (32 - s)) : hi;
}

GG_FN uint32_t
gg_funnel_r(uint32_t lo, uint32_t hi, uint32_t s)
{
	s &= 31;
	return s ? (lo >> s) | (hi << (32 - s)) : lo;
}
#endif

/* the high word of (uint64_t) x << s, s in 0..31 */
GG_FN uint32_t
gg_shl_carry(uint32_t x, uint32_t s)
{
	return gg_funnel_l(x, 0u, s);
}

/*
 * gg_match over the table at shared address t, with left (>= 1, not
 * capped) bytes left in the segment: len <= min(left, 8) is len <= left.
 * Empty hash entries hold keys of another bucket and symbol keys are
 * unique, so at most one way matches (see gsst_encoder): the probes need
 * no order and the ways are tested with one xor-and each.
 */
GG_FN unsigned
gg_match_sh(gg_sptr t, uint64_t word, uint32_t left, uint32_t *advance)
{
	uint32_t	lo = (uint32_t) word;
	uint32_t	k3 = lo & 0xFFFFFFu;
	uint32_t	k2 = lo & 0xFFFFu;
	uint32_t	e[4],
				f[4];
	uint32_t	lr = (uint32_t) GSST_ESCAPE << 24,
				pr = (uint32_t) GSST_ESCAPE << 24;
	unsigned	long_code,
				pair_code,
				byte_code,
				long_len;
	uint64_t	mask;
	int			long_ok,
				pair_ok;

	gg_lds128(t + (uint32_t) offsetof(gg_encoder, long_hash) +
			  (((k3 * 0x9E3779B1u) >> 20) & 0xFF0u), e);
	gg_lds128(t + (uint32_t) offsetof(gg_encoder, pair_hash) +
			  (((k2 * 0x9E3779B1u) >> 20) & 0xFF0u), f);
	byte_code = gg_lds8(t + (uint32_t) offsetof(gg_encoder, byte_code) + (lo & 0xFFu));
	for (int way = 0; way < 4; way++)
	{
		lr = ((e[way] ^ k3) & 0xFFFFFFu) == 0 ? e[way] : lr;
		pr = ((f[way] ^ k2) & 0xFFFFFFu) == 0 ? f[way] : pr;
	}
	long_code = lr >> 24;
	pair_code = pr >> 24;
	long_len = gg_lds8(t + (uint32_t) offsetof(gg_encoder, len) + long_code);
	/* long_len 0 (the escape) gives shift 0 here, but long_ok is false then */
	mask = ~(uint64_t) 0 >> ((64 - 8 * long_len) & 63);
	/* & rather than &&: no branch around the symbol compare */
	long_ok = (long_code != GSST_ESCAPE) & (long_len <= left) &
		(((word ^ gg_lds64(t + (uint32_t) offsetof(gg_encoder, symbol) + 8 * long_code)) & mask) == 0);
	pair_ok = (pair_code != GSST_ESCAPE) & (left >= 2);
	*advance = long_ok ? long_len : (pair_ok ? 2u : 1u);
	return long_ok ? long_code : (pair_ok ? pair_code : byte_code);
}

GG_FN unsigned
gg_hash_lookup(const uint32_t *hash, uint32_t key)
{
	uint32_t	bucket = (key * 0x9E3779B1u) >> 24;
	unsigned	code = GSST_ESCAPE;
	uint32_t	e[4];

#ifdef __CUDA_ARCH__
	uint4		q = ((const uint4 *) hash)[bucket];

	e[0] = q.x;
	e[1] = q.y;
	e[2] = q.z;
	e[3] = q.w;
#else
	memcpy(e, hash + bucket * 4, sizeof(e));
#endif
	/* the last matching way wins, as in the codec */
	for (int way = 0; way < 4; way++)
		if ((e[way] & 0xFFFFFFu) == key)
			code = e[way] >> 24;
	return code;
}

GG_FN unsigned
gg_match(const gg_encoder *enc, uint64_t word, unsigned rem, unsigned *advance)
{
	unsigned	long_code = gg_hash_lookup(enc->long_hash, (uint32_t) word & 0xFFFFFFu);
	unsigned	pair_code = gg_hash_lookup(enc->pair_hash, (uint32_t) word & 0xFFFFu);
	unsigned	byte_code = enc->byte_code[word & 0xFF];
	unsigned	long_len = enc->len[long_code];
	uint64_t	mask = long_len ? (~(uint64_t) 0 >> (64 - 8 * long_len)) : 0;
	int			long_ok = long_code != GSST_ESCAPE && long_len <= rem &&
		((word ^ enc->symbol[long_code]) & mask) == 0;
	int			pair_ok = pair_code != GSST_ESCAPE && rem >= 2;

	*advance = long_ok ? long_len : (pair_ok ? 2u : 1u);
	return long_ok ? long_code : (pair_ok ? pair_code : byte_code);
}

/*
 * Encode raw bytes [pos, end) of one value whose first byte is vstart
 * (matching restarts at vstart + k * 4096).  Codes go to the packer while
 * they fit in `budget` bytes; past that *over is set and, unless
 * count_all, the function returns at once.  Returns the code bytes counted.
 * The window must hold pos; on return it holds the stop position.
 */
GG_FN uint64_t
gg_encode_run(const gg_encoder *enc, gg_win *win, gg_packer *pk, uintptr_t data,
			  uint64_t pos, uint64_t end, uint64_t vstart, uint64_t budget,
			  int count_all, int *over)
{
	uint64_t	written = 0;

	*over = 0;
	while (pos < end)
	{
		uint64_t	seg_end = vstart + ((pos - vstart) / GG_SEG + 1) * GG_SEG;

		if (seg_end > end)
			seg_end = end;
		while (pos < seg_end)
		{
			uint64_t	word = gg_win_peek(win, data + pos);
			uint64_t	left = seg_end - pos;
			unsigned	advance;
			unsigned	code = gg_match(enc, word, left < 8 ? (unsigned) left : 8u, &advance);
			unsigned	escape = code == GSST_ESCAPE;
			unsigned	nbytes = 1 + escape;

			if (!*over)
			{
				if (written + nbytes > budget)
				{
					*over = 1;
					if (!count_all)
						return written;
				}
				else
					gg_pack_put(pk, escape ? (0xFFu | (word & 0xFF) << 8) : code, nbytes);
			}
			written += nbytes;
			pos += advance;
			gg_win_advance(win, data + pos);
		}
	}
	return written;
}

/* copy raw bytes [pos, end) through the window into the packer */
GG_FN void
gg_copy_raw(gg_win *win, gg_packer *pk, uintptr_t data, uint64_t pos, uint64_t end)
{
	gg_win_seek(win, data + pos);
	while (pos < end)
	{
		uint64_t	left = end - pos;
		unsigned	k = left < 8 ? (unsigned) left : 8u;

		gg_pack_put(pk, gg_win_peek(win, data + pos) & gg_low_mask(k), k);
		pos += k;
		gg_win_advance(win, data + pos);
	}
}

/* ---- piece search: the codec's split rule, evaluated at one multiple ---- */

/*
 * First piece (value *v, segment *s) whose raw start is at or after
 * absolute offset m; (n, 0) when none.
 */
GG_FN void
gg_piece_at(const uint64_t *off, uint64_t n, uint64_t m, uint64_t *v, uint32_t *s)
{
	uint64_t	lo = 0,
				hi = n;

	if (gg_ld_off(off, n) < m)
	{
		*v = n;
		*s = 0;
		return;
	}
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (gg_ld_off(off, mid) >= m)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0)
	{
		uint64_t	start = gg_ld_off(off, lo - 1);
		uint64_t	len = gg_ld_off(off, lo) - start;
		uint64_t	seg = (m - start + GG_SEG - 1) / GG_SEG;

		if (seg * GG_SEG < len)
		{
			*v = lo - 1;
			*s = (uint32_t) seg;
			return;
		}
	}
	*v = lo;
	*s = 0;
}

/*
 * Unit u's first piece, u in [0, nunits]; entry nunits is (n, 0).  Needs
 * only the offsets, so it runs while the host trains the table.
 */
GG_FN void
gg_plan_unit(const gg_encode_args *a, uint64_t u)
{
	gg_piece	p;

	p.value = a->n;
	p.seg = 0;
	p.pad = 0;
	if (u < a->nunits)
		gg_piece_at(a->off, a->n, a->off0 + u * a->unit_bytes, &p.value, &p.seg);
	a->starts[u] = p;
}

/* the first value that starts in unit u or later */
GG_FN uint64_t
gg_first_starting(const gg_encode_args *a, uint64_t u)
{
	gg_piece	p = a->starts[u];

	return p.value + (p.seg > 0);
}

/*
 * Raw offset entry i (<= n: n is the sentinel, the raw size) of the tile,
 * into a buffer of the tile's entry width: they need only the offsets and
 * the width, not the table, so they are made while the host trains and
 * copied into the tile (version 1) or packed (version 2) later.
 */
GG_FN void
gg_raw_entry(const gg_encode_args *a, uint8_t *raw, uint64_t i)
{
	gsst_tile_put_entry(raw, i, a->width, (i < a->n ? gg_ld_off(a->off, i) : a->off_end) - a->off0);
}

#ifndef GG_COPY_DEPTH
#define GG_COPY_DEPTH 4			/* words per lane in flight in compaction */
#endif

GG_FN uint64_t
gg_unit_scratch(uint64_t u, uint64_t raw_start)
{
	/*
	 * 32-aligned (whole sectors), and at least unit raw bytes + 33 apart:
	 * codes never exceed the raw bytes, and the packer's last sector
	 * write reaches at most 31 bytes past them.
	 */
	return ((raw_start + 31) & ~(uint64_t) 31) + 64 * u;
}

/* the entry at address at fills its 32-byte sector of the slot: write it out */
GG_FN void
gg_entries_sector(gg_entries *e, uintptr_t at)
{
	uintptr_t	sector = at & ~(uintptr_t) 31;

	if (sector >= e->first)
	{
		gg_st128((uint8_t *) sector, gg_ld64_own(e->slot), gg_ld64_own(e->slot + 8));
		gg_st128((uint8_t *) sector + 16, gg_ld64_own(e->slot + 16), gg_ld64_own(e->slot + 24));
	}
	else
		gg_entries_write_part(e, e->first, at + e->width);
}

/* 8 bytes at byte k (0..7) of the 16 bytes w0, w1 */
GG_FN uint64_t
gg_peek16(uint64_t w0, uint64_t w1, uint32_t k)
{
	/* three selects and two funnel shifts (which take the shift mod 32) */
	uint32_t	x = k & 4 ? (uint32_t) (w0 >> 32) : (uint32_t) w0;
	uint32_t	y = k & 4 ? (uint32_t) w1 : (uint32_t) (w0 >> 32);
	uint32_t	z = k & 4 ? (uint32_t) (w1 >> 32) : (uint32_t) w1;

	return (uint64_t) gg_funnel_r(x, y, 8 * k) | (uint64_t) gg_funnel_r(y, z, 8 * k) << 32;
}

/* the packer's accumulator as 32 bits (bytes [out & ~3, out)), the rest in the slot */
GG_FN uint32_t
gg_pack_acc32(const gg_packer *pk)
{
	if (pk->fill >= 4)
	{
		gg_st32(pk->slot + (pk->word_pos & 31), (uint32_t) pk->acc);
		return (uint32_t) (pk->acc >> 32);
	}
	return (uint32_t) pk->acc;
}

/* back to the packer's form: bytes [out & ~7, out) in acc */
GG_FN void
gg_pack_from32(gg_packer *pk, uint32_t out, uint32_t acc)
{
	pk->fill = out & 7;
	pk->word_pos = out & ~7u;
	pk->acc = acc;
	if (out & 4)
	{
		uint32_t	low;

		memcpy(&low, pk->slot + (out & 24), 4);
		pk->acc = low | (uint64_t) acc << 32;
	}
}

/*
 * Encode the whole values [v, ve) of a unit, back to back, each stored raw
 * when its codes would not be shorter.  One step of the encoding rule per
 * iteration, value ends handled at the top of the loop, so the lanes of a
 * warp stay in step even though their values end at different times.
 *
 * Everything the loop carries is 32-bit: positions are relative to the
 * 8-aligned address abase at or before the first value (a unit is < 2 GiB),
 * the window is the words w0, w1 at abase + wb (pos - wb < 8), the packer
 * is a 32-bit accumulator over the output position out, and the comp
 * entry of value v + wi is placed by the low bits elo of its address.
 * Some lane of a warp is at a value end in almost every iteration, so the
 * value-end block is written without branches (selects and predicated
 * loads and stores, on all lanes); only what is rare branches: a sector of
 * entries full, an empty value, a value stored raw, a load near the end of
 * the data.  `width` is a constant where gg_encode_values calls this.
 */
GG_FN void
gg_encode_values_w(const gg_encoder *enc, const gg_encode_args *a, const gg_win *win,
				   gg_packer *pk, uint64_t v, uint64_t ve, uint32_t whole_start,
				   uint8_t *entry_slot, uint32_t width)
{
	const uint64_t *op = a->off + v + 1;	/* op[wi]: the end of value v + wi */
	uint64_t	base = gg_ld_off(a->off, v);
	uintptr_t	data = (uintptr_t) a->data + base;
	uintptr_t	abase = data & ~(uintptr_t) 7;
	uint32_t	r0 = (uint32_t) base - (uint32_t) (data - abase);	/* raw offset of abase, low bits */
	uintptr_t	lo = win->lo,
				hi = win->hi;
	/* the word at abase + wb + 16 lies inside the data while wb < wend */
	uint64_t	span = hi - abase;
	uint32_t	wend = span < 24 ? 0 : span - 23 > 0x7FFFFFFFu ? 0x7FFFFFFFu : (uint32_t) (span - 23);
	uint32_t	count = (uint32_t) (ve - v);
	uint32_t	wi = 0;
	uint32_t	pos = (uint32_t) (data - abase);
	uint32_t	vstart = pos;
	uint32_t	vend = (uint32_t) gg_ld_off(a->off, v + 1) - r0;
	/*
	 * The end of the value after the current one, loaded a value ahead:
	 * a load at the value end itself was waited for at once (half of the
	 * kernel's stall samples, ncu at 2 GiB).
	 */
	uint32_t	vnext = count > 1 ? (uint32_t) gg_ld_off(a->off, v + 2) - r0 : 0;
	uint32_t	seg_end = vend - pos < GG_SEG ? vend : pos + GG_SEG;
	uint32_t	wb = 0;
	uint64_t	w0 = gg_load_word_guarded(abase, lo, hi);
	uint64_t	w1 = gg_load_word_guarded(abase + 8, lo, hi);
	gg_sptr		cslot = gg_sptr_of(pk->slot);
	gg_sptr		eslot = gg_sptr_of(entry_slot);
	uint32_t	out = gg_pack_pos(pk);
	uint32_t	acc = gg_pack_acc32(pk);
	uint32_t	limit = out + (vend - vstart);
	uint8_t    *comp = a->comp_entries;
	uint32_t	elo = (uint32_t) ((uintptr_t) comp + v * width);
	gg_sptr		tab = gg_sptr_of(enc);
	gg_entries	entries;

#ifdef __CUDA_ARCH__
	/* opaque, so that op + wi stays one multiply-add */
	asm("mov.b64 %0, %0;" : "+l"(op));
#endif
	entries.slot = entry_slot;
	entries.first = (uintptr_t) comp + v * width;
	entries.width = width;
	if (width == 4)
		gg_sts32_if(1, eslot + (elo & 31), out - whole_start);
	else
		gg_sts64_if(1, eslot + (elo & 31), out - whole_start);
	if (((elo + width) & 31) == 0)
		gg_entries_sector(&entries, entries.first);
	for (;;)
	{
		uint64_t	word;
		uint32_t	advance,
					code,
					n,
					nout;

		{
			/*
			 * A value end, without branches but for the last value.  An
			 * empty value leaves pos at seg_end: the step below then finds
			 * its codes not shorter (limit = out), and the raw branch stores
			 * nothing.
			 */
			int			at_seg = pos >= seg_end;
			int			at_end = pos >= vend;	/* implies at_seg */
			uint32_t	nv;

			wi += at_end;
			if (wi >= count)
				break;
			nv = at_end ? vnext : vend;
			vnext = gg_ldg32_if(at_end && wi + 1 < count, op + wi + 1, vnext + r0) - r0;
			vstart = at_end ? vend : vstart;
			limit = at_end ? out + (nv - vend) : limit;
			vend = nv;
			elo += at_end ? width : 0;
			if (width == 4)
				gg_sts32_if(at_end, eslot + (elo & 31), out - whole_start);
			else
				gg_sts64_if(at_end, eslot + (elo & 31), out - whole_start);
			if (at_end && ((elo + width) & 31) == 0)
				gg_entries_sector(&entries, (uintptr_t) comp + (v + wi) * width);
			/* a value's first segment, or the next one (matching restarts) */
			seg_end = at_seg ? (vend - pos < GG_SEG ? vend : pos + GG_SEG) : seg_end;
		}

		word = gg_peek16(w0, w1, pos - wb);
		code = gg_match_sh(tab, word, seg_end - pos, &advance);
		n = 1 + (code == GSST_ESCAPE);
		nout = out + n;
		if (nout >= limit)
		{
			/* codes would not be shorter: store the value raw */
			gg_packer	p;
			gg_win		wl;

			p.base = pk->base;
			p.slot = pk->slot;
			gg_pack_from32(&p, out, acc);
			gg_pack_seek(&p, limit - (vend - vstart));
			wl.lo = lo;
			wl.hi = hi;
			gg_copy_raw(&wl, &p, abase, vstart, vend);
			out = gg_pack_pos(&p);
			acc = gg_pack_acc32(&p);
			wb = (uint32_t) (wl.base - abase);
			w0 = wl.w0;
			w1 = wl.w1;
			pos = vend;
		}
		else
		{
			/* packer: a 4-byte word out when complete, a sector when full */
			uint32_t	payload = n == 2 ? 0xFFu | ((uint32_t) word & 0xFFu) << 8 : code;
			uint32_t	sh = 8 * (out & 3);
			uint32_t	lo32 = acc | payload << sh;
			int			full = ((out ^ nout) & ~3u) != 0;
			int			step;

			gg_sts32_if(full, cslot + (out & 28), lo32);
			acc = full ? gg_shl_carry(payload, sh) : lo32;
			if (((out ^ nout) & ~31u) != 0)
				gg_pack_flush_sector(pk, out & ~31u);
			out = nout;
			/* window: the next word when pos leaves w0 */
			pos += advance;
			step = pos - wb >= 8;
			w0 = step ? w1 : w0;
			w1 = gg_ldg64_if(step & (wb < wend), (const void *) (abase + wb + 16), w1);
			if (step & (wb >= wend))
				w1 = gg_load_word_guarded(abase + wb + 16, lo, hi);
			wb += step ? 8 : 0;
		}
	}
	entries.last = (uintptr_t) comp + (v + count - 1) * width;
	gg_entries_finish(&entries);
	gg_pack_from32(pk, out, acc);
}

GG_FN void
gg_encode_values(const gg_encoder *enc, const gg_encode_args *a, const gg_win *win,
				 gg_packer *pk, uint64_t v, uint64_t ve, uint32_t whole_start,
				 uint8_t *entry_slot)
{
	if (a->width == 4)
		gg_encode_values_w(enc, a, win, pk, v, ve, whole_start, entry_slot, 4);
	else
		gg_encode_values_w(enc, a, win, pk, v, ve, whole_start, entry_slot, 8);
}

/* ---- encode: one unit (one thread) ---- */

/* slot: 64 bytes, 8-aligned, private to the thread (shared memory) */
GG_FN void
gg_encode_unit(const gg_encoder *enc, const gg_encode_args *a, uint64_t u, uint8_t *slot)
{
	const uint64_t *off = a->off;
	uintptr_t	data = (uintptr_t) a->data;
	uint64_t	v,
				ve,
				pos,
				end;
	uint32_t	s,
				se;
	gg_unit		rec;
	gg_win		win;
	gg_packer	pk;
	uint32_t	whole_start;
	int			over;

	{
		gg_piece	p0 = a->starts[u],
					p1 = a->starts[u + 1];

		v = p0.value;
		s = p0.seg;
		ve = p1.value;
		se = p1.seg;
	}
	pos = gg_ld_off(off, v) + (uint64_t) s * GG_SEG;
	end = ve < a->n ? gg_ld_off(off, ve) + (uint64_t) se * GG_SEG : a->off_end;

	memset(&rec, 0, sizeof(rec));
	rec.first_value = v;
	rec.first_seg = s;
	rec.end_value = ve;
	rec.end_seg = se;
	rec.raw_start = pos - a->off0;

	win.lo = data + a->off0;
	win.hi = data + a->off_end;
	gg_win_seek(&win, data + pos);
	pk.base = a->scratch + gg_unit_scratch(u, rec.raw_start);
	pk.slot = slot;
	pk.acc = 0;
	pk.fill = 0;
	pk.word_pos = 0;

	if (s > 0)
	{
		/* continuation of a value begun in an earlier unit */
		uint64_t	vstart = gg_ld_off(off, v);
		uint64_t	pend = ve == v ? end : gg_ld_off(off, v + 1);
		uint64_t	codes = gg_encode_run(enc, &win, &pk, data, pos, pend, vstart,
										  pend - pos, 1, &over);

		rec.flags |= GG_HAS_LEAD | (over ? GG_LEAD_OVER : 0);
		rec.lead_codes = (uint32_t) codes;
		rec.lead_raw = (uint32_t) (pend - pos);
		gg_pack_seek(&pk, over ? rec.lead_raw : rec.lead_codes);
		pos = pend;
		v++;
	}

	whole_start = gg_pack_pos(&pk);
	if (v < ve)
		gg_encode_values(enc, a, &win, &pk, v, ve, whole_start, slot + 32);
	rec.whole_bytes = gg_pack_pos(&pk) - whole_start;

	if (se > 0 && ve >= v)
	{
		/* the first segments of a value that continues in the next unit */
		uint64_t	vstart = gg_ld_off(off, ve);
		uint64_t	codes;

		gg_win_seek(&win, data + vstart);
		codes = gg_encode_run(enc, &win, &pk, data, vstart, end, vstart, end - vstart,
							  1, &over);
		rec.flags |= GG_HAS_TRAIL | (over ? GG_TRAIL_OVER : 0);
		rec.trail_codes = (uint32_t) codes;
		rec.trail_raw = (uint32_t) (end - vstart);
	}
	gg_pack_finish(&pk);
	a->units[u] = rec;
}

/*
 * Decide raw or encoded for the value whose first part is unit u's trail,
 * and set the final sizes of all its parts.
 */
GG_FN void
gg_resolve_unit(const gg_encode_args *a, uint64_t u)
{
	gg_unit    *units = a->units;
	uint64_t	w,
				total,
				len,
				k;
	int			raw;

	if (!(units[u].flags & GG_HAS_LEAD))
	{
		units[u].lead_final = 0;
		units[u].lead_is_raw = 0;
	}
	if (!(units[u].flags & GG_HAS_TRAIL))
	{
		units[u].trail_final = 0;
		units[u].trail_is_raw = 0;
		return;
	}
	w = units[u].end_value;
	total = units[u].trail_codes;
	for (k = u + 1; k < a->nunits && units[k].first_value == w && units[k].first_seg > 0; k++)
		total += units[k].lead_codes;
	len = gg_ld_off(a->off, w + 1) - gg_ld_off(a->off, w);
	raw = total >= len;
	units[u].trail_final = raw ? units[u].trail_raw : units[u].trail_codes;
	units[u].trail_is_raw = (uint32_t) raw;
	for (k = u + 1; k < a->nunits && units[k].first_value == w && units[k].first_seg > 0; k++)
	{
		units[k].lead_final = raw ? units[k].lead_raw : units[k].lead_codes;
		units[k].lead_is_raw = (uint32_t) raw;
	}
}

GG_FN void
gg_unit_size(const gg_encode_args *a, uint64_t u)
{
	const gg_unit *r = &a->units[u];

	a->sizes[u] = (uint64_t) r->lead_final + r->whole_bytes + r->trail_final;
}

/*
 * Copy n bytes from src to dst with lanes lane, lane + nlanes, ... of a
 * group (a warp on the GPU, one lane in the emulation).  Stores are
 * 8-byte aligned inside dst; loads are aligned words of src, guarded by
 * the readable range [src_lo, src_hi).
 */
GG_FN void
gg_copy_lanes(uint8_t *dst, const uint8_t *src, uint64_t n, uintptr_t src_lo,
			  uintptr_t src_hi, unsigned lane, unsigned nlanes)
{
	uint64_t	head = (8 - ((uintptr_t) dst & 7)) & 7;
	uint64_t	words,
				k;

	if (head > n)
		head = n;
	for (k = lane; k < head; k += nlanes)
		dst[k] = src[k];
	dst += head;
	src += head;
	n -= head;
	words = n / 8;
	{
		/* the source's misalignment is the same for every word */
		uintptr_t	a0 = (uintptr_t) src & ~(uintptr_t) 7;
		unsigned	shift = (unsigned) ((uintptr_t) src - a0) * 8;

		/*
		 * GG_COPY_DEPTH words per lane loaded before any is stored: the
		 * stores could alias the loads as far as the compiler knows, so
		 * a plain loop waits a round trip per word
		 */
		for (k = lane; k < words; k += GG_COPY_DEPTH * (uint64_t) nlanes)
		{
			uint64_t	w[GG_COPY_DEPTH][2];

			for (int j = 0; j < GG_COPY_DEPTH; j++)
			{
				uint64_t	kk = k + j * (uint64_t) nlanes;

				w[j][0] = w[j][1] = 0;
				if (kk < words)
				{
					w[j][0] = gg_load_word_guarded(a0 + 8 * kk, src_lo, src_hi);
					if (shift)
						w[j][1] = gg_load_word_guarded(a0 + 8 * kk + 8, src_lo, src_hi);
				}
			}
			for (int j = 0; j < GG_COPY_DEPTH; j++)
			{
				uint64_t	kk = k + j * (uint64_t) nlanes;

				if (kk < words)
					gg_st64(dst + 8 * kk, (w[j][0] >> shift) | ((w[j][1] << 1) << (63 - shift)));
			}
		}
	}
	for (k = words * 8 + lane; k < n; k += nlanes)
		dst[k] = src[k];
}

/* Re-encode a piece straight into the tile (rare: its codes overflowed
 * the scratch area yet the whole value still shrinks). */
GG_FN void
gg_reencode_piece(const gg_encoder *enc, const gg_encode_args *a, uint64_t pos, uint64_t end,
				  uint64_t vstart, uint8_t *dst)
{
	uintptr_t	data = (uintptr_t) a->data;
	gg_win		win;

	win.lo = data + a->off0;
	win.hi = data + a->off_end;
	gg_win_seek(&win, data + pos);
	while (pos < end)
	{
		uint64_t	seg_end = vstart + ((pos - vstart) / GG_SEG + 1) * GG_SEG;

		if (seg_end > end)
			seg_end = end;
		while (pos < seg_end)
		{
			uint64_t	word = gg_win_peek(&win, data + pos);
			uint64_t	left = seg_end - pos;
			unsigned	advance;
			unsigned	code = gg_match(enc, word, left < 8 ? (unsigned) left : 8u, &advance);

			*dst++ = (uint8_t) code;
			if (code == GSST_ESCAPE)
				*dst++ = (uint8_t) word;
			pos += advance;
			gg_win_advance(&win, data + pos);
		}
	}
}

/*
 * ---- compaction: one unit per lane group ----
 *
 * The scratch lies in the tile's own code area, each unit's codes at or
 * after the place they end up (a unit's final bytes never exceed its raw
 * bytes).  So units are compacted a chunk at a time: the chunk's final
 * bytes go to the temp area (gg_compact_unit with out = temp, out_base =
 * the chunk's first base), then back into the code area (gg_copy_back),
 * where they overwrite only scratch of this chunk and earlier ones; or
 * straight into the code area when that misses the chunk's scratch
 * (gg_chunk_direct).
 */
GG_FN void
gg_compact_unit(const gg_encode_args *a, uint64_t u, unsigned lane, unsigned nlanes,
				uint8_t *out, uint64_t out_base)
{
	const gg_unit *r = &a->units[u];
	uint64_t	base = a->bases[u];
	uint8_t    *dst = out + (base - out_base);
	const uint8_t *scratch = a->scratch + gg_unit_scratch(u, r->raw_start);
	uintptr_t	scr_lo = (uintptr_t) a->scratch;
	uintptr_t	scr_hi = (uintptr_t) a->scratch + a->scratch_bytes;
	uintptr_t	data_lo = (uintptr_t) a->data + a->off0;
	uintptr_t	data_hi = (uintptr_t) a->data + a->off_end;
	uint64_t	sp = 0;
	uint64_t	w,
				first_whole;

	if (r->flags & GG_HAS_LEAD)
	{
		uint64_t	pos = a->off0 + r->raw_start;

		if (r->lead_is_raw)
			gg_copy_lanes(dst, a->data + pos, r->lead_raw, data_lo, data_hi, lane, nlanes);
		else if (r->flags & GG_LEAD_OVER)
		{
			if (lane == 0)
				gg_reencode_piece(a->enc_global, a, pos, pos + r->lead_raw,
								  gg_ld_off(a->off, r->first_value), dst);
		}
		else
			gg_copy_lanes(dst, scratch, r->lead_codes, scr_lo, scr_hi, lane, nlanes);
		sp = (r->flags & GG_LEAD_OVER) ? r->lead_raw : r->lead_codes;
		dst += r->lead_final;
	}
	gg_copy_lanes(dst, scratch + sp, r->whole_bytes, scr_lo, scr_hi, lane, nlanes);
	sp += r->whole_bytes;
	dst += r->whole_bytes;
	if (r->flags & GG_HAS_TRAIL)
	{
		uint64_t	vstart = gg_ld_off(a->off, r->end_value);

		if (r->trail_is_raw)
			gg_copy_lanes(dst, a->data + vstart, r->trail_raw, data_lo, data_hi, lane, nlanes);
		else if (r->flags & GG_TRAIL_OVER)
		{
			if (lane == 0)
				gg_reencode_piece(a->enc_global, a, vstart, vstart + r->trail_raw, vstart, dst);
		}
		else
			gg_copy_lanes(dst, scratch + sp, r->trail_codes, scr_lo, scr_hi, lane, nlanes);
		if (lane == 0)
			gsst_tile_put_entry(a->comp_entries, r->end_value, a->width,
						   base + r->lead_final + r->whole_bytes);
	}
	/*
	 * Whole values hold unit-local offsets: make them tile offsets, lanes
	 * on consecutive values (coalesced).  Raw offsets are not written here
	 * (gg_raw_entry).
	 */
	first_whole = r->first_value + (r->first_seg > 0 ? 1 : 0);
	for (w = first_whole + lane; w < r->end_value; w += GG_COPY_DEPTH * (uint64_t) nlanes)
	{
		uint64_t	local[GG_COPY_DEPTH];

		for (int j = 0; j < GG_COPY_DEPTH; j++)
			if (w + j * (uint64_t) nlanes < r->end_value)
				local[j] = gg_read_entry_rw(a->comp_entries, w + j * (uint64_t) nlanes, a->width);
		for (int j = 0; j < GG_COPY_DEPTH; j++)
			if (w + j * (uint64_t) nlanes < r->end_value)
				gsst_tile_put_entry(a->comp_entries, w + j * (uint64_t) nlanes, a->width,
							   local[j] + base + r->lead_final);
	}
}

/* where the final bytes of units [u0, u1) end in the code area */
GG_FN uint64_t
gg_chunk_end(const gg_encode_args *a, uint64_t u1)
{
	return u1 < a->nunits ? a->bases[u1] : a->bases[a->nunits - 1] + a->sizes[a->nunits - 1];
}

/*
 * Whether units [u0, u1) can be compacted straight into the code area: their
 * final bytes all end before the first of their scratch (usual once the
 * codes are shorter than the input, except near its start).  Both
 * compaction kernels decide it from the same device data.
 */
GG_FN int
gg_chunk_direct(const gg_encode_args *a, uint64_t u0, uint64_t u1)
{
	uint64_t	scratch_in_codes = (uint64_t) (a->scratch - (a->tile + a->codes_at));

	return gg_chunk_end(a, u1) <= scratch_in_codes + gg_unit_scratch(u0, a->units[u0].raw_start);
}

/*
 * Whether compacting chunk [u0, u1) is safe: its final bytes fit a temp
 * area when they go through one, and the final bytes before u0 end before
 * u0's scratch (the previous chunk is copied back while this one is
 * read).  Parts of a long value that came out longer than their raw bytes
 * can break both; the call then fails (the worker encodes on the CPU).
 */
GG_FN int
gg_chunk_safe(const gg_encode_args *a, uint64_t u0, uint64_t u1)
{
	uint64_t	scratch_in_codes = (uint64_t) (a->scratch - (a->tile + a->codes_at));

	if (!gg_chunk_direct(a, u0, u1) && gg_chunk_end(a, u1) - a->bases[u0] > a->temp_bytes)
		return 0;
	return a->bases[u0] <= scratch_in_codes + gg_unit_scratch(u0, a->units[u0].raw_start);
}

/*
 * Chunk c's temp area: two alternate, so that one launch compacts chunk c
 * while it copies chunk c - 1 back (the copy writes only below chunk c's
 * final bytes, over scratch already consumed, and reads the other area).
 */
GG_FN uint8_t *
gg_chunk_temp(const gg_encode_args *a, uint64_t c)
{
	return a->temp + (c & 1) * a->temp_bytes;
}

/* the final bytes of units [u0, u1), compacted in temp, into the tile */
GG_FN void
gg_copy_back(const gg_encode_args *a, uint64_t u0, uint64_t u1, const uint8_t *temp,
			 unsigned lane, unsigned nlanes)
{
	uint64_t	from = a->bases[u0];
	uint64_t	to = gg_chunk_end(a, u1);

	if (gg_chunk_direct(a, u0, u1))
		return;
	gg_copy_lanes(a->tile + a->codes_at + from, temp, to - from, (uintptr_t) temp,
				  (uintptr_t) temp + a->temp_bytes, lane, nlanes);
}

/* ---- split table, sentinels and header ---- */

GG_FN uint64_t
gg_total_code_bytes(const gg_encode_args *a)
{
	uint64_t	last = a->nunits - 1;

	return a->bases[last] + a->sizes[last];
}

/* entry k of the split table (k <= nsplits), plus the index sentinels */
GG_FN void
gg_split_entry(const gg_encode_args *a, uint64_t k)
{
	uint8_t    *entry = a->tile + a->splits_at + k * 3 * a->width;

	if (k < a->nsplits)
	{
		uint64_t	u = k * a->units_per_split;
		const gg_unit *r = &a->units[u];

		gsst_tile_put_entry(entry, 0, a->width, r->first_value);
		gsst_tile_put_entry(entry, 1, a->width, a->bases[u]);
		gsst_tile_put_entry(entry, 2, a->width, r->raw_start);
	}
	else if (k == a->nsplits)
	{
		uint64_t	c = gg_total_code_bytes(a);

		gsst_tile_put_entry(entry, 0, a->width, a->n);
		gsst_tile_put_entry(entry, 1, a->width, c);
		gsst_tile_put_entry(entry, 2, a->width, a->raw_bytes);
		gsst_tile_put_entry(a->comp_entries, a->n, a->width, c);
		gsst_tile_put_entry(a->raw_entries, a->n, a->width, a->raw_bytes);
		*a->code_bytes_out = c;
	}
}

/* byte i of the header region [0, index_at) or of the padding before codes */
GG_FN void
gg_prefix_byte(const gg_encode_args *a, uint64_t i)
{
	if (i < a->index_at)
	{
		uint8_t		b = a->prefix[i];

		if (i >= 40 && i < 48)
			b = (uint8_t) (gg_total_code_bytes(a) >> (8 * (i - 40)));
		a->tile[i] = b;
	}
	else if (i - a->index_at < a->codes_at - a->splits_end)
		a->tile[a->splits_end + (i - a->index_at)] = 0;
}

/*
 * ---- the version 2 value index (tile_layout.h) ----
 *
 * The encoder writes comp and raw offsets into side arrays, as for a
 * version 1 tile; once the code size is known a warp per block of values
 * packs them into the tile's block entries, length bytes and long list,
 * and a decoder expands them back, checked, into such arrays.  A lane
 * takes GG_V2_PER_LANE consecutive values; the phases below are what a lane
 * does between the warp's scans (the CPU emulation runs them lane by lane).
 */
#define GG_V2_LANES		32
#define GG_V2_PER_LANE	(GSST_TILE_BLOCK_VALUES / GG_V2_LANES)

/* The first of lane's values in block b; returns how many it has. */
GG_FN uint32_t
gg_v2_lane_values(const gsst_tile_layout *l, uint64_t b, uint32_t lane, uint64_t *first)
{
	uint64_t	at = b * GSST_TILE_BLOCK_VALUES + (uint64_t) lane * GG_V2_PER_LANE;

	*first = at;
	if (at >= l->nvalues)
		return 0;
	return l->nvalues - at < GG_V2_PER_LANE ? (uint32_t) (l->nvalues - at) : GG_V2_PER_LANE;
}

/*
 * Entries first .. first + count of a side array (count <= GG_V2_PER_LANE).
 * On the GPU a lane's whole share of 4-byte entries is a 16-byte load and
 * one more: the arrays are 256-aligned and first a multiple of
 * GG_V2_PER_LANE.  (8-byte entries, batches of 4 GiB, load one by one.)
 */
GG_FN void
gg_v2_lane_entries(const uint8_t *entries, uint64_t first, uint32_t count, uint32_t w,
				   uint64_t e[GG_V2_PER_LANE + 1])
{
#ifdef __CUDA_ARCH__
	if (count == GG_V2_PER_LANE && w == 4)
	{
		uint4		v = *(const uint4 *) (entries + first * 4);

		e[0] = v.x;
		e[1] = v.y;
		e[2] = v.z;
		e[3] = v.w;
		e[4] = ((const uint32_t *) entries)[first + 4];
		return;
	}
#endif
	for (uint32_t j = 0; j <= count; j++)
		e[j] = gsst_le_get(entries + (first + j) * w, w);
}

/*
 * The lane's long values, whose sum per block places the long list; with
 * write (a constant where inlined), also its raw length bytes: phase 1,
 * which needs only the raw offsets and the layout, so it runs beside the
 * encoding kernel.  Phase 2 counts again in a block that has long values.
 */
GG_FN uint32_t
gg_v2_lane_raw(const gg_encode_args *a, uint64_t b, uint32_t lane, const int write)
{
	uint64_t	i;
	uint32_t	count = gg_v2_lane_values(&a->layout, b, lane, &i);
	uint64_t	r[GG_V2_PER_LANE + 1];
	uint32_t	longs = 0;
	uint32_t	bytes = 0;

	gg_v2_lane_entries(a->raw_entries, i, count, a->layout.width, r);
	for (uint32_t j = 0; j < count; j++)
	{
		uint64_t	raw_len = r[j + 1] - r[j];

		longs += gsst_tile_is_long(raw_len);
		bytes |= (uint32_t) gsst_tile_length_byte(raw_len, raw_len) << (8 * j);
	}
	if (write && count == GG_V2_PER_LANE)
		gsst_le_put(a->tile + a->layout.raw_lens_at + i, 4, bytes);
	else if (write)
		for (uint32_t j = 0; j < count; j++)
			a->tile[a->layout.raw_lens_at + i + j] = (uint8_t) (bytes >> (8 * j));
	return longs;
}

/*
 * encoder, phase 2: the lane's code length bytes (and, in a block with
 * long values, its raw length bytes again) and long entries, the first at
 * long_at; long_first[b] is the exclusive scan of the blocks' long values
 * (long_first[nblocks] = L).  Lane 0 writes the block's entry; the last
 * block also the sentinel entry and the padding after the length bytes and
 * before the long list.
 */
GG_FN void
gg_v2_pack_lane(const gg_encode_args *a, uint64_t b, uint32_t lane, uint64_t long_at,
				const uint64_t *long_first)
{
	gsst_tile_layout l = a->layout;
	uint32_t	w = l.width;
	uint64_t	i;
	uint32_t	count = gg_v2_lane_values(&l, b, lane, &i);
	uint8_t    *tile = a->tile;

	uint64_t	c[GG_V2_PER_LANE + 1],
				r[GG_V2_PER_LANE + 1];

	gsst_tile_layout_finish(&l, *a->code_bytes_out, long_first[l.nblocks]);
	gg_v2_lane_entries(a->comp_entries, i, count, w, c);
	if (count == GG_V2_PER_LANE && long_first[b + 1] == long_first[b])
	{
		/*
		 * A block without long values (the usual one): its raw length
		 * bytes are written (phase 1), and its code length bytes are the
		 * code lengths, stored four at a time.
		 */
		uint32_t	cw = 0;

		for (uint32_t j = 0; j < GG_V2_PER_LANE; j++)
			cw |= (uint32_t) (c[j + 1] - c[j]) << (8 * j);
		gsst_le_put(tile + l.code_lens_at + i, 4, cw);
		r[0] = lane == 0 ? gsst_le_get(a->raw_entries + i * w, w) : 0;
	}
	else
	{
		gg_v2_lane_entries(a->raw_entries, i, count, w, r);
		for (uint32_t j = 0; j < count; j++)
			long_at += (uint64_t) gsst_tile_put_lengths(tile + l.code_lens_at, tile + l.raw_lens_at,
														tile + l.longs_at, w, i + j, long_at,
														c[j + 1] - c[j], r[j + 1] - r[j]);
	}
	if (lane == 0)
	{
		uint8_t    *entry = tile + l.blocks_at + b * 3 * w;

		gsst_le_put(entry, w, c[0]);
		gsst_le_put(entry + w, w, r[0]);
		gsst_le_put(entry + 2 * w, w, long_first[b]);
		if (b + 1 == l.nblocks)
		{
			entry += 3 * w;
			gsst_le_put(entry, w, l.code_bytes);
			gsst_le_put(entry + w, w, a->raw_bytes);
			gsst_le_put(entry + 2 * w, w, l.nlongs);
			for (uint64_t p = l.raw_lens_at + l.nvalues; p < l.splits_at; p++)
				tile[p] = 0;
			for (uint64_t p = l.codes_at + l.code_bytes; p < l.longs_at; p++)
				tile[p] = 0;
		}
	}
}

/* where block b starts: its entry (comp, raw, long) */
GG_FN void
gg_v2_block_start(const uint8_t *tile, const gsst_tile_layout *l, uint64_t b, uint64_t *comp,
				  uint64_t *raw, uint64_t *long_at)
{
	*comp = gsst_tile_block_field(tile, l, b, 0);
	*raw = gsst_tile_block_field(tile, l, b, 1);
	*long_at = gsst_tile_block_field(tile, l, b, 2);
}

/* decoder, phase 1: the lane's long values */
GG_FN uint32_t
gg_v2_expand_lane_longs(const uint8_t *tile, const gsst_tile_layout *l, uint64_t b, uint32_t lane)
{
	uint64_t	i;
	uint32_t	count = gg_v2_lane_values(l, b, lane, &i);
	uint32_t	longs = 0;

	for (uint32_t j = 0; j < count; j++, i++)
		longs += tile[l->raw_lens_at + i] == GSST_TILE_LONG;
	return longs;
}

/*
 * decoder, phase 2: the lane's code and raw bytes, its first long entry at
 * long_at; returns nonzero when a value breaks gsst_tile_get_lengths' rules
 * (raw lengths capped at raw_bytes: the sums cannot overflow).
 */
GG_FN int
gg_v2_expand_lane_sums(const uint8_t *tile, const gsst_tile_layout *l, uint64_t raw_bytes,
					   uint64_t b, uint32_t lane, uint64_t long_at, uint64_t *code_sum,
					   uint64_t *raw_sum)
{
	uint64_t	i;
	uint32_t	count = gg_v2_lane_values(l, b, lane, &i);
	int			bad = 0;

	*code_sum = *raw_sum = 0;
	for (uint32_t j = 0; j < count; j++, i++)
	{
		uint64_t	cl = 0,
					rl = 0;
		int			is_long = gsst_tile_get_lengths(tile, l, i, long_at, raw_bytes, &cl, &rl);

		bad |= is_long < 0;
		long_at += is_long > 0;
		*code_sum += cl;
		*raw_sum += rl;
	}
	return bad;
}

/*
 * decoder, phase 3: the lane's entries of the version 1 arrays comp_out
 * and raw_out, its first value starting at (comp, raw) and its first long
 * entry at long_at.  The lane of the block's last value also writes the
 * entry after it and checks that the block adds up to the next block's
 * entry; lane 0 of block 0 checks the first entry and the sentinel (C, R,
 * L).  Returns nonzero on a failed check.
 */
GG_FN int
gg_v2_expand_lane_write(const uint8_t *tile, const gsst_tile_layout *l, uint64_t raw_bytes,
						uint64_t b, uint32_t lane, uint64_t long_at, uint64_t comp, uint64_t raw,
						uint8_t *comp_out, uint8_t *raw_out)
{
	uint32_t	w = l->width;
	uint64_t	i;
	uint32_t	count = gg_v2_lane_values(l, b, lane, &i);
	uint64_t	block_end = b * GSST_TILE_BLOCK_VALUES + GSST_TILE_BLOCK_VALUES;
	int			bad = 0;

	if (block_end > l->nvalues)
		block_end = l->nvalues;
	for (uint32_t j = 0; j < count; j++, i++)
	{
		uint64_t	cl = 0,
					rl = 0;
		int			is_long = gsst_tile_get_lengths(tile, l, i, long_at, raw_bytes, &cl, &rl);

		long_at += is_long > 0;
		gsst_le_put(comp_out + i * w, w, comp);
		gsst_le_put(raw_out + i * w, w, raw);
		comp += cl;
		raw += rl;
	}
	if (count > 0 && i == block_end)
	{
		uint64_t	next = b + 1;

		gsst_le_put(comp_out + i * w, w, comp);
		gsst_le_put(raw_out + i * w, w, raw);
		bad |= comp != gsst_tile_block_field(tile, l, next, 0) ||
			raw != gsst_tile_block_field(tile, l, next, 1) ||
			long_at != gsst_tile_block_field(tile, l, next, 2);
	}
	if (lane == 0 && b == 0)
		bad |= gsst_tile_block_field(tile, l, 0, 0) != 0 || gsst_tile_block_field(tile, l, 0, 1) != 0 ||
			gsst_tile_block_field(tile, l, 0, 2) != 0 ||
			gsst_tile_block_field(tile, l, l->nblocks, 0) != l->code_bytes ||
			gsst_tile_block_field(tile, l, l->nblocks, 1) != raw_bytes ||
			gsst_tile_block_field(tile, l, l->nblocks, 2) != l->nlongs;
	return bad;
}

/* ---- sample for training ---- */

#define GG_SAMPLE_SLOTS 4096
#define GG_SAMPLE_PIECE 512

GG_FN uint64_t
gg_sample_index(uint64_t n, uint32_t k)
{
	uint32_t	r = 0;

	if (n <= GG_SAMPLE_SLOTS)
		return k < n ? k : GG_NO_INDEX;
	/* bit-reversed slots: any prefix of slots spreads over the batch */
	for (int b = 0; b < 12; b++)
		r |= ((k >> b) & 1u) << (11 - b);
	return (uint64_t) r * n / GG_SAMPLE_SLOTS;
}

GG_FN void
gg_sample_len(const uint64_t *off, uint64_t n, uint32_t k, uint32_t *lens)
{
	uint64_t	i = gg_sample_index(n, k);
	uint64_t	len = 0;

	if (i != GG_NO_INDEX)
		len = gg_ld_off(off, i + 1) - gg_ld_off(off, i);
	lens[k] = (uint32_t) (len < GG_SAMPLE_PIECE ? len : GG_SAMPLE_PIECE);
}

GG_FN void
gg_sample_copy(const uint8_t *data, const uint64_t *off, uint64_t n, uint32_t k,
			   const uint32_t *lens, const uint32_t *starts, uint32_t target,
			   uint8_t *sample, unsigned lane, unsigned nlanes)
{
	uint64_t	i = gg_sample_index(n, k);
	const uint8_t *src;

	if (i == GG_NO_INDEX || starts[k] + lens[k] > target)
		return;
	src = data + gg_ld_off(off, i);
	for (uint32_t b = lane; b < lens[k]; b += nlanes)
		sample[starts[k] + b] = src[b];
}

/* ---- decoding ---- */

/* input: 8 bytes at any position of the code area, 16-byte chunk loads */
typedef struct gg_in
{
	uintptr_t	base;			/* 16-aligned address of x0 */
	uint64_t	x0,
				x1,
				x2,
				x3;
	uintptr_t	lo,
				hi;
} gg_in;

GG_FN void
gg_in_seek(gg_in *in, uintptr_t p)
{
	in->base = p & ~(uintptr_t) 15;
	gg_load_chunk_guarded(in->base, in->lo, in->hi, &in->x0, &in->x1);
	gg_load_chunk_guarded(in->base + 16, in->lo, in->hi, &in->x2, &in->x3);
}

GG_FN uint64_t
gg_in_peek(const gg_in *in, uintptr_t p)
{
	unsigned	o = (unsigned) p - (unsigned) in->base;	/* < 16 */
	uint64_t	a = o >= 8 ? in->x1 : in->x0;
	uint64_t	b = o >= 8 ? in->x2 : in->x1;
	unsigned	shift = (o & 7) * 8;

	return (a >> shift) | ((b << 1) << (63 - shift));
}

/* after moving forward by at most 8 bytes */
GG_FN void
gg_in_advance(gg_in *in, uintptr_t p)
{
	if ((unsigned) p - (unsigned) in->base >= 16)
	{
		in->base += 16;
		in->x0 = in->x2;
		in->x1 = in->x3;
		gg_load_chunk_guarded(in->base + 16, in->lo, in->hi, &in->x2, &in->x3);
	}
}

/* output: 16-byte aligned stores inside [lo, hi) */
typedef struct gg_out
{
	uintptr_t	chunk;			/* 16-aligned address of the acc */
	uint64_t	a0,
				a1;
	unsigned	fill;			/* bytes in the acc, < 16 */
	uintptr_t	lo,
				hi;
} gg_out;

GG_FN void
gg_out_init(gg_out *o, uintptr_t lo, uintptr_t hi)
{
	o->lo = lo;
	o->hi = hi;
	o->chunk = lo & ~(uintptr_t) 15;
	o->fill = (unsigned) (lo - o->chunk);
	o->a0 = 0;
	o->a1 = 0;
}

GG_FN void
gg_out_flush(gg_out *o, unsigned upto)
{
	uintptr_t	c = o->chunk;

	if (c >= o->lo && c + 16 <= o->hi && upto == 16)
		gg_st128((uint8_t *) c, o->a0, o->a1);
	else
	{
		unsigned	from = c < o->lo ? (unsigned) (o->lo - c) : 0;
		unsigned	to = c + upto > o->hi ? (unsigned) (o->hi - c) : upto;

		if (from < to)
			gg_store_chunk_part((uint8_t *) c, o->a0, o->a1, from, to);
	}
}

/* append n (1..8) bytes; bytes of `bytes` above n must be zero */
GG_FN void
gg_out_put(gg_out *o, uint64_t bytes, unsigned n)
{
	unsigned	f = o->fill;
	uint64_t	carry = 0;

	if (f < 8)
	{
		o->a0 |= bytes << (8 * f);
		o->a1 |= (bytes >> 1) >> (63 - 8 * f);	/* bytes >> (64 - 8f) */
	}
	else
	{
		o->a1 |= bytes << (8 * (f - 8));
		carry = f > 8 ? bytes >> (8 * (16 - f)) : 0;
	}
	f += n;
	if (f >= 16)
	{
		gg_out_flush(o, 16);
		o->chunk += 16;
		o->a0 = carry;
		o->a1 = 0;
		f -= 16;
	}
	o->fill = f;
}

GG_FN void
gg_out_finish(gg_out *o)
{
	if (o->fill > 0)
		gg_out_flush(o, o->fill);
}

/* decode codes [c, cend) that must yield exactly nout bytes */
GG_FN int
gg_decode_codes(const gg_decoder *dec, gg_in *in, gg_out *o, uint64_t c, uint64_t cend,
				uint64_t nout)
{
	uintptr_t	codes = in->lo;
	uint64_t	produced = 0;

	while (c < cend)
	{
		uint64_t	word = gg_in_peek(in, codes + c);
		unsigned	code = (unsigned) (word & 0xFF);
		uint64_t	sym;
		unsigned	len,
					adv;

		if (code == GSST_ESCAPE)
		{
			if (cend - c < 2)
				return GSST_ERR_DANGLING_ESCAPE;
			sym = (word >> 8) & 0xFF;
			len = 1;
			adv = 2;
		}
		else
		{
			len = dec->len[code];
			if (len == 0)
				return GSST_ERR_BAD_CODE;
			sym = dec->symbol[code];
			adv = 1;
		}
		if (produced + len > nout)
			return GSST_ERR_LENGTH;
		gg_out_put(o, sym, len);
		produced += len;
		c += adv;
		gg_in_advance(in, codes + c);
	}
	return produced == nout ? GSST_OK : GSST_ERR_LENGTH;
}

/* copy stored-raw bytes [c, c + n) of the code area to the output */
GG_FN void
gg_decode_copy(gg_in *in, gg_out *o, uint64_t c, uint64_t n)
{
	uintptr_t	codes = in->lo;
	uint64_t	end = c + n;

	while (c < end)
	{
		uint64_t	left = end - c;
		unsigned	k = left < 8 ? (unsigned) left : 8u;

		gg_out_put(o, gg_in_peek(in, codes + c) & gg_low_mask(k), k);
		c += k;
		gg_in_advance(in, codes + c);
	}
}

/* Entry s of the split table: (first_value, comp, raw). */
GG_FN void
gg_read_split(const gg_decode_args *a, uint64_t s, uint64_t *v, uint64_t *c, uint64_t *r)
{
	const uint8_t *e = a->splits + s * 3 * a->width;

	*v = gg_read_entry(e, 0, a->width);
	*c = gg_read_entry(e, 1, a->width);
	*r = gg_read_entry(e, 2, a->width);
}

/* decode split s to its raw range; mirrors gsst_tile_decode_split */
GG_FN void
gg_decode_split(const gg_decoder *dec, const gg_decode_args *a, uint64_t s)
{
	uint32_t	W = a->width;
	uint64_t	v, c, r, v1, c1, r1;
	gg_in		in;
	gg_out		o;
	int			rc = GSST_OK;
	int			inside = 0;

	gg_read_split(a, s, &v, &c, &r);
	gg_read_split(a, s + 1, &v1, &c1, &r1);

	if (!(v <= v1 && v1 <= a->n && c <= c1 && c1 <= a->code_bytes && r <= r1 &&
		  r1 <= a->raw_bytes))
	{
		gg_set_error(a->err, GSST_ERR_OFFSET, 1, s);
		return;
	}
	in.lo = (uintptr_t) a->codes;
	in.hi = (uintptr_t) a->codes + a->code_bytes;
	gg_in_seek(&in, in.lo + c);
	gg_out_init(&o, (uintptr_t) a->out + r, (uintptr_t) a->out + r1);

	while (r < r1 || c < c1)
	{
		uint64_t	vc0,
					vr0,
					vc1,
					vr1,
					ce,
					re;

		if (v >= a->n)
		{
			rc = GSST_ERR_OFFSET;
			break;
		}
		vc0 = gg_read_entry(a->comp, v, W);
		vr0 = gg_read_entry(a->raw, v, W);
		vc1 = gg_read_entry(a->comp, v + 1, W);
		vr1 = gg_read_entry(a->raw, v + 1, W);
		if (vc1 < vc0 || vr1 < vr0 || vc1 - vc0 > vr1 - vr0)
		{
			rc = GSST_ERR_OFFSET;
			break;
		}
		ce = vc1 < c1 ? vc1 : c1;
		re = vr1 < r1 ? vr1 : r1;
		if (c > ce || r > re)
		{
			rc = GSST_ERR_OFFSET;
			break;
		}
		if (vc1 - vc0 == vr1 - vr0)
		{
			if (ce - c != re - r)
			{
				rc = GSST_ERR_LENGTH;
				break;
			}
			gg_decode_copy(&in, &o, c, ce - c);
		}
		else
		{
			rc = gg_decode_codes(dec, &in, &o, c, ce, re - r);
			if (rc != GSST_OK)
				break;
		}
		if (vc1 > c1 || vr1 > r1)
		{
			inside = 1;			/* the split ends inside this value */
			break;
		}
		c = vc1;
		r = vr1;
		v++;
	}
	/*
	 * The next split starts in the value this one ends inside, or else
	 * the values the loop did not reach (empty ones at the split's end)
	 * start and end there too, as gsst_tile_open checks.
	 */
	if (rc == GSST_OK && (inside ? v != v1 : v > v1))
		rc = GSST_ERR_OFFSET;
	for (uint64_t i = v; rc == GSST_OK && !inside && i <= v1; i++)
		if (gg_read_entry(a->comp, i, W) != c1 || gg_read_entry(a->raw, i, W) != r1)
			rc = GSST_ERR_OFFSET;
	if (rc != GSST_OK)
	{
		gg_set_error(a->err, rc, 1, s);
		return;
	}
	gg_out_finish(&o);
}

/*
 * Value i's offsets in a version 2 tile read through its own index (the
 * args' comp NULL): its block's entry and the lengths of the values before
 * it in the block, each checked as gsst_tile_get_lengths checks it, and
 * every sum kept within C and R.  Returns GSST_OK or GSST_ERR_OFFSET.
 */
GG_FN int
gg_v2_value_offsets(const gg_decode_args *a, uint64_t i, uint64_t *c0, uint64_t *c1, uint64_t *r0,
					uint64_t *r1)
{
	const gsst_tile_layout *l = &a->layout;
	uint64_t	b = i / GSST_TILE_BLOCK_VALUES;
	uint64_t	c,
				r,
				k,
				cl = 0,
				rl = 0;

	gg_v2_block_start(a->tile, l, b, &c, &r, &k);
	if (c > a->code_bytes || r > a->raw_bytes)
		return GSST_ERR_OFFSET;
	for (uint64_t j = b * GSST_TILE_BLOCK_VALUES;; j++)
	{
		int			is_long = gsst_tile_get_lengths(a->tile, l, j, k, a->raw_bytes, &cl, &rl);

		if (is_long < 0 || cl > a->code_bytes - c || rl > a->raw_bytes - r)
			return GSST_ERR_OFFSET;
		if (j == i)
			break;
		k += (uint64_t) is_long;
		c += cl;
		r += rl;
	}
	*c0 = c;
	*c1 = c + cl;
	*r0 = r;
	*r1 = r + rl;
	return GSST_OK;
}

/* value i's offsets, from the index as the args give it */
GG_FN int
gg_value_offsets(const gg_decode_args *a, uint64_t i, uint64_t *c0, uint64_t *c1, uint64_t *r0,
				 uint64_t *r1)
{
	if (a->comp == NULL)
		return gg_v2_value_offsets(a, i, c0, c1, r0, r1);
	*c0 = gg_read_entry(a->comp, i, a->width);
	*c1 = gg_read_entry(a->comp, i + 1, a->width);
	*r0 = gg_read_entry(a->raw, i, a->width);
	*r1 = gg_read_entry(a->raw, i + 1, a->width);
	return GSST_OK;
}

/* decode one value on its own (t-th of the selection, or value t) */
GG_FN void
gg_decode_value(const gg_decoder *dec, const gg_decode_args *a, uint64_t t)
{
	uint64_t	i = a->sel ? a->sel[t] : t;
	uint64_t	vc0,
				vc1,
				vr0,
				vr1,
				dst;
	gg_in		in;
	gg_out		o;
	int			rc = GSST_OK;

	if (i >= a->n)
	{
		gg_set_error(a->err, GSST_ERR_OFFSET, 2, t);
		return;
	}
	if (gg_value_offsets(a, i, &vc0, &vc1, &vr0, &vr1) != GSST_OK ||
		vc1 < vc0 || vr1 < vr0 || vc1 - vc0 > vr1 - vr0 || vc1 > a->code_bytes)
	{
		gg_set_error(a->err, GSST_ERR_OFFSET, 2, i);
		return;
	}
	dst = a->sel ? a->sel_off[t] : vr0;
	if (dst > a->out_cap || a->out_cap - dst < vr1 - vr0)
	{
		gg_set_error(a->err, GSST_ERR_SPACE, 2, i);
		return;
	}
	if (vr1 == vr0)
		return;
	in.lo = (uintptr_t) a->codes;
	in.hi = (uintptr_t) a->codes + a->code_bytes;
	gg_in_seek(&in, in.lo + vc0);
	gg_out_init(&o, (uintptr_t) a->out + dst, (uintptr_t) a->out + dst + (vr1 - vr0));
	if (vc1 - vc0 == vr1 - vr0)
		gg_decode_copy(&in, &o, vc0, vc1 - vc0);
	else
		rc = gg_decode_codes(dec, &in, &o, vc0, vc1, vr1 - vr0);
	if (rc != GSST_OK)
	{
		gg_set_error(a->err, rc, 2, i);
		return;
	}
	gg_out_finish(&o);
}

/* length of the t-th selected value, for the output prefix sum */
GG_FN void
gg_selected_len(const gg_decode_args *a, uint64_t t, uint64_t *lens)
{
	uint64_t	i = a->sel[t];

	uint64_t	c0,
				c1,
				r0,
				r1;

	if (i >= a->n || gg_value_offsets(a, i, &c0, &c1, &r0, &r1) != GSST_OK)
		lens[t] = 0;			/* gg_decode_value reports it */
	else
		lens[t] = r1 >= r0 ? r1 - r0 : 0;
}

#endif							/* GSST_GPU_BODY_H */
