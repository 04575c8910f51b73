/*
 * encode_short.h - the per-value encoder for values shorter than
 * SHORT_VALUE_BYTES: the greedy parse of FORMAT.md, byte for byte that of
 * encode_segment, with the match at every position looked up first.
 *
 * A lone parse waits, step after step, for the match at its position
 * (load the word, hash it, load the slot, compare, select) before it knows
 * the next position.  The match at a position does not depend on the
 * parse, though, only on the bytes from there on.  So the matches at all
 * positions are looked up first, each independent of the others, and the
 * parse then only follows them: one load a step.  It looks up about three
 * times as many matches as the parse takes, but those overlap, where the
 * steps of a parse cannot.
 */
#ifndef GSST_ENCODE_SHORT_H
#define GSST_ENCODE_SHORT_H

#include "encode_chains.h"

/*
 * Values shorter than this take this encoder (measured: it beats the
 * interleaved chains up to about 150 bytes; next[] holds positions).
 */
#define SHORT_VALUE_BYTES 128

/*
 * The rule's match with rem (2..7) bytes left, without branches: the word
 * is zero past the end, and the mask of the bytes past the end keeps a
 * long symbol from matching there.
 */
GSST_INLINE uint32_t
short_match_near_end(const gsst_encoder *enc, uint64_t word, uint32_t rem)
{
	unsigned	code = enc->direct_slot[gsst_direct_slot((uint32_t) word, enc->direct_mul)];
	uint64_t	miss = ((word ^ enc->direct_symbol[code]) | chains_beyond_end[rem]) &
		enc->direct_mask[code];

	return select_u32(miss == 0, enc->direct_entry[code], enc->short_code[word & 0xFFFF]);
}

/*
 * Look up the match at every position of a value in[0..len) into code[]
 * and next[] (the position after the match).
 */
GSST_INLINE void
short_matches(const gsst_encoder *enc, const uint8_t *in, uint32_t len,
			  uint8_t *code, uint8_t *next)
{
	/* positions below fast_end have 8 bytes left: every match fits */
	uint32_t	fast_end = len >= 8 ? len - 7 : 0;
	/* the last bytes, zero padded, give the words near the end */
	uint32_t	last_base = len >= 8 ? len - 8 : 0;
	uint64_t	last_word = len >= 8 ? load_u64(in + last_base) : load_partial(in, len);
	uint32_t	i;

	for (i = 0; i < fast_end; i++)
	{
		uint32_t	e = chains_match(enc, load_u64(in + i));

		code[i] = (uint8_t) e;
		next[i] = (uint8_t) (i + (e >> 8));
	}
	for (; i + 1 < len; i++)
	{
		uint32_t	e = short_match_near_end(enc, last_word >> (8 * (i - last_base)),
											 len - i);

		code[i] = (uint8_t) e;
		next[i] = (uint8_t) (i + (e >> 8));
	}
	/* the last byte alone */
	code[i] = enc->byte_code[in[i]];
	next[i] = (uint8_t) len;
}

/*
 * Encode a value in[0..len), 0 < len < SHORT_VALUE_BYTES, with the
 * one-probe table (enc->direct_ok); the contract of encode_segment, with
 * nothing readable past the value.
 */
GSST_INLINE size_t
encode_value_short(const gsst_encoder *enc, const uint8_t *in, size_t value_len,
				   uint8_t *out, const uint8_t *olimit)
{
	uint8_t		code[SHORT_VALUE_BYTES];
	uint8_t		next[SHORT_VALUE_BYTES];
	uint32_t	len = (uint32_t) value_len;
	uint8_t    *o = out;

	short_matches(enc, in, len, code, next);
	/* the parse: from position 0, each match's next position */
	for (uint32_t i = 0; i < len; i = next[i])
	{
		unsigned	c = code[i];

		if (GSST_UNLIKELY(o > olimit))
			return SIZE_MAX;
		o[0] = (uint8_t) c;
		o[1] = in[i];
		o += 1 + (c == GSST_ESCAPE);
	}
	if (o > olimit)
		return SIZE_MAX;
	return (size_t) (o - out);
}

#endif							/* GSST_ENCODE_SHORT_H */
