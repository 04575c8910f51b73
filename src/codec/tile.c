/*
 * tile.c - the GSST tile: one symbol table, many values, per-value offsets
 * for random access and a split table for parallel decoding (FORMAT.md).
 */
#include "codec_internal.h"

#include "decode_run.h"
#include "encode_segment.h"

/* ---- layout ---- */

typedef struct tile_layout
{
	uint32_t	width;
	size_t		table_at;
	size_t		comp_at;
	size_t		raw_at;
	size_t		splits_at;
	size_t		codes_at;
	size_t		end;			/* codes_at + code bytes */
} tile_layout;

static size_t
align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* a*b+c without overflow, or SIZE_MAX */
static size_t
mul_add(uint64_t a, uint64_t b, uint64_t c)
{
	if (b != 0 && a > (SIZE_MAX - c) / b)
		return SIZE_MAX;
	return (size_t) (a * b + c);
}

/*
 * Compute where every part of a tile lies.  Fails when a size does not fit
 * in memory (only possible for hostile headers).
 */
static int
compute_layout(tile_layout *l, uint32_t width, uint32_t table_bytes, uint64_t nvalues,
			   uint64_t nsplits, uint64_t code_bytes)
{
	size_t		index_bytes;
	size_t		split_bytes;

	if (nvalues >= SIZE_MAX / 16 || nsplits >= SIZE_MAX / 32)
		return GSST_ERR_OFFSET;
	l->width = width;
	l->table_at = GSST_TILE_HEADER_BYTES;
	l->comp_at = align_up(l->table_at + table_bytes, 8);
	index_bytes = mul_add(nvalues + 1, width, 0);
	split_bytes = mul_add(nsplits + 1, 3 * (uint64_t) width, 0);
	if (index_bytes == SIZE_MAX || split_bytes == SIZE_MAX)
		return GSST_ERR_OFFSET;
	l->raw_at = l->comp_at + index_bytes;
	l->splits_at = l->raw_at + index_bytes;
	if (split_bytes > SIZE_MAX - 64 - l->splits_at)
		return GSST_ERR_OFFSET;
	l->codes_at = align_up(l->splits_at + split_bytes, 16);
	if (code_bytes > SIZE_MAX - l->codes_at)
		return GSST_ERR_OFFSET;
	l->end = l->codes_at + (size_t) code_bytes;
	return GSST_OK;
}

GSST_INLINE uint64_t
read_entry(const uint8_t *base, uint64_t i, uint32_t width)
{
	if (width == 4)
		return load_u32(base + i * 4);
	return load_u64(base + i * 8);
}

GSST_INLINE void
write_entry(uint8_t *base, uint64_t i, uint32_t width, uint64_t v)
{
	if (width == 4)
		store_u32(base + i * 4, (uint32_t) v);
	else
		store_u64(base + i * 8, v);
}

static uint32_t
index_width(uint64_t nvalues, uint64_t raw_bytes)
{
	return (nvalues >= UINT32_MAX || raw_bytes >= UINT32_MAX) ? 8 : 4;
}

/*
 * The split rule: a piece (a value, or a segment of a long value) starting
 * at raw offset r begins a new split when a multiple of split_bytes lies in
 * (previous piece start, r].  Depends only on raw lengths, so a GPU can
 * evaluate it per piece in parallel.  Sequentially it is: r reaches the
 * first multiple of split_bytes above the start of the split before, which
 * needs a division only when a split begins.
 */
GSST_INLINE uint64_t
next_split_boundary(uint64_t split_start, uint64_t split_bytes)
{
	return (split_start / split_bytes + 1) * split_bytes;
}

static uint64_t
count_splits(const uint64_t *offsets, size_t n, uint64_t split_bytes)
{
	uint64_t	nsplits = n > 0 ? 1 : 0;
	uint64_t	boundary = split_bytes;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	start = offsets[i] - offsets[0];
		uint64_t	len = offsets[i + 1] - offsets[i];
		uint64_t	piece = 0;

		do
		{
			if (GSST_UNLIKELY(start + piece >= boundary))
			{
				nsplits++;
				boundary = next_split_boundary(start + piece, split_bytes);
			}
			piece += GSST_SEGMENT_BYTES;
		} while (piece < len);
	}
	return nsplits;
}

