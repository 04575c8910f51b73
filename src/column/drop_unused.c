/*
 * drop_unused.c - gsst.drop_unused_dictionaries(regclass): drop the
 * dictionaries of a table's gsst columns that no stored value needs.
 *
 * Retraining, compress_table and pg_repack leave a column's older
 * dictionaries behind, and each counts against gsst.max_dictionaries_per_role
 * for ever.  A value names its dictionary by id and may travel: into other
 * columns of any table (a gsst(G) column keeps codes of another family),
 * into arrays, composites and domains, into index keys (a btree keeps a
 * key in its inner pages after every row with it is gone), into statistics
 * (pg_statistic's arrays), and into stored expressions (a literal in a
 * DEFAULT, a view or a partition bound is encoded when it is parsed).
 * So the proof that a dictionary is unused reads all of them:
 *
 * 1. Candidates are each family's dictionaries but its newest, which
 *    writers encode with.  A dictionary whose successor was stored after
 *    some other session of this database connected is kept: that session
 *    may hold its codes in memory (a prepared statement's literal, a
 *    procedure's variable, a WITH HOLD cursor).
 * 2. Every relation of the database whose columns may hold a gsst value is
 *    locked (ACCESS SHARE, to the end), so that none is truncated or
 *    dropped under the proof; a temporary table of another session, an
 *    index we cannot read, or a range of gsst stops the call.
 * 3. We wait for every transaction in progress: one may hold codes it read
 *    from a row that is gone since.  Our snapshot, taken before, keeps
 *    every row a later transaction can see from being removed.
 * 4. Every tuple of those relations that is not dead to every snapshot
 *    (HeapTupleSatisfiesVacuum, as CLUSTER copies them) and every tuple on
 *    every page of their btree indexes, pivots included, is read; a
 *    candidate any of them names is kept.  A value written later is a copy
 *    of one of these or encoded with a newest dictionary.
 * 5. The rest become tombstones (dict.c): the id stays taken for ever.
 *
 * Standbys replay the same pages: a standby query that still sees a row
 * the primary removed before step 4 is cancelled by that removal's replay
 * (or holds it back with hot_standby_feedback).  Logical decoding reads
 * the dictionaries with its historic snapshot, which still sees the rows
 * as they were.  Dumps hold values as text.
 *
 * The function is for the database's operator: it reads every table that
 * may hold gsst values and holds a lock on each while it runs, so EXECUTE
 * is revoked from PUBLIC; the caller must also own the table.
 */
#include "column/column.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tupdesc.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic_ext.h"
#include "catalog/pg_type.h"
#include "dict/dict.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "nodes/primnodes.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

/* What a value of a type may hold, as far as gsst values go. */
typedef enum HoldKind
{
	HOLDS_NOTHING,
	HOLDS_GSST,					/* the type gsst itself */
	HOLDS_DOMAIN,				/* a domain over a type that may */
	HOLDS_ARRAY,				/* an array whose elements may */
	HOLDS_ANYARRAY,				/* anyarray (pg_statistic): look at each */
	HOLDS_COMPOSITE,			/* a row type with a column that may */
	HOLDS_NODE_TREE,			/* stored expressions: their constants */
	HOLDS_UNREADABLE			/* a range or multirange of one that may */
} HoldKind;

typedef struct TypeHold
{
	Oid			typid;			/* hash key */
	HoldKind	kind;
} TypeHold;

typedef struct Proof
{
	Oid			gsst_type;
	HTAB	   *types;			/* TypeHold by type */
	Bitmapset  *candidates;		/* ids not yet seen in any value */
	int64		tuples;			/* read, for the NOTICE */
} Proof;

static HoldKind type_holds(Proof *proof, Oid typid);
static void note_value(Proof *proof, Oid typid, Datum value);

