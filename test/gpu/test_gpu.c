/*
 * test_gpu.c - CPU-side tests of the GPU code, for CI machines with no GPU:
 *
 *  1. the kernels' bodies, emulated on the CPU (emu.h), must produce the
 *     codec's tile bytes (gsst_tile_encode) for column-like text (the
 *     generated columns of test/codec/test_data.h, and the files of a data
 *     directory when one is given) and synthetic data, and decode them
 *     back, also split by split and value by value;
 *  2. the host-side tile layout (gsst_gpu_layout.h) must agree with
 *     gsst_tile_open, and reject what it rejects in the header;
 *  3. hostile tiles must fail cleanly in the emulated decoders;
 *  4. when gsst_gpu.so was built (path in argv[2]), its ABI: argument
 *     validation, and a clean GSST_GPU_ERR_NO_DEVICE when there is no GPU.
 *
 * Usage: test_gpu [--data DIR] [path/to/gsst_gpu.so]
 * DIR: text files, one value a line (e.g. ../shared/data/dbtext); without
 * it only generated data is used.  A directory given alone (the older
 * usage) is taken as DIR.  Ends with "N passed, N failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch.h"
#include "emu.h"
#include "gsst_gpu.h"
#include "../codec/test_data.h"

static int	passed,
			failed;

#define CHECK(cond, ...) \
	do { \
		if (cond) \
			passed++; \
		else \
		{ \
			failed++; \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

static void *train_work;

static void
train_table(const batch *b, gsst_encoder *enc)
{
	static uint8_t sample[64 * 1024];
	static const uint8_t *values[GG_SAMPLE_SLOTS];
	static size_t lens[GG_SAMPLE_SLOTS];
	gsst_table	t;
	size_t		count = emu_sample(b->data, b->off, b->n, GSST_GPU_DEFAULT_SAMPLE_BYTES,
								   sample, values, lens);
	int			rc = gsst_train(&t, values, lens, count, train_work);

	CHECK(rc == GSST_OK, "train: %s", gsst_strerror(rc));
	gsst_encoder_init(enc, &t);
}

static const char *
tile_region(const uint8_t *tile, uint64_t at)
{
	gsst_tile_layout	l;
	uint64_t	r,
				c;

	if (gsst_tile_parse_header(tile, GSST_TILE_HEADER_BYTES, UINT64_MAX / 4, &l, &r, &c) > GSST_ERR_VERSION)
	{
		if (at < GSST_TILE_HEADER_BYTES)
			return "header";
		if (at < (l.version == 1 ? l.comp_at : l.blocks_at))
			return "table";
		if (l.version == 1 && at < l.raw_at)
			return "comp offsets";
		if (l.version == 1 && at < l.splits_at)
			return "raw offsets";
		if (l.version == 2 && at < l.code_lens_at)
			return "block entries";
		if (l.version == 2 && at < l.raw_lens_at)
			return "code lengths";
		if (l.version == 2 && at < l.splits_at)
			return "raw lengths";
		if (at < l.codes_at)
			return "splits";
		return "codes or long list";
	}
	return "?";
}

/* the main check: emulated GPU tile == codec tile, and both decode back */
static void
check_batch(const char *name, const batch *b, const gsst_encoder *enc, int quick)
{
	static const uint64_t configs[][3] = {
		/* split, unit, lanes */
		{32768, 8192, 32}, {4096, 4096, 1}, {16384, 4096, 32}, {65536, 16384, 7}, {8192, 8192, 32},
		/* sizes the library fits to the GPU: units and splits of any multiple of 16 */
		{31808, 7952, 32}, {13776, 4592, 32},
	};
	size_t		nconfigs = quick ? 2 : sizeof(configs) / sizeof(configs[0]);
	uint64_t	raw = b->off[b->n] - b->off[0];

	for (size_t cv = 0; cv < 2 * nconfigs; cv++)
	{
		/* each configuration in both tile versions */
		size_t		ci = cv / 2;
		uint32_t	version = cv % 2 == 0 ? GSST_TILE_VERSION : GSST_TILE_VERSION_MIN;
		uint64_t	split = configs[ci][0],
					unit = configs[ci][1];
		size_t		cap = gsst_tile_bound(b->n, raw, split) + gg_scratch_slack(raw);
		uint8_t    *cpu = malloc(cap),
				   *gpu = malloc(cap),
				   *out = malloc(raw + 1);
		size_t		cpu_len = 0,
					gpu_len = 0,
					out_len = 0;
		int			rc1 = gsst_tile_encode_version(enc, b->data, b->off, b->n, split, version,
												   cpu, cap, &cpu_len);
		int			rc2;
		gsst_tile	t;

		memset(gpu, 0xEE, cap);
		rc2 = emu_encode(enc, version, b->data, b->off, b->n, split, unit,
						 (unsigned) configs[ci][2], gpu, cap, &gpu_len);
		CHECK(rc1 == GSST_OK && rc2 == GSST_OK, "%s: encode rc %d %d", name, rc1, rc2);
		if (rc1 == GSST_OK && rc2 == GSST_OK)
		{
			size_t		i = 0,
						m = cpu_len < gpu_len ? cpu_len : gpu_len;

			while (i < m && cpu[i] == gpu[i])
				i++;
			CHECK(cpu_len == gpu_len && i == m,
				  "%s v%u split %llu unit %llu: tile differs: len cpu %zu gpu %zu, first diff at %zu (%s)",
				  name, (unsigned) version, (unsigned long long) split, (unsigned long long) unit,
				  cpu_len, gpu_len, i, tile_region(cpu, i));
			rc2 = gsst_tile_open(&t, gpu, gpu_len);
			CHECK(rc2 == GSST_OK, "%s: gsst_tile_open(gpu tile): %s", name, gsst_strerror(rc2));
			for (int by_value = 0; by_value < 2; by_value++)
			{
				memset(out, 0xCC, raw + 1);
				rc2 = emu_decode(gpu, gpu_len, by_value, out, raw, &out_len);
				CHECK(rc2 == GSST_OK && out_len == raw &&
					  memcmp(out, b->data + b->off[0], raw) == 0,
					  "%s: emulated decode mode %d: rc %d", name, by_value, rc2);
			}
		}
		free(cpu);
		free(gpu);
		free(out);
	}
}

