/*
 * tile.c - the GSST tile: one symbol table, many values, per-value offsets
 * for random access and a split table for parallel decoding (FORMAT.md).
 */
#include "tile_internal.h"

/* ---- layout (tile_layout.h) ---- */

/*
 * The split rule: a piece (a value, or a segment of a long value) starting
 * at raw offset r begins a new split when a multiple of split_bytes lies in
 * (previous piece start, r].  Depends only on raw lengths, so a GPU can
 * evaluate it per piece in parallel.  Sequentially it is: r reaches the
 * first multiple of split_bytes above the start of the split before, which
 * needs a division only when a split begins.
 */
GSST_INLINE uint64_t
next_split_boundary(uint64_t split_start, uint64_t split_bytes)
{
	return (split_start / split_bytes + 1) * split_bytes;
}

static uint64_t
count_splits(const uint64_t *offsets, size_t n, uint64_t split_bytes)
{
	uint64_t	nsplits = n > 0 ? 1 : 0;
	uint64_t	boundary = split_bytes;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	start = offsets[i] - offsets[0];
		uint64_t	len = offsets[i + 1] - offsets[i];
		uint64_t	piece = 0;

		do
		{
			if (GSST_UNLIKELY(start + piece >= boundary))
			{
				nsplits++;
				boundary = next_split_boundary(start + piece, split_bytes);
			}
			piece += GSST_SEGMENT_BYTES;
		} while (piece < len);
	}
	return nsplits;
}

/*
 * Where the version 2 encoder keeps the long entries while it writes the
 * codes: past the most the codes can take, in the room gsst_tile_bound
 * gives.  They move to their place once the code size is known.
 */
static uint64_t
long_stash_at(const gsst_tile_layout *l, uint64_t raw_bytes)
{
	return gsst_align_up(l->codes_at + raw_bytes + GSST_ENCODE_SLACK, 8);
}

/*
 * Room for either version: the codes may take as many bytes as the values
 * (C <= R), and a version 2 encoder keeps its long entries past them.
 */
size_t
gsst_tile_bound(size_t n, size_t raw_bytes, size_t split_bytes)
{
	uint32_t	width = gsst_tile_index_width(n, raw_bytes);
	uint64_t	max_splits;
	uint64_t	max_longs = raw_bytes / GSST_TILE_LONG;
	gsst_tile_layout v1,
				v2;
	uint64_t	end;

	if (split_bytes == 0)
		split_bytes = GSST_DEFAULT_SPLIT_BYTES;
	max_splits = 1 + raw_bytes / split_bytes;
	if (max_longs > n)
		max_longs = n;
	if (gsst_tile_layout_start(&v1, 1, width, GSST_TABLE_MAX_BYTES, n, max_splits) != 0 ||
		gsst_tile_layout_start(&v2, 2, width, GSST_TABLE_MAX_BYTES, n, max_splits) != 0 ||
		gsst_tile_layout_finish(&v1, raw_bytes, 0) != 0)
		return SIZE_MAX;
	end = long_stash_at(&v2, raw_bytes) + max_longs * 2 * width;
	if (end < v1.end)
		end = v1.end;
	if (end > SIZE_MAX - GSST_ENCODE_SLACK)
		return SIZE_MAX;
	return (size_t) end + GSST_ENCODE_SLACK;
}

/* ---- encoding ---- */

/*
 * Writes the value index: a version 1 entry pair, or a version 2 block
 * entry, length bytes and long entry.  The encoding loops keep a copy in
 * locals (byte stores through a pointer could alias it otherwise).
 */
typedef struct index_writer
{
	uint32_t	version;
	uint32_t	width;
	uint8_t    *comp_entries;	/* v1 */
	uint8_t    *raw_entries;	/* v1 */
	uint8_t    *blocks;			/* v2 */
	uint8_t    *code_lens;		/* v2 */
	uint8_t    *raw_lens;		/* v2 */
	uint8_t    *long_stash;		/* v2: long_stash_at() */
	uint64_t	nlongs;
} index_writer;

/* Value v starts at comp and raw and takes code_len and raw_len bytes. */
GSST_INLINE void
index_value(index_writer *ix, uint64_t v, uint64_t comp, uint64_t raw, uint64_t code_len,
			uint64_t raw_len)
{
	uint32_t	width = ix->width;

	if (ix->version == 1)
	{
		gsst_tile_put_entry(ix->comp_entries, v, width, comp);
		gsst_tile_put_entry(ix->raw_entries, v, width, raw);
		return;
	}
	if (GSST_UNLIKELY(v % GSST_TILE_BLOCK_VALUES == 0))
	{
		uint64_t	b = v / GSST_TILE_BLOCK_VALUES;

		gsst_tile_put_entry(ix->blocks, 3 * b, width, comp);
		gsst_tile_put_entry(ix->blocks, 3 * b + 1, width, raw);
		gsst_tile_put_entry(ix->blocks, 3 * b + 2, width, ix->nlongs);
	}
	ix->nlongs += (uint64_t) gsst_tile_put_lengths(ix->code_lens, ix->raw_lens, ix->long_stash,
												  width, v, ix->nlongs, code_len, raw_len);
}

/* Where gsst_tile_encode writes, and how far it got. */
typedef struct tile_writer
{
	const gsst_encoder *enc;
	const uint8_t *data;
	const uint64_t *offsets;
	const uint8_t *input_end;
	uint8_t    *out;
	uint8_t    *codes;
	gsst_tile_layout l;
	index_writer ix;
	uint64_t	split_bytes;
	uint64_t	comp;			/* code bytes written */
	uint64_t	split;			/* splits written */
	uint64_t	split_boundary; /* the next piece at or past it starts a split */
} tile_writer;

