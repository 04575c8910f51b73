/*
 * tile_internal.h - helpers shared by the tile encoder (tile.c) and the tile
 * decoders (tile_decode.c).
 */
#ifndef GSST_TILE_INTERNAL_H
#define GSST_TILE_INTERNAL_H

#include "codec_internal.h"

/* Set nonzero to keep the tile decoders on their portable path (tests). */
extern int	gsst_decode_simd_disabled;

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

#endif							/* GSST_TILE_INTERNAL_H */
