/*
 * citus.c - gsst.compress_table, gsst.train, gsst.learn and
 * gsst.column_stats on a Citus distributed or reference table; and what
 * its placements learned in a SET COMPRESSION gsst.
 *
 * There the table the caller names is an empty shell: its rows live in
 * shards, each with one or more placements on the nodes, and every node
 * keeps its own dictionaries (DESIGN.md, 6a).  So the work runs on every
 * placement: the caller's rights are checked here first, before any lock
 * and before anything is sent; then one command per placement runs through
 * Citus's run_command_on_placements, which opens a connection per placement
 * and runs them in parallel as the same role; the results are summed, and a
 * placement's failure is reported with its shard and node.  Each command is
 * built from the catalogs (the shard's name from Citus, quoted; a column's
 * name as the catalog spells it, quoted), never from the caller's text;
 * gsst.learn's sample is data, one quoted text[] literal.
 *
 * gsst.load into a distributed table is one INSERT ... SELECT that Citus
 * plans (load_distributed in bulk/load.c), after a gsst.learn on every
 * placement from a sample of its source.
 *
 * gsst neither links against Citus nor includes its headers: a distributed
 * table is one that Citus's catalog pg_dist_partition lists, looked up by
 * name while the citus extension exists.  Without Citus, on a shard, or on
 * a plain table, nothing here runs.
 */
#include "dict/dict.h"
#include "scaleout/citus.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/skey.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

/* What one placement's command gave. */
typedef struct Placement
{
	char	   *node;
	int32		port;
	int64		shard;
	bool		ok;
	char	   *result;			/* its value, "" for NULL; or the error */
} Placement;

bool
gsst_citus_distributed(Oid relid)
{
	Oid			catalog;
	AttrNumber	attnum;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	if (!OidIsValid(get_extension_oid("citus", true)))
		return false;
	catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	if (!OidIsValid(catalog))
		return false;
	attnum = get_attnum(catalog, "logicalrelid");
	if (attnum <= 0)
		return false;
	/* a handful of rows, one per distributed table: a heap scan will do */
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, attnum, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * The rights checked, the relation locked (it stays locked to the end of
 * the transaction); then, for the two that write on every node, a refusal
 * inside a transaction block: each placement commits on its own, as VACUUM
 * does, and a placement waiting for a lock this transaction holds through
 * Citus would wait forever.
 */
static Relation
open_distributed(Oid relid, LOCKMODE lockmode, int check, const char *what)
{
	Relation	rel = gsst_open_checked(relid, lockmode, check, GSST_RELKINDS_WITH_ROWS);

	if (what != NULL)
		PreventInTransactionBlock(true, what);
	return rel;
}

/* A gsst column of the shell table with a family, by name; errors as locally. */
static const char *
shell_gsst_column(Relation rel, const char *column_name)
{
	const GsstCatalog *cat = gsst_catalog(false);
	Oid			relid = RelationGetRelid(rel);
	AttrNumber	attnum = get_attnum(relid, column_name);
	Form_pg_attribute att;

	if (attnum <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						column_name, RelationGetRelationName(rel))));
	att = TupleDescAttr(RelationGetDescr(rel), attnum - 1);
	if (att->atttypid != cat->gsst_type || att->atttypmod <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of relation \"%s\" is not a gsst column with a dictionary family",
						column_name, RelationGetRelationName(rel)),
				 errhint("Use ALTER TABLE ... ALTER COLUMN ... SET COMPRESSION gsst first.")));
	return NameStr(att->attname);
}

/*
 * A quoted literal for a command template of run_command_on_placements,
 * which passes it through format(): a % in it is doubled.
 */
static void
append_template_literal(StringInfo buf, const char *value)
{
	for (const char *p = quote_literal_cstr(value); *p; p++)
	{
		if (*p == '%')
			appendStringInfoChar(buf, '%');
		appendStringInfoChar(buf, *p);
	}
}

/*
 * Run command on every placement of relid, in parallel, through Citus.
 * Its %L is the placement's shard, a quoted name as a literal.
 */
