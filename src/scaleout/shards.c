/*
 * shards.c - a new shard of a Citus distributed table starts with a
 * dictionary.
 *
 * Citus creates a shard on a worker as a table of its own, named after
 * the distributed table and the shard id (dist_102008), when a table is
 * distributed, and again when a shard moves to another node or splits.
 * The DDL hook gives its gsst columns families of their own, as every new
 * column gets: alone, such a column would learn from its first writes and
 * keep those raw, a sixth of a moved shard's values.  When this node
 * already holds other shards of the same table, their column is the same
 * column's data: the newest of their dictionaries is copied into the new
 * shard's family before its first row lands.  A dictionary never crosses
 * nodes: only one this node holds is copied, as values cross nodes as text.
 *
 * Copying symbols reads them: the role that creates the shard must be
 * allowed to read the sibling's family and to store the new one's (the
 * owner of both tables; Citus creates shards as the table's owner).
 * Shards whose names Citus had to shorten, or a node with no sibling,
 * learn as any new column does.
 */
#include "dict/dict.h"
#include "scaleout/citus.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/*
 * The shard ids of Citus's pg_dist_shard rows for the distributed table
 * logical, but skip.
 */
static List *
sibling_shard_ids(Oid logical, int64 skip)
{
	Oid			catalog = get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE);
	AttrNumber	relid_att;
	AttrNumber	shard_att;
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	List	   *ids = NIL;

	if (!OidIsValid(catalog))
		return NIL;
	relid_att = get_attnum(catalog, "logicalrelid");
	shard_att = get_attnum(catalog, "shardid");
	if (relid_att <= 0 || shard_att <= 0)
		return NIL;
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, relid_att, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(logical));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, shard_att, RelationGetDescr(rel), &isnull);

		if (!isnull && DatumGetInt64(d) != skip)
			ids = lappend(ids, psprintf(INT64_FORMAT, DatumGetInt64(d)));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return ids;
}

/*
 * The newest dictionary this node holds for column colname of the
 * siblings' tables (base_<id> in namespace nsp) that the current role may
 * read; 0 if none.
 */
static uint32
newest_sibling_dictionary(const char *base, Oid nsp, List *siblings, const char *colname)
{
	const GsstCatalog *cat = gsst_catalog(false);
	uint32		newest = 0;
	ListCell   *lc;

	foreach(lc, siblings)
	{
		char	   *name = psprintf("%s_%s", base, (char *) lfirst(lc));
		Oid			relid;
		AttrNumber	attnum;
		Oid			typid;
		int32		typmod;
		Oid			collid;
		uint32		id = 0;

		if (strlen(name) >= NAMEDATALEN)
			continue;
		relid = get_relname_relid(name, nsp);
		if (!OidIsValid(relid))
			continue;
		attnum = get_attnum(relid, colname);
		if (attnum <= 0)
			continue;
		get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
		if (typid != cat->gsst_type || typmod <= 0 ||
			!gsst_family_may(typmod, GSST_RIGHT_READ))
			continue;
		if (gsst_family_encoder(typmod, &id) != NULL && id > newest)
			newest = id;
	}
	return newest;
}

void
gsst_citus_seed_shard(Oid relid)
{
	const GsstCatalog *cat = gsst_catalog(true);
	char	   *relname;
	const char *suffix;
	char	   *end;
	int64		shardid;
	char	   *base;
	Oid			nsp;
	Oid			logical;
	List	   *siblings;
	Relation	rel;
	TupleDesc	desc;

	if (cat == NULL || !OidIsValid(relid) || IsBinaryUpgrade ||
		!gsst_can_write_dictionaries())
		return;
	relname = get_rel_name(relid);
	if (relname == NULL || (suffix = strrchr(relname, '_')) == NULL || suffix == relname ||
		suffix[1] < '0' || suffix[1] > '9')
		return;
	errno = 0;
	shardid = strtoll(suffix + 1, &end, 10);
	if (errno != 0 || *end != '\0' || shardid <= 0)
		return;
	base = pnstrdup(relname, suffix - relname);
	nsp = get_rel_namespace(relid);
	logical = get_relname_relid(base, nsp);
	if (!OidIsValid(logical) || !gsst_citus_distributed(logical))
		return;
	siblings = sibling_shard_ids(logical, shardid);
	if (siblings == NIL)
		return;

	rel = relation_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		uint32		source;
		uint32		id;
		gsst_table	table;

		if (att->attisdropped || att->atttypid != cat->gsst_type || att->atttypmod <= 0 ||
			gsst_family_has_dictionaries(att->atttypmod) ||
			!gsst_family_may(att->atttypmod, GSST_RIGHT_TRAIN))
			continue;
		source = newest_sibling_dictionary(base, nsp, siblings, NameStr(att->attname));
		if (source == 0 || !gsst_dict_quota_allows(att->atttypmod))
			continue;
		table = *gsst_dict_table(source);
		id = gsst_dict_create(att->atttypmod, &table);
		ereport(DEBUG1,
				(errmsg("gsst: shard \"%s\" starts with dictionary %u, a copy of dictionary %u of a shard on this node",
						relname, id, source)));
	}
	relation_close(rel, AccessShareLock);
}
