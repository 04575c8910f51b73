/*
 * gpu_bench.cu - bit-exactness checks and throughput of gsst_gpu.
 *
 *   gpu_bench check DIR [MB]       every file of DIR repeated to >= MB (8),
 *                                  plus random, empty, single, long values:
 *                                  GPU tile == CPU gsst_tile_encode bytes,
 *                                  GPU decodes == original; exit 1 on failure
 *   gpu_bench bench FILE BYTES [options]
 *        --cpu-check               compare with gsst_tile_encode at full size
 *        --split N --unit N        encoder configuration
 *        --sample N                training sample bytes
 *        --runs N                  timed runs (default 10, median reported)
 *        --flags N                 GSST_GPU_FLAG_* kernel choices
 *        --variants                also time other split/unit sizes
 *        --tile-v1                 then the same with version 1 tiles
 *                                  (GSST_GPU_FLAG_TILE_V1), a row "FILE@v1"
 *        --tsv PATH                append the result row (header if new)
 *   gpu_bench baselines FILE BYTES [--runs N] [--tsv PATH] [--no-gsst]
 *                                  gsst, the LZSS baseline (bench/baselines,
 *                                  gpuLZ's fast/avg/max sets) and nvCOMP's
 *                                  batched codecs when built in, on the same
 *                                  bytes (the values concatenated): one row
 *                                  per codec, TSV with a codec column
 *
 * Throughput is uncompressed bytes / second (1e9), data already in device
 * memory, median of the runs after two warm-ups, CUDA events recorded by
 * the library around each call (gsst_gpu_last_stats).
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "gsst_codec.h"
#include "gsst_gpu.h"
#include "gsst_gpu_layout.h"
#include "gsst_gpu_body.h"
#include "batch.h"
#include "baselines.h"

#define TSV_HEADER "device\tfile\tinput_bytes\tratio\ttile_ratio\tencode_GBps\tencode_kernel_GBps\tdecode_GBps\tdecode_values_GBps\tpeak_extra_device_bytes\tbitexact\n"

#define TSV_HEADER_CODEC "device\tcodec\tfile\tinput_bytes\tratio\tencode_GBps\tencode_kernel_GBps\tdecode_GBps\tdecode_values_GBps\tpeak_extra_device_bytes\tbitexact\n"

static int	failures;

static void
fail(const char *name, const char *fmt, ...)
{
	va_list		ap;

	failures++;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

struct dev_batch
{
	uint8_t    *d_data = nullptr;
	uint64_t   *d_off = nullptr;
	uint64_t	n = 0;
	uint64_t	raw = 0;
};

static dev_batch
upload(const batch *b)
{
	dev_batch	d;
	uint64_t	end = b->n ? b->off[b->n] : 0;

	d.n = b->n;
	d.raw = b->n ? b->off[b->n] - b->off[0] : 0;
	CK(cudaMalloc(&d.d_data, end + 16));
	CK(cudaMalloc(&d.d_off, (b->n + 1) * 8));
	if (end)
		CK(cudaMemcpy(d.d_data, b->data, end, cudaMemcpyHostToDevice));
	if (b->n)
		CK(cudaMemcpy(d.d_off, b->off, (b->n + 1) * 8, cudaMemcpyHostToDevice));
	else
	{
		uint64_t	zero = 0;

		CK(cudaMemcpy(d.d_off, &zero, 8, cudaMemcpyHostToDevice));
	}
	return d;
}

static void
release(dev_batch *d)
{
	cudaFree(d->d_data);
	cudaFree(d->d_off);
}

static const char *
region_of(const gsst_tile_layout *l, uint64_t at)
{
	if (at < GSST_TILE_HEADER_BYTES)
		return "header";
	if (at < (l->version == 1 ? l->comp_at : l->blocks_at))
		return "table";
	if (l->version == 1 && at < l->raw_at)
		return "comp offsets";
	if (l->version == 1 && at < l->splits_at)
		return "raw offsets";
	if (l->version == 2 && at < l->code_lens_at)
		return "block entries";
	if (l->version == 2 && at < l->splits_at)
		return "length bytes";
	if (at < l->codes_at)
		return "splits";
	return "codes or long list";
}

/* compare two tiles, print where they first differ and in which value */
static bool
compare_tiles(const char *name, const uint8_t *cpu, size_t cpu_len, const uint8_t *gpu,
			  size_t gpu_len)
{
	size_t		m = std::min(cpu_len, gpu_len);
	size_t		i = 0;
	gsst_tile	t;
	gsst_tile_layout	l;
	uint64_t	r,
				c;

	while (i < m && cpu[i] == gpu[i])
		i++;
	if (i == m && cpu_len == gpu_len)
		return true;
	if (gsst_tile_parse_header(cpu, cpu_len, cpu_len, &l, &r, &c) != GSST_OK)
	{
		fail(name, "tiles differ at %zu (cpu tile header unreadable)", i);
		return false;
	}
	if (i >= l.codes_at && gsst_tile_open(&t, cpu, cpu_len) == GSST_OK)
	{
		uint64_t	at = i - l.codes_at,
					lo = 0,
					hi = t.nvalues;

		while (lo + 1 < hi)		/* last value with comp <= at */
		{
			uint64_t	mid = (lo + hi) / 2;

			if (gsst_tile_comp_offset(&t, mid) <= at)
				lo = mid;
			else
				hi = mid;
		}
		fail(name, "tiles differ: len cpu %zu gpu %zu, first at byte %zu (codes +%llu, value %llu "
			 "of %llu bytes, codes %llu..%llu): cpu %02x gpu %02x",
			 cpu_len, gpu_len, i, (unsigned long long) at, (unsigned long long) lo,
			 (unsigned long long) (gsst_tile_raw_offset(&t, lo + 1) - gsst_tile_raw_offset(&t, lo)),
			 (unsigned long long) gsst_tile_comp_offset(&t, lo),
			 (unsigned long long) gsst_tile_comp_offset(&t, lo + 1), cpu[i], i < gpu_len ? gpu[i] : 0);
	}
	else if (i >= l.comp_at && i < l.splits_at)
		fail(name, "tiles differ: len cpu %zu gpu %zu, first at byte %zu (%s entry %llu): cpu %02x gpu %02x",
			 cpu_len, gpu_len, i, region_of(&l, i),
			 (unsigned long long) ((i - (i < l.raw_at ? l.comp_at : l.raw_at)) / l.width),
			 cpu[i], i < gpu_len ? gpu[i] : 0);
	else if (i >= l.splits_at && i < l.splits_end)
		fail(name, "tiles differ: len cpu %zu gpu %zu, first at byte %zu (split %llu field %llu): cpu %02x gpu %02x",
			 cpu_len, gpu_len, i, (unsigned long long) ((i - l.splits_at) / (3 * l.width)),
			 (unsigned long long) ((i - l.splits_at) / l.width % 3), cpu[i], i < gpu_len ? gpu[i] : 0);
	else
		fail(name, "tiles differ: len cpu %zu gpu %zu, first at byte %zu (%s): cpu %02x gpu %02x",
			 cpu_len, gpu_len, i, region_of(&l, i), cpu[i], i < gpu_len ? gpu[i] : 0);
	return false;
}

