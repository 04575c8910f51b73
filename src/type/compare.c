/*
 * compare.c - comparison, hashing and sorting of gsst values.
 *
 * gsst compares as the text it decodes to, with the expression's
 * collation: equality, ordering and hashing are exactly text's,
 * nondeterministic collations included.  The cross-type gsst <op> text and
 * text <op> gsst functions sit in the same btree and hash families, so
 * that WHERE c = $1 with a text parameter can use an index on a gsst
 * column, and text columns can merge-join with and reference gsst ones.
 *
 * Equality under a deterministic collation does not decode.  Equal text
 * is equal bytes there, and the codes gsst stores for a text are fixed by
 * the text and the dictionary (gsst_datum_codes: the codes when header and
 * codes are shorter than the text, else the text raw; every path that
 * stores a value follows that rule, and binary input stores the same
 * canonical form).  A long text may also be stored raw where its codes are
 * shorter (gsst_datum_keep_smallest), never encoded where they are not,
 * and TOAST's compression is undone before any comparison.  So a value
 * stored raw equals T when its bytes are T's, and a value encoded with
 * dictionary d equals T when its payload is what gsst_datum_codes(d, T)
 * returns.  A side that stays the same from row to row (a constant, an
 * external parameter, the elements of IN (...) or = ANY($1)) is a probe:
 * it is encoded once per dictionary met and kept in fn_extra.  Two gsst
 * values both raw, or encoded with one dictionary, compare their payloads.
 * Anything else (values of two dictionaries, a header this version does
 * not know, nondeterministic collations) decodes into buffers kept in
 * fn_extra.
 *
 * Ordering under the C collation is byte order: the values are decoded
 * only up to the first byte that differs (gsst_view_order), and sorting
 * uses text's abbreviated key, the first 8 bytes, from a partial decode.
 * Other collations decode into kept buffers and call text's functions;
 * sorting then uses text's own sort support for the collation (its
 * abbreviated keys where text has them) on the decoded values.
 *
 * Encoding a probe with a dictionary needs no right on its family: the
 * codes never leave this file, and the answer is the one decoding gives,
 * which needs no right on stored values either.
 */
#include "type/type.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "lib/hyperloglog.h"
#include "port/pg_bswap.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/varlena.h"

/* Probes kept per call site at most; values met past them decode. */
#define MAX_PROBES	4096

/*
 * What a probe is stored as with one dictionary: the payload (codes behind
 * a header, or the text when that is not longer), and the header a value
 * encoded with that dictionary starts with, whichever way the probe went.
 */
typedef struct ProbeCode
{
	uint32		table_id;
	uint32		len;
	bool		raw;			/* the probe is stored raw with this dictionary */
	uint8		hlen;			/* header's length */
	uint8		header[GSST_DATUM_MAX_HEADER];
	char	   *payload;
} ProbeCode;

/* A value compared against many: the argument as given, and its text. */
typedef struct Probe
{
	const char *arg;			/* where a constant array held it last, or NULL */
	char	   *src;
	Size		srclen;
	bool		src_gsst;
	char	   *text;
	Size		textlen;
	int			ncodes;
	int			maxcodes;
	int			last;			/* codes[last] was used last */
	ProbeCode  *codes;
	/*
	 * codes[last] as the fast path reads it: the length a value encoded with
	 * its dictionary has when equal (SIZE_MAX when the probe is stored raw
	 * there), and its header (last_hlen 0 while there is none).
	 */
	Size		last_len;
	const char *last_payload;
	uint8		last_hlen;
	uint8		last_header[GSST_DATUM_MAX_HEADER];
} Probe;

/* State of one call site, in fn_extra. */
typedef struct CompareState
{
	MemoryContext cxt;
	Oid			collid;
	bool		deterministic;
	bool		collate_c;		/* byte order: compare without decoding all */
	int			probe_arg;		/* argument that stays the same, or -1 */
	bool		probe_fixed;	/* a Const of an OpExpr: one probe for ever */
	int			nprobes;
	int			maxprobes;
	int			next;			/* probe expected next (IN lists cycle) */
	/* a constant array whose elements are the probes (IN, = ANY) */
	const char *array_lo;
	const char *array_hi;
	Probe	   *probes;
	GsstBuffer	buf[2];
} CompareState;

/*
 * The argument whose value does not change from row to row, or -1.  When
 * it is a Const of an OpExpr, *fixed is set: one probe for ever.  When it
 * is the Const array of IN (...) or = ANY, *lo and *hi bound its memory:
 * the executor passes each element as a pointer into it (the array is
 * read in place, ExecEvalScalarArrayOp), so an element met again is known
 * by its address.
 */
static int
probe_argument(FmgrInfo *flinfo, bool *fixed, const char **lo, const char **hi)
{
	Node	   *expr = flinfo->fn_expr;

	*fixed = false;
	*lo = *hi = NULL;
	if (expr == NULL)
		return -1;
	for (int argno = 1; argno >= 0; argno--)
	{
		if (!get_fn_expr_arg_stable(flinfo, argno))
			continue;
		/* an external Param can change between calls (PL/pgSQL) */
		*fixed = IsA(expr, OpExpr) &&
			IsA(list_nth(((OpExpr *) expr)->args, argno), Const);
		if (argno == 1 && IsA(expr, ScalarArrayOpExpr))
		{
			Node	   *arr = lsecond(((ScalarArrayOpExpr *) expr)->args);

			if (IsA(arr, Const) && !((Const *) arr)->constisnull)
			{
				struct varlena *v = (struct varlena *) DatumGetPointer(((Const *) arr)->constvalue);

				/* a flat array is read in place; any other is copied per row */
				if (!VARATT_IS_EXTENDED(v))
				{
					*lo = (const char *) v;
					*hi = (const char *) v + VARSIZE(v);
				}
			}
		}
		return argno;
	}
	return -1;
}

/*
 * Whether a collation orders like C (memcmp).  Text's sort support picks
 * its comparator by that very test, so the answer is whether it picks for
 * collid the comparator it picks for "C".  The test itself (a field of
 * pg_locale_t in PostgreSQL 18, lc_collate_is_c before) sits in a header
 * that includes ICU's, which the server's development package does not
 * pull in.  Collations do not change, so answers are kept.
 */
#define COLLATION_C_CACHE 8

bool
gsst_collation_is_c(Oid collid)
{
	static Oid	known[COLLATION_C_CACHE];
	static bool known_c[COLLATION_C_CACHE];
	static int	nknown;
	SortSupportData c_sort;
	SortSupportData sort;
	MemoryContext cxt;
	MemoryContext old;
	bool		result;

	if (!OidIsValid(collid))
		return false;
	if (collid == C_COLLATION_OID)
		return true;
	for (int i = 0; i < nknown; i++)
		if (known[i] == collid)
			return known_c[i];

	cxt = AllocSetContextCreate(CurrentMemoryContext, "gsst collation test",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	memset(&c_sort, 0, sizeof(c_sort));
	c_sort.ssup_cxt = cxt;
	c_sort.ssup_collation = C_COLLATION_OID;
	sort = c_sort;
	sort.ssup_collation = collid;
	varstr_sortsupport(&c_sort, TEXTOID, C_COLLATION_OID);
	varstr_sortsupport(&sort, TEXTOID, collid);
	result = sort.comparator == c_sort.comparator;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);

	if (nknown < COLLATION_C_CACHE)
	{
		known[nknown] = collid;
		known_c[nknown++] = result;
	}
	return result;
}

