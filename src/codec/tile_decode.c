/*
 * tile_decode.c - decoding a GSST tile: all of it, one split, or one value
 * (FORMAT.md).  The tile was validated by gsst_tile_open.
 */
#include "tile_internal.h"

#include "decode_avx512.h"
#include "decode_run.h"

/* ---- decoding ---- */

/*
 * Decode the codes [comp_from, comp_to) of one value (or a part of it) into
 * dst, which must receive exactly raw_len bytes; write nothing at or past
 * out_end.
 */
GSST_INLINE int
decode_piece(const gsst_tile *t, int stored_raw, uint64_t comp_from, uint64_t comp_to,
			 uint8_t *dst, uint64_t raw_len, uint8_t *out_end)
{
	if (stored_raw)
	{
		if (comp_to - comp_from != raw_len)
			return GSST_ERR_LENGTH;
		memcpy(dst, t->codes + comp_from, raw_len);
		return GSST_OK;
	}
	else
	{
		int64_t		n = gsst_decode_run(&t->table, t->codes + comp_from,
										t->codes + comp_to, dst, out_end);

		if (n < 0)
			return (int) n;
		return (uint64_t) n == raw_len ? GSST_OK : GSST_ERR_LENGTH;
	}
}

/*
 * The fast paths.  A value of at most SHORT_CODES codes (or stored raw, so
 * of at most SHORT_CODES bytes) decodes without a data-dependent branch:
 * two 8-code words, padded with escapes, are decoded in full and the
 * checks are or-ed together; short values are independent, so the core
 * overlaps them.  Longer values loop over 8-code blocks.  Anything these
 * paths do not accept (an escape in a short value, an unused code, a wrong
 * length) goes to decode_piece, which decodes it exactly or names the error.
 */
#define DECODE_ROOM 64
#define SHORT_CODES 16

typedef struct fast_decoder
{
	const uint64_t *symbol;
	const uint8_t *len;
	const uint8_t *codes;
	uint64_t	code_add;		/* constants of codes_unused() */
	uint64_t	code_or;
	uint64_t	comp_short_end; /* a value starting below may load 16 code bytes */
	uint64_t	comp_word_end;	/* a block starting below may load 8 code bytes */
} fast_decoder;

GSST_INLINE void
fast_decoder_init(fast_decoder *d, const gsst_tile *t)
{
	uint64_t	n = t->table.nsymbols;

	d->symbol = t->table.symbol;
	d->len = t->table.len;
	d->codes = t->codes;
	/* bytes_at_least(x, n) without its branch: see codes_unused() */
	d->code_add = 0x0101010101010101ull * ((n >= 128 ? 256 : 128) - n);
	d->code_or = n >= 128 ? 0 : 0x8080808080808080ull;
	d->comp_short_end = t->code_bytes >= 16 ? t->code_bytes - 15 : 0;
	d->comp_word_end = t->code_bytes >= 8 ? t->code_bytes - 7 : 0;
}

/*
 * Flags (bit 7) the bytes of x that are codes >= nsymbols: unused codes and
 * escapes.  bytes_at_least() with the choice on nsymbols >= 128 made once:
 * t has bit 7 where the low 7 bits reach the bound, and code_or says
 * whether bit 7 alone already suffices.
 */
GSST_INLINE uint64_t
codes_unused(const fast_decoder *d, uint64_t x)
{
	const uint64_t high_bits = 0x8080808080808080ull;
	uint64_t	high = x & high_bits;
	uint64_t	t = ((x & ~high_bits) + d->code_add) & high_bits;

	return (high & (t | d->code_or)) | (t & d->code_or);
}

/* Decode the 8 codes of w at o (all valid, or escapes: 8 zero bytes, length 0). */
GSST_INLINE uint8_t *
decode_word(const fast_decoder *d, uint64_t w, uint8_t *o)
{
	const uint64_t *symbol = d->symbol;
	const uint8_t *len = d->len;

	GSST_DECODE_SLOT(w, 0);
	GSST_DECODE_SLOT(w, 1);
	GSST_DECODE_SLOT(w, 2);
	GSST_DECODE_SLOT(w, 3);
	GSST_DECODE_SLOT(w, 4);
	GSST_DECODE_SLOT(w, 5);
	GSST_DECODE_SLOT(w, 6);
	GSST_DECODE_SLOT(w, 7);
	return o;
}

