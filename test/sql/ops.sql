--
-- Comparison, indexes, sorting, grouping and joins on gsst.
--
\set SHOW_CONTEXT never
SET gsst.learn_sample_bytes = 4096;

CREATE TABLE ops_t (id int PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO ops_t
SELECT i, 'user' || (i % 500) || '@' || (ARRAY['example.com', 'mail.org', 'web.de'])[1 + i % 3]
FROM generate_series(1, 3000) i;
ANALYZE ops_t;
CREATE TABLE ops_text AS SELECT id, c::text AS c FROM ops_t;
SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) > 2500 AS mostly_encoded
FROM ops_t;

-- gsst <op> gsst, gsst <op> text, text <op> gsst agree with text <op> text
SELECT count(*) AS disagreements
FROM ops_t a JOIN ops_t b ON a.id % 97 = b.id % 89
JOIN ops_text ta ON ta.id = a.id JOIN ops_text tb ON tb.id = b.id
WHERE (a.c = b.c) IS DISTINCT FROM (ta.c = tb.c)
   OR (a.c <> b.c) IS DISTINCT FROM (ta.c <> tb.c)
   OR (a.c < b.c) IS DISTINCT FROM (ta.c < tb.c)
   OR (a.c <= b.c) IS DISTINCT FROM (ta.c <= tb.c)
   OR (a.c > b.c) IS DISTINCT FROM (ta.c > tb.c)
   OR (a.c >= b.c) IS DISTINCT FROM (ta.c >= tb.c)
   OR (a.c = tb.c) IS DISTINCT FROM (ta.c = tb.c)
   OR (a.c < tb.c) IS DISTINCT FROM (ta.c < tb.c)
   OR (a.c >= tb.c) IS DISTINCT FROM (ta.c >= tb.c)
   OR (ta.c = b.c) IS DISTINCT FROM (ta.c = tb.c)
   OR (ta.c > b.c) IS DISTINCT FROM (ta.c > tb.c)
   OR (ta.c <> b.c) IS DISTINCT FROM (ta.c <> tb.c);
-- a raw and an encoded spelling of the same text are equal and hash alike
SELECT gsst.value_dictionary(c) IS NOT NULL AS stored_encoded,
       c = 'user7@web.de'::gsst AS equal_to_raw,
       gsst.gsst_hash(c) = gsst.gsst_hash('user7@web.de'::gsst) AS same_hash,
       gsst.gsst_hash(c) = hashtext('user7@web.de') AS hash_like_text,
       gsst.gsst_hash_extended(c, 42) = hashtextextended('user7@web.de', 42) AS ext_hash_like_text
FROM ops_t WHERE id = 2507;

-- btree index, used for a text parameter, and in both operand orders
CREATE INDEX ops_t_c ON ops_t (c);
SET enable_seqscan = off;
PREPARE ops_lookup(text) AS SELECT id FROM ops_t WHERE c = $1 ORDER BY id;
EXPLAIN (COSTS OFF) EXECUTE ops_lookup('user7@mail.org');
EXECUTE ops_lookup('user7@mail.org');
PREPARE ops_lookup_flipped(text) AS SELECT count(*) FROM ops_t WHERE $1 = c;
EXPLAIN (COSTS OFF) EXECUTE ops_lookup_flipped('user7@mail.org');
EXECUTE ops_lookup_flipped('user7@mail.org');
EXPLAIN (COSTS OFF) SELECT count(*) FROM ops_t WHERE c = 'user7@web.de';
EXPLAIN (COSTS OFF) SELECT count(*) FROM ops_t WHERE c > 'user98' AND c < 'user99'::text;
SELECT count(*) FROM ops_t WHERE c > 'user98' AND c < 'user99'::text;
SELECT count(*) FROM ops_t WHERE c = ANY (ARRAY['user1@web.de', 'user2@example.com']::text[]);
RESET enable_seqscan;