static bool
compare_bytes(const char *name, const char *what, const uint8_t *want, const uint8_t *got,
			  size_t len, const batch *b)
{
	size_t		i = 0;

	if (memcmp(want, got, len) == 0)
		return true;
	while (want[i] == got[i])
		i++;
	{
		uint64_t	lo = 0,
					hi = b->n;

		while (lo + 1 < hi)
		{
			uint64_t	mid = (lo + hi) / 2;

			if (b->off[mid] - b->off[0] <= i)
				lo = mid;
			else
				hi = mid;
		}
		fail(name, "%s differs at byte %zu (value %llu, byte %llu of %llu): want %02x got %02x",
			 what, i, (unsigned long long) lo, (unsigned long long) (i - (b->off[lo] - b->off[0])),
			 (unsigned long long) (b->off[lo + 1] - b->off[lo]), want[i], got[i]);
	}
	return false;
}

/* CPU tile with the table of a GPU tile */
static std::vector<uint8_t>
cpu_tile_like(const uint8_t *gpu_tile, const batch *b, uint32_t split, bool *ok)
{
	std::vector<uint8_t> out;
	gsst_table	table;
	size_t		consumed;
	uint32_t	tb = (uint32_t) gsst_le_get(gpu_tile + 12, 4);
	gsst_encoder *enc = (gsst_encoder *) malloc(sizeof(gsst_encoder));
	uint64_t	zero = 0;
	const uint64_t *off = b->n ? b->off : &zero;
	size_t		len = 0;
	int			rc = gsst_table_load(&table, gpu_tile + GSST_TILE_HEADER_BYTES, tb, &consumed);

	*ok = false;
	if (rc == GSST_OK)
	{
		gsst_encoder_init(enc, &table);
		out.resize(gsst_tile_bound(b->n, b->n ? b->off[b->n] - b->off[0] : 0, split));
		/* the GPU tile's version (GSST_GPU_FLAG_TILE_V1 makes version 1) */
		rc = gsst_tile_encode_version(enc, b->data, off, b->n, split, gpu_tile[4], out.data(),
									  out.size(), &len);
		out.resize(len);
		*ok = rc == GSST_OK;
	}
	if (rc != GSST_OK)
		fail("cpu", "reference encode: %s", gsst_strerror(rc));
	free(enc);
	return out;
}

/*
 * Whether the tile's table is the one gsst_train makes from the sample
 * that the library is meant to take (gsst_gpu_body.h's slots, done here on
 * the host): checks the device's sample kernel, which the tile check alone
 * would not (the CPU reference encodes with the tile's own table).
 */
static bool
table_is_host_trained(const uint8_t *gpu_tile, const batch *b, uint32_t sample_bytes)
{
	static uint32_t lens[GG_SAMPLE_SLOTS],
				starts[GG_SAMPLE_SLOTS];
	static const uint8_t *values[GG_SAMPLE_SLOTS];
	static size_t vlens[GG_SAMPLE_SLOTS];
	std::vector<uint8_t> sample(sample_bytes + GG_SAMPLE_PIECE);
	std::vector<uint8_t> work(gsst_train_work_bytes());
	uint8_t		ser[GSST_TABLE_MAX_BYTES];
	uint32_t	sum = 0;
	size_t		count = 0;
	gsst_table	table;
	ptrdiff_t	len;
	uint32_t	tb = (uint32_t) gsst_le_get(gpu_tile + 12, 4);

	if (b->n == 0)
		return true;
	for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
	{
		gg_sample_len(b->off, b->n, k, lens);
		starts[k] = sum;
		sum += lens[k];
	}
	for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
		gg_sample_copy(b->data, b->off, b->n, k, lens, starts, sample_bytes, sample.data(), 0, 1);
	for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
		if (gg_sample_index(b->n, k) != GG_NO_INDEX && starts[k] + lens[k] <= sample_bytes)
		{
			values[count] = sample.data() + starts[k];
			vlens[count++] = lens[k];
		}
	if (gsst_train(&table, values, vlens, count, work.data()) != GSST_OK)
		return false;
	len = gsst_table_serialize(&table, ser, sizeof(ser));
	return len == (ptrdiff_t) tb && memcmp(ser, gpu_tile + GSST_TILE_HEADER_BYTES, tb) == 0;
}

/* the split the last encode used (the library fits it to the GPU) */
static uint32_t
used_split(const gsst_gpu *ctx)
{
	gsst_gpu_stats st;

	gsst_gpu_last_stats(ctx, &st);
	return st.split_bytes;
}

static gsst_gpu *
make_ctx(uint32_t split, uint32_t unit, uint32_t sample, uint32_t flags = 0)
{
	gsst_gpu_config cfg;
	gsst_gpu   *ctx = nullptr;
	int			rc;

	gsst_gpu_config_default(&cfg);
	cfg.split_bytes = split;
	cfg.unit_bytes = unit;
	cfg.sample_bytes = sample;
	cfg.flags = flags;
	rc = gsst_gpu_init(&cfg, &ctx);
	if (rc != GSST_GPU_OK)
	{
		fprintf(stderr, "gsst_gpu_init: %s: %s\n", gsst_gpu_strerror(rc), gsst_gpu_init_error());
		exit(2);
	}
	return ctx;
}

