/*
 * make_seeds - writes the seed corpora of the fuzz targets.
 *
 * Usage: make_seeds OUT_DIR [DATA_DIR]
 * Creates OUT_DIR/{table_load,decode_value,tile,datum_header}/seed-N from
 * tables trained on the first values of every generated column
 * (test/codec/test_data.h), on generated text, binary, long and empty
 * values, and, when DATA_DIR is given, on the first lines of its dbtext
 * files too.  The same seeds on every run.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <sys/stat.h>

#include "fuzz_common.h"

#define MAX_SEED_BYTES 16384	/* the targets run with -max_len larger than this */

static void
write_seed(const char *dir, const char *target, const void *bytes, size_t len)
{
	static unsigned counter;
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s/seed-%04u", dir, target, counter++);
	f = fopen(path, "wb");
	if (f == NULL || (len && fwrite(bytes, 1, len, f) != len) || fclose(f) != 0)
	{
		fprintf(stderr, "make_seeds: cannot write %s\n", path);
		exit(1);
	}
}

static void
make_dir(const char *dir, const char *sub)
{
	char		path[4096];

	snprintf(path, sizeof(path), "%s%s%s", dir, sub ? "/" : "", sub ? sub : "");
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
	{
		fprintf(stderr, "make_seeds: cannot create %s\n", path);
		exit(1);
	}
}

