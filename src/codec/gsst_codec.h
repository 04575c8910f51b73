/*
 * gsst_codec.h - the gsst codec: FSST-style symbol tables, per-value encode
 * and decode, and the GSST tile (batch) format.
 *
 * Pure C11.  No PostgreSQL and no CUDA headers: this is the single source of
 * truth for every byte format that gsst writes.  The codec never allocates;
 * callers own all memory (so PostgreSQL can use palloc, the GPU library
 * cudaMalloc, tests malloc).  See FORMAT.md beside this file for the byte
 * layouts and the encoding rule.
 */
#ifndef GSST_CODEC_H
#define GSST_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants that are part of the format (never change them) ---- */

#define GSST_MAX_SYMBOLS      255   /* codes 0..254 are symbols */
#define GSST_ESCAPE           255   /* code 255: next byte is a literal */
#define GSST_MAX_SYMBOL_LEN   8
#define GSST_SEGMENT_BYTES    4096  /* long values restart matching here */
#define GSST_HASH_BUCKETS     256   /* buckets of the long and pair hashes */
#define GSST_HASH_WAYS        4     /* entries per bucket */
#define GSST_TABLE_VERSION    1
#define GSST_TILE_VERSION     2   /* what gsst_tile_encode writes */
#define GSST_TILE_VERSION_MIN 1   /* the oldest tile version still read */
#define GSST_TILE_MAGIC       0x4c545347u   /* "GSTL" little-endian */
#define GSST_TILE_HEADER_BYTES 48

/* Serialized table: 2 header bytes + 8 length counts + symbol bytes. */
#define GSST_TABLE_MAX_BYTES  (10 + GSST_MAX_SYMBOLS * GSST_MAX_SYMBOL_LEN)

/* Bytes the encoder may write past out_limit (see gsst_encode_value). */
#define GSST_ENCODE_SLACK     16

/* Slots of the CPU encoder's cuckoo table of long symbols (not a format constant). */
#define GSST_CPU_LONG_SLOTS   1024

/* Slots of the CPU encoder's one-probe table of long symbols (not a format constant). */
#define GSST_CPU_DIRECT_BITS  14
#define GSST_CPU_DIRECT_SLOTS (1u << GSST_CPU_DIRECT_BITS)

/* Default raw bytes per tile split (parallel decode unit). */
#define GSST_DEFAULT_SPLIT_BYTES (32 * 1024)

typedef enum gsst_status
{
	GSST_OK = 0,
	GSST_ERR_TRUNCATED = -1,		/* input ends early */
	GSST_ERR_VERSION = -2,			/* unknown version or magic */
	GSST_ERR_BAD_TABLE = -3,		/* symbol table violates the format */
	GSST_ERR_BAD_CODE = -4,			/* code beyond the table */
	GSST_ERR_DANGLING_ESCAPE = -5,	/* escape code is the last byte */
	GSST_ERR_LENGTH = -6,			/* lengths do not add up */
	GSST_ERR_OFFSET = -7,			/* offset or index out of range */
	GSST_ERR_SPACE = -8,			/* output buffer too small */
	GSST_ERR_ARG = -9				/* invalid argument from the caller */
} gsst_status;

const char *gsst_strerror(int status);

/* ---- symbol table ---- */

/*
 * A loaded (validated) symbol table; it is also the decoder.  Codes are in
 * canonical order: by length, then by bytes.  symbol[c] holds the bytes of
 * code c little-endian, zero padded; len[c] is 0 for unused codes and for
 * GSST_ESCAPE.
 */
typedef struct gsst_table
{
	uint64_t	symbol[256];
	uint8_t		len[256];
	uint32_t	nsymbols;
	uint8_t		count_by_len[GSST_MAX_SYMBOL_LEN + 1];	/* [1..8] */
} gsst_table;

