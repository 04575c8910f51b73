/*
 * match.h - one step of the encoding rule (FORMAT.md), shared by the
 * encoder and the trainer so both always agree.
 */
#ifndef GSST_MATCH_H
#define GSST_MATCH_H

#include "codec_internal.h"

/*
 * The code to emit at a position whose next bytes are the low bytes of word
 * (zero padded past the end), with rem (1..8, capped) bytes left in the
 * segment.  Returns GSST_ESCAPE for a literal; *advance gets the bytes
 * consumed.  Written without data-dependent branches: the three candidates
 * are looked up and the longest one that fits is selected.
 */
GSST_INLINE unsigned
gsst_match(const gsst_encoder *enc, uint64_t word, unsigned rem, unsigned *advance)
{
	unsigned	long_code = hash_lookup(enc->long_hash, (uint32_t) word & 0xFFFFFFu);
	unsigned	pair_code = hash_lookup(enc->pair_hash, (uint32_t) word & 0xFFFFu);
	unsigned	byte_code = enc->byte_code[word & 0xFF];
	int			long_ok = long_code != GSST_ESCAPE &&
		enc->len[long_code] <= rem &&
		((word ^ enc->symbol[long_code]) & enc->mask[long_code]) == 0;
	int			pair_ok = pair_code != GSST_ESCAPE && rem >= 2;

	*advance = long_ok ? enc->len[long_code] : (pair_ok ? 2u : 1u);
	return long_ok ? long_code : (pair_ok ? pair_code : byte_code);
}

#endif							/* GSST_MATCH_H */
