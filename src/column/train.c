/*
 * train.c - training from a table, and the inspection functions:
 * gsst.train, gsst.column_stats, gsst.dictionary.
 */
#include "type/type.h"
#include "column/column.h"
#include "scaleout/citus.h"

#include "access/detoast.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/* Blocks a sample is spread over, at most. */
#define GSST_SAMPLE_BLOCKS 256

/* Values above this size are sampled through a slice of their start. */
#define GSST_SLICE_ABOVE (64 * 1024)

typedef struct Sample
{
	const uint8 **values;
	size_t	   *lens;
	int			n;
	int			cap;
	Size		bytes;
} Sample;

static void
sample_add(Sample *s, const char *data, Size len)
{
	uint8	   *copy;

	if (len == 0)
		return;
	len = Min(len, GSST_SAMPLE_VALUE_MAX);
	if (s->n == s->cap)
	{
		s->cap = s->cap ? s->cap * 2 : 256;
		s->values = s->values ? repalloc(s->values, s->cap * sizeof(uint8 *))
			: palloc(s->cap * sizeof(uint8 *));
		s->lens = s->lens ? repalloc(s->lens, s->cap * sizeof(size_t))
			: palloc(s->cap * sizeof(size_t));
	}
	copy = palloc(len);
	memcpy(copy, data, len);
	s->values[s->n] = copy;
	s->lens[s->n] = len;
	s->n++;
	s->bytes += len;
}

/* Add a stored gsst datum (any TOAST state) to the sample; returns bytes. */
static Size
sample_datum(Sample *s, Datum d)
{
	struct varlena *attr = (struct varlena *) DatumGetPointer(d);
	Size		before = s->bytes;

	if (VARATT_IS_EXTENDED(attr) && toast_raw_datum_size(d) > GSST_SLICE_ABOVE)
	{
		/* a raw start is text; an encoded one cannot be cut */
		struct varlena *slice = detoast_attr_slice(attr, 0, GSST_SAMPLE_VALUE_MAX);

		if (gsst_value_is_raw(slice))
			sample_add(s, VARDATA_ANY(slice), VARSIZE_ANY_EXHDR(slice));
		pfree(slice);
	}
	else
	{
		struct varlena *value = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
		GsstBuffer	buf = GSST_BUFFER_INIT;
		Size		len;
		const char *bytes = gsst_value_bytes(value, &len, &buf);

		sample_add(s, bytes, len);
		if (buf.data)
			pfree(buf.data);
		if ((Pointer) value != DatumGetPointer(d))
			pfree(value);
	}
	return s->bytes - before;
}

/*
 * Sample about budget bytes of column attnum, from up to
 * GSST_SAMPLE_BLOCKS blocks evenly spread over the relation, a share of
 * the budget from each.
 */
static void
sample_relation(Relation rel, AttrNumber attnum, Size budget, Sample *s)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber nchosen = Min(nblocks, GSST_SAMPLE_BLOCKS);
	Snapshot	snapshot;
	TupleTableSlot *slot;
	TableScanDesc scan = NULL;
	Size		start = s->bytes;

	if (nchosen == 0)
		return;
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	slot = table_slot_create(rel, NULL);
	for (BlockNumber i = 0; i < nchosen && s->bytes - start < budget; i++)
	{
		BlockNumber blk = (BlockNumber) ((uint64) i * nblocks / nchosen);
		Size		quota = (budget - (s->bytes - start)) / (nchosen - i) + 1;
		Size		got = 0;
		ItemPointerData mintid;
		ItemPointerData maxtid;

		ItemPointerSet(&mintid, blk, FirstOffsetNumber);
		ItemPointerSet(&maxtid, blk, MaxOffsetNumber);
		if (scan == NULL)
			scan = table_beginscan_tidrange(rel, snapshot, &mintid, &maxtid);
		else
			table_rescan_tidrange(scan, &mintid, &maxtid);
		while (got < quota &&
			   table_scan_getnextslot_tidrange(scan, ForwardScanDirection, slot))
		{
			bool		isnull;
			Datum		d = slot_getattr(slot, attnum, &isnull);

			if (!isnull)
				got += sample_datum(s, d);
			CHECK_FOR_INTERRUPTS();
		}
	}
	if (scan)
		table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
}

