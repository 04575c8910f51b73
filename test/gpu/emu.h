/*
 * emu.h - the GPU pipeline run on the CPU: every kernel body of
 * cuda/gsst_gpu_body.h executed one "thread" after another, with the same
 * plan as gsst_gpu.so.  Lets CI (no GPU) check that the kernels' logic
 * yields exactly the codec's tile bytes, and decodes what the codec
 * encodes.
 */
#ifndef GSST_GPU_EMU_H
#define GSST_GPU_EMU_H

#include <stdlib.h>

#include "gsst_gpu_plan.h"

/* compaction chunks emulated, and how many went straight into the tile */
static uint64_t emu_chunks,
			emu_direct_chunks;

/* Sample as the library does; fills values/lens (pointers into sample). */
static size_t
emu_sample(const uint8_t *data, const uint64_t *off, uint64_t n, uint32_t target,
		   uint8_t *sample, const uint8_t **values, size_t *lens)
{
	uint32_t	slot_len[GG_SAMPLE_SLOTS];
	uint32_t	starts[GG_SAMPLE_SLOTS];
	uint32_t	sum = 0;
	size_t		count = 0;

	for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
		gg_sample_len(off, n, k, slot_len);
	for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
	{
		starts[k] = sum;
		sum += slot_len[k];
	}
	for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
		gg_sample_copy(data, off, n, k, slot_len, starts, target, sample, 0, 1);
	for (uint32_t k = 0; k < GG_SAMPLE_SLOTS; k++)
		if (gg_sample_index(n, k) != GG_NO_INDEX && starts[k] + slot_len[k] <= target)
		{
			values[count] = sample + starts[k];
			lens[count] = slot_len[k];
			count++;
		}
	return count;
}

/*
 * Encode with the kernel bodies into a tile of format version.  nlanes:
 * lanes per compaction group (the GPU uses 32).  Returns a gsst_status;
 * *tile_len on success.
 */