static HoldKind
classify_type(Proof *proof, Oid typid)
{
	HeapTuple	tup;
	Form_pg_type form;
	HoldKind	kind = HOLDS_NOTHING;

	if (typid == proof->gsst_type)
		return HOLDS_GSST;
	if (typid == PG_NODE_TREEOID)
		return HOLDS_NODE_TREE;
	if (typid == ANYARRAYOID)
		return HOLDS_ANYARRAY;
	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		return HOLDS_NOTHING;
	form = (Form_pg_type) GETSTRUCT(tup);
	if (form->typtype == TYPTYPE_DOMAIN)
	{
		if (type_holds(proof, form->typbasetype) != HOLDS_NOTHING)
			kind = HOLDS_DOMAIN;
	}
	else if (OidIsValid(form->typelem) && form->typlen == -1 &&
			 form->typsubscript == F_ARRAY_SUBSCRIPT_HANDLER)
	{
		if (type_holds(proof, form->typelem) != HOLDS_NOTHING)
			kind = HOLDS_ARRAY;
	}
	else if (form->typtype == TYPTYPE_COMPOSITE && OidIsValid(form->typrelid))
	{
		TupleDesc	desc;

		ReleaseSysCache(tup);
		desc = lookup_rowtype_tupdesc(typid, -1);
		for (int i = 0; i < desc->natts && kind == HOLDS_NOTHING; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (!att->attisdropped && type_holds(proof, att->atttypid) != HOLDS_NOTHING)
				kind = HOLDS_COMPOSITE;
		}
		ReleaseTupleDesc(desc);
		return kind;
	}
	else if (form->typtype == TYPTYPE_RANGE)
	{
		if (type_holds(proof, get_range_subtype(typid)) != HOLDS_NOTHING)
			kind = HOLDS_UNREADABLE;
	}
	else if (form->typtype == TYPTYPE_MULTIRANGE)
	{
		if (type_holds(proof, get_range_subtype(get_multirange_range(typid))) != HOLDS_NOTHING)
			kind = HOLDS_UNREADABLE;
	}
	ReleaseSysCache(tup);
	return kind;
}

/* What values of typid may hold; cached for the call. */
static HoldKind
type_holds(Proof *proof, Oid typid)
{
	bool		found;
	TypeHold   *entry = hash_search(proof->types, &typid, HASH_ENTER, &found);
	HoldKind	kind;

	if (found)
		return entry->kind;
	/* a type seen again while it is classified (none can contain itself) */
	entry->kind = HOLDS_NOTHING;
	kind = classify_type(proof, typid);
	entry = hash_search(proof->types, &typid, HASH_FIND, NULL);
	entry->kind = kind;
	return kind;
}

/* A gsst value: its header names its dictionary, if it is encoded. */
static void
note_gsst(Proof *proof, Datum value)
{
	struct varlena *attr = (struct varlena *) DatumGetPointer(value);
	struct varlena *head = attr;
	const uint8 *p;
	Size		n;
	uint32		id = 0;

	if (VARATT_IS_EXTERNAL(attr) || VARATT_IS_COMPRESSED(attr))
		head = detoast_attr_slice(attr, 0, GSST_DATUM_MAX_HEADER);
	p = (const uint8 *) VARDATA_ANY(head);
	n = VARSIZE_ANY_EXHDR(head);
	/* a header that does not parse names no dictionary: it decodes with none */
	if (n > 0 && p[0] == 0 && gsst_datum_header_parse(p, n, &id) > 0 && id > 0)
		proof->candidates = bms_del_member(proof->candidates, (int) id);
	if (head != attr)
		pfree(head);
}

static void
note_array(Proof *proof, Datum value)
{
	ArrayType  *array = DatumGetArrayTypeP(value);
	Oid			elemtype = ARR_ELEMTYPE(array);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;

	if (type_holds(proof, elemtype) == HOLDS_NOTHING)
		return;
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(array, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &nelems);
	for (int i = 0; i < nelems && !bms_is_empty(proof->candidates); i++)
		if (!nulls[i])
			note_value(proof, elemtype, elems[i]);
}

static void
note_composite(Proof *proof, Datum value)
{
	HeapTupleHeader td = DatumGetHeapTupleHeader(value);
	TupleDesc	desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(td),
											  HeapTupleHeaderGetTypMod(td));
	HeapTupleData tuple;
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);

	tuple.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = td;
	heap_deform_tuple(&tuple, desc, values, nulls);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!nulls[i] && !att->attisdropped)
			note_value(proof, att->atttypid, values[i]);
	}
	ReleaseTupleDesc(desc);
	pfree(values);
	pfree(nulls);
}

