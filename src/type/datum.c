/*
 * datum.c - the gsst datum: encode text into it, decode it back.
 *
 * A gsst datum is a varlena whose payload is either raw text (empty, or a
 * first byte other than 0x00) or 0x00 + varint header + FSST codes
 * (src/codec/FORMAT.md, "Datum").  Raw values are byte-for-byte text
 * datums, so reading them costs nothing.  Long values of either kind may
 * be compressed by TOAST's method around that payload, as text's are
 * (gsst_datum_keep_smallest, and TOAST itself: the type's storage is
 * extended); every reader detoasts first.
 */
#include "type/type.h"

#include "access/toast_internals.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"

/* Decode with an upper bound (8 bytes a code) below this many code bytes. */
#define GSST_SHORT_CODES	512

GSST_NORETURN void
gsst_report_corrupt(const char *what, int status)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupted gsst value: %s", what),
			 status != GSST_OK ? errdetail("%s", gsst_strerror(status)) : 0));
}

/*
 * Check that bytes decoded from an untrusted datum are text: valid in the
 * database encoding and free of NUL bytes.
 */
void
gsst_verify_text(const char *data, Size len)
{
	if (len > (Size) PG_INT32_MAX ||
		!pg_verify_mbstr(GetDatabaseEncoding(), data, (int) len, true))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted gsst value: decoded bytes are not valid text in encoding \"%s\"",
						GetDatabaseEncodingName())));
}

/*
 * Bytes that are to become a gsst value: text's own rule and error (22021),
 * so that a gsst column never holds what a text column would refuse, and a
 * dump of it always restores.
 */