/* Start a piece of value i at raw offset raw (and code offset comp). */
GSST_INLINE void
start_piece(tile_writer *w, size_t i, uint64_t raw, uint64_t comp)
{
	if (GSST_UNLIKELY(raw >= w->split_boundary))
	{
		uint8_t    *entry = w->out + w->l.splits_at + w->split * 3 * w->l.width;

		gsst_tile_put_entry(entry, 0, w->l.width, i);
		gsst_tile_put_entry(entry, 1, w->l.width, comp);
		gsst_tile_put_entry(entry, 2, w->l.width, raw);
		w->split++;
		w->split_boundary = next_split_boundary(raw, w->split_bytes);
	}
}

/*
 * Encode value i on its own, segment by segment (with the per-value
 * encoder's chains, which beat the lanes on long values).
 */
static void
put_value_serial(tile_writer *w, size_t i)
{
	const uint8_t *value = w->data + w->offsets[i];
	uint64_t	raw_start = w->offsets[i] - w->offsets[0];
	uint64_t	len = w->offsets[i + 1] - w->offsets[i];
	uint64_t	comp = w->comp;
	/* codes must be strictly shorter than the value, else it is raw */
	const uint8_t *olimit = w->codes + comp + (len > 0 ? len - 1 : 0);
	uint64_t	first_split_of_value = w->split;
	uint64_t	written = 0;
	int			stored_raw = (len == 0);
	uint64_t	piece = 0;

	do
	{
		uint64_t	seg_len = len - piece < GSST_SEGMENT_BYTES ?
			len - piece : GSST_SEGMENT_BYTES;

		start_piece(w, i, raw_start + piece, comp + written);
		if (!stored_raw)
		{
			size_t		n = gsst_encode_segment(w->enc, value + piece, seg_len,
												w->input_end, w->codes + comp + written,
												olimit);

			if (n == SIZE_MAX)
				stored_raw = 1;
			else
				written += n;
		}
		piece += GSST_SEGMENT_BYTES;
	} while (piece < len);

	if (stored_raw)
	{
		/* splits inside a raw value sit at the same distance in codes */
		for (uint64_t s = first_split_of_value; s < w->split; s++)
		{
			uint8_t    *entry = w->out + w->l.splits_at + s * 3 * w->l.width;
			uint64_t	raw_at = read_entry(entry, 2, w->l.width);

			gsst_tile_put_entry(entry, 1, w->l.width, comp + (raw_at - raw_start));
		}
		memcpy(w->codes + comp, value, len);
		written = len;
	}
	index_value(&w->ix, i, comp, raw_start, written, len);
	w->comp = comp + written;
}

/*
 * Short values are encoded in LANES interleaved lanes: the greedy match is
 * one long dependency chain per step, and independent lanes let the CPU
 * overlap them.  A batch gives each lane a run of consecutive values of
 * about LANE_RAW bytes; the lane steps through its run as one stream (a
 * value end only limits the match and moves to the next value, without a
 * branch) into a buffer on the stack.  Then the codes (or the raw value,
 * when the codes are not shorter) go to the tile in value order.  The
 * bytes are exactly those of put_value_serial.
 */
#define LANES				4		/* 3 measured the same */
#define LANE_RAW			1024	/* raw bytes per lane and batch, about */
#define LANE_VALUE_MAX		512		/* longer values go on their own */
#define LANE_MAX_VALUES		255
#define LANE_OUT_BYTES		(2 * (LANE_RAW + LANE_VALUE_MAX) + 32)

typedef struct lane_value
{
	const uint8_t *end;			/* of the value in the input */
	uint8_t    *code_end;		/* of its codes in out, final once p passes end */
} lane_value;

typedef struct lane
{
	size_t		first;			/* first value */
	size_t		count;			/* values, empty ones included */
	size_t		nonempty;
	const uint8_t *in;			/* start of the first value */
	size_t		raw;			/* raw bytes */
	lane_value	values[LANE_MAX_VALUES + 1];	/* the nonempty ones, a sentinel */
	uint8_t		out[LANE_OUT_BYTES];
} lane;

/*
 * One greedy step of a lane at p (before the lane's end), in value v; the
 * codes go to o.  The length checks are folded into the compares: beyond
 * the value's end the word is treated as all ones in high_bytes, so a long
 * symbol that does not fit compares unequal through its mask.  Every
 * select is a conditional move (no data-dependent branches).
 */
GSST_INLINE void
lane_step(const gsst_encoder *enc, const uint8_t **pp, uint8_t **oo, lane_value **vv)
{
	const uint8_t *p = *pp;
	uint8_t    *o = *oo;
	lane_value *v = *vv;
	const uint8_t *value_end = v->end;
	uint64_t	word = load_u64(p);
	size_t		rem = (size_t) (value_end - p);
	uint64_t	high_bytes = rem < 8 ? ~(uint64_t) 0 << (8 * rem) : 0;
	uint32_t	prefix = (uint32_t) word & 0xFFFFFFu;
	/* twice the slot: indexes the {symbol, mask} words and long_entry bytes */
	size_t		at0 = ((prefix * enc->long_mul[0]) >> 21) & ~1u;
	size_t		at1 = ((prefix * enc->long_mul[1]) >> 21) & ~1u;
	const uint64_t *slots = &enc->long_slot[0][0];
	const uint8_t *entries = (const uint8_t *) enc->long_entry;
	uint64_t	miss0 = ((word ^ slots[at0]) | high_bytes) & slots[at0 + 1];
	uint64_t	miss1 = ((word ^ slots[at1]) | high_bytes) & slots[at1 + 1];
	uint32_t	pair_entry = enc->short_code[word & 0xFFFF];
	uint32_t	entry = enc->byte_entry[word & 0xFF];
	uint16_t	long0,
				long1;

	memcpy(&long0, entries + at0, 2);
	memcpy(&long1, entries + at1, 2);
	GSST_MATERIALIZE(pair_entry);
	GSST_MATERIALIZE(entry);
	GSST_MATERIALIZE(long0);
	GSST_MATERIALIZE(long1);
	entry = GSST_UNPREDICTABLE(rem >= 2) ? pair_entry : entry;
	entry = GSST_UNPREDICTABLE(miss1 == 0) ? long1 : entry;
	entry = GSST_UNPREDICTABLE(miss0 == 0) ? long0 : entry;
	o[0] = (uint8_t) entry;
	o[1] = (uint8_t) word;
	o += 1 + (((entry & 0xFF) + 1) >> 8);	/* 2 bytes for an escape */
	p += entry >> 8;
	v->code_end = o;
	*vv = v + (p == value_end);
	*pp = p;
	*oo = o;
}