static int
emu_encode(const gsst_encoder *enc, uint32_t version, const uint8_t *data, const uint64_t *off,
		   uint64_t n, uint64_t split_bytes, uint64_t unit_bytes, unsigned nlanes, uint8_t *tile,
		   size_t cap, size_t *tile_len)
{
	gg_plan		plan;
	gg_encode_args a;
	gg_encoder *genc = malloc(sizeof(gg_encoder));
	uint8_t		table[GSST_TABLE_MAX_BYTES];
	int			table_bytes = gsst_table_serialize(&enc->table, table, sizeof(table));
	uint8_t    *prefix;
	uint8_t    *comp_side = NULL,
			   *raw_side;
	uint64_t   *longs = NULL,		/* version 2: long values per block */
			   *long_first = NULL;	/* and their exclusive scan */
	uint64_t	nb = 0;
	uint64_t	index_at;
	uint64_t	c = 0;
	int			rc = GSST_OK;

	if (table_bytes < 0 || n == 0 || !gg_sizes_valid(split_bytes, unit_bytes))
	{
		free(genc);
		return GSST_ERR_ARG;
	}
	if (gg_plan_encode(&plan, version, n, off[0], off[n - 1], off[n], (uint32_t) table_bytes,
					   split_bytes, unit_bytes) != 0 ||
		cap < gsst_tile_bound(n, plan.raw_bytes, split_bytes) ||
		cap < gsst_align_up(plan.layout.codes_at, 32) + plan.scratch_bytes)
	{
		free(genc);
		return GSST_ERR_SPACE;
	}
	gg_encoder_from_codec(genc, enc);
	index_at = version == 1 ? plan.layout.comp_at : plan.layout.blocks_at;
	prefix = malloc(index_at);
	gsst_tile_write_header(prefix, &plan.layout, table, plan.raw_bytes, 0);

	memset(&a, 0, sizeof(a));
	a.data = data;
	a.off = off;
	a.enc_global = genc;
	a.n = n;
	a.off0 = off[0];
	a.off_end = off[n];
	a.nunits = plan.nunits;
	a.unit_bytes = unit_bytes;
	a.units_per_split = plan.units_per_split;
	a.nsplits = plan.nsplits;
	a.raw_bytes = plan.raw_bytes;
	a.width = plan.layout.width;
	/* the scratch is the tile's code area, as on the GPU (tile is 32-aligned) */
	a.scratch_bytes = plan.scratch_bytes;
	a.scratch = tile + gsst_align_up(plan.layout.codes_at, 32);
	memset(a.scratch, 0xA5, plan.scratch_bytes);	/* poison */
	a.temp_bytes = plan.temp_bytes;
	a.temp = malloc(2 * plan.temp_bytes);
	memset(a.temp, 0x5A, 2 * plan.temp_bytes);
	a.tile = tile;
	a.layout = plan.layout;
	a.index_at = index_at;
	/* as the library: a version 2 index is packed from side arrays */
	raw_side = malloc((n + 1) * plan.layout.width);
	if (version == 2)
		comp_side = malloc((n + 1) * plan.layout.width);
	a.comp_entries = version == 1 ? tile + plan.layout.comp_at : comp_side;
	a.raw_entries = version == 1 ? tile + plan.layout.raw_at : raw_side;
	a.splits_at = plan.layout.splits_at;
	a.splits_end = plan.layout.splits_end;
	a.codes_at = plan.layout.codes_at;
	a.units = malloc(plan.nunits * sizeof(gg_unit));
	a.starts = malloc((plan.nunits + 1) * sizeof(gg_piece));
	a.sizes = malloc(plan.nunits * sizeof(uint64_t));
	a.bases = malloc(plan.nunits * sizeof(uint64_t));
	a.code_bytes_out = &c;
	a.prefix = prefix;

	/* the index must all be written by the kernels */
	memset(tile + index_at, 0xC3, plan.layout.splits_at - index_at);
	memset(raw_side, 0xC3, (n + 1) * plan.layout.width);
	if (version == 2)
		memset(comp_side, 0xC3, (n + 1) * plan.layout.width);
	for (uint64_t u = 0; u <= plan.nunits; u++)
		gg_plan_unit(&a, u);
	for (uint64_t u = 0; u < plan.nunits; u++)
	{
		uint64_t	slot[8];		/* the thread's shared-memory slot */

		memset(slot, 0x77, sizeof(slot));
		gg_encode_unit(genc, &a, u, (uint8_t *) slot);
	}
	/*
	 * Raw offsets (and their sentinel) into a side buffer, then, beside
	 * the encoding: (version 1) copied into the tile, (version 2) the raw
	 * length bytes written and each block's long values counted and
	 * scanned, from them alone.
	 */
	for (uint64_t i = 0; i <= n; i++)
		gg_raw_entry(&a, raw_side, i);
	if (version == 1)
		memcpy(tile + plan.layout.raw_at, raw_side, n * plan.layout.width);
	else
	{
		uint64_t	sum = 0;

		nb = plan.layout.nblocks;
		longs = malloc((nb + 1) * sizeof(uint64_t));
		long_first = malloc((nb + 1) * sizeof(uint64_t));
		for (uint64_t b = 0; b <= nb; b++)
		{
			longs[b] = 0;
			for (uint32_t lane = 0; b < nb && lane < GG_V2_LANES; lane++)
				longs[b] += gg_v2_lane_raw(&a, b, lane, 1);
		}
		for (uint64_t b = 0; b <= nb; b++)
		{
			long_first[b] = sum;
			sum += longs[b];
		}
	}
	for (uint64_t u = 0; u < plan.nunits; u++)
		gg_resolve_unit(&a, u);
	for (uint64_t u = 0; u < plan.nunits; u++)
		gg_unit_size(&a, u);
	{
		uint64_t	sum = 0;

		for (uint64_t u = 0; u < plan.nunits; u++)
		{
			a.bases[u] = sum;
			sum += a.sizes[u];
		}
	}
	/*
	 * As the GPU launches: chunk c compacted while chunk c - 1 is copied
	 * back.  The copy goes first here, so that it would spoil anything of
	 * chunk c's sources it wrongly overwrote.
	 */
	for (uint64_t c = 0, p0 = 0, u0 = 0; p0 < plan.nunits; c++)
	{
		uint64_t	u1 = u0 < plan.nunits ? gg_chunk_stop(&plan, u0) : plan.nunits;

		/* three lanes, to exercise the striding the grid uses */
		if (p0 < u0)
			for (unsigned lane = 0; lane < 3; lane++)
				gg_copy_back(&a, p0, u0, gg_chunk_temp(&a, c - 1), lane, 3);
		if (u0 < u1 && !gg_chunk_safe(&a, u0, u1))
		{
			/* as the library: the call fails (the worker encodes on the CPU) */
			rc = GSST_ERR_SPACE;
			break;
		}
		if (u0 < u1)
		{
			int			direct = gg_chunk_direct(&a, u0, u1);

			for (uint64_t u = u0; u < u1; u++)
				for (unsigned lane = 0; lane < nlanes; lane++)
					gg_compact_unit(&a, u, lane, nlanes, direct ? a.tile + a.codes_at : gg_chunk_temp(&a, c),
									direct ? 0 : a.bases[u0]);
			emu_direct_chunks += direct;
			emu_chunks++;
		}
		p0 = u0;
		u0 = u1;
	}
	if (rc == GSST_OK)
	{
		for (uint64_t k = 0; k <= plan.nsplits; k++)
			gg_split_entry(&a, k);
		for (uint64_t i = 0; i < index_at + (plan.layout.codes_at - plan.layout.splits_end); i++)
			gg_prefix_byte(&a, i);
		if (version == 2)
		{
			/* blocks and lanes in reverse: none may lean on one before it */
			for (uint64_t b = nb; b-- > 0;)
			{
				uint64_t	lane_at[GG_V2_LANES];
				uint64_t	at = long_first[b];

				for (uint32_t lane = 0; lane < GG_V2_LANES; lane++)
				{
					lane_at[lane] = at;
					at += gg_v2_lane_raw(&a, b, lane, 0);
				}
				for (uint32_t lane = GG_V2_LANES; lane-- > 0;)
					gg_v2_pack_lane(&a, b, lane, lane_at[lane], long_first);
			}
			gsst_tile_layout_finish(&plan.layout, c, long_first[nb]);
		}
		else
			gsst_tile_layout_finish(&plan.layout, c, 0);
		*tile_len = (size_t) plan.layout.end;
	}

	free(raw_side);
	free(comp_side);
	free(longs);
	free(long_first);
	free(a.temp);
	free(a.units);
	free(a.starts);
	free(a.sizes);
	free(a.bases);
	free(prefix);
	free(genc);
	return rc;
}

