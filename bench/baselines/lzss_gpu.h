/*
 * lzss_gpu.h - gpuLZ-style LZSS GPU codec, a benchmark baseline (not a gsst
 * column method).  Stream format in lzss_format.h.  All buffers in device
 * memory; `in` and `out` of decode must be 16-byte aligned.
 */
#ifndef LZSS_GPU_H
#define LZSS_GPU_H

#include <cuda_runtime.h>
#include <stdint.h>

typedef struct lzss_gpu_params
{
	int			S;				/* symbol bytes: 1, 2, 4 */
	uint32_t	W;				/* window in symbols, <= 255 */
	uint32_t	C;				/* chunk bytes, multiple of 4, <= 4096 */
} lzss_gpu_params;

uint64_t	lzss_gpu_bound(uint64_t len, uint32_t C);
/* scratch the encoder needs (records before compaction, sizes, offsets) */
uint64_t	lzss_gpu_scratch_bytes(uint64_t len, uint32_t C);

/* encode: returns 0, or -1 (bad parameters); *out_len read back (synchronizes the stream) */
int			lzss_gpu_encode(const uint8_t *d_in, uint64_t len, lzss_gpu_params p, uint8_t *d_out,
							uint64_t cap, void *d_scratch, uint64_t *out_len, cudaStream_t stream);

/* decode: returns 0, -1 corrupt stream (reads back an error flag: synchronizes) */
int			lzss_gpu_decode(const uint8_t *d_in, uint64_t in_len, uint64_t raw_len, lzss_gpu_params p,
							uint8_t *d_out, void *d_scratch, cudaStream_t stream);

#endif
