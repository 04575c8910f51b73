/*
 * encode.c - per-value encoding: the greedy longest match of FORMAT.md.
 */
#include "codec_internal.h"

#include "encode_segment.h"

size_t
gsst_encode_value(const gsst_encoder *enc, const uint8_t *in, size_t len,
				  uint8_t *out, size_t out_limit)
{
	const uint8_t *olimit = out + out_limit;
	size_t		written = 0;

	for (size_t start = 0; start < len; start += GSST_SEGMENT_BYTES)
	{
		size_t		seg_len = len - start < GSST_SEGMENT_BYTES ?
			len - start : GSST_SEGMENT_BYTES;
		size_t		n = encode_segment(enc, in + start, seg_len, in + len,
										   out + written, olimit);

		if (n == SIZE_MAX)
			return SIZE_MAX;
		written += n;
	}
	return written;
}
