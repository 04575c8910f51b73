/*
 * family.c - dictionary families, the columns that carry them, and who may
 * use them.
 *
 * A family is the dictionary lineage of one column: the typmod F of
 * gsst(F).  Its symbols are substrings of that column's data, so a role's
 * rights on a family are its rights on the column:
 *
 *	READ	see its symbols (decode crafted codes, gsst.dictionary): SELECT;
 *	ENCODE	encode with its dictionaries: SELECT, INSERT or UPDATE (a writer
 *			can probe a shared dictionary through sizes anyway);
 *	LEARN	let values written to it train its first dictionary: INSERT or
 *			UPDATE;
 *	TRAIN	store a dictionary on purpose (gsst.train, compress_table's
 *			retrain, gsst.compress): owner of the column's table.
 *
 * Owners, superusers, and pg_read_all_data / pg_write_all_data for what
 * they cover, have those rights as they have them on tables.
 *
 * The columns that carry F are read from the catalogs (pg_depend lists
 * every column of type gsst), never from a table of our own, so they
 * follow DROP, ALTER TYPE, dump/restore and pg_upgrade by themselves.
 * Only tables, partitioned tables and foreign tables carry a family; a
 * materialized view, a domain or a composite type of gsst(F) merely uses
 * F's dictionaries as whoever reads or writes it may.
 *
 * The root of a family is its one carrying column that is not inherited;
 * partitions and inheritance children of the root's table carry F too.
 * The DDL hook keeps every family on one root.  A family with roots in
 * tables of different owners (only DDL that bypassed the hook makes one)
 * is contested: superusers alone may use it until a column takes a family
 * of its own (ALTER TABLE ... SET COMPRESSION gsst).  A family no column
 * carries is usable by superusers and pg_read_all_data alone.
 *
 * Values written to the copy table of a pg_repack run are encoded with the
 * family of the column it copies (repack_copied_family), so that the rows
 * it swaps in keep the column's dictionaries.
 *
 * Backends cache the families and the current role's rights on them until
 * any relcache invalidation (a table, a column or a grant changed) or a
 * change of role membership.
 */
#include "dict/dict.h"

#include "access/genam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/toast_compression.h"
#include "catalog/indexing.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/catcache.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

typedef struct FamilyEntry
{
	int32		family;			/* hash key */
	int			ncolumns;		/* carrying columns, roots and inherited */
	int			capacity;
	GsstColumnRef *columns;
	Oid			owner;			/* owner of the root tables; Invalid if contested */
	bool		contested;
	bool		toast_known;	/* toast is computed */
	GsstToastRule toast;
	bool		writes_known;	/* writes_to is computed */
	int32		writes_to;		/* family that values written to it take */
	/* rights of rights_user, when rights_valid */
	bool		rights_valid;
	Oid			rights_user;
	uint8		rights;
} FamilyEntry;

static MemoryContext family_cxt = NULL;
static HTAB *family_map = NULL;
static bool family_map_valid = false;

/* The family looked up last, to skip the hash on a run of values. */
static FamilyEntry *last_family = NULL;

static void
invalidate_family_map(Datum arg, Oid relid)
{
	family_map_valid = false;
	last_family = NULL;
}

static void
invalidate_family_rights(Datum arg, int cacheid, uint32 hashvalue)
{
	family_map_valid = false;
	last_family = NULL;
}

/*
 * Call fn for every column of a table, partitioned table or foreign table
 * of type gsst with a family, found through its dependency on the type.
 */