/*
 * Encode a batch of short values from value i on.  Returns the value after
 * the batch, i itself when value i cannot go into a lane (long, or too near
 * the end of the input for 8-byte loads).
 */
static size_t
put_values_in_lanes(tile_writer *w, size_t i, size_t n)
{
	lane		lanes[LANES];
	const uint8_t *p[LANES],
			   *end[LANES];
	uint8_t    *o[LANES];
	lane_value *v[LANES];
	size_t		nlanes = 0;
	uint64_t	input_bytes = (uint64_t) (w->input_end - w->data);

	/* fill the lanes */
	for (; nlanes < LANES; nlanes++)
	{
		lane	   *ln = &lanes[nlanes];

		ln->first = i;
		ln->count = ln->nonempty = ln->raw = 0;
		ln->in = w->data + w->offsets[i < n ? i : n];
		while (i < n && ln->count < LANE_MAX_VALUES && ln->raw < LANE_RAW)
		{
			uint64_t	len = w->offsets[i + 1] - w->offsets[i];

			/* every step loads 8 bytes from before the value end */
			if (len > LANE_VALUE_MAX || w->offsets[i + 1] + 7 > input_bytes)
				break;
			if (len > 0)
			{
				ln->raw += len;
				ln->values[ln->nonempty++].end = ln->in + ln->raw;
			}
			ln->count++;
			i++;
		}
		if (ln->count == 0)
			break;
		ln->values[ln->nonempty].end = ln->in + ln->raw;	/* a sentinel */
		p[nlanes] = ln->in;
		end[nlanes] = ln->in + ln->raw;
		o[nlanes] = ln->out;
		v[nlanes] = ln->values;
	}
	if (nlanes == 0)
		return i;
	for (size_t k = nlanes; k < LANES; k++)
	{
		/* an idle lane: already at its end */
		p[k] = end[k] = p[0];
		o[k] = lanes[k].out;
		v[k] = lanes[k].values;
	}

	/*
	 * A step advances 1..8 bytes, so all lanes can take rounds steps in
	 * turn without a check of their ends; then the rest one by one.  The
	 * lanes are separate variables so that they live in registers.
	 */
	for (;;)
	{
		size_t		rounds = SIZE_MAX;
		const uint8_t *p0 = p[0],
				   *p1 = p[1],
				   *p2 = p[2];
		uint8_t    *o0 = o[0],
				   *o1 = o[1],
				   *o2 = o[2];
		lane_value *v0 = v[0],
				   *v1 = v[1],
				   *v2 = v[2];
#if LANES == 4
		const uint8_t *p3 = p[3];
		uint8_t    *o3 = o[3];
		lane_value *v3 = v[3];
#endif

		for (int k = 0; k < LANES; k++)
		{
			size_t		room = (size_t) (end[k] - p[k]) / GSST_MAX_SYMBOL_LEN;

			rounds = room < rounds ? room : rounds;
		}
		if (rounds < 2)
			break;
		for (size_t r = 0; r < rounds; r++)
		{
			lane_step(w->enc, &p0, &o0, &v0);
			lane_step(w->enc, &p1, &o1, &v1);
			lane_step(w->enc, &p2, &o2, &v2);
#if LANES == 4
			lane_step(w->enc, &p3, &o3, &v3);
#endif
		}
		p[0] = p0;
		p[1] = p1;
		p[2] = p2;
		o[0] = o0;
		o[1] = o1;
		o[2] = o2;
		v[0] = v0;
		v[1] = v1;
		v[2] = v2;
#if LANES == 4
		p[3] = p3;
		o[3] = o3;
		v[3] = v3;
#endif
	}
	for (size_t k = 0; k < LANES; k++)
		while (p[k] < end[k])
			lane_step(w->enc, &p[k], &o[k], &v[k]);

	/* move the codes to the tile in value order */
	index_writer ix = w->ix;

	for (size_t k = 0; k < nlanes; k++)
	{
		const lane *ln = &lanes[k];
		size_t		nonempty = 0;
		const uint8_t *code_start = ln->out;

		for (size_t v = ln->first; v < ln->first + ln->count; v++)
		{
			uint64_t	raw_start = w->offsets[v] - w->offsets[0];
			uint64_t	len = w->offsets[v + 1] - w->offsets[v];
			const uint8_t *code_end;
			size_t		code_len;

			start_piece(w, v, raw_start, w->comp);
			if (len == 0)
			{
				index_value(&ix, v, w->comp, raw_start, 0, 0);
				continue;
			}
			code_end = ln->values[nonempty++].code_end;
			code_len = (size_t) (code_end - code_start);
			/*
			 * The slack lands inside the code area of later values or in
			 * the tile's GSST_ENCODE_SLACK: comp + len <= raw_bytes.
			 */
			if (GSST_LIKELY(code_len < len))
				copy_with_slack(w->codes + w->comp, code_start, code_len);
			else
			{
				memcpy(w->codes + w->comp, w->data + w->offsets[v], len);
				code_len = len;
			}
			index_value(&ix, v, w->comp, raw_start, code_len, len);
			w->comp += code_len;
			code_start = code_end;
		}
	}
	w->ix = ix;
	return i;
}

/*
 * AVX-512 lanes, chosen at run time: V_GROUPS groups of 16 lanes (the groups
 * are independent dependency chains, so their steps overlap); the 16 lanes
 * of a group step at once, each over its
 * own run of consecutive short values, as in put_values_in_lanes.  A step
 * gathers each lane's next 8 bytes, probes both cuckoo slots and short_code
 * by gathers, selects with masks and scatters code and literal (4 bytes, the
 * next step overwrites what lies past them) into the lane's buffer.  Each
 * lane holds the end of its current value; a lane whose step ends a value
 * logs its output offset (compressed, one store for all lanes) and gathers
 * its next value's end.  No branch depends on the data; the bytes are those of
 * put_value_serial.  GSST_NO_SIMD builds without it.
 */
