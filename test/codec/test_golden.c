/*
 * test_golden.c - golden byte vectors: the bytes the codec writes today for
 * a fixed training sample and a fixed set of values, pinned in files under
 * golden/ (see golden/README.md), so that no release changes stored bytes
 * by accident.
 *
 *   golden/sample.txt        the training sample, one value a line
 *   golden/table.hex         gsst_train (default generations) of the sample,
 *                            serialized
 *   golden/table_gen12.hex   the same with 12 generations, as PostgreSQL
 *                            trains its dictionaries
 *   golden/datums.txt        each input, and its encoded datum (header for
 *                            several table ids + the codes of table.hex)
 *   golden/tile.hex          a version 1 tile of every input (default split
 *                            size)
 *   golden/tile_split512.hex the same with split_bytes = 512 (many splits)
 *   golden/tile_wide.hex     tile.hex rewritten with 8-byte index entries
 *                            (FORMAT.md allows W = 8 at any size; the encoder
 *                            writes it only for huge tiles): decode only
 *   golden/tile_v2*.hex      the three again in version 2
 *
 * The encode tests use the pinned table (table.hex), not a freshly trained
 * one, and the decode tests read only pinned bytes: a change in training
 * fails the table tests alone.
 *
 * The golden directory is GSST_GOLDEN_DIR from the environment, else the
 * one the Makefile compiles in.  test_codec --write-golden rewrites it.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdbool.h>

#include "test_util.h"
#include "test_check.h"
#include "test_golden.h"
#include "tile_internal.h"

#ifndef GSST_GOLDEN_DIR
#define GSST_GOLDEN_DIR "golden"
#endif

/* GSST_PG_TRAIN_GENERATIONS in src/base/gsst.h (a PostgreSQL header) */
#define PG_TRAIN_GENERATIONS 12

/* split_bytes of the second tile: splits between values and inside the long ones */
#define SMALL_SPLIT_BYTES 512

/* Table ids of the datum headers: each side of the 2-, 3- and 5-byte varints. */
static const uint32_t golden_ids[] = {1, 31, 32, 4095, 4096, GSST_MAX_TABLE_ID};

#define NIDS (sizeof(golden_ids) / sizeof(golden_ids[0]))

/*
 * Values longer than this are pinned with the first and the last id only:
 * the header does not depend on the codes, and six copies of their codes
 * would make most of datums.txt.
 */
#define LONG_VALUE 1024

/* The table ids value i of len bytes is pinned with, in order; returns their count. */
static size_t
ids_of_value(size_t len, uint32_t *ids)
{
	if (len > LONG_VALUE)
	{
		ids[0] = golden_ids[0];
		ids[1] = golden_ids[NIDS - 1];
		return 2;
	}
	memcpy(ids, golden_ids, sizeof(golden_ids));
	return NIDS;
}

/* The pinned tiles: each version encoded at two split sizes, and widened (decode only). */
typedef struct golden_tile
{
	const char *file;
	uint32_t	version;
	size_t		split_bytes;
	bool		wide;
	const char *what;			/* the file's first comment */
} golden_tile;

static const golden_tile golden_tiles[] = {
	{"tile.hex", 1, 0, false, "gsst_tile_encode, default split_bytes"},
	{"tile_split512.hex", 1, SMALL_SPLIT_BYTES, false, "gsst_tile_encode, split_bytes = 512"},
	{"tile_wide.hex", 1, 0, true,
	"tile.hex with 8-byte index entries (W = 8), for the decoders"},
	{"tile_v2.hex", 2, 0, false, "gsst_tile_encode (version 2), default split_bytes"},
	{"tile_v2_split512.hex", 2, SMALL_SPLIT_BYTES, false,
	"gsst_tile_encode (version 2), split_bytes = 512"},
	{"tile_v2_wide.hex", 2, 0, true,
	"tile_v2.hex with 8-byte entries (W = 8), for the decoders"},
};

#define NTILES (sizeof(golden_tiles) / sizeof(golden_tiles[0]))

#define REGENERATE_HINT "see test/codec/golden/README.md before regenerating"

/* ------------------------------------------------------------------ */
/* files                                                              */
/* ------------------------------------------------------------------ */

static const char *
golden_dir(void)
{
	const char *env = getenv("GSST_GOLDEN_DIR");

	return env != NULL && env[0] != '\0' ? env : GSST_GOLDEN_DIR;
}

