/*
 * lzss_gpu.cu - gpuLZ-style LZSS on the GPU (a baseline for gpu_bench),
 * written for gsst after the design of GPULZ (ICS 2023); no code of it.
 *
 * Encode, all on one stream:
 *   1. k_match: one block per chunk; the chunk goes to shared memory, each
 *      thread finds the longest match for its symbols (brute force over the
 *      window), then thread 0 parses greedily into a shared record, which the
 *      block copies to a fixed-stride scratch slot; the record size is kept.
 *   2. two-pass prefix sum of the sizes: k_scan_blocks (per-block scan and
 *      block totals), k_scan_totals (scan of the totals), k_scan_add.
 *   3. k_compact: one block per chunk copies its record to its offset and
 *      writes rec_off; the last block writes the header and the total.
 * Decode: one warp per chunk; the record is loaded into shared memory, the
 * tokens are walked by the whole warp in step (a literal's S bytes or a
 * match's bytes copied by the lanes, rounds of min(distance, 32) bytes), and
 * the chunk is written out with 16-byte stores.
 */
#include <cub/block/block_scan.cuh>

#include "lzss_format.h"
#include "lzss_gpu.h"

#define ENC_THREADS 256
#define REC_MAX (2 + LZ_MAX_CHUNK / 8 + 1 + LZ_MAX_CHUNK + 16)
#define SCAN_THREADS 1024
#define DEC_WARPS 4

static uint64_t
n_chunks(uint64_t len, uint32_t C)
{
	return (len + C - 1) / C;
}

static uint64_t
slot_bytes(uint32_t C)
{
	return (2 + (uint64_t) C + 15) & ~(uint64_t) 15;
}

uint64_t
lzss_gpu_bound(uint64_t len, uint32_t C)
{
	uint64_t	n = n_chunks(len, C);

	return LZ_HEADER_BYTES + 8 * (n + 1) + n * (2 + (uint64_t) C);
}

uint64_t
lzss_gpu_scratch_bytes(uint64_t len, uint32_t C)
{
	uint64_t	n = n_chunks(len, C);

	return n * slot_bytes(C) + n * 4 + (n + 1) * 8 + (n / SCAN_THREADS + 2) * 8 + 64;
}

__global__ void __launch_bounds__(ENC_THREADS)
k_match(const uint8_t *in, uint64_t len, int S, uint32_t W, uint32_t C, uint8_t *slots,
		uint64_t slot, uint32_t *sizes)
{
	__shared__ __align__(16) uint8_t d[LZ_MAX_CHUNK + 16];
	__shared__ uint8_t ml[LZ_MAX_CHUNK],
				mo[LZ_MAX_CHUNK];
	__shared__ __align__(16) uint8_t rec[REC_MAX];
	__shared__ uint32_t rsize;
	uint64_t	c = blockIdx.x,
				start = c * C;
	uint32_t	clen = (uint32_t) min((uint64_t) C, len - start),
				nsym = clen / S;

	if (clen == C && ((uintptr_t) (in + start) & 15) == 0)
		for (uint32_t i = threadIdx.x; i < C / 16; i += blockDim.x)
			((uint4 *) d)[i] = ((const uint4 *) (in + start))[i];
	else
		for (uint32_t i = threadIdx.x; i < clen; i += blockDim.x)
			d[i] = in[start + i];
	__syncthreads();
	for (uint32_t i = threadIdx.x; i < nsym; i += blockDim.x)
	{
		uint8_t		l,
					o;

		if (S == 4)
			lz_find_match(d, i, nsym, W, 4, &l, &o);
		else if (S == 2)
			lz_find_match(d, i, nsym, W, 2, &l, &o);
		else
			lz_find_match(d, i, nsym, W, 1, &l, &o);
		ml[i] = l;
		mo[i] = o;
	}
	__syncthreads();
	if (threadIdx.x == 0)
		rsize = lz_parse(ml, mo, d, clen, S, rec);
	__syncthreads();
	{
		uint32_t	n = rsize;
		uint8_t    *dst = slots + c * slot;

		for (uint32_t i = threadIdx.x; i < (n + 15) / 16; i += blockDim.x)
			((uint4 *) dst)[i] = ((const uint4 *) rec)[i];
		if (threadIdx.x == 0)
			sizes[c] = n;
	}
}

