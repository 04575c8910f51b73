/*
 * fuzz_decode_value - libFuzzer target for gsst_decoded_length and
 * gsst_decode_value.
 *
 * Input: a serialized table followed by codes; when the input does not
 * start with a loadable table, the whole input is codes for a fixed table
 * with unused codes.  Both functions must agree, the decoder must fill an
 * exact-size buffer and fail with GSST_ERR_SPACE one byte short, its
 * AVX-512 path must give the portable path's status and bytes, and what
 * decodes must re-encode (as the reference encoder does, also at tight
 * output limits) and round-trip.
 */
#include "fuzz_common.h"
#include "decode_avx512.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The partial decoders (gsst_decode_prefix, gsst_compare_text and its
 * padded form, gsst_compare_codes, gsst_first_code_verdicts) must agree
 * with the full decode on valid codes, and fail or answer without reading
 * past the codes on invalid ones.
 */

/* GSST_ORDER_* of a against b by memcmp, then the shorter first. */
static int
order_of(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	size_t		m = na < nb ? na : nb;
	int			c = m > 0 ? memcmp(a, b, m) : 0;

	if (c != 0)
		return c < 0 ? GSST_ORDER_LESS : GSST_ORDER_GREATER;
	return na == nb ? GSST_ORDER_EQUAL : na < nb ? GSST_ORDER_PREFIX_OF : GSST_ORDER_HAS_PREFIX;
}

/*
 * Valid codes decoding to dec[0..n): the partial decoders agree with it, for
 * every cut of the decoded value as text and for a copy with its last byte
 * changed.
 */
static void
check_partial_valid(const gsst_table *table, const uint8_t *in, size_t in_len,
					const uint8_t *dec, size_t n)
{
	int			order;

	for (size_t cut = 0; cut <= n; cut += 1 + cut / 4)
	{
		uint8_t    *text = xdup(dec, cut);
		size_t		cap = cut + GSST_MAX_SYMBOL_LEN;
		uint8_t    *out = xmalloc(cap);
		int64_t		got;

		FUZZ_ASSERT(gsst_compare_text(table, in, in_len, text, cut, &order) == GSST_OK);
		FUZZ_ASSERT(order == order_of(dec, n, text, cut));
		{
			uint8_t    *padded = xmalloc(cut + 8);

			memcpy(padded, dec, cut);
			memset(padded + cut, 0xA5, 8);
			FUZZ_ASSERT(gsst_compare_text_padded(table, in, in_len, padded, cut, &order) == GSST_OK);
			FUZZ_ASSERT(order == order_of(dec, n, padded, cut));
			free(padded);
		}
		if (cut > 0)
		{
			text[cut - 1] ^= 0x01;
			FUZZ_ASSERT(gsst_compare_text(table, in, in_len, text, cut, &order) == GSST_OK);
			FUZZ_ASSERT(order == order_of(dec, n, text, cut));
		}
		if (cut > 0 && in_len > 0)
		{
			int8_t		verdict[256];
			int			want = order_of(dec, n, dec, cut);	/* EQUAL or HAS_PREFIX */

			gsst_first_code_verdicts(table, dec, cut, verdict);
			FUZZ_ASSERT(verdict[in[0]] == GSST_FIRST_UNKNOWN ||
						(verdict[in[0]] == GSST_FIRST_STARTS_WITH && want >= 0));
		}
		got = gsst_decode_prefix(table, in, in_len, out, cap, cut);
		FUZZ_ASSERT(got >= (int64_t) cut && got <= (int64_t) n);
		FUZZ_ASSERT(got == 0 || memcmp(out, dec, (size_t) got) == 0);
		free(out);
		free(text);
	}
	FUZZ_ASSERT(gsst_compare_codes(table, in, in_len, table, in, in_len, &order) == GSST_OK);
	FUZZ_ASSERT(order == GSST_ORDER_EQUAL);
	/* against its first half: the decoded value has that as a prefix or equals it */
	FUZZ_ASSERT(gsst_compare_codes(table, in, in_len, table, in, in_len / 2, &order) == GSST_OK ||
				(in_len / 2 > 0 && in[in_len / 2 - 1] == GSST_ESCAPE));
}

/*
 * gsst_decode_value's AVX-512 path (called directly, so that values too
 * short for gsst_decode_value to choose it take it too) gives the portable
 * path's status and bytes into an exact-size buffer of cap bytes.  Says
 * nothing on a CPU or build without it.
 */
static void
check_simd_agrees(const gsst_table *table, const uint8_t *in, size_t in_len, size_t cap)
{
#ifdef GSST_DECODE_AVX512
	if (gsst_cpu_has_decode_simd())
	{
		uint8_t    *portable = xmalloc(cap);
		uint8_t    *simd = xmalloc(cap);
		int64_t		want,
					got;

		gsst_decode_simd_disabled = 1;
		want = gsst_decode_value(table, in, in_len, portable, cap);
		gsst_decode_simd_disabled = 0;
		got = gsst_decode_value_avx512(table, in, in_len, simd, cap);
		FUZZ_ASSERT(got == want);
		FUZZ_ASSERT(want <= 0 || memcmp(simd, portable, (size_t) want) == 0);
		free(simd);
		free(portable);
	}
#else
	(void) table, (void) in, (void) in_len, (void) cap;
#endif
}