/* The constants of a stored expression, query or partition bound. */
static bool
note_constants(Node *node, void *context)
{
	Proof	   *proof = (Proof *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Const))
	{
		Const	   *c = (Const *) node;

		if (!c->constisnull)
			note_value(proof, c->consttype, c->constvalue);
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, note_constants, context, 0);
	if (IsA(node, PartitionBoundSpec))
	{
		PartitionBoundSpec *spec = (PartitionBoundSpec *) node;

		return note_constants((Node *) spec->listdatums, context) ||
			note_constants((Node *) spec->lowerdatums, context) ||
			note_constants((Node *) spec->upperdatums, context);
	}
	if (IsA(node, PartitionRangeDatum))
		return note_constants(((PartitionRangeDatum *) node)->value, context);
	return expression_tree_walker(node, note_constants, context);
}

static void
report_unreadable(Oid typid, const char *where)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot prove which gsst dictionaries are unused: %s has type %s",
					where, format_type_be(typid)),
			 errdetail("Ranges of gsst values are not read.")));
}

static void
note_value(Proof *proof, Oid typid, Datum value)
{
	switch (type_holds(proof, typid))
	{
		case HOLDS_NOTHING:
			break;
		case HOLDS_UNREADABLE:
			report_unreadable(typid, "a stored value");
			break;
		case HOLDS_GSST:
			note_gsst(proof, value);
			break;
		case HOLDS_DOMAIN:
			note_value(proof, getBaseType(typid), value);
			break;
		case HOLDS_ARRAY:
		case HOLDS_ANYARRAY:
			note_array(proof, value);
			break;
		case HOLDS_COMPOSITE:
			note_composite(proof, value);
			break;
		case HOLDS_NODE_TREE:
			note_constants(stringToNode(TextDatumGetCString(value)), proof);
			break;
	}
}

/* Does any column of desc hold values that may hold gsst values? */
static bool
desc_holds(Proof *proof, TupleDesc desc, Relation rel)
{
	bool		holds = false;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		HoldKind	kind;

		if (att->attisdropped)
			continue;
		kind = type_holds(proof, att->atttypid);
		if (kind == HOLDS_UNREADABLE)
			report_unreadable(att->atttypid,
							  psprintf("column \"%s\" of \"%s\"", NameStr(att->attname),
									   RelationGetRelationName(rel)));
		if (kind != HOLDS_NOTHING)
			holds = true;
	}
	return holds;
}

/*
 * The relations to read: tables, materialized views, system catalogs and
 * btree indexes of this database with a column that may hold a gsst value,
 * locked until the end of the transaction.
 */
static List *
lock_relations(Proof *proof)
{
	Relation	pg_attribute = table_open(AttributeRelationId, AccessShareLock);
	TableScanDesc scan = table_beginscan_catalog(pg_attribute, 0, NULL);
	HeapTuple	tup;
	List	   *oids = NIL;
	List	   *result = NIL;
	ListCell   *lc;

	/* from the catalog first: only those relations are locked at all */
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(tup);
		char		relkind;

		if (att->attnum <= 0 || att->attisdropped ||
			type_holds(proof, att->atttypid) == HOLDS_NOTHING)
			continue;
		relkind = get_rel_relkind(att->attrelid);
		if ((relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW ||
			 relkind == RELKIND_INDEX) && !list_member_oid(oids, att->attrelid))
			oids = lappend_oid(oids, att->attrelid);
	}
	table_endscan(scan);
	table_close(pg_attribute, AccessShareLock);

	foreach(lc, oids)
	{
		Relation	rel = try_relation_open(lfirst_oid(lc), AccessShareLock);

		if (rel == NULL)
			continue;			/* dropped meanwhile */
		if (!desc_holds(proof, RelationGetDescr(rel), rel))
		{
			relation_close(rel, AccessShareLock);
			continue;
		}
		if (RELATION_IS_OTHER_TEMP(rel))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("cannot prove which gsst dictionaries are unused: \"%s\" is a temporary table of another session",
							RelationGetRelationName(rel)),
					 errhint("Try again once that session has ended.")));
		if (rel->rd_rel->relkind == RELKIND_INDEX)
		{
			if (rel->rd_rel->relam == HASH_AM_OID)
			{
				/* its tuples hold hash codes, not the values */
				relation_close(rel, AccessShareLock);
				continue;
			}
			if (rel->rd_rel->relam != BTREE_AM_OID)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot prove which gsst dictionaries are unused: index \"%s\" is not a btree",
								RelationGetRelationName(rel)),
						 errdetail("Only the pages of btree indexes are read.")));
		}
		else if (rel->rd_rel->relam != HEAP_TABLE_AM_OID)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot prove which gsst dictionaries are unused: \"%s\" does not use the heap access method",
							RelationGetRelationName(rel))));
		result = lappend_oid(result, RelationGetRelid(rel));
		/* keep the lock: nothing truncates or drops it under the proof */
		relation_close(rel, NoLock);
	}
	return result;
}

