/*
 * train.c - symbol-table training, after FSST: take a sample, then run a few
 * generations of encoding it with the current table, counting how often each
 * symbol and each pair of adjacent symbols occurs, and keeping the 255
 * candidates of highest gain (count x length) that fit the GPU-encodable
 * profile.  Unlike the reference, every generation's table is scored on the
 * sample (codes plus table bytes) and the best one is kept, so a late
 * generation can never make the result worse.
 */
#include <stdlib.h>

#include "codec_internal.h"

#include "match.h"

#define SAMPLE_BYTES		(16 * 1024)	/* value bytes, as in FSST */
#define SAMPLE_PIECE_MAX	512		/* bytes taken from one long value */
/* value bytes, a separator after each piece, and 8 bytes of load slack */
#define SAMPLE_CAP			(2 * SAMPLE_BYTES + 16)
#define FULL_FROM			3		/* generations before see a part of the sample */
#define NTOKENS				512		/* codes 0..254, escapes 256 + byte */
#define ESCAPE_TOKEN(b)		(256u + (b))
#define NO_PAIR				(NTOKENS * NTOKENS)
/*
 * Counters that take what is no pair, NO_PAIR + (step % NO_PAIR_SLOTS):
 * one counter alone made a chain of increments through memory.
 */
#define NO_PAIR_SLOTS		8
/* copies of the token counters, summed after counting, for the same reason */
#define SINGLE_COPIES		4
#define CANDIDATE_HASH		(1u << 16)
#define SINGLE_BYTE_BOOST	8		/* keeps literals rare, as in FSST */

/*
 * At most SAMPLE_BYTES tokens that are not separators, each making at most
 * one pair and one extended pair, plus the tokens themselves: fewer than
 * CANDIDATE_HASH / 2, so the candidate hash never fills up.
 */
#define MAX_CANDIDATES		(2 * SAMPLE_BYTES + NTOKENS)

typedef struct candidate
{
	uint64_t	symbol;
	uint32_t	gain;			/* < 8 x 8 x SAMPLE_BYTES */
	uint16_t	slot;			/* its place in candidate_index */
	uint8_t		len;
} candidate;

typedef struct sort_item
{
	uint64_t	key;
	uint32_t	index;
} sort_item;

typedef struct train_work
{
	uint16_t	pair_count[NO_PAIR + NO_PAIR_SLOTS];	/* from NO_PAIR: no pair, skipped */
	uint32_t	touched_pairs[2 * SAMPLE_CAP];
	uint32_t	single_count[NTOKENS];
	uint32_t	single_copies[SINGLE_COPIES][NTOKENS];
	uint32_t	lone_copies[SINGLE_COPIES][256];	/* first bytes of longer tokens */
	uint32_t	sep_token;		/* the separator's escape token */
	size_t		sep_count;		/* separator bytes in the sample */
	/* one record per step: token | first byte << 9 | (length > 1) << 17 */
	uint32_t	records[SAMPLE_CAP];
	uint16_t	candidate_index[CANDIDATE_HASH];	/* 1 + index, or 0 */
	candidate	candidates[MAX_CANDIDATES];
	sort_item	items[2 * MAX_CANDIDATES];
	uint8_t		sample[SAMPLE_CAP];
	uint32_t	piece_len[SAMPLE_BYTES + 1];
	/* code + 1 of the 2-byte symbol b0 | b1 << 8 of the current table, or 0 */
	uint8_t		pair_code_plus_one[65536];
	gsst_encoder enc;
} train_work;

size_t
gsst_train_work_bytes(void)
{
	return sizeof(train_work);
}

