/*
 * decode_avx512.h - the AVX-512 (VBMI2) decoding steps, shared by the tile
 * decoders (tile_decode.c) and the per-value decoder (decode_avx512.c).
 *
 * 16 codes at a time: their lengths come from the len table held in four
 * registers (vpermi2b), their symbols from a gather, and vpcompressb keeps
 * the first len[c] bytes of each symbol.  No branch depends on the codes.
 * Chosen at run time (avx512_usable); GSST_NO_SIMD builds without it.
 */
#ifndef GSST_DECODE_AVX512_H
#define GSST_DECODE_AVX512_H

#include "codec_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GSST_NO_SIMD)
#define GSST_DECODE_AVX512 1
#include <immintrin.h>

#define AVX512_TARGET "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx512bitalg,bmi,bmi2,popcnt"
#define AVX512_FN static __attribute__((target(AVX512_TARGET), noinline))
#define AVX512_INLINE static inline __attribute__((target(AVX512_TARGET), always_inline))

/* 1: the CPU has what the AVX-512 decoders need, 0: not, -1: not asked yet */
extern int	gsst_decode_avx512_cpu;

/* Asks the CPU once; out of line, so that avx512_usable() is a load and a test. */
GSST_NOINLINE int gsst_decode_avx512_cpu_check(void);

GSST_INLINE int
avx512_usable(void)
{
	int			cpu = __atomic_load_n(&gsst_decode_avx512_cpu, __ATOMIC_RELAXED);

	if (GSST_UNLIKELY(cpu < 0))
		cpu = gsst_decode_avx512_cpu_check();
	return cpu && !gsst_decode_simd_disabled;
}

typedef struct avx512_tables
{
	__m512i		len[4];			/* len[256] */
	__m512i		expand[2];		/* byte j: 8 * half + j / 8 */
	__m512i		byte_in_word;	/* byte j: j % 8 */
	__m128i		nsymbols;
	__m128i		escapes;
	const long long *symbol;
} avx512_tables;

AVX512_INLINE void
avx512_tables_init(avx512_tables *v, const gsst_table *table)
{
	v->len[0] = _mm512_loadu_si512(table->len);
	v->len[1] = _mm512_loadu_si512(table->len + 64);
	v->len[2] = _mm512_loadu_si512(table->len + 128);
	v->len[3] = _mm512_loadu_si512(table->len + 192);
	v->expand[0] = _mm512_set_epi64(0x0707070707070707ll, 0x0606060606060606ll,
									0x0505050505050505ll, 0x0404040404040404ll,
									0x0303030303030303ll, 0x0202020202020202ll,
									0x0101010101010101ll, 0);
	v->expand[1] = _mm512_add_epi8(v->expand[0], _mm512_set1_epi8(8));
	v->byte_in_word = _mm512_set1_epi64(0x0706050403020100ll);
	v->nsymbols = _mm_set1_epi8((char) table->nsymbols);
	v->escapes = _mm_set1_epi8((char) GSST_ESCAPE);
	v->symbol = (const long long *) table->symbol;
}

/* len[c] of each code byte of c (codes >= 128 from the upper half) */
AVX512_INLINE __m512i
avx512_lens(const avx512_tables *v, __m128i codes)
{
	__m512i		c = _mm512_castsi128_si512(codes);
	__m512i		lo = _mm512_permutex2var_epi8(v->len[0], c, v->len[1]);
	__m512i		hi = _mm512_permutex2var_epi8(v->len[2], c, v->len[3]);

	return _mm512_mask_blend_epi8(_mm512_movepi8_mask(c), lo, hi);
}

/* len[c] of each of 64 code bytes */
AVX512_INLINE __m512i
avx512_lens64(const avx512_tables *v, __m512i c)
{
	__m512i		lo = _mm512_permutex2var_epi8(v->len[0], c, v->len[1]);
	__m512i		hi = _mm512_permutex2var_epi8(v->len[2], c, v->len[3]);

	return _mm512_mask_blend_epi8(_mm512_movepi8_mask(c), lo, hi);
}

/* Codes [0, k) of in, the rest escapes (decoding to nothing); reads in[0, k) only. */
AVX512_INLINE __m128i
avx512_load_codes(const avx512_tables *v, const uint8_t *in, unsigned k)
{
	return _mm_mask_loadu_epi8(v->escapes, (__mmask16) _bzhi_u32(0xFFFF, k), in);
}

/* Nonzero when one of the codes [0, k) is an escape or unused. */
AVX512_INLINE unsigned
avx512_codes_bad(const avx512_tables *v, __m128i codes, unsigned k)
{
	return _mm_mask_cmpge_epu8_mask((__mmask16) _bzhi_u32(0xFFFF, k), codes, v->nsymbols);
}

/*
 * The bytes that 16 codes (valid ones and escapes, which decode to
 * nothing) with their lengths lens decode to: the first 8 codes' in *b0,
 * *n0 of them, the others' in *b1, *n1 of them.
 */
