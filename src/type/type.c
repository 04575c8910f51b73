/*
 * type.c - the SQL type gsst: input/output, binary I/O, typmod, casts and
 * the compress/decompress functions.
 *
 * The typmod of a gsst column is its dictionary family.  Every path that
 * stores a value into a column sees that typmod (input and receive
 * functions during COPY, the text -> gsst cast, the length coercion applied
 * to literals and parameters) and encodes with the family's current table.
 */
#include "type/type.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gsst_in);
PG_FUNCTION_INFO_V1(gsst_out);
PG_FUNCTION_INFO_V1(gsst_recv);
PG_FUNCTION_INFO_V1(gsst_send);
PG_FUNCTION_INFO_V1(gsst_typmod_in);
PG_FUNCTION_INFO_V1(gsst_typmod_out);
PG_FUNCTION_INFO_V1(gsst_from_text);
PG_FUNCTION_INFO_V1(gsst_apply_family);
PG_FUNCTION_INFO_V1(gsst_apply_family_support);
PG_FUNCTION_INFO_V1(gsst_to_text);
PG_FUNCTION_INFO_V1(gsst_compress);
PG_FUNCTION_INFO_V1(gsst_decompress_bytea);
PG_FUNCTION_INFO_V1(gsst_value_dictionary);

/* A typmod names a family when it is positive. */
static inline int32
typmod_family(int32 typmod)
{
	return typmod > 0 ? typmod : 0;
}

Datum
gsst_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	int32		typmod = PG_GETARG_INT32(2);

	/*
	 * As for textin: a C string reaches an input function checked already
	 * (the protocol, COPY, the scanner), so it is not checked again here.
	 */
	PG_RETURN_POINTER(gsst_encode_bytes(str, strlen(str), typmod_family(typmod),
										GSST_LEARN_FROM_WRITES));
}

Datum
gsst_out(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	GsstBuffer	buf = GSST_BUFFER_INIT;
	Size		len;
	const char *bytes = gsst_value_bytes(value, &len, &buf);
	char	   *result;

	if (buf.data)
	{
		/* callers pfree the result: it must start its chunk */
		result = buf.data;
		memmove(result, bytes, len);
		result[len] = '\0';
	}
	else
		result = pnstrdup(bytes, len);
	PG_RETURN_CSTRING(result);
}

/*
 * Binary input.  Plain text (the format gsst_send writes, and text's own)
 * is checked like textrecv does and encoded with the column's family.  An
 * encoded datum (leading 0x00) is accepted only from a role that may read
 * its dictionary's family, when its table exists and its codes decode to
 * valid text; it is stored as gsst itself would store that text with that
 * dictionary (gsst_datum_canonical), so that equal texts of one dictionary
 * are equal bytes.
 */
Datum
gsst_recv(PG_FUNCTION_ARGS)
{
	StringInfo	msg = (StringInfo) PG_GETARG_POINTER(0);
	int32		typmod = PG_GETARG_INT32(2);
	int			remaining = msg->len - msg->cursor;
	struct varlena *result;

	if (remaining > 0 && msg->data[msg->cursor] == '\0')
	{
		struct varlena *given = (struct varlena *) palloc(VARHDRSZ + remaining);

		SET_VARSIZE(given, VARHDRSZ + remaining);
		pq_copymsgbytes(msg, VARDATA(given), remaining);
		gsst_require_read_right(given);
		result = gsst_datum_canonical(given);
		pfree(given);
	}
	else
	{
		int			nbytes;
		char	   *str = pq_getmsgtext(msg, remaining, &nbytes);

		result = gsst_encode_bytes(str, nbytes, typmod_family(typmod),
								   GSST_LEARN_FROM_WRITES);
		pfree(str);
	}
	PG_RETURN_POINTER(result);
}

/* Binary output is the decoded text, exactly text's binary format. */
Datum
gsst_send(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	GsstBuffer	buf = GSST_BUFFER_INIT;
	Size		len;
	const char *bytes = gsst_value_bytes(value, &len, &buf);
	StringInfoData out;

	pq_begintypsend(&out);
	pq_sendtext(&out, bytes, len);
	PG_RETURN_BYTEA_P(pq_endtypsend(&out));
}

Datum
gsst_typmod_in(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	int32	   *mods;
	int			n;

	mods = ArrayGetIntegerTypmods(arr, &n);
	if (n != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("type gsst takes one modifier, its dictionary family")));
	if (mods[0] < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsst dictionary family must be positive")));
	PG_RETURN_INT32(mods[0]);
}

