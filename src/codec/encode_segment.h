/*
 * encode_segment.h - the encoder's inner loop over one segment, inlined into
 * the per-value and the tile encoders.
 */
#ifndef GSST_ENCODE_SEGMENT_H
#define GSST_ENCODE_SEGMENT_H

#include "match.h"

/*
 * Encode one segment in[0..len).  Stops early, returning SIZE_MAX, once the
 * output passes olimit; every step writes at most 2 bytes, so out needs 2
 * bytes beyond olimit.
 */
GSST_INLINE size_t
encode_segment(const gsst_encoder *enc, const uint8_t *in, size_t len,
			   uint8_t *out, const uint8_t *olimit)
{
	uint8_t    *o = out;
	size_t		pos = 0;
	uint8_t		tail[16] = {0};
	size_t		tail_base;

	/* positions with 8 readable bytes need no bounds checks */
	if (len >= 8)
	{
		size_t		fast_end = len - 7;

		while (pos < fast_end)
		{
			unsigned	advance;
			unsigned	code;

			if (GSST_UNLIKELY(o > olimit))
				return SIZE_MAX;
			code = gsst_match(enc, load_u64(in + pos), 8, &advance);
			o[0] = (uint8_t) code;
			o[1] = in[pos];
			o += 1 + (code == GSST_ESCAPE);
			pos += advance;
		}
	}

	/* the last < 8 bytes: read from a zero-padded copy, limit matches */
	tail_base = len > 8 ? len - 8 : 0;
	memcpy(tail, in + tail_base, len - tail_base);
	while (pos < len)
	{
		unsigned	advance;
		unsigned	code;

		if (GSST_UNLIKELY(o > olimit))
			return SIZE_MAX;
		code = gsst_match(enc, load_u64(tail + (pos - tail_base)),
						  (unsigned) (len - pos), &advance);
		o[0] = (uint8_t) code;
		o[1] = in[pos];
		o += 1 + (code == GSST_ESCAPE);
		pos += advance;
	}
	if (o > olimit)
		return SIZE_MAX;
	return (size_t) (o - out);
}

#endif							/* GSST_ENCODE_SEGMENT_H */
