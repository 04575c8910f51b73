--
-- Queries on compressed values: equality and IN compare stored bytes,
-- length counts on the codes, merge joins and foreign keys with text.
-- Every answer is checked against the same query on a text copy.
--
\set SHOW_CONTEXT never
\set VERBOSITY default
\getenv abs_builddir PG_ABS_BUILDDIR
\set crafted_file :abs_builddir '/results/queries_crafted.bin'
SET gsst.learn_sample_bytes = 4096;
SELECT setseed(0.18);

-- A column with raw values (written while it learned, too short, or not
-- compressible), values of two of its own dictionaries, values of another
-- column's dictionary, and NULLs.
CREATE TABLE qv (id serial PRIMARY KEY, c text COMPRESSION gsst);
-- the first 4 kB are stored raw while the column learns its first table
INSERT INTO qv (c)
SELECT 'user' || (i % 300) || '@' || (ARRAY['example.com', 'mail.org', 'web.de'])[1 + i % 3]
FROM generate_series(1, 1500) i;
-- then a second table, trained on different text
INSERT INTO qv (c)
SELECT 'https://www.' || (ARRAY['shop', 'news', 'wiki'])[1 + i % 3] || '.example/'
       || substr(md5(i::text), 1, 1 + i % 12) || '?page=' || (i % 40)
FROM generate_series(1, 600) i;
INSERT INTO qv (c) SELECT 'naïve café ✓ ' || (i % 50) FROM generate_series(1, 200) i;
SELECT gsst.train('qv', 'c') > 0 AS trained;
INSERT INTO qv (c)
SELECT 'user' || (i % 300) || '@' || (ARRAY['example.com', 'mail.org', 'web.de'])[1 + i % 3]
FROM generate_series(1, 300) i;
INSERT INTO qv (c)
SELECT 'https://www.' || (ARRAY['shop', 'news', 'wiki'])[1 + i % 3] || '.example/'
       || substr(md5(i::text), 1, 1 + i % 12) || '?page=' || (i % 40)
FROM generate_series(1, 300) i;
-- values another column encoded keep that column's dictionary
CREATE TABLE qother (c text COMPRESSION gsst);
INSERT INTO qother SELECT 'user' || (i % 300) || '@web.de' FROM generate_series(1, 2000) i;
INSERT INTO qv (c) SELECT c FROM qother
WHERE c LIKE 'user1%' AND gsst.value_dictionary(c) IS NOT NULL;
-- raw: short, not compressible, empty, random; and NULLs
INSERT INTO qv (c) VALUES ('ab'), ('u'), (''), ('✓✗☃♞'), ('ZQXJKV'), (NULL), (NULL);
INSERT INTO qv (c)
SELECT substr(md5(random()::text), 1, (random() * 30)::int) FROM generate_series(1, 200);
ANALYZE qv;
CREATE TABLE qt AS SELECT id, c::text AS c FROM qv;
SELECT atttypmod AS fam FROM pg_attribute
WHERE attrelid = 'qv'::regclass AND attname = 'c' \gset

SELECT count(DISTINCT gsst.value_dictionary(c)) AS dictionaries,
       count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL AND c IS NOT NULL) > 300 AS many_raw,
       count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 600 AS many_encoded,
       count(*) FILTER (WHERE c IS NULL) AS nulls
FROM qv;
-- one text stored raw and encoded with each of the three dictionaries
SELECT count(DISTINCT coalesce(gsst.value_dictionary(c), 0)) AS spellings,
       count(DISTINCT gsst.datum(c)) AS distinct_bytes
FROM qv WHERE c = 'user17@web.de';

-- Binary input stores encoded bytes in the form gsst itself stores them:
-- all-escape codes for a text are stored as its canonical codes (or raw).
SELECT gsst.value_dictionary(c) AS dict, c::text AS crafted_text
FROM qv WHERE id = (SELECT max(id) FROM qv WHERE c = 'user17@web.de'
                    AND gsst.value_dictionary(c) IS NOT NULL) \gset
