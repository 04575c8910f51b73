/*
 * catalog.c - the extension's own objects, found by name in schema gsst,
 * and the check that this library serves their version.
 *
 * Never through search_path, and without permission checks: encoding and
 * decoding read the dictionaries on behalf of roles that may not read the
 * table itself.  The OIDs are cached until a relcache invalidation of the
 * dictionaries table (or of everything): DROP and CREATE EXTENSION change
 * them.
 */
#include "dict/dict.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

static GsstCatalog catalog;
static bool catalog_valid = false;
static bool callback_registered = false;

static void
catalog_callback(Datum arg, Oid relid)
{
	if (!OidIsValid(relid) || relid == catalog.dictionaries)
		catalog_valid = false;
}

/* Versions of the SQL objects (sql/gsst--*.sql) this library serves. */
static const char *const served_versions[] = {"1.0", "1.1", "1.2", "1.3", "1.4", "1.5"};

/* gsst's row of pg_extension (rel), or NULL; the caller ends the scan. */
static HeapTuple
extension_row(Relation rel, SysScanDesc *scan)
{
	ScanKeyData key;

	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum("gsst"));
	*scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	return systable_getnext(*scan);
}

/* The installed version of the extension's SQL objects, or NULL. */
static char *
installed_version(void)
{
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *version = NULL;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	tup = extension_row(rel, &scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_pg_extension_extversion,
									 RelationGetDescr(rel), &isnull);

		if (!isnull)
			version = TextDatumGetCString(d);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return version;
}

/*
 * A library serves the versions of the SQL objects it was written for: the
 * objects' signatures and the dictionaries table's columns are its to read.
 */
static void
check_served_version(void)
{
	char	   *version = installed_version();

	if (version == NULL)
		return;
	for (int i = 0; i < lengthof(served_versions); i++)
		if (strcmp(version, served_versions[i]) == 0)
			return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the gsst library %s does not serve version %s of the extension's SQL objects",
					GSST_LIBRARY_VERSION, version),
			 errdetail("It serves versions 1.0 and 1.1."),
			 errhint("Install the gsst library that comes with version %s, or, if it is older, run ALTER EXTENSION gsst UPDATE.",
					 version)));
}

static Oid
relation_in_schema(const char *name, Oid nsp, char relkind)
{
	Oid			relid = get_relname_relid(name, nsp);

	if (OidIsValid(relid) && get_rel_relkind(relid) != relkind)
		return InvalidOid;
	return relid;
}

/*
 * The extension's objects.  Returns NULL (or raises an error) when the
 * extension is not installed in this database.
 */
const GsstCatalog *
gsst_catalog(bool missing_ok)
{
	if (!callback_registered)
	{
		CacheRegisterRelcacheCallback(catalog_callback, (Datum) 0);
		callback_registered = true;
	}
	if (!catalog_valid)
	{
		GsstCatalog c;

		memset(&c, 0, sizeof(c));
		c.namespace_oid = get_namespace_oid("gsst", true);
		if (OidIsValid(c.namespace_oid))
		{
			Oid			nsp = c.namespace_oid;
			Oid			in_args[3] = {CSTRINGOID, OIDOID, INT4OID};
			Oid			in_func;
			oidvector  *in_types = buildoidvector(in_args, 3);

			c.dictionaries = relation_in_schema("dictionaries", nsp, RELKIND_RELATION);
			c.dictionaries_pkey = relation_in_schema("dictionaries_pkey", nsp, RELKIND_INDEX);
			c.dictionaries_family_idx = relation_in_schema("dictionaries_family_id_idx", nsp, RELKIND_INDEX);
			c.dictionary_id_seq = relation_in_schema("dictionary_id_seq", nsp, RELKIND_SEQUENCE);
			c.family_seq = relation_in_schema("family_seq", nsp, RELKIND_SEQUENCE);
			c.passthrough_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
												 CStringGetDatum("passthrough"),
												 ObjectIdGetDatum(nsp));

			/*
			 * The type itself lives in the extension's schema: find it as
			 * the result of gsst.gsst_in.
			 */
			in_func = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
									  CStringGetDatum("gsst_in"),
									  PointerGetDatum(in_types),
									  ObjectIdGetDatum(nsp));
			if (OidIsValid(in_func))
				c.gsst_type = get_func_rettype(in_func);
		}

		if (!OidIsValid(c.dictionaries) || !OidIsValid(c.dictionaries_pkey) ||
			!OidIsValid(c.dictionaries_family_idx) ||
			!OidIsValid(c.dictionary_id_seq) || !OidIsValid(c.family_seq) ||
			!OidIsValid(c.passthrough_type) || !OidIsValid(c.gsst_type))
		{
			if (missing_ok)
				return NULL;
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("extension \"gsst\" is not installed in this database"),
					 errhint("Run CREATE EXTENSION gsst.")));
		}
		check_served_version();
		catalog = c;
		catalog_valid = true;
	}
	return &catalog;
}

/*
 * Did this transaction create or update the extension (its pg_extension
 * row)?  Then no other transaction sees what it is now.
 */
bool
gsst_extension_changed_here(void)
{
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		changed = false;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	tup = extension_row(rel, &scan);
	if (HeapTupleIsValid(tup))
		changed = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup->t_data));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return changed;
}
