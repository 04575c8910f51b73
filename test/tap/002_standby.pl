# A physical standby reads gsst columns, including dictionaries learned and
# retrained on the primary while it follows.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $primary = gsst_node('primary', allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
});
my $first = gsst_rows(1, 2000);
$primary->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text($first) . "\\.\n");

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

# while the standby follows: more rows, a retrained table, a new column
my $second = gsst_rows(2001, 2000);
$primary->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text($second) . "\\.\n");
$primary->safe_psql('postgres', q{
	SELECT gsst.train('t', 'c');
	CREATE TABLE u (c text COMPRESSION gsst);
	INSERT INTO u SELECT 'standby sees the dictionary learned here ' || i FROM generate_series(1, 3000) i;
	CREATE INDEX ON t (c);
});
$primary->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text(gsst_rows(4001, 500)) . "\\.\n");
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

my $all = [ @$first, @$second, @{ gsst_rows(4001, 500) } ];
my $sql_md5 = "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t";
is($standby->safe_psql('postgres', $sql_md5), md5_of_rows($all), 'standby decodes every row');
is($standby->safe_psql('postgres', $sql_md5), $primary->safe_psql('postgres', $sql_md5),
	'standby and primary agree');
cmp_ok($standby->safe_psql('postgres', 'SELECT count(DISTINCT gsst.value_dictionary(c)) FROM t'),
	'>=', 2, 'standby reads values of two dictionaries');
is($standby->safe_psql('postgres',
		"SELECT count(*) FROM u WHERE c LIKE 'standby sees the dictionary learned here %'"),
	'3000', 'standby reads a column that learned while it followed');
my $row4 = gsst_rows(4, 1)->[0][1];
is($standby->safe_psql('postgres', "SET enable_seqscan = off; SELECT id FROM t WHERE c = '$row4'::text"),
	'4', 'index lookup with a text value on the standby');
is($standby->safe_psql('postgres', q{SELECT "values" FROM gsst.column_stats('t')}),
	'4500', 'column_stats on the standby');
# values cast on the standby stay raw: nothing is learned or written there
is($standby->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT ('standby literal ' || i)::gsst(777) AS v FROM generate_series(1, 2000) i) s
	WHERE gsst.value_dictionary(v) IS NULL}),
	'2000', 'no learning on the standby');
my ($ret, $out, $err) = $standby->psql('postgres', "INSERT INTO t VALUES (99999, 'x')");
like($err, qr/read-only transaction/, 'standby refuses writes');

done_testing();
