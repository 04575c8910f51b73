/*
 * partial.c - answers that need only the start of a value: its first bytes,
 * and its order against text or against another code sequence, decoded up
 * to the first byte that differs.
 *
 * These read the codes only as far as the answer needs, so codes after
 * that point are not validated, nor are codes that two sequences of one
 * table share when what follows gives the answer: they serve values that
 * were validated when they were stored.  Ordering is memcmp's, then the shorter first,
 * which is text's order under the C collation.
 */
#include "codec_internal.h"

/* First differing byte of two words that differ, as the sign of a - b. */
GSST_INLINE int
word_order(uint64_t a, uint64_t b)
{
	unsigned	at = (unsigned) __builtin_ctzll(a ^ b) & ~7u;

	return ((a >> at) & 0xFF) < ((b >> at) & 0xFF) ? GSST_ORDER_LESS : GSST_ORDER_GREATER;
}

/*
 * Decode codes until at least want bytes are out or the codes end, into
 * out (room for want + 8 bytes); the count, or < 0.  The count may pass
 * want by up to 7 bytes, which the comparisons do not read.
 */
GSST_INLINE int64_t
decode_window(const gsst_table *table, const uint8_t *in, size_t in_len,
			  uint8_t *out, size_t want)
{
	const uint8_t *end = in + in_len;
	size_t		o = 0;

	while (o < want && in < end)
	{
		unsigned	code = *in++;

		if (code == GSST_ESCAPE)
		{
			if (in == end)
				return GSST_ERR_DANGLING_ESCAPE;
			out[o++] = *in++;
		}
		else
		{
			if (GSST_UNLIKELY(table->len[code] == 0))
				return GSST_ERR_BAD_CODE;
			/* o < want, so the 8 bytes end within want + 7 */
			store_u64(out + o, table->symbol[code]);
			o += table->len[code];
		}
	}
	return (int64_t) o;
}

int64_t
gsst_decode_prefix(const gsst_table *table, const uint8_t *in, size_t in_len,
				   uint8_t *out, size_t out_cap, size_t want)
{
	if (table == NULL || (in == NULL && in_len > 0) || out == NULL ||
		want > SIZE_MAX - GSST_MAX_SYMBOL_LEN || out_cap < want + GSST_MAX_SYMBOL_LEN)
		return GSST_ERR_ARG;
	return decode_window(table, in, in_len, out, want);
}

/*
 * gsst_compare_text's loop.  With padded, the 8 bytes after the text are
 * readable, so that every symbol compares as one word; without, a symbol
 * that reaches within 8 bytes of the text's end compares byte by byte.
 */
GSST_INLINE int
compare_text(const gsst_table *table, const uint8_t *in, size_t in_len,
			 const uint8_t *text, size_t text_len, int *order, int padded)
{
	const uint8_t *end = in + in_len;
	size_t		p = 0;

	if (table == NULL || order == NULL || (in == NULL && in_len > 0) ||
		(text == NULL && text_len > 0))
		return GSST_ERR_ARG;
	while (in < end)
	{
		unsigned	code = *in++;

		if (code == GSST_ESCAPE)
		{
			if (in == end)
				return GSST_ERR_DANGLING_ESCAPE;
			if (p == text_len)
			{
				*order = GSST_ORDER_HAS_PREFIX;
				return GSST_OK;
			}
			if (*in != text[p])
			{
				*order = *in < text[p] ? GSST_ORDER_LESS : GSST_ORDER_GREATER;
				return GSST_OK;
			}
			in++;
			p++;
		}
		else
		{
			unsigned	n = table->len[code];
			uint64_t	sym = table->symbol[code];
			size_t		left = text_len - p;
			unsigned	both = n < left ? n : (unsigned) left;

			if (GSST_UNLIKELY(n == 0))
				return GSST_ERR_BAD_CODE;
			if (padded || left >= 8)
			{
				uint64_t	mask = low_bytes_mask(both);
				uint64_t	t = load_u64(text + p);

				if ((sym ^ t) & mask)
				{
					*order = word_order(sym & mask, t & mask);
					return GSST_OK;
				}
			}
			else
			{
				for (unsigned i = 0; i < both; i++)
				{
					uint8_t		b = (uint8_t) (sym >> (8 * i));

					if (b != text[p + i])
					{
						*order = b < text[p + i] ? GSST_ORDER_LESS : GSST_ORDER_GREATER;
						return GSST_OK;
					}
				}
			}
			if (n > left)
			{
				*order = GSST_ORDER_HAS_PREFIX;
				return GSST_OK;
			}
			p += n;
		}
	}
	*order = p == text_len ? GSST_ORDER_EQUAL : GSST_ORDER_PREFIX_OF;
	return GSST_OK;
}

int
gsst_compare_text(const gsst_table *table, const uint8_t *in, size_t in_len,
				  const uint8_t *text, size_t text_len, int *order)
{
	return compare_text(table, in, in_len, text, text_len, order, 0);
}