/* short_mask[k] keeps the first k code bytes of the two words */
static const uint64_t short_mask[SHORT_CODES + 1][2] = {
	{0, 0},
	{0xFFull, 0}, {0xFFFFull, 0}, {0xFFFFFFull, 0}, {0xFFFFFFFFull, 0},
	{0xFFFFFFFFFFull, 0}, {0xFFFFFFFFFFFFull, 0}, {0xFFFFFFFFFFFFFFull, 0},
	{~0ull, 0},
	{~0ull, 0xFFull}, {~0ull, 0xFFFFull}, {~0ull, 0xFFFFFFull}, {~0ull, 0xFFFFFFFFull},
	{~0ull, 0xFFFFFFFFFFull}, {~0ull, 0xFFFFFFFFFFFFull}, {~0ull, 0xFFFFFFFFFFFFFFull},
	{~0ull, ~0ull}
};

/*
 * Decode a value of k <= SHORT_CODES codes at in to n bytes at dst with no
 * branch on the data.  Returns 0 when done, else nonzero (the caller falls
 * back to decode_piece).  Needs in[0..16) readable and dst[0 .. n +
 * DECODE_ROOM) writable: the first word stores at most 64 bytes past dst,
 * and the second starts at most n bytes in (clamped; a value that gets
 * there early is bad anyway).
 */
GSST_INLINE uint64_t
decode_short(const fast_decoder *d, const uint8_t *in, uint64_t k, uint8_t *dst,
			 uint64_t n)
{
	uint64_t	raw_mask = -(uint64_t) (k == n);	/* stored raw */
	uint64_t	codes_k = k & ~raw_mask;
	uint64_t	m0 = short_mask[codes_k][0],
				m1 = short_mask[codes_k][1];
	uint64_t	w0 = load_u64(in),
				w1 = load_u64(in + 8);
	uint64_t	bad = (codes_unused(d, w0 & m0) & m0) | (codes_unused(d, w1 & m1) & m1);
	uint8_t    *o = decode_word(d, w0 | ~m0, dst);
	uint64_t	at = (uint64_t) (o - dst);
	uint64_t	over = -(uint64_t) (at > n);

	bad |= over;
	o = dst + ((at & ~over) | (n & over));
	/* a branch, but one that short-valued columns predict */
	if (codes_k > 8)
		o = decode_word(d, w1 | ~m1, o);
	/* a raw value (all escapes above: nothing decoded) is its 16 code bytes */
	bad |= (uint64_t) (o - dst) ^ (n & ~raw_mask);
	{
		uint8_t    *raw_dst = dst + ((n + DECODE_ROOM - 16) & ~raw_mask);

		store_u64(raw_dst, w0);
		store_u64(raw_dst + 8, w1);
	}
	return bad;
}

/*
 * Decode a value of k > SHORT_CODES codes at in to n bytes at dst, 8 codes
 * a block; a block with an escape or an unused code goes code by code.
 * Returns 0 when done, else nonzero.  Needs dst[0 .. n + DECODE_ROOM)
 * writable: a block starts at most n bytes in.  Reads only in[0..k) except
 * for whole words below d->comp_word_end.
 */
GSST_INLINE int
decode_long(const fast_decoder *d, uint64_t comp, uint64_t k, uint8_t *dst, uint64_t n)
{
	const uint8_t *in = d->codes + comp;
	const uint8_t *in_end = in + k;
	const uint8_t *word_end = d->codes + d->comp_word_end;
	uint8_t    *o = dst;
	uint8_t    *o_limit = dst + n;

	while (in < in_end)
	{
		uint64_t	w,
					valid;

		if (GSST_LIKELY(in < word_end))
			w = load_u64(in);
		else
			w = load_partial(in, (size_t) (in_end - in));
		valid = low_bytes_mask(in_end - in >= 8 ? 8 : (unsigned) (in_end - in));
		if (GSST_UNLIKELY(codes_unused(d, w & valid) & valid))
		{
			/* code by code up to the end of this block (and an escape's literal) */
			const uint8_t *block_end = in + 8 < in_end ? in + 8 : in_end;

			while (in < block_end)
			{
				unsigned	code = *in++;

				if (code == GSST_ESCAPE)
				{
					if (in == in_end)
						return 1;
					*o++ = *in++;
				}
				else if (d->len[code] == 0)
					return 1;
				else
				{
					store_u64(o, d->symbol[code]);
					o += d->len[code];
				}
			}
		}
		else
		{
			o = decode_word(d, w | ~valid, o);
			in += 8;
		}
		if (GSST_UNLIKELY(o > o_limit))
			return 1;
	}
	return o != o_limit;
}