/* The relation itself, or the leaf partitions of a partitioned table. */
static List *
relations_with_storage(Oid relid)
{
	List	   *result = NIL;
	ListCell   *lc;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return list_make1_oid(relid);
	foreach(lc, find_all_inheritors(relid, AccessShareLock, NULL))
	{
		char		relkind = get_rel_relkind(lfirst_oid(lc));

		if (relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW)
			result = lappend_oid(result, lfirst_oid(lc));
	}
	return result;
}

/*
 * Train a new table for a family from the values of a gsst column.
 * Returns the new dictionary id, or 0 when there was nothing to learn
 * from.  Unless quiet, tells the user what happened (SET COMPRESSION).
 */
uint32
gsst_train_column(Oid relid, const char *attname, int32 family, bool quiet)
{
	MemoryContext cxt;
	MemoryContext old;
	Sample		sample;
	List	   *rels;
	ListCell   *lc;
	int			remaining;
	uint32		id = 0;
	char	   *relname = get_rel_name(relid);

	/* SET COMPRESSION converts the column all the same */
	if (!quiet && !gsst_dict_quota_allows(family))
	{
		ereport(WARNING,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("column \"%s\" of relation \"%s\" now uses compression method gsst, but learns no dictionary: the tables of its owner hold the most gsst.max_dictionaries_per_role allows",
						attname, relname),
				 errhint("A superuser can raise gsst.max_dictionaries_per_role.")));
		return 0;
	}
	cxt = AllocSetContextCreate(CurrentMemoryContext, "gsst train",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	memset(&sample, 0, sizeof(sample));

	rels = relations_with_storage(relid);
	remaining = list_length(rels);
	foreach(lc, rels)
	{
		Relation	rel = table_open(lfirst_oid(lc), AccessShareLock);
		AttrNumber	attnum = get_attnum(RelationGetRelid(rel), attname);
		Size		budget = 0;

		if (sample.bytes < GSST_TRAIN_SAMPLE_BYTES)
			budget = (GSST_TRAIN_SAMPLE_BYTES - sample.bytes) / remaining;
		if (attnum > 0 && budget > 0)
			sample_relation(rel, attnum, budget, &sample);
		table_close(rel, AccessShareLock);
		remaining--;
	}

	if (sample.n > 0)
	{
		gsst_table	table;
		void	   *work = palloc(gsst_train_work_bytes());
		int			rc = gsst_train_generations(&table, sample.values, sample.lens,
												sample.n, work,
												GSST_PG_TRAIN_GENERATIONS);

		if (rc != GSST_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not train a gsst table: %s", gsst_strerror(rc))));
		MemoryContextSwitchTo(old);
		id = gsst_dict_create(family, &table);
	}
	MemoryContextSwitchTo(old);

	if (!quiet && id != 0)
		ereport(NOTICE,
				(errmsg("column \"%s\" of relation \"%s\" now uses compression method gsst, dictionary %u learned from %d existing values",
						attname, relname, id, sample.n),
				 errdetail("Existing rows keep their stored bytes until they are written again; new values are compressed."),
				 errhint("To compress existing rows now, run SELECT gsst.compress_table(%s) (a table rewrite), or UPDATE %s SET %s = %s::text.",
						 quote_literal_cstr(quote_identifier(relname)),
						 quote_identifier(relname), quote_identifier(attname),
						 quote_identifier(attname))));
	else if (!quiet)
		ereport(NOTICE,
				(errmsg("column \"%s\" of relation \"%s\" now uses compression method gsst and has no values to learn from yet",
						attname, relname),
				 errdetail("The column learns its dictionary from the first values written to it.")));
	MemoryContextDelete(cxt);
	return id;
}

/*
 * The family of gsst column attname of relid, after the checks gsst.train
 * and gsst.learn share: the relation (its kind, the caller's privilege on
 * it), the column (it exists, it is gsst with a family), then the right on
 * the family, GSST_RIGHT_TRAIN or GSST_RIGHT_LEARN.
 */
static int32
checked_column_family(Oid relid, const char *attname, int check,
					  const char *relkinds, uint8 right)
{
	const GsstCatalog *cat = gsst_catalog(false);
	Relation	rel;
	AttrNumber	attnum;
	Oid			typid;
	int32		typmod;
	Oid			collid;

	rel = gsst_open_checked(relid, AccessShareLock, check, relkinds);
	attnum = get_attnum(relid, attname);
	if (attnum <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						attname, RelationGetRelationName(rel))));
	get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
	if (typid != cat->gsst_type || typmod <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of relation \"%s\" is not a gsst column with a dictionary family",
						attname, RelationGetRelationName(rel)),
				 errhint("Use ALTER TABLE ... ALTER COLUMN ... SET COMPRESSION gsst.")));
	if (!gsst_family_may(typmod, right))
	{
		if (right == GSST_RIGHT_TRAIN)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to train gsst family %d of column \"%s\" of relation \"%s\"",
							typmod, attname, RelationGetRelationName(rel)),
					 errdetail("The family belongs to a column of a table owned by another role."),
					 errhint("Give the column a family of its own: ALTER TABLE %s ALTER COLUMN %s SET COMPRESSION gsst.",
							 quote_identifier(RelationGetRelationName(rel)), quote_identifier(attname))));
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to teach gsst family %d of column \"%s\" of relation \"%s\"",
						typmod, attname, RelationGetRelationName(rel)),
				 errdetail("A column learns only from roles that may write to it.")));
	}
	relation_close(rel, NoLock);
	return typmod;
}

