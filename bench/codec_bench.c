/*
 * codec_bench - compression ratio and single-core speed of the gsst codec,
 * with per-value lz4 and zstd-3 measured in the same run.
 *
 * Usage: codec_bench FILE...
 * Each line of a file is one value ("\n" and a trailing "\r" stripped).
 * Prints one TSV row per file and a geometric-mean row; see bench/README.md
 * for the definition of every column.  GSST_BENCH_REPS sets the number of
 * timed repetitions (default 7; the median is reported, the best for
 * value_encode_MBps).  GSST_BENCH_JOIN=K makes each value K consecutive
 * lines joined by a space (the file is then named NAME*K), and
 * GSST_BENCH_ONLY=value_encode prints only the per-value encode column, and
 * GSST_BENCH_ONLY=value_decode only the per-value decode (gsst_decode_value
 * into buffers sized as the PostgreSQL glue sizes them), with AVX-512 and
 * on the portable path, timed alternately in one process.
 * The documents that sit beside the data (*.md, SHA256SUMS) are skipped, so
 * that a glob over the dbtext directory measures exactly the data sets.
 */
#define _POSIX_C_SOURCE 200809L

#include <lz4.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "gsst_codec.h"

#include "bench_clock.h"

/* the codec's switch to its portable decoders (codec_internal.h) */
extern int	gsst_decode_simd_disabled;

/* what the glue (src/type/datum.c) decodes values of at most this many codes into: 8 bytes a code */
#define GLUE_SHORT_CODES 512

#define MIN_SAMPLE_SECONDS 0.02	/* repeat an operation until a sample takes this long */
#define SHUFFLE_SEED 0x5eed

static void
die(const char *what, const char *file)
{
	fprintf(stderr, "codec_bench: %s: %s\n", file, what);
	exit(1);
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory", "malloc");
	return p;
}

/* ---- one file of values ---- */

typedef struct values
{
	char		name[256];		/* basename, and *K when lines are joined */
	uint8_t    *data;			/* values back to back */
	uint64_t   *offsets;		/* n + 1 entries */
	const uint8_t **ptrs;		/* for gsst_train */
	size_t	   *lens;
	size_t		n;
	size_t		bytes;
	size_t		max_len;
} values;

/* join: lines per value (1: each line is a value) */
static void
load_values(values *v, const char *path, int join)
{
	FILE	   *f = fopen(path, "rb");
	long		size;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0)
		die("cannot read", path);
	rewind(f);
	uint8_t    *text = xmalloc((size_t) size);

	if (fread(text, 1, (size_t) size, f) != (size_t) size)
		die("cannot read", path);
	fclose(f);

	const char *slash = strrchr(path, '/');

	memset(v, 0, sizeof(*v));
	if (join > 1)
		snprintf(v->name, sizeof(v->name), "%s*%d", slash ? slash + 1 : path, join);
	else
		snprintf(v->name, sizeof(v->name), "%s", slash ? slash + 1 : path);
	/* a joined value adds one space per line */
	v->data = xmalloc((size_t) size * 2 + 1);
	v->offsets = xmalloc(sizeof(uint64_t) * ((size_t) size + 2));
	v->offsets[0] = 0;

	/* lines: a last line without "\n" counts; no value after a final "\n" */
	int			lines_in_value = 0;

	for (size_t start = 0; start < (size_t) size;)
	{
		const uint8_t *nl = memchr(text + start, '\n', (size_t) size - start);
		size_t		end = nl ? (size_t) (nl - text) : (size_t) size;
		size_t		len = end - start;

		if (len > 0 && text[end - 1] == '\r')
			len--;
		if (lines_in_value > 0)
			v->data[v->bytes++] = ' ';
		memcpy(v->data + v->bytes, text + start, len);
		v->bytes += len;
		start = end + 1;
		if (++lines_in_value == join || start >= (size_t) size)
		{
			size_t		value_len = v->bytes - v->offsets[v->n];

			v->offsets[++v->n] = v->bytes;
			if (value_len > v->max_len)
				v->max_len = value_len;
			lines_in_value = 0;
		}
	}
	free(text);

	v->ptrs = xmalloc(sizeof(*v->ptrs) * v->n);
	v->lens = xmalloc(sizeof(*v->lens) * v->n);
	for (size_t i = 0; i < v->n; i++)
	{
		v->ptrs[i] = v->data + v->offsets[i];
		v->lens[i] = (size_t) (v->offsets[i + 1] - v->offsets[i]);
	}
}