/*
 * Decode value i, whose codes are [comp, comp_next) and whose raw bytes go
 * to dst .. dst + raw_len, where dst + raw_len + DECODE_ROOM <= out_end
 * when room is set.
 */
GSST_INLINE int
decode_value(const fast_decoder *d, const gsst_tile *t, uint64_t comp, uint64_t comp_next,
			 uint8_t *dst, uint64_t raw_len, uint8_t *out_end, int room)
{
	uint64_t	k = comp_next - comp;

	if (GSST_LIKELY(room))
	{
		if (k <= SHORT_CODES && comp < d->comp_short_end)
		{
			if (GSST_LIKELY(decode_short(d, d->codes + comp, k, dst, raw_len) == 0))
				return GSST_OK;
		}
		else if (k < raw_len && decode_long(d, comp, k, dst, raw_len) == 0)
			return GSST_OK;
	}
	return decode_piece(t, k == raw_len, comp, comp_next, dst, raw_len, out_end);
}

/*
 * Decode count values whose offsets are comp_at[0 .. count] and
 * raw_at[0 .. count], entries of width bytes: a version 1 index, or a
 * window of a version 2 one expanded by v2_expand.
 */
GSST_INLINE int
decode_values_width(const gsst_tile *t, const uint8_t *comp_at, const uint8_t *raw_at,
					uint64_t count, uint8_t *out, uint8_t *out_end, uint32_t width)
{
	fast_decoder d;
	uint64_t	comp = read_entry(comp_at, 0, width),
				raw = read_entry(raw_at, 0, width);

	fast_decoder_init(&d, t);
	for (uint64_t i = 0; i < count; i++)
	{
		uint64_t	comp_next = read_entry(comp_at, i + 1, width);
		uint64_t	raw_next = read_entry(raw_at, i + 1, width);
		uint64_t	raw_len = raw_next - raw;
		int			room = (uint64_t) (out_end - (out + raw)) >= raw_len + DECODE_ROOM;
		int			rc = decode_value(&d, t, comp, comp_next, out + raw, raw_len, out_end, room);

		if (GSST_UNLIKELY(rc != GSST_OK))
			return rc;
		comp = comp_next;
		raw = raw_next;
	}
	return GSST_OK;
}

/*
 * Values a version 2 tile's decoders expand at a time: a multiple of
 * GSST_TILE_BLOCK_VALUES, with 16 entries more for the AVX-512 windows.
 */
#define V2_WINDOW_VALUES	(8 * GSST_TILE_BLOCK_VALUES)
#define V2_WINDOW_ENTRIES	(V2_WINDOW_VALUES + 16 + 1)

static int
decode_all_v2(const gsst_tile *t, uint8_t *out, uint8_t *out_end)
{
	uint8_t		comp_at[V2_WINDOW_ENTRIES * 8],
				raw_at[V2_WINDOW_ENTRIES * 8];

	for (uint64_t i = 0; i < t->nvalues; i += V2_WINDOW_VALUES)
	{
		uint64_t	count = t->nvalues - i < V2_WINDOW_VALUES ? t->nvalues - i : V2_WINDOW_VALUES;
		int			rc;

		v2_expand(t, i, count, comp_at, raw_at, 8);
		rc = decode_values_width(t, comp_at, raw_at, count, out, out_end, 8);
		if (rc != GSST_OK)
			return rc;
	}
	return GSST_OK;
}

/*
 * AVX-512 (VBMI2) decoding, chosen at run time, with the steps of
 * decode_avx512.h.  decode_all decodes a window of 16 codes that covers
 * several whole short values as one stream, and checks each value's length
 * with a prefix sum of the code lengths, so the rule that every value
 * decodes on its own to exactly its length still holds.  Windows and
 * values these paths do not accept (escapes, unused codes, wrong lengths,
 * stored raw values) go to the scalar decoder above.
 */
#ifdef GSST_DECODE_AVX512
/*
 * decode_all for 4-byte index entries.  A window starts at value i and
 * takes the values (at most 16) that end within 64 codes of comp[i].  Its
 * codes decode as one stream, escapes included (an escape decodes to
 * nothing and the byte after it to itself), and so do stored raw values
 * (each byte to itself).  The window is good when its codes are used ones or escapes
 * with their literal in the same value, and, for each value j in it, the
 * lengths of the codes before comp[j + 1] add up to raw[j + 1] - raw[i]:
 * then each value decodes on its own to exactly its length, as the scalar
 * decoder requires.  Anything else goes to the one-value paths.
 *
 * The values are those of comp_at[0 .. nvalues] and raw_at (a version 1
 * index, or a window that v2_expand made); it decodes from value 0 until it
 * reaches stop or more, and returns where it stopped, or < 0 on error.
 */
