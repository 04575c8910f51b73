/*
 * heap_write_bench.c - how fast can the parallel rewrite's workers put a new
 * heap into the page cache on this machine, and what bounds it.
 *
 * The workers of gsst.compress_table's parallel rewrite fill 1 MB chunks of
 * pages and write them into the new heap's files, one writer at a time
 * (compress_parallel.c).  This program writes TOTAL_MB of 8 kB pages the
 * ways that could be done, in the directory given, and prints GB/s:
 *
 *   one file, one thread, a pwrite per 8 kB page (PostgreSQL 15's smgrwrite)
 *   one file, one thread, a pwritev per 1 MB chunk (16's smgrwritev)
 *   one file, N threads claiming chunks, taking turns (a mutex), pwritev
 *   one file, N threads claiming chunks, all at once, pwritev
 *   N files (as 1 GB segments are), a thread each, pwritev
 *
 * No fsync (the benchmark's servers run with fsync = off).  Each case's
 * files are removed after it; the median of REPEATS runs is printed.
 *
 *   cc -O2 -pthread -o hwb bench/heap_write_bench.c && ./hwb DIR TOTAL_MB THREADS REPEATS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

#define PAGE		8192
#define CHUNK		(1024 * 1024)
#define PAGES		(CHUNK / PAGE)

typedef enum
{
	PER_PAGE,					/* pwrite per page */
	PER_CHUNK,					/* pwritev per chunk */
} IoMode;

typedef struct Case
{
	const char *name;
	IoMode		io;
	int			threads;
	int			files;			/* 1: all threads write one file */
	int			turns;			/* one writer at a time */
} Case;

typedef struct Shared
{
	const Case *c;
	int			fds[256];
	uint64_t	chunks;			/* per file */
	atomic_uint_fast64_t next[256];
	pthread_mutex_t turn;
} Shared;

typedef struct Worker
{
	Shared	   *s;
	int			id;
	char	   *buf;
} Worker;

static void
write_chunk(const Case *c, int fd, char *buf, uint64_t k)
{
	off_t		off = (off_t) k * CHUNK;

	if (c->io == PER_PAGE)
	{
		for (int p = 0; p < PAGES; p++)
			if (pwrite(fd, buf + (size_t) p * PAGE, PAGE, off + (off_t) p * PAGE) != PAGE)
			{
				perror("pwrite");
				exit(1);
			}
	}
	else
	{
		struct iovec iov[PAGES];

		for (int p = 0; p < PAGES; p++)
		{
			iov[p].iov_base = buf + (size_t) p * PAGE;
			iov[p].iov_len = PAGE;
		}
		if (pwritev(fd, iov, PAGES, off) != CHUNK)
		{
			perror("pwritev");
			exit(1);
		}
	}
}

static void *
run_worker(void *arg)
{
	Worker	   *w = arg;
	Shared	   *s = w->s;
	const Case *c = s->c;
	int			file = c->files == 1 ? 0 : w->id;

	for (;;)
	{
		uint64_t	k = atomic_fetch_add(&s->next[file], 1);

		if (k >= s->chunks)
			break;
		/* a page's contents change, as a filled chunk's do */
		memcpy(w->buf, &k, sizeof(k));
		if (c->turns)
			pthread_mutex_lock(&s->turn);
		write_chunk(c, s->fds[file], w->buf, k);
		if (c->turns)
			pthread_mutex_unlock(&s->turn);
	}
	return NULL;
}

static double
run_case(const char *dir, const Case *c, uint64_t total_chunks)
{
	Shared		s;
	pthread_t	tids[256];
	Worker		workers[256];
	char		path[4096];
	double		t0;
	double		elapsed;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.chunks = total_chunks / (uint64_t) c->files;
	pthread_mutex_init(&s.turn, NULL);
	for (int f = 0; f < c->files; f++)
	{
		snprintf(path, sizeof(path), "%s/hwb.%d", dir, f);
		s.fds[f] = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		if (s.fds[f] < 0)
		{
			perror(path);
			exit(1);
		}
		atomic_init(&s.next[f], 0);
	}
	for (int t = 0; t < c->threads; t++)
	{
		workers[t].s = &s;
		workers[t].id = t;
		workers[t].buf = aligned_alloc(4096, CHUNK);
		memset(workers[t].buf, 'a' + t % 26, CHUNK);
	}
	t0 = bench_now_seconds();
	for (int t = 0; t < c->threads; t++)
		pthread_create(&tids[t], NULL, run_worker, &workers[t]);
	for (int t = 0; t < c->threads; t++)
		pthread_join(tids[t], NULL);
	elapsed = bench_now_seconds() - t0;
	for (int f = 0; f < c->files; f++)
	{
		close(s.fds[f]);
		snprintf(path, sizeof(path), "%s/hwb.%d", dir, f);
		unlink(path);
	}
	for (int t = 0; t < c->threads; t++)
		free(workers[t].buf);
	return (double) s.chunks * c->files * CHUNK / elapsed / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	const char *dir;
	uint64_t	total_mb;
	int			threads;
	int			repeats;
	Case		cases[5];
	double		results[5][64];

	if (argc != 5)
	{
		fprintf(stderr, "usage: %s DIR TOTAL_MB THREADS REPEATS\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	total_mb = strtoull(argv[2], NULL, 10);
	threads = atoi(argv[3]);
	repeats = atoi(argv[4]);
	if (threads < 1 || threads > 256 || repeats < 1 || repeats > 64 || total_mb < (uint64_t) threads)
	{
		fprintf(stderr, "THREADS 1..256, REPEATS 1..64, TOTAL_MB >= THREADS\n");
		return 2;
	}
	cases[0] = (Case) {"one file, 1 thread, pwrite per 8 kB page", PER_PAGE, 1, 1, 0};
	cases[1] = (Case) {"one file, 1 thread, pwritev per 1 MB", PER_CHUNK, 1, 1, 0};
	cases[2] = (Case) {"one file, N threads taking turns, pwritev", PER_CHUNK, threads, 1, 1};
	cases[3] = (Case) {"one file, N threads at once, pwritev", PER_CHUNK, threads, 1, 0};
	cases[4] = (Case) {"N files, a thread each, pwritev", PER_CHUNK, threads, threads, 0};

	/* the cases alternate, so that the machine's drift touches all alike */
	for (int r = 0; r < repeats; r++)
		for (int i = 0; i < 5; i++)
			results[i][r] = run_case(dir, &cases[i], total_mb);

	printf("%d MB of 8 kB pages into %s, N = %d, median of %d\n", (int) total_mb, dir, threads, repeats);
	for (int i = 0; i < 5; i++)
	{
		qsort(results[i], repeats, sizeof(double), cmp_double);
		printf("%-46s %6.2f GB/s (%.2f-%.2f)\n", cases[i].name, results[i][repeats / 2],
			   results[i][0], results[i][repeats - 1]);
	}
	return 0;
}
