/*
 * dict.c - gsst dictionaries (symbol tables): storage and cache.
 *
 * Dictionaries live in gsst.dictionaries (id, family, created, nsymbols,
 * symbols, owner).  A table never changes, and an id is never reused, so a
 * backend may cache a loaded table by id for ever.  A dictionary that no
 * stored value needs any more can be dropped (drop_unused.c): its row stays
 * as a tombstone (nsymbols -1, no symbols), so that the id stays taken and
 * a value that still named it would fail as "dropped", never decode with
 * another table.  The table is read and written here
 * with catalog-style heap and index access: no SPI, no search_path, no
 * permission checks (encoding a value may store a dictionary on behalf of a
 * role that may not touch the table itself; family.c decides who may).
 *
 * A family (the typmod of a gsst column) encodes with its newest table.
 * Which table that is gets cached per family and forgotten whenever the
 * dictionaries table sees a relcache invalidation; storing a dictionary
 * sends one so that other backends pick it up when it commits.
 *
 * owner is the role that owned the family's table when the dictionary was
 * stored; gsst.max_dictionaries_per_role bounds how many one role's tables
 * may hold, because ids are shared by the whole database and never reused.
 *
 * Transactions: a dictionary inserted by a transaction that aborts must not
 * stay cached (values encoded with it would refer to a missing table).  A
 * dictionary inserted by a subtransaction that aborts may still be referred
 * to by values the outer transaction kept (PL variables), so it is
 * inserted again, with the same id and bytes, before the commit.  A new
 * column's first dictionary is stored by a transaction of its own
 * (learn.c), so that it outlives the writes it was learned from.
 *
 * The quota holds at every commit: the dictionaries of aborted
 * subtransactions count as soon as they are stored, since commit stores
 * them again, and commit refuses to store them again past the quota (other
 * sessions cannot see them, and may have used up the room meanwhile).
 * Which of them a surviving value uses is unknown, so none is dropped: the
 * transaction fails instead.  Counting and storing happen under the lock
 * on new ids, with rows of transactions in progress counted too.
 */
#include "dict/dict.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/indexing.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

/* Columns of gsst.dictionaries; version 1.0 of the extension had no owner. */
#define Anum_dict_id		1
#define Anum_dict_family	2
#define Anum_dict_created	3
#define Anum_dict_nsymbols	4
#define Anum_dict_symbols	5
#define Anum_dict_owner		6
#define Natts_dict			6
#define Natts_dict_v1_0		5

/* nsymbols of a dropped dictionary's row */
#define DICT_DROPPED		(-1)

typedef struct DictEntry
{
	uint32		id;				/* hash key */
	int32		family;
	Oid			owner;			/* as stored, for inserting it again */
	bool		created;		/* inserted by the current transaction */
	bool		orphaned;		/* ... by a subtransaction that aborted */
	SubTransactionId subid;		/* subtransaction that owns the insertion */
	bytea	   *serialized;		/* kept while created, to insert again */
	gsst_encoder *encoder;		/* built when first used to encode */
	gsst_table	table;
} DictEntry;

typedef struct FamilyEntry
{
	int32		family;			/* hash key */
	uint32		current_id;		/* newest table, 0 = none */
} FamilyEntry;

int			gsst_max_dictionaries_per_role = 1000;

static MemoryContext cache_cxt = NULL;
static HTAB *dict_hash = NULL;
static HTAB *family_hash = NULL;
static bool family_hash_stale = false;
static Oid	dict_hash_relid = InvalidOid;	/* table dict_hash was read from */
static int	created_count = 0;	/* entries with created = true */

/*
 * The table decoded last and its id, to skip the hash lookup on a run of
 * values of the same table (gsst_dict_table_quick, dict.h).  Forgotten
 * whenever an entry could be removed.
 */
GsstDictLast gsst_dict_last = {0, NULL};

static inline void
forget_last_entry(void)
{
	gsst_dict_last.table = NULL;
}

/* The family encoded last and its current entry, likewise. */
static int32 last_family = 0;
static DictEntry *last_family_entry = NULL;

static void
create_family_hash(void)
{
	family_hash = gsst_id_hash_create("gsst families", 64, sizeof(FamilyEntry), cache_cxt);
}

static void
create_dict_hash(void)
{
	dict_hash = gsst_id_hash_create("gsst dictionaries", 64, sizeof(DictEntry), cache_cxt);
	created_count = 0;
}

static void
free_dict_entry(DictEntry *e)
{
	if (e->encoder)
		pfree(e->encoder);
	if (e->serialized)
		pfree(e->serialized);
	e->encoder = NULL;
	e->serialized = NULL;
}

static void
flush_dict_hash(void)
{
	HASH_SEQ_STATUS status;
	DictEntry  *e;

	forget_last_entry();
	last_family_entry = NULL;

	hash_seq_init(&status, dict_hash);
	while ((e = hash_seq_search(&status)) != NULL)
		free_dict_entry(e);
	hash_destroy(dict_hash);
	create_dict_hash();
}

