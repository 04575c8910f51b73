/*
 * like.c - c LIKE pattern and c NOT LIKE pattern on gsst, and the planner
 * support that gives such a clause the index conditions text gets.
 *
 * A pattern is read once per call site (fn_extra) while it stays the same.
 * Under a deterministic collation, in UTF-8 or a single-byte encoding (so
 * that a byte match is a character match), three shapes skip text's
 * matcher: a literal alone is equality, a literal then '%' compares the
 * value's first bytes only (most values are decided by their first code,
 * through a table per dictionary of what each code says; the others by
 * gsst_view_order, which stops at the first difference or at the literal's
 * end), and '%' literal '%' searches the decoded bytes.
 * Any other pattern, encoding or collation calls text's like on the value
 * decoded into a buffer kept in fn_extra; text's function then also gives
 * its errors (a pattern ending in the escape, nondeterministic collations
 * before PostgreSQL 18).
 */
#include "type/type.h"

#include "access/stratnum.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

typedef enum LikeShape
{
	LIKE_OTHER,					/* text's matcher */
	LIKE_EXACT,					/* literal */
	LIKE_PREFIX,				/* literal%... */
	LIKE_CONTAINS,				/* %...literal%... */
	LIKE_ANY					/* %... */
} LikeShape;

/* Dictionaries whose first-code verdicts a call site keeps. */
#define LIKE_VERDICT_TABLES 4

/* State of one call site, in fn_extra. */
typedef struct LikeState
{
	MemoryContext cxt;
	Oid			collid;
	bool		bytewise;		/* the shapes above apply */
	char	   *pattern;		/* the pattern last read */
	Size		plen;
	LikeShape	shape;
	char	   *literal;		/* its literal, escapes removed; 8 zero bytes after */
	Size		llen;
	/* LIKE_PREFIX: what a value's first code says, per dictionary */
	int			nverdicts;
	int			last_verdict;
	uint32		verdict_table[LIKE_VERDICT_TABLES];
	int8		verdict[LIKE_VERDICT_TABLES][256];
	GsstBuffer	buf;
} LikeState;

/*
 * The shape of a LIKE pattern with the default escape, and its literal
 * (into literal, room for plen bytes).  Only for UTF-8 and single-byte
 * encodings, where '%', '_' and '\' bytes are those characters.
 */
static LikeShape
pattern_shape(const char *p, Size plen, char *literal, Size *llen)
{
	Size		i = 0;
	Size		n = 0;
	bool		lead = false;
	bool		trail = false;

	while (i < plen && p[i] == '%')
		lead = true, i++;
	while (i < plen)
	{
		char		c = p[i];

		if (c == '_')
			return LIKE_OTHER;
		if (c == '%')
			break;
		if (c == '\\')
		{
			/* text's matcher raises the error for a trailing escape */
			if (i + 1 == plen)
				return LIKE_OTHER;
			c = p[++i];
		}
		literal[n++] = c;
		i++;
	}
	while (i < plen && p[i] == '%')
		trail = true, i++;
	if (i < plen)
		return LIKE_OTHER;
	*llen = n;
	if (n == 0)
		return lead || trail ? LIKE_ANY : LIKE_EXACT;
	if (!lead)
		return trail ? LIKE_PREFIX : LIKE_EXACT;
	return trail ? LIKE_CONTAINS : LIKE_OTHER;
}

static bool
bytewise_encoding(void)
{
	return GetDatabaseEncoding() == PG_UTF8 || pg_database_encoding_max_length() == 1;
}

static LikeState *
like_state(FunctionCallInfo fcinfo, text *pattern)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	LikeState  *st = flinfo ? (LikeState *) flinfo->fn_extra : NULL;
	const char *p = VARDATA_ANY(pattern);
	Size		plen = VARSIZE_ANY_EXHDR(pattern);
	Oid			collid = PG_GET_COLLATION();

	if (flinfo == NULL)
		return NULL;
	if (st == NULL)
	{
		st = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(LikeState));
		st->cxt = flinfo->fn_mcxt;
		st->buf.cxt = st->cxt;
		st->collid = InvalidOid;
		flinfo->fn_extra = st;
	}
	if (st->pattern != NULL && st->collid == collid && st->plen == plen &&
		memcmp(st->pattern, p, plen) == 0)
		return st;

	if (st->pattern)
		pfree(st->pattern);
	if (st->literal)
		pfree(st->literal);
	st->pattern = MemoryContextAlloc(st->cxt, plen + 1);
	memcpy(st->pattern, p, plen);
	st->plen = plen;
	st->literal = MemoryContextAllocZero(st->cxt, plen + 8);
	st->collid = collid;
	st->bytewise = OidIsValid(collid) && get_collation_isdeterministic(collid) &&
		bytewise_encoding();
	st->shape = st->bytewise ? pattern_shape(p, plen, st->literal, &st->llen) : LIKE_OTHER;
	st->nverdicts = 0;
	st->last_verdict = 0;
	return st;
}

