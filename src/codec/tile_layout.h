/*
 * tile_layout.h - where every part of a GSST tile lies, and how the value
 * index of a version 2 tile is packed and read (FORMAT.md, "Tile").
 *
 * The one statement of the layout: the codec (tile.c, tile_decode.c) and
 * the GPU library (cuda/) include it.  Static inline C11 with no PostgreSQL
 * header; nvcc compiles it for the host and the device.  The functions that
 * read an index check what they read, so that a GPU kernel can use them on
 * a tile nobody has validated; the codec validates a whole tile in
 * gsst_tile_open() before its decoders trust it.
 */
#ifndef GSST_TILE_LAYOUT_H
#define GSST_TILE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gsst_codec.h"

#ifdef __CUDACC__
#define GSST_LAYOUT_FN static inline __host__ __device__
#else
#define GSST_LAYOUT_FN static inline
#endif

/*
 * Version 2 index: values in blocks of GSST_TILE_BLOCK_VALUES, each with its
 * (comp, raw, long) start; per value a code length byte and a raw length
 * byte, both GSST_TILE_LONG for a value of GSST_TILE_LONG raw bytes or more,
 * whose two lengths are in the long list after the code area.
 */
#define GSST_TILE_BLOCK_VALUES	128
#define GSST_TILE_LONG			255

typedef struct gsst_tile_layout
{
	uint32_t	version;		/* 1 or 2 */
	uint32_t	width;			/* W: 4 or 8 bytes per entry */
	uint32_t	table_bytes;
	uint64_t	nvalues;
	uint64_t	nsplits;
	uint64_t	nblocks;		/* v2: ceil(N / GSST_TILE_BLOCK_VALUES) */
	uint64_t	table_at;
	uint64_t	comp_at;		/* v1: comp[N + 1] */
	uint64_t	raw_at;			/* v1: raw[N + 1] */
	uint64_t	blocks_at;		/* v2: (B + 1) x (comp, raw, long) */
	uint64_t	code_lens_at;	/* v2: N bytes */
	uint64_t	raw_lens_at;	/* v2: N bytes */
	uint64_t	splits_at;
	uint64_t	splits_end;
	uint64_t	codes_at;
	/* known once the codes are: gsst_tile_layout_finish() */
	uint64_t	code_bytes;
	uint64_t	nlongs;			/* v2: L */
	uint64_t	longs_at;		/* v2: L x (code length, raw length) */
	uint64_t	end;
} gsst_tile_layout;

GSST_LAYOUT_FN uint64_t
gsst_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* FORMAT.md: W is 8 when N or R could reach 2^32 (C <= R). */
GSST_LAYOUT_FN uint32_t
gsst_tile_index_width(uint64_t nvalues, uint64_t raw_bytes)
{
	return (nvalues >= UINT32_MAX || raw_bytes >= UINT32_MAX) ? 8 : 4;
}

/* Whether a value of raw_len bytes keeps its lengths in the long list. */
GSST_LAYOUT_FN int
gsst_tile_is_long(uint64_t raw_len)
{
	return raw_len >= GSST_TILE_LONG;
}

/*
 * Everything up to the code area: it depends only on the header's counts,
 * so an encoder knows where the codes go before it writes them.  Returns 0,
 * or -1 when a size does not fit in 64 bits (hostile headers only).
 */
GSST_LAYOUT_FN int
gsst_tile_layout_start(gsst_tile_layout *l, uint32_t version, uint32_t width,
					   uint32_t table_bytes, uint64_t nvalues, uint64_t nsplits)
{
	uint64_t	at;

	if (nvalues >= UINT64_MAX / 64 || nsplits >= UINT64_MAX / 64 ||
		(version != 1 && version != 2) || (width != 4 && width != 8))
		return -1;
	l->version = version;
	l->width = width;
	l->table_bytes = table_bytes;
	l->nvalues = nvalues;
	l->nsplits = nsplits;
	l->table_at = GSST_TILE_HEADER_BYTES;
	at = gsst_align_up(l->table_at + table_bytes, 8);
	if (version == 1)
	{
		l->nblocks = 0;
		l->comp_at = at;
		l->raw_at = at + (nvalues + 1) * width;
		l->blocks_at = l->code_lens_at = l->raw_lens_at = 0;
		at = l->raw_at + (nvalues + 1) * width;
	}
	else
	{
		l->nblocks = (nvalues + GSST_TILE_BLOCK_VALUES - 1) / GSST_TILE_BLOCK_VALUES;
		l->comp_at = l->raw_at = 0;
		l->blocks_at = at;
		l->code_lens_at = at + (l->nblocks + 1) * 3 * width;
		l->raw_lens_at = l->code_lens_at + nvalues;
		at = gsst_align_up(l->raw_lens_at + nvalues, 8);
	}
	l->splits_at = at;
	l->splits_end = at + (nsplits + 1) * 3 * (uint64_t) width;
	l->codes_at = gsst_align_up(l->splits_end, 16);
	l->code_bytes = l->nlongs = 0;
	l->longs_at = l->end = l->codes_at;
	return 0;
}