void
gsst_verify_input(const char *data, Size len)
{
	if (len > (Size) PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gsst value of %zu bytes is too long", len)));
	(void) pg_verify_mbstr(GetDatabaseEncoding(), data, (int) len, false);
}

bool
gsst_value_is_raw(const struct varlena *value)
{
	return VARSIZE_ANY_EXHDR(value) == 0 ||
		((const uint8 *) VARDATA_ANY(value))[0] != 0;
}

/*
 * The family's encoder for the current role, or NULL (values stay raw):
 * encoding needs the ENCODE right, because a role that can encode chosen
 * text can read a dictionary's symbols off the sizes.  A family without a
 * table learns from what passes by when the role may teach it.
 */
static const gsst_encoder *
encoder_for(int32 family, const char *data, Size len, GsstLearnPolicy policy,
			uint32 *table_id)
{
	uint8		rights = gsst_family_rights(family);
	const gsst_encoder *enc;

	if (!(rights & GSST_RIGHT_ENCODE))
		return NULL;
	enc = gsst_family_encoder(family, table_id);
	if (enc == NULL &&
		(rights & (policy == GSST_LEARN_FROM_WRITES ? GSST_RIGHT_LEARN : GSST_RIGHT_TRAIN)))
	{
		gsst_learn_observe(family, data, len, policy == GSST_LEARN_IF_OWNER);
		/* the value that completed a sample may already be encoded */
		enc = gsst_family_encoder(family, table_id);
	}
	return enc;
}

/*
 * The rule for what is stored: codes are kept when the header and codes
 * together are shorter than the text; else the text is stored raw.  Text
 * that TOAST compresses in every row of its column (GsstToastRule) is then
 * stored compressed with TOAST's method where that comes out smaller
 * (gsst_datum_keep_smallest).  Every path that stores values follows it
 * (gsst_datum_encode_into here, the tiles of the bulk paths in batch.c),
 * which is why they store the same bytes.
 */
bool
gsst_codes_are_shorter(Size header_len, Size ncodes, Size text_len)
{
	return header_len + ncodes < text_len;
}

/*
 * Text compressed as TOAST compresses it, with the column's method: dest,
 * with room for the text's datum, is filled with the text raw, and its
 * compressed form is returned (palloc'd), or NULL when TOAST would keep it
 * as it is.
 */
struct varlena *
gsst_text_compressed(const char *data, Size len, const GsstToastRule *toast,
					 struct varlena *dest)
{
	struct varlena *compressed;

	memcpy(VARDATA(dest), data, len);
	SET_VARSIZE(dest, VARHDRSZ + len);
	compressed = (struct varlena *) DatumGetPointer(toast_compress_datum(PointerGetDatum(dest),
																		 toast->method));
	/* it was given room for the whole text; it stays while the codes are made */
	if (compressed != NULL && len > ALLOCSET_SEPARATE_THRESHOLD)
		compressed = repalloc(compressed, VARSIZE(compressed));
	return compressed;
}

/*
 * Make dest, the datum of a text that TOAST compresses in every row of its
 * column (its codes, or the text raw), the smallest of what can be stored
 * for it: dest as it is, the text compressed (text_compressed, from
 * gsst_text_compressed), or the codes compressed.  Codes no longer than
 * the text compressed stay as they are (TOAST may still compress them).  A
 * log line repeated a hundred times compresses far better than its codes,
 * and the codes then often compress better still.  A compressed result is
 * an in-line compressed datum as TOAST makes them, which TOAST keeps, so
 * the value is never stored larger than text's, whatever the rest of its
 * row.  Frees text_compressed.
 */
void
gsst_datum_keep_smallest(struct varlena *dest, struct varlena *text_compressed,
						 const GsstToastRule *toast)
{
	struct varlena *best = text_compressed;

	if (VARSIZE(dest) <= VARSIZE(text_compressed))
	{
		pfree(text_compressed);
		return;
	}
	if (!gsst_value_is_raw(dest))
	{
		struct varlena *codes_compressed = (struct varlena *)
			DatumGetPointer(toast_compress_datum(PointerGetDatum(dest), toast->method));

		if (codes_compressed != NULL &&
			VARSIZE(codes_compressed) <= VARSIZE(text_compressed))
			best = codes_compressed;
		else if (codes_compressed != NULL)
			pfree(codes_compressed);
	}
	/* smaller than dest, which has room for it */
	memcpy(dest, best, VARSIZE(best));
	if (best != text_compressed)
		pfree(best);
	pfree(text_compressed);
}

/* A datum holding text raw. */
struct varlena *
gsst_datum_raw(const char *data, Size len)
{
	struct varlena *result = (struct varlena *) palloc(VARHDRSZ + len);

	memcpy(VARDATA(result), data, len);
	SET_VARSIZE(result, VARHDRSZ + len);
	return result;
}

/*
 * The codes of len bytes of text with a table at hand (enc, table_id) into
 * dest, which has room for GSST_DATUM_ENCODE_BOUND(len) bytes, when they
 * are shorter than the text (gsst_codes_are_shorter); false, with dest
 * holding anything, when not.
 */
static bool
encode_codes_into(const gsst_encoder *enc, uint32 table_id, const char *data, Size len,
				  struct varlena *dest)
{
	uint8		header[GSST_DATUM_MAX_HEADER];
	size_t		hlen;
	size_t		ncodes;

	if (enc == NULL || len >= MaxAllocSize - VARHDRSZ - GSST_ENCODE_SLACK)
		return false;
	hlen = gsst_datum_header_write(table_id, header);
	/* a value of at least one code */
	if (!gsst_codes_are_shorter(hlen, 1, len))
		return false;
	/* the largest code length that is still shorter than the text */
	ncodes = gsst_encode_value(enc, (const uint8 *) data, len,
							   (uint8 *) VARDATA(dest) + hlen, len - hlen - 1);
	if (ncodes == (size_t) -1)
		return false;
	Assert(gsst_codes_are_shorter(hlen, ncodes, len));
	memcpy(VARDATA(dest), header, hlen);
	SET_VARSIZE(dest, VARHDRSZ + hlen + ncodes);
	return true;
}

/*
 * Encode len bytes of text with a table at hand (enc, table_id) into dest,
 * which has room for GSST_DATUM_ENCODE_BOUND(len) bytes, by the rule above
 * for a column that TOAST treats by toast.  Returns dest.
 */
struct varlena *
gsst_datum_encode_into(const gsst_encoder *enc, uint32 table_id,
					   const char *data, Size len, const GsstToastRule *toast,
					   struct varlena *dest)
{
	struct varlena *text_compressed = NULL;

	if (enc != NULL && len >= toast->compress_len)
		text_compressed = gsst_text_compressed(data, len, toast, dest);
	if (!encode_codes_into(enc, table_id, data, len, dest))
	{
		memcpy(VARDATA(dest), data, len);
		SET_VARSIZE(dest, VARHDRSZ + len);
	}
	if (text_compressed != NULL)
		gsst_datum_keep_smallest(dest, text_compressed, toast);
	return dest;
}

/*
 * Encode len bytes of text with a table at hand (enc, table_id): a new
 * datum, by the rule above.
 */
struct varlena *
gsst_datum_encode(const gsst_encoder *enc, uint32 table_id, const char *data, Size len,
				  const GsstToastRule *toast)
{
	if (enc == NULL || len >= MaxAllocSize - VARHDRSZ - GSST_ENCODE_SLACK)
		return gsst_datum_raw(data, len);
	return gsst_datum_encode_into(enc, table_id, data, len, toast,
								  (struct varlena *) palloc(GSST_DATUM_ENCODE_BOUND(len)));
}

/*
 * The payload every stored value of a text encoded with a table holds, as
 * a datum: its codes, or the text raw when they are not shorter.  TOAST
 * compression aside (detoasting undoes it), a value holds these codes or
 * is raw.
 */
struct varlena *
gsst_datum_codes(const gsst_encoder *enc, uint32 table_id, const char *data, Size len)
{
	struct varlena *dest;

	if (enc == NULL || len >= MaxAllocSize - VARHDRSZ - GSST_ENCODE_SLACK)
		return gsst_datum_raw(data, len);
	dest = (struct varlena *) palloc(GSST_DATUM_ENCODE_BOUND(len));
	if (!encode_codes_into(enc, table_id, data, len, dest))
	{
		memcpy(VARDATA(dest), data, len);
		SET_VARSIZE(dest, VARHDRSZ + len);
	}
	return dest;
}

/*
 * Encode len bytes of text as a gsst datum with the current table of the
 * family (family <= 0: none).  Without a table, without the right to use
 * it, or when the codes would not be shorter, the value is stored raw.
 */
struct varlena *
gsst_encode_bytes(const char *data, Size len, int32 family, GsstLearnPolicy policy)
{
	uint32		table_id = 0;
	const gsst_encoder *enc = NULL;
	GsstToastRule toast;

	/* A raw value starting with NUL would read as encoded. */
	if (len > 0 && data[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("invalid byte sequence for encoding \"%s\": 0x00",
						GetDatabaseEncodingName())));

	/* no header and code fit in fewer than 3 bytes */
	if (family > 0 && len > 2)
	{
		family = gsst_family_for_writes(family);
		enc = encoder_for(family, data, len, policy, &table_id);
	}
	if (enc == NULL)
		return gsst_datum_raw(data, len);
	toast = gsst_family_toast_rule(family);
	return gsst_datum_encode(enc, table_id, data, len, &toast);
}

/* Parse the header of an encoded value; returns the header length. */
static inline int
parse_header(const uint8 *p, Size n, uint32 *table_id)
{
	int			hlen = gsst_datum_header_parse_fast(p, n, table_id);

	if (unlikely(hlen < 0))
		gsst_report_corrupt("bad header", hlen);
	return hlen;
}

/* The dictionary an encoded (detoasted) value refers to; 0 for a raw one. */
uint32
gsst_value_table_id(const struct varlena *value)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(value);
	Size		n = VARSIZE_ANY_EXHDR(value);
	uint32		table_id = 0;

	if (n == 0 || p[0] != 0)
		return 0;
	(void) parse_header(p, n, &table_id);
	return table_id;
}

