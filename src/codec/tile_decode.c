/*
 * tile_decode.c - decoding a GSST tile: all of it, one split, or one value
 * (FORMAT.md).  The tile was validated by gsst_tile_open.
 */
#include "tile_internal.h"

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
 * Decode value i, whose codes are [comp, comp_next) and whose raw bytes go
 * to dst .. dst + raw_len, where dst + raw_len + DECODE_ROOM <= out_end
 * when room is set.
 */
#define DECODE_ROOM 64

GSST_INLINE int
decode_value(const gsst_tile *t, uint64_t comp, uint64_t comp_next, uint8_t *dst,
			 uint64_t raw_len, uint8_t *out_end, int room)
{
	uint64_t	k = comp_next - comp;

	if (GSST_LIKELY(room))
	{
		if (k == raw_len)
		{
			/* stored raw; the slack is inside the room */
			if (raw_len <= 64 && t->code_bytes - comp >= 16 * ((raw_len + 15) / 16))
			{
				copy_with_slack(dst, t->codes + comp, raw_len);
				return GSST_OK;
			}
		}
		else if (t->code_bytes - comp >= 8 * ((k + 7) / 8) &&
				 decode_value_blocks(&t->table, t->codes + comp, k, dst, raw_len) == 0)
			return GSST_OK;
	}
	return decode_piece(t, k == raw_len, comp, comp_next, dst, raw_len, out_end);
}

GSST_INLINE int
decode_all_width(const gsst_tile *t, uint8_t *out, uint8_t *out_end, uint32_t width)
{
	uint64_t	comp = 0,
				raw = 0;

	for (uint64_t i = 0; i < t->nvalues; i++)
	{
		uint64_t	comp_next = read_entry(t->comp_offsets, i + 1, width);
		uint64_t	raw_next = read_entry(t->raw_offsets, i + 1, width);
		uint64_t	raw_len = raw_next - raw;
		int			room = (uint64_t) (out_end - (out + raw)) >= raw_len + DECODE_ROOM;
		int			rc = decode_value(t, comp, comp_next, out + raw, raw_len, out_end, room);

		if (GSST_UNLIKELY(rc != GSST_OK))
			return rc;
		comp = comp_next;
		raw = raw_next;
	}
	return GSST_OK;
}

int
gsst_tile_decode_all(const gsst_tile *t, uint8_t *out, size_t out_cap)
{
	if (t == NULL || (out == NULL && out_cap > 0))
		return GSST_ERR_ARG;
	if (out_cap < t->raw_bytes)
		return GSST_ERR_SPACE;
	if (t->offset_width == 4)
		return decode_all_width(t, out, out + out_cap, 4);
	return decode_all_width(t, out, out + out_cap, 8);
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

	if (t == NULL || out == NULL)
		return GSST_ERR_ARG;
	if (s >= t->nsplits)
		return GSST_ERR_OFFSET;
	if (out_cap < t->raw_bytes)
		return GSST_ERR_SPACE;
	gsst_tile_split(t, s, &v, &comp, &raw);
	gsst_tile_split(t, s + 1, &end_value, &comp_end, &raw_end);

	/* writes stay inside this split's range: others may decode in parallel */
	while (raw < raw_end || comp < comp_end)
	{
		uint64_t	value_comp_end,
					value_raw_end,
					value_comp_start,
					value_raw_start;
		int			rc;

		if (v >= t->nvalues)
			return GSST_ERR_OFFSET;
		value_comp_start = gsst_tile_comp_offset(t, v);
		value_raw_start = gsst_tile_raw_offset(t, v);
		value_comp_end = gsst_tile_comp_offset(t, v + 1);
		value_raw_end = gsst_tile_raw_offset(t, v + 1);
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
		comp = value_comp_end;
		raw = value_raw_end;
		v++;
	}
	return GSST_OK;
}

int64_t
gsst_tile_decode_one(const gsst_tile *t, uint64_t i, uint8_t *out, size_t out_cap)
{
	uint64_t	comp,
				comp_end,
				raw,
				raw_end;
	int			rc;

	if (t == NULL || (out == NULL && out_cap > 0))
		return GSST_ERR_ARG;
	if (i >= t->nvalues)
		return GSST_ERR_OFFSET;
	comp = gsst_tile_comp_offset(t, i);
	comp_end = gsst_tile_comp_offset(t, i + 1);
	raw = gsst_tile_raw_offset(t, i);
	raw_end = gsst_tile_raw_offset(t, i + 1);
	if (raw_end - raw > out_cap)
		return GSST_ERR_SPACE;
	/*
	 * A tight output goes through the bounded decoder: decoding into a
	 * roomy stack buffer and copying measured slower (the copy's loads
	 * wait for the decoder's overlapping 8-byte stores).
	 */
	if (out_cap - (raw_end - raw) >= DECODE_ROOM)
		rc = decode_value(t, comp, comp_end, out, raw_end - raw, out + out_cap, 1);
	else
		rc = decode_piece(t, comp_end - comp == raw_end - raw, comp, comp_end,
						  out, raw_end - raw, out + out_cap);
	if (rc != GSST_OK)
		return rc;
	return (int64_t) (raw_end - raw);
}
