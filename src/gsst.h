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
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
#include "utils/hsearch.h"
#include "utils/relcache.h"

#include "codec/gsst_codec.h"

/* The version of this library; it serves the SQL objects of 1.0 to 1.3. */
#define GSST_LIBRARY_VERSION "1.3"

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

/* GUC: bytes a new family buffers before it learns its first table. */
extern int	gsst_learn_sample_bytes;

/* GUC: dictionaries the families of one role's tables may hold (0: no limit). */
extern int	gsst_max_dictionaries_per_role;

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

/* catalog.c */
extern const GsstCatalog *gsst_catalog(bool missing_ok);
extern bool gsst_extension_changed_here(void);

/* gsst.c */
extern HTAB *gsst_id_hash_create(const char *name, long nelem, Size entrysize,
								 MemoryContext cxt);

/* dict.c: the dictionaries table and its cache */
extern void gsst_dict_init(void);
extern const gsst_table *gsst_dict_table(uint32 id);
extern const gsst_table *gsst_dict_find(uint32 id, int32 *family);
extern const gsst_encoder *gsst_family_encoder(int32 family, uint32 *table_id);
extern const gsst_encoder *gsst_dict_encoder(uint32 id);
extern bool gsst_family_has_dictionaries(int32 family);
extern uint32 gsst_dict_create(int32 family, const gsst_table *table);
extern bool gsst_can_write_dictionaries(void);
extern bool gsst_dict_ids_locked_here(void);
extern bool gsst_dict_quota_allows(int32 family);
extern int	gsst_dict_pending_for(Oid owner);

/* What storing a family's first dictionary came to (gsst_dict_create_once). */
typedef enum GsstLearnStatus
{
	GSST_LEARN_STORED,			/* stored; the id is returned */
	GSST_LEARN_EXISTS,			/* the family had one already; its id is returned */
	GSST_LEARN_BUSY,			/* another transaction is storing one */
	GSST_LEARN_QUOTA,			/* the owner's dictionaries are at the limit */
	GSST_LEARN_FAILED			/* the learner could not run or failed */
} GsstLearnStatus;

extern uint32 gsst_dict_create_once(int32 family, const gsst_table *table,
									Oid owner, bool wait, int quota, int pending,
									GsstLearnStatus *status);

/* learn.c: a new column learns its first dictionary */
extern int	gsst_max_learners;	/* GUC, with gsst in shared_preload_libraries */
extern void gsst_learn_init(void);
extern void gsst_learn_observe(int32 family, const char *data, Size len,
							   bool may_write_here);
extern uint32 gsst_learn_store(int32 family, const gsst_table *table,
							   bool may_write_here);
extern PGDLLEXPORT void gsst_learner_main(Datum main_arg);

/* privileges.c: relations checked before they are locked */
#define GSST_CHECK_OWNER		0x01
#define GSST_CHECK_SELECT		0x02
#define GSST_CHECK_INSERT		0x03
#define GSST_CHECK_PRIVILEGE	0x0f
#define GSST_CHECK_NOT_CATALOG	0x10
/* relkinds whose rows gsst functions read: table, partitioned, matview */
#define GSST_RELKINDS_WITH_ROWS	"rpm"
extern bool gsst_owns_relation(Oid relid, Oid role);
extern Relation gsst_open_checked(Oid relid, LOCKMODE lockmode, int check,
								  const char *relkinds);

/* family.c: families, the columns that carry them, and rights on them */
#define GSST_RIGHT_READ		0x01	/* see its symbols */
#define GSST_RIGHT_ENCODE	0x02	/* encode with its dictionaries */
#define GSST_RIGHT_LEARN	0x04	/* let written values train its first one */
#define GSST_RIGHT_TRAIN	0x08	/* store a dictionary on purpose */

typedef struct GsstColumnRef
{
	Oid			relid;
	AttrNumber	attnum;
	int32		family;
	bool		root;			/* not inherited */
	Oid			owner;			/* of its table */
	char		compression;	/* its attcompression */
	char		storage;		/* its attstorage */
} GsstColumnRef;

/*
 * How TOAST treats a column's long text, for the rule on what is stored
 * (gsst_datum_encode_into): text of at least compress_len bytes, which
 * takes every row of the column's table past TOAST_TUPLE_THRESHOLD, is
 * also compressed with method where that is smaller (never, PG_UINT32_MAX,
 * where the column's storage keeps TOAST from compressing).
 */
typedef struct GsstToastRule
{
	uint32		compress_len;
	char		method;			/* InvalidCompressionMethod: default_toast_compression */
} GsstToastRule;