AVX512_FN int64_t
avx512_decode_all4(const gsst_tile *t, const uint8_t *comp_at, const uint8_t *raw_at,
				   uint64_t stop, uint64_t nvalues, uint8_t *out, uint8_t *out_end)
{
	avx512_tables v;
	fast_decoder d;
	uint64_t	i = 0;
	uint32_t	comp = load_u32(comp_at),
				raw = load_u32(raw_at);
	const __m512i one = _mm512_set1_epi32(1);
	const __m512i zero = _mm512_setzero_si512();
	const __m512i escapes = _mm512_set1_epi8((char) GSST_ESCAPE);
	const __m512i nsymbols = _mm512_set1_epi8((char) t->table.nsymbols);

	avx512_tables_init(&v, &t->table);
	fast_decoder_init(&d, t);
	while (i < stop)
	{
		uint64_t	room = (uint64_t) (out_end - (out + raw));
		uint32_t	comp_next = load_u32(comp_at + 4 * (i + 1));

		/*
		 * A window needs 16 more index entries and 576 bytes of output; a
		 * value of more than 64 codes goes alone at once.
		 */
		if (GSST_LIKELY(i + 16 <= nvalues && room >= 64 * 8 + 64 && comp_next - comp <= 64))
		{
			__m512i		c_prev = _mm512_loadu_si512(comp_at + 4 * i);
			__m512i		c_next = _mm512_loadu_si512(comp_at + 4 * (i + 1));
			__m512i		r_prev = _mm512_loadu_si512(raw_at + 4 * i);
			__m512i		r_next = _mm512_loadu_si512(raw_at + 4 * (i + 1));
			__m512i		rel_c = _mm512_sub_epi32(c_next, _mm512_set1_epi32((int) comp));
			__m512i		rel_r = _mm512_sub_epi32(r_next, _mm512_set1_epi32((int) raw));
			__m512i		k = _mm512_sub_epi32(c_next, c_prev);
			__m512i		n = _mm512_sub_epi32(r_next, r_prev);
			__mmask16	stored_raw = _mm512_mask_cmpeq_epi32_mask(_mm512_test_epi32_mask(n, n), k, n);
			uint64_t	avail = t->code_bytes - comp;
			unsigned	take = avail < 64 ? (unsigned) avail : 64;
			__m512i		codes = _mm512_mask_loadu_epi8(escapes, _bzhi_u64(~0ull, take),
													   d.codes + comp);
			__mmask16	fits = _mm512_cmple_epu32_mask(rel_c, _mm512_set1_epi32((int) take));
			unsigned	m = _tzcnt_u32((unsigned) ~fits | 0x10000u);
			/* values of more than 64 codes go alone */
			if (GSST_LIKELY(m > 0))
			{
				uint32_t	ncodes = load_u32(comp_at + 4 * (i + m)) - comp;
				uint32_t	nraw = load_u32(raw_at + 4 * (i + m)) - raw;
				__mmask64	valid = _bzhi_u64(~0ull, ncodes);
				__mmask16	in_window = (__mmask16) _bzhi_u32(0xFFFF, m);
				unsigned	raw_values = stored_raw & in_window;
				__mmask64	verbatim = 0;
				__mmask64	escape,
							literal,
							bad;
				__mmask16	nonempty = _mm512_test_epi32_mask(rel_c, rel_c);
				__m512i		last = _mm512_sub_epi32(rel_c, one);	/* each value's last code */
				__m512i		lens = avx512_lens64(&v, codes);
				__m512i		sums,
							totals,
							base,
							at_end;
				__mmask16	ends;

				/* the bytes of stored raw values decode to themselves, as literals do */
				while (GSST_UNLIKELY(raw_values != 0))
				{
					unsigned	j = _tzcnt_u32(raw_values);

					verbatim |= _bzhi_u64(~0ull, load_u32(comp_at + 4 * (i + j + 1)) - comp) &
						~_bzhi_u64(~0ull, load_u32(comp_at + 4 * (i + j)) - comp);
					raw_values &= raw_values - 1;
				}
				escape = _mm512_mask_cmpeq_epu8_mask(valid & ~verbatim, codes, escapes);
				literal = (escape << 1) | verbatim;
				/* an escape after an escape may be a literal 0xFF: the slow path sorts it out */
				bad = _mm512_mask_cmpge_epu8_mask(valid & ~escape & ~literal, codes, nsymbols) |
					(escape & literal);
				/* an escape that is a value's last code dangles */
				if (GSST_UNLIKELY(escape != 0) &&
					_mm_mask_bitshuffle_epi64_mask(in_window & nonempty, _mm_set1_epi64x((long long) escape),
												   _mm512_cvtepi32_epi8(last)) != 0)
					bad = 1;
				lens = _mm512_maskz_mov_epi8(valid, _mm512_mask_blend_epi8(literal, lens,
																			_mm512_set1_epi8(1)));
				/* inclusive prefix sums of the lengths: bytes within each 8 (<= 64), then words */
				sums = _mm512_add_epi8(lens, _mm512_slli_epi64(lens, 8));
				sums = _mm512_add_epi8(sums, _mm512_slli_epi64(sums, 16));
				sums = _mm512_add_epi8(sums, _mm512_slli_epi64(sums, 32));
				totals = _mm512_srli_epi64(sums, 56);
				base = _mm512_add_epi64(totals, _mm512_alignr_epi64(totals, zero, 7));
				base = _mm512_add_epi64(base, _mm512_alignr_epi64(base, zero, 6));
				base = _mm512_add_epi64(base, _mm512_alignr_epi64(base, zero, 4));
				base = _mm512_sub_epi64(base, totals);
				/* decoded bytes before comp[j + 1]: sums at its last code, 0 for none */
				at_end = _mm512_and_si512(_mm512_permutexvar_epi8(last, sums), _mm512_set1_epi32(0xFF));
				at_end = _mm512_maskz_add_epi32(nonempty, at_end,
												_mm512_permutexvar_epi32(_mm512_and_si512(_mm512_srli_epi32(last, 2),
																						  _mm512_set1_epi32(~1)),
																		 base));
				ends = _mm512_mask_cmpeq_epi32_mask(in_window, at_end, rel_r);
				if (GSST_LIKELY(ends == in_window && bad == 0 && room >= nraw + 64))
				{
					uint8_t    *o = out + raw;
					uint8_t		code_bytes[64];

					/* lengths checked: every 8-code piece starts within nraw bytes */
					_mm512_storeu_si512(code_bytes, codes);
					for (uint32_t at = 0; at < ncodes; at += 8)
					{
						__m512i		c = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *) (code_bytes + at)));
						__m512i		s = _mm512_i64gather_epi64(c, v.symbol, 8);
						__mmask64	keep = _mm512_cmplt_epu8_mask(v.byte_in_word,
																  _mm512_permutexvar_epi8(_mm512_add_epi8(v.expand[0], _mm512_set1_epi8((char) at)),
																						  lens));

						/* a literal is its own byte */
						s = _mm512_mask_mov_epi64(s, (__mmask8) (literal >> at), c);
						_mm512_storeu_si512(o, _mm512_maskz_compress_epi8(keep, s));
						o += _mm_popcnt_u64(keep);
					}
					i += m;
					comp += ncodes;
					raw += nraw;
					continue;
				}
			}
		}
		/* one value on its own */
		{
			uint32_t	raw_next = load_u32(raw_at + 4 * (i + 1));
			uint64_t	raw_len = raw_next - raw;
			uint64_t	k = comp_next - comp;
			uint8_t    *dst = out + raw;
			int			rc;

			if (room >= raw_len + DECODE_ROOM && k < raw_len && k > SHORT_CODES &&
				avx512_decode_value(&v, d.codes + comp, k, dst, raw_len) == 0)
				rc = GSST_OK;
			else
				rc = decode_value(&d, t, comp, comp_next, dst, raw_len, out_end,
								  room >= raw_len + DECODE_ROOM);
			if (GSST_UNLIKELY(rc != GSST_OK))
				return rc;
			i++;
			comp = comp_next;
			raw = raw_next;
		}
	}
	return (int64_t) i;
}