/* Any change to gsst.dictionaries may add a table to some family. */
static void
relcache_callback(Datum arg, Oid relid)
{
	if (!OidIsValid(relid) || relid == dict_hash_relid)
	{
		family_hash_stale = true;
		forget_last_entry();
		last_family_entry = NULL;
	}
}

/* Make the caches usable: drop what belongs to an older gsst.dictionaries. */
static const GsstCatalog *
prepare_caches(void)
{
	const GsstCatalog *cat = gsst_catalog(false);

	if (cache_cxt == NULL)
	{
		cache_cxt = AllocSetContextCreate(CacheMemoryContext, "gsst cache",
										  ALLOCSET_DEFAULT_SIZES);
		create_dict_hash();
		create_family_hash();
		dict_hash_relid = cat->dictionaries;
	}
	if (dict_hash_relid != cat->dictionaries)
	{
		/* the extension was dropped and created again: ids mean other tables */
		flush_dict_hash();
		family_hash_stale = true;
		dict_hash_relid = cat->dictionaries;
	}
	if (family_hash_stale)
	{
		family_hash_stale = false;
		hash_destroy(family_hash);
		create_family_hash();
	}
	return cat;
}

/*
 * Check the columns of gsst.dictionaries; returns their number, which is
 * Natts_dict_v1_0 until ALTER EXTENSION gsst UPDATE has run.
 */
static int
check_descriptor(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	static const Oid types[Natts_dict] = {INT4OID, INT4OID, TIMESTAMPTZOID,
	INT4OID, BYTEAOID, OIDOID};

	if (desc->natts != Natts_dict && desc->natts != Natts_dict_v1_0)
		goto bad;
	for (int i = 0; i < desc->natts; i++)
		if (TupleDescAttr(desc, i)->atttypid != types[i] ||
			TupleDescAttr(desc, i)->attisdropped)
			goto bad;
	return desc->natts;
bad:
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table gsst.dictionaries does not have the expected columns"),
			 errhint("Run ALTER EXTENSION gsst UPDATE, or reinstall the extension.")));
}

/*
 * Load and validate the table held by a row of gsst.dictionaries; a row
 * that does not hold a valid table raises data_corrupted.
 */
static void
load_dictionary_tuple(HeapTuple tup, TupleDesc desc, uint32 id, int32 *family,
					  gsst_table *table)
{
	Datum		values[Natts_dict];
	bool		nulls[Natts_dict];
	bytea	   *symbols;
	size_t		consumed = 0;
	int			rc;

	heap_deform_tuple(tup, desc, values, nulls);
	if (nulls[Anum_dict_family - 1] || nulls[Anum_dict_nsymbols - 1] ||
		nulls[Anum_dict_symbols - 1])
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("gsst dictionary %u is corrupted: null fields", id)));
	symbols = DatumGetByteaPP(values[Anum_dict_symbols - 1]);
	rc = gsst_table_load(table, (const uint8 *) VARDATA_ANY(symbols),
						 VARSIZE_ANY_EXHDR(symbols), &consumed);
	if (rc == GSST_OK && consumed != VARSIZE_ANY_EXHDR(symbols))
		rc = GSST_ERR_LENGTH;
	if (rc == GSST_OK &&
		(int64) table->nsymbols != DatumGetInt32(values[Anum_dict_nsymbols - 1]))
		rc = GSST_ERR_BAD_TABLE;
	if (rc != GSST_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("gsst dictionary %u is corrupted", id),
				 errdetail("%s", gsst_strerror(rc))));
	*family = DatumGetInt32(values[Anum_dict_family - 1]);
}

/* Is this row of gsst.dictionaries the tombstone of a dropped dictionary? */
static bool
row_is_dropped(HeapTuple tup, TupleDesc desc)
{
	bool		isnull;
	Datum		d = heap_getattr(tup, Anum_dict_nsymbols, desc, &isnull);

	return !isnull && DatumGetInt32(d) == DICT_DROPPED;
}

/*
 * Read dictionary id.  Returns false when there is no such row or it was
 * dropped (*dropped says which); a row that does not hold a valid table
 * raises data_corrupted.
 */