-- a hash index serves the same lookups
CREATE INDEX ops_t_c_hash ON ops_t USING hash (c);
SET enable_seqscan = off; SET enable_bitmapscan = off;
DROP INDEX ops_t_c;
EXPLAIN (COSTS OFF) EXECUTE ops_lookup('user7@mail.org');
EXECUTE ops_lookup('user7@mail.org');
CREATE INDEX ops_t_c ON ops_t (c);
DROP INDEX ops_t_c_hash;
RESET enable_seqscan; RESET enable_bitmapscan;

-- ORDER BY, DISTINCT, GROUP BY (sort and hash) match text
SELECT (SELECT array_agg(c ORDER BY c, id) FROM ops_t)::text[]
     = (SELECT array_agg(c ORDER BY c, id) FROM ops_text) AS order_by_matches;
SELECT c FROM ops_t ORDER BY c DESC LIMIT 3;
SELECT count(DISTINCT c) AS gsst_distinct, (SELECT count(DISTINCT c) FROM ops_text) AS text_distinct
FROM ops_t;
SET enable_hashagg = off;
SELECT c, count(*) FROM ops_t GROUP BY c ORDER BY count(*) DESC, c LIMIT 3;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT c, count(*) FROM ops_t GROUP BY c;
SELECT count(*) FROM (SELECT c, count(*) FROM ops_t GROUP BY c) g;
RESET enable_sort;
SELECT count(*) FROM (SELECT DISTINCT c FROM ops_t) d;

-- joins gsst = gsst and gsst = text, with every join method
CREATE TABLE ops_t2 (c gsst);
INSERT INTO ops_t2 SELECT DISTINCT c FROM ops_t;
SET enable_nestloop = off; SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ops_t JOIN ops_text USING (id) JOIN ops_t2 ON ops_t2.c = ops_text.c;
SELECT count(*) FROM ops_t a JOIN ops_text b ON a.c = b.c;
SELECT count(*) FROM ops_t a JOIN ops_t2 b ON a.c = b.c;
RESET enable_mergejoin; SET enable_hashjoin = off;
SELECT count(*) FROM ops_t a JOIN ops_t2 b ON a.c = b.c;
RESET enable_nestloop; SET enable_mergejoin = off;
SELECT count(*) FROM ops_t a JOIN ops_text b ON a.c = b.c AND a.id < 50;
RESET enable_mergejoin; RESET enable_hashjoin;
SELECT count(*) FROM ops_text b WHERE b.c IN (SELECT c FROM ops_t2);

-- unique indexes and primary keys compare decoded text
CREATE TABLE ops_pk (c text COMPRESSION gsst PRIMARY KEY);
INSERT INTO ops_pk SELECT DISTINCT c FROM ops_t;
INSERT INTO ops_pk VALUES ('user3@web.de');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO ops_pk VALUES ('user3@web.de') ON CONFLICT (c) DO NOTHING;
SELECT count(*) FROM ops_pk;
CREATE TABLE ops_fk (c text COMPRESSION gsst REFERENCES ops_pk);
INSERT INTO ops_fk VALUES ('user3@web.de');
INSERT INTO ops_fk VALUES ('nobody@nowhere');
\echo :LAST_ERROR_SQLSTATE

-- collations: the column's collation is used, and gsst behaves like text
CREATE COLLATION ops_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE ops_coll (c text COMPRESSION gsst COLLATE ops_ci);
INSERT INTO ops_coll VALUES ('Alpha'), ('ALPHA'), ('beta'), ('Beta'), ('gamma');
SELECT count(DISTINCT c) AS ci_distinct FROM ops_coll;
SELECT count(*) FROM ops_coll WHERE c = 'alpha';
SELECT count(*) FROM ops_coll WHERE c = 'alpha' COLLATE "C";
SELECT c FROM ops_coll ORDER BY c COLLATE "C";
SET enable_sort = off;
SELECT count(*) FROM (SELECT c FROM ops_coll GROUP BY c) g;
RESET enable_sort;