int			gsst_encode_simd_disabled = 0;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GSST_NO_SIMD)
#define GSST_ENCODE_AVX512 1
#include <immintrin.h>

#define V_TARGET			"avx512f,avx512bw,avx512vl,avx512dq,bmi,bmi2,popcnt"
#define V_INLINE			static inline __attribute__((target(V_TARGET), always_inline))
#define V_GROUPS			2		/* independent groups of 16 lanes (4 measured slower) */
#define V_LANES				(16 * V_GROUPS)
#define V_LANE_RAW			768		/* raw bytes per lane, about */
#define V_BATCH_RAW			(V_LANES * V_LANE_RAW + LANE_VALUE_MAX)
#define V_LANE_VALUES		96		/* values per lane, so that all lanes get work */
#define V_BATCH_VALUES		(V_LANES * V_LANE_VALUES)
#define V_OUT_BYTES			(2 * V_BATCH_RAW + 16 * V_LANES + 32)

/* 1: the CPU has what the AVX-512 lanes need, 0: not, -1: not asked yet */
static int	v_cpu = -1;

/* shared by the tile encoder and training's matching lanes */
int
gsst_cpu_has_encode_lanes(void)
{
	int			cpu = __atomic_load_n(&v_cpu, __ATOMIC_RELAXED);

	if (GSST_UNLIKELY(cpu < 0))
	{
		__builtin_cpu_init();
		cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
			__builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
			__builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
		__atomic_store_n(&v_cpu, cpu, __ATOMIC_RELAXED);
	}
	return cpu;
}

static int
v_usable(void)
{
	return gsst_cpu_has_encode_lanes() && !gsst_encode_simd_disabled;
}

/* short_code right after byte_entry: one gather serves both */
_Static_assert(offsetof(gsst_encoder, short_code) ==
			   offsetof(gsst_encoder, byte_entry) + 256 * sizeof(uint16_t),
			   "short_code must follow byte_entry");

typedef struct v_batch
{
	size_t		first[V_LANES + 1];		/* first value of each lane */
	uint32_t	first_nonempty[V_LANES];	/* its index among the batch's nonempty values */
	uint32_t	start[V_LANES];			/* raw offset of the lane from the batch start */
	uint32_t	stop[V_LANES];
	uint32_t	out_at[V_LANES];		/* offset of its codes in out */
	/* per nonempty value: raw end (offset from the batch start), then code end (in out) */
	uint32_t	end[V_BATCH_VALUES + 1];
	uint32_t	log[V_BATCH_VALUES + 16];
	uint8_t		out[V_OUT_BYTES];
} v_batch;

/* What every step reads. */
typedef struct v_consts
{
	__m512i		mul0,
				mul1,
				masks;
	const uint8_t *base;
	const uint32_t *value_end;
	const void *slots;
	const void *entries;
	const void *short_entries;
	uint8_t    *out;
} v_consts;

/* One step of 16 lanes (see put_values_in_lanes_avx512). */
V_INLINE void
v_step(const v_consts *c, __m512i *pp, __m512i *oo, __m512i *vv, __m512i *ee,
	   __mmask16 *act, __m512i pend, __m512i ids, uint32_t *log, size_t *nlog)
{
	const __m512i low24 = _mm512_set1_epi32(0xFFFFFF);
	const __m512i low16 = _mm512_set1_epi32(0xFFFF);
	const __m512i low8 = _mm512_set1_epi32(0xFF);
	const __m512i one = _mm512_set1_epi32(1);
	const __m512i three = _mm512_set1_epi32(3);
	__m512i		p = *pp,
				o = *oo,
				value = *vv,
				value_end = *ee;
	__mmask16	active = *act;
	__m512i		word0 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8) active,
													_mm512_castsi512_si256(p), c->base, 1);
	__m512i		word1 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8) (active >> 8),
													_mm512_extracti64x4_epi64(p, 1), c->base, 1);
	/* bytes to the value's end, capped at 9 (more than any symbol) */
	__m512i		rem = _mm512_min_epu32(_mm512_sub_epi32(value_end, p), _mm512_set1_epi32(9));
	__m512i		head = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(word0)),
										  _mm512_cvtepi64_epi32(word1), 1);
	__m512i		prefix = _mm512_and_si512(head, low24);
	__m512i		slot0 = _mm512_srli_epi32(_mm512_mullo_epi32(prefix, c->mul0), 22);
	__m512i		slot1 = _mm512_srli_epi32(_mm512_mullo_epi32(prefix, c->mul1), 22);
	__m512i		entry0 = _mm512_and_si512(_mm512_i32gather_epi32(slot0, c->entries, 2), low16);
	__m512i		entry1 = _mm512_and_si512(_mm512_i32gather_epi32(slot1, c->entries, 2), low16);
	__m512i		at0 = _mm512_slli_epi32(slot0, 1);
	__m512i		at1 = _mm512_slli_epi32(slot1, 1);
	__m512i		len0 = _mm512_srli_epi32(entry0, 8);
	__m512i		len1 = _mm512_srli_epi32(entry1, 8);
	__m512i		sym00 = _mm512_i32gather_epi64(_mm512_castsi512_si256(at0), c->slots, 8);
	__m512i		sym01 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(at0, 1), c->slots, 8);
	__m512i		sym10 = _mm512_i32gather_epi64(_mm512_castsi512_si256(at1), c->slots, 8);
	__m512i		sym11 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(at1, 1), c->slots, 8);
	__m512i		mask00 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(len0)), c->masks);
	__m512i		mask01 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(len0, 1)), c->masks);
	__m512i		mask10 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(len1)), c->masks);
	__m512i		mask11 = _mm512_permutexvar_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(len1, 1)), c->masks);

	/* a real long symbol has 3..8 bytes (an empty slot says 1) and fits */
	__mmask16	hit0 = _mm512_kunpackb(_mm512_testn_epi64_mask(_mm512_xor_si512(word1, sym01), mask01),
									   _mm512_testn_epi64_mask(_mm512_xor_si512(word0, sym00), mask00)) &
		_mm512_cmpge_epu32_mask(len0, three) & _mm512_cmple_epu32_mask(len0, rem);
	__mmask16	hit1 = _mm512_kunpackb(_mm512_testn_epi64_mask(_mm512_xor_si512(word1, sym11), mask11),
									   _mm512_testn_epi64_mask(_mm512_xor_si512(word0, sym10), mask10)) &
		_mm512_cmpge_epu32_mask(len1, three) & _mm512_cmple_epu32_mask(len1, rem);

	/* byte_entry[b0] with 1 byte left, else short_code[b0 | b1 << 8] */
	__m512i		short_at = _mm512_mask_add_epi32(_mm512_and_si512(head, low8),
												 _mm512_cmpgt_epu32_mask(rem, one),
												 _mm512_and_si512(head, low16),
												 _mm512_set1_epi32(256));
	__m512i		entry = _mm512_and_si512(_mm512_i32gather_epi32(short_at, c->short_entries, 2), low16);
	__m512i		code,
				advance;
	__mmask16	escaped,
				ended;

	entry = _mm512_mask_mov_epi32(entry, hit1, entry1);
	entry = _mm512_mask_mov_epi32(entry, hit0, entry0);
	code = _mm512_and_si512(entry, low8);
	advance = _mm512_srli_epi32(entry, 8);
	/* code, then the literal (an escape's); the next step writes over the rest */
	_mm512_mask_i32scatter_epi32(c->out, active, o,
								 _mm512_or_si512(code, _mm512_slli_epi32(_mm512_and_si512(head, low8), 8)),
								 1);
	escaped = _mm512_cmpeq_epu32_mask(code, low8);
	o = _mm512_mask_add_epi32(o, active, o, one);
	o = _mm512_mask_add_epi32(o, escaped & active, o, one);
	p = _mm512_mask_add_epi32(p, active, p, advance);
	/* the lanes whose value ended log where its codes end */
	ended = _mm512_mask_cmpeq_epu32_mask(active, advance, rem);
	_mm512_storeu_si512(log + *nlog, _mm512_maskz_compress_epi32(ended, _mm512_or_si512(o, ids)));
	*nlog += (size_t) __builtin_popcount(ended);
	/* and move on to their next value */
	value = _mm512_mask_add_epi32(value, ended, value, one);
	*ee = _mm512_mask_i32gather_epi32(value_end, ended, value, c->value_end, 4);
	*act = _mm512_cmplt_epu32_mask(p, pend);
	*pp = p;
	*oo = o;
	*vv = value;
}

