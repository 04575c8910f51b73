/*
 * fuzz_tile - libFuzzer target for gsst_tile_open and the tile decoders.
 *
 * Input: a tile (version 1 or 2; the seeds have both).  When it opens, its
 * index must be consistent (FORMAT.md), gsst_tile_decode_all, every split
 * and every value alone must agree with each other, all decoding into
 * exact-size buffers; and the decoded values,
 * encoded again with the tile's table, must give a tile that decodes to
 * the same bytes.
 */
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf = xdup(data, size);
	gsst_tile	tile;
	int			rc = gsst_tile_open(&tile, buf, size);

	FUZZ_ASSERT(fuzz_is_status(rc));
	if (rc != GSST_OK)
	{
		free(buf);
		return 0;
	}
	const uint64_t N = tile.nvalues,
				S = tile.nsplits,
				R = tile.raw_bytes,
				C = tile.code_bytes;

	/* the index as FORMAT.md states it */
	FUZZ_ASSERT(tile.tile_bytes == size && C <= size && R <= 8 * C);
	FUZZ_ASSERT(tile.offset_width == 4 || tile.offset_width == 8);
	FUZZ_ASSERT(tile.version == 1 || tile.version == 2);
	FUZZ_ASSERT(tile.version == 2 || tile.nlongs == 0);
	FUZZ_ASSERT(gsst_tile_comp_offset(&tile, 0) == 0 && gsst_tile_raw_offset(&tile, 0) == 0);
	FUZZ_ASSERT(gsst_tile_comp_offset(&tile, N) == C && gsst_tile_raw_offset(&tile, N) == R);
	for (uint64_t i = 0; i < N; i++)
	{
		uint64_t	cl = gsst_tile_comp_offset(&tile, i + 1) - gsst_tile_comp_offset(&tile, i);
		uint64_t	rl = gsst_tile_raw_offset(&tile, i + 1) - gsst_tile_raw_offset(&tile, i);

		/* a version 2 index keeps exactly the values of 255 bytes or more in its long list */
		if (tile.version == 2)
			FUZZ_ASSERT((tile.raw_lens[i] == 255) == (rl >= 255) &&
						(tile.raw_lens[i] == 255 || (tile.raw_lens[i] == rl && tile.code_lens[i] == cl)));

		FUZZ_ASSERT(gsst_tile_comp_offset(&tile, i + 1) >= gsst_tile_comp_offset(&tile, i));
		FUZZ_ASSERT(gsst_tile_raw_offset(&tile, i + 1) >= gsst_tile_raw_offset(&tile, i));
		FUZZ_ASSERT(cl <= rl);
	}
	uint64_t	fv, comp, raw, prev_raw = 0, prev_comp = 0, prev_fv = 0;

	gsst_tile_split(&tile, 0, &fv, &comp, &raw);
	FUZZ_ASSERT(fv == 0 && comp == 0 && raw == 0);
	for (uint64_t s = 0; s <= S; s++)
	{
		gsst_tile_split(&tile, s, &fv, &comp, &raw);
		FUZZ_ASSERT(fv >= prev_fv && comp >= prev_comp && raw >= prev_raw);
		FUZZ_ASSERT(fv <= N && comp <= C && raw <= R);
		if (s < S)
		{
			uint64_t	start = gsst_tile_raw_offset(&tile, fv);

			FUZZ_ASSERT(fv < N && raw >= start && (raw - start) % GSST_SEGMENT_BYTES == 0);
		}
		prev_fv = fv, prev_comp = comp, prev_raw = raw;
	}
	FUZZ_ASSERT(fv == N && comp == C && raw == R);

	/* decode three ways, each into exact-size buffers */
	uint8_t    *all = xmalloc(R);
	uint8_t    *by_split = xmalloc(R);
	uint8_t    *by_value = xmalloc(R);
	int			all_rc = gsst_tile_decode_all(&tile, all, R);
	int			split_rc = GSST_OK,
				value_rc = GSST_OK;

	FUZZ_ASSERT(fuzz_is_status(all_rc));
	for (uint64_t s = 0; s < S; s++)
	{
		int			r = gsst_tile_decode_split(&tile, s, by_split, R);

		FUZZ_ASSERT(fuzz_is_status(r));
		if (r < 0)
			split_rc = r;
	}
	for (uint64_t i = 0; i < N; i++)
	{
		uint64_t	start = gsst_tile_raw_offset(&tile, i);
		uint64_t	rl = gsst_tile_raw_offset(&tile, i + 1) - start;
		uint8_t    *one = xmalloc(rl);
		int64_t		r = gsst_tile_decode_one(&tile, i, one, rl);

		FUZZ_ASSERT(r == (int64_t) rl || fuzz_is_status(r));
		if (r < 0)
			value_rc = (int) r;
		else if (rl > 0)
			memcpy(by_value + start, one, rl);
		free(one);
	}
	/* all values decode exactly when the whole tile decodes */
	FUZZ_ASSERT((all_rc == GSST_OK) == (value_rc == GSST_OK));
	if (all_rc == GSST_OK)
		FUZZ_ASSERT(R == 0 || memcmp(all, by_value, R) == 0);
	/* splits may fail on a bad split entry, but never return other bytes */
	if (all_rc == GSST_OK && split_rc == GSST_OK)
		FUZZ_ASSERT(R == 0 || memcmp(all, by_split, R) == 0);

	if (all_rc == GSST_OK && N <= 4096)
	{
		/* re-encode the decoded values with the tile's own table */
		static gsst_encoder enc;
		uint64_t   *offsets = xmalloc(sizeof(uint64_t) * (N + 1));

		for (uint64_t i = 0; i <= N; i++)
			offsets[i] = gsst_tile_raw_offset(&tile, i);
		gsst_encoder_init(&enc, &tile.table);
		size_t		bound = gsst_tile_bound(N, R, 0);
		uint8_t    *tile2_buf = xmalloc(bound);
		size_t		tile2_len = 0;
		gsst_tile	tile2;

		FUZZ_ASSERT(gsst_tile_encode(&enc, all, offsets, N, 0, tile2_buf, bound, &tile2_len) == GSST_OK);
		FUZZ_ASSERT(gsst_tile_open(&tile2, tile2_buf, tile2_len) == GSST_OK);
		FUZZ_ASSERT(gsst_tile_decode_all(&tile2, by_value, R) == GSST_OK);
		FUZZ_ASSERT(R == 0 || memcmp(all, by_value, R) == 0);
		free(tile2_buf);
		free(offsets);
	}
	free(by_value);
	free(by_split);
	free(all);
	free(buf);
	return 0;
}