static void
set_collation(CompareState *st, Oid collid)
{
	st->collid = collid;
	/* no collation: the decoding path raises text's error */
	st->deterministic = OidIsValid(collid) && get_collation_isdeterministic(collid);
	st->collate_c = st->deterministic && gsst_collation_is_c(collid);
}

/* The call site's state, or NULL when called without an FmgrInfo. */
static CompareState *
compare_state(FunctionCallInfo fcinfo, bool with_probe)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	CompareState *st;

	if (flinfo == NULL)
		return NULL;
	st = (CompareState *) flinfo->fn_extra;
	if (st == NULL)
	{
		st = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(CompareState));
		st->cxt = flinfo->fn_mcxt;
		st->buf[0].cxt = st->cxt;
		st->buf[1].cxt = st->cxt;
		st->probe_arg = with_probe
			? probe_argument(flinfo, &st->probe_fixed, &st->array_lo, &st->array_hi)
			: -1;
		set_collation(st, PG_GET_COLLATION());
		flinfo->fn_extra = st;
	}
	else if (st->collid != PG_GET_COLLATION())
		set_collation(st, PG_GET_COLLATION());
	return st;
}

static inline bool
payload_is_raw(const char *p, Size n)
{
	return n == 0 || p[0] != 0;
}

/*
 * An argument as a text datum: a text or raw gsst value is one already;
 * an encoded value is decoded into buf, which keeps room for the varlena
 * header in front.
 */
static text *
arg_text(struct varlena *v, bool is_gsst, GsstBuffer *buf)
{
	Size		len;

	if (!is_gsst || gsst_value_is_raw(v))
		return (text *) v;
	(void) gsst_value_bytes(v, &len, buf);
	SET_VARSIZE(buf->data, VARHDRSZ + len);
	return (text *) buf->data;
}

/* The same as bytes. */
static const char *
arg_bytes(struct varlena *v, bool is_gsst, Size *len, GsstBuffer *buf)
{
	if (!is_gsst)
	{
		*len = VARSIZE_ANY_EXHDR(v);
		return VARDATA_ANY(v);
	}
	return gsst_value_bytes(v, len, buf);
}

static bool
probe_is(const Probe *p, const char *src, Size srclen, bool src_gsst)
{
	return p->srclen == srclen && p->src_gsst == src_gsst &&
		memcmp(p->src, src, srclen) == 0;
}

/* The probe for an argument, made on first sight; NULL past MAX_PROBES. */
static Probe *
find_probe(CompareState *st, struct varlena *arg, bool is_gsst)
{
	const char *src = VARDATA_ANY(arg);
	Size		srclen = VARSIZE_ANY_EXHDR(arg);
	int			found = -1;
	Probe	   *p;
	GsstBuffer	buf = {NULL, 0, st->cxt};
	const char *text;
	Size		textlen;

	if (st->nprobes > 0)
	{
		if (st->probe_fixed)
			return &st->probes[0];
		if (st->probes[st->next].arg == (const char *) arg)
			found = st->next;
		else if (probe_is(&st->probes[st->next], src, srclen, is_gsst))
			found = st->next;
		else if (probe_is(&st->probes[0], src, srclen, is_gsst))
			found = 0;
		else
			for (int i = 1; i < st->nprobes; i++)
				if (probe_is(&st->probes[i], src, srclen, is_gsst))
				{
					found = i;
					break;
				}
	}
	if (found < 0)
	{
		if (st->nprobes >= MAX_PROBES)
			return NULL;
		if (st->nprobes == st->maxprobes)
		{
			st->maxprobes = st->maxprobes ? st->maxprobes * 2 : 4;
			st->probes = st->probes
				? repalloc(st->probes, st->maxprobes * sizeof(Probe))
				: MemoryContextAlloc(st->cxt, st->maxprobes * sizeof(Probe));
		}
		p = &st->probes[st->nprobes];
		memset(p, 0, sizeof(Probe));
		p->src = MemoryContextAlloc(st->cxt, srclen + 1);
		memcpy(p->src, src, srclen);
		p->srclen = srclen;
		p->src_gsst = is_gsst;
		text = arg_bytes(arg, is_gsst, &textlen, &buf);
		if (text == src)
			p->text = p->src;
		else
		{
			p->text = MemoryContextAlloc(st->cxt, textlen + 1);
			memcpy(p->text, text, textlen);
		}
		p->textlen = textlen;
		if (buf.data)
			pfree(buf.data);
		found = st->nprobes++;
	}
	/* an element of the constant array; duplicates take the last address */
	if ((const char *) arg >= st->array_lo && (const char *) arg < st->array_hi)
		st->probes[found].arg = (const char *) arg;
	st->next = found + 1 < st->nprobes ? found + 1 : 0;
	return &st->probes[found];
}

/* Make codes[i] the dictionary met last. */
static void
probe_use_code(Probe *p, int i)
{
	const ProbeCode *pc = &p->codes[i];

	p->last = i;
	p->last_len = pc->raw ? SIZE_MAX : pc->len;
	p->last_payload = pc->payload;
	p->last_hlen = pc->hlen;
	memcpy(p->last_header, pc->header, pc->hlen);
}

/* What the probe is stored as with dictionary table_id. */
static const ProbeCode *
probe_code(CompareState *st, Probe *p, uint32 table_id)
{
	struct varlena *datum;
	ProbeCode  *pc;

	if (p->last < p->ncodes && p->codes[p->last].table_id == table_id)
		return &p->codes[p->last];
	for (int i = 0; i < p->ncodes; i++)
		if (p->codes[i].table_id == table_id)
		{
			probe_use_code(p, i);
			return &p->codes[i];
		}

	datum = gsst_datum_codes(gsst_dict_encoder(table_id), table_id,
							 p->text, p->textlen);
	if (p->ncodes == p->maxcodes)
	{
		p->maxcodes = p->maxcodes ? p->maxcodes * 2 : 2;
		p->codes = p->codes
			? repalloc(p->codes, p->maxcodes * sizeof(ProbeCode))
			: MemoryContextAlloc(st->cxt, p->maxcodes * sizeof(ProbeCode));
	}
	pc = &p->codes[p->ncodes];
	pc->table_id = table_id;
	pc->len = VARSIZE_ANY_EXHDR(datum);
	pc->payload = MemoryContextAlloc(st->cxt, pc->len + 1);
	memcpy(pc->payload, VARDATA_ANY(datum), pc->len);
	pc->raw = payload_is_raw(pc->payload, pc->len);
	pc->hlen = gsst_datum_header_write(table_id, pc->header);
	pfree(datum);
	probe_use_code(p, p->ncodes++);
	return pc;
}

/*
 * Whether an encoded payload (p[0] == 0) starts with the header of pc's
 * dictionary.  Header varints are prefix-free, so a value that starts
 * with those bytes has that dictionary.
 */