/*
 * Encode a batch of short values from value i on with the AVX-512 lanes;
 * returns as put_values_in_lanes.
 */
__attribute__((target(V_TARGET), noinline))
static size_t
put_values_in_lanes_avx512(tile_writer *w, size_t i, size_t n)
{
	v_batch		b;
	const uint8_t *base = w->data + w->offsets[i < n ? i : n];
	uint64_t	input_bytes = (uint64_t) (w->input_end - w->data);
	uint32_t	at = 0,
				nonempty = 0;
	size_t		nlanes = 0,
				nlog = 0;
	uint32_t	lane_raw = V_LANE_RAW;
	const gsst_encoder *enc = w->enc;

	/*
	 * A run of values for the lanes that is shorter than a full batch
	 * (a long value follows) spreads over all lanes: filled V_LANE_RAW at a
	 * time, it would leave most lanes idle while a few do all the steps.
	 */
	{
		const uint64_t *offsets = w->offsets;
		uint64_t	full = (uint64_t) V_LANES * V_LANE_RAW;
		size_t		j = i;

		while (j < n && j - i < V_BATCH_VALUES && offsets[j] - offsets[i] < full)
		{
			/* eight values at a time while together they are short enough */
			if (j + 8 <= n && offsets[j + 8] - offsets[j] <= LANE_VALUE_MAX &&
				offsets[j + 8] + 7 <= input_bytes)
				j += 8;
			else if (offsets[j + 1] - offsets[j] <= LANE_VALUE_MAX &&
					 offsets[j + 1] + 7 <= input_bytes)
				j++;
			else
				break;
		}
		if (offsets[j] - offsets[i] < full)
			lane_raw = (uint32_t) ((offsets[j] - offsets[i]) / V_LANES) + 1;
	}

	/* fill the lanes: each about lane_raw bytes, the batch within its caps */
	for (; nlanes < V_LANES; nlanes++)
	{
		b.first[nlanes] = i;
		b.first_nonempty[nlanes] = nonempty;
		b.start[nlanes] = at;
		b.out_at[nlanes] = 2 * at + 16 * (uint32_t) nlanes;
		while (i < n && at - b.start[nlanes] < lane_raw &&
			   nonempty - b.first_nonempty[nlanes] < V_LANE_VALUES)
		{
			uint64_t	len = w->offsets[i + 1] - w->offsets[i];

			/* every step loads 8 bytes from before the value end */
			if (len > LANE_VALUE_MAX || w->offsets[i + 1] + 7 > input_bytes ||
				at + len > V_BATCH_RAW)
				break;
			at += (uint32_t) len;
			b.end[nonempty] = at;
			nonempty += len > 0;
			i++;
		}
		if (i == b.first[nlanes])
			break;
		b.stop[nlanes] = at;
	}
	b.first[nlanes] = i;
	if (nlanes == 0)
		return i;

	/* an idle lane, or one past its last value, reads an end that is never reached */
	b.end[nonempty] = UINT32_MAX;

	{
		v_consts	c;
		__m512i		p[V_GROUPS],
					o[V_GROUPS],
					pend[V_GROUPS],
					ids[V_GROUPS],
					value[V_GROUPS],
					value_end[V_GROUPS];
		__mmask16	active[V_GROUPS];
		uint32_t	lane_start[V_LANES],
					lane_end[V_LANES],
					lane_out[V_LANES],
					lane_id[V_LANES],
					lane_value[V_LANES],
					lane_value_end[V_LANES];

		c.mul0 = _mm512_set1_epi32((int) enc->long_mul[0]);
		c.mul1 = _mm512_set1_epi32((int) enc->long_mul[1]);
		c.masks = _mm512_set_epi64(0x00FFFFFFFFFFFFFFll, 0x0000FFFFFFFFFFFFll,
								   0x000000FFFFFFFFFFll, 0x00000000FFFFFFFFll,
								   0x0000000000FFFFFFll, 0x000000000000FFFFll,
								   0x00000000000000FFll, -1ll);
		c.base = base;
		c.value_end = b.end;
		c.slots = &enc->long_slot[0][0];
		c.entries = enc->long_entry;
		c.short_entries = enc->byte_entry;	/* then short_code */
		c.out = b.out;
		for (size_t k = 0; k < V_LANES; k++)
		{
			/* idle lanes start at their end */
			lane_start[k] = k < nlanes ? b.start[k] : 0;
			lane_end[k] = k < nlanes ? b.stop[k] : 0;
			lane_out[k] = k < nlanes ? b.out_at[k] : 0;
			lane_id[k] = (uint32_t) k << 24;
			lane_value[k] = k < nlanes ? b.first_nonempty[k] : nonempty;
			lane_value_end[k] = b.end[lane_value[k]];
		}
		for (int g = 0; g < V_GROUPS; g++)
		{
			p[g] = _mm512_loadu_si512(lane_start + 16 * g);
			pend[g] = _mm512_loadu_si512(lane_end + 16 * g);
			o[g] = _mm512_loadu_si512(lane_out + 16 * g);
			ids[g] = _mm512_loadu_si512(lane_id + 16 * g);
			value[g] = _mm512_loadu_si512(lane_value + 16 * g);
			value_end[g] = _mm512_loadu_si512(lane_value_end + 16 * g);
			active[g] = _mm512_cmplt_epu32_mask(p[g], pend[g]);
		}
		/* the groups are independent chains: their steps overlap */
		for (;;)
		{
			__mmask16	any = 0;

			for (int g = 0; g < V_GROUPS; g++)
			{
				v_step(&c, &p[g], &o[g], &value[g], &value_end[g], &active[g], pend[g], ids[g],
					   b.log, &nlog);
				any |= active[g];
			}
			if (!any)
				break;
		}
	}

	/* the logged code ends, in step order: each lane's values in order */
	{
		uint32_t	filled[V_LANES];

		memcpy(filled, b.first_nonempty, sizeof(filled));
		for (size_t e = 0; e < nlog; e++)
		{
			uint32_t	k = b.log[e] >> 24;

			b.end[filled[k]++] = b.log[e] & 0xFFFFFF;
		}
	}

	/*
	 * Move the codes to the tile in value order.  The state is in locals:
	 * through w, every byte store could alias it, and reloading comp made a
	 * chain from one value to the next.
	 */
	{
		const uint64_t *offsets = w->offsets;
		index_writer ix = w->ix;
		uint8_t    *codes = w->codes;
		uint64_t	comp = w->comp;
		uint64_t	first_offset = offsets[0];

		nonempty = 0;
		for (size_t k = 0; k < nlanes; k++)
		{
			const uint8_t *code_start = b.out + b.out_at[k];

			for (size_t v = b.first[k]; v < b.first[k + 1]; v++)
			{
				uint64_t	raw_start = offsets[v] - first_offset;
				uint64_t	len = offsets[v + 1] - offsets[v];
				const uint8_t *code_end;
				size_t		code_len;

				start_piece(w, v, raw_start, comp);
				if (len == 0)
				{
					index_value(&ix, v, comp, raw_start, 0, 0);
					continue;
				}
				code_end = b.out + b.end[nonempty++];
				code_len = (size_t) (code_end - code_start);
				if (GSST_LIKELY(code_len < len))
					copy_with_slack(codes + comp, code_start, code_len);
				else
				{
					memcpy(codes + comp, w->data + offsets[v], len);
					code_len = len;
				}
				index_value(&ix, v, comp, raw_start, code_len, len);
				comp += code_len;
				code_start = code_end;
			}
		}
		w->comp = comp;
		w->ix = ix;
	}
	return i;
}
#endif							/* GSST_ENCODE_AVX512 */