/* flip bytes of a valid tile: the emulated decoders must fail or succeed,
 * never touch memory outside their ranges (run under ASan to see that) */
/*
 * A long value whose first megabytes expand (random bytes under a table
 * for text: all escapes) and whose rest compresses enough that the value
 * is stored encoded: the final bytes of its parts then run ahead of their
 * raw bytes, past the scratch of the units after them.
 */
static void
check_expanding_prefix(gsst_encoder *enc)
{
	batch		b = {0};
	uint64_t	random_bytes = 2 * 1024 * 1024,
				len = 6 * 1024 * 1024;
	uint8_t    *v = malloc(len);

	for (uint64_t j = 0; j < len; j++)
		v[j] = (uint8_t) "abcdefgh"[j % 8];
	batch_add(&b, v, 100000);
	train_table(&b, enc);
	batch_free(&b);
	for (uint64_t j = 0; j < random_bytes; j++)
		v[j] = (uint8_t) rnd();
	batch_add(&b, v, len);
	batch_add(&b, v + len - 100, 100);
	{
		uint64_t	raw = b.off[b.n] - b.off[0];
		size_t		cap = gsst_tile_bound(b.n, raw, 65536) + gg_scratch_slack(raw),
					cpu_len = 0,
					gpu_len = 0;
		uint8_t    *cpu = malloc(cap),
				   *gpu = malloc(cap);
		gsst_tile	t;
		int			rc1 = gsst_tile_encode(enc, b.data, b.off, b.n, 65536, cpu, cap, &cpu_len);
		int			rc2 = emu_encode(enc, GSST_TILE_VERSION, b.data, b.off, b.n, 65536, 8192, 32, gpu,
									 cap, &gpu_len);

		CHECK(rc1 == GSST_OK && gsst_tile_open(&t, cpu, cpu_len) == GSST_OK &&
			  gsst_tile_comp_offset(&t, 1) - gsst_tile_comp_offset(&t, 0) < len,
			  "expanding prefix: the codec stores the value encoded (rc %d)", rc1);
		/* the GPU path refuses it rather than overwrite scratch it has not read */
		CHECK(rc2 == GSST_ERR_SPACE, "expanding prefix: GPU path rc %d, want a refusal", rc2);
		free(cpu);
		free(gpu);
	}
	free(v);
	batch_free(&b);
}