/* decode_all_v2 through avx512_decode_all4 (4-byte offsets: R < 2^32) */
AVX512_FN int
avx512_decode_all_v2(const gsst_tile *t, uint8_t *out, uint8_t *out_end)
{
	uint8_t		comp_at[V2_WINDOW_ENTRIES * 4],
				raw_at[V2_WINDOW_ENTRIES * 4];
	uint64_t	i = 0;

	while (i < t->nvalues)
	{
		uint64_t	left = t->nvalues - i;
		uint64_t	count = left < V2_WINDOW_ENTRIES - 1 ? left : V2_WINDOW_ENTRIES - 1;
		int64_t		done;

		v2_expand(t, i, count, comp_at, raw_at, 4);
		done = avx512_decode_all4(t, comp_at, raw_at,
								  count < V2_WINDOW_VALUES ? count : V2_WINDOW_VALUES,
								  count, out, out_end);
		if (done < 0)
			return (int) done;
		i += (uint64_t) done;
	}
	return GSST_OK;
}

/*
 * avx512_tile_decode_one for the values its lean path does not take: the
 * value's codes are [comp, comp_end) and it decodes to n bytes.
 */
AVX512_FN int64_t
avx512_decode_one_any(const gsst_tile *t, uint64_t comp, uint64_t comp_end, uint64_t n,
					  uint8_t *out, size_t out_cap)
{
	uint64_t	k = comp_end - comp;
	int			rc;

	if (n > out_cap)
		return GSST_ERR_SPACE;
	if (GSST_LIKELY(out_cap - n >= DECODE_ROOM && k < n))
	{
		avx512_tables v;

		avx512_tables_init(&v, &t->table);
		if (k <= 8)
		{
			/* most values of short-valued columns: a branch they predict */
			__m128i		codes = avx512_load_codes(&v, t->codes + comp, (unsigned) k);
			uint8_t    *end = avx512_decode8(&v, codes, avx512_lens(&v, codes), out);

			if (GSST_LIKELY(!avx512_codes_bad(&v, codes, (unsigned) k) && end == out + n))
				return (int64_t) n;
		}
		else if (k <= 16)
		{
			__m128i		codes = avx512_load_codes(&v, t->codes + comp, (unsigned) k);
			uint64_t	over = avx512_codes_bad(&v, codes, (unsigned) k);
			uint8_t    *end = avx512_decode16(&v, codes, avx512_lens(&v, codes), out, out + n,
											  &over);

			if (GSST_LIKELY(!over && end == out + n))
				return (int64_t) n;
		}
		else if (avx512_decode_value(&v, t->codes + comp, k, out, n) == 0)
			return (int64_t) n;
	}
	if (out_cap - n >= DECODE_ROOM)
	{
		fast_decoder d;

		fast_decoder_init(&d, t);
		rc = decode_value(&d, t, comp, comp_end, out, n, out + out_cap, 1);
	}
	else
		rc = decode_piece(t, k == n, comp, comp_end, out, n, out + out_cap);
	return rc != GSST_OK ? rc : (int64_t) n;
}