/*
 * Encoder state derived from a table.  The part a GPU keeps in shared
 * memory is about 10 KB:
 *   byte_code[b]      code of 1-byte symbol b, or GSST_ESCAPE;
 *   pair_hash         256 buckets x 4: (b0 | b1 << 8 | code << 24);
 *   long_hash         256 buckets x 4: (3-byte prefix | code << 24), for
 *                     symbols of 3..8 bytes, at most one per prefix.
 * Empty hash entries carry code GSST_ESCAPE and a key that hashes to another
 * bucket, so a lookup matches at most one entry.  The CPU adds
 * short_code[b0 | b1 << 8] = (code | advance << 8), the best 2- or 1-byte
 * match in one load (128 KB, built once per table).
 */
typedef struct gsst_encoder
{
	uint32_t	long_hash[GSST_HASH_BUCKETS * GSST_HASH_WAYS];
	uint32_t	pair_hash[GSST_HASH_BUCKETS * GSST_HASH_WAYS];
	uint64_t	symbol[256];
	uint64_t	mask[256];		/* mask[c] keeps the len[c] low bytes */
	uint8_t		len[256];
	uint8_t		byte_code[256];
	uint16_t	byte_entry[256];	/* byte_code[b] | 1 << 8 */
	uint16_t	short_code[65536];
	gsst_table	table;

	/*
	 * CPU only: the long symbols again, in a 2-choice cuckoo table whose
	 * slots hold the symbol bytes and mask themselves, so that a match costs
	 * one dependent load after the hash instead of two (bucket, then
	 * symbol).  long_slot[s] = {symbol, mask}; long_entry[s] = code | len <<
	 * 8 in the format of short_code.  A symbol with prefix k sits in slot
	 * (k * long_mul[0]) >> 22 or (k * long_mul[1]) >> 22.  long_slots_ok is
	 * 0 when no multiplier pair placed every symbol (then the encoder uses
	 * long_hash).
	 */
	uint64_t	long_slot[GSST_CPU_LONG_SLOTS][2];
	uint16_t	long_entry[GSST_CPU_LONG_SLOTS];
	uint32_t	long_mul[2];
	uint32_t	long_slots_ok;

	/*
	 * CPU only: the long symbols once more, for the per-value encoder's
	 * interleaved chains, where the number of instructions per step counts
	 * more than its latency.  One probe: direct_slot[(word32 * direct_mul)
	 * >> (32 - GSST_CPU_DIRECT_BITS)] is the code of the only long symbol
	 * whose 3-byte prefix lands there (direct_mul has a zero low byte, so
	 * only the word's 3 low bytes count), or a code that is no long
	 * symbol, whose direct_symbol and direct_mask match no word reaching
	 * that slot.  direct_entry[c] = c | len << 8.  direct_ok is 0 when no
	 * multiplier spread the long symbols over distinct slots.
	 */
	uint8_t		direct_slot[GSST_CPU_DIRECT_SLOTS];
	uint64_t	direct_symbol[256];
	uint64_t	direct_mask[256];
	uint16_t	direct_entry[256];
	uint32_t	direct_mul;
	uint32_t	direct_ok;
} gsst_encoder;

/* The hash both encoders (CPU and GPU) use to place keys in buckets. */
static inline uint32_t
gsst_hash_bucket(uint32_t key)
{
	return (key * 0x9E3779B1u) >> 24;	/* 256 buckets */
}

/* Validate and load a serialized table.  *consumed gets its size. */
int			gsst_table_load(gsst_table *table, const uint8_t *in, size_t in_len,
							size_t *consumed);

/* Serialize; returns bytes written (<= GSST_TABLE_MAX_BYTES), or < 0. */
int			gsst_table_serialize(const gsst_table *table, uint8_t *out, size_t cap);

/* Size of the serialized form. */
size_t		gsst_table_serialized_size(const gsst_table *table);

/*
 * Build a table from a list of symbols (any order; they are sorted into
 * canonical order).  Fails with GSST_ERR_BAD_TABLE if the set breaks the
 * profile: duplicates, lengths outside 1..8, two long symbols with the same
 * 3-byte prefix, or a hash bucket with more than GSST_HASH_WAYS entries.
 */
int			gsst_table_build(gsst_table *table, const uint64_t *symbols,
							 const uint8_t *lens, size_t n);

