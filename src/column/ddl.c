/*
 * ddl.c - maps COMPRESSION gsst onto the gsst type, keeps every family on
 * one column, and guards the extension's own objects.
 *
 * PostgreSQL has no pluggable TOAST compression, so a ProcessUtility_hook
 * rewrites the statements before core sees them:
 *
 *	CREATE TABLE t (c text COMPRESSION gsst)
 *	ALTER TABLE t ADD COLUMN c text COMPRESSION gsst
 *		-> the column is created as gsst(<new family>), no compression clause;
 *	ALTER TABLE t ALTER c SET COMPRESSION gsst
 *		-> ALTER c TYPE gsst(f) USING c::gsst.passthrough::gsst(f), which is a
 *		   binary relabel: no table rewrite.  The column's first table is then
 *		   trained from its existing rows;
 *	ALTER TABLE t ALTER c SET COMPRESSION pglz|lz4|default on a gsst column
 *		-> ALTER c TYPE text (decodes, rewrites), then SET COMPRESSION.
 *
 * A family belongs to one column (family.c).  So a column declared
 * gsst(F), as pg_dump writes it, keeps F only when no other column carries
 * F and no dictionary was stored for it, or when it inherits F from a
 * parent it is created under; otherwise it gets a family of its own, with
 * a NOTICE (a single table restored into another database, or a second
 * time).  Columns that arrive with a family rather than declare one
 * (CREATE TABLE ... LIKE, OF a type, CREATE TABLE AS, SELECT INTO, a
 * partition detached or a child disinherited) get their own family after
 * the statement, by a metadata-only ALTER COLUMN TYPE.  A table attached as
 * a partition or inheritance child takes its parent's families first, so
 * that the types match (pg_dump restores partitions that way).
 *
 * The hook exists only when gsst is in shared_preload_libraries, so that
 * every backend maps the same way.  Otherwise event triggers stop those
 * statements with an error that says what to do.  The event trigger on
 * ddl_command_start also refuses, with or without the hook, to drop the
 * extension while columns of type gsst exist, and to disable or drop the
 * triggers that guard gsst.dictionaries.
 */
#include "type/type.h"
#include "column/column.h"
#include "scaleout/citus.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "commands/sequence.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_type.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

bool		gsst_ddl_hook_active = false;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* Depth of statements the hook runs itself; those are not mapped again. */
static int	internal_depth = 0;

/* A column converted by SET COMPRESSION gsst, to train after the ALTER. */
typedef struct ConvertedColumn
{
	Oid			relid;
	char	   *colname;
	int32		family;
} ConvertedColumn;

/* What a statement maps: the ALTERs it needs before and after it runs. */
typedef struct DdlContext
{
	Oid			relid;			/* relation of ALTER TABLE, or Invalid */
	List	   *parents;		/* relids of CREATE TABLE ... INHERITS */
	List	   *converted;		/* ConvertedColumn: train after the ALTER */
	bool		relabel;		/* a column changes family in place */
} DdlContext;

static bool
is_gsst_method(const char *method)
{
	return method != NULL && strcmp(method, "gsst") == 0;
}

/* Cheap test, no catalog access: is the type spelled "gsst"? */
static bool
typename_says_gsst(const TypeName *tn)
{
	return tn != NULL && tn->names != NIL && tn->arrayBounds == NIL &&
		strcmp(strVal(llast(tn->names)), "gsst") == 0;
}

static TypeName *
gsst_typename(const GsstCatalog *cat, int32 family, int location)
{
	TypeName   *tn = makeTypeNameFromOid(cat->gsst_type, family);

	tn->location = location;
	return tn;
}

/* Only text-like columns can become gsst. */
static void
check_text_type(Oid typid, int32 typmod, const char *colname)
{
	if (typid == TEXTOID || (typid == VARCHAROID && typmod < 0))
		return;
	if (typid == VARCHAROID || typid == BPCHAROID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("compression method gsst does not support type %s of column \"%s\"",
						format_type_with_typemod(typid, typmod), colname),
				 errhint("Use text, with a CHECK constraint on its length if needed.")));
	if (get_typtype(typid) == TYPTYPE_DOMAIN)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("compression method gsst does not support domain %s of column \"%s\"",
						format_type_be(typid), colname)));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("compression method gsst applies to text columns, and column \"%s\" has type %s",
					colname, format_type_with_typemod(typid, typmod))));
}

/* ---- which family a column may have ---- */

