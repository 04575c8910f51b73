/*
 * gsst.h - shared declarations of the PostgreSQL glue of gsst.
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
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

#include "codec/gsst_codec.h"

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

/* GUC: bytes a new family buffers before it learns its first table. */
extern int	gsst_learn_sample_bytes;

/* True when _PG_init ran from shared_preload_libraries (DDL hook active). */
extern bool gsst_ddl_hook_active;

/*
 * OIDs of the extension's objects, looked up by name in the gsst schema
 * (never through search_path) and cached until the dictionaries table sees
 * a relcache invalidation.
 */
typedef struct GsstCatalog
{
	Oid			namespace_oid;
	Oid			dictionaries;	/* gsst.dictionaries */
	Oid			dictionaries_pkey;	/* its primary key (id) */
	Oid			dictionaries_family_idx;	/* index on (family, id) */
	Oid			dictionary_id_seq;
	Oid			family_seq;
	Oid			gsst_type;		/* the type gsst (extension's schema) */
	Oid			passthrough_type;	/* gsst.passthrough */
} GsstCatalog;

/* A growable scratch buffer for decoded bytes. */
typedef struct GsstBuffer
{
	char	   *data;
	Size		cap;
	MemoryContext cxt;			/* where data lives; NULL: current context */
} GsstBuffer;

#define GSST_BUFFER_INIT {NULL, 0, NULL}

/* dict.c */
extern void gsst_dict_init(void);
extern const GsstCatalog *gsst_catalog(bool missing_ok);
extern const gsst_table *gsst_dict_table(uint32 id);
extern const gsst_table *gsst_dict_find(uint32 id, int32 *family);
extern const gsst_encoder *gsst_family_encoder(int32 family, uint32 *table_id);
extern void gsst_learn_observe(int32 family, const char *data, Size len);
extern uint32 gsst_dict_create(int32 family, const gsst_table *table);
extern bool gsst_can_write_dictionaries(void);
extern int32 gsst_next_family(void);

/* datum.c */
extern struct varlena *gsst_encode_bytes(const char *data, Size len, int32 family);
extern const char *gsst_value_bytes(const struct varlena *value, Size *len,
									GsstBuffer *buf);
extern text *gsst_value_to_text(struct varlena *value);
extern int64 gsst_value_raw_length(const struct varlena *value, uint32 *table_id);
extern bool gsst_value_is_raw(const struct varlena *value);
extern void gsst_verify_text(const char *data, Size len);
extern void gsst_report_corrupt(const char *what, int status) pg_attribute_noreturn();

/* train.c */
extern uint32 gsst_train_column(Oid relid, const char *attname, int32 family,
								bool quiet);

/* ddl.c */
extern void gsst_ddl_init(void);

#endif							/* GSST_GLUE_H */