/* splitmix64: a fixed-seed generator keeps training deterministic */
static uint64_t
next_random(uint64_t *state)
{
	uint64_t	z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* A draw scaled to 0..n-1 by a multiply: a division costs more. */
GSST_INLINE size_t
scale_draw(uint64_t draw, size_t n)
{
	if ((uint64_t) n <= UINT32_MAX)
		return (size_t) (((draw >> 32) * (uint64_t) n) >> 32);
	return (size_t) (draw % n);
}

#define DRAWS_AHEAD 8			/* a power of two */

/*
 * Take the next random draw (its raw value from draws, or its value index
 * from picks) and make a new one in its place, prefetching what the value
 * it picks and the one DRAWS_AHEAD / 2 draws on will need.
 */
#define TAKE_DRAW(result, from) \
	do { \
		(result) = (from)[next]; \
		draws[next] = next_random(&rng); \
		picks[next] = scale_draw(draws[next], n); \
		GSST_PREFETCH(&lens[picks[next]]); \
		GSST_PREFETCH(&values[picks[next]]); \
		next = (next + 1) & (DRAWS_AHEAD - 1); \
		GSST_PREFETCH(values[picks[(next + DRAWS_AHEAD / 2) & (DRAWS_AHEAD - 1)]]); \
	} while (0)

/*
 * Copy a piece into the sample, reading exactly len bytes of the value:
 * most pieces are short, and a library call (or rep movs) per piece cost
 * more than the bytes.
 */
GSST_INLINE void
copy_piece(uint8_t *dst, const uint8_t *src, size_t len)
{
	if (len >= 8 && len <= 16)
	{
		uint64_t	head = load_u64(src),
					tail = load_u64(src + len - 8);

		store_u64(dst, head);
		store_u64(dst + len - 8, tail);
	}
	else if (len >= 4 && len < 8)
	{
		uint32_t	head = load_u32(src),
					tail = load_u32(src + len - 4);

		store_u32(dst, head);
		store_u32(dst + len - 4, tail);
	}
	else if (len < 4)
	{
		uint8_t		b0 = src[0],
					b1 = src[len / 2],
					b2 = src[len - 1];

		dst[0] = b0;
		dst[len / 2] = b1;
		dst[len - 1] = b2;
	}
	else
		memcpy(dst, src, len);
}

/*
 * Fill the sample with pieces, each followed by a NUL (lay_out_sample
 * picks the separator): every value when they all fit, else random pieces
 * of random values.  Returns the number of pieces; *sample_size gets the
 * bytes written, separators included.
 */
static size_t
take_pieces(train_work *w, const uint8_t *const *values, const size_t *lens, size_t n,
			size_t *sample_bytes, size_t *sample_size, uint64_t *total_bytes)
{
	uint64_t	total = 0;
	size_t		npieces = 0,
				used = 0;
	uint8_t    *to = w->sample;
	uint64_t	rng = 0x6773737421ull;	/* "gsst!" */

	for (size_t i = 0; i < n; i++)
		total += lens[i];
	*total_bytes = total;

	if (total <= SAMPLE_BYTES)
	{
		for (size_t i = 0; i < n; i++)
		{
			if (lens[i] == 0)
				continue;
			copy_piece(to, values[i], lens[i]);
			to += lens[i];
			*to++ = 0;
			used += lens[i];
			w->piece_len[npieces++] = (uint32_t) lens[i];
		}
	}
	else
	{
		/*
		 * The random draws are made DRAWS_AHEAD ahead of their use, so that
		 * the value each would pick can be prefetched: the pieces are cache
		 * misses all over a large input.  A draw used as an offset instead
		 * (long values) only wastes its prefetch.
		 */
		uint64_t	draws[DRAWS_AHEAD];
		size_t		picks[DRAWS_AHEAD];
		unsigned	next = 0;

		for (unsigned k = 0; k < DRAWS_AHEAD; k++)
		{
			draws[k] = next_random(&rng);
			picks[k] = scale_draw(draws[k], n);
			GSST_PREFETCH(&lens[picks[k]]);
			GSST_PREFETCH(&values[picks[k]]);
		}
		/* bounded tries: a mostly-empty input must not loop for ever */
		for (uint64_t tries = 0; used < SAMPLE_BYTES && tries < 64 * (uint64_t) SAMPLE_BYTES; tries++)
		{
			size_t		i;
			size_t		len;
			size_t		start = 0;

			TAKE_DRAW(i, picks);
			len = lens[i];
			if (len == 0)
				continue;
			if (len > SAMPLE_PIECE_MAX)
			{
				uint64_t	offset_draw;

				TAKE_DRAW(offset_draw, draws);
				start = scale_draw(offset_draw, len - SAMPLE_PIECE_MAX + 1);
				len = SAMPLE_PIECE_MAX;
			}
			if (len > SAMPLE_BYTES - used)
				len = SAMPLE_BYTES - used;
			copy_piece(to, values[i] + start, len);
			to += len;
			*to++ = 0;
			used += len;
			w->piece_len[npieces++] = (uint32_t) len;
		}
	}
	*sample_bytes = used;
	*sample_size = (size_t) (to - w->sample);
	return npieces;
}

/*
 * Finish the sample that take_pieces laid out: each piece is followed by a
 * separator byte, then come 8 bytes of load slack.  The separator is the
 * rarest byte of the pieces (NUL for text, which has none); it is never
 * part of a candidate, so no symbol ever matches across it, and the
 * counting needs no piece lengths: a separator is a step of its own that
 * ends the pair chain.  Where the separator also occurs inside a piece
 * (binary data), it splits it there: a small loss for data that has no
 * unused byte.
 */
static void
lay_out_sample(train_work *w, size_t npieces, size_t size, unsigned *separator)
{
	w->sep_count = npieces;
	unsigned	sep = 0;
	size_t		zeros = 0;

	/* the NULs beyond the npieces separators are in the pieces */
	for (size_t i = 0; i < size; i++)
		zeros += w->sample[i] == 0;
	if (zeros > npieces)
	{
		uint32_t	histogram[256] = {0};
		size_t		at = 0;

		for (size_t i = 0; i < size; i++)
			histogram[w->sample[i]]++;
		histogram[0] -= (uint32_t) npieces;
		for (unsigned b = 1; b < 256; b++)
			if (histogram[b] < histogram[sep])
				sep = b;
		w->sep_count += histogram[sep];
		for (size_t k = 0; k < npieces; k++)
		{
			at += w->piece_len[k];
			w->sample[at++] = (uint8_t) sep;
		}
	}
	memset(w->sample + size, (int) sep, 8);
	*separator = sep;
}

/* Bytes of a token: a symbol, or the escaped byte itself. */
static void
token_symbol(const gsst_table *t, unsigned token, uint64_t *symbol, unsigned *len)
{
	if (token >= 256)
	{
		*symbol = token - 256;
		*len = 1;
	}
	else
	{
		*symbol = t->symbol[token];
		*len = t->len[token];
	}
}

/*
 * Matching: the sample is encoded by MATCH_LANES lanes at once, each over
 * its own run of pieces (one match is a long dependency chain; independent
 * lanes overlap), and each step writes one record.  The matching is the
 * encoding rule (as in gsst_match), through the CPU encoder's cuckoo table
 * of long symbols; the separator needs no length checks (see
 * lay_out_sample).  Counting is a second pass over the records: counters
 * updated inside the match chains made every load wait for the stores of
 * the other lanes.
 */
#define MATCH_LANES 4
#define MATCH_MAX_LANES 32	/* the AVX-512 lanes */

/*
 * A record: the token, the token before it in its lane (so that its bits
 * 0..17 are the pair's counter index), the first byte, and whether the
 * token is longer than that byte.  The matching lanes know the previous
 * token anyway; computed in counting, it cost more than the counting.
 */
#define RECORD_FIRST_SHIFT	18
#define RECORD_LONGER_SHIFT	26

GSST_INLINE uint32_t
make_record(uint32_t token, uint32_t previous, uint32_t first, uint32_t longer)
{
	return token | previous << 9 | first << RECORD_FIRST_SHIFT | longer << RECORD_LONGER_SHIFT;
}

GSST_INLINE const uint8_t *
match_step(const train_work *w, const uint8_t *p, uint32_t *record, uint32_t *previous)
{
	const gsst_encoder *enc = &w->enc;
	uint64_t	word = load_u64(p);
	uint32_t	first = (uint32_t) word & 0xFF;
	uint32_t	prefix = (uint32_t) word & 0xFFFFFF;
	/* twice the slot: indexes the {symbol, mask} words and long_entry bytes */
	size_t		at0 = ((prefix * enc->long_mul[0]) >> 21) & ~1u;
	size_t		at1 = ((prefix * enc->long_mul[1]) >> 21) & ~1u;
	const uint64_t *slots = &enc->long_slot[0][0];
	const uint8_t *entries = (const uint8_t *) enc->long_entry;
	uint32_t	pair = w->pair_code_plus_one[word & 0xFFFF];
	uint32_t	entry = enc->byte_entry[first];
	uint16_t	long0,
				long1;
	uint32_t	code,
				advance;

	memcpy(&long0, entries + at0, 2);
	memcpy(&long1, entries + at1, 2);
	GSST_MATERIALIZE(pair);
	GSST_MATERIALIZE(entry);
	GSST_MATERIALIZE(long0);
	GSST_MATERIALIZE(long1);
	/* no length checks: no symbol reaches past a separator */
	entry = GSST_UNPREDICTABLE(pair != 0) ? (pair - 1) | 2u << 8 : entry;
	entry = GSST_UNPREDICTABLE(((word ^ slots[at1]) & slots[at1 + 1]) == 0) ? long1 : entry;
	entry = GSST_UNPREDICTABLE(((word ^ slots[at0]) & slots[at0 + 1]) == 0) ? long0 : entry;
	code = entry & 0xFF;
	advance = entry >> 8;
	code = GSST_UNPREDICTABLE(code == GSST_ESCAPE) ? ESCAPE_TOKEN(first) : code;
	*record = make_record(code, *previous, first, advance > 1);
	*previous = code;
	return p + advance;
}

/*
 * match_sample through the 4-way hashes, in one lane: for a table whose
 * long symbols the cuckoo table could not place (long_slots_ok == 0), whose
 * slots then hold nothing meaningful.  Rare, so kept simple.
 */
static void
match_sample_hashed(train_work *w, size_t limit, size_t lane_start[MATCH_MAX_LANES],
					size_t lane_records[MATCH_MAX_LANES])
{
	const uint8_t *p = w->sample;
	const uint8_t *end = w->sample + limit;
	uint32_t   *record = w->records;
	uint32_t	previous = w->sep_token;

	while (p < end)
	{
		uint64_t	word = load_u64(p);
		uint32_t	first = (uint32_t) word & 0xFF;
		unsigned	advance;
		/* no length checks: no symbol reaches past a separator */
		unsigned	code = gsst_match(&w->enc, word, GSST_MAX_SYMBOL_LEN, &advance);
		uint32_t	token = code == GSST_ESCAPE ? ESCAPE_TOKEN(first) : code;

		*record++ = make_record(token, previous, first, advance > 1);
		previous = token;
		p += advance;
	}
	for (int k = 0; k < MATCH_MAX_LANES; k++)
	{
		lane_start[k] = 0;
		lane_records[k] = 0;
	}
	lane_records[0] = (size_t) (record - w->records);
}

/*
 * Where lane k of nlanes ends over sample[0, limit): an even share, moved
 * forward to just after a separator (and not before at, where it starts).
 */
GSST_INLINE size_t
lane_boundary(const train_work *w, size_t limit, int k, int nlanes, size_t at)
{
	size_t		lane_end = limit * (size_t) (k + 1) / (size_t) nlanes;

	if (lane_end < at)
		lane_end = at;
	while (lane_end > 0 && lane_end < limit &&
		   w->sample[lane_end - 1] != w->sample[limit - 1])
		lane_end++;
	return lane_end;
}

/*
 * Encode sample[0..limit) (limit just after a separator) with the current
 * table into records; lane k's records start at records + its first byte.
 * Sets lane_start[k] and lane_records[k].
 */
static void
match_sample(train_work *w, size_t limit, size_t lane_start[MATCH_MAX_LANES],
			 size_t lane_records[MATCH_MAX_LANES])
{
	const uint8_t *p[MATCH_LANES],
			   *end[MATCH_LANES];
	uint32_t   *record[MATCH_LANES];
	uint32_t	previous[MATCH_LANES];
	size_t		at = 0;

	for (int k = 0; k < MATCH_LANES; k++)
	{
		size_t		lane_end = lane_boundary(w, limit, k, MATCH_LANES, at);

		previous[k] = w->sep_token;	/* a lane starts after a separator */

		lane_start[k] = at;
		p[k] = w->sample + at;
		end[k] = w->sample + lane_end;
		record[k] = w->records + at;
		at = lane_end;
	}

	/*
	 * A step advances 1..8 bytes, so every lane has room for rounds steps
	 * without a check of its end.  The lanes are separate variables so that
	 * they stay in registers.
	 */
	for (;;)
	{
		size_t		rounds = SIZE_MAX;
		const uint8_t *p0 = p[0],
				   *p1 = p[1],
				   *p2 = p[2],
				   *p3 = p[3];
		uint32_t   *r0 = record[0],
				   *r1 = record[1],
				   *r2 = record[2],
				   *r3 = record[3];
		uint32_t	q0 = previous[0],
					q1 = previous[1],
					q2 = previous[2],
					q3 = previous[3];

		for (int k = 0; k < MATCH_LANES; k++)
		{
			size_t		room = (size_t) (end[k] - p[k]) / GSST_MAX_SYMBOL_LEN;

			rounds = room < rounds ? room : rounds;
		}
		if (rounds < 4)
			break;
		for (size_t r = 0; r < rounds; r++)
		{
			p0 = match_step(w, p0, r0++, &q0);
			p1 = match_step(w, p1, r1++, &q1);
			p2 = match_step(w, p2, r2++, &q2);
			p3 = match_step(w, p3, r3++, &q3);
		}
		previous[0] = q0;
		previous[1] = q1;
		previous[2] = q2;
		previous[3] = q3;
		p[0] = p0;
		p[1] = p1;
		p[2] = p2;
		p[3] = p3;
		record[0] = r0;
		record[1] = r1;
		record[2] = r2;
		record[3] = r3;
	}
	for (int k = 0; k < MATCH_LANES; k++)
	{
		while (p[k] < end[k])
			p[k] = match_step(w, p[k], record[k]++, &previous[k]);
		lane_records[k] = (size_t) (record[k] - (w->records + lane_start[k]));
	}
	for (int k = MATCH_LANES; k < MATCH_MAX_LANES; k++)
		lane_start[k] = lane_records[k] = 0;
}

/*
 * match_sample with AVX-512, chosen at run time: 2 groups of 16 lanes (the
 * groups are independent chains, so their steps overlap), each lane over
 * its own run of pieces; the step is that of the tile encoder's AVX-512
 * lanes without length checks (see lay_out_sample), and a scatter writes
 * the records.  The records and their order per lane are those of
 * match_step, and count_records reads the lanes in order, so the tables do
 * not depend on the number of lanes.  GSST_NO_SIMD builds without it.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GSST_NO_SIMD)
#define GSST_TRAIN_AVX512 1
#include <immintrin.h>

#define TV_TARGET		"avx512f,avx512bw,avx512vl,avx512dq,bmi,bmi2,popcnt"
#define TV_GROUPS		2

static int
tv_usable(void)
{
	return gsst_cpu_has_encode_lanes() && !gsst_encode_simd_disabled;
}

/* One step of 16 lanes: p the sample offsets, r the record indexes. */
static inline __attribute__((target(TV_TARGET), always_inline)) void
tv_step(const train_work *w, __m512i masks, __m512i *pp, __m512i *rr, __mmask16 *act,
		__m512i pend, __m512i *previous, int score)
{
	const gsst_encoder *enc = &w->enc;
	const __m512i low24 = _mm512_set1_epi32(0xFFFFFF);
	const __m512i low16 = _mm512_set1_epi32(0xFFFF);
	const __m512i low8 = _mm512_set1_epi32(0xFF);
	const __m512i one = _mm512_set1_epi32(1);
	const __m512i three = _mm512_set1_epi32(3);
	const void *slots = &enc->long_slot[0][0];
	const void *entries = enc->long_entry;
	__m512i		p = *pp;
	__mmask16	active = *act;
	__m512i		word0 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8) active,
													_mm512_castsi512_si256(p), w->sample, 1);
	__m512i		word1 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8) (active >> 8),
													_mm512_extracti64x4_epi64(p, 1), w->sample, 1);
	__m512i		head = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(word0)),
										  _mm512_cvtepi64_epi32(word1), 1);
	__m512i		prefix = _mm512_and_si512(head, low24);
	__m512i		first = _mm512_and_si512(head, low8);
	__m512i		slot0 = _mm512_srli_epi32(_mm512_mullo_epi32(prefix, _mm512_set1_epi32((int) enc->long_mul[0])), 22);
	__m512i		slot1 = _mm512_srli_epi32(_mm512_mullo_epi32(prefix, _mm512_set1_epi32((int) enc->long_mul[1])), 22);
	__m512i		entry0 = _mm512_and_si512(_mm512_i32gather_epi32(slot0, entries, 2), low16);
	__m512i		entry1 = _mm512_and_si512(_mm512_i32gather_epi32(slot1, entries, 2), low16);
	__m512i		at0 = _mm512_slli_epi32(slot0, 1);
	__m512i		at1 = _mm512_slli_epi32(slot1, 1);
	__m512i		len0 = _mm512_srli_epi32(entry0, 8);
	__m512i		len1 = _mm512_srli_epi32(entry1, 8);
	__m512i		sym00 = _mm512_i32gather_epi64(_mm512_castsi512_si256(at0), slots, 8);
	__m512i		sym01 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(at0, 1), slots, 8);
	__m512i		sym10 = _mm512_i32gather_epi64(_mm512_castsi512_si256(at1), slots, 8);
	__m512i		sym11 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(at1, 1), slots, 8);
	__m512i		mask00 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(len0)), masks);
	__m512i		mask01 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(len0, 1)), masks);
	__m512i		mask10 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(len1)), masks);
	__m512i		mask11 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(len1, 1)), masks);
	/* a real long symbol has 3..8 bytes (an empty slot says 1) */
	__mmask16	hit0 = _mm512_kunpackb(_mm512_testn_epi64_mask(_mm512_xor_si512(word1, sym01), mask01),
									   _mm512_testn_epi64_mask(_mm512_xor_si512(word0, sym00), mask00)) &
		_mm512_cmpge_epu32_mask(len0, three);
	__mmask16	hit1 = _mm512_kunpackb(_mm512_testn_epi64_mask(_mm512_xor_si512(word1, sym11), mask11),
									   _mm512_testn_epi64_mask(_mm512_xor_si512(word0, sym10), mask10)) &
		_mm512_cmpge_epu32_mask(len1, three);
	__m512i		pair = _mm512_and_si512(_mm512_i32gather_epi32(_mm512_and_si512(head, low16),
															   w->pair_code_plus_one, 1), low8);
	__m512i		entry = _mm512_and_si512(_mm512_i32gather_epi32(first, enc->byte_entry, 2), low16);
	__m512i		code,
				advance,
				token,
				record;

	entry = _mm512_mask_add_epi32(entry, _mm512_test_epi32_mask(pair, pair), pair,
								  _mm512_set1_epi32((2 << 8) - 1));
	entry = _mm512_mask_mov_epi32(entry, hit1, entry1);
	entry = _mm512_mask_mov_epi32(entry, hit0, entry0);
	code = _mm512_and_si512(entry, low8);
	advance = _mm512_srli_epi32(entry, 8);
	if (score)
	{
		/* *rr counts the lane's code bytes: 1, and 1 more for an escape */
		*rr = _mm512_mask_add_epi32(*rr, active, *rr, one);
		*rr = _mm512_mask_add_epi32(*rr, active & _mm512_cmpeq_epu32_mask(code, low8), *rr, one);
		p = _mm512_mask_add_epi32(p, active, p, advance);
		*act = _mm512_cmplt_epu32_mask(p, pend);
		*pp = p;
		return;
	}
	token = _mm512_mask_add_epi32(code, _mm512_cmpeq_epu32_mask(code, low8), first,
								  _mm512_set1_epi32(256));
	record = _mm512_or_si512(_mm512_or_si512(token, _mm512_slli_epi32(*previous, 9)),
							 _mm512_slli_epi32(first, RECORD_FIRST_SHIFT));
	record = _mm512_mask_or_epi32(record, _mm512_cmpgt_epu32_mask(advance, one), record,
								  _mm512_set1_epi32(1 << RECORD_LONGER_SHIFT));
	*previous = _mm512_mask_mov_epi32(*previous, active, token);
	_mm512_mask_i32scatter_epi32((void *) w->records, active, *rr, record, 4);
	*rr = _mm512_mask_add_epi32(*rr, active, *rr, one);
	p = _mm512_mask_add_epi32(p, active, p, advance);
	*act = _mm512_cmplt_epu32_mask(p, pend);
	*pp = p;
}