void
gsst_foreach_family_column(GsstFamilyColumnFn fn, void *arg)
{
	const GsstCatalog *cat = gsst_catalog(false);
	Relation	dep;
	SysScanDesc scan;
	ScanKeyData key[2];
	HeapTuple	tup;

	dep = table_open(DependRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(TypeRelationId));
	ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(cat->gsst_type));
	scan = systable_beginscan(dep, DependReferenceIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);
		HeapTuple	reltup;
		HeapTuple	atttup;
		Form_pg_class relform;
		Form_pg_attribute att;
		GsstColumnRef col;

		if (d->classid != RelationRelationId || d->objsubid <= 0)
			continue;
		reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(d->objid));
		if (!HeapTupleIsValid(reltup))
			continue;
		relform = (Form_pg_class) GETSTRUCT(reltup);
		if (relform->relkind != RELKIND_RELATION &&
			relform->relkind != RELKIND_PARTITIONED_TABLE &&
			relform->relkind != RELKIND_FOREIGN_TABLE)
		{
			ReleaseSysCache(reltup);
			continue;
		}
		atttup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(d->objid),
								 Int16GetDatum((int16) d->objsubid));
		if (!HeapTupleIsValid(atttup))
		{
			ReleaseSysCache(reltup);
			continue;
		}
		att = (Form_pg_attribute) GETSTRUCT(atttup);
		if (!att->attisdropped && att->atttypid == cat->gsst_type &&
			att->atttypmod > 0)
		{
			col.relid = d->objid;
			col.attnum = att->attnum;
			col.family = att->atttypmod;
			col.root = att->attinhcount == 0;
			col.owner = relform->relowner;
			col.compression = att->attcompression;
			col.storage = att->attstorage;
			fn(&col, arg);
		}
		ReleaseSysCache(atttup);
		ReleaseSysCache(reltup);
	}
	systable_endscan(scan);
	table_close(dep, AccessShareLock);
}

static void
add_to_map(const GsstColumnRef *col, void *arg)
{
	bool		found;
	FamilyEntry *e = hash_search(family_map, &col->family, HASH_ENTER, &found);

	if (!found)
	{
		e->ncolumns = 0;
		e->capacity = 4;
		e->columns = MemoryContextAlloc(family_cxt, sizeof(GsstColumnRef) * e->capacity);
		e->owner = InvalidOid;
		e->contested = false;
		e->toast_known = false;
		e->writes_known = false;
		e->rights_valid = false;
	}
	if (e->ncolumns == e->capacity)
	{
		e->capacity *= 2;
		e->columns = repalloc(e->columns, sizeof(GsstColumnRef) * e->capacity);
	}
	e->columns[e->ncolumns++] = *col;
	if (col->root)
	{
		if (!OidIsValid(e->owner) && !e->contested)
			e->owner = col->owner;
		else if (e->owner != col->owner)
		{
			e->contested = true;
			e->owner = InvalidOid;
		}
	}
}

static void
build_family_map(void)
{
	if (family_cxt == NULL)
	{
		family_cxt = AllocSetContextCreate(CacheMemoryContext, "gsst families",
										   ALLOCSET_SMALL_SIZES);
		CacheRegisterRelcacheCallback(invalidate_family_map, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, invalidate_family_rights, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHOID, invalidate_family_rights, (Datum) 0);
	}
	MemoryContextReset(family_cxt);
	family_map = NULL;
	last_family = NULL;

	family_map = gsst_id_hash_create("gsst families", 64, sizeof(FamilyEntry), family_cxt);
	/* valid from here: an invalidation during the scan makes it stale again */
	family_map_valid = true;
	gsst_foreach_family_column(add_to_map, NULL);
}

static FamilyEntry *
lookup_family(int32 family)
{
	if (!family_map_valid || family_map == NULL)
		build_family_map();
	if (last_family != NULL && last_family->family == family)
		return last_family;
	last_family = hash_search(family_map, &family, HASH_FIND, NULL);
	return last_family;
}

/* Has role the privilege on the column, by table or column privileges? */
static bool
column_has(const GsstColumnRef *col, Oid role, AclMode mode)
{
	bool		missing = false;

	if (pg_class_aclcheck_ext(col->relid, role, mode, &missing) == ACLCHECK_OK)
		return true;
	if (missing)
		return false;
	return pg_attribute_aclcheck_ext(col->relid, col->attnum, role, mode,
									 &missing) == ACLCHECK_OK;
}

/* What a column's privileges give on its family. */
static uint8
column_rights(const GsstColumnRef *col, Oid role)
{
	uint8		rights = 0;

	if (column_has(col, role, ACL_SELECT))
		rights |= GSST_RIGHT_READ | GSST_RIGHT_ENCODE;
	if (column_has(col, role, ACL_INSERT) || column_has(col, role, ACL_UPDATE))
		rights |= GSST_RIGHT_ENCODE | GSST_RIGHT_LEARN;
	return rights;
}