static bool
read_dictionary(const GsstCatalog *cat, uint32 id, int32 *family,
				gsst_table *table, bool *dropped)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	bool		found = false;

	rel = table_open(cat->dictionaries, AccessShareLock);
	check_descriptor(rel);
	ScanKeyInit(&key, Anum_dict_id, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum((int32) id));
	scan = systable_beginscan(rel, cat->dictionaries_pkey, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	*dropped = HeapTupleIsValid(tup) && row_is_dropped(tup, RelationGetDescr(rel));
	if (HeapTupleIsValid(tup) && !*dropped)
	{
		load_dictionary_tuple(tup, RelationGetDescr(rel), id, family, table);
		found = true;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * An ordered scan, by id, of one family's rows of gsst.dictionaries, through
 * its (family, id) index, as the catalog snapshot sees them.
 */
typedef struct FamilyScan
{
	Relation	rel;
	Relation	idx;
	ScanKeyData key;
	SysScanDesc scan;
} FamilyScan;

static void
family_scan_begin(const GsstCatalog *cat, int32 family, FamilyScan *fs)
{
	fs->rel = table_open(cat->dictionaries, AccessShareLock);
	check_descriptor(fs->rel);
	fs->idx = index_open(cat->dictionaries_family_idx, AccessShareLock);
	ScanKeyInit(&fs->key, Anum_dict_family, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum(family));
	fs->scan = systable_beginscan_ordered(fs->rel, fs->idx, NULL, 1, &fs->key);
}

static void
family_scan_end(FamilyScan *fs)
{
	systable_endscan_ordered(fs->scan);
	index_close(fs->idx, AccessShareLock);
	table_close(fs->rel, AccessShareLock);
}

/* The newest table of a family visible now, 0 if none (tombstones skipped). */
static uint32
read_family_latest(const GsstCatalog *cat, int32 family)
{
	FamilyScan	fs;
	HeapTuple	tup;
	uint32		id = 0;

	family_scan_begin(cat, family, &fs);
	while (HeapTupleIsValid(tup = systable_getnext_ordered(fs.scan, BackwardScanDirection)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_dict_id, RelationGetDescr(fs.rel), &isnull);

		if (row_is_dropped(tup, RelationGetDescr(fs.rel)))
			continue;
		if (!isnull && DatumGetInt32(d) > 0)
			id = (uint32) DatumGetInt32(d);
		break;
	}
	family_scan_end(&fs);
	return id;
}

static DictEntry *
lookup_dict(uint32 id, bool missing_ok)
{
	const GsstCatalog *cat = prepare_caches();
	DictEntry  *e;
	int32		family;
	gsst_table	table;
	bool		dropped = false;

	e = hash_search(dict_hash, &id, HASH_FIND, NULL);
	if (e)
		return e;
	if (id == 0 || !read_dictionary(cat, id, &family, &table, &dropped))
	{
		if (missing_ok)
			return NULL;
		if (dropped)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("corrupted gsst value: dictionary %u was dropped", id),
					 errdetail("gsst.drop_unused_dictionaries() found no stored value that used it.")));
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted gsst value: unknown dictionary %u", id)));
	}

	e = hash_search(dict_hash, &id, HASH_ENTER, NULL);
	e->family = family;
	e->owner = InvalidOid;
	e->created = false;
	e->orphaned = false;
	e->subid = InvalidSubTransactionId;
	e->serialized = NULL;
	e->encoder = NULL;
	e->table = table;
	return e;
}

/* The table of dictionary id; an unknown id is data_corrupted. */
const gsst_table *
gsst_dict_table(uint32 id)
{
	if (gsst_dict_last.table == NULL || gsst_dict_last.id != id)
	{
		gsst_dict_last.table = &lookup_dict(id, false)->table;
		gsst_dict_last.id = id;
	}
	return gsst_dict_last.table;
}

/* The table of dictionary id and its family, or NULL if there is none. */
const gsst_table *
gsst_dict_find(uint32 id, int32 *family)
{
	DictEntry  *e = lookup_dict(id, true);

	if (e == NULL)
		return NULL;
	*family = e->family;
	return &e->table;
}

/*
 * The encoder of the family's newest table and its id, or NULL when the
 * family has no table yet.
 */
const gsst_encoder *
gsst_family_encoder(int32 family, uint32 *table_id)
{
	const GsstCatalog *cat;
	FamilyEntry *fe;
	uint32		current;
	DictEntry  *e;

	if (last_family_entry != NULL && last_family == family && !family_hash_stale)
	{
		*table_id = last_family_entry->id;
		return last_family_entry->encoder;
	}
	last_family_entry = NULL;
	cat = prepare_caches();

	fe = hash_search(family_hash, &family, HASH_FIND, NULL);
	if (fe)
		current = fe->current_id;
	else
	{
		current = read_family_latest(cat, family);
		fe = hash_search(family_hash, &family, HASH_ENTER, NULL);
		fe->current_id = current;
	}
	if (current == 0)
		return NULL;

	e = lookup_dict(current, false);
	if (e->encoder == NULL)
	{
		gsst_encoder *enc = MemoryContextAlloc(cache_cxt, sizeof(gsst_encoder));

		gsst_encoder_init(enc, &e->table);
		e->encoder = enc;
	}
	last_family = family;
	last_family_entry = e;
	*table_id = e->id;
	return e->encoder;
}

/*
 * The encoder of dictionary id, built on first use; an unknown id is
 * data_corrupted.  The pointer is valid until the next cache lookup.
 */
const gsst_encoder *
gsst_dict_encoder(uint32 id)
{
	DictEntry  *e = lookup_dict(id, false);

	if (e->encoder == NULL)
	{
		gsst_encoder *enc = MemoryContextAlloc(cache_cxt, sizeof(gsst_encoder));

		gsst_encoder_init(enc, &e->table);
		e->encoder = enc;
	}
	return e->encoder;
}

/*
 * May this backend store a dictionary now?  Not on a standby, in a
 * read-only transaction or in a parallel worker; then values stay raw.
 */