/* Is column attnum of relid inherited (not the root of its family)? */
static bool
column_is_inherited(Oid relid, AttrNumber attnum)
{
	HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid),
									  Int16GetDatum(attnum));
	bool		inherited = false;

	if (HeapTupleIsValid(tup))
	{
		inherited = ((Form_pg_attribute) GETSTRUCT(tup))->attinhcount > 0;
		ReleaseSysCache(tup);
	}
	return inherited;
}

/* Does a parent the column is created under have column colname of family? */
static bool
inherited_from_parent(const DdlContext *ctx, const char *colname, int32 family)
{
	const GsstCatalog *cat = gsst_catalog(false);
	ListCell   *lc;

	foreach(lc, ctx->parents)
	{
		Oid			parent = lfirst_oid(lc);
		AttrNumber	attnum = get_attnum(parent, colname);
		Oid			typid;
		int32		typmod;
		Oid			collid;

		if (attnum <= 0)
			continue;
		get_atttypetypmodcoll(parent, attnum, &typid, &typmod, &collid);
		if (typid == cat->gsst_type && typmod == family)
			return true;
	}
	return false;
}

/* The root columns carrying a family, other than (relid, attnum). */
typedef struct RootColumns
{
	int32		family;
	Oid			relid;
	AttrNumber	attnum;
	List	   *relids;
	List	   *attnums;
} RootColumns;

static void
collect_root(const GsstColumnRef *col, void *arg)
{
	RootColumns *rc = (RootColumns *) arg;

	if (col->family != rc->family || !col->root ||
		(col->relid == rc->relid && col->attnum == rc->attnum))
		return;
	rc->relids = lappend_oid(rc->relids, col->relid);
	rc->attnums = lappend_int(rc->attnums, col->attnum);
}

static void set_column_family(Oid relid, AttrNumber attnum, int32 family,
							  const char *queryString);

/*
 * May column colname (of ctx->relid when it exists already) have the
 * family it declares?  Not when another column carries it, nor when
 * dictionaries were stored for it and it is not the column's own: both
 * would hand the column another column's knowledge.
 *
 * One exception keeps a restore's families: a column that this session
 * gave the family only for now (a partition restored before its ATTACH,
 * whose own declared family was taken by its parent), while the family
 * has no dictionary yet, gives it up to the column that declares it, and
 * takes another (only when move_holders).
 */
static bool
family_available(const DdlContext *ctx, const char *colname, int32 family,
				 bool move_holders)
{
	AttrNumber	attnum = OidIsValid(ctx->relid) ? get_attnum(ctx->relid, colname) : 0;
	int32		holders_declared;
	RootColumns rc;
	ListCell   *lc1;
	ListCell   *lc2;

	if (IsBinaryUpgrade)
		return true;			/* pg_upgrade keeps the catalogs as they were */
	if (inherited_from_parent(ctx, colname, family))
		return true;
	if (attnum > 0)
	{
		Oid			typid;
		int32		typmod;
		Oid			collid;

		get_atttypetypmodcoll(ctx->relid, attnum, &typid, &typmod, &collid);
		if (typid == gsst_catalog(false)->gsst_type && typmod == family)
			return true;		/* ALTER TYPE to the family it has */
	}
	if (gsst_family_has_dictionaries(family))
		return false;
	if (!gsst_family_carried(family, InvalidOid, 0))
		return true;
	holders_declared = gsst_family_declared_for(family);
	if (!move_holders || holders_declared == 0)
		return false;

	memset(&rc, 0, sizeof(rc));
	rc.family = family;
	gsst_foreach_family_column(collect_root, &rc);
	forboth(lc1, rc.relids, lc2, rc.attnums)
	{
		int32		other = gsst_next_family();

		set_column_family(lfirst_oid(lc1), (AttrNumber) lfirst_int(lc2), other, "");
		gsst_family_note_remap(holders_declared, other);
	}
	gsst_family_forget_remap(family);
	return true;
}

/* A fresh family for a column that declared one it may not have. */
static int32
replace_family(int32 declared, const char *colname)
{
	int32		family = gsst_next_family();

	gsst_family_note_remap(declared, family);
	ereport(NOTICE,
			(errmsg("column \"%s\" gets gsst family %d: family %d belongs to another column of this database",
					colname, family, declared),
			 errdetail("A family's dictionaries are learned from one column's data; this column learns its own. Attaching its table as a partition or child of that column's table gives it that family back.")));
	return family;
}

/* A family that is in use elsewhere, or none yet: a new one. */
int32
gsst_next_family(void)
{
	const GsstCatalog *cat = gsst_catalog(false);

	for (;;)
	{
		int64		next = nextval_internal(cat->family_seq, false);

		if (next <= 0 || next > PG_INT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("gsst family ids are exhausted")));
		/* a restore may leave the sequence behind the families in use */
		if (!gsst_family_carried((int32) next, InvalidOid, 0) &&
			!gsst_family_has_dictionaries((int32) next))
			return (int32) next;
	}
}

