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
			/* unrolled: gcc otherwise keeps a loop over the shifts, slower per code */
#pragma GCC unroll 8
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

/*
 * Flags (bit 7 of a byte) the bytes of x that are >= n, for n in 0..255;
 * no carry crosses a byte.  For n >= 128 a byte must have bit 7 and its
 * low 7 bits >= n - 128; for n < 128 either suffices.
 */
GSST_INLINE uint64_t
bytes_at_least(uint64_t x, unsigned n)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t high_bits = 0x8080808080808080ull;
	uint64_t	high = x & high_bits;
	uint64_t	low = x & ~high_bits;

	if (n >= 128)
		return high & (low + ones * (256 - n));
	return (high | (low + ones * (128 - n))) & high_bits;
}

/*
 * Code i of the word w: its symbol's 8 bytes stored at o, o advanced by its
 * length (symbol, len and o in scope).  Unrolled by hand at each use:
 * compilers keep a loop with variable shifts.
 */
#define GSST_DECODE_SLOT(w, i) \
	do { \
		unsigned	code_ = (unsigned) ((w) >> (8 * (i))) & 0xFF; \
		store_u64(o, symbol[code_]); \
		o += len[code_]; \
	} while (0)

/*
 * Decode the k codes at in (a whole value) to exactly raw_len bytes at out,
 * 8 codes per block with no branch per code: a short last block is padded
 * with escape bytes, whose table entry is 8 zero bytes of length 0.
 * Returns 0 on success, else 1 (an escape, an unused code, a wrong length):
 * the caller then decodes the value with gsst_decode_run, which also gives
 * the error.  Preconditions: the 8-byte words at in + 8j for 8j < k are
 * readable, and out has room for raw_len + 64 bytes: a block starts at
 * most raw_len bytes in (checked), and its slot i stores 8 bytes at most
 * 8 * i bytes after the block's start.
 */
GSST_INLINE int
decode_value_blocks(const gsst_table *table, const uint8_t *in, size_t k,
					uint8_t *out, size_t raw_len)
{
	const uint64_t *symbol = table->symbol;
	const uint8_t *len = table->len;
	unsigned	nsymbols = table->nsymbols;
	uint8_t    *o = out;

	for (size_t at = 0; at < k; at += 8)
	{
		uint64_t	codes = load_u64(in + at);
		size_t		valid = k - at < 8 ? k - at : 8;
		uint64_t	valid_bytes = low_bytes_mask((unsigned) valid);

		/* codes are 0..nsymbols-1: this also catches escapes */
		if (GSST_UNLIKELY(bytes_at_least(codes & valid_bytes, nsymbols) & valid_bytes))
			return 1;
		/* padding is escapes */
		codes |= ~valid_bytes;
		GSST_DECODE_SLOT(codes, 0);
		GSST_DECODE_SLOT(codes, 1);
		GSST_DECODE_SLOT(codes, 2);
		GSST_DECODE_SLOT(codes, 3);
		/* half a block suffices for short values (often of equal sizes) */
		if (valid > 4)
		{
			GSST_DECODE_SLOT(codes, 4);
			GSST_DECODE_SLOT(codes, 5);
			GSST_DECODE_SLOT(codes, 6);
			GSST_DECODE_SLOT(codes, 7);
		}
		if (GSST_UNLIKELY((size_t) (o - out) > raw_len))
			return 1;
	}
	return (size_t) (o - out) != raw_len;
}

#endif							/* GSST_DECODE_RUN_H */