int
gsst_compare_text_padded(const gsst_table *table, const uint8_t *in, size_t in_len,
						 const uint8_t *text, size_t text_len, int *order)
{
	return compare_text(table, in, in_len, text, text_len, order, 1);
}

void
gsst_first_code_verdicts(const gsst_table *table, const uint8_t *text,
						 size_t text_len, int8_t verdict[256])
{
	for (unsigned c = 0; c < 256; c++)
	{
		unsigned	n = table->len[c];
		unsigned	both = n < text_len ? n : (unsigned) text_len;
		unsigned	i = 0;

		verdict[c] = GSST_FIRST_UNKNOWN;
		if (n == 0 || text_len == 0)
			continue;
		while (i < both && (uint8_t) (table->symbol[c] >> (8 * i)) == text[i])
			i++;
		if (i < both)
			verdict[c] = (uint8_t) (table->symbol[c] >> (8 * i)) < text[i]
				? GSST_FIRST_LESS : GSST_FIRST_GREATER;
		else if (n >= text_len)
			verdict[c] = GSST_FIRST_STARTS_WITH;
	}
}

/* A code sequence decoded a window at a time. */
typedef struct code_stream
{
	const gsst_table *table;
	const uint8_t *in;
	const uint8_t *end;
	size_t		have;			/* decoded bytes in buf not compared yet */
	uint8_t		buf[32 + 8 * GSST_MAX_SYMBOL_LEN];
} code_stream;

#define STREAM_FILL 32

/*
 * Decode until STREAM_FILL bytes wait or the codes end; 0 or < 0.  The
 * position and count live in locals while the loop runs: stores into buf
 * may alias the struct, which would keep them in memory.
 */
GSST_INLINE int
stream_fill(code_stream *s)
{
	const uint64_t *symbol = s->table->symbol;
	const uint8_t *len = s->table->len;
	const uint8_t *in = s->in;
	const uint8_t *end = s->end;
	uint8_t    *buf = s->buf;
	size_t		have = s->have;
	int			rc = GSST_OK;

	while (have < STREAM_FILL && in < end)
	{
		unsigned	code;

		/* 8 codes at once when none is an escape (have < 32: room for 64 more) */
		if (end - in >= 8)
		{
			uint64_t	w = load_u64(in);
			uint64_t	inv = ~w;

			if (((inv - 0x0101010101010101ull) & w & 0x8080808080808080ull) == 0)
			{
				unsigned	unused = 0;

				for (int i = 0; i < 8; i++)
				{
					unsigned	c = (unsigned) (w >> (8 * i)) & 0xFF;

					store_u64(buf + have, symbol[c]);
					have += len[c];
					unused |= len[c] == 0;
				}
				if (GSST_UNLIKELY(unused))
				{
					rc = GSST_ERR_BAD_CODE;
					break;
				}
				in += 8;
				continue;
			}
		}
		code = *in++;

		if (code == GSST_ESCAPE)
		{
			if (in == end)
			{
				rc = GSST_ERR_DANGLING_ESCAPE;
				break;
			}
			buf[have++] = *in++;
		}
		else
		{
			if (GSST_UNLIKELY(len[code] == 0))
			{
				rc = GSST_ERR_BAD_CODE;
				break;
			}
			store_u64(buf + have, symbol[code]);
			have += len[code];
		}
	}
	s->in = in;
	s->have = have;
	return rc;
}

/*
 * The length of the longest run of whole codes that a and b (of one table)
 * share: byte-equal codes decode to equal text, so their order is that of
 * what follows.  An escape's literal belongs to its code, so a run that
 * ends between the two is cut before the escape.  The run is not decoded,
 * so its codes are not checked, except when it is all of the shorter
 * sequence: then nothing follows to give the answer, and *bad is set for a
 * code beyond the table, as decoding would find it.
 */
GSST_INLINE size_t
common_codes(const gsst_table *table, const uint8_t *a, const uint8_t *b,
			 size_t n, int *bad)
{
	size_t		i = 0;
	int			escapes = 0;
	unsigned	unused = 0;
	size_t		j;

	while (i + 8 <= n)
	{
		uint64_t	w = load_u64(a + i);
		uint64_t	d = w ^ load_u64(b + i);
		/* a byte of w is 0xFF (an escape, or an escape's literal) */
		uint64_t	inv = ~w;
		unsigned	same = d ? (unsigned) __builtin_ctzll(d) / 8 : 8;

		if (((inv - 0x0101010101010101ull) & ~inv & 0x8080808080808080ull) &
			low_bytes_mask(same))
			escapes = 1;
		i += same;
		if (same < 8)
			break;
	}
	if (i + 8 > n)
		while (i < n && a[i] == b[i])
		{
			escapes |= a[i] == GSST_ESCAPE;
			i++;
		}
	*bad = 0;
	if (!escapes && i < n)
		return i;
	/* walk the codes: the run ends at the last code that ends by i */
	for (j = 0; j < i;)
	{
		unsigned	code = a[j];

		if (code == GSST_ESCAPE)
		{
			if (j + 2 > i)
				break;
			j += 2;
		}
		else
		{
			unused |= table->len[code] == 0;
			j++;
		}
	}
	*bad = i == n && unused != 0;
	return j;
}