typedef void (*GsstFamilyColumnFn) (const GsstColumnRef *col, void *arg);

extern void gsst_foreach_family_column(GsstFamilyColumnFn fn, void *arg);
extern uint8 gsst_family_rights(int32 family);
extern bool gsst_family_may(int32 family, uint8 right);
extern void gsst_family_require(int32 family, uint8 right, const char *action);
extern Oid	gsst_family_owner(int32 family);
extern bool gsst_family_root(int32 family, Oid *relid, AttrNumber *attnum);
extern GsstToastRule gsst_family_toast_rule(int32 family);
extern int32 gsst_family_for_writes(int32 family);
extern bool gsst_family_shared(int32 family, Oid relid, AttrNumber attnum);
extern bool gsst_family_carried(int32 family, Oid relid, AttrNumber attnum);
extern void gsst_family_note_remap(int32 declared, int32 assigned);
extern void gsst_family_forget_remap(int32 assigned);
extern int32 gsst_family_remapped(int32 declared);
extern int32 gsst_family_declared_for(int32 assigned);

/* datum.c */
typedef enum GsstLearnPolicy
{
	GSST_LEARN_FROM_WRITES,		/* input and casts: LEARN right, learner only */
	GSST_LEARN_IF_OWNER			/* gsst.compress: TRAIN right */
} GsstLearnPolicy;

extern bool gsst_codes_are_shorter(Size header_len, Size ncodes, Size text_len);
extern struct varlena *gsst_text_compressed(const char *data, Size len,
											const GsstToastRule *toast,
											struct varlena *dest);
extern void gsst_datum_keep_smallest(struct varlena *dest, struct varlena *text_compressed,
									 const GsstToastRule *toast);
extern struct varlena *gsst_datum_raw(const char *data, Size len);
/* Room gsst_datum_encode_into needs for len bytes of text. */
#define GSST_DATUM_ENCODE_BOUND(len)	(VARHDRSZ + (Size) (len) + GSST_ENCODE_SLACK)
extern struct varlena *gsst_datum_encode_into(const gsst_encoder *enc, uint32 table_id,
											  const char *data, Size len,
											  const GsstToastRule *toast,
											  struct varlena *dest);
extern struct varlena *gsst_datum_encode(const gsst_encoder *enc, uint32 table_id,
										 const char *data, Size len,
										 const GsstToastRule *toast);
extern struct varlena *gsst_datum_codes(const gsst_encoder *enc, uint32 table_id,
										const char *data, Size len);
extern struct varlena *gsst_encode_bytes(const char *data, Size len, int32 family,
										 GsstLearnPolicy policy);
extern struct varlena *gsst_datum_canonical(const struct varlena *value);
extern const char *gsst_value_bytes(const struct varlena *value, Size *len,
									GsstBuffer *buf);
extern text *gsst_value_to_text(struct varlena *value);
extern int64 gsst_value_raw_length(const struct varlena *value, uint32 *table_id);
extern bool gsst_value_is_raw(const struct varlena *value);
extern uint32 gsst_value_table_id(const struct varlena *value);
extern void gsst_require_read_right(const struct varlena *value);
extern void gsst_verify_text(const char *data, Size len);
extern void gsst_verify_input(const char *data, Size len);
extern GSST_NORETURN void gsst_report_corrupt(const char *what, int status);

/*
 * A value as stored: raw bytes (table NULL), or codes and their table.
 * padded: raw bytes that may be read 8 bytes past their end.
 */
typedef struct GsstView
{
	const gsst_table *table;
	uint32		table_id;		/* 0 when raw */
	const uint8 *data;
	Size		len;
	bool		padded;
} GsstView;

extern void gsst_value_view(const struct varlena *value, GsstView *view);
extern int	gsst_view_order(const GsstView *a, const GsstView *b);
extern const uint8 *gsst_view_prefix(const GsstView *view, Size want, uint8 *out,
									 Size *len);

/*
 * PG_DETOAST_DATUM_PACKED without a function call for a datum stored in
 * line and uncompressed, the usual case on the per-row paths.
 */
static inline struct varlena *
gsst_detoast_packed(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
		return pg_detoast_datum_packed(v);
	return v;
}

/* compare.c */
extern bool gsst_collation_is_c(Oid collid);

/* train.c */
extern uint32 gsst_train_column(Oid relid, const char *attname, int32 family,
								bool quiet);

/* ddl.c */
extern bool gsst_relabel_families;
extern int32 gsst_next_family(void);
extern void gsst_ddl_init(void);

#endif							/* GSST_GLUE_H */
