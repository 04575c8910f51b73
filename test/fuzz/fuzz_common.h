/*
 * fuzz_common.h - shared by the libFuzzer targets and the seed generator.
 */
#ifndef GSST_FUZZ_COMMON_H
#define GSST_FUZZ_COMMON_H

#include "../codec/test_util.h"

/* Unlike assert(), never compiled out: a broken invariant is a finding. */
#define FUZZ_ASSERT(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/* Every status the codec documents. */
static inline int
fuzz_is_status(int64_t rc)
{
	return rc <= GSST_OK && rc >= GSST_ERR_ARG;
}

/*
 * The table fuzz_decode_value falls back to when its input does not start
 * with a loadable table: symbols of every length, fewer than 255 so that
 * unused codes exist.
 */
static inline int
fuzz_default_table(gsst_table *table)
{
	static const char *const symbols[] = {
		"e", "t", "a", "o", " ", "\n", "\x00", "\xff",
		"th", "he", "in", "er", "an", "re", ", ",
		"the", "ing", "and", "ion", "tion", "ment", "ation", "street",
		"http://", "www.exam", ".com/"
	};
	static const uint8_t lengths[] = {
		1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 6, 7, 8, 5
	};
	uint64_t	syms[sizeof(lengths)];

	for (size_t i = 0; i < sizeof(lengths); i++)
	{
		syms[i] = 0;
		for (unsigned j = 0; j < lengths[i]; j++)
			syms[i] |= (uint64_t) (uint8_t) symbols[i][j] << (8 * j);
	}
	return gsst_table_build(table, syms, lengths, sizeof(lengths));
}

#endif							/* GSST_FUZZ_COMMON_H */