/*
 * Extended statistics keep MCV lists in a format of their own: refuse when
 * one covers a column or expression that may hold gsst values.  (Their
 * expression statistics, pg_statistic rows, are read like any table.)
 */
static void
check_extended_statistics(Proof *proof)
{
	Relation	rel = table_open(StatisticExtRelationId, AccessShareLock);
	TableScanDesc scan = table_beginscan_catalog(rel, 0, NULL);
	HeapTuple	tup;

	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_statistic_ext form = (Form_pg_statistic_ext) GETSTRUCT(tup);
		bool		holds = false;
		bool		isnull;
		Datum		d;

		for (int i = 0; i < form->stxkeys.dim1 && !holds; i++)
			holds = type_holds(proof, get_atttype(form->stxrelid, form->stxkeys.values[i])) != HOLDS_NOTHING;
		d = heap_getattr(tup, Anum_pg_statistic_ext_stxexprs, RelationGetDescr(rel), &isnull);
		if (!isnull && !holds)
		{
			ListCell   *lc;

			foreach(lc, (List *) stringToNode(TextDatumGetCString(d)))
				if (type_holds(proof, exprType(lfirst(lc))) != HOLDS_NOTHING)
					holds = true;
		}
		if (holds)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot prove which gsst dictionaries are unused: statistics object \"%s\" covers gsst values",
							NameStr(form->stxname)),
					 errhint("Drop the statistics object, drop the dictionaries, and create it again.")));
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
}

static void
note_heap_tuple(Proof *proof, HeapTuple tuple, TupleDesc desc, Datum *values, bool *nulls)
{
	heap_deform_tuple(tuple, desc, values, nulls);
	for (int i = 0; i < desc->natts; i++)
		if (!nulls[i] && !TupleDescAttr(desc, i)->attisdropped)
			note_value(proof, TupleDescAttr(desc, i)->atttypid, values[i]);
	proof->tuples++;
}

/*
 * Every tuple of a heap that a snapshot may still see: live, recently
 * dead, in progress.  Dead ones are skipped, as CLUSTER skips them: no
 * snapshot sees them, and their TOAST may be gone already.
 */
static void
read_heap(Proof *proof, Relation rel, MemoryContext page_cxt)
{
	TransactionId oldest = GetOldestNonRemovableTransactionId(rel);
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	TupleDesc	desc = RelationGetDescr(rel);
	Datum	   *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(desc->natts, 1));

	for (BlockNumber blk = 0; blk < nblocks && !bms_is_empty(proof->candidates); blk++)
	{
		MemoryContext old = MemoryContextSwitchTo(page_cxt);
		Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		Page		page;
		OffsetNumber maxoff;
		List	   *copies = NIL;
		ListCell   *lc;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
		{
			ItemId		itemid = PageGetItemId(page, off);
			HeapTupleData tuple;

			if (!ItemIdIsNormal(itemid))
				continue;
			tuple.t_data = (HeapTupleHeader) PageGetItem(page, itemid);
			tuple.t_len = ItemIdGetLength(itemid);
			tuple.t_tableOid = RelationGetRelid(rel);
			ItemPointerSet(&tuple.t_self, blk, off);
			if (HeapTupleSatisfiesVacuum(&tuple, oldest, buf) == HEAPTUPLE_DEAD)
				continue;
			copies = lappend(copies, heap_copytuple(&tuple));
		}
		UnlockReleaseBuffer(buf);
		/* detoasting reads other buffers: not under this page's lock */
		foreach(lc, copies)
			note_heap_tuple(proof, (HeapTuple) lfirst(lc), desc, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(page_cxt);
	}
	FreeAccessStrategy(strategy);
	pfree(values);
	pfree(nulls);
}

