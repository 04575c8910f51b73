/*
 * lzss_bench.cu - times the LZSS baseline's three parameter sets (gpuLZ's
 * fast, average, max) and checks them: the GPU stream equals the host
 * reference's for the first 1 MiB, and the full-size GPU round trip is exact.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>

#include "baselines.h"
#include "lzss_gpu.h"
#include "lzss_ref.h"

double
base_median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
}

static bool
ref_check(const uint8_t *h_in, uint64_t len, lzss_gpu_params p, cudaStream_t st)
{
	uint64_t	n = std::min<uint64_t>(len, 1u << 20),
				cap = lzss_gpu_bound(n, p.C),
				glen = 0;
	std::vector<uint8_t> ref(cap), got(cap);
	uint64_t	rlen = lz_ref_encode(h_in, n, p.S, p.W, p.C, ref.data());
	uint8_t    *d_in,
			   *d_out;
	void	   *d_scr;
	bool		ok;

	CK(cudaMalloc(&d_in, n + 16));
	CK(cudaMalloc(&d_out, cap + 16));
	CK(cudaMalloc(&d_scr, lzss_gpu_scratch_bytes(n, p.C)));
	CK(cudaMemcpy(d_in, h_in, n, cudaMemcpyHostToDevice));
	ok = lzss_gpu_encode(d_in, n, p, d_out, cap, d_scr, &glen, st) == 0 && glen == rlen;
	if (ok)
	{
		CK(cudaMemcpy(got.data(), d_out, glen, cudaMemcpyDeviceToHost));
		ok = memcmp(got.data(), ref.data(), rlen) == 0;
		if (!ok)
		{
			size_t		i = 0;

			while (got[i] == ref[i])
				i++;
			printf("lzss S=%d W=%u: GPU stream differs from the reference at byte %zu of %llu\n", p.S, p.W, i,
				   (unsigned long long) rlen);
		}
	}
	else
		printf("lzss S=%d W=%u: GPU stream length %llu, reference %llu\n", p.S, p.W,
			   (unsigned long long) glen, (unsigned long long) rlen);
	cudaFree(d_in);
	cudaFree(d_out);
	cudaFree(d_scr);
	return ok;
}

void
lzss_bench_all(const uint8_t *d_in, const uint8_t *h_in, uint64_t len, int runs, std::vector<base_row> *rows)
{
	static const struct
	{
		const char *name;
		lzss_gpu_params p;
	}			sets[] = {{"lzss-fast", {4, 32, 4096}}, {"lzss-avg", {2, 128, 4096}}, {"lzss-max", {1, 255, 4096}}};
	cudaStream_t st;
	cudaEvent_t e0,
				e1;

	CK(cudaStreamCreate(&st));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (const auto &s : sets)
	{
		base_row	r;
		uint64_t	cap = lzss_gpu_bound(len, s.p.C),
					scr = lzss_gpu_scratch_bytes(len, s.p.C),
					clen = 0;
		uint8_t    *d_c,
				   *d_o;
		void	   *d_scr;
		std::vector<double> te, td;
		bool		ref_ok = ref_check(h_in, len, s.p, st);
		float		ms;

		r.codec = s.name;
		CK(cudaMalloc(&d_c, cap + 16));
		CK(cudaMalloc(&d_o, len + 16));
		CK(cudaMalloc(&d_scr, scr));
		r.extra = scr;
		for (int i = 0; i < runs + 2; i++)
		{
			CK(cudaEventRecord(e0, st));
			if (lzss_gpu_encode(d_in, len, s.p, d_c, cap, d_scr, &clen, st) != 0)
			{
				printf("%s: encode failed: %s\n", s.name, cudaGetErrorString(cudaGetLastError()));
				exit(1);
			}
			CK(cudaEventRecord(e1, st));
			CK(cudaEventSynchronize(e1));
			CK(cudaEventElapsedTime(&ms, e0, e1));
			if (i >= 2)
				te.push_back(ms);
		}
		r.ratio = (double) len / (double) clen;
		CK(cudaMemset(d_o, 0xAB, len + 16));
		for (int i = 0; i < runs + 2; i++)
		{
			int			rc;

			CK(cudaEventRecord(e0, st));
			rc = lzss_gpu_decode(d_c, clen, len, s.p, d_o, d_scr, st);
			CK(cudaEventRecord(e1, st));
			CK(cudaEventSynchronize(e1));
			CK(cudaEventElapsedTime(&ms, e0, e1));
			if (rc != 0)
			{
				printf("%s: decode failed (%d): %s\n", s.name, rc, cudaGetErrorString(cudaGetLastError()));
				exit(1);
			}
			if (i >= 2)
				td.push_back(ms);
			if (i == 0)
			{
				std::vector<uint8_t> out(len + 16);

				CK(cudaMemcpy(out.data(), d_o, len + 16, cudaMemcpyDeviceToHost));
				r.exact = memcmp(out.data(), h_in, len) == 0 && out[len] == 0xAB ? (ref_ok ? "yes" : "roundtrip")
					: "NO";
			}
		}
		r.enc = len / 1e9 / (base_median(te) / 1e3);
		r.dec = len / 1e9 / (base_median(td) / 1e3);
		printf("%-10s S=%d W=%3u C=%u | ratio %.3f | encode %7.2f GB/s (%.3f ms) | decode %7.1f GB/s (%.3f ms) | "
			   "stream %llu | %s\n", s.name, s.p.S, s.p.W, s.p.C, r.ratio, r.enc, base_median(te), r.dec,
			   base_median(td), (unsigned long long) clen, r.exact.c_str());
		fflush(stdout);
		rows->push_back(r);
		cudaFree(d_c);
		cudaFree(d_o);
		cudaFree(d_scr);
	}
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaStreamDestroy(st);
}
