/*
 * decode.c - decoding code sequences, validating untrusted input.
 *
 * Decoding is a table lookup per code with an unconditional 8-byte store;
 * the output pointer then advances by the symbol's length.  Stores may
 * scribble past the decoded end, but never past the caller's out_end.
 */
#include "codec_internal.h"

#include "decode_avx512.h"
#include "decode_run.h"

int			gsst_decode_simd_disabled = 0;

/*
 * Values of fewer codes stay on the portable loop: there the AVX-512
 * path's set-up and gathers cost more than the loop's branches, which
 * predict well on columns of short values of one length (bench/README.md).
 */
#define SIMD_MIN_CODES 8

/*
 * Walk the codes without decoding them, checking them as decoding would:
 * the bytes they decode to, or (utf8_chars, a constant where inlined) the
 * UTF-8 characters, counted by the bytes that do not continue one.
 */
GSST_INLINE int64_t
count_decoded(const gsst_table *table, const uint8_t *in, size_t in_len, const int utf8_chars)
{
	const uint64_t high_bits = 0x8080808080808080ull;
	uint64_t	total = 0;
	size_t		pos = 0;

	if (table == NULL || (in == NULL && in_len > 0))
		return GSST_ERR_ARG;
	while (pos < in_len)
	{
		unsigned	code = in[pos];

		if (code == GSST_ESCAPE)
		{
			if (pos + 1 >= in_len)
				return GSST_ERR_DANGLING_ESCAPE;
			total += utf8_chars ? (in[pos + 1] & 0xC0) != 0x80 : 1;
			pos += 2;
		}
		else
		{
			uint64_t	w = table->symbol[code];

			if (table->len[code] == 0)
				return GSST_ERR_BAD_CODE;
			/* bytes 10xxxxxx continue a character; padding bytes are 0 */
			total += table->len[code] -
				(utf8_chars ? (unsigned) __builtin_popcountll(w & ~(w << 1) & high_bits) : 0);
			pos += 1;
		}
	}
	return (int64_t) total;
}

int64_t
gsst_decoded_length(const gsst_table *table, const uint8_t *in, size_t in_len)
{
	return count_decoded(table, in, in_len, 0);
}

int64_t
gsst_decoded_utf8_chars(const gsst_table *table, const uint8_t *in, size_t in_len)
{
	return count_decoded(table, in, in_len, 1);
}

int64_t
gsst_decode_value(const gsst_table *table, const uint8_t *in, size_t in_len,
				  uint8_t *out, size_t out_cap)
{
	if (table == NULL || (in == NULL && in_len > 0) || (out == NULL && out_cap > 0))
		return GSST_ERR_ARG;
#ifdef GSST_DECODE_AVX512
	if (in_len >= SIMD_MIN_CODES && avx512_usable())
		return gsst_decode_value_avx512(table, in, in_len, out, out_cap);
#endif
	return gsst_decode_run(table, in, in + in_len, out, out + out_cap);
}