/* gsst.train(regclass, column name) -> int: a new table for the column. */
PG_FUNCTION_INFO_V1(gsst_train_sql);
Datum
gsst_train_sql(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	char	   *attname = NameStr(*PG_GETARG_NAME(1));
	int32		family;
	uint32		id;

	/* a Citus distributed table: its placements, each on its node */
	if (gsst_citus_distributed(relid))
		PG_RETURN_INT32(gsst_citus_train(relid, attname));
	family = checked_column_family(relid, attname, GSST_CHECK_OWNER,
								   GSST_RELKINDS_WITH_ROWS, GSST_RIGHT_TRAIN);

	id = gsst_train_column(relid, attname, family, true);
	if (id == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) id);
}

/*
 * gsst.learn(regclass, column name, sample text[]) -> int: a gsst column
 * whose family has no dictionary yet learns its first from the sample, as
 * it would from its first writes, and through the same path (learn.c):
 * gsst trains the table itself, so no caller chooses its bytes.  Teaching
 * a family from written values is the LEARN right (INSERT or UPDATE on the
 * column), so that is what it takes here too.  Returns the id stored, or
 * NULL when the family had a dictionary already or learned none.
 *
 * On a Citus distributed table, every placement learns from the sample,
 * each into its own family on its node (gsst.load into a new distributed
 * table calls this before its rows land).
 */
PG_FUNCTION_INFO_V1(gsst_learn_sql);
Datum
gsst_learn_sql(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	char	   *attname = NameStr(*PG_GETARG_NAME(1));
	ArrayType  *sample = PG_GETARG_ARRAYTYPE_P(2);
	int32		family;
	uint32		id = 0;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	const uint8 **values;
	size_t	   *lens;
	int			n = 0;
	Size		bytes = 0;

	if (ARR_ELEMTYPE(sample) != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("gsst.learn takes a sample of type text[]")));
	if (gsst_citus_distributed(relid))
	{
		int32		learned = gsst_citus_learn(relid, attname, sample);

		if (learned == 0)
			PG_RETURN_NULL();
		PG_RETURN_INT32(learned);
	}
	family = checked_column_family(relid, attname, GSST_CHECK_INSERT, "rp",
								   GSST_RIGHT_LEARN);
	if (gsst_family_has_dictionaries(family) || !gsst_can_write_dictionaries())
		PG_RETURN_NULL();

	/* as learning from writes does: about GSST_TRAIN_SAMPLE_BYTES */
	deconstruct_array(sample, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &nelems);
	values = palloc(sizeof(uint8 *) * Max(nelems, 1));
	lens = palloc(sizeof(size_t) * Max(nelems, 1));
	for (int i = 0; i < nelems && bytes < GSST_TRAIN_SAMPLE_BYTES; i++)
	{
		text	   *t;
		Size		len;

		if (nulls[i])
			continue;
		t = DatumGetTextPP(elems[i]);
		len = Min(VARSIZE_ANY_EXHDR(t), GSST_SAMPLE_VALUE_MAX);
		if (len == 0)
			continue;
		values[n] = (const uint8 *) VARDATA_ANY(t);
		lens[n] = len;
		bytes += len;
		n++;
	}
	if (n > 0)
	{
		gsst_table	table;
		void	   *work = palloc0(gsst_train_work_bytes());
		int			rc = gsst_train_generations(&table, values, lens, n, work,
												GSST_PG_TRAIN_GENERATIONS);

		pfree(work);
		if (rc != GSST_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not train a gsst table: %s", gsst_strerror(rc))));
		id = gsst_learn_store(family, &table, true);
	}
	if (id == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) id);
}

