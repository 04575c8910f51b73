# pg_dump / pg_restore of gsst columns and dictionaries into a fresh database.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $node = gsst_node('dump');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', 'CREATE EXTENSION gsst');

my $rows = gsst_rows(1, 3000);
my $copy = gsst_copy_text($rows);
# "aaa" sorts before schema gsst: its data is restored before the
# dictionaries and makes its column learn a table during the restore
$node->safe_psql('src', q{
	CREATE SCHEMA aaa;
	CREATE TABLE aaa.early (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE TABLE public.t (id int PRIMARY KEY, c text COMPRESSION gsst, n int);
	CREATE TABLE public.conv (id int PRIMARY KEY, c text);
});
$node->safe_psql('src', "COPY aaa.early (id, c) FROM STDIN;\n$copy\\.\n");
$node->safe_psql('src', "COPY public.t (id, c) FROM STDIN;\n$copy\\.\n");
$node->safe_psql('src', "COPY public.conv (id, c) FROM STDIN;\n$copy\\.\n");
$node->safe_psql('src', q{
	ALTER TABLE public.conv ALTER COLUMN c SET COMPRESSION gsst;
	SELECT gsst.train('public.t', 'c');
	CREATE INDEX ON public.t (c);
});
$node->safe_psql('src', "INSERT INTO public.t (id, c) VALUES (5000, 'after retraining')");

my $expect = md5_of_rows($rows);
for my $tbl (qw(aaa.early public.conv))
{
	is($node->safe_psql('src', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM $tbl"),
		$expect, "$tbl holds the data before the dump");
}
my $dicts = $node->safe_psql('src', 'SELECT count(*) FROM gsst.dictionaries');
cmp_ok($dicts, '>=', 4, "source has $dicts dictionaries");

my $types_sql = q{SELECT string_agg(attrelid::regclass || '.' || attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attrelid::regclass::text)
	FROM pg_attribute WHERE attrelid IN ('aaa.early'::regclass, 'public.t'::regclass, 'public.conv'::regclass)
	AND attname = 'c'};
my $types = $node->safe_psql('src', $types_sql);

my $dump = $PostgreSQL::Test::Utils::tmp_check . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('src') ], 'pg_dump');

for my $mode ('custom', 'plain')
{
	my $db = "dst_$mode";
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	if ($mode eq 'custom')
	{
		$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr($db), $dump ],
			'pg_restore of the custom dump');
	}
	else
	{
		my $sql = $PostgreSQL::Test::Utils::tmp_check . '/src.sql';
		$node->command_ok([ 'pg_dump', '-f', $sql, '-d', $node->connstr('src') ], 'plain pg_dump');
		$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $sql, '-d', $node->connstr($db) ],
			'plain dump restored with psql');
	}

	for my $tbl (qw(aaa.early public.conv))
	{
		is($node->safe_psql($db, "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM $tbl"),
			$expect, "$mode: $tbl restored intact");
	}
	is($node->safe_psql($db, "SELECT c FROM public.t WHERE id = 5000"), 'after retraining',
		"$mode: row written after retraining restored");
	is($node->safe_psql($db, $types_sql), $types, "$mode: column types and families restored");

	# every restored value decodes, and encoded ones use dictionaries that exist
	is($node->safe_psql($db, q{
		SELECT count(*) FROM (SELECT c FROM aaa.early UNION ALL SELECT c FROM public.t
		                      UNION ALL SELECT c FROM public.conv) v
		WHERE gsst.value_dictionary(c) IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM gsst.dictionaries d WHERE d.id = gsst.value_dictionary(v.c))}),
		'0', "$mode: no value refers to a missing dictionary");
	cmp_ok($node->safe_psql($db, 'SELECT count(*) FROM public.t WHERE gsst.value_dictionary(c) IS NOT NULL'),
		'>', 2000, "$mode: restored values are compressed again");
	# the dictionaries themselves came along (and any learned during the restore)
	cmp_ok($node->safe_psql($db, 'SELECT count(*) FROM gsst.dictionaries'), '>=', $dicts,
		"$mode: dictionaries restored");
	# loading every dictionary validates it
	is($node->safe_psql($db, q{
		SELECT count(DISTINCT d.id) = (SELECT count(*) FROM gsst.dictionaries)
		FROM gsst.dictionaries d, LATERAL gsst.dictionary(d.id) s}),
		't', "$mode: every dictionary loads");
	# new writes keep working: ids from the restored sequence do not collide
	$node->safe_psql($db, q{
		SELECT gsst.train('public.t', 'c');
		INSERT INTO public.t (id, c) VALUES (6000, 'written after the restore');
	});
	is($node->safe_psql($db, "SELECT c FROM public.t WHERE id = 6000"), 'written after the restore',
		"$mode: writes after the restore");
	is($node->safe_psql($db, "SELECT count(*) FROM public.t WHERE c = 'after retraining'::text"),
		'1', "$mode: index on the gsst column works");
}

done_testing();
