/*
 * tile_index_study - what a tile's value index would cost in other layouts.
 *
 *   bench/tile_index_study FILE...      (one value a line, as codec_bench)
 *
 * For each file: a table trained on its values (gsst_train), every value
 * encoded (gsst_encode_value; stored raw when its codes are not shorter, as
 * in a tile), and then, for blocks of 64, 128 and 256 values, the index
 * bytes a value and the ratio raw / (codes + table + index) of these
 * layouts (tile header and split table left out):
 *
 *   v2        the version 2 index: a code length and a raw length byte a
 *             value, a (comp, raw, long) entry of 3 x 4 bytes a block, 8
 *             bytes a value of 255 bytes or more (FORMAT.md);
 *   for2      both lengths bit-packed per block from the block's smallest
 *             (frame of reference), a 15-byte block entry;
 *   for+pred  raw lengths packed so; code lengths as their difference from
 *             raw length * k / 64 (k per block, the smallest width), 17 bytes;
 *   clen      a code length byte and a stored-raw bit a value (4 bytes
 *             more for a code length of 255 or more); raw lengths not
 *             stored (known only by decoding);
 *   forc      code lengths packed per block, a stored-raw bit; raw lengths
 *             not stored.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsst_codec.h"

enum
{
	V2, FOR2, FOR_PRED, CLEN, FORC, LAYOUTS
};
static const char *const layout_names[LAYOUTS] = {"v2", "for2", "for+pred", "clen", "forc"};

/* the sums of log ratios over the files, per block size (64, 128, 256) */
static double log_ratio_sum[3][LAYOUTS];
static int	files_done;

typedef struct
{
	size_t		n;
	uint32_t   *clen;
	uint32_t   *rlen;
} lengths;

static unsigned
bits_for(uint32_t range)
{
	unsigned	w = 0;

	while (w < 32 && ((uint64_t) 1 << w) <= range)
		w++;
	return w;
}

static size_t
packed_bytes(size_t values, unsigned bits)
{
	return (values * bits + 7) / 8;
}

/* widths of one block's lengths from their smallest, and the best residual width */
static void
block_widths(const lengths *l, size_t b, size_t e, unsigned *wc, unsigned *wr, unsigned *wpred)
{
	uint32_t	cmin = UINT32_MAX,
				cmax = 0,
				rmin = UINT32_MAX,
				rmax = 0;

	for (size_t i = b; i < e; i++)
	{
		cmin = l->clen[i] < cmin ? l->clen[i] : cmin;
		cmax = l->clen[i] > cmax ? l->clen[i] : cmax;
		rmin = l->rlen[i] < rmin ? l->rlen[i] : rmin;
		rmax = l->rlen[i] > rmax ? l->rlen[i] : rmax;
	}
	*wc = bits_for(cmax - cmin);
	*wr = bits_for(rmax - rmin);
	*wpred = 32;
	for (uint64_t k = 1; k <= 64; k++)
	{
		int64_t		lo = INT64_MAX,
					hi = INT64_MIN;

		for (size_t i = b; i < e; i++)
		{
			int64_t		r = (int64_t) l->clen[i] - (int64_t) ((l->rlen[i] * k) >> 6);

			lo = r < lo ? r : lo;
			hi = r > hi ? r : hi;
		}
		if (bits_for((uint32_t) (hi - lo)) < *wpred)
			*wpred = bits_for((uint32_t) (hi - lo));
	}
}

static void
study(const lengths *l, size_t raw, size_t codes_and_table, size_t block, int slot)
{
	size_t		bytes[LAYOUTS] = {0};

	for (size_t b = 0; b < l->n; b += block)
	{
		size_t		e = b + block < l->n ? b + block : l->n;
		size_t		m = e - b;
		unsigned	wc,
					wr,
					wpred;

		block_widths(l, b, e, &wc, &wr, &wpred);
		bytes[V2] += 12 + 2 * m;
		for (size_t i = b; i < e; i++)
		{
			bytes[V2] += l->rlen[i] >= 255 ? 8 : 0;
			bytes[CLEN] += l->clen[i] >= 255 ? 4 : 0;
		}
		bytes[FOR2] += 15 + packed_bytes(m, wc + wr);
		bytes[FOR_PRED] += 17 + packed_bytes(m, wr + wpred);
		bytes[CLEN] += 12 + m + packed_bytes(m, 1);
		bytes[FORC] += 14 + packed_bytes(m, wc + 1);
	}
	printf("  block %3zu:", block);
	for (int k = 0; k < LAYOUTS; k++)
	{
		double		ratio = (double) raw / (codes_and_table + bytes[k]);

		printf("  %s %.3f B (%.3f)", layout_names[k], (double) bytes[k] / l->n, ratio);
		log_ratio_sum[slot][k] += log(ratio);
	}
	printf("\n");
}