/* ---- gsst.column_stats(regclass) ---- */

typedef struct ColumnStats
{
	char	   *name;
	int32		family;
	int64		values;
	int64		encoded;
	int64		raw_bytes;
	int64		stored_bytes;
	List	   *dictionaries;	/* ints, unique */
} ColumnStats;

static void
account_value(ColumnStats *cs, Datum d)
{
	struct varlena *attr = (struct varlena *) DatumGetPointer(d);
	uint32		table_id = 0;

	cs->values++;
	cs->stored_bytes += toast_datum_size(d);
	if (VARATT_IS_EXTERNAL(attr) || VARATT_IS_COMPRESSED(attr))
	{
		struct varlena *first = detoast_attr_slice(attr, 0, 1);
		bool		raw = gsst_value_is_raw(first);

		pfree(first);
		if (raw)
		{
			cs->raw_bytes += toast_raw_datum_size(d) - VARHDRSZ;
			return;
		}
	}
	{
		struct varlena *value = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);

		cs->raw_bytes += gsst_value_raw_length(value, &table_id);
		if ((Pointer) value != DatumGetPointer(d))
			pfree(value);
	}
	if (table_id != 0)
	{
		cs->encoded++;
		cs->dictionaries = list_append_unique_int(cs->dictionaries, (int) table_id);
	}
}

static int
compare_ints(const ListCell *a, const ListCell *b)
{
	int			x = lfirst_int(a);
	int			y = lfirst_int(b);

	return (x > y) - (x < y);
}

