/*
 * fuzz_decode_value - libFuzzer target for gsst_decoded_length and
 * gsst_decode_value.
 *
 * Input: a serialized table followed by codes; when the input does not
 * start with a loadable table, the whole input is codes for a fixed table
 * with unused codes.  Both functions must agree, the decoder must fill an
 * exact-size buffer and fail with GSST_ERR_SPACE one byte short, and what
 * decodes must re-encode (as the reference encoder does, also at tight
 * output limits) and round-trip.
 */
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
