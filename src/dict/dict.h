/*
 * dict.h - dictionaries and the families that hold them (src/dict/): the
 * extension's catalog (catalog.c), privileges on relations (privileges.c),
 * families and rights on them (family.c), the dictionaries table and its
 * cache (dict.c), and a new column learning its first dictionary (learn.c).
 *
 * The lowest layer of the glue above base/ and the codec: it calls no other
 * subsystem.
 */
#ifndef GSST_DICT_H
#define GSST_DICT_H

#include "base/gsst.h"

#include "catalog/pg_attribute.h"
#include "datatype/timestamp.h"

/* GUC: bytes a new family buffers before it learns its first table. */
extern int	gsst_learn_sample_bytes;

/* GUC: dictionaries the families of one role's tables may hold (0: no limit). */
extern int	gsst_max_dictionaries_per_role;

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

/* catalog.c */
extern const GsstCatalog *gsst_catalog(bool missing_ok);
extern bool gsst_extension_changed_here(void);

/* dict.c: the dictionaries table and its cache */
extern void gsst_dict_init(void);
extern const gsst_table *gsst_dict_table(uint32 id);

/*
 * The id and table gsst_dict_table returned last (table NULL once the
 * cache could have dropped it), so that comparisons of a run of values of
 * one dictionary find its table without a call.
 */
typedef struct GsstDictLast
{
	uint32		id;
	const gsst_table *table;
} GsstDictLast;

extern GsstDictLast gsst_dict_last;

static inline const gsst_table *
gsst_dict_table_quick(uint32 id)
{
	if (likely(gsst_dict_last.table != NULL && gsst_dict_last.id == id))
		return gsst_dict_last.table;
	return gsst_dict_table(id);
}

extern const gsst_table *gsst_dict_find(uint32 id, int32 *family);
extern const gsst_encoder *gsst_family_encoder(int32 family, uint32 *table_id);
extern const gsst_encoder *gsst_dict_encoder(uint32 id);
extern bool gsst_family_has_dictionaries(int32 family);
extern int	gsst_family_dictionaries(int32 family, uint32 **ids, TimestampTz **created);
extern bool gsst_dict_lock_drops(void);
extern void gsst_dict_drop(uint32 id);
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
extern Form_pg_attribute *gsst_readable_columns(Relation rel, int *n);

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

#endif							/* GSST_DICT_H */