/* ---- check mode ---- */

/*
 * The same tile with 8-byte offset entries, which the encoders write only
 * for batches of 4 GiB or 2^32 values: the check runs the W = 8 decoders
 * on every data set this way.  Empty when the tile does not open.
 */
static std::vector<uint8_t>
widen_tile(const uint8_t *tile, size_t len)
{
	gsst_tile	t;
	gsst_tile_layout l;
	std::vector<uint8_t> w;

	if (gsst_tile_open(&t, tile, len) != GSST_OK ||
		gsst_tile_layout_start(&l, t.version, 8, t.table_bytes, t.nvalues, t.nsplits) != 0 ||
		gsst_tile_layout_finish(&l, t.code_bytes, t.nlongs) != 0)
		return w;
	w.assign(l.end, 0);
	gsst_tile_write_header(w.data(), &l, tile + GSST_TILE_HEADER_BYTES, t.raw_bytes, t.code_bytes);
	if (t.version == 1)
		for (uint64_t i = 0; i <= t.nvalues; i++)
		{
			gsst_le_put(&w[l.comp_at + 8 * i], 8, gsst_le_get(t.comp_offsets + t.offset_width * i, t.offset_width));
			gsst_le_put(&w[l.raw_at + 8 * i], 8, gsst_le_get(t.raw_offsets + t.offset_width * i, t.offset_width));
		}
	else
	{
		for (uint64_t i = 0; i < 3 * (l.nblocks + 1); i++)
			gsst_le_put(&w[l.blocks_at + 8 * i], 8, gsst_le_get(t.blocks + t.offset_width * i, t.offset_width));
		memcpy(&w[l.code_lens_at], t.code_lens, t.nvalues);
		memcpy(&w[l.raw_lens_at], t.raw_lens, t.nvalues);
		for (uint64_t i = 0; i < 2 * t.nlongs; i++)
			gsst_le_put(&w[l.longs_at + 8 * i], 8, gsst_le_get(t.longs + t.offset_width * i, t.offset_width));
	}
	for (uint64_t i = 0; i < 3 * (t.nsplits + 1); i++)
		gsst_le_put(&w[l.splits_at + 8 * i], 8, gsst_le_get(t.splits + t.offset_width * i, t.offset_width));
	memcpy(&w[l.codes_at], t.codes, t.code_bytes);
	return w;
}

