--
-- Shadowing: a role that may create objects in the schema of gsst (public,
-- in every database created before PostgreSQL 15) must not get its own
-- functions or operators run in place of text's when another role calls
-- them on a gsst column.  gsst defines the exact matches itself.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
\set regress_db :DBNAME

CREATE ROLE shadow_victim;
CREATE ROLE shadow_intruder;
-- public as PostgreSQL 14 and older created it: anyone may create there
GRANT CREATE ON SCHEMA public TO PUBLIC;

SET ROLE shadow_victim;
CREATE TABLE shadow_secret (id int, c gsst COLLATE "C", t text COLLATE "C", d gsst);
INSERT INTO shadow_secret VALUES
    (1, 'Alice''s Secret 42', 'Alice''s Secret 42', 'Sec'),
    (2, 'bob@example.com, carol@example.org', 'bob@example.com, carol@example.org', 'example');
RESET ROLE;

-- 1. The intruder tries the signatures a call on a gsst column looks for.
-- Whatever runs writes its argument where the intruder can read it.
SET ROLE shadow_intruder;
CREATE TABLE shadow_loot (v text);
GRANT INSERT ON shadow_loot TO PUBLIC;
CREATE FUNCTION shadow_steal(gsst) RETURNS text LANGUAGE sql
    AS $$ INSERT INTO public.shadow_loot VALUES ($1::text) RETURNING 'stolen' $$;
CREATE FUNCTION shadow_steal2(gsst, gsst) RETURNS boolean LANGUAGE sql
    AS $$ INSERT INTO public.shadow_loot VALUES ($1::text) RETURNING true $$;
CREATE FUNCTION shadow_steal3(gsst, text) RETURNS boolean LANGUAGE sql
    AS $$ INSERT INTO public.shadow_loot VALUES ($1::text) RETURNING true $$;
CREATE FUNCTION shadow_steal_cat(gsst, gsst) RETURNS text LANGUAGE sql
    AS $$ INSERT INTO public.shadow_loot VALUES ($1::text) RETURNING 'stolen' $$;
-- exact matches of gsst's own: refused, they exist
CREATE FUNCTION public.lower(gsst) RETURNS text LANGUAGE sql
    AS $$ INSERT INTO public.shadow_loot VALUES ($1::text) RETURNING 'stolen' $$;
CREATE FUNCTION public.upper(gsst) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.substr(gsst, int, int) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.substring(gsst, int, int) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.overlay(gsst, text, int) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.btrim(gsst) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.strpos(gsst, text) RETURNS int LANGUAGE sql AS $$ SELECT -1 $$;
CREATE FUNCTION public.strpos(gsst, gsst) RETURNS int LANGUAGE sql AS $$ SELECT -1 $$;
CREATE FUNCTION public.replace(gsst, text, text) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.split_part(gsst, text, int) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.regexp_replace(gsst, text, text, text) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.char_length(gsst) RETURNS int LANGUAGE sql AS $$ SELECT -1 $$;
CREATE FUNCTION public.md5(gsst) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.to_tsvector(gsst) RETURNS tsvector LANGUAGE sql AS $$ SELECT 'stolen'::tsvector $$;
CREATE OPERATOR public.|| (LEFTARG = gsst, RIGHTARG = gsst, FUNCTION = shadow_steal_cat);
CREATE OPERATOR public.~~ (LEFTARG = gsst, RIGHTARG = gsst, FUNCTION = shadow_steal2);
CREATE OPERATOR public.~~* (LEFTARG = gsst, RIGHTARG = gsst, FUNCTION = shadow_steal2);
CREATE OPERATOR public.~ (LEFTARG = gsst, RIGHTARG = text, FUNCTION = shadow_steal3);
CREATE OPERATOR public.^@ (LEFTARG = gsst, RIGHTARG = gsst, FUNCTION = shadow_steal2);
CREATE OPERATOR public.= (LEFTARG = gsst, RIGHTARG = gsst, FUNCTION = shadow_steal2);
-- near matches: created, but not chosen over gsst's for these calls
CREATE FUNCTION public.initcap(VARIADIC gsst[]) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.replace(gsst, varchar, varchar) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.replace(gsst, name, name) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.left(gsst, bigint) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION public.lpad(gsst, int, gsst) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
RESET ROLE;

