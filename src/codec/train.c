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

#define SAMPLE_BYTES		(32 * 1024)
#define SAMPLE_PIECE_MAX	512		/* bytes taken from one long value */
#define GENERATIONS			5
#define NTOKENS				512		/* codes 0..254, escapes 256 + byte */
#define ESCAPE_TOKEN(b)		(256u + (b))
#define CANDIDATE_SLOTS		(1u << 16)
#define SINGLE_BYTE_BOOST	8		/* keeps literals rare, as in FSST */

typedef struct candidate
{
	uint64_t	symbol;
	uint32_t	gain;			/* < 8 x 8 x SAMPLE_BYTES */
	uint8_t		len;			/* 0: free slot */
} candidate;

typedef struct train_work
{
	/* row NTOKENS: pairs with no first token, counted to avoid branches */
	uint16_t	pair_count[(NTOKENS + 1) * NTOKENS];	/* <= SAMPLE_BYTES */
	uint32_t	touched_pairs[2 * SAMPLE_BYTES + NTOKENS + 1];
	uint32_t	single_count[NTOKENS];
	candidate	slots[CANDIDATE_SLOTS];
	uint32_t	used_slots[CANDIDATE_SLOTS];
	candidate	ranked[CANDIDATE_SLOTS];
	uint8_t		sample[SAMPLE_BYTES + 8];	/* 8 bytes of load slack */
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
		picks[next] = (size_t) (draws[next] % n); \
		GSST_PREFETCH(&lens[picks[next]]); \
		GSST_PREFETCH(&values[picks[next]]); \
		next = (next + 1) & (DRAWS_AHEAD - 1); \
		GSST_PREFETCH(values[picks[(next + DRAWS_AHEAD / 2) & (DRAWS_AHEAD - 1)]]); \
	} while (0)

/*
 * Fill the sample: every value when they all fit, else random pieces of
 * random values.  Returns the number of pieces.
 */
static size_t
take_sample(train_work *w, const uint8_t *const *values, const size_t *lens, size_t n,
			size_t *sample_bytes, uint64_t *total_bytes)
{
	uint64_t	total = 0;
	size_t		npieces = 0,
				used = 0;
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
			memcpy(w->sample + used, values[i], lens[i]);
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
			picks[k] = (size_t) (draws[k] % n);
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
				start = (size_t) (offset_draw % (len - SAMPLE_PIECE_MAX + 1));
				len = SAMPLE_PIECE_MAX;
			}
			if (len > SAMPLE_BYTES - used)
				len = SAMPLE_BYTES - used;
			memcpy(w->sample + used, values[i] + start, len);
			used += len;
			w->piece_len[npieces++] = (uint32_t) len;
		}
	}
	*sample_bytes = used;
	return npieces;
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
 * Counting: the sample is encoded by COUNT_LANES lanes at once, each over
 * its own run of pieces (the match is a long dependency chain per step;
 * independent lanes overlap).  The matching is the encoding rule (as in
 * gsst_match), through the CPU encoder's cuckoo table of long symbols.
 * There are no data-dependent branches: a lane moves to its next piece by
 * arithmetic, and a pair that does not exist (at a piece start, or when
 * the token is one byte) is counted at NO_PAIR or in row NTOKENS, which
 * gather_candidates skips.  The counts do not depend on the order of the
 * steps, and neither does the table (see keep_strongest).
 */
#define COUNT_LANES 4
#define NO_PAIR (NTOKENS * NTOKENS)

typedef struct count_lane
{
	const uint8_t *p;
	const uint8_t *piece_end;
	const uint8_t *end;			/* of the lane's last piece */
	const uint32_t *next_piece_len;
	uint32_t	previous;		/* token before p, NTOKENS at a piece start */
} count_lane;

typedef struct counts
{
	uint64_t	code_bytes;
	size_t		touched;
} counts;

