/*
 * lzss_format.h - the chunk format of the gpuLZ-style LZSS baseline, and the
 * per-chunk bodies shared by the CUDA codec (lzss_gpu.cu) and the host
 * reference (lzss_ref.c).  C and CUDA C.
 *
 * The input is cut into chunks of C bytes (the last may be shorter); each is
 * compressed on its own.  A chunk is a string of S-byte symbols (S = 1, 2, 4)
 * plus clen % S tail bytes.  Tokens: a literal (one symbol, S bytes) or a
 * match (2 bytes: distance 1..W and length MINLEN..255, both in symbols, the
 * source may overlap the output).  One flag bit per token, 1 = match.
 *
 * Stream:  header (32 bytes: "LZSG", u8 S, u8 W, u16 0, u32 C, u64 total
 *          bytes, u64 chunks), u64 rec_off[chunks + 1] relative to the
 *          records, then the records.
 * Record:  u16 ntok (0xFFFF: the chunk is stored raw, clen bytes follow),
 *          ceil(ntok / 8) flag bytes (token k is bit k % 8 of byte k / 8),
 *          the token bytes, then the tail bytes.
 * Matching is greedy: at each symbol the longest match within the window
 * (the nearest on ties) is taken when it has at least MINLEN symbols, the
 * fewest that save a byte: 3, 2, 1 for S = 1, 2, 4.
 */
#ifndef LZSS_FORMAT_H
#define LZSS_FORMAT_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define LZ_HD __host__ __device__ __forceinline__
#else
#define LZ_HD static inline
#endif

#define LZ_MAGIC 0x47535A4Cu	/* "LZSG" */
#define LZ_HEADER_BYTES 32
#define LZ_MAX_CHUNK 4096
#define LZ_RAW_MARK 0xFFFFu
#define LZ_MAX_LEN 255

LZ_HD uint32_t
lz_minlen(int S)
{
	return S == 1 ? 3 : S == 2 ? 2 : 1;
}

LZ_HD uint32_t
lz_sym(const uint8_t *d, uint32_t k, int S)
{
	if (S == 4)
		return *(const uint32_t *) (d + 4 * k);
	if (S == 2)
		return *(const uint16_t *) (d + 2 * k);
	return d[k];
}

/* longest match for symbol i (d must be 4-aligned); len 0 if none */
LZ_HD void
lz_find_match(const uint8_t *d, uint32_t i, uint32_t nsym, uint32_t W, int S, uint8_t *len,
			  uint8_t *off)
{
	uint32_t	maxl = nsym - i < LZ_MAX_LEN ? nsym - i : LZ_MAX_LEN;
	uint32_t	best = 0,
				bo = 0,
				dmax = i < W ? i : W;

	for (uint32_t dist = 1; dist <= dmax; dist++)
	{
		uint32_t	l = 0;

		while (l < maxl && lz_sym(d, i + l, S) == lz_sym(d, i - dist + l, S))
			l++;
		if (l > best)
		{
			best = l;
			bo = dist;
			if (l == maxl)
				break;
		}
	}
	*len = (uint8_t) best;
	*off = (uint8_t) bo;
}

/* greedy parse of one chunk into rec (at least 2 + clen/8 + 1 + clen bytes); returns its size */
LZ_HD uint32_t
lz_parse(const uint8_t *mlen, const uint8_t *moff, const uint8_t *d, uint32_t clen, int S,
		 uint8_t *rec)
{
	uint32_t	nsym = clen / S,
				minl = lz_minlen(S),
				ntok = 0,
				i,
				k,
				p,
				fb;

	for (i = 0; i < nsym; ntok++)
		i += mlen[i] >= minl ? mlen[i] : 1;
	fb = (ntok + 7) / 8;
	for (k = 0; k < fb; k++)
		rec[2 + k] = 0;
	p = 2 + fb;
	for (i = 0, k = 0; i < nsym; k++)
	{
		if (mlen[i] >= minl)
		{
			rec[2 + (k >> 3)] |= (uint8_t) (1u << (k & 7));
			rec[p++] = moff[i];
			rec[p++] = mlen[i];
			i += mlen[i];
		}
		else
		{
			for (int b = 0; b < S; b++)
				rec[p++] = d[i * S + b];
			i++;
		}
	}
	for (i = nsym * S; i < clen; i++)
		rec[p++] = d[i];
	if (p > 2 + clen)
	{
		rec[0] = rec[1] = 0xFF;
		for (i = 0; i < clen; i++)
			rec[2 + i] = d[i];
		return 2 + clen;
	}
	rec[0] = (uint8_t) ntok;
	rec[1] = (uint8_t) (ntok >> 8);
	return p;
}

/* serial decode of one record (the host reference); 0 ok, -1 corrupt */
LZ_HD int
lz_decode_record(const uint8_t *rec, uint32_t rlen, int S, uint32_t W, uint8_t *out, uint32_t clen)
{
	uint32_t	ntok,
				fb,
				dp,
				o = 0,
				nsym = clen / S;

	if (rlen < 2)
		return -1;
	ntok = rec[0] | (uint32_t) rec[1] << 8;
	if (ntok == LZ_RAW_MARK)
	{
		if (rlen != 2 + clen)
			return -1;
		for (uint32_t i = 0; i < clen; i++)
			out[i] = rec[2 + i];
		return 0;
	}
	fb = (ntok + 7) / 8;
	dp = 2 + fb;
	for (uint32_t k = 0; k < ntok; k++)
	{
		if (dp + 2 > rlen && !(dp + S <= rlen))
			return -1;
		if (rec[2 + (k >> 3)] >> (k & 7) & 1)
		{
			uint32_t	dist = rec[dp] * (uint32_t) S,
						len = rec[dp + 1] * (uint32_t) S;

			if (dp + 2 > rlen || dist == 0 || rec[dp] > W || dist > o || len == 0 || o + len > nsym * S)
				return -1;
			for (uint32_t b = 0; b < len; b++)
				out[o + b] = out[o - dist + b];
			o += len;
			dp += 2;
		}
		else
		{
			if (dp + S > rlen || o + S > nsym * S)
				return -1;
			for (int b = 0; b < S; b++)
				out[o + b] = rec[dp + b];
			o += S;
			dp += S;
		}
	}
	if (o != nsym * S || dp + (clen - o) != rlen)
		return -1;
	for (; o < clen; o++)
		out[o] = rec[dp++];
	return 0;
}

#endif
