/*
 * test_util.h - small helpers shared by the codec unit tests and the fuzz
 * seed generator: a seeded RNG, generated columns (test_data.h) and data
 * files split into lines, and an independent reference encoder written
 * straight from FORMAT.md.
 */
#ifndef GSST_TEST_UTIL_H
#define GSST_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsst_codec.h"
#include "test_data.h"

/* ---- memory ---- */

static inline void *
xmalloc(size_t n)
{
	/* malloc(0) may return NULL; one byte keeps the pointer valid. */
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

/* An exact-size heap copy, so ASan flags any read past its end. */
static inline uint8_t *
xdup(const void *src, size_t n)
{
	uint8_t    *p = xmalloc(n);

	if (n)
		memcpy(p, src, n);
	return p;
}

/* ---- deterministic RNG: the splitmix64 of test_data.h ---- */

typedef td_rng test_rng;

static inline uint64_t
rng_next(test_rng *r)
{
	return td_next(r);
}

/* Uniform in [0, n); n > 0.  The tiny modulo bias does not matter here. */
static inline uint64_t
rng_below(test_rng *r, uint64_t n)
{
	return td_below(r, n);
}

static inline void
rng_fill(test_rng *r, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t) rng_next(r);
}

/* Text-like bytes: words from a small vocabulary separated by spaces. */
static inline void
rng_text(test_rng *r, uint8_t *out, size_t n)
{
	static const char *const words[] = {
		"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog",
		"carefully", "final", "deposits", "sleep", "furiously", "among",
		"requests", "http://www.", ".com/", "index", "2024-", "user@", "mail",
		"ing", "tion", "Street", "Avenue", "data", "base", "gsst", "0123"
	};
	const size_t nwords = sizeof(words) / sizeof(words[0]);
	size_t		pos = 0;

	while (pos < n)
	{
		const char *w = words[rng_below(r, nwords)];
		size_t		wl = strlen(w);

		for (size_t k = 0; k < wl && pos < n; k++)
			out[pos++] = (uint8_t) w[k];
		if (pos < n)
			out[pos++] = rng_below(r, 8) == 0 ? ',' : ' ';
	}
}

/* ---- a set of values: data[offsets[i] .. offsets[i+1]) ---- */

typedef struct value_set
{
	uint8_t    *data;
	uint64_t   *offsets;		/* n + 1 entries */
	size_t		n;
	size_t		cap_values;
	size_t		bytes;
	size_t		cap_bytes;
} value_set;

static inline void
vs_init(value_set *vs)
{
	memset(vs, 0, sizeof(*vs));
	vs->cap_values = 16;
	vs->cap_bytes = 256;
	vs->offsets = xmalloc(sizeof(uint64_t) * (vs->cap_values + 1));
	vs->data = xmalloc(vs->cap_bytes);
	vs->offsets[0] = 0;
}

static inline void
vs_free(value_set *vs)
{
	free(vs->data);
	free(vs->offsets);
	memset(vs, 0, sizeof(*vs));
}

/* Append an empty value of len bytes and return where to write it. */
static inline uint8_t *
vs_push(value_set *vs, size_t len)
{
	if (vs->n == vs->cap_values)
	{
		vs->cap_values *= 2;
		vs->offsets = realloc(vs->offsets, sizeof(uint64_t) * (vs->cap_values + 1));
		if (vs->offsets == NULL)
			abort();
	}
	if (vs->bytes + len > vs->cap_bytes)
	{
		while (vs->bytes + len > vs->cap_bytes)
			vs->cap_bytes *= 2;
		vs->data = realloc(vs->data, vs->cap_bytes);
		if (vs->data == NULL)
			abort();
	}
	uint8_t    *dst = vs->data + vs->bytes;

	vs->bytes += len;
	vs->n++;
	vs->offsets[vs->n] = vs->bytes;
	return dst;
}

static inline void
vs_add(value_set *vs, const void *src, size_t len)
{
	uint8_t    *dst = vs_push(vs, len);

	if (len)
		memcpy(dst, src, len);
}

static inline const uint8_t *
vs_value(const value_set *vs, size_t i, size_t *len)
{
	*len = (size_t) (vs->offsets[i + 1] - vs->offsets[i]);
	return vs->data + vs->offsets[i];
}

/* The first nvalues values of a generated column (test_data.h). */
static inline void
vs_generate(value_set *vs, int column, size_t nvalues)
{
	td_gen		g;
	uint8_t    *buf = xmalloc(TD_MAX_VALUE);

	vs_init(vs);
	td_gen_init(&g, column);
	for (size_t i = 0; i < nvalues; i++)
	{
		size_t		len = td_gen_next(&g, buf);

		vs_add(vs, buf, len);
	}
	free(buf);
}

/*
 * Read a file, one value per line: strip "\n" and a trailing "\r".  A last
 * line without "\n" is a value too.  Returns 0, or -1 if unreadable.
 */