GSST_INLINE void
count_step(train_work *w, count_lane *ln, counts *cn, int count_pairs)
{
	const gsst_encoder *enc = &w->enc;
	const uint8_t *p = ln->p;
	uint64_t	word = load_u64(p);	/* the sample buffer has slack */
	uint32_t	rem = (uint32_t) (ln->piece_end - p);
	uint32_t	first = (uint32_t) word & 0xFF;
	long_probe	probe = probe_long_symbols(enc, word, rem);
	uint32_t	pair = w->pair_code_plus_one[word & 0xFFFF];
	uint32_t	entry = select_u32((pair != 0) & (rem >= 2),
								   (pair - 1) | 2u << 8, enc->byte_entry[first]);
	uint32_t	code,
				advance,
				token;
	int			at_piece_end;

	entry = select_u32(probe.hit1, probe.entry1, entry);
	entry = select_u32(probe.hit0, probe.entry0, entry);
	code = entry & 0xFF;
	advance = entry >> 8;
	token = select_u32(code == GSST_ESCAPE, ESCAPE_TOKEN(first), code);
	cn->code_bytes += 1 + (code == GSST_ESCAPE);
	w->single_count[token]++;
	/* a lone first byte is always a candidate too */
	w->single_count[ESCAPE_TOKEN(first)] += advance > 1;
	if (count_pairs)
	{
		uint32_t	index = ln->previous * NTOKENS + token;
		uint32_t	extended;

		w->touched_pairs[cn->touched] = index;
		cn->touched += w->pair_count[index]++ == 0;
		/* also extending the previous symbol by just the next byte */
		extended = select_u32((advance > 1) & (ln->previous != NTOKENS),
							  ln->previous * NTOKENS + ESCAPE_TOKEN(first), NO_PAIR);
		w->touched_pairs[cn->touched] = extended;
		cn->touched += w->pair_count[extended]++ == 0;
	}
	p += advance;
	at_piece_end = p == ln->piece_end;
	ln->previous = select_u32(at_piece_end, NTOKENS, token);
	/* past the lane's end this reads piece_len[npieces], which exists */
	ln->piece_end = p + (at_piece_end ? *ln->next_piece_len : rem - advance);
	ln->next_piece_len += at_piece_end;
	ln->p = p;
}

/*
 * Encode the pieces that start before sample_limit with the current table,
 * counting tokens and (when count_pairs) adjacent pairs.  Returns the code
 * bytes the encoding takes.
 */
static uint64_t
count_sample(train_work *w, size_t npieces, size_t sample_limit, int count_pairs,
			 size_t *ntouched)
{
	count_lane	lanes[COUNT_LANES];
	counts		cn = {0, 0};
	size_t		used = 0,
				piece = 0,
				bytes = 0;

	memset(w->single_count, 0, sizeof(w->single_count));
	/* the pieces that start before the limit, and their bytes */
	while (piece < npieces && bytes < sample_limit)
		bytes += w->piece_len[piece++];
	npieces = piece;

	/* cut them into lanes of about equal bytes, at piece boundaries */
	piece = 0;
	for (int k = 0; k < COUNT_LANES; k++)
	{
		count_lane *ln = &lanes[k];
		size_t		target = bytes * (size_t) (k + 1) / COUNT_LANES;

		ln->p = w->sample + used;
		ln->previous = NTOKENS;
		ln->next_piece_len = &w->piece_len[piece];
		while (piece < npieces && used < target)
			used += w->piece_len[piece++];
		ln->end = w->sample + used;
		ln->piece_end = ln->p + (ln->p < ln->end ? *ln->next_piece_len++ : 0);
	}

	while (lanes[0].p < lanes[0].end && lanes[1].p < lanes[1].end &&
		   lanes[2].p < lanes[2].end && lanes[3].p < lanes[3].end)
	{
		count_step(w, &lanes[0], &cn, count_pairs);
		count_step(w, &lanes[1], &cn, count_pairs);
		count_step(w, &lanes[2], &cn, count_pairs);
		count_step(w, &lanes[3], &cn, count_pairs);
	}
	for (int k = 0; k < COUNT_LANES; k++)
		while (lanes[k].p < lanes[k].end)
			count_step(w, &lanes[k], &cn, count_pairs);
	*ntouched = cn.touched;
	return cn.code_bytes;
}

static uint32_t
candidate_hash(uint64_t symbol, unsigned len)
{
	uint64_t	h = (symbol ^ ((uint64_t) len << 59)) * 0x9E3779B97F4A7C15ull;

	return (uint32_t) (h >> 48);	/* 16 bits: CANDIDATE_SLOTS */
}