bool
gsst_can_write_dictionaries(void)
{
	return IsTransactionState() && !RecoveryInProgress() && !XactReadOnly &&
		!IsInParallelMode() && gsst_catalog(true) != NULL;
}

/*
 * Is id taken?  Looks with a dirty snapshot, so that rows inserted by the
 * current command (a COPY restoring gsst.dictionaries) and by transactions
 * still in progress count too.
 */
static bool
dictionary_id_taken(const GsstCatalog *cat, uint32 id)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	SnapshotData dirty;
	bool		taken;

	if (dict_hash && hash_search(dict_hash, &id, HASH_FIND, NULL))
		return true;
	InitDirtySnapshot(dirty);
	rel = table_open(cat->dictionaries, AccessShareLock);
	ScanKeyInit(&key, Anum_dict_id, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum((int32) id));
	scan = systable_beginscan(rel, cat->dictionaries_pkey, true, &dirty, 1, &key);
	taken = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return taken;
}

/* Does this transaction hold the id lock to its end (it restores rows)? */
static bool id_lock_kept = false;

/* The lock that serializes the choice of new dictionary ids. */
static void
lock_id_allocation(const GsstCatalog *cat)
{
	LockDatabaseObject(cat->dictionaries, 0, 0, ExclusiveLock);
}

/*
 * Does this transaction hold the lock on new dictionary ids until it ends?
 * Then no other transaction can store a dictionary before it commits: a
 * learner would wait for it in vain.
 */
bool
gsst_dict_ids_locked_here(void)
{
	return id_lock_kept;
}

/*
 * A new dictionary id: one past the highest stored by committed
 * transactions or ones in progress (a dirty snapshot), or created by this
 * backend (a subtransaction's, stored again at commit).  No id is lost to
 * a crash or a rollback, as a sequence would lose some: ids below 32 take
 * the shortest header, so they are worth keeping.  The caller holds
 * lock_id_allocation until its row is inserted.
 */
static uint32
allocate_dictionary_id(const GsstCatalog *cat)
{
	Relation	rel;
	Relation	idx;
	SysScanDesc scan;
	SnapshotData dirty;
	HeapTuple	tup;
	int64		highest = 0;

	InitDirtySnapshot(dirty);
	rel = table_open(cat->dictionaries, AccessShareLock);
	idx = index_open(cat->dictionaries_pkey, AccessShareLock);
	scan = systable_beginscan_ordered(rel, idx, &dirty, 0, NULL);
	tup = systable_getnext_ordered(scan, BackwardScanDirection);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_dict_id, RelationGetDescr(rel), &isnull);

		if (!isnull)
			highest = DatumGetInt32(d);
	}
	systable_endscan_ordered(scan);
	index_close(idx, AccessShareLock);
	table_close(rel, AccessShareLock);

	if (created_count > 0 && dict_hash != NULL)
	{
		HASH_SEQ_STATUS status;
		DictEntry  *e;

		hash_seq_init(&status, dict_hash);
		while ((e = hash_seq_search(&status)) != NULL)
			if (e->created && (int64) e->id > highest)
				highest = e->id;
	}
	if (highest + 1 > (int64) GSST_MAX_TABLE_ID)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gsst dictionary ids are exhausted")));
	return (uint32) (highest + 1);
}

/* Insert one row into gsst.dictionaries, bypassing permissions. */
static void
insert_dictionary_row(const GsstCatalog *cat, uint32 id, int32 family, Oid owner,
					  uint32 nsymbols, bytea *serialized)
{
	Relation	rel;
	HeapTuple	tup;
	Datum		values[Natts_dict];
	bool		nulls[Natts_dict] = {false, false, false, false, false, false};

	rel = table_open(cat->dictionaries, RowExclusiveLock);
	(void) check_descriptor(rel);
	values[Anum_dict_id - 1] = Int32GetDatum((int32) id);
	values[Anum_dict_family - 1] = Int32GetDatum(family);
	values[Anum_dict_created - 1] = TimestampTzGetDatum(GetCurrentTimestamp());
	values[Anum_dict_nsymbols - 1] = Int32GetDatum((int32) nsymbols);
	values[Anum_dict_symbols - 1] = PointerGetDatum(serialized);
	values[Anum_dict_owner - 1] = ObjectIdGetDatum(owner);
	tup = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tup);
	heap_freetuple(tup);
	table_close(rel, NoLock);

	/* other backends forget their family -> table map when we commit */
	CacheInvalidateRelcacheByRelid(cat->dictionaries);
}

/*
 * Dictionaries of this transaction's aborted subtransactions whose tables
 * belonged to owner: commit stores them again.
 */
static int64
owner_orphans(Oid owner)
{
	HASH_SEQ_STATUS status;
	DictEntry  *e;
	int64		n = 0;

	if (created_count == 0 || dict_hash == NULL)
		return 0;
	hash_seq_init(&status, dict_hash);
	while ((e = hash_seq_search(&status)) != NULL)
		if (e->created && e->orphaned && e->owner == owner)
			n++;
	return n;
}