/* The steps of all lanes till every lane is done. */
static inline __attribute__((target(TV_TARGET), always_inline)) void
tv_run(const train_work *w, __m512i masks, __m512i *p, __m512i *r, __mmask16 *active,
	   const __m512i *pend, __m512i *previous, int score)
{
	for (;;)
	{
		__mmask16	any = 0;

		for (int g = 0; g < TV_GROUPS; g++)
		{
			tv_step(w, masks, &p[g], &r[g], &active[g], pend[g], &previous[g], score);
			any |= active[g];
		}
		if (!any)
			break;
	}
}

/*
 * With score, only the code bytes of sample[0..limit) are wanted: the lanes
 * count them instead of writing records, and *code_bytes gets them.
 */
__attribute__((target(TV_TARGET), noinline))
static void
match_sample_avx512(train_work *w, size_t limit, size_t lane_start[MATCH_MAX_LANES],
					size_t lane_records[MATCH_MAX_LANES], int score, uint64_t *code_bytes)
{
	uint32_t	start[MATCH_MAX_LANES],
				stop[MATCH_MAX_LANES],
				next[MATCH_MAX_LANES];
	size_t		at = 0;
	__m512i		p[TV_GROUPS],
				r[TV_GROUPS],
				pend[TV_GROUPS],
				previous[TV_GROUPS];
	__mmask16	active[TV_GROUPS];
	const __m512i masks = _mm512_set_epi64(0x00FFFFFFFFFFFFFFll, 0x0000FFFFFFFFFFFFll,
										   0x000000FFFFFFFFFFll, 0x00000000FFFFFFFFll,
										   0x0000000000FFFFFFll, 0x000000000000FFFFll,
										   0x00000000000000FFll, -1ll);

	for (int k = 0; k < MATCH_MAX_LANES; k++)
	{
		size_t		lane_end = lane_boundary(w, limit, k, MATCH_MAX_LANES, at);

		lane_start[k] = at;
		start[k] = (uint32_t) at;
		stop[k] = (uint32_t) lane_end;
		at = lane_end;
	}
	for (int g = 0; g < TV_GROUPS; g++)
	{
		p[g] = _mm512_loadu_si512(start + 16 * g);
		/* a lane's records start at its first byte; a score starts at 0 */
		r[g] = score ? _mm512_setzero_si512() : p[g];
		pend[g] = _mm512_loadu_si512(stop + 16 * g);
		previous[g] = _mm512_set1_epi32((int) w->sep_token);
		active[g] = _mm512_cmplt_epu32_mask(p[g], pend[g]);
	}
	if (score)
	{
		uint64_t	sum = 0;

		tv_run(w, masks, p, r, active, pend, previous, 1);
		for (int g = 0; g < TV_GROUPS; g++)
			sum += (uint64_t) _mm512_reduce_add_epi32(r[g]);
		*code_bytes = sum;
		return;
	}
	tv_run(w, masks, p, r, active, pend, previous, 0);
	for (int g = 0; g < TV_GROUPS; g++)
		_mm512_storeu_si512(next + 16 * g, r[g]);
	for (int k = 0; k < MATCH_MAX_LANES; k++)
		lane_records[k] = next[k] - start[k];
}
#endif							/* GSST_TRAIN_AVX512 */