SELECT '\x00'::bytea ||
       CASE WHEN :dict * 4 < 128 THEN decode(lpad(to_hex(:dict * 4), 2, '0'), 'hex')
            ELSE decode(lpad(to_hex((:dict * 4) % 128 + 128), 2, '0') ||
                        lpad(to_hex((:dict * 4) / 128), 2, '0'), 'hex') END ||
       (SELECT string_agg('\xff'::bytea || substr(convert_to(:'crafted_text', 'UTF8'), i, 1), ''::bytea ORDER BY i)
        FROM generate_series(1, octet_length(:'crafted_text')) i) AS crafted \gset
SELECT gsst.decompress(:'crafted'::bytea) = :'crafted_text' AS crafted_decodes;
CREATE TABLE qcrafted (b bytea);
INSERT INTO qcrafted VALUES (:'crafted');
COPY qcrafted TO :'crafted_file' (FORMAT binary);
CREATE TABLE qin (c gsst);
COPY qin FROM :'crafted_file' (FORMAT binary);
SELECT gsst.datum(c) <> :'crafted'::bytea AS rewritten,
       gsst.datum(c) = (SELECT gsst.datum(c) FROM qv WHERE c = 'user17@web.de'
                        AND gsst.value_dictionary(c) = :dict LIMIT 1) AS canonical,
       c = :'crafted_text' AS equal
