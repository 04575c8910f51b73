/*
 * table.c - symbol tables: canonical form, the GPU-encodable profile,
 * serialization, validation of untrusted bytes, and encoder state.
 */
#include "codec_internal.h"

const char *
gsst_strerror(int status)
{
	switch (status)
	{
		case GSST_OK:
			return "ok";
		case GSST_ERR_TRUNCATED:
			return "input is truncated";
		case GSST_ERR_VERSION:
			return "unknown format version or magic";
		case GSST_ERR_BAD_TABLE:
			return "invalid symbol table";
		case GSST_ERR_BAD_CODE:
			return "code beyond the symbol table";
		case GSST_ERR_DANGLING_ESCAPE:
			return "escape code at the end of the input";
		case GSST_ERR_LENGTH:
			return "lengths do not add up";
		case GSST_ERR_OFFSET:
			return "offset or index out of range";
		case GSST_ERR_SPACE:
			return "output buffer too small";
		case GSST_ERR_ARG:
			return "invalid argument";
	}
	return "unknown error";
}

/* Canonical order: by length, then by bytes.  Returns <0, 0, >0. */
static int
symbol_compare(uint64_t sym_a, unsigned len_a, uint64_t sym_b, unsigned len_b)
{
	uint64_t	key_a,
				key_b;

	if (len_a != len_b)
		return len_a < len_b ? -1 : 1;
	key_a = symbol_sort_key(sym_a);
	key_b = symbol_sort_key(sym_b);
	return key_a < key_b ? -1 : key_a > key_b;
}

/*
 * Check the GPU-encodable profile of a canonically ordered symbol list: one
 * long symbol per 3-byte prefix and at most GSST_HASH_WAYS keys per bucket
 * of either hash.  Also fills the table's derived fields.
 */
static int
check_profile_and_fill(gsst_table *table)
{
	uint32_t	long_keys[GSST_HASH_BUCKETS][GSST_HASH_WAYS];
	uint8_t		long_fill[GSST_HASH_BUCKETS] = {0};
	uint8_t		pair_fill[GSST_HASH_BUCKETS] = {0};

	memset(table->count_by_len, 0, sizeof(table->count_by_len));
	for (uint32_t code = 0; code < table->nsymbols; code++)
	{
		unsigned	len = table->len[code];
		uint64_t	sym = table->symbol[code];

		if (len < 1 || len > GSST_MAX_SYMBOL_LEN || (sym & ~low_bytes_mask(len)) != 0)
			return GSST_ERR_BAD_TABLE;
		if (code > 0 && symbol_compare(table->symbol[code - 1], table->len[code - 1],
									   sym, len) >= 0)
			return GSST_ERR_BAD_TABLE;
		table->count_by_len[len]++;
		if (len == 2)
		{
			if (++pair_fill[gsst_hash_bucket((uint32_t) sym)] > GSST_HASH_WAYS)
				return GSST_ERR_BAD_TABLE;
		}
		else if (len >= 3)
		{
			uint32_t	prefix = (uint32_t) (sym & 0xFFFFFF);
			uint32_t	bucket = gsst_hash_bucket(prefix);

			/* equal prefixes land in one bucket: one long symbol each */
			for (unsigned way = 0; way < long_fill[bucket]; way++)
				if (long_keys[bucket][way] == prefix)
					return GSST_ERR_BAD_TABLE;
			if (long_fill[bucket] == GSST_HASH_WAYS)
				return GSST_ERR_BAD_TABLE;
			long_keys[bucket][long_fill[bucket]++] = prefix;
		}
	}
	for (uint32_t code = table->nsymbols; code < 256; code++)
	{
		table->symbol[code] = 0;
		table->len[code] = 0;
	}
	return GSST_OK;
}

int
gsst_table_build(gsst_table *table, const uint64_t *symbols, const uint8_t *lens,
				 size_t n)
{
	if (table == NULL || (n > 0 && (symbols == NULL || lens == NULL)))
		return GSST_ERR_ARG;
	if (n > GSST_MAX_SYMBOLS)
		return GSST_ERR_BAD_TABLE;

	/* insertion sort into canonical order: n <= 255 */
	table->nsymbols = 0;
	for (size_t i = 0; i < n; i++)
	{
		uint32_t	pos = table->nsymbols;

		if (lens[i] < 1 || lens[i] > GSST_MAX_SYMBOL_LEN)
			return GSST_ERR_BAD_TABLE;
		while (pos > 0 && symbol_compare(table->symbol[pos - 1], table->len[pos - 1],
										 symbols[i], lens[i]) > 0)
		{
			table->symbol[pos] = table->symbol[pos - 1];
			table->len[pos] = table->len[pos - 1];
			pos--;
		}
		table->symbol[pos] = symbols[i];
		table->len[pos] = lens[i];
		table->nsymbols++;
	}
	return check_profile_and_fill(table);
}