/* Add gain to a candidate symbol; returns the number of slots in use. */
static size_t
add_candidate(train_work *w, size_t nused, uint64_t symbol, unsigned len, uint32_t gain)
{
	uint32_t	slot = candidate_hash(symbol, len);

	for (;;)
	{
		candidate  *c = &w->slots[slot];

		if (c->len == 0)
		{
			c->symbol = symbol;
			c->len = (uint8_t) len;
			c->gain = gain;
			w->used_slots[nused] = slot;
			return nused + 1;
		}
		if (c->symbol == symbol && c->len == len)
		{
			c->gain += gain;
			return nused;
		}
		slot = (slot + 1) & (CANDIDATE_SLOTS - 1);
	}
}

/*
 * Move the STRONGEST_KEPT candidates of highest gain to the front (a
 * quickselect), so that only those need sorting.
 */
#define STRONGEST_KEPT 768

/* The order of candidate_order: a stronger candidate first. */
GSST_INLINE int
stronger(const candidate *x, const candidate *y)
{
	if (x->gain != y->gain)
		return x->gain > y->gain;
	if (x->len != y->len)
		return x->len < y->len;
	return x->symbol < y->symbol;
}

/* Canonical table order: by length, then by bytes (big-endian compare). */
GSST_INLINE int
canonical_before(const candidate *x, const candidate *y)
{
	if (x->len != y->len)
		return x->len < y->len;
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_bswap64(x->symbol) < __builtin_bswap64(y->symbol);
#else
	for (int i = 0; i < 8; i++)
	{
		unsigned	a = (unsigned) (x->symbol >> (8 * i)) & 0xFF,
					b = (unsigned) (y->symbol >> (8 * i)) & 0xFF;

		if (a != b)
			return a < b;
	}
	return 0;
#endif
}

/*
 * A stable bottom-up merge sort of c[0..n), stronger() first or canonical
 * order; scratch holds n entries.  (qsort's callbacks cost more than the
 * sorting here.)
 */