-- 2. The victim's everyday calls give text's answers, and nothing ran.
SET ROLE shadow_victim;
SELECT id,
       lower(c) = lower(t) AS lower, upper(c) = upper(t) AS upper,
       initcap(c) = initcap(t) AS initcap, length(c) = length(t) AS length,
       char_length(c) = char_length(t) AS char_length,
       octet_length(c) = octet_length(t) AS octet_length,
       substr(c, 3, 4) = substr(t, 3, 4) AS substr,
       substring(c, 3, 4) = substring(t, 3, 4) AS substring,
       substring(c FROM 3 FOR 4) = substring(t FROM 3 FOR 4) AS substring_from,
       substring(c, 'S\w+') IS NOT DISTINCT FROM substring(t, 'S\w+') AS substring_re,
       position('e' IN c) = position('e' IN t) AS position,
       strpos(c, 'e') = strpos(t, 'e') AS strpos,
       replace(c, 'e', 'E') = replace(t, 'e', 'E') AS replace,
       split_part(c, ' ', 2) = split_part(t, ' ', 2) AS split_part,
       btrim(c, 'A2') = btrim(t, 'A2') AS btrim, trim(c) = trim(t) AS trim,
       overlay(c, 'xy', 2) = overlay(t, 'xy', 2) AS overlay,
       overlay(c PLACING 'xy' FROM 2) = overlay(t PLACING 'xy' FROM 2) AS overlay_placing,
       "left"(c, 3) = "left"(t, 3) AS left, md5(c) = md5(t) AS md5,
       regexp_replace(c, '[aeiou]', '_', 'g') = regexp_replace(t, '[aeiou]', '_', 'g') AS regexp_replace,
       to_tsvector(c) = to_tsvector(t) AS to_tsvector
FROM shadow_secret ORDER BY id;
SELECT id,
       c || 'x' = t || 'x' AS cat_literal, 'x' || c = 'x' || t AS literal_cat,
       c || t = t || t AS cat_text, t || c = t || t AS text_cat, c || d = t || d::text AS cat_gsst,
       c LIKE 'A%' = (t LIKE 'A%') AS like, c NOT LIKE '%@%' = (t NOT LIKE '%@%') AS not_like,
       c ILIKE 'a%' = (t ILIKE 'a%') AS ilike, c ILIKE d = (t ILIKE d::text) AS ilike_gsst,
       c ILIKE ANY (ARRAY['%BOB%', 'x']) = (t ILIKE ANY (ARRAY['%BOB%', 'x'])) AS ilike_any,
       c ~ '\d' = (t ~ '\d') AS regex, c ~* 'ALICE' = (t ~* 'ALICE') AS regex_ic,
       c !~ '\d' = (t !~ '\d') AS not_regex,
       c SIMILAR TO '%@%' = (t SIMILAR TO '%@%') AS similar,
       c ^@ 'Ali' = (t ^@ 'Ali') AS starts_with,
       c @@ 'secret' = (t @@ 'secret') AS ts_match,
       (c = 'bob@example.com, carol@example.org') = (t = 'bob@example.com, carol@example.org') AS eq
FROM shadow_secret ORDER BY id;
SELECT lower(c), c || '!' AS cat, substr(c, 1, 5), c ILIKE '%SECRET%' AS ilike FROM shadow_secret ORDER BY id;
SELECT x FROM shadow_secret, regexp_split_to_table(c, ',\s*') x WHERE id = 2;
SELECT initcap(c), replace(c, 'e', 'E'), "left"(c, 2), lpad(c, 20, '.'), strpos(c, d)
FROM shadow_secret ORDER BY id;
RESET ROLE;
SELECT count(*) AS stolen FROM shadow_loot;