/*
 * How many dictionaries the families of owner's tables hold: rows stored by
 * committed transactions and by ones in progress (a dirty snapshot; this
 * transaction's own included), and those commit will store again.
 */
static int64
count_owner_dictionaries(const GsstCatalog *cat, Oid owner)
{
	Relation	rel;
	SysScanDesc scan;
	SnapshotData dirty;
	HeapTuple	tup;
	int64		n = 0;

	rel = table_open(cat->dictionaries, AccessShareLock);
	if (check_descriptor(rel) < Natts_dict)
	{
		table_close(rel, AccessShareLock);
		return 0;
	}
	InitDirtySnapshot(dirty);
	scan = systable_beginscan(rel, InvalidOid, false, &dirty, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_dict_owner, RelationGetDescr(rel), &isnull);

		if (!isnull && DatumGetObjectId(d) == owner &&
			!row_is_dropped(tup, RelationGetDescr(rel)))
			n++;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return n + owner_orphans(owner);
}

static bool
quota_applies(Oid owner, int quota)
{
	return quota > 0 && OidIsValid(owner) && !superuser_arg(owner);
}

/*
 * May the owner's families hold one more dictionary under the limit quota?
 * pending: dictionaries that count although this backend cannot see them
 * (those a learner's requester will store again at its commit).
 */
static bool
owner_below_quota(const GsstCatalog *cat, Oid owner, int quota, int64 pending)
{
	if (!quota_applies(owner, quota))
		return true;
	return count_owner_dictionaries(cat, owner) + pending < quota;
}

static void
report_quota(int32 family, Oid owner)
{
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("the tables of role \"%s\" hold %d gsst dictionaries, the most gsst.max_dictionaries_per_role allows",
					GetUserNameFromId(owner, true) ? GetUserNameFromId(owner, true) : "?",
					gsst_max_dictionaries_per_role),
			 errdetail("Family %d gets no new dictionary; dictionary ids are shared by the whole database and never reused.",
					   family),
			 errhint("A superuser can raise gsst.max_dictionaries_per_role.")));
}

/*
 * Insert a dictionary and make it the family's current one in this
 * backend; 0 when the owner's dictionaries are at the quota (see
 * owner_below_quota), counted under the lock on new ids.
 */
static uint32
store_dictionary(const GsstCatalog *cat, int32 family, Oid owner,
				 const gsst_table *table, int quota, int64 pending)
{
	uint8		bytes[GSST_TABLE_MAX_BYTES];
	int			nbytes;
	bytea	   *serialized;
	uint32		id;
	DictEntry  *e;
	FamilyEntry *fe;

	nbytes = gsst_table_serialize(table, bytes, sizeof(bytes));
	if (nbytes < 0)
		elog(ERROR, "could not serialize gsst table: %s", gsst_strerror(nbytes));

	/* others see the row once it is in, in progress: the lock can go then */
	lock_id_allocation(cat);
	if (!owner_below_quota(cat, owner, quota, pending))
	{
		UnlockDatabaseObject(cat->dictionaries, 0, 0, ExclusiveLock);
		return 0;
	}
	serialized = MemoryContextAlloc(cache_cxt, VARHDRSZ + nbytes);
	SET_VARSIZE(serialized, VARHDRSZ + nbytes);
	memcpy(VARDATA(serialized), bytes, nbytes);
	id = allocate_dictionary_id(cat);
	insert_dictionary_row(cat, id, family, owner, table->nsymbols, serialized);
	UnlockDatabaseObject(cat->dictionaries, 0, 0, ExclusiveLock);
	CommandCounterIncrement();

	cat = prepare_caches();
	e = hash_search(dict_hash, &id, HASH_ENTER, NULL);
	e->family = family;
	e->owner = owner;
	e->created = true;
	e->orphaned = false;
	e->subid = GetCurrentSubTransactionId();
	e->serialized = serialized;
	e->encoder = NULL;
	e->table = *table;
	created_count++;

	fe = hash_search(family_hash, &family, HASH_ENTER, NULL);
	fe->current_id = id;
	last_family_entry = NULL;
	return id;
}

/* May the family's owner store one more dictionary? */
bool
gsst_dict_quota_allows(int32 family)
{
	return owner_below_quota(prepare_caches(), gsst_family_owner(family),
							 gsst_max_dictionaries_per_role, 0);
}

/*
 * Dictionaries of owner's tables that this transaction's commit stores
 * again: a learner it asks for counts them too.
 */
int
gsst_dict_pending_for(Oid owner)
{
	return (int) Min(owner_orphans(owner), INT_MAX);
}

/*
 * Store a new dictionary for a family on purpose (gsst.train and what
 * calls it), in the current transaction, and make it the family's current
 * table in this backend.  The caller checked the TRAIN right.  Returns its
 * id (from a sequence, never reused).
 */
