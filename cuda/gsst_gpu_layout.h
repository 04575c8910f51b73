/*
 * gsst_gpu_layout.h - where the parts of a tile lie, and how many splits
 * and encoder units a batch has.  Host-side C shared by gsst_gpu.so and its
 * CPU tests (test/gpu), which check it against gsst_tile_open() and
 * gsst_tile_encode() of the codec: these rules are FORMAT.md's, restated
 * here because the codec keeps its own copy private.
 */
#ifndef GSST_GPU_LAYOUT_H
#define GSST_GPU_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "gsst_codec.h"

typedef struct gg_layout
{
	uint32_t	width;			/* 4 or 8 bytes per index entry */
	uint32_t	table_bytes;
	uint64_t	nvalues;
	uint64_t	nsplits;
	uint64_t	comp_at;
	uint64_t	raw_at;
	uint64_t	splits_at;
	uint64_t	splits_end;
	uint64_t	codes_at;		/* + code bytes = tile end */
} gg_layout;

static inline uint64_t
gg_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* FORMAT.md: W is 8 when N or R could reach 2^32 (C <= R). */
static inline uint32_t
gg_index_width(uint64_t nvalues, uint64_t raw_bytes)
{
	return (nvalues >= UINT32_MAX || raw_bytes >= UINT32_MAX) ? 8 : 4;
}

/*
 * Raw offset (from the batch start) of the last piece: the last value's
 * last segment.  Pieces are values and 4096-byte segments of long values.
 */
static inline uint64_t
gg_last_piece_start(uint64_t last_value_start, uint64_t last_value_len)
{
	uint64_t	segments_before = last_value_len > 0 ?
		(last_value_len - 1) / GSST_SEGMENT_BYTES : 0;

	return last_value_start + segments_before * GSST_SEGMENT_BYTES;
}

/*
 * Number of parts of size `grid` (splits or encoder units, grid >= 4096)
 * the codec's split rule cuts a batch into: a new part starts at the first
 * piece at or after each multiple of grid.  Consecutive pieces start at
 * most 4096 bytes apart, so each multiple up to the last piece's start
 * yields exactly one part.
 */
static inline uint64_t
gg_part_count(uint64_t nvalues, uint64_t last_piece_start, uint64_t grid)
{
	return nvalues == 0 ? 0 : 1 + last_piece_start / grid;
}

/* Layout of a tile; 0 on success, -1 when a size overflows. */
static inline int
gg_compute_layout(gg_layout *l, uint32_t width, uint32_t table_bytes, uint64_t nvalues,
				  uint64_t nsplits)
{
	uint64_t	index_bytes;

	if (nvalues >= UINT64_MAX / 32 || nsplits >= UINT64_MAX / 64)
		return -1;
	l->width = width;
	l->table_bytes = table_bytes;
	l->nvalues = nvalues;
	l->nsplits = nsplits;
	l->comp_at = gg_align_up(GSST_TILE_HEADER_BYTES + (uint64_t) table_bytes, 8);
	index_bytes = (nvalues + 1) * width;
	l->raw_at = l->comp_at + index_bytes;
	l->splits_at = l->raw_at + index_bytes;
	l->splits_end = l->splits_at + (nsplits + 1) * 3 * (uint64_t) width;
	l->codes_at = gg_align_up(l->splits_end, 16);
	return 0;
}

static inline void
gg_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static inline void
gg_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static inline uint32_t
gg_get_u32(const uint8_t *p)
{
	uint32_t	v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t
gg_get_u64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * Write the tile header (code bytes field = code_bytes), the serialized
 * table and the zero padding before the index: bytes [0, comp_at).
 */
static inline void
gg_write_prefix(uint8_t *out, const gg_layout *l, const uint8_t *table, uint64_t raw_bytes,
				uint64_t code_bytes)
{
	for (uint64_t i = 0; i < l->comp_at; i++)
		out[i] = 0;
	gg_put_u32(out + 0, GSST_TILE_MAGIC);
	out[4] = GSST_TILE_VERSION;
	out[5] = (uint8_t) l->width;
	gg_put_u32(out + 8, GSST_SEGMENT_BYTES);
	gg_put_u32(out + 12, l->table_bytes);
	gg_put_u64(out + 16, l->nvalues);
	gg_put_u64(out + 24, l->nsplits);
	gg_put_u64(out + 32, raw_bytes);
	gg_put_u64(out + 40, code_bytes);
	for (uint32_t i = 0; i < l->table_bytes; i++)
		out[GSST_TILE_HEADER_BYTES + i] = table[i];
}

/*
 * Parse a tile header without trusting it: fills *l and the counts, checks
 * what the header alone can check (magic, version, widths, sizes against
 * tile_len).  Returns a gsst_status.
 */
static inline int
gg_parse_header(const uint8_t *buf, size_t avail, uint64_t tile_len, gg_layout *l,
				uint64_t *raw_bytes, uint64_t *code_bytes)
{
	uint32_t	width,
				segment,
				table_bytes;
	uint64_t	nvalues,
				nsplits;

	if (avail < 8 || tile_len < 8)
		return GSST_ERR_TRUNCATED;
	if (gg_get_u32(buf) != GSST_TILE_MAGIC || buf[4] != GSST_TILE_VERSION)
		return GSST_ERR_VERSION;
	if (avail < GSST_TILE_HEADER_BYTES || tile_len < GSST_TILE_HEADER_BYTES)
		return GSST_ERR_TRUNCATED;
	width = buf[5];
	segment = gg_get_u32(buf + 8);
	table_bytes = gg_get_u32(buf + 12);
	nvalues = gg_get_u64(buf + 16);
	nsplits = gg_get_u64(buf + 24);
	*raw_bytes = gg_get_u64(buf + 32);
	*code_bytes = gg_get_u64(buf + 40);
	if ((width != 4 && width != 8) || buf[6] != 0 || buf[7] != 0 ||
		segment != GSST_SEGMENT_BYTES || table_bytes > GSST_TABLE_MAX_BYTES)
		return GSST_ERR_VERSION;
	if (width == 4 && (nvalues >= UINT32_MAX || *raw_bytes >= UINT32_MAX))
		return GSST_ERR_OFFSET;
	if ((nvalues == 0) != (nsplits == 0) || nsplits > nvalues * 2 + *raw_bytes ||
		*code_bytes > *raw_bytes)
		return GSST_ERR_OFFSET;
	if (gg_compute_layout(l, width, table_bytes, nvalues, nsplits) != 0)
		return GSST_ERR_OFFSET;
	if (l->codes_at > tile_len || tile_len - l->codes_at < *code_bytes)
		return GSST_ERR_TRUNCATED;
	if (tile_len - l->codes_at > *code_bytes)
		return GSST_ERR_LENGTH;
	return GSST_OK;
}

#endif							/* GSST_GPU_LAYOUT_H */