/* pass 1: exclusive scan inside each block of SCAN_THREADS sizes, block totals out */
__global__ void __launch_bounds__(SCAN_THREADS)
k_scan_blocks(const uint32_t *sizes, uint64_t n, uint64_t *offs, uint64_t *totals)
{
	typedef cub::BlockScan<uint64_t, SCAN_THREADS> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	uint64_t	i = (uint64_t) blockIdx.x * SCAN_THREADS + threadIdx.x,
				v = i < n ? sizes[i] : 0,
				x,
				total;

	scan_t(tmp).ExclusiveSum(v, x, total);
	if (i < n)
		offs[i] = x;
	if (threadIdx.x == 0)
		totals[blockIdx.x] = total;
}

/* pass 2: one block scans the block totals (in rounds), the grand total last */
__global__ void __launch_bounds__(SCAN_THREADS)
k_scan_totals(uint64_t *totals, uint64_t nb)
{
	typedef cub::BlockScan<uint64_t, SCAN_THREADS> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	uint64_t	carry = 0;

	for (uint64_t b = 0; b < nb; b += SCAN_THREADS)
	{
		uint64_t	i = b + threadIdx.x,
					v = i < nb ? totals[i] : 0,
					x,
					t;

		scan_t(tmp).ExclusiveSum(v, x, t);
		if (i < nb)
			totals[i] = x + carry;
		carry += t;
		__syncthreads();
	}
	if (threadIdx.x == 0)
		totals[nb] = carry;
}

__global__ void
k_scan_add(uint64_t *offs, uint64_t n, const uint64_t *totals)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		offs[i] += totals[i / SCAN_THREADS];
}

__global__ void
k_compact(const uint8_t *slots, uint64_t slot, const uint32_t *sizes, const uint64_t *offs,
		  const uint64_t *totals, uint64_t nb, uint64_t n, uint8_t *out, uint64_t len, int S,
		  uint32_t W, uint32_t C, uint64_t *out_len)
{
	uint64_t	c = blockIdx.x,
				base = LZ_HEADER_BYTES + 8 * (n + 1);
	uint8_t    *dst = out + base + offs[c];
	const uint8_t *src = slots + c * slot;
	uint32_t	sz = sizes[c];
	uint32_t	head = (uint32_t) ((16 - ((uintptr_t) dst & 15)) & 15);

	if (head > sz)
		head = sz;
	/* bytes up to dst's 16-byte boundary, then aligned 16-byte stores */
	if (threadIdx.x < head)
		dst[threadIdx.x] = src[threadIdx.x];
	for (uint32_t i = head + 16 * threadIdx.x; i < sz; i += 16 * blockDim.x)
	{
		if (i + 16 <= sz)
		{
			uint4		v;
			uint8_t    *b = (uint8_t *) &v;

			for (int k = 0; k < 16; k++)
				b[k] = src[i + k];
			*(uint4 *) (dst + i) = v;
		}
		else
			for (uint32_t k = i; k < sz; k++)
				dst[k] = src[k];
	}
	if (threadIdx.x == 0)
	{
		memcpy(out + LZ_HEADER_BYTES + 8 * c, &offs[c], 8);
		if (c == n - 1)
		{
			uint64_t	total = totals[nb];
			uint32_t	m = LZ_MAGIC;

			memcpy(out + LZ_HEADER_BYTES + 8 * n, &total, 8);
			for (int k = 0; k < LZ_HEADER_BYTES; k++)
				out[k] = 0;
			memcpy(out, &m, 4);
			out[4] = (uint8_t) S;
			out[5] = (uint8_t) W;
			memcpy(out + 8, &C, 4);
			memcpy(out + 16, &len, 8);
			memcpy(out + 24, &n, 8);
			*out_len = base + total;
		}
	}
}

