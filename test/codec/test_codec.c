/*
 * test_codec.c - unit tests of the gsst codec (src/codec).
 *
 * Usage: test_codec [NAME-SUBSTRING...]
 * Runs every test (or those whose name contains one of the arguments) and
 * ends with "N passed, N failed"; exits 1 if any test failed.
 * test_codec --write-golden rewrites the golden vectors (test_golden.c).
 *
 * The dbtext data set is found through GSST_DATA_DIR, else relative to the
 * repository root or to test/codec.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "test_util.h"
#include "test_check.h"
#include "test_golden.h"
#include "tile_internal.h"

/* ------------------------------------------------------------------ */
/* the test framework                                                 */
/* ------------------------------------------------------------------ */

static const char *current_test;
static int	current_failures;

bool
check_report(bool ok, const char *file, int line, const char *fmt, ...)
{
	if (ok)
		return true;
	current_failures++;
	if (current_failures <= 25)
	{
		va_list		ap;

		fprintf(stderr, "    %s:%d: [%s] ", file, line, current_test);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	else if (current_failures == 26)
		fprintf(stderr, "    [%s] further failures not shown\n", current_test);
	return false;
}

bool
check_eq_impl(int64_t a, int64_t b, const char *as, const char *bs,
			  const char *file, int line)
{
	return check_report(a == b, file, line, "%s == %s failed: %" PRId64 " != %" PRId64,
						as, bs, a, b);
}

/* Status codes as a bit set, for checks that accept several of them. */
#define ST(code) (1u << (unsigned) -(code))

static bool
status_in(int64_t rc, unsigned set)
{
	return rc < 0 && rc > -32 && (set & ST(rc)) != 0;
}

#define CHECK_STATUS_IN(actual, set) \
	check_status_impl((int64_t) (actual), (set), #actual, __FILE__, __LINE__)

static bool
check_status_impl(int64_t actual, unsigned set, const char *expr,
				  const char *file, int line)
{
	return check_report(status_in(actual, set), file, line, "%s returned %" PRId64 " (%s), not an expected error",
						expr, actual,
						actual < 0 ? gsst_strerror((int) actual) : "no error");
}

#define CHECK_STATUS(actual, code) CHECK_STATUS_IN(actual, ST(code))

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ */
/* helpers                                                            */
/* ------------------------------------------------------------------ */

static uint64_t
read_le(const uint8_t *p, unsigned width)
{
	uint64_t	v = 0;

	for (unsigned i = 0; i < width; i++)
		v |= (uint64_t) p[i] << (8 * i);
	return v;
}

static void
write_le(uint8_t *p, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static uint64_t
symbol_from_string(const char *s)
{
	uint64_t	v = 0;

	for (unsigned i = 0; s[i] && i < 8; i++)
		v |= (uint64_t) (uint8_t) s[i] << (8 * i);
	return v;
}

/* The bucket FORMAT.md defines, computed here without the header's helper. */
static unsigned
format_bucket(uint32_t key)
{
	return (unsigned) ((uint32_t) (key * 0x9E3779B1u) >> 24);
}

/*
 * A model of the table profile, from FORMAT.md: lengths 1..8, at most 255
 * symbols, no duplicates, one long symbol per 3-byte prefix, and at most 4
 * keys per bucket of the pair and long hashes.
 */
static bool
profile_ok(const uint64_t *syms, const uint8_t *lens, size_t n)
{
	uint8_t		pair_load[256] = {0};
	uint8_t		long_load[256] = {0};

	if (n > GSST_MAX_SYMBOLS)
		return false;
	for (size_t i = 0; i < n; i++)
	{
		if (lens[i] < 1 || lens[i] > GSST_MAX_SYMBOL_LEN)
			return false;
		for (size_t j = 0; j < i; j++)
		{
			if (lens[i] == lens[j] && syms[i] == syms[j])
				return false;
			if (lens[i] >= 3 && lens[j] >= 3 &&
				(syms[i] & 0xffffff) == (syms[j] & 0xffffff))
				return false;
		}
		if (lens[i] == 2 && ++pair_load[format_bucket((uint32_t) syms[i] & 0xffff)] > 4)
			return false;
		if (lens[i] >= 3 && ++long_load[format_bucket((uint32_t) syms[i] & 0xffffff)] > 4)
			return false;
	}
	return true;
}

/* Canonical order: by length, then by bytes (memcmp). */
static int
canonical_cmp(uint64_t a, uint8_t alen, uint64_t b, uint8_t blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	for (unsigned j = 0; j < alen; j++)
	{
		uint8_t		x = (uint8_t) (a >> (8 * j));
		uint8_t		y = (uint8_t) (b >> (8 * j));

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static uint64_t
mask_of_len(unsigned len)
{
	return len >= 8 ? ~0ull : (1ull << (8 * len)) - 1;
}

/*
 * Random symbols over alphabet[0..alphabet_len) that keep the profile: a
 * candidate is kept only if the set stays valid by the same rules as
 * profile_ok (checked incrementally).  Returns the count (<= want).
 */
static size_t
random_valid_symbols(test_rng *rng, const uint8_t *alphabet, size_t alphabet_len,
					 uint64_t *syms, uint8_t *lens, size_t want)
{
	uint8_t		pair_load[256] = {0};
	uint8_t		long_load[256] = {0};
	size_t		n = 0;

	if (want > GSST_MAX_SYMBOLS)
		want = GSST_MAX_SYMBOLS;
	for (int attempt = 0; attempt < 4000 && n < want; attempt++)
	{
		/* favour short symbols, as real tables do */
		uint8_t		len = (uint8_t) (1 + (rng_below(rng, 3) ? rng_below(rng, 4) : rng_below(rng, 8)));
		uint64_t	sym = 0;
		bool		conflict = false;

		for (unsigned j = 0; j < len; j++)
			sym |= (uint64_t) alphabet[rng_below(rng, alphabet_len)] << (8 * j);
		for (size_t j = 0; j < n && !conflict; j++)
			conflict = (lens[j] == len && syms[j] == sym) ||
				(len >= 3 && lens[j] >= 3 && (syms[j] & 0xffffff) == (sym & 0xffffff));
		unsigned	bucket = format_bucket((uint32_t) (sym & (len == 2 ? 0xffff : 0xffffff)));

		if (conflict || (len == 2 && pair_load[bucket] == 4) ||
			(len >= 3 && long_load[bucket] == 4))
			continue;
		if (len == 2)
			pair_load[bucket]++;
		else if (len >= 3)
			long_load[bucket]++;
		syms[n] = sym;
		lens[n++] = len;
	}
	return n;
}

static bool
tables_equal(const gsst_table *a, const gsst_table *b)
{
	if (a->nsymbols != b->nsymbols)
		return false;
	for (unsigned c = 0; c < 256; c++)
		if (a->len[c] != b->len[c] ||
			(a->symbol[c] & mask_of_len(a->len[c])) != (b->symbol[c] & mask_of_len(b->len[c])))
			return false;
	for (unsigned l = 1; l <= GSST_MAX_SYMBOL_LEN; l++)
		if (a->count_by_len[l] != b->count_by_len[l])
			return false;
	return true;
}

/* Serialize into a fresh buffer; *len gets its size. */
static uint8_t *
serialize_table(const gsst_table *t, size_t *len)
{
	uint8_t    *buf = xmalloc(GSST_TABLE_MAX_BYTES);
	int			n = gsst_table_serialize(t, buf, GSST_TABLE_MAX_BYTES);

	*len = n < 0 ? 0 : (size_t) n;
	return buf;
}

/*
 * Encode one value with room for the worst case (every byte escaped);
 * returns a heap buffer and its code count in *codes_len.
 */
static uint8_t *
encode_alloc(const gsst_encoder *enc, const uint8_t *in, size_t len, size_t *codes_len)
{
	size_t		limit = 2 * len;
	uint8_t    *out = xmalloc(limit + GSST_ENCODE_SLACK);

	*codes_len = gsst_encode_value(enc, in, len, out, limit);
	return out;
}

/*
 * Round trip of one value through gsst_encode_value, gsst_decoded_length
 * and gsst_decode_value, with exact-size buffers.  Also compares with the
 * reference encoder when ref is given.  Returns false on the first mismatch.
 */
static bool
check_value_roundtrip(const gsst_encoder *enc, const ref_encoder *ref,
					  const uint8_t *in, size_t len)
{
	size_t		ncodes;
	uint8_t    *codes = encode_alloc(enc, in, len, &ncodes);
	bool		ok = CHECK(ncodes != (size_t) -1 && ncodes <= 2 * len);

	if (ok && ref != NULL)
	{
		uint8_t    *expect = xmalloc(2 * len);
		size_t		nexpect = ref_encode(ref, in, len, expect);

		ok = check_report(nexpect == ncodes && memcmp(expect, codes, ncodes) == 0,
						  __FILE__, __LINE__,
						  "encode of a %zu-byte value differs from the reference "
						  "(%zu vs %zu code bytes)", len, ncodes, nexpect);
		free(expect);
	}
	if (ok)
	{
		uint8_t    *exact_codes = xdup(codes, ncodes);
		uint8_t    *out = xmalloc(len);

		ok &= CHECK_EQ(gsst_decoded_length(&enc->table, exact_codes, ncodes), len);
		ok &= CHECK_EQ(gsst_decode_value(&enc->table, exact_codes, ncodes, out, len), len);
		ok = ok && check_report(len == 0 || memcmp(out, in, len) == 0, __FILE__, __LINE__,
								"decode of a %zu-byte value differs from the input", len);
		if (len > 0)
			ok &= CHECK_STATUS(gsst_decode_value(&enc->table, exact_codes, ncodes, out, len - 1),
							   GSST_ERR_SPACE);
		free(out);
		free(exact_codes);
	}
	free(codes);
	return ok;
}

static void
encoder_from_table(gsst_encoder *enc, const gsst_table *t)
{
	memset(enc, 0, sizeof(*enc));
	gsst_encoder_init(enc, t);
}

/* Train on vs and derive the encoder; false if training failed. */
static bool
train_encoder(const value_set *vs, gsst_encoder *enc)
{
	gsst_table	t;

	if (!CHECK_EQ(vs_train(vs, &t), GSST_OK))
		return false;
	encoder_from_table(enc, &t);
	return true;
}

static const char *
data_dir(void)
{
	static const char *const candidates[] = {
		"../shared/data/dbtext", "../../../shared/data/dbtext"
	};
	const char *env = getenv("GSST_DATA_DIR");
	struct stat st;

	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (stat(candidates[i], &st) == 0 && S_ISDIR(st.st_mode))
			return candidates[i];
	return candidates[0];
}

static int
cmp_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The data files of dbtext, sorted; the docs beside them are skipped. */
static size_t
list_data_files(char ***paths_out)
{
	const char *dir = data_dir();
	DIR		   *d = opendir(dir);
	size_t		n = 0;
	char	  **paths = NULL;

	*paths_out = NULL;
	if (d == NULL)
		return 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
	{
		size_t		nl = strlen(e->d_name);
		char	   *path;
		struct stat st;

		if (e->d_name[0] == '.' || strcmp(e->d_name, "SHA256SUMS") == 0 ||
			(nl > 3 && strcmp(e->d_name + nl - 3, ".md") == 0))
			continue;
		path = xmalloc(strlen(dir) + nl + 2);
		sprintf(path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		{
			free(path);
			continue;
		}
		paths = realloc(paths, sizeof(char *) * (n + 1));
		if (paths == NULL)
			abort();
		paths[n++] = path;
	}
	closedir(d);
	if (n > 1)
		qsort(paths, n, sizeof(char *), cmp_strings);
	*paths_out = paths;
	return n;
}

static void
free_paths(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* ------------------------------------------------------------------ */
/* tile helpers                                                       */
/* ------------------------------------------------------------------ */

/* Tile layout computed from the header, following FORMAT.md only. */
typedef struct tile_layout
{
	unsigned	width;
	uint64_t	nvalues;
	uint64_t	nsplits;
	uint64_t	raw_bytes;
	uint64_t	code_bytes;
	uint32_t	table_bytes;
	size_t		comp_at;
	size_t		raw_at;
	size_t		splits_at;
	size_t		codes_at;
	size_t		end;
} tile_layout;

static size_t
round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

static tile_layout
layout_of(const uint8_t *tile)
{
	tile_layout L;

	L.width = tile[5];
	L.table_bytes = (uint32_t) read_le(tile + 12, 4);
	L.nvalues = read_le(tile + 16, 8);
	L.nsplits = read_le(tile + 24, 8);
	L.raw_bytes = read_le(tile + 32, 8);
	L.code_bytes = read_le(tile + 40, 8);
	L.comp_at = round_up(GSST_TILE_HEADER_BYTES + L.table_bytes, 8);
	L.raw_at = L.comp_at + (L.nvalues + 1) * L.width;
	L.splits_at = L.raw_at + (L.nvalues + 1) * L.width;
	L.codes_at = round_up(L.splits_at + (L.nsplits + 1) * 3 * L.width, 16);
	L.end = L.codes_at + L.code_bytes;
	return L;
}

static uint64_t
layout_comp(const uint8_t *tile, const tile_layout *L, uint64_t i)
{
	return read_le(tile + L->comp_at + i * L->width, L->width);
}

static uint64_t
layout_raw(const uint8_t *tile, const tile_layout *L, uint64_t i)
{
	return read_le(tile + L->raw_at + i * L->width, L->width);
}

/* field 0: first value, 1: comp, 2: raw */
static size_t
split_field_at(const tile_layout *L, uint64_t s, unsigned field)
{
	return L->splits_at + (s * 3 + field) * L->width;
}

/* Encode vs into a fresh exact-size tile; NULL (with a failed check) on error. */
static uint8_t *
encode_tile(const gsst_encoder *enc, const value_set *vs, size_t split_bytes,
			size_t *tile_len)
{
	size_t		bound = gsst_tile_bound(vs->n, vs->bytes, split_bytes);
	uint8_t    *buf = xmalloc(bound);
	int			rc = gsst_tile_encode(enc, vs->data, vs->offsets, vs->n, split_bytes,
									  buf, bound, tile_len);

	if (!CHECK_EQ(rc, GSST_OK) || !CHECK(*tile_len <= bound))
	{
		free(buf);
		return NULL;
	}
	uint8_t    *exact = xdup(buf, *tile_len);

	free(buf);
	return exact;
}

enum
{
	TILE_VERIFY_CODES = 1,		/* tile codes equal gsst_encode_value, per value */
	TILE_VERIFY_REF = 2,		/* and gsst_encode_value equals the reference */
	TILE_ISOLATE_SPLITS = 4		/* each split alone writes only its own range */
};

/* Cumulative code lengths of the segments of one encoded value. */
typedef struct segment_prefix
{
	uint64_t	value;			/* which value, or UINT64_MAX */
	size_t		nsegments;
	size_t	   *code_before;	/* code bytes before segment k */
} segment_prefix;

static void
segment_prefix_compute(segment_prefix *sp, const gsst_encoder *enc,
					   const uint8_t *in, size_t len, uint64_t value)
{
	uint8_t    *codes = xmalloc(2 * GSST_SEGMENT_BYTES + GSST_ENCODE_SLACK);

	free(sp->code_before);
	sp->value = value;
	sp->nsegments = (len + GSST_SEGMENT_BYTES - 1) / GSST_SEGMENT_BYTES;
	sp->code_before = xmalloc(sizeof(size_t) * (sp->nsegments + 1));
	sp->code_before[0] = 0;
	for (size_t k = 0; k < sp->nsegments; k++)
	{
		size_t		seg_len = len - k * GSST_SEGMENT_BYTES;

		if (seg_len > GSST_SEGMENT_BYTES)
			seg_len = GSST_SEGMENT_BYTES;
		sp->code_before[k + 1] = sp->code_before[k] +
			gsst_encode_value(enc, in + k * GSST_SEGMENT_BYTES, seg_len, codes,
							  2 * GSST_SEGMENT_BYTES);
	}
	free(codes);
}

/* Check the split table of an opened tile against FORMAT.md. */
static bool
check_splits(const gsst_encoder *enc, const value_set *vs, const gsst_tile *tile,
			 size_t split_bytes, int flags)
{
	size_t		target = split_bytes ? split_bytes : GSST_DEFAULT_SPLIT_BYTES;
	uint64_t	S = tile->nsplits;
	uint64_t	fv, comp, raw, prev_fv = 0, prev_comp = 0, prev_raw = 0;
	segment_prefix sp = {UINT64_MAX, 0, NULL};
	bool		ok = true;

	gsst_tile_split(tile, 0, &fv, &comp, &raw);
	ok &= CHECK(fv == 0 && comp == 0 && raw == 0);
	gsst_tile_split(tile, S, &fv, &comp, &raw);
	ok &= CHECK(fv == tile->nvalues && comp == tile->code_bytes && raw == tile->raw_bytes);
	if (vs->n > 0)
		ok &= CHECK(S >= 1);
	if (target > GSST_SEGMENT_BYTES && S > 1)
		ok &= check_report(S - 1 <= tile->raw_bytes / (target - GSST_SEGMENT_BYTES),
						   __FILE__, __LINE__, "%" PRIu64 " splits for %" PRIu64
						   " raw bytes at split_bytes %zu", S, tile->raw_bytes, target);

	for (uint64_t s = 0; s <= S && ok; s++)
	{
		gsst_tile_split(tile, s, &fv, &comp, &raw);
		ok &= CHECK(fv >= prev_fv && comp >= prev_comp && raw >= prev_raw);
		if (s > 0)
			ok &= check_report(raw - prev_raw <= target + GSST_SEGMENT_BYTES,
							   __FILE__, __LINE__, "split %" PRIu64 " has %" PRIu64
							   " raw bytes (target %zu)", s - 1, raw - prev_raw, target);
		if (s == S)
			break;
		if (!CHECK(fv < tile->nvalues))
			break;

		/* The split starts at its value's start or at a segment boundary in it. */
		uint64_t	value_raw = gsst_tile_raw_offset(tile, fv);
		uint64_t	value_end = gsst_tile_raw_offset(tile, fv + 1);
		uint64_t	value_comp = gsst_tile_comp_offset(tile, fv);
		uint64_t	value_comp_len = gsst_tile_comp_offset(tile, fv + 1) - value_comp;
		uint64_t	into = raw - value_raw;

		ok &= CHECK(raw >= value_raw && (raw < value_end || raw == value_raw));
		ok &= CHECK(into % GSST_SEGMENT_BYTES == 0);
		if (value_comp_len == value_end - value_raw)
			ok &= CHECK_EQ(comp - value_comp, into);	/* stored raw */
		else if (into > 0 && (flags & TILE_VERIFY_CODES))
		{
			size_t		len;
			const uint8_t *in = vs_value(vs, fv, &len);

			if (sp.value != fv)
				segment_prefix_compute(&sp, enc, in, len, fv);
			ok &= CHECK_EQ(comp - value_comp, sp.code_before[into / GSST_SEGMENT_BYTES]);
		}
		prev_fv = fv;
		prev_comp = comp;
		prev_raw = raw;
	}
	free(sp.code_before);
	return ok;
}

/*
 * Encode vs into a tile and check everything observable about it: the
 * header, the index, the per-value codes, decode_all, every split and every
 * value decoded alone, all with exact-size buffers.
 */
static bool
check_tile(const gsst_encoder *enc, const value_set *vs, size_t split_bytes, int flags)
{
	size_t		tile_len;
	uint8_t    *tile_buf = encode_tile(enc, vs, split_bytes, &tile_len);
	gsst_tile	tile;
	bool		ok = true;
	ref_encoder ref;

	if (tile_buf == NULL)
		return false;
	ref_init(&ref, &enc->table);
	if (!CHECK_EQ(gsst_tile_open(&tile, tile_buf, tile_len), GSST_OK))
	{
		free(tile_buf);
		return false;
	}

	/* header */
	size_t		table_len;
	uint8_t    *table_bytes = serialize_table(&enc->table, &table_len);

	ok &= CHECK_EQ(tile.version, GSST_TILE_VERSION);
	ok &= CHECK_EQ(tile.segment_bytes, GSST_SEGMENT_BYTES);
	ok &= CHECK_EQ(tile.offset_width, 4);	/* small tiles use 4-byte entries */
	ok &= CHECK_EQ(tile.nvalues, vs->n);
	ok &= CHECK_EQ(tile.raw_bytes, vs->bytes);
	ok &= CHECK_EQ(tile.tile_bytes, tile_len);
	ok &= CHECK_EQ(tile.table_bytes, table_len);
	ok &= CHECK(memcmp(tile_buf + GSST_TILE_HEADER_BYTES, table_bytes, table_len) == 0);
	ok &= CHECK(tables_equal(&tile.table, &enc->table));
	free(table_bytes);

	/* index and per-value codes */
	ok &= CHECK_EQ(gsst_tile_comp_offset(&tile, 0), 0);
	ok &= CHECK_EQ(gsst_tile_raw_offset(&tile, 0), 0);
	ok &= CHECK_EQ(gsst_tile_comp_offset(&tile, vs->n), tile.code_bytes);
	for (size_t i = 0; i < vs->n && ok; i++)
	{
		size_t		len;
		const uint8_t *in = vs_value(vs, i, &len);
		uint64_t	comp_start = gsst_tile_comp_offset(&tile, i);
		uint64_t	comp_len = gsst_tile_comp_offset(&tile, i + 1) - comp_start;

		ok &= CHECK_EQ(gsst_tile_raw_offset(&tile, i + 1), vs->offsets[i + 1]);
		ok &= CHECK(comp_len <= len);
		if (!ok || !(flags & TILE_VERIFY_CODES))
			continue;

		size_t		ncodes;
		uint8_t    *codes = encode_alloc(enc, in, len, &ncodes);
		bool		encoded = ncodes < len;
		const uint8_t *expect = encoded ? codes : in;
		size_t		expect_len = encoded ? ncodes : len;

		ok &= check_report(comp_len == expect_len &&
						   memcmp(tile.codes + comp_start, expect, expect_len) == 0,
						   __FILE__, __LINE__,
						   "tile codes of value %zu (%zu bytes) differ from gsst_encode_value",
						   i, len);
		if (ok && encoded)
			ok &= check_value_roundtrip(enc, (flags & TILE_VERIFY_REF) ? &ref : NULL, in, len);
		free(codes);
	}

	/* decode_all, exact buffer, and one byte short */
	uint8_t    *out = xmalloc(vs->bytes);

	ok &= CHECK_EQ(gsst_tile_decode_all(&tile, out, vs->bytes), GSST_OK);
	ok &= check_report(vs->bytes == 0 || memcmp(out, vs->data, vs->bytes) == 0,
					   __FILE__, __LINE__, "gsst_tile_decode_all differs from the input");
	if (vs->bytes > 0)
		ok &= CHECK_STATUS(gsst_tile_decode_all(&tile, out, vs->bytes - 1), GSST_ERR_SPACE);

	/* splits: layout, then decoding in reverse order into one buffer */
	ok &= check_splits(enc, vs, &tile, split_bytes, flags);
	memset(out, 0xA5, vs->bytes);
	for (uint64_t s = tile.nsplits; s-- > 0;)
		ok &= CHECK_EQ(gsst_tile_decode_split(&tile, s, out, vs->bytes), GSST_OK);
	ok &= check_report(vs->bytes == 0 || memcmp(out, vs->data, vs->bytes) == 0,
					   __FILE__, __LINE__, "splits decoded together differ from the input");
	ok &= CHECK_STATUS(gsst_tile_decode_split(&tile, tile.nsplits, out, vs->bytes),
					   GSST_ERR_OFFSET);
	if ((flags & TILE_ISOLATE_SPLITS) && ok)
	{
		for (uint64_t s = 0; s < tile.nsplits && ok; s++)
		{
			uint64_t	fv, comp, lo, hi;

			gsst_tile_split(&tile, s, &fv, &comp, &lo);
			gsst_tile_split(&tile, s + 1, &fv, &comp, &hi);
			memset(out, 0x5A, vs->bytes);
			ok &= CHECK_EQ(gsst_tile_decode_split(&tile, s, out, vs->bytes), GSST_OK);
			for (uint64_t b = 0; b < vs->bytes && ok; b++)
			{
				uint8_t		expect = (b >= lo && b < hi) ? vs->data[b] : 0x5A;

				ok &= check_report(out[b] == expect, __FILE__, __LINE__,
								   "split %" PRIu64 " [%" PRIu64 ",%" PRIu64
								   ") wrong or wrote outside at byte %" PRIu64, s, lo, hi, b);
			}
			if (hi > lo)	/* the split's end no longer fits */
				ok &= CHECK_STATUS(gsst_tile_decode_split(&tile, s, out, hi - 1),
								   GSST_ERR_SPACE);
		}
	}
	free(out);

	/* each value alone */
	for (size_t i = 0; i < vs->n && ok; i++)
	{
		size_t		len;
		const uint8_t *in = vs_value(vs, i, &len);
		uint8_t    *one = xmalloc(len);

		ok &= CHECK_EQ(gsst_tile_decode_one(&tile, i, one, len), len);
		ok &= check_report(len == 0 || memcmp(one, in, len) == 0, __FILE__, __LINE__,
						   "gsst_tile_decode_one(%zu) differs from the input", i);
		if (len > 0)
			ok &= CHECK_STATUS(gsst_tile_decode_one(&tile, i, one, len - 1), GSST_ERR_SPACE);
		free(one);
	}
	{
		uint8_t		scratch[8];

		ok &= CHECK_STATUS(gsst_tile_decode_one(&tile, vs->n, scratch, sizeof(scratch)),
						   GSST_ERR_OFFSET);
	}
	free(tile_buf);
	return ok;
}

/* ------------------------------------------------------------------ */
/* symbol tables                                                      */
/* ------------------------------------------------------------------ */

static void
test_table_build_canonical_order(void)
{
	test_rng	rng = {1};

	for (int round = 0; round < 200; round++)
	{
		uint8_t		alphabet[256];
		size_t		alen = 2 + rng_below(&rng, 40);
		uint64_t	syms[GSST_MAX_SYMBOLS];
		uint8_t		lens[GSST_MAX_SYMBOLS];

		for (size_t i = 0; i < alen; i++)
			alphabet[i] = (uint8_t) rng_next(&rng);
		size_t		n = random_valid_symbols(&rng, alphabet, alen, syms, lens,
											 1 + rng_below(&rng, GSST_MAX_SYMBOLS));
		gsst_table	t1, t2;

		REQUIRE(CHECK_EQ(gsst_table_build(&t1, syms, lens, n), GSST_OK));

		/* the same set in another order builds the same table */
		for (size_t i = n; i > 1; i--)
		{
			size_t		j = rng_below(&rng, i);
			uint64_t	ts = syms[i - 1];
			uint8_t		tl = lens[i - 1];

			syms[i - 1] = syms[j];
			lens[i - 1] = lens[j];
			syms[j] = ts;
			lens[j] = tl;
		}
		REQUIRE(CHECK_EQ(gsst_table_build(&t2, syms, lens, n), GSST_OK));
		CHECK(tables_equal(&t1, &t2));

		CHECK_EQ(t1.nsymbols, n);
		CHECK_EQ(t1.len[GSST_ESCAPE], 0);
		unsigned	by_len[GSST_MAX_SYMBOL_LEN + 1] = {0};

		for (unsigned c = 0; c < 255; c++)
		{
			if (c >= n)
			{
				CHECK_EQ(t1.len[c], 0);
				continue;
			}
			by_len[t1.len[c]]++;
			CHECK_EQ(t1.symbol[c] & ~mask_of_len(t1.len[c]), 0);	/* zero padded */
			if (c > 0)
				CHECK(canonical_cmp(t1.symbol[c - 1], t1.len[c - 1], t1.symbol[c], t1.len[c]) < 0);
			/* every code is one of the input symbols */
			bool		found = false;

			for (size_t i = 0; i < n && !found; i++)
				found = lens[i] == t1.len[c] && syms[i] == t1.symbol[c];
			CHECK(found);
		}
		for (unsigned l = 1; l <= GSST_MAX_SYMBOL_LEN; l++)
			CHECK_EQ(t1.count_by_len[l], by_len[l]);
	}
}

/* Find `want` distinct keys of `key_bytes` bytes that share one bucket. */
static size_t
keys_in_one_bucket(unsigned key_bytes, uint64_t *keys, size_t want)
{
	uint32_t	limit = key_bytes == 2 ? 0x10000u : 0x1000000u;

	for (unsigned bucket = 0; bucket < 256; bucket++)
	{
		size_t		n = 0;

		for (uint32_t key = 0; key < limit && n < want; key++)
			if (format_bucket(key) == bucket)
				keys[n++] = key;
		if (n == want)
			return n;
	}
	return 0;
}

static void
test_table_build_rejects(void)
{
	gsst_table	t;
	uint64_t	syms[300];
	uint8_t		lens[300];

	/* duplicates */
	syms[0] = symbol_from_string("ab");
	syms[1] = symbol_from_string("x");
	syms[2] = symbol_from_string("ab");
	lens[0] = 2, lens[1] = 1, lens[2] = 2;
	CHECK_STATUS(gsst_table_build(&t, syms, lens, 3), GSST_ERR_BAD_TABLE);
	CHECK_EQ(gsst_table_build(&t, syms, lens, 2), GSST_OK);

	/* lengths outside 1..8 */
	lens[1] = 0;
	CHECK_STATUS(gsst_table_build(&t, syms, lens, 2), GSST_ERR_BAD_TABLE);
	lens[1] = 9;
	CHECK_STATUS(gsst_table_build(&t, syms, lens, 2), GSST_ERR_BAD_TABLE);

	/* two long symbols with one 3-byte prefix */
	const char *const prefix_pairs[][2] = {
		{"abc", "abcd"}, {"abcdefgh", "abcxyz"}, {"abcde", "abcdf"}, {"xyz", "xyzxyzxy"}
	};

	for (size_t k = 0; k < sizeof(prefix_pairs) / sizeof(prefix_pairs[0]); k++)
	{
		syms[0] = symbol_from_string(prefix_pairs[k][0]);
		syms[1] = symbol_from_string(prefix_pairs[k][1]);
		lens[0] = (uint8_t) strlen(prefix_pairs[k][0]);
		lens[1] = (uint8_t) strlen(prefix_pairs[k][1]);
		CHECK_STATUS(gsst_table_build(&t, syms, lens, 2), GSST_ERR_BAD_TABLE);
		CHECK_EQ(gsst_table_build(&t, syms, lens, 1), GSST_OK);
	}
	/* a 2-byte symbol and a long one with the same start are fine */
	syms[0] = symbol_from_string("ab");
	syms[1] = symbol_from_string("abc");
	syms[2] = symbol_from_string("a");
	lens[0] = 2, lens[1] = 3, lens[2] = 1;
	CHECK_EQ(gsst_table_build(&t, syms, lens, 3), GSST_OK);

	/* pair hash: 4 per bucket are fine, 5 are not */
	uint64_t	keys[5];

	REQUIRE(keys_in_one_bucket(2, keys, 5) == 5);
	for (int i = 0; i < 5; i++)
		syms[i] = keys[i], lens[i] = 2;
	CHECK_EQ(gsst_table_build(&t, syms, lens, 4), GSST_OK);
	CHECK_STATUS(gsst_table_build(&t, syms, lens, 5), GSST_ERR_BAD_TABLE);

	/* long hash: the same, with symbols of assorted lengths 3..8 */
	REQUIRE(keys_in_one_bucket(3, keys, 5) == 5);
	for (int i = 0; i < 5; i++)
	{
		lens[i] = (uint8_t) (3 + i);
		syms[i] = keys[i] | ((uint64_t) 0x6161616161ull << 24);
		syms[i] &= mask_of_len(lens[i]);
	}
	CHECK_EQ(gsst_table_build(&t, syms, lens, 4), GSST_OK);
	CHECK_STATUS(gsst_table_build(&t, syms, lens, 5), GSST_ERR_BAD_TABLE);

	/* at most 255 symbols: all 256 single bytes are one too many */
	for (int i = 0; i < 256; i++)
		syms[i] = (uint64_t) i, lens[i] = 1;
	CHECK_EQ(gsst_table_build(&t, syms, lens, 255), GSST_OK);
	CHECK_EQ(t.nsymbols, 255);
	CHECK_STATUS_IN(gsst_table_build(&t, syms, lens, 256),
					ST(GSST_ERR_BAD_TABLE) | ST(GSST_ERR_ARG));

	/* the empty table is valid: every byte is escaped */
	CHECK_EQ(gsst_table_build(&t, syms, lens, 0), GSST_OK);
	CHECK_EQ(t.nsymbols, 0);
}

/* Random sets, often invalid: gsst_table_build agrees with the model. */
static void
test_table_build_agrees_with_profile_model(void)
{
	test_rng	rng = {2};
	int			accepted = 0,
				rejected = 0;

	for (int round = 0; round < 3000; round++)
	{
		uint64_t	syms[GSST_MAX_SYMBOLS + 1];
		uint8_t		lens[GSST_MAX_SYMBOLS + 1];
		size_t		n = rng_below(&rng, 3) == 0 ? rng_below(&rng, 256) : rng_below(&rng, 24);
		size_t		alen = 2 + rng_below(&rng, 6);
		gsst_table	t;

		for (size_t i = 0; i < n; i++)
		{
			lens[i] = (uint8_t) (1 + rng_below(&rng, 8));
			if (rng_below(&rng, 50) == 0)
				lens[i] = rng_below(&rng, 2) ? 0 : 9;
			syms[i] = 0;
			for (unsigned j = 0; j < lens[i] && j < 8; j++)
				syms[i] |= (uint64_t) ('a' + rng_below(&rng, alen)) << (8 * j);
		}
		bool		valid = profile_ok(syms, lens, n);
		int			rc = gsst_table_build(&t, syms, lens, n);

		if (!check_report(valid == (rc == GSST_OK), __FILE__, __LINE__,
						  "round %d: build returned %d, the profile model says %s",
						  round, rc, valid ? "valid" : "invalid"))
			return;
		if (valid)
			accepted++;
		else
		{
			CHECK_STATUS_IN(rc, ST(GSST_ERR_BAD_TABLE) | ST(GSST_ERR_ARG));
			rejected++;
		}
	}
	/* the generator must exercise both outcomes */
	CHECK(accepted > 300 && rejected > 300);
}

/* The serialized bytes, checked field by field against FORMAT.md. */
static void
check_serialized_layout(const gsst_table *t, const uint8_t *buf, size_t len)
{
	size_t		expect_len = 10;

	CHECK_EQ(buf[0], GSST_TABLE_VERSION);
	CHECK_EQ(buf[1], 0);
	for (unsigned l = 1; l <= 8; l++)
	{
		CHECK_EQ(buf[1 + l], t->count_by_len[l]);
		expect_len += (size_t) l * t->count_by_len[l];
	}
	CHECK_EQ(len, expect_len);
	size_t		pos = 10;

	for (unsigned c = 0; c < t->nsymbols && pos + t->len[c] <= len; c++)
	{
		for (unsigned j = 0; j < t->len[c]; j++)
			CHECK_EQ(buf[pos + j], ref_symbol_byte(t, c, j));
		pos += t->len[c];
	}
}

static void
check_table_serialization(const gsst_table *t)
{
	size_t		len;
	uint8_t    *buf = serialize_table(t, &len);
	gsst_table	loaded;
	size_t		consumed = 0;

	CHECK(len >= 10 && len <= GSST_TABLE_MAX_BYTES);
	CHECK_EQ(gsst_table_serialized_size(t), len);
	check_serialized_layout(t, buf, len);

	uint8_t    *exact = xdup(buf, len);

	CHECK_EQ(gsst_table_load(&loaded, exact, len, &consumed), GSST_OK);
	CHECK_EQ(consumed, len);
	CHECK(tables_equal(&loaded, t));

	size_t		len2;
	uint8_t    *buf2 = serialize_table(&loaded, &len2);

	CHECK(len2 == len && memcmp(buf, buf2, len) == 0);

	/* trailing bytes are not part of the table */
	uint8_t    *longer = xmalloc(len + 7);

	memcpy(longer, buf, len);
	memset(longer + len, 0xEE, 7);
	CHECK_EQ(gsst_table_load(&loaded, longer, len + 7, &consumed), GSST_OK);
	CHECK_EQ(consumed, len);

	/* serialize into a buffer one byte short */
	uint8_t    *short_buf = xmalloc(len - 1);

	CHECK(gsst_table_serialize(t, short_buf, len - 1) < 0);
	free(short_buf);
	free(longer);
	free(buf2);
	free(exact);
	free(buf);
}

static void
test_table_serialize_roundtrip(void)
{
	test_rng	rng = {3};
	gsst_table	t;

	CHECK_EQ(gsst_table_build(&t, NULL, NULL, 0), GSST_OK);
	check_table_serialization(&t);
	for (int round = 0; round < 300; round++)
	{
		uint8_t		alphabet[256];
		size_t		alen = 1 + rng_below(&rng, 256);
		uint64_t	syms[GSST_MAX_SYMBOLS];
		uint8_t		lens[GSST_MAX_SYMBOLS];

		for (size_t i = 0; i < alen; i++)
			alphabet[i] = (uint8_t) rng_next(&rng);
		size_t		n = random_valid_symbols(&rng, alphabet, alen, syms, lens,
											 rng_below(&rng, GSST_MAX_SYMBOLS + 1));

		REQUIRE(CHECK_EQ(gsst_table_build(&t, syms, lens, n), GSST_OK));
		check_table_serialization(&t);
		if (current_failures)
			return;
	}
}

/* A valid serialized table with symbols of every length 1..8. */
static uint8_t *
sample_serialized_table(size_t *len, gsst_table *t)
{
	static const char *const syms_text[] = {
		"e", "t", " ", "th", "he", "in", "the", "ing", "tion", "ation",
		"street", "http://", "www.exam"
	};
	uint64_t	syms[16];
	uint8_t		lens[16];
	size_t		n = sizeof(syms_text) / sizeof(syms_text[0]);

	for (size_t i = 0; i < n; i++)
	{
		syms[i] = symbol_from_string(syms_text[i]);
		lens[i] = (uint8_t) strlen(syms_text[i]);
	}
	if (gsst_table_build(t, syms, lens, n) != GSST_OK)
		return NULL;
	return serialize_table(t, len);
}

static void
test_table_load_rejects(void)
{
	gsst_table	t, loaded;
	size_t		len, consumed;
	uint8_t    *good = sample_serialized_table(&len, &t);

	REQUIRE(good != NULL && len > 10);
	REQUIRE(CHECK_EQ(gsst_table_load(&loaded, good, len, &consumed), GSST_OK));

	/* every proper prefix is truncated (exact-size copies) */
	for (size_t k = 0; k < len; k++)
	{
		uint8_t    *prefix = xdup(good, k);

		CHECK_STATUS(gsst_table_load(&loaded, prefix, k, &consumed), GSST_ERR_TRUNCATED);
		free(prefix);
	}

	uint8_t    *bad = xmalloc(len);

#define RESET_BAD() memcpy(bad, good, len)

	/* unknown versions */
	RESET_BAD();
	bad[0] = 0;
	CHECK_STATUS(gsst_table_load(&loaded, bad, len, &consumed), GSST_ERR_VERSION);
	bad[0] = 2;
	CHECK_STATUS(gsst_table_load(&loaded, bad, len, &consumed), GSST_ERR_VERSION);
	bad[0] = 0xff;
	CHECK_STATUS(gsst_table_load(&loaded, bad, len, &consumed), GSST_ERR_VERSION);

	/* flags must be 0 */
	RESET_BAD();
	bad[1] = 1;
	CHECK_STATUS_IN(gsst_table_load(&loaded, bad, len, &consumed),
					ST(GSST_ERR_BAD_TABLE) | ST(GSST_ERR_VERSION));

	/* more than 255 symbols in the counts */
	{
		uint8_t		many[10 + 255 + 2] = {GSST_TABLE_VERSION, 0, 255, 1, 0, 0, 0, 0, 0, 0};

		for (int i = 0; i < 255; i++)
			many[10 + i] = (uint8_t) i;
		many[10 + 255] = 'z';
		many[10 + 256] = 'z';
		CHECK_STATUS_IN(gsst_table_load(&loaded, many, sizeof(many), &consumed),
						ST(GSST_ERR_BAD_TABLE));
		/* 255 single bytes alone are valid */
		many[3] = 0;
		CHECK_EQ(gsst_table_load(&loaded, many, 10 + 255, &consumed), GSST_OK);
		CHECK_EQ(loaded.nsymbols, 255);
		/* all counts at 255: the sum overflows a byte, still too many */
		uint8_t		huge_counts[10] = {GSST_TABLE_VERSION, 0, 255, 255, 255, 255, 255, 255, 255, 255};

		CHECK_STATUS_IN(gsst_table_load(&loaded, huge_counts, sizeof(huge_counts), &consumed),
						ST(GSST_ERR_BAD_TABLE) | ST(GSST_ERR_TRUNCATED));
	}

	/* not in canonical order: swap the two single-byte symbols " " and "e" */
	RESET_BAD();
	REQUIRE(t.count_by_len[1] == 3);
	bad[10] = good[11];
	bad[11] = good[10];
	CHECK_STATUS(gsst_table_load(&loaded, bad, len, &consumed), GSST_ERR_BAD_TABLE);

	/* a duplicate: second single byte equal to the first */
	RESET_BAD();
	bad[11] = bad[10];
	CHECK_STATUS(gsst_table_load(&loaded, bad, len, &consumed), GSST_ERR_BAD_TABLE);

	/* same 3-byte prefix: a table "abc" + "abcd", ordered canonically */
	{
		const uint8_t two_long[] = {GSST_TABLE_VERSION, 0, 0, 0, 1, 1, 0, 0, 0, 0,
		'a', 'b', 'c', 'a', 'b', 'c', 'd'};

		CHECK_STATUS(gsst_table_load(&loaded, two_long, sizeof(two_long), &consumed),
					 GSST_ERR_BAD_TABLE);
	}

	/* overfull buckets, serialized by hand in canonical order */
	for (unsigned key_bytes = 2; key_bytes <= 3; key_bytes++)
	{
		uint64_t	keys[5];
		uint8_t		buf[10 + 5 * 3] = {GSST_TABLE_VERSION, 0};
		uint64_t	sorted[5];

		REQUIRE(keys_in_one_bucket(key_bytes, keys, 5) == 5);
		memcpy(sorted, keys, sizeof(keys));
		/* canonical order is memcmp order of the little-endian bytes */
		for (int i = 0; i < 5; i++)
			for (int j = i + 1; j < 5; j++)
				if (canonical_cmp(sorted[j], (uint8_t) key_bytes, sorted[i], (uint8_t) key_bytes) < 0)
				{
					uint64_t	tmp = sorted[i];

					sorted[i] = sorted[j];
					sorted[j] = tmp;
				}
		buf[1 + key_bytes] = 5;
		for (int i = 0; i < 5; i++)
			write_le(buf + 10 + i * key_bytes, key_bytes, sorted[i]);
		CHECK_STATUS(gsst_table_load(&loaded, buf, 10 + 5 * key_bytes, &consumed),
					 GSST_ERR_BAD_TABLE);
		/* four of them are fine (drop the last one) */
		buf[1 + key_bytes] = 4;
		CHECK_EQ(gsst_table_load(&loaded, buf, 10 + 4 * key_bytes, &consumed), GSST_OK);
	}
#undef RESET_BAD
	free(bad);
	free(good);
}

/* Mutated tables: whatever loads is valid by the model and re-serializes. */
static void
test_table_load_mutations(void)
{
	test_rng	rng = {4};
	gsst_table	t, loaded;
	size_t		len, consumed;
	uint8_t    *good = sample_serialized_table(&len, &t);
	int			loads = 0;

	REQUIRE(good != NULL);
	for (int round = 0; round < 20000; round++)
	{
		uint8_t    *m = xdup(good, len);
		int			edits = 1 + (int) rng_below(&rng, 3);

		for (int e = 0; e < edits; e++)
		{
			size_t		pos = rng_below(&rng, len);

			m[pos] = rng_below(&rng, 2) ? (uint8_t) rng_next(&rng) : (uint8_t) (m[pos] ^ (1u << rng_below(&rng, 8)));
		}
		int			rc = gsst_table_load(&loaded, m, len, &consumed);

		if (rc == GSST_OK)
		{
			loads++;
			uint64_t	syms[256];
			uint8_t		lens[256];
			size_t		len2;
			uint8_t    *again = serialize_table(&loaded, &len2);

			CHECK(consumed <= len && len2 == consumed && memcmp(again, m, consumed) == 0);
			for (unsigned c = 0; c < loaded.nsymbols; c++)
				syms[c] = loaded.symbol[c], lens[c] = loaded.len[c];
			CHECK(profile_ok(syms, lens, loaded.nsymbols));
			free(again);
		}
		else
			CHECK(rc < 0 && rc >= GSST_ERR_ARG);
		free(m);
		if (current_failures)
			break;
	}
	CHECK(loads > 100);			/* some mutations must stay valid */
	free(good);
}

/* ------------------------------------------------------------------ */
/* encode / decode of single values                                   */
/* ------------------------------------------------------------------ */

/* Random tables from random alphabets against the reference encoder. */
static void
test_encode_matches_reference(void)
{
	test_rng	rng = {5};

	for (int round = 0; round < 400 && !current_failures; round++)
	{
		uint8_t		alphabet[256];
		size_t		alen = rng_below(&rng, 4) == 0 ? 256 : 2 + rng_below(&rng, 12);
		uint64_t	syms[GSST_MAX_SYMBOLS];
		uint8_t		lens[GSST_MAX_SYMBOLS];
		gsst_table	t;
		gsst_encoder enc;
		ref_encoder ref;

		for (size_t i = 0; i < alen; i++)
			alphabet[i] = alen == 256 ? (uint8_t) i : (uint8_t) rng_next(&rng);
		size_t		n = random_valid_symbols(&rng, alphabet, alen, syms, lens,
											 rng_below(&rng, GSST_MAX_SYMBOLS + 1));

		REQUIRE(CHECK_EQ(gsst_table_build(&t, syms, lens, n), GSST_OK));
		encoder_from_table(&enc, &t);
		ref_init(&ref, &t);
		CHECK(tables_equal(&enc.table, &t));

		for (int v = 0; v < 12; v++)
		{
			size_t		len = rng_below(&rng, 4) == 0 ? rng_below(&rng, 10000) : rng_below(&rng, 64);
			uint8_t    *in = xmalloc(len);

			/* mostly the alphabet (many matches), some stray bytes (escapes) */
			for (size_t i = 0; i < len; i++)
				in[i] = rng_below(&rng, 16) ? alphabet[rng_below(&rng, alen)] : (uint8_t) rng_next(&rng);
			check_value_roundtrip(&enc, &ref, in, len);
			free(in);
		}
	}
}

static void
test_encode_empty_table(void)
{
	gsst_table	t;
	gsst_encoder enc;
	uint8_t		in[256], out[512 + GSST_ENCODE_SLACK];

	REQUIRE(CHECK_EQ(gsst_table_build(&t, NULL, NULL, 0), GSST_OK));
	encoder_from_table(&enc, &t);
	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t) i;
	REQUIRE(CHECK_EQ(gsst_encode_value(&enc, in, 256, out, 512), 512));
	for (int i = 0; i < 256; i++)
		CHECK(out[2 * i] == GSST_ESCAPE && out[2 * i + 1] == i);
	check_value_roundtrip(&enc, NULL, in, 256);
	CHECK_EQ(gsst_encode_value(&enc, in, 0, out, 0), 0);
}

/* Every code and every escaped byte decodes to what the table says. */
static void
test_decode_every_code(void)
{
	uint64_t	syms[255];
	uint8_t		lens[255];
	gsst_table	t;

	/* 255 symbols: 200 single bytes 0..199, then longer symbols of 200..255 */
	test_rng	rng = {20};
	uint8_t		high[56];
	uint64_t	more_syms[255];
	uint8_t		more_lens[255];
	size_t		n = 0;

	for (int b = 0; b < 200; b++)
		syms[n] = (uint64_t) b, lens[n++] = 1;
	for (int b = 0; b < 56; b++)
		high[b] = (uint8_t) (200 + b);
	size_t		more = random_valid_symbols(&rng, high, 56, more_syms, more_lens, 255);

	for (size_t k = 0; k < more && n < 255; k++)
		if (more_lens[k] >= 2)
			syms[n] = more_syms[k], lens[n++] = more_lens[k];
	REQUIRE(CHECK_EQ(n, 255));
	REQUIRE(CHECK_EQ(gsst_table_build(&t, syms, lens, n), GSST_OK));

	uint8_t		codes[255 + 512];
	uint8_t		expect[255 * 8 + 256];
	size_t		ncodes = 0,
				nexpect = 0;

	for (unsigned c = 0; c < 255; c++)
	{
		codes[ncodes++] = (uint8_t) c;
		for (unsigned j = 0; j < t.len[c]; j++)
			expect[nexpect++] = ref_symbol_byte(&t, c, j);
	}
	for (unsigned b = 0; b < 256; b++)
	{
		codes[ncodes++] = GSST_ESCAPE;
		codes[ncodes++] = (uint8_t) b;
		expect[nexpect++] = (uint8_t) b;
	}
	uint8_t    *in = xdup(codes, ncodes);
	uint8_t    *out = xmalloc(nexpect);

	CHECK_EQ(gsst_decoded_length(&t, in, ncodes), nexpect);
	CHECK_EQ(gsst_decode_value(&t, in, ncodes, out, nexpect), nexpect);
	CHECK(memcmp(out, expect, nexpect) == 0);
	/* each code alone, into an exact buffer */
	for (unsigned c = 0; c < 255; c++)
	{
		uint8_t    *one_in = xdup(&codes[c], 1);
		uint8_t    *one_out = xmalloc(t.len[c]);

		CHECK_EQ(gsst_decode_value(&t, one_in, 1, one_out, t.len[c]), t.len[c]);
		CHECK_EQ(read_le(one_out, t.len[c]), t.symbol[c]);
		free(one_out);
		free(one_in);
	}
	free(out);
	free(in);
}

static void
test_decode_errors(void)
{
	gsst_table	t;
	size_t		len;
	uint8_t    *ser = sample_serialized_table(&len, &t);
	uint8_t		out[64];

	REQUIRE(ser != NULL && t.nsymbols < 200);
	free(ser);

	struct
	{
		uint8_t		codes[4];
		size_t		len;
		int			status;
	}			cases[] = {
		{{(uint8_t) t.nsymbols}, 1, GSST_ERR_BAD_CODE},	/* first unused code */
		{{254}, 1, GSST_ERR_BAD_CODE},	/* last unused code */
		{{0, 1, 200}, 3, GSST_ERR_BAD_CODE},
		{{GSST_ESCAPE}, 1, GSST_ERR_DANGLING_ESCAPE},
		{{0, GSST_ESCAPE}, 2, GSST_ERR_DANGLING_ESCAPE},
		{{GSST_ESCAPE, 7, 1, GSST_ESCAPE}, 4, GSST_ERR_DANGLING_ESCAPE},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
	{
		uint8_t    *in = xdup(cases[k].codes, cases[k].len);

		CHECK_STATUS(gsst_decoded_length(&t, in, cases[k].len), cases[k].status);
		CHECK_STATUS(gsst_decode_value(&t, in, cases[k].len, out, sizeof(out)), cases[k].status);
		free(in);
	}

	/* empty input decodes to nothing */
	CHECK_EQ(gsst_decoded_length(&t, out, 0), 0);
	CHECK_EQ(gsst_decode_value(&t, out, 0, out, 0), 0);

	/* output too small, for long symbols (the 8-byte store path) and escapes */
	for (unsigned c = 0; c < t.nsymbols; c++)
	{
		uint8_t		codes[6] = {(uint8_t) c, (uint8_t) c, GSST_ESCAPE, 'x', (uint8_t) c, (uint8_t) c};
		uint8_t    *in = xdup(codes, sizeof(codes));
		size_t		total = 4 * (size_t) t.len[c] + 1;

		for (size_t cap = 0; cap <= total; cap++)
		{
			uint8_t    *o = xmalloc(cap);
			int64_t		rc = gsst_decode_value(&t, in, sizeof(codes), o, cap);

			if (cap < total)
				CHECK_STATUS(rc, GSST_ERR_SPACE);
			else
				CHECK_EQ(rc, total);
			free(o);
		}
		free(in);
	}
}

/* out_limit: exactly enough succeeds, one byte less fails, slack respected. */
static void
test_encode_out_limit(void)
{
	test_rng	rng = {6};
	value_set	vs;
	gsst_encoder enc;

	vs_init(&vs);
	for (int i = 0; i < 400; i++)
	{
		size_t		len = 10 + rng_below(&rng, 60);

		rng_text(&rng, vs_push(&vs, len), len);
	}
	if (!train_encoder(&vs, &enc))
	{
		vs_free(&vs);
		return;
	}
	for (int round = 0; round < 300; round++)
	{
		size_t		len = rng_below(&rng, 3) ? rng_below(&rng, 100) : rng_below(&rng, 9000);
		uint8_t    *in = xmalloc(len);

		if (round % 2)
			rng_text(&rng, in, len);
		else
			rng_fill(&rng, in, len);
		size_t		need;
		uint8_t    *full = encode_alloc(&enc, in, len, &need);

		REQUIRE(need != (size_t) -1);
		uint8_t    *exact = xmalloc(need + GSST_ENCODE_SLACK);

		CHECK_EQ(gsst_encode_value(&enc, in, len, exact, need), need);
		CHECK(memcmp(exact, full, need) == 0);
		free(exact);
		if (need > 0)
		{
			uint8_t    *small = xmalloc(need - 1 + GSST_ENCODE_SLACK);

			CHECK(gsst_encode_value(&enc, in, len, small, need - 1) == (size_t) -1);
			free(small);
			/* the tile's question: is it shorter than the raw bytes? */
			uint8_t    *raw_limit = xmalloc(len + GSST_ENCODE_SLACK);
			size_t		r = gsst_encode_value(&enc, in, len, raw_limit, len);

			CHECK(need <= len ? r == need : r == (size_t) -1);
			free(raw_limit);
		}
		free(full);
		free(in);
	}
	vs_free(&vs);
}

/* The table built below has "abcdefgh", "abcd"-free pairs and single bytes. */
static void
test_segment_restart(void)
{
	const char *const syms_text[] = {"a", "b", "c", "d", "x", "ab", "cd", "abcdefgh", "efg"};
	uint64_t	syms[9];
	uint8_t		lens[9];
	gsst_table	t;
	gsst_encoder enc;
	ref_encoder ref;

	for (int i = 0; i < 9; i++)
		syms[i] = symbol_from_string(syms_text[i]), lens[i] = (uint8_t) strlen(syms_text[i]);
	REQUIRE(CHECK_EQ(gsst_table_build(&t, syms, lens, 9), GSST_OK));
	encoder_from_table(&enc, &t);
	ref_init(&ref, &t);

	/* "abcdefgh" placed at every offset around the first segment boundary */
	for (size_t at = GSST_SEGMENT_BYTES - 9; at <= GSST_SEGMENT_BYTES + 1; at++)
	{
		size_t		len = GSST_SEGMENT_BYTES + 16;
		uint8_t    *in = xmalloc(len);
		uint8_t    *expect = xmalloc(2 * len);
		uint8_t    *unsegmented = xmalloc(2 * len);

		memset(in, 'x', len);
		memcpy(in + at, "abcdefgh", 8);
		size_t		n_expect = ref_encode(&ref, in, len, expect);
		size_t		n_unseg = ref_encode_segmented(&ref, in, len, SIZE_MAX, unsegmented);
		bool		straddles = at < GSST_SEGMENT_BYTES && at + 8 > GSST_SEGMENT_BYTES;

		/* the test is only meaningful if the cut changes the codes */
		CHECK(straddles == (n_expect != n_unseg || memcmp(expect, unsegmented, n_expect) != 0));
		check_value_roundtrip(&enc, &ref, in, len);
		free(unsegmented);
		free(expect);
		free(in);
	}
}

/*
 * Values of 0 bytes to several MB: round trip, the codes of a long value are
 * the concatenation of the codes of its 4096-byte segments, and (up to
 * 64 KB) identical to the reference encoder.
 */
static void
test_value_sizes(void)
{
	static const size_t sizes[] = {
		0, 1, 2, 7, 8, 9, 15, 16, 17, 4095, 4096, 4097, 8192 + 3, 3 * 4096,
		65536 + 5, 1 << 20, 5 << 20
	};
	test_rng	rng = {7};
	value_set	sample;
	gsst_encoder enc;
	ref_encoder ref;

	vs_init(&sample);
	for (int i = 0; i < 2000; i++)
	{
		size_t		len = 5 + rng_below(&rng, 40);

		rng_text(&rng, vs_push(&sample, len), len);
	}
	if (!train_encoder(&sample, &enc))
	{
		vs_free(&sample);
		return;
	}
	ref_init(&ref, &enc.table);

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (int kind = 0; kind < 2; kind++)
		{
			size_t		len = sizes[k];
			uint8_t    *in = xmalloc(len);

			if (kind == 0)
				rng_text(&rng, in, len);
			else
				rng_fill(&rng, in, len);
			check_value_roundtrip(&enc, len <= 65536 + 5 ? &ref : NULL, in, len);

			/* segment by segment gives the same codes */
			size_t		ncodes;
			uint8_t    *codes = encode_alloc(&enc, in, len, &ncodes);
			uint8_t    *seg_codes = xmalloc(2 * GSST_SEGMENT_BYTES + GSST_ENCODE_SLACK);
			size_t		pos = 0;
			bool		same = ncodes != (size_t) -1;

			for (size_t off = 0; off < len && same; off += GSST_SEGMENT_BYTES)
			{
				size_t		seg_len = len - off < GSST_SEGMENT_BYTES ? len - off : GSST_SEGMENT_BYTES;
				size_t		n = gsst_encode_value(&enc, in + off, seg_len, seg_codes,
												  2 * GSST_SEGMENT_BYTES);

				same = n != (size_t) -1 && pos + n <= ncodes && memcmp(codes + pos, seg_codes, n) == 0;
				pos += n;
			}
			check_report(same && pos == ncodes, __FILE__, __LINE__,
						 "codes of a %zu-byte %s value are not its segments' codes",
						 len, kind ? "random" : "text");
			if (kind == 0 && len >= 4096)
				CHECK(ncodes < len);	/* the trained table compresses its kind of text */
			free(seg_codes);
			free(codes);
			free(in);
		}
	vs_free(&sample);
}

/* ------------------------------------------------------------------ */
/* training                                                           */
/* ------------------------------------------------------------------ */

static void
check_trained_table_valid(const gsst_table *t)
{
	uint64_t	syms[256];
	uint8_t		lens[256];

	CHECK(t->nsymbols <= GSST_MAX_SYMBOLS);
	for (unsigned c = 0; c < t->nsymbols; c++)
		syms[c] = t->symbol[c], lens[c] = t->len[c];
	CHECK(profile_ok(syms, lens, t->nsymbols));
	check_table_serialization(t);
}

/*
 * Train twice on vs and compare the serialized tables and the tiles.  With
 * dirty_scratch the second run gets scratch memory full of garbage, as a
 * reused palloc chunk would be: the API does not ask for zeroed scratch.
 */
static void
check_training_deterministic(const value_set *vs, bool dirty_scratch)
{
	const uint8_t **ptrs = xmalloc(sizeof(*ptrs) * vs->n);
	size_t	   *lens = xmalloc(sizeof(*lens) * vs->n);
	size_t		work_bytes = gsst_train_work_bytes();
	void	   *work1 = xmalloc(work_bytes);
	void	   *work2 = xmalloc(work_bytes);
	gsst_table	t1, t2;

	for (size_t i = 0; i < vs->n; i++)
		ptrs[i] = vs_value(vs, i, &lens[i]);
	memset(work1, 0, work_bytes);
	memset(work2, dirty_scratch ? 0xA7 : 0, work_bytes);
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0xC3, sizeof(t2));
	CHECK_EQ(gsst_train(&t1, ptrs, lens, vs->n, work1), GSST_OK);
	/* the portable matcher must give the AVX-512 one's table */
	gsst_encode_simd_disabled = 1;
	CHECK_EQ(gsst_train(&t2, ptrs, lens, vs->n, work2), GSST_OK);
	gsst_encode_simd_disabled = 0;

	size_t		len1, len2;
	uint8_t    *s1 = serialize_table(&t1, &len1);
	uint8_t    *s2 = serialize_table(&t2, &len2);

	CHECK(len1 > 0 && len1 == len2 && memcmp(s1, s2, len1) == 0);
	CHECK(tables_equal(&t1, &t2));
	check_trained_table_valid(&t1);

	/* a third run on the scratch memory the first one left behind */
	gsst_table	t3;

	CHECK_EQ(gsst_train(&t3, ptrs, lens, vs->n, work1), GSST_OK);
	CHECK(tables_equal(&t1, &t3));

	/* same table and values: same tile bytes */
	gsst_encoder e1, e2;

	encoder_from_table(&e1, &t1);
	memset(&e2, 0x3C, sizeof(e2));
	gsst_encoder_init(&e2, &t2);
	size_t		tl1, tl2;
	uint8_t    *tile1 = encode_tile(&e1, vs, 0, &tl1);
	uint8_t    *tile2 = encode_tile(&e2, vs, 0, &tl2);

	CHECK(tile1 && tile2 && tl1 == tl2 && memcmp(tile1, tile2, tl1) == 0);
	free(tile2);
	free(tile1);
	free(s2);
	free(s1);
	free(work2);
	free(work1);
	free(lens);
	free(ptrs);
}

static void
generated_training_sets(value_set *text, value_set *binary)
{
	test_rng	rng = {8};

	vs_init(text);
	vs_init(binary);
	for (int i = 0; i < 5000; i++)
	{
		size_t		len = rng_below(&rng, 80);

		rng_text(&rng, vs_push(text, len), len);
		len = rng_below(&rng, 30);
		rng_fill(&rng, vs_push(binary, len), len);
	}
}

static void
test_training_determinism(void)
{
	value_set	text, binary;

	generated_training_sets(&text, &binary);
	check_training_deterministic(&text, false);
	check_training_deterministic(&binary, false);

	char	  **paths;
	size_t		nfiles = list_data_files(&paths);

	for (size_t f = 0; f < nfiles && f < 3; f++)
	{
		value_set	vs;

		if (CHECK_EQ(vs_load_lines(&vs, paths[f]), 0))
		{
			check_training_deterministic(&vs, false);
			vs_free(&vs);
		}
	}
	free_paths(paths, nfiles);
	vs_free(&binary);
	vs_free(&text);
}

/*
 * gsst_train_generations: any count in range gives a valid table that
 * round-trips; the default count gives gsst_train's table; out of range is
 * an argument error.
 */
static void
test_training_generations(void)
{
	static const int counts[] = {1, 2, 3, 5, 12, GSST_TRAIN_MAX_GENERATIONS};
	value_set	text, binary;
	gsst_table	t,
				dflt;
	gsst_encoder enc;
	void	   *work = xmalloc(gsst_train_work_bytes());
	const uint8_t *one = (const uint8_t *) "abc";
	size_t		one_len = 3;

	CHECK_EQ(gsst_train_generations(&t, &one, &one_len, 1, work, 0), GSST_ERR_ARG);
	CHECK_EQ(gsst_train_generations(&t, &one, &one_len, 1, work,
									GSST_TRAIN_MAX_GENERATIONS + 1), GSST_ERR_ARG);
	free(work);
	generated_training_sets(&text, &binary);
	CHECK_EQ(vs_train(&text, &dflt), GSST_OK);
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
	{
		if (!CHECK_EQ(vs_train_generations(&text, &t, counts[k]), GSST_OK))
			continue;
		check_trained_table_valid(&t);
		CHECK(t.nsymbols > 0);	/* the last generation is always scored */
		encoder_from_table(&enc, &t);
		check_tile(&enc, &text, 0, TILE_VERIFY_CODES);
		if (counts[k] == GSST_TRAIN_GENERATIONS)
			CHECK(t.nsymbols == dflt.nsymbols &&
				  memcmp(t.symbol, dflt.symbol, sizeof(t.symbol)) == 0 &&
				  memcmp(t.len, dflt.len, sizeof(t.len)) == 0);
	}
	vs_free(&binary);
	vs_free(&text);
}

/* Scratch memory full of garbage must not change (or hang) training. */
static void
test_training_dirty_scratch(void)
{
	value_set	text, binary;

	alarm(20);					/* a hang fails this test fast (runner reports it) */
	generated_training_sets(&text, &binary);
	check_training_deterministic(&text, true);
	check_training_deterministic(&binary, true);

	/*
	 * Scratch that held a finished training and was then reused for other
	 * data, all but its first bytes (as freed and reallocated heap memory
	 * can be): whatever gsst_train left there must not be trusted.
	 */
	const uint8_t **ptrs = xmalloc(sizeof(*ptrs) * text.n);
	size_t	   *lens = xmalloc(sizeof(*lens) * text.n);
	size_t		work_bytes = gsst_train_work_bytes();
	uint8_t    *work = xmalloc(work_bytes);
	gsst_table	first, again;

	for (size_t i = 0; i < text.n; i++)
		ptrs[i] = vs_value(&text, i, &lens[i]);
	memset(work, 0, work_bytes);
	CHECK_EQ(gsst_train(&first, ptrs, lens, text.n, work), GSST_OK);
	for (size_t skip = 8; skip <= 64; skip *= 2)
	{
		memset(work + skip, 0xA7, work_bytes - skip);
		CHECK_EQ(gsst_train(&again, ptrs, lens, text.n, work), GSST_OK);
		CHECK(tables_equal(&first, &again));
	}
	free(work);
	free(lens);
	free(ptrs);
	vs_free(&binary);
	vs_free(&text);
}

/* Degenerate training inputs still give a usable table. */
static void
test_training_edge_cases(void)
{
	void	   *work = xmalloc(gsst_train_work_bytes());
	gsst_table	t;
	gsst_encoder enc;
	int			rc;

	rc = gsst_train(&t, NULL, NULL, 0, work);
	CHECK(rc == GSST_OK || rc == GSST_ERR_ARG);
	if (rc == GSST_OK)
		check_trained_table_valid(&t);

	struct
	{
		const char *what;
		size_t		nvalues;
		size_t		len;
		int			fill;		/* byte value, or -1 for a ramp over all bytes */
	}			cases[] = {
		{"empty values", 100, 0, 0},
		{"one 1-byte value", 1, 1, 'q'},
		{"one byte repeated", 3, 1 << 20, 'a'},
		{"every byte value", 50, 256, -1},
		{"NUL bytes", 100, 33, 0},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
	{
		value_set	vs;

		vs_init(&vs);
		for (size_t i = 0; i < cases[k].nvalues; i++)
		{
			uint8_t    *v = vs_push(&vs, cases[k].len);

			for (size_t j = 0; j < cases[k].len; j++)
				v[j] = (uint8_t) (cases[k].fill < 0 ? (j + i) & 0xff : (size_t) cases[k].fill);
		}
		if (check_report(vs_train(&vs, &t) == GSST_OK, __FILE__, __LINE__,
						 "training on %s failed", cases[k].what))
		{
			check_trained_table_valid(&t);
			encoder_from_table(&enc, &t);
			check_tile(&enc, &vs, 0, TILE_VERIFY_CODES | TILE_VERIFY_REF);
		}
		vs_free(&vs);
	}
	free(work);
}

/* ------------------------------------------------------------------ */
/* round trips on data                                                */
/* ------------------------------------------------------------------ */

static void
test_roundtrip_dbtext(void)
{
	char	  **paths;
	size_t		nfiles = list_data_files(&paths);

	if (!check_report(nfiles > 0, __FILE__, __LINE__,
					  "no data files in %s (set GSST_DATA_DIR)", data_dir()))
		return;
	for (size_t f = 0; f < nfiles; f++)
	{
		value_set	vs;
		gsst_encoder enc;

		if (!CHECK_EQ(vs_load_lines(&vs, paths[f]), 0))
			continue;
		if (train_encoder(&vs, &enc))
		{
			check_trained_table_valid(&enc.table);
			if (!check_tile(&enc, &vs, 0, TILE_VERIFY_CODES | TILE_VERIFY_REF))
				fprintf(stderr, "    (file %s)\n", paths[f]);
		}
		vs_free(&vs);
	}
	printf("    %zu data files from %s\n", nfiles, data_dir());
	free_paths(paths, nfiles);
}

/* Random binary values: every byte value, empty values, any length. */
static void
test_roundtrip_binary(void)
{
	test_rng	rng = {9};
	value_set	vs;
	gsst_encoder enc;

	vs_init(&vs);
	uint8_t    *all = vs_push(&vs, 256);

	for (int b = 0; b < 256; b++)
		all[b] = (uint8_t) b;
	for (int i = 0; i < 20000; i++)
	{
		size_t		len = rng_below(&rng, 5) == 0 ? 0 : rng_below(&rng, 3) ? rng_below(&rng, 24) : rng_below(&rng, 6000);
		uint8_t    *v = vs_push(&vs, len);

		/* skewed bytes so that training finds something worth a symbol */
		for (size_t j = 0; j < len; j++)
			v[j] = rng_below(&rng, 2) ? (uint8_t) rng_next(&rng) : (uint8_t) (rng_below(&rng, 4) * 3);
	}
	vs_add(&vs, "", 0);
	if (train_encoder(&vs, &enc))
	{
		check_trained_table_valid(&enc.table);
		check_tile(&enc, &vs, 0, TILE_VERIFY_CODES | TILE_VERIFY_REF);
	}

	/* a text table on binary data: mostly escapes, stored raw in the tile */
	value_set	text;

	vs_init(&text);
	for (int i = 0; i < 1000; i++)
	{
		size_t		len = 8 + rng_below(&rng, 50);

		rng_text(&rng, vs_push(&text, len), len);
	}
	if (train_encoder(&text, &enc))
	{
		check_tile(&enc, &vs, 0, TILE_VERIFY_CODES | TILE_VERIFY_REF);
		check_tile(&enc, &text, 1000, TILE_VERIFY_CODES | TILE_VERIFY_REF | TILE_ISOLATE_SPLITS);
	}
	vs_free(&text);
	vs_free(&vs);
}

/* ------------------------------------------------------------------ */
/* tiles                                                              */
/* ------------------------------------------------------------------ */

/* A text encoder trained on generated text, for tile tests. */
static bool
text_encoder(gsst_encoder *enc, uint64_t seed)
{
	test_rng	rng = {seed};
	value_set	vs;
	bool		ok;

	vs_init(&vs);
	for (int i = 0; i < 3000; i++)
	{
		size_t		len = 3 + rng_below(&rng, 60);

		rng_text(&rng, vs_push(&vs, len), len);
	}
	ok = train_encoder(&vs, enc);
	vs_free(&vs);
	return ok;
}

static void
test_tile_zero_and_one_value(void)
{
	gsst_encoder enc;
	value_set	vs;
	test_rng	rng = {10};
	static const size_t one_sizes[] = {0, 1, 9, 4096, 4097, 100000, 300000};

	REQUIRE(text_encoder(&enc, 11));
	vs_init(&vs);
	check_tile(&enc, &vs, 0, TILE_VERIFY_CODES | TILE_ISOLATE_SPLITS);
	vs_free(&vs);

	for (size_t k = 0; k < sizeof(one_sizes) / sizeof(one_sizes[0]); k++)
		for (int kind = 0; kind < 2; kind++)
		{
			vs_init(&vs);
			uint8_t    *v = vs_push(&vs, one_sizes[k]);

			if (kind == 0)
				rng_text(&rng, v, one_sizes[k]);
			else
				rng_fill(&rng, v, one_sizes[k]);
			if (!check_tile(&enc, &vs, 0, TILE_VERIFY_CODES | TILE_VERIFY_REF | TILE_ISOLATE_SPLITS))
				fprintf(stderr, "    (one %s value of %zu bytes)\n", kind ? "random" : "text", one_sizes[k]);
			vs_free(&vs);
		}
}

static void
test_tile_million_values(void)
{
	gsst_encoder enc;
	value_set	vs;
	test_rng	rng = {12};

	REQUIRE(text_encoder(&enc, 13));
	vs_init(&vs);
	for (int i = 0; i < 1000000; i++)
	{
		size_t		len = rng_below(&rng, 10) == 0 ? 0 : rng_below(&rng, 12);

		rng_text(&rng, vs_push(&vs, len), len);
	}
	check_tile(&enc, &vs, 0, TILE_VERIFY_CODES);
	vs_free(&vs);
}

/* Mixed value sizes under several split sizes. */
static void
test_tile_split_sizes(void)
{
	static const size_t split_sizes[] = {1, 100, 4095, 4096, 10000, 32768, 0, 1 << 20};
	gsst_encoder enc;
	value_set	vs;
	test_rng	rng = {14};

	REQUIRE(text_encoder(&enc, 15));
	vs_init(&vs);
	for (int i = 0; i < 600; i++)
	{
		size_t		len = rng_below(&rng, 40) == 0 ? rng_below(&rng, 30000) : rng_below(&rng, 100);

		if (rng_below(&rng, 10) == 0)
			rng_fill(&rng, vs_push(&vs, len), len);
		else
			rng_text(&rng, vs_push(&vs, len), len);
	}
	for (size_t k = 0; k < sizeof(split_sizes) / sizeof(split_sizes[0]); k++)
		if (!check_tile(&enc, &vs, split_sizes[k], TILE_VERIFY_CODES | TILE_ISOLATE_SPLITS))
			fprintf(stderr, "    (split_bytes %zu)\n", split_sizes[k]);
	vs_free(&vs);
}

/* A small tile with encoded values, raw values and an empty one. */
static uint8_t *
small_tile(gsst_encoder *enc, size_t *tile_len, value_set *vs)
{
	test_rng	rng = {16};

	if (!text_encoder(enc, 17))
		return NULL;
	vs_init(vs);
	for (int i = 0; i < 12; i++)
	{
		size_t		len = i == 5 ? 0 : 10 + rng_below(&rng, 40);

		if (i % 4 == 3)
			rng_fill(&rng, vs_push(vs, len), len);	/* stored raw */
		else
			rng_text(&rng, vs_push(vs, len), len);
	}
	rng_text(&rng, vs_push(vs, 9000), 9000);	/* 3 segments */
	return encode_tile(enc, vs, 256, tile_len);
}

/* The pointers of gsst_tile_open match the layout derived from FORMAT.md. */
static void
test_tile_layout(void)
{
	gsst_encoder enc;
	value_set	vs;
	size_t		len;
	uint8_t    *buf = small_tile(&enc, &len, &vs);
	gsst_tile	tile;

	REQUIRE(buf != NULL);
	tile_layout L = layout_of(buf);

	CHECK_EQ(read_le(buf, 4), GSST_TILE_MAGIC);
	CHECK(memcmp(buf, "GSTL", 4) == 0);
	CHECK_EQ(buf[4], GSST_TILE_VERSION);
	CHECK_EQ(read_le(buf + 6, 2), 0);
	CHECK_EQ(read_le(buf + 8, 4), GSST_SEGMENT_BYTES);
	CHECK_EQ(L.end, len);
	REQUIRE(CHECK_EQ(gsst_tile_open(&tile, buf, len), GSST_OK));
	CHECK(tile.comp_offsets == buf + L.comp_at);
	CHECK(tile.raw_offsets == buf + L.raw_at);
	CHECK(tile.splits == buf + L.splits_at);
	CHECK(tile.codes == buf + L.codes_at);
	CHECK_EQ(tile.nsplits, L.nsplits);
	CHECK_EQ(tile.code_bytes, L.code_bytes);
	for (size_t p = GSST_TILE_HEADER_BYTES + L.table_bytes; p < L.comp_at; p++)
		CHECK_EQ(buf[p], 0);
	for (size_t p = L.splits_at + (L.nsplits + 1) * 3 * L.width; p < L.codes_at; p++)
		CHECK_EQ(buf[p], 0);
	for (uint64_t i = 0; i <= L.nvalues; i++)
	{
		CHECK_EQ(layout_comp(buf, &L, i), gsst_tile_comp_offset(&tile, i));
		CHECK_EQ(layout_raw(buf, &L, i), gsst_tile_raw_offset(&tile, i));
	}
	for (uint64_t s = 0; s <= L.nsplits; s++)
	{
		uint64_t	fv, comp, raw;

		gsst_tile_split(&tile, s, &fv, &comp, &raw);
		CHECK_EQ(read_le(buf + split_field_at(&L, s, 0), L.width), fv);
		CHECK_EQ(read_le(buf + split_field_at(&L, s, 1), L.width), comp);
		CHECK_EQ(read_le(buf + split_field_at(&L, s, 2), L.width), raw);
	}
	/* the 9000-byte value spans several splits at split_bytes 256 */
	CHECK(L.nsplits >= 3);
	free(buf);
	vs_free(&vs);
}

/*
 * Capacity of gsst_tile_encode: gsst_tile_bound always suffices; below the
 * tile's size it fails with GSST_ERR_SPACE; in between (the encoder may want
 * working room) it either fails so or gives the same bytes.  Exact-size
 * buffers let ASan catch any write past cap.
 */
static void
test_tile_encode_space(void)
{
	gsst_encoder enc;
	value_set	vs;
	size_t		len, got;
	uint8_t    *good = small_tile(&enc, &len, &vs);

	REQUIRE(good != NULL);
	size_t		bound = gsst_tile_bound(vs.n, vs.bytes, 256);

	CHECK(bound >= len);
	for (size_t cap = 0; cap <= bound; cap += 1 + cap / 16)
	{
		uint8_t    *buf = xmalloc(cap);
		int			rc = gsst_tile_encode(&enc, vs.data, vs.offsets, vs.n, 256, buf, cap, &got);

		if (cap < len)
			CHECK_STATUS(rc, GSST_ERR_SPACE);
		else if (rc != GSST_ERR_SPACE)
			CHECK(rc == GSST_OK && got == len && memcmp(buf, good, len) == 0);
		free(buf);
	}
	uint8_t    *buf = xmalloc(bound);

	CHECK_EQ(gsst_tile_encode(&enc, vs.data, vs.offsets, vs.n, 256, buf, bound, &got), GSST_OK);
	CHECK(got == len && memcmp(buf, good, len) == 0);
	free(buf);
	free(good);
	vs_free(&vs);
}

/*
 * Rewrite a tile with 8-byte index entries (FORMAT.md allows W = 8 at any
 * size); the reader must give the same values.
 */
static uint8_t *
widen_tile(const uint8_t *tile, size_t *len)
{
	tile_layout L = layout_of(tile);
	tile_layout W = L;

	W.width = 8;
	W.raw_at = W.comp_at + (W.nvalues + 1) * 8;
	W.splits_at = W.raw_at + (W.nvalues + 1) * 8;
	W.codes_at = round_up(W.splits_at + (W.nsplits + 1) * 24, 16);
	W.end = W.codes_at + W.code_bytes;

	uint8_t    *out = xmalloc(W.end);

	memset(out, 0, W.end);
	memcpy(out, tile, L.comp_at);
	out[5] = 8;
	for (uint64_t i = 0; i <= L.nvalues; i++)
	{
		write_le(out + W.comp_at + i * 8, 8, layout_comp(tile, &L, i));
		write_le(out + W.raw_at + i * 8, 8, layout_raw(tile, &L, i));
	}
	for (uint64_t k = 0; k < (L.nsplits + 1) * 3; k++)
		write_le(out + W.splits_at + k * 8, 8, read_le(tile + L.splits_at + k * L.width, L.width));
	memcpy(out + W.codes_at, tile + L.codes_at, L.code_bytes);
	*len = W.end;
	return out;
}

static void
test_tile_wide_offsets(void)
{
	gsst_encoder enc;
	value_set	vs;
	size_t		len, wide_len;
	uint8_t    *narrow = small_tile(&enc, &len, &vs);
	gsst_tile	tile;

	REQUIRE(narrow != NULL);
	uint8_t    *wide = widen_tile(narrow, &wide_len);

	REQUIRE(CHECK_EQ(gsst_tile_open(&tile, wide, wide_len), GSST_OK));
	CHECK_EQ(tile.offset_width, 8);
	uint8_t    *out = xmalloc(vs.bytes);

	CHECK_EQ(gsst_tile_decode_all(&tile, out, vs.bytes), GSST_OK);
	CHECK(memcmp(out, vs.data, vs.bytes) == 0);
	memset(out, 0, vs.bytes);
	for (uint64_t s = 0; s < tile.nsplits; s++)
		CHECK_EQ(gsst_tile_decode_split(&tile, s, out, vs.bytes), GSST_OK);
	CHECK(memcmp(out, vs.data, vs.bytes) == 0);
	for (size_t i = 0; i < vs.n; i++)
	{
		size_t		vlen;
		const uint8_t *v = vs_value(&vs, i, &vlen);

		CHECK_EQ(gsst_tile_decode_one(&tile, i, out, vs.bytes), vlen);
		CHECK(memcmp(out, v, vlen) == 0);
	}
	free(out);
	free(wide);
	free(narrow);
	vs_free(&vs);
}

/*
 * The tile must be rejected with a status in `set`: by gsst_tile_open, or,
 * for errors inside the codes, by the decoders that touch them.
 */
static bool
expect_tile_rejected(const uint8_t *buf, size_t len, unsigned set, bool open_must_fail,
					 const char *what)
{
	uint8_t    *exact = xdup(buf, len);
	gsst_tile	tile;
	int			rc = gsst_tile_open(&tile, exact, len);
	bool		ok;

	if (rc != GSST_OK || open_must_fail)
		ok = check_report(status_in(rc, set), __FILE__, __LINE__,
						  "%s: gsst_tile_open returned %d (%s)", what, rc,
						  rc < 0 ? gsst_strerror(rc) : "accepted the tile");
	else
	{
		uint8_t    *out = xmalloc(tile.raw_bytes);
		int			all = gsst_tile_decode_all(&tile, out, tile.raw_bytes);
		int			one_rc = GSST_OK;

		for (uint64_t i = 0; i < tile.nvalues && one_rc >= 0; i++)
		{
			int64_t		r = gsst_tile_decode_one(&tile, i, out, tile.raw_bytes);

			if (r < 0)
				one_rc = (int) r;
		}
		ok = check_report(status_in(all, set) && status_in(one_rc, set),
						  __FILE__, __LINE__,
						  "%s: tile opened, decode_all gave %d, decode_one %d", what, all, one_rc);
		free(out);
	}
	free(exact);
	return ok;
}

static void
test_tile_hostile(void)
{
	gsst_encoder enc;
	value_set	vs;
	size_t		len;
	uint8_t    *good = small_tile(&enc, &len, &vs);

	REQUIRE(good != NULL);
	tile_layout L = layout_of(good);
	uint8_t    *bad = xmalloc(len + 16);
	gsst_tile	tile;

	REQUIRE(CHECK_EQ(gsst_tile_open(&tile, good, len), GSST_OK));
	REQUIRE(L.width == 4 && L.nsplits >= 3);

	/* Which values are stored encoded (codes shorter than raw)? */
	uint64_t	encoded_value = UINT64_MAX,
				raw_value = UINT64_MAX;

	for (uint64_t i = 0; i < L.nvalues; i++)
	{
		uint64_t	cl = layout_comp(good, &L, i + 1) - layout_comp(good, &L, i);
		uint64_t	rl = layout_raw(good, &L, i + 1) - layout_raw(good, &L, i);

		if (cl < rl && encoded_value == UINT64_MAX && rl < 100)
			encoded_value = i;
		if (cl == rl && rl > 0 && raw_value == UINT64_MAX)
			raw_value = i;
	}
	REQUIRE(encoded_value != UINT64_MAX && raw_value != UINT64_MAX);

#define RESET_BAD() memcpy(bad, good, len)
#define REJECT_OPEN(set, what) expect_tile_rejected(bad, len, (set), true, (what))
#define REJECT(set, what) expect_tile_rejected(bad, len, (set), false, (what))

	/* every proper prefix */
	for (size_t k = 0; k < len; k++)
		if (!expect_tile_rejected(good, k, ST(GSST_ERR_TRUNCATED), true, "truncated tile"))
		{
			fprintf(stderr, "    (prefix of %zu of %zu bytes)\n", k, len);
			break;
		}
	/* one byte too many */
	memcpy(bad, good, len);
	bad[len] = 0;
	CHECK(expect_tile_rejected(bad, len + 1, ST(GSST_ERR_LENGTH), true, "trailing byte"));

	RESET_BAD();
	bad[0] ^= 1;
	REJECT_OPEN(ST(GSST_ERR_VERSION), "bad magic");
	RESET_BAD();
	bad[4] = 2;
	REJECT_OPEN(ST(GSST_ERR_VERSION), "version 2");
	RESET_BAD();
	bad[4] = 0;
	REJECT_OPEN(ST(GSST_ERR_VERSION), "version 0");
	for (unsigned w = 0; w < 16; w++)
		if (w != 4 && w != 8)
		{
			RESET_BAD();
			bad[5] = (uint8_t) w;
			REJECT_OPEN(ST(GSST_ERR_VERSION) | ST(GSST_ERR_LENGTH), "index width");
		}
	RESET_BAD();
	bad[6] = 1;
	REJECT_OPEN(ST(GSST_ERR_VERSION), "flags");
	RESET_BAD();
	write_le(bad + 8, 4, 8192);
	REJECT_OPEN(ST(GSST_ERR_VERSION) | ST(GSST_ERR_LENGTH), "segment bytes");

	/* the serialized table: wrong size, bad version, broken order */
	RESET_BAD();
	write_le(bad + 12, 4, L.table_bytes + 8);
	REJECT_OPEN(ST(GSST_ERR_LENGTH) | ST(GSST_ERR_TRUNCATED) | ST(GSST_ERR_BAD_TABLE), "table size + 8");
	RESET_BAD();
	write_le(bad + 12, 4, L.table_bytes - 1);
	REJECT_OPEN(ST(GSST_ERR_LENGTH) | ST(GSST_ERR_TRUNCATED) | ST(GSST_ERR_BAD_TABLE), "table size - 1");
	RESET_BAD();
	write_le(bad + 12, 4, 0xffffffffu);
	REJECT_OPEN(ST(GSST_ERR_LENGTH) | ST(GSST_ERR_TRUNCATED) | ST(GSST_ERR_BAD_TABLE) |
				ST(GSST_ERR_VERSION), "table size 2^32-1");
	RESET_BAD();
	bad[GSST_TILE_HEADER_BYTES] = 9;
	REJECT_OPEN(ST(GSST_ERR_VERSION), "table version");

	/* header counts that do not match the rest */
	static const struct
	{
		size_t		at;
		int64_t		delta;
		const char *what;
	}			counts[] = {
		{16, 1, "N + 1"}, {16, -1, "N - 1"}, {24, 1, "S + 1"}, {24, -1, "S - 1"},
		{32, 1, "R + 1"}, {32, -1, "R - 1"}, {40, 1, "C + 1"}, {40, -1, "C - 1"},
		{16, (int64_t) 1 << 62, "N huge"}, {24, (int64_t) 1 << 62, "S huge"},
		{32, (int64_t) 1 << 40, "R huge"}, {40, (int64_t) 1 << 40, "C huge"},
	};

	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
	{
		RESET_BAD();
		write_le(bad + counts[k].at, 8, read_le(good + counts[k].at, 8) + (uint64_t) counts[k].delta);
		REJECT_OPEN(ST(GSST_ERR_TRUNCATED) | ST(GSST_ERR_LENGTH) | ST(GSST_ERR_OFFSET),
					counts[k].what);
	}

	/* the index: comp and raw offsets out of range or decreasing */
	RESET_BAD();
	write_le(bad + L.comp_at, 4, 1);
	REJECT_OPEN(ST(GSST_ERR_OFFSET), "comp[0] != 0");
	RESET_BAD();
	write_le(bad + L.raw_at, 4, 1);
	REJECT_OPEN(ST(GSST_ERR_OFFSET), "raw[0] != 0");
	RESET_BAD();
	write_le(bad + L.comp_at + 4 * L.nvalues, 4, L.code_bytes + 1);
	REJECT_OPEN(ST(GSST_ERR_OFFSET) | ST(GSST_ERR_LENGTH), "comp[N] != C");
	RESET_BAD();
	write_le(bad + L.raw_at + 4 * L.nvalues, 4, L.raw_bytes - 1);
	REJECT_OPEN(ST(GSST_ERR_OFFSET) | ST(GSST_ERR_LENGTH), "raw[N] != R");
	{
		/* swap the starts of two values: decreasing offsets */
		uint64_t	i = 3;
		uint64_t	c3 = layout_comp(good, &L, i), c4 = layout_comp(good, &L, i + 1);
		uint64_t	r3 = layout_raw(good, &L, i), r4 = layout_raw(good, &L, i + 1);

		RESET_BAD();
		write_le(bad + L.comp_at + 4 * i, 4, c4);
		write_le(bad + L.comp_at + 4 * (i + 1), 4, c3);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "comp decreasing");
		RESET_BAD();
		write_le(bad + L.raw_at + 4 * i, 4, r4);
		write_le(bad + L.raw_at + 4 * (i + 1), 4, r3);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "raw decreasing");
		RESET_BAD();
		write_le(bad + L.comp_at + 4 * (i + 1), 4, 0xfffffff0u);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "comp out of range");
		RESET_BAD();
		write_le(bad + L.raw_at + 4 * (i + 1), 4, 0xfffffff0u);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "raw out of range");
	}

	/* a value whose codes are longer than its raw bytes */
	{
		uint64_t	i = encoded_value;
		uint64_t	r_start = layout_raw(good, &L, i);
		uint64_t	c_len = layout_comp(good, &L, i + 1) - layout_comp(good, &L, i);

		RESET_BAD();
		/* shrink its raw length below its code length (the next value grows) */
		write_le(bad + L.raw_at + 4 * (i + 1), 4, r_start + c_len - 1);
		REJECT(ST(GSST_ERR_LENGTH) | ST(GSST_ERR_OFFSET), "codes longer than raw");
		/* raw length one less than the codes decode to */
		RESET_BAD();
		write_le(bad + L.raw_at + 4 * (i + 1), 4, layout_raw(good, &L, i + 1) - 1);
		REJECT(ST(GSST_ERR_LENGTH) | ST(GSST_ERR_OFFSET), "raw length - 1");
	}

	/* code errors inside an encoded value */
	{
		uint64_t	c_start = layout_comp(good, &L, encoded_value);
		uint64_t	c_end = layout_comp(good, &L, encoded_value + 1);
		uint8_t    *codes = bad + L.codes_at;

		if (enc.table.nsymbols < 255)
		{
			RESET_BAD();
			codes[c_start] = (uint8_t) enc.table.nsymbols;
			REJECT(ST(GSST_ERR_BAD_CODE), "unused code");
		}
		RESET_BAD();
		codes[c_end - 1] = GSST_ESCAPE;
		/* the escape may then be preceded by another escape: find one that dangles */
		if (c_end - c_start >= 2 && codes[c_end - 2] == GSST_ESCAPE)
			codes[c_end - 2] = 0;
		REJECT(ST(GSST_ERR_DANGLING_ESCAPE) | ST(GSST_ERR_LENGTH), "dangling escape");
	}

	/* the split table */
	{
		uint64_t	s = 1;

		RESET_BAD();
		write_le(bad + split_field_at(&L, 0, 2), 4, 1);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "split 0 raw != 0");
		RESET_BAD();
		write_le(bad + split_field_at(&L, L.nsplits, 0), 4, L.nvalues - 1);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "last split value != N");
		RESET_BAD();
		write_le(bad + split_field_at(&L, L.nsplits, 1), 4, L.code_bytes - 1);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "last split comp != C");
		RESET_BAD();
		write_le(bad + split_field_at(&L, s, 0), 4, L.nvalues + 5);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "split value beyond N");
		RESET_BAD();
		write_le(bad + split_field_at(&L, s, 2), 4, read_le(good + split_field_at(&L, s, 2), 4) + 1);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "split raw not at a value start");
		RESET_BAD();
		write_le(bad + split_field_at(&L, s, 1), 4, read_le(good + split_field_at(&L, s, 1), 4) + 1);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "split comp not at its value");
		/* swap splits 1 and 2: decreasing */
		RESET_BAD();
		memcpy(bad + split_field_at(&L, 1, 0), good + split_field_at(&L, 2, 0), 12);
		memcpy(bad + split_field_at(&L, 2, 0), good + split_field_at(&L, 1, 0), 12);
		REJECT_OPEN(ST(GSST_ERR_OFFSET), "splits decreasing");

		/*
		 * A split inside the 9000-byte value (the last one) at a segment
		 * boundary: its comp offset must be where that segment's codes start.
		 */
		uint64_t	big = L.nvalues - 1;

		for (uint64_t k = 1; k < L.nsplits; k++)
		{
			uint64_t	fv = read_le(good + split_field_at(&L, k, 0), 4);
			uint64_t	raw = read_le(good + split_field_at(&L, k, 2), 4);

			if (fv == big && raw > layout_raw(good, &L, big))
			{
				/*
				 * Rejected by gsst_tile_open, or else by the decoders of the
				 * two splits it bounds: never wrong bytes returned silently.
				 */
				unsigned	set = ST(GSST_ERR_OFFSET) | ST(GSST_ERR_LENGTH) |
					ST(GSST_ERR_BAD_CODE) | ST(GSST_ERR_DANGLING_ESCAPE);

				RESET_BAD();
				write_le(bad + split_field_at(&L, k, 1), 4, read_le(good + split_field_at(&L, k, 1), 4) + 1);
				uint8_t    *exact = xdup(bad, len);
				int			rc = gsst_tile_open(&tile, exact, len);

				if (rc == GSST_OK)
				{
					uint8_t    *out = xmalloc(tile.raw_bytes);
					int			rc_k = gsst_tile_decode_split(&tile, k, out, tile.raw_bytes);
					int			rc_prev = gsst_tile_decode_split(&tile, k - 1, out, tile.raw_bytes);

					check_report(status_in(rc_k, set) || status_in(rc_prev, set), __FILE__, __LINE__,
								 "split comp off by one inside a value: open and both "
								 "split decoders accepted it (%d, %d)", rc_k, rc_prev);
					free(out);
				}
				else
					CHECK_STATUS_IN(rc, set);
				free(exact);
				break;
			}
		}
	}

	/* a value stored raw: equal lengths mean verbatim, whatever the bytes */
	{
		uint64_t	c_start = layout_comp(good, &L, raw_value);

		RESET_BAD();
		bad[L.codes_at + c_start] = GSST_ESCAPE;
		uint8_t    *exact = xdup(bad, len);

		if (CHECK_EQ(gsst_tile_open(&tile, exact, len), GSST_OK))
		{
			uint64_t	rl = layout_raw(good, &L, raw_value + 1) - layout_raw(good, &L, raw_value);
			uint8_t    *out = xmalloc(rl);

			CHECK_EQ(gsst_tile_decode_one(&tile, raw_value, out, rl), rl);
			CHECK_EQ(out[0], GSST_ESCAPE);
			free(out);
		}
		free(exact);
	}