/* Derive encoder state from a validated table. */
void		gsst_encoder_init(gsst_encoder *enc, const gsst_table *table);

/* ---- training ---- */

/* Scratch memory the trainer needs; pass a buffer of this many bytes. */
size_t		gsst_train_work_bytes(void);

/*
 * Train a table from values[i] of lens[i] bytes.  Deterministic: the same
 * values give the same table.  work must hold gsst_train_work_bytes() bytes
 * and be 8-byte aligned; its contents need not be initialised.
 */
int			gsst_train(gsst_table *table, const uint8_t *const *values,
					   const size_t *lens, size_t n, void *work);

/*
 * The same with a chosen number of generations (1 to GSST_TRAIN_MAX_GENERATIONS;
 * gsst_train uses GSST_TRAIN_GENERATIONS).  More generations find better
 * tables (on the dbtext files: 5 give ratio 2.125, 12 give 2.174) at a
 * proportional cost: worth it where a table is trained once and kept, as
 * PostgreSQL's dictionaries are.
 */
#define GSST_TRAIN_GENERATIONS      5
#define GSST_TRAIN_MAX_GENERATIONS  32
int			gsst_train_generations(gsst_table *table, const uint8_t *const *values,
								   const size_t *lens, size_t n, void *work,
								   int generations);

/* ---- per-value encode / decode ---- */

/*
 * Encode one value.  Reads exactly in[0..len).  Writes the codes to out and
 * returns their count, or (size_t) -1 when more than out_limit bytes would be
 * needed; out must have room for out_limit + GSST_ENCODE_SLACK bytes.  The
 * caller stores the value raw when the codes are not shorter than it wants.
 * Values longer than GSST_SEGMENT_BYTES are encoded segment by segment.
 */
size_t		gsst_encode_value(const gsst_encoder *enc, const uint8_t *in,
							  size_t len, uint8_t *out, size_t out_limit);

/* Decoded length of a code sequence, validating it; < 0 on bad input. */
int64_t		gsst_decoded_length(const gsst_table *table, const uint8_t *in,
								size_t in_len);

/*
 * Characters of the UTF-8 text a code sequence decodes to, counted on the
 * symbols without decoding: the bytes that do not continue a character
 * (10xxxxxx).  Exact when the decoded bytes are valid UTF-8.  Validates
 * the codes like gsst_decoded_length; < 0 on bad input.
 */
int64_t		gsst_decoded_utf8_chars(const gsst_table *table, const uint8_t *in,
									size_t in_len);

/*
 * Decode a code sequence into out[0..out_cap).  Returns the decoded length
 * or < 0.  Never reads past in[in_len) nor writes past out[out_cap).
 */
int64_t		gsst_decode_value(const gsst_table *table, const uint8_t *in,
							  size_t in_len, uint8_t *out, size_t out_cap);

/* ---- partial decoding: as far as an answer needs (partial.c) ---- */

/*
 * Decode codes until at least want bytes are out or the codes end; returns
 * how many bytes were decoded (at least want, unless the value is shorter)
 * or < 0.  out_cap must be at least want + GSST_MAX_SYMBOL_LEN.  Codes past
 * the point where want bytes are out are neither read nor validated.
 */
int64_t		gsst_decode_prefix(const gsst_table *table, const uint8_t *in,
							   size_t in_len, uint8_t *out, size_t out_cap,
							   size_t want);

/*
 * Where decoded value A stands against B, in memcmp order then the shorter
 * first (text's order under the C collation).
 */
#define GSST_ORDER_LESS			(-2)	/* a byte of A is smaller */
#define GSST_ORDER_PREFIX_OF	(-1)	/* A is a proper prefix of B */
#define GSST_ORDER_EQUAL		0
#define GSST_ORDER_HAS_PREFIX	1		/* B is a proper prefix of A */
#define GSST_ORDER_GREATER		2		/* a byte of A is greater */

