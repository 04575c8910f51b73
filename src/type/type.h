/*
 * type.h - the SQL type gsst (src/type/): its values as stored, encoding
 * and decoding them (datum.c), the type's I/O and casts (type.c),
 * comparison and hashing (compare.c), LIKE (like.c) and text functions
 * (textops.c).
 *
 * Above dict/: a value names its dictionary, and writing one may teach its
 * family.
 */
#ifndef GSST_TYPE_H
#define GSST_TYPE_H

#include "dict/dict.h"

/* datum.c */
typedef enum GsstLearnPolicy
{
	GSST_LEARN_FROM_WRITES,		/* input and casts: LEARN right, learner only */
	GSST_LEARN_IF_OWNER			/* gsst.compress: TRAIN right */
} GsstLearnPolicy;

extern bool gsst_codes_are_shorter(Size header_len, Size ncodes, Size text_len);
extern struct varlena *gsst_text_compressed(const char *data, Size len,
											const GsstToastRule *toast,
											struct varlena *dest);
extern void gsst_datum_keep_smallest(struct varlena *dest, struct varlena *text_compressed,
									 const GsstToastRule *toast);
extern struct varlena *gsst_datum_raw(const char *data, Size len);
/* Room gsst_datum_encode_into needs for len bytes of text. */
#define GSST_DATUM_ENCODE_BOUND(len)	(VARHDRSZ + (Size) (len) + GSST_ENCODE_SLACK)
extern struct varlena *gsst_datum_encode_into(const gsst_encoder *enc, uint32 table_id,
											  const char *data, Size len,
											  const GsstToastRule *toast,
											  struct varlena *dest);
extern struct varlena *gsst_datum_encode(const gsst_encoder *enc, uint32 table_id,
										 const char *data, Size len,
										 const GsstToastRule *toast);
extern struct varlena *gsst_datum_codes(const gsst_encoder *enc, uint32 table_id,
										const char *data, Size len);
extern struct varlena *gsst_encode_bytes(const char *data, Size len, int32 family,
										 GsstLearnPolicy policy);
extern struct varlena *gsst_datum_canonical(const struct varlena *value);
extern const char *gsst_value_bytes(const struct varlena *value, Size *len,
									GsstBuffer *buf);
extern text *gsst_value_to_text(struct varlena *value);
extern int64 gsst_value_raw_length(const struct varlena *value, uint32 *table_id);
extern bool gsst_value_is_raw(const struct varlena *value);
extern uint32 gsst_value_table_id(const struct varlena *value);
extern void gsst_require_read_right(const struct varlena *value);
extern void gsst_verify_text(const char *data, Size len);
extern void gsst_verify_input(const char *data, Size len);
extern GSST_NORETURN void gsst_report_corrupt(const char *what, int status);

/*
 * A value as stored: raw bytes (table NULL), or codes and their table.
 * padded: raw bytes that may be read 8 bytes past their end.
 */
typedef struct GsstView
{
	const gsst_table *table;
	uint32		table_id;		/* 0 when raw */
	const uint8 *data;
	Size		len;
	bool		padded;
} GsstView;

extern void gsst_value_view(const struct varlena *value, GsstView *view);
extern int	gsst_view_order(const GsstView *a, const GsstView *b);
extern const uint8 *gsst_view_prefix(const GsstView *view, Size want, uint8 *out,
									 Size *len);

/*
 * PG_DETOAST_DATUM_PACKED without a function call for a datum stored in
 * line and uncompressed, the usual case on the per-row paths.
 */
static inline struct varlena *
gsst_detoast_packed(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
		return pg_detoast_datum_packed(v);
	return v;
}

/* compare.c */
extern bool gsst_collation_is_c(Oid collid);

#endif							/* GSST_TYPE_H */