static void
check_hostile(const batch *b, const gsst_encoder *enc)
{
	uint64_t	raw = b->off[b->n] - b->off[0];
	size_t		cap = gsst_tile_bound(b->n, raw, 8192) + gg_scratch_slack(raw);
	uint8_t    *tile = malloc(cap),
			   *bad = malloc(cap),
			   *out = malloc(raw + 64);
	size_t		len = 0,
				out_len;
	int			errors = 0;

	gsst_tile_encode(enc, b->data, b->off, b->n, 8192, tile, cap, &len);
	for (int trial = 0; trial < 60; trial++)
	{
		size_t		at;
		int			nflip = 1 + (int) (rnd() % 4);

		memcpy(bad, tile, len);
		for (int f = 0; f < nflip; f++)
		{
			at = (size_t) (rnd() % len);
			bad[at] ^= (uint8_t) (1 + rnd() % 255);
		}
		for (int by_value = 0; by_value < 2; by_value++)
			if (emu_decode(bad, len, by_value, out, raw, &out_len) != GSST_OK)
				errors++;
	}
	/*
	 * truncated and extended tiles are refused (a version 2 tile's long
	 * list is found from the length, so a cut there reads as a wrong length)
	 */
	{
		int			rc = emu_decode(tile, len - 1, 0, out, raw, &out_len);

		CHECK(rc == GSST_ERR_TRUNCATED || rc == GSST_ERR_LENGTH || rc == GSST_ERR_OFFSET,
			  "truncated: %d", rc);
	}
	CHECK(emu_decode(tile, len + 1 <= cap ? len + 1 : len, 0, out, raw, &out_len) != GSST_OK ||
		  len + 1 > cap, "extended");
	CHECK(errors > 0, "hostile tiles: no corruption detected at all");
	free(tile);
	free(bad);
	free(out);
}

/* an empty version 2 tile decodes; with a broken sentinel it is refused, as by the codec */
static void
check_empty_tile(const gsst_encoder *enc)
{
	uint64_t	zero = 0;
	size_t		cap = gsst_tile_bound(0, 0, 0),
				len = 0,
				out_len;
	uint8_t    *tile = malloc(cap);
	uint8_t		out[16];
	gsst_tile	t;
	gsst_tile_layout l;
	uint64_t	r,
				c;

	CHECK(gsst_tile_encode(enc, NULL, &zero, 0, 0, tile, cap, &len) == GSST_OK &&
		  gsst_tile_parse_header(tile, len, len, &l, &r, &c) == GSST_OK, "empty tile");
	CHECK(emu_decode(tile, len, 0, out, 0, &out_len) == GSST_OK && out_len == 0, "empty tile decodes");
	tile[l.blocks_at + l.width] = 1;	/* the sentinel's R */
	CHECK(gsst_tile_open(&t, tile, len) != GSST_OK &&
		  emu_decode(tile, len, 0, out, 0, &out_len) != GSST_OK, "empty tile with a broken sentinel");
	free(tile);
}

/* units of a batch of raw bytes, at most (one per grid point before its end) */
static uint64_t
most_units(uint64_t raw, uint64_t unit)
{
	return raw > 0 ? 1 + (raw - 1) / unit : 1;
}

/*
 * gg_fit_sizes: valid sizes, never more waves than the wanted unit, whole
 * waves when it fits, the split within gsst_gpu_tile_bound's assumption.
 */
