/*
 * load.c - gsst.load(target, source_query [, batch_rows] [, columns]).
 *
 * Reads the source query in batches, encodes the gsst columns of each batch
 * in one request (batch.c), and inserts the batch with INSERT ... SELECT
 * through the executor, so that triggers, constraints, indexes and
 * partitions behave as usual.  While the worker encodes batch N, this
 * backend inserts batch N-1 and then reads batch N+1.
 *
 * Into a Citus distributed or reference table nothing is encoded here: the
 * caller's query becomes the source of one INSERT ... SELECT that Citus
 * runs (load_distributed), and every node encodes what it stores.
 */
#include "bulk/batch.h"

#include "access/detoast.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/relscan.h"
#include "access/rewriteheap.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/indexing.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/cluster.h"
#include "commands/progress.h"
#include "commands/tablecmds.h"
#include "commands/vacuum.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "parser/parser.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "bulk/encode_pool.h"
#include "scaleout/citus.h"
#include "worker/worker.h"

/*
 * Batches the gsst worker did not take are encoded by a pool of background
 * workers (encode_pool.c) once one holds this much text: for less, their
 * start costs more than they save.
 */
#define LOAD_POOL_MIN_BYTES		(1024 * 1024)

/*
 * A batch of source rows on its way into the target: the tuple tables SPI
 * fetched them in, and the values of its gsst columns to encode.
 */
typedef struct LoadBatch
{
	GsstBatch  *encode;
	SPITupleTable **chunks;		/* the rows, as fetched */
	int			nchunks;
	int			chunks_cap;
	uint64		nrows;
	Size		tuple_bytes;	/* of the fetched tuples */
	int32	   *value_index;	/* per row and gsst column: value, or -1 */
	uint64		value_rows;		/* rows value_index has room for */
	uint64		first_row;		/* its first row's number in the source, from 1 */
} LoadBatch;

/* What gsst.load knows of the target's columns. */
typedef struct LoadPlan
{
	int			nsource;		/* columns of the source query */
	int			ncolumns;		/* of them, gsst target columns */
	int		   *source_col;		/* per gsst column: its source column (0-based) */
	int		   *gsst_of_source; /* per source column: gsst column, or -1 */
	GsstColumn *columns;
	bool		may_learn;
	TupleDesc	source_desc;
	TupleDesc	batch_desc;		/* the rows the INSERT reads: gsst columns as gsst */
	int			batch_rows;		/* rows a batch holds at most */
	uint64		chunk_rows;		/* rows the next fetch asks for */
	uint64		rows_seen;		/* rows, text and tuple bytes read so far */
	Size		text_seen;
	Size		tuple_seen;
} LoadPlan;

/*
 * The INSERT reads a batch from an ephemeral named relation of this name,
 * registered in gsst.load's own SPI connection: no other query, trigger or
 * function sees it, and its columns have the types gsst.load gave them.
 */
#define LOAD_BATCH_RELATION "gsst_load_batch"

/* Into a distributed table, the caller's query is a subquery of this name. */
#define LOAD_SOURCE_ALIAS "gsst_load_source"

/* Rows of the source a distributed target's placements learn from, at most. */
#define LOAD_SAMPLE_MAX_ROWS	100000

/* Train a family's first table from a sample of a batch, as learning does. */
static void
learn_from_batch(GsstColumn *gc, GsstBatchColumn *col)
{
	const uint8 **values;
	size_t	   *lens;
	int			n = 0;
	int			step;
	Size		bytes = 0;
	gsst_table	table;
	void	   *work;
	int			rc;

	if (col->nvalues == 0 || !gsst_can_write_dictionaries() ||
		!gsst_family_may(gc->family, GSST_RIGHT_LEARN))
		return;
	/* about GSST_TRAIN_SAMPLE_BYTES, spread over the batch */
	step = Max(1, (int) (col->len / GSST_TRAIN_SAMPLE_BYTES));
	values = palloc(sizeof(uint8 *) * (col->nvalues / step + 1));
	lens = palloc(sizeof(size_t) * (col->nvalues / step + 1));
	for (int i = 0; i < col->nvalues && bytes < 2 * GSST_TRAIN_SAMPLE_BYTES; i += step)
	{
		Size		len = Min(col->offsets[i + 1] - col->offsets[i], GSST_SAMPLE_VALUE_MAX);

		if (len == 0)
			continue;
		values[n] = (const uint8 *) col->data + col->offsets[i];
		lens[n] = len;
		bytes += len;
		n++;
	}
	if (n == 0)
		return;
	work = palloc0(gsst_train_work_bytes());
	rc = gsst_train_generations(&table, values, lens, n, work, GSST_PG_TRAIN_GENERATIONS);
	pfree(work);
	if (rc != GSST_OK)
	{
		ereport(WARNING,
				(errmsg("gsst could not learn a table for family %d: %s",
						gc->family, gsst_strerror(rc))));
		return;
	}
	(void) gsst_learn_store(gc->family, &table, true);
}

/* The text of a source value for a gsst column (decoded if it is gsst). */
static const char *
source_text(Datum d, Oid typid, Oid gsst_type, Size *len, GsstBuffer *buf,
			struct varlena **detoasted)
{
	struct varlena *value = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);

	*detoasted = (Pointer) value != DatumGetPointer(d) ? value : NULL;
	if (typid == gsst_type)
		return gsst_value_bytes(value, len, buf);
	*len = VARSIZE_ANY_EXHDR(value);
	return VARDATA_ANY(value);
}