static inline bool
header_is(const char *p, Size n, const ProbeCode *pc)
{
	if (n <= pc->hlen)
		return false;
	for (int i = 1; i < pc->hlen; i++)
		if ((uint8) p[i] != pc->header[i])
			return false;
	return true;
}

/* Equality results short of decoding: equal, not equal, or decode. */
#define EQ_NO		0
#define EQ_YES		1
#define EQ_DECODE	(-1)

/* A value against a probe (deterministic collations only). */
static int
probe_equal(CompareState *st, struct varlena *probe, bool probe_gsst,
			struct varlena *value, bool value_gsst)
{
	Probe	   *p = find_probe(st, probe, probe_gsst);
	const char *pv = VARDATA_ANY(value);
	Size		nv = VARSIZE_ANY_EXHDR(value);
	uint32		table_id;
	const ProbeCode *pc;

	if (p == NULL)
		return EQ_DECODE;
	if (!value_gsst || payload_is_raw(pv, nv))
		return nv == p->textlen && memcmp(pv, p->text, nv) == 0;
	/*
	 * The dictionary met last, then any other: made the one met last even
	 * when the lengths alone would answer, so that the next values of the
	 * dictionary take probe_equal_fast.
	 */
	if (p->last >= p->ncodes || !header_is(pv, nv, &p->codes[p->last]))
	{
		int			hlen = gsst_datum_header_parse_fast((const uint8 *) pv, nv, &table_id);

		if (hlen < 0 || (Size) hlen >= nv)
			return EQ_DECODE;
		(void) probe_code(st, p, table_id);
	}
	pc = &p->codes[p->last];
	return !pc->raw && nv == pc->len && memcmp(pv, pc->payload, nv) == 0;
}

/* Two gsst values by their payloads (deterministic collations only). */
static int
payloads_equal(struct varlena *a, struct varlena *b)
{
	const char *pa = VARDATA_ANY(a);
	const char *pb = VARDATA_ANY(b);
	Size		na = VARSIZE_ANY_EXHDR(a);
	Size		nb = VARSIZE_ANY_EXHDR(b);
	bool		raw_a = payload_is_raw(pa, na);
	bool		raw_b = payload_is_raw(pb, nb);
	uint32		table_a;
	uint32		table_b;

	if (na == nb && memcmp(pa, pb, na) == 0)
		return EQ_YES;
	if (raw_a && raw_b)
		return EQ_NO;
	if (raw_a != raw_b)
	{
		/* the encoded one's text is longer than its payload */
		if ((raw_a && na <= nb) || (raw_b && nb <= na))
			return EQ_NO;
		return EQ_DECODE;
	}
	if (gsst_datum_header_parse((const uint8 *) pa, na, &table_a) < 0 ||
		gsst_datum_header_parse((const uint8 *) pb, nb, &table_b) < 0)
		return EQ_DECODE;
	return table_a == table_b ? EQ_NO : EQ_DECODE;
}

/*
 * Byte order (text's under the C collation) of two in-line values, as the
 * sign of the result: a text argument (is_gsst false) counts as raw.  Raw
 * against raw is memcmp; codes of one dictionary compare symbol by symbol
 * from the first code that differs; raw against codes compares symbols
 * with the text; anything else (two dictionaries, an unusual header) goes
 * through views.  order_c takes the usual cases (headers of 2 and 3
 * bytes) inline; order_c_rest the others and bad codes, which it reports.
 */
static pg_noinline int
order_c_rest(const struct varlena *a, bool a_gsst, const struct varlena *b, bool b_gsst)
{
	const uint8 *pa = (const uint8 *) VARDATA_ANY(a);
	const uint8 *pb = (const uint8 *) VARDATA_ANY(b);
	Size		na = VARSIZE_ANY_EXHDR(a);
	Size		nb = VARSIZE_ANY_EXHDR(b);
	bool		raw_a = !a_gsst || na == 0 || pa[0] != 0;
	bool		raw_b = !b_gsst || nb == 0 || pb[0] != 0;
	uint32		ida = 0;
	uint32		idb = 0;
	int			ha = 0;
	int			hb = 0;
	int			order;
	int			rc;
	GsstView	va;
	GsstView	vb;

	if ((raw_a || (ha = gsst_datum_header_parse_fast(pa, na, &ida)) > 0) &&
		(raw_b || (hb = gsst_datum_header_parse_fast(pb, nb, &idb)) > 0))
	{
		if (raw_a)
		{
			rc = gsst_compare_text(gsst_dict_table(idb), pb + hb, nb - hb, pa, na, &order);
			order = -order;
		}
		else if (raw_b)
			rc = gsst_compare_text(gsst_dict_table(ida), pa + ha, na - ha, pb, nb, &order);
		else if (ida == idb)
		{
			const gsst_table *table = gsst_dict_table(ida);

			rc = gsst_compare_codes(table, pa + ha, na - ha, table, pb + hb, nb - hb, &order);
		}
		else
			goto views;
		if (rc < 0)
			gsst_report_corrupt("bad codes", rc);
		return order;
	}
views:
	if (a_gsst)
		gsst_value_view(a, &va);
	else
	{
		va.table = NULL;
		va.data = pa;
		va.len = na;
		va.padded = false;
	}
	if (b_gsst)
		gsst_value_view(b, &vb);
	else
	{
		vb.table = NULL;
		vb.data = pb;
		vb.len = nb;
		vb.padded = false;
	}
	return gsst_view_order(&va, &vb);
}

/*
 * Whether an encoded value's datum header is 2 bytes, from its second
 * byte: the dictionary id's continuation bit clear, and this version.
 */
static pg_attribute_always_inline bool
header_is_short(uint8 second)
{
	return (second & 0x83) == GSST_DATUM_VERSION - 1;
}

/*
 * The length of an encoded value's header of 2 or 3 bytes (dictionary ids
 * below 4096) and its dictionary, or 0 for any other.
 */
static pg_attribute_always_inline int
header_quick(const uint8 *p, Size n, uint32 *id)
{
	if (n >= 2 && header_is_short(p[1]))
	{
		*id = p[1] >> 2;
		return 2;
	}
	if (n >= 3 && p[1] >= 0x80 && p[2] != 0 && p[2] < 0x80 &&
		(p[1] & 3) == GSST_DATUM_VERSION - 1)
	{
		*id = ((uint32) (p[1] & 0x7F) | (uint32) p[2] << 7) >> 2;
		return 3;
	}
	return 0;
}

/*
 * The commonest comparisons of all, taken first: two gsst values in line
 * with 1-byte varlena headers, both raw, both encoded with one dictionary
 * (the same header bytes), or one of each, with datum headers of 2 or 3
 * bytes (header_quick's forms).  False for anything else, compressed
 * values and TOAST pointers included, and for bad codes.  Codes of a few
 * bytes are first compared as words (gsst_compare_codes_first) unless
 * order_c_first has done that already: it was called first (after_first),
 * and the values have the last dictionary used under 2-byte headers.
 */