/* Two code sequences decoded a window at a time, compared as they go. */
static GSST_NOINLINE int
compare_streams(const gsst_table *ta, const uint8_t *a, size_t a_len,
				const gsst_table *tb, const uint8_t *b, size_t b_len,
				int *order)
{
	code_stream sa;
	code_stream sb;

	sa.table = ta, sa.in = a, sa.end = a + a_len, sa.have = 0;
	sb.table = tb, sb.in = b, sb.end = b + b_len, sb.have = 0;
	for (;;)
	{
		int			rc;
		size_t		m;
		int			c;

		if ((rc = stream_fill(&sa)) < 0 || (rc = stream_fill(&sb)) < 0)
			return rc;
		m = sa.have < sb.have ? sa.have : sb.have;
		if (m == 0)
		{
			/* one has ended: the other is longer, or both are equal */
			*order = sa.have > 0 ? GSST_ORDER_HAS_PREFIX
				: sb.have > 0 ? GSST_ORDER_PREFIX_OF : GSST_ORDER_EQUAL;
			return GSST_OK;
		}
		c = memcmp(sa.buf, sb.buf, m);
		if (c != 0)
		{
			*order = c < 0 ? GSST_ORDER_LESS : GSST_ORDER_GREATER;
			return GSST_OK;
		}
		sa.have -= m;
		sb.have -= m;
		memmove(sa.buf, sa.buf + m, sa.have);
		memmove(sb.buf, sb.buf + m, sb.have);
	}
}

/* Bytes compared after the shared codes before the stream takes over. */
#define COMPARE_WINDOW 16

int
gsst_compare_codes(const gsst_table *ta, const uint8_t *a, size_t a_len,
				   const gsst_table *tb, const uint8_t *b, size_t b_len,
				   int *order)
{
	if (ta == NULL || tb == NULL || order == NULL ||
		(a == NULL && a_len > 0) || (b == NULL && b_len > 0))
		return GSST_ERR_ARG;
	if (ta == tb)
	{
		int			bad;
		size_t		k = common_codes(ta, a, b, a_len < b_len ? a_len : b_len, &bad);

		if (GSST_UNLIKELY(bad))
			return GSST_ERR_BAD_CODE;
		a += k, a_len -= k;
		b += k, b_len -= k;
		/* the first codes that differ, when neither is an escape, often decide */
		if (a_len > 0 && b_len > 0 && a[0] != GSST_ESCAPE && b[0] != GSST_ESCAPE)
		{
			unsigned	na = ta->len[a[0]];
			unsigned	nb = ta->len[b[0]];
			uint64_t	mask = low_bytes_mask(na < nb ? na : nb);
			uint64_t	sym_a = ta->symbol[a[0]] & mask;
			uint64_t	sym_b = ta->symbol[b[0]] & mask;

			if (GSST_UNLIKELY(na == 0 || nb == 0))
				return GSST_ERR_BAD_CODE;
			if (sym_a != sym_b)
			{
				*order = word_order(sym_a, sym_b);
				return GSST_OK;
			}
		}
	}

	/* the next bytes of both, most often enough */
	{
		uint8_t		wa[COMPARE_WINDOW + GSST_MAX_SYMBOL_LEN];
		uint8_t		wb[COMPARE_WINDOW + GSST_MAX_SYMBOL_LEN];
		int64_t		la = decode_window(ta, a, a_len, wa, COMPARE_WINDOW);
		int64_t		lb = decode_window(tb, b, b_len, wb, COMPARE_WINDOW);
		size_t		m;

		if (la < 0)
			return (int) la;
		if (lb < 0)
			return (int) lb;
		m = (size_t) (la < lb ? la : lb);
		if (m > COMPARE_WINDOW)
			m = COMPARE_WINDOW;
		for (size_t off = 0; off < m; off += 8)
		{
			unsigned	n = m - off < 8 ? (unsigned) (m - off) : 8;
			uint64_t	mask = low_bytes_mask(n);
			uint64_t	x = load_u64(wa + off) & mask;
			uint64_t	y = load_u64(wb + off) & mask;

			if (x != y)
			{
				*order = word_order(x, y);
				return GSST_OK;
			}
		}
		/* equal so far: a value that ended within the window decides */
		if (la < COMPARE_WINDOW || lb < COMPARE_WINDOW)
		{
			*order = la == lb ? GSST_ORDER_EQUAL
				: la < lb ? GSST_ORDER_PREFIX_OF : GSST_ORDER_HAS_PREFIX;
			return GSST_OK;
		}
	}
	return compare_streams(ta, a, a_len, tb, b, b_len, order);
}