/*
 * gsst_tile_decode_one after its argument checks; i < nvalues.  A value of
 * at most 64 codes with 64 bytes of room past it (most values of most
 * columns) takes a lean path, 8 codes a step with no branch on the codes,
 * with few registers and no stack frame, so that the core overlaps one
 * call's cache misses with the next call's; escapes, bad codes and longer
 * values go to avx512_decode_one_any.
 */
AVX512_FN int64_t
avx512_tile_decode_one(const gsst_tile *t, uint64_t i, uint8_t *out, size_t out_cap)
{
	uint64_t	comp,
				k,
				n;

	if (GSST_LIKELY(t->version == 2 && t->offset_width == 4 &&
					load_u32(t->blocks + 12 * (i / GSST_TILE_BLOCK_VALUES) + 8) ==
					load_u32(t->blocks + 12 * (i / GSST_TILE_BLOCK_VALUES) + 20)))
	{
		/* a block with no long value: its entry plus the code lengths before i */
		uint64_t	first = i - i % GSST_TILE_BLOCK_VALUES;
		uint64_t	before = i - first;
		__m512i		lo = _mm512_maskz_loadu_epi8(_bzhi_u64(~0ull, (unsigned) before),
												 t->code_lens + first);
		__m512i		hi = _mm512_maskz_loadu_epi8(before > 64 ? _bzhi_u64(~0ull, (unsigned) (before - 64)) : 0,
												 t->code_lens + first + 64);
		__m512i		sums = _mm512_add_epi64(_mm512_sad_epu8(lo, _mm512_setzero_si512()),
											_mm512_sad_epu8(hi, _mm512_setzero_si512()));

		comp = load_u32(t->blocks + 12 * (i / GSST_TILE_BLOCK_VALUES)) +
			(uint64_t) _mm512_reduce_add_epi64(sums);
		k = t->code_lens[i];
		n = t->raw_lens[i];
	}
	else if (t->version == 2)
	{
		uint64_t	raw,
					long_at;

		v2_seek(t, i, &comp, &raw, &long_at);
		v2_lengths(t, i, long_at, &k, &n);
	}
	else
	{
		uint32_t	width = t->offset_width;

		comp = read_entry(t->comp_offsets, i, width);
		k = read_entry(t->comp_offsets, i + 1, width) - comp;
		n = read_entry(t->raw_offsets, i + 1, width) - read_entry(t->raw_offsets, i, width);
	}
	{
		if (GSST_LIKELY(k <= 64 && k <= n && n <= out_cap && out_cap - n >= DECODE_ROOM))
		{
			const uint8_t *len = t->table.len;
			const long long *symbol = (const long long *) t->table.symbol;
			__mmask64	take = _bzhi_u64(~0ull, k);
			__m512i		codes = _mm512_mask_loadu_epi8(_mm512_set1_epi8((char) GSST_ESCAPE), take,
													   t->codes + comp);
			__m512i		lens = _mm512_mask_blend_epi8(_mm512_movepi8_mask(codes),
													  _mm512_permutex2var_epi8(_mm512_loadu_si512(len), codes,
																			   _mm512_loadu_si512(len + 64)),
													  _mm512_permutex2var_epi8(_mm512_loadu_si512(len + 128), codes,
																			   _mm512_loadu_si512(len + 192)));
			uint64_t	bad = _mm512_mask_cmpge_epu8_mask(take, codes,
														  _mm512_set1_epi8((char) t->table.nsymbols));
			__m512i		byte_in_word = _mm512_set1_epi64(0x0706050403020100ll);
			__m512i		expand = _mm512_set_epi64(0x0707070707070707ll, 0x0606060606060606ll,
												  0x0505050505050505ll, 0x0404040404040404ll,
												  0x0303030303030303ll, 0x0202020202020202ll,
												  0x0101010101010101ll, 0);
			uint64_t	got = 0;

			if (k == n)
			{
				/* stored raw: the code bytes are the value */
				_mm512_storeu_si512(out, codes);
				return (int64_t) n;
			}
			for (uint32_t at = 0;;)
			{
				__m512i		s = _mm512_i64gather_epi64(_mm512_cvtepu8_epi64(_mm512_castsi512_si128(codes)),
													   symbol, 8);
				__mmask64	m = _mm512_cmplt_epu8_mask(byte_in_word, _mm512_permutexvar_epi8(expand, lens));

				/* past n the value is bad anyway: stores stay within room */
				_mm512_storeu_si512(out + (got <= n ? got : n), _mm512_maskz_compress_epi8(m, s));
				got += _mm_popcnt_u64(m);
				at += 8;
				if (at >= k)
					break;
				codes = _mm512_alignr_epi64(codes, codes, 1);
				expand = _mm512_add_epi8(expand, _mm512_set1_epi8(8));
			}
			if (GSST_LIKELY((bad | (got != n)) == 0))
				return (int64_t) n;
		}
	}
	return avx512_decode_one_any(t, comp, comp + k, n, out, out_cap);
}
#endif							/* x86-64 AVX-512 */