static pg_attribute_always_inline bool
order_c_short(const struct varlena *a, const struct varlena *b, bool after_first, int *order)
{
	const uint8 *pa = (const uint8 *) a + VARHDRSZ_SHORT;
	const uint8 *pb = (const uint8 *) b + VARHDRSZ_SHORT;
	Size		na;
	Size		nb;
	bool		raw_a;
	bool		raw_b;
	uint32		id;
	int			hlen;
	const gsst_table *table;
	uint64		wa;
	uint64		wb;
	bool		words_tried;

	/* tested together, without a branch each */
	if ((!VARATT_IS_1B(a) | VARATT_IS_1B_E(a) | !VARATT_IS_1B(b) | VARATT_IS_1B_E(b)) != 0)
		return false;
	na = VARSIZE_1B(a) - VARHDRSZ_SHORT;
	nb = VARSIZE_1B(b) - VARHDRSZ_SHORT;
	raw_a = na == 0 || pa[0] != 0;
	raw_b = nb == 0 || pb[0] != 0;
	if (raw_a && raw_b)
	{
		int			c = memcmp(pa, pb, Min(na, nb));

		*order = c != 0 ? c : (na > nb) - (na < nb);
		return true;
	}
	if (raw_b)
	{
		/* codes against a raw value */
		return (hlen = header_quick(pa, na, &id)) != 0 &&
			gsst_compare_text_quick(gsst_dict_table_quick(id), pa + hlen, na - hlen,
									pb, nb, order);
	}
	if (raw_a)
	{
		if ((hlen = header_quick(pb, nb, &id)) == 0 ||
			!gsst_compare_text_quick(gsst_dict_table_quick(id), pb + hlen, nb - hlen,
									 pa, na, order))
			return false;
		*order = -*order;
		return true;
	}
	/* both encoded: one dictionary when the header bytes are the same */
	if (((na < 2) | (nb < 2)) != 0 ||
		(pa[1] != pb[1]) | ((pa[1] & 3) != GSST_DATUM_VERSION - 1))
		return false;
	if (pa[1] < 0x80)
	{
		id = pa[1] >> 2;
		hlen = 2;
	}
	else
	{
		if (na < 3 || nb < 3 || pa[2] != pb[2] || pa[2] == 0 || pa[2] >= 0x80)
			return false;
		id = ((uint32) (pa[1] & 0x7F) | (uint32) pa[2] << 7) >> 2;
		hlen = 3;
	}
	/* order_c_first's case, before the look-up makes any dictionary the last */
	words_tried = after_first && hlen == 2 && gsst_dict_last.table != NULL &&
		gsst_dict_last.id == id;
	table = gsst_dict_table_quick(id);
	/* values of a few codes: quick's run is byte by byte for them */
	if (!words_tried && na - hlen <= 8 && nb - hlen <= 8 &&
		gsst_codes_word(pa + hlen, na - hlen, VARHDRSZ_SHORT + hlen, &wa) &&
		gsst_codes_word(pb + hlen, nb - hlen, VARHDRSZ_SHORT + hlen, &wb) &&
		gsst_compare_codes_first(table, wa, na - hlen, wb, nb - hlen, order))
		return true;
	return gsst_compare_codes_quick(table, pa + hlen, na - hlen,
									pb + hlen, nb - hlen, order);
}

/*
 * Two raw values' order from their first 8 bytes, as words of
 * gsst_codes_word: text has no zero byte, so a word's zero bytes are past
 * its value's end.  False when the first 8 bytes of both are equal and
 * that does not make the values equal.
 */
static pg_attribute_always_inline bool
order_raw_first(uint64 wa, Size na, uint64 wb, Size nb, int *order)
{
	if (wa == wb)
	{
		if (na != nb || na > 8)
			return false;
		*order = 0;
		return true;
	}
	/* the first differing byte, or the shorter value's end, decides */
	*order = pg_bswap64(wa) < pg_bswap64(wb) ? -1 : 1;
	return true;
}

/*
 * The dictionary of an encoded payload's 2-byte datum header (header_quick's
 * short form) when it is the last one used, else NULL.
 */
static pg_attribute_always_inline const gsst_table *
last_table_of(const uint8 *p)
{
	if (!header_is_short(p[1]) || gsst_dict_last.id != (uint32) (p[1] >> 2))
		return NULL;
	return gsst_dict_last.table;
}

/*
 * A sort's commonest comparisons of short values, for gsst_cmp_c to take
 * before anything else: two values in line with 1-byte varlena headers,
 * raw or encoded with the last dictionary used under a 2-byte datum
 * header, settled by their first 8 bytes or codes.  False for anything
 * else.  It calls nothing, so that its caller needs no stack frame.
 */
static pg_attribute_always_inline bool
order_c_first(const struct varlena *a, const struct varlena *b, int *order)
{
	const uint8 *pa = (const uint8 *) a + VARHDRSZ_SHORT;
	const uint8 *pb = (const uint8 *) b + VARHDRSZ_SHORT;
	Size		na;
	Size		nb;
	uint64		wa;
	uint64		wb;
	const gsst_table *table;

	/* a TOAST pointer's 1-byte header reads as size 0 */
	if (((!VARATT_IS_1B(a)) | (!VARATT_IS_1B(b)) |
		 (VARSIZE_1B(a) < VARHDRSZ_SHORT + 2) | (VARSIZE_1B(b) < VARHDRSZ_SHORT + 2)) != 0)
		return false;
	na = VARSIZE_1B(a) - VARHDRSZ_SHORT;
	nb = VARSIZE_1B(b) - VARHDRSZ_SHORT;
	if (pa[0] == 0 && pb[0] == 0)
	{
		/* both encoded: one dictionary when the header bytes are the same */
		if (pa[1] != pb[1] || (table = last_table_of(pa)) == NULL)
			return false;
		return gsst_codes_word(pa + 2, na - 2, VARHDRSZ_SHORT + 2, &wa) &&
			gsst_codes_word(pb + 2, nb - 2, VARHDRSZ_SHORT + 2, &wb) &&
			gsst_compare_codes_first(table, wa, na - 2, wb, nb - 2, order);
	}
	if (pa[0] != 0 && pb[0] != 0)
		return gsst_codes_word(pa, na, VARHDRSZ_SHORT, &wa) &&
			gsst_codes_word(pb, nb, VARHDRSZ_SHORT, &wb) &&
			order_raw_first(wa, na, wb, nb, order);
	if (pb[0] != 0)
		return (table = last_table_of(pa)) != NULL &&
			gsst_codes_word(pa + 2, na - 2, VARHDRSZ_SHORT + 2, &wa) &&
			gsst_codes_word(pb, nb, VARHDRSZ_SHORT, &wb) &&
			gsst_compare_text_first(table, wa, na - 2, wb, order);
	if ((table = last_table_of(pb)) == NULL ||
		!gsst_codes_word(pb + 2, nb - 2, VARHDRSZ_SHORT + 2, &wb) ||
		!gsst_codes_word(pa, na, VARHDRSZ_SHORT, &wa) ||
		!gsst_compare_text_first(table, wb, nb - 2, wa, order))
		return false;
	*order = -*order;
	return true;
}

