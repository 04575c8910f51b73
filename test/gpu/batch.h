/*
 * batch.h - test batches for the GPU tests and benchmark: values from a
 * dbtext file (repeated up to a size), random binary values, and long
 * values that cross encoder units.  C and C++ (bench/gpu_bench.cu).
 */
#ifndef GSST_GPU_BATCH_H
#define GSST_GPU_BATCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct batch
{
	uint8_t    *data;
	uint64_t   *off;
	uint64_t	n;
	uint64_t	cap_bytes;
	uint64_t	cap_values;
} batch;

static inline void
batch_add(batch *b, const uint8_t *v, uint64_t len)
{
	if (b->n + 2 > b->cap_values)
	{
		b->cap_values = b->cap_values ? b->cap_values * 2 : 1024;
		b->off = (uint64_t *) realloc(b->off, b->cap_values * sizeof(uint64_t));
	}
	if (b->n == 0)
		b->off[0] = 3;			/* offsets need not start at 0 */
	if (b->off[b->n] + len + 16 > b->cap_bytes)
	{
		b->cap_bytes = (b->off[b->n] + len + 16) * 2;
		b->data = (uint8_t *) realloc(b->data, b->cap_bytes);
		memset(b->data, 0x5A, 3);
	}
	memcpy(b->data + b->off[b->n], v, len);
	b->off[b->n + 1] = b->off[b->n] + len;
	b->n++;
}

static inline void
batch_free(batch *b)
{
	free(b->data);
	free(b->off);
	memset(b, 0, sizeof(*b));
}

static uint64_t rng_state = 88172645463325252ull;

static inline uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static inline int
load_file(batch *b, const char *path, uint64_t min_bytes, uint64_t max_bytes)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *buf;
	long		len;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = (uint8_t *) malloc(len + 1);
	if (fread(buf, 1, len, f) != (size_t) len)
		len = 0;
	fclose(f);
	do
	{
		long		s = 0;

		for (long i = 0; i < len; i++)
			if (buf[i] == '\n')
			{
				long		l = i - s;

				if (l > 0 && buf[s + l - 1] == '\r')
					l--;
				if (max_bytes && b->n > 0 && b->off[b->n] - b->off[0] + l > max_bytes)
				{
					free(buf);
					return 0;	/* full */
				}
				batch_add(b, buf + s, l);
				s = i + 1;
			}
	} while (b->n > 0 && b->off[b->n] - b->off[0] < min_bytes);
	free(buf);
	return 0;
}

static inline void
make_random(batch *b, uint64_t nvalues)
{
	uint8_t		v[400];

	for (uint64_t i = 0; i < nvalues; i++)
	{
		uint64_t	len = rnd() % 300;

		for (uint64_t j = 0; j < len; j++)
			v[j] = (uint8_t) rnd();
		batch_add(b, v, len);
	}
}

static inline void
make_long(batch *b)
{
	static const char *words[] = {"the ", "quick ", "brown ", "fox ", "jumps ", "over ",
	"lazy ", "dogs ", "and ", "furiously ", "regular ", "deposits "};
	uint64_t	big = 3 * 1024 * 1024 + 123;
	uint8_t    *v = (uint8_t *) malloc(big);
	uint64_t	lens[] = {4095, 4096, 4097, 8192, 12288, 12289, 40000};

	/* compressible text values, short and long */
	for (int rep = 0; rep < 3; rep++)
	{
		uint64_t	len = rep == 0 ? big : (rep == 1 ? 100000 : 777);

		for (uint64_t j = 0; j < len;)
		{
			const char *w = words[rnd() % 12];

			for (; *w && j < len; w++)
				v[j++] = (uint8_t) *w;
		}
		batch_add(b, v, len);
		for (int k = 0; k < 50; k++)
			batch_add(b, v + k * 7, 20 + k);
	}
	/* several segment-exact lengths */
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
		batch_add(b, v + 1000, lens[k]);
	/* binary: stored raw, crosses units */
	for (uint64_t j = 0; j < 2 * 1024 * 1024; j++)
		v[j] = (uint8_t) rnd();
	batch_add(b, v, 2 * 1024 * 1024);
	/* text then binary: some units' codes overflow, the value still shrinks */
	for (uint64_t j = 0; j < big; j++)
		v[j] = (uint8_t) words[(j / 6) % 12][j % 4];
	for (uint64_t j = big - 300000; j < big; j++)
		v[j] = (uint8_t) rnd();
	batch_add(b, v, big);
	/* binary then text */
	for (uint64_t j = 0; j < 200000; j++)
		v[j] = (uint8_t) rnd();
	for (uint64_t j = 200000; j < big; j++)
		v[j] = (uint8_t) words[(j / 6) % 12][j % 4];
	batch_add(b, v, big);
	free(v);
}

#endif							/* GSST_GPU_BATCH_H */
