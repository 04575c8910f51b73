/*
 * decode_avx512.c - gsst_decode_value on AVX-512 (VBMI2), chosen at run
 * time by decode.c, and the CPU check that every AVX-512 decoder shares.
 */
#include "codec_internal.h"

#include "decode_avx512.h"
#include "decode_run.h"

#ifdef GSST_DECODE_AVX512

int			gsst_decode_avx512_cpu = -1;

GSST_NOINLINE int
gsst_decode_avx512_cpu_check(void)
{
	int			cpu;

	__builtin_cpu_init();
	cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		__builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
		__builtin_cpu_supports("avx512vbmi2") &&
		__builtin_cpu_supports("avx512bitalg") && __builtin_cpu_supports("bmi2") &&
		__builtin_cpu_supports("popcnt");
	__atomic_store_n(&gsst_decode_avx512_cpu, cpu, __ATOMIC_RELAXED);
	return cpu;
}

int
gsst_cpu_has_decode_simd(void)
{
	int			cpu = __atomic_load_n(&gsst_decode_avx512_cpu, __ATOMIC_RELAXED);

	return cpu < 0 ? gsst_decode_avx512_cpu_check() : cpu;
}

/*
 * 16 codes a step.  Each step's bytes go out through masked stores that end
 * at its decoded end, so an output of exactly the decoded length suffices
 * (the glue sizes long values so).  A step stops before an escape or an
 * unused code; an escape's literal is copied and the next step starts
 * after it.  On any error the whole value goes through gsst_decode_run,
 * which names it exactly as the portable path does.
 */
__attribute__((target(AVX512_TARGET))) int64_t
gsst_decode_value_avx512(const gsst_table *table, const uint8_t *in, size_t in_len,
						 uint8_t *out, size_t out_cap)
{
	avx512_tables v;
	const uint8_t *p = in;
	const uint8_t *in_end = in + in_len;
	uint8_t    *o = out;
	uint8_t    *out_end = out + out_cap;

	avx512_tables_init(&v, table);
	while (p < in_end)
	{
		unsigned	take = in_end - p >= 16 ? 16 : (unsigned) (in_end - p);
		__m128i		codes = avx512_load_codes(&v, p, take);
		unsigned	bad = avx512_codes_bad(&v, codes, take);
		__m512i		lens = avx512_lens(&v, codes);
		unsigned	good = take;
		__m512i		b0,
					b1;
		unsigned	n0,
					n1;

		/* good only from here on: the usual step's p does not wait for the codes */
		if (GSST_UNLIKELY(bad))
		{
			good = _tzcnt_u32(bad);
			lens = _mm512_maskz_mov_epi8(_bzhi_u64(~0ull, good), lens);
		}
		if (take > 8)
			avx512_expand16(&v, codes, lens, &b0, &n0, &b1, &n1);
		else
		{
			/* a short value or last step: half the gathers */
			avx512_expand8(&v, codes, lens, &b0, &n0);
			b1 = b0;
			n1 = 0;
		}
		if (GSST_UNLIKELY((size_t) (out_end - o) < n0 + n1))
			break;
		_mm512_mask_storeu_epi8(o, _bzhi_u64(~0ull, n0), b0);
		_mm512_mask_storeu_epi8(o + n0, _bzhi_u64(~0ull, n1), b1);
		o += n0 + n1;
		p += good;
		if (GSST_UNLIKELY(bad))
		{
			/* an escape and its literal, or an error for gsst_decode_run to name */
			if (*p != GSST_ESCAPE || in_end - p < 2 || o == out_end)
				break;
			*o++ = p[1];
			p += 2;
		}
	}
	if (GSST_LIKELY(p == in_end))
		return (int64_t) (o - out);
	return gsst_decode_run(table, in, in_end, out, out_end);
}

#else							/* no AVX-512 decoders */

int
gsst_cpu_has_decode_simd(void)
{
	return 0;
}

#endif
