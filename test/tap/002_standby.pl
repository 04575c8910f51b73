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

# Literals of gsst(N) on the standby, read-only: a family with dictionaries
# on the primary (encoded with its current one), a family without a
# dictionary yet (stays raw, learns nothing) and a family nobody uses.
# None of it may fail or write.
$primary->safe_psql('postgres', 'CREATE TABLE w (c text COMPRESSION gsst)');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
my $family_sql = q{SELECT atttypmod FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'c'};
my $fam_t = $standby->safe_psql('postgres', sprintf($family_sql, 't'));
my $fam_w = $standby->safe_psql('postgres', sprintf($family_sql, 'w'));
my $fam_none = $standby->safe_psql('postgres', q{
	SELECT coalesce(max(atttypmod), 0) + 1000 FROM pg_attribute WHERE atttypid = 'gsst'::regtype});
cmp_ok($standby->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family = $fam_t"),
	'>=', 2, 'family of t has dictionaries');
is($standby->safe_psql('postgres',
		"SELECT count(*) FROM gsst.dictionaries WHERE family IN ($fam_w, $fam_none)"),
	'0', 'families of w and of nobody have no dictionary');
my $dict_count_sql = 'SELECT count(*) || \' \' || coalesce(max(id), 0) FROM gsst.dictionaries';
my $primary_dicts = $primary->safe_psql('postgres', $dict_count_sql);
my $standby_log_offset = -s $standby->logfile;

my $current_t = $standby->safe_psql('postgres',
	"SELECT max(id) FROM gsst.dictionaries WHERE family = $fam_t");
# a short value is stored raw when its codes would not be shorter
my ($ret, $out, $err) = $standby->psql('postgres', qq{
	SELECT v::text, coalesce(gsst.value_dictionary(v), $current_t),
		CASE WHEN gsst.value_dictionary(v) IS NULL THEN gsst.datum(v) = convert_to('some text', 'UTF8')
			ELSE get_byte(gsst.datum(v), 0) = 0 END
	FROM (SELECT 'some text'::gsst($fam_t) AS v) s});
is($ret, 0, "'some text'::gsst(family of t) on the standby") or diag($err);
is($out, "some text|$current_t|t", 'raw or encoded with the family\'s current dictionary, decodes back');
($ret, $out, $err) = $standby->psql('postgres', qq{
	SELECT v::text = '$row4', gsst.value_dictionary(v), get_byte(gsst.datum(v), 0)
	FROM (SELECT '$row4'::gsst($fam_t) AS v) s});
is($ret, 0, "a value like t's rows cast to gsst(family of t) on the standby") or diag($err);
is($out, "t|$current_t|0", 'encoded with the family\'s current dictionary, decodes back');
for my $case ([ $fam_w, 'a family without a dictionary yet' ], [ $fam_none, 'a family nobody uses' ])
{
	my ($fam, $what) = @$case;
	($ret, $out, $err) = $standby->psql('postgres', qq{
		SELECT v::text, gsst.value_dictionary(v) IS NULL, convert_from(gsst.datum(v), 'UTF8')
		FROM (SELECT 'some text'::gsst($fam) AS v) s});
	is($ret, 0, "'some text'::gsst(N) on the standby: $what") or diag($err);
	is($out, 'some text|t|some text', "$what: stored raw, decodes back");
	# more than gsst.learn_sample_bytes of values: learning would start here
	($ret, $out, $err) = $standby->psql('postgres', qq{
		SELECT count(*), count(*) FILTER (WHERE gsst.value_dictionary(v) IS NULL),
			count(*) FILTER (WHERE v::text = 'standby literal number ' || i || ' for family $fam')
		FROM (SELECT i, ('standby literal number ' || i || ' for family $fam')::gsst($fam) AS v
			FROM generate_series(1, 3000) i) s});
	is($ret, 0, "3000 literals of gsst(N) on the standby: $what") or diag($err);
	is($out, '3000|3000|3000', "$what: all raw, all decode back");
}
is($standby->safe_psql('postgres',
		"SELECT count(*) FROM gsst.dictionaries WHERE family IN ($fam_w, $fam_none)"),
	'0', 'the standby learned nothing');
$primary->safe_psql('postgres', 'SELECT 1');
is($primary->safe_psql('postgres', $dict_count_sql), $primary_dicts,
	'the primary\'s gsst.dictionaries did not change');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres', $dict_count_sql), $primary_dicts,
	'nor the standby\'s');
my $standby_log = slurp_file($standby->logfile, $standby_log_offset);
unlike($standby_log, qr/ERROR|WARNING/, 'no error or warning in the standby log')
  or diag($standby_log);

($ret, $out, $err) = $standby->psql('postgres', "INSERT INTO t VALUES (99999, 'x')");
like($err, qr/read-only transaction/, 'standby refuses writes');

done_testing();
