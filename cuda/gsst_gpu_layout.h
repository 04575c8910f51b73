/*
 * gsst_gpu_layout.h - how many splits and encoder units a batch has.
 * Host-side C shared by gsst_gpu.so and its CPU tests (test/gpu), which
 * check it against gsst_tile_encode().  Where the parts of a tile lie is the
 * codec's tile_layout.h, included here.
 */
#ifndef GSST_GPU_LAYOUT_H
#define GSST_GPU_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "tile_layout.h"

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

#endif							/* GSST_GPU_LAYOUT_H */