size_t
gsst_tile_bound(size_t n, size_t raw_bytes, size_t split_bytes)
{
	uint32_t	width = index_width(n, raw_bytes);
	uint64_t	max_splits;
	tile_layout l;

	if (split_bytes == 0)
		split_bytes = GSST_DEFAULT_SPLIT_BYTES;
	max_splits = 1 + raw_bytes / split_bytes;
	if (compute_layout(&l, width, GSST_TABLE_MAX_BYTES, n, max_splits, raw_bytes) != GSST_OK ||
		l.end > SIZE_MAX - GSST_ENCODE_SLACK)
		return SIZE_MAX;
	return l.end + GSST_ENCODE_SLACK;
}

/* ---- encoding ---- */

int
gsst_tile_encode(const gsst_encoder *enc, const uint8_t *data, const uint64_t *offsets,
				 size_t n, size_t split_bytes, uint8_t *out, size_t cap,
				 size_t *tile_len)
{
	uint64_t	raw_bytes;
	uint64_t	nsplits;
	uint32_t	table_bytes;
	tile_layout l;
	uint8_t    *codes;
	const uint8_t *input_end;
	uint64_t	comp = 0;
	uint64_t	split = 0;
	uint64_t	split_boundary = 0;	/* piece 0 starts split 0 */
	int			rc;

	if (enc == NULL || offsets == NULL || out == NULL || tile_len == NULL ||
		(data == NULL && n > 0))
		return GSST_ERR_ARG;
	if (split_bytes == 0)
		split_bytes = GSST_DEFAULT_SPLIT_BYTES;
	for (size_t i = 0; i < n; i++)
		if (offsets[i + 1] < offsets[i])
			return GSST_ERR_ARG;
	raw_bytes = offsets[n] - offsets[0];
	if (cap < gsst_tile_bound(n, raw_bytes, split_bytes))
		return GSST_ERR_SPACE;

	nsplits = count_splits(offsets, n, split_bytes);
	table_bytes = (uint32_t) gsst_table_serialized_size(&enc->table);
	rc = compute_layout(&l, index_width(n, raw_bytes), table_bytes, n, nsplits, raw_bytes);
	if (rc != GSST_OK)
		return rc;
	memset(out, 0, l.codes_at);
	gsst_table_serialize(&enc->table, out + l.table_at, table_bytes);
	codes = out + l.codes_at;
	input_end = data + offsets[n];

	for (size_t i = 0; i < n; i++)
	{
		const uint8_t *value = data + offsets[i];
		uint64_t	raw_start = offsets[i] - offsets[0];
		uint64_t	len = offsets[i + 1] - offsets[i];
		/* codes must be strictly shorter than the value, else it is raw */
		const uint8_t *olimit = codes + comp + (len > 0 ? len - 1 : 0);
		uint64_t	first_split_of_value = split;
		uint64_t	written = 0;
		int			stored_raw = (len == 0);
		uint64_t	piece = 0;

		write_entry(out + l.comp_at, i, l.width, comp);
		write_entry(out + l.raw_at, i, l.width, raw_start);
		do
		{
			uint64_t	seg_len = len - piece < GSST_SEGMENT_BYTES ?
				len - piece : GSST_SEGMENT_BYTES;

			if (GSST_UNLIKELY(raw_start + piece >= split_boundary))
			{
				uint8_t    *entry = out + l.splits_at + split * 3 * l.width;

				write_entry(entry, 0, l.width, i);
				write_entry(entry, 1, l.width, comp + written);
				write_entry(entry, 2, l.width, raw_start + piece);
				split++;
				split_boundary = next_split_boundary(raw_start + piece, split_bytes);
			}
			if (!stored_raw)
			{
				size_t		w = encode_segment(enc, value + piece, seg_len, input_end,
											   codes + comp + written, olimit);

				if (w == SIZE_MAX)
					stored_raw = 1;
				else
					written += w;
			}
			piece += GSST_SEGMENT_BYTES;
		} while (piece < len);

		if (stored_raw)
		{
			/* splits inside a raw value sit at the same distance in codes */
			for (uint64_t s = first_split_of_value; s < split; s++)
			{
				uint8_t    *entry = out + l.splits_at + s * 3 * l.width;
				uint64_t	raw_at = read_entry(entry, 2, l.width);

				write_entry(entry, 1, l.width, comp + (raw_at - raw_start));
			}
			memcpy(codes + comp, value, len);
			written = len;
		}
		comp += written;
	}
	write_entry(out + l.comp_at, n, l.width, comp);
	write_entry(out + l.raw_at, n, l.width, raw_bytes);
	{
		uint8_t    *sentinel = out + l.splits_at + nsplits * 3 * l.width;

		write_entry(sentinel, 0, l.width, n);
		write_entry(sentinel, 1, l.width, comp);
		write_entry(sentinel, 2, l.width, raw_bytes);
	}

	/* header last: the code size is known now */
	store_u32(out + 0, GSST_TILE_MAGIC);
	out[4] = GSST_TILE_VERSION;
	out[5] = (uint8_t) l.width;
	out[6] = out[7] = 0;
	store_u32(out + 8, GSST_SEGMENT_BYTES);
	store_u32(out + 12, table_bytes);
	store_u64(out + 16, n);
	store_u64(out + 24, nsplits);
	store_u64(out + 32, raw_bytes);
	store_u64(out + 40, comp);
	*tile_len = l.codes_at + comp;
	return GSST_OK;
}