static void
check_fit_sizes(void)
{
	static const uint64_t raws[] = {
		0, 1, 4095, 1u << 20, 64u << 20, 553648128, 2147483643, 2214592512, 2281701376,
		10ull << 30, 1ull << 40,
	};
	static const uint64_t slots_list[] = {135168, 152064, 118272, 1000, 1};
	static const uint64_t wants[][2] = {
		{32768, 8192}, {8192, 4096}, {65536, 16384}, {4096, 4096}, {16384, 16384},
		{1u << 30, 1u << 30}, {1u << 30, 4096},
	};
	uint64_t	split,
				unit;

	for (size_t r = 0; r < sizeof(raws) / sizeof(raws[0]); r++)
		for (size_t k = 0; k < sizeof(slots_list) / sizeof(slots_list[0]); k++)
			for (size_t w = 0; w < sizeof(wants) / sizeof(wants[0]); w++)
			{
				uint64_t	raw = raws[r],
							slots = slots_list[k],
							want_split = wants[w][0],
							want_unit = wants[w][1];
				uint64_t	waves_wanted = (most_units(raw, want_unit) + slots - 1) / slots;
				uint64_t	least = want_split / 2 > GSST_SEGMENT_BYTES ? want_split / 2 :
					GSST_SEGMENT_BYTES;

				gg_fit_sizes(raw, slots, want_split, want_unit, 0, &split, &unit);
				CHECK(gg_sizes_valid(split, unit) && unit <= want_unit && split >= least,
					  "fit %llu bytes, %llu slots, %llu/%llu: split %llu unit %llu",
					  (unsigned long long) raw, (unsigned long long) slots,
					  (unsigned long long) want_split, (unsigned long long) want_unit,
					  (unsigned long long) split, (unsigned long long) unit);
				/* the fitted units never take more waves than the wanted ones */
				CHECK((most_units(raw, unit) + slots - 1) / slots <= waves_wanted,
					  "fit %llu bytes, %llu slots: unit %llu takes more waves",
					  (unsigned long long) raw, (unsigned long long) slots,
					  (unsigned long long) unit);
				if (unit < want_unit)
					CHECK(unit % 16 == 0 && most_units(raw, unit) <= waves_wanted * slots,
						  "fit %llu bytes, %llu slots: unit %llu overfills its waves",
						  (unsigned long long) raw, (unsigned long long) slots,
						  (unsigned long long) unit);
				gg_fit_sizes(raw, slots, want_split, want_unit, 1, &split, &unit);
				CHECK(split == want_split && unit == want_unit, "fixed sizes changed");
			}
	/* the H200 case measured in bench/README.md: 2 GiB of l_comment */
	gg_fit_sizes(2147483643, 135168, 32768, 8192, 0, &split, &unit);
	CHECK(split == 31808 && unit == 7952, "l_comment 2 GiB on 132 SMs: split %llu unit %llu",
		  (unsigned long long) split, (unsigned long long) unit);
}

static void
check_layout(const batch *b, const gsst_encoder *enc)
{
	uint64_t	raw = b->off[b->n] - b->off[0];

	for (uint64_t split = 4096; split <= 65536; split *= 4)
	{
		size_t		cap = gsst_tile_bound(b->n, raw, split) + gg_scratch_slack(raw);
		uint8_t    *tile = malloc(cap);
		size_t		len = 0;
		gsst_tile	t;
		gsst_tile_layout	l;
		uint64_t	r,
					c,
					last;

		gsst_tile_encode(enc, b->data, b->off, b->n, split, tile, cap, &len);
		CHECK(gsst_tile_open(&t, tile, len) == GSST_OK, "open");
		CHECK(gsst_tile_parse_header(tile, len, len, &l, &r, &c) == GSST_OK, "parse");
		CHECK(l.width == t.offset_width && l.nvalues == t.nvalues && l.nsplits == t.nsplits &&
			  r == t.raw_bytes && c == t.code_bytes && l.version == t.version &&
			  tile + l.blocks_at == t.blocks && tile + l.code_lens_at == t.code_lens &&
			  tile + l.raw_lens_at == t.raw_lens && tile + l.longs_at == t.longs &&
			  l.nlongs == t.nlongs && l.end == len &&
			  tile + l.splits_at == t.splits && tile + l.codes_at == t.codes,
			  "layout differs from gsst_tile_open");
		{
			/* the library reads only header and table: L from the length */
			gsst_tile_layout from_len;

			CHECK(gsst_tile_parse_header(tile, GSST_TILE_HEADER_BYTES + t.table_bytes, len, &from_len,
										 &r, &c) == GSST_OK &&
				  from_len.nlongs == t.nlongs && from_len.longs_at == l.longs_at,
				  "layout from the length differs");
		}
		last = gg_last_piece_start(b->off[b->n - 1] - b->off[0], b->off[b->n] - b->off[b->n - 1]);
		CHECK(gg_part_count(b->n, last, split) == t.nsplits,
			  "split count %llu vs codec %llu",
			  (unsigned long long) gg_part_count(b->n, last, split),
			  (unsigned long long) t.nsplits);
		CHECK(gsst_tile_parse_header(tile, len, len - 1, &l, &r, &c) != GSST_OK, "short tile accepted");
		tile[5] = 6;
		CHECK(gsst_tile_parse_header(tile, len, len, &l, &r, &c) == GSST_ERR_VERSION, "bad width accepted");
		free(tile);
	}
}