/* CREATE TABLE / ADD COLUMN / ALTER TYPE: the family of a gsst column. */
static void
map_column_def(ColumnDef *def, const char *colname, DdlContext *ctx)
{
	bool		wants_gsst = is_gsst_method(def->compression);
	const GsstCatalog *cat;
	Oid			typid;
	int32		typmod;

	if (!wants_gsst && !typename_says_gsst(def->typeName))
		return;
	if (def->typeName == NULL)
		return;					/* CREATE TABLE ... OF type / PARTITION OF */
	cat = gsst_catalog(!wants_gsst);
	if (cat == NULL)
		return;

	typenameTypeIdAndMod(NULL, def->typeName, &typid, &typmod);
	if (typid == cat->gsst_type)
	{
		if (typmod <= 0)
			def->typeName = gsst_typename(cat, gsst_next_family(),
										  def->typeName->location);
		else if (!family_available(ctx, colname, typmod, true))
			def->typeName = gsst_typename(cat, replace_family(typmod, colname),
										  def->typeName->location);
	}
	else if (wants_gsst)
	{
		check_text_type(typid, typmod, colname);
		def->typeName = gsst_typename(cat, gsst_next_family(),
									  def->typeName->location);
	}
	if (wants_gsst)
		def->compression = NULL;
}

/* ---- ALTER COLUMN TYPE statements the hook runs itself ---- */

static AlterTableCmd *
alter_type_cmd(const char *colname, TypeName *type, Oid collation, Node *using)
{
	AlterTableCmd *cmd = makeNode(AlterTableCmd);
	ColumnDef  *def = makeNode(ColumnDef);

	def->typeName = type;
	def->collOid = collation;	/* keep the column's collation */
	def->raw_default = using;
	def->location = -1;
	cmd->subtype = AT_AlterColumnType;
	cmd->name = pstrdup(colname);
	cmd->def = (Node *) def;
	cmd->behavior = DROP_RESTRICT;
	return cmd;
}

/*
 * Give column attnum of relid family, in place: an ALTER COLUMN TYPE whose
 * coercion is a relabel, so nothing is rewritten.
 */
static void
set_column_family(Oid relid, AttrNumber attnum, int32 family, const char *queryString)
{
	const GsstCatalog *cat = gsst_catalog(false);
	AlterTableStmt *stmt = makeNode(AlterTableStmt);
	PlannedStmt *pstmt = makeNode(PlannedStmt);
	char	   *colname = get_attname(relid, attnum, false);
	Oid			typid;
	int32		typmod;
	Oid			collid;

	get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
	stmt->relation = makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
								  get_rel_name(relid), -1);
	stmt->objtype = get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE ?
		OBJECT_FOREIGN_TABLE : OBJECT_TABLE;
	stmt->cmds = list_make1(alter_type_cmd(colname,
										   makeTypeNameFromOid(cat->gsst_type, family),
										   collid, NULL));
	pstmt->commandType = CMD_UTILITY;
	pstmt->canSetTag = false;
	pstmt->utilityStmt = (Node *) stmt;
	pstmt->stmt_location = -1;
	pstmt->stmt_len = 0;

	internal_depth++;
	gsst_relabel_families = true;
	PG_TRY();
	{
		ProcessUtility(pstmt, queryString, false, PROCESS_UTILITY_SUBCOMMAND,
					   NULL, NULL, None_Receiver, NULL);
	}
	PG_FINALLY();
	{
		gsst_relabel_families = false;
		internal_depth--;
	}
	PG_END_TRY();
	CommandCounterIncrement();
}

/*
 * After a statement that may have copied families (LIKE, OF type, CREATE
 * TABLE AS, DETACH PARTITION, NO INHERIT): every root gsst column of relid
 * that carries a family in use elsewhere gets one of its own.
 */