/*
 * Every tuple on every page of a btree: leaf entries, live or not, and the
 * pivots of inner pages and high keys, which keep copies of keys whose
 * rows are long gone and are compared by every descent.
 */
static void
read_btree(Proof *proof, Relation rel, MemoryContext page_cxt)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	TupleDesc	desc = RelationGetDescr(rel);

	for (BlockNumber blk = BTREE_METAPAGE + 1; blk < nblocks && !bms_is_empty(proof->candidates); blk++)
	{
		MemoryContext old = MemoryContextSwitchTo(page_cxt);
		Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		Page		page;
		List	   *copies = NIL;
		ListCell   *lc;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!PageIsNew(page) && !P_ISDELETED(BTPageGetOpaque(page)))
		{
			OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

			for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
			{
				ItemId		itemid = PageGetItemId(page, off);

				if (ItemIdHasStorage(itemid))
					copies = lappend(copies, CopyIndexTuple((IndexTuple) PageGetItem(page, itemid)));
			}
		}
		UnlockReleaseBuffer(buf);
		foreach(lc, copies)
		{
			IndexTuple	itup = (IndexTuple) lfirst(lc);
			int			natts = BTreeTupleGetNAtts(itup, rel);

			for (int i = 0; i < natts && i < desc->natts; i++)
			{
				bool		isnull;
				Datum		d = index_getattr(itup, i + 1, desc, &isnull);

				if (!isnull)
					note_value(proof, TupleDescAttr(desc, i)->atttypid, d);
			}
			proof->tuples++;
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(page_cxt);
	}
	FreeAccessStrategy(strategy);
}

/*
 * When the oldest other session of this database connected (0 if none):
 * one connected before a dictionary was replaced may keep its codes in
 * memory across transactions.
 */
static TimestampTz
oldest_other_session(void)
{
	TimestampTz oldest = 0;
	int			n;

	pgstat_clear_backend_activity_snapshot();
	n = pgstat_fetch_stat_numbackends();
	for (int i = 1; i <= n; i++)
	{
#if PG_VERSION_NUM >= 160000
		LocalPgBackendStatus *local = pgstat_get_local_beentry_by_index(i);
#else
		LocalPgBackendStatus *local = pgstat_fetch_stat_local_beentry(i);
#endif
		PgBackendStatus *be;

		if (local == NULL)
			continue;
		be = &local->backendStatus;
		if (be->st_procpid == MyProcPid || be->st_databaseid != MyDatabaseId)
			continue;
		/* autovacuum and WAL senders hold no values to write back */
		if (be->st_backendType == B_AUTOVAC_WORKER || be->st_backendType == B_WAL_SENDER)
			continue;
		if (oldest == 0 || be->st_proc_start_timestamp < oldest)
			oldest = be->st_proc_start_timestamp;
	}
	return oldest;
}

/* Wait for every transaction of this database in progress but ours. */
static void
wait_for_transactions(void)
{
	int			n;
	VirtualTransactionId *vxids;

	vxids = GetCurrentVirtualXIDs(InvalidTransactionId, false, false,
								  PROC_IS_AUTOVACUUM | PROC_IN_VACUUM, &n);
	for (int i = 0; i < n; i++)
		VirtualXactLock(vxids[i], true);
	pfree(vxids);
}

static int
compare_uint32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