/* decode and decode_values of a device tile, each into a poisoned buffer */
static void
check_decodes(gsst_gpu *ctx, const char *name, const char *what, const uint8_t *d_tile,
			  size_t tile_len, uint8_t *d_out, std::vector<uint8_t> &out, const batch *b,
			  uint64_t raw)
{
	size_t		out_len = 0;

	for (int mode = 0; mode < 2; mode++)
	{
		const char *op = mode ? "decode_values" : "decode";
		int			rc;

		CK(cudaMemset(d_out, 0xAB, raw + 16));
		CK(cudaDeviceSynchronize());
		rc = mode == 0 ? gsst_gpu_decode_device(ctx, d_tile, tile_len, d_out, raw, &out_len)
			: gsst_gpu_decode_values_device(ctx, d_tile, tile_len, NULL, 0, d_out, raw, NULL);
		if (rc != GSST_GPU_OK)
		{
			fail(name, "%s%s: %s: %s", op, what, gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
			continue;
		}
		CK(cudaMemcpy(out.data(), d_out, raw + 16, cudaMemcpyDeviceToHost));
		if (raw)
			compare_bytes(name, op, b->data + b->off[0], out.data(), raw, b);
		for (int k = 0; k < 16; k++)
			if (out[raw + k] != 0xAB)
			{
				fail(name, "%s%s wrote past the output end", op, what);
				break;
			}
	}
}

static void
check_batch(gsst_gpu *ctx, uint32_t split, const char *name, const batch *b)
{
	dev_batch	d = upload(b);
	size_t		cap = gsst_gpu_tile_bound(b->n, d.raw, split);
	uint8_t    *d_tile,
			   *d_out;
	size_t		tile_len = 0,
				out_len = 0;
	std::vector<uint8_t> tile(cap), out(d.raw + 16);
	bool		ok;
	int			rc;
	int			before = failures;

	CK(cudaMalloc(&d_tile, cap));
	CK(cudaMalloc(&d_out, d.raw + 16));
	CK(cudaMemset(d_tile, 0xEE, cap));
	CK(cudaDeviceSynchronize());
	rc = gsst_gpu_encode_device(ctx, NULL, 0, d.d_data, d.d_off, b->n, d_tile, cap, &tile_len);
	if (rc != GSST_GPU_OK)
	{
		fail(name, "encode: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
		goto done;
	}
	CK(cudaMemcpy(tile.data(), d_tile, tile_len, cudaMemcpyDeviceToHost));
	split = used_split(ctx);
	{
		std::vector<uint8_t> cpu = cpu_tile_like(tile.data(), b, split, &ok);

		if (ok)
			compare_tiles(name, cpu.data(), cpu.size(), tile.data(), tile_len);
		if (!table_is_host_trained(tile.data(), b, GSST_GPU_DEFAULT_SAMPLE_BYTES))
			fail(name, "the tile's table is not the one trained on the host from the same sample");
	}
	{
		gsst_tile	t;

		rc = gsst_tile_open(&t, tile.data(), tile_len);
		if (rc != GSST_OK)
			fail(name, "gsst_tile_open(gpu tile): %s", gsst_strerror(rc));
	}
	/* the given-table path yields the same tile */
	{
		uint32_t	tb = (uint32_t) gsst_le_get(tile.data() + 12, 4);
		size_t		len2 = 0;
		std::vector<uint8_t> tile2(cap);

		rc = gsst_gpu_encode_device(ctx, tile.data() + GSST_TILE_HEADER_BYTES, tb, d.d_data,
									d.d_off, b->n, d_tile, cap, &len2);
		if (rc != GSST_GPU_OK)
			fail(name, "encode with table: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
		else
		{
			CK(cudaMemcpy(tile2.data(), d_tile, len2, cudaMemcpyDeviceToHost));
			if (len2 != tile_len || memcmp(tile2.data(), tile.data(), tile_len) != 0)
				fail(name, "encode with the table gives another tile");
		}
	}
	check_decodes(ctx, name, "", d_tile, tile_len, d_out, out, b, d.raw);
	{
		std::vector<uint8_t> wide = widen_tile(tile.data(), tile_len);
		gsst_tile	t8;
		uint8_t    *d_wide;

		if (wide.empty() || gsst_tile_open(&t8, wide.data(), wide.size()) != GSST_OK ||
			t8.offset_width != 8)
			fail(name, "the tile widened to 8-byte offsets does not open");
		else
		{
			CK(cudaMalloc(&d_wide, wide.size()));
			CK(cudaMemcpy(d_wide, wide.data(), wide.size(), cudaMemcpyHostToDevice));
			check_decodes(ctx, name, " (8-byte offsets)", d_wide, wide.size(), d_out, out, b, d.raw);
			cudaFree(d_wide);
		}
	}
	/* selected values, with repeats, against the codec's decode_one */
	if (b->n > 0)
	{
		size_t		k = 1000;
		std::vector<uint64_t> idx(k), offs(k + 1);
		uint64_t   *d_idx,
				   *d_offs;
		gsst_tile	t;

		for (size_t j = 0; j < k; j++)
			idx[j] = rnd() % b->n;
		CK(cudaMalloc(&d_idx, k * 8));
		CK(cudaMalloc(&d_offs, (k + 1) * 8));
		CK(cudaMemcpy(d_idx, idx.data(), k * 8, cudaMemcpyHostToDevice));
		rc = gsst_gpu_decode_values_device(ctx, d_tile, tile_len, d_idx, k, d_out, d.raw + 16, d_offs);
		if (rc == GSST_GPU_ERR_SPACE)
			rc = GSST_GPU_OK;	/* repeats can overflow a small output: fine */
		else if (rc != GSST_GPU_OK)
			fail(name, "selected values: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
		else if (gsst_tile_open(&t, tile.data(), tile_len) == GSST_OK)
		{
			std::vector<uint8_t> one(5u << 20);

			CK(cudaMemcpy(offs.data(), d_offs, (k + 1) * 8, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(out.data(), d_out, std::min<uint64_t>(offs[k], d.raw + 16), cudaMemcpyDeviceToHost));
			for (size_t j = 0; j < k; j++)
			{
				int64_t		n1 = gsst_tile_decode_one(&t, idx[j], one.data(), one.size());

				if (n1 < 0 || (uint64_t) n1 != offs[j + 1] - offs[j] ||
					memcmp(one.data(), out.data() + offs[j], n1) != 0)
				{
					fail(name, "selected value %llu (#%zu) differs", (unsigned long long) idx[j], j);
					break;
				}
			}
		}
		cudaFree(d_idx);
		cudaFree(d_offs);
	}
	/*
	 * hostile tiles: flipped bytes must give OK or CORRUPT, never a CUDA
	 * error, and the same verdict and bytes as the CPU codec
	 */
	if (tile_len > 200)
	{
		std::vector<uint8_t> bad(tile_len), cpu_out(d.raw + 16);
		bool		cpu_ok;
		uint64_t	cpu_raw;

		for (int trial = 0; trial < 20; trial++)
		{
			memcpy(bad.data(), tile.data(), tile_len);
			for (int f = 0; f < 3; f++)
				bad[rnd() % tile_len] ^= (uint8_t) (1 + rnd() % 255);
			CK(cudaMemcpy(d_tile, bad.data(), tile_len, cudaMemcpyHostToDevice));
			/* the CPU codec's verdict and output: the GPU must agree */
			{
				gsst_tile	bt;

				cpu_ok = gsst_tile_open(&bt, bad.data(), tile_len) == GSST_OK &&
					bt.raw_bytes <= d.raw + 16 &&
					gsst_tile_decode_all(&bt, cpu_out.data(), d.raw + 16) == GSST_OK;
				cpu_raw = cpu_ok ? bt.raw_bytes : 0;
			}
			for (int mode = 0; mode < 2; mode++)
			{
				rc = mode == 0 ? gsst_gpu_decode_device(ctx, d_tile, tile_len, d_out, d.raw + 16, &out_len)
					: gsst_gpu_decode_values_device(ctx, d_tile, tile_len, NULL, 0, d_out, d.raw + 16, NULL);
				if (rc != GSST_GPU_OK && rc != GSST_GPU_ERR_CORRUPT && rc != GSST_GPU_ERR_SPACE)
				{
					fail(name, "hostile tile: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
					trial = 1000;
					break;
				}
				/*
				 * decode_values reads only each value's own offsets and codes,
				 * so it may accept a tile that is broken elsewhere (its split
				 * table, say)
				 */
				if (mode == 1 && rc == GSST_GPU_OK && !cpu_ok)
					continue;
				if ((rc == GSST_GPU_OK) != cpu_ok)
				{
					fail(name, "hostile tile %d: %s says %s, the CPU codec %s (%s)", trial,
						 mode ? "decode_values" : "decode", rc == GSST_GPU_OK ? "valid" : "invalid",
						 cpu_ok ? "valid" : "invalid", gsst_gpu_last_error(ctx));
					continue;
				}
				if (rc == GSST_GPU_OK && cpu_raw > 0)
				{
					CK(cudaMemcpy(out.data(), d_out, cpu_raw, cudaMemcpyDeviceToHost));
					if (memcmp(out.data(), cpu_out.data(), cpu_raw) != 0)
						fail(name, "hostile tile %d: %s output differs from the CPU codec's", trial,
							 mode ? "decode_values" : "decode");
				}
			}
		}
		rc = gsst_gpu_decode_device(ctx, d_tile, tile_len - 1, d_out, d.raw + 16, &out_len);
		if (rc != GSST_GPU_ERR_CORRUPT)
			fail(name, "truncated tile accepted: %s", gsst_gpu_strerror(rc));
	}
done:
	printf("%-14s values %-9llu bytes %-11llu tile %-11zu %s\n", name, (unsigned long long) b->n,
		   (unsigned long long) d.raw, tile_len, failures == before ? "ok" : "FAILED");
	fflush(stdout);
	cudaFree(d_tile);
	cudaFree(d_out);
	release(&d);
}

/* the host-memory API round trip */
static void
check_host_api(gsst_gpu *ctx, uint32_t split, const batch *b)
{
	uint64_t	raw = b->off[b->n] - b->off[0];
	std::vector<uint8_t> tile(gsst_gpu_tile_bound(b->n, raw, split)), out(raw + 1);
	size_t		tile_len = 0,
				out_len = 0;
	int			rc;
	bool		ok;

	/* a buffer of exactly the codec's bound for the configured split must do */
	{
		std::vector<uint8_t> tight(gsst_tile_bound(b->n, raw, split));

		rc = gsst_gpu_encode(ctx, NULL, 0, b->data, b->off, b->n, tight.data(), tight.size(),
							 &tile_len);
		if (rc != GSST_GPU_OK)
			fail("host-api", "encode into gsst_tile_bound bytes: %s: %s", gsst_gpu_strerror(rc),
				 gsst_gpu_last_error(ctx));
		else
		{
			std::vector<uint8_t> cpu = cpu_tile_like(tight.data(), b, used_split(ctx), &ok);

			if (ok)
				compare_tiles("host-api-tight", cpu.data(), cpu.size(), tight.data(), tile_len);
		}
	}
	rc = gsst_gpu_encode(ctx, NULL, 0, b->data, b->off, b->n, tile.data(), tile.size(), &tile_len);
	if (rc != GSST_GPU_OK)
	{
		fail("host-api", "encode: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
		return;
	}
	split = used_split(ctx);
	{
		std::vector<uint8_t> cpu = cpu_tile_like(tile.data(), b, split, &ok);

		if (ok)
			compare_tiles("host-api", cpu.data(), cpu.size(), tile.data(), tile_len);
	}
	rc = gsst_gpu_decode(ctx, tile.data(), tile_len, out.data(), out.size(), &out_len);
	if (rc != GSST_GPU_OK || out_len != raw)
		fail("host-api", "decode: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
	else
		compare_bytes("host-api", "decode", b->data + b->off[0], out.data(), raw, b);
	{
		uint64_t	idx[3] = {b->n - 1, 0, b->n / 2};
		uint64_t	offs[4];

		rc = gsst_gpu_decode_values(ctx, tile.data(), tile_len, idx, 3, out.data(), out.size(), offs);
		if (rc != GSST_GPU_OK)
			fail("host-api", "decode_values: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
		else
			for (int j = 0; j < 3; j++)
				if (offs[j + 1] - offs[j] != b->off[idx[j] + 1] - b->off[idx[j]] ||
					memcmp(out.data() + offs[j], b->data + b->off[idx[j]], offs[j + 1] - offs[j]) != 0)
					fail("host-api", "decode_values: value %llu differs", (unsigned long long) idx[j]);
	}
	/* errors come back as codes */
	rc = gsst_gpu_encode(ctx, NULL, 0, b->data, b->off, b->n, tile.data(), 100, &tile_len);
	if (rc != GSST_GPU_ERR_SPACE)
		fail("host-api", "small tile buffer: %s", gsst_gpu_strerror(rc));
	rc = gsst_gpu_decode(ctx, tile.data(), 10, out.data(), out.size(), &out_len);
	if (rc != GSST_GPU_ERR_CORRUPT)
		fail("host-api", "10-byte tile: %s", gsst_gpu_strerror(rc));
	printf("%-14s %s\n", "host-api", failures ? "(see failures)" : "ok");
}

static int
run_checks(const char *dir, uint64_t mb, bool quick)
{
	static const uint32_t configs[][3] = {
		{32768, 8192, 0},
		{8192, 4096, GSST_GPU_FLAG_THREAD_SPLITS | GSST_GPU_FLAG_DIRECT_VALUES},
		{65536, 16384, GSST_GPU_FLAG_FIXED_SIZES},
		{16384, 8192, GSST_GPU_FLAG_STAGED_VALUES},
	};
	std::vector<std::string> files;

	{
		FILE	   *ls;
		char		line[4096];
		std::string cmd = std::string("ls ") + dir;

		ls = popen(cmd.c_str(), "r");
		while (ls && fgets(line, sizeof(line), ls))
		{
			line[strcspn(line, "\n")] = 0;
			if (strchr(line, '.') == NULL && strcmp(line, "SHA256SUMS") != 0)
				files.push_back(line);
		}
		if (ls)
			pclose(ls);
	}
	for (size_t ci = 0; ci < (quick ? 2 : sizeof(configs) / sizeof(configs[0])); ci++)
	{
		gsst_gpu   *ctx = make_ctx(configs[ci][0], configs[ci][1], 0, configs[ci][2]);

		printf("== split %u unit %u flags %u\n", configs[ci][0], configs[ci][1], configs[ci][2]);
		for (const std::string &f : files)
		{
			batch		b = {};
			std::string path = std::string(dir) + "/" + f;

			load_file(&b, path.c_str(), mb << 20, 0);
			check_batch(ctx, configs[ci][0], f.c_str(), &b);
			if (ci == 0 && f == files[0])
				check_host_api(ctx, configs[ci][0], &b);
			batch_free(&b);
		}
		{
			batch		b = {};

			make_random(&b, quick ? 2000 : 50000);
			check_batch(ctx, configs[ci][0], "random-binary", &b);
			batch_free(&b);
		}
		{
			batch		b = {};
			static const char *vals[] = {"", "", "a", "", "ab", "abc", "", "hello world", ""};

			for (int rep = 0; rep < (quick ? 5000 : 200000); rep++)
				batch_add(&b, (const uint8_t *) vals[rep % 9], strlen(vals[rep % 9]));
			check_batch(ctx, configs[ci][0], "empty-mix", &b);
			batch_free(&b);
			for (int rep = 0; rep < 5000; rep++)
				batch_add(&b, (const uint8_t *) "", 0);
			check_batch(ctx, configs[ci][0], "all-empty", &b);
			batch_free(&b);
			check_batch(ctx, configs[ci][0], "no-values", &b);
			batch_add(&b, (const uint8_t *) "x", 1);
			check_batch(ctx, configs[ci][0], "one-value", &b);
			batch_free(&b);
		}
		if (!quick)
		{
			batch		b = {};

			make_long(&b);
			check_batch(ctx, configs[ci][0], "long-values", &b);
			batch_free(&b);
		}
		gsst_gpu_shutdown(ctx);
	}
	printf("checks: %s (%d failures)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? 1 : 0;
}

/* ---- bench mode ---- */

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
}

struct bench_result
{
	double		ratio = 0,
				tile_ratio = 0,
				enc = 0,
				enc_kernel = 0,
				dec = 0,
				dec_values = 0,
				dec_kernel = 0,
				dec_values_kernel = 0,
				train_ms = 0;
	uint64_t	extra = 0;
	size_t		tile_len = 0;
	uint32_t	split = 0,		/* the sizes the library fitted */
				unit = 0;
	std::string bitexact = "no";
};

static bench_result
bench_config(const char *name, const batch *b, const dev_batch *d, uint32_t split, uint32_t unit,
			 uint32_t sample, int runs, bool cpu_check, std::vector<uint8_t> *ref_tile,
			 uint32_t flags = 0)
{
	gsst_gpu   *ctx = make_ctx(split, unit, sample, flags);
	size_t		cap = gsst_gpu_tile_bound(b->n, d->raw, split);
	uint8_t    *d_tile,
			   *d_out;
	size_t		out_len;
	bench_result r;
	gsst_gpu_stats st;
	std::vector<double> enc, enc_k, dec, dec_k, val, val_k, train;
	std::vector<double> stage[4], host[3];
	std::vector<uint8_t> tile;
	int			rc;
	double		gb = d->raw / 1e9;
	bool		ok = true;

	CK(cudaMalloc(&d_tile, cap));
	CK(cudaMalloc(&d_out, d->raw + 16));
	/* correctness first */
	rc = gsst_gpu_encode_device(ctx, NULL, 0, d->d_data, d->d_off, b->n, d_tile, cap, &r.tile_len);
	if (rc != GSST_GPU_OK)
	{
		fail(name, "encode: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
		exit(1);
	}
	gsst_gpu_last_stats(ctx, &st);
	r.split = st.split_bytes;
	r.unit = st.unit_bytes;
	tile.resize(r.tile_len);
	CK(cudaMemcpy(tile.data(), d_tile, r.tile_len, cudaMemcpyDeviceToHost));
	{
		gsst_tile_layout	l;
		uint64_t	raw,
					code;
		gsst_tile	t;

		gsst_tile_parse_header(tile.data(), r.tile_len, r.tile_len, &l, &raw, &code);
		r.ratio = (double) raw / (double) (code + l.table_bytes);
		r.tile_ratio = (double) raw / (double) r.tile_len;
		rc = gsst_tile_open(&t, tile.data(), r.tile_len);
		if (rc != GSST_OK)
		{
			fail(name, "gsst_tile_open(gpu tile): %s", gsst_strerror(rc));
			ok = false;
		}
		if (ref_tile && !ref_tile->empty())
		{
			/* same values, other split size: offsets and codes must match */
			gsst_tile_layout	rl;

			gsst_tile_parse_header(ref_tile->data(), ref_tile->size(), ref_tile->size(), &rl, &raw, &code);
			uint64_t	index_at = l.version == 1 ? l.comp_at : l.blocks_at;
			uint64_t	ref_index_at = rl.version == 1 ? rl.comp_at : rl.blocks_at;

			/* the index up to the splits, and for v2 the long list after the codes */
			if (rl.version != l.version ||
				memcmp(ref_tile->data() + ref_index_at, tile.data() + index_at, l.splits_at - index_at) != 0 ||
				memcmp(ref_tile->data() + rl.codes_at, tile.data() + l.codes_at, code) != 0 ||
				memcmp(ref_tile->data() + rl.longs_at, tile.data() + l.longs_at, l.end - l.longs_at) != 0)
			{
				fail(name, "split %u unit %u: offsets or codes differ from the reference tile", split, unit);
				ok = false;
			}
		}
	}
	if (cpu_check)
	{
		bool		cpu_ok;
		std::vector<uint8_t> cpu = cpu_tile_like(tile.data(), b, r.split, &cpu_ok);

		if (cpu_ok && compare_tiles(name, cpu.data(), cpu.size(), tile.data(), r.tile_len) && ok)
			r.bitexact = "yes";
	}
	else if (ok)
		r.bitexact = ref_tile && !ref_tile->empty() ? "same-codes" : "tile-valid";
	{
		std::vector<uint8_t> out(d->raw);

		for (int mode = 0; mode < 2; mode++)
		{
			CK(cudaMemset(d_out, 0xAB, d->raw + 16));
			CK(cudaDeviceSynchronize());
			rc = mode == 0 ? gsst_gpu_decode_device(ctx, d_tile, r.tile_len, d_out, d->raw, &out_len)
				: gsst_gpu_decode_values_device(ctx, d_tile, r.tile_len, NULL, 0, d_out, d->raw, NULL);
			if (rc != GSST_GPU_OK)
			{
				fail(name, "decode: %s: %s", gsst_gpu_strerror(rc), gsst_gpu_last_error(ctx));
				r.bitexact = "NO";
				continue;
			}
			CK(cudaMemcpy(out.data(), d_out, d->raw, cudaMemcpyDeviceToHost));
			if (!compare_bytes(name, mode ? "decode_values" : "decode", b->data + b->off[0], out.data(), d->raw, b))
				r.bitexact = "NO";
		}
	}
	if (ref_tile && ref_tile->empty())
		*ref_tile = tile;

	/* timing: two warm-ups, then runs */
	for (int i = 0; i < runs + 2; i++)
	{
		rc = gsst_gpu_encode_device(ctx, NULL, 0, d->d_data, d->d_off, b->n, d_tile, cap, &r.tile_len);
		gsst_gpu_last_stats(ctx, &st);
		if (rc != GSST_GPU_OK)
			fail(name, "encode (timed): %s", gsst_gpu_last_error(ctx));
		if (i >= 2)
		{
			enc.push_back(st.total_ms);
			enc_k.push_back(st.kernel_ms);
			train.push_back(st.train_ms);
			for (int k = 0; k < 4; k++)
				stage[k].push_back(st.stage_ms[k]);
			host[0].push_back(st.sample_ms);
			host[1].push_back(st.fit_ms);
			host[2].push_back(st.plan_ms);
		}
		r.extra = std::max<uint64_t>(r.extra, st.extra_device_bytes);
	}
	for (int i = 0; i < runs + 2; i++)
	{
		rc = gsst_gpu_decode_device(ctx, d_tile, r.tile_len, d_out, d->raw, &out_len);
		gsst_gpu_last_stats(ctx, &st);
		if (rc != GSST_GPU_OK)
			fail(name, "decode (timed): %s", gsst_gpu_last_error(ctx));
		if (i >= 2)
		{
			dec.push_back(st.total_ms);
			dec_k.push_back(st.kernel_ms);
		}
		r.extra = std::max<uint64_t>(r.extra, st.extra_device_bytes);
		rc = gsst_gpu_decode_values_device(ctx, d_tile, r.tile_len, NULL, 0, d_out, d->raw, NULL);
		gsst_gpu_last_stats(ctx, &st);
		if (rc != GSST_GPU_OK)
			fail(name, "decode_values (timed): %s", gsst_gpu_last_error(ctx));
		if (i >= 2)
		{
			val.push_back(st.total_ms);
			val_k.push_back(st.kernel_ms);
		}
	}
	r.enc = gb / (median(enc) / 1e3);
	r.enc_kernel = gb / (median(enc_k) / 1e3);
	r.dec = gb / (median(dec) / 1e3);
	r.dec_kernel = gb / (median(dec_k) / 1e3);
	r.dec_values = gb / (median(val) / 1e3);
	r.dec_values_kernel = gb / (median(val_k) / 1e3);
	r.train_ms = median(train);
	printf("%-10s split %6u unit %6u flags %u | ratio %.3f (whole tile %.3f, v%u) | encode %7.1f GB/s (kernels %7.1f, %.3f ms, train %.3f ms, "
		   "min %.3f max %.3f ms) | decode %7.1f GB/s (kernel %7.1f) | values %7.1f GB/s (kernel %7.1f) | extra %llu\n",
		   name, split, unit, flags, r.ratio, r.tile_ratio, (unsigned) tile[4], r.enc, r.enc_kernel, median(enc_k), r.train_ms,
		   *std::min_element(enc.begin(), enc.end()), *std::max_element(enc.begin(), enc.end()),
		   r.dec, r.dec_kernel, r.dec_values, r.dec_values_kernel, (unsigned long long) r.extra);
	printf("%-10s encode stages (median ms): kernel %.3f | resolve+scan %.3f | compaction %.3f | "
		   "splits+header %.3f | host: sample %.3f, gsst_train %.3f (min %.3f max %.3f) | "
		   "GPU plan done at %.3f | fitted split %u unit %u\n", name, median(stage[0]),
		   median(stage[1]), median(stage[2]),
		   median(stage[3]), median(host[0]), median(host[1]),
		   *std::min_element(host[1].begin(), host[1].end()),
		   *std::max_element(host[1].begin(), host[1].end()), median(host[2]), r.split, r.unit);
	fflush(stdout);
	cudaFree(d_tile);
	cudaFree(d_out);
	gsst_gpu_shutdown(ctx);
	return r;
}

static int
run_bench(int argc, char **argv)
{
	const char *file = argv[2];
	uint64_t	bytes = strtoull(argv[3], NULL, 10);
	uint32_t	split = GSST_GPU_DEFAULT_SPLIT_BYTES,
				unit = GSST_GPU_DEFAULT_UNIT_BYTES,
				sample = GSST_GPU_DEFAULT_SAMPLE_BYTES,
				flags = 0;
	int			runs = 10;
	bool		cpu_check = false,
				variants = false,
				tile_v1 = false;
	const char *tsv = NULL;
	const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	batch		b = {};
	dev_batch	d;
	bench_result r;
	std::vector<uint8_t> ref;
	gsst_gpu_info info;

	for (int i = 4; i < argc; i++)
	{
		if (!strcmp(argv[i], "--cpu-check"))
			cpu_check = true;
		else if (!strcmp(argv[i], "--variants"))
			variants = true;
		else if (!strcmp(argv[i], "--tile-v1"))
			tile_v1 = true;
		else if (!strcmp(argv[i], "--split") && i + 1 < argc)
			split = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--unit") && i + 1 < argc)
			unit = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sample") && i + 1 < argc)
			sample = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--flags") && i + 1 < argc)
			flags = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tsv") && i + 1 < argc)
			tsv = argv[++i];
	}
	if (load_file(&b, file, bytes, bytes) != 0 || b.n == 0)
	{
		fprintf(stderr, "cannot read %s\n", file);
		return 2;
	}
	d = upload(&b);
	{
		gsst_gpu   *ctx = make_ctx(split, unit, sample);

		gsst_gpu_get_info(ctx, &info);
		gsst_gpu_shutdown(ctx);
	}
	printf("# %s: %s, %llu values, %llu bytes (device %s, %d SMs)\n", name, file,
		   (unsigned long long) b.n, (unsigned long long) d.raw, info.name, info.multiprocessors);
	for (int v1 = 0; v1 <= (tile_v1 ? 1 : 0); v1++)
	{
		std::string row = name;

		/* version 1: the same call, another index; no reference tile of the other layout */
		if (v1)
			row += "@v1";
		r = bench_config(row.c_str(), &b, &d, split, unit, sample, runs, cpu_check, v1 ? nullptr : &ref,
						 flags | (v1 ? GSST_GPU_FLAG_TILE_V1 : 0));
		if (tsv)
		{
			FILE	   *f = fopen(tsv, "a+");

			fseek(f, 0, SEEK_END);
			if (ftell(f) == 0)
				fputs(TSV_HEADER, f);
			fprintf(f, "%s\t%s\t%llu\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%llu\t%s\n", info.name,
					row.c_str(), (unsigned long long) d.raw, r.ratio, r.tile_ratio, r.enc, r.enc_kernel,
					r.dec, r.dec_values, (unsigned long long) r.extra, r.bitexact.c_str());
			fclose(f);
		}
	}
	if (variants)
	{
		static const uint32_t v[][2] = {{8192, 4096}, {16384, 8192}, {32768, 4096}, {32768, 16384},
		{65536, 8192}, {16384, 16384}};

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			bench_config(name, &b, &d, v[i][0], v[i][1], sample, runs, false, &ref);
		/* the simpler kernels: one thread per split, values written directly */
		bench_config(name, &b, &d, split, unit, sample, runs, false, &ref,
					 GSST_GPU_FLAG_THREAD_SPLITS | GSST_GPU_FLAG_DIRECT_VALUES);
		for (uint32_t s : {4096u, 8192u, 32768u})
		{
			bench_result rs = bench_config(name, &b, &d, split, unit, s, 3, false, nullptr);

			printf("%-10s sample %6u: ratio %.3f, train %.3f ms\n", name, s, rs.ratio, rs.train_ms);
		}
	}
	release(&d);
	batch_free(&b);
	return failures ? 1 : 0;
}

/* ---- baselines mode: gsst and the GPU baselines on the same bytes ---- */

static int
run_baselines(int argc, char **argv)
{
	const char *file = argv[2];
	uint64_t	bytes = strtoull(argv[3], NULL, 10);
	int			runs = 10;
	const char *tsv = NULL;
	bool		gsst = true;
	const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	batch		b = {};
	dev_batch	d;
	gsst_gpu_info info;
	std::vector<base_row> rows;
	uint8_t    *d_raw;

	for (int i = 4; i < argc; i++)
	{
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tsv") && i + 1 < argc)
			tsv = argv[++i];
		else if (!strcmp(argv[i], "--no-gsst"))
			gsst = false;
	}
	if (load_file(&b, file, bytes, bytes) != 0 || b.n == 0)
	{
		fprintf(stderr, "cannot read %s\n", file);
		return 2;
	}
	d = upload(&b);
	{
		gsst_gpu   *ctx = make_ctx(GSST_GPU_DEFAULT_SPLIT_BYTES, GSST_GPU_DEFAULT_UNIT_BYTES,
								   GSST_GPU_DEFAULT_SAMPLE_BYTES);

		gsst_gpu_get_info(ctx, &info);
		gsst_gpu_shutdown(ctx);
	}
	printf("# baselines %s: %s, %llu values, %llu bytes (device %s, %d SMs), %d runs\n", name, file,
		   (unsigned long long) b.n, (unsigned long long) d.raw, info.name, info.multiprocessors, runs);
	fflush(stdout);
	if (gsst)
	{
		bench_result r = bench_config(name, &b, &d, GSST_GPU_DEFAULT_SPLIT_BYTES, GSST_GPU_DEFAULT_UNIT_BYTES,
									  GSST_GPU_DEFAULT_SAMPLE_BYTES, runs, false, nullptr);
		base_row	g;

		g.codec = "gsst";
		g.ratio = r.ratio;
		g.enc = r.enc;
		g.dec = r.dec;
		g.extra = r.extra;
		g.exact = r.bitexact;
		rows.push_back(g);
		if (tsv)
		{
			FILE	   *f = fopen(tsv, "a+");

			fseek(f, 0, SEEK_END);
			if (ftell(f) == 0)
				fputs(TSV_HEADER_CODEC, f);
			fprintf(f, "%s\tgsst\t%s\t%llu\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%llu\t%s\n", info.name, name,
					(unsigned long long) d.raw, r.ratio, r.enc, r.enc_kernel, r.dec, r.dec_values,
					(unsigned long long) r.extra, r.bitexact.c_str());
			fclose(f);
		}
	}
	/* the baselines see the values' bytes, concatenated, in an aligned buffer */
	CK(cudaMalloc(&d_raw, d.raw + 16));
	CK(cudaMemcpy(d_raw, d.d_data + b.off[0], d.raw, cudaMemcpyDeviceToDevice));
	cudaFree(d.d_off);
	d.d_off = nullptr;
	{
		size_t		first = rows.size();

		lzss_bench_all(d_raw, b.data + b.off[0], d.raw, runs, &rows);
		if (!nvcomp_bench_all(d_raw, b.data + b.off[0], d.raw, runs, &rows))
			printf("nvcomp: not built in (bench/gpu.mk found no NVCOMP_DIR)\n");
		if (tsv)
		{
			FILE	   *f = fopen(tsv, "a+");

			fseek(f, 0, SEEK_END);
			if (ftell(f) == 0)
				fputs(TSV_HEADER_CODEC, f);
			for (size_t i = first; i < rows.size(); i++)
				fprintf(f, "%s\t%s\t%s\t%llu\t%.3f\t%.2f\t-\t%.2f\t-\t%llu\t%s\n", info.name,
						rows[i].codec.c_str(), name, (unsigned long long) d.raw, rows[i].ratio, rows[i].enc,
						rows[i].dec, (unsigned long long) rows[i].extra, rows[i].exact.c_str());
			fclose(f);
		}
	}
	printf("\n%-16s %8s %12s %12s %s\n", "codec", "ratio", "encode_GBps", "decode_GBps", "exact");
	for (const base_row &r : rows)
		printf("%-16s %8.3f %12.2f %12.2f %s\n", r.codec.c_str(), r.ratio, r.enc, r.dec, r.exact.c_str());
	cudaFree(d_raw);
	release(&d);
	batch_free(&b);
	return failures ? 1 : 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "check"))
		return run_checks(argv[2], argc > 3 ? strtoull(argv[3], NULL, 10) : 8,
						  argc > 4 && !strcmp(argv[4], "quick"));
	if (argc >= 4 && !strcmp(argv[1], "bench"))
		return run_bench(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "baselines"))
		return run_baselines(argc, argv);
	fprintf(stderr, "usage: gpu_bench check DIR [MB] | gpu_bench bench FILE BYTES [options] | "
			"gpu_bench baselines FILE BYTES [--runs N] [--tsv PATH] [--no-gsst]\n");
	return 2;
}
