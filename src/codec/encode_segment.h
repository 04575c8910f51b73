/*
 * encode_segment.h - the encoder's inner loop over one segment, inlined into
 * the per-value and the tile encoders.
 */
#ifndef GSST_ENCODE_SEGMENT_H
#define GSST_ENCODE_SEGMENT_H

#include "match.h"

/* The long symbol with the word's 3-byte prefix, or GSST_ESCAPE. */
GSST_INLINE unsigned
long_lookup(const gsst_encoder *enc, uint32_t prefix)
{
	return hash_lookup(enc->long_hash, prefix);
}

/*
 * Encode one segment in[0..len).  Bytes up to readable_end may be loaded
 * (they never influence a match).  Stops early, returning SIZE_MAX, once
 * the output passes olimit; every step writes at most 2 bytes, so out needs
 * 2 bytes beyond olimit.
 *
 * The candidates (long symbol, best pair-or-byte) are all looked up and the
 * result picked with selects, not branches: which one wins is data
 * dependent and would mispredict.
 */
GSST_INLINE size_t
encode_segment_hashed(const gsst_encoder *enc, const uint8_t *in, size_t len,
					  const uint8_t *readable_end, uint8_t *out, const uint8_t *olimit)
{
	const uint8_t *p = in;
	const uint8_t *end = in + len;
	uint8_t    *o = out;
	uint8_t		tail[16] = {0};
	const uint8_t *tail_base = len > 8 ? end - 8 : in;

	/* zero-padded copy of the last bytes, for loads near readable_end */
	if (readable_end - end < 8)
	{
		if (len >= 8)
			store_u64(tail, load_u64(tail_base));
		else
			for (size_t i = 0; i < len; i++)
				tail[i] = in[i];
	}

	while (p < end)
	{
		uint64_t	word;
		size_t		rem = (size_t) (end - p);
		unsigned	long_code,
					long_len,
					entry,
					code,
					advance;
		int			long_ok;

		if (GSST_UNLIKELY(o > olimit))
			return SIZE_MAX;
		word = GSST_LIKELY(readable_end - p >= 8) ? load_u64(p)
			: load_u64(tail + (p - tail_base));
		long_code = long_lookup(enc, (uint32_t) word & 0xFFFFFFu);
		long_len = enc->len[long_code];	/* 0 for GSST_ESCAPE */
		long_ok = (long_len != 0) & (long_len <= rem) &
			(((word ^ enc->symbol[long_code]) & enc->mask[long_code]) == 0);
		entry = rem >= 2 ? enc->short_code[word & 0xFFFF] : enc->byte_entry[word & 0xFF];
		code = long_ok ? long_code : (entry & 0xFF);
		advance = long_ok ? long_len : (entry >> 8);
		o[0] = (uint8_t) code;
		o[1] = (uint8_t) word;
		o += 1 + (code == GSST_ESCAPE);
		p += advance;
	}
	if (o > olimit)
		return SIZE_MAX;
	return (size_t) (o - out);
}

/*
 * Greedy steps from *pp while it is below stop, with the cuckoo table of
 * long symbols.  Every p < stop may load 8 bytes, and stop < end, so at
 * least 2 bytes remain and short_code applies.  The chain from one step to
 * the next is: load word, hash, load slot, compare, select, advance.
 * Returns 0 once the output passed olimit.
 */
GSST_INLINE int
encode_steps(const gsst_encoder *enc, const uint8_t **pp, const uint8_t *stop,
			 const uint8_t *end, uint8_t **oo, const uint8_t *olimit)
{
	const uint8_t *p = *pp;
	uint8_t    *o = *oo;

	while (p < stop)
	{
		uint64_t	word;
		long_probe	probe;
		unsigned	entry,
					code;

		if (GSST_UNLIKELY(o > olimit))
			return 0;
		word = load_u64(p);
		probe = probe_long_symbols(enc, word, (size_t) (end - p));
		/*
		 * Compilers make branches of these selects.  Measured: that beats
		 * branch-free masks here, as a right guess cuts the chain.
		 */
		entry = enc->short_code[word & 0xFFFF];
		entry = probe.hit1 ? probe.entry1 : entry;
		entry = probe.hit0 ? probe.entry0 : entry;
		code = entry & 0xFF;
		o[0] = (uint8_t) code;
		o[1] = (uint8_t) word;
		o += 1 + (code == GSST_ESCAPE);
		p += entry >> 8;
	}
	*pp = p;
	*oo = o;
	return 1;
}

/*
 * Encode one segment in[0..len) (see encode_segment_hashed for the
 * contract).  Steps load straight from the input while 8 bytes are
 * readable; the last few bytes go through a zero-padded copy.
 */
GSST_INLINE size_t
encode_segment(const gsst_encoder *enc, const uint8_t *in, size_t len,
			   const uint8_t *readable_end, uint8_t *out, const uint8_t *olimit)
{
	const uint8_t *p = in;
	const uint8_t *end = in + len;
	uint8_t    *o = out;
	size_t		readable = (size_t) (readable_end - in);
	size_t		direct = readable >= 8 ? readable - 7 : 0;

	if (GSST_UNLIKELY(!enc->long_slots_ok))
		return encode_segment_hashed(enc, in, len, readable_end, out, olimit);
	if (direct > len - 1)
		direct = len - 1;
	if (len >= 2 && !encode_steps(enc, &p, in + direct, end, &o, olimit))
		return SIZE_MAX;
	if (GSST_UNLIKELY(end - p >= 2))
	{
		/* 2..7 bytes are left near readable_end: step through a padded copy */
		uint8_t		tail[16] = {0};
		size_t		left = (size_t) (end - p);
		const uint8_t *t = tail;

		memcpy(tail, p, left);
		if (!encode_steps(enc, &t, tail + left - 1, tail + left, &o, olimit))
			return SIZE_MAX;
		p += t - tail;
	}
	if (p < end)
	{
		/* the last byte alone */
		unsigned	code = enc->byte_code[*p];

		if (o > olimit)
			return SIZE_MAX;
		o[0] = (uint8_t) code;
		o[1] = *p;
		o += 1 + (code == GSST_ESCAPE);
	}
	if (o > olimit)
		return SIZE_MAX;
	return (size_t) (o - out);
}

#endif							/* GSST_ENCODE_SEGMENT_H */