/*
 * Bytes from outside (gsst.decompress(bytea), binary input) may name any
 * dictionary: decoding codes of one's choice reads its symbols, so an
 * encoded value is accepted only from a role that may read its family.
 */
void
gsst_require_read_right(const struct varlena *value)
{
	uint32		table_id = gsst_value_table_id(value);
	int32		family;

	if (table_id == 0)
		return;
	if (gsst_dict_find(table_id, &family) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted gsst value: unknown dictionary %u", table_id)));
	if (!gsst_family_may(family, GSST_RIGHT_READ))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to decode codes of gsst dictionary %u", table_id),
				 errdetail("Encoded bytes from outside are decoded only for roles that may read the column the dictionary belongs to."),
				 errhint("Send the value as text instead.")));
}

/*
 * An encoded value from outside (binary input) in the form gsst stores it:
 * what gsst_datum_encode gives for its text with its own dictionary, codes
 * or raw.  Equality compares stored bytes (compare.c), which holds only
 * when every value stored encoded holds these codes.  The codes must
 * decode to valid text; the caller has checked the right to read the
 * dictionary.
 */
struct varlena *
gsst_datum_canonical(const struct varlena *value)
{
	GsstBuffer	buf = GSST_BUFFER_INIT;
	uint32		table_id = gsst_value_table_id(value);
	int32		family = 0;
	GsstToastRule toast;
	Size		len;
	const char *bytes = gsst_value_bytes(value, &len, &buf);
	struct varlena *result;

	gsst_verify_input(bytes, len);
	(void) gsst_dict_find(table_id, &family);
	toast = gsst_family_toast_rule(family);
	result = gsst_datum_encode(gsst_dict_encoder(table_id), table_id, bytes, len, &toast);
	if (buf.data)
		pfree(buf.data);
	return result;
}