-- A near match with a default argument makes the call ambiguous, in the
-- same schema as gsst's: the call fails, and still nothing runs.
SET ROLE shadow_intruder;
CREATE FUNCTION public.lower(gsst, int DEFAULT 0) RETURNS text LANGUAGE sql
    AS $$ INSERT INTO public.shadow_loot VALUES ($1::text) RETURNING 'stolen' $$;
SET ROLE shadow_victim;
SELECT lower(c) FROM shadow_secret;
RESET ROLE;
DROP FUNCTION public.lower(gsst, int);
SELECT count(*) AS stolen FROM shadow_loot;

-- 3. The overloads cost nothing: the planner inlines them into text's
-- functions on the decoded text, with the column's collation, and an
-- expression index serves them.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT lower(c), upper(c COLLATE "POSIX"), substr(c, 2, 3), c || 'x', c ILIKE 'a%', c ~ 'b', strpos(c, 'e')
FROM shadow_secret;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT x FROM shadow_secret, regexp_split_to_table(c, ',') x;
CREATE TABLE shadow_indexed AS
SELECT i AS id, ('User' || i || '@Example.com')::gsst AS c FROM generate_series(1, 2000) i;
CREATE INDEX ON shadow_indexed (lower(c));
CREATE INDEX ON shadow_indexed (c);
ANALYZE shadow_indexed;
EXPLAIN (COSTS OFF) SELECT id FROM shadow_indexed WHERE lower(c) = 'user42@example.com';
SELECT id FROM shadow_indexed WHERE lower(c) = 'user42@example.com';
EXPLAIN (COSTS OFF) SELECT id FROM shadow_indexed WHERE c LIKE 'User42@%';
SELECT id FROM shadow_indexed WHERE c LIKE 'User42@%';
-- collations as for text: the column's, or the one an expression names
CREATE TABLE shadow_collated (c gsst COLLATE "tr-x-icu", t text COLLATE "tr-x-icu");
INSERT INTO shadow_collated VALUES ('Iİıi', 'Iİıi');
SELECT lower(c) = lower(t) AS lower, upper(c) = upper(t) AS upper,
       lower(c COLLATE "C") = lower(t COLLATE "C") AS lower_c,
       lower(c) <> lower(c COLLATE "C") AS differs_from_c,
       c ILIKE 'iİ%' = (t ILIKE 'iİ%') AS ilike
FROM shadow_collated;

-- 4. Every text function and operator a gsst column is promised has an
-- exact match in the type's schema, as volatile, strict and parallel safe
-- as pg_catalog's (a set-returning one is not strict, so that it inlines
-- in FROM).  A name added to these lists without its overloads fails here.
WITH names(name) AS (VALUES
    ('ascii'), ('bit_length'), ('btrim'), ('casefold'), ('char_length'),
    ('character_length'), ('convert_to'), ('decode'), ('initcap'), ('is_normalized'),
    ('left'), ('length'), ('lower'), ('lpad'), ('ltrim'), ('md5'), ('octet_length'),
    ('overlay'), ('parse_ident'), ('position'), ('quote_ident'), ('quote_literal'),
    ('quote_nullable'), ('regexp_count'), ('regexp_instr'), ('regexp_like'),
    ('regexp_match'), ('regexp_matches'), ('regexp_replace'), ('regexp_split_to_array'),
    ('regexp_split_to_table'), ('regexp_substr'), ('repeat'), ('replace'), ('reverse'),
    ('right'), ('rpad'), ('rtrim'), ('split_part'), ('starts_with'), ('string_to_array'),
    ('string_to_table'), ('strpos'), ('substr'), ('substring'), ('to_ascii'), ('to_date'),
    ('to_number'), ('to_timestamp'), ('to_tsvector'), ('translate'), ('ts_headline'),
    ('unicode_assigned'), ('unistr'), ('upper')),
subject AS (
    -- each pg_catalog function of those names whose first argument is text
    -- (after a regconfig, for text search), and the position of that text
    SELECT p.oid, CASE WHEN p.proargtypes[0] = 'regconfig'::regtype THEN 1 ELSE 0 END AS pos
    FROM pg_proc p JOIN names n ON n.name = p.proname
    WHERE p.pronamespace = 'pg_catalog'::regnamespace),