/*
 * Order of the value the codes decode to (A) against text (B), decoding
 * only up to the first byte that differs or the end of text; *order gets a
 * GSST_ORDER_* value.  Returns GSST_OK or < 0 for a bad code met before the
 * answer was known (later codes are not validated).  A starts with B when
 * *order is GSST_ORDER_EQUAL or GSST_ORDER_HAS_PREFIX.
 */
int			gsst_compare_text(const gsst_table *table, const uint8_t *in,
							  size_t in_len, const uint8_t *text, size_t text_len,
							  int *order);

/*
 * The same, faster, when text[text_len .. text_len + 8) may be read too
 * (its contents do not matter): every symbol then compares as one word.
 */
int			gsst_compare_text_padded(const gsst_table *table, const uint8_t *in,
									 size_t in_len, const uint8_t *text,
									 size_t text_len, int *order);

/* The same for two code sequences, each with its table, decoded in step. */
int			gsst_compare_codes(const gsst_table *ta, const uint8_t *a, size_t a_len,
							   const gsst_table *tb, const uint8_t *b, size_t b_len,
							   int *order);

/*
 * The first 8 codes of a sequence as a little-endian word, zero past its
 * end, read without reading outside the sequence and the `before`
 * readable bytes that precede it (a caller's headers), when it has 8 codes
 * or more or these make up 4 bytes.  Returns 0 otherwise.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
gsst_codes_word(const uint8_t *p, size_t len, size_t before, uint64_t *word)
{
	uint64_t	w;

	if (len == 0 || len + before < 4)
		return 0;
	if (len + before >= 8)
	{
		/* the first 8, or the 8 bytes that end at the end */
		if (len >= 8)
		{
			memcpy(&w, p, 8);
			*word = w;
			return 1;
		}
		memcpy(&w, p + len - 8, 8);
		*word = w >> (8 * (8 - len));
		return 1;
	}
	else
	{
		/* 4 to 7 readable bytes: two 4-byte loads that overlap */
		uint32_t	lo;
		uint32_t	hi;
		size_t		total = before + len;

		memcpy(&lo, p - before, 4);
		memcpy(&hi, p + len - 4, 4);
		*word = ((uint64_t) lo | (uint64_t) hi << (8 * (total - 4))) >> (8 * before);
		return 1;
	}
}