/*
 * Decode arguments as open_device_tile and expand_index make them; a
 * version 2 index is expanded into *entries (freed by the caller).
 */
static int
emu_decode_args(const uint8_t *tile, size_t tile_len, gg_decode_args *a, gsst_table *table,
				gg_error *err, uint8_t **entries)
{
	gsst_tile_layout	l;
	uint64_t	raw_bytes,
				code_bytes;
	size_t		consumed;
	/* the header and table only, as the library reads them */
	size_t		avail = tile_len < GSST_TILE_HEADER_BYTES + GSST_TABLE_MAX_BYTES ?
		tile_len : GSST_TILE_HEADER_BYTES + GSST_TABLE_MAX_BYTES;
	int			rc = gsst_tile_parse_header(tile, avail, tile_len, &l, &raw_bytes, &code_bytes);

	*entries = NULL;
	if (rc != GSST_OK)
		return rc;
	rc = gsst_table_load(table, tile + GSST_TILE_HEADER_BYTES, l.table_bytes, &consumed);
	if (rc != GSST_OK)
		return rc;
	if (consumed != l.table_bytes)
		return GSST_ERR_BAD_TABLE;
	memset(a, 0, sizeof(*a));
	memset(err, 0, sizeof(*err));
	if (l.version == 1)
	{
		a->comp = tile + l.comp_at;
		a->raw = tile + l.raw_at;
	}
	else
	{
		*entries = malloc(2 * (l.nvalues + 1) * l.width);
		memset(*entries, 0xC3, 2 * (l.nvalues + 1) * l.width);
		a->comp = *entries;
		a->raw = *entries + (l.nvalues + 1) * l.width;
		/* as k_v2_expand's warps, in reverse: no block may lean on another (block 0 always runs) */
		for (uint64_t b = l.nblocks > 0 ? l.nblocks : 1; b-- > 0;)
		{
			uint64_t	c0,
						r0,
						k0,
						long_at[GG_V2_LANES],
						comp[GG_V2_LANES],
						raw[GG_V2_LANES];
			int			bad = 0;

			gg_v2_block_start(tile, &l, b, &c0, &r0, &k0);
			for (uint32_t lane = 0; lane < GG_V2_LANES; lane++)
			{
				long_at[lane] = k0;
				k0 += gg_v2_expand_lane_longs(tile, &l, b, lane);
			}
			for (uint32_t lane = 0; lane < GG_V2_LANES; lane++)
			{
				uint64_t	code_sum,
							raw_sum;

				bad |= gg_v2_expand_lane_sums(tile, &l, raw_bytes, b, lane, long_at[lane], &code_sum,
											  &raw_sum);
				comp[lane] = c0;
				raw[lane] = r0;
				c0 += code_sum;
				r0 += raw_sum;
			}
			for (uint32_t lane = GG_V2_LANES; lane-- > 0;)
				bad |= gg_v2_expand_lane_write(tile, &l, raw_bytes, b, lane, long_at[lane], comp[lane],
											   raw[lane], (uint8_t *) a->comp, (uint8_t *) a->raw);
			if (bad)
				gg_set_error(err, GSST_ERR_OFFSET, 2, b * GSST_TILE_BLOCK_VALUES);
		}
	}
	a->splits = tile + l.splits_at;
	a->codes = tile + l.codes_at;
	a->n = l.nvalues;
	a->nsplits = l.nsplits;
	a->raw_bytes = raw_bytes;
	a->code_bytes = code_bytes;
	a->width = l.width;
	a->err = err;
	return GSST_OK;
}

/* decode all splits (by_value = 0) or all values one by one (1) */
static int
emu_decode(const uint8_t *tile, size_t tile_len, int by_value, uint8_t *out, size_t out_cap,
		   size_t *out_len)
{
	gg_decode_args a;
	gsst_table	table;
	gg_decoder	dec;
	gg_error	err;
	uint8_t    *entries;
	int			rc = emu_decode_args(tile, tile_len, &a, &table, &err, &entries);

	if (rc != GSST_OK || out_cap < a.raw_bytes || err.code != 0)
	{
		free(entries);
		return rc != GSST_OK ? rc : err.code != 0 ? err.code : GSST_ERR_SPACE;
	}
	gg_decoder_from_table(&dec, &table);
	a.out = out;
	a.out_cap = out_cap;
	if (by_value)
		for (uint64_t i = 0; i < a.n; i++)
			gg_decode_value(&dec, &a, i);
	else
		for (uint64_t s = 0; s < a.nsplits; s++)
			gg_decode_split(&dec, &a, s);
	*out_len = a.raw_bytes;
	free(entries);
	return err.code;
}

#endif							/* GSST_GPU_EMU_H */
