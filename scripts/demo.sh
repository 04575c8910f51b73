#!/bin/bash
# make demo: a throwaway cluster with gsst preloaded, in ./tmp/demo (or
# /tmp/gsst-demo where the unprivileged user cannot reach the clone, as
# under /root); loads generated e-mail addresses, URLs, comments and names
# (deterministic: the same rows on every run, nothing read from outside the
# repository) as plain text, text with lz4, and gsst; prints the size
# comparison and a few queries with their text; stops the cluster and
# deletes it (DEMO_KEEP=1 keeps it).  DEMO_ROWS (default 50000) rows per
# data set.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER_DIR=${DEMO_DIR:-$ROOT/tmp/demo}
CLUSTER_PORT=${DEMO_PORT:-5488}
DEMO_ROWS=${DEMO_ROWS:-50000}
. "$ROOT/scripts/pgcluster.sh"

SETS="email url comment name"

echo "== starting a throwaway cluster in $CLUSTER_DIR (shared_preload_libraries = gsst)"
cluster_start
psql_do -q -c 'CREATE EXTENSION gsst'

# The generator: demo_rand(i, k) is a fixed hash of the row number i and a
# stream number k (integer arithmetic only, the same on every platform and
# PostgreSQL version); demo_pick draws from a word list with it, demo_skew
# favours the list's first words, as real columns favour some values.
psql_do -q -v rows="$DEMO_ROWS" <<'SQL'
CREATE FUNCTION demo_rand(i bigint, k int) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT h # (h >> 15) FROM (
    SELECT ((g # (g >> 13)) * 16807) % 2147483647 AS h FROM (
      SELECT ((i * 1000003 + k * 7919 + 12345) % 2147483647) * 48271 % 2147483647 AS g) a) b
$$;
CREATE FUNCTION demo_pick(words text[], i bigint, k int) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT words[1 + demo_rand(i, k) % cardinality(words)]
$$;
CREATE FUNCTION demo_skew(words text[], i bigint, k int) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT words[1 + least(demo_rand(i, k) % cardinality(words), demo_rand(i, k + 1000) % cardinality(words))]
$$;
CREATE TABLE demo_words (first text[], last text[], domain text[], host text[], path text[],
                         noun text[], verb text[], adj text[], adverb text[], prep text[]);
