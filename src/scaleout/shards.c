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
 *
 * A node with no sibling (a worker just added, that a rebalance moves a
 * first shard onto; a reference table copied there) learns before the
 * data lands, from the shard itself: when another node holds a placement
 * of the same shard, the first gsst.learn_sample_bytes of its column's
 * values come over as text, through Citus's master_run_on_worker as the
 * same role, and this node trains the new family's first dictionary from
 * them.  A table that create_distributed_table distributes has no other
 * placement yet, and its rows are still in the coordinator's table: the
 * sample comes from there.  A table that cannot be read (one created in
 * the distributing transaction, a refused connection) leaves the column
 * to learn from its writes.  Shards whose names Citus had to shorten learn
 * that way too.
 */
#include "dict/dict.h"
#include "scaleout/citus.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"

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

/*
 * The first values of column colname of table nspname.relname on another
 * node, as text, up to gsst.learn_sample_bytes: a text[] in cxt, or NULL
 * when there is none or it cannot be read.  The node is one that holds a
 * placement of shard shardid, or, with from_coordinator, the coordinator
 * (relname is then the table Citus is distributing, whose rows are still
 * there).  Runs in a subtransaction: any failure here leaves the shard to
 * learn from its writes.
 */
static ArrayType *
placement_sample(int64 shardid, bool from_coordinator, const char *nspname,
				 const char *relname, const char *colname, MemoryContext cxt)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	ArrayType  *volatile sample = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		Oid			types[1] = {INT8OID};
		Datum		values[1] = {Int64GetDatum(shardid)};
		const char *col = quote_identifier(colname);
		char	   *command;
		bool		isnull;

		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		/*
		 * A placement of this shard on another active primary, or the
		 * coordinator when this node is not it.
		 */
		if (SPI_execute_with_args(from_coordinator
								  ? "SELECT n.nodename, n.nodeport"
								  " FROM pg_catalog.pg_dist_node n"
								  " WHERE n.groupid = 0 AND n.isactive AND n.noderole = 'primary'"
								  " AND (SELECT groupid FROM pg_catalog.pg_dist_local_group) <> 0"
								  " AND $1 > 0 LIMIT 1"
								  : "SELECT n.nodename, n.nodeport"
								  " FROM pg_catalog.pg_dist_placement p"
								  " JOIN pg_catalog.pg_dist_node n ON n.groupid = p.groupid"
								  " WHERE p.shardid = $1 AND n.isactive AND n.noderole = 'primary'"
								  " AND p.groupid <> (SELECT groupid FROM pg_catalog.pg_dist_local_group)"
								  " ORDER BY n.nodeid LIMIT 1",
								  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not read Citus's nodes");
		if (SPI_processed == 1)
		{
			Oid			run_types[3] = {TEXTOID, INT4OID, TEXTOID};
			Datum		run_values[3];

			/*
			 * The sample learn.c gathers from writes: each value's first
			 * GSST_SAMPLE_VALUE_MAX bytes, the first value and then as many
			 * as stay within the limit.
			 */
			command = psprintf("SELECT pg_catalog.array_agg(v)::pg_catalog.text FROM"
							   " (SELECT v, pg_catalog.row_number() OVER w AS n,"
							   " pg_catalog.sum(LEAST(pg_catalog.octet_length(v), %d)) OVER w AS upto"
							   " FROM (SELECT pg_catalog.substr(%s::pg_catalog.text, 1, %d) AS v"
							   " FROM ONLY %s WHERE %s IS NOT NULL LIMIT %d) a"
							   " WINDOW w AS (ROWS UNBOUNDED PRECEDING)) b"
							   " WHERE upto <= %d OR n = 1",
							   GSST_SAMPLE_VALUE_MAX, col, GSST_SAMPLE_VALUE_MAX,
							   quote_qualified_identifier(nspname, relname), col,
							   gsst_learn_sample_bytes, gsst_learn_sample_bytes);
			run_values[0] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
			run_values[1] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
			run_values[2] = CStringGetTextDatum(command);
			if (SPI_execute_with_args("SELECT result FROM pg_catalog.master_run_on_worker("
									  "ARRAY[$1], ARRAY[$2], ARRAY[$3], false) WHERE success",
									  3, run_types, run_values, NULL, true, 1) != SPI_OK_SELECT)
				elog(ERROR, "could not run a command on another node");
			if (SPI_processed == 1)
			{
				char	   *result = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

				if (result != NULL && result[0] == '{')
				{
					MemoryContext spicxt = MemoryContextSwitchTo(cxt);

					sample = DatumGetArrayTypeP(OidInputFunctionCall(F_ARRAY_IN, result,
																	 TEXTOID, -1));
					MemoryContextSwitchTo(spicxt);
				}
			}
		}
		SPI_finish();
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
		/* a cancel is the caller's, not a placement we could not read */
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(edata);
		ereport(DEBUG1,
				(errmsg("gsst: shard \"%s\" learns from its writes: no sample of another placement: %s",
						relname, edata->message)));
		FreeErrorData(edata);
		sample = NULL;
	}
	PG_END_TRY();
	return sample;
}