static pg_attribute_always_inline int
order_c_general(const struct varlena *a, bool a_gsst, const struct varlena *b, bool b_gsst)
{
	const uint8 *pa = (const uint8 *) VARDATA_ANY(a);
	const uint8 *pb = (const uint8 *) VARDATA_ANY(b);
	Size		na = VARSIZE_ANY_EXHDR(a);
	Size		nb = VARSIZE_ANY_EXHDR(b);
	bool		raw_a = !a_gsst || na == 0 || pa[0] != 0;
	bool		raw_b = !b_gsst || nb == 0 || pb[0] != 0;
	uint32		ida;
	uint32		idb;
	int			ha;
	int			hb;
	int			order;

	if (raw_a && raw_b)
	{
		int			c = memcmp(pa, pb, Min(na, nb));

		if (c != 0)
			return c;
		return (na > nb) - (na < nb);
	}
	if (!raw_a && !raw_b)
	{
		/* codes of one dictionary */
		if ((ha = header_quick(pa, na, &ida)) != 0 &&
			(hb = header_quick(pb, nb, &idb)) != 0 && ida == idb &&
			gsst_compare_codes_quick(gsst_dict_table(ida), pa + ha, na - ha,
									 pb + hb, nb - hb, &order))
			return order;
	}
	else if (raw_b)
	{
		/* codes against a raw value */
		if ((ha = header_quick(pa, na, &ida)) != 0 &&
			gsst_compare_text_quick(gsst_dict_table(ida), pa + ha, na - ha,
									pb, nb, &order))
			return order;
	}
	else if ((hb = header_quick(pb, nb, &idb)) != 0 &&
			 gsst_compare_text_quick(gsst_dict_table(idb), pb + hb, nb - hb,
									 pa, na, &order))
		return -order;
	/* errors, longer headers, two dictionaries */
	return order_c_rest(a, a_gsst, b, b_gsst);
}

/* Room for the text of any value in a 1-byte varlena: 126 codes of 8 bytes. */
#define SHORT_DECODED_CAP	(126 * GSST_MAX_SYMBOL_LEN)

/*
 * The bytes of a gsst value in line with a 1-byte varlena header: the
 * payload of a raw one, or an encoded one's (header_quick's forms)
 * decoded into buf, which holds SHORT_DECODED_CAP bytes.  False for any
 * other, and for bad codes, which the general paths report.
 */
static pg_attribute_always_inline bool
short_value_bytes(const struct varlena *v, uint8 *buf, const uint8 **bytes, Size *len)
{
	const uint8 *p = (const uint8 *) v + VARHDRSZ_SHORT;
	Size		n;
	uint32		id;
	int			hlen;
	int64		decoded;

	if (!VARATT_IS_1B(v) || VARATT_IS_1B_E(v))
		return false;
	n = VARSIZE_1B(v) - VARHDRSZ_SHORT;
	if (n == 0 || p[0] != 0)
	{
		*bytes = p;
		*len = n;
		return true;
	}
	if ((hlen = header_quick(p, n, &id)) == 0)
		return false;
	decoded = gsst_decode_value(gsst_dict_table_quick(id), p + hlen, n - hlen,
								buf, (n - hlen) * GSST_MAX_SYMBOL_LEN);
	if (decoded < 0)
		return false;
	*bytes = buf;
	*len = (Size) decoded;
	return true;
}

/* Byte order under C: order_c_short's cases first, then the rest. */
static pg_attribute_always_inline int
order_c(const struct varlena *a, bool a_gsst, const struct varlena *b, bool b_gsst)
{
	int			order;

	if (a_gsst && b_gsst && order_c_short(a, b, false, &order))
		return order;
	return order_c_general(a, a_gsst, b, b_gsst);
}

static bool
decoded_equal(FunctionCallInfo fcinfo, CompareState *st,
			  struct varlena *a, bool a_gsst, struct varlena *b, bool b_gsst)
{
	GsstBuffer	local[2] = {GSST_BUFFER_INIT, GSST_BUFFER_INIT};
	GsstBuffer *buf = st ? st->buf : local;
	bool		result;

	/*
	 * Equal text is equal bytes.  Decoding whole and memcmp beats comparing
	 * code by code here: equality walks all of equal values.
	 */
	if (st && st->deterministic)
	{
		Size		la;
		Size		lb;
		const char *ba = arg_bytes(a, a_gsst, &la, &buf[0]);
		const char *bb = arg_bytes(b, b_gsst, &lb, &buf[1]);

		result = la == lb && memcmp(ba, bb, la) == 0;
	}
	else
		result = DatumGetBool(DirectFunctionCall2Coll(texteq, PG_GET_COLLATION(),
													  PointerGetDatum(arg_text(a, a_gsst, &buf[0])),
													  PointerGetDatum(arg_text(b, b_gsst, &buf[1]))));
	for (int i = 0; i < 2; i++)
		if (local[i].data)
			pfree(local[i].data);
	return result;
}

static pg_noinline bool
values_equal_full(FunctionCallInfo fcinfo, bool left_gsst, bool right_gsst)
{
	CompareState *st = compare_state(fcinfo, true);
	Datum		da = PG_GETARG_DATUM(0);
	Datum		db = PG_GETARG_DATUM(1);
	struct varlena *a = gsst_detoast_packed(da);
	struct varlena *b = gsst_detoast_packed(db);
	int			r = EQ_DECODE;
	bool		result;

	if (st && st->deterministic)
	{
		if (st->probe_arg == 1)
			r = probe_equal(st, b, right_gsst, a, left_gsst);
		else if (st->probe_arg == 0)
			r = probe_equal(st, a, left_gsst, b, right_gsst);
		else if (left_gsst && right_gsst)
			r = payloads_equal(a, b);
	}
	result = r == EQ_DECODE ? decoded_equal(fcinfo, st, a, left_gsst, b, right_gsst)
		: r == EQ_YES;

	if ((Pointer) a != DatumGetPointer(da))
		pfree(a);
	if ((Pointer) b != DatumGetPointer(db))
		pfree(b);
	return result;
}

/*
 * probe_equal's common case without a call: a probe known by its address
 * (the constant, or the element of a constant array that the executor
 * passes next) against an in-line value that is raw or encoded with the
 * dictionary met last.  EQ_DECODE sends anything else to the full path.
 */