__global__ void
k_empty(uint8_t *out, int S, uint32_t W, uint32_t C, uint64_t *out_len)
{
	uint32_t	m = LZ_MAGIC;

	for (int k = 0; k < LZ_HEADER_BYTES + 8; k++)
		out[k] = 0;
	memcpy(out, &m, 4);
	out[4] = (uint8_t) S;
	out[5] = (uint8_t) W;
	memcpy(out + 8, &C, 4);
	*out_len = LZ_HEADER_BYTES + 8;
}

static bool
params_ok(lzss_gpu_params p)
{
	return (p.S == 1 || p.S == 2 || p.S == 4) && p.W >= 1 && p.W <= 255 && p.C >= 4 &&
		p.C <= LZ_MAX_CHUNK && p.C % 4 == 0;
}

int
lzss_gpu_encode(const uint8_t *d_in, uint64_t len, lzss_gpu_params p, uint8_t *d_out, uint64_t cap,
				void *d_scratch, uint64_t *out_len, cudaStream_t stream)
{
	uint64_t	n = n_chunks(len, p.C),
				nb = (n + SCAN_THREADS - 1) / SCAN_THREADS,
				slot = slot_bytes(p.C);
	uint8_t    *slots = (uint8_t *) d_scratch;
	uint32_t   *sizes = (uint32_t *) (slots + n * slot);
	uint64_t   *offs = (uint64_t *) (((uintptr_t) (sizes + n) + 7) & ~(uintptr_t) 7),
			   *totals = offs + n + 1,
			   *d_len = totals + nb + 1;

	if (!params_ok(p) || cap < lzss_gpu_bound(len, p.C))
		return -1;
	if (n == 0)
		k_empty<<<1, 1, 0, stream>>>(d_out, p.S, p.W, p.C, d_len);
	else
	{
		k_match<<<(unsigned) n, ENC_THREADS, 0, stream>>>(d_in, len, p.S, p.W, p.C, slots, slot, sizes);
		k_scan_blocks<<<(unsigned) nb, SCAN_THREADS, 0, stream>>>(sizes, n, offs, totals);
		k_scan_totals<<<1, SCAN_THREADS, 0, stream>>>(totals, nb);
		k_scan_add<<<(unsigned) ((n + 255) / 256), 256, 0, stream>>>(offs, n, totals);
		k_compact<<<(unsigned) n, 128, 0, stream>>>(slots, slot, sizes, offs, totals, nb, n, d_out, len,
													p.S, p.W, p.C, d_len);
	}
	cudaMemcpyAsync(out_len, d_len, 8, cudaMemcpyDeviceToHost, stream);
	return cudaStreamSynchronize(stream) == cudaSuccess ? 0 : -1;
}