int
gsst_tile_encode_version(const gsst_encoder *enc, const uint8_t *data, const uint64_t *offsets,
						 size_t n, size_t split_bytes, uint32_t version, uint8_t *out,
						 size_t cap, size_t *tile_len)
{
	uint64_t	raw_bytes;
	uint64_t	nsplits;
	uint32_t	table_bytes;
	tile_writer w;
	gsst_tile_layout *l = &w.l;
	index_writer *ix = &w.ix;

	if (enc == NULL || offsets == NULL || out == NULL || tile_len == NULL ||
		(data == NULL && n > 0) || (version != 1 && version != 2))
		return GSST_ERR_ARG;
	if (split_bytes == 0)
		split_bytes = GSST_DEFAULT_SPLIT_BYTES;
	for (size_t i = 0; i < n; i++)
		if (offsets[i + 1] < offsets[i])
			return GSST_ERR_ARG;
	raw_bytes = offsets[n] - offsets[0];
	if (cap < gsst_tile_bound(n, raw_bytes, split_bytes))
		return GSST_ERR_SPACE;

	nsplits = count_splits(offsets, n, split_bytes);
	table_bytes = (uint32_t) gsst_table_serialized_size(&enc->table);
	if (gsst_tile_layout_start(l, version, gsst_tile_index_width(n, raw_bytes), table_bytes,
							   n, nsplits) != 0)
		return GSST_ERR_OFFSET;
	/* the header with the table and its padding; the code size comes last */
	{
		uint8_t		table[GSST_TABLE_MAX_BYTES];

		gsst_table_serialize(&enc->table, table, sizeof(table));
		gsst_tile_write_header(out, l, table, raw_bytes, 0);
	}
	/*
	 * Zero only what no entry covers (the padding after the index and the
	 * splits): every offset, length and split entry is written below, and
	 * clearing them first cost a pass over the index.
	 */
	if (version == 2)
		memset(out + l->raw_lens_at + n, 0, l->splits_at - (l->raw_lens_at + n));
	memset(out + l->splits_end, 0, l->codes_at - l->splits_end);
	ix->version = version;
	ix->width = l->width;
	ix->comp_entries = out + l->comp_at;
	ix->raw_entries = out + l->raw_at;
	ix->blocks = out + l->blocks_at;
	ix->code_lens = out + l->code_lens_at;
	ix->raw_lens = out + l->raw_lens_at;
	ix->long_stash = out + long_stash_at(l, raw_bytes);
	ix->nlongs = 0;
	w.enc = enc;
	w.data = data;
	w.offsets = offsets;
	w.input_end = data + offsets[n];
	w.out = out;
	w.codes = out + l->codes_at;
	w.split_bytes = split_bytes;
	w.comp = 0;
	w.split = 0;
	w.split_boundary = 0;		/* piece 0 starts split 0 */

	for (size_t i = 0; i < n;)
	{
		size_t		next = i;

		if (enc->long_slots_ok)
		{
#ifdef GSST_ENCODE_AVX512
			if (v_usable())
				next = put_values_in_lanes_avx512(&w, i, n);
			else
#endif
				next = put_values_in_lanes(&w, i, n);
		}

		if (next == i)
			put_value_serial(&w, i++);
		else
			i = next;
	}
	{
		uint8_t    *sentinel = out + l->splits_at + nsplits * 3 * l->width;

		gsst_tile_put_entry(sentinel, 0, l->width, n);
		gsst_tile_put_entry(sentinel, 1, l->width, w.comp);
		gsst_tile_put_entry(sentinel, 2, l->width, raw_bytes);
	}
	gsst_tile_layout_finish(l, w.comp, ix->nlongs);
	if (version == 1)
	{
		gsst_tile_put_entry(ix->comp_entries, n, l->width, w.comp);
		gsst_tile_put_entry(ix->raw_entries, n, l->width, raw_bytes);
	}
	else
	{
		uint8_t    *codes_end = w.codes + w.comp;

		gsst_tile_put_entry(ix->blocks, 3 * l->nblocks, l->width, w.comp);
		gsst_tile_put_entry(ix->blocks, 3 * l->nblocks + 1, l->width, raw_bytes);
		gsst_tile_put_entry(ix->blocks, 3 * l->nblocks + 2, l->width, ix->nlongs);
		/* the long entries to their place after the codes (never forward) */
		memset(codes_end, 0, (size_t) (out + l->longs_at - codes_end));
		memmove(out + l->longs_at, ix->long_stash, (size_t) (l->end - l->longs_at));
	}

	/* the code size is known now */
	store_u64(out + 40, w.comp);
	*tile_len = (size_t) l->end;
	return GSST_OK;
}

