/*
 * codec_internal.h - helpers shared by the codec's translation units.
 */
#ifndef GSST_CODEC_INTERNAL_H
#define GSST_CODEC_INTERNAL_H

#include <string.h>

#include "gsst_codec.h"

#if defined(__GNUC__) || defined(__clang__)
#define GSST_LIKELY(x)   __builtin_expect(!!(x), 1)
#define GSST_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GSST_INLINE      static inline __attribute__((always_inline))
#define GSST_NOINLINE    __attribute__((noinline))
#define GSST_PREFETCH(p)  __builtin_prefetch(p)
#else
#define GSST_NOINLINE
#define GSST_PREFETCH(p)  ((void) (p))
#define GSST_LIKELY(x)   (x)
#define GSST_UNLIKELY(x) (x)
#define GSST_INLINE      static inline
#endif

/* A condition no predictor can learn: asks for a conditional move. */
#if defined(__clang__)
#define GSST_UNPREDICTABLE(x) __builtin_unpredictable(!!(x))
#elif defined(__GNUC__) && __GNUC__ >= 9
#define GSST_UNPREDICTABLE(x) __builtin_expect_with_probability(!!(x), 1, 0.5)
#else
#define GSST_UNPREDICTABLE(x) (x)
#endif

/*
 * Both values of a select made, in registers, before the select: the hint
 * above alone did not stop GCC 14 from loading one of them only after a
 * branch on the condition, which mispredicts about every other time on
 * text (the encoder ran at 0.6x its GCC 12 speed).
 */
#if defined(__GNUC__) || defined(__clang__)
#define GSST_MATERIALIZE(x) __asm__("" : "+r"(x))
#else
#define GSST_MATERIALIZE(x) ((void) 0)
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gsst's fast paths assume a little-endian host"
#endif

GSST_INLINE uint64_t
load_u64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
}

GSST_INLINE void
store_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

GSST_INLINE uint32_t
load_u32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
}

GSST_INLINE void
store_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Load up to 8 bytes, zero padded. */
GSST_INLINE uint64_t
load_partial(const uint8_t *p, size_t n)
{
	uint64_t	v = 0;

	memcpy(&v, p, n < 8 ? n : 8);
	return v;
}

/* Mask keeping the n low bytes of a word, n in 0..8. */
GSST_INLINE uint64_t
low_bytes_mask(unsigned n)
{
	return n >= 8 ? ~(uint64_t) 0 : (((uint64_t) 1 << (8 * n)) - 1);
}

/* condition ? if_true : if_false, as a mask: compilers make ?: a branch,
 * which mispredicts on data */
GSST_INLINE uint32_t
select_u32(int condition, uint32_t if_true, uint32_t if_false)
{
	return if_false ^ ((if_false ^ if_true) & -(uint32_t) condition);
}

/*
 * Probe the CPU's 2-choice table of long symbols for the word's 3-byte
 * prefix.  Each slot's entry is code | len << 8; hit says whether its
 * symbol matches the word within rem bytes.  At most one slot hits.
 */
typedef struct long_probe
{
	uint32_t	entry0,
				entry1;
	int			hit0,
				hit1;
} long_probe;

GSST_INLINE long_probe
probe_long_symbols(const gsst_encoder *enc, uint64_t word, size_t rem)
{
	uint32_t	prefix = (uint32_t) word & 0xFFFFFFu;
	uint32_t	slot0 = (prefix * enc->long_mul[0]) >> 22;
	uint32_t	slot1 = (prefix * enc->long_mul[1]) >> 22;
	long_probe	probe;

	probe.entry0 = enc->long_entry[slot0];
	probe.entry1 = enc->long_entry[slot1];
	probe.hit0 = (((word ^ enc->long_slot[slot0][0]) & enc->long_slot[slot0][1]) == 0) &
		((probe.entry0 >> 8) <= rem);
	probe.hit1 = (((word ^ enc->long_slot[slot1][0]) & enc->long_slot[slot1][1]) == 0) &
		((probe.entry1 >> 8) <= rem);
	return probe;
}

/* The slot of the one-probe table for the 3 low bytes of word32. */
GSST_INLINE uint32_t
gsst_direct_slot(uint32_t word32, uint32_t mul)
{
	return (word32 * mul) >> (32 - GSST_CPU_DIRECT_BITS);
}

/*
 * Look a key up in one of the encoder's 4-way hashes: returns the code of
 * the entry whose low 24 bits equal key, or GSST_ESCAPE.  Symbol keys are
 * unique, and empty entries hold a key that hashes to another bucket
 * (gsst_encoder_init sees to it), so at most one entry matches and the
 * four compares need no branches.
 */
GSST_INLINE unsigned
hash_lookup(const uint32_t *hash, uint32_t key)
{
	const uint32_t *bucket = hash + gsst_hash_bucket(key) * GSST_HASH_WAYS;
	uint32_t	found = 0;

	for (int way = 0; way < GSST_HASH_WAYS; way++)
	{
		uint32_t	hit = -(uint32_t) ((bucket[way] & 0xFFFFFFu) == key);

		found |= hit & ((bucket[way] >> 24) ^ GSST_ESCAPE);
	}
	return found ^ GSST_ESCAPE;
}

/* Bytes of a symbol as a big-endian number: orders like memcmp. */
GSST_INLINE uint64_t
symbol_sort_key(uint64_t symbol)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_bswap64(symbol);
#else
	uint64_t	key = 0;

	for (int i = 0; i < 8; i++)
		key = (key << 8) | ((symbol >> (8 * i)) & 0xFF);
	return key;
#endif
}

/*
 * Encode one segment in[0..len) of a value (bytes up to readable_end may be
 * loaded): the serial parse, or interleaved chains for longer segments.
 * Returns the code count, or SIZE_MAX once the codes pass olimit; out needs
 * GSST_ENCODE_SLACK bytes beyond olimit.
 */
size_t		gsst_encode_segment(const gsst_encoder *enc, const uint8_t *in, size_t len,
								const uint8_t *readable_end, uint8_t *out,
								const uint8_t *olimit);

/* Tests set it to run the portable encoder on a CPU with AVX-512. */
extern int	gsst_encode_simd_disabled;

/* the CPU runs the AVX-512 encode lanes (x86-64 builds with SIMD only) */
extern int	gsst_cpu_has_encode_lanes(void);

/* Tests and benchmarks set it to keep every decoder on its portable path. */
extern int	gsst_decode_simd_disabled;

/* the CPU runs the AVX-512 decoders (x86-64 builds with SIMD only) */
extern int	gsst_cpu_has_decode_simd(void);

/*
 * gsst_encoder_init without short_code (128 KB to fill, for each of the
 * trainer's generations): the trainer matches with the hashes.
 */
void		gsst_encoder_init_for_training(gsst_encoder *enc, const gsst_table *table);

#endif							/* GSST_CODEC_INTERNAL_H */
