/*
 * datum.c - the header of an encoded PostgreSQL datum (FORMAT.md, "Datum").
 */
#include "codec_internal.h"

#define DATUM_MAX_VARINT 5

size_t
gsst_datum_header_write(uint32_t table_id, uint8_t *out)
{
	uint64_t	value = ((uint64_t) (table_id & GSST_MAX_TABLE_ID) << 2) |
		(GSST_DATUM_VERSION - 1);
	size_t		n = 0;

	out[n++] = 0x00;
	do
	{
		uint8_t		group = value & 0x7F;

		value >>= 7;
		out[n++] = group | (value != 0 ? 0x80 : 0);
	} while (value != 0);
	return n;
}

int
gsst_datum_header_parse(const uint8_t *in, size_t len, uint32_t *table_id)
{
	uint64_t	value = 0;
	size_t		pos = 1;

	if (in == NULL || len < 1)
		return GSST_ERR_TRUNCATED;
	if (in[0] != 0x00)
		return GSST_ERR_ARG;
	for (int shift = 0;; shift += 7)
	{
		uint8_t		group;

		if (pos >= len)
			return GSST_ERR_TRUNCATED;
		if (pos > DATUM_MAX_VARINT)
			return GSST_ERR_VERSION;
		group = in[pos++];
		value |= (uint64_t) (group & 0x7F) << shift;
		if ((group & 0x80) == 0)
		{
			/* a zero last group after the first is a redundant encoding */
			if (group == 0 && pos > 2)
				return GSST_ERR_VERSION;
			break;
		}
	}
	if ((value & 3) != GSST_DATUM_VERSION - 1 || (value >> 2) > GSST_MAX_TABLE_ID)
		return GSST_ERR_VERSION;
	if (table_id != NULL)
		*table_id = (uint32_t) (value >> 2);
	return (int) pos;
}