int
gsst_tile_decode_all(const gsst_tile *t, uint8_t *out, size_t out_cap)
{
	if (t == NULL || (out == NULL && out_cap > 0))
		return GSST_ERR_ARG;
	if (out_cap < t->raw_bytes)
		return GSST_ERR_SPACE;
#ifdef GSST_DECODE_AVX512
	if (t->offset_width == 4 && avx512_usable())
	{
		int64_t		rc;

		if (t->version == 2)
			return avx512_decode_all_v2(t, out, out + out_cap);
		rc = avx512_decode_all4(t, t->comp_offsets, t->raw_offsets, t->nvalues, t->nvalues,
								out, out + out_cap);
		return rc < 0 ? (int) rc : GSST_OK;
	}
#endif
	if (t->version == 2)
		return decode_all_v2(t, out, out + out_cap);
	if (t->offset_width == 4)
		return decode_values_width(t, t->comp_offsets, t->raw_offsets, t->nvalues, out,
								   out + out_cap, 4);
	return decode_values_width(t, t->comp_offsets, t->raw_offsets, t->nvalues, out,
							   out + out_cap, 8);
}

int
gsst_tile_decode_split(const gsst_tile *t, uint64_t s, uint8_t *out, size_t out_cap)
{
	uint64_t	v,
				comp,
				raw,
				end_value,
				comp_end,
				raw_end;

	uint64_t	value_comp_start = 0,
				value_raw_start = 0,
				long_at = 0;

	if (t == NULL || out == NULL)
		return GSST_ERR_ARG;
	if (s >= t->nsplits)
		return GSST_ERR_OFFSET;
	if (out_cap < t->raw_bytes)
		return GSST_ERR_SPACE;
	gsst_tile_split(t, s, &v, &comp, &raw);
	gsst_tile_split(t, s + 1, &end_value, &comp_end, &raw_end);
	/* a version 2 index is walked from the split's first value on */
	if (t->version == 2 && v < t->nvalues)
		v2_seek(t, v, &value_comp_start, &value_raw_start, &long_at);

	/* writes stay inside this split's range: others may decode in parallel */
	while (raw < raw_end || comp < comp_end)
	{
		uint64_t	value_comp_end,
					value_raw_end;
		int			rc;

		if (v >= t->nvalues)
			return GSST_ERR_OFFSET;
		if (t->version == 2)
		{
			value_comp_end = value_comp_start;
			value_raw_end = value_raw_start;
			v2_step(t, v, &value_comp_end, &value_raw_end, &long_at);
		}
		else
		{
			value_comp_start = gsst_tile_comp_offset(t, v);
			value_raw_start = gsst_tile_raw_offset(t, v);
			value_comp_end = gsst_tile_comp_offset(t, v + 1);
			value_raw_end = gsst_tile_raw_offset(t, v + 1);
		}
		rc = decode_piece(t, value_comp_end - value_comp_start ==
						  value_raw_end - value_raw_start,
						  comp, value_comp_end < comp_end ? value_comp_end : comp_end,
						  out + raw,
						  (value_raw_end < raw_end ? value_raw_end : raw_end) - raw,
						  out + raw_end);
		if (rc != GSST_OK)
			return rc;
		if (value_comp_end > comp_end || value_raw_end > raw_end)
			break;				/* the split ends inside this value */
		comp = value_comp_start = value_comp_end;
		raw = value_raw_start = value_raw_end;
		v++;
	}
	return GSST_OK;
}

