/*
 * decode_run.h - the decoder's inner loop, inlined into the per-value and
 * the tile decoders.
 */
#ifndef GSST_DECODE_RUN_H
#define GSST_DECODE_RUN_H

#include "codec_internal.h"

/* Nonzero when any byte of the word is 0xFF (an escape code). */
GSST_INLINE uint64_t
has_escape_byte(uint64_t codes)
{
	uint64_t	inverted = ~codes;

	return (inverted - 0x0101010101010101ull) & codes & 0x8080808080808080ull;
}

/*
 * Decode codes [in, in_end) into [out, out_end).  Returns the decoded length
 * or a negative gsst_status.  Never reads at or past in_end and never
 * writes at or past out_end; bytes between the decoded end and out_end may
 * be overwritten.
 */
GSST_INLINE int64_t
gsst_decode_run(const gsst_table *table, const uint8_t *in, const uint8_t *in_end,
				uint8_t *out, uint8_t *out_end)
{
	const uint64_t *symbol = table->symbol;
	const uint8_t *len = table->len;
	uint8_t    *o = out;
	unsigned	unused_code = 0;

	/*
	 * When the output has room for a full 8-byte store per code, no code
	 * needs a bounds check: the usual case inside a tile or a roomy buffer.
	 */
	if ((size_t) (out_end - o) / 8 >= (size_t) (in_end - in))
	{
		while (in_end - in >= 8)
		{
			uint64_t	codes = load_u64(in);

			if (GSST_UNLIKELY(has_escape_byte(codes)))
			{
				/* one code at a time up to and past the escape */
				unsigned	code = *in++;

				if (code == GSST_ESCAPE)
					*o++ = *in++;
				else
				{
					store_u64(o, symbol[code]);
					o += len[code];
					unused_code |= len[code] == 0;
				}
				continue;
			}
			for (int i = 0; i < 8; i++)
			{
				unsigned	code = (unsigned) (codes >> (8 * i)) & 0xFF;

				store_u64(o, symbol[code]);
				o += len[code];
				unused_code |= len[code] == 0;
			}
			in += 8;
		}
		while (in < in_end)
		{
			unsigned	code = *in++;

			if (GSST_UNLIKELY(code == GSST_ESCAPE))
			{
				if (in == in_end)
					return GSST_ERR_DANGLING_ESCAPE;
				*o++ = *in++;
			}
			else
			{
				store_u64(o, symbol[code]);
				o += len[code];
				unused_code |= len[code] == 0;
			}
		}
		if (unused_code)
			return GSST_ERR_BAD_CODE;
		return (int64_t) (o - out);
	}

	/* tight output: check every code */
	while (in < in_end)
	{
		unsigned	code = *in++;

		if (code == GSST_ESCAPE)
		{
			if (in == in_end)
				return GSST_ERR_DANGLING_ESCAPE;
			if (o == out_end)
				return GSST_ERR_SPACE;
			*o++ = *in++;
		}
		else
		{
			size_t		n = len[code];

			if (n == 0)
				return GSST_ERR_BAD_CODE;
			if ((size_t) (out_end - o) < n)
				return GSST_ERR_SPACE;
			if (out_end - o >= 8)
				store_u64(o, symbol[code]);
			else
				memcpy(o, &symbol[code], n);
			o += n;
		}
	}
	return (int64_t) (o - out);
}

#endif							/* GSST_DECODE_RUN_H */
