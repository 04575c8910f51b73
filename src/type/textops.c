/*
 * textops.c - text's pattern operators on a gsst value and a text one:
 * ILIKE, the regular expression matches, ^@ and @@.  The value is decoded
 * and text's own function runs on it with the call's collation, so the
 * answers and errors are text's.
 *
 * The other text functions and operators on gsst are SQL functions that
 * the planner inlines into text's (sql/gsst--1.5.sql says why they exist).
 * These are in C because an operator under ANY or ALL (c ILIKE ANY ($1))
 * is called as it is, never inlined, and a SQL function called for each
 * element costs several times the match itself.
 */
#include "type/type.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

/* text's function fn on the decoded value (argument 0) and argument 1 */
static Datum
call_on_text(PGFunction fn, FunctionCallInfo fcinfo)
{
	struct varlena *value = gsst_detoast_packed(PG_GETARG_DATUM(0));
	text	   *decoded = gsst_value_to_text(value);
	Datum		result;

	result = DirectFunctionCall2Coll(fn, PG_GET_COLLATION(),
									 PointerGetDatum(decoded), PG_GETARG_DATUM(1));
	/* under ANY/ALL this runs once per element within one row's memory */
	if ((struct varlena *) decoded != value)
		pfree(decoded);
	return result;
}

#define GSST_TEXT_OP(name, fn) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	return call_on_text(fn, fcinfo); \
}

GSST_TEXT_OP(gsst_text_iclike, texticlike)
GSST_TEXT_OP(gsst_text_not_iclike, texticnlike)
GSST_TEXT_OP(gsst_text_regex, textregexeq)
GSST_TEXT_OP(gsst_text_not_regex, textregexne)
GSST_TEXT_OP(gsst_text_icregex, texticregexeq)
GSST_TEXT_OP(gsst_text_not_icregex, texticregexne)
GSST_TEXT_OP(gsst_text_starts_with, text_starts_with)
GSST_TEXT_OP(gsst_text_ts_match, ts_match_tt)
GSST_TEXT_OP(gsst_tsquery_ts_match, ts_match_tq)
