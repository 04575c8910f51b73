/*
 * gsst.h - what every file of gsst's PostgreSQL glue shares: PostgreSQL's
 * and the codec's headers, the library version, constants, and the small
 * helpers of base.c.  Each subsystem says what it offers in its own header:
 * dict/dict.h, type/type.h, column/column.h, worker/worker.h, and bulk/'s.
 *
 * The glue owns the SQL type gsst (a text look-alike whose datum is either
 * raw text or 0x00 + header + FSST codes, see src/codec/FORMAT.md), its
 * dictionaries (symbol tables stored in gsst.dictionaries), the DDL mapping
 * of COMPRESSION gsst, and the SQL functions.  It never includes CUDA
 * headers.
 */
#ifndef GSST_GLUE_H
#define GSST_GLUE_H

#include "postgres.h"

#include "fmgr.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
#include "utils/hsearch.h"
#include "utils/relcache.h"

#include "codec/gsst_codec.h"

/* The version of this library; it serves the SQL objects of 1.0 to 1.5. */
#define GSST_LIBRARY_VERSION "1.5"

/* A function that does not return (pg_attribute_noreturn() is gone in 18). */
#define GSST_NORETURN _Noreturn

/* Bytes a sample value contributes to training at most. */
#define GSST_SAMPLE_VALUE_MAX	4096

/* Bytes of values gsst.train samples from a table. */
#define GSST_TRAIN_SAMPLE_BYTES (64 * 1024)

/*
 * A dictionary is trained once and kept for the column's life, so it gets
 * more generations than the codec's default (codec_bench ratio 2.125 ->
 * 2.174 on the dbtext files), paying the longer training once.
 */
#define GSST_PG_TRAIN_GENERATIONS 12

/* A growable scratch buffer for decoded bytes. */
typedef struct GsstBuffer
{
	char	   *data;
	Size		cap;
	MemoryContext cxt;			/* where data lives; NULL: current context */
} GsstBuffer;

#define GSST_BUFFER_INIT {NULL, 0, NULL}

/* base.c */
extern HTAB *gsst_id_hash_create(const char *name, long nelem, Size entrysize,
								 MemoryContext cxt);

/*
 * While set, gsst_apply_family_support (type/type.c) turns a gsst(F) ->
 * gsst(G) coercion of a column into a relabel; column/ddl.c sets it.
 */
extern bool gsst_relabel_families;

#endif							/* GSST_GLUE_H */