/*
 * Whether the low m bytes (m is 1 to 8) of two little-endian words of
 * decoded text differ; if so *order is their order under C, which the
 * first differing byte, the lowest, decides.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
gsst_order_low_bytes(uint64_t a, uint64_t b, unsigned m, int *order)
{
	uint64_t	mask = ~0ull >> (8 * (8 - m));

	a &= mask;
	b &= mask;
	if (a == b)
		return 0;
	*order = __builtin_bswap64(a) < __builtin_bswap64(b)
		? GSST_ORDER_LESS : GSST_ORDER_GREATER;
	return 1;
}

/*
 * The bytes that code k of a word of gsst_codes_word and the code after it
 * decode to, the first in the low bytes, and how many of them (at most 8);
 * the second only when it is in the word, is no escape, and is used.
 * Returns 0 for an unused code k.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline unsigned
gsst_codes_window(const gsst_table *table, uint64_t w, size_t len, unsigned k,
				  uint64_t *bytes)
{
	unsigned	c = (unsigned) (w >> (8 * k)) & 0xFF;
	unsigned	n = table->len[c];
	unsigned	next;

	*bytes = table->symbol[c];
	if (n == 0 || n == 8 || k + 1 >= len || k + 1 >= 8)
		return n;
	next = (unsigned) (w >> (8 * (k + 1))) & 0xFF;
	if (next == GSST_ESCAPE || table->len[next] == 0)
		return n;
	*bytes |= table->symbol[next] << (8 * n);
	n += table->len[next];
	return n < 8 ? n : 8;
}

/*
 * gsst_compare_codes_first's answer when one of the symbols of the first
 * differing codes (k) begins the other: what the next codes add decides.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
gsst_compare_codes_next(const gsst_table *table, uint64_t wa, size_t a_len,
						uint64_t wb, size_t b_len, unsigned k, int *order)
{
	uint64_t	sa;
	uint64_t	sb;
	unsigned	la = gsst_codes_window(table, wa, a_len, k, &sa);
	unsigned	lb = gsst_codes_window(table, wb, b_len, k, &sb);
	return gsst_order_low_bytes(sa, sb, la < lb ? la : lb, order);
}

/*
 * The usual answer of gsst_compare_codes_quick, from the words of
 * gsst_codes_word alone: the sequences are the same codes (equal, unused
 * codes or not), or they differ within their first 8 codes and before the
 * shorter one ends, no escape comes before the first differing code (it
 * could make that byte a literal), and what that code and the next decode
 * to differ on each side within the shorter.  Returns 1 and sets *order, or
 * 0 when gsst_compare_codes_quick must answer (unused codes included: it
 * reports them).  Sorts of short values spend most of
 * their comparisons here, so it has no loop.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
gsst_compare_codes_first(const gsst_table *table, uint64_t wa, size_t a_len,
						 uint64_t wb, size_t b_len, int *order)
{
	uint64_t	diff = wa ^ wb;
	size_t		n = a_len < b_len ? a_len : b_len;
	unsigned	k;
	uint64_t	through_k;
	unsigned	ca;
	unsigned	cb;
	unsigned	la;
	unsigned	lb;
	unsigned	m;

	if (diff == 0)
	{
		/* the same codes, all of them, decode to the same text */
		if (a_len != b_len || a_len > 8)
			return 0;
		*order = GSST_ORDER_EQUAL;
		return 1;
	}
	k = (unsigned) __builtin_ctzll(diff) / 8;
	if (k >= n)
		return 0;
	/* an escape (0xFF) among bytes 0..k of either word (exact below the first) */
	through_k = ~0ull >> (8 * (7 - k));
	if ((((~wa - 0x0101010101010101ull) & wa) | ((~wb - 0x0101010101010101ull) & wb)) &
		0x8080808080808080ull & through_k)
		return 0;
	ca = (unsigned) (wa >> (8 * k)) & 0xFF;
	cb = (unsigned) (wb >> (8 * k)) & 0xFF;
	la = table->len[ca];
	lb = table->len[cb];
	m = la < lb ? la : lb;
	if (m == 0)
		return 0;
	return gsst_order_low_bytes(table->symbol[ca], table->symbol[cb], m, order) ||
		gsst_compare_codes_next(table, wa, a_len, wb, b_len, k, order);
}