static void
own_families(Oid relid, const char *queryString)
{
	const GsstCatalog *cat = gsst_catalog(true);
	Relation	rel;
	TupleDesc	desc;
	List	   *attnums = NIL;
	List	   *families = NIL;
	ListCell   *lc1;
	ListCell   *lc2;

	if (cat == NULL || !OidIsValid(relid) || IsBinaryUpgrade)
		return;
	CommandCounterIncrement();
	rel = relation_open(relid, AccessShareLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE &&
		rel->rd_rel->relkind != RELKIND_FOREIGN_TABLE)
	{
		relation_close(rel, AccessShareLock);
		return;
	}
	desc = RelationGetDescr(rel);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || att->atttypid != cat->gsst_type ||
			att->atttypmod <= 0 || att->attinhcount > 0)
			continue;
		if (gsst_family_carried(att->atttypmod, relid, att->attnum) ||
			gsst_family_has_dictionaries(att->atttypmod))
		{
			attnums = lappend_int(attnums, att->attnum);
			families = lappend_int(families, att->atttypmod);
		}
	}
	relation_close(rel, AccessShareLock);

	forboth(lc1, attnums, lc2, families)
	{
		AttrNumber	attnum = (AttrNumber) lfirst_int(lc1);
		int32		family = gsst_next_family();

		if (!gsst_ddl_hook_active)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("column \"%s\" of relation \"%s\" would share gsst family %d with another column",
							get_attname(relid, attnum, false), get_rel_name(relid),
							lfirst_int(lc2)),
					 errhint("Add gsst to shared_preload_libraries, so that such a column gets a family of its own.")));
		ereport(NOTICE,
				(errmsg("column \"%s\" of relation \"%s\" gets gsst family %d of its own",
						get_attname(relid, attnum, false), get_rel_name(relid), family),
				 errdetail("Family %d belongs to another column; this column learns its own dictionary.",
						   lfirst_int(lc2))));
		set_column_family(relid, attnum, family, queryString);
	}
}

/*
 * ATTACH PARTITION / INHERIT: the child's gsst columns take the parent's
 * families, as the types must match.  Only for a role that owns both
 * tables (core checks that too, and refuses otherwise).
 */
static void
take_parent_families(Oid parent, Oid child, const char *queryString)
{
	const GsstCatalog *cat = gsst_catalog(true);
	Relation	prel;
	TupleDesc	desc;
	List	   *names = NIL;
	List	   *families = NIL;
	ListCell   *lc1;
	ListCell   *lc2;

	if (cat == NULL || !OidIsValid(parent) || !OidIsValid(child) || IsBinaryUpgrade ||
		!gsst_owns_relation(parent, GetUserId()) ||
		!gsst_owns_relation(child, GetUserId()))
		return;
	prel = relation_open(parent, AccessShareLock);
	desc = RelationGetDescr(prel);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		AttrNumber	childatt;
		Oid			typid;
		int32		typmod;
		Oid			collid;

		if (att->attisdropped || att->atttypid != cat->gsst_type || att->atttypmod <= 0)
			continue;
		childatt = get_attnum(child, NameStr(att->attname));
		if (childatt <= 0)
			continue;
		get_atttypetypmodcoll(child, childatt, &typid, &typmod, &collid);
		if (typid == cat->gsst_type && typmod != att->atttypmod)
		{
			names = lappend(names, pstrdup(NameStr(att->attname)));
			families = lappend_int(families, att->atttypmod);
		}
	}
	relation_close(prel, AccessShareLock);

	forboth(lc1, names, lc2, families)
	{
		AttrNumber	attnum = get_attnum(child, (char *) lfirst(lc1));
		Oid			typid;
		int32		typmod;
		Oid			collid;

		/* a restored partition got its own family first: that is settled now */
		get_atttypetypmodcoll(child, attnum, &typid, &typmod, &collid);
		gsst_family_forget_remap(typmod);
		set_column_family(child, attnum, lfirst_int(lc2), queryString);
	}
}

/* ---- SET COMPRESSION ---- */

/* c::gsst.passthrough::gsst(family), a chain of binary relabels. */
static Node *
relabel_expression(const GsstCatalog *cat, const char *colname, int32 family)
{
	ColumnRef  *col = makeNode(ColumnRef);
	TypeCast   *to_passthrough = makeNode(TypeCast);
	TypeCast   *to_gsst = makeNode(TypeCast);

	col->fields = list_make1(makeString(pstrdup(colname)));
	col->location = -1;
	to_passthrough->arg = (Node *) col;
	to_passthrough->typeName = makeTypeNameFromOid(cat->passthrough_type, -1);
	to_passthrough->location = -1;
	to_gsst->arg = (Node *) to_passthrough;
	to_gsst->typeName = makeTypeNameFromOid(cat->gsst_type, family);
	to_gsst->location = -1;
	return (Node *) to_gsst;
}

/*
 * ALTER c SET COMPRESSION m.  Returns the commands that replace it, and
 * appends a ConvertedColumn when the column becomes gsst (or takes a
 * family of its own) without rewrite.
 */