static pg_attribute_always_inline int
probe_equal_fast(CompareState *st, FunctionCallInfo fcinfo, bool value_gsst)
{
	int			pa = st->probe_arg;
	const char *parg = DatumGetPointer(fcinfo->args[pa].value);
	const struct varlena *v = (const struct varlena *) DatumGetPointer(fcinfo->args[1 - pa].value);
	const Probe *p;
	const char *pv;
	Size		nv;
	bool		raw;
	uintptr_t	pick;
	const char *want;
	Size		wantlen;
	bool		header;

	if (st->probe_fixed)
		p = &st->probes[0];
	else if (st->probes[st->next].arg == parg)
	{
		p = &st->probes[st->next];
		st->next = st->next + 1 < st->nprobes ? st->next + 1 : 0;
	}
	else if (st->probes[0].arg == parg)
	{
		p = &st->probes[0];
		st->next = st->nprobes > 1 ? 1 : 0;
	}
	else
		return EQ_DECODE;

	if (VARATT_IS_4B_U(v))
	{
		pv = VARDATA(v);
		nv = VARSIZE(v) - VARHDRSZ;
	}
	else if (VARATT_IS_SHORT(v))
	{
		pv = VARDATA_SHORT(v);
		nv = VARSIZE_SHORT(v) - VARHDRSZ_SHORT;
	}
	else
		return EQ_DECODE;

	/*
	 * A raw value equals the probe's text; one encoded with the dictionary
	 * met last equals its payload, header included.  Picking the side
	 * without a branch leaves one unpredictable test, the length, as in
	 * texteq.
	 */
	raw = !value_gsst || nv == 0 || pv[0] != 0;
	pick = (uintptr_t) 0 - (uintptr_t) raw;
	want = (const char *) (((uintptr_t) p->text & pick) |
						   ((uintptr_t) p->last_payload & ~pick));
	wantlen = (p->textlen & pick) | (p->last_len & ~pick);
	if (nv == wantlen && memcmp(pv, want, nv) == 0)
		return EQ_YES;
	/* not equal, unless an encoded value has another dictionary */
	header = p->last_hlen != 0 && nv > p->last_hlen;
	if (header)
		for (int i = 1; i < p->last_hlen; i++)
			header &= (uint8) pv[i] == p->last_header[i];
	return raw | header ? EQ_NO : EQ_DECODE;
}

/*
 * A gsst value against a text value, neither a constant (a hash join's
 * test after the hashes matched, a join filter), under a deterministic
 * collation: a short value decoded on the stack and compared, without the
 * calls and buffers of the general path.
 */
static pg_attribute_always_inline int
gsst_text_equal_short(const struct varlena *g, const struct varlena *t)
{
	uint8		buf[SHORT_DECODED_CAP];
	const uint8 *bytes;
	Size		len;

	if (VARATT_IS_COMPRESSED(t) || VARATT_IS_EXTERNAL(t) ||
		!short_value_bytes(g, buf, &bytes, &len))
		return EQ_DECODE;
	return len == VARSIZE_ANY_EXHDR(t) && memcmp(bytes, VARDATA_ANY(t), len) == 0
		? EQ_YES : EQ_NO;
}

static pg_attribute_always_inline bool
values_equal(FunctionCallInfo fcinfo, bool left_gsst, bool right_gsst)
{
	CompareState *st = fcinfo->flinfo ? (CompareState *) fcinfo->flinfo->fn_extra : NULL;

	if (left_gsst != right_gsst && st != NULL && st->probe_arg < 0 && st->deterministic &&
		st->collid == PG_GET_COLLATION())
	{
		const struct varlena *l = (const struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));
		const struct varlena *r = (const struct varlena *) DatumGetPointer(PG_GETARG_DATUM(1));
		int			eq = left_gsst ? gsst_text_equal_short(l, r) : gsst_text_equal_short(r, l);

		if (eq != EQ_DECODE)
			return eq == EQ_YES;
	}

	/* the probes of this call site, under the collation they were made for */
	if (st != NULL && st->nprobes > 0 && st->deterministic &&
		st->collid == PG_GET_COLLATION())
	{
		int			r = probe_equal_fast(st, fcinfo,
										 st->probe_arg == 0 ? right_gsst : left_gsst);

		if (r != EQ_DECODE)
			return r == EQ_YES;
	}
	return values_equal_full(fcinfo, left_gsst, right_gsst);
}

/*
 * Ordering: under the C collation by bytes, decoded as far as the first
 * difference; else text's function on the values decoded into buffers.
 * The answer is bttextcmp's sign.
 */
static pg_noinline int
values_order_full(FunctionCallInfo fcinfo, bool left_gsst, bool right_gsst)
{
	CompareState *st = compare_state(fcinfo, false);
	GsstBuffer	local[2] = {GSST_BUFFER_INIT, GSST_BUFFER_INIT};
	GsstBuffer *buf = st ? st->buf : local;
	Datum		da = PG_GETARG_DATUM(0);
	Datum		db = PG_GETARG_DATUM(1);
	struct varlena *a = gsst_detoast_packed(da);
	struct varlena *b = gsst_detoast_packed(db);
	int			result;

	if (st && st->collate_c)
		result = order_c(a, left_gsst, b, right_gsst);
	else
		result = DatumGetInt32(DirectFunctionCall2Coll(bttextcmp, PG_GET_COLLATION(),
													   PointerGetDatum(arg_text(a, left_gsst, &buf[0])),
													   PointerGetDatum(arg_text(b, right_gsst, &buf[1]))));
	for (int i = 0; i < 2; i++)
		if (local[i].data)
			pfree(local[i].data);
	if ((Pointer) a != DatumGetPointer(da))
		pfree(a);
	if ((Pointer) b != DatumGetPointer(db))
		pfree(b);
	return result;
}

/*
 * The usual call of a btree, a merge join or min and max: under the C
 * collation, both values in line, compared without a stack frame of
 * buffers to free.
 */
static pg_attribute_always_inline int
values_order(FunctionCallInfo fcinfo, bool left_gsst, bool right_gsst)
{
	CompareState *st = fcinfo->flinfo ? (CompareState *) fcinfo->flinfo->fn_extra : NULL;
	const struct varlena *a = (const struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));
	const struct varlena *b = (const struct varlena *) DatumGetPointer(PG_GETARG_DATUM(1));

	if (st != NULL && st->collate_c && st->collid == PG_GET_COLLATION())
	{
		int			order;

		if (left_gsst && right_gsst && order_c_short(a, b, false, &order))
			return order;
		if (!VARATT_IS_COMPRESSED(a) && !VARATT_IS_EXTERNAL(a) &&
			!VARATT_IS_COMPRESSED(b) && !VARATT_IS_EXTERNAL(b))
			return order_c_general(a, left_gsst, b, right_gsst);
	}
	return values_order_full(fcinfo, left_gsst, right_gsst);
}

#define GSST_EQ_FN(name, left_gsst, right_gsst, negate) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(values_equal(fcinfo, left_gsst, right_gsst) != (negate)); \
}

#define GSST_ORDER_FN(name, left_gsst, right_gsst, test) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	int			order_ = values_order(fcinfo, left_gsst, right_gsst); \
	\
	PG_RETURN_BOOL(order_ test 0); \
}

#define GSST_CMP_FN(name, left_gsst, right_gsst) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	int			order_ = values_order(fcinfo, left_gsst, right_gsst); \
	\
	PG_RETURN_INT32(order_ < 0 ? -1 : order_ > 0 ? 1 : 0); \
}

/*
 * min and max of gsst: the smaller or larger by the comparison above, so
 * that the aggregates compare stored values as the operators do instead of
 * casting every value to text.
 */
PG_FUNCTION_INFO_V1(gsst_smaller);
Datum
gsst_smaller(PG_FUNCTION_ARGS)
{
	int			order = values_order(fcinfo, true, true);

	PG_RETURN_DATUM(order < 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1));
}

