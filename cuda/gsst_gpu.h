/*
 * gsst_gpu.h - the C ABI of gsst_gpu.so, the GPU encoder and decoder of
 * GSST tiles (src/codec/FORMAT.md).
 *
 * No PostgreSQL and no CUDA types: the gsst worker's helper process
 * (src/worker/helper/) dlopen()s the library, so that CUDA lives in a process
 * outside PostgreSQL's shared memory; the worker falls back to the CPU
 * codec when dlopen or gsst_gpu_init fails or the helper dies.
 * gsst_gpu_cpu.c implements the same ABI with the CPU codec.  Every function returns a status code; the library never aborts,
 * exits or prints.  A context is used by one thread at a time.
 *
 * Tiles produced here are byte-identical to gsst_tile_encode() of the CPU
 * codec for the same symbol table and split size; tiles decoded here are
 * validated (hostile input never makes a kernel read or write out of
 * bounds; it makes the call fail with GSST_GPU_ERR_CORRUPT).
 */
#ifndef GSST_GPU_H
#define GSST_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSST_GPU_ABI_VERSION 2

/* Encoder defaults; split and unit sizes must be multiples of 4096 and the
 * unit size must divide the split size. */
#define GSST_GPU_DEFAULT_SPLIT_BYTES  (32 * 1024)
#define GSST_GPU_DEFAULT_UNIT_BYTES   (8 * 1024)
#define GSST_GPU_DEFAULT_SAMPLE_BYTES (16 * 1024)

typedef enum gsst_gpu_status
{
	GSST_GPU_OK = 0,
	GSST_GPU_ERR_NO_DEVICE = -100,	/* no usable CUDA device or driver */
	GSST_GPU_ERR_ARG = -101,		/* invalid argument */
	GSST_GPU_ERR_NOMEM = -102,		/* device or pinned host memory exhausted */
	GSST_GPU_ERR_LIMIT = -103,		/* batch exceeds the configured limits */
	GSST_GPU_ERR_SPACE = -104,		/* caller's output buffer too small */
	GSST_GPU_ERR_CORRUPT = -105,	/* tile failed validation */
	GSST_GPU_ERR_CODEC = -106,		/* table training or loading failed */
	GSST_GPU_ERR_CUDA = -107,		/* other CUDA failure; context is unusable */
	GSST_GPU_ERR_BROKEN = -108		/* an earlier CUDA failure broke the context */
} gsst_gpu_status;

typedef struct gsst_gpu gsst_gpu;	/* opaque context */

typedef struct gsst_gpu_config
{
	int			device;			/* CUDA ordinal; -1 picks device 0 */
	uint32_t	split_bytes;	/* raw bytes per tile split; 0 = default */
	uint32_t	unit_bytes;		/* raw bytes per encoder thread; 0 = default */
	uint32_t	sample_bytes;	/* training sample; 0 = default, max 32 KiB */
	size_t		max_device_bytes;	/* cap on the library's own device memory
									 * (workspace + staging); 0 = no cap */
	uint32_t	flags;			/* GSST_GPU_FLAG_*, for benchmarks */
} gsst_gpu_config;

/* Kernel choices (the defaults are the fastest measured). */
#define GSST_GPU_FLAG_THREAD_SPLITS  1u	/* decode: one thread per split
										 * instead of one warp per split */
#define GSST_GPU_FLAG_DIRECT_VALUES  2u	/* decode_values: each thread writes
										 * its value straight to memory
										 * instead of through a warp's
										 * shared-memory stage */
#define GSST_GPU_FLAG_STAGED_VALUES  4u	/* decode_values: one thread per
										 * value into a warp's stage
										 * instead of warp-decoded batches
										 * of gathered values */
#define GSST_GPU_FLAG_FIXED_SIZES    8u	/* encode: split_bytes and unit_bytes
										 * exactly as configured, not fitted
										 * to the GPU (see gsst_gpu_stats) */
#define GSST_GPU_FLAG_TILE_V1       16u	/* encode: tile format version 1
										 * (8 bytes of index a value), for
										 * comparisons; decode reads both */
#define GSST_GPU_FLAGS_ALL          31u	/* init rejects any other bit */

typedef struct gsst_gpu_info
{
	char		name[256];
	int			device;
	int			multiprocessors;
	int			cc_major;
	int			cc_minor;
	size_t		total_memory;
	size_t		l2_bytes;
} gsst_gpu_info;

/* Timings and memory of the last encode or decode call on a context. */
typedef struct gsst_gpu_stats
{
	double		total_ms;		/* CUDA events around the whole call */
	double		kernel_ms;		/* events around the kernels (no training,
								 * no table upload, no header read-back) */
	double		train_ms;		/* host: sample read-back + training */
	double		sample_ms;		/* host: of train_ms, until the sample is read back */
	double		fit_ms;			/* host: of train_ms, gsst_train alone */
	double		plan_ms;		/* GPU: from the call's start to the end of the
								 * kernels that run while the host trains */
	/*
	 * encode only: the split and unit sizes the tile was made with.  The
	 * encoder's threads take one unit each, and each of them runs about as
	 * long as the whole wave of threads that the GPU holds at once, so a
	 * batch whose units overfill a wave by a little costs a whole wave
	 * more.  Unless GSST_GPU_FLAG_FIXED_SIZES is set, the units are made
	 * smaller (down to 4096 bytes) until they fill whole waves, and the
	 * split is the multiple of the unit nearest to the configured one.
	 * The CPU codec makes the same tile with this split_bytes.
	 */
	uint32_t	split_bytes;
	uint32_t	unit_bytes;
	uint64_t	extra_device_bytes;	/* workspace the call used beyond its
									 * input and output buffers */
	/* encode only, events between its stages: the encoding kernel;
	 * resolve and scan; compaction; split table and header */
	double		stage_ms[4];
} gsst_gpu_stats;