static Placement *
run_on_placements(Oid relid, const char *command, int *nplacements)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid			argtypes[2] = {REGCLASSOID, TEXTOID};
	Datum		args[2];
	Placement  *placements;
	int			rc;

	args[0] = ObjectIdGetDatum(relid);
	args[1] = CStringGetTextDatum(command);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute_with_args("SELECT nodename, nodeport, shardid, success, result "
							   "FROM pg_catalog.run_command_on_placements($1, $2, true) "
							   "ORDER BY shardid, nodename, nodeport",
							   2, argtypes, args, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "run_command_on_placements failed: %s", SPI_result_code_string(rc));

	placements = MemoryContextAllocZero(caller, sizeof(Placement) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		Placement  *p = &placements[i];
		bool		isnull;
		Datum		d;
		char	   *s;

		s = SPI_getvalue(tup, desc, 1);
		p->node = MemoryContextStrdup(caller, s ? s : "?");
		d = SPI_getbinval(tup, desc, 2, &isnull);
		p->port = isnull ? 0 : DatumGetInt32(d);
		d = SPI_getbinval(tup, desc, 3, &isnull);
		p->shard = isnull ? 0 : DatumGetInt64(d);
		d = SPI_getbinval(tup, desc, 4, &isnull);
		p->ok = !isnull && DatumGetBool(d);
		s = SPI_getvalue(tup, desc, 5);
		p->result = MemoryContextStrdup(caller, s ? s : "");
	}
	*nplacements = (int) SPI_processed;
	SPI_finish();
	return placements;
}

/*
 * Raise the placements' failures, if any: the first in the message, all in
 * the detail, each with its shard and node.  The placements' SQLSTATEs do
 * not come back through Citus, only their messages.
 */
static void
report_failures(const char *function, Oid relid, const Placement *placements, int n)
{
	StringInfoData detail;
	const Placement *first = NULL;
	int			failed = 0;

	initStringInfo(&detail);
	for (int i = 0; i < n; i++)
	{
		const Placement *p = &placements[i];
		const char *message = p->result;

		if (p->ok)
			continue;
		if (strncmp(message, "ERROR:  ", 8) == 0)
			message += 8;
		if (first == NULL)
			first = p;
		appendStringInfo(&detail, "%sshard %lld on %s:%d: %s", failed > 0 ? "\n" : "",
						 (long long) p->shard, p->node, p->port, message);
		failed++;
	}
	if (first == NULL)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
			 errmsg("%s failed on shard %lld of \"%s\" on %s:%d",
					function, (long long) first->shard, get_rel_name(relid),
					first->node, first->port),
			 errdetail_internal("%d of %d placements failed.\n%s", failed, n, detail.data),
			 errhint("Each placement commits on its own: those that succeeded keep their work.")));
}

/* Distinct nodes among the placements (they come in shard order). */
static int
count_nodes(const Placement *placements, int n)
{
	int			nodes = 0;

	for (int i = 0; i < n; i++)
	{
		bool		seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = placements[j].port == placements[i].port &&
				strcmp(placements[j].node, placements[i].node) == 0;
		if (!seen)
			nodes++;
	}
	return nodes;
}

int64
gsst_citus_compress_table(Oid relid, const char *column_name, bool retrain, int workers)
{
	const GsstCatalog *cat = gsst_catalog(false);
	Relation	rel;
	StringInfoData cmd;
	Placement  *placements;
	int			n;
	int64		total = 0;
	bool		any = false;
	StringInfoData detail;

	/* ShareUpdateExclusive: no DDL, no second compress, no shard move meanwhile */
	rel = open_distributed(relid, ShareUpdateExclusiveLock,
						   GSST_CHECK_OWNER | GSST_CHECK_NOT_CATALOG,
						   "gsst.compress_table of a distributed table");
	initStringInfo(&cmd);
	appendStringInfoString(&cmd, "SELECT gsst.compress_table(%L::pg_catalog.regclass, ");
	if (column_name != NULL)
	{
		append_template_literal(&cmd, shell_gsst_column(rel, column_name));
		any = true;
	}
	else
	{
		appendStringInfoString(&cmd, "NULL");
		for (int i = 0; i < RelationGetDescr(rel)->natts && !any; i++)
		{
			Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), i);

			any = !att->attisdropped && att->atttypid == cat->gsst_type && att->atttypmod > 0;
		}
	}
	appendStringInfo(&cmd, ", %s, ", retrain ? "true" : "false");
	if (workers >= 0)
		appendStringInfo(&cmd, "%d)", workers);
	else
		appendStringInfoString(&cmd, "NULL)");
	if (!any)
	{
		ereport(NOTICE,
				(errmsg("relation \"%s\" has no gsst columns; nothing to do",
						RelationGetRelationName(rel))));
		relation_close(rel, NoLock);
		return 0;
	}

	placements = run_on_placements(relid, cmd.data, &n);
	report_failures("gsst.compress_table", relid, placements, n);
	initStringInfo(&detail);
	for (int i = 0; i < n; i++)
	{
		int64		encoded = 0;

		if (placements[i].result[0] != '\0')
			encoded = DatumGetInt64(DirectFunctionCall1(int8in,
														CStringGetDatum(placements[i].result)));
		total += encoded;
		appendStringInfo(&detail, "%sshard %lld on %s:%d: %lld values encoded",
						 i ? "\n" : "", (long long) placements[i].shard,
						 placements[i].node, placements[i].port, (long long) encoded);
	}

	/*
	 * Each placement's rewrite showed in pg_stat_progress_cluster on its
	 * node while it ran, and its own NOTICE came back at DEBUG1; the user
	 * gets the sum, and what each placement did.
	 */
	ereport(NOTICE,
			(errmsg("gsst.compress_table: \"%s\": %lld values encoded on %d placements on %d nodes",
					RelationGetRelationName(rel), (long long) total, n,
					count_nodes(placements, n)),
			 errdetail_internal("%s", detail.data)));
	relation_close(rel, NoLock);
	return total;
}

