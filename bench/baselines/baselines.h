/*
 * baselines.h - GPU baselines timed next to gsst in gpu_bench: the LZSS
 * codec (lzss_gpu.cu) and, when built with GSST_HAVE_NVCOMP, nvCOMP's batched
 * codecs (nvcomp_bench.cu).  Same timing rule as gsst: data in device memory,
 * CUDA events, median of `runs` after two warm-ups.
 */
#ifndef GSST_BASELINES_H
#define GSST_BASELINES_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <vector>

/* Check a CUDA runtime call; a benchmark cannot go on after a failure. */
#define CK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, \
					__LINE__, #call); \
			exit(2); \
		} \
	} while (0)

struct base_row
{
	std::string codec;
	double		ratio = 0,
				enc = 0,
				dec = 0;
	uint64_t	extra = 0;		/* device bytes beyond input, output and stream */
	std::string exact = "no";
};

/* d_in: 16-byte aligned device copy of h_in (len bytes) */
void		lzss_bench_all(const uint8_t *d_in, const uint8_t *h_in, uint64_t len, int runs,
						   std::vector<base_row> *rows);
/* returns false when nvCOMP is not built in */
bool		nvcomp_bench_all(const uint8_t *d_in, const uint8_t *h_in, uint64_t len, int runs,
							 std::vector<base_row> *rows);
double		base_median(std::vector<double> v);

#endif