/*
 * The decoded bytes of a detoasted (possibly short-header) gsst value.
 * Raw values point into the value itself; encoded ones are decoded into
 * buf, which keeps VARHDRSZ bytes free in front of the text and one byte
 * after it, so callers can turn it into a text datum or a C string in
 * place.  Corrupt codes raise data_corrupted.
 */
const char *
gsst_value_bytes(const struct varlena *value, Size *len, GsstBuffer *buf)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(value);
	Size		n = VARSIZE_ANY_EXHDR(value);
	uint32		table_id;
	int			hlen;
	const gsst_table *table;
	const uint8 *codes;
	Size		ncodes;
	Size		cap;
	int64		decoded;

	if (n == 0 || p[0] != 0)
	{
		*len = n;
		return (const char *) p;
	}

	hlen = parse_header(p, n, &table_id);
	table = gsst_dict_table(table_id);
	codes = p + hlen;
	ncodes = n - hlen;

	if (ncodes <= GSST_SHORT_CODES)
		cap = ncodes * GSST_MAX_SYMBOL_LEN;
	else
	{
		int64		exact = gsst_decoded_length(table, codes, ncodes);

		if (exact < 0)
			gsst_report_corrupt("bad codes", (int) exact);
		if ((uint64) exact > MaxAllocSize - VARHDRSZ - 1)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("decoded gsst value would exceed %zu bytes",
							(Size) (MaxAllocSize - VARHDRSZ - 1))));
		cap = (Size) exact;
	}

	if (buf->data == NULL || buf->cap < VARHDRSZ + cap + 1)
	{
		if (buf->data)
			pfree(buf->data);
		buf->cap = VARHDRSZ + cap + 1;
		buf->data = MemoryContextAlloc(buf->cxt ? buf->cxt : CurrentMemoryContext,
									   buf->cap);
	}

	decoded = gsst_decode_value(table, codes, ncodes,
								(uint8 *) buf->data + VARHDRSZ, cap);
	if (decoded < 0)
		gsst_report_corrupt("bad codes", (int) decoded);

	*len = (Size) decoded;
	return buf->data + VARHDRSZ;
}

/*
 * The value as a text datum: the value itself when raw (a raw gsst datum is
 * a text datum), else a freshly decoded text.
 */