static void
check_abi(const char *lib_path)
{
	void	   *lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	int			(*init) (const gsst_gpu_config *, gsst_gpu **);
	void		(*shutdown) (gsst_gpu *);
	const char *(*strerr) (int);
	const char *(*init_error) (void);
	int			(*encode) (gsst_gpu *, const uint8_t *, size_t, const uint8_t *,
						   const uint64_t *, size_t, uint8_t *, size_t, size_t *);
	int			(*decode) (gsst_gpu *, const uint8_t *, size_t, uint8_t *, size_t, size_t *);
	void		(*config_default) (gsst_gpu_config *);
	int			(*host_register) (gsst_gpu *, void *, size_t);
	int			(*host_unregister) (gsst_gpu *, void *);
	int			have_all;
	gsst_gpu_config cfg;
	gsst_gpu   *ctx = (gsst_gpu *) 1;
	int			rc;
	uint8_t		buf[64];
	size_t		len;

	CHECK(lib != NULL, "dlopen %s: %s", lib_path, dlerror());
	if (!lib)
		return;
	*(void **) &init = dlsym(lib, "gsst_gpu_init");
	*(void **) &shutdown = dlsym(lib, "gsst_gpu_shutdown");
	*(void **) &strerr = dlsym(lib, "gsst_gpu_strerror");
	*(void **) &init_error = dlsym(lib, "gsst_gpu_init_error");
	*(void **) &encode = dlsym(lib, "gsst_gpu_encode");
	*(void **) &decode = dlsym(lib, "gsst_gpu_decode");
	*(void **) &config_default = dlsym(lib, "gsst_gpu_config_default");
	*(void **) &host_register = dlsym(lib, "gsst_gpu_host_register");
	*(void **) &host_unregister = dlsym(lib, "gsst_gpu_host_unregister");
	have_all = init && shutdown && strerr && init_error && encode && decode && config_default &&
		host_register && host_unregister;
	CHECK(have_all, "missing symbols");
	if (!have_all)
		return;
	/* the codec's own symbols stay private to the library */
	CHECK(dlsym(lib, "gsst_tile_encode") == NULL || dlsym(lib, "gsst_tile_encode") == (void *) gsst_tile_encode,
		  "library exports codec symbols");

	for (int s = GSST_GPU_ERR_BROKEN; s <= 0; s++)
		CHECK(strerr(s) != NULL && strerr(s)[0] != '\0', "strerror(%d)", s);
	CHECK(init(NULL, NULL) == GSST_GPU_ERR_ARG, "init(NULL, NULL)");
	config_default(&cfg);
	cfg.split_bytes = 1000;
	CHECK(init(&cfg, &ctx) == GSST_GPU_ERR_ARG && ctx == NULL, "bad split size accepted");
	config_default(&cfg);
	cfg.unit_bytes = 12288;		/* does not divide 32 KiB */
	CHECK(init(&cfg, &ctx) == GSST_GPU_ERR_ARG, "bad unit size accepted");
	config_default(&cfg);
	cfg.sample_bytes = 1 << 20;
	CHECK(init(&cfg, &ctx) == GSST_GPU_ERR_ARG, "bad sample size accepted");
	config_default(&cfg);
	cfg.flags = GSST_GPU_FLAGS_ALL + 1;
	CHECK(init(&cfg, &ctx) == GSST_GPU_ERR_ARG && ctx == NULL, "unknown flag bits accepted");
	CHECK(encode(NULL, NULL, 0, buf, (const uint64_t *) buf, 0, buf, sizeof(buf), &len) == GSST_GPU_ERR_ARG,
		  "encode(NULL ctx)");
	CHECK(decode(NULL, buf, sizeof(buf), buf, sizeof(buf), &len) == GSST_GPU_ERR_ARG, "decode(NULL ctx)");
	CHECK(host_register(NULL, buf, sizeof(buf)) == GSST_GPU_ERR_ARG, "host_register(NULL ctx)");
	CHECK(host_unregister(NULL, buf) == GSST_GPU_ERR_ARG, "host_unregister(NULL ctx)");
	shutdown(NULL);

	rc = init(NULL, &ctx);
	if (rc == GSST_GPU_ERR_NO_DEVICE)
	{
		void	   *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

		CHECK(ctx == NULL && init_error()[0] != '\0', "no-device init leaves no context");
		/* the runtime is linked in: without a driver, the message says so */
		if (driver == NULL)
			CHECK(strstr(init_error(), "no NVIDIA driver") != NULL,
				  "no driver, but init says: %s", init_error());
		else
			dlclose(driver);
		printf("gsst_gpu_init: no device, as expected here: %s\n", init_error());
	}
	else
	{
		CHECK(rc == GSST_GPU_OK && ctx != NULL, "init: %s: %s", strerr(rc), init_error());
		if (rc == GSST_GPU_OK)
		{
			uint64_t	off[2] = {0, 5};

			CHECK(encode(ctx, NULL, 0, (const uint8_t *) "hello", off, 1, buf, 8, &len) ==
				  GSST_GPU_ERR_SPACE, "small tile buffer accepted");
			CHECK(decode(ctx, buf, 3, buf, sizeof(buf), &len) == GSST_GPU_ERR_CORRUPT,
				  "3-byte tile accepted");
			/* pinned memory in and out gives the same tile as pageable memory */
			{
				size_t		pinned_bytes = 1 << 20;
				uint8_t    *pinned = aligned_alloc(4096, pinned_bytes);
				uint8_t		tile[4096];
				size_t		tile_len = 0,
							pinned_len = 0;

				CHECK(pinned != NULL, "aligned_alloc");
				if (pinned != NULL)
				{
					memcpy(pinned, "hello", 5);
					CHECK(encode(ctx, NULL, 0, (const uint8_t *) "hello", off, 1, tile, sizeof(tile),
								 &tile_len) == GSST_GPU_OK, "encode of 5 bytes");
					rc = host_register(ctx, pinned, pinned_bytes);
					CHECK(rc == GSST_GPU_OK, "host_register: %s", strerr(rc));
					CHECK(encode(ctx, NULL, 0, pinned, off, 1, pinned + 4096, pinned_bytes - 4096,
								 &pinned_len) == GSST_GPU_OK, "encode from pinned memory");
					CHECK(pinned_len == tile_len && memcmp(pinned + 4096, tile, tile_len) == 0,
						  "pinned memory gives another tile");
					CHECK(rc != GSST_GPU_OK || host_unregister(ctx, pinned) == GSST_GPU_OK,
						  "host_unregister");
					free(pinned);
				}
			}
			shutdown(ctx);
		}
	}
	dlclose(lib);
}