static uint8
compute_rights(const FamilyEntry *e, Oid role)
{
	const uint8 all = GSST_RIGHT_READ | GSST_RIGHT_ENCODE | GSST_RIGHT_LEARN | GSST_RIGHT_TRAIN;
	uint8		rights = 0;

	if (superuser_arg(role))
		return e != NULL ? all : GSST_RIGHT_READ | GSST_RIGHT_ENCODE;
	if (e == NULL || e->contested)
		return has_privs_of_role(role, ROLE_PG_READ_ALL_DATA) ?
			GSST_RIGHT_READ | GSST_RIGHT_ENCODE : 0;
	if (has_privs_of_role(role, e->owner))
		return all;
	for (int i = 0; i < e->ncolumns; i++)
		rights |= column_rights(&e->columns[i], role);
	return rights;
}

/* The current role's rights on a family (GSST_RIGHT_* bits). */
uint8
gsst_family_rights(int32 family)
{
	Oid			role = GetUserId();
	FamilyEntry *e = lookup_family(family);

	if (e == NULL)
		return compute_rights(NULL, role);
	if (!e->rights_valid || e->rights_user != role)
	{
		e->rights = compute_rights(e, role);
		e->rights_user = role;
		e->rights_valid = true;
	}
	return e->rights;
}

bool
gsst_family_may(int32 family, uint8 right)
{
	return (gsst_family_rights(family) & right) == right;
}

/* Raise insufficient_privilege unless the current role has the right. */
void
gsst_family_require(int32 family, uint8 right, const char *action)
{
	if (!gsst_family_may(family, right))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to %s gsst dictionary family %d", action, family),
				 errdetail("%s", right == GSST_RIGHT_TRAIN ?
						   "Only the owner of the table whose column the family belongs to may store its dictionaries." :
						   "The symbols of a family are fragments of its column's data: reading them needs SELECT on that column.")));
}

/* The owner of the family's root column's table; Invalid if none or contested. */
Oid
gsst_family_owner(int32 family)
{
	FamilyEntry *e = lookup_family(family);

	return e != NULL ? e->owner : InvalidOid;
}

/* A root column of the family, if it has one. */
bool
gsst_family_root(int32 family, Oid *relid, AttrNumber *attnum)
{
	FamilyEntry *e = lookup_family(family);

	if (e == NULL)
		return false;
	for (int i = 0; i < e->ncolumns; i++)
		if (e->columns[i].root)
		{
			*relid = e->columns[i].relid;
			*attnum = e->columns[i].attnum;
			return true;
		}
	return false;
}

/*
 * The shortest text whose datum takes every row of col's table past
 * TOAST_TUPLE_THRESHOLD, so that TOAST compresses text's own value of that
 * length there (the largest value of a row first): the row's header with a
 * null bitmap, the other columns of fixed width with their padding, a byte
 * for each other column of variable width, and the datum with its header
 * and padding.  Without a column, a row of that datum alone.
 */
static uint32
toast_compress_len(const GsstColumnRef *col)
{
	Size		row = MAXALIGN(SizeofHeapTupleHeader) + sizeof(int32) - 1;
	Size		need = TOAST_TUPLE_THRESHOLD + 1;

	if (col != NULL)
	{
		CatCList   *atts = SearchSysCacheList1(ATTNUM, ObjectIdGetDatum(col->relid));
		int			natts = 0;

		for (int i = 0; i < atts->n_members; i++)
		{
			Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(&atts->members[i]->tuple);

			if (att->attnum <= 0)
				continue;
			natts++;
			if (att->attisdropped || att->attnum == col->attnum)
				continue;
			if (att->attlen > 0)
				row += att->attlen + att_align_nominal(1, att->attalign) - 1;
			else
				row += 1;
		}
		ReleaseSysCacheList(atts);
		row += MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(natts)) -
			MAXALIGN(SizeofHeapTupleHeader);
	}
	row += VARHDRSZ;
	return need > row ? (uint32) (need - row) : 0;
}

