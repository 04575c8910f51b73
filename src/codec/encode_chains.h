/*
 * encode_chains.h - the per-value encoder for segments of CHAINS_MIN_BYTES
 * and more: the greedy parse of FORMAT.md run as several interleaved
 * chains, whose output is byte for byte that of encode_segment.
 *
 * One greedy step waits for the one before (load the word, hash it, load
 * the slot, compare, select, advance), so a lone parse runs at the latency
 * of that chain.  Greedy parsing resynchronises quickly, though: a parse
 * started at any position soon lands on a position that the true parse
 * visits, and from there both are the same.  So the segment is cut into
 * nchains equal parts, chain k parses from the start of part k, and all
 * chains step in turn, their dependency chains overlapping.  Each step
 * records, in mark[p], where the code emitted at position p lies in the
 * chain's buffer.  A chain runs a little past the end of its part, by then
 * usually on a position the next chain visited.  The output is then chain
 * 0's codes up to its end q, then those of the chain that went on from q
 * (mark[q]), and so on; where no chain went on from q, the assembly takes
 * steps of its own until it reaches a marked position.
 *
 * Near the segment end a match must fit: a step whose match would cross
 * the end is not taken (the chain stops there), and the assembly applies
 * the rule with the remaining length instead.
 */
#ifndef GSST_ENCODE_CHAINS_H
#define GSST_ENCODE_CHAINS_H

#include "codec_internal.h"

#define CHAINS_MAX			8
#define CHAINS_MIN_BYTES	64		/* shorter segments go the serial way */
#define CHAINS_SIX_BYTES	192		/* from here on six chains, else four */
#define CHAINS_EIGHT_BYTES	1024	/* from here on eight */
#define CHAINS_EXTRA_ROUNDS	1		/* rounds after every part is covered */

/*
 * A chain's codes take at most 2 bytes a round, and it runs at most about
 * its part (1 byte a step) plus the extra rounds: this bounds the rounds.
 */
#define CHAINS_ROUNDS_MAX(part)	((part) + CHAINS_EXTRA_ROUNDS + 8)

typedef struct chains_scratch
{
	uint16_t	mark[GSST_SEGMENT_BYTES + 16];	/* code offset + 1, 0: none */
	uint8_t		padded[GSST_SEGMENT_BYTES + 16];	/* a copy of the last segment */
	uint8_t		codes[2 * GSST_SEGMENT_BYTES +
					  CHAINS_MAX * (2 * CHAINS_ROUNDS_MAX(1) + 8) + 16];
} chains_scratch;

/* mark index that no read looks at: the steps not taken write there */
#define CHAINS_NO_MARK		(GSST_SEGMENT_BYTES + 8)

/* bits above the bytes left in the segment, for rem < 8 (the last entry: none) */
static const uint64_t chains_beyond_end[9] = {
	~(uint64_t) 0, ~(uint64_t) 0 << 8, ~(uint64_t) 0 << 16, ~(uint64_t) 0 << 24,
	~(uint64_t) 0 << 32, ~(uint64_t) 0 << 40, ~(uint64_t) 0 << 48, ~(uint64_t) 0 << 56, 0
};

/*
 * The greedy match of the 8 bytes in word, as if the segment went on:
 * code | advance << 8.  It is the rule's match whenever it fits in the
 * bytes left (a longer match that fits would have matched here too).
 */
GSST_INLINE uint32_t
chains_match(const gsst_encoder *enc, uint64_t word)
{
	unsigned	code = enc->direct_slot[gsst_direct_slot((uint32_t) word, enc->direct_mul)];
	uint64_t	miss = (word ^ enc->direct_symbol[code]) & enc->direct_mask[code];
	uint32_t	pair_entry = enc->short_code[word & 0xFFFF];
	uint32_t	long_entry = enc->direct_entry[code];

	GSST_MATERIALIZE(pair_entry);
	GSST_MATERIALIZE(long_entry);
	return GSST_UNPREDICTABLE(miss == 0) ? long_entry : pair_entry;
}