FROM qin;
-- a header of a datum version that does not exist is refused at input
CREATE TABLE qbadversion (b bytea);
INSERT INTO qbadversion VALUES ('\x00050102'::bytea);
COPY qbadversion TO :'crafted_file' (FORMAT binary);
COPY qin FROM :'crafted_file' (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE

-- The probes: every distinct value, random text, values that encode raw
-- with every dictionary, and text that is in no row.
CREATE TABLE qprobe (n serial, p text);
INSERT INTO qprobe (p) SELECT DISTINCT c::text FROM qv WHERE c IS NOT NULL;
INSERT INTO qprobe (p)
SELECT substr(md5(random()::text), 1, (random() * 30)::int) FROM generate_series(1, 100);
INSERT INTO qprobe (p) VALUES ('ab'), ('✓✗☃♞'), ('user17@web.de '), ('USER17@WEB.DE'),
                              ('user1'), ('https://www.shop.example/');
SELECT count(*) > 1000 AS probes,
       bool_and(gsst.value_dictionary(gsst.compress(p, :fam)) IS NULL)
           FILTER (WHERE p IN ('ab', '✓✗☃♞')) AS some_encode_raw
FROM qprobe;

-- Each predicate on gsst against the same on text: with a constant in the
-- query (a Const), as a parameter (a Param), in IN lists (short ones are
-- searched, long ones hashed) and = ANY of a text array.
CREATE FUNCTION qcheck(pred text, VARIADIC args text[]) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	g bigint; t bigint; gn bigint; tn bigint;
BEGIN
	EXECUTE format('SELECT count(*) FILTER (WHERE %1$s), count(*) FILTER (WHERE (%1$s) IS NULL) FROM qv', pred)
		INTO g, gn USING args;
	EXECUTE format('SELECT count(*) FILTER (WHERE %1$s), count(*) FILTER (WHERE (%1$s) IS NULL) FROM qt', pred)
		INTO t, tn USING args;
	IF g IS DISTINCT FROM t OR gn IS DISTINCT FROM tn THEN
		RAISE NOTICE 'differs: % with % (gsst % %, text % %)', pred, args, g, gn, t, tn;
		RETURN 1;
	END IF;
	RETURN 0;
END $$;

SELECT count(*) AS probes,
       sum(qcheck(format('c = %L', p), p)) AS const_eq,
       sum(qcheck(format('c <> %L', p), p)) AS const_ne,
       sum(qcheck(format('%L = c', p), p)) AS const_eq_flipped,
       sum(qcheck(format('c = %L::text', p), p)) AS const_eq_text,
       sum(qcheck('c = $1[1]', p)) AS param_eq,
       sum(qcheck('c::text = $1[1] AND c = $1[1]', p)) AS param_both
FROM qprobe;
SELECT count(*) AS lists,
       sum(qcheck(format('c IN (%L, %L, %L)', a, b, d), a)) AS in_list,
       sum(qcheck(format('c NOT IN (%L, %L, %L)', a, b, d), a)) AS not_in_list,
       sum(qcheck(format('c IN (%L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L)', a, b, d, a || 'x', b || 'y',
                         d || 'z', 'q', 'qq', 'qqq', 'user7@web.de', NULL), a)) AS hashed_in_list,
       sum(qcheck('c = ANY ($1)', a, b, d)) AS any_param,
       sum(qcheck('c <> ALL ($1)', a, b, d, NULL)) AS all_param_null,
       sum(qcheck(format('c = ANY (%L::text[])', ARRAY[a, b, d]), a)) AS any_text_array
FROM (SELECT p AS a, lead(p, 1, 'x') OVER (ORDER BY n) AS b,
             lead(p, 7, 'ab') OVER (ORDER BY n) AS d FROM qprobe) s;

-- IN lists and constant arrays whose elements repeat or are NULL: an
-- element the executor passes again is known by its place in the array.
SELECT count(*) AS lists,
       sum(qcheck(format('c IN (%L, NULL, %L, %L, %L, %L)', a, b, a, d, b), a)) AS in_repeats_null,
       sum(qcheck(format('c NOT IN (%L, %L, %L, %L)', d, a, d, b), a)) AS not_in_repeats,
       sum(qcheck(format('c = ANY (ARRAY[%L, %L, NULL, %L])', b, a, b), a)) AS any_array_null,
       sum(qcheck(format('c IN (%L, %L) AND c IN (%L, %L, %L)', a, b, b, d, a), a)) AS two_lists
FROM (SELECT p AS a, lead(p, 1, 'x') OVER (ORDER BY n) AS b,
             lead(p, 3, 'ab') OVER (ORDER BY n) AS d FROM qprobe WHERE n % 3 = 0) s;

-- Two gsst values: of one dictionary, of two, raw against encoded.
SELECT count(*) AS disagreements
FROM qv a JOIN qv b ON a.id % 41 = b.id % 37
JOIN qt ta ON ta.id = a.id JOIN qt tb ON tb.id = b.id
WHERE (a.c = b.c) IS DISTINCT FROM (ta.c = tb.c)
   OR (a.c <> b.c) IS DISTINCT FROM (ta.c <> tb.c);

-- A PL/pgSQL expression keeps its state from call to call while its
-- parameters change.
CREATE FUNCTION qloop() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	g gsst; t text; p text; bad bigint := 0;
BEGIN
	FOR g, t IN SELECT qv.c, qt.c FROM qv JOIN qt USING (id) LOOP
		FOR p IN SELECT qprobe.p FROM qprobe WHERE n % 50 = 0 OR qprobe.p = t LOOP
			IF (g = p) IS DISTINCT FROM (t = p) OR (p = g) IS DISTINCT FROM (p = t) THEN
				bad := bad + 1;
			END IF;
		END LOOP;
	END LOOP;
	RETURN bad;
END $$;
SELECT qloop() AS plpgsql_disagreements;

-- A nondeterministic collation compares decoded text, as text does.
CREATE COLLATION qci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE COLLATION qen (provider = icu, locale = 'en-US');
SELECT count(*) AS probes,
       sum(qcheck(format('c = %L COLLATE qci', upper(p)), p)) AS ci_eq,
       sum(qcheck(format('c <> %L COLLATE qci', upper(p)), p)) AS ci_ne,
       sum(qcheck(format('c COLLATE qci IN (%L, %L)', upper(p), p), p)) AS ci_in
FROM qprobe WHERE n % 5 = 0;
SELECT count(*) AS case_insensitive_matches FROM qv WHERE c = 'USER17@WEB.DE' COLLATE qci;
SELECT count(*) AS case_insensitive_groups
FROM (SELECT c COLLATE qci FROM qv WHERE c LIKE 'user1%' GROUP BY 1) s;
SELECT count(*) AS case_insensitive_groups_text
FROM (SELECT c COLLATE qci FROM qt WHERE c LIKE 'user1%' GROUP BY 1) s;

-- Sorting orders as text does: under the C collation (abbreviated keys
-- from the first 8 decoded bytes), and under ICU collations (text's own
-- sort support on the decoded values, its abbreviated keys included).
SELECT count(*) AS sort_disagreements
FROM (SELECT row_number() OVER (ORDER BY c, id) AS rn, id FROM qv) a
JOIN (SELECT row_number() OVER (ORDER BY c, id) AS rn, id FROM qt) b USING (rn)
WHERE a.id <> b.id;
SELECT count(*) AS sort_disagreements_en
FROM (SELECT row_number() OVER (ORDER BY c COLLATE qen, id) AS rn, id FROM qv) a
JOIN (SELECT row_number() OVER (ORDER BY c COLLATE qen, id) AS rn, id FROM qt) b USING (rn)
WHERE a.id <> b.id;
SELECT count(*) AS sort_disagreements_ci
FROM (SELECT row_number() OVER (ORDER BY c COLLATE qci, id) AS rn, id FROM qv) a
JOIN (SELECT row_number() OVER (ORDER BY c COLLATE qci, id) AS rn, id FROM qt) b USING (rn)
WHERE a.id <> b.id;

-- Values that share more than 8 leading bytes, as in c_name: the
-- abbreviated keys are all equal, and comparisons skip the codes two
-- values share (escapes among them).
CREATE TABLE qlong (id serial PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO qlong (c)
SELECT 'Customer#' || lpad((i * 7919 % 4000)::text, 9, '0')
       || CASE WHEN i % 3 = 0 THEN 'ü' || chr(1024 + i % 50) WHEN i % 3 = 1 THEN '#' || (i % 7) ELSE '' END
FROM generate_series(1, 4000) i;
SET client_min_messages = warning;
SELECT gsst.compress_table('qlong') >= 0 AS compressed;
RESET client_min_messages;
CREATE TABLE qlong_text AS SELECT id, c::text AS c FROM qlong;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 3000 AS mostly_encoded,
       count(DISTINCT gsst.value_dictionary(c)) AS dictionaries
FROM qlong;
SELECT count(*) AS sort_disagreements_long
FROM (SELECT row_number() OVER (ORDER BY c, id) AS rn, id FROM qlong) a
JOIN (SELECT row_number() OVER (ORDER BY c, id) AS rn, id FROM qlong_text) b USING (rn)
WHERE a.id <> b.id;
SELECT count(*) AS order_disagreements_long
FROM qlong a JOIN qlong b ON a.id % 97 = b.id % 89
JOIN qlong_text ta ON ta.id = a.id JOIN qlong_text tb ON tb.id = b.id
WHERE (a.c < b.c) IS DISTINCT FROM (ta.c < tb.c)
   OR (a.c >= b.c) IS DISTINCT FROM (ta.c >= tb.c);

-- Ordering: <, <=, >, >= and the btree comparison.  Under the C collation
-- they decode only as far as the first byte that differs: checked against
-- cuts of values at many lengths, with a byte after the cut that sorts
-- before, after, or nothing; as Const, Param and flipped.
CREATE TABLE qcut AS
SELECT DISTINCT left(p, k) || x AS p
FROM qprobe, (VALUES (0), (1), (2), (3), (5), (8), (9), (13), (40)) v(k),
     (VALUES (''), (' '), ('~')) w(x)
WHERE n % 97 = 0;
SELECT count(*) > 100 AS cuts,
       sum(qcheck(format('c < %L', p), p)) AS lt,
       sum(qcheck(format('c <= %L', p), p)) AS le,
       sum(qcheck(format('c > %L', p), p)) AS gt,
       sum(qcheck(format('c >= %L', p), p)) AS ge,
       sum(qcheck('c < $1[1]', p)) AS param_lt,
       sum(qcheck(format('%L < c', p), p)) AS flipped_lt,
       sum(qcheck(format('c BETWEEN %L AND %L', p, p || '~'), p)) AS between
FROM qcut;
-- two gsst values (one dictionary, two, raw), and gsst against text
SELECT count(*) AS order_disagreements
FROM qv a JOIN qv b ON a.id % 41 = b.id % 37
JOIN qt ta ON ta.id = a.id JOIN qt tb ON tb.id = b.id
WHERE (a.c < b.c) IS DISTINCT FROM (ta.c < tb.c)
   OR (a.c <= b.c) IS DISTINCT FROM (ta.c <= tb.c)
   OR (a.c > b.c) IS DISTINCT FROM (ta.c > tb.c)
   OR (a.c >= b.c) IS DISTINCT FROM (ta.c >= tb.c)
   OR (a.c < tb.c) IS DISTINCT FROM (ta.c < tb.c)
   OR (ta.c >= b.c) IS DISTINCT FROM (ta.c >= tb.c)
   OR sign(gsst.gsst_cmp(a.c, b.c)) IS DISTINCT FROM sign(bttextcmp(ta.c, tb.c))
   OR sign(gsst.gsst_text_cmp(a.c, tb.c)) IS DISTINCT FROM sign(bttextcmp(ta.c, tb.c))
   OR sign(gsst.text_gsst_cmp(ta.c, b.c)) IS DISTINCT FROM sign(bttextcmp(ta.c, tb.c));
-- an ICU collation compares decoded text with text's rules
SELECT count(*) AS order_disagreements_en
FROM qv a JOIN qv b ON a.id % 83 = b.id % 79
JOIN qt ta ON ta.id = a.id JOIN qt tb ON tb.id = b.id
WHERE (a.c < b.c COLLATE qen) IS DISTINCT FROM (ta.c < tb.c COLLATE qen)
   OR (a.c >= tb.c COLLATE qen) IS DISTINCT FROM (ta.c >= tb.c COLLATE qen);

-- LIKE and NOT LIKE on gsst against text: literal prefixes of many
-- lengths, exact literals, '%literal%', '_', escapes, as Const and Param,
-- and with ESCAPE.
CREATE TABLE qpat (p text);
INSERT INTO qpat
SELECT DISTINCT replace(replace(replace(left(p, k), '\', '\\'), '%', '\%'), '_', '\_') || '%'
FROM qprobe, (VALUES (0), (1), (3), (6), (8), (9), (12), (40)) v(k) WHERE n % 61 = 0;
INSERT INTO qpat
SELECT DISTINCT '%' || substr(p, 3, k) || '%'
FROM qprobe, (VALUES (1), (3), (5)) v(k) WHERE n % 61 = 0 AND substr(p, 3, k) !~ '[%_\\]';
INSERT INTO qpat
SELECT DISTINCT p FROM qprobe WHERE n % 61 = 0 AND p !~ '[%_\\]';
INSERT INTO qpat VALUES ('user17@web.de'), ('user1_@web.de'), ('user1\_%'), ('%'), ('%%'),
    (''), ('_'), ('%.example/%'), ('https://www.shop%'), ('naïve%'), ('%✓%'), ('naïve café ✓ 1_'),
    ('user17@web.de%%'), ('user17\@%'), ('\%%'), ('%\\%'), ('ab'), ('%ab'), ('user%de'),
    ('%_%'), ('u%'), ('%@%.%'), ('✓✗%'), ('https://www.shop.example/%?page=1%');
SELECT count(*) > 50 AS patterns,
       sum(qcheck(format('c LIKE %L', p), p)) AS like_const,
       sum(qcheck(format('c NOT LIKE %L', p), p)) AS not_like_const,
       sum(qcheck('c LIKE $1[1]', p)) AS like_param,
       sum(qcheck('c NOT LIKE $1[1]', p)) AS not_like_param,
       sum(qcheck(format('c LIKE %L ESCAPE %L', replace(p, '\', '#'), '#'), p)) AS like_escape,
       sum(qcheck(format('c LIKE %L COLLATE qen', p), p)) AS like_en
FROM qpat;
EXPLAIN (COSTS OFF) SELECT count(*) FROM qv WHERE c LIKE 'user1%' AND c NOT LIKE '%@web.de';
-- errors and collations: the same answer, or the same error, as text
CREATE FUNCTION qsame(pred text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	g text; t text;
BEGIN
	BEGIN
		EXECUTE format('SELECT count(*)::text FROM qv WHERE %s', pred) INTO g;
	EXCEPTION WHEN OTHERS THEN
		g := SQLSTATE;
	END;
	BEGIN
		EXECUTE format('SELECT count(*)::text FROM qt WHERE %s', pred) INTO t;
	EXCEPTION WHEN OTHERS THEN
		t := SQLSTATE;
	END;
	RETURN CASE WHEN g = t THEN 'same' ELSE format('gsst %s, text %s', g, t) END;
END $$;
SELECT qsame($$c LIKE 'user1\'$$) AS trailing_escape,
       qsame($$c LIKE 'USER1%' COLLATE qci$$) AS nondeterministic,
       qsame($$c NOT LIKE '%WEB%' COLLATE qci$$) AS nondeterministic_not,
       qsame($$c LIKE 'user1%' COLLATE "C"$$) AS c_collation;
DROP FUNCTION qsame(text);

-- An index on a gsst column serves c LIKE 'prefix%' with the range text
-- gets, and c LIKE 'literal' with equality; the LIKE stays as a filter.
-- Only the conditions are shown (the scan node differs between majors).
CREATE FUNCTION plan_conds(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ '(Index Cond|Filter|Recheck Cond):' THEN
			RETURN NEXT btrim(line);
		END IF;
	END LOOP;
END $$;
CREATE TABLE qidx (id int, c gsst);
INSERT INTO qidx SELECT id, c FROM qv;
CREATE INDEX qidx_c ON qidx (c);
CREATE TABLE qidx_t AS SELECT id, c FROM qt;
CREATE INDEX qidx_t_c ON qidx_t (c);
ANALYZE qidx, qidx_t;
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT plan_conds($$SELECT id FROM qidx WHERE c LIKE 'user17%'$$) AS gsst_prefix;
SELECT plan_conds($$SELECT id FROM qidx_t WHERE c LIKE 'user17%'$$) AS text_prefix;
SELECT plan_conds($$SELECT id FROM qidx WHERE c LIKE 'user17@web.de'$$) AS gsst_exact;
SELECT plan_conds($$SELECT id FROM qidx_t WHERE c LIKE 'user17@web.de'$$) AS text_exact;
SELECT plan_conds($$SELECT id FROM qidx WHERE c LIKE 'naïve%'$$) AS gsst_multibyte;
SELECT (SELECT count(*) FROM qidx WHERE c LIKE 'user17%') AS gsst_rows,
       (SELECT count(*) FROM qidx_t WHERE c LIKE 'user17%') AS text_rows,
       (SELECT count(*) FROM qidx WHERE c LIKE 'naïve%') AS gsst_multibyte_rows,
       (SELECT count(*) FROM qidx_t WHERE c LIKE 'naïve%') AS text_multibyte_rows;
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_indexonlyscan;
DROP FUNCTION plan_conds(text);
DROP TABLE qidx, qidx_t;

-- Hashing equals text's, so hash joins and grouping with text agree.
SELECT count(*) AS hash_disagreements FROM qv
WHERE gsst.gsst_hash(c) <> hashtext(c::text)
   OR gsst.gsst_hash_extended(c, 7) <> hashtextextended(c::text, 7);
SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM qv JOIN qt ON qv.c = qt.c;
SELECT (SELECT count(*) FROM qv JOIN qt ON qv.c = qt.c) AS hash_join,
       (SELECT count(*) FROM qt a JOIN qt b ON a.c = b.c) AS text_join;
RESET enable_mergejoin; RESET enable_nestloop;

-- Merge joins between gsst and text: each side sorted by its own <.
-- Which side goes first is the planner's choice, and differs between
-- majors: only the join node is shown.
CREATE FUNCTION join_node(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ '(Merge|Hash) Join|Nested Loop' THEN
			RETURN btrim(regexp_replace(line, '^\s*(->\s*)?', ''));
		END IF;
	END LOOP;
	RETURN NULL;
END $$;
SET enable_hashjoin = off; SET enable_nestloop = off;
SELECT join_node('SELECT count(*) FROM qv JOIN qt ON qv.c = qt.c');
SELECT count(*) AS merge_join FROM qv JOIN qt ON qv.c = qt.c;
SELECT join_node('SELECT count(*) FROM qt JOIN qv ON qt.c = qv.c');
SELECT count(*) AS merge_join_flipped FROM qt JOIN qv ON qt.c = qv.c;
DROP FUNCTION join_node(text);
-- a text join keeps text's own family, so text indexes give its order
CREATE INDEX qt_c ON qt (c);
CREATE TABLE qt2 AS SELECT * FROM qt;
CREATE INDEX qt2_c ON qt2 (c);
ANALYZE qt, qt2;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM qt JOIN qt2 ON qt.c = qt2.c;
RESET enable_sort; RESET enable_hashjoin; RESET enable_nestloop;
DROP TABLE qt2;

-- A text column references a gsst key.
CREATE TABLE qkey (k text COMPRESSION gsst PRIMARY KEY);
INSERT INTO qkey SELECT DISTINCT c FROM qv WHERE c IS NOT NULL;
CREATE TABLE qref (id int, k text REFERENCES qkey (k));
INSERT INTO qref SELECT id, c FROM qt;
SELECT count(*) AS referencing FROM qref WHERE k IS NOT NULL;
INSERT INTO qref VALUES (0, 'no such key');
\echo :LAST_ERROR_SQLSTATE
DELETE FROM qkey WHERE k = 'user17@web.de';
\echo :LAST_ERROR_SQLSTATE
DELETE FROM qref WHERE k = 'user17@web.de';
DELETE FROM qkey WHERE k = 'user17@web.de';
SELECT count(*) AS keys_left FROM qkey WHERE k LIKE 'user17@%';

-- length and octet_length count on the codes; the planner calls them
-- on the gsst column without a cast to text.
INSERT INTO qv (c) VALUES ('naïve café ✓ 17'), (repeat('naïve café ✓ ', 50));
INSERT INTO qt SELECT id, c::text FROM qv WHERE id > (SELECT max(id) FROM qt);
EXPLAIN (COSTS OFF, VERBOSE) SELECT sum(length(c)), sum(octet_length(c)) FROM qv;
SELECT count(*) AS length_disagreements FROM qv JOIN qt USING (id)
WHERE length(qv.c) IS DISTINCT FROM length(qt.c)
   OR octet_length(qv.c) IS DISTINCT FROM octet_length(qt.c);
-- multibyte text encoded: characters differ from bytes
SELECT count(*) AS multibyte_encoded_agree
FROM qv JOIN qt USING (id)
WHERE qv.c LIKE 'naïve%' AND gsst.value_dictionary(qv.c) IS NOT NULL
  AND length(qv.c) = length(qt.c) AND octet_length(qv.c) = octet_length(qt.c)
  AND length(qv.c) < octet_length(qv.c);
-- a literal still calls text's length
SELECT length('naïve'), octet_length('naïve');

-- Privileges: anyone may call the new functions; they read only values the
-- role may read anyway.  A role that may read a copy of values encoded
-- with a dictionary it may not read compares them as text would.
CREATE ROLE q_reader;
CREATE TABLE qcopy (c gsst);
INSERT INTO qcopy SELECT c FROM qv;
GRANT SELECT ON qcopy, qprobe TO q_reader;
CREATE FUNCTION qcheck_copy(p text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	g bigint; t bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM qcopy WHERE c = %L', p) INTO g;
	EXECUTE format('SELECT count(*) FROM qcopy WHERE c::text = %L', p) INTO t;
	RETURN (g <> t)::int;
END $$;
SELECT has_function_privilege('q_reader', 'length(gsst)', 'EXECUTE') AS length_public,
       has_function_privilege('q_reader', 'octet_length(gsst)', 'EXECUTE') AS octet_length_public,
       has_function_privilege('q_reader', 'gsst.gsst_like(gsst, text)', 'EXECUTE') AS like_public,
       has_function_privilege('q_reader', 'gsst.gsst_not_like(gsst, text)', 'EXECUTE') AS not_like_public;
SET ROLE q_reader;
\set VERBOSITY sqlstate
SELECT count(*) FROM gsst.dictionary(:dict);
\set VERBOSITY default
SELECT sum(length(c)) FROM qv;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS probes, sum(qcheck_copy(p)) AS probe_disagreements FROM qprobe;
SELECT count(*) AS matches, sum(length(c)) = sum(length(c::text)) AS lengths_agree
FROM qcopy WHERE c = 'user17@web.de';
SELECT count(*) FILTER (WHERE c LIKE 'user17@%') = count(*) FILTER (WHERE c::text LIKE 'user17@%') AS like_agrees,
       count(*) FILTER (WHERE c < 'user17@') = count(*) FILTER (WHERE c::text < 'user17@') AS lt_agrees
FROM qcopy;
RESET ROLE;
DROP TABLE qcopy;
REVOKE SELECT ON qprobe FROM q_reader;
DROP ROLE q_reader;