Datum
gsst_typmod_out(PG_FUNCTION_ARGS)
{
	int32		typmod = PG_GETARG_INT32(0);

	PG_RETURN_CSTRING(typmod > 0 ? psprintf("(%d)", typmod) : pstrdup(""));
}

/* Cast text (or varchar) -> gsst(family): encode. */
Datum
gsst_from_text(PG_FUNCTION_ARGS)
{
	text	   *src = PG_GETARG_TEXT_PP(0);
	int32		typmod = PG_GETARG_INT32(1);

	PG_RETURN_POINTER(gsst_encode_bytes(VARDATA_ANY(src), VARSIZE_ANY_EXHDR(src),
										typmod_family(typmod), GSST_LEARN_FROM_WRITES));
}

/*
 * Length coercion gsst -> gsst(family): encode raw values with the family's
 * table (literals and untyped parameters reach a column this way).  Values
 * already encoded keep their table, whichever family it belongs to.
 */
Datum
gsst_apply_family(PG_FUNCTION_ARGS)
{
	Datum		arg = PG_GETARG_DATUM(0);
	int32		family = typmod_family(PG_GETARG_INT32(1));
	struct varlena *value;

	if (family == 0)
		PG_RETURN_DATUM(arg);
	value = PG_DETOAST_DATUM_PACKED(arg);
	if (!gsst_value_is_raw(value))
		PG_RETURN_DATUM(arg);
	PG_RETURN_POINTER(gsst_encode_bytes(VARDATA_ANY(value),
										VARSIZE_ANY_EXHDR(value), family,
										GSST_LEARN_FROM_WRITES));
}

/*
 * Planner support of gsst_apply_family: applied to a relabelled
 * gsst.passthrough (text relabelled as gsst) it is a no-op.  ALTER COLUMN
 * ... SET COMPRESSION gsst becomes ALTER COLUMN ... TYPE gsst(f) USING
 * c::gsst.passthrough::gsst(f); with the coercion simplified away, only
 * RelabelTypes stay over the Var and ALTER TABLE keeps the heap as it is
 * (old rows stay raw, which is a valid gsst value).  The DDL hook gives a
 * gsst column another family the same way (gsst_relabel_families): its
 * values keep their bytes, each naming its own dictionary.
 */
Datum
gsst_apply_family_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestSimplify *req;
	FuncExpr   *call;
	Node	   *arg;
	Node	   *typmod_arg;
	const GsstCatalog *cat;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestSimplify *) rawreq;
	call = req->fcall;
	if (list_length(call->args) < 2)
		PG_RETURN_POINTER(NULL);
	arg = linitial(call->args);
	typmod_arg = lsecond(call->args);
	if (!IsA(typmod_arg, Const) || ((Const *) typmod_arg)->constisnull)
		PG_RETURN_POINTER(NULL);
	/*
	 * The only binary-compatible casts into gsst come from gsst.passthrough.
	 * Constant folding strips nested RelabelTypes, so by now the passthrough
	 * hop may be gone and the relabel sit directly over the text Var.  A
	 * gsst column itself is relabelled only while the DDL hook gives it
	 * another family in place (gsst_relabel_families).
	 */
	cat = gsst_catalog(true);
	if (cat == NULL)
		PG_RETURN_POINTER(NULL);
	if (exprType(arg) == cat->gsst_type && IsA(arg, Var) && gsst_relabel_families)
		PG_RETURN_POINTER(makeRelabelType((Expr *) arg, call->funcresulttype,
										  DatumGetInt32(((Const *) typmod_arg)->constvalue),
										  call->funccollid, COERCE_IMPLICIT_CAST));
	if (!IsA(arg, RelabelType) ||
		(exprType((Node *) ((RelabelType *) arg)->arg) == cat->gsst_type &&
		 !gsst_relabel_families))
		PG_RETURN_POINTER(NULL);

	PG_RETURN_POINTER(makeRelabelType(((RelabelType *) arg)->arg,
									  call->funcresulttype,
									  DatumGetInt32(((Const *) typmod_arg)->constvalue),
									  call->funccollid,
									  COERCE_IMPLICIT_CAST));
}

/* Cast gsst -> text (implicit) and gsst.decompress(gsst): decode. */
Datum
gsst_to_text(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));

	PG_RETURN_TEXT_P(gsst_value_to_text(value));
}

/*
 * gsst.compress(text, family int): encode with the family's current table,
 * if the caller may use the family (else the value stays raw).  It teaches
 * a family without a table only when the caller owns its column.
 */