/* ---- opening and validating ---- */

uint64_t
gsst_tile_comp_offset(const gsst_tile *tile, uint64_t i)
{
	return read_entry(tile->comp_offsets, i, tile->offset_width);
}

uint64_t
gsst_tile_raw_offset(const gsst_tile *tile, uint64_t i)
{
	return read_entry(tile->raw_offsets, i, tile->offset_width);
}

void
gsst_tile_split(const gsst_tile *tile, uint64_t s, uint64_t *first_value,
				uint64_t *comp_offset, uint64_t *raw_offset)
{
	const uint8_t *entry = tile->splits + s * 3 * tile->offset_width;

	*first_value = read_entry(entry, 0, tile->offset_width);
	*comp_offset = read_entry(entry, 1, tile->offset_width);
	*raw_offset = read_entry(entry, 2, tile->offset_width);
}

static int
validate_offsets(const gsst_tile *t)
{
	uint64_t	comp_prev = gsst_tile_comp_offset(t, 0);
	uint64_t	raw_prev = gsst_tile_raw_offset(t, 0);

	if (comp_prev != 0 || raw_prev != 0)
		return GSST_ERR_OFFSET;
	for (uint64_t i = 1; i <= t->nvalues; i++)
	{
		uint64_t	comp = gsst_tile_comp_offset(t, i);
		uint64_t	raw = gsst_tile_raw_offset(t, i);

		/* codes never exceed the value: equal means stored raw */
		if (comp < comp_prev || raw < raw_prev || comp - comp_prev > raw - raw_prev)
			return GSST_ERR_OFFSET;
		comp_prev = comp;
		raw_prev = raw;
	}
	if (comp_prev != t->code_bytes || raw_prev != t->raw_bytes)
		return GSST_ERR_LENGTH;
	return GSST_OK;
}

static int
validate_splits(const gsst_tile *t)
{
	uint64_t	value_prev = 0,
				comp_prev = 0,
				raw_prev = 0;

	for (uint64_t s = 0; s <= t->nsplits; s++)
	{
		uint64_t	v,
					comp,
					raw;

		gsst_tile_split(t, s, &v, &comp, &raw);
		if (v < value_prev || comp < comp_prev || raw < raw_prev)
			return GSST_ERR_OFFSET;
		if (s == 0 && (v != 0 || comp != 0 || raw != 0))
			return GSST_ERR_OFFSET;
		if (s == t->nsplits)
		{
			if (v != t->nvalues || comp != t->code_bytes || raw != t->raw_bytes)
				return GSST_ERR_OFFSET;
		}
		else
		{
			uint64_t	value_comp,
						value_raw,
						next_comp,
						next_raw;

			if (v >= t->nvalues)
				return GSST_ERR_OFFSET;
			value_comp = gsst_tile_comp_offset(t, v);
			value_raw = gsst_tile_raw_offset(t, v);
			next_comp = gsst_tile_comp_offset(t, v + 1);
			next_raw = gsst_tile_raw_offset(t, v + 1);
			if (raw == value_raw)
			{
				if (comp != value_comp)
					return GSST_ERR_OFFSET;
			}
			else
			{
				/* inside the value, at a segment boundary */
				if (raw < value_raw || raw >= next_raw ||
					(raw - value_raw) % GSST_SEGMENT_BYTES != 0 ||
					comp < value_comp || comp > next_comp)
					return GSST_ERR_OFFSET;
				if (next_comp - value_comp == next_raw - value_raw &&
					comp - value_comp != raw - value_raw)
					return GSST_ERR_OFFSET;
			}
		}
		value_prev = v;
		comp_prev = comp;
		raw_prev = raw;
	}
	return GSST_OK;
}