/*
 * gsst_compare_text_quick's usual answer from words alone: codes (A, a
 * word of gsst_codes_word) against text (B, its first 8 bytes as a word,
 * zero past its end), by the bytes the first codes decode to, up to 8.
 * Returns 1 and sets *order when those bytes differ from the text's, or 0
 * when gsst_compare_text_quick must answer.  Text has no zero byte, so a
 * zero byte of the text's word is its end, which sorts first.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
gsst_compare_text_first(const gsst_table *table, uint64_t wa, size_t a_len,
						uint64_t text_word, int *order)
{
	uint64_t	decoded = 0;
	unsigned	n = 0;

	for (unsigned i = 0; i < a_len && i < 8 && n < 8; i++)
	{
		unsigned	c = (unsigned) (wa >> (8 * i)) & 0xFF;

		if (c == GSST_ESCAPE || table->len[c] == 0)
			break;
		decoded |= table->symbol[c] << (8 * n);
		n += table->len[c];
	}
	return n != 0 && gsst_order_low_bytes(decoded, text_word, n < 8 ? n : 8, order);
}

/*
 * gsst_compare_codes for two sequences of one table, inline: the run of
 * equal codes is skipped a word at a time, then the symbols from there on
 * compare in step, an escape's literal as a symbol of one byte, until a
 * byte differs or a sequence ends.  Returns 1 and sets *order, or 0 for a
 * bad code (the full comparison reports it).  Codes within the equal run
 * are checked only when the run is all of the shorter sequence, as
 * gsst_compare_codes does.  Sorts and btrees call it once per comparison,
 * where a call's overhead counts.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
gsst_compare_codes_quick(const gsst_table *table, const uint8_t *a, size_t a_len,
						 const uint8_t *b, size_t b_len, int *order)
{
	size_t		n = a_len < b_len ? a_len : b_len;
	size_t		k = 0;
	int			escapes = 0;
	size_t		i;
	size_t		j;
	uint64_t	sa = 0;
	uint64_t	sb = 0;
	unsigned	la = 0;
	unsigned	lb = 0;

	while (k + 8 <= n)
	{
		uint64_t	wa;
		uint64_t	wb;
		uint64_t	inv;
		unsigned	same;

		memcpy(&wa, a + k, 8);
		memcpy(&wb, b + k, 8);
		same = wa == wb ? 8 : (unsigned) __builtin_ctzll(wa ^ wb) / 8;
		/* an escape (0xFF) among the equal bytes: its literal may be cut */
		inv = ~wa;
		if ((inv - 0x0101010101010101ull) & wa & 0x8080808080808080ull &
			(same == 8 ? ~0ull : (1ull << (8 * same)) - 1))
			escapes = 1;
		k += same;
		if (same < 8)
			break;
	}
	if (k + 8 > n)
		while (k < n && a[k] == b[k])
		{
			escapes |= a[k] == GSST_ESCAPE;
			k++;
		}
	if (escapes || k == n)
	{
		/* the run ends at the last whole code; all checked when it is all */
		unsigned	unused = 0;

		for (j = 0; j < k;)
		{
			if (a[j] == GSST_ESCAPE)
			{
				if (j + 2 > k)
					break;
				j += 2;
			}
			else
				unused |= table->len[a[j++]] == 0;
		}
		if (k == n && unused)
			return 0;
		k = j;
	}
	i = k;
	j = k;
	for (;;)
	{
		unsigned	m;

		if (la == 0)
		{
			if (i == a_len)
			{
				/* A has ended: equal to B, or a prefix of it */
				if (lb == 0 && j < b_len &&
					(b[j] == GSST_ESCAPE ? j + 1 == b_len : table->len[b[j]] == 0))
					return 0;
				*order = lb == 0 && j == b_len ? GSST_ORDER_EQUAL : GSST_ORDER_PREFIX_OF;
				return 1;
			}
			if (a[i] == GSST_ESCAPE)
			{
				if (i + 1 == a_len)
					return 0;
				sa = a[i + 1];
				la = 1;
				i += 2;
			}
			else
			{
				la = table->len[a[i]];
				sa = table->symbol[a[i]];
				i++;
				if (la == 0)
					return 0;
			}
		}
		if (lb == 0)
		{
			if (j == b_len)
			{
				*order = GSST_ORDER_HAS_PREFIX;
				return 1;
			}
			if (b[j] == GSST_ESCAPE)
			{
				if (j + 1 == b_len)
					return 0;
				sb = b[j + 1];
				lb = 1;
				j += 2;
			}
			else
			{
				lb = table->len[b[j]];
				sb = table->symbol[b[j]];
				j++;
				if (lb == 0)
					return 0;
			}
		}
		m = la < lb ? la : lb;
		if (gsst_order_low_bytes(sa, sb, m, order))
			return 1;
		/* m == 8 only when both symbols are used up */
		if (m < 8)
		{
			sa >>= 8 * m;
			sb >>= 8 * m;
		}
		la -= m;
		lb -= m;
	}
}