size_t
gsst_table_serialized_size(const gsst_table *table)
{
	size_t		size = 10;

	for (uint32_t code = 0; code < table->nsymbols; code++)
		size += table->len[code];
	return size;
}

int
gsst_table_serialize(const gsst_table *table, uint8_t *out, size_t cap)
{
	size_t		size = gsst_table_serialized_size(table);
	uint8_t    *p = out;

	if (size > cap)
		return GSST_ERR_SPACE;
	*p++ = GSST_TABLE_VERSION;
	*p++ = 0;
	for (int len = 1; len <= GSST_MAX_SYMBOL_LEN; len++)
		*p++ = table->count_by_len[len];
	for (uint32_t code = 0; code < table->nsymbols; code++)
	{
		uint64_t	sym = table->symbol[code];

		for (unsigned i = 0; i < table->len[code]; i++)
			*p++ = (uint8_t) (sym >> (8 * i));
	}
	return (int) size;
}

int
gsst_table_load(gsst_table *table, const uint8_t *in, size_t in_len, size_t *consumed)
{
	size_t		pos = 10;
	uint32_t	total = 0;

	if (table == NULL || (in == NULL && in_len > 0))
		return GSST_ERR_ARG;
	if (in_len < 2)
		return GSST_ERR_TRUNCATED;
	if (in[0] != GSST_TABLE_VERSION || in[1] != 0)
		return GSST_ERR_VERSION;
	if (in_len < 10)
		return GSST_ERR_TRUNCATED;
	for (int len = 1; len <= GSST_MAX_SYMBOL_LEN; len++)
		total += in[1 + len];
	if (total > GSST_MAX_SYMBOLS)
		return GSST_ERR_BAD_TABLE;

	table->nsymbols = 0;
	for (int len = 1; len <= GSST_MAX_SYMBOL_LEN; len++)
	{
		for (unsigned i = 0; i < in[1 + len]; i++)
		{
			if (in_len - pos < (size_t) len)
				return GSST_ERR_TRUNCATED;
			table->symbol[table->nsymbols] = load_partial(in + pos, (size_t) len);
			table->len[table->nsymbols] = (uint8_t) len;
			table->nsymbols++;
			pos += (size_t) len;
		}
	}
	if (consumed != NULL)
		*consumed = pos;
	return check_profile_and_fill(table);
}

/* ---- the CPU encoder's cuckoo table of long symbols ---- */

#define LONG_SLOT_SHIFT (32 - 10)	/* GSST_CPU_LONG_SLOTS == 1 << 10 */
#define LONG_SLOT_EMPTY 0xFF
#define LONG_SLOT_MAX_KICKS 64

GSST_INLINE uint32_t
long_slot_of(uint32_t prefix, uint32_t mul)
{
	return (prefix * mul) >> LONG_SLOT_SHIFT;
}

/*
 * Place every long symbol of table in one of its two slots (cuckoo
 * insertion); owner[slot] gets the code.  Returns 0 when some symbol finds
 * no place with these multipliers.
 */
static int
place_long_symbols(const gsst_table *table, const uint32_t mul[2],
				   uint8_t owner[GSST_CPU_LONG_SLOTS])
{
	memset(owner, LONG_SLOT_EMPTY, GSST_CPU_LONG_SLOTS);
	for (uint32_t code = 0; code < table->nsymbols; code++)
	{
		unsigned	homeless = code;
		uint32_t	slot;

		if (table->len[code] < 3)
			continue;
		slot = long_slot_of((uint32_t) (table->symbol[code] & 0xFFFFFF), mul[0]);
		for (int kick = 0;; kick++)
		{
			unsigned	evicted = owner[slot];
			uint32_t	prefix;

			owner[slot] = (uint8_t) homeless;
			if (evicted == LONG_SLOT_EMPTY)
				break;
			if (kick == LONG_SLOT_MAX_KICKS)
				return 0;
			/* move the evicted symbol to its other slot */
			homeless = evicted;
			prefix = (uint32_t) (table->symbol[homeless] & 0xFFFFFF);
			slot = slot == long_slot_of(prefix, mul[0]) ? long_slot_of(prefix, mul[1])
				: long_slot_of(prefix, mul[0]);
		}
	}
	return 1;
}