static inline int
vs_load_lines(value_set *vs, const char *path)
{
	FILE	   *f = fopen(path, "rb");

	if (f == NULL)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0)
	{
		fclose(f);
		return -1;
	}
	long		size = ftell(f);

	if (size < 0)
	{
		fclose(f);
		return -1;
	}
	rewind(f);
	uint8_t    *buf = xmalloc((size_t) size);

	if (fread(buf, 1, (size_t) size, f) != (size_t) size)
	{
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);

	vs_init(vs);
	size_t		start = 0;

	for (size_t i = 0; i <= (size_t) size; i++)
	{
		if (i < (size_t) size && buf[i] != '\n')
			continue;
		if (i == (size_t) size && start == i)
			break;				/* no trailing empty value after the last "\n" */
		size_t		end = i;

		if (end > start && buf[end - 1] == '\r')
			end--;
		vs_add(vs, buf + start, end - start);
		start = i + 1;
	}
	free(buf);
	return 0;
}

/* Train a table on every value of vs; returns the gsst status. */
static inline int
vs_train_generations(const value_set *vs, gsst_table *table, int generations)
{
	const uint8_t **ptrs = xmalloc(sizeof(*ptrs) * vs->n);
	size_t	   *lens = xmalloc(sizeof(*lens) * vs->n);
	/*
	 * Zeroed scratch: gsst_train used to hang on dirty scratch memory; that
	 * is tested on its own (test_training_dirty_scratch), and the other
	 * tests should still see the rest of the codec.
	 */
	void	   *work = calloc(1, gsst_train_work_bytes());

	if (work == NULL)
		abort();
	for (size_t i = 0; i < vs->n; i++)
		ptrs[i] = vs_value(vs, i, &lens[i]);
	int			rc = generations == GSST_TRAIN_GENERATIONS ?
		gsst_train(table, ptrs, lens, vs->n, work) :
		gsst_train_generations(table, ptrs, lens, vs->n, work, generations);

	free(work);
	free(lens);
	free(ptrs);
	return rc;
}

static inline int
vs_train(const value_set *vs, gsst_table *table)
{
	return vs_train_generations(vs, table, GSST_TRAIN_GENERATIONS);
}

/* ---- reference encoder, straight from FORMAT.md's encoding rule ---- */

/* Byte j of code c's symbol (symbols are stored little-endian). */
static inline uint8_t
ref_symbol_byte(const gsst_table *t, unsigned c, unsigned j)
{
	return (uint8_t) (t->symbol[c] >> (8 * j));
}

/*
 * For speed, the symbols are grouped by first byte; inside a group the
 * longest symbol that matches wins.  This is the plain greedy longest match
 * over the whole table, which FORMAT.md says is the encoding rule when the
 * table satisfies the profile (one long symbol per 3-byte prefix).
 */
typedef struct ref_encoder
{
	const gsst_table *table;
	uint16_t	first[257];		/* codes by first byte: by_first[first[b]..first[b+1]) */
	uint8_t		by_first[256];
} ref_encoder;

static inline void
ref_init(ref_encoder *ref, const gsst_table *table)
{
	unsigned	n = 0;

	ref->table = table;
	for (unsigned b = 0; b < 256; b++)
	{
		ref->first[b] = (uint16_t) n;
		for (unsigned c = 0; c < GSST_MAX_SYMBOLS; c++)
			if (table->len[c] > 0 && ref_symbol_byte(table, c, 0) == b)
				ref->by_first[n++] = (uint8_t) c;
	}
	ref->first[256] = (uint16_t) n;
}

/*
 * Encode in[0..len) with matches restarting every segment_bytes raw bytes.
 * out needs 2 * len bytes.  Returns the number of code bytes.
 */
static inline size_t
ref_encode_segmented(const ref_encoder *ref, const uint8_t *in, size_t len,
					 size_t segment_bytes, uint8_t *out)
{
	const gsst_table *t = ref->table;
	size_t		o = 0;

	for (size_t seg = 0; seg < len; seg += segment_bytes)
	{
		size_t		end = len - seg < segment_bytes ? len : seg + segment_bytes;
		size_t		p = seg;

		while (p < end)
		{
			int			best = -1;
			size_t		best_len = 0;

			for (unsigned k = ref->first[in[p]]; k < ref->first[in[p] + 1]; k++)
			{
				unsigned	c = ref->by_first[k];
				size_t		l = t->len[c];
				size_t		j;

				if (l <= best_len || l > end - p)
					continue;
				for (j = 0; j < l && ref_symbol_byte(t, c, (unsigned) j) == in[p + j]; j++)
					;
				if (j == l)
				{
					best = (int) c;
					best_len = l;
				}
			}
			if (best < 0)
			{
				out[o++] = GSST_ESCAPE;
				out[o++] = in[p++];
			}
			else
			{
				out[o++] = (uint8_t) best;
				p += best_len;
			}
		}
	}
	return o;
}

static inline size_t
ref_encode(const ref_encoder *ref, const uint8_t *in, size_t len, uint8_t *out)
{
	return ref_encode_segmented(ref, in, len, GSST_SEGMENT_BYTES, out);
}

#endif							/* GSST_TEST_UTIL_H */