static List *
map_set_compression(AlterTableStmt *stmt, AlterTableCmd *cmd, DdlContext *ctx)
{
	const char *method = strVal(cmd->def);
	bool		wants_gsst = is_gsst_method(method);
	const GsstCatalog *cat = gsst_catalog(!wants_gsst);
	Oid			relid;
	AttrNumber	attnum;
	Oid			typid;
	int32		typmod;
	Oid			collid;
	ConvertedColumn *conv;

	if (cat == NULL)
		return list_make1(cmd);
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid))
		return list_make1(cmd); /* core reports it */
	attnum = get_attnum(relid, cmd->name);
	if (attnum <= 0)
		return list_make1(cmd);
	get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);

	if (!wants_gsst)
	{
		if (typid != cat->gsst_type)
			return list_make1(cmd);
		/* back to text: decode every row, then apply the method */
		return list_make2(alter_type_cmd(cmd->name,
										 makeTypeNameFromOid(TEXTOID, -1),
										 collid, NULL),
						  cmd);
	}

	if (typid == cat->gsst_type && typmod > 0)
	{
		/* a family another column carries too: this one takes its own */
		if (!gsst_family_shared(typmod, relid, attnum) ||
			column_is_inherited(relid, attnum))
		{
			ereport(NOTICE,
					(errmsg("column \"%s\" already uses compression method gsst",
							cmd->name)));
			return NIL;
		}
		ctx->relabel = true;
	}
	if (typid != cat->gsst_type)
		check_text_type(typid, typmod, cmd->name);

	conv = palloc(sizeof(ConvertedColumn));
	conv->relid = relid;
	conv->colname = pstrdup(cmd->name);
	conv->family = gsst_next_family();
	ctx->converted = lappend(ctx->converted, conv);
	/*
	 * A gsst column needs no USING: its coercion to gsst(family) is
	 * relabelled while ctx->relabel holds (gsst_relabel_families).
	 */
	return list_make1(alter_type_cmd(cmd->name,
									 makeTypeNameFromOid(cat->gsst_type, conv->family),
									 collid,
									 typid == cat->gsst_type ? NULL :
									 relabel_expression(cat, cmd->name, conv->family)));
}

/* ---- the hook ---- */

static bool
column_defs_may_need_mapping(List *elts)
{
	ListCell   *lc;

	foreach(lc, elts)
	{
		ColumnDef  *def = (ColumnDef *) lfirst(lc);

		if (IsA(def, ColumnDef) &&
			(is_gsst_method(def->compression) || typename_says_gsst(def->typeName)))
			return true;
	}
	return false;
}

static bool
has_like_clause(List *elts)
{
	ListCell   *lc;

	foreach(lc, elts)
		if (IsA(lfirst(lc), TableLikeClause))
			return true;
	return false;
}

/* The CreateStmt inside CREATE TABLE and CREATE FOREIGN TABLE. */
static CreateStmt *
create_stmt_of(Node *parsetree)
{
	if (IsA(parsetree, CreateStmt))
		return (CreateStmt *) parsetree;
	if (IsA(parsetree, CreateForeignTableStmt))
		return &((CreateForeignTableStmt *) parsetree)->base;
	return NULL;
}

static bool
statement_may_need_mapping(Node *parsetree)
{
	CreateStmt *create = create_stmt_of(parsetree);
	ListCell   *lc;

	if (create != NULL)
		return column_defs_may_need_mapping(create->tableElts) ||
			has_like_clause(create->tableElts) || create->ofTypename != NULL;
	if (IsA(parsetree, CreateTableAsStmt))
		return ((CreateTableAsStmt *) parsetree)->objtype == OBJECT_TABLE;
	if (IsA(parsetree, AlterTableStmt))
	{
		foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);
			ColumnDef  *def = (ColumnDef *) cmd->def;

			switch (cmd->subtype)
			{
				case AT_SetCompression:
				case AT_AttachPartition:
				case AT_DetachPartition:
				case AT_DetachPartitionFinalize:
				case AT_AddInherit:
				case AT_DropInherit:
					return true;
				case AT_AddColumn:
				case AT_AlterColumnType:
					if (def && IsA(def, ColumnDef) &&
						(is_gsst_method(def->compression) || typename_says_gsst(def->typeName)))
						return true;
					break;
				default:
					break;
			}
		}
	}
	return false;
}

static void
map_create(CreateStmt *stmt, DdlContext *ctx)
{
	ListCell   *lc;

	foreach(lc, stmt->inhRelations)
	{
		Oid			parent = RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, true);

		if (OidIsValid(parent))
			ctx->parents = lappend_oid(ctx->parents, parent);
	}
	foreach(lc, stmt->tableElts)
	{
		if (IsA(lfirst(lc), ColumnDef))
			map_column_def((ColumnDef *) lfirst(lc), ((ColumnDef *) lfirst(lc))->colname, ctx);
	}
}