static void
build_long_slots(gsst_encoder *enc, const gsst_table *table)
{
	uint8_t		owner[GSST_CPU_LONG_SLOTS];
	uint32_t	mul_state = 0x9E3779B1u;
	uint32_t	empty_key[2];
	int			found = 0;

	enc->long_slots_ok = 0;
	for (int attempt = 0; attempt < 32 && !found; attempt++)
	{
		/* odd multipliers from a fixed sequence: deterministic */
		enc->long_mul[0] = mul_state | 1;
		mul_state = mul_state * 0x2C1B3C6Du + 0x297A2D39u;
		enc->long_mul[1] = (mul_state ^ (mul_state >> 15)) | 1;
		mul_state = mul_state * 0x2C1B3C6Du + 0x297A2D39u;
		found = place_long_symbols(table, enc->long_mul, owner);
	}
	if (!found)
		return;

	/*
	 * An empty slot holds a 3-byte key that hashes to neither of its two
	 * slots, so no lookup that reaches the empty slot can match it.  Two
	 * keys whose four slots differ cover every slot.
	 */
	empty_key[0] = 0;
	empty_key[1] = 1;
	for (;;)
	{
		uint32_t	a0 = long_slot_of(empty_key[0], enc->long_mul[0]),
					a1 = long_slot_of(empty_key[0], enc->long_mul[1]),
					b0 = long_slot_of(empty_key[1], enc->long_mul[0]),
					b1 = long_slot_of(empty_key[1], enc->long_mul[1]);

		if (a0 != b0 && a0 != b1 && a1 != b0 && a1 != b1)
			break;
		empty_key[1]++;
	}
	for (uint32_t slot = 0; slot < GSST_CPU_LONG_SLOTS; slot++)
	{
		unsigned	code = owner[slot];

		if (code == LONG_SLOT_EMPTY)
		{
			uint32_t	key = empty_key[0];

			if (long_slot_of(key, enc->long_mul[0]) == slot ||
				long_slot_of(key, enc->long_mul[1]) == slot)
				key = empty_key[1];
			enc->long_slot[slot][0] = key;
			enc->long_slot[slot][1] = 0xFFFFFF;
			enc->long_entry[slot] = GSST_ESCAPE | 1u << 8;
		}
		else
		{
			enc->long_slot[slot][0] = table->symbol[code];
			enc->long_slot[slot][1] = low_bytes_mask(table->len[code]);
			enc->long_entry[slot] = (uint16_t) (code | (unsigned) table->len[code] << 8);
		}
	}
	enc->long_slots_ok = 1;
}

/* ---- the CPU encoder's one-probe table of long symbols ---- */

#define DIRECT_ATTEMPTS 256

/*
 * Find a multiplier that puts every long symbol of table in a slot of its
 * own (a perfect hash of the 3-byte prefixes), and fill the table.  With
 * 16384 slots and at most 255 symbols, one multiplier in 7 or more works.
 */
static void
build_direct_table(gsst_encoder *enc, const gsst_table *table)
{
	uint64_t	taken[GSST_CPU_DIRECT_SLOTS / 64];
	uint32_t	mul_state = 0x85EBCA6Bu;
	uint32_t	first_prefix = 0;
	int			nlong = 0;
	int			found = 0;

	enc->direct_ok = 0;
	for (uint32_t code = 0; code < table->nsymbols; code++)
		if (table->len[code] >= 3 && nlong++ == 0)
			first_prefix = (uint32_t) (table->symbol[code] & 0xFFFFFF);
	for (int attempt = 0; attempt < DIRECT_ATTEMPTS && !found; attempt++)
	{
		mul_state = mul_state * 0x2C1B3C6Du + 0x297A2D39u;
		enc->direct_mul = ((mul_state ^ (mul_state >> 15)) | 1) << 8;
		memset(taken, 0, sizeof(taken));
		found = 1;
		for (uint32_t code = 0; code < table->nsymbols && found; code++)
		{
			uint32_t	slot;

			if (table->len[code] < 3)
				continue;
			slot = gsst_direct_slot((uint32_t) table->symbol[code], enc->direct_mul);
			if (taken[slot / 64] & (uint64_t) 1 << (slot % 64))
				found = 0;
			taken[slot / 64] |= (uint64_t) 1 << (slot % 64);
		}
	}
	if (!found)
		return;

	/*
	 * Codes that are no long symbol (the escape, at least) fill the empty
	 * slots.  Their symbol is the prefix of a long symbol, which reaches
	 * a slot taken by that symbol, so no word reaching an empty slot
	 * matches it.  Without long symbols, code 254 takes the slot of that
	 * prefix with a second key of another slot.
	 */
	memset(enc->direct_slot, GSST_ESCAPE, sizeof(enc->direct_slot));
	for (unsigned code = 0; code < 256; code++)
	{
		enc->direct_symbol[code] = first_prefix;
		enc->direct_mask[code] = 0xFFFFFF;
		enc->direct_entry[code] = (uint16_t) (code | 1u << 8);
	}
	for (uint32_t code = 0; code < table->nsymbols; code++)
	{
		if (table->len[code] < 3)
			continue;
		enc->direct_slot[gsst_direct_slot((uint32_t) table->symbol[code], enc->direct_mul)] =
			(uint8_t) code;
		enc->direct_symbol[code] = table->symbol[code];
		enc->direct_mask[code] = low_bytes_mask(table->len[code]);
		enc->direct_entry[code] = (uint16_t) (code | (unsigned) table->len[code] << 8);
	}
	if (nlong == 0)
	{
		uint32_t	other = first_prefix + 1;

		while (gsst_direct_slot(other, enc->direct_mul) ==
			   gsst_direct_slot(first_prefix, enc->direct_mul))
			other++;
		enc->direct_slot[gsst_direct_slot(first_prefix, enc->direct_mul)] = GSST_ESCAPE - 1;
		enc->direct_symbol[GSST_ESCAPE - 1] = other;
	}
	enc->direct_ok = 1;
}