/*
 * Count tokens and (when count_pairs) adjacent pairs of the records, and
 * the pair of each token before a longer symbol with that symbol's first
 * byte alone (extending a symbol by one byte).  Pairs with a separator are
 * counted too, and skipped in gather_candidates: a select here cost more.
 */
static void
count_records(train_work *w, const uint32_t *records, size_t nrecords, int count_pairs,
			  size_t *touched)
{
	size_t		nt = *touched;

	if (!count_pairs)
	{
		for (size_t i = 0; i < nrecords; i++)
		{
			uint32_t	record = records[i];

			w->single_copies[i & (SINGLE_COPIES - 1)][record & (NTOKENS - 1)]++;
			w->lone_copies[i & (SINGLE_COPIES - 1)][(record >> RECORD_FIRST_SHIFT) & 0xFF] +=
				record >> RECORD_LONGER_SHIFT;
		}
		return;
	}
	for (size_t i = 0; i < nrecords; i++)
	{
		uint32_t	record = records[i];
		uint32_t	token = record & (NTOKENS - 1);
		uint32_t	pair = record & (NTOKENS * NTOKENS - 1);
		uint32_t	first = (record >> RECORD_FIRST_SHIFT) & 0xFF;
		uint32_t	longer = record >> RECORD_LONGER_SHIFT;
		uint32_t	no_pair = NO_PAIR + (uint32_t) (i & (NO_PAIR_SLOTS - 1));
		uint32_t	extended = select_u32(longer, (pair & ~(NTOKENS - 1)) | ESCAPE_TOKEN(first),
										  no_pair);

		w->single_copies[i & (SINGLE_COPIES - 1)][token]++;
		/* a lone first byte is always a candidate too */
		w->lone_copies[i & (SINGLE_COPIES - 1)][first] += longer;
		w->touched_pairs[nt] = pair;
		nt += w->pair_count[pair]++ == 0;
		w->touched_pairs[nt] = extended;
		nt += w->pair_count[extended]++ == 0;
	}
	*touched = nt;
}