#undef REJECT
#undef REJECT_OPEN
#undef RESET_BAD
	free(bad);
	free(good);
	vs_free(&vs);
}

/*
 * Random corruption: never a crash (ASan/UBSan builds), and when a tile
 * opens, all decoders agree with each other.
 */
static void
test_tile_mutations(void)
{
	gsst_encoder enc;
	value_set	vs;
	size_t		len;
	uint8_t    *good = small_tile(&enc, &len, &vs);
	test_rng	rng = {18};
	int			opened = 0;

	REQUIRE(good != NULL);
	tile_layout L = layout_of(good);

	for (int round = 0; round < 20000 && !current_failures; round++)
	{
		uint8_t    *m = xdup(good, len);
		int			edits = 1 + (int) rng_below(&rng, 3);

		for (int e = 0; e < edits; e++)
		{
			/*
			 * a third of the edits aim at the index, where lengths must add
			 * up, a third at the codes, where two of them can cancel out
			 * inside a value that a split cuts
			 */
			unsigned	aim = (unsigned) rng_below(&rng, 3);
			size_t		pos = aim == 0 ? rng_below(&rng, len) :
				aim == 1 ? L.comp_at + rng_below(&rng, L.codes_at - L.comp_at) :
				L.codes_at + rng_below(&rng, L.end - L.codes_at);

			m[pos] = rng_below(&rng, 2) ? (uint8_t) rng_next(&rng) : (uint8_t) (m[pos] + (rng_below(&rng, 2) ? 1 : -1));
		}
		gsst_tile	tile;

		if (gsst_tile_open(&tile, m, len) != GSST_OK)
		{
			free(m);
			continue;
		}
		opened++;
		CHECK(tile.raw_bytes <= 8 * tile.code_bytes);	/* a code gives at most 8 bytes */
		uint8_t    *all = xmalloc(tile.raw_bytes);
		uint8_t    *by_split = xmalloc(tile.raw_bytes);
		uint8_t    *by_value = xmalloc(tile.raw_bytes);
		bool		all_ok = gsst_tile_decode_all(&tile, all, tile.raw_bytes) == GSST_OK;
		bool		splits_ok = true,
					values_ok = true;

		for (uint64_t s = 0; s < tile.nsplits; s++)
			splits_ok &= gsst_tile_decode_split(&tile, s, by_split, tile.raw_bytes) == GSST_OK;
		for (uint64_t i = 0; i < tile.nvalues; i++)
		{
			uint64_t	r0 = gsst_tile_raw_offset(&tile, i);
			uint64_t	rl = gsst_tile_raw_offset(&tile, i + 1) - r0;
			uint8_t    *one = xmalloc(rl);
			int64_t		got = gsst_tile_decode_one(&tile, i, one, rl);

			if (got >= 0 && CHECK_EQ(got, rl))
				memcpy(by_value + r0, one, rl);
			else
				values_ok = false;
			free(one);
		}
		/* an open tile is valid to every decoder, or to none */
		CHECK(all_ok == values_ok);
		CHECK(all_ok == splits_ok);
		if (all_ok && values_ok)
			CHECK(tile.raw_bytes == 0 || memcmp(all, by_value, tile.raw_bytes) == 0);
		if (all_ok && splits_ok)
			CHECK(tile.raw_bytes == 0 || memcmp(all, by_split, tile.raw_bytes) == 0);
		free(by_value);
		free(by_split);
		free(all);
		free(m);
	}
	CHECK(opened > 20);			/* e.g. edits of a raw value's bytes still open */
	free(good);
	vs_free(&vs);
}