static char *
golden_path(const char *name)
{
	const char *dir = golden_dir();
	size_t		n = strlen(dir) + strlen(name) + 2;
	char	   *p = xmalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* The whole file plus a NUL, or NULL (reported as a failed check). */
static char *
read_golden(const char *name, size_t *len)
{
	char	   *path = golden_path(name);
	FILE	   *f = fopen(path, "rb");
	char	   *buf = NULL;
	long		size = -1;

	if (f != NULL && fseek(f, 0, SEEK_END) == 0)
		size = ftell(f);
	if (size >= 0 && fseek(f, 0, SEEK_SET) == 0)
	{
		buf = xmalloc((size_t) size + 1);
		if (fread(buf, 1, (size_t) size, f) != (size_t) size)
		{
			free(buf);
			buf = NULL;
		}
		else
		{
			buf[size] = '\0';
			*len = (size_t) size;
		}
	}
	if (f != NULL)
		fclose(f);
	if (buf == NULL)
		check_report(false, __FILE__, __LINE__, "cannot read golden file %s", path);
	free(path);
	return buf;
}

static int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Hex digits of text[0..n) to bytes; whitespace and comments (# to the end
 * of the line) are skipped.  Returns NULL on any other character or an odd
 * number of digits.
 */
static uint8_t *
parse_hex(const char *text, size_t n, size_t *out_len)
{
	uint8_t    *out = xmalloc(n / 2 + 1);
	size_t		o = 0;
	int			high = -1;

	for (size_t i = 0; i < n; i++)
	{
		int			c = (unsigned char) text[i];
		int			d;

		if (c == '#')
		{
			while (i < n && text[i] != '\n')
				i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if ((d = hex_digit(c)) < 0)
		{
			free(out);
			return NULL;
		}
		if (high < 0)
			high = d;
		else
		{
			out[o++] = (uint8_t) (high << 4 | d);
			high = -1;
		}
	}
	if (high >= 0)
	{
		free(out);
		return NULL;
	}
	*out_len = o;
	return out;
}

/* A golden file of hex bytes in a buffer of their size, or NULL (reported). */
static uint8_t *
read_golden_hex(const char *name, size_t *len)
{
	size_t		text_len;
	char	   *text = read_golden(name, &text_len);
	uint8_t    *bytes;

	if (text == NULL)
		return NULL;
	bytes = parse_hex(text, text_len, len);
	free(text);
	if (bytes == NULL)
	{
		check_report(false, __FILE__, __LINE__, "golden file %s is not hex", name);
		return NULL;
	}
	/* an exact-size copy: ASan flags any read past its end */
	uint8_t    *exact = xdup(bytes, *len);

	free(bytes);
	return exact;
}

/* Compare bytes with their golden version, naming the first difference. */
static bool
check_bytes_impl(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len,
				 const char *file, int line, const char *what)
{
	size_t		common = got_len < want_len ? got_len : want_len;
	size_t		at = 0;

	while (at < common && got[at] == want[at])
		at++;
	if (at == common && got_len == want_len)
		return true;
	if (at < common)
		return check_report(false, file, line,
							"%s: byte %zu is 0x%02x, golden 0x%02x (%zu bytes, golden %zu); %s",
							what, at, got[at], want[at], got_len, want_len, REGENERATE_HINT);
	return check_report(false, file, line, "%s: %zu bytes, golden %zu (equal up to there); %s",
						what, got_len, want_len, REGENERATE_HINT);
}

#define CHECK_BYTES(got, got_len, want, want_len, what) \
	check_bytes_impl((got), (got_len), (want), (want_len), __FILE__, __LINE__, (what))

/* ------------------------------------------------------------------ */
/* the inputs                                                         */
/* ------------------------------------------------------------------ */

/*
 * Their own splitmix64 and vocabulary, so that changes to the helpers in
 * test_util.h cannot move the inputs (test_golden_inputs would catch it).
 */
static uint64_t
golden_rng(uint64_t *state)
{
	uint64_t	z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Log-like text: words, numbers and punctuation, from a fixed seed. */
static void
golden_text(uint64_t seed, uint8_t *out, size_t n)
{
	static const char *const words[] = {
		"the", "database", "index", "value", "compression", "dictionary",
		"symbol", "table", "column", "request", "pending", "carefully",
		"final", "deposits", "https://www.example.com/", "user@example.org",
		"2024-06-01", "ERROR:", "LOG:", "Grüße", "東京", "naïve", "über"
	};
	const size_t nwords = sizeof(words) / sizeof(words[0]);
	uint64_t	state = seed;
	size_t		pos = 0;

	while (pos < n)
	{
		uint64_t	r = golden_rng(&state);
		char		number[24];
		const char *w = words[r % nwords];

		if ((r >> 32) % 7 == 0)
		{
			snprintf(number, sizeof(number), "%u", (unsigned) ((r >> 40) % 100000));
			w = number;
		}
		for (size_t k = 0; w[k] != '\0' && pos < n; k++)
			out[pos++] = (uint8_t) w[k];
		if (pos < n)
			out[pos++] = (r >> 16) % 11 == 0 ? '\n' : (r >> 16) % 5 == 0 ? ',' : ' ';
	}
}

static const struct
{
	const char *what;
	const char *text;
}			fixed_inputs[] = {
	{"empty", ""},
	{"one byte, likely a symbol", "e"},
	{"one byte, likely escaped", "\x01"},
	{"one byte 0xff (escape code as literal)", "\xff"},
	{"e-mail", "alice@example.com"},
	{"e-mail", "bob.smith+news@mail.example.org"},
	{"e-mail", "j.doe@university.edu"},
	{"URL", "https://www.example.com/index.html"},
	{"URL", "http://example.org/search?q=gsst&lang=en"},
	{"URL", "https://docs.postgresql.org/docs/current/sql-select.html#section-3"},
	{"digits", "0"},
	{"digits", "42"},
	{"digits", "1234567890"},
	{"digits", "-273.15"},
	{"digits", "00000000000000000000"},
	{"timestamp", "2024-06-01 12:34:56+02"},
	{"phone number", "+49 30 1234567"},
	{"UUID", "123e4567-e89b-12d3-a456-426614174000"},
	{"UTF-8", "Grüße aus München"},
	{"UTF-8", "naïve café résumé"},
	{"UTF-8", "東京都千代田区丸の内"},
	{"UTF-8", "Привет, мир"},
	{"UTF-8", "Ελληνικά"},
	{"UTF-8, 4-byte sequences", "\xf0\x9f\x98\x80\xf0\x9f\x91\x8d\xf0\x9f\x8e\x89"},
	{"text", "the quick brown fox jumps over the lazy dog"},
	{"text, upper case", "THE QUICK BROWN FOX"},
	{"text", "database index compression dictionary symbol"},
	{"log line", "2024-03-13 21:53:44 [39802] LOG:  table the against above encoding"},
	{"address", "221 Baker Street, 10115 Berlin"},
	{"a run", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
	{"8 bytes", "abcdefgh"},
	{"9 bytes", "abcdefghi"},
};

#define NFIXED (sizeof(fixed_inputs) / sizeof(fixed_inputs[0]))
#define MAX_INPUTS (NFIXED + 16)

/* The inputs in order, with what each is; returns their number. */
static size_t
golden_inputs(value_set *vs, const char **what)
{
	size_t		n = 0;
	uint64_t	state = 0x676f6c64656e21ull;	/* "golden!" */
	uint8_t    *p;

	vs_init(vs);
	for (size_t i = 0; i < NFIXED; i++)
	{
		what[n++] = fixed_inputs[i].what;
		vs_add(vs, fixed_inputs[i].text, strlen(fixed_inputs[i].text));
	}

	what[n++] = "text of 4096 bytes: exactly one segment";
	golden_text(1, vs_push(vs, GSST_SEGMENT_BYTES), GSST_SEGMENT_BYTES);
	what[n++] = "text of 4097 bytes: two segments, the second of 1 byte";
	golden_text(2, vs_push(vs, GSST_SEGMENT_BYTES + 1), GSST_SEGMENT_BYTES + 1);
	what[n++] = "text of 9000 bytes: three segments";
	golden_text(3, vs_push(vs, 9000), 9000);

	what[n++] = "every byte value 0..255: does not compress";
	p = vs_push(vs, 256);
	for (unsigned b = 0; b < 256; b++)
		p[b] = (uint8_t) b;
	what[n++] = "32 random bytes: do not compress";
	p = vs_push(vs, 32);
	for (size_t k = 0; k < 32; k++)
		p[k] = (uint8_t) golden_rng(&state);
	what[n++] = "300 random bytes: do not compress";
	p = vs_push(vs, 300);
	for (size_t k = 0; k < 300; k++)
		p[k] = (uint8_t) golden_rng(&state);
	what[n++] = "100 bytes 0xff: escapes of the escape code";
	memset(vs_push(vs, 100), 0xff, 100);
	what[n++] = "the last input";
	vs_add(vs, "fin", 3);
	return n;
}

/* ------------------------------------------------------------------ */
/* golden/datums.txt                                                  */
/* ------------------------------------------------------------------ */

/*
 * Lines (# starts a comment line):
 *   value <i> <hex>          input i ("-" when empty), i = 0, 1, ...
 *   datum <i> <id> <hex>     input i encoded for table id <id>: the header
 *                            of gsst_datum_header_write, then the codes
 */
typedef struct golden_datum
{
	size_t		value;
	uint32_t	table_id;
	uint8_t    *bytes;
	size_t		len;
} golden_datum;

typedef struct golden_datums
{
	value_set	values;
	golden_datum *datum;
	size_t		ndatums;
} golden_datums;

static void
datums_free(golden_datums *g)
{
	for (size_t k = 0; k < g->ndatums; k++)
		free(g->datum[k].bytes);
	free(g->datum);
	vs_free(&g->values);
}

static bool
parse_count(const char *s, uint64_t max, uint64_t *v)
{
	char	   *end;
	unsigned long long x;

	if (s == NULL || *s < '0' || *s > '9')
		return false;
	x = strtoull(s, &end, 10);
	if (*end != '\0' || x > max)
		return false;
	*v = x;
	return true;
}

static uint8_t *
parse_hex_token(const char *s, size_t *len)
{
	if (s == NULL)
		return NULL;
	if (strcmp(s, "-") == 0)
	{
		*len = 0;
		return xmalloc(0);
	}
	return parse_hex(s, strlen(s), len);
}

/* Read datums.txt; false (reported) on a malformed file. */
static bool
load_datums(golden_datums *g)
{
	size_t		len;
	char	   *text = read_golden("datums.txt", &len);
	size_t		cap = 64;
	size_t		lineno = 0;
	bool		ok = true;
	char	   *save = NULL;

	memset(g, 0, sizeof(*g));
	vs_init(&g->values);
	g->datum = xmalloc(cap * sizeof(golden_datum));
	if (text == NULL)
		return false;
	for (char *line = text; ok && line != NULL && *line != '\0';)
	{
		char	   *next = strchr(line, '\n');

		if (next != NULL)
			*next++ = '\0';
		lineno++;
		if (line[0] != '#' && line[strspn(line, " \t\r")] != '\0')
		{
			char	   *kind = strtok_r(line, " \t\r", &save);
			char	   *a = strtok_r(NULL, " \t\r", &save);
			char	   *b = strtok_r(NULL, " \t\r", &save);
			char	   *c = strtok_r(NULL, " \t\r", &save);
			uint64_t	index,
						id;
			size_t		blen;
			uint8_t    *bytes;

			if (strcmp(kind, "value") == 0 && parse_count(a, SIZE_MAX, &index) &&
				index == g->values.n && c == NULL &&
				(bytes = parse_hex_token(b, &blen)) != NULL)
			{
				vs_add(&g->values, bytes, blen);
				free(bytes);
			}
			else if (strcmp(kind, "datum") == 0 && parse_count(a, SIZE_MAX, &index) &&
					 index < g->values.n && parse_count(b, UINT32_MAX, &id) &&
					 strtok_r(NULL, " \t\r", &save) == NULL &&
					 (bytes = parse_hex_token(c, &blen)) != NULL)
			{
				if (g->ndatums == cap)
				{
					cap *= 2;
					g->datum = realloc(g->datum, cap * sizeof(golden_datum));
					if (g->datum == NULL)
						abort();
				}
				g->datum[g->ndatums++] = (golden_datum) {
					.value = (size_t) index, .table_id = (uint32_t) id, .bytes = bytes, .len = blen
				};
			}
			else
				ok = check_report(false, __FILE__, __LINE__,
								  "golden/datums.txt line %zu is malformed", lineno);
		}
		line = next;
	}
	free(text);
	return ok;
}

/* ------------------------------------------------------------------ */
/* helpers                                                            */
/* ------------------------------------------------------------------ */

static bool
load_sample(value_set *vs)
{
	char	   *path = golden_path("sample.txt");
	bool		ok = vs_load_lines(vs, path) == 0;

	if (!ok)
		check_report(false, __FILE__, __LINE__, "cannot read golden file %s", path);
	free(path);
	return ok;
}

/*
 * Train on the sample and serialize; returns the size, or 0 (reported).
 * dirty: scratch memory full of garbage (PostgreSQL's learner pallocs it
 * without zeroing), else zeroed.
 */
static size_t
train_serialized(const value_set *sample, int generations, bool dirty, uint8_t *out)
{
	gsst_table	t;
	const uint8_t **ptrs = xmalloc(sizeof(*ptrs) * sample->n);
	size_t	   *lens = xmalloc(sizeof(*lens) * sample->n);
	size_t		work_bytes = gsst_train_work_bytes();
	void	   *work = xmalloc(work_bytes);	/* malloc: 16-byte aligned */
	int			rc;
	int			n = 0;

	memset(work, dirty ? 0xa5 : 0, work_bytes);
	for (size_t i = 0; i < sample->n; i++)
		ptrs[i] = vs_value(sample, i, &lens[i]);
	rc = generations == GSST_TRAIN_GENERATIONS ?
		gsst_train(&t, ptrs, lens, sample->n, work) :
		gsst_train_generations(&t, ptrs, lens, sample->n, work, generations);
	if (CHECK_EQ(rc, GSST_OK))
		n = gsst_table_serialize(&t, out, GSST_TABLE_MAX_BYTES);
	free(work);
	free(lens);
	free(ptrs);
	if (!CHECK(n > 0))
		return 0;
	return (size_t) n;
}

/* The pinned table, loaded; its bytes in *bytes (free them).  false: reported. */
static bool
load_golden_table(gsst_table *t, uint8_t **bytes, size_t *len)
{
	size_t		consumed = 0;

	*bytes = read_golden_hex("table.hex", len);
	if (*bytes == NULL)
		return false;
	if (!CHECK_EQ(gsst_table_load(t, *bytes, *len, &consumed), GSST_OK) ||
		!CHECK_EQ(consumed, *len))
	{
		free(*bytes);
		*bytes = NULL;
		return false;
	}
	return true;
}

static gsst_encoder *
golden_encoder(void)
{
	gsst_table	t;
	uint8_t    *bytes;
	size_t		len;
	gsst_encoder *enc;

	if (!load_golden_table(&t, &bytes, &len))
		return NULL;
	free(bytes);
	enc = xmalloc(sizeof(*enc));
	gsst_encoder_init(enc, &t);
	return enc;
}

/* Header + codes of one value; out needs GSST_DATUM_MAX_HEADER + 2 * len + slack. */
static size_t
encode_datum(const gsst_encoder *enc, uint32_t table_id, const uint8_t *in, size_t len,
			 uint8_t *out)
{
	size_t		h = gsst_datum_header_write(table_id, out);
	size_t		c = gsst_encode_value(enc, in, len, out + h, 2 * len);

	if (c == (size_t) -1)
		return (size_t) -1;		/* cannot happen: 2 bytes a byte at most */
	return h + c;
}

static size_t
datum_cap(size_t len)
{
	return GSST_DATUM_MAX_HEADER + 2 * len + GSST_ENCODE_SLACK;
}

/* The tile of vs; NULL (reported) on error. */
static uint8_t *
encode_tile_of(const gsst_encoder *enc, const value_set *vs, const golden_tile *gt, size_t *len)
{
	size_t		bound = gsst_tile_bound(vs->n, vs->bytes, gt->split_bytes);
	uint8_t    *buf = xmalloc(bound);
	int			rc = gsst_tile_encode_version(enc, vs->data, vs->offsets, vs->n,
											  gt->split_bytes, gt->version, buf, bound, len);

	if (!CHECK_EQ(rc, GSST_OK))
	{
		free(buf);
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------------ */
/* the tests                                                          */
/* ------------------------------------------------------------------ */

/* The inputs made here are the ones pinned in datums.txt. */
void
test_golden_inputs(void)
{
	value_set	vs;
	const char *what[MAX_INPUTS];
	golden_datums g;
	size_t		n = golden_inputs(&vs, what);

	if (load_datums(&g))
	{
		CHECK_EQ(g.values.n, n);
		for (size_t i = 0; i < n && i < g.values.n; i++)
		{
			size_t		a_len,
						b_len;
			const uint8_t *a = vs_value(&vs, i, &a_len);
			const uint8_t *b = vs_value(&g.values, i, &b_len);
			char		label[160];

			snprintf(label, sizeof(label), "input %zu", i);
			CHECK_BYTES(a, a_len, b, b_len, label);
		}
	}
	datums_free(&g);
	vs_free(&vs);
}

static void
check_training(const char *file, int generations)
{
	value_set	sample;
	size_t		want_len;
	uint8_t    *want = read_golden_hex(file, &want_len);
	uint8_t		got[GSST_TABLE_MAX_BYTES];

	if (want == NULL || !load_sample(&sample))
	{
		free(want);
		return;
	}
	printf("    %zu sample values, %zu bytes; AVX-512 lanes %s\n", sample.n, sample.bytes,
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GSST_NO_SIMD)
		   gsst_cpu_has_encode_lanes() ? "on this CPU" : "not on this CPU"
#else
		   "not built"
#endif
		);
	/* the trainer matches with AVX-512 lanes where it can: both paths */
	for (int scalar = 0; scalar < 2; scalar++)
	{
		char		label[160];
		size_t		got_len;

		/* zeroed scratch, then dirty scratch (also: no state kept between runs) */
		for (int dirty = 0; dirty < 2; dirty++)
		{
			gsst_encode_simd_disabled = scalar;
			got_len = train_serialized(&sample, generations, dirty, got);
			snprintf(label, sizeof(label), "%s (%s trainer, %s scratch)", file,
					 scalar ? "portable" : "default", dirty ? "dirty" : "zeroed");
			if (got_len > 0)
				CHECK_BYTES(got, got_len, want, want_len, label);
		}
	}
	gsst_encode_simd_disabled = 0;
	vs_free(&sample);
	free(want);
}

/* gsst_train of sample.txt serializes to table.hex. */
void
test_golden_table_train(void)
{
	check_training("table.hex", GSST_TRAIN_GENERATIONS);
}

/* PostgreSQL's generations (GSST_PG_TRAIN_GENERATIONS) give table_gen12.hex. */
void
test_golden_table_train_pg(void)
{
	check_training("table_gen12.hex", PG_TRAIN_GENERATIONS);
}

/*
 * The pinned tables load, serialize back to the same bytes, and
 * gsst_table_build of their symbols gives them again.
 */
void
test_golden_table_load(void)
{
	static const char *const files[] = {"table.hex", "table_gen12.hex"};

	for (size_t f = 0; f < 2; f++)
	{
		size_t		len,
					consumed = 0;
		uint8_t    *bytes = read_golden_hex(files[f], &len);
		gsst_table	t,
					rebuilt;
		uint8_t		out[GSST_TABLE_MAX_BYTES];
		uint64_t	symbols[GSST_MAX_SYMBOLS];
		uint8_t		lens[GSST_MAX_SYMBOLS];
		int			n;

		if (bytes == NULL)
			continue;
		if (CHECK_EQ(gsst_table_load(&t, bytes, len, &consumed), GSST_OK) &&
			CHECK_EQ(consumed, len))
		{
			CHECK_EQ(gsst_table_serialized_size(&t), len);
			n = gsst_table_serialize(&t, out, sizeof(out));
			if (CHECK(n > 0))
				CHECK_BYTES(out, (size_t) n, bytes, len, files[f]);
			CHECK(t.nsymbols > 0 && t.nsymbols <= GSST_MAX_SYMBOLS);
			/* reversed, so that the build must sort them */
			for (uint32_t c = 0; c < t.nsymbols; c++)
			{
				symbols[c] = t.symbol[t.nsymbols - 1 - c];
				lens[c] = t.len[t.nsymbols - 1 - c];
			}
			if (CHECK_EQ(gsst_table_build(&rebuilt, symbols, lens, t.nsymbols), GSST_OK))
			{
				n = gsst_table_serialize(&rebuilt, out, sizeof(out));
				if (CHECK(n > 0))
					CHECK_BYTES(out, (size_t) n, bytes, len, files[f]);
			}
		}
		free(bytes);
	}
}

/* Each input encodes, with table.hex, to its pinned datum for each table id. */
void
test_golden_datum_encode(void)
{
	golden_datums g;
	gsst_encoder *enc = golden_encoder();

	if (enc != NULL && load_datums(&g))
	{
		/* the records are those the writer makes: the values in order, each with its ids */
		size_t		expected = 0;

		for (size_t i = 0; i < g.values.n; i++)
		{
			uint32_t	ids[NIDS];
			size_t		len;
			size_t		nids = (vs_value(&g.values, i, &len), ids_of_value(len, ids));

			for (size_t j = 0; j < nids; j++, expected++)
				if (expected < g.ndatums &&
					!(CHECK_EQ(g.datum[expected].value, i) &&
					  CHECK_EQ(g.datum[expected].table_id, ids[j])))
					break;
		}
		CHECK_EQ(g.ndatums, expected);

		for (int scalar = 0; scalar < 2; scalar++)
		{
			gsst_encode_simd_disabled = scalar;
			for (size_t k = 0; k < g.ndatums; k++)
			{
				const golden_datum *d = &g.datum[k];
				size_t		len;
				const uint8_t *in = vs_value(&g.values, d->value, &len);
				uint8_t    *out = xmalloc(datum_cap(len));
				size_t		got = encode_datum(enc, d->table_id, in, len, out);
				char		label[160];

				snprintf(label, sizeof(label), "datum of input %zu, table id %" PRIu32,
						 d->value, d->table_id);
				if (CHECK(got != (size_t) -1))
					CHECK_BYTES(out, got, d->bytes, d->len, label);
				free(out);
			}
		}
		gsst_encode_simd_disabled = 0;
	}
	if (enc != NULL)
		datums_free(&g);
	free(enc);
}

/* Each pinned datum decodes, with table.hex, to its pinned input. */
void
test_golden_datum_decode(void)
{
	golden_datums g;
	gsst_table	t;
	uint8_t    *table_bytes;
	size_t		table_len;

	if (!load_golden_table(&t, &table_bytes, &table_len))
		return;
	free(table_bytes);
	if (load_datums(&g))
	{
		CHECK(g.ndatums > 0);
		for (size_t k = 0; k < g.ndatums; k++)
		{
			const golden_datum *d = &g.datum[k];
			size_t		len;
			const uint8_t *want = vs_value(&g.values, d->value, &len);
			uint8_t    *in = xdup(d->bytes, d->len);	/* exact size, for ASan */
			uint32_t	id = 0;
			int			h = gsst_datum_header_parse(in, d->len, &id);

			if (CHECK(h >= 2 && (size_t) h <= d->len) && CHECK_EQ(id, d->table_id))
			{
				uint8_t    *out = xmalloc(len);
				int64_t		n = gsst_decoded_length(&t, in + h, d->len - (size_t) h);
				int64_t		got = gsst_decode_value(&t, in + h, d->len - (size_t) h, out, len);
				char		label[160];

				snprintf(label, sizeof(label), "decoded datum of input %zu, table id %" PRIu32,
						 d->value, d->table_id);
				CHECK_EQ(n, len);
				if (CHECK_EQ(got, len))
					CHECK_BYTES(out, (size_t) got, want, len, label);
				free(out);
			}
			free(in);
		}
	}
	datums_free(&g);
}

/* gsst_tile_encode_version of every input, with table.hex, gives the pinned tiles. */
void
test_golden_tile_encode(void)
{
	golden_datums g;
	gsst_encoder *enc = golden_encoder();

	if (enc != NULL && load_datums(&g))
	{
		for (size_t f = 0; f < NTILES; f++)
		{
			size_t		want_len;
			uint8_t    *want;

			if (golden_tiles[f].wide)
				continue;
			want = read_golden_hex(golden_tiles[f].file, &want_len);
			if (want == NULL)
				continue;
			/* the AVX-512 encode lanes and the portable encoder */
			for (int scalar = 0; scalar < 2; scalar++)
			{
				size_t		len = 0;
				uint8_t    *tile;
				char		label[160];

				gsst_encode_simd_disabled = scalar;
				tile = encode_tile_of(enc, &g.values, &golden_tiles[f], &len);
				snprintf(label, sizeof(label), "%s (%s encoder)", golden_tiles[f].file,
						 scalar ? "portable" : "default");
				if (tile != NULL)
					CHECK_BYTES(tile, len, want, want_len, label);
				free(tile);
			}
			gsst_encode_simd_disabled = 0;
			free(want);
		}
	}
	if (enc != NULL)
		datums_free(&g);
	free(enc);
}

/* Decode an opened tile every way, on the current decoder path. */
static void
check_tile_decodes(const gsst_tile *tile, const value_set *vs, const char *name)
{
	uint8_t    *all = xmalloc(vs->bytes);
	char		label[256];

	snprintf(label, sizeof(label), "%s, all values", name);
	if (CHECK_EQ(gsst_tile_decode_all(tile, all, vs->bytes), GSST_OK))
		CHECK_BYTES(all, vs->bytes, vs->data, vs->bytes, label);

	memset(all, 0, vs->bytes);
	for (uint64_t s = 0; s < tile->nsplits; s++)
		CHECK_EQ(gsst_tile_decode_split(tile, s, all, vs->bytes), GSST_OK);
	snprintf(label, sizeof(label), "%s, split by split", name);
	CHECK_BYTES(all, vs->bytes, vs->data, vs->bytes, label);
	free(all);

	for (size_t i = 0; i < vs->n; i++)
	{
		size_t		len;
		const uint8_t *want = vs_value(vs, i, &len);
		uint8_t    *one = xmalloc(len);	/* exact size, for ASan */
		int64_t		got = gsst_tile_decode_one(tile, i, one, len);

		snprintf(label, sizeof(label), "%s, value %zu alone", name, i);
		if (CHECK_EQ(got, len))
			CHECK_BYTES(one, len, want, len, label);
		free(one);
	}
}

/*
 * The pinned tiles open, carry table.hex and the pinned offsets, and decode
 * to the inputs: whole, split by split and value by value, on the AVX-512
 * and the portable decoders.
 */
void
test_golden_tile_decode(void)
{
	golden_datums g;
	uint8_t    *table_bytes;
	size_t		table_len;
	gsst_table	t;

	if (!load_golden_table(&t, &table_bytes, &table_len))
		return;
	if (load_datums(&g))
	{
		for (size_t f = 0; f < NTILES; f++)
		{
			const golden_tile *gt = &golden_tiles[f];
			size_t		len;
			uint8_t    *bytes = read_golden_hex(gt->file, &len);
			uint8_t		serialized[GSST_TABLE_MAX_BYTES];
			gsst_tile	tile;
			int			n;

			if (bytes == NULL)
				continue;
			if (!CHECK_EQ(gsst_tile_open(&tile, bytes, len), GSST_OK))
			{
				free(bytes);
				continue;
			}
			CHECK_EQ(tile.version, gt->version);
			CHECK_EQ(tile.offset_width, gt->wide ? 8 : 4);
			CHECK_EQ(tile.segment_bytes, GSST_SEGMENT_BYTES);
			CHECK_EQ(tile.nvalues, g.values.n);
			CHECK_EQ(tile.raw_bytes, g.values.bytes);
			CHECK_EQ(tile.tile_bytes, len);
			CHECK(gt->split_bytes != SMALL_SPLIT_BYTES || tile.nsplits > 4);
			CHECK(gt->version == 1 || tile.nlongs >= 3);	/* 4096, 4097, 9000 bytes */
			n = gsst_table_serialize(&tile.table, serialized, sizeof(serialized));
			if (CHECK(n > 0))
				CHECK_BYTES(serialized, (size_t) n, table_bytes, table_len, "the table of a tile");
			for (uint64_t i = 0; i <= tile.nvalues && i <= g.values.n; i++)
				CHECK_EQ(gsst_tile_raw_offset(&tile, i), g.values.offsets[i]);
			for (int scalar = 0; scalar < 2; scalar++)
			{
				char		label[64];

				snprintf(label, sizeof(label), "%s (%s decoder)", gt->file,
						 scalar ? "portable" : "default");
				gsst_decode_simd_disabled = scalar;
				check_tile_decodes(&tile, &g.values, label);
			}
			gsst_decode_simd_disabled = 0;
			free(bytes);
		}
	}
	free(table_bytes);
	datums_free(&g);
}

/* ------------------------------------------------------------------ */
/* the writer (test_codec --write-golden, make golden)                */
/* ------------------------------------------------------------------ */

static void
put_hex(FILE *f, const uint8_t *p, size_t n)
{
	if (n == 0)
		fputc('-', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

/* 32 bytes a line, each followed by a comment with its offset */
static void
put_hex_block(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 32)
	{
		size_t		k = n - i < 32 ? n - i : 32;

		put_hex(f, p + i, k);
		fprintf(f, "%*s # %06zx\n", (int) (2 * (32 - k)), "", i);
	}
}

/* Length of the well-formed UTF-8 sequence of 2..4 bytes at p, or 0. */
static size_t
utf8_sequence(const uint8_t *p, size_t n)
{
	size_t		len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 :
		p[0] >= 0xe0 && p[0] <= 0xef ? 3 :
		p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;

	if (len == 0 || len > n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
		(p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;				/* overlong, surrogate, beyond U+10FFFF */
	return len;
}

/*
 * For comments: printable ASCII and whole UTF-8 characters as themselves,
 * the rest as \xNN; at most max bytes.
 */
static void
put_preview(FILE *f, const uint8_t *p, size_t n, size_t max)
{
	size_t		i = 0;

	fputc('"', f);
	while (i < n && i < max)
	{
		size_t		u = utf8_sequence(p + i, n - i);

		if (u > 0 && i + u <= max)
		{
			fwrite(p + i, 1, u, f);
			i += u;
			continue;
		}
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			fputc(p[i], f);
		else
			fprintf(f, "\\x%02x", p[i]);
		i++;
	}
	fputc('"', f);
	if (n > i)
		fputs("...", f);
}

static FILE *
open_for_writing(const char *name)
{
	char	   *path = golden_path(name);
	FILE	   *f = fopen(path, "w");

	if (f == NULL)
		perror(path);
	else
		printf("writing %s\n", path);
	free(path);
	return f;
}

static bool
close_written(FILE *f)
{
	bool		ok = !ferror(f);

	return fclose(f) == 0 && ok;
}

static const char *const file_note =
"# Written by `make -C test/codec golden` (test_codec --write-golden); checked by\n"
"# test/codec/test_golden.c.  Regenerate only for an intended format change, and\n"
"# then bump the format version (golden/README.md, src/codec/FORMAT.md).\n";

static bool
write_table_file(const char *name, const char *what, const uint8_t *bytes, size_t len)
{
	FILE	   *f = open_for_writing(name);
	gsst_table	t;
	size_t		consumed;

	if (f == NULL)
		return false;
	if (gsst_table_load(&t, bytes, len, &consumed) != GSST_OK)
	{
		fprintf(stderr, "the trained table does not load\n");
		fclose(f);
		return false;
	}
	fprintf(f, "# gsst golden vector: %s\n", what);
	fputs("# The serialized symbol table (FORMAT.md, \"Symbol table\"), hex.\n", f);
	fputs(file_note, f);
	fprintf(f, "# %" PRIu32 " symbols, %zu bytes; by code:\n", t.nsymbols, len);
	for (uint32_t c = 0; c < t.nsymbols; c++)
	{
		uint8_t		sym[8];

		for (unsigned j = 0; j < t.len[c]; j++)
			sym[j] = (uint8_t) (t.symbol[c] >> (8 * j));
		if (c % 8 == 0)
			fprintf(f, "%s#   %3" PRIu32 ":", c ? "\n" : "", c);
		fputc(' ', f);
		put_preview(f, sym, t.len[c], 8);
	}
	fputs("\n", f);
	put_hex_block(f, bytes, len);
	return close_written(f);
}

static bool
write_tile_file(const char *name, const char *what, const uint8_t *bytes, size_t len)
{
	FILE	   *f = open_for_writing(name);

	if (f == NULL)
		return false;
	fprintf(f, "# gsst golden vector: %s\n", what);
	fputs("# A tile (FORMAT.md, \"Tile\") of every input of datums.txt, in order, with\n"
		  "# the table of table.hex; hex, 32 bytes a line.\n", f);
	fputs(file_note, f);
	fprintf(f, "# %zu bytes\n", len);
	put_hex_block(f, bytes, len);
	return close_written(f);
}

/* tile rewritten with 8-byte index entries, following FORMAT.md only */
static uint8_t *
widen(const uint8_t *tile, size_t len, size_t *out_len)
{
	uint32_t	table_bytes = (uint32_t) tile[12] | (uint32_t) tile[13] << 8 |
		(uint32_t) tile[14] << 16 | (uint32_t) tile[15] << 24;
	uint64_t	n = 0,
				s = 0;

	for (int k = 7; k >= 0; k--)
	{
		n = n << 8 | tile[16 + k];
		s = s << 8 | tile[24 + k];
	}

	size_t		index_at = (GSST_TILE_HEADER_BYTES + table_bytes + 7) / 8 * 8;
	size_t		entries = 2 * (n + 1) + 3 * (s + 1);
	size_t		codes_at = (index_at + entries * 4 + 15) / 16 * 16;
	size_t		wide_codes_at = (index_at + entries * 8 + 15) / 16 * 16;
	size_t		code_bytes = len - codes_at;
	uint8_t    *out = xmalloc(wide_codes_at + code_bytes);

	memset(out, 0, wide_codes_at + code_bytes);
	memcpy(out, tile, index_at);
	out[5] = 8;
	for (size_t e = 0; e < entries; e++)
		memcpy(out + index_at + 8 * e, tile + index_at + 4 * e, 4);	/* little-endian */
	memcpy(out + wide_codes_at, tile + codes_at, code_bytes);
	*out_len = wide_codes_at + code_bytes;
	return out;
}

/* a version 2 tile rewritten with 8-byte entries (blocks, splits, long list), following FORMAT.md only */
static uint8_t *
widen_v2(const uint8_t *tile, size_t len, size_t *out_len)
{
	uint32_t	table_bytes = (uint32_t) tile[12] | (uint32_t) tile[13] << 8 |
		(uint32_t) tile[14] << 16 | (uint32_t) tile[15] << 24;
	uint64_t	n = 0,
				s = 0,
				c = 0;

	for (int k = 7; k >= 0; k--)
	{
		n = n << 8 | tile[16 + k];
		s = s << 8 | tile[24 + k];
		c = c << 8 | tile[40 + k];
	}

	size_t		blocks = (n + 127) / 128;
	size_t		blocks_at = (GSST_TILE_HEADER_BYTES + table_bytes + 7) / 8 * 8;
	size_t		lens_at = blocks_at + (blocks + 1) * 12,
				wide_lens_at = blocks_at + (blocks + 1) * 24;
	size_t		splits_at = (lens_at + 2 * n + 7) / 8 * 8,
				wide_splits_at = (wide_lens_at + 2 * n + 7) / 8 * 8;
	size_t		codes_at = (splits_at + (s + 1) * 12 + 15) / 16 * 16,
				wide_codes_at = (wide_splits_at + (s + 1) * 24 + 15) / 16 * 16;
	size_t		longs_at = (codes_at + c + 7) / 8 * 8,
				wide_longs_at = (wide_codes_at + c + 7) / 8 * 8;
	size_t		nlongs = len > codes_at + c ? (len - longs_at) / 8 : 0;
	size_t		wide_len = nlongs > 0 ? wide_longs_at + nlongs * 16 : wide_codes_at + c;
	uint8_t    *out = xmalloc(wide_len);

	memset(out, 0, wide_len);
	memcpy(out, tile, blocks_at);
	out[5] = 8;
	for (size_t e = 0; e < (blocks + 1) * 3; e++)
		memcpy(out + blocks_at + 8 * e, tile + blocks_at + 4 * e, 4);	/* little-endian */
	memcpy(out + wide_lens_at, tile + lens_at, 2 * n);
	for (size_t e = 0; e < (s + 1) * 3; e++)
		memcpy(out + wide_splits_at + 8 * e, tile + splits_at + 4 * e, 4);
	memcpy(out + wide_codes_at, tile + codes_at, c);
	for (size_t e = 0; e < nlongs * 2; e++)
		memcpy(out + wide_longs_at + 8 * e, tile + longs_at + 4 * e, 4);
	*out_len = wide_len;
	return out;
}

int
golden_write(void)
{
	value_set	sample,
				vs;
	const char *what[MAX_INPUTS];
	uint8_t		table[GSST_TABLE_MAX_BYTES],
				table12[GSST_TABLE_MAX_BYTES];
	size_t		table_len,
				table12_len,
				consumed;
	gsst_table	t;
	gsst_encoder *enc;
	FILE	   *f;
	bool		ok = true;
	char		what_line[160];

	if (!load_sample(&sample))
		return 1;
	table_len = train_serialized(&sample, GSST_TRAIN_GENERATIONS, false, table);
	table12_len = train_serialized(&sample, PG_TRAIN_GENERATIONS, false, table12);
	if (table_len == 0 || table12_len == 0 ||
		gsst_table_load(&t, table, table_len, &consumed) != GSST_OK)
		return 1;
	snprintf(what_line, sizeof(what_line),
			 "gsst_train (%d generations) of sample.txt, one value a line",
			 GSST_TRAIN_GENERATIONS);
	ok &= write_table_file("table.hex", what_line, table, table_len);
	snprintf(what_line, sizeof(what_line),
			 "gsst_train_generations(%d) of sample.txt, as PostgreSQL trains",
			 PG_TRAIN_GENERATIONS);
	ok &= write_table_file("table_gen12.hex", what_line, table12, table12_len);

	enc = xmalloc(sizeof(*enc));
	gsst_encoder_init(enc, &t);
	size_t		n = golden_inputs(&vs, what);

	if ((f = open_for_writing("datums.txt")) == NULL)
		return 1;
	fputs("# gsst golden vectors: values and their encoded datums (FORMAT.md, \"Datum\").\n"
		  "#   value <i> <hex>          input i (\"-\": empty)\n"
		  "#   datum <i> <id> <hex>     input i encoded with the table of table.hex and\n"
		  "#                            stored under table id <id>: gsst_datum_header_write\n"
		  "#                            then the codes of gsst_encode_value\n"
		  "# Whether PostgreSQL keeps a value encoded (header + codes shorter than the\n"
		  "# value) or raw is up to it; every input is pinned encoded here.  Values of\n"
		  "# more than 1024 bytes are pinned with the first and the last table id only.\n", f);
	fputs(file_note, f);
	for (size_t i = 0; i < n; i++)
	{
		size_t		len;
		const uint8_t *in = vs_value(&vs, i, &len);
		uint8_t    *out = xmalloc(datum_cap(len));
		size_t		codes = gsst_encode_value(enc, in, len, out, 2 * len);

		fprintf(f, "\n# %zu: %s; length %zu, %zu code bytes: ", i, what[i], len, codes);
		put_preview(f, in, len, 48);
		fprintf(f, "\nvalue %zu ", i);
		put_hex(f, in, len);
		fputc('\n', f);
		uint32_t	ids[NIDS];
		size_t		nids = ids_of_value(len, ids);

		for (size_t k = 0; k < nids; k++)
		{
			size_t		d = encode_datum(enc, ids[k], in, len, out);

			fprintf(f, "datum %zu %" PRIu32 " ", i, ids[k]);
			put_hex(f, out, d);
			fputc('\n', f);
		}
		free(out);
	}
	ok &= close_written(f);

	uint8_t    *narrow[3] = {NULL, NULL, NULL};
	size_t		narrow_len[3] = {0, 0, 0};

	for (size_t k = 0; k < NTILES; k++)
	{
		const golden_tile *gt = &golden_tiles[k];
		uint8_t    *tile;
		size_t		len;

		if (gt->wide)
		{
			uint8_t    *from = narrow[gt->version];

			if (from == NULL)
				return 1;
			tile = gt->version == 1 ? widen(from, narrow_len[gt->version], &len) :
				widen_v2(from, narrow_len[gt->version], &len);
		}
		else
		{
			size_t		bound = gsst_tile_bound(vs.n, vs.bytes, gt->split_bytes);

			tile = xmalloc(bound);
			if (gsst_tile_encode_version(enc, vs.data, vs.offsets, vs.n, gt->split_bytes,
										 gt->version, tile, bound, &len) != GSST_OK)
			{
				fprintf(stderr, "gsst_tile_encode_version failed\n");
				return 1;
			}
		}
		ok &= write_tile_file(gt->file, gt->what, tile, len);
		if (!gt->wide && gt->split_bytes == 0)
		{
			narrow[gt->version] = tile;
			narrow_len[gt->version] = len;
		}
		else
			free(tile);
	}
	free(narrow[1]);
	free(narrow[2]);
	free(enc);
	vs_free(&vs);
	vs_free(&sample);
	return ok ? 0 : 1;
}
