# Logical replication of a gsst table into a plain text column on a
# subscriber that does not have gsst at all.  The walsender decodes values
# with dictionaries learned inside the very transactions it decodes, which
# needs gsst.dictionaries to be a user_catalog_table.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $pub = gsst_node('publisher', allows_streaming => 'logical');
$pub->start;
my $sub = gsst_node('subscriber', preload => 0);
$sub->start;
# a second subscriber takes the changes in binary: gsst sends text's format
my $sub_bin = gsst_node('subscriber_binary', preload => 0);
$sub_bin->start;

$pub->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE TABLE b (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE PUBLICATION pub FOR TABLE t, b;
});
# rows present before the subscription: copied by the initial sync
my $initial = gsst_rows(1, 1500);
$pub->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text($initial) . "\\.\n");

my $connstr = $pub->connstr . ' dbname=postgres';
for my $node ($sub, $sub_bin)
{
	$node->safe_psql('postgres', q{
		CREATE TABLE t (id int PRIMARY KEY, c text);
		CREATE TABLE b (id int PRIMARY KEY, c text);
	});
}
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION sub CONNECTION '$connstr' PUBLICATION pub");
$sub_bin->safe_psql('postgres',
	"CREATE SUBSCRIPTION sub_bin CONNECTION '$connstr' PUBLICATION pub WITH (binary = true)");
$sub->wait_for_subscription_sync($pub, 'sub');
$sub_bin->wait_for_subscription_sync($pub, 'sub_bin');

is($sub->safe_psql('postgres', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t"),
	md5_of_rows($initial), 'initial sync delivered decoded text');

# streamed changes: table b learns its first dictionary inside the same
# transaction that the walsender decodes; then retraining, updates, deletes
my $more = gsst_rows(1501, 1500);
$pub->safe_psql('postgres',
	"BEGIN; SET LOCAL gsst.learn_sample_bytes = 8192; COPY b FROM STDIN;\n"
	  . gsst_copy_text($more) . "\\.\nCOMMIT;");
$pub->safe_psql('postgres', q{
	SELECT gsst.train('t', 'c');
	UPDATE t SET c = c::text || ' (updated)' WHERE id % 100 = 0;
	DELETE FROM t WHERE id % 250 = 1;
	INSERT INTO t SELECT 100000 + i, 'inserted after retraining ' || i FROM generate_series(1, 500) i;
});
$pub->wait_for_catchup('sub');
$pub->wait_for_catchup('sub_bin');

cmp_ok($pub->safe_psql('postgres', 'SELECT count(*) FROM b WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'>', 1000, 'publisher stored b compressed');
my $md5 = "SELECT md5(string_agg(id || ':' || c, E'\\n' ORDER BY id)) FROM %s";
is($sub->safe_psql('postgres', sprintf($md5, 'b')), $pub->safe_psql('postgres', sprintf($md5, 'b')),
	'rows of a table that learned in the decoded transaction arrive decoded');
is($sub->safe_psql('postgres', sprintf($md5, 't')), $pub->safe_psql('postgres', sprintf($md5, 't')),
	'inserts, updates and deletes after retraining arrive decoded');
is($sub->safe_psql('postgres', "SELECT count(*) FROM t WHERE c LIKE '% (updated)'"), '15',
	'updated rows');
is($sub_bin->safe_psql('postgres', sprintf($md5, 't')) . $sub_bin->safe_psql('postgres', sprintf($md5, 'b')),
	$pub->safe_psql('postgres', sprintf($md5, 't')) . $pub->safe_psql('postgres', sprintf($md5, 'b')),
	'binary subscription receives the same text');
is($sub->safe_psql('postgres',
		q{SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 't'::regclass AND attname = 'c'}),
	'text', 'subscriber column is plain text');

done_testing();