int
gsst_tile_encode(const gsst_encoder *enc, const uint8_t *data, const uint64_t *offsets,
				 size_t n, size_t split_bytes, uint8_t *out, size_t cap, size_t *tile_len)
{
	return gsst_tile_encode_version(enc, data, offsets, n, split_bytes, GSST_TILE_VERSION,
									out, cap, tile_len);
}

/* ---- opening and validating ---- */

uint64_t
gsst_tile_comp_offset(const gsst_tile *tile, uint64_t i)
{
	uint64_t	comp,
				raw;

	if (tile->version == 1)
		return read_entry(tile->comp_offsets, i, tile->offset_width);
	v2_offsets(tile, i, &comp, &raw);
	return comp;
}

uint64_t
gsst_tile_raw_offset(const gsst_tile *tile, uint64_t i)
{
	uint64_t	comp,
				raw;

	if (tile->version == 1)
		return read_entry(tile->raw_offsets, i, tile->offset_width);
	v2_offsets(tile, i, &comp, &raw);
	return raw;
}

void
gsst_tile_split(const gsst_tile *tile, uint64_t s, uint64_t *first_value,
				uint64_t *comp_offset, uint64_t *raw_offset)
{
	const uint8_t *entry = tile->splits + s * 3 * tile->offset_width;

	*first_value = read_entry(entry, 0, tile->offset_width);
	*comp_offset = read_entry(entry, 1, tile->offset_width);
	*raw_offset = read_entry(entry, 2, tile->offset_width);
}

int
gsst_tile_offsets(const gsst_tile *tile, uint64_t first, uint64_t count, uint64_t *comp_offsets,
				  uint64_t *raw_offsets)
{
	uint64_t	c,
				r,
				k;

	if (tile == NULL || (count > 0 && (comp_offsets == NULL || raw_offsets == NULL)) ||
		first > tile->nvalues || count > tile->nvalues - first)
		return GSST_ERR_OFFSET;
	if (tile->version == 1)
	{
		for (uint64_t j = 0; j <= count; j++)
		{
			comp_offsets[j] = read_entry(tile->comp_offsets, first + j, tile->offset_width);
			raw_offsets[j] = read_entry(tile->raw_offsets, first + j, tile->offset_width);
		}
		return GSST_OK;
	}
	v2_seek(tile, first, &c, &r, &k);
	for (uint64_t j = 0; j < count; j++)
	{
		comp_offsets[j] = c;
		raw_offsets[j] = r;
		v2_step(tile, first + j, &c, &r, &k);
	}
	comp_offsets[count] = c;
	raw_offsets[count] = r;
	return GSST_OK;
}