/*
 * gsst_compare_text inline, for a sort's or a btree's comparison of codes
 * against a raw value: the symbols compare with the text a word at a time
 * until a byte differs or either ends.  Returns 1 and sets *order, or 0
 * for a bad code (gsst_compare_text reports it).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
gsst_compare_text_quick(const gsst_table *table, const uint8_t *in, size_t in_len,
						const uint8_t *text, size_t text_len, int *order)
{
	size_t		i = 0;
	size_t		p = 0;

	while (i < in_len)
	{
		uint64_t	sym;
		uint64_t	t = 0;
		uint64_t	d;
		unsigned	n;
		unsigned	m;
		size_t		left = text_len - p;

		if (in[i] == GSST_ESCAPE)
		{
			if (i + 1 == in_len)
				return 0;
			sym = in[i + 1];
			n = 1;
			i += 2;
		}
		else
		{
			n = table->len[in[i]];
			sym = table->symbol[in[i]];
			i++;
			if (n == 0)
				return 0;
		}
		if (left == 0)
		{
			*order = GSST_ORDER_HAS_PREFIX;
			return 1;
		}
		m = n < left ? n : (unsigned) left;
		if (left >= 8)
			memcpy(&t, text + p, 8);
		else
			for (unsigned k = 0; k < m; k++)
				t |= (uint64_t) text[p + k] << (8 * k);
		d = (sym ^ t) & (m == 8 ? ~0ull : (1ull << (8 * m)) - 1);
		if (d != 0)
		{
			unsigned	at = (unsigned) __builtin_ctzll(d) & ~7u;

			*order = ((sym >> at) & 0xFF) < ((t >> at) & 0xFF)
				? GSST_ORDER_LESS : GSST_ORDER_GREATER;
			return 1;
		}
		if (n > left)
		{
			*order = GSST_ORDER_HAS_PREFIX;
			return 1;
		}
		p += n;
	}
	*order = p == text_len ? GSST_ORDER_EQUAL : GSST_ORDER_PREFIX_OF;
	return 1;
}

/*
 * What the first code of a value alone tells about it against text (of at
 * least one byte), for every code: its symbol differs from text at a byte
 * that sorts before or after text's (GSST_FIRST_LESS, GSST_FIRST_GREATER),
 * or covers all of text (GSST_FIRST_STARTS_WITH: the value starts with
 * text), or the codes after it decide (GSST_FIRST_UNKNOWN; also for the
 * escape and unused codes).  A prefix test per value then costs a look-up
 * in most cases.
 */
#define GSST_FIRST_UNKNOWN		0
#define GSST_FIRST_LESS			(-2)
#define GSST_FIRST_GREATER		2
#define GSST_FIRST_STARTS_WITH	1
void		gsst_first_code_verdicts(const gsst_table *table, const uint8_t *text,
									 size_t text_len, int8_t verdict[256]);

/* ---- the PostgreSQL datum header (FORMAT.md, "Datum") ---- */

#define GSST_DATUM_MAX_HEADER 6
#define GSST_DATUM_VERSION    1
#define GSST_MAX_TABLE_ID     0x3fffffffu

/* Write 0x00 + varint(table_id << 2 | (version - 1)); returns its length. */
size_t		gsst_datum_header_write(uint32_t table_id, uint8_t *out);

/*
 * Parse the header of an encoded datum (which starts with 0x00).  Returns
 * the header length and sets *table_id, or < 0 (truncated, unknown version,
 * overlong varint).
 */
int			gsst_datum_header_parse(const uint8_t *in, size_t len, uint32_t *table_id);

/*
 * The same, inline for the headers of 2 and 3 bytes (table ids below 4096,
 * the usual ones); others go to gsst_datum_header_parse.  table_id must
 * not be NULL.
 */
static inline int
gsst_datum_header_parse_fast(const uint8_t *in, size_t len, uint32_t *table_id)
{
	if (len >= 2 && in[0] == 0x00 && in[1] < 0x80 && (in[1] & 3) == GSST_DATUM_VERSION - 1)
	{
		*table_id = in[1] >> 2;
		return 2;
	}
	if (len >= 3 && in[0] == 0x00 && in[1] >= 0x80 && in[2] != 0 && in[2] < 0x80 &&
		(in[1] & 3) == GSST_DATUM_VERSION - 1)
	{
		*table_id = ((uint32_t) (in[1] & 0x7F) | (uint32_t) in[2] << 7) >> 2;
		return 3;
	}
	return gsst_datum_header_parse(in, len, table_id);
}

/* ---- tiles (the GSST batch format, FORMAT.md) ---- */