/* The rule's match with rem (>= 1) bytes left in the segment. */
GSST_INLINE uint32_t
chains_match_near_end(const gsst_encoder *enc, uint64_t word, uint32_t rem)
{
	unsigned	code = enc->direct_slot[gsst_direct_slot((uint32_t) word, enc->direct_mul)];
	uint64_t	miss = ((word ^ enc->direct_symbol[code]) | chains_beyond_end[rem < 8 ? rem : 8]) &
		enc->direct_mask[code];
	uint32_t	short_entry = rem >= 2 ? enc->short_code[word & 0xFFFF] : enc->byte_entry[word & 0xFF];
	uint32_t	long_entry = enc->direct_entry[code];

	GSST_MATERIALIZE(short_entry);
	GSST_MATERIALIZE(long_entry);
	return GSST_UNPREDICTABLE(miss == 0) ? long_entry : short_entry;
}

/* A step with at least 8 bytes left in the segment: its match fits. */
#define CHAIN_STEP(P, O) \
	do { \
		uint64_t	word_ = load_u64(src + (P)); \
		uint32_t	entry_ = chains_match(enc, word_); \
		uint32_t	o_ = (O); \
		\
		mark[(P)] = (uint16_t) o_; \
		codes[o_ - 1] = (uint8_t) entry_; \
		codes[o_] = (uint8_t) word_; \
		(O) = o_ + 2 - ((entry_ & 0xFF) < GSST_ESCAPE); \
		(P) += entry_ >> 8; \
	} while (0)

/* A step anywhere: not taken when its match would cross the segment end. */
#define CHAIN_STEP_NEAR_END(P, O, MOVED) \
	do { \
		uint64_t	word_ = load_u64(src + (P)); \
		uint32_t	entry_ = chains_match(enc, word_); \
		size_t		next_ = (P) + (entry_ >> 8); \
		int			fits_ = next_ <= len; \
		uint32_t	o_ = (O); \
		\
		mark[fits_ ? (P) : CHAINS_NO_MARK] = (uint16_t) o_; \
		codes[o_ - 1] = (uint8_t) entry_; \
		codes[o_] = (uint8_t) word_; \
		(O) = o_ + (fits_ ? 2 - ((entry_ & 0xFF) < GSST_ESCAPE) : 0); \
		(P) = fits_ ? next_ : (P); \
		(MOVED) |= fits_; \
	} while (0)

/*
 * Encode one segment in[0..len), len >= CHAINS_MIN_BYTES, with nchains
 * chains (a constant where it is inlined); the contract of encode_segment.
 */