/*
 * The first-code verdicts of the literal for a dictionary (ids name one
 * table for ever), made on first sight; the oldest of a full set goes.
 */
static const int8 *
first_code_verdicts(LikeState *st, const GsstView *view)
{
	int			i = st->last_verdict;

	if (i < st->nverdicts && st->verdict_table[i] == view->table_id)
		return st->verdict[i];
	for (i = 0; i < st->nverdicts; i++)
		if (st->verdict_table[i] == view->table_id)
			break;
	if (i == st->nverdicts)
	{
		if (st->nverdicts < LIKE_VERDICT_TABLES)
			st->nverdicts++;
		else
			i = (st->last_verdict + 1) % LIKE_VERDICT_TABLES;
		st->verdict_table[i] = view->table_id;
		gsst_first_code_verdicts(view->table, (const uint8 *) st->literal, st->llen,
								 st->verdict[i]);
	}
	st->last_verdict = i;
	return st->verdict[i];
}

static bool
value_like(FunctionCallInfo fcinfo)
{
	Datum		d = PG_GETARG_DATUM(0);
	struct varlena *v = gsst_detoast_packed(d);
	text	   *pattern = (text *) gsst_detoast_packed(PG_GETARG_DATUM(1));
	LikeState  *st = like_state(fcinfo, pattern);
	GsstBuffer	local = GSST_BUFFER_INIT;
	GsstBuffer *buf = st ? &st->buf : &local;
	GsstView	view;
	GsstView	lit;
	bool		result;

	if (st)
	{
		lit.table = NULL;
		lit.data = (const uint8 *) st->literal;
		lit.len = st->llen;
		lit.padded = true;
	}
	switch (st ? st->shape : LIKE_OTHER)
	{
		case LIKE_ANY:
			result = true;
			break;
		case LIKE_EXACT:
			gsst_value_view(v, &view);
			result = gsst_view_order(&view, &lit) == GSST_ORDER_EQUAL;
			break;
		case LIKE_PREFIX:
			{
				int			order = GSST_FIRST_UNKNOWN;

				gsst_value_view(v, &view);
				/* most values are decided by their first code */
				if (view.table != NULL && view.len > 0)
					order = first_code_verdicts(st, &view)[view.data[0]];
				if (order == GSST_FIRST_UNKNOWN)
				{
					order = gsst_view_order(&view, &lit);
					result = order == GSST_ORDER_EQUAL || order == GSST_ORDER_HAS_PREFIX;
				}
				else
					result = order == GSST_FIRST_STARTS_WITH;
				break;
			}
		case LIKE_CONTAINS:
			{
				Size		len;
				const char *bytes = gsst_value_bytes(v, &len, buf);

				result = memmem(bytes, len, st->literal, st->llen) != NULL;
				break;
			}
		default:
			{
				Size		len;
				const char *bytes = gsst_value_bytes(v, &len, buf);
				text	   *t = (text *) v;

				if (bytes != VARDATA_ANY(v))
				{
					t = (text *) buf->data;
					SET_VARSIZE(t, VARHDRSZ + len);
				}
				result = DatumGetBool(DirectFunctionCall2Coll(textlike, PG_GET_COLLATION(),
															  PointerGetDatum(t),
															  PointerGetDatum(pattern)));
				break;
			}
	}
	if (local.data)
		pfree(local.data);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return result;
}

PG_FUNCTION_INFO_V1(gsst_like);
Datum
gsst_like(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(value_like(fcinfo));
}

PG_FUNCTION_INFO_V1(gsst_not_like);
Datum
gsst_not_like(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!value_like(fcinfo));
}

/*
 * Selectivity of c LIKE / NOT LIKE const: the operator applied to the
 * column's most common values and histogram, as for operators the planner
 * knows nothing about (text's likesel reads the pattern's prefix against
 * text's statistics); without statistics, text's defaults.
 */
static double
like_selectivity(FunctionCallInfo fcinfo, double default_selectivity)
{
	return generic_restriction_selectivity((PlannerInfo *) PG_GETARG_POINTER(0),
										   PG_GETARG_OID(1), PG_GET_COLLATION(),
										   (List *) PG_GETARG_POINTER(2),
										   PG_GETARG_INT32(3), default_selectivity);
}

PG_FUNCTION_INFO_V1(gsst_like_sel);
Datum
gsst_like_sel(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(like_selectivity(fcinfo, DEFAULT_MATCH_SEL));
}

