/*
 * tile_internal.h - helpers shared by the tile encoder (tile.c) and the tile
 * decoders (tile_decode.c).
 */
#ifndef GSST_TILE_INTERNAL_H
#define GSST_TILE_INTERNAL_H

#include "codec_internal.h"
#include "tile_layout.h"

GSST_INLINE uint64_t
read_entry(const uint8_t *base, uint64_t i, uint32_t width)
{
	if (width == 4)
		return load_u32(base + i * 4);
	return load_u64(base + i * 8);
}

/* Copy n bytes in 16-byte pieces: may read and write 15 bytes past n. */
GSST_INLINE void
copy_with_slack(uint8_t *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i += 16)
	{
		uint64_t	a = load_u64(src + i),
					b = load_u64(src + i + 8);

		store_u64(dst + i, a);
		store_u64(dst + i + 8, b);
	}
}

/* Lengths of value i < nvalues of a version 2 tile, whose long entry is k when long. */
GSST_INLINE void
v2_lengths(const gsst_tile *t, uint64_t i, uint64_t k, uint64_t *code_len, uint64_t *raw_len)
{
	if (GSST_UNLIKELY(t->raw_lens[i] == GSST_TILE_LONG))
	{
		*code_len = read_entry(t->longs, 2 * k, t->offset_width);
		*raw_len = read_entry(t->longs, 2 * k + 1, t->offset_width);
	}
	else
	{
		*code_len = t->code_lens[i];
		*raw_len = t->raw_lens[i];
	}
}

/* Move offsets (comp, raw) and long entry k from the start of value i to its end. */
GSST_INLINE void
v2_step(const gsst_tile *t, uint64_t i, uint64_t *comp, uint64_t *raw, uint64_t *long_at)
{
	uint64_t	code_len,
				raw_len;

	v2_lengths(t, i, *long_at, &code_len, &raw_len);
	*comp += code_len;
	*raw += raw_len;
	*long_at += t->raw_lens[i] == GSST_TILE_LONG;
}

/*
 * Offsets of value i of a version 2 tile (i <= nvalues): its block's entry
 * plus the lengths before it in the block; and the index of its long entry
 * (of the next long value's, when it is not long).  The tile is validated.
 */
GSST_INLINE void
v2_seek(const gsst_tile *t, uint64_t i, uint64_t *comp, uint64_t *raw, uint64_t *long_at)
{
	uint32_t	width = t->offset_width;
	uint64_t	b = i / GSST_TILE_BLOCK_VALUES;
	const uint8_t *entry = t->blocks + b * 3 * width;

	*comp = read_entry(entry, 0, width);
	*raw = read_entry(entry, 1, width);
	*long_at = read_entry(entry, 2, width);
	for (uint64_t j = b * GSST_TILE_BLOCK_VALUES; j < i; j++)
		v2_step(t, j, comp, raw, long_at);
}

GSST_INLINE void
v2_offsets(const gsst_tile *t, uint64_t i, uint64_t *comp, uint64_t *raw)
{
	uint64_t	k;

	v2_seek(t, i, comp, raw, &k);
}

/*
 * Entries [0, count] of comp and raw (4 or 8 bytes each, as in a version 1
 * index) for values first .. first + count of a validated version 2 tile,
 * so that the decoders walk either version the same way.
 */
GSST_INLINE void
v2_expand(const gsst_tile *t, uint64_t first, uint64_t count, uint8_t *comp_entries,
		  uint8_t *raw_entries, uint32_t entry_width)
{
	uint64_t	c,
				r,
				k;

	v2_seek(t, first, &c, &r, &k);
	for (uint64_t j = 0;; j++)
	{
		gsst_tile_put_entry(comp_entries, j, entry_width, c);
		gsst_tile_put_entry(raw_entries, j, entry_width, r);
		if (j == count)
			break;
		v2_step(t, first + j, &c, &r, &k);
	}
}

#endif							/* GSST_TILE_INTERNAL_H */