/*
 * Run function (gsst.train or gsst.learn) on every placement of rel, on
 * its copy of column column_name, with the sample as a last argument when
 * there is one.  Returns how many placements stored a dictionary (those
 * whose function did not return NULL); *n, how many there were.
 */
static int32
run_column_function(Relation rel, const char *function, const char *column_name,
					ArrayType *sample, int *n)
{
	Oid			relid = RelationGetRelid(rel);
	StringInfoData cmd;
	Placement  *placements;
	int32		stored = 0;

	initStringInfo(&cmd);
	appendStringInfo(&cmd, "SELECT %s(%%L::pg_catalog.regclass, ", function);
	append_template_literal(&cmd, shell_gsst_column(rel, column_name));
	if (sample != NULL)
	{
		Oid			typoutput;
		bool		typisvarlena;

		appendStringInfoString(&cmd, ", ");
		getTypeOutputInfo(TEXTARRAYOID, &typoutput, &typisvarlena);
		append_template_literal(&cmd, OidOutputFunctionCall(typoutput, PointerGetDatum(sample)));
		appendStringInfoString(&cmd, "::pg_catalog.text[]");
	}
	appendStringInfoChar(&cmd, ')');

	placements = run_on_placements(relid, cmd.data, n);
	report_failures(function, relid, placements, *n);
	for (int i = 0; i < *n; i++)
		if (placements[i].result[0] != '\0')
			stored++;
	return stored;
}

int32
gsst_citus_train(Oid relid, const char *column_name)
{
	Relation	rel;
	int			n;
	int32		trained;

	rel = open_distributed(relid, AccessShareLock, GSST_CHECK_OWNER,
						   "gsst.train of a distributed table");
	trained = run_column_function(rel, "gsst.train", column_name, NULL, &n);
	ereport(NOTICE,
			(errmsg("gsst.train: \"%s\": %d of %d placements learned a dictionary of their own",
					RelationGetRelationName(rel), trained, n)));
	relation_close(rel, NoLock);
	return trained;
}

int32
gsst_citus_learn(Oid relid, const char *column_name, ArrayType *sample)
{
	Relation	rel;
	int			n;
	int32		learned;

	/* as locally: a role that may write to the column may teach it */
	rel = open_distributed(relid, AccessShareLock, GSST_CHECK_INSERT,
						   "gsst.learn of a distributed table");
	learned = run_column_function(rel, "gsst.learn", column_name, sample, &n);
	ereport(DEBUG1,
			(errmsg("gsst.learn: \"%s\": %d of %d placements learned their first dictionary from a sample of %d values",
					RelationGetRelationName(rel), learned, n,
					ArrayGetNItems(ARR_NDIM(sample), ARR_DIMS(sample)))));
	relation_close(rel, NoLock);
	return learned;
}

/*
 * The sums of the placements' column_stats, one placement per shard (a
 * reference table's copies count once), by column name.
 */
