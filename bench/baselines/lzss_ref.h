/*
 * lzss_ref.h - host reference encoder and decoder of the LZSS baseline's
 * stream (lzss_format.h), byte-identical to the CUDA codec by construction:
 * both run the same per-chunk bodies.  C and C++.
 */
#ifndef LZSS_REF_H
#define LZSS_REF_H

#include <stdlib.h>
#include "lzss_format.h"

static inline uint64_t
lz_bound(uint64_t len, uint32_t C)
{
	uint64_t	n = (len + C - 1) / C;

	return LZ_HEADER_BYTES + 8 * (n + 1) + n * (2 + (uint64_t) C);
}

static inline void
lz_put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint64_t
lz_get64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
}

static inline void
lz_write_header(uint8_t *h, int S, uint32_t W, uint32_t C, uint64_t len)
{
	uint32_t	m = LZ_MAGIC;

	memset(h, 0, LZ_HEADER_BYTES);
	memcpy(h, &m, 4);
	h[4] = (uint8_t) S;
	h[5] = (uint8_t) W;
	memcpy(h + 8, &C, 4);
	lz_put64(h + 16, len);
	lz_put64(h + 24, (len + C - 1) / C);
}

/* returns the stream length */
static inline uint64_t
lz_ref_encode(const uint8_t *in, uint64_t len, int S, uint32_t W, uint32_t C, uint8_t *out)
{
	uint64_t	n = (len + C - 1) / C,
				base = LZ_HEADER_BYTES + 8 * (n + 1),
				pos = 0;
	uint8_t		d[LZ_MAX_CHUNK + 16] __attribute__((aligned(16))),
				ml[LZ_MAX_CHUNK],
				mo[LZ_MAX_CHUNK];

	lz_write_header(out, S, W, C, len);
	for (uint64_t c = 0; c < n; c++)
	{
		uint32_t	clen = (uint32_t) (len - c * C < C ? len - c * C : C),
					nsym = clen / S;

		memcpy(d, in + c * C, clen);
		for (uint32_t i = 0; i < nsym; i++)
			lz_find_match(d, i, nsym, W, S, &ml[i], &mo[i]);
		lz_put64(out + LZ_HEADER_BYTES + 8 * c, pos);
		pos += lz_parse(ml, mo, d, clen, S, out + base + pos);
	}
	lz_put64(out + LZ_HEADER_BYTES + 8 * n, pos);
	return base + pos;
}

/* 0 ok, -1 corrupt */
static inline int
lz_ref_decode(const uint8_t *s, uint64_t slen, uint8_t *out, uint64_t cap, uint64_t *len)
{
	uint32_t	m,
				C;
	uint64_t	n,
				total,
				base;
	int			S;

	if (slen < LZ_HEADER_BYTES)
		return -1;
	memcpy(&m, s, 4);
	memcpy(&C, s + 8, 4);
	S = s[4];
	total = lz_get64(s + 16);
	n = lz_get64(s + 24);
	if (m != LZ_MAGIC || (S != 1 && S != 2 && S != 4) || C == 0 || C > LZ_MAX_CHUNK || C % 4 ||
		n != (total + C - 1) / C || total > cap || slen < LZ_HEADER_BYTES + 8 * (n + 1))
		return -1;
	base = LZ_HEADER_BYTES + 8 * (n + 1);
	for (uint64_t c = 0; c < n; c++)
	{
		uint64_t	a = lz_get64(s + LZ_HEADER_BYTES + 8 * c),
					b = lz_get64(s + LZ_HEADER_BYTES + 8 * c + 8);
		uint32_t	clen = (uint32_t) (total - c * C < C ? total - c * C : C);

		if (a > b || b - a > 2 + C || base + b > slen ||
			lz_decode_record(s + base + a, (uint32_t) (b - a), S, s[5], out + c * C, clen) != 0)
			return -1;
	}
	*len = total;
	return 0;
}

#endif