/*
 * gsst_tile_decode_one on the portable path after its argument checks.  Out
 * of line, so that gsst_tile_decode_one stays a few instructions with no
 * stack frame before its jump to the AVX-512 path.
 */
static GSST_NOINLINE int64_t
decode_one_portable(const gsst_tile *t, uint64_t i, uint8_t *out, size_t out_cap)
{
	uint64_t	comp,
				comp_end,
				raw,
				raw_end;
	int			rc;

	if (t->version == 2)
	{
		uint64_t	long_at,
					code_len,
					raw_len;

		v2_seek(t, i, &comp, &raw, &long_at);
		v2_lengths(t, i, long_at, &code_len, &raw_len);
		comp_end = comp + code_len;
		raw_end = raw + raw_len;
	}
	else
	{
		comp = read_entry(t->comp_offsets, i, t->offset_width);
		comp_end = read_entry(t->comp_offsets, i + 1, t->offset_width);
		raw = read_entry(t->raw_offsets, i, t->offset_width);
		raw_end = read_entry(t->raw_offsets, i + 1, t->offset_width);
	}
	if (raw_end - raw > out_cap)
		return GSST_ERR_SPACE;
	/*
	 * A tight output goes through the bounded decoder: decoding into a
	 * roomy stack buffer and copying measured slower (the copy's loads
	 * wait for the decoder's overlapping 8-byte stores).
	 */
	if (out_cap - (raw_end - raw) >= DECODE_ROOM)
	{
		fast_decoder d;

		fast_decoder_init(&d, t);
		rc = decode_value(&d, t, comp, comp_end, out, raw_end - raw, out + out_cap, 1);
	}
	else
		rc = decode_piece(t, comp_end - comp == raw_end - raw, comp, comp_end,
						  out, raw_end - raw, out + out_cap);
	if (rc != GSST_OK)
		return rc;
	return (int64_t) (raw_end - raw);
}

int64_t
gsst_tile_decode_one(const gsst_tile *t, uint64_t i, uint8_t *out, size_t out_cap)
{
	if (t == NULL || (out == NULL && out_cap > 0))
		return GSST_ERR_ARG;
	if (i >= t->nvalues)
		return GSST_ERR_OFFSET;
#ifdef GSST_DECODE_AVX512
	if (avx512_usable())
		return avx512_tile_decode_one(t, i, out, out_cap);
#endif
	return decode_one_portable(t, i, out, out_cap);
}