static void
sum_column_stats(ArrayType *docs, TupleDesc desc, Tuplestorestate *store,
				 const char **names, const int32 *families, int ncols)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid			argtypes[1] = {TEXTARRAYOID};
	Datum		args[1];
	int64	   *sums = palloc0(sizeof(int64) * 4 * Max(ncols, 1));
	int			rc;

	args[0] = PointerGetDatum(docs);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute_with_args("SELECT s.column_name, sum(s.\"values\")::int8, sum(s.encoded_values)::int8, "
							   "sum(s.raw_bytes)::int8, sum(s.stored_bytes)::int8 "
							   "FROM pg_catalog.unnest($1) AS d(doc), "
							   "pg_catalog.json_to_recordset(d.doc::pg_catalog.json) AS "
							   "s(column_name text, \"values\" int8, encoded_values int8, raw_bytes int8, stored_bytes int8) "
							   "GROUP BY s.column_name",
							   1, argtypes, args, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "summing gsst.column_stats failed: %s", SPI_result_code_string(rc));
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		char	   *name = SPI_getvalue(tup, SPI_tuptable->tupdesc, 1);

		for (int c = 0; c < ncols; c++)
		{
			if (name == NULL || strcmp(name, names[c]) != 0)
				continue;
			for (int k = 0; k < 4; k++)
			{
				bool		isnull;
				Datum		d = SPI_getbinval(tup, SPI_tuptable->tupdesc, k + 2, &isnull);

				sums[c * 4 + k] = isnull ? 0 : DatumGetInt64(d);
			}
		}
	}
	SPI_finish();
	MemoryContextSwitchTo(caller);

	for (int c = 0; c < ncols; c++)
	{
		Datum		values[8];
		bool		nulls[8] = {false, false, false, false, false, false, false, false};
		int64	   *s = &sums[c * 4];

		values[0] = DirectFunctionCall1(namein, CStringGetDatum(names[c]));
		values[1] = Int32GetDatum(families[c]);
		values[2] = Int64GetDatum(s[0]);
		values[3] = Int64GetDatum(s[1]);
		values[4] = Int64GetDatum(s[2]);
		values[5] = Int64GetDatum(s[3]);
		if (s[3] > 0)
			values[6] = Float8GetDatum((double) s[2] / (double) s[3]);
		else
			nulls[6] = true;
		/* each node has dictionaries of its own: no list means anything here */
		nulls[7] = true;
		tuplestore_putvalues(store, desc, values, nulls);
	}
}

void
gsst_citus_column_stats(Oid relid, ReturnSetInfo *rsinfo)
{
	Relation	rel;
	Form_pg_attribute *atts;
	const char **names;
	int32	   *families;
	int			ncols;
	Placement  *placements;
	int			n;
	Datum	   *docs;
	int			ndocs = 0;

	rel = open_distributed(relid, AccessShareLock, GSST_CHECK_SELECT, NULL);
	/* as locally: the columns the role may read */
	atts = gsst_readable_columns(rel, &ncols);
	names = palloc(sizeof(char *) * Max(ncols, 1));
	families = palloc(sizeof(int32) * Max(ncols, 1));
	for (int c = 0; c < ncols; c++)
	{
		names[c] = pstrdup(NameStr(atts[c]->attname));
		families[c] = atts[c]->atttypmod;
	}
	if (ncols == 0)
	{
		relation_close(rel, NoLock);
		return;
	}

	placements = run_on_placements(relid,
									"SELECT pg_catalog.json_agg(s)::text "
									"FROM gsst.column_stats(%L::pg_catalog.regclass) s",
									&n);
	report_failures("gsst.column_stats", relid, placements, n);
	docs = palloc(sizeof(Datum) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		/* placements come in shard order: the first of each shard counts */
		if (i > 0 && placements[i].shard == placements[i - 1].shard)
			continue;
		if (placements[i].result[0] != '\0')
			docs[ndocs++] = CStringGetTextDatum(placements[i].result);
	}
	sum_column_stats(construct_array(docs, ndocs, TEXTOID, -1, false, TYPALIGN_INT),
					 rsinfo->setDesc, rsinfo->setResult, names, families, ncols);
	relation_close(rel, NoLock);
}

/*
 * ALTER TABLE dist ALTER c SET COMPRESSION gsst on the coordinator: Citus
 * sends the statement to every shard placement, in this transaction, and
 * each learns its dictionary there from its own rows (ddl.c on that node).
 * Their NOTICEs reach the coordinator only at DEBUG1, and no new
 * connection could ask them before the end of the transaction (the ALTER
 * keeps the shards locked): the coordinator's NOTICE says where to look.
 */
void
gsst_citus_report_learned(Oid relid, const char *column_name)
{
	char	   *relname = get_rel_name(relid);
	char	   *quoted = quote_literal_cstr(quote_identifier(relname));

	ereport(NOTICE,
			(errmsg("column \"%s\" of distributed table \"%s\" now uses compression method gsst",
					column_name, relname),
			 errdetail("Each shard placement learned its dictionary from its own rows, on its node; SELECT * FROM gsst.column_stats(%s) shows them.",
					   quoted),
			 errhint("Existing rows keep their stored bytes until they are written again. To compress them now, run SELECT gsst.compress_table(%s).",
					 quoted)));
}