static void
map_alter(AlterTableStmt *stmt, DdlContext *ctx, const char *queryString)
{
	List	   *cmds = NIL;
	ListCell   *lc;

	ctx->relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

		if (cmd->subtype == AT_SetCompression && stmt->objtype == OBJECT_TABLE)
		{
			cmds = list_concat(cmds, map_set_compression(stmt, cmd, ctx));
			continue;
		}
		if ((cmd->subtype == AT_AddColumn || cmd->subtype == AT_AlterColumnType) &&
			cmd->def && IsA(cmd->def, ColumnDef))
		{
			ColumnDef  *def = (ColumnDef *) cmd->def;

			/* ALTER c TYPE gsst has no colname in its ColumnDef */
			map_column_def(def, def->colname ? def->colname : cmd->name, ctx);
		}
		else if (cmd->subtype == AT_AttachPartition)
			take_parent_families(ctx->relid,
								 RangeVarGetRelid(((PartitionCmd *) cmd->def)->name, NoLock, true),
								 queryString);
		else if (cmd->subtype == AT_AddInherit)
			take_parent_families(RangeVarGetRelid((RangeVar *) cmd->def, NoLock, true),
								 ctx->relid, queryString);
		cmds = lappend(cmds, cmd);
	}
	stmt->cmds = cmds;
}

/*
 * The tables whose columns may carry a copied family once the statement
 * ran, as RangeVars copied before it runs (transforming a statement
 * rewrites its tree in place).
 */
static List *
copied_family_targets(Node *parsetree)
{
	CreateStmt *create = create_stmt_of(parsetree);
	List	   *targets = NIL;
	ListCell   *lc;

	if (create != NULL)
	{
		if (has_like_clause(create->tableElts) || create->ofTypename != NULL)
			targets = lappend(targets, copyObject(create->relation));
	}
	else if (IsA(parsetree, CreateTableAsStmt))
	{
		CreateTableAsStmt *ctas = (CreateTableAsStmt *) parsetree;

		if (ctas->objtype == OBJECT_TABLE)
			targets = lappend(targets, copyObject(ctas->into->rel));
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;

		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

			if (cmd->subtype == AT_DetachPartition ||
				cmd->subtype == AT_DetachPartitionFinalize)
				targets = lappend(targets, copyObject(((PartitionCmd *) cmd->def)->name));
			else if (cmd->subtype == AT_DropInherit)
				targets = lappend(targets, copyObject(stmt->relation));
		}
	}
	return targets;
}

/* After the statement: give the targets' copied families up. */
static void
settle_families(List *targets, const char *queryString)
{
	ListCell   *lc;

	foreach(lc, targets)
		own_families(RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, true), queryString);
}

static void
train_converted(List *converted)
{
	ListCell   *lc;

	foreach(lc, converted)
	{
		ConvertedColumn *conv = (ConvertedColumn *) lfirst(lc);

		/*
		 * A Citus table's rows are in its shards, which learned from them
		 * as Citus converted each: the shell has nothing to learn from.
		 */
		if (gsst_citus_distributed(conv->relid))
			gsst_citus_report_learned(conv->relid, conv->colname);
		else
			gsst_train_column(conv->relid, conv->colname, conv->family, false);
	}
}

/* Run the statement further down the hooks, relabelling families if asked. */
static void
run_statement(PlannedStmt *pstmt, const char *queryString,
			  bool readOnlyTree, ProcessUtilityContext context,
			  ParamListInfo params, QueryEnvironment *queryEnv,
			  DestReceiver *dest, QueryCompletion *qc, bool relabel)
{
	if (relabel)
		gsst_relabel_families = true;
	PG_TRY();
	{
		if (prev_ProcessUtility)
			prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		if (relabel)
			gsst_relabel_families = false;
	}
	PG_END_TRY();
}

