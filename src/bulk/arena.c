/*
 * arena.c - a bump allocator whose memory outlives its resets; see arena.h.
 */
#include "bulk/arena.h"

#include "utils/memutils.h"

/* New blocks are at least this big: few blocks, few allocations. */
#define ARENA_MIN_BLOCK		(4 * 1024 * 1024)

void
gsst_arena_init(GsstArena *arena, MemoryContext cxt)
{
	memset(arena, 0, sizeof(*arena));
	arena->cxt = cxt;
}

/* A new block of at least size bytes, filled next: it goes after current. */
static void
add_block(GsstArena *arena, Size size)
{
	Size		bytes = Max(size, ARENA_MIN_BLOCK);
	int			at = arena->nblocks == 0 ? 0 : arena->current + 1;

	if (arena->nblocks == arena->maxblocks)
	{
		arena->maxblocks = Max(8, arena->maxblocks * 2);
		if (arena->blocks == NULL)
		{
			arena->blocks = MemoryContextAlloc(arena->cxt, sizeof(char *) * arena->maxblocks);
			arena->sizes = MemoryContextAlloc(arena->cxt, sizeof(Size) * arena->maxblocks);
		}
		else
		{
			arena->blocks = repalloc(arena->blocks, sizeof(char *) * arena->maxblocks);
			arena->sizes = repalloc(arena->sizes, sizeof(Size) * arena->maxblocks);
		}
	}
	memmove(&arena->blocks[at + 1], &arena->blocks[at],
			sizeof(char *) * (arena->nblocks - at));
	memmove(&arena->sizes[at + 1], &arena->sizes[at],
			sizeof(Size) * (arena->nblocks - at));
	arena->blocks[at] = MemoryContextAllocHuge(arena->cxt, bytes);
	arena->sizes[at] = bytes;
	arena->nblocks++;
	arena->current = at;
	arena->used = 0;
}

/* size bytes, MAXALIGNed, valid until the next reset. */
void *
gsst_arena_alloc(GsstArena *arena, Size size)
{
	void	   *p;

	size = MAXALIGN(size);
	if (arena->nblocks == 0 || arena->sizes[arena->current] - arena->used < size)
	{
		/* the next kept block if it is big enough, else a new one */
		if (arena->current + 1 < arena->nblocks &&
			arena->sizes[arena->current + 1] >= size)
		{
			arena->current++;
			arena->used = 0;
		}
		else
			add_block(arena, size);
	}
	p = arena->blocks[arena->current] + arena->used;
	arena->used += size;
	return p;
}

/* Give back the tail of the last allocation, last, keeping size bytes. */
void
gsst_arena_shrink_last(GsstArena *arena, void *last, Size size)
{
	Size		offset = (char *) last - arena->blocks[arena->current];

	Assert(offset + MAXALIGN(size) <= arena->used);
	arena->used = offset + MAXALIGN(size);
}

/* Forget every allocation; the blocks stay for the next ones. */
void
gsst_arena_reset(GsstArena *arena)
{
	arena->current = 0;
	arena->used = 0;
}