PG_FUNCTION_INFO_V1(gsst_column_stats);
Datum
gsst_column_stats(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	Form_pg_attribute *atts;
	ColumnStats *stats;
	int			ncols;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	/* a Citus distributed table: the sums of its shards */
	if (gsst_citus_distributed(relid))
	{
		gsst_citus_column_stats(relid, rsinfo);
		return (Datum) 0;
	}
	rel = gsst_open_checked(relid, AccessShareLock, GSST_CHECK_SELECT,
							GSST_RELKINDS_WITH_ROWS);
	atts = gsst_readable_columns(rel, &ncols);
	stats = palloc0(sizeof(ColumnStats) * Max(ncols, 1));
	for (int c = 0; c < ncols; c++)
	{
		stats[c].name = pstrdup(NameStr(atts[c]->attname));
		stats[c].family = atts[c]->atttypmod;
	}

	foreach(lc, relations_with_storage(relid))
	{
		Relation	leaf = table_open(lfirst_oid(lc), AccessShareLock);
		AttrNumber *attnums = palloc(sizeof(AttrNumber) * Max(ncols, 1));
		TupleTableSlot *slot = table_slot_create(leaf, NULL);
		TableScanDesc scan;

		for (int c = 0; c < ncols; c++)
			attnums[c] = get_attnum(RelationGetRelid(leaf), stats[c].name);
		scan = table_beginscan(leaf, GetActiveSnapshot(), 0, NULL);
		while (ncols > 0 && table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			for (int c = 0; c < ncols; c++)
			{
				bool		isnull;
				Datum		d;

				if (attnums[c] <= 0)
					continue;
				d = slot_getattr(slot, attnums[c], &isnull);
				if (!isnull)
					account_value(&stats[c], d);
			}
			CHECK_FOR_INTERRUPTS();
		}
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		table_close(leaf, AccessShareLock);
	}

	for (int c = 0; c < ncols; c++)
	{
		ColumnStats *cs = &stats[c];
		Datum		values[8];
		bool		nulls[8] = {false, false, false, false, false, false, false, false};
		Datum	   *ids;
		int			n = 0;
		ListCell   *ic;

		list_sort(cs->dictionaries, compare_ints);
		ids = palloc(sizeof(Datum) * Max(list_length(cs->dictionaries), 1));
		foreach(ic, cs->dictionaries)
			ids[n++] = Int32GetDatum(lfirst_int(ic));

		values[0] = CStringGetDatum(cs->name);
		values[0] = DirectFunctionCall1(namein, values[0]);
		values[1] = Int32GetDatum(cs->family);
		values[2] = Int64GetDatum(cs->values);
		values[3] = Int64GetDatum(cs->encoded);
		values[4] = Int64GetDatum(cs->raw_bytes);
		values[5] = Int64GetDatum(cs->stored_bytes);
		if (cs->stored_bytes > 0)
			values[6] = Float8GetDatum((double) cs->raw_bytes / (double) cs->stored_bytes);
		else
			nulls[6] = true;
		values[7] = PointerGetDatum(construct_array(ids, n, INT4OID, sizeof(int32),
													true, TYPALIGN_INT));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}

/* ---- gsst.dictionary(id) ---- */

/*
 * A symbol as readable text: as it is when it is valid text without
 * control characters or backslashes, else with \xNN escapes for every
 * byte outside printable ASCII (and \\ for a backslash).
 */
static char *
symbol_as_text(const uint8 *bytes, int len)
{
	bool		plain = pg_verify_mbstr(GetDatabaseEncoding(), (const char *) bytes,
										len, true);
	StringInfoData out;

	for (int i = 0; plain && i < len; i++)
		if (bytes[i] < 0x20 || bytes[i] == 0x7f || bytes[i] == '\\')
			plain = false;
	initStringInfo(&out);
	for (int i = 0; i < len; i++)
	{
		if (plain || (bytes[i] >= 0x20 && bytes[i] < 0x7f && bytes[i] != '\\'))
			appendStringInfoChar(&out, (char) bytes[i]);
		else if (bytes[i] == '\\')
			appendStringInfoString(&out, "\\\\");
		else
			appendStringInfo(&out, "\\x%02x", bytes[i]);
	}
	return out.data;
}

PG_FUNCTION_INFO_V1(gsst_dictionary);
Datum
gsst_dictionary(PG_FUNCTION_ARGS)
{
	int32		id = PG_GETARG_INT32(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const gsst_table *table;
	int32		family;

	InitMaterializedSRF(fcinfo, 0);
	table = id > 0 ? gsst_dict_find((uint32) id, &family) : NULL;
	if (table == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("gsst dictionary %d does not exist", id)));
	/* symbols are fragments of a column's data: as readable as the column */
	gsst_family_require(family, GSST_RIGHT_READ, "read");

	for (int code = 0; code < GSST_MAX_SYMBOLS; code++)
	{
		uint8		bytes[GSST_MAX_SYMBOL_LEN];
		int			len = table->len[code];
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		bytea	   *raw;

		if (len == 0)
			continue;
		for (int i = 0; i < len; i++)
			bytes[i] = (uint8) (table->symbol[code] >> (8 * i));
		raw = palloc(VARHDRSZ + len);
		SET_VARSIZE(raw, VARHDRSZ + len);
		memcpy(VARDATA(raw), bytes, len);
		values[0] = Int32GetDatum(code);
		values[1] = Int32GetDatum(len);
		values[2] = CStringGetTextDatum(symbol_as_text(bytes, len));
		values[3] = PointerGetDatum(raw);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
