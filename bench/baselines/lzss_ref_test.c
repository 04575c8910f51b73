/*
 * lzss_ref_test.c - CPU round trip of the LZSS baseline's reference codec:
 *   lzss_ref_test FILE [BYTES]   (the file's lines concatenated, as gpu_bench
 *   feeds values) for the three parameter sets, plus edge cases; exit 1 on a
 *   mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "lzss_ref.h"

static int	failures;

static void
roundtrip(const char *name, const uint8_t *in, uint64_t len, int S, uint32_t W, uint32_t C)
{
	uint8_t    *s = malloc(lz_bound(len, C)),
			   *out = malloc(len + 1);
	uint64_t	olen = 0;
	clock_t		t0 = clock();
	uint64_t	slen = lz_ref_encode(in, len, S, W, C, s);
	double		secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	int			rc = lz_ref_decode(s, slen, out, len, &olen);
	int			ok = rc == 0 && olen == len && memcmp(in, out, len) == 0;

	/* a truncated or damaged stream must be rejected or decode without overrun */
	if (slen > 64)
	{
		uint64_t	dummy;

		if (lz_ref_decode(s, slen - 1, out, len, &dummy) == 0)
			ok = 0;
		for (int t = 0; t < 50; t++)
		{
			uint64_t	at = LZ_HEADER_BYTES + (uint64_t) rand() % (slen - LZ_HEADER_BYTES);

			s[at] ^= (uint8_t) (1 + rand() % 255);
			(void) lz_ref_decode(s, slen, out, len, &dummy);
			s[at] = 0;
		}
	}
	printf("%-14s S=%d W=%3u C=%u bytes %-10llu stream %-10llu ratio %.3f enc %.1f MB/s %s\n", name, S, W, C,
		   (unsigned long long) len, (unsigned long long) slen, slen ? (double) len / slen : 0,
		   len / 1e6 / (secs > 0 ? secs : 1e-9), ok ? "ok" : "FAILED");
	if (!ok)
		failures++;
	free(s);
	free(out);
}

int
main(int argc, char **argv)
{
	static const int sets[3][3] = {{4, 32, 4096}, {2, 128, 4096}, {1, 255, 4096}};
	uint64_t	max = argc > 2 ? strtoull(argv[2], NULL, 10) : (4u << 20);
	uint8_t    *buf = malloc(max + 1);
	uint64_t	len = 0;

	if (argc > 1)
	{
		FILE	   *f = fopen(argv[1], "rb");
		int			ch;

		if (!f)
			return 2;
		while (len < max)
		{
			ch = fgetc(f);
			if (ch == EOF)
			{
				if (len == 0)
					break;
				rewind(f);
				continue;
			}
			if (ch != '\n')
				buf[len++] = (uint8_t) ch;
		}
		fclose(f);
	}
	for (int k = 0; k < 3; k++)
	{
		if (len)
			roundtrip("file", buf, len, sets[k][0], sets[k][1], sets[k][2]);
		roundtrip("file-odd", buf, len > 12347 ? 12347 : len, sets[k][0], sets[k][1], sets[k][2]);
		{
			uint8_t		z[10000];

			memset(z, 'a', sizeof(z));
			roundtrip("run", z, sizeof(z), sets[k][0], sets[k][1], sets[k][2]);
			for (size_t i = 0; i < sizeof(z); i++)
				z[i] = (uint8_t) rand();
			roundtrip("random", z, sizeof(z), sets[k][0], sets[k][1], sets[k][2]);
			roundtrip("tiny", z, 3, sets[k][0], sets[k][1], sets[k][2]);
			roundtrip("empty", z, 0, sets[k][0], sets[k][1], sets[k][2]);
		}
	}
	printf("lzss_ref_test: %s (%d failures)\n", failures ? "FAILED" : "all passed", failures);
	free(buf);
	return failures ? 1 : 0;
}