/* The hashes, byte codes and symbols: all but short_code and the table. */
static void
init_hashes(gsst_encoder *enc, const gsst_table *table)
{
	uint8_t		long_fill[GSST_HASH_BUCKETS] = {0};
	uint8_t		pair_fill[GSST_HASH_BUCKETS] = {0};

	memset(enc->byte_code, GSST_ESCAPE, sizeof(enc->byte_code));
	for (uint32_t bucket = 0; bucket < GSST_HASH_BUCKETS; bucket++)
	{
		/*
		 * An empty entry's key must never equal a lookup key that reaches
		 * its bucket: use a key that hashes elsewhere.
		 */
		uint32_t	foreign_key = 0;

		while (gsst_hash_bucket(foreign_key) == bucket)
			foreign_key++;
		for (int way = 0; way < GSST_HASH_WAYS; way++)
		{
			enc->long_hash[bucket * GSST_HASH_WAYS + way] =
				foreign_key | (uint32_t) GSST_ESCAPE << 24;
			enc->pair_hash[bucket * GSST_HASH_WAYS + way] =
				foreign_key | (uint32_t) GSST_ESCAPE << 24;
		}
	}
	for (unsigned code = 0; code < 256; code++)
	{
		enc->symbol[code] = table->symbol[code];
		enc->len[code] = table->len[code];
		enc->mask[code] = low_bytes_mask(table->len[code]);
	}
	for (uint32_t code = 0; code < table->nsymbols; code++)
	{
		uint64_t	sym = table->symbol[code];
		unsigned	len = table->len[code];

		if (len == 1)
			enc->byte_code[sym & 0xFF] = (uint8_t) code;
		else if (len == 2)
		{
			uint32_t	key = (uint32_t) sym;
			uint32_t	bucket = gsst_hash_bucket(key);

			enc->pair_hash[bucket * GSST_HASH_WAYS + pair_fill[bucket]++] =
				key | code << 24;
		}
		else
		{
			uint32_t	key = (uint32_t) (sym & 0xFFFFFF);
			uint32_t	bucket = gsst_hash_bucket(key);

			enc->long_hash[bucket * GSST_HASH_WAYS + long_fill[bucket]++] =
				key | code << 24;
		}
	}
	for (unsigned b = 0; b < 256; b++)
		enc->byte_entry[b] = (uint16_t) (enc->byte_code[b] | 1u << 8);
}

void
gsst_encoder_init_for_training(gsst_encoder *enc, const gsst_table *table)
{
	init_hashes(enc, table);
	build_long_slots(enc, table);
	enc->direct_ok = 0;
}

void
gsst_encoder_init(gsst_encoder *enc, const gsst_table *table)
{
	init_hashes(enc, table);
	/* pairs fall back to the first byte's own entry */
	for (unsigned second = 0; second < 256; second++)
		memcpy(enc->short_code + second * 256, enc->byte_entry, sizeof(enc->byte_entry));
	for (size_t i = 0; i < GSST_HASH_BUCKETS * GSST_HASH_WAYS; i++)
	{
		unsigned	code = enc->pair_hash[i] >> 24;

		if (code != GSST_ESCAPE)
			enc->short_code[enc->pair_hash[i] & 0xFFFF] = (uint16_t) (code | 2u << 8);
	}
	build_long_slots(enc, table);
	build_direct_table(enc, table);
	enc->table = *table;
}
