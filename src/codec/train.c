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
	uint16_t	pair_count[NTOKENS * NTOKENS];	/* <= SAMPLE_BYTES */
	uint32_t	touched_pairs[2 * SAMPLE_BYTES];
	uint32_t	single_count[NTOKENS];
	candidate	slots[CANDIDATE_SLOTS];
	uint32_t	used_slots[CANDIDATE_SLOTS];
	candidate	ranked[CANDIDATE_SLOTS];
	uint8_t		sample[SAMPLE_BYTES + 8];	/* 8 bytes of load slack */
	uint32_t	piece_len[SAMPLE_BYTES + 1];
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
		/* bounded tries: a mostly-empty input must not loop for ever */
		for (uint64_t tries = 0; used < SAMPLE_BYTES && tries < 64 * (uint64_t) SAMPLE_BYTES; tries++)
		{
			size_t		i = (size_t) (next_random(&rng) % n);
			size_t		len = lens[i];
			size_t		start = 0;

			if (len == 0)
				continue;
			if (len > SAMPLE_PIECE_MAX)
			{
				start = (size_t) (next_random(&rng) % (len - SAMPLE_PIECE_MAX + 1));
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
 * Encode the first sample_bytes of the sample with the current table,
 * counting tokens and (when count_pairs) adjacent pairs.  Returns the code
 * bytes the encoding takes.
 */
static uint64_t
count_sample(train_work *w, size_t npieces, size_t sample_limit, int count_pairs,
			 size_t *ntouched)
{
	const gsst_encoder *enc = &w->enc;
	uint64_t	code_bytes = 0;
	size_t		offset = 0;

	*ntouched = 0;
	memset(w->single_count, 0, sizeof(w->single_count));
	for (size_t piece = 0; piece < npieces && offset < sample_limit; piece++)
	{
		size_t		len = w->piece_len[piece];
		const uint8_t *in = w->sample + offset;
		unsigned	previous = NTOKENS;

		for (size_t pos = 0; pos < len;)
		{
			size_t		rem = len - pos;
			uint64_t	word;
			unsigned	advance;
			unsigned	code,
						token;

			/* the sample buffer has slack: bytes past a piece may be loaded */
			word = load_u64(in + pos);
			code = gsst_match(enc, word, rem >= 8 ? 8 : (unsigned) rem, &advance);
			token = code == GSST_ESCAPE ? ESCAPE_TOKEN(in[pos]) : code;
			code_bytes += 1 + (code == GSST_ESCAPE);
			w->single_count[token]++;
			/* a lone first byte is always a candidate too */
			if (advance > 1)
				w->single_count[ESCAPE_TOKEN(in[pos])]++;
			if (count_pairs && previous != NTOKENS)
			{
				uint32_t	index = previous * NTOKENS + token;

				if (w->pair_count[index]++ == 0)
					w->touched_pairs[(*ntouched)++] = index;
				/* also extending the previous symbol by just the next byte */
				if (advance > 1)
				{
					index = previous * NTOKENS + ESCAPE_TOKEN(in[pos]);
					if (w->pair_count[index]++ == 0)
						w->touched_pairs[(*ntouched)++] = index;
				}
			}
			previous = token;
			pos += advance;
		}
		offset += len;
	}
	return code_bytes;
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

/* Highest gain first; ties in canonical order, so the result is stable. */
static int
candidate_order(const void *a, const void *b)
{
	const candidate *x = a;
	const candidate *y = b;

	if (x->gain != y->gain)
		return x->gain > y->gain ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->symbol < y->symbol ? -1 : x->symbol > y->symbol;
}

/*
 * Move the STRONGEST_KEPT candidates of highest gain to the front (a
 * quickselect), so that only those need sorting.
 */
#define STRONGEST_KEPT 768

static size_t
keep_strongest(candidate *c, size_t n)
{
	size_t		lo = 0,
				hi = n;

	if (n <= STRONGEST_KEPT)
		return n;
	/* invariant: [0, lo) are all kept, [hi, n) are all dropped */
	while (hi - lo > 1)
	{
		uint32_t	pivot = c[lo + (hi - lo) / 2].gain;
		size_t		i = lo,
					j = hi;

		/* three-way split: > pivot | == pivot | < pivot */
		for (size_t k = lo; k < j;)
		{
			if (c[k].gain > pivot)
			{
				candidate	t = c[k];

				c[k++] = c[i];
				c[i++] = t;
			}
			else if (c[k].gain < pivot)
			{
				candidate	t = c[k];

				c[k] = c[--j];
				c[j] = t;
			}
			else
				k++;
		}
		if (STRONGEST_KEPT < i)
			hi = i;
		else if (STRONGEST_KEPT <= j)
			return STRONGEST_KEPT;
		else
			lo = j;
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

	ncandidates = keep_strongest(w->ranked, ncandidates);
	qsort(w->ranked, ncandidates, sizeof(candidate), candidate_order);
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
		symbols[n] = c->symbol;
		lens[n] = c->len;
		n++;
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
				  int extend)
{
	size_t		nused = 0;

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
		if (!extend)
			continue;
		token_symbol(current, index / NTOKENS, &sym1, &len1);
		token_symbol(current, index % NTOKENS, &sym2, &len2);
		if (len1 + len2 > GSST_MAX_SYMBOL_LEN)
			continue;
		nused = add_candidate(w, nused, sym1 | sym2 << (8 * len1), len1 + len2,
							  count * (len1 + len2));
	}
	/* move the candidates out and free their slots for the next round */
	for (size_t i = 0; i < nused; i++)
	{
		candidate  *c = &w->slots[w->used_slots[i]];

		w->ranked[i] = *c;
		c->len = 0;
	}
	return nused;
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

		gsst_encoder_init(&w->enc, &current);
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
		if (generation == GENERATIONS)
			break;
		ncandidates = gather_candidates(w, &current, ntouched, generation < GENERATIONS - 1);
		select_table(w, &current, ncandidates, gain_scale);
	}
	return GSST_OK;
}