Datum
gsst_compress(PG_FUNCTION_ARGS)
{
	text	   *src = PG_GETARG_TEXT_PP(0);
	int32		family = PG_GETARG_INT32(1);

	if (family < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsst dictionary family must be positive")));
	PG_RETURN_POINTER(gsst_encode_bytes(VARDATA_ANY(src), VARSIZE_ANY_EXHDR(src),
										family, GSST_LEARN_IF_OWNER));
}

/*
 * gsst.decompress(bytea): decode untrusted bytes holding a gsst datum
 * payload; anything that is not a valid value is data_corrupted.  Codes
 * are decoded only for a role that may read their dictionary's family.
 */
Datum
gsst_decompress_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);
	text	   *result;

	gsst_require_read_right((struct varlena *) value);
	result = gsst_value_to_text((struct varlena *) value);

	gsst_verify_text(VARDATA_ANY(result), VARSIZE_ANY_EXHDR(result));
	PG_RETURN_TEXT_P(result);
}

/*
 * gsst.value_dictionary(gsst): the dictionary an encoded value refers to,
 * NULL for a raw value.
 */
Datum
gsst_value_dictionary(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	uint32		table_id;

	if (gsst_value_is_raw(value))
		PG_RETURN_NULL();
	if (gsst_datum_header_parse((const uint8 *) VARDATA_ANY(value),
								VARSIZE_ANY_EXHDR(value), &table_id) < 0)
		gsst_report_corrupt("bad header", GSST_ERR_VERSION);
	PG_RETURN_INT32((int32) table_id);
}

/*
 * gsst.datum(gsst): the stored payload as bytes (raw text, or 0x00 +
 * header + codes), for inspection and for gsst.decompress(bytea).
 */
PG_FUNCTION_INFO_V1(gsst_datum_bytes);
Datum
gsst_datum_bytes(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));

	PG_RETURN_BYTEA_P((bytea *) value);
}

/*
 * octet_length(gsst): the length of the decoded text, summed over the
 * codes' symbols.  A value TOAST keeps out of line is fetched only far
 * enough to see whether it is raw (then TOAST knows its size).
 */
PG_FUNCTION_INFO_V1(gsst_octet_length);
Datum
gsst_octet_length(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	struct varlena *value;
	uint32		table_id;
	int64		len;

	if (VARATT_IS_EXTENDED(DatumGetPointer(d)) && !VARATT_IS_SHORT(DatumGetPointer(d)))
	{
		struct varlena *head = PG_DETOAST_DATUM_SLICE(d, 0, 1);

		if (gsst_value_is_raw(head))
			PG_RETURN_INT32((int32) (toast_raw_datum_size(d) - VARHDRSZ));
	}
	value = PG_DETOAST_DATUM_PACKED(d);
	len = gsst_value_raw_length(value, &table_id);
	PG_RETURN_INT32((int32) len);
}

/*
 * length(gsst): characters of the decoded text, as text's length counts
 * them.  In UTF-8 they are counted on the codes (gsst_decoded_utf8_chars;
 * stored values are valid text); in a single-byte encoding they are the
 * bytes; other encodings decode.
 */
PG_FUNCTION_INFO_V1(gsst_length);
Datum
gsst_length(PG_FUNCTION_ARGS)
{
	struct varlena *value;
	const uint8 *p;
	Size		n;
	uint32		table_id;
	int			hlen;
	int64		chars;

	if (pg_database_encoding_max_length() == 1)
		return gsst_octet_length(fcinfo);

	value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	p = (const uint8 *) VARDATA_ANY(value);
	n = VARSIZE_ANY_EXHDR(value);
	if (gsst_value_is_raw(value))
		PG_RETURN_INT32(pg_mbstrlen_with_len((const char *) p, (int) n));
	if (GetDatabaseEncoding() != PG_UTF8)
	{
		GsstBuffer	buf = GSST_BUFFER_INIT;
		Size		len;
		const char *bytes = gsst_value_bytes(value, &len, &buf);

		chars = pg_mbstrlen_with_len(bytes, (int) len);
		pfree(buf.data);
		PG_RETURN_INT32((int32) chars);
	}
	hlen = gsst_datum_header_parse(p, n, &table_id);
	if (hlen < 0)
		gsst_report_corrupt("bad header", hlen);
	chars = gsst_decoded_utf8_chars(gsst_dict_table(table_id), p + hlen, n - hlen);
	if (chars < 0)
		gsst_report_corrupt("bad codes", (int) chars);
	PG_RETURN_INT32((int32) chars);
}