/* An empty batch: reuse, a batch done with, or else a new one. */
static LoadBatch *
begin_load_batch(LoadPlan *lp, MemoryContext parent, LoadBatch *reuse)
{
	GsstBatch  *encode;
	LoadBatch  *batch;

	if (reuse != NULL)
	{
		batch = reuse;
		encode = batch->encode;
		gsst_batch_reset(encode);
	}
	else
	{
		encode = gsst_batch_create(parent, lp->ncolumns);
		batch = MemoryContextAllocZero(encode->cxt, sizeof(LoadBatch));
		batch->encode = encode;
	}
	batch->nchunks = 0;
	batch->nrows = 0;
	batch->tuple_bytes = 0;
	for (int c = 0; c < lp->ncolumns; c++)
		gsst_batch_set_table(&encode->columns[c], lp->columns[c].family,
							 lp->columns[c].table_id, lp->columns[c].encoder, encode->cxt);
	return batch;
}

/* Add the rows of a fetched tuple table to the batch; it keeps the table. */
static void
add_load_chunk(LoadPlan *lp, LoadBatch *batch, SPITupleTable *tuptable, uint64 nrows)
{
	const GsstCatalog *cat = gsst_catalog(false);
	GsstBatch  *encode = batch->encode;
	MemoryContext old = MemoryContextSwitchTo(encode->cxt);
	GsstBuffer	decoded = GSST_BUFFER_INIT;
	uint64		need = batch->nrows + nrows;

	decoded.cxt = encode->cxt;
	if (batch->nchunks == batch->chunks_cap)
	{
		batch->chunks_cap = Max(8, batch->chunks_cap * 2);
		batch->chunks = batch->chunks == NULL ?
			palloc(sizeof(SPITupleTable *) * batch->chunks_cap) :
			repalloc(batch->chunks, sizeof(SPITupleTable *) * batch->chunks_cap);
	}
	batch->chunks[batch->nchunks++] = tuptable;
	if (batch->value_rows < need)
	{
		uint64		rows = Max(need, batch->value_rows * 2);
		Size		bytes = sizeof(int32) * rows * Max(lp->ncolumns, 1);

		batch->value_index = batch->value_index == NULL ?
			MemoryContextAllocHuge(encode->cxt, bytes) :
			repalloc_huge(batch->value_index, bytes);
		batch->value_rows = rows;
	}

	for (uint64 r = 0; r < nrows; r++)
	{
		HeapTuple	tup = tuptable->vals[r];
		int32	   *index = batch->value_index + (batch->nrows + r) * lp->ncolumns;

		batch->tuple_bytes += tup->t_len;
		for (int c = 0; c < lp->ncolumns; c++)
		{
			int			src = lp->source_col[c];
			Oid			typid = TupleDescAttr(lp->source_desc, src)->atttypid;
			bool		null;
			Datum		d = SPI_getbinval(tup, tuptable->tupdesc, src + 1, &null);
			int32		vi = -1;

			if (!null && !(typid == cat->gsst_type && lp->columns[c].table_id != 0 &&
						   gsst_value_encoded_with(d, lp->columns[c].table_id)))
			{
				Size		len;
				struct varlena *detoasted;
				const char *bytes = source_text(d, typid, cat->gsst_type, &len,
												&decoded, &detoasted);

				vi = gsst_batch_add(&encode->columns[c], bytes, len);
				if (detoasted)
					pfree(detoasted);
			}
			index[c] = vi;
		}
		if ((r & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	batch->nrows = need;
	if (decoded.data)
		pfree(decoded.data);
	MemoryContextSwitchTo(old);
}

/*
 * A batch ends at batch_rows rows, or, as the rewrite's batches do, once it
 * holds gsst.batch_bytes of text or four times that of tuples: wide rows
 * make short batches, so that memory does not grow with the row width.
 */
static bool
load_batch_full(const LoadPlan *lp, const LoadBatch *batch)
{
	return batch->nrows >= (uint64) lp->batch_rows ||
		gsst_batch_raw_bytes(batch->encode) >= (Size) gsst_batch_bytes ||
		batch->tuple_bytes >= 4 * (Size) gsst_batch_bytes;
}

/*
 * Rows the next fetch asks for: what fills the batch at the rows' average
 * size so far, at most four times the last fetch, so that the first rows
 * of unknown width come a few at a time.
 */
static uint64
next_chunk_rows(LoadPlan *lp, const LoadBatch *batch)
{
	uint64		left = (uint64) lp->batch_rows - batch->nrows;
	uint64		rows = Max(lp->chunk_rows * 4, 1);

	if (lp->rows_seen > 0)
	{
		double		text_per_row = (double) lp->text_seen / lp->rows_seen;
		double		tuple_per_row = (double) lp->tuple_seen / lp->rows_seen;
		double		text_left = (double) gsst_batch_bytes - gsst_batch_raw_bytes(batch->encode);
		double		tuple_left = 4.0 * gsst_batch_bytes - batch->tuple_bytes;
		double		fit = Min(text_per_row > 0 ? text_left / text_per_row : left,
							  tuple_per_row > 0 ? tuple_left / tuple_per_row : left);

		if (fit < (double) rows)
			rows = (uint64) Max(fit, 1.0);
	}
	return Min(rows, left);
}

/* Read the next batch from the source; NULL when it has no more rows. */
static LoadBatch *
read_load_batch(LoadPlan *lp, Portal portal, MemoryContext parent, LoadBatch *reuse,
				bool *source_done)
{
	LoadBatch  *batch = begin_load_batch(lp, parent, reuse);

	while (!load_batch_full(lp, batch))
	{
		uint64		want = next_chunk_rows(lp, batch);
		uint64		got;
		Size		text_before = gsst_batch_raw_bytes(batch->encode);
		Size		tuples_before = batch->tuple_bytes;

		SPI_cursor_fetch(portal, true, (long) want);
		got = SPI_processed;
		if (got > 0)
			add_load_chunk(lp, batch, SPI_tuptable, got);
		else
			SPI_freetuptable(SPI_tuptable);
		lp->chunk_rows = want;
		lp->rows_seen += got;
		lp->text_seen += gsst_batch_raw_bytes(batch->encode) - text_before;
		lp->tuple_seen += batch->tuple_bytes - tuples_before;
		if (got < want)
		{
			*source_done = true;
			break;
		}
	}
	if (batch->nrows == 0)
	{
		gsst_batch_free(batch->encode);
		return NULL;
	}
	return batch;
}

/* A new column learns its first table from the first batch. */
static void
learn_from_first_batch(LoadPlan *lp, LoadBatch *batch, MemoryContext parent)
{
	GsstBatch  *encode = batch->encode;

	for (int c = 0; c < lp->ncolumns; c++)
	{
		GsstColumn *gc = &lp->columns[c];

		if (gc->table_id != 0)
			continue;
		learn_from_batch(gc, &encode->columns[c]);
		gsst_column_resolve(gc, parent);
		if (gc->table_id != 0)
		{
			/* the values gathered so far go with the new table */
			gsst_batch_use_table(&encode->columns[c], gc->table_id, gc->encoder,
								 encode->cxt);
		}
	}
	lp->may_learn = false;
}

/* Let go of the fetched rows of a batch that is inserted. */
static void
release_load_chunks(LoadBatch *batch)
{
	for (int i = 0; i < batch->nchunks; i++)
		SPI_freetuptable(batch->chunks[i]);
	batch->nchunks = 0;
}

/*
 * The rows of a finished batch as the INSERT reads them: the source's,
 * with each gsst column's value encoded.  The store spills to disk past
 * work_mem, as a tuplestore does.
 */
static Tuplestorestate *
batch_rows_store(const LoadPlan *lp, LoadBatch *batch)
{
	Tuplestorestate *store = tuplestore_begin_heap(false, false, work_mem);
	int			natts = lp->batch_desc->natts;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc(sizeof(bool) * natts);
	uint64		row = 0;

	for (int k = 0; k < batch->nchunks; k++)
	{
		SPITupleTable *chunk = batch->chunks[k];
		uint64		n = chunk->numvals;

		for (uint64 r = 0; r < n; r++, row++)
		{
			const int32 *index = batch->value_index + row * lp->ncolumns;

			heap_deform_tuple(chunk->vals[r], chunk->tupdesc, values, nulls);
			for (int c = 0; c < lp->ncolumns; c++)
			{
				/* index < 0: NULL, or a gsst value already encoded with the table */
				if (index[c] >= 0)
					values[lp->source_col[c]] =
						PointerGetDatum(batch->encode->columns[c].results[index[c]]);
			}
			tuplestore_putvalues(store, lp->batch_desc, values, nulls);
			if ((r & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	pfree(values);
	pfree(nulls);
	return store;
}

/*
 * gsst.load_rows(bigint) of extension versions before 1.3: gsst.load no
 * longer reads its batches through a function, and this one refuses every
 * caller.
 */
PG_FUNCTION_INFO_V1(gsst_load_rows);
Datum
gsst_load_rows(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("gsst.load_rows() is no longer served"),
			 errhint("ALTER EXTENSION gsst UPDATE removes it.")));
	PG_RETURN_NULL();
}

/*
 * Errors of gsst.load speak of the call: its target and the rows it reads
 * or inserts, never of the INSERT ... SELECT FROM gsst.load_rows() it runs.
 */
typedef enum LoadPhase
{
	LOAD_CALL,					/* checking the call, planning the INSERT */
	LOAD_OPENING,				/* preparing and opening the source query */
	LOAD_READING,				/* fetching a batch, submitting its encoding */
	LOAD_BATCH					/* finishing a batch's encoding, inserting it */
} LoadPhase;

typedef struct LoadErrorContext
{
	const char *relname;
	const char *insert_sql;		/* the internal INSERT, kept out of errors */
	LoadPhase	phase;
	uint64		first_row;		/* LOAD_READING, LOAD_BATCH: rows first_row.. */
	uint64		last_row;		/* LOAD_BATCH: ..last_row */
} LoadErrorContext;

static void
load_error_callback(void *arg)
{
	LoadErrorContext *ec = (LoadErrorContext *) arg;

	switch (ec->phase)
	{
		case LOAD_CALL:
			errcontext("gsst.load into table \"%s\"", ec->relname);
			break;
		case LOAD_OPENING:
			errcontext("gsst.load into table \"%s\", opening the source query",
					   ec->relname);
			break;
		case LOAD_READING:
			errcontext("gsst.load into table \"%s\", reading source rows from %llu",
					   ec->relname, (unsigned long long) ec->first_row);
			break;
		case LOAD_BATCH:
			errcontext("gsst.load into table \"%s\", rows %llu to %llu",
					   ec->relname, (unsigned long long) ec->first_row,
					   (unsigned long long) ec->last_row);
			break;
	}
}

/*
 * An error context less its lines that show the query: SPI's "SQL
 * statement" line of the internal INSERT (the query may span lines, as a
 * quoted column name may hold a newline).  NULL when nothing is left.
 */
static char *
context_without(const char *context, const char *query)
{
	StringInfoData buf;
	const char *p = context;
	const char *hit;
	size_t		qlen = strlen(query);

	initStringInfo(&buf);
	while (qlen > 0 && (hit = strstr(p, query)) != NULL)
	{
		const char *start = hit;
		const char *end = hit + qlen;

		while (start > p && start[-1] != '\n')
			start--;
		end += strcspn(end, "\n");
		appendBinaryStringInfo(&buf, p, start - p);
		p = *end == '\n' ? end + 1 : end;
	}
	appendStringInfoString(&buf, p);
	while (buf.len > 0 && buf.data[buf.len - 1] == '\n')
		buf.data[--buf.len] = '\0';
	if (buf.len == 0)
	{
		pfree(buf.data);
		return NULL;
	}
	return buf.data;
}

/*
 * Re-throw an error of the internal INSERT as gsst.load's: its SQLSTATE,
 * message, detail, hint, and the context of the user's objects (triggers,
 * functions) and of the call stay; the INSERT's text and position go.
 */
static GSST_NORETURN void
rethrow_as_load(MemoryContext cxt, const char *query)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	if (edata->internalquery != NULL && strcmp(edata->internalquery, query) == 0)
	{
		edata->internalquery = NULL;
		edata->internalpos = 0;
	}
	if (edata->context != NULL)
		edata->context = context_without(edata->context, query);
	ReThrowError(edata);
}

/* Prepare the internal INSERT; its errors are re-thrown as the call's. */
static SPIPlanPtr
prepare_insert(const char *sql)
{
	MemoryContext cxt = CurrentMemoryContext;
	SPIPlanPtr	plan;

	PG_TRY();
	{
		plan = SPI_prepare(sql, 0, NULL);
	}
	PG_CATCH();
	{
		rethrow_as_load(cxt, sql);
	}
	PG_END_TRY();
	if (plan == NULL)
		elog(ERROR, "gsst.load: could not prepare its INSERT: %s",
			 SPI_result_code_string(SPI_result));
	return plan;
}

/*
 * Insert a finished batch through the prepared INSERT ... SELECT, which
 * reads it from the batch relation.
 */
static uint64
write_load_batch(const LoadPlan *lp, SPIPlanPtr insert_plan, const char *insert_sql,
				 EphemeralNamedRelation batch_rel, LoadBatch *batch)
{
	MemoryContext cxt = CurrentMemoryContext;
	Tuplestorestate *store = batch_rows_store(lp, batch);
	int			rc;

	batch_rel->reldata = store;
	batch_rel->md.enrtuples = (double) batch->nrows;
	PG_TRY();
	{
		rc = SPI_execute_plan(insert_plan, NULL, NULL, false, 0);
	}
	PG_CATCH();
	{
		batch_rel->reldata = NULL;
		rethrow_as_load(cxt, insert_sql);
	}
	PG_END_TRY();
	batch_rel->reldata = NULL;
	tuplestore_end(store);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "gsst.load: INSERT failed: %s", SPI_result_code_string(rc));
	return SPI_processed;
}

/* The source columns a gsst column can take: text-like, or gsst itself. */
static bool
text_like_source(Oid typid, Oid gsst_type)
{
	return typid == TEXTOID || typid == VARCHAROID || typid == gsst_type;
}

/*
 * The caller's source query for load_distributed: one SELECT (VALUES and
 * TABLE are SELECTs too), as raw parse tree and as text, less a trailing
 * semicolon.
 */
static SelectStmt *
source_select(const char *query, char **text)
{
	List	   *stmts = raw_parser(query, RAW_PARSE_DEFAULT);
	RawStmt    *raw = list_length(stmts) == 1 ? linitial_node(RawStmt, stmts) : NULL;

	if (raw == NULL || !IsA(raw->stmt, SelectStmt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gsst.load into a distributed table takes a SELECT, VALUES or TABLE query as its source"),
				 errhint("Citus runs it as the source of an INSERT ... SELECT.")));
	*text = raw->stmt_len > 0 ?
		pnstrdup(query + raw->stmt_location, raw->stmt_len) :
		pstrdup(query + raw->stmt_location);
	return (SelectStmt *) raw->stmt;
}

/*
 * INSERT INTO target (columns) SELECT s.c1, s.c2::gsst, ... FROM (source)
 * AS s (c1, c2, ...): the target and its columns from the catalog, quoted;
 * each value for a gsst column cast to gsst without a family.  Text stays
 * raw until the node that stores it encodes it.  A gsst source loses the
 * typmod of its column here: Citus would name it in the column list of the
 * intermediate results it reads on the workers, where that number is
 * another family, and the values would be encoded with that family's
 * dictionary on arrival.
 */
static char *
load_statement(Relation rel, const int *target_att, TupleDesc source_desc, const char *source)
{
	const GsstCatalog *cat = gsst_catalog(false);
	TupleDesc	desc = RelationGetDescr(rel);
	int			nsource = source_desc->natts;
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s (",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												RelationGetRelationName(rel)));
	for (int i = 0; i < nsource; i++)
		appendStringInfo(&sql, "%s%s", i ? ", " : "",
						 quote_identifier(NameStr(TupleDescAttr(desc, target_att[i])->attname)));
	appendStringInfoString(&sql, ") SELECT ");
	for (int i = 0; i < nsource; i++)
	{
		Oid			target_type = TupleDescAttr(desc, target_att[i])->atttypid;
		Oid			source_type = TupleDescAttr(source_desc, i)->atttypid;

		appendStringInfo(&sql, "%s" LOAD_SOURCE_ALIAS ".c%d", i ? ", " : "", i + 1);
		if (target_type == cat->gsst_type && text_like_source(source_type, cat->gsst_type))
			appendStringInfo(&sql, "::%s", format_type_be_qualified(cat->gsst_type));
	}
	/* on lines of its own: a comment that ends it ends there */
	appendStringInfo(&sql, " FROM (\n%s\n) AS " LOAD_SOURCE_ALIAS " (", source);
	for (int i = 0; i < nsource; i++)
		appendStringInfo(&sql, "%sc%d", i ? ", " : "", i + 1);
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

/*
 * The caller's text must be the statement's source and nothing else:
 * parsed, the statement equals the one built around an empty SELECT (the
 * skeleton) with the caller's query, parsed alone, in that SELECT's place.
 * equal() leaves out where each token stood.
 */
static void
verify_source_statement(const char *sql, const char *skeleton_sql, SelectStmt *source)
{
	List	   *stmts = raw_parser(sql, RAW_PARSE_DEFAULT);
	RawStmt    *skeleton = linitial_node(RawStmt, raw_parser(skeleton_sql, RAW_PARSE_DEFAULT));
	SelectStmt *select;
	RangeSubselect *from;

	if (IsA(skeleton->stmt, InsertStmt))
		select = castNode(SelectStmt, ((InsertStmt *) skeleton->stmt)->selectStmt);
	else
		select = castNode(SelectStmt, skeleton->stmt);
	from = linitial_node(RangeSubselect, select->fromClause);
	from->subquery = (Node *) source;
	if (list_length(stmts) != 1 ||
		!equal(linitial_node(RawStmt, stmts)->stmt, skeleton->stmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsst.load: the source query does not stand alone as the source of an INSERT")));
}

/* Run the prepared INSERT; its errors are re-thrown as the call's. */
static uint64
execute_insert(SPIPlanPtr plan, const char *sql)
{
	MemoryContext cxt = CurrentMemoryContext;
	int			rc;

	PG_TRY();
	{
		rc = SPI_execute_plan(plan, NULL, NULL, false, 0);
	}
	PG_CATCH();
	{
		rethrow_as_load(cxt, sql);
	}
	PG_END_TRY();
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "gsst.load: INSERT failed: %s", SPI_result_code_string(rc));
	return SPI_processed;
}

/*
 * gsst.load into a Citus distributed or reference table (on the
 * coordinator, or on a worker that has Citus's metadata).  Its rows live in
 * shards, and each node keeps its own dictionaries (DESIGN.md, 6a): no batch
 * is encoded here.  The caller's query becomes the source of one INSERT ...
 * SELECT, run as the caller, which Citus plans as the caller's own: pushed
 * down to colocated shards, repartitioned between the workers, or pulled
 * through the coordinator.  Either way the values of gsst columns reach the
 * nodes that store them as text, and each encodes them on arrival with its
 * shard's dictionary, as a COPY through Citus does.  batch_rows is not used:
 * Citus sizes its own transfers.
 */
static uint64
load_distributed(Relation rel, const int *target_att, TupleDesc source_desc,
				 SelectStmt *source, const char *source_text, LoadErrorContext *ec)
{
	char	   *sql = load_statement(rel, target_att, source_desc, source_text);

	verify_source_statement(sql, load_statement(rel, target_att, source_desc, "SELECT"), source);
	ec->insert_sql = sql;
	return execute_insert(prepare_insert(sql), sql);
}

/*
 * SELECT gsst_load_source.cK::text, ... FROM (source) AS gsst_load_source
 * (c1, ...) LIMIT n: the source's first values for the gsst columns, as
 * text.
 */
static char *
sample_statement(const int *cols, int ncols, int nsource, const char *source)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int k = 0; k < ncols; k++)
		appendStringInfo(&sql, "%s" LOAD_SOURCE_ALIAS ".c%d::pg_catalog.text",
						 k ? ", " : "", cols[k] + 1);
	appendStringInfo(&sql, " FROM (\n%s\n) AS " LOAD_SOURCE_ALIAS " (", source);
	for (int i = 0; i < nsource; i++)
		appendStringInfo(&sql, "%sc%d", i ? ", " : "", i + 1);
	/* a fast-start plan; and Citus pushes the limit down to the shards */
	appendStringInfo(&sql, ") LIMIT %d", LOAD_SAMPLE_MAX_ROWS);
	return sql.data;
}

/*
 * Before a load into a Citus distributed table, every placement whose
 * column has no dictionary yet learns one from a sample of the source
 * (the first rows, up to GSST_TRAIN_SAMPLE_BYTES of each column), each
 * into its own family on its node (gsst.learn, through Citus).  So the
 * first rows a new shard stores are encoded, rather than kept raw until
 * the shard has learned from its own writes.
 *
 * Only where that is safe and cheap: learning is on; the source has no
 * volatile function (its sample runs it a second time); and this is the
 * transaction's first work, outside a transaction block: the placements
 * learn over connections of their own, which must not wait for a lock
 * this transaction holds on a shard.  Otherwise each shard learns from the
 * rows as they arrive, as before.
 */
static void
learn_before_distributed_load(Relation rel, const int *target_att, TupleDesc source_desc,
							  SPIPlanPtr source_plan, SelectStmt *source,
							  const char *source_text)
{
	const GsstCatalog *cat = gsst_catalog(false);
	TupleDesc	desc = RelationGetDescr(rel);
	int			nsource = source_desc->natts;
	int		   *cols = palloc(sizeof(int) * Max(nsource, 1));
	int			ncols = 0;
	CachedPlanSource *ps = linitial(SPI_plan_get_plan_sources(source_plan));
	char	   *sql;
	SPIPlanPtr	plan;
	Portal		portal;
	Datum	  **values;
	int		   *nvalues;
	int		   *capacity;
	Size	   *bytes;
	uint64		rows = 0;
	bool		full = false;

	if (gsst_learn_sample_bytes <= 0 || IsTransactionBlock() || IsSubTransaction() ||
		TransactionIdIsValid(GetTopTransactionIdIfAny()) ||
		contain_volatile_functions((Node *) ps->query_list))
		return;
	for (int i = 0; i < nsource; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, target_att[i]);

		if (att->atttypid == cat->gsst_type && att->atttypmod > 0 &&
			text_like_source(TupleDescAttr(source_desc, i)->atttypid, cat->gsst_type))
			cols[ncols++] = i;
	}
	if (ncols == 0)
		return;

	sql = sample_statement(cols, ncols, nsource, source_text);
	verify_source_statement(sql, sample_statement(cols, ncols, nsource, "SELECT"), source);
	plan = SPI_prepare_cursor(sql, 0, NULL, CURSOR_OPT_NO_SCROLL);
	if (plan == NULL)
		elog(ERROR, "gsst.load: could not prepare its sample of the source: %s",
			 SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	values = palloc0(sizeof(Datum *) * ncols);
	nvalues = palloc0(sizeof(int) * ncols);
	capacity = palloc0(sizeof(int) * ncols);
	bytes = palloc0(sizeof(Size) * ncols);
	while (!full && rows < LOAD_SAMPLE_MAX_ROWS)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed && rows < LOAD_SAMPLE_MAX_ROWS; r++, rows++)
		{
			full = true;
			for (int k = 0; k < ncols; k++)
			{
				bool		isnull;
				Datum		d;

				if (bytes[k] >= GSST_TRAIN_SAMPLE_BYTES)
					continue;
				full = false;
				d = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, k + 1, &isnull);
				if (isnull)
					continue;
				if (nvalues[k] == capacity[k])
				{
					/* grown as the sample is: a small load allocates little */
					capacity[k] = capacity[k] ? Min(capacity[k] * 2, LOAD_SAMPLE_MAX_ROWS) : 256;
					values[k] = values[k] ? repalloc(values[k], sizeof(Datum) * capacity[k])
						: palloc(sizeof(Datum) * capacity[k]);
				}
				d = PointerGetDatum(PG_DETOAST_DATUM_COPY(d));
				values[k][nvalues[k]++] = d;
				bytes[k] += Min(VARSIZE_ANY_EXHDR(DatumGetPointer(d)), GSST_SAMPLE_VALUE_MAX);
			}
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_freeplan(plan);

	for (int k = 0; k < ncols; k++)
	{
		if (nvalues[k] == 0)
			continue;
		(void) gsst_citus_learn(RelationGetRelid(rel),
								NameStr(TupleDescAttr(desc, target_att[cols[k]])->attname),
								construct_array(values[k], nvalues[k], TEXTOID, -1, false,
												TYPALIGN_INT));
	}
}

/*
 * The target columns the columns argument names, in its order, as INSERT's
 * column list takes them; what INSERT would refuse is refused here, before
 * the source query runs.
 */
static int
named_target_columns(Relation rel, ArrayType *names, int *target_att)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool	   *named = palloc0(sizeof(bool) * Max(desc->natts, 1));
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			ntarget = 0;

	if (ARR_NDIM(names) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsst.load: columns must be a one-dimensional array")));
	deconstruct_array(names, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("gsst.load: columns must name at least one column")));
	for (int k = 0; k < n; k++)
	{
		const char *name;
		Form_pg_attribute att = NULL;
		int			i;

		if (nulls[k])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("gsst.load: columns must not contain nulls")));
		name = NameStr(*DatumGetName(elems[k]));
		for (i = 0; i < desc->natts; i++)
		{
			att = TupleDescAttr(desc, i);
			if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
				break;
		}
		if (i == desc->natts)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("gsst.load: column \"%s\" of relation \"%s\" does not exist",
							name, RelationGetRelationName(rel))));
		if (named[i])
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_COLUMN),
					 errmsg("gsst.load: column \"%s\" of relation \"%s\" is named more than once in columns",
							name, RelationGetRelationName(rel))));
		if (att->attgenerated)
			ereport(ERROR,
					(errcode(ERRCODE_GENERATED_ALWAYS),
					 errmsg("gsst.load: cannot insert into column \"%s\" of relation \"%s\"",
							name, RelationGetRelationName(rel)),
					 errdetail("Column \"%s\" is a generated column.", name),
					 errhint("Leave it out of columns: it is computed from the others.")));
		if (att->attidentity == ATTRIBUTE_IDENTITY_ALWAYS)
			ereport(ERROR,
					(errcode(ERRCODE_GENERATED_ALWAYS),
					 errmsg("gsst.load: cannot insert into column \"%s\" of relation \"%s\"",
							name, RelationGetRelationName(rel)),
					 errdetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.",
							   name),
					 errhint("Leave it out of columns: it takes the next value of its identity.")));
		named[i] = true;
		target_att[ntarget++] = i;
	}
	pfree(named);
	return ntarget;
}