int
gsst_tile_open(gsst_tile *t, const uint8_t *buf, size_t len)
{
	tile_layout l;
	size_t		consumed;
	int			rc;

	if (t == NULL || (buf == NULL && len > 0))
		return GSST_ERR_ARG;
	if (len < 8)
		return GSST_ERR_TRUNCATED;
	if (load_u32(buf) != GSST_TILE_MAGIC || buf[4] != GSST_TILE_VERSION)
		return GSST_ERR_VERSION;
	if (len < GSST_TILE_HEADER_BYTES)
		return GSST_ERR_TRUNCATED;
	t->version = buf[4];
	t->offset_width = buf[5];
	t->segment_bytes = load_u32(buf + 8);
	t->table_bytes = load_u32(buf + 12);
	t->nvalues = load_u64(buf + 16);
	t->nsplits = load_u64(buf + 24);
	t->raw_bytes = load_u64(buf + 32);
	t->code_bytes = load_u64(buf + 40);
	if ((t->offset_width != 4 && t->offset_width != 8) || buf[6] != 0 || buf[7] != 0 ||
		t->segment_bytes != GSST_SEGMENT_BYTES || t->table_bytes > GSST_TABLE_MAX_BYTES)
		return GSST_ERR_VERSION;
	if (t->offset_width == 4 &&
		(t->nvalues >= UINT32_MAX || t->raw_bytes >= UINT32_MAX))
		return GSST_ERR_OFFSET;
	if ((t->nvalues == 0) != (t->nsplits == 0) || t->nsplits > t->nvalues * 2 + t->raw_bytes)
		return GSST_ERR_OFFSET;
	rc = compute_layout(&l, t->offset_width, t->table_bytes, t->nvalues, t->nsplits,
						t->code_bytes);
	if (rc != GSST_OK)
		return rc;
	if (l.end > len)
		return GSST_ERR_TRUNCATED;
	if (l.end < len)
		return GSST_ERR_LENGTH;
	rc = gsst_table_load(&t->table, buf + l.table_at, t->table_bytes, &consumed);
	if (rc != GSST_OK)
		return rc;
	if (consumed != t->table_bytes)
		return GSST_ERR_BAD_TABLE;
	t->comp_offsets = buf + l.comp_at;
	t->raw_offsets = buf + l.raw_at;
	t->splits = buf + l.splits_at;
	t->codes = buf + l.codes_at;
	t->tile_bytes = len;
	rc = validate_offsets(t);
	if (rc != GSST_OK)
		return rc;
	return validate_splits(t);
}

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

GSST_INLINE int
decode_all_width(const gsst_tile *t, uint8_t *out, uint8_t *out_end, uint32_t width)
{
	uint64_t	comp = 0,
				raw = 0;

	for (uint64_t i = 0; i < t->nvalues; i++)
	{
		uint64_t	comp_next = read_entry(t->comp_offsets, i + 1, width);
		uint64_t	raw_next = read_entry(t->raw_offsets, i + 1, width);
		int			rc = decode_piece(t, comp_next - comp == raw_next - raw, comp,
									  comp_next, out + raw, raw_next - raw, out_end);

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
	rc = decode_piece(t, comp_end - comp == raw_end - raw, comp, comp_end,
					  out, raw_end - raw, out + out_cap);
	if (rc != GSST_OK)
		return rc;
	return (int64_t) (raw_end - raw);
}