PG_FUNCTION_INFO_V1(gsst_drop_unused_dictionaries);
Datum
gsst_drop_unused_dictionaries(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	const GsstCatalog *cat = gsst_catalog(false);
	Relation	rel;
	TupleDesc	desc;
	Proof		proof;
	HASHCTL		ctl;
	List	   *families = NIL;
	TimestampTz oldest_session;
	int			kept_for_sessions = 0;
	int			ncandidates;
	uint32	   *dropped;
	int			ndropped = 0;
	Datum	   *elems;
	List	   *relations;
	ListCell   *lc;
	MemoryContext page_cxt;

	PreventCommandDuringRecovery("gsst.drop_unused_dictionaries()");
	if (XactReadOnly)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot drop gsst dictionaries in a read-only transaction")));

	/* ownership before any lock; one call at a time on a table */
	rel = gsst_open_checked(relid, ShareUpdateExclusiveLock, GSST_CHECK_OWNER, "rp");
	desc = RelationGetDescr(rel);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || att->atttypid != cat->gsst_type || att->atttypmod <= 0)
			continue;
		gsst_family_require(att->atttypmod, GSST_RIGHT_TRAIN, "drop unused dictionaries of");
		families = list_append_unique_int(families, att->atttypmod);
	}
	table_close(rel, NoLock);

	memset(&proof, 0, sizeof(proof));
	proof.gsst_type = cat->gsst_type;
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(TypeHold);
	ctl.hcxt = CurrentMemoryContext;
	proof.types = hash_create("gsst types that may hold values", 64, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);

	/* 1. candidates: all but the newest, replaced before every session began */
	if (!gsst_dict_lock_drops())
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("another gsst.drop_unused_dictionaries() is running in this database"),
				 errhint("Try again when it has finished.")));
	oldest_session = oldest_other_session();
	foreach(lc, families)
	{
		uint32	   *ids;
		TimestampTz *created;
		int			n = gsst_family_dictionaries(lfirst_int(lc), &ids, &created);

		for (int i = 0; i + 1 < n; i++)
		{
			/* a session that connected before the successor was stored */
			if (oldest_session != 0 && oldest_session <= created[i + 1])
			{
				kept_for_sessions++;
				continue;
			}
			proof.candidates = bms_add_member(proof.candidates, (int) ids[i]);
		}
	}
	if (kept_for_sessions > 0)
		ereport(NOTICE,
				(errmsg("%d gsst dictionaries are kept: sessions that connected before they were replaced are still open",
						kept_for_sessions),
				 errhint("Call it again once those sessions have ended.")));
	ncandidates = bms_num_members(proof.candidates);

	if (ncandidates > 0)
	{
		/* 2. lock everything that may hold a value; 3. wait; 4. read */
		check_extended_statistics(&proof);
		relations = lock_relations(&proof);
		wait_for_transactions();
		page_cxt = AllocSetContextCreate(CurrentMemoryContext, "gsst dictionary proof",
										 ALLOCSET_DEFAULT_SIZES);
		foreach(lc, relations)
		{
			Relation	r = relation_open(lfirst_oid(lc), NoLock);

			if (r->rd_rel->relkind == RELKIND_INDEX)
				read_btree(&proof, r, page_cxt);
			else
				read_heap(&proof, r, page_cxt);
			relation_close(r, NoLock);
			if (bms_is_empty(proof.candidates))
				break;
		}
		MemoryContextDelete(page_cxt);
	}

	/* 5. what no value names */
	dropped = palloc(sizeof(uint32) * Max(bms_num_members(proof.candidates), 1));
	{
		int			id = -1;

		while ((id = bms_next_member(proof.candidates, id)) >= 0)
		{
			gsst_dict_drop((uint32) id);
			dropped[ndropped++] = (uint32) id;
		}
	}
	qsort(dropped, ndropped, sizeof(uint32), compare_uint32);
	ereport(DEBUG1,
			(errmsg("gsst: %d of %d candidate dictionaries dropped after reading " INT64_FORMAT " tuples",
					ndropped, ncandidates, proof.tuples)));

	elems = palloc(sizeof(Datum) * Max(ndropped, 1));
	for (int i = 0; i < ndropped; i++)
		elems[i] = Int32GetDatum((int32) dropped[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, ndropped, INT4OID, sizeof(int32), true,
										  TYPALIGN_INT));
}