__global__ void __launch_bounds__(32 * DEC_WARPS)
k_decode(const uint8_t *in, uint64_t in_len, uint64_t n, uint64_t len, int S, uint32_t W, uint32_t C,
		 uint8_t *out, int *err)
{
	__shared__ __align__(16) uint8_t obuf[DEC_WARPS][LZ_MAX_CHUNK + 16];
	__shared__ __align__(16) uint32_t rbuf[DEC_WARPS][(2 + LZ_MAX_CHUNK + 8) / 4 + 2];
	uint32_t	warp = threadIdx.x / 32,
				lane = threadIdx.x % 32;
	uint64_t	c = (uint64_t) blockIdx.x * DEC_WARPS + warp,
				base = LZ_HEADER_BYTES + 8 * (n + 1),
				a,
				b;
	uint32_t	clen,
				rlen,
				nsym,
				ntok;
	uint8_t    *o = obuf[warp];
	const uint8_t *rec;

	if (c >= n)
		return;
	a = *(const uint64_t *) (in + LZ_HEADER_BYTES + 8 * c);
	b = *(const uint64_t *) (in + LZ_HEADER_BYTES + 8 * c + 8);
	clen = (uint32_t) min((uint64_t) C, len - c * C);
	nsym = clen / S;
	if (a > b || b - a > 2 + (uint64_t) clen || b - a < 2 || base + b > in_len)
	{
		if (lane == 0)
			atomicOr(err, 1);
		return;
	}
	rlen = (uint32_t) (b - a);
	/* the record to shared memory as aligned words */
	{
		const uint8_t *src = in + base + a;
		const uint32_t *w = (const uint32_t *) ((uintptr_t) src & ~(uintptr_t) 3);
		uint32_t	skip = (uint32_t) ((uintptr_t) src & 3),
					nw = (skip + rlen + 3) / 4;

		for (uint32_t i = lane; i < nw; i += 32)
			rbuf[warp][i] = w[i];
		rec = (const uint8_t *) rbuf[warp] + skip;
	}
	__syncwarp();
	ntok = rec[0] | (uint32_t) rec[1] << 8;
	if (ntok == LZ_RAW_MARK)
	{
		if (rlen != 2 + clen)
		{
			if (lane == 0)
				atomicOr(err, 1);
			return;
		}
		for (uint32_t i = lane; i < clen; i += 32)
			o[i] = rec[2 + i];
	}
	else
	{
		uint32_t	dp = 2 + (ntok + 7) / 8,
					pos = 0,
					lim = nsym * S;
		bool		bad = dp > rlen;

		for (uint32_t k = 0; k < ntok && !bad; k++)
		{
			if (rec[2 + (k >> 3)] >> (k & 7) & 1)
			{
				uint32_t	dist = rec[dp] * (uint32_t) S,
							ml = rec[dp + 1] * (uint32_t) S,
							step;

				if (dp + 2 > rlen || dist == 0 || rec[dp] > W || dist > pos || ml == 0 || pos + ml > lim)
				{
					bad = true;
					break;
				}
				step = min(dist, 32u);
				for (uint32_t q = 0; q < ml; q += step)
				{
					if (lane < step && q + lane < ml)
						o[pos + q + lane] = o[pos - dist + q + lane];
					__syncwarp();
				}
				pos += ml;
				dp += 2;
			}
			else
			{
				if (dp + S > rlen || pos + S > lim)
				{
					bad = true;
					break;
				}
				if (lane < (uint32_t) S)
					o[pos + lane] = rec[dp + lane];
				__syncwarp();
				pos += S;
				dp += S;
			}
		}
		if (bad || pos != lim || dp + (clen - lim) != rlen)
		{
			if (lane == 0)
				atomicOr(err, 1);
			return;
		}
		for (uint32_t i = lane; i < clen - lim; i += 32)
			o[lim + i] = rec[dp + i];
	}
	__syncwarp();
	{
		uint8_t    *dst = out + c * C;

		if (clen == C && ((uintptr_t) dst & 15) == 0)
			for (uint32_t i = lane; i < C / 16; i += 32)
				((uint4 *) dst)[i] = ((const uint4 *) o)[i];
		else
			for (uint32_t i = lane; i < clen; i += 32)
				dst[i] = o[i];
	}
}

int
lzss_gpu_decode(const uint8_t *d_in, uint64_t in_len, uint64_t raw_len, lzss_gpu_params p, uint8_t *d_out,
				void *d_scratch, cudaStream_t stream)
{
	uint64_t	n = n_chunks(raw_len, p.C);
	int		   *d_err = (int *) d_scratch,
				err = 0;

	if (!params_ok(p) || in_len < LZ_HEADER_BYTES + 8 * (n + 1) || ((uintptr_t) d_in & 7))
		return -1;
	cudaMemsetAsync(d_err, 0, sizeof(int), stream);
	if (n)
		k_decode<<<(unsigned) ((n + DEC_WARPS - 1) / DEC_WARPS), 32 * DEC_WARPS, 0, stream>>>(
			d_in, in_len, n, raw_len, p.S, p.W, p.C, d_out, d_err);
	cudaMemcpyAsync(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost, stream);
	if (cudaStreamSynchronize(stream) != cudaSuccess)
		return -2;
	return err ? -1 : 0;
}
