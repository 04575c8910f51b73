/*
 * compare.c - comparison, hashing and sorting of gsst values.
 *
 * gsst compares as the text it decodes to, with the expression's
 * collation.  The functions decode both sides to text datums (a raw value
 * already is one) and hand them to text's own functions, so equality,
 * ordering and hashing are exactly text's, nondeterministic collations
 * included.  The cross-type gsst <op> text and text <op> gsst functions sit
 * in the same btree and hash families, so that WHERE c = $1 with a text
 * parameter can use an index on a gsst column.
 */
#include "gsst.h"

#include "utils/builtins.h"
#include "utils/sortsupport.h"
#include "utils/varlena.h"

/* One argument, detoasted once, as a text datum. */
typedef struct TextArg
{
	Pointer		orig;
	struct varlena *detoasted;
	text	   *txt;
} TextArg;

static void
load_arg(FunctionCallInfo fcinfo, int argno, bool is_gsst, TextArg *arg)
{
	arg->orig = DatumGetPointer(PG_GETARG_DATUM(argno));
	arg->detoasted = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(argno));
	arg->txt = is_gsst ? gsst_value_to_text(arg->detoasted)
		: (text *) arg->detoasted;
}

static void
release_arg(TextArg *arg)
{
	if ((Pointer) arg->txt != (Pointer) arg->detoasted)
		pfree(arg->txt);
	if ((Pointer) arg->detoasted != arg->orig)
		pfree(arg->detoasted);
}

static Datum
call_text_fn(FunctionCallInfo fcinfo, bool left_gsst, bool right_gsst,
			 PGFunction textfn)
{
	TextArg		a;
	TextArg		b;
	Datum		result;

	load_arg(fcinfo, 0, left_gsst, &a);
	load_arg(fcinfo, 1, right_gsst, &b);
	result = DirectFunctionCall2Coll(textfn, PG_GET_COLLATION(),
									 PointerGetDatum(a.txt),
									 PointerGetDatum(b.txt));
	release_arg(&a);
	release_arg(&b);
	return result;
}

#define GSST_COMPARE_FN(name, left_gsst, right_gsst, textfn) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	return call_text_fn(fcinfo, left_gsst, right_gsst, textfn); \
}

GSST_COMPARE_FN(gsst_eq, true, true, texteq)
GSST_COMPARE_FN(gsst_ne, true, true, textne)
GSST_COMPARE_FN(gsst_lt, true, true, text_lt)
GSST_COMPARE_FN(gsst_le, true, true, text_le)
GSST_COMPARE_FN(gsst_gt, true, true, text_gt)
GSST_COMPARE_FN(gsst_ge, true, true, text_ge)
GSST_COMPARE_FN(gsst_cmp, true, true, bttextcmp)

GSST_COMPARE_FN(gsst_text_eq, true, false, texteq)
GSST_COMPARE_FN(gsst_text_ne, true, false, textne)
GSST_COMPARE_FN(gsst_text_lt, true, false, text_lt)
GSST_COMPARE_FN(gsst_text_le, true, false, text_le)
GSST_COMPARE_FN(gsst_text_gt, true, false, text_gt)
GSST_COMPARE_FN(gsst_text_ge, true, false, text_ge)
GSST_COMPARE_FN(gsst_text_cmp, true, false, bttextcmp)

GSST_COMPARE_FN(text_gsst_eq, false, true, texteq)
GSST_COMPARE_FN(text_gsst_ne, false, true, textne)
GSST_COMPARE_FN(text_gsst_lt, false, true, text_lt)
GSST_COMPARE_FN(text_gsst_le, false, true, text_le)
GSST_COMPARE_FN(text_gsst_gt, false, true, text_gt)
GSST_COMPARE_FN(text_gsst_ge, false, true, text_ge)
GSST_COMPARE_FN(text_gsst_cmp, false, true, bttextcmp)

/* Hashes equal text's for the same decoded text and collation. */
PG_FUNCTION_INFO_V1(gsst_hash);
Datum
gsst_hash(PG_FUNCTION_ARGS)
{
	TextArg		a;
	Datum		result;

	load_arg(fcinfo, 0, true, &a);
	result = DirectFunctionCall1Coll(hashtext, PG_GET_COLLATION(),
									 PointerGetDatum(a.txt));
	release_arg(&a);
	return result;
}

PG_FUNCTION_INFO_V1(gsst_hash_extended);
Datum
gsst_hash_extended(PG_FUNCTION_ARGS)
{
	TextArg		a;
	Datum		result;

	load_arg(fcinfo, 0, true, &a);
	result = DirectFunctionCall2Coll(hashtextextended, PG_GET_COLLATION(),
									 PointerGetDatum(a.txt),
									 PG_GETARG_DATUM(1));
	release_arg(&a);
	return result;
}

/*
 * Sort support: decode into two buffers kept for the whole sort, and
 * compare like bttextcmp does (varstr_cmp).
 */
typedef struct GsstSortState
{
	GsstBuffer	left;
	GsstBuffer	right;
} GsstSortState;

static int
gsst_fastcmp(Datum x, Datum y, SortSupport ssup)
{
	GsstSortState *state = (GsstSortState *) ssup->ssup_extra;
	struct varlena *vx = PG_DETOAST_DATUM_PACKED(x);
	struct varlena *vy = PG_DETOAST_DATUM_PACKED(y);
	Size		lx;
	Size		ly;
	const char *bx = gsst_value_bytes(vx, &lx, &state->left);
	const char *by = gsst_value_bytes(vy, &ly, &state->right);
	int			result;

	result = varstr_cmp(bx, (int) lx, by, (int) ly, ssup->ssup_collation);
	if ((Pointer) vx != DatumGetPointer(x))
		pfree(vx);
	if ((Pointer) vy != DatumGetPointer(y))
		pfree(vy);
	return result;
}

PG_FUNCTION_INFO_V1(gsst_sortsupport);
Datum
gsst_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);
	GsstSortState *state;

	state = MemoryContextAllocZero(ssup->ssup_cxt, sizeof(GsstSortState));
	state->left.cxt = ssup->ssup_cxt;
	state->right.cxt = ssup->ssup_cxt;
	ssup->ssup_extra = state;
	ssup->comparator = gsst_fastcmp;
	PG_RETURN_VOID();
}
