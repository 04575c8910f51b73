/*
 * test_check.h - the check macros of the codec unit tests, shared by
 * test_codec.c (which defines the framework and the runner) and
 * test_golden.c.  A failed check is reported with its file and line and
 * makes the current test fail; each test counts once in the final
 * "N passed, N failed" line.
 */
#ifndef GSST_TEST_CHECK_H
#define GSST_TEST_CHECK_H

#include <stdbool.h>
#include <stdint.h>

bool		check_report(bool ok, const char *file, int line, const char *fmt, ...);
bool		check_eq_impl(int64_t a, int64_t b, const char *as, const char *bs,
						  const char *file, int line);

#define CHECK(cond) \
	check_report((cond), __FILE__, __LINE__, "check failed: %s", #cond)

#define CHECK_EQ(a, b) \
	check_eq_impl((int64_t) (a), (int64_t) (b), #a, #b, __FILE__, __LINE__)

/* Give up on the current test when a precondition fails. */
#define REQUIRE(cond) do { if (!CHECK(cond)) return; } while (0)

#endif							/* GSST_TEST_CHECK_H */