static int
run_file(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	char	   *text = NULL;
	size_t		size = 0,
				cap = 0,
				n = 0,
				raw = 0,
				codes = 0;
	const uint8_t **values;
	size_t	   *lens;
	gsst_table	table;
	gsst_encoder *enc;
	void	   *work;
	uint8_t    *out;
	lengths		l;

	if (f == NULL)
	{
		perror(path);
		return 1;
	}
	for (;;)
	{
		if (size == cap)
		{
			cap = cap ? 2 * cap : 1 << 20;
			text = realloc(text, cap);
		}
		size_t		got = fread(text + size, 1, cap - size, f);

		if (got == 0)
			break;
		size += got;
	}
	fclose(f);
	for (size_t i = 0; i < size; i++)
		n += text[i] == '\n';
	n++;
	values = malloc(n * sizeof(*values));
	lens = malloc(n * sizeof(*lens));
	n = 0;
	for (size_t at = 0; at < size;)
	{
		char	   *nl = memchr(text + at, '\n', size - at);
		size_t		end = nl ? (size_t) (nl - text) : size;
		size_t		len = end - at;

		if (len > 0 && text[at + len - 1] == '\r')
			len--;
		values[n] = (const uint8_t *) text + at;
		lens[n++] = len;
		raw += len;
		at = end + 1;
	}
	work = malloc(gsst_train_work_bytes());
	enc = malloc(sizeof(*enc));
	{
		size_t		longest = 0;

		for (size_t i = 0; i < n; i++)
			longest = lens[i] > longest ? lens[i] : longest;
		out = malloc(2 * longest + 64);
	}
	l.n = n;
	l.clen = malloc(n * sizeof(uint32_t));
	l.rlen = malloc(n * sizeof(uint32_t));
	if (gsst_train(&table, values, lens, n, work) != GSST_OK)
	{
		fprintf(stderr, "%s: training failed\n", path);
		return 1;
	}
	gsst_encoder_init(enc, &table);
	for (size_t i = 0; i < n; i++)
	{
		/* codes no shorter than the text: stored raw */
		size_t		c = lens[i] > 0 ?
			gsst_encode_value(enc, values[i], lens[i], out, lens[i] - 1) : SIZE_MAX;

		l.clen[i] = (uint32_t) (c == SIZE_MAX ? lens[i] : c);
		l.rlen[i] = (uint32_t) lens[i];
		codes += l.clen[i];
	}
	printf("%s: %zu values, %zu bytes, codes + table %.3f; index bytes a value (ratio with it):\n",
		   path, n, raw, (double) raw / (codes + gsst_table_serialized_size(&table)));
	for (int slot = 0; slot < 3; slot++)
		study(&l, raw, codes + gsst_table_serialized_size(&table), (size_t) 64 << slot, slot);
	files_done++;
	free(l.clen);
	free(l.rlen);
	free(out);
	free(enc);
	free(work);
	free(lens);
	free(values);
	free(text);
	return 0;
}

int
main(int argc, char **argv)
{
	int			status = 0;

	if (argc < 2)
	{
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		status |= run_file(argv[i]);
	printf("geomean of the ratios over %d files:\n", files_done);
	for (int slot = 0; slot < 3 && files_done > 0; slot++)
	{
		printf("  block %3d:", 64 << slot);
		for (int k = 0; k < LAYOUTS; k++)
			printf("  %s %.3f", layout_names[k], exp(log_ratio_sum[slot][k] / files_done));
		printf("\n");
	}
	return status;
}
