/*
 * nvcomp_bench.cu - NVIDIA nvCOMP's batched codecs on the same data, built
 * only when nvCOMP is found (GSST_HAVE_NVCOMP; bench/gpu.mk).  64 KiB chunks,
 * default options of each codec.  Timed: the CompressAsync and
 * DecompressAsync calls, with chunk pointer and size arrays and temp memory
 * prepared beforehand; the compressed chunks stay in their fixed-stride
 * slots (no compaction).  ratio = input bytes / sum of compressed chunk
 * bytes.  The input is cut to a multiple of 8 bytes (Cascaded works on
 * 4-byte integers).
 */
#include "baselines.h"

#ifndef GSST_HAVE_NVCOMP
bool
nvcomp_bench_all(const uint8_t *, const uint8_t *, uint64_t, int, std::vector<base_row> *)
{
	return false;
}
#else
#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvcomp/ans.h>
#include <nvcomp/bitcomp.h>
#include <nvcomp/cascaded.h>
#include <nvcomp/gdeflate.h>
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>

struct nvc_fns
{
	const char *name;
	nvcompStatus_t (*ctemp) (size_t n, size_t mc, size_t tot, size_t *t);
	nvcompStatus_t (*cmax) (size_t mc, size_t *m);
	nvcompStatus_t (*comp) (const void *const *ip, const size_t *is, size_t mc, size_t n, void *t, size_t tb,
							void *const *op, size_t *os, nvcompStatus_t *st, cudaStream_t s);
	nvcompStatus_t (*dtemp) (size_t n, size_t mc, size_t tot, size_t *t);
	nvcompStatus_t (*decomp) (const void *const *ip, const size_t *is, const size_t *ob, size_t *os, size_t n,
							  void *t, size_t tb, void *const *op, nvcompStatus_t *st, cudaStream_t s);
};

