/*
 * compare_bench.c - the time of the comparisons that sorts, btrees and
 * probes of the query paths make on encoded values (src/type/compare.c
 * inlines the same two functions), for comparing compilers and builds.
 *
 *   cc -O2 -std=c11 -Isrc/codec -o compare_bench bench/compare_bench.c \
 *      src/codec/[a-z]*.c -lm
 *   ./compare_bench FILE...
 *
 * Per file (one value per line, the first 1,048,576 lines): trains a table
 * on the values, encodes each, then, best of 7 rounds, qsorts the encoded
 * values with gsst_compare_codes_quick (ns per comparison) and compares
 * each against another value's text with gsst_compare_text_quick (ns per
 * comparison).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsst_codec.h"

#include "bench_clock.h"

#define MAX_VALUES	(1 << 20)
#define ROUNDS		7

typedef struct Encoded
{
	uint8_t    *codes;
	size_t		len;
} Encoded;

static gsst_table table;
static long comparisons;

static int
compare_encoded(const void *a, const void *b)
{
	const Encoded *x = a;
	const Encoded *y = b;
	int			order;

	comparisons++;
	if (!gsst_compare_codes_quick(&table, x->codes, x->len, y->codes, y->len, &order))
	{
		fprintf(stderr, "bad codes\n");
		exit(1);
	}
	return order;
}

static void
bench_file(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		len;
	size_t		n = 0;
	uint8_t   **values = malloc(MAX_VALUES * sizeof(*values));
	size_t	   *lens = malloc(MAX_VALUES * sizeof(*lens));
	void	   *work = aligned_alloc(8, (gsst_train_work_bytes() + 7) & ~(size_t) 7);
	gsst_encoder encoder;
	Encoded    *encoded;
	Encoded    *sorted;
	double		best_sort = 1e9;
	double		best_probe = 1e9;
	long		sink = 0;

	if (f == NULL || values == NULL || lens == NULL || work == NULL)
	{
		perror(path);
		exit(1);
	}
	while (n < MAX_VALUES && (len = getline(&line, &cap, f)) > 0)
	{
		if (line[len - 1] == '\n')
			len--;
		values[n] = malloc((size_t) len + 16);
		memcpy(values[n], line, (size_t) len);
		lens[n++] = (size_t) len;
	}
	fclose(f);
	free(line);
	if (n == 0 || gsst_train(&table, (const uint8_t *const *) values, lens, n, work) != GSST_OK)
	{
		fprintf(stderr, "%s: nothing to train on\n", path);
		exit(1);
	}
	gsst_encoder_init(&encoder, &table);
	encoded = malloc(n * sizeof(Encoded));
	sorted = malloc(n * sizeof(Encoded));
	for (size_t i = 0; i < n; i++)
	{
		size_t		limit = 2 * lens[i] + 8;

		encoded[i].codes = malloc(limit + GSST_ENCODE_SLACK);
		encoded[i].len = gsst_encode_value(&encoder, values[i], lens[i], encoded[i].codes, limit);
	}
	for (int r = 0; r < ROUNDS; r++)
	{
		double		t;

		memcpy(sorted, encoded, n * sizeof(Encoded));
		comparisons = 0;
		t = bench_now_seconds();
		qsort(sorted, n, sizeof(Encoded), compare_encoded);
		t = (bench_now_seconds() - t) / (double) comparisons;
		if (t < best_sort)
			best_sort = t;

		t = bench_now_seconds();
		for (size_t i = 0; i < n; i++)
		{
			size_t		j = (i * 7919) % n;
			int			order = 0;

			gsst_compare_text_quick(&table, encoded[i].codes, encoded[i].len, values[j], lens[j], &order);
			sink += order;
		}
		t = (bench_now_seconds() - t) / (double) n;
		if (t < best_probe)
			best_probe = t;
	}
	printf("%s\t%zu\t%.1f\t%.1f\n", path, n, best_sort * 1e9, best_probe * 1e9);
	if (sink == 42)
		fputs("", stdout);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
	{
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	printf("file\tvalues\tsort_ns_per_comparison\ttext_probe_ns_per_comparison\n");
	for (int i = 1; i < argc; i++)
		bench_file(argv[i]);
	return 0;
}
