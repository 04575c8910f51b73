/*
 * ddl.c - maps COMPRESSION gsst onto the gsst type.
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
 * A gsst column declared without a family (c gsst) gets one as well.
 *
 * The hook exists only when gsst is in shared_preload_libraries, so that
 * every backend maps the same way.  Otherwise an event trigger (gsst.ddl_guard)
 * stops those statements with an error that says what to do.
 */
#include "gsst.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_type.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

bool		gsst_ddl_hook_active = false;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* A column converted by SET COMPRESSION gsst, to train after the ALTER. */
typedef struct ConvertedColumn
{
	Oid			relid;
	char	   *colname;
	int32		family;
} ConvertedColumn;

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

static const GsstCatalog *
require_extension(void)
{
	return gsst_catalog(false);
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

/* CREATE TABLE / ADD COLUMN: text COMPRESSION gsst -> gsst(family). */
static void
map_column_def(ColumnDef *def)
{
	bool		wants_gsst = is_gsst_method(def->compression);
	const GsstCatalog *cat;
	Oid			typid;
	int32		typmod;

	if (!wants_gsst && !typename_says_gsst(def->typeName))
		return;
	if (def->typeName == NULL)
		return;					/* CREATE TABLE ... OF type / PARTITION OF */
	cat = wants_gsst ? require_extension() : gsst_catalog(true);
	if (cat == NULL)
		return;

	typenameTypeIdAndMod(NULL, def->typeName, &typid, &typmod);
	if (typid == cat->gsst_type)
	{
		if (typmod <= 0)
			def->typeName = gsst_typename(cat, gsst_next_family(),
										  def->typeName->location);
	}
	else if (wants_gsst)
	{
		check_text_type(typid, typmod, def->colname);
		def->typeName = gsst_typename(cat, gsst_next_family(),
									  def->typeName->location);
	}
	if (wants_gsst)
		def->compression = NULL;
}

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
 * ALTER c SET COMPRESSION m.  Returns the commands that replace it, and
 * appends a ConvertedColumn when the column becomes gsst without rewrite.
 */
static List *
map_set_compression(AlterTableStmt *stmt, AlterTableCmd *cmd, List **converted)
{
	const char *method = strVal(cmd->def);
	bool		wants_gsst = is_gsst_method(method);
	const GsstCatalog *cat = wants_gsst ? require_extension() : gsst_catalog(true);
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
		ereport(NOTICE,
				(errmsg("column \"%s\" already uses compression method gsst",
						cmd->name)));
		return NIL;
	}
	if (typid != cat->gsst_type)
		check_text_type(typid, typmod, cmd->name);

	conv = palloc(sizeof(ConvertedColumn));
	conv->relid = relid;
	conv->colname = pstrdup(cmd->name);
	conv->family = gsst_next_family();
	*converted = lappend(*converted, conv);
	return list_make1(alter_type_cmd(cmd->name,
									 makeTypeNameFromOid(cat->gsst_type, conv->family),
									 collid,
									 relabel_expression(cat, cmd->name, conv->family)));
}

static bool
statement_may_need_mapping(Node *parsetree)
{
	ListCell   *lc;

	if (IsA(parsetree, CreateStmt))
	{
		foreach(lc, ((CreateStmt *) parsetree)->tableElts)
		{
			ColumnDef  *def = (ColumnDef *) lfirst(lc);

			if (IsA(def, ColumnDef) &&
				(is_gsst_method(def->compression) || typename_says_gsst(def->typeName)))
				return true;
		}
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);
			ColumnDef  *def = (ColumnDef *) cmd->def;

			if (cmd->subtype == AT_SetCompression)
				return true;
			if ((cmd->subtype == AT_AddColumn || cmd->subtype == AT_AlterColumnType) &&
				def && IsA(def, ColumnDef) &&
				(is_gsst_method(def->compression) || typename_says_gsst(def->typeName)))
				return true;
		}
	}
	return false;
}

static void
map_statement(Node *parsetree, List **converted)
{
	ListCell   *lc;

	if (IsA(parsetree, CreateStmt))
	{
		foreach(lc, ((CreateStmt *) parsetree)->tableElts)
		{
			if (IsA(lfirst(lc), ColumnDef))
				map_column_def((ColumnDef *) lfirst(lc));
		}
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
		List	   *cmds = NIL;

		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

			if (cmd->subtype == AT_SetCompression && stmt->objtype == OBJECT_TABLE)
				cmds = list_concat(cmds, map_set_compression(stmt, cmd, converted));
			else
			{
				if ((cmd->subtype == AT_AddColumn || cmd->subtype == AT_AlterColumnType) &&
					cmd->def && IsA(cmd->def, ColumnDef))
				{
					ColumnDef  *def = (ColumnDef *) cmd->def;

					/* ALTER c TYPE gsst has no colname in its ColumnDef */
					if (def->colname == NULL && cmd->name)
					{
						def->colname = cmd->name;
						map_column_def(def);
						def->colname = NULL;
					}
					else
						map_column_def(def);
				}
				cmds = lappend(cmds, cmd);
			}
		}
		stmt->cmds = cmds;
	}
}

static void
train_converted(List *converted)
{
	ListCell   *lc;

	foreach(lc, converted)
	{
		ConvertedColumn *conv = (ConvertedColumn *) lfirst(lc);

		gsst_train_column(conv->relid, conv->colname, conv->family, false);
	}
}

static void
gsst_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	List	   *converted = NIL;

	if (statement_may_need_mapping(pstmt->utilityStmt))
	{
		if (readOnlyTree)
		{
			pstmt = copyObject(pstmt);
			readOnlyTree = false;
		}
		map_statement(pstmt->utilityStmt, &converted);
		if (IsA(pstmt->utilityStmt, AlterTableStmt) &&
			((AlterTableStmt *) pstmt->utilityStmt)->cmds == NIL)
		{
			/* every command was a no-op */
			if (qc)
				SetQueryCompletion(qc, CMDTAG_ALTER_TABLE, 0);
			return;
		}
	}

	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
							params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);

	if (converted != NIL)
		train_converted(converted);
}

/*
 * Without the hook, COMPRESSION gsst would either fail with core's
 * "invalid compression method" or, on a gsst column, silently do nothing.
 * This event trigger (ddl_command_start on CREATE/ALTER TABLE) says why.
 */
static bool
statement_needs_hook(Node *parsetree)
{
	ListCell   *lc;
	const GsstCatalog *cat;

	if (IsA(parsetree, CreateStmt))
	{
		foreach(lc, ((CreateStmt *) parsetree)->tableElts)
		{
			ColumnDef  *def = (ColumnDef *) lfirst(lc);

			if (IsA(def, ColumnDef) && is_gsst_method(def->compression))
				return true;
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
				cat = gsst_catalog(true);
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

PG_FUNCTION_INFO_V1(gsst_ddl_guard);
Datum
gsst_ddl_guard(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gsst.ddl_guard() must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	if (!gsst_ddl_hook_active && statement_needs_hook(trigdata->parsetree))
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