AVX512_INLINE void
avx512_expand16(const avx512_tables *v, __m128i codes, __m512i lens,
				__m512i *b0, unsigned *n0, __m512i *b1, unsigned *n1)
{
	__m512i		s0 = _mm512_i64gather_epi64(_mm512_cvtepu8_epi64(codes), v->symbol, 8);
	__m512i		s1 = _mm512_i64gather_epi64(_mm512_cvtepu8_epi64(_mm_unpackhi_epi64(codes, codes)),
											v->symbol, 8);
	__mmask64	m0 = _mm512_cmplt_epu8_mask(v->byte_in_word,
											_mm512_permutexvar_epi8(v->expand[0], lens));
	__mmask64	m1 = _mm512_cmplt_epu8_mask(v->byte_in_word,
											_mm512_permutexvar_epi8(v->expand[1], lens));

	*b0 = _mm512_maskz_compress_epi8(m0, s0);
	*n0 = (unsigned) _mm_popcnt_u64(m0);
	*b1 = _mm512_maskz_compress_epi8(m1, s1);
	*n1 = (unsigned) _mm_popcnt_u64(m1);
}

/*
 * Decode 16 codes (valid ones and escapes) with their lengths lens to o.
 * Returns the end; *over gets nonzero when the first 8 codes end past
 * limit (then the second 8 are written at limit: a value that gets there
 * is bad anyway).  Stores o[0, 64) and at most limit[0, 64).
 */
AVX512_INLINE uint8_t *
avx512_decode16(const avx512_tables *v, __m128i codes, __m512i lens, uint8_t *o,
				uint8_t *limit, uint64_t *over)
{
	__m512i		b0,
				b1;
	unsigned	n0,
				n1;
	uint8_t    *o1;

	avx512_expand16(v, codes, lens, &b0, &n0, &b1, &n1);
	o1 = o + n0;
	_mm512_storeu_si512(o, b0);
	*over |= o1 > limit;
	o1 = o1 > limit ? limit : o1;
	_mm512_storeu_si512(o1, b1);
	return o1 + n1;
}

/* avx512_expand16 for at most 8 codes (the others escapes): one gather */
AVX512_INLINE void
avx512_expand8(const avx512_tables *v, __m128i codes, __m512i lens, __m512i *b0, unsigned *n0)
{
	__m512i		s0 = _mm512_i64gather_epi64(_mm512_cvtepu8_epi64(codes), v->symbol, 8);
	__mmask64	m0 = _mm512_cmplt_epu8_mask(v->byte_in_word,
											_mm512_permutexvar_epi8(v->expand[0], lens));

	*b0 = _mm512_maskz_compress_epi8(m0, s0);
	*n0 = (unsigned) _mm_popcnt_u64(m0);
}

/* avx512_decode16 for at most 8 codes (the others escapes): one gather */
AVX512_INLINE uint8_t *
avx512_decode8(const avx512_tables *v, __m128i codes, __m512i lens, uint8_t *o)
{
	__m512i		b0;
	unsigned	n0;

	avx512_expand8(v, codes, lens, &b0, &n0);
	_mm512_storeu_si512(o, b0);
	return o + n0;
}

/*
 * A value of k codes to n bytes at dst, 16 codes a step; a step with an
 * escape or an unused code goes code by code.  Returns 0 when done.  Needs
 * dst[0, n + 64) writable.
 */
AVX512_INLINE int
avx512_decode_value(const avx512_tables *v, const uint8_t *in,
					uint64_t k, uint8_t *dst, uint64_t n)
{
	const uint8_t *in_end = in + k;
	uint8_t    *o = dst;
	uint8_t    *limit = dst + n;
	uint64_t	over = 0;

	while (in < in_end)
	{
		unsigned	take = in_end - in >= 16 ? 16 : (unsigned) (in_end - in);
		__m128i		codes = avx512_load_codes(v, in, take);
		unsigned	bad = avx512_codes_bad(v, codes, take);

		if (GSST_UNLIKELY(bad))
		{
			/* the codes before the first escape or unused code, then that one */
			unsigned	good = _tzcnt_u32(bad);
			unsigned	code = in[good];

			o = avx512_decode16(v, codes, _mm512_maskz_mov_epi8(_bzhi_u64(~0ull, good),
																avx512_lens(v, codes)),
								o, limit, &over);
			in += good + 1;
			if (code != GSST_ESCAPE || in == in_end)
				return 1;
			*o++ = *in++;
		}
		else
		{
			o = avx512_decode16(v, codes, avx512_lens(v, codes), o, limit, &over);
			in += take;
		}
		if (GSST_UNLIKELY(o > limit || over))
			return 1;
	}
	return o != limit;
}

/*
 * gsst_decode_value on the AVX-512 path, for a CPU where avx512_usable():
 * the same results, bytes and statuses.
 */
int64_t		gsst_decode_value_avx512(const gsst_table *table, const uint8_t *in,
									 size_t in_len, uint8_t *out, size_t out_cap);
#endif							/* x86-64 AVX-512 */

#endif							/* GSST_DECODE_AVX512_H */