INSERT INTO demo_words VALUES (
  '{James,Mary,John,Anna,Robert,Linda,Michael,Maria,David,Sarah,William,Laura,Richard,Emma,Thomas,Julia,Daniel,Sophie,Peter,Olivia,Paul,Lisa,Mark,Nina,Steven,Eva,Andrew,Clara,Kevin,Alice,Brian,Carol,George,Diana,Frank,Helen,Henry,Irene,Jack,Karen,Lucas,Monica,Oscar,Paula,Victor,Rita,Walter,Sandra,Hans,Greta,Pierre,Claire,Marco,Giulia,Jan,Lars,Ingrid,Pedro,Lucia,Ahmed,Fatima,Ivan,Olga,Wei,Mei,Hiroshi,Yuki,Raj,Priya,Mateo,Noah,Chloe,Liam,Mia,Zoe}',
  '{Smith,Johnson,Williams,Brown,Jones,Miller,Davis,Wilson,Anderson,Taylor,Thomas,Moore,Martin,Jackson,Thompson,White,Harris,Clark,Lewis,Robinson,Walker,Young,Allen,King,Wright,Scott,Green,Baker,Adams,Nelson,Hill,Campbell,Mitchell,Roberts,Carter,Phillips,Evans,Turner,Parker,Collins,Edwards,Stewart,Morris,Murphy,Cook,Rogers,Schmidt,Schneider,Fischer,Weber,Meyer,Wagner,Becker,Dubois,Moreau,Laurent,Rossi,Russo,Ferrari,Kowalski,Nowak,Jansen,Andersen,Nielsen,Hansen,Novak,Ivanov,Petrov,Kim,Lee,Park,Chen,Wang,Zhang,Tanaka,Suzuki,Patel,Singh,Silva,Santos,Costa,Gonzalez,Lopez,Martinez}',
  '{gmail.com,yahoo.com,hotmail.com,outlook.com,gmx.de,web.de,aol.com,icloud.com,mail.ru,yahoo.co.jp,company.co.uk,example.org,orange.fr,libero.it,qq.com,protonmail.com,university.edu,t-online.de}',
  '{www.example.com,www.postgresql.org,en.wikipedia.org,github.com,www.amazon.com,docs.python.org,www.youtube.com,api.example.net,blog.example.io,shop.example.de,www.bbc.co.uk,stackoverflow.com,www.reddit.com,images.example.com}',
  '{docs,current,index,search,products,category,blog,news,article,user,users,profile,static,css,js,images,api,v1,v2,download,release,wiki,questions,tag,item,cart,help,about,2022,2023,2024,sql-select,main,watch,comments,archive,en,de}',
  '{foxes,ideas,theodolites,"pinto beans",instructions,dependencies,excuses,platelets,asymptotes,courts,dolphins,multipliers,sauternes,warthogs,frets,dinos,attainments,somas,patterns,forges,braids,"hockey players",frays,warhorses,dugouts,epitaphs,pearls,tithes,waters,orbits,gifts,sheaves,depths,sentiments,decoys,realms,pains,packages,requests,accounts,deposits}',
  '{sleep,wake,are,cajole,haggle,nag,use,boost,affix,detect,integrate,maintain,nod,was,lose,sublate,solve,thrash,promise,engage,hinder,print,x-ray,breach,eat,grow,impress,mold,poach,serve,run,dazzle,snooze,doze,unwind,kindle,play,hang,believe,doubt}',
  '{furious,sly,careful,blithe,quick,fluffy,slow,quiet,ruthless,thin,close,dogged,daring,brave,stealthy,permanent,enticing,idle,busy,regular,final,ironic,even,bold,silent,express,special,pending,unusual}',
  '{sometimes,always,never,furiously,slyly,carefully,blithely,quickly,fluffily,slowly,quietly,ruthlessly,thinly,closely,doggedly,daringly,bravely,stealthily,permanently,enticingly,idly,busily,regularly,finally,ironically,evenly,boldly,silently}',
  '{about,above,"according to",across,after,against,along,among,around,at,atop,before,behind,beneath,beside,between,beyond,by,despite,during,except,for,from,"in place of",inside,"instead of",into,near,of,on,outside,over,past,since,through,to,toward,under,until,upon,without,with,within}'
);

-- e-mail addresses: first.last, first_last, flast, ... with a number or not
CREATE TABLE demo_email AS
SELECT i,
       CASE demo_rand(i, 3) % 6
         WHEN 0 THEN lower(f) || '.' || lower(l)  WHEN 1 THEN lower(f) || '_' || lower(l)
         WHEN 2 THEN lower(left(f, 1) || l)       WHEN 3 THEN lower(f || l)
         WHEN 4 THEN lower(l) || '.' || lower(f)  ELSE lower(f) END
       || CASE WHEN demo_rand(i, 4) % 5 < 3 THEN
            (CASE WHEN demo_rand(i, 5) % 2 = 0 THEN 1 + demo_rand(i, 6) % 99 ELSE 1950 + demo_rand(i, 6) % 63 END)::text
          ELSE '' END
       || '@' || demo_skew(domain, i, 7) AS c
FROM demo_words, generate_series(1, :rows) i,
     LATERAL (SELECT demo_skew(first, i, 1) AS f, demo_skew(last, i, 2) AS l) n;

