# ALTER EXTENSION gsst UPDATE from 1.0 and from 1.1 gives what CREATE
# EXTENSION gsst installs, and keeps every stored value and dictionary.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $node = gsst_node('upgrade');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION gsst');

my $rows = gsst_rows(1, 6000);
$node->safe_psql('old', q{
	CREATE EXTENSION gsst VERSION '1.0';
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE INDEX t_c ON t (c);
	CREATE DOMAIN gsst_dom AS gsst;
	CREATE TABLE td (d gsst_dom);
});
$node->safe_psql('old', "COPY t FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
my $dicts = $node->safe_psql('old',
	"SELECT string_agg(id || ':' || family || ':' || md5(symbols), ',' ORDER BY id) FROM gsst.dictionaries");
cmp_ok($node->safe_psql('old', 'SELECT count(*) FROM t WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'>', 5000, 'version 1.0 stored compressed values');

# the library serves 1.0's SQL objects, but not the batch function 1.0
# to 1.2 had, which any role could call
my ($rc0, $out0, $err0) = $node->psql('old', q{SELECT * FROM gsst.load_rows(1) AS r(c text)});
like($err0, qr/gsst\.load_rows\(\) is no longer served/, 'gsst.load_rows of an older version is refused');
is($node->safe_psql('old', q{SELECT gsst.load('t', 'SELECT 6001, ''loaded before the update''')}),
	'1', 'gsst.load works on the older version');
$node->safe_psql('old', 'DELETE FROM t WHERE id = 6001');

$node->safe_psql('old', 'ALTER EXTENSION gsst UPDATE');
is($node->safe_psql('old', "SELECT extversion FROM pg_extension WHERE extname = 'gsst'"),
	'1.5', 'updated to 1.5');

# the objects of the extension, as both databases describe them
my $objects = q{
	SELECT string_agg(d, E'\n' ORDER BY d) FROM (
	  SELECT format('function %s (%s) %s %s public may execute: %s', p.oid::regprocedure,
	                pg_get_function_arguments(p.oid), p.provolatile, p.proparallel,
	                has_function_privilege('public', p.oid, 'EXECUTE')) AS d
	  FROM pg_proc p JOIN pg_depend e ON e.classid = 'pg_proc'::regclass AND e.objid = p.oid
	  WHERE e.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst') AND e.deptype = 'e'
	  UNION ALL
	  SELECT format('column %s %s %s %s', attname, format_type(atttypid, atttypmod), attnotnull,
	                pg_get_expr(ad.adbin, ad.adrelid))
	  FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
	  WHERE a.attrelid = 'gsst.dictionaries'::regclass AND a.attnum > 0 AND NOT a.attisdropped
	  UNION ALL
	  SELECT format('trigger %s %s', tgname, tgenabled) FROM pg_trigger
	  WHERE tgrelid = 'gsst.dictionaries'::regclass
	  UNION ALL
	  SELECT format('event trigger %s %s %s %s', evtname, evtevent, evtenabled, evttags)
	  FROM pg_event_trigger
	  UNION ALL
	  SELECT format('cast %s -> %s %s %s %s', c.castsource::regtype, c.casttarget::regtype,
	                c.castfunc::regprocedure, c.castcontext, c.castmethod)
	  FROM pg_cast c JOIN pg_depend e ON e.classid = 'pg_cast'::regclass AND e.objid = c.oid
	  WHERE e.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst') AND e.deptype = 'e'
	  UNION ALL
	  SELECT format('type %s storage %s public may use: %s', t.oid::regtype, t.typstorage,
	                has_type_privilege('public', t.oid, 'USAGE'))
	  FROM pg_type t JOIN pg_depend e ON e.classid = 'pg_type'::regclass AND e.objid = t.oid
	  WHERE e.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst') AND e.deptype = 'e'
	  UNION ALL
	  SELECT format('config %s', unnest(extconfig)::regclass) FROM pg_extension WHERE extname = 'gsst'
	  UNION ALL
	  SELECT format('operator %s merges %s hashes %s', o.oid::regoperator, o.oprcanmerge, o.oprcanhash)
	  FROM pg_operator o JOIN pg_depend e ON e.classid = 'pg_operator'::regclass AND e.objid = o.oid
	  WHERE e.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gsst') AND e.deptype = 'e'
	  UNION ALL
	  SELECT format('family %s %s: operator %s %s', f.opfname, am.amname, a.amopstrategy,
	                a.amopopr::regoperator)
	  FROM pg_amop a JOIN pg_opfamily f ON f.oid = a.amopfamily JOIN pg_am am ON am.oid = f.opfmethod
	  WHERE f.opfname = 'gsst_ops'
	  UNION ALL
	  SELECT format('family %s %s: function %s (%s, %s) %s', f.opfname, am.amname, p.amprocnum,
	                format_type(p.amproclefttype, NULL), format_type(p.amprocrighttype, NULL),
	                p.amproc::regprocedure)
	  FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod
	  WHERE f.opfname = 'gsst_ops'
	) s};
is($node->safe_psql('old', $objects), $node->safe_psql('fresh', $objects),
	'functions, operators, operator families, dictionaries table, triggers and event triggers match a fresh 1.5');

# a 1.1 install (made from 1.0 and 1.0--1.1: 1.1 has no script of its own)
# updates to the same objects
$node->safe_psql('postgres', 'CREATE DATABASE mid');
$node->safe_psql('mid', q{CREATE EXTENSION gsst VERSION '1.1'});
is($node->safe_psql('mid', "SELECT extversion FROM pg_extension WHERE extname = 'gsst'"),
	'1.1', 'version 1.1 is created through 1.0');
$node->safe_psql('mid', 'ALTER EXTENSION gsst UPDATE');
is($node->safe_psql('mid', $objects), $node->safe_psql('fresh', $objects),
	'1.1 updated to 1.5 matches a fresh 1.5');

is($node->safe_psql('old',
		"SELECT string_agg(id || ':' || family || ':' || md5(symbols), ',' ORDER BY id) FROM gsst.dictionaries"),
	$dicts, 'dictionaries kept');
is($node->safe_psql('old', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t"),
	md5_of_rows($rows), 'every value decodes after the update');

# the columns, index columns and domains of 1.2's STORAGE external follow
# the type to extended, and an indexed column takes long values that only
# compress with TOAST's method, as text does
is($node->safe_psql('old', q{
	SELECT string_agg(format('%s.%s %s', attrelid::regclass, attname, attstorage), ', '
	                  ORDER BY attrelid::regclass::text, attname)
	FROM pg_attribute WHERE atttypid IN ('gsst'::regtype, 'gsst_dom'::regtype)}),
	't.c x, t_c.c x, td.d x', 'gsst columns and index columns are stored extended');
is($node->safe_psql('old', q{SELECT typstorage FROM pg_type WHERE oid = 'gsst_dom'::regtype}),
	'x', 'and so is a domain over gsst');
$node->safe_psql('old', q{
	INSERT INTO t SELECT 100000 + i, repeat('GET /api/v1/orders/' || i || E' 200\n', 60 + i * 40)
	FROM generate_series(1, 10) i;
	INSERT INTO t VALUES (200000, repeat('a', 3000));
});
is($node->safe_psql('old', q{
	SELECT count(*) FILTER (WHERE pg_column_size(c) * 10 <= octet_length(c)) FROM t WHERE id >= 100000}),
	'11', 'long values are stored compressed');
is($node->safe_psql('old', q{
	SET enable_seqscan = off;
	SELECT id FROM t WHERE c = repeat('a', 3000)}),
	'200000', 'and found through the index');
$node->safe_psql('old', q{DELETE FROM t WHERE id >= 100000});

# and 1.5 works on the updated database: length on codes, equality on
# codes, training counts for the owner, the guards hold
is($node->safe_psql('old', q{SELECT sum(length(c)) = sum(length(c::text)) AND sum(octet_length(c)) = sum(octet_length(c::text)) FROM t}),
	't', 'length and octet_length on codes agree with text');
is($node->safe_psql('old', q{SELECT count(*) FROM t a WHERE c = (SELECT c::text FROM t b WHERE b.id = a.id)}),
	'6000', 'every value equals its own text');
$node->safe_psql('old', q{SELECT gsst.train('t', 'c')});
is($node->safe_psql('old', q{SELECT owner = (SELECT relowner FROM pg_class WHERE oid = 't'::regclass) FROM gsst.dictionaries ORDER BY id DESC LIMIT 1}),
	't', 'a new dictionary records its owner');
my ($rc, $out, $err) = $node->psql('old', q{SET session_replication_role = replica; DELETE FROM gsst.dictionaries});
like($err, qr/cannot be updated, deleted or truncated/, 'the guard fires under replica');

# a library refuses SQL objects of a version it was not written for
$node->safe_psql('old', "UPDATE pg_extension SET extversion = '9.9' WHERE extname = 'gsst'");
($rc, $out, $err) = $node->psql('old', q{SELECT gsst.compress('text', 1)});
like($err, qr/the gsst library 1\.5 does not serve version 9\.9 of the extension's SQL objects/,
	'a version the library does not serve is refused with a clear error');
$node->safe_psql('old', "UPDATE pg_extension SET extversion = '1.5' WHERE extname = 'gsst'");
is($node->safe_psql('old', q{SELECT count(*) FROM t WHERE c IS NOT NULL}), '6000',
	'and served again once it matches');

done_testing();