/*
 * The ABI this library implements (GSST_GPU_ABI_VERSION when it was built)
 * and the size of its gsst_gpu_config: a caller checks both before it
 * passes a config, so that a library built from other headers is refused
 * rather than misread.
 */
int			gsst_gpu_abi_version(void);
size_t		gsst_gpu_config_size(void);

/* Fill a config with defaults. */
void		gsst_gpu_config_default(gsst_gpu_config *config);

/*
 * Create a context on a device.  config may be NULL (defaults).  On
 * failure *ctx is NULL and gsst_gpu_init_error() describes why; with no
 * GPU or driver the status is GSST_GPU_ERR_NO_DEVICE.
 */
int			gsst_gpu_init(const gsst_gpu_config *config, gsst_gpu **ctx);

/* Message of the last failed gsst_gpu_init in this thread. */
const char *gsst_gpu_init_error(void);

/* Release everything the context holds.  NULL is allowed. */
void		gsst_gpu_shutdown(gsst_gpu *ctx);

/* Message of the last failure on ctx ("" when none). */
const char *gsst_gpu_last_error(const gsst_gpu *ctx);

/* Short text of a status code. */
const char *gsst_gpu_strerror(int status);

int			gsst_gpu_get_info(gsst_gpu *ctx, gsst_gpu_info *info);

int			gsst_gpu_last_stats(const gsst_gpu *ctx, gsst_gpu_stats *stats);

/*
 * Room a device tile needs for gsst_gpu_encode_device: gsst_tile_bound()
 * with room for splits down to half of split_bytes (fitted sizes, see
 * gsst_gpu_stats), plus about 1.6% of the raw bytes, because the encoder
 * keeps its scratch in the tile's code area.  0 on overflow.
 */
size_t		gsst_gpu_tile_bound(size_t n, size_t raw_bytes, size_t split_bytes);

/*
 * Pin host memory that later calls read and write (the helper's region), so
 * that their copies to and from the device run as DMA, without the driver's
 * staging copies on the CPU.  On failure the memory stays as it was and the
 * calls work on it as before.  Unregister before unmapping it.
 */
int			gsst_gpu_host_register(gsst_gpu *ctx, void *ptr, size_t bytes);
int			gsst_gpu_host_unregister(gsst_gpu *ctx, void *ptr);

/*
 * Encode values data[offsets[i] .. offsets[i+1]) for i < n into a tile.
 * table/table_len: a serialized symbol table (FORMAT.md), or NULL/0 to
 * train one on a sample of the batch.  tile_cap must be at least
 * gsst_tile_bound(n, offsets[n] - offsets[0], split_bytes of the config)
 * (the sizes are fitted to the GPU only when it has room for the fitted
 * split's bound).  Host memory in and out.
 */
int			gsst_gpu_encode(gsst_gpu *ctx, const uint8_t *table, size_t table_len,
							const uint8_t *data, const uint64_t *offsets, size_t n,
							uint8_t *tile, size_t tile_cap, size_t *tile_len);

/* Decode a whole tile: out receives every value back to back. */
int			gsst_gpu_decode(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len,
							uint8_t *out, size_t out_cap, size_t *out_len);

/*
 * Decode the values indices[0..k) of a tile, each on its own, back to
 * back into out; out_offsets (k + 1 entries) receives where each starts.
 */
int			gsst_gpu_decode_values(gsst_gpu *ctx, const uint8_t *tile, size_t tile_len,
								   const uint64_t *indices, size_t k, uint8_t *out,
								   size_t out_cap, uint64_t *out_offsets);

/*
 * Device-pointer variants (pointers from cudaMalloc in the same process,
 * passed as void *).  d_offsets must be 8-byte aligned and d_tile 16-byte
 * aligned; d_data and d_out may have any alignment.  Every call returns
 * after its device work has finished.  The work runs on the library's own
 * stream, which comes after what the caller queued on the legacy default
 * stream (stream 0); work on the caller's other streams that writes the
 * inputs or uses the outputs must be finished first.  For gsst_gpu_encode_device, tile_cap
 * must be at least gsst_gpu_tile_bound(): the tile's room past tile_len is
 * scratch, its bytes undefined afterwards.
 */
int			gsst_gpu_encode_device(gsst_gpu *ctx, const uint8_t *table, size_t table_len,
								   const void *d_data, const void *d_offsets, size_t n,
								   void *d_tile, size_t tile_cap, size_t *tile_len);

int			gsst_gpu_decode_device(gsst_gpu *ctx, const void *d_tile, size_t tile_len,
								   void *d_out, size_t out_cap, size_t *out_len);

/*
 * d_indices NULL: decode every value independently (one thread per value)
 * to its own raw offset, as decode_device lays them out; k is ignored and
 * d_out_offsets may be NULL.  Else as gsst_gpu_decode_values, with
 * d_out_offsets (k + 1 entries) in device memory.
 */
int			gsst_gpu_decode_values_device(gsst_gpu *ctx, const void *d_tile, size_t tile_len,
										  const void *d_indices, size_t k, void *d_out,
										  size_t out_cap, void *d_out_offsets);

#ifdef __cplusplus
}
#endif

#endif							/* GSST_GPU_H */