#define NVC(NAME, P) \
	{ NAME, \
	  [](size_t n, size_t mc, size_t tot, size_t *t) { \
		  return nvcompBatched##P##CompressGetTempSize(n, mc, nvcompBatched##P##CompressDefaultOpts, t, tot, 0); }, \
	  [](size_t mc, size_t *m) { \
		  return nvcompBatched##P##CompressGetMaxOutputChunkSize(mc, nvcompBatched##P##CompressDefaultOpts, m); }, \
	  [](const void *const *ip, const size_t *is, size_t mc, size_t n, void *t, size_t tb, void *const *op, \
		 size_t *os, nvcompStatus_t *st, cudaStream_t s) { \
		  return nvcompBatched##P##CompressAsync(ip, is, mc, n, t, tb, op, os, \
												 nvcompBatched##P##CompressDefaultOpts, st, s); }, \
	  [](size_t n, size_t mc, size_t tot, size_t *t) { \
		  return nvcompBatched##P##DecompressGetTempSize(n, mc, nvcompBatched##P##DecompressDefaultOpts, t, tot, 0); }, \
	  [](const void *const *ip, const size_t *is, const size_t *ob, size_t *os, size_t n, void *t, size_t tb, \
		 void *const *op, nvcompStatus_t *st, cudaStream_t s) { \
		  return nvcompBatched##P##DecompressAsync(ip, is, ob, os, n, t, tb, op, \
												   nvcompBatched##P##DecompressDefaultOpts, st, s); } }

static const nvc_fns codecs[] = {
	NVC("nvcomp-lz4", LZ4), NVC("nvcomp-snappy", Snappy), NVC("nvcomp-gdeflate", Gdeflate),
	NVC("nvcomp-zstd", Zstd), NVC("nvcomp-ans", ANS), NVC("nvcomp-bitcomp", Bitcomp),
	NVC("nvcomp-cascaded", Cascaded),
};

bool
nvcomp_bench_all(const uint8_t *d_in, const uint8_t *h_in, uint64_t len0, int runs, std::vector<base_row> *rows)
{
	const size_t chunk = 65536;
	uint64_t	len = len0 & ~(uint64_t) 7;
	size_t		n = (len + chunk - 1) / chunk;
	std::vector<const void *> ip(n);
	std::vector<void *> op(n), dp(n);
	std::vector<size_t> is(n), cs(n);
	const void **d_ip;
	void	  **d_op,
			  **d_dp;
	size_t	   *d_is,
			   *d_cs,
			   *d_ds;
	nvcompStatus_t *d_st;
	uint8_t    *d_out;
	cudaStream_t st;
	cudaEvent_t e0,
				e1;

	CK(cudaStreamCreate(&st));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	CK(cudaMalloc(&d_ip, n * sizeof(void *)));
	CK(cudaMalloc(&d_op, n * sizeof(void *)));
	CK(cudaMalloc(&d_dp, n * sizeof(void *)));
	CK(cudaMalloc(&d_is, n * sizeof(size_t)));
	CK(cudaMalloc(&d_cs, n * sizeof(size_t)));
	CK(cudaMalloc(&d_ds, n * sizeof(size_t)));
	CK(cudaMalloc(&d_st, n * sizeof(nvcompStatus_t)));
	CK(cudaMalloc(&d_out, len + 16));
	for (size_t i = 0; i < n; i++)
	{
		ip[i] = d_in + i * chunk;
		is[i] = std::min<uint64_t>(chunk, len - i * chunk);
		dp[i] = d_out + i * chunk;
	}
	CK(cudaMemcpy(d_ip, ip.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_dp, dp.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_is, is.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
	for (const nvc_fns &f : codecs)
	{
		base_row	r;
		size_t		maxo = 0,
					ct = 0,
					dt = 0;
		uint8_t    *d_c = nullptr;
		void	   *d_t = nullptr;
		std::vector<double> te, td;
		float		ms;
		nvcompStatus_t s1,
					s2,
					s3;
		uint64_t	total = 0;

		r.codec = f.name;
		s1 = f.cmax(chunk, &maxo);
		s2 = f.ctemp(n, chunk, len, &ct);
		s3 = f.dtemp(n, chunk, len, &dt);
		if (s1 != nvcompSuccess || s2 != nvcompSuccess || s3 != nvcompSuccess)
		{
			printf("%-16s setup failed (%d %d %d)\n", f.name, s1, s2, s3);
			continue;
		}
		maxo = (maxo + 255) & ~(size_t) 255;
		if (cudaMalloc(&d_c, n * maxo) != cudaSuccess || cudaMalloc(&d_t, std::max<size_t>(ct, dt) + 8) != cudaSuccess)
		{
			printf("%-16s out of device memory (%zu + %zu bytes)\n", f.name, n * maxo, std::max(ct, dt));
			cudaGetLastError();
			cudaFree(d_c);
			continue;
		}
		r.extra = std::max(ct, dt);
		for (size_t i = 0; i < n; i++)
			op[i] = d_c + i * maxo;
		CK(cudaMemcpy(d_op, op.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
		for (int i = 0; i < runs + 2; i++)
		{
			CK(cudaEventRecord(e0, st));
			s1 = f.comp(d_ip, d_is, chunk, n, d_t, ct, d_op, d_cs, d_st, st);
			CK(cudaEventRecord(e1, st));
			CK(cudaEventSynchronize(e1));
			CK(cudaEventElapsedTime(&ms, e0, e1));
			if (s1 != nvcompSuccess)
				break;
			if (i >= 2)
				te.push_back(ms);
		}
		if (s1 != nvcompSuccess)
		{
			printf("%-16s compress failed (%d)\n", f.name, s1);
			cudaFree(d_c);
			cudaFree(d_t);
			continue;
		}
		CK(cudaMemcpy(cs.data(), d_cs, n * sizeof(size_t), cudaMemcpyDeviceToHost));
		for (size_t i = 0; i < n; i++)
			total += cs[i];
		r.ratio = (double) len / (double) total;
		CK(cudaMemset(d_out, 0xAB, len + 16));
		for (int i = 0; i < runs + 2; i++)
		{
			CK(cudaEventRecord(e0, st));
			s1 = f.decomp((const void *const *) d_op, d_cs, d_is, d_ds, n, d_t, dt, d_dp, d_st, st);
			CK(cudaEventRecord(e1, st));
			CK(cudaEventSynchronize(e1));
			CK(cudaEventElapsedTime(&ms, e0, e1));
			if (s1 != nvcompSuccess)
				break;
			if (i >= 2)
				td.push_back(ms);
			if (i == 0)
			{
				std::vector<uint8_t> out(len);
				std::vector<nvcompStatus_t> sts(n);
				bool		st_ok = true;

				CK(cudaMemcpy(out.data(), d_out, len, cudaMemcpyDeviceToHost));
				CK(cudaMemcpy(sts.data(), d_st, n * sizeof(nvcompStatus_t), cudaMemcpyDeviceToHost));
				for (size_t k = 0; k < n; k++)
					st_ok &= sts[k] == nvcompSuccess;
				r.exact = st_ok && memcmp(out.data(), h_in, len) == 0 ? "roundtrip" : "NO";
			}
		}
		if (s1 != nvcompSuccess)
		{
			printf("%-16s decompress failed (%d)\n", f.name, s1);
			cudaFree(d_c);
			cudaFree(d_t);
			continue;
		}
		r.enc = len / 1e9 / (base_median(te) / 1e3);
		r.dec = len / 1e9 / (base_median(td) / 1e3);
		printf("%-16s chunk 64 KiB | ratio %.3f | encode %7.2f GB/s (%.3f ms) | decode %7.1f GB/s (%.3f ms) | "
			   "compressed %llu | %s\n", f.name, r.ratio, r.enc, base_median(te), r.dec, base_median(td),
			   (unsigned long long) total, r.exact.c_str());
		fflush(stdout);
		rows->push_back(r);
		cudaFree(d_c);
		cudaFree(d_t);
	}
	cudaFree(d_ip);
	cudaFree(d_op);
	cudaFree(d_dp);
	cudaFree(d_is);
	cudaFree(d_cs);
	cudaFree(d_ds);
	cudaFree(d_st);
	cudaFree(d_out);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaStreamDestroy(st);
	return true;
}
#endif