static void
gsst_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	DdlContext	ctx;
	bool		mapped = false;
	List	   *targets = NIL;

	memset(&ctx, 0, sizeof(ctx));
	if (internal_depth == 0 && statement_may_need_mapping(pstmt->utilityStmt) &&
		gsst_catalog(true) != NULL)
	{
		Node	   *tree;

		if (readOnlyTree)
		{
			pstmt = copyObject(pstmt);
			readOnlyTree = false;
		}
		tree = pstmt->utilityStmt;
		mapped = true;
		targets = copied_family_targets(tree);
		if (create_stmt_of(tree) != NULL)
			map_create(create_stmt_of(tree), &ctx);
		else if (IsA(tree, AlterTableStmt))
		{
			map_alter((AlterTableStmt *) tree, &ctx, queryString);
			if (((AlterTableStmt *) tree)->cmds == NIL)
			{
				/* every command was a no-op */
				if (qc)
					SetQueryCompletion(qc, CMDTAG_ALTER_TABLE, 0);
				return;
			}
		}
	}

	run_statement(pstmt, queryString, readOnlyTree, context, params, queryEnv,
				  dest, qc, ctx.relabel);

	if (mapped)
	{
		settle_families(targets, queryString);
		if (ctx.converted != NIL)
			train_converted(ctx.converted);
		if (IsA(pstmt->utilityStmt, CreateStmt))
			gsst_citus_seed_shard(RangeVarGetRelid(((CreateStmt *) pstmt->utilityStmt)->relation,
												   NoLock, true));
	}
}

/* ---- event triggers: without the hook, and guards ---- */

/* Columns of type gsst (or its array, or a domain over it), for messages. */
static int
list_gsst_columns(StringInfo out, int max)
{
	const GsstCatalog *cat = gsst_catalog(false);
	Oid			types[2] = {cat->gsst_type, get_array_type(cat->gsst_type)};
	Relation	dep = table_open(DependRelationId, AccessShareLock);
	int			n = 0;

	for (int t = 0; t < 2; t++)
	{
		SysScanDesc scan;
		ScanKeyData key[2];
		HeapTuple	tup;

		if (!OidIsValid(types[t]))
			continue;
		ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(TypeRelationId));
		ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(types[t]));
		scan = systable_beginscan(dep, DependReferenceIndexId, true, NULL, 2, key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);
			char	   *what = NULL;

			if (d->classid == RelationRelationId && d->objsubid > 0 &&
				get_rel_relkind(d->objid) != RELKIND_INDEX &&
				get_rel_relkind(d->objid) != RELKIND_PARTITIONED_INDEX &&
				get_attname(d->objid, (AttrNumber) d->objsubid, true) != NULL)
				what = psprintf("%s.%s",
								quote_qualified_identifier(get_namespace_name(get_rel_namespace(d->objid)),
														   get_rel_name(d->objid)),
								quote_identifier(get_attname(d->objid, (AttrNumber) d->objsubid, false)));
				else if (d->classid == TypeRelationId && d->objid != types[1] &&
					 get_typtype(d->objid) == TYPTYPE_DOMAIN)
				what = psprintf("domain %s", format_type_be_qualified(d->objid));
			if (what == NULL)
				continue;
			if (n < max)
				appendStringInfo(out, "%s%s", n ? ", " : "", what);
			n++;
		}
		systable_endscan(scan);
	}
	table_close(dep, AccessShareLock);
	if (n > max)
		appendStringInfo(out, " and %d more", n - max);
	return n;
}

/* DROP EXTENSION gsst (or of its schema, CASCADE) while gsst columns exist. */
static void
check_drop(DropStmt *stmt)
{
	const GsstCatalog *cat = gsst_catalog(true);
	bool		drops_gsst = false;
	ListCell   *lc;
	StringInfoData cols;

	if (cat == NULL)
		return;
	if (stmt->removeType == OBJECT_EXTENSION)
	{
		foreach(lc, stmt->objects)
			if (strcmp(strVal(lfirst(lc)), "gsst") == 0)
				drops_gsst = true;
	}
	else if (stmt->removeType == OBJECT_SCHEMA && stmt->behavior == DROP_CASCADE)
	{
		HeapTuple	typtup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(cat->gsst_type));
		Oid			type_nsp;

		if (!HeapTupleIsValid(typtup))
			return;
		type_nsp = ((Form_pg_type) GETSTRUCT(typtup))->typnamespace;
		ReleaseSysCache(typtup);

		foreach(lc, stmt->objects)
			if (get_namespace_oid(strVal(lfirst(lc)), true) == type_nsp)
				drops_gsst = true;
	}
	else if (stmt->removeType == OBJECT_TRIGGER)
	{
		foreach(lc, stmt->objects)
		{
			List	   *names = (List *) lfirst(lc);
			RangeVar   *rv = makeRangeVarFromNameList(list_truncate(list_copy(names),
																	list_length(names) - 1));

			if (RangeVarGetRelid(rv, NoLock, true) == cat->dictionaries)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("the triggers of gsst.dictionaries cannot be dropped"),
						 errdetail("They keep the dictionaries that stored values refer to from being changed or deleted.")));
		}
		return;
	}
	if (!drops_gsst)
		return;
	initStringInfo(&cols);
	if (list_gsst_columns(&cols, 10) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 errmsg("cannot drop extension gsst because columns of type gsst exist"),
				 errdetail("Dropping it would drop these columns and every value in them: %s.", cols.data),
				 errhint("Convert each column back to text first: ALTER TABLE ... ALTER COLUMN ... SET COMPRESSION pglz (or ... TYPE text).")));
}