static void
free_values(values *v)
{
	free(v->lens);
	free(v->ptrs);
	free(v->offsets);
	free(v->data);
}

/* ---- the operations that are timed ---- */

typedef struct bench_state
{
	const values *v;
	void	   *train_work;
	gsst_table	table;
	gsst_encoder encoder;
	uint8_t    *tile_buf;
	size_t		tile_cap;
	size_t		tile_len;
	gsst_tile	tile;			/* the opened tile, for decoding */
	uint8_t    *out;			/* raw_bytes */
	uint8_t    *scratch;		/* one value, for random access and value encode */
	size_t		scratch_cap;
	uint64_t   *order;			/* shuffled value indexes */
	/* the values the tile stores as codes, for value_decode */
	size_t		nencoded;
	const uint8_t **enc_codes;
	size_t	   *enc_ncodes;
	size_t	   *enc_cap;		/* the output the glue gives it */
	size_t		enc_bytes;		/* their decoded bytes */
	uint8_t    *dec_out;
} bench_state;

/* Training, encoder state and the tile of all values: the whole pipeline. */
static void
op_encode(bench_state *st)
{
	const values *v = st->v;

	if (gsst_train(&st->table, v->ptrs, v->lens, v->n, st->train_work) != GSST_OK)
		die("gsst_train failed", v->name);
	gsst_encoder_init(&st->encoder, &st->table);
	if (gsst_tile_encode(&st->encoder, v->data, v->offsets, v->n, 0, st->tile_buf,
						 st->tile_cap, &st->tile_len) != GSST_OK)
		die("gsst_tile_encode failed", v->name);
}

static void
op_decode_all(bench_state *st)
{
	if (gsst_tile_decode_all(&st->tile, st->out, st->v->bytes) != GSST_OK)
		die("gsst_tile_decode_all failed", st->v->name);
}

static void
op_decode_random(bench_state *st)
{
	for (size_t k = 0; k < st->v->n; k++)
		if (gsst_tile_decode_one(&st->tile, st->order[k], st->scratch, st->scratch_cap) < 0)
			die("gsst_tile_decode_one failed", st->v->name);
}

/* What PostgreSQL does per value: gsst_encode_value with the table at hand. */
static void
op_value_encode(bench_state *st)
{
	const values *v = st->v;
	size_t		sink = 0;

	for (size_t i = 0; i < v->n; i++)
		sink += gsst_encode_value(&st->encoder, v->ptrs[i], v->lens[i], st->scratch,
								  v->lens[i]);
	/* keeps the calls from being optimised away */
	if (sink == 1)
		die("impossible code count", v->name);
}

/* What PostgreSQL does to read a value: gsst_decode_value, value by value. */
static void
op_value_decode(bench_state *st)
{
	size_t		sink = 0;

	for (size_t i = 0; i < st->nencoded; i++)
	{
		int64_t		n = gsst_decode_value(&st->table, st->enc_codes[i], st->enc_ncodes[i],
										  st->dec_out, st->enc_cap[i]);

		if (n < 0)
			die("gsst_decode_value failed", st->v->name);
		sink += (size_t) n;
	}
	if (sink != st->enc_bytes)
		die("gsst_decode_value decoded the wrong length", st->v->name);
}

/*
 * The values that the tile stores as codes, with the output capacity the
 * glue gives each: 8 bytes a code up to GLUE_SHORT_CODES codes, else
 * exactly the decoded length.
 */