/* Seeds of every target from one value set (only its first values). */
static void
seeds_from_values(const char *dir, const value_set *all, size_t max_values)
{
	value_set	vs;
	gsst_table	table;
	gsst_encoder enc;
	uint8_t		buf[GSST_TABLE_MAX_BYTES + MAX_SEED_BYTES];

	vs_init(&vs);
	for (size_t i = 0; i < all->n && i < max_values; i++)
	{
		size_t		len;
		const uint8_t *v = vs_value(all, i, &len);

		if (vs.bytes + len <= MAX_SEED_BYTES)
			vs_add(&vs, v, len);
	}
	if (vs.n == 0 || vs_train(&vs, &table) != GSST_OK)
	{
		vs_free(&vs);
		return;
	}
	gsst_encoder_init(&enc, &table);
	int			tlen = gsst_table_serialize(&table, buf, sizeof(buf));

	if (tlen < 0)
		exit(1);

	/* table_load: the table, then a value to encode with it */
	size_t		len0;
	const uint8_t *v0 = vs_value(&vs, 0, &len0);

	if (len0 > MAX_SEED_BYTES)
		len0 = MAX_SEED_BYTES;
	memcpy(buf + tlen, v0, len0);
	write_seed(dir, "table_load", buf, (size_t) tlen + len0);

	/* decode_value: the table, then the codes of a few values */
	for (size_t i = 0; i < vs.n && i < 4; i++)
	{
		size_t		len;
		const uint8_t *v = vs_value(&vs, i, &len);

		if ((size_t) tlen + 2 * len + GSST_ENCODE_SLACK > sizeof(buf))
			continue;
		size_t		n = gsst_encode_value(&enc, v, len, buf + tlen, 2 * len);

		write_seed(dir, "decode_value", buf, (size_t) tlen + n);
	}

	/*
	 * tile: both versions, at several split sizes, so that splits fall
	 * inside values too
	 */
	static const size_t split_sizes[] = {64, 4096, 0};

	for (uint32_t version = GSST_TILE_VERSION_MIN; version <= GSST_TILE_VERSION; version++)
		for (size_t k = 0; k < sizeof(split_sizes) / sizeof(split_sizes[0]); k++)
		{
			size_t		bound = gsst_tile_bound(vs.n, vs.bytes, split_sizes[k]);
			uint8_t    *tile = xmalloc(bound);
			size_t		tile_len;

			if (gsst_tile_encode_version(&enc, vs.data, vs.offsets, vs.n, split_sizes[k], version,
										 tile, bound, &tile_len) == GSST_OK &&
				tile_len <= 2 * MAX_SEED_BYTES)
				write_seed(dir, "tile", tile, tile_len);
			free(tile);
		}
	vs_free(&vs);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
	{
		fprintf(stderr, "usage: make_seeds OUT_DIR [DATA_DIR]\n");
		return 2;
	}
	const char *out = argv[1];
	static const char *const targets[] = {"table_load", "decode_value", "tile", "datum_header"};

	make_dir(out, NULL);
	for (size_t t = 0; t < 4; t++)
		make_dir(out, targets[t]);

	/* generated text, binary, a long multi-segment value, and empty values */
	test_rng	rng = {42};
	value_set	gen;

	for (int kind = 0; kind < 4; kind++)
	{
		vs_init(&gen);
		for (int i = 0; i < 60; i++)
		{
			size_t		len = kind == 2 ? (i == 0 ? 9000 : 20) : kind == 3 ? (size_t) (i % 3) : 1 + rng_below(&rng, 50);
			uint8_t    *v = vs_push(&gen, len);

			if (kind == 1)
				rng_fill(&rng, v, len);
			else
				rng_text(&rng, v, len);
		}
		seeds_from_values(out, &gen, 60);
		vs_free(&gen);
	}

	/* the first values of every generated column */
	for (int c = 0; c < TD_NCOLUMNS; c++)
	{
		value_set	vs;

		vs_generate(&vs, c, 40);
		seeds_from_values(out, &vs, 40);
		vs_free(&vs);
	}

	/* the first lines of every dbtext file, when DATA_DIR is given */
	if (argc > 2 && argv[2][0] != '\0')
	{
		static const char *const files[] = {
			"c_name", "chinese", "city", "credentials", "email", "faust", "firstname",
			"genome", "hamlet", "hex", "japanese", "l_comment", "lastname", "location",
			"movies", "ps_comment", "street", "urls2", "uuid", "wiki", "wikipedia", "yago"
		};

		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++)
		{
			char		path[4096];
			value_set	vs;

			snprintf(path, sizeof(path), "%s/%s", argv[2], files[f]);
			if (vs_load_lines(&vs, path) != 0)
				continue;
			seeds_from_values(out, &vs, 40);
			vs_free(&vs);
		}
	}

	/* the fixed table of fuzz_decode_value: codes alone, good and bad */
	{
		gsst_table	table;
		gsst_encoder enc;
		static const char text[] = "the street station: http://www.example.com/ and the mention\n";
		uint8_t		codes[2 * sizeof(text) + GSST_ENCODE_SLACK];

		if (fuzz_default_table(&table) != GSST_OK)
			return 1;
		gsst_encoder_init(&enc, &table);
		size_t		n = gsst_encode_value(&enc, (const uint8_t *) text, sizeof(text) - 1,
										  codes, 2 * sizeof(text));

		write_seed(out, "decode_value", codes, n);
		codes[n] = GSST_ESCAPE;
		write_seed(out, "decode_value", codes, n + 1);	/* dangling escape */
		codes[0] = 250;
		write_seed(out, "decode_value", codes, n);	/* unused code */
	}

	/* datum headers: ids of every header length, and broken ones */
	static const uint32_t ids[] = {0, 1, 31, 32, 4095, 4096, 1u << 19, 1u << 26, GSST_MAX_TABLE_ID};
	uint8_t		header[GSST_DATUM_MAX_HEADER + 2];

	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++)
	{
		size_t		n = gsst_datum_header_write(ids[k], header);

		header[n] = 0x41;		/* codes follow the header */
		write_seed(out, "datum_header", header, n + 1);
		write_seed(out, "datum_header", header, n - 1);
	}
	static const uint8_t broken[][4] = {{0, 0x80, 0x00, 0}, {0, 0x01, 0, 0}, {'x', 0x04, 0, 0}};

	for (size_t k = 0; k < sizeof(broken) / sizeof(broken[0]); k++)
		write_seed(out, "datum_header", broken[k], 4);
	return 0;
}