/* ------------------------------------------------------------------ */
/* datum header                                                       */
/* ------------------------------------------------------------------ */

/* LEB128 written here, independently of the codec. */
static size_t
leb128(uint64_t v, uint8_t *out)
{
	size_t		n = 0;

	do
	{
		uint8_t		b = v & 0x7f;

		v >>= 7;
		out[n++] = (uint8_t) (b | (v ? 0x80 : 0));
	} while (v);
	return n;
}

static void
test_datum_header_roundtrip(void)
{
	test_rng	rng = {19};

	for (int k = 0; k < 5000; k++)
	{
		uint32_t	id;

		if (k < 64)
			id = (uint32_t) k;
		else if (k < 128)
			id = (uint32_t) (4064 + k - 64);	/* around 4096 */
		else if (k == 128)
			id = GSST_MAX_TABLE_ID;
		else
			id = (uint32_t) (rng_next(&rng) & GSST_MAX_TABLE_ID) >> rng_below(&rng, 30);

		uint8_t		out[GSST_DATUM_MAX_HEADER + 4];
		uint8_t		expect[16];
		size_t		expect_len;

		expect[0] = 0;
		expect_len = 1 + leb128((uint64_t) id << 2 | (GSST_DATUM_VERSION - 1), expect + 1);
		memset(out, 0xEE, sizeof(out));
		size_t		n = gsst_datum_header_write(id, out);

		CHECK_EQ(n, expect_len);
		CHECK(n <= GSST_DATUM_MAX_HEADER && memcmp(out, expect, n) == 0);
		CHECK_EQ(out[n], 0xEE);
		if (id < 32)
			CHECK_EQ(n, 2);
		else if (id < 4096)
			CHECK_EQ(n, 3);

		/* parse from an exact buffer, and with codes after the header */
		uint8_t    *exact = xdup(out, n);
		uint32_t	got = ~id;

		CHECK_EQ(gsst_datum_header_parse(exact, n, &got), n);
		CHECK_EQ(got, id);
		out[n] = 0x80;
		out[n + 1] = 0xff;
		got = ~id;
		CHECK_EQ(gsst_datum_header_parse(out, n + 2, &got), n);
		CHECK_EQ(got, id);
		free(exact);
		if (current_failures)
			return;
	}
}