GSST_INLINE size_t
encode_segment_chains(const gsst_encoder *enc, const uint8_t *in, size_t seg_len,
					  const uint8_t *readable_end, uint8_t *out, const uint8_t *olimit,
					  const int nchains)
{
	chains_scratch s;
	uint16_t   *mark = s.mark;
	uint8_t    *codes = s.codes;
	const uint8_t *src = in;
	uint32_t	len = (uint32_t) seg_len;
	/* positions below fast_end have 8 bytes left: every match fits */
	uint32_t	fast_end = len - 7;
	size_t		p[CHAINS_MAX];
	uint32_t	start[CHAINS_MAX + 1];

	/*
	 * The steps wait on the positions, not on the output offsets: volatile
	 * keeps the offsets in memory, so that the positions get the registers.
	 */
	volatile uint32_t o[CHAINS_MAX];
	int32_t		stop[CHAINS_MAX];
	uint32_t	part = len - len * (uint32_t) (nchains - 1) / (uint32_t) nchains;
	uint32_t	rounds_max = CHAINS_ROUNDS_MAX(part);
	uint32_t	rounds = 0;

	/* loads of the last segment go to a zero-padded copy */
	if (readable_end - (in + len) < 16)
	{
		uint32_t	i;

		for (i = 0; i + 16 <= len; i += 16)
		{
			store_u64(s.padded + i, load_u64(in + i));
			store_u64(s.padded + i + 8, load_u64(in + i + 8));
		}
		store_u64(s.padded + len - 16, load_u64(in + len - 16));
		store_u64(s.padded + len - 8, load_u64(in + len - 8));
		store_u64(s.padded + len, 0);
		store_u64(s.padded + len + 8, 0);
		src = s.padded;
	}
	memset(mark, 0, (len + 8) * sizeof(uint16_t));
	start[0] = 1;
	for (int k = 0; k < nchains; k++)
	{
		p[k] = len * (uint32_t) k / (uint32_t) nchains;
		stop[k] = (int32_t) (len * (uint32_t) (k + 1) / (uint32_t) nchains);
		o[k] = start[k];
		start[k + 1] = start[k] + 2 * rounds_max + 8;
	}

	/*
	 * Rounds in batches.  The last chain always checks the end; the others
	 * take unchecked steps while they are 8 bytes or more from it, which
	 * holds for a whole batch when the batch is short enough.  The rounds
	 * go on until the last chain stops and every other chain is past the
	 * start of the next part, then CHAINS_EXTRA_ROUNDS more.
	 */
	{
		int			extra = CHAINS_EXTRA_ROUNDS;
		int			last_moved = 1;

		while (rounds < rounds_max)
		{
			int32_t		behind = stop[0] - (int32_t) p[0];
			int32_t		room = (int32_t) fast_end - (int32_t) p[0];
			uint32_t	batch;

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC unroll 8
#endif
			for (int k = 1; k < nchains - 1; k++)
			{
				int32_t		k_behind = stop[k] - (int32_t) p[k];
				int32_t		k_room = (int32_t) fast_end - (int32_t) p[k];

				behind = k_behind > behind ? k_behind : behind;
				room = k_room < room ? k_room : room;
			}
			if (behind <= 0 && (p[nchains - 1] >= len || !last_moved) && extra-- <= 0)
				break;
			/* a chain makes about 3 bytes a step on text */
			batch = behind > 0 ? (uint32_t) behind / 3 + 1 : 1;
			if (batch > rounds_max - rounds)
				batch = rounds_max - rounds;
			if (room < 8)
			{
				int			moved_unused = 0;

				/* another chain is near the end too: every step checks */
				last_moved = 0;
				rounds++;
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC unroll 8
#endif
				for (int k = 0; k < nchains - 1; k++)
					CHAIN_STEP_NEAR_END(p[k], o[k], moved_unused);
				CHAIN_STEP_NEAR_END(p[nchains - 1], o[nchains - 1], last_moved);
				(void) moved_unused;
				continue;
			}
			if (batch > (uint32_t) room / 8)
				batch = (uint32_t) room / 8;
			rounds += batch;
			while (batch-- > 0)
			{
				last_moved = 0;
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC unroll 8
#endif
				for (int k = 0; k < nchains - 1; k++)
					CHAIN_STEP(p[k], o[k]);
				CHAIN_STEP_NEAR_END(p[nchains - 1], o[nchains - 1], last_moved);
			}
		}
	}

	/* chain 0, then wherever the end of each chain lands */
	{
		size_t		written = 0;
		size_t		limit = (size_t) (olimit - out);
		uint32_t	from = start[0];
		int			c = 0;

		for (;;)
		{
			uint32_t	n = o[c] - from;
			uint32_t	q = (uint32_t) p[c];
			uint32_t	m = 0;

			if (written + n > limit)
				return SIZE_MAX;
			/* 16-byte pieces: the slack of out and of codes takes the overrun */
			for (uint32_t i = 0; i < n; i += 16)
			{
				store_u64(out + written + i, load_u64(codes + from - 1 + i));
				store_u64(out + written + i + 8, load_u64(codes + from - 1 + i + 8));
			}
			written += n;
			/* by the rule until a position that some chain went on from */
			while (q < len && (m = mark[q]) == 0)
			{
				uint64_t	word = load_u64(src + q);
				uint32_t	entry = chains_match_near_end(enc, word, len - q);

				if (written > limit)
					return SIZE_MAX;
				out[written] = (uint8_t) entry;
				out[written + 1] = (uint8_t) word;
				written += 2 - ((entry & 0xFF) < GSST_ESCAPE);
				q += entry >> 8;
			}
			if (q >= len)
				break;
			from = m;
			c = 0;
			while (c + 1 < nchains && from >= start[c + 1])
				c++;
		}
		if (written > limit)
			return SIZE_MAX;
		return written;
	}
}

#endif							/* GSST_ENCODE_CHAINS_H */