/*
 * Encode the pieces of sample[0..limit) with the current table, counting
 * tokens and (when count_pairs) pairs.  Returns the code bytes.
 */
static uint64_t
count_sample(train_work *w, size_t limit, int count_pairs, size_t *ntouched)
{
	size_t		lane_start[MATCH_MAX_LANES],
				lane_records[MATCH_MAX_LANES];
	uint64_t	code_bytes = 0;

	memset(w->single_copies, 0, sizeof(w->single_copies));
	memset(w->lone_copies, 0, sizeof(w->lone_copies));
	*ntouched = 0;
	if (GSST_UNLIKELY(!w->enc.long_slots_ok))
		match_sample_hashed(w, limit, lane_start, lane_records);
#ifdef GSST_TRAIN_AVX512
	else if (tv_usable())
		match_sample_avx512(w, limit, lane_start, lane_records, 0, NULL);
#endif
	else
		match_sample(w, limit, lane_start, lane_records);
	for (int k = 0; k < MATCH_MAX_LANES; k++)
		count_records(w, w->records + lane_start[k], lane_records[k], count_pairs, ntouched);
	for (unsigned token = 0; token < NTOKENS; token++)
	{
		uint32_t	sum = 0;

		for (int c = 0; c < SINGLE_COPIES; c++)
			sum += w->single_copies[c][token];
		/* a code 1 byte, an escape 2, a separator none */
		code_bytes += (uint64_t) sum * (1 + (token >= 256)) -
			(token == w->sep_token ? 2 * (uint64_t) sum : 0);
		w->single_count[token] = sum;
	}
	for (unsigned b = 0; b < 256; b++)
		for (int c = 0; c < SINGLE_COPIES; c++)
			w->single_count[ESCAPE_TOKEN(b)] += w->lone_copies[c][b];
	return code_bytes;
}

/*
 * The code bytes of the whole sample with the current table, for a table
 * that is only scored.
 */