static void
test_datum_header_rejects(void)
{
	uint32_t	id;
	struct
	{
		uint8_t		bytes[8];
		size_t		len;
		unsigned	set;
		const char *what;
	}			cases[] = {
		{{0}, 0, ST(GSST_ERR_TRUNCATED) | ST(GSST_ERR_ARG), "empty"},
		{{0}, 1, ST(GSST_ERR_TRUNCATED), "no varint"},
		{{0, 0x80}, 2, ST(GSST_ERR_TRUNCATED), "varint cut"},
		{{0, 0x84, 0x80, 0x80}, 4, ST(GSST_ERR_TRUNCATED), "varint cut after 3"},
		{{0, 0x01}, 2, ST(GSST_ERR_VERSION), "version 2"},
		{{0, 0x02}, 2, ST(GSST_ERR_VERSION), "version 3"},
		{{0, 0x83, 0x01}, 3, ST(GSST_ERR_VERSION), "version 4, 2-byte varint"},
		{{'a', 0x04}, 2, ST(GSST_ERR_ARG) | ST(GSST_ERR_VERSION), "raw datum"},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
	{
		uint8_t    *exact = xdup(cases[k].bytes, cases[k].len);
		int			rc = gsst_datum_header_parse(exact, cases[k].len, &id);

		check_report(status_in(rc, cases[k].set), __FILE__, __LINE__,
					 "datum header '%s': parse returned %d", cases[k].what, rc);
		free(exact);
	}

	/* overlong encodings: redundant zero groups, 6 bytes, id >= 2^30 */
	static const struct
	{
		uint8_t		bytes[8];
		size_t		len;
	}			overlong[] = {
		{{0, 0x80, 0x00}, 3},
		{{0, 0x84, 0x00}, 3},
		{{0, 0x84, 0x80, 0x00}, 4},
		{{0, 0x80, 0x80, 0x80, 0x80, 0x00}, 6},
		{{0, 0x80, 0x80, 0x80, 0x80, 0x10}, 6},	/* V = 2^32: id 2^30 */
		{{0, 0xfc, 0xff, 0xff, 0xff, 0x7f}, 6},	/* 35 bits */
		{{0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 7},
	};

	for (size_t k = 0; k < sizeof(overlong) / sizeof(overlong[0]); k++)
	{
		uint8_t    *exact = xdup(overlong[k].bytes, overlong[k].len);

		check_report(gsst_datum_header_parse(exact, overlong[k].len, &id) < 0, __FILE__, __LINE__,
					 "overlong datum header case %zu was accepted", k);
		free(exact);
	}

	/*
	 * Exhaustive over 0x00 + 3 bytes, against a model of FORMAT.md: a
	 * varint that ends within the 3 bytes, without a redundant zero group,
	 * with version bits 0, is accepted (and re-writes identically); the rest
	 * is rejected with the matching status.
	 */
	for (uint32_t v = 0; v < (1u << 24); v++)
	{
		uint8_t		in[4] = {0, (uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16)};
		uint64_t	value = 0;
		size_t		end = 0;

		for (size_t i = 1; i < 4 && end == 0; i++)
		{
			value |= (uint64_t) (in[i] & 0x7f) << (7 * (i - 1));
			if ((in[i] & 0x80) == 0)
				end = i + 1;
		}
		int			rc = gsst_datum_header_parse(in, 4, &id);
		bool		ok;

		if (end == 0)
			ok = status_in(rc, ST(GSST_ERR_TRUNCATED));
		else if (end > 2 && in[end - 1] == 0)
			ok = rc < 0;		/* redundant zero group */
		else if (value & 3)
			ok = status_in(rc, ST(GSST_ERR_VERSION));
		else
		{
			uint8_t		again[GSST_DATUM_MAX_HEADER];

			ok = rc == (int) end && id == (uint32_t) (value >> 2) &&
				gsst_datum_header_write(id, again) == end && memcmp(again, in, end) == 0;
		}
		if (!check_report(ok, __FILE__, __LINE__, "header 00 %02x %02x %02x: parse returned %d",
						  in[1], in[2], in[3], rc))
			return;
	}
}

static void
test_strerror(void)
{
	const char *seen[16];
	int			n = 0;

	for (int s = GSST_OK; s >= GSST_ERR_ARG; s--)
	{
		const char *msg = gsst_strerror(s);

		if (!CHECK(msg != NULL && msg[0] != '\0'))
			continue;
		for (int k = 0; k < n; k++)
			CHECK(strcmp(seen[k], msg) != 0);
		seen[n++] = msg;
	}
	CHECK(gsst_strerror(-1000) != NULL);
	CHECK(gsst_strerror(42) != NULL);
}

/*
 * Decode every value of an opened tile alone into out (raw_bytes + 64
 * bytes; room past the value when roomy, else an exact buffer); returns the
 * first error, or GSST_OK when all match out_all.
 */
static int
decode_each(const gsst_tile *tile, bool roomy, const uint8_t *out_all, bool *same)
{
	*same = true;
	for (uint64_t i = 0; i < tile->nvalues; i++)
	{
		uint64_t	r0 = gsst_tile_raw_offset(tile, i);
		uint64_t	rl = gsst_tile_raw_offset(tile, i + 1) - r0;
		uint8_t    *one = xmalloc(rl + (roomy ? 64 : 0));
		int64_t		got = gsst_tile_decode_one(tile, i, one, rl + (roomy ? 64 : 0));

		if (got >= 0 && out_all != NULL && (got != (int64_t) rl ||
											(rl > 0 && memcmp(one, out_all + r0, rl) != 0)))
			*same = false;
		free(one);
		if (got < 0)
			return (int) got;
	}
	return GSST_OK;
}

/*
 * The decoders' fast paths (AVX-512 windows that decode several short
 * values as one stream, the branch-free short value, 8-code blocks) and the
 * portable path accept the same tiles and return the same status: tiles of
 * many short values with one value boundary moved (the lengths still add
 * up), a code changed (often to an escape), or a value's last code made an
 * escape whose literal would be the next value's first code; some values
 * hold escapes and literal 0xFF bytes.
 */
static void
test_tile_decode_fast_paths(void)
{
	gsst_encoder enc;
	value_set	vs;
	test_rng	rng = {23};
	size_t		len;

	REQUIRE(text_encoder(&enc, 17));
	vs_init(&vs);
	for (int i = 0; i < 3000; i++)
	{
		size_t		vlen = rng_below(&rng, 8) == 0 ? 20 + rng_below(&rng, 300)
			: rng_below(&rng, 30);

		if (i % 37 == 5)
			rng_fill(&rng, vs_push(&vs, vlen), vlen);	/* stored raw */
		else
		{
			uint8_t    *p = vs_push(&vs, vlen);

			rng_text(&rng, p, vlen);
			/* bytes outside the table: escapes, some of literal 0xFF */
			if (vlen > 2 && i % 5 == 2)
				p[rng_below(&rng, vlen)] = rng_below(&rng, 3) ? 0xFF : (uint8_t) (0x80 + rng_below(&rng, 127));
		}
	}
	uint8_t    *good = encode_tile(&enc, &vs, 0, &len);

	REQUIRE(good != NULL);
	tile_layout L = layout_of(good);

	for (int round = 0; round < 4000 && !current_failures; round++)
	{
		uint8_t    *m = xdup(good, len);
		uint64_t	j = 1 + rng_below(&rng, L.nvalues - 1);
		uint64_t	c0 = layout_comp(m, &L, j),
					c1 = layout_comp(m, &L, j + 1);

		if (round == 0)
			;					/* the tile as encoded */
		else if (round % 3 == 0)
			write_le(m + L.raw_at + j * L.width, L.width,
					 layout_raw(m, &L, j) + (rng_below(&rng, 2) ? 1 : -1));
		else if (round % 3 == 1 && c1 > c0)
			m[L.codes_at + c0 + rng_below(&rng, c1 - c0)] =
				rng_below(&rng, 4) ? (uint8_t) rng_next(&rng) : GSST_ESCAPE;
		else if (c1 > c0)
			m[L.codes_at + c1 - 1] = GSST_ESCAPE;

		gsst_tile	tile;
		int			status[2][3];
		uint8_t    *all[2];

		if (gsst_tile_open(&tile, m, len) != GSST_OK)
		{
			free(m);
			continue;
		}
		for (int scalar = 0; scalar < 2; scalar++)
		{
			bool		same_roomy,
						same_exact;

			gsst_decode_simd_disabled = scalar;
			all[scalar] = xmalloc(tile.raw_bytes);
			status[scalar][0] = gsst_tile_decode_all(&tile, all[scalar], tile.raw_bytes);
			status[scalar][1] = decode_each(&tile, true, status[scalar][0] == GSST_OK ? all[scalar] : NULL,
											&same_roomy);
			status[scalar][2] = decode_each(&tile, false, status[scalar][0] == GSST_OK ? all[scalar] : NULL,
											&same_exact);
			CHECK(same_roomy && same_exact);
			/* every value decodes alone exactly when the whole tile does */
			CHECK((status[scalar][0] == GSST_OK) == (status[scalar][1] == GSST_OK));
			/* an exact buffer may say GSST_ERR_SPACE where room says LENGTH */
			CHECK((status[scalar][1] == GSST_OK) == (status[scalar][2] == GSST_OK));
		}
		gsst_decode_simd_disabled = 0;
		for (int k = 0; k < 3; k++)
			CHECK_EQ(status[0][k], status[1][k]);
		if (round == 0)
			CHECK(status[0][0] == GSST_OK && memcmp(all[0], vs.data, vs.bytes) == 0);
		if (status[0][0] == GSST_OK && status[1][0] == GSST_OK)
			CHECK(tile.raw_bytes == 0 || memcmp(all[0], all[1], tile.raw_bytes) == 0);
		free(all[0]);
		free(all[1]);
		free(m);
	}
	free(good);
	vs_free(&vs);
}

/* The tile tests again, on the portable decoders. */
static void
test_tile_scalar_decoders(void)
{
	gsst_decode_simd_disabled = 1;
	test_tile_zero_and_one_value();
	test_tile_split_sizes();
	test_tile_hostile();
	test_tile_mutations();
	test_roundtrip_dbtext();
	gsst_decode_simd_disabled = 0;
}

/* The tile tests again on the portable encoder (no AVX-512 lanes). */
static void
test_tile_scalar_encoder(void)
{
	gsst_encode_simd_disabled = 1;
	test_tile_zero_and_one_value();
	test_tile_split_sizes();
	test_tile_wide_offsets();
	test_roundtrip_dbtext();
	test_roundtrip_binary();
	gsst_encode_simd_disabled = 0;
}

/* ------------------------------------------------------------------ */
/* runner                                                             */
/* ------------------------------------------------------------------ */

typedef struct test_case
{
	const char *name;
	void		(*fn) (void);
} test_case;

#define TEST(fn) {#fn, fn}

static const test_case tests[] = {
	TEST(test_table_build_canonical_order),
	TEST(test_table_build_rejects),
	TEST(test_table_build_agrees_with_profile_model),
	TEST(test_table_serialize_roundtrip),
	TEST(test_table_load_rejects),
	TEST(test_table_load_mutations),
	TEST(test_encode_matches_reference),
	TEST(test_encode_empty_table),
	TEST(test_decode_every_code),
	TEST(test_decode_errors),
	TEST(test_encode_out_limit),
	TEST(test_segment_restart),
	TEST(test_value_sizes),
	TEST(test_training_determinism),
	TEST(test_training_generations),
	TEST(test_training_dirty_scratch),
	TEST(test_training_edge_cases),
	TEST(test_roundtrip_dbtext),
	TEST(test_roundtrip_binary),
	TEST(test_tile_zero_and_one_value),
	TEST(test_tile_million_values),
	TEST(test_tile_split_sizes),
	TEST(test_tile_layout),
	TEST(test_tile_encode_space),
	TEST(test_tile_wide_offsets),
	TEST(test_tile_hostile),
	TEST(test_tile_mutations),
	TEST(test_tile_decode_fast_paths),
	TEST(test_tile_scalar_decoders),
	TEST(test_tile_scalar_encoder),
	TEST(test_datum_header_roundtrip),
	TEST(test_datum_header_rejects),
	TEST(test_strerror),
	/* golden byte vectors (test_golden.c, golden/) */
	TEST(test_golden_inputs),
	TEST(test_golden_table_train),
	TEST(test_golden_table_train_pg),
	TEST(test_golden_table_load),
	TEST(test_golden_datum_encode),
	TEST(test_golden_datum_decode),
	TEST(test_golden_tile_encode),
	TEST(test_golden_tile_decode),
};

static bool
selected(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (strstr(name, argv[i]) != NULL)
			return true;
	return false;
}

/*
 * Each test runs in a child process with a time limit, so that a crash or
 * a hang in the codec is reported as that test's failure and the other
 * tests still run.
 */
static bool
run_isolated(const test_case *tc, unsigned timeout_s)
{
	fflush(stdout);
	fflush(stderr);
	pid_t		pid = fork();

	if (pid < 0)
	{
		perror("fork");
		exit(2);
	}
	if (pid == 0)
	{
		alarm(timeout_s);
		current_test = tc->name;
		current_failures = 0;
		tc->fn();
		fflush(stdout);
		fflush(stderr);
		_exit(current_failures ? 1 : 0);
	}
	int			status;

	while (waitpid(pid, &status, 0) < 0)
		;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 0;
	if (WIFSIGNALED(status))
		fprintf(stderr, "    [%s] %s\n", tc->name, WTERMSIG(status) == SIGALRM
				? "timed out" : strsignal(WTERMSIG(status)));
	return false;
}

int
main(int argc, char **argv)
{
	int			passed = 0,
				failed = 0;
	const char *timeout_env = getenv("GSST_TEST_TIMEOUT");
	unsigned	timeout_s = timeout_env ? (unsigned) atoi(timeout_env) : 120;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "--write-golden") == 0)
	{
		current_test = "golden_write";
		return golden_write();
	}
	for (size_t k = 0; k < sizeof(tests) / sizeof(tests[0]); k++)
	{
		if (!selected(tests[k].name, argc, argv))
			continue;
		double		t0 = now_seconds();
		bool		ok = run_isolated(&tests[k], timeout_s);

		printf("%-4s %s (%.2f s)\n", ok ? "ok" : "FAIL", tests[k].name, now_seconds() - t0);
		if (ok)
			passed++;
		else
			failed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