/*
 * A first dictionary for family, trained from sample; the new id, or 0
 * when the sample is empty or the codec could not train.
 */
static uint32
train_from_sample(int32 family, ArrayType *sample)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	const uint8 **values;
	size_t	   *lens;
	int			count = 0;
	gsst_table	table;
	void	   *work;
	int			rc;

	deconstruct_array(sample, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	values = palloc(sizeof(uint8 *) * Max(n, 1));
	lens = palloc(sizeof(size_t) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		text	   *t;

		if (nulls[i])
			continue;
		t = DatumGetTextPP(elems[i]);
		values[count] = (const uint8 *) VARDATA_ANY(t);
		lens[count] = Min(VARSIZE_ANY_EXHDR(t), GSST_SAMPLE_VALUE_MAX);
		if (lens[count] > 0)
			count++;
	}
	if (count == 0)
		return 0;
	work = palloc(gsst_train_work_bytes());
	rc = gsst_train_generations(&table, values, lens, count, work, GSST_PG_TRAIN_GENERATIONS);
	pfree(work);
	if (rc != GSST_OK)
		return 0;
	return gsst_dict_create(family, &table);
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
	bool		from_coordinator = false;
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
	if (OidIsValid(logical) && gsst_citus_distributed(logical))
		siblings = sibling_shard_ids(logical, shardid);
	else if (!OidIsValid(logical) && strlen(relname) < NAMEDATALEN - 1 &&
			 OidIsValid(get_extension_oid("citus", true)))
	{
		/*
		 * No table base here: the shard of a table that Citus distributes
		 * now (create_distributed_table), whose metadata reaches this node
		 * after its shards.  Its rows are still in the coordinator's table
		 * of that name, which the shard may learn from.  A name Citus had
		 * to shorten (NAMEDATALEN - 1 bytes) names no table there.
		 */
		siblings = NIL;
		from_coordinator = true;
	}
	else
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
		if (!gsst_dict_quota_allows(att->atttypmod))
			continue;
		source = from_coordinator ? 0 :
			newest_sibling_dictionary(base, nsp, siblings, NameStr(att->attname));
		if (source != 0)
		{
			table = *gsst_dict_table(source);
			id = gsst_dict_create(att->atttypmod, &table);
			ereport(DEBUG1,
					(errmsg("gsst: shard \"%s\" starts with dictionary %u, a copy of dictionary %u of a shard on this node",
							relname, id, source)));
		}
		else if (gsst_learn_sample_bytes > 0)
		{
			ArrayType  *sample = placement_sample(shardid, from_coordinator,
												  get_namespace_name(nsp),
												  from_coordinator ? base : relname,
												  NameStr(att->attname), CurrentMemoryContext);

			if (sample != NULL && (id = train_from_sample(att->atttypmod, sample)) != 0)
				ereport(DEBUG1,
						(errmsg("gsst: shard \"%s\" starts with dictionary %u, learned from %s",
								relname, id, from_coordinator ? "the coordinator's rows of its table" :
								"another node's placement of it")));
		}
	}
	relation_close(rel, AccessShareLock);
}
