/*
 * encode.c - per-value encoding: the greedy longest match of FORMAT.md.
 */
#include "codec_internal.h"

#include "encode_chains.h"
#include "encode_segment.h"
#include "encode_short.h"

/* Four, six and eight chains: the constant lets the compiler unroll the rounds. */
static size_t
encode_segment_4_chains(const gsst_encoder *enc, const uint8_t *in, size_t len,
						const uint8_t *readable_end, uint8_t *out, const uint8_t *olimit)
{
	return encode_segment_chains(enc, in, len, readable_end, out, olimit, 4);
}

static size_t
encode_segment_6_chains(const gsst_encoder *enc, const uint8_t *in, size_t len,
						const uint8_t *readable_end, uint8_t *out, const uint8_t *olimit)
{
	return encode_segment_chains(enc, in, len, readable_end, out, olimit, 6);
}

static size_t
encode_segment_8_chains(const gsst_encoder *enc, const uint8_t *in, size_t len,
						const uint8_t *readable_end, uint8_t *out, const uint8_t *olimit)
{
	return encode_segment_chains(enc, in, len, readable_end, out, olimit, 8);
}

size_t
gsst_encode_segment(const gsst_encoder *enc, const uint8_t *in, size_t len,
					const uint8_t *readable_end, uint8_t *out, const uint8_t *olimit)
{
	if (len < CHAINS_MIN_BYTES || !enc->direct_ok)
		return encode_segment(enc, in, len, readable_end, out, olimit);
	if (len < CHAINS_SIX_BYTES)
		return encode_segment_4_chains(enc, in, len, readable_end, out, olimit);
	if (len < CHAINS_EIGHT_BYTES)
		return encode_segment_6_chains(enc, in, len, readable_end, out, olimit);
	return encode_segment_8_chains(enc, in, len, readable_end, out, olimit);
}

size_t
gsst_encode_value(const gsst_encoder *enc, const uint8_t *in, size_t len,
				  uint8_t *out, size_t out_limit)
{
	const uint8_t *olimit = out + out_limit;
	size_t		written = 0;

	/* most values: every position's match first, then the parse */
	if (len < SHORT_VALUE_BYTES && len > 0 && enc->direct_ok)
		return encode_value_short(enc, in, len, out, olimit);
	/* without the one-probe table: the serial parse, inlined */
	if (len < CHAINS_MIN_BYTES)
		return encode_segment(enc, in, len, in + len, out, olimit);
	for (size_t start = 0; start < len; start += GSST_SEGMENT_BYTES)
	{
		size_t		seg_len = len - start < GSST_SEGMENT_BYTES ?
			len - start : GSST_SEGMENT_BYTES;
		size_t		n = gsst_encode_segment(enc, in + start, seg_len, in + len,
											out + written, olimit);

		if (n == SIZE_MAX)
			return SIZE_MAX;
		written += n;
	}
	return written;
}