PG_FUNCTION_INFO_V1(gsst_larger);
Datum
gsst_larger(PG_FUNCTION_ARGS)
{
	int			order = values_order(fcinfo, true, true);

	PG_RETURN_DATUM(order > 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1));
}

GSST_EQ_FN(gsst_eq, true, true, false)
GSST_EQ_FN(gsst_ne, true, true, true)
GSST_ORDER_FN(gsst_lt, true, true, <)
GSST_ORDER_FN(gsst_le, true, true, <=)
GSST_ORDER_FN(gsst_gt, true, true, >)
GSST_ORDER_FN(gsst_ge, true, true, >=)
GSST_CMP_FN(gsst_cmp, true, true)

GSST_EQ_FN(gsst_text_eq, true, false, false)
GSST_EQ_FN(gsst_text_ne, true, false, true)
GSST_ORDER_FN(gsst_text_lt, true, false, <)
GSST_ORDER_FN(gsst_text_le, true, false, <=)
GSST_ORDER_FN(gsst_text_gt, true, false, >)
GSST_ORDER_FN(gsst_text_ge, true, false, >=)
GSST_CMP_FN(gsst_text_cmp, true, false)

GSST_EQ_FN(text_gsst_eq, false, true, false)
GSST_EQ_FN(text_gsst_ne, false, true, true)
GSST_ORDER_FN(text_gsst_lt, false, true, <)
GSST_ORDER_FN(text_gsst_le, false, true, <=)
GSST_ORDER_FN(text_gsst_gt, false, true, >)
GSST_ORDER_FN(text_gsst_ge, false, true, >=)
GSST_CMP_FN(text_gsst_cmp, false, true)

/*
 * Hashes equal text's for the same decoded text and collation: under a
 * deterministic collation hashtext hashes the bytes, which are hashed here
 * where they lie (a raw value) or in a reused buffer; other collations go
 * through hashtext itself.
 */
static Datum hash_value_full(FunctionCallInfo fcinfo, bool extended);

static Datum
hash_value(FunctionCallInfo fcinfo, bool extended)
{
	CompareState *st = fcinfo->flinfo ? (CompareState *) fcinfo->flinfo->fn_extra : NULL;

	/* a short value decoded on the stack (see gsst_text_equal_short) */
	if (st != NULL && st->deterministic && st->collid == PG_GET_COLLATION())
	{
		uint8		buf[SHORT_DECODED_CAP];
		const uint8 *bytes;
		Size		len;

		if (short_value_bytes((const struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0)),
							  buf, &bytes, &len))
			return extended
				? hash_any_extended(bytes, (int) len, PG_GETARG_INT64(1))
				: hash_any(bytes, (int) len);
	}
	return hash_value_full(fcinfo, extended);
}

static pg_noinline Datum
hash_value_full(FunctionCallInfo fcinfo, bool extended)
{
	CompareState *st = compare_state(fcinfo, false);
	GsstBuffer	local = GSST_BUFFER_INIT;
	GsstBuffer *buf = st ? &st->buf[0] : &local;
	Datum		d = PG_GETARG_DATUM(0);
	struct varlena *v = gsst_detoast_packed(d);
	Datum		result;

	if (st && st->deterministic)
	{
		Size		len;
		const char *bytes = gsst_value_bytes(v, &len, buf);

		result = extended
			? hash_any_extended((const unsigned char *) bytes, (int) len, PG_GETARG_INT64(1))
			: hash_any((const unsigned char *) bytes, (int) len);
	}
	else if (extended)
		result = DirectFunctionCall2Coll(hashtextextended, PG_GET_COLLATION(),
										 PointerGetDatum(arg_text(v, true, buf)),
										 PG_GETARG_DATUM(1));
	else
		result = DirectFunctionCall1Coll(hashtext, PG_GET_COLLATION(),
										 PointerGetDatum(arg_text(v, true, buf)));
	if (local.data)
		pfree(local.data);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return result;
}

PG_FUNCTION_INFO_V1(gsst_hash);
Datum
gsst_hash(PG_FUNCTION_ARGS)
{
	return hash_value(fcinfo, false);
}

PG_FUNCTION_INFO_V1(gsst_hash_extended);
Datum
gsst_hash_extended(PG_FUNCTION_ARGS)
{
	return hash_value(fcinfo, true);
}

/*
 * Sort support.  Under the C collation the comparator orders by bytes,
 * decoding as far as the first difference, and the abbreviated key is
 * text's: the first 8 bytes as a big-endian integer (varstr_abbrev_convert),
 * decoded only that far.  Other collations use text's own sort support
 * for the collation (state->text) on values decoded into buffers kept for
 * the whole sort: its comparator, and its abbreviated keys (strxfrm or
 * ICU sort keys, with its rule for giving up on them) where text has
 * them.  Those need the whole text, so they decode it all.
 */
typedef struct GsstSortState
{
	GsstBuffer	left;
	GsstBuffer	right;
	GsstBuffer	abbrev;
	SortSupportData text;		/* text's sort support (not under C) */
} GsstSortState;

/* Free a detoasted copy. */
#define FREE_IF_COPY_DATUM(v, d) \
	do { if ((Pointer) (v) != DatumGetPointer(d)) pfree(v); } while (0)

/* gsst_cmp_c's other cases, out of line so that its usual one stays small */
static pg_noinline int
gsst_cmp_c_rest(Datum x, Datum y)
{
	struct varlena *vx;
	struct varlena *vy;
	int			result;

	/* after order_c_first, which may have tried the words */
	if (order_c_short((const struct varlena *) DatumGetPointer(x),
					  (const struct varlena *) DatumGetPointer(y), true, &result))
		return result;
	vx = gsst_detoast_packed(x);
	vy = gsst_detoast_packed(y);
	result = order_c_general(vx, true, vy, true);

	FREE_IF_COPY_DATUM(vx, x);
	FREE_IF_COPY_DATUM(vy, y);
	return result;
}

static int
gsst_cmp_c(Datum x, Datum y, SortSupport ssup)
{
	int			result;

	if (order_c_first((const struct varlena *) DatumGetPointer(x),
					  (const struct varlena *) DatumGetPointer(y), &result))
		return result;
	return gsst_cmp_c_rest(x, y);
}

/*
 * Under C, how many distinct abbreviated keys and stored payloads a sort
 * has seen (the payload's hash stands for the value's: equal text encoded
 * by two dictionaries counts twice, which only overstates the values).
 */
typedef struct GsstAbbrevCard
{
	bool		counting;		/* until the keys are judged for good */
	hyperLogLogState abbrev;
	hyperLogLogState full;
} GsstAbbrevCard;

/* Keys are judged on the first this many values; then counting stops. */
#define ABBREV_JUDGED_BY	10000