GSST_INLINE void
sort_candidates(candidate *c, size_t n, candidate *scratch, int canonical)
{
	candidate  *from = c,
			   *to = scratch;

	for (size_t width = 1; width < n; width *= 2)
	{
		candidate  *swap;

		for (size_t lo = 0; lo < n; lo += 2 * width)
		{
			size_t		mid = lo + width < n ? lo + width : n;
			size_t		hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t		i = lo,
						j = mid,
						k = lo;

			while (i < mid && j < hi)
			{
				int			right_first = canonical ? canonical_before(&from[j], &from[i])
					: stronger(&from[j], &from[i]);

				to[k++] = right_first ? from[j++] : from[i++];
			}
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != c)
		memcpy(c, from, n * sizeof(candidate));
}

/*
 * Gain classes for a histogram: exact below GAIN_EXACT, then by 4096s
 * (gains are below 2^22, see candidate).
 */
#define GAIN_EXACT		4096
#define GAIN_CLASSES	(GAIN_EXACT + (1 << 22) / 4096)

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
	uint32_t	histogram[GAIN_CLASSES + 1];
	size_t		lo = 0,
				hi,
				above = 0;
	uint32_t	cut;

	if (n <= STRONGEST_KEPT)
		return n;
	memset(histogram, 0, sizeof(histogram));
	for (size_t k = 0; k < n; k++)
		histogram[gain_class(c[k].gain)]++;
	for (cut = GAIN_CLASSES; above + histogram[cut] < STRONGEST_KEPT; cut--)
		above += histogram[cut];
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
		for (size_t k = lo; k < hi - 1; k++)
		{
			if (stronger(&c[k], &pivot))
			{
				candidate	t = c[k];

				c[k] = c[i];
				c[i++] = t;
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

	candidate	chosen[GSST_MAX_SYMBOLS];

	ncandidates = keep_strongest(w->ranked, ncandidates);
	/* ranked has room beyond the kept ones for the scratch */
	sort_candidates(w->ranked, ncandidates, w->ranked + STRONGEST_KEPT, 0);
	for (size_t i = 0; i < ncandidates && n < GSST_MAX_SYMBOLS; i++)
	{
		const candidate *c = &w->ranked[i];

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
		chosen[n++] = *c;
	}
	/* in canonical order gsst_table_build's insertion sort is linear */
	sort_candidates(chosen, n, w->ranked, 1);
	for (size_t i = 0; i < n; i++)
	{
		symbols[i] = chosen[i].symbol;
		lens[i] = chosen[i].len;
	}
	/* the selection respects the profile, so building cannot fail */
	(void) gsst_table_build(next, symbols, lens, n);
}

/*
 * Turn this generation's counts into candidates: every token, and every
 * concatenation of two adjacent tokens that fits in 8 bytes.
 */
static size_t
gather_candidates(train_work *w, const gsst_table *current, size_t ntouched,
				  int extend, double gain_scale)
{
	size_t		nused = 0,
				nkept = 0;

	for (unsigned token = 0; token < NTOKENS; token++)
	{
		uint64_t	symbol;
		unsigned	len;

		if (w->single_count[token] == 0 || (token < 256 && current->len[token] == 0))
			continue;
		token_symbol(current, token, &symbol, &len);
		nused = add_candidate(w, nused, symbol, len,
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
		if (!extend || index >= NO_PAIR)
			continue;
		token_symbol(current, index / NTOKENS, &sym1, &len1);
		token_symbol(current, index % NTOKENS, &sym2, &len2);
		if (len1 + len2 > GSST_MAX_SYMBOL_LEN)
			continue;
		nused = add_candidate(w, nused, sym1 | sym2 << (8 * len1), len1 + len2,
							  count * (len1 + len2));
	}
	/*
	 * Move the candidates out and free their slots for the next round.
	 * Those too rare to pay for their table bytes (select_table's test)
	 * are dropped here, which leaves far fewer to rank.
	 */
	for (size_t i = 0; i < nused; i++)
	{
		candidate  *c = &w->slots[w->used_slots[i]];

		w->ranked[nkept] = *c;
		nkept += (double) c->gain * gain_scale >= 2.0 * c->len;
		c->len = 0;
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

int
gsst_train(gsst_table *table, const uint8_t *const *values, const size_t *lens,
		   size_t n, void *work)
{
	train_work *w = work;
	size_t		sample_bytes,
				npieces;
	uint64_t	total_bytes;
	gsst_table	current;
	uint64_t	best_cost;
	double		gain_scale;

	if (table == NULL || w == NULL || (n > 0 && (values == NULL || lens == NULL)))
		return GSST_ERR_ARG;

	/*
	 * The counters must start at zero.  The caller's memory may hold
	 * anything (reused heap memory can even hold a finished training's
	 * leftovers), so clear them here rather than trust it.
	 */
	memset(w->pair_count, 0, sizeof(w->pair_count));
	memset(w->slots, 0, sizeof(w->slots));
	memset(w->pair_code_plus_one, 0, sizeof(w->pair_code_plus_one));
	npieces = take_sample(w, values, lens, n, &sample_bytes, &total_bytes);

	/* the empty table: every byte escaped */
	gsst_table_build(&current, NULL, NULL, 0);
	*table = current;
	best_cost = UINT64_MAX;

	gain_scale = sample_bytes == 0 ? 1.0 : (double) total_bytes / (double) sample_bytes;

	for (int generation = 0; generation <= GENERATIONS; generation++)
	{
		size_t		ntouched;
		/* early generations look at a part of the sample: faster */
		size_t		limit = generation >= 3 ? sample_bytes :
			sample_bytes * (size_t) (generation + 1) / 4;
		uint64_t	code_bytes;
		size_t		ncandidates;

		gsst_encoder_init_for_training(&w->enc, &current);
		mark_pairs(w, &current, 0);
		code_bytes = count_sample(w, npieces, limit, generation < GENERATIONS, &ntouched);

		/* score the current table on the whole sample */
		if (limit >= sample_bytes)
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
		if (generation == GENERATIONS)
			break;
		ncandidates = gather_candidates(w, &current, ntouched, generation < GENERATIONS - 1,
										gain_scale);
		select_table(w, &current, ncandidates, gain_scale);
	}
	return GSST_OK;
}