/*
 * How TOAST treats the family's long text: from the length
 * toast_compress_len gives for its root column, unless that column's
 * storage is plain or external, with its attcompression
 * (InvalidCompressionMethod for default_toast_compression).
 */
GsstToastRule
gsst_family_toast_rule(int32 family)
{
	FamilyEntry *e = family > 0 ? lookup_family(family) : NULL;
	GsstToastRule rule;

	if (e == NULL)
	{
		rule.compress_len = toast_compress_len(NULL);
		rule.method = InvalidCompressionMethod;
		return rule;
	}
	if (!e->toast_known)
	{
		const GsstColumnRef *root = NULL;

		for (int i = 0; i < e->ncolumns && root == NULL; i++)
			if (e->columns[i].root)
				root = &e->columns[i];
		e->toast.compress_len = toast_compress_len(root);
		e->toast.method = root ? root->compression : InvalidCompressionMethod;
		if (root && (root->storage == TYPSTORAGE_PLAIN || root->storage == TYPSTORAGE_EXTERNAL))
			e->toast.compress_len = PG_UINT32_MAX;
		e->toast_known = true;
	}
	return e->toast;
}

/*
 * pg_repack rewrites a table online through a copy, repack.table_<oid of
 * the table>, made by CREATE TABLE AS ... WITH NO DATA and filled by
 * INSERT ... SELECT and by replaying the writes made meanwhile; its
 * repack_swap then gives the table the copy's files.  The DDL hook gives
 * the copy's gsst columns families of their own, so that those writes
 * pass through the length coercion and encode every raw value.  Encoding
 * them with the copied column's family instead keeps the rows on the
 * column's own dictionaries: the copy learns none.
 *
 * Only a copy in the pg_repack extension's own schema (whose owner, a
 * superuser, alone may create tables there unless granted), whose owner
 * has the privileges of the table's owner, is taken for one: no other
 * role can reach another column's family this way.  Encoding still needs
 * the writer's rights on that family (encoder_for in datum.c).
 */
static int32
repack_copied_family(const FamilyEntry *e)
{
	const GsstColumnRef *col = &e->columns[0];
	const GsstCatalog *cat = gsst_catalog(false);
	Oid			nsp;
	Oid			ext;
	const char *relname;
	char	   *attname;
	char		canonical[NAMEDATALEN];
	unsigned int original;
	AttrNumber	attnum;
	HeapTuple	tup;
	Oid			owner;
	Oid			typid;
	int32		typmod;
	Oid			collid;

	if (e->ncolumns != 1 || !col->root || e->contested)
		return 0;
	nsp = get_rel_namespace(col->relid);
	if (!OidIsValid(nsp) || get_namespace_oid("repack", true) != nsp)
		return 0;
	ext = get_extension_oid("pg_repack", true);
	if (!OidIsValid(ext) || getExtensionOfObject(NamespaceRelationId, nsp) != ext)
		return 0;
	relname = get_rel_name(col->relid);
	if (relname == NULL || sscanf(relname, "table_%u", &original) != 1)
		return 0;
	snprintf(canonical, sizeof(canonical), "table_%u", original);
	if (strcmp(relname, canonical) != 0)
		return 0;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum((Oid) original));
	if (!HeapTupleIsValid(tup))
		return 0;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	if (((Form_pg_class) GETSTRUCT(tup))->relkind != RELKIND_RELATION)
		owner = InvalidOid;
	ReleaseSysCache(tup);
	if (!OidIsValid(owner) || !has_privs_of_role(col->owner, owner))
		return 0;

	attname = get_attname(col->relid, col->attnum, true);
	attnum = attname ? get_attnum((Oid) original, attname) : InvalidAttrNumber;
	if (attnum <= 0)
		return 0;
	get_atttypetypmodcoll((Oid) original, attnum, &typid, &typmod, &collid);
	if (typid != cat->gsst_type || typmod <= 0 || typmod == e->family)
		return 0;
	return typmod;
}