-- URLs: scheme, host, 0-4 path words or numbers, an extension, some
-- parameters (md5 gives the session tokens: deterministic too)
CREATE TABLE demo_url AS
SELECT i,
       CASE WHEN demo_rand(i, 1) % 3 < 2 THEN 'https://' ELSE 'http://' END || demo_skew(host, i, 2)
       || coalesce((SELECT string_agg('/' || CASE WHEN demo_rand(i, 10 + d) % 6 = 0
                                                  THEN (demo_rand(i, 20 + d) % 100000)::text
                                                  ELSE demo_pick(path, i, 30 + d) END, '' ORDER BY d)
                    FROM generate_series(1, (demo_rand(i, 3) % 5)::int) d)
                   || (ARRAY['.html', '', '', '.php', '/', '.png', '.json'])[1 + demo_rand(i, 4) % 7], '/')
       || CASE demo_rand(i, 5) % 6
            WHEN 0 THEN '?id=' || demo_rand(i, 6) % 1000000
            WHEN 1 THEN '?q=' || demo_pick(path, i, 7) || '&lang=' || (ARRAY['en', 'de', 'fr', 'ja'])[1 + demo_rand(i, 8) % 4]
            WHEN 2 THEN '?session=' || left(md5('url' || i), 16)
            ELSE '' END AS c
FROM demo_words, generate_series(1, :rows) i;

-- comments in the manner of TPC-H's: a piece of 10 to 80 characters cut
-- out of random sentences of its grammar's words
CREATE TABLE demo_comment AS
SELECT i, btrim(substr(s, 1 + (demo_rand(i, 90) % 30)::int, 10 + (demo_rand(i, 91) % 71)::int)) AS c
FROM (SELECT i, string_agg(
               demo_pick(adj, i, 10 * k + 1) || ' ' || demo_pick(noun, i, 10 * k + 2) || ' '
               || demo_pick(verb, i, 10 * k + 3) || ' ' || demo_pick(adverb, i, 10 * k + 4) || ' '
               || demo_pick(prep, i, 10 * k + 5) || ' the ' || demo_pick(noun, i, 10 * k + 6)
               || (ARRAY['. ', '. ', '; ', '! ', '-- '])[1 + demo_rand(i, 10 * k + 7) % 5], '' ORDER BY k) AS s
      FROM demo_words, generate_series(1, :rows) i, generate_series(1, 3) k
      GROUP BY i) t;

-- person names, a few with a middle initial or a double last name
CREATE TABLE demo_name AS
SELECT i, demo_skew(first, i, 1)
          || CASE WHEN demo_rand(i, 2) % 8 = 0 THEN ' ' || chr(65 + (demo_rand(i, 3) % 26)::int) || '.' ELSE '' END
          || ' ' || demo_skew(last, i, 4)
          || CASE WHEN demo_rand(i, 5) % 20 = 0 THEN '-' || demo_pick(last, i, 6) ELSE '' END AS c
FROM demo_words, generate_series(1, :rows) i;
SQL

for f in $SETS; do
	echo "== loading $f: $DEMO_ROWS generated values, as text, text COMPRESSION lz4 and text COMPRESSION gsst"
	psql_do -q <<SQL
CREATE TABLE ${f}_text (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text);
CREATE TABLE ${f}_lz4  (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text COMPRESSION lz4);
CREATE TABLE ${f}_gsst (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c text COMPRESSION gsst);
INSERT INTO ${f}_text (c) SELECT c FROM demo_${f} ORDER BY i;
INSERT INTO ${f}_lz4 (c) SELECT c FROM demo_${f} ORDER BY i;
INSERT INTO ${f}_gsst (c) SELECT c FROM demo_${f} ORDER BY i;
CREATE INDEX ON ${f}_gsst (c);
VACUUM ANALYZE ${f}_text, ${f}_lz4, ${f}_gsst;
SQL
done
psql_do -q -c 'DROP TABLE demo_email, demo_url, demo_comment, demo_name, demo_words'

echo
echo "== column sizes: sum(pg_column_size(c)); the gsst column learned its dictionary from its first 16 KB"
psql_do -q <<SQL
SELECT f AS data_set, n AS "values",
       pg_size_pretty(t) AS text, pg_size_pretty(l) AS lz4, pg_size_pretty(g) AS gsst,
       round(g::numeric / t, 3) AS gsst_vs_text, round(l::numeric / t, 3) AS lz4_vs_text