static Datum
gsst_abbrev_convert_c(Datum original, SortSupport ssup)
{
	GsstAbbrevCard *card = (GsstAbbrevCard *) ssup->ssup_extra;
	struct varlena *v = gsst_detoast_packed(original);
	GsstView	view;
	uint8		prefix[sizeof(Datum) + GSST_MAX_SYMBOL_LEN];
	const uint8 *bytes;
	Size		len;
	Datum		res = (Datum) 0;
	uint64		folded;

	gsst_value_view(v, &view);
	bytes = gsst_view_prefix(&view, sizeof(Datum), prefix, &len);
	memcpy(&res, bytes, Min(len, sizeof(Datum)));
	res = DatumBigEndianToNative(res);

	if (card->counting)
	{
		folded = (uint64) res;
		addHyperLogLog(&card->abbrev,
					   DatumGetUInt32(hash_uint32((uint32) (folded ^ (folded >> 32)))));
		addHyperLogLog(&card->full,
					   DatumGetUInt32(hash_any((const unsigned char *) VARDATA_ANY(v),
											   (int) VARSIZE_ANY_EXHDR(v))));
	}
	FREE_IF_COPY_DATUM(v, original);
	return res;
}

/*
 * Text gives up abbreviated keys when they are too often equal
 * (varstr_abbrev_abort), because its full comparison is a memcmp.  Here a
 * full comparison decodes, so keys that settle even a part of the
 * comparisons pay for themselves: text's rule made sorts of values with
 * few distinct 8-byte prefixes (dbtext's genome) much slower.  But when
 * nearly all keys are equal (every value starting "Customer", or one of a
 * few dozen URL schemes and hosts), a comparison costs the key's, the
 * tuple's deforming for the value and the full comparison, for almost
 * nothing settled.  Comparisons between values of k distinct keys among n
 * settle about log k / log n of the way down a sort; below k = n^0.4 the
 * ties cost more than the keys save.  Judged on the first values only,
 * since the hashing costs about a tenth of a sort of values that keep
 * their keys.
 */
static bool
gsst_abbrev_abort_c(int memtupcount, SortSupport ssup)
{
	GsstAbbrevCard *card = (GsstAbbrevCard *) ssup->ssup_extra;
	double		abbrev_distinct;
	double		key_distinct;

	if (!card->counting || memtupcount < 100)
		return false;
	abbrev_distinct = Max(estimateHyperLogLog(&card->abbrev), 1.0);
	key_distinct = Max(estimateHyperLogLog(&card->full), 1.0);
	if (abbrev_distinct >= pow(key_distinct, 0.4))
	{
		/* judged for good: hashing every value would cost more than it tells */
		if (memtupcount >= ABBREV_JUDGED_BY)
		{
			card->counting = false;
			freeHyperLogLog(&card->abbrev);
			freeHyperLogLog(&card->full);
		}
		return false;
	}
#if defined(TRACE_SORT) || PG_VERSION_NUM >= 180000
	/* 18 always has trace_sort, and no longer defines TRACE_SORT */
	if (trace_sort)
		elog(LOG, "gsst: abbreviated keys given up after %d values: %.0f distinct keys among %.0f distinct values",
			 memtupcount, abbrev_distinct, key_distinct);
#endif
	card->counting = false;
	freeHyperLogLog(&card->abbrev);
	freeHyperLogLog(&card->full);
	return true;
}

/* A value as a text datum, decoded into buf when encoded. */
static Datum
text_datum(Datum d, GsstBuffer *buf, struct varlena **detoasted)
{
	*detoasted = gsst_detoast_packed(d);
	return PointerGetDatum(arg_text(*detoasted, true, buf));
}

static int
gsst_cmp_text_rules(Datum x, Datum y, SortSupport ssup)
{
	GsstSortState *state = (GsstSortState *) ssup->ssup_extra;
	SortSupport text = &state->text;
	struct varlena *vx;
	struct varlena *vy;
	Datum		tx = text_datum(x, &state->left, &vx);
	Datum		ty = text_datum(y, &state->right, &vy);
	int			result;

	result = text->abbrev_converter
		? text->abbrev_full_comparator(tx, ty, text)
		: text->comparator(tx, ty, text);
	FREE_IF_COPY_DATUM(vx, x);
	FREE_IF_COPY_DATUM(vy, y);
	return result;
}

static Datum
gsst_abbrev_convert_text_rules(Datum original, SortSupport ssup)
{
	GsstSortState *state = (GsstSortState *) ssup->ssup_extra;
	struct varlena *v;
	Datum		t = text_datum(original, &state->abbrev, &v);
	Datum		res;

	res = state->text.abbrev_converter(t, &state->text);
	FREE_IF_COPY_DATUM(v, original);
	return res;
}

static int
gsst_abbrev_cmp_text_rules(Datum x, Datum y, SortSupport ssup)
{
	GsstSortState *state = (GsstSortState *) ssup->ssup_extra;

	return state->text.comparator(x, y, &state->text);
}

static bool
gsst_abbrev_abort_text_rules(int memtupcount, SortSupport ssup)
{
	GsstSortState *state = (GsstSortState *) ssup->ssup_extra;

	return state->text.abbrev_abort(memtupcount, &state->text);
}

PG_FUNCTION_INFO_V1(gsst_sortsupport);
Datum
gsst_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);
	Oid			collid = ssup->ssup_collation;
	GsstSortState *state;
	MemoryContext old;

	if (gsst_collation_is_c(collid))
	{
		ssup->comparator = gsst_cmp_c;
		if (ssup->abbreviate)
		{
			GsstAbbrevCard *card;

			old = MemoryContextSwitchTo(ssup->ssup_cxt);
			card = palloc(sizeof(GsstAbbrevCard));
			card->counting = true;
			initHyperLogLog(&card->abbrev, 10);
			initHyperLogLog(&card->full, 10);
			MemoryContextSwitchTo(old);
			ssup->ssup_extra = card;
			ssup->comparator = ssup_datum_unsigned_cmp;
			ssup->abbrev_converter = gsst_abbrev_convert_c;
			ssup->abbrev_abort = gsst_abbrev_abort_c;
			ssup->abbrev_full_comparator = gsst_cmp_c;
		}
		PG_RETURN_VOID();
	}

	old = MemoryContextSwitchTo(ssup->ssup_cxt);
	state = palloc0(sizeof(GsstSortState));
	state->left.cxt = ssup->ssup_cxt;
	state->right.cxt = ssup->ssup_cxt;
	state->abbrev.cxt = ssup->ssup_cxt;
	state->text.ssup_cxt = ssup->ssup_cxt;
	state->text.ssup_collation = collid;
	state->text.ssup_reverse = ssup->ssup_reverse;
	state->text.ssup_nulls_first = ssup->ssup_nulls_first;
	state->text.ssup_attno = ssup->ssup_attno;
	state->text.abbreviate = ssup->abbreviate;
	/* raises text's error for a missing collation */
	varstr_sortsupport(&state->text, TEXTOID, collid);
	MemoryContextSwitchTo(old);

	ssup->ssup_extra = state;
	ssup->comparator = gsst_cmp_text_rules;
	if (state->text.abbrev_converter)
	{
		ssup->comparator = state->text.comparator == ssup_datum_unsigned_cmp
			? ssup_datum_unsigned_cmp : gsst_abbrev_cmp_text_rules;
		ssup->abbrev_converter = gsst_abbrev_convert_text_rules;
		ssup->abbrev_abort = gsst_abbrev_abort_text_rules;
		ssup->abbrev_full_comparator = gsst_cmp_text_rules;
	}
	PG_RETURN_VOID();
}