/* ALTER TABLE gsst.dictionaries ENABLE/DISABLE TRIGGER: only ENABLE ALWAYS. */
static void
check_trigger_state(AlterTableStmt *stmt)
{
	const GsstCatalog *cat = gsst_catalog(true);
	ListCell   *lc;

	if (cat == NULL || RangeVarGetRelid(stmt->relation, NoLock, true) != cat->dictionaries)
		return;
	foreach(lc, stmt->cmds)
	{
		switch (((AlterTableCmd *) lfirst(lc))->subtype)
		{
			case AT_EnableTrig:
			case AT_EnableReplicaTrig:
			case AT_DisableTrig:
			case AT_EnableTrigAll:
			case AT_DisableTrigAll:
			case AT_EnableTrigUser:
			case AT_DisableTrigUser:
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("the triggers of gsst.dictionaries stay enabled always"),
						 errdetail("They keep the dictionaries that stored values refer to from being changed or deleted, even under session_replication_role = replica.")));
				break;
			default:
				break;
		}
	}
}

/* Without the hook, would this statement need it? */
static bool
statement_needs_hook(Node *parsetree)
{
	CreateStmt *create = create_stmt_of(parsetree);
	ListCell   *lc;
	const GsstCatalog *cat = gsst_catalog(true);
	DdlContext	ctx;

	memset(&ctx, 0, sizeof(ctx));
	if (create != NULL)
	{
		foreach(lc, create->inhRelations)
		{
			Oid			parent = RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, true);

			if (OidIsValid(parent))
				ctx.parents = lappend_oid(ctx.parents, parent);
		}
		foreach(lc, create->tableElts)
		{
			ColumnDef  *def = (ColumnDef *) lfirst(lc);
			Oid			typid;
			int32		typmod;

			if (!IsA(def, ColumnDef))
				continue;
			if (is_gsst_method(def->compression))
				return true;
			if (cat != NULL && typename_says_gsst(def->typeName))
			{
				typenameTypeIdAndMod(NULL, def->typeName, &typid, &typmod);
				if (typid == cat->gsst_type && typmod > 0 &&
					!family_available(&ctx, def->colname, typmod, false))
					return true;
			}
		}
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;

		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

			if (cmd->subtype == AT_AddColumn && IsA(cmd->def, ColumnDef) &&
				is_gsst_method(((ColumnDef *) cmd->def)->compression))
				return true;
			if (cmd->subtype == AT_SetCompression)
			{
				Oid			relid;
				AttrNumber	attnum;

				if (is_gsst_method(strVal(cmd->def)))
					return true;
				relid = RangeVarGetRelid(stmt->relation, NoLock, true);
				if (cat == NULL || !OidIsValid(relid))
					continue;
				attnum = get_attnum(relid, cmd->name);
				if (attnum > 0 && get_atttype(relid, attnum) == cat->gsst_type)
					return true;
			}
		}
	}
	return false;
}

/* Without the hook: tables to check at ddl_command_end, from its start. */
static List *pending_targets = NIL;

PG_FUNCTION_INFO_V1(gsst_ddl_guard);
Datum
gsst_ddl_guard(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	Node	   *tree;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gsst.ddl_guard() must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	tree = trigdata->parsetree;

	/* without the hook, a copied family cannot be replaced: refuse it */
	if (strcmp(trigdata->event, "ddl_command_end") == 0)
	{
		List	   *targets = pending_targets;

		pending_targets = NIL;
		if (!gsst_ddl_hook_active && !creating_extension)
			settle_families(targets, "");
		PG_RETURN_NULL();
	}
	if (!gsst_ddl_hook_active)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		pending_targets = copied_family_targets(tree);
		MemoryContextSwitchTo(old);
	}

	if (IsA(tree, DropStmt))
		check_drop((DropStmt *) tree);
	else if (IsA(tree, AlterTableStmt))
		check_trigger_state((AlterTableStmt *) tree);
	if (!gsst_ddl_hook_active && statement_needs_hook(tree))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("compression method gsst needs gsst in shared_preload_libraries"),
				 errhint("Add gsst to shared_preload_libraries in postgresql.conf and restart the server.")));
	PG_RETURN_NULL();
}

void
gsst_ddl_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = gsst_ProcessUtility;
	gsst_ddl_hook_active = true;
}