PG_FUNCTION_INFO_V1(gsst_not_like_sel);
Datum
gsst_not_like_sel(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(like_selectivity(fcinfo, 1.0 - DEFAULT_MATCH_SEL));
}

/*
 * The smallest string of prefix's length that is greater than every string
 * starting with prefix in byte order: its last character incremented, or
 * the one before it when that cannot be, as text's make_greater_string
 * does under the C collation.  NULL when there is none.
 */
static text *
greater_string(const char *prefix, Size len)
{
	mbcharacter_incrementer charinc = pg_database_encoding_character_incrementer();
	unsigned char *work = palloc(len + 1);

	memcpy(work, prefix, len);
	while (len > 0)
	{
		int			start = pg_mbcliplen((const char *) work, (int) len, (int) len - 1);
		int			charlen = (int) len - start;
		unsigned char save[MAX_MULTIBYTE_CHAR_LEN];

		memcpy(save, work + start, charlen);
		if (charinc(work + start, charlen))
		{
			text	   *result = cstring_to_text_with_len((const char *) work, (int) len);

			pfree(work);
			return result;
		}
		memcpy(work + start, save, charlen);
		len = start;
	}
	pfree(work);
	return NULL;
}

static Const *
text_const(text *t)
{
	return makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, PointerGetDatum(t),
					 false, false);
}

/*
 * Planner support of gsst_like: c LIKE 'literal' on an index of c becomes
 * c = 'literal', and c LIKE 'prefix%' becomes c >= 'prefix' AND c <
 * 'prefiy' when the index orders by bytes (its collation is C), both with
 * the gsst <op> text operators of the index's family; the LIKE stays as a
 * filter.  That is what text's like_support gives a text column.
 */
PG_FUNCTION_INFO_V1(gsst_like_support);
Datum
gsst_like_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestIndexCondition *req;
	const GsstCatalog *cat;
	List	   *args;
	Node	   *leftop;
	Node	   *rightop;
	Oid			exprcoll;
	Const	   *pc;
	text	   *pattern;
	char	   *literal;
	Size		llen;
	LikeShape	shape;
	Oid			op;
	List	   *result = NIL;

	if (!IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestIndexCondition *) rawreq;
	if (req->indexarg != 0 || !is_opclause(req->node))
		PG_RETURN_POINTER(NULL);
	args = ((OpExpr *) req->node)->args;
	exprcoll = ((OpExpr *) req->node)->inputcollid;
	if (list_length(args) != 2)
		PG_RETURN_POINTER(NULL);
	leftop = linitial(args);
	rightop = lsecond(args);
	cat = gsst_catalog(true);
	if (cat == NULL || !IsA(rightop, Const) || ((Const *) rightop)->constisnull ||
		((Const *) rightop)->consttype != TEXTOID)
		PG_RETURN_POINTER(NULL);
	if (!OidIsValid(exprcoll) || !get_collation_isdeterministic(exprcoll) ||
		!bytewise_encoding())
		PG_RETURN_POINTER(NULL);

	pc = (Const *) rightop;
	pattern = DatumGetTextPP(pc->constvalue);
	literal = palloc(VARSIZE_ANY_EXHDR(pattern) + 1);
	shape = pattern_shape(VARDATA_ANY(pattern), VARSIZE_ANY_EXHDR(pattern), literal, &llen);

	if (shape == LIKE_EXACT)
	{
		op = get_opfamily_member(req->opfamily, cat->gsst_type, TEXTOID,
								 BTEqualStrategyNumber);
		if (OidIsValid(op))
			result = list_make1(make_opclause(op, BOOLOID, false, (Expr *) leftop,
											  (Expr *) text_const(cstring_to_text_with_len(literal, (int) llen)),
											  InvalidOid, req->indexcollation));
	}
	else if (shape == LIKE_PREFIX && gsst_collation_is_c(req->indexcollation))
	{
		text	   *upper = greater_string(literal, llen);

		op = get_opfamily_member(req->opfamily, cat->gsst_type, TEXTOID,
								 BTGreaterEqualStrategyNumber);
		if (OidIsValid(op))
		{
			result = list_make1(make_opclause(op, BOOLOID, false, (Expr *) leftop,
											  (Expr *) text_const(cstring_to_text_with_len(literal, (int) llen)),
											  InvalidOid, req->indexcollation));
			op = get_opfamily_member(req->opfamily, cat->gsst_type, TEXTOID,
									 BTLessStrategyNumber);
			if (upper != NULL && OidIsValid(op))
				result = lappend(result,
								 make_opclause(op, BOOLOID, false, (Expr *) leftop,
											   (Expr *) text_const(upper),
											   InvalidOid, req->indexcollation));
		}
	}
	if (result != NIL)
		req->lossy = true;
	PG_RETURN_POINTER(result);
}