static uint64_t
score_sample(train_work *w, size_t sample_size)
{
	size_t		ntouched;

#ifdef GSST_TRAIN_AVX512
	if (GSST_LIKELY(w->enc.long_slots_ok) && tv_usable())
	{
		size_t		lane_start[MATCH_MAX_LANES],
					lane_records[MATCH_MAX_LANES];
		uint64_t	bytes;

		match_sample_avx512(w, sample_size, lane_start, lane_records, 1, &bytes);
		/* each separator was an escape of its own, and is no code */
		return bytes - 2 * (uint64_t) w->sep_count;
	}
#endif
	return count_sample(w, sample_size, 0, &ntouched);
}

static uint32_t
candidate_hash(uint64_t symbol, unsigned len)
{
	uint64_t	h = (symbol ^ ((uint64_t) len << 59)) * 0x9E3779B97F4A7C15ull;

	return (uint32_t) (h >> 48);	/* 16 bits: CANDIDATE_HASH */
}

/*
 * Add gain to a candidate symbol; returns the number of candidates.  The
 * hash holds 1 + the index of a dense array, so only its 128 KB need
 * clearing, not the candidates.
 */
static size_t
add_candidate(train_work *w, size_t n, uint64_t symbol, unsigned len, uint32_t gain)
{
	uint32_t	slot = candidate_hash(symbol, len);

	for (;;)
	{
		uint32_t	index = w->candidate_index[slot];
		candidate  *c;

		if (index == 0)
		{
			c = &w->candidates[n];
			c->symbol = symbol;
			c->len = (uint8_t) len;
			c->gain = gain;
			c->slot = (uint16_t) slot;
			w->candidate_index[slot] = (uint16_t) (n + 1);
			return n + 1;
		}
		c = &w->candidates[index - 1];
		if (c->symbol == symbol && c->len == len)
		{
			c->gain += gain;
			return n;
		}
		slot = (slot + 1) & (CANDIDATE_HASH - 1);
	}
}

/*
 * Move the STRONGEST_KEPT candidates of highest gain to the front (a
 * quickselect), so that only those need sorting.
 */
#define STRONGEST_KEPT 768

/*
 * The order of keep_strongest: a stronger candidate first (more gain, then
 * shorter, then the lower symbol).  A candidate's strength is two words
 * compared in turn; the comparison has no branches.
 */
typedef struct strength
{
	uint64_t	high;
	uint64_t	low;
} strength;

GSST_INLINE strength
strength_of(const candidate *x)
{
	strength	s = {(uint64_t) x->gain << 4 | (uint64_t) (15 - x->len), ~x->symbol};

	return s;
}

GSST_INLINE uint64_t
stronger(strength x, strength y)
{
	return (uint64_t) (x.high > y.high) | ((uint64_t) (x.high == y.high) & (uint64_t) (x.low > y.low));
}

_Static_assert(sizeof(candidate) == 16, "candidates move as two words");

/*
 * Sort items[0..n) by key, ascending, stably (an LSD radix sort by bytes,
 * skipping the bytes where all keys agree); scratch holds n items.  The
 * branchy comparison sorts mispredicted on every other step.
 */