want AS (
    -- with that argument made gsst; for strpos and starts_with either or both
    SELECT p.oid, p.proname,
           (SELECT string_agg(CASE WHEN i = ANY (v.args) THEN 'gsst'::regtype::oid
                                   ELSE p.proargtypes[i] END::text, ' ' ORDER BY i)
            FROM generate_subscripts(p.proargtypes, 1) i) AS args
    FROM pg_proc p JOIN subject s ON s.oid = p.oid
    CROSS JOIN LATERAL (VALUES (ARRAY[s.pos], true),
                               (ARRAY[1], p.proname IN ('strpos', 'starts_with')),
                               (ARRAY[0, 1], p.proname IN ('strpos', 'starts_with'))) v(args, wanted)
    WHERE v.wanted AND p.proargtypes[s.pos] = 'text'::regtype),
ours AS (
    SELECT p.* FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
    WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst') AND d.deptype = 'e'
      AND p.pronamespace = (SELECT typnamespace FROM pg_type WHERE oid = 'gsst'::regtype))
SELECT w.oid::regprocedure AS text_function, w.args::oidvector::regtype[] AS wanted,
       o.oid IS NOT NULL AS exists, o.provolatile = c.provolatile AS volatile,
       o.proparallel = c.proparallel AS parallel,
       o.proisstrict = (c.proisstrict AND NOT c.proretset) AS strict,
       o.prorettype = c.prorettype AND o.proretset = c.proretset AS returns,
       o.pronargdefaults = c.pronargdefaults AS defaults
FROM want w JOIN pg_proc c ON c.oid = w.oid
LEFT JOIN ours o ON o.proname = w.proname AND o.proargtypes::text = w.args
WHERE o.oid IS NULL OR o.provolatile <> c.provolatile OR o.proparallel <> c.proparallel
   OR o.proisstrict <> (c.proisstrict AND NOT c.proretset)
   OR o.prorettype <> c.prorettype OR o.proretset <> c.proretset
   OR o.pronargdefaults <> c.pronargdefaults
ORDER BY 1::text, 2::text;
-- operators: for text's (text, text) ones, gsst on either side or both; for
-- (text, X), (gsst, X); and for comparisons (X, text), (X, gsst)
WITH names(name) AS (VALUES
    ('='), ('<>'), ('<'), ('<='), ('>'), ('>='), ('||'), ('~~'), ('!~~'), ('~~*'),
    ('!~~*'), ('~'), ('!~'), ('~*'), ('!~*'), ('^@'), ('@@')),
want AS (
    SELECT o.oprname, l, r, o.oprresult FROM pg_operator o JOIN names n ON n.name = o.oprname,
    LATERAL (VALUES ('gsst'::regtype::oid, 'gsst'::regtype::oid),
                    ('gsst'::regtype, 'text'::regtype), ('text'::regtype, 'gsst'::regtype)) s(l, r)
    WHERE o.oprnamespace = 'pg_catalog'::regnamespace
      AND o.oprleft = 'text'::regtype AND o.oprright = 'text'::regtype
    UNION ALL
    SELECT o.oprname, 'gsst'::regtype, o.oprright, o.oprresult FROM pg_operator o JOIN names n ON n.name = o.oprname
    JOIN pg_type rt ON rt.oid = o.oprright
    WHERE o.oprnamespace = 'pg_catalog'::regnamespace
      AND o.oprleft = 'text'::regtype AND o.oprright <> 'text'::regtype AND rt.typtype <> 'p'
    UNION ALL
    SELECT o.oprname, o.oprleft, 'gsst'::regtype, o.oprresult FROM pg_operator o JOIN names n ON n.name = o.oprname
    JOIN pg_type lt ON lt.oid = o.oprleft
    WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprname IN ('=', '<>', '<', '<=', '>', '>=')
      AND o.oprright = 'text'::regtype AND o.oprleft <> 'text'::regtype AND lt.typtype <> 'p')