static int
validate_offsets(const gsst_tile *t)
{
	uint64_t	comp_prev = gsst_tile_comp_offset(t, 0);
	uint64_t	raw_prev = gsst_tile_raw_offset(t, 0);

	if (comp_prev != 0 || raw_prev != 0)
		return GSST_ERR_OFFSET;
	for (uint64_t i = 1; i <= t->nvalues; i++)
	{
		uint64_t	comp = gsst_tile_comp_offset(t, i);
		uint64_t	raw = gsst_tile_raw_offset(t, i);

		/* codes never exceed the value: equal means stored raw */
		if (comp < comp_prev || raw < raw_prev || comp - comp_prev > raw - raw_prev)
			return GSST_ERR_OFFSET;
		comp_prev = comp;
		raw_prev = raw;
	}
	if (comp_prev != t->code_bytes || raw_prev != t->raw_bytes)
		return GSST_ERR_LENGTH;
	return GSST_OK;
}

/*
 * A version 2 index: block 0 starts at (0, 0, 0), every block adds up to
 * the next one's entry (tile_layout.h checks each value's lengths on the
 * way), and the sentinel is (C, R, L).
 */
static int
validate_blocks(const gsst_tile *t, const gsst_tile_layout *l)
{
	if (gsst_tile_block_field(t->base, l, 0, 0) != 0 ||
		gsst_tile_block_field(t->base, l, 0, 1) != 0 ||
		gsst_tile_block_field(t->base, l, 0, 2) != 0)
		return GSST_ERR_OFFSET;
	for (uint64_t b = 0; b < l->nblocks; b++)
	{
		int			rc = gsst_tile_check_block(t->base, l, b);

		if (rc != GSST_OK)
			return rc;
	}
	if (gsst_tile_block_field(t->base, l, l->nblocks, 0) != t->code_bytes ||
		gsst_tile_block_field(t->base, l, l->nblocks, 1) != t->raw_bytes)
		return GSST_ERR_LENGTH;
	if (gsst_tile_block_field(t->base, l, l->nblocks, 2) != t->nlongs)
		return GSST_ERR_OFFSET;
	return GSST_OK;
}

static int
validate_splits(const gsst_tile *t)
{
	uint64_t	value_prev = 0,
				comp_prev = 0,
				raw_prev = 0;

	for (uint64_t s = 0; s <= t->nsplits; s++)
	{
		uint64_t	v,
					comp,
					raw;

		gsst_tile_split(t, s, &v, &comp, &raw);
		if (v < value_prev || comp < comp_prev || raw < raw_prev)
			return GSST_ERR_OFFSET;
		if (s == 0 && (v != 0 || comp != 0 || raw != 0))
			return GSST_ERR_OFFSET;
		if (s == t->nsplits)
		{
			if (v != t->nvalues || comp != t->code_bytes || raw != t->raw_bytes)
				return GSST_ERR_OFFSET;
		}
		else
		{
			uint64_t	value_comp,
						value_raw,
						next_comp,
						next_raw;

			if (v >= t->nvalues)
				return GSST_ERR_OFFSET;
			value_comp = gsst_tile_comp_offset(t, v);
			value_raw = gsst_tile_raw_offset(t, v);
			next_comp = gsst_tile_comp_offset(t, v + 1);
			next_raw = gsst_tile_raw_offset(t, v + 1);
			if (raw == value_raw)
			{
				if (comp != value_comp)
					return GSST_ERR_OFFSET;
			}
			else
			{
				/* inside the value, at a segment boundary */
				if (raw < value_raw || raw >= next_raw ||
					(raw - value_raw) % GSST_SEGMENT_BYTES != 0 ||
					comp < value_comp || comp > next_comp)
					return GSST_ERR_OFFSET;
				if (next_comp - value_comp == next_raw - value_raw)
				{
					if (comp - value_comp != raw - value_raw)
						return GSST_ERR_OFFSET;
				}
				else
				{
					/*
					 * The codes up to the split must decode to exactly the
					 * raw bytes up to it (from the value's start, or from the
					 * split before when it is in the same value), as a
					 * decoder that starts at the split assumes.
					 */
					uint64_t	from_comp = value_comp,
								from_raw = value_raw;
					int64_t		n;

					if (s > 0 && value_prev == v && raw_prev > value_raw)
					{
						from_comp = comp_prev;
						from_raw = raw_prev;
					}
					n = gsst_decoded_length(&t->table, t->codes + from_comp,
											(size_t) (comp - from_comp));
					if (n < 0 || (uint64_t) n != raw - from_raw)
						return GSST_ERR_LENGTH;
				}
			}
		}
		value_prev = v;
		comp_prev = comp;
		raw_prev = raw;
	}
	return GSST_OK;
}

int
gsst_tile_open(gsst_tile *t, const uint8_t *buf, size_t len)
{
	gsst_tile_layout l;
	size_t		consumed;
	int			rc;

	if (t == NULL || (buf == NULL && len > 0))
		return GSST_ERR_ARG;
	rc = gsst_tile_parse_header(buf, len, len, &l, &t->raw_bytes, &t->code_bytes);
	if (rc != GSST_OK)
		return rc;
	t->version = l.version;
	t->offset_width = l.width;
	t->segment_bytes = GSST_SEGMENT_BYTES;
	t->table_bytes = l.table_bytes;
	t->nvalues = l.nvalues;
	t->nsplits = l.nsplits;
	t->nlongs = l.nlongs;
	rc = gsst_table_load(&t->table, buf + l.table_at, t->table_bytes, &consumed);
	if (rc != GSST_OK)
		return rc;
	if (consumed != t->table_bytes)
		return GSST_ERR_BAD_TABLE;
	t->base = buf;
	t->comp_offsets = l.version == 1 ? buf + l.comp_at : NULL;
	t->raw_offsets = l.version == 1 ? buf + l.raw_at : NULL;
	t->blocks = l.version == 2 ? buf + l.blocks_at : NULL;
	t->code_lens = l.version == 2 ? buf + l.code_lens_at : NULL;
	t->raw_lens = l.version == 2 ? buf + l.raw_lens_at : NULL;
	t->longs = l.version == 2 ? buf + l.longs_at : NULL;
	t->splits = buf + l.splits_at;
	t->codes = buf + l.codes_at;
	t->tile_bytes = len;
	rc = l.version == 1 ? validate_offsets(t) : validate_blocks(t, &l);
	if (rc != GSST_OK)
		return rc;
	return validate_splits(t);
}
