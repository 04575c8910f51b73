/*
 * decode.c - decoding code sequences, validating untrusted input.
 *
 * Decoding is a table lookup per code with an unconditional 8-byte store;
 * the output pointer then advances by the symbol's length.  Stores may
 * scribble past the decoded end, but never past the caller's out_end.
 */
#include "codec_internal.h"

#include "decode_run.h"

int64_t
gsst_decoded_length(const gsst_table *table, const uint8_t *in, size_t in_len)
{
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
			total += 1;
			pos += 2;
		}
		else
		{
			if (table->len[code] == 0)
				return GSST_ERR_BAD_CODE;
			total += table->len[code];
			pos += 1;
		}
	}
	return (int64_t) total;
}

int64_t
gsst_decoded_utf8_chars(const gsst_table *table, const uint8_t *in, size_t in_len)
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
			total += (in[pos + 1] & 0xC0) != 0x80;
			pos += 2;
		}
		else
		{
			uint64_t	w = table->symbol[code];

			if (table->len[code] == 0)
				return GSST_ERR_BAD_CODE;
			/* bytes 10xxxxxx continue a character; padding bytes are 0 */
			total += table->len[code] -
				(unsigned) __builtin_popcountll(w & ~(w << 1) & high_bits);
			pos += 1;
		}
	}
	return (int64_t) total;
}

int64_t
gsst_decode_value(const gsst_table *table, const uint8_t *in, size_t in_len,
				  uint8_t *out, size_t out_cap)
{
	if (table == NULL || (in == NULL && in_len > 0) || (out == NULL && out_cap > 0))
		return GSST_ERR_ARG;
	return gsst_decode_run(table, in, in + in_len, out, out + out_cap);
}