/*
 * The rest: the code area, then (v2, L > 0) zero padding to a multiple of 8
 * and the long list.  Returns 0, or -1 on overflow.
 */
GSST_LAYOUT_FN int
gsst_tile_layout_finish(gsst_tile_layout *l, uint64_t code_bytes, uint64_t nlongs)
{
	uint64_t	codes_end;

	if (code_bytes > UINT64_MAX / 4 - l->codes_at || nlongs > UINT64_MAX / 64 ||
		(l->version == 1 && nlongs != 0))
		return -1;
	codes_end = l->codes_at + code_bytes;
	l->code_bytes = code_bytes;
	l->nlongs = nlongs;
	l->longs_at = nlongs > 0 ? gsst_align_up(codes_end, 8) : codes_end;
	l->end = l->longs_at + nlongs * 2 * l->width;
	return 0;
}

/* The number of long values that a v2 tile of tile_len bytes has room for, or -1. */
GSST_LAYOUT_FN int64_t
gsst_tile_nlongs_of_length(const gsst_tile_layout *l, uint64_t code_bytes, uint64_t tile_len)
{
	uint64_t	longs_at = gsst_align_up(l->codes_at + code_bytes, 8);
	uint64_t	entry = 2 * (uint64_t) l->width;

	if (tile_len == l->codes_at + code_bytes)
		return 0;
	if (l->version != 2 || tile_len <= longs_at || (tile_len - longs_at) % entry != 0)
		return -1;
	return (int64_t) ((tile_len - longs_at) / entry);
}

/* ---- little-endian entries (byte by byte where they may be unaligned) ---- */