/*
 * A generated column (test_data.h): its usual values, and more until it
 * holds min_bytes, so that it spans many units and splits; or max_values.
 */
static void
generate_column(batch *b, int column, uint64_t min_bytes, uint64_t max_values)
{
	td_gen		g;
	uint8_t    *buf = malloc(TD_MAX_VALUE);

	td_gen_init(&g, column);
	while (b->n < td_column_values(column) ||
		   (b->off[b->n] - b->off[0] < min_bytes && b->n < max_values))
	{
		size_t		len = td_gen_next(&g, buf);

		batch_add(b, buf, len);
	}
	free(buf);
}

int
main(int argc, char **argv)
{
	const char *dir = NULL;
	const char *lib = NULL;
	DIR		   *d;
	gsst_encoder *enc = malloc(sizeof(gsst_encoder));
	int			nfiles = 0;
	uint64_t	gen_values = 0,
				gen_bytes = 0;

	for (int i = 1; i < argc; i++)
	{
		struct stat st;

		if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			dir = argv[i];
		else
			lib = argv[i];
	}
	train_work = aligned_alloc(64, (gsst_train_work_bytes() + 63) / 64 * 64);
	memset(train_work, 0, (gsst_train_work_bytes() + 63) / 64 * 64);	/* gsst_train wants it zeroed */

	/* every generated column, at least 1 MB of it */
	for (int c = 0; c < TD_NCOLUMNS; c++)
	{
		batch		b = {0};

		generate_column(&b, c, 1u << 20, 2000000);
		train_table(&b, enc);
		check_batch(td_column_name(c), &b, enc, 1);
		if (c == 0)
		{
			check_layout(&b, enc);
			check_hostile(&b, enc);
		}
		gen_values += b.n;
		gen_bytes += b.off[b.n] - b.off[0];
		batch_free(&b);
	}
	printf("generated columns checked: %d (%llu values, %llu bytes)\n", TD_NCOLUMNS,
		   (unsigned long long) gen_values, (unsigned long long) gen_bytes);

	d = dir ? opendir(dir) : NULL;
	if (d)
	{
		struct dirent *e;
		char		path[4096];

		while ((e = readdir(d)) != NULL)
		{
			batch		b = {0};

			if (e->d_name[0] == '.' || strchr(e->d_name, '.') != NULL ||
				strcmp(e->d_name, "SHA256SUMS") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			/* at least 3 MB, so every file spans many units and splits */
			if (load_file(&b, path, 1u << 20, 0) == 0 && b.n > 0)
			{
				train_table(&b, enc);
				check_batch(e->d_name, &b, enc, 1);
				nfiles++;
			}
			batch_free(&b);
		}
		closedir(d);
	}
	if (dir == NULL)
		printf("no data directory given (--data DIR): no data files read\n");
	else
		printf("data files checked: %d (%s)\n", nfiles, dir);

	{
		batch		b = {0};

		make_random(&b, 20000);
		train_table(&b, enc);
		check_batch("random-binary", &b, enc, 0);
		check_hostile(&b, enc);
		batch_free(&b);
	}
	{
		batch		b = {0};
		static const char *vals[] = {"", "", "a", "", "ab", "abc", "", "hello world", ""};

		for (int rep = 0; rep < 20000; rep++)
			batch_add(&b, (const uint8_t *) vals[rep % 9], strlen(vals[rep % 9]));
		train_table(&b, enc);
		check_batch("empty-mix", &b, enc, 0);
		batch_free(&b);
		for (int rep = 0; rep < 3000; rep++)
			batch_add(&b, (const uint8_t *) "", 0);
		check_batch("all-empty", &b, enc, 0);
		batch_free(&b);
		batch_add(&b, (const uint8_t *) "x", 1);
		check_batch("one-value", &b, enc, 0);
		batch_free(&b);
	}
	{
		batch		b = {0};

		make_long(&b);
		train_table(&b, enc);
		check_batch("long-values", &b, enc, 0);
		check_hostile(&b, enc);
		check_empty_tile(enc);
		batch_free(&b);
	}

	check_expanding_prefix(enc);
	check_fit_sizes();

	/* both ways of compacting ran: through the temp area, and straight */
	CHECK(emu_direct_chunks > 0 && emu_direct_chunks < emu_chunks,
		  "compaction chunks: %llu of %llu direct", (unsigned long long) emu_direct_chunks,
		  (unsigned long long) emu_chunks);
	if (lib)
		check_abi(lib);
	else
		printf("gsst_gpu.so not built (no nvcc): ABI tests skipped\n");

	free(enc);
	free(train_work);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
