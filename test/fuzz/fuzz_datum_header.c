/*
 * fuzz_datum_header - libFuzzer target for gsst_datum_header_parse.
 *
 * A header that parses is canonical: it stays within GSST_DATUM_MAX_HEADER
 * bytes, names an id <= GSST_MAX_TABLE_ID, and gsst_datum_header_write of
 * that id gives back exactly the bytes parsed.  Any id taken from the input
 * round-trips through write and parse.
 */
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *in = xdup(data, size);
	uint32_t	id = 0;
	int			rc = gsst_datum_header_parse(in, size, &id);
	uint8_t		header[GSST_DATUM_MAX_HEADER];

	FUZZ_ASSERT(rc > 0 || fuzz_is_status(rc));
	if (rc > 0)
	{
		FUZZ_ASSERT((size_t) rc <= size && rc >= 2 && rc <= GSST_DATUM_MAX_HEADER);
		FUZZ_ASSERT(in[0] == 0 && id <= GSST_MAX_TABLE_ID);
		FUZZ_ASSERT(gsst_datum_header_write(id, header) == (size_t) rc);
		FUZZ_ASSERT(memcmp(header, in, (size_t) rc) == 0);
	}
	free(in);

	/* write -> parse for an id made of the first input bytes */
	uint32_t	any = 0;

	for (size_t i = 0; i < size && i < 4; i++)
		any |= (uint32_t) data[i] << (8 * i);
	any &= GSST_MAX_TABLE_ID;
	size_t		n = gsst_datum_header_write(any, header);
	uint8_t    *exact = xdup(header, n);

	FUZZ_ASSERT(n >= 2 && n <= GSST_DATUM_MAX_HEADER);
	FUZZ_ASSERT(gsst_datum_header_parse(exact, n, &id) == (int) n && id == any);
	/* every shorter prefix is truncated */
	for (size_t k = 0; k < n; k++)
		FUZZ_ASSERT(gsst_datum_header_parse(exact, k, &id) < 0);
	free(exact);
	return 0;
}