GSST_LAYOUT_FN uint64_t
gsst_le_get(const uint8_t *p, uint32_t width)
{
	uint64_t	v = 0;

#ifdef __CUDA_ARCH__
	if (((uintptr_t) p & (width - 1)) == 0)
		return width == 4 ? *(const uint32_t *) p : *(const uint64_t *) p;
#endif

	for (int i = (int) width - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

GSST_LAYOUT_FN void
gsst_le_put(uint8_t *p, uint32_t width, uint64_t v)
{
#ifdef __CUDA_ARCH__
	if (((uintptr_t) p & (width - 1)) == 0)
	{
		if (width == 4)
			*(uint32_t *) p = (uint32_t) v;
		else
			*(uint64_t *) p = v;
		return;
	}
#endif
	for (uint32_t i = 0; i < width; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/*
 * Entry i of an array of width-byte entries (4 or 8) that starts aligned to
 * its width: the offset and split tables the encoders write.  On the host,
 * memcpy in the host's order, little-endian as codec_internal.h requires.
 */
GSST_LAYOUT_FN void
gsst_tile_put_entry(uint8_t *base, uint64_t i, uint32_t width, uint64_t v)
{
#ifdef __CUDA_ARCH__
	if (width == 4)
		((uint32_t *) base)[i] = (uint32_t) v;
	else
		((uint64_t *) base)[i] = v;
#else
	uint32_t	v32 = (uint32_t) v;

	if (width == 4)
		memcpy(base + i * 4, &v32, 4);
	else
		memcpy(base + i * 8, &v, 8);
#endif
}

/*
 * Write the header (48 bytes; the code bytes field is code_bytes) and the
 * serialized table with the zero padding after it: bytes [0, end of the
 * table's padding).
 */
GSST_LAYOUT_FN void
gsst_tile_write_header(uint8_t *out, const gsst_tile_layout *l, const uint8_t *table,
					   uint64_t raw_bytes, uint64_t code_bytes)
{
	uint64_t	index_at = l->version == 1 ? l->comp_at : l->blocks_at;

	for (uint64_t i = 0; i < index_at; i++)
		out[i] = 0;
	gsst_le_put(out + 0, 4, GSST_TILE_MAGIC);
	out[4] = (uint8_t) l->version;
	out[5] = (uint8_t) l->width;
	gsst_le_put(out + 8, 4, GSST_SEGMENT_BYTES);
	gsst_le_put(out + 12, 4, l->table_bytes);
	gsst_le_put(out + 16, 8, l->nvalues);
	gsst_le_put(out + 24, 8, l->nsplits);
	gsst_le_put(out + 32, 8, raw_bytes);
	gsst_le_put(out + 40, 8, code_bytes);
	for (uint32_t i = 0; i < l->table_bytes; i++)
		out[l->table_at + i] = table[i];
}

/*
 * Parse a header without trusting it: fills *l (up to its end, for a tile of
 * tile_len bytes) and the sizes, and checks all that the header and the
 * length alone can.  avail bytes of buf are readable: with a version 2
 * tile's block entries among them, L is read from the sentinel entry; else
 * it is what the length leaves room for (the caller then checks the
 * sentinel).  Returns a gsst_status.
 */
GSST_LAYOUT_FN int
gsst_tile_parse_header(const uint8_t *buf, uint64_t avail, uint64_t tile_len,
					   gsst_tile_layout *l, uint64_t *raw_bytes, uint64_t *code_bytes)
{
	uint32_t	version,
				width,
				segment,
				table_bytes;
	uint64_t	nvalues,
				nsplits;
	int64_t		nlongs;

	if (avail < 8 || tile_len < 8)
		return GSST_ERR_TRUNCATED;
	version = buf[4];
	if (gsst_le_get(buf, 4) != GSST_TILE_MAGIC || version < GSST_TILE_VERSION_MIN ||
		version > GSST_TILE_VERSION)
		return GSST_ERR_VERSION;
	if (avail < GSST_TILE_HEADER_BYTES || tile_len < GSST_TILE_HEADER_BYTES)
		return GSST_ERR_TRUNCATED;
	width = buf[5];
	segment = (uint32_t) gsst_le_get(buf + 8, 4);
	table_bytes = (uint32_t) gsst_le_get(buf + 12, 4);
	nvalues = gsst_le_get(buf + 16, 8);
	nsplits = gsst_le_get(buf + 24, 8);
	*raw_bytes = gsst_le_get(buf + 32, 8);
	*code_bytes = gsst_le_get(buf + 40, 8);
	if ((width != 4 && width != 8) || buf[6] != 0 || buf[7] != 0 ||
		segment != GSST_SEGMENT_BYTES || table_bytes > GSST_TABLE_MAX_BYTES)
		return GSST_ERR_VERSION;
	if (width == 4 && (nvalues >= UINT32_MAX || *raw_bytes >= UINT32_MAX))
		return GSST_ERR_OFFSET;
	if ((nvalues == 0) != (nsplits == 0) ||
		nsplits > nvalues * 2 + *raw_bytes || *code_bytes > *raw_bytes)
		return GSST_ERR_OFFSET;
	if (gsst_tile_layout_start(l, version, width, table_bytes, nvalues, nsplits) != 0)
		return GSST_ERR_OFFSET;
	if (l->codes_at > tile_len || tile_len - l->codes_at < *code_bytes)
		return GSST_ERR_TRUNCATED;
	if (version == 2 && avail >= l->code_lens_at)
	{
		/* L is the sentinel block entry's long field */
		uint64_t	sentinel_longs = gsst_le_get(buf + l->code_lens_at - width, width);

		if (sentinel_longs > nvalues ||
			gsst_tile_layout_finish(l, *code_bytes, sentinel_longs) != 0)
			return GSST_ERR_OFFSET;
		if (l->end > tile_len)
			return GSST_ERR_TRUNCATED;
		return l->end < tile_len ? GSST_ERR_LENGTH : GSST_OK;
	}
	/* where the index is not at hand (the GPU's host side): L from the length */
	nlongs = gsst_tile_nlongs_of_length(l, *code_bytes, tile_len);
	if (nlongs < 0 || (uint64_t) nlongs > nvalues ||
		gsst_tile_layout_finish(l, *code_bytes, (uint64_t) nlongs) != 0 || l->end != tile_len)
		return GSST_ERR_LENGTH;
	return GSST_OK;
}

/* ---- the version 2 index ---- */

/* Block b's entry: field 0 comp, 1 raw, 2 long (the index of its first long entry). */
GSST_LAYOUT_FN uint64_t
gsst_tile_block_field(const uint8_t *tile, const gsst_tile_layout *l, uint64_t b, unsigned field)
{
	return gsst_le_get(tile + l->blocks_at + (b * 3 + field) * l->width, l->width);
}

/* A value's length byte (len: its code or raw length) for its raw length. */
GSST_LAYOUT_FN uint8_t
gsst_tile_length_byte(uint64_t raw_len, uint64_t len)
{
	return gsst_tile_is_long(raw_len) ? GSST_TILE_LONG : (uint8_t) len;
}

/*
 * The lengths of value i: its two length bytes and, for a long value, its
 * entry k of the long list at longs (W bytes each), the one rule of how a
 * value's lengths are stored.  Returns whether the value is long.
 */
GSST_LAYOUT_FN int
gsst_tile_put_lengths(uint8_t *code_lens, uint8_t *raw_lens, uint8_t *longs, uint32_t width,
					  uint64_t i, uint64_t k, uint64_t code_len, uint64_t raw_len)
{
	int			is_long = gsst_tile_is_long(raw_len);

	if (is_long)
	{
		gsst_le_put(longs + 2 * k * width, width, code_len);
		gsst_le_put(longs + (2 * k + 1) * width, width, raw_len);
	}
	code_lens[i] = gsst_tile_length_byte(raw_len, code_len);
	raw_lens[i] = gsst_tile_length_byte(raw_len, raw_len);
	return is_long;
}

/*
 * Read them back, checking them: a long value has both bytes
 * GSST_TILE_LONG and an entry k < nlongs of at least GSST_TILE_LONG raw
 * bytes; no value has more code bytes than raw bytes (equal: stored raw),
 * nor more raw bytes than max_raw.  Returns -1 on a broken rule, else
 * whether the value is long.
 */
GSST_LAYOUT_FN int
gsst_tile_get_lengths(const uint8_t *tile, const gsst_tile_layout *l, uint64_t i, uint64_t k,
					  uint64_t max_raw, uint64_t *code_len, uint64_t *raw_len)
{
	uint64_t	cl = tile[l->code_lens_at + i],
				rl = tile[l->raw_lens_at + i];
	int			is_long = rl == GSST_TILE_LONG;

	if (is_long)
	{
		const uint8_t *e = tile + l->longs_at + k * 2 * l->width;

		if (cl != GSST_TILE_LONG || k >= l->nlongs)
			return -1;
		cl = gsst_le_get(e, l->width);
		rl = gsst_le_get(e + l->width, l->width);
		if (!gsst_tile_is_long(rl))
			return -1;
	}
	if (cl > rl || rl > max_raw)
		return -1;
	*code_len = cl;
	*raw_len = rl;
	return is_long;
}

/*
 * Check block b's entry and length bytes (gsst_tile_get_lengths): the
 * values add up to the next block's entry.  Returns GSST_OK, or
 * GSST_ERR_OFFSET when they do not or a value's lengths break the rules.
 */
GSST_LAYOUT_FN int
gsst_tile_check_block(const uint8_t *tile, const gsst_tile_layout *l, uint64_t b)
{
	uint64_t	first = b * GSST_TILE_BLOCK_VALUES;
	uint64_t	count = l->nvalues - first < GSST_TILE_BLOCK_VALUES ?
		l->nvalues - first : GSST_TILE_BLOCK_VALUES;
	uint64_t	c = gsst_tile_block_field(tile, l, b, 0);
	uint64_t	r = gsst_tile_block_field(tile, l, b, 1);
	uint64_t	k = gsst_tile_block_field(tile, l, b, 2);

	if (c > l->code_bytes || r > UINT64_MAX / 2 || k > l->nlongs)
		return GSST_ERR_OFFSET;
	for (uint64_t j = 0; j < count; j++)
	{
		uint64_t	cl,
					rl;
		int			is_long = gsst_tile_get_lengths(tile, l, first + j, k, UINT64_MAX / 4, &cl, &rl);

		if (is_long < 0 || cl > l->code_bytes - c || rl > UINT64_MAX / 2 - r)
			return GSST_ERR_OFFSET;
		k += (uint64_t) is_long;
		c += cl;
		r += rl;
	}
	if (c != gsst_tile_block_field(tile, l, b + 1, 0) ||
		r != gsst_tile_block_field(tile, l, b + 1, 1) ||
		k != gsst_tile_block_field(tile, l, b + 1, 2))
		return GSST_ERR_OFFSET;
	return GSST_OK;
}

#endif							/* GSST_TILE_LAYOUT_H */