/*
 * Refuse what the INSERT would refuse of the source query's columns, before
 * it runs: too many or too few, no INSERT right on a target column, a type
 * that does not go into its column.
 */
static void
check_source_columns(Relation rel, const int *target_att, int ntarget, bool named,
					 TupleDesc source_desc)
{
	const GsstCatalog *cat = gsst_catalog(false);
	TupleDesc	desc = RelationGetDescr(rel);
	Oid			target = RelationGetRelid(rel);
	const char *relname = RelationGetRelationName(rel);
	int			nsource = source_desc->natts;

	if (nsource == 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("gsst.load: the source query returns no columns")));
	/* as INSERT's "more expressions than target columns", and the reverse */
	if (named && nsource != ntarget)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 nsource > ntarget ?
				 errmsg("gsst.load: the source query returns more columns than the columns argument names (%d and %d)",
						nsource, ntarget) :
				 errmsg("gsst.load: the source query returns fewer columns than the columns argument names (%d and %d)",
						nsource, ntarget)));
	if (nsource > ntarget)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("gsst.load: the source query returns more columns than table \"%s\" takes (%d and %d)",
						relname, nsource, ntarget),
				 errdetail("Without the columns argument, source columns go by position to the columns that are neither generated nor GENERATED ALWAYS AS IDENTITY.")));

	/* as the INSERT will: the table, or else each column it writes */
	if (pg_class_aclcheck(target, GetUserId(), ACL_INSERT) != ACLCHECK_OK)
	{
		for (int i = 0; i < nsource; i++)
			if (pg_attribute_aclcheck(target, TupleDescAttr(desc, target_att[i])->attnum,
									  GetUserId(), ACL_INSERT) != ACLCHECK_OK)
				aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, relname);
	}

	for (int i = 0; i < nsource; i++)
	{
		Form_pg_attribute tatt = TupleDescAttr(desc, target_att[i]);
		Form_pg_attribute satt = TupleDescAttr(source_desc, i);

		if (tatt->atttypid == cat->gsst_type && tatt->atttypmod > 0)
		{
			if (!text_like_source(satt->atttypid, cat->gsst_type))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("gsst.load: column %d of the source query has type %s, and gsst column \"%s\" takes text",
								i + 1, format_type_be(satt->atttypid), NameStr(tatt->attname)),
						 errhint("Cast it to text in the source query.")));
		}
		else if (!can_coerce_type(1, &satt->atttypid, &tatt->atttypid, COERCION_ASSIGNMENT))
		{
			/*
			 * What the INSERT's parse analysis would say (the same test, the
			 * same SQLSTATE and message), and of which source column.
			 */
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" is of type %s but expression is of type %s",
							NameStr(tatt->attname), format_type_be(tatt->atttypid),
							format_type_be(satt->atttypid)),
					 errdetail("gsst.load puts column %d of the source query into column \"%s\" of table \"%s\".",
							   i + 1, NameStr(tatt->attname), relname),
					 named ?
					 errhint("Cast it in the source query.") :
					 errhint("Cast it in the source query, or name the target columns with the columns argument.")));
		}
	}
}