FROM (VALUES
  ('email',   (SELECT count(*) FROM email_text),   (SELECT sum(pg_column_size(c)) FROM email_text),   (SELECT sum(pg_column_size(c)) FROM email_lz4),   (SELECT sum(pg_column_size(c)) FROM email_gsst)),
  ('url',     (SELECT count(*) FROM url_text),     (SELECT sum(pg_column_size(c)) FROM url_text),     (SELECT sum(pg_column_size(c)) FROM url_lz4),     (SELECT sum(pg_column_size(c)) FROM url_gsst)),
  ('comment', (SELECT count(*) FROM comment_text), (SELECT sum(pg_column_size(c)) FROM comment_text), (SELECT sum(pg_column_size(c)) FROM comment_lz4), (SELECT sum(pg_column_size(c)) FROM comment_gsst)),
  ('name',    (SELECT count(*) FROM name_text),    (SELECT sum(pg_column_size(c)) FROM name_text),    (SELECT sum(pg_column_size(c)) FROM name_lz4),    (SELECT sum(pg_column_size(c)) FROM name_gsst))
) v(f, n, t, l, g);
SQL

echo "== table sizes (the gsst tables also carry an index on c)"
psql_do -q -c "SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS heap,
                      pg_size_pretty(pg_table_size(oid) - pg_relation_size(oid)) AS toast_fsm_vm,
                      pg_size_pretty(pg_indexes_size(oid)) AS indexes
               FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname"

echo "== the column's type is gsst(N), its family; every text operator, function and cast works on it"
psql_do --echo-all --quiet <<'SQL'
\d+ email_gsst
-- point lookup through the index on the gsst column, with a text parameter
PREPARE lookup(text) AS SELECT id, c FROM email_gsst WHERE c = $1;
EXPLAIN (COSTS OFF) EXECUTE lookup('x');
SELECT c AS wanted FROM email_text WHERE id = 4242 \gset
EXECUTE lookup(:'wanted');
-- LIKE and regular expressions
SELECT count(*) AS gmail FROM email_gsst WHERE c LIKE '%@gmail.com';
SELECT count(*) AS https FROM url_gsst WHERE c ~ '^https://';
-- ORDER BY ... LIMIT, GROUP BY
SELECT c FROM name_gsst ORDER BY c DESC LIMIT 3;
SELECT split_part(c, '@', 2) AS domain, count(*) FROM email_gsst GROUP BY 1 ORDER BY 2 DESC LIMIT 5;
-- what compression achieved, per column
SELECT column_name, "values", encoded_values, raw_bytes, stored_bytes, round(ratio::numeric, 2) AS ratio, dictionaries
FROM gsst.column_stats('comment_gsst');
-- what the dictionary of the comments learned: its longest symbols
SELECT code, length, symbol FROM gsst.dictionary((SELECT dictionaries[1] FROM gsst.column_stats('comment_gsst')))
ORDER BY length DESC, code LIMIT 12;
SQL

echo "== SET COMPRESSION gsst on an existing text column: metadata only, no rewrite"
psql_do --echo-all --quiet <<'SQL'
SELECT pg_relation_filenode('url_text') AS filenode_before \gset
ALTER TABLE url_text ALTER COLUMN c SET COMPRESSION gsst;
SELECT pg_relation_filenode('url_text') = :filenode_before AS same_file;
UPDATE url_text SET c = c::text WHERE id <= 10000;
SELECT column_name, "values", encoded_values, round(ratio::numeric, 2) AS ratio FROM gsst.column_stats('url_text');
SQL

if [ -n "${DEMO_KEEP:-}" ]; then
	echo "== stopping the cluster; it stays in $CLUSTER_DIR (DEMO_KEEP)"
	cluster_stop
else
	echo "== stopping the cluster and deleting $CLUSTER_DIR (DEMO_KEEP=1 keeps it)"
	cluster_remove
fi
trap - EXIT
echo "demo done"
