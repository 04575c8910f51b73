/* bench_clock.h - the monotonic clock the CPU benchmarks time with. */
#ifndef GSST_BENCH_CLOCK_H
#define GSST_BENCH_CLOCK_H

#include <time.h>

static inline double
bench_now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif							/* GSST_BENCH_CLOCK_H */
