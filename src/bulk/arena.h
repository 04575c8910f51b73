/*
 * arena.h - a bump allocator whose memory outlives its resets.
 *
 * The bulk paths fill a batch, encode it, write it out and start the next
 * one.  Were each batch's tuples and datums pallocs in a context of its
 * own, every batch would take fresh pages from the kernel (large blocks go
 * back to it when the context goes), and zeroing and faulting them in costs
 * more than the copies themselves.  An arena keeps its blocks: after the
 * first batch or two, a batch's memory is memory the process already has.
 */
#ifndef GSST_ARENA_H
#define GSST_ARENA_H

#include "postgres.h"

typedef struct GsstArena
{
	MemoryContext cxt;			/* holds the blocks */
	char	  **blocks;
	Size	   *sizes;
	int			nblocks;
	int			maxblocks;
	int			current;		/* the block being filled */
	Size		used;			/* bytes used of it */
} GsstArena;

extern void gsst_arena_init(GsstArena *arena, MemoryContext cxt);
extern void *gsst_arena_alloc(GsstArena *arena, Size size);
extern void gsst_arena_shrink_last(GsstArena *arena, void *last, Size size);
extern void gsst_arena_reset(GsstArena *arena);

#endif							/* GSST_ARENA_H */
