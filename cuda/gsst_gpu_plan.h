/*
 * gsst_gpu_plan.h - host-side planning of one GPU encode: tile layout,
 * unit and split counts, workspace sizes, and the conversion of the
 * codec's encoder into the kernels' table.  Shared by the library
 * (gsst_gpu_encode.cu; gsst_gpu_context.cu checks sizes with it) and the
 * CPU emulation in test/gpu, so both run the same plan.
 */
#ifndef GSST_GPU_PLAN_H
#define GSST_GPU_PLAN_H

#include "gsst_gpu_body.h"
#include "gsst_gpu_layout.h"

#ifndef GG_TEMP_DIVISOR
#define GG_TEMP_DIVISOR 4		/* each of compaction's two temp areas: input / 4
								 * (7 chunks with 8 KiB units; 13 at input / 8
								 * took 5% longer, H200) */
#endif

typedef struct gg_plan
{
	gsst_tile_layout layout;
	uint64_t	n;
	uint64_t	raw_bytes;
	uint64_t	nunits;
	uint64_t	nsplits;
	uint64_t	units_per_split;
	uint64_t	scratch_bytes;	/* in the tile, from its code area's first
								 * 32-aligned address */
	uint64_t	temp_bytes;		/* compaction's own area */
	uint64_t	chunk_units;	/* units compacted through it at a time */
} gg_plan;

/*
 * The encoder's scratch lives in the tile's code area, so a device tile
 * needs this much room beyond gsst_tile_bound(): 64 bytes per unit (units
 * are at least one segment), 128, and 32-byte alignment.
 */
static inline uint64_t
gg_scratch_slack(uint64_t raw_bytes)
{
	return 64 * (raw_bytes / GSST_SEGMENT_BYTES + 2) + 128 + 32;
}

/* split and unit sizes the GPU encoder accepts */
static inline int
gg_sizes_valid(uint64_t split_bytes, uint64_t unit_bytes)
{
	return split_bytes >= GSST_SEGMENT_BYTES && unit_bytes >= GSST_SEGMENT_BYTES &&
		split_bytes % unit_bytes == 0 && split_bytes <= (1u << 30) && unit_bytes <= (1u << 30);
}

/*
 * Split and unit sizes for a batch of raw bytes (see gsst_gpu_stats): each
 * encoder thread takes a unit and runs about as long as its whole wave, so
 * the unit is the largest one up to want_unit (a multiple of 16, at least a
 * segment) whose units fill whole waves of slots resident threads, and the
 * split is the multiple of it nearest want_split (at least half of it, at
 * most 1 GiB).  fixed, or a fitted unit no smaller than want_unit: the
 * wanted sizes.
 */
static inline void
gg_fit_sizes(uint64_t raw, uint64_t slots, uint64_t want_split, uint64_t want_unit, int fixed,
			 uint64_t *split, uint64_t *unit)
{
	uint64_t	waves,
				u,
				per_split;

	*split = want_split;
	*unit = want_unit;
	if (fixed || slots == 0 || want_unit == 0)
		return;
	/* units: at most one per grid point before the last piece (< raw) */
	waves = ((raw > 0 ? 1 + (raw - 1) / want_unit : 1) + slots - 1) / slots;
	u = (raw + waves * slots - 1) / (waves * slots);
	u = (u + 15) & ~(uint64_t) 15;
	if (u < GSST_SEGMENT_BYTES)
		u = GSST_SEGMENT_BYTES;
	if (u >= want_unit)
		return;
	per_split = (want_split + u / 2) / u;
	if (per_split > 1 && per_split * u > (1u << 30))
		per_split--;			/* gg_sizes_valid's limit */
	*unit = u;
	*split = (per_split > 0 ? per_split : 1) * u;
}

/*
 * n values, off0 = offsets[0], last_start = offsets[n-1], off_end =
 * offsets[n] (n > 0), into a tile of format version.  Returns 0, or -1 on
 * overflow.
 */
static inline int
gg_plan_encode(gg_plan *p, uint32_t version, uint64_t n, uint64_t off0, uint64_t last_start,
			   uint64_t off_end, uint32_t table_bytes, uint64_t split_bytes, uint64_t unit_bytes)
{
	uint64_t	last_piece;

	p->n = n;
	p->raw_bytes = off_end - off0;
	last_piece = n > 0 ? gg_last_piece_start(last_start - off0, off_end - last_start) : 0;
	p->nunits = gg_part_count(n, last_piece, unit_bytes);
	p->nsplits = gg_part_count(n, last_piece, split_bytes);
	p->units_per_split = split_bytes / unit_bytes;
	/* each unit's area: its raw bytes rounded to 32, plus 64 (see body) */
	p->scratch_bytes = p->raw_bytes + 64 * p->nunits + 128;
	/*
	 * A unit's final bytes are at most its raw bytes, less than one unit
	 * plus one segment; a quarter of the input in each temp area makes
	 * about 4 * (unit + segment) / unit chunks: 7 with 8 KiB units
	 */
	p->temp_bytes = p->raw_bytes / GG_TEMP_DIVISOR;
	if (p->temp_bytes < unit_bytes + GSST_SEGMENT_BYTES)
		p->temp_bytes = unit_bytes + GSST_SEGMENT_BYTES;
	p->temp_bytes = (p->temp_bytes + 255) & ~(uint64_t) 255;
	p->chunk_units = p->temp_bytes / (unit_bytes + GSST_SEGMENT_BYTES);
	return gsst_tile_layout_start(&p->layout, version, gsst_tile_index_width(n, p->raw_bytes),
								  table_bytes, n, p->nsplits);
}

/*
 * The compaction chunk that starts at unit u0 ends here.  The first chunk,
 * compacted through temp because its final bytes cover its own scratch, is
 * an eighth of chunk_units; the next ones double, up to chunk_units: a
 * chunk [a, 2a) goes straight into the tile when its codes are at most
 * half its input (its final bytes then end before its scratch), so for
 * compressible data only the small first chunk makes the round trip
 * through temp.  Every chunk fits a temp area.
 */
static inline uint64_t
gg_chunk_stop(const gg_plan *p, uint64_t u0)
{
	uint64_t	first = p->chunk_units / 8 > 0 ? p->chunk_units / 8 : 1;
	uint64_t	size = u0 == 0 ? first : u0 < p->chunk_units ? u0 : p->chunk_units;

	return p->nunits - u0 > size ? u0 + size : p->nunits;
}

static inline void
gg_encoder_from_codec(gg_encoder *g, const gsst_encoder *enc)
{
	memcpy(g->long_hash, enc->long_hash, sizeof(g->long_hash));
	memcpy(g->pair_hash, enc->pair_hash, sizeof(g->pair_hash));
	memcpy(g->symbol, enc->symbol, sizeof(g->symbol));
	memcpy(g->len, enc->len, sizeof(g->len));
	memcpy(g->byte_code, enc->byte_code, sizeof(g->byte_code));
	g->len[GSST_ESCAPE] = 0;
}

static inline void
gg_decoder_from_table(gg_decoder *d, const gsst_table *t)
{
	memcpy(d->symbol, t->symbol, sizeof(d->symbol));
	memcpy(d->len, t->len, sizeof(d->len));
	d->len[GSST_ESCAPE] = 0;
}

#endif							/* GSST_GPU_PLAN_H */