/* Invalid codes: an error, or an answer found before the bad code. */
static void
check_partial_invalid(const gsst_table *table, const uint8_t *in, size_t in_len,
					  uint8_t *out, size_t cap)
{
	int			order;
	int			rc;
	int64_t		got;

	rc = gsst_compare_text(table, in, in_len, (const uint8_t *) "", 0, &order);
	FUZZ_ASSERT(rc == GSST_OK || fuzz_is_status(rc));
	rc = gsst_compare_codes(table, in, in_len, table, in, in_len, &order);
	FUZZ_ASSERT(rc == GSST_ERR_BAD_CODE || rc == GSST_ERR_DANGLING_ESCAPE);
	if (cap >= GSST_MAX_SYMBOL_LEN)
	{
		got = gsst_decode_prefix(table, in, in_len, out, cap, cap - GSST_MAX_SYMBOL_LEN);
		FUZZ_ASSERT(got >= 0 || fuzz_is_status(got));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gsst_table default_table;
	static int	have_default;
	gsst_table	loaded;
	const gsst_table *table = &loaded;
	size_t		consumed = 0;

	if (!have_default)
	{
		FUZZ_ASSERT(fuzz_default_table(&default_table) == GSST_OK);
		have_default = 1;
	}
	if (gsst_table_load(&loaded, data, size, &consumed) != GSST_OK)
	{
		table = &default_table;
		consumed = 0;
	}

	/* exact-size copy of the codes: ASan catches any read past them */
	size_t		in_len = size - consumed;
	uint8_t    *in = xdup(data + consumed, in_len);
	int64_t		len = gsst_decoded_length(table, in, in_len);

	FUZZ_ASSERT(len >= 0 || fuzz_is_status(len));
	if (len < 0)
	{
		/*
		 * With room for any decoding, the decoder fails too.  Its status
		 * may differ when the codes hold several errors: its fast path
		 * reports a dangling escape before an unused code seen earlier.
		 */
		size_t		cap = 8 * in_len;
		uint8_t    *out = xmalloc(cap);
		int64_t		rc = gsst_decode_value(table, in, in_len, out, cap);

		FUZZ_ASSERT(rc == GSST_ERR_BAD_CODE || rc == GSST_ERR_DANGLING_ESCAPE);
		FUZZ_ASSERT(len == GSST_ERR_BAD_CODE || len == GSST_ERR_DANGLING_ESCAPE);
		check_simd_agrees(table, in, in_len, cap);
		check_simd_agrees(table, in, in_len, in_len);
		check_partial_invalid(table, in, in_len, out, cap);
		free(out);
		free(in);
		return 0;
	}
	FUZZ_ASSERT((uint64_t) len <= 8 * (uint64_t) in_len);

	uint8_t    *out = xmalloc((size_t) len);

	FUZZ_ASSERT(gsst_decode_value(table, in, in_len, out, (size_t) len) == len);
	if (len > 0)
	{
		uint8_t    *short_out = xmalloc((size_t) len - 1);

		FUZZ_ASSERT(gsst_decode_value(table, in, in_len, short_out, (size_t) len - 1) == GSST_ERR_SPACE);
		free(short_out);
	}
	check_simd_agrees(table, in, in_len, (size_t) len);
	check_simd_agrees(table, in, in_len, len > 0 ? (size_t) len - 1 : 0);
	check_simd_agrees(table, in, in_len, 8 * in_len);

	check_partial_valid(table, in, in_len, out, (size_t) len);

	/* the decoded bytes re-encode as the reference says, and round-trip */
	static gsst_encoder enc;
	ref_encoder ref;
	size_t		n = (size_t) len;
	uint8_t    *codes = xmalloc(2 * n + GSST_ENCODE_SLACK);
	uint8_t    *expect = xmalloc(2 * n);

	gsst_encoder_init(&enc, table);
	ref_init(&ref, table);
	size_t		ncodes = gsst_encode_value(&enc, out, n, codes, 2 * n);

	FUZZ_ASSERT(ncodes == ref_encode(&ref, out, n, expect) && memcmp(codes, expect, ncodes) == 0);

	/*
	 * At a tighter out_limit the encoder gives up exactly when the codes
	 * do not fit, else writes the same codes; each buffer is exactly
	 * out_limit + GSST_ENCODE_SLACK bytes.
	 */
	{
		size_t		limits[3] = {ncodes, ncodes > 0 ? ncodes - 1 : 0, n / 2};

		for (int i = 0; i < 3; i++)
		{
			uint8_t    *tight = xmalloc(limits[i] + GSST_ENCODE_SLACK);
			size_t		got = gsst_encode_value(&enc, out, n, tight, limits[i]);

			if (ncodes > limits[i])
				FUZZ_ASSERT(got == SIZE_MAX);
			else
				FUZZ_ASSERT(got == ncodes && memcmp(tight, expect, ncodes) == 0);
			free(tight);
		}
	}
	uint8_t    *back = xmalloc(n);

	FUZZ_ASSERT(gsst_decode_value(table, codes, ncodes, back, n) == len);
	FUZZ_ASSERT(n == 0 || memcmp(back, out, n) == 0);
	free(back);
	free(expect);
	free(codes);
	free(out);
	free(in);
	return 0;
}