typedef struct gsst_tile
{
	/* parsed header */
	uint32_t	version;		/* 1 or 2 */
	uint32_t	offset_width;	/* W: 4 or 8 bytes per index entry */
	uint32_t	segment_bytes;
	uint32_t	table_bytes;
	uint64_t	nvalues;
	uint64_t	nsplits;
	uint64_t	raw_bytes;
	uint64_t	code_bytes;
	uint64_t	nlongs;			/* v2: values with their lengths in the long list */
	/* pointers into the tile buffer (tile_layout.h says where) */
	const uint8_t *base;			/* the tile itself */
	const uint8_t *comp_offsets;	/* v1: nvalues + 1 entries */
	const uint8_t *raw_offsets;		/* v1: nvalues + 1 entries */
	const uint8_t *blocks;			/* v2: (blocks + 1) x 3 entries */
	const uint8_t *code_lens;		/* v2: nvalues bytes */
	const uint8_t *raw_lens;		/* v2: nvalues bytes */
	const uint8_t *longs;			/* v2: nlongs x 2 entries */
	const uint8_t *splits;			/* (nsplits + 1) x 3 entries */
	const uint8_t *codes;
	size_t		tile_bytes;
	gsst_table	table;
} gsst_tile;

/* Upper bound of the tile size for n values of raw_bytes in total. */
size_t		gsst_tile_bound(size_t n, size_t raw_bytes, size_t split_bytes);

/*
 * Encode values data[offsets[i] .. offsets[i+1]) for i < n into a tile.
 * split_bytes is the target raw size of a split (0 = default).  cap must be
 * at least gsst_tile_bound(n, raw bytes, split_bytes), even though the tile
 * ends up smaller (the encoder works in that room); else GSST_ERR_SPACE.
 * Returns GSST_OK and the tile size in *tile_len.
 */
int			gsst_tile_encode(const gsst_encoder *enc, const uint8_t *data,
							 const uint64_t *offsets, size_t n, size_t split_bytes,
							 uint8_t *out, size_t cap, size_t *tile_len);

/*
 * The same in tile format version (1 or 2; gsst_tile_encode writes
 * GSST_TILE_VERSION).  Version 1 is for tests and benchmarks of old tiles.
 */
int			gsst_tile_encode_version(const gsst_encoder *enc, const uint8_t *data,
									 const uint64_t *offsets, size_t n, size_t split_bytes,
									 uint32_t version, uint8_t *out, size_t cap,
									 size_t *tile_len);

/* Parse and fully validate a tile (hostile input allowed). */
int			gsst_tile_open(gsst_tile *tile, const uint8_t *buf, size_t len);

/*
 * Entry accessors of an opened tile.  On a version 2 tile, an offset costs
 * a read of the value's block (at most GSST_TILE_BLOCK_VALUES length bytes):
 * walk many values with the decoders instead.
 */
uint64_t	gsst_tile_comp_offset(const gsst_tile *tile, uint64_t i);
uint64_t	gsst_tile_raw_offset(const gsst_tile *tile, uint64_t i);
void		gsst_tile_split(const gsst_tile *tile, uint64_t s, uint64_t *first_value,
							uint64_t *comp_offset, uint64_t *raw_offset);

/*
 * The offsets of values first .. first + count (count + 1 entries each, the
 * last one where value first + count starts), in one walk of the index: for
 * callers that read many values' offsets.  first + count <= nvalues, else
 * GSST_ERR_OFFSET.
 */
int			gsst_tile_offsets(const gsst_tile *tile, uint64_t first, uint64_t count,
							  uint64_t *comp_offsets, uint64_t *raw_offsets);

/* Decode the whole tile: out gets all values back to back (raw_bytes). */
int			gsst_tile_decode_all(const gsst_tile *tile, uint8_t *out, size_t out_cap);

/* Decode split s into out + its raw offset (out holds raw_bytes). */
int			gsst_tile_decode_split(const gsst_tile *tile, uint64_t s, uint8_t *out,
								   size_t out_cap);

/* Decode value i alone; returns its length or < 0. */
int64_t		gsst_tile_decode_one(const gsst_tile *tile, uint64_t i, uint8_t *out,
								 size_t out_cap);

#ifdef __cplusplus
}
#endif

#endif							/* GSST_CODEC_H */