static void
sort_items(sort_item *items, size_t n, sort_item *scratch)
{
	sort_item  *from = items,
			   *to = scratch;
	uint64_t	all_or = 0,
				all_and = ~(uint64_t) 0;

	for (size_t i = 0; i < n; i++)
	{
		all_or |= items[i].key;
		all_and &= items[i].key;
	}
	for (unsigned shift = 0; shift < 64; shift += 8)
	{
		size_t		position[256];
		size_t		sum = 0;
		sort_item  *swap;

		if ((((all_or ^ all_and) >> shift) & 0xFF) == 0)
			continue;
		memset(position, 0, sizeof(position));
		for (size_t i = 0; i < n; i++)
			position[(from[i].key >> shift) & 0xFF]++;
		for (unsigned b = 0; b < 256; b++)
		{
			size_t		count = position[b];

			position[b] = sum;
			sum += count;
		}
		for (size_t i = 0; i < n; i++)
			to[position[(from[i].key >> shift) & 0xFF]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != items)
		memcpy(items, from, n * sizeof(sort_item));
}

/*
 * Gain classes for a histogram: exact below GAIN_EXACT, then by 4096s
 * (gains are below 2^22, see candidate).
 */
#define GAIN_EXACT		4096
#define GAIN_CLASSES	(GAIN_EXACT + (1 << 22) / 4096)
#define GAIN_GROUP		64		/* classes summed at once to find the cut */
/* the classes, and one more: a whole group */
#define GAIN_HISTOGRAM	((GAIN_CLASSES / GAIN_GROUP + 1) * GAIN_GROUP)

GSST_INLINE uint32_t
gain_class(uint32_t gain)
{
	if (gain < GAIN_EXACT)
		return gain;
	return gain < (1u << 22) ? GAIN_EXACT + (gain >> 12) : GAIN_CLASSES - 1;
}

/*
 * Move the STRONGEST_KEPT strongest candidates (by the full order: the
 * candidates are distinct, so the kept set does not depend on the order
 * they come in) to the front; returns how many are kept.  A histogram of
 * gain classes first finds the class of the weakest kept one, and only
 * candidates of that class or above, usually a few more than kept, go
 * through the quickselect.
 */
static size_t
keep_strongest(candidate *c, size_t n)
{
	uint32_t	histogram[GAIN_HISTOGRAM];
	size_t		lo = 0,
				hi,
				above = 0;
	uint32_t	cut;

	if (n <= STRONGEST_KEPT)
		return n;
	memset(histogram, 0, sizeof(histogram));
	for (size_t k = 0; k < n; k++)
		histogram[gain_class(c[k].gain)]++;

	/*
	 * The cut: the highest class with STRONGEST_KEPT candidates at or
	 * above it.  Whole groups of classes first: a scan of every class
	 * was a long chain of adds.
	 */
	{
		uint32_t	group = GAIN_CLASSES / GAIN_GROUP;

		for (;; group--)
		{
			uint32_t	in_group = 0;

			for (uint32_t k = 0; k < GAIN_GROUP; k++)
				in_group += histogram[group * GAIN_GROUP + k];
			if (above + in_group >= STRONGEST_KEPT)
				break;
			above += in_group;
		}
		for (cut = group * GAIN_GROUP + GAIN_GROUP - 1; above + histogram[cut] < STRONGEST_KEPT; cut--)
			above += histogram[cut];
	}
	hi = 0;
	for (size_t k = 0; k < n; k++)
	{
		c[hi] = c[k];
		hi += gain_class(c[k].gain) >= cut;
	}
	/* invariant: [0, lo) are all kept, [hi, n) are all dropped */
	while (hi - lo > 1)
	{
		size_t		mid = lo + (hi - lo) / 2;
		candidate	pivot = c[mid];
		size_t		i = lo;

		/* stronger than the pivot to the front, then the pivot */
		c[mid] = c[hi - 1];
		c[hi - 1] = pivot;
		/*
		 * The swap of a Lomuto partition, without branches (they
		 * mispredicted half the time): both places are written, with
		 * their own values where nothing moves.
		 */
		{
			strength	pivot_strength = strength_of(&pivot);

			for (size_t k = lo; k < hi - 1; k++)
			{
				uint64_t	t[2],
							u[2],
							move;

				memcpy(t, &c[k], sizeof(t));
				memcpy(u, &c[i], sizeof(u));
				move = -stronger(strength_of(&c[k]), pivot_strength);
				{
					uint64_t	at_k[2] = {(u[0] & move) | (t[0] & ~move),
										   (u[1] & move) | (t[1] & ~move)};
					uint64_t	at_i[2] = {(t[0] & move) | (u[0] & ~move),
										   (t[1] & move) | (u[1] & ~move)};

					memcpy(&c[k], at_k, sizeof(at_k));
					memcpy(&c[i], at_i, sizeof(at_i));
				}
				i += move & 1;
			}
		}
		c[hi - 1] = c[i];
		c[i] = pivot;
		/* [lo, i) stronger, i the pivot, (i, hi) weaker */
		if (STRONGEST_KEPT <= i)
			hi = i;
		else if (STRONGEST_KEPT == i + 1)
			return STRONGEST_KEPT;
		else
			lo = i + 1;
	}
	return STRONGEST_KEPT;
}

/*
 * Pick the best candidates that fit the profile and build the next table.
 * gain_scale turns sample counts into whole-input counts; candidates too
 * rare to pay for their bytes in the serialized table are dropped (this
 * matters for small inputs).
 */
static void
select_table(train_work *w, gsst_table *next, size_t ncandidates, double gain_scale)
{
	uint64_t	symbols[GSST_MAX_SYMBOLS];
	uint8_t		lens[GSST_MAX_SYMBOLS];
	uint32_t	long_keys[GSST_HASH_BUCKETS][GSST_HASH_WAYS];
	uint8_t		long_fill[GSST_HASH_BUCKETS] = {0};
	uint8_t		pair_fill[GSST_HASH_BUCKETS] = {0};
	size_t		n = 0;
	candidate  *ranked = w->candidates;
	sort_item  *items = w->items;

	ncandidates = keep_strongest(ranked, ncandidates);
	/*
	 * stronger first: by gain, then shorter, then the order keep_strongest
	 * left (the sort is stable, so that order needs no key bytes)
	 */
	for (size_t i = 0; i < ncandidates; i++)
	{
		items[i].key = ~((uint64_t) ranked[i].gain << 4 |
						 (uint64_t) (GSST_MAX_SYMBOL_LEN - ranked[i].len));
		items[i].index = (uint32_t) i;
	}
	sort_items(items, ncandidates, items + ncandidates);
	for (size_t k = 0; k < ncandidates && n < GSST_MAX_SYMBOLS; k++)
	{
		const candidate *c = &ranked[items[k].index];

		/* used about twice in the whole input: pays for its table bytes */
		if ((double) c->gain * gain_scale < 2.0 * c->len)
			continue;
		if (c->len == 2)
		{
			uint32_t	bucket = gsst_hash_bucket((uint32_t) c->symbol);

			if (pair_fill[bucket] == GSST_HASH_WAYS)
				continue;
			pair_fill[bucket]++;
		}
		else if (c->len >= 3)
		{
			uint32_t	prefix = (uint32_t) (c->symbol & 0xFFFFFF);
			uint32_t	bucket = gsst_hash_bucket(prefix);
			int			taken = long_fill[bucket] == GSST_HASH_WAYS;

			for (unsigned way = 0; way < long_fill[bucket] && !taken; way++)
				taken = long_keys[bucket][way] == prefix;
			if (taken)
				continue;
			long_keys[bucket][long_fill[bucket]++] = prefix;
		}
		symbols[n] = c->symbol;
		lens[n] = c->len;
		n++;
	}

	/*
	 * In canonical order gsst_table_build's insertion sort is linear: sort
	 * by length, then the first two bytes, which leaves it a few short
	 * runs to order (symbols that share both).  Sorting by all 8 bytes
	 * cost more radix passes than that.  The table is the same either
	 * way: gsst_table_build orders it completely.
	 */
	for (size_t i = 0; i < n; i++)
	{
		items[i].key = (uint64_t) lens[i] << 16 | (symbols[i] & 0xFF) << 8 |
			((symbols[i] >> 8) & 0xFF);
		items[i].index = (uint32_t) i;
	}
	sort_items(items, n, items + n);
	{
		uint64_t	sorted_symbols[GSST_MAX_SYMBOLS];
		uint8_t		sorted_lens[GSST_MAX_SYMBOLS];

		for (size_t i = 0; i < n; i++)
		{
			sorted_symbols[i] = symbols[items[i].index];
			sorted_lens[i] = lens[items[i].index];
		}
		/* the selection respects the profile, so building cannot fail */
		(void) gsst_table_build(next, sorted_symbols, sorted_lens, n);
	}
}

#define ONCE_PAIRS_BELOW	1024

/*
 * Turn this generation's counts into candidates: every token, and every
 * concatenation of two adjacent tokens that fits in 8 bytes.  The pair
 * counters go back to zero.  Returns the number of candidates kept.
 */
static size_t
gather_candidates(train_work *w, const gsst_table *current, size_t ntouched,
				  unsigned sep, int extend, double gain_scale)
{
	size_t		n = 0,
				nkept = 0,
				nonce = 0;

	for (unsigned token = 0; token < NTOKENS; token++)
	{
		uint64_t	symbol;
		unsigned	len;

		if (w->single_count[token] == 0 || token == ESCAPE_TOKEN(sep) ||
			(token < 256 && current->len[token] == 0))
			continue;
		token_symbol(current, token, &symbol, &len);
		n = add_candidate(w, n, symbol, len,
						  w->single_count[token] * len *
						  (len == 1 ? SINGLE_BYTE_BOOST : 1));
	}
	for (size_t i = 0; i < ntouched; i++)
	{
		uint32_t	index = w->touched_pairs[i];
		uint32_t	count = w->pair_count[index];
		uint64_t	sym1,
					sym2;
		unsigned	len1,
					len2;

		w->pair_count[index] = 0;
		if (!extend || index >= NO_PAIR || index / NTOKENS == ESCAPE_TOKEN(sep) ||
			index % NTOKENS == ESCAPE_TOKEN(sep))
			continue;
		if (count == 1)
		{
			/* later, if needed (the list is read ahead of this write) */
			w->touched_pairs[nonce++] = index;
			continue;
		}
		token_symbol(current, index / NTOKENS, &sym1, &len1);
		token_symbol(current, index % NTOKENS, &sym2, &len2);
		if (len1 + len2 > GSST_MAX_SYMBOL_LEN)
			continue;
		n = add_candidate(w, n, sym1 | sym2 << (8 * len1), len1 + len2,
						  count * (len1 + len2));
	}

	/*
	 * Pairs seen once (gain at most 8) matter only when candidates are
	 * few; else they are most of the hash inserts for nothing.
	 */
	for (size_t i = 0; i < nonce && n < ONCE_PAIRS_BELOW; i++)
	{
		uint32_t	index = w->touched_pairs[i];
		uint64_t	sym1,
					sym2;
		unsigned	len1,
					len2;

		token_symbol(current, index / NTOKENS, &sym1, &len1);
		token_symbol(current, index % NTOKENS, &sym2, &len2);
		if (len1 + len2 > GSST_MAX_SYMBOL_LEN)
			continue;
		n = add_candidate(w, n, sym1 | sym2 << (8 * len1), len1 + len2, len1 + len2);
	}

	/*
	 * Free the hash for the next round, and drop the candidates too rare
	 * to pay for their table bytes (select_table's test): far fewer to
	 * rank.
	 */
	for (size_t i = 0; i < n; i++)
	{
		candidate	c = w->candidates[i];

		w->candidate_index[c.slot] = 0;
		w->candidates[nkept] = c;
		nkept += (double) c.gain * gain_scale >= 2.0 * c.len;
	}
	return nkept;
}

/* Set (or, with clear, reset) the 2-byte symbols of t in pair_code_plus_one. */
static void
mark_pairs(train_work *w, const gsst_table *t, int clear)
{
	for (uint32_t code = 0; code < t->nsymbols; code++)
		if (t->len[code] == 2)
			w->pair_code_plus_one[t->symbol[code] & 0xFFFF] =
				clear ? 0 : (uint8_t) (code + 1);
}

/* The end of the first separator at or after pos, or size. */
static size_t
after_separator(const train_work *w, size_t pos, size_t size, unsigned sep)
{
	const uint8_t *at;

	if (pos == 0 || pos >= size)
		return pos >= size ? size : 0;
	at = memchr(w->sample + pos - 1, (int) sep, size - (pos - 1));
	return at == NULL ? size : (size_t) (at - w->sample) + 1;
}

int
gsst_train(gsst_table *table, const uint8_t *const *values, const size_t *lens,
		   size_t n, void *work)
{
	return gsst_train_generations(table, values, lens, n, work, GSST_TRAIN_GENERATIONS);
}

int
gsst_train_generations(gsst_table *table, const uint8_t *const *values, const size_t *lens,
					   size_t n, void *work, int generations)
{
	train_work *w = work;
	size_t		sample_bytes,
				sample_size,
				npieces;
	unsigned	sep;
	uint64_t	total_bytes;
	gsst_table	current;
	uint64_t	best_cost;
	double		gain_scale;

	if (table == NULL || w == NULL || (n > 0 && (values == NULL || lens == NULL)) ||
		generations < 1 || generations > GSST_TRAIN_MAX_GENERATIONS)
		return GSST_ERR_ARG;

	/*
	 * The counters and the hash must start at zero.  The caller's memory
	 * may hold anything (reused heap memory can even hold a finished
	 * training's leftovers), so clear them here rather than trust it.
	 */
	memset(w->pair_count, 0, sizeof(w->pair_count));
	memset(w->candidate_index, 0, sizeof(w->candidate_index));
	memset(w->pair_code_plus_one, 0, sizeof(w->pair_code_plus_one));
	npieces = take_pieces(w, values, lens, n, &sample_bytes, &sample_size, &total_bytes);
	lay_out_sample(w, npieces, sample_size, &sep);
	w->sep_token = ESCAPE_TOKEN(sep);

	/* the empty table: every byte escaped */
	gsst_table_build(&current, NULL, NULL, 0);
	*table = current;
	best_cost = UINT64_MAX;

	gain_scale = sample_bytes == 0 ? 1.0 : (double) total_bytes / (double) sample_bytes;

	for (int generation = 0; generation <= generations; generation++)
	{
		size_t		ntouched;
		/*
		 * early generations look at a part of the sample, halving back
		 * from the full one (1/8, 1/4, 1/2): their tables are only a start
		 * (1/4, 2/4, 3/4 gave 0.005 more ratio for 13% more training time)
		 */
		int			full_from = generations < FULL_FROM ? generations : FULL_FROM;
		size_t		limit = generation >= full_from ? sample_size :
			after_separator(w, sample_size >> (full_from - generation), sample_size, sep);
		uint64_t	code_bytes;
		size_t		ncandidates;

		gsst_encoder_init_for_training(&w->enc, &current);
		mark_pairs(w, &current, 0);
		/* the last table is built without pairs: count them only before */
		if (generation == generations)
		{
			code_bytes = score_sample(w, sample_size);
			ntouched = 0;
		}
		else
			code_bytes = count_sample(w, limit, generation < generations - 1, &ntouched);

		/* score the current table on the whole sample */
		if (limit >= sample_size)
		{
			uint64_t	cost = (uint64_t) ((double) code_bytes * (double) total_bytes /
										   (double) (sample_bytes ? sample_bytes : 1)) +
				gsst_table_serialized_size(&current);

			if (cost < best_cost)
			{
				best_cost = cost;
				*table = current;
			}
		}
		mark_pairs(w, &current, 1);		/* the work buffer stays zeroed */
		if (generation == generations)
			break;
		ncandidates = gather_candidates(w, &current, ntouched, sep,
										generation < generations - 1, gain_scale);
		select_table(w, &current, ncandidates, gain_scale);
	}
	return GSST_OK;
}