uint32
gsst_dict_create(int32 family, const gsst_table *table)
{
	const GsstCatalog *cat;
	Oid			owner;
	uint32		id;

	if (!gsst_can_write_dictionaries())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot store a gsst dictionary in a read-only transaction")));
	cat = prepare_caches();
	owner = gsst_family_owner(family);
	id = store_dictionary(cat, family, owner, table, gsst_max_dictionaries_per_role, 0);
	if (id == 0)
		report_quota(family, owner);
	return id;
}

/*
 * Store a family's first dictionary unless it has one: one learning event
 * gives one dictionary, however many sessions learn from their writes at
 * once.  They serialize on a lock on the family (wait: block; else give up
 * with GSST_LEARN_BUSY), and the first to hold it stores its table; the
 * others find that one.  The lock is held to the end of the transaction.
 * owner is that of the family's table as the learning backend sees it (the
 * learner may not see a table created by a transaction still open), and
 * pending what else counts against its quota (owner_below_quota).
 */
uint32
gsst_dict_create_once(int32 family, const gsst_table *table, Oid owner,
					  bool wait, int quota, int pending, GsstLearnStatus *status)
{
	const GsstCatalog *cat = prepare_caches();
	uint32		existing;
	uint32		id;

	if (wait)
		LockDatabaseObject(cat->dictionaries, (Oid) family, 0, ExclusiveLock);
	else if (!ConditionalLockDatabaseObject(cat->dictionaries, (Oid) family, 0,
											ExclusiveLock))
	{
		*status = GSST_LEARN_BUSY;
		return 0;
	}
	/* what committed while we waited counts */
	InvalidateCatalogSnapshot();
	existing = read_family_latest(cat, family);
	if (existing != 0)
	{
		*status = GSST_LEARN_EXISTS;
		family_hash_stale = true;
		return existing;
	}
	id = store_dictionary(cat, family, owner, table, quota, pending);
	*status = id != 0 ? GSST_LEARN_STORED : GSST_LEARN_QUOTA;
	return id;
}

/* Has any dictionary been stored for the family (as far as we can see)? */
bool
gsst_family_has_dictionaries(int32 family)
{
	return read_family_latest(prepare_caches(), family) != 0;
}

/*
 * The family's dictionaries that are not dropped, oldest first, as the
 * catalog snapshot sees them: their ids and when each was stored.
 * Returns how many; *ids and *created are palloc'd.
 */
int
gsst_family_dictionaries(int32 family, uint32 **ids, TimestampTz **created)
{
	FamilyScan	fs;
	HeapTuple	tup;
	int			n = 0;
	int			cap = 8;

	*ids = palloc(sizeof(uint32) * cap);
	*created = palloc(sizeof(TimestampTz) * cap);
	family_scan_begin(prepare_caches(), family, &fs);
	while (HeapTupleIsValid(tup = systable_getnext_ordered(fs.scan, ForwardScanDirection)))
	{
		TupleDesc	desc = RelationGetDescr(fs.rel);
		bool		id_null;
		bool		created_null;
		Datum		id = heap_getattr(tup, Anum_dict_id, desc, &id_null);
		Datum		at = heap_getattr(tup, Anum_dict_created, desc, &created_null);

		if (id_null || created_null || DatumGetInt32(id) <= 0 || row_is_dropped(tup, desc))
			continue;
		if (n == cap)
		{
			cap *= 2;
			*ids = repalloc(*ids, sizeof(uint32) * cap);
			*created = repalloc(*created, sizeof(TimestampTz) * cap);
		}
		(*ids)[n] = (uint32) DatumGetInt32(id);
		(*created)[n] = DatumGetTimestampTz(at);
		n++;
	}
	family_scan_end(&fs);
	return n;
}

/*
 * Take the lock that serializes the callers of gsst_dict_drop in this
 * database until the end of the transaction; false, without waiting, when
 * another transaction holds it (a caller waits for every transaction in
 * progress, so waiting here would deadlock).
 */
bool
gsst_dict_lock_drops(void)
{
	LOCKTAG		tag;

	SET_LOCKTAG_OBJECT(tag, MyDatabaseId, gsst_catalog(false)->dictionaries, 0, 1);
	return LockAcquire(&tag, ExclusiveLock, false, true) != LOCKACQUIRE_NOT_AVAIL;
}

/*
 * Drop dictionary id: its row becomes a tombstone (nsymbols -1, no
 * symbols), so that the id stays taken and the owner's quota has room
 * again.  The caller has proved that no stored value needs it and holds
 * gsst_dict_lock_drops.  Backends that cached the table keep it: it is
 * still the right table for its id.
 */
