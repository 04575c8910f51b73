/*
 * fuzz_table_load - libFuzzer target for gsst_table_load.
 *
 * Input: a serialized table, then arbitrary bytes.  A table that loads must
 * re-serialize to exactly the bytes it consumed, rebuild to itself through
 * gsst_table_build, and encode the remaining bytes exactly as the reference
 * encoder does, with a lossless round trip.
 */
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsst_table	table;
	size_t		consumed = SIZE_MAX;
	int			rc = gsst_table_load(&table, data, size, &consumed);

	FUZZ_ASSERT(fuzz_is_status(rc));
	if (rc != GSST_OK)
		return 0;
	FUZZ_ASSERT(consumed >= 10 && consumed <= size && consumed <= GSST_TABLE_MAX_BYTES);
	FUZZ_ASSERT(table.nsymbols <= GSST_MAX_SYMBOLS && table.len[GSST_ESCAPE] == 0);

	/* serialize -> the same bytes, into an exact-size buffer */
	uint8_t    *again = xmalloc(consumed);

	FUZZ_ASSERT(gsst_table_serialized_size(&table) == consumed);
	FUZZ_ASSERT(gsst_table_serialize(&table, again, consumed) == (int) consumed);
	FUZZ_ASSERT(memcmp(again, data, consumed) == 0);
	free(again);

	/* the loader accepts exactly what the builder accepts */
	uint64_t	syms[GSST_MAX_SYMBOLS];
	uint8_t		lens[GSST_MAX_SYMBOLS];
	gsst_table	rebuilt;

	for (unsigned c = 0; c < table.nsymbols; c++)
	{
		syms[c] = table.symbol[c];
		lens[c] = table.len[c];
	}
	FUZZ_ASSERT(gsst_table_build(&rebuilt, syms, lens, table.nsymbols) == GSST_OK);
	FUZZ_ASSERT(memcmp(rebuilt.symbol, table.symbol, sizeof(table.symbol)) == 0);
	FUZZ_ASSERT(memcmp(rebuilt.len, table.len, sizeof(table.len)) == 0);

	/* encode the rest of the input with this table */
	static gsst_encoder enc;
	ref_encoder ref;
	const uint8_t *rest = data + consumed;
	size_t		rest_len = size - consumed;
	uint8_t    *codes = xmalloc(2 * rest_len + GSST_ENCODE_SLACK);
	uint8_t    *expect = xmalloc(2 * rest_len);

	gsst_encoder_init(&enc, &table);
	ref_init(&ref, &table);
	size_t		ncodes = gsst_encode_value(&enc, rest, rest_len, codes, 2 * rest_len);
	size_t		nexpect = ref_encode(&ref, rest, rest_len, expect);

	FUZZ_ASSERT(ncodes == nexpect && memcmp(codes, expect, ncodes) == 0);

	uint8_t    *exact_codes = xdup(codes, ncodes);
	uint8_t    *decoded = xmalloc(rest_len);

	FUZZ_ASSERT(gsst_decoded_length(&table, exact_codes, ncodes) == (int64_t) rest_len);
	FUZZ_ASSERT(gsst_decode_value(&table, exact_codes, ncodes, decoded, rest_len) == (int64_t) rest_len);
	FUZZ_ASSERT(rest_len == 0 || memcmp(decoded, rest, rest_len) == 0);
	free(decoded);
	free(exact_codes);
	free(expect);
	free(codes);
	return 0;
}
