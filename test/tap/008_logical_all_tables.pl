# Logical replication FOR ALL TABLES between two databases that both have
# gsst.  The publication carries gsst.dictionaries too, but the subscriber
# keeps its own dictionaries: the rows that arrive for it (in the initial
# table sync and in the stream) are skipped by the dictionaries' trigger,
# which fires ALWAYS and recognises the apply and table sync workers by
# session_replication_role = replica.  Values travel as text and the
# subscriber encodes them with dictionaries of its own columns.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $pub = gsst_node('publisher', allows_streaming => 'logical');
$pub->start;
my $sub = gsst_node('subscriber');
$sub->start;

# The publisher's families must differ from the subscriber's, so that a
# dictionary row that arrived would be told from one the subscriber learned:
# a table with a few gsst columns takes families 1..5 and is dropped again
# (a FOR ALL TABLES publication needs every table on the subscriber too).
$pub->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE pad (a text COMPRESSION gsst, b text COMPRESSION gsst,
		c text COMPRESSION gsst, d text COMPRESSION gsst, e text COMPRESSION gsst);
	DROP TABLE pad;
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE TABLE u (id int PRIMARY KEY, c text COMPRESSION gsst);
});
# dictionaries learned before the subscription: the initial table sync
# copies gsst.dictionaries as well as t
my $initial = gsst_rows(1, 3000);
$pub->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text($initial) . "\\.\n");
$pub->safe_psql('postgres', 'CREATE PUBLICATION pub FOR ALL TABLES');

my $family_sql = q{SELECT atttypmod FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'c'};
my %pub_family = map { $_ => $pub->safe_psql('postgres', sprintf($family_sql, $_)) } qw(t u);
isnt($pub_family{t}, $pub_family{u}, 'publisher: t and u have families of their own');
cmp_ok($pub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family = $pub_family{t}"),
	'>=', 1, 'publisher: t learned a dictionary before the subscription');
is($pub->safe_psql('postgres',
		q{SELECT count(*) FROM pg_publication_tables WHERE pubname = 'pub' AND schemaname = 'gsst' AND tablename = 'dictionaries'}),
	'1', 'the publication carries gsst.dictionaries');

$sub->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE TABLE u (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE TABLE own (id int PRIMARY KEY, c text COMPRESSION gsst);
});
# a table of the subscriber alone, with values unlike the publisher's, that
# learns its dictionary before the subscription
my $own_rows_sql = q{
	INSERT INTO own SELECT i, format('invoice INV-%%s for customer K%%s: %%s items, shipped via %%s on 2024-%%s-%%s',
		lpad(i::text, 7, '0'), (i * 37) %% 1000, i %% 17, (ARRAY['DHL', 'UPS', 'FedEx', 'GLS'])[i %% 4 + 1],
		lpad((i %% 12 + 1)::text, 2, '0'), lpad((i %% 28 + 1)::text, 2, '0'))
	FROM generate_series(%d, %d) i};
$sub->safe_psql('postgres', sprintf($own_rows_sql, 1, 3000));

my %sub_family = map { $_ => $sub->safe_psql('postgres', sprintf($family_sql, $_)) } qw(t u own);
my $pub_families = join(',', @pub_family{qw(t u)});
my $sub_families = join(',', @sub_family{qw(t u own)});
is($sub->safe_psql('postgres',
		"SELECT count(*) FROM unnest(ARRAY[$pub_families]) p WHERE p = ANY (ARRAY[$sub_families])"),
	'0', 'the publisher\'s families are not the subscriber\'s');

my $dicts_sql = q{SELECT string_agg(id || ':' || family || ':' || md5(symbols), ',' ORDER BY id) FROM gsst.dictionaries %s};
my $sub_dicts_before = $sub->safe_psql('postgres', sprintf($dicts_sql, ''));
my $sub_max_id_before = $sub->safe_psql('postgres', 'SELECT max(id) FROM gsst.dictionaries');
isnt($sub_dicts_before, '', 'subscriber: own learned a dictionary before the subscription');
is($sub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family <> $sub_family{own}"),
	'0', 'subscriber: only own has dictionaries before the subscription');