void
gsst_dict_drop(uint32 id)
{
	const GsstCatalog *cat = prepare_caches();
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	HeapTuple	newtup;
	Datum		values[Natts_dict];
	bool		nulls[Natts_dict] = {false, false, false, false, false, false};
	bool		replace[Natts_dict] = {false, false, false, false, false, false};
	bytea	   *empty = palloc(VARHDRSZ);

	SET_VARSIZE(empty, VARHDRSZ);
	rel = table_open(cat->dictionaries, RowExclusiveLock);
	check_descriptor(rel);
	ScanKeyInit(&key, Anum_dict_id, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum((int32) id));
	scan = systable_beginscan(rel, cat->dictionaries_pkey, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "gsst dictionary %u does not exist", id);
	values[Anum_dict_nsymbols - 1] = Int32GetDatum(DICT_DROPPED);
	replace[Anum_dict_nsymbols - 1] = true;
	values[Anum_dict_symbols - 1] = PointerGetDatum(empty);
	replace[Anum_dict_symbols - 1] = true;
	newtup = heap_modify_tuple(tup, RelationGetDescr(rel), values, nulls, replace);
	CatalogTupleUpdate(rel, &tup->t_self, newtup);
	heap_freetuple(newtup);
	systable_endscan(scan);
	table_close(rel, NoLock);
	CacheInvalidateRelcacheByRelid(cat->dictionaries);
}

/* ---- transaction hooks ---- */

/*
 * Store again the dictionaries whose subtransaction aborted, unless that
 * takes an owner past the quota: then the transaction fails (which of
 * them a surviving value uses is unknown, so none may be dropped).
 */
static void
reinsert_orphans(void)
{
	const GsstCatalog *cat;
	HASH_SEQ_STATUS status;
	DictEntry  *e;
	List	   *owners = NIL;
	ListCell   *lc;
	bool		any = false;

	if (created_count == 0 || dict_hash == NULL)
		return;
	cat = gsst_catalog(true);
	if (cat == NULL || cat->dictionaries != dict_hash_relid)
		return;					/* the extension was dropped meanwhile */
	hash_seq_init(&status, dict_hash);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		if (!e->created || !e->orphaned)
			continue;
		any = true;
		if (quota_applies(e->owner, gsst_max_dictionaries_per_role))
			owners = list_append_unique_oid(owners, e->owner);
	}
	if (!any)
		return;

	/* the count and the rows, under the lock that other stores take */
	lock_id_allocation(cat);
	foreach(lc, owners)
	{
		Oid			owner = lfirst_oid(lc);
		int64		n = count_owner_dictionaries(cat, owner);

		if (n > gsst_max_dictionaries_per_role)
		{
			char	   *name = GetUserNameFromId(owner, true);

			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("the tables of role \"%s\" would hold " INT64_FORMAT " gsst dictionaries, more than gsst.max_dictionaries_per_role (%d) allows",
							name ? name : "?", n, gsst_max_dictionaries_per_role),
					 errdetail("Dictionaries stored by subtransactions that rolled back are stored again at commit, because values encoded with them may have survived; meanwhile other transactions stored dictionaries for the same role."),
					 errhint("A superuser can raise gsst.max_dictionaries_per_role.")));
		}
	}
	hash_seq_init(&status, dict_hash);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		if (e->created && e->orphaned)
		{
			insert_dictionary_row(cat, e->id, e->family, e->owner,
								  e->table.nsymbols, e->serialized);
			e->orphaned = false;
		}
	}
	UnlockDatabaseObject(cat->dictionaries, 0, 0, ExclusiveLock);
}

/* End of transaction: keep (commit) or forget (abort) what it created. */
static void
settle_created(bool keep)
{
	HASH_SEQ_STATUS status;
	DictEntry  *e;

	if (created_count == 0 || dict_hash == NULL)
		return;
	forget_last_entry();
	last_family_entry = NULL;
	hash_seq_init(&status, dict_hash);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		if (!e->created)
			continue;
		if (keep)
		{
			e->created = false;
			e->orphaned = false;
			e->subid = InvalidSubTransactionId;
			if (e->serialized)
				pfree(e->serialized);
			e->serialized = NULL;
		}
		else
		{
			uint32		id = e->id;

			free_dict_entry(e);
			hash_search(dict_hash, &id, HASH_REMOVE, NULL);
		}
	}
	created_count = 0;
}

static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			reinsert_orphans();
			break;
		case XACT_EVENT_COMMIT:
			settle_created(true);
			id_lock_kept = false;
			break;
		case XACT_EVENT_PREPARE:
			/* a prepared transaction may still roll back elsewhere */
			settle_created(false);
			family_hash_stale = true;
			id_lock_kept = false;
			break;
		case XACT_EVENT_ABORT:
			settle_created(false);
			family_hash_stale = true;
			id_lock_kept = false;
			break;
		default:
			break;
	}
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	HASH_SEQ_STATUS status;
	DictEntry  *e;

	if (created_count == 0 || dict_hash == NULL)
		return;
	if (event != SUBXACT_EVENT_COMMIT_SUB && event != SUBXACT_EVENT_ABORT_SUB)
		return;
	hash_seq_init(&status, dict_hash);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		if (!e->created || e->subid != mySubid)
			continue;
		e->subid = parentSubid;
		if (event == SUBXACT_EVENT_ABORT_SUB)
			e->orphaned = true;
	}
}

void
gsst_dict_init(void)
{
	CacheRegisterRelcacheCallback(relcache_callback, (Datum) 0);
	RegisterXactCallback(xact_callback, NULL);
	RegisterSubXactCallback(subxact_callback, NULL);
}

