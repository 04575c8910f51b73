/*
 * bench/shm_handoff_bench.c - what handing a batch to the GPU helper costs
 * the CPU, two ways: the gsst worker's copy of the batch from its DSM
 * segment into the helper's region (both mapped and touched before), or
 * the helper mapping the batch's own segment afresh and touching its pages
 * (plain, and with MAP_POPULATE).  Median of the repetitions, ms per batch.
 *
 *   cc -O2 -o shm_handoff_bench bench/shm_handoff_bench.c
 *   ./shm_handoff_bench [MB] [REPS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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

/* A shared memory object of bytes, as a DSM segment or the helper's region is. */
static int
shared_object(const char *name, size_t bytes)
{
	int			fd = shm_open(name, O_CREAT | O_RDWR | O_EXCL, 0600);

	if (fd < 0 || ftruncate(fd, (off_t) bytes) != 0)
	{
		perror(name);
		exit(1);
	}
	shm_unlink(name);
	return fd;
}

static unsigned char *
map_object(int fd, size_t bytes, int flags)
{
	unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | flags, fd, 0);

	if (p == MAP_FAILED)
	{
		perror("mmap");
		exit(1);
	}
	return p;
}

/* Read a byte of every page, as the GPU's copy of a batch would fault them in. */
static unsigned
touch(const unsigned char *p, size_t bytes)
{
	unsigned	sum = 0;

	for (size_t i = 0; i < bytes; i += 4096)
		sum += p[i];
	return sum;
}

int
main(int argc, char **argv)
{
	size_t		bytes = (size_t) (argc > 1 ? atoi(argv[1]) : 64) << 20;
	int			reps = argc > 2 ? atoi(argv[2]) : 15;
	int			segment = shared_object("/gsst_handoff_segment", bytes);
	int			region = shared_object("/gsst_handoff_region", bytes);
	unsigned char *seg = map_object(segment, bytes, 0);
	unsigned char *reg = map_object(region, bytes, 0);
	double	   *copy_ms = malloc(reps * sizeof(double));
	double	   *map_ms = malloc(reps * sizeof(double));
	double	   *populate_ms = malloc(reps * sizeof(double));
	unsigned	sink = 0;

	memset(seg, 'x', bytes);	/* the backend's batch */
	memset(reg, 0, bytes);		/* the region, mapped and touched long before */
	for (int r = 0; r < reps; r++)
	{
		double		t0 = now_ms();
		unsigned char *m;

		memcpy(reg, seg, bytes);
		copy_ms[r] = now_ms() - t0;
		sink += reg[bytes - 1];

		t0 = now_ms();
		m = map_object(segment, bytes, 0);
		sink += touch(m, bytes);
		munmap(m, bytes);
		map_ms[r] = now_ms() - t0;

		t0 = now_ms();
		m = map_object(segment, bytes, MAP_POPULATE);
		sink += touch(m, bytes);
		munmap(m, bytes);
		populate_ms[r] = now_ms() - t0;
	}
	printf("%zu MB batch, median of %d: copy into the region %.2f ms, map and touch %.2f ms, "
		   "map with MAP_POPULATE and touch %.2f ms (%u)\n", bytes >> 20, reps, median(copy_ms, reps),
		   median(map_ms, reps), median(populate_ms, reps), sink & 1);
	return 0;
}