SELECT w.oprname, format_type(w.l, NULL) AS left, format_type(w.r, NULL) AS right
FROM want w
WHERE NOT EXISTS (
    SELECT FROM pg_operator o
    JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
    WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst')
      AND o.oprnamespace = (SELECT typnamespace FROM pg_type WHERE oid = 'gsst'::regtype)
      AND o.oprname = w.oprname AND o.oprleft = w.l AND o.oprright = w.r
      AND o.oprresult = w.oprresult)
ORDER BY 1, 2, 3;
-- and no SQL body names an object without its schema: the planner parses
-- it under the caller's search_path
SELECT p.oid::regprocedure AS unqualified_body, p.prosrc
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst')
  AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql')
  AND regexp_replace(p.prosrc,
        format('OPERATOR\((pg_catalog|%1$s)\.[^)]+\)|(pg_catalog|%1$s)\.("?)[a-z_]+\3|\$[0-9]+|[0-9]+|::|[(),\s]',
               (SELECT n.nspname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                WHERE t.oid = 'gsst'::regtype)),
        '', 'g') <> 'SELECT'
ORDER BY 1::text;

-- 5. Where the schema of gsst lets other roles create objects, CREATE
-- EXTENSION and the update warn; the update lists what is in the way.
CREATE DATABASE shadow_db;
\c shadow_db
\set SHOW_CONTEXT never
\set VERBOSITY default
CREATE SCHEMA shadow_open;
GRANT USAGE, CREATE ON SCHEMA shadow_open TO PUBLIC;
CREATE EXTENSION gsst SCHEMA shadow_open;
DROP EXTENSION gsst;
REVOKE CREATE ON SCHEMA shadow_open FROM PUBLIC;
GRANT CREATE ON SCHEMA shadow_open TO shadow_intruder;
CREATE EXTENSION gsst SCHEMA shadow_open VERSION '1.2';
SET ROLE shadow_intruder;
CREATE FUNCTION shadow_open.lower(shadow_open.gsst) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
CREATE FUNCTION shadow_open.to_json(shadow_open.gsst) RETURNS json LANGUAGE sql AS $$ SELECT '"stolen"'::json $$;
RESET ROLE;
ALTER EXTENSION gsst UPDATE TO '1.3';
DROP FUNCTION shadow_open.lower(shadow_open.gsst);
ALTER EXTENSION gsst UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'gsst';
DROP FUNCTION shadow_open.to_json(shadow_open.gsst);
DROP EXTENSION gsst;
-- in a schema that only its owner writes, no warning.  On the search path
-- it has to come before any schema others may create objects in: after
-- one, that schema's function of the same signature is found first.
CREATE SCHEMA shadow_closed;
GRANT USAGE ON SCHEMA shadow_closed TO PUBLIC;
CREATE EXTENSION gsst SCHEMA shadow_closed;
CREATE TABLE shadow_path (c shadow_closed.gsst);
INSERT INTO shadow_path VALUES ('Secret');
GRANT SELECT ON shadow_path TO shadow_victim;
SET ROLE shadow_intruder;
CREATE FUNCTION shadow_open.lower(shadow_closed.gsst) RETURNS text LANGUAGE sql AS $$ SELECT 'stolen' $$;
SET ROLE shadow_victim;
SET search_path = shadow_closed, shadow_open;
SELECT lower(c) AS gsst_first FROM public.shadow_path;
SET search_path = shadow_open, shadow_closed;
SELECT lower(c) AS writable_first FROM public.shadow_path;
RESET search_path;
RESET ROLE;
\c :regress_db
DROP DATABASE shadow_db;

DROP TABLE shadow_secret, shadow_indexed, shadow_collated, shadow_loot;
DROP FUNCTION shadow_steal(gsst), shadow_steal2(gsst, gsst), shadow_steal3(gsst, text),
    shadow_steal_cat(gsst, gsst), public.initcap(VARIADIC gsst[]),
    public.replace(gsst, varchar, varchar), public.replace(gsst, name, name),
    public.left(gsst, bigint), public.lpad(gsst, int, gsst);
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
DROP ROLE shadow_victim;
DROP ROLE shadow_intruder;