cmp_ok($sub->safe_psql('postgres', 'SELECT count(*) FROM own WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'>', 2000, 'subscriber: own is stored compressed');
# the ids overlap with the publisher's: a row that arrived would collide
is($sub->safe_psql('postgres', 'SELECT min(id) FROM gsst.dictionaries'),
	$pub->safe_psql('postgres', 'SELECT min(id) FROM gsst.dictionaries'),
	'publisher and subscriber use the same dictionary ids');

my $connstr = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION sub CONNECTION '$connstr' PUBLICATION pub");
ok(eval { $sub->wait_for_subscription_sync($pub, 'sub'); 1 }, 'initial sync finished')
  or diag($@);

# streamed changes: u learns its first dictionary on the publisher, inside
# the decoded transaction; t is retrained; updates and deletes
my $more = gsst_rows(3001, 3000);
$pub->safe_psql('postgres',
	"BEGIN; SET LOCAL gsst.learn_sample_bytes = 8192; COPY u FROM STDIN;\n"
	  . gsst_copy_text($more) . "\\.\nCOMMIT;");
$pub->safe_psql('postgres', q{
	SELECT gsst.train('t', 'c');
	UPDATE t SET c = c::text || ' (updated)' WHERE id % 100 = 0;
	DELETE FROM t WHERE id % 250 = 1;
	INSERT INTO t SELECT 100000 + i, 'inserted after retraining ' || i FROM generate_series(1, 500) i;
	UPDATE u SET c = 'u row ' || id || ' rewritten' WHERE id % 7 = 0;
	DELETE FROM u WHERE id % 11 = 0;
});
ok(eval { $pub->wait_for_catchup('sub'); 1 }, 'subscriber caught up') or diag($@);

cmp_ok($pub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family = $pub_family{u}"),
	'>=', 1, 'publisher: u learned a dictionary in the streamed transaction');
cmp_ok($pub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family = $pub_family{t}"),
	'>=', 2, 'publisher: t was retrained');

# the same text on both sides
my $md5 = "SELECT count(*) || ' ' || md5(string_agg(id || ':' || c, E'\\n' ORDER BY id)) FROM %s";
for my $tab (qw(t u))
{
	is($sub->safe_psql('postgres', sprintf($md5, $tab)), $pub->safe_psql('postgres', sprintf($md5, $tab)),
		"subscriber's $tab holds the publisher's text");
}
is($sub->safe_psql('postgres', "SELECT count(*) FROM t WHERE c LIKE '% (updated)'"), '30', 'updated rows');

# no apply or sync worker failed
my $sub_log = slurp_file($sub->logfile);
unlike($sub_log, qr/duplicate key value violates unique constraint/,
	'no duplicate key error in the subscriber log');
unlike($sub_log, qr/ERROR/, 'no ERROR in the subscriber log')
  or diag(join("\n", grep { /ERROR|DETAIL|CONTEXT/ } split /\n/, $sub_log));
is($sub->safe_psql('postgres',
		q{SELECT count(*) || ' ' || count(*) FILTER (WHERE srsubstate = 'r') FROM pg_subscription_rel}),
	'3 3', 'every relation of the subscription (t, u, gsst.dictionaries) is ready');
ok($pub->poll_query_until('postgres',
		q{SELECT string_agg(slot_name, ',' ORDER BY slot_name) = 'sub' FROM pg_replication_slots}),
	'the publisher has no table sync slots left, only the subscription\'s')
  or diag($pub->safe_psql('postgres', 'SELECT slot_name FROM pg_replication_slots'));

# the subscriber's dictionaries: the old ones unchanged, none arrived
is($sub->safe_psql('postgres', sprintf($dicts_sql, "WHERE id <= $sub_max_id_before")),
	$sub_dicts_before, 'the subscriber\'s dictionaries are unchanged');
is($sub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family IN ($pub_families)"),
	'0', 'no dictionary of the publisher\'s families arrived');
is($sub->safe_psql('postgres', q{
	SELECT count(*) FROM gsst.dictionaries d
	WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a
		WHERE a.atttypid = 'gsst'::regtype AND a.atttypmod = d.family AND NOT a.attisdropped)}),
	'0', 'every dictionary on the subscriber belongs to a column of the subscriber');
for my $tab (qw(t u))
{
	cmp_ok($sub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family = $sub_family{$tab}"),
		'>=', 1, "subscriber: $tab learned a dictionary of its own");
	my ($encoded, $total) = split /\|/, $sub->safe_psql('postgres',
		"SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL), count(*) FROM $tab");
	cmp_ok($encoded, '>', $total / 2, "subscriber: most rows of $tab are compressed ($encoded of $total)");
	is($sub->safe_psql('postgres', qq{
		SELECT count(*) FROM $tab LEFT JOIN gsst.dictionaries d ON d.id = gsst.value_dictionary($tab.c)
		WHERE gsst.value_dictionary($tab.c) IS NOT NULL AND d.family IS DISTINCT FROM $sub_family{$tab}}),
		'0', "subscriber: $tab values name dictionaries of $tab\'s own family");
}

# the subscriber's own table still encodes with its own dictionary
$sub->safe_psql('postgres', sprintf($own_rows_sql, 3001, 3500));
is($sub->safe_psql('postgres', qq{
	SELECT count(*) FROM own JOIN gsst.dictionaries d ON d.id = gsst.value_dictionary(own.c)
	WHERE own.id > 3000 AND d.family = $sub_family{own} AND d.id <= $sub_max_id_before}),
	'500', 'writes to own encode with its own dictionary');
is($sub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family = $sub_family{own}"),
	$sub->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE family = $sub_family{own} AND id <= $sub_max_id_before"),
	'own learned no further dictionary');

done_testing();