static void
prepare_value_decode(bench_state *st)
{
	const values *v = st->v;
	size_t		max_cap = 8 * GLUE_SHORT_CODES;

	st->enc_codes = xmalloc(sizeof(*st->enc_codes) * v->n);
	st->enc_ncodes = xmalloc(sizeof(size_t) * v->n);
	st->enc_cap = xmalloc(sizeof(size_t) * v->n);
	for (size_t i = 0; i < v->n; i++)
	{
		uint64_t	comp = gsst_tile_comp_offset(&st->tile, i);
		uint64_t	k = gsst_tile_comp_offset(&st->tile, i + 1) - comp;

		if (k == v->lens[i])
			continue;			/* stored raw: nothing to decode */
		st->enc_codes[st->nencoded] = st->tile.codes + comp;
		st->enc_ncodes[st->nencoded] = (size_t) k;
		st->enc_cap[st->nencoded] = k <= GLUE_SHORT_CODES ? 8 * (size_t) k : v->lens[i];
		if (st->enc_cap[st->nencoded] > max_cap)
			max_cap = st->enc_cap[st->nencoded];
		st->enc_bytes += v->lens[i];
		st->nencoded++;
	}
	st->dec_out = xmalloc(max_cap);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Run op once (warm-up) and give how many calls make a sample of MIN_SAMPLE_SECONDS. */
static int
calls_per_sample(void (*op) (bench_state *), bench_state *st)
{
	double		t0 = bench_now_seconds();

	op(st);
	double		once = bench_now_seconds() - t0;

	return once >= MIN_SAMPLE_SECONDS ? 1 : (int) ceil(MIN_SAMPLE_SECONDS / (once + 1e-9));
}

/* Sort the n samples and give their median. */
static double
sorted_median(double *x, int n)
{
	qsort(x, (size_t) n, sizeof(double), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/*
 * Seconds per call of op over reps samples of >= MIN_SAMPLE_SECONDS: the
 * median, or the best with best set.
 */
static double
time_op(void (*op) (bench_state *), bench_state *st, int reps, int best)
{
	int			inner = calls_per_sample(op, st);
	double	   *samples = xmalloc(sizeof(double) * (size_t) reps);

	for (int r = 0; r < reps; r++)
	{
		double		t0 = bench_now_seconds();

		for (int i = 0; i < inner; i++)
			op(st);
		samples[r] = (bench_now_seconds() - t0) / inner;
	}
	double		median = sorted_median(samples, reps);
	double		result = best ? samples[0] : median;

	free(samples);
	return result;
}

/*
 * op with AVX-512 decoders and on the portable path, one sample each in
 * turn, reps times: the medians, seconds per call.
 */
static void
time_op_simd_portable(void (*op) (bench_state *), bench_state *st, int reps,
					  double *simd, double *portable)
{
	double	   *samples[2];
	int			inner = calls_per_sample(op, st);

	for (int side = 0; side < 2; side++)
		samples[side] = xmalloc(sizeof(double) * (size_t) reps);
	for (int r = 0; r < reps; r++)
		for (int side = 0; side < 2; side++)
		{
			double		t0;

			gsst_decode_simd_disabled = side;
			op(st);				/* the other side's warm-up */
			t0 = bench_now_seconds();
			for (int i = 0; i < inner; i++)
				op(st);
			samples[side][r] = (bench_now_seconds() - t0) / inner;
		}
	gsst_decode_simd_disabled = 0;
	*simd = sorted_median(samples[0], reps);
	*portable = sorted_median(samples[1], reps);
	free(samples[0]);
	free(samples[1]);
}

/* ---- checks before timing ---- */

static void
verify_round_trip(bench_state *st)
{
	const values *v = st->v;

	if (gsst_tile_open(&st->tile, st->tile_buf, st->tile_len) != GSST_OK)
		die("ROUND TRIP FAILED: gsst_tile_open rejected the tile", v->name);
	if (st->tile.nvalues != v->n || st->tile.raw_bytes != v->bytes)
		die("ROUND TRIP FAILED: tile header", v->name);
	op_decode_all(st);
	if (v->bytes && memcmp(st->out, v->data, v->bytes) != 0)
		die("ROUND TRIP FAILED: gsst_tile_decode_all differs from the input", v->name);
	memset(st->out, 0, v->bytes);
	for (uint64_t s = 0; s < st->tile.nsplits; s++)
		if (gsst_tile_decode_split(&st->tile, s, st->out, v->bytes) != GSST_OK)
			die("ROUND TRIP FAILED: gsst_tile_decode_split", v->name);
	if (v->bytes && memcmp(st->out, v->data, v->bytes) != 0)
		die("ROUND TRIP FAILED: the splits differ from the input", v->name);
	for (size_t i = 0; i < v->n; i++)
	{
		int64_t		len = gsst_tile_decode_one(&st->tile, i, st->scratch, st->scratch_cap);

		if (len != (int64_t) v->lens[i] || (len > 0 && memcmp(st->scratch, v->ptrs[i], v->lens[i]) != 0))
			die("ROUND TRIP FAILED: gsst_tile_decode_one differs from the input", v->name);
	}
}

/*
 * gsst_encode_value gives every value the tile's codes, and gives up
 * exactly where the tile stores the value raw (codes not shorter).
 */
static void
verify_value_encode(bench_state *st)
{
	const values *v = st->v;

	for (size_t i = 0; i < v->n; i++)
	{
		size_t		len = v->lens[i];
		uint64_t	comp = gsst_tile_comp_offset(&st->tile, i);
		uint64_t	tile_codes = gsst_tile_comp_offset(&st->tile, i + 1) - comp;
		size_t		n = gsst_encode_value(&st->encoder, v->ptrs[i], len, st->scratch,
										  len > 0 ? len - 1 : 0);

		if (len == 0 ? n != 0 : tile_codes == len ? n != SIZE_MAX
			: (n != tile_codes || memcmp(st->scratch, st->tile.codes + comp, n) != 0))
			die("gsst_encode_value differs from the tile's codes", v->name);
	}
}

/* ---- lz4 and zstd, each value on its own ---- */

static void
baseline_ratios(const values *v, double *lz4_ratio, double *zstd_ratio)
{
	int			lz4_cap = LZ4_compressBound((int) v->max_len);
	size_t		zstd_cap = ZSTD_compressBound(v->max_len);
	char	   *dst = xmalloc((size_t) lz4_cap > zstd_cap ? (size_t) lz4_cap : zstd_cap);
	ZSTD_CCtx  *cctx = ZSTD_createCCtx();
	size_t		lz4_total = 0,
				zstd_total = 0;

	if (cctx == NULL)
		die("ZSTD_createCCtx failed", v->name);
	for (size_t i = 0; i < v->n; i++)
	{
		int			n = LZ4_compress_default((const char *) v->ptrs[i], dst, (int) v->lens[i], lz4_cap);
		size_t		z = ZSTD_compressCCtx(cctx, dst, zstd_cap, v->ptrs[i], v->lens[i], 3);

		if (n <= 0 || ZSTD_isError(z))
			die("lz4 or zstd failed", v->name);
		lz4_total += (size_t) n;
		zstd_total += z;
	}
	ZSTD_freeCCtx(cctx);
	free(dst);
	*lz4_ratio = (double) v->bytes / (double) lz4_total;
	*zstd_ratio = (double) v->bytes / (double) zstd_total;
}

/* ---- main ---- */

enum
{
	COL_RATIO, COL_ENCODE, COL_DECODE, COL_RANDOM, COL_VALUE_ENCODE, COL_LZ4, COL_ZSTD,
	COL_VALUE_DECODE, COL_VALUE_DECODE_PORTABLE, NCOLS
};

/* GSST_BENCH_ONLY */
enum
{
	ONLY_ALL, ONLY_VALUE_ENCODE, ONLY_VALUE_DECODE
};

static int
is_documentation(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t		len = strlen(name);

	return strcmp(name, "SHA256SUMS") == 0 || (len > 3 && strcmp(name + len - 3, ".md") == 0);
}

static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void
bench_file(const char *path, int reps, int join, int only, double cols[NCOLS])
{
	values		v;
	bench_state st;

	load_values(&v, path, join);
	memset(&st, 0, sizeof(st));
	st.v = &v;
	/* zeroed: the trainer must not depend on it, but older codecs did */
	st.train_work = calloc(1, gsst_train_work_bytes());
	st.tile_cap = gsst_tile_bound(v.n, v.bytes, 0);
	st.tile_buf = xmalloc(st.tile_cap);
	st.out = xmalloc(v.bytes);
	/* also the output of gsst_encode_value, out_limit at most max_len */
	st.scratch_cap = v.max_len + 64;
	st.scratch = xmalloc(st.scratch_cap);
	st.order = xmalloc(sizeof(uint64_t) * v.n);
	if (st.train_work == NULL)
		die("out of memory", path);

	/* Fisher-Yates with a fixed seed: the same order in every run */
	uint64_t	seed = SHUFFLE_SEED;

	for (size_t i = 0; i < v.n; i++)
		st.order[i] = i;
	for (size_t i = v.n; i > 1; i--)
	{
		size_t		j = (size_t) (splitmix64(&seed) % i);
		uint64_t	tmp = st.order[i - 1];

		st.order[i - 1] = st.order[j];
		st.order[j] = tmp;
	}

	op_encode(&st);
	verify_round_trip(&st);
	verify_value_encode(&st);

	/* encoded bytes as the tile stores them, plus the table */
	size_t		table_bytes = gsst_table_serialized_size(&st.table);

	cols[COL_RATIO] = (double) v.bytes / (double) (st.tile.code_bytes + table_bytes);
	for (int c = 0; c < NCOLS; c++)
		if (c != COL_RATIO)
			cols[c] = 1;
	if (only == ONLY_VALUE_DECODE)
	{
		double		t_simd,
					t_portable;

		prepare_value_decode(&st);
		time_op_simd_portable(op_value_decode, &st, reps, &t_simd, &t_portable);
		cols[COL_VALUE_DECODE] = st.enc_bytes / t_simd / 1e6;
		cols[COL_VALUE_DECODE_PORTABLE] = st.enc_bytes / t_portable / 1e6;
		printf("%s\t%zu\t%zu\t%.1f\t%.1f\t%.3f\n", v.name, st.nencoded, st.enc_bytes,
			   cols[COL_VALUE_DECODE], cols[COL_VALUE_DECODE_PORTABLE],
			   cols[COL_VALUE_DECODE] / cols[COL_VALUE_DECODE_PORTABLE]);
		free(st.dec_out);
		free(st.enc_cap);
		free(st.enc_ncodes);
		free(st.enc_codes);
	}
	else if (only == ONLY_VALUE_ENCODE)
	{
		cols[COL_VALUE_ENCODE] = v.bytes / time_op(op_value_encode, &st, reps, 1) / 1e6;
		printf("%s\t%zu\t%zu\t%.1f\n", v.name, v.n, v.bytes, cols[COL_VALUE_ENCODE]);
	}
	else
	{
		cols[COL_VALUE_ENCODE] = v.bytes / time_op(op_value_encode, &st, reps, 1) / 1e6;
		double		t_encode = time_op(op_encode, &st, reps, 0);

		/* op_encode rewrote the same tile; open it again for the decoders */
		if (gsst_tile_open(&st.tile, st.tile_buf, st.tile_len) != GSST_OK)
			die("gsst_tile_open failed after timing", path);
		double		t_decode = time_op(op_decode_all, &st, reps, 0);
		double		t_random = time_op(op_decode_random, &st, reps, 0);

		cols[COL_ENCODE] = v.bytes / t_encode / 1e6;
		cols[COL_DECODE] = v.bytes / t_decode / 1e6;
		cols[COL_RANDOM] = v.bytes / t_random / 1e6;
		baseline_ratios(&v, &cols[COL_LZ4], &cols[COL_ZSTD]);

		printf("%s\t%zu\t%zu\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%.3f\n", v.name, v.n,
			   v.bytes, cols[COL_RATIO], cols[COL_ENCODE], cols[COL_DECODE], cols[COL_RANDOM],
			   cols[COL_VALUE_ENCODE], cols[COL_LZ4], cols[COL_ZSTD]);
	}
	fflush(stdout);

	free(st.order);
	free(st.scratch);
	free(st.out);
	free(st.tile_buf);
	free(st.train_work);
	free_values(&v);
}

int
main(int argc, char **argv)
{
	const char *reps_env = getenv("GSST_BENCH_REPS");
	const char *join_env = getenv("GSST_BENCH_JOIN");
	const char *only_env = getenv("GSST_BENCH_ONLY");
	int			reps = reps_env ? atoi(reps_env) : 7;
	int			join = join_env ? atoi(join_env) : 1;
	int			only = only_env == NULL ? ONLY_ALL
		: strcmp(only_env, "value_encode") == 0 ? ONLY_VALUE_ENCODE
		: strcmp(only_env, "value_decode") == 0 ? ONLY_VALUE_DECODE : -1;
	double		log_sum[NCOLS] = {0};
	int			nfiles = 0;

	if (argc < 2)
	{
		fprintf(stderr, "usage: codec_bench FILE...   (env GSST_BENCH_REPS, default 7; "
				"GSST_BENCH_JOIN=K; GSST_BENCH_ONLY=value_encode|value_decode)\n");
		return 2;
	}
	if (only < 0)
	{
		fprintf(stderr, "codec_bench: GSST_BENCH_ONLY must be value_encode or value_decode\n");
		return 2;
	}
	if (reps < 1)
		reps = 1;
	if (join < 1)
		join = 1;
	if (only == ONLY_VALUE_ENCODE)
		printf("file\tvalues\tbytes\tvalue_encode_MBps\n");
	else if (only == ONLY_VALUE_DECODE)
		printf("file\tencoded_values\tbytes\tvalue_decode_MBps\tvalue_decode_portable_MBps\tratio\n");
	else
		printf("file\tvalues\tbytes\tratio\tencode_MBps\tdecode_MBps\trandom_decode_MBps\t"
			   "value_encode_MBps\tlz4_ratio\tzstd3_ratio\n");
	for (int a = 1; a < argc; a++)
	{
		double		cols[NCOLS];

		if (is_documentation(argv[a]))
		{
			fprintf(stderr, "codec_bench: skipping %s (not a data file)\n", argv[a]);
			continue;
		}
		bench_file(argv[a], reps, join, only, cols);
		for (int c = 0; c < NCOLS; c++)
			log_sum[c] += log(cols[c]);
		nfiles++;
	}
	if (nfiles == 0)
		return 1;
	if (only == ONLY_VALUE_ENCODE)
		printf("geomean\t-\t-\t%.1f\n", exp(log_sum[COL_VALUE_ENCODE] / nfiles));
	else if (only == ONLY_VALUE_DECODE)
		printf("geomean\t-\t-\t%.1f\t%.1f\t%.3f\n", exp(log_sum[COL_VALUE_DECODE] / nfiles),
			   exp(log_sum[COL_VALUE_DECODE_PORTABLE] / nfiles),
			   exp((log_sum[COL_VALUE_DECODE] - log_sum[COL_VALUE_DECODE_PORTABLE]) / nfiles));
	else
		printf("geomean\t-\t-\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%.3f\n",
			   exp(log_sum[COL_RATIO] / nfiles), exp(log_sum[COL_ENCODE] / nfiles),
			   exp(log_sum[COL_DECODE] / nfiles), exp(log_sum[COL_RANDOM] / nfiles),
			   exp(log_sum[COL_VALUE_ENCODE] / nfiles), exp(log_sum[COL_LZ4] / nfiles),
			   exp(log_sum[COL_ZSTD] / nfiles));
	return 0;
}