/* Trigger on gsst.dictionaries: rows are never updated or deleted. */
PG_FUNCTION_INFO_V1(gsst_dictionaries_guard);
Datum
gsst_dictionaries_guard(PG_FUNCTION_ARGS)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gsst.dictionaries_guard() must be called as a trigger")));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("gsst dictionaries cannot be updated, deleted or truncated"),
			 errdetail("Stored values refer to their dictionary by id for ever.")));
	PG_RETURN_NULL();
}

/*
 * BEFORE INSERT trigger on gsst.dictionaries (enabled ALWAYS), for rows that
 * come through SQL rather than from gsst itself: a restored dump, a logical
 * replication subscription, a superuser.
 *
 * A subscriber keeps its own dictionaries: rows that arrive under
 * session_replication_role = replica (the apply and table sync workers of a
 * subscription FOR ALL TABLES) are skipped; values travel as text.
 *
 * A row joins its family only when the inserting role may store that
 * family's dictionaries (the owner of its column's table: so does the role
 * that restores a whole database), else it is skipped with a NOTICE.  When
 * the DDL hook gave a restored column another family than its dump
 * declared (the declared one was taken here), the dictionaries the dump
 * brings for it go to the family the column got.
 *
 * The table must be valid, and an id already taken gets a fresh one.
 * Dumps hold values as text, never as codes, so no restored value refers to
 * a dictionary id; but restoring a table's data before gsst.dictionaries
 * lets that column learn a table of its own first, under an id the dump may
 * use as well.
 */
PG_FUNCTION_INFO_V1(gsst_dictionaries_before_insert);
Datum
gsst_dictionaries_before_insert(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	const GsstCatalog *cat;
	TupleDesc	desc;
	HeapTuple	tup;
	bool		isnull;
	Datum		id_datum;
	int32		family;
	int32		remapped;
	gsst_table	table;
	uint32		id;
	int			natts;
	int			cols[3];
	Datum		vals[3];
	bool		nulls[3] = {false, false, false};
	int			ncols = 0;
	Oid			owner;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) ||
		!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gsst.dictionaries_before_insert() must be a BEFORE INSERT row trigger")));

	if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
	{
		ereport(DEBUG1,
				(errmsg("gsst: a replicated dictionary is not stored; this database keeps its own")));
		return PointerGetDatum(NULL);
	}

	cat = prepare_caches();
	desc = RelationGetDescr(trigdata->tg_relation);
	natts = check_descriptor(trigdata->tg_relation);
	tup = trigdata->tg_trigtuple;
	id_datum = heap_getattr(tup, Anum_dict_id, desc, &isnull);
	if (isnull || DatumGetInt32(id_datum) <= 0 ||
		DatumGetInt32(id_datum) > (int32) GSST_MAX_TABLE_ID)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("gsst dictionary id must be between 1 and %u", GSST_MAX_TABLE_ID)));
	id = (uint32) DatumGetInt32(id_datum);
	if (row_is_dropped(tup, desc))
	{
		/* a tombstone keeps an id of the dumped database: nothing to keep here */
		ereport(DEBUG1,
				(errmsg("gsst: the tombstone of dropped dictionary %u is not stored", id)));
		return PointerGetDatum(NULL);
	}
	load_dictionary_tuple(tup, desc, id, &family, &table);

	remapped = gsst_family_remapped(family);
	if (remapped != 0)
	{
		cols[ncols] = Anum_dict_family;
		vals[ncols++] = Int32GetDatum(remapped);
		family = remapped;
	}
	if (!gsst_family_may(family, GSST_RIGHT_TRAIN))
	{
		ereport(NOTICE,
				(errmsg("gsst dictionary %u is not stored: family %d belongs to no column whose table you own",
						id, family)));
		return PointerGetDatum(NULL);
	}
	owner = gsst_family_owner(family);
	/* the executor inserts the row after us: the lock stays to the end */
	lock_id_allocation(cat);
	id_lock_kept = true;
	if (!owner_below_quota(cat, owner, gsst_max_dictionaries_per_role, 0))
	{
		ereport(NOTICE,
				(errmsg("gsst dictionary %u is not stored: the tables of its owner hold the most dictionaries gsst.max_dictionaries_per_role allows",
						id)));
		return PointerGetDatum(NULL);
	}
	if (natts == Natts_dict)
	{
		cols[ncols] = Anum_dict_owner;
		vals[ncols++] = ObjectIdGetDatum(owner);
	}
	if (dictionary_id_taken(cat, id))
	{
		uint32		new_id = allocate_dictionary_id(cat);

		ereport(NOTICE,
				(errmsg("gsst dictionary id %u is taken; storing this dictionary as %u",
						id, new_id)));
		cols[ncols] = Anum_dict_id;
		vals[ncols++] = Int32GetDatum((int32) new_id);
	}
	if (ncols > 0)
		tup = heap_modify_tuple_by_cols(tup, desc, ncols, cols, vals, nulls);
	/* other backends may have cached "no table yet" for this family */
	CacheInvalidateRelcacheByRelid(cat->dictionaries);
	return PointerGetDatum(tup);
}