PG_FUNCTION_INFO_V1(gsst_load);
Datum
gsst_load(PG_FUNCTION_ARGS)
{
	Oid			target;
	char	   *query;
	int			batch_rows = PG_ARGISNULL(2) ? 10000 : PG_GETARG_INT32(2);
	/* version 1.0 of the SQL objects declares no columns argument */
	ArrayType  *names = PG_NARGS() < 4 || PG_ARGISNULL(3) ? NULL : PG_GETARG_ARRAYTYPE_P(3);
	const GsstCatalog *cat = gsst_catalog(false);
	Relation	rel;
	TupleDesc	desc;
	char	   *relname;
	int		   *target_att;		/* per source column: its target column */
	int			ntarget = 0;
	SPIPlanPtr	source_plan;
	SPIPlanPtr	insert_plan;
	Portal		portal;
	LoadPlan	lp;
	StringInfoData sql;
	EphemeralNamedRelation batch_rel;
	LoadBatch  *pending = NULL;
	LoadBatch  *spare = NULL;
	uint64		total = 0;
	uint64		rows_read = 0;
	bool		source_done = false;
	MemoryContext cxt;
	LoadErrorContext ec;
	ErrorContextCallback errcallback;
	int64		batches_on_worker = 0;
	int64		batches_here = 0;
	GsstEncodePool *pool = NULL;
	bool		pool_tried = false;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gsst.load: the target and the source query must not be null")));
	if (batch_rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_rows must be at least 1")));
	target = PG_GETARG_OID(0);
	query = text_to_cstring(PG_GETARG_TEXT_PP(1));

	/*
	 * The INSERT takes the same lock; taking it now avoids an upgrade.  The
	 * INSERT privilege (on the table or some of its columns) is checked
	 * first, so that a refused call never holds the lock while its source
	 * query runs; the INSERT checks it again, column by column.
	 */
	rel = gsst_open_checked(target, RowExclusiveLock, GSST_CHECK_INSERT, "rp");
	desc = RelationGetDescr(rel);
	relname = pstrdup(RelationGetRelationName(rel));

	/* from here on, errors say which load raised them */
	ec.relname = relname;
	ec.insert_sql = NULL;
	ec.phase = LOAD_CALL;
	ec.first_row = 0;
	ec.last_row = 0;
	errcallback.callback = load_error_callback;
	errcallback.arg = &ec;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	/*
	 * The target columns, in the order the source columns go to them: those
	 * of the columns argument, or else every column that takes a value from
	 * an INSERT, that is all but generated columns and GENERATED ALWAYS
	 * identity columns (INSERT would refuse a value for them).  A column
	 * left out gets what INSERT gives it: its default, identity or
	 * generated value.
	 */
	target_att = palloc(sizeof(int) * Max(desc->natts, 1));
	if (names != NULL)
		ntarget = named_target_columns(rel, names, target_att);
	else
	{
		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (!att->attisdropped && !att->attgenerated &&
				att->attidentity != ATTRIBUTE_IDENTITY_ALWAYS)
				target_att[ntarget++] = i;
		}
	}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "gsst load", ALLOCSET_DEFAULT_SIZES);

	ec.phase = LOAD_OPENING;
	source_plan = SPI_prepare_cursor(query, 0, NULL, CURSOR_OPT_NO_SCROLL);
	if (source_plan == NULL)
		elog(ERROR, "gsst.load: could not prepare the source query: %s",
			 SPI_result_code_string(SPI_result));
	if (!SPI_is_cursor_plan(source_plan))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsst.load: the source query must return rows")));
	if (gsst_citus_distributed(target))
	{
		/* Citus runs the query: it is prepared here, never opened */
		CachedPlanSource *source = linitial(SPI_plan_get_plan_sources(source_plan));
		TupleDesc	source_desc = CreateTupleDescCopy(source->resultDesc);
		char	   *source_text;
		SelectStmt *select = source_select(query, &source_text);
		uint64		rows;

		ec.phase = LOAD_CALL;
		check_source_columns(rel, target_att, ntarget, names != NULL, source_desc);
		learn_before_distributed_load(rel, target_att, source_desc, source_plan, select,
									  source_text);
		rows = load_distributed(rel, target_att, source_desc, select, source_text, &ec);
		relation_close(rel, NoLock);
		error_context_stack = errcallback.previous;
		MemoryContextDelete(cxt);
		SPI_finish();
		PG_RETURN_INT64((int64) rows);
	}
	portal = SPI_cursor_open(NULL, source_plan, NULL, NULL, false);
	ec.phase = LOAD_CALL;

	memset(&lp, 0, sizeof(lp));
	lp.source_desc = CreateTupleDescCopy(portal->tupDesc);
	check_source_columns(rel, target_att, ntarget, names != NULL, lp.source_desc);
	lp.nsource = lp.source_desc->natts;
	lp.source_col = palloc(sizeof(int) * lp.nsource);
	lp.gsst_of_source = palloc(sizeof(int) * lp.nsource);
	lp.columns = palloc0(sizeof(GsstColumn) * lp.nsource);
	lp.may_learn = gsst_learn_sample_bytes > 0;

	lp.batch_desc = CreateTemplateTupleDesc(lp.nsource);
	lp.batch_rows = batch_rows;

	/* INSERT INTO target (cols) SELECT * FROM gsst_load_batch */
	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s (",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												relname));
	for (int i = 0; i < lp.nsource; i++)
		appendStringInfo(&sql, "%s%s", i ? ", " : "",
						 quote_identifier(NameStr(TupleDescAttr(desc, target_att[i])->attname)));
	appendStringInfoString(&sql, ") SELECT * FROM " LOAD_BATCH_RELATION);
	for (int i = 0; i < lp.nsource; i++)
	{
		Form_pg_attribute tatt = TupleDescAttr(desc, target_att[i]);
		Form_pg_attribute satt = TupleDescAttr(lp.source_desc, i);
		Oid			typid = satt->atttypid;
		int32		typmod = satt->atttypmod;

		lp.gsst_of_source[i] = -1;
		if (tatt->atttypid == cat->gsst_type && tatt->atttypmod > 0)
		{
			GsstColumn *gc = &lp.columns[lp.ncolumns];

			gc->name = pstrdup(NameStr(tatt->attname));
			gc->family = tatt->atttypmod;
			gsst_column_resolve(gc, cxt);
			lp.source_col[lp.ncolumns] = i;
			lp.gsst_of_source[i] = lp.ncolumns;
			lp.ncolumns++;
			typid = cat->gsst_type;
			typmod = tatt->atttypmod;
		}
		{
			char		attname[NAMEDATALEN];

			snprintf(attname, sizeof(attname), "c%d", i + 1);
			TupleDescInitEntry(lp.batch_desc, i + 1, attname, typid, typmod, 0);
			TupleDescInitEntryCollation(lp.batch_desc, i + 1, satt->attcollation);
		}
	}
	relation_close(rel, NoLock);

	batch_rel = palloc0(sizeof(EphemeralNamedRelationData));
	batch_rel->md.name = LOAD_BATCH_RELATION;
	batch_rel->md.reliddesc = InvalidOid;
	batch_rel->md.tupdesc = lp.batch_desc;
	batch_rel->md.enrtype = ENR_NAMED_TUPLESTORE;
	batch_rel->md.enrtuples = (double) batch_rows;
	if (SPI_register_relation(batch_rel) != SPI_OK_REL_REGISTER)
		elog(ERROR, "gsst.load: could not register its batch relation");

	ec.insert_sql = sql.data;
	insert_plan = prepare_insert(sql.data);

	/*
	 * The pipeline: batch N goes to the worker, then batch N-1 is inserted,
	 * then batch N+1 is read, then batch N is waited for.
	 */
	for (;;)
	{
		LoadBatch  *current = NULL;

		if (!source_done)
		{
			ec.phase = LOAD_READING;
			ec.first_row = rows_read + 1;
			current = read_load_batch(&lp, portal, cxt, spare, &source_done);
			spare = NULL;
			if (current != NULL)
			{
				current->first_row = rows_read + 1;
				rows_read += current->nrows;
				if (lp.may_learn)
				{
					bool		need_learning = false;

					for (int c = 0; c < lp.ncolumns; c++)
						need_learning |= lp.columns[c].table_id == 0;
					if (need_learning)
						learn_from_first_batch(&lp, current, cxt);
				}
				gsst_batch_submit(current->encode);
				/* as parallel CREATE INDEX: max_parallel_maintenance_workers */
				if (current->encode->request == NULL && current->encode->nparts > 0 &&
					!pool_tried &&
					gsst_batch_raw_bytes(current->encode) >= LOAD_POOL_MIN_BYTES)
				{
					pool = gsst_encode_pool_start(max_parallel_maintenance_workers);
					pool_tried = true;
				}
				if (current->encode->request == NULL && pool != NULL)
					gsst_encode_pool_submit(pool, current->encode);
			}
			ec.phase = LOAD_CALL;
		}
		if (pending != NULL)
		{
			ec.phase = LOAD_BATCH;
			ec.first_row = pending->first_row;
			ec.last_row = pending->first_row + pending->nrows - 1;
			if (pool != NULL)
				gsst_encode_pool_collect(pool, pending->encode);
			gsst_batch_finish(pending->encode);
			total += write_load_batch(&lp, insert_plan, ec.insert_sql, batch_rel, pending);
			ec.phase = LOAD_CALL;
			if (pending->encode->used_worker)
				batches_on_worker++;
			else
				batches_here++;
			release_load_chunks(pending);
			if (spare != NULL)
				gsst_batch_free(spare->encode);
			spare = pending;
		}
		pending = current;
		if (pending == NULL && source_done)
			break;
	}
	error_context_stack = errcallback.previous;

	SPI_cursor_close(portal);
	ereport(DEBUG1,
			(errmsg("gsst.load: %llu rows, %lld batches encoded by the gsst worker, %lld in the backend with %d encoder workers",
					(unsigned long long) total, (long long) batches_on_worker,
					(long long) batches_here, gsst_encode_pool_size(pool))));
	gsst_encode_pool_stop(pool);
	MemoryContextDelete(cxt);
	SPI_finish();
	PG_RETURN_INT64((int64) total);
}