text *
gsst_value_to_text(struct varlena *value)
{
	GsstBuffer	buf = GSST_BUFFER_INIT;
	Size		len;
	const char *bytes = gsst_value_bytes(value, &len, &buf);

	if (buf.data == NULL)
		return (text *) value;
	/* decoded right after the header room */
	SET_VARSIZE(buf.data, VARHDRSZ + len);
	Assert(bytes == VARDATA(buf.data));
	(void) bytes;
	return (text *) buf.data;
}

/*
 * Decoded length of a detoasted value without decoding it; *table_id gets
 * the table of an encoded value, 0 for a raw one.
 */
int64
gsst_value_raw_length(const struct varlena *value, uint32 *table_id)
{
	GsstView	view;
	int64		len;

	gsst_value_view(value, &view);
	*table_id = view.table_id;
	if (view.table == NULL)
		return (int64) view.len;
	len = gsst_decoded_length(view.table, view.data, view.len);
	if (len < 0)
		gsst_report_corrupt("bad codes", (int) len);
	return len;
}

/*
 * A detoasted value as what a reader needs: its bytes when raw (table
 * NULL), else its codes and their table.
 */
void
gsst_value_view(const struct varlena *value, GsstView *view)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(value);
	Size		n = VARSIZE_ANY_EXHDR(value);
	uint32		table_id;
	int			hlen;

	view->padded = false;
	view->table_id = 0;
	if (n == 0 || p[0] != 0)
	{
		view->table = NULL;
		view->data = p;
		view->len = n;
		return;
	}
	hlen = parse_header(p, n, &table_id);
	view->table = gsst_dict_table(table_id);
	view->table_id = table_id;
	view->data = p + hlen;
	view->len = n - hlen;
}

/* memcmp, then the shorter first, as a GSST_ORDER_* value. */
static int
bytes_order(const uint8 *a, Size na, const uint8 *b, Size nb)
{
	int			c = memcmp(a, b, Min(na, nb));

	if (c != 0)
		return c < 0 ? GSST_ORDER_LESS : GSST_ORDER_GREATER;
	return na == nb ? GSST_ORDER_EQUAL
		: na < nb ? GSST_ORDER_PREFIX_OF : GSST_ORDER_HAS_PREFIX;
}

/*
 * Where the text of a stands against b (each a viewed gsst value, or text
 * bytes with table NULL) in byte order, decoding only up to the first byte
 * that differs: a GSST_ORDER_* value.
 */
int
gsst_view_order(const GsstView *a, const GsstView *b)
{
	int			order;
	int			rc;

	if (a->table == NULL && b->table == NULL)
		return bytes_order(a->data, a->len, b->data, b->len);
	if (b->table == NULL)
		rc = b->padded
			? gsst_compare_text_padded(a->table, a->data, a->len, b->data, b->len, &order)
			: gsst_compare_text(a->table, a->data, a->len, b->data, b->len, &order);
	else if (a->table == NULL)
	{
		rc = a->padded
			? gsst_compare_text_padded(b->table, b->data, b->len, a->data, a->len, &order)
			: gsst_compare_text(b->table, b->data, b->len, a->data, a->len, &order);
		order = -order;
	}
	else
		rc = gsst_compare_codes(a->table, a->data, a->len,
								b->table, b->data, b->len, &order);
	if (rc < 0)
		gsst_report_corrupt("bad codes", rc);
	return order;
}

/*
 * The first bytes of a value's text, at least want of them unless it is
 * shorter, into out (room for want + GSST_MAX_SYMBOL_LEN bytes) or in
 * place for a raw value; returns where they are and sets *len.
 */
const uint8 *
gsst_view_prefix(const GsstView *view, Size want, uint8 *out, Size *len)
{
	int64		got;

	if (view->table == NULL)
	{
		*len = view->len;
		return view->data;
	}
	got = gsst_decode_prefix(view->table, view->data, view->len, out,
							 want + GSST_MAX_SYMBOL_LEN, want);
	if (got < 0)
		gsst_report_corrupt("bad codes", (int) got);
	*len = (Size) got;
	return out;
}
