/*
 * bench/gpu_handoff_bench.cu - what moving one batch to the GPU and its tile
 * back costs, for each way the GPU helper could reach a backend's batch.
 * The batch lies in a fresh POSIX shared memory object, as a DSM segment
 * does; the helper maps it afresh for every batch.
 *
 *   copy      the worker copies the batch into a region registered with
 *             CUDA long before, the GPU copies it from there, the tile
 *             comes back into the region and is copied out (what gsst does
 *             when it cannot map the batch)
 *   pageable  the helper maps the segment and copies from and to it as
 *             plain pageable memory (the driver stages it)
 *   register  the helper maps the segment, registers it with CUDA for the
 *             one batch, copies, and unregisters it
 *   resident  the batch already lies in the registered region (a region
 *             that the backends write into): only the GPU's copies
 *
 * Wall-clock milliseconds and the process's CPU milliseconds (the driver's
 * threads included), median of the repetitions, variants alternating.
 *
 *   nvcc -O2 -arch=sm_90 -o gpu_handoff_bench bench/gpu_handoff_bench.cu
 *   ./gpu_handoff_bench [MB] [REPS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#define CHECK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); \
			exit(1); \
		} \
	} while (0)

enum { V_COPY, V_PAGEABLE, V_REGISTER, V_RESIDENT, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"copy", "pageable", "register", "resident"};

static double
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(double), compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A segment as a backend makes one: a shared memory object, filled. */
static int
make_segment(size_t bytes)
{
	int			fd = shm_open("/gsst_gpu_handoff", O_CREAT | O_RDWR | O_EXCL, 0600);
	unsigned char *p;

	if (fd < 0 || ftruncate(fd, (off_t) bytes) != 0 || posix_fallocate(fd, 0, (off_t) bytes) != 0)
	{
		perror("segment");
		exit(1);
	}
	shm_unlink("/gsst_gpu_handoff");
	p = (unsigned char *) mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
	{
		perror("mmap");
		exit(1);
	}
	memset(p, 'x', bytes);
	munmap(p, bytes);
	return fd;
}

int
main(int argc, char **argv)
{
	size_t		mb = argc > 1 ? (size_t) atoi(argv[1]) : 16;
	int			reps = argc > 2 ? atoi(argv[2]) : 15;
	size_t		in_bytes = mb << 20;
	size_t		tile_bytes = in_bytes / 2;	/* about what a tile of text is */
	size_t		seg_bytes = in_bytes + tile_bytes;
	unsigned char *region;
	void	   *d_in,
			   *d_tile;
	double	   *wall[NVARIANTS],
			   *cpu[NVARIANTS];
	cudaStream_t stream;

	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreate(&stream));
	CHECK(cudaMalloc(&d_in, in_bytes));
	CHECK(cudaMalloc(&d_tile, tile_bytes));
	CHECK(cudaMemset(d_tile, 7, tile_bytes));
	region = (unsigned char *) mmap(NULL, seg_bytes, PROT_READ | PROT_WRITE,
									MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(region, 0, seg_bytes);
	CHECK(cudaHostRegister(region, seg_bytes, cudaHostRegisterDefault));
	for (int v = 0; v < NVARIANTS; v++)
	{
		wall[v] = (double *) malloc(reps * sizeof(double));
		cpu[v] = (double *) malloc(reps * sizeof(double));
	}

	for (int r = -1; r < reps; r++)		/* r = -1 warms up */
		for (int v = 0; v < NVARIANTS; v++)
		{
			int			fd = make_segment(seg_bytes);
			double		t0 = clock_ms(CLOCK_MONOTONIC),
						c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
			unsigned char *seg = NULL;
			unsigned char *src;

			if (v != V_RESIDENT)
			{
				seg = (unsigned char *) mmap(NULL, seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
				if (seg == MAP_FAILED)
				{
					perror("mmap");
					exit(1);
				}
			}
			if (v == V_COPY)
			{
				memcpy(region, seg, in_bytes);
				src = region;
			}
			else if (v == V_RESIDENT)
				src = region;
			else
				src = seg;
			if (v == V_REGISTER)
				CHECK(cudaHostRegister(seg, seg_bytes, cudaHostRegisterDefault));
			CHECK(cudaMemcpyAsync(d_in, src, in_bytes, cudaMemcpyHostToDevice, stream));
			CHECK(cudaMemcpyAsync(src + in_bytes, d_tile, tile_bytes, cudaMemcpyDeviceToHost, stream));
			CHECK(cudaStreamSynchronize(stream));
			if (v == V_COPY)
				memcpy(seg + in_bytes, region + in_bytes, tile_bytes);
			if (v == V_REGISTER)
				CHECK(cudaHostUnregister(seg));
			if (seg != NULL)
				munmap(seg, seg_bytes);
			if (r >= 0)
			{
				wall[v][r] = clock_ms(CLOCK_MONOTONIC) - t0;
				cpu[v][r] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
			}
			close(fd);
		}

	printf("%zu MB batch and %zu MB tile, median of %d, variants alternating\n",
		   mb, tile_bytes >> 20, reps);
	printf("%-10s %10s %10s\n", "variant", "wall ms", "CPU ms");
	for (int v = 0; v < NVARIANTS; v++)
		printf("%-10s %10.2f %10.2f\n", variant_name[v], median(wall[v], reps), median(cpu[v], reps));
	return 0;
}