/*
 * The family whose dictionaries encode values written to family: the
 * copied column's for a pg_repack copy (repack_copied_family), else
 * family itself.
 */
int32
gsst_family_for_writes(int32 family)
{
	FamilyEntry *e = family > 0 ? lookup_family(family) : NULL;

	if (e == NULL)
		return family;
	if (!e->writes_known)
	{
		int32		copied = repack_copied_family(e);

		e->writes_to = copied > 0 ? copied : family;
		e->writes_known = true;
	}
	return e->writes_to;
}

/*
 * The columns of a family other than column (relid, attnum), counted afresh
 * from the catalogs: DDL must see what its own transaction changed.
 */
typedef struct CarrierCount
{
	int32		family;
	Oid			relid;
	AttrNumber	attnum;
	int			other_roots;
	int			other_columns;
} CarrierCount;

static void
count_carrier(const GsstColumnRef *col, void *arg)
{
	CarrierCount *cc = (CarrierCount *) arg;

	if (col->family != cc->family ||
		(col->relid == cc->relid && col->attnum == cc->attnum))
		return;
	cc->other_columns++;
	if (col->root)
		cc->other_roots++;
}

static CarrierCount
count_carriers(int32 family, Oid relid, AttrNumber attnum)
{
	CarrierCount cc;

	memset(&cc, 0, sizeof(cc));
	cc.family = family;
	cc.relid = relid;
	cc.attnum = attnum;
	gsst_foreach_family_column(count_carrier, &cc);
	return cc;
}

/* Is a family carried by any column other than (relid, attnum)? */
bool
gsst_family_carried(int32 family, Oid relid, AttrNumber attnum)
{
	return count_carriers(family, relid, attnum).other_columns > 0;
}

/* Is a family carried by a root column other than (relid, attnum)? */
bool
gsst_family_shared(int32 family, Oid relid, AttrNumber attnum)
{
	return count_carriers(family, relid, attnum).other_roots > 0;
}

/*
 * Families the DDL hook gave a column instead of the one it declared, in
 * this session: a dump restored into a database where its families are
 * taken, or a partition restored before its ATTACH.  Dictionaries the same
 * restore brings for the declared family go to the family the column got
 * (dict.c).  Keyed by the family assigned: several columns may have
 * declared the same one.
 */
typedef struct RemapEntry
{
	int32		assigned;		/* hash key */
	int32		declared;
	uint64		seq;			/* order of the remaps */
} RemapEntry;

static HTAB *remap_map = NULL;
static uint64 remap_seq = 0;

void
gsst_family_note_remap(int32 declared, int32 assigned)
{
	RemapEntry *e;

	if (remap_map == NULL)
	{
		remap_map = gsst_id_hash_create("gsst family remaps", 16, sizeof(RemapEntry), TopMemoryContext);
	}
	e = hash_search(remap_map, &assigned, HASH_ENTER, NULL);
	e->declared = declared;
	e->seq = ++remap_seq;
}

/* A column gave up family assigned: it no longer stands for another. */
void
gsst_family_forget_remap(int32 assigned)
{
	if (remap_map != NULL)
		(void) hash_search(remap_map, &assigned, HASH_REMOVE, NULL);
}

/*
 * The declared family that this session gave family assigned instead, or
 * 0: a column that holds assigned holds it only for now.
 */
int32
gsst_family_declared_for(int32 assigned)
{
	RemapEntry *e;

	if (remap_map == NULL)
		return 0;
	e = hash_search(remap_map, &assigned, HASH_FIND, NULL);
	return e ? e->declared : 0;
}

/* The family last given instead of a declared one in this session, or 0. */
int32
gsst_family_remapped(int32 declared)
{
	HASH_SEQ_STATUS status;
	RemapEntry *e;
	int32		assigned = 0;
	uint64		latest = 0;

	if (remap_map == NULL)
		return 0;
	hash_seq_init(&status, remap_map);
	while ((e = hash_seq_search(&status)) != NULL)
		if (e->declared == declared && e->seq > latest)
		{
			assigned = e->assigned;
			latest = e->seq;
		}
	return assigned;
}
