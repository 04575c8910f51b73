# gsst.drop_unused_dictionaries against what runs beside it: a standby
# snapshot that still sees old rows (hot_standby_feedback), a session that
# connected before a dictionary was replaced, a transaction in progress, a
# temporary table of another session; and a dump of what is left.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use GsstTest;

my $primary = gsst_node('primary', allows_streaming => 1);
# no dictionary learned behind the test's back: each is trained on purpose
$primary->append_conf('postgresql.conf', "autovacuum = off\ngsst.learn_sample_bytes = 0");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
});
my $rows = gsst_rows(1, 2000);
$primary->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
my $md5 = md5_of_rows($rows);
my $sql_md5 = "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t";

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "hot_standby_feedback = on\nwal_receiver_status_interval = 1s");
$standby->start;

sub train_and_reencode
{
	my $id = $primary->safe_psql('postgres', "SELECT gsst.train('t', 'c')");
	$primary->safe_psql('postgres', 'UPDATE t SET c = c::text');
	return $id;
}

sub drop_unused
{
	my ($rc, $out, $err) = $primary->psql('postgres',
		"SELECT gsst.drop_unused_dictionaries('t')");
	return ($out, $err);
}

sub dictionaries_in_rows
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT string_agg(DISTINCT gsst.value_dictionary(c)::text, \',\') FROM t');
}

my $d1 = train_and_reencode();
my $d2 = $primary->safe_psql('postgres', "SELECT gsst.train('t', 'c')");
is(dictionaries_in_rows($primary), $d1, "rows use d1 ($d1); d2 ($d2) is the newest");

#
# 1. A standby's snapshot (fed back to the primary) still sees the rows as
#    they were: their old versions are recently dead there, and keep d1.
#
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
my $reader = $standby->background_psql('postgres');
$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
is($reader->query_safe($sql_md5), $md5, 'the standby reads every row');
ok( $primary->poll_query_until('postgres',
		'SELECT backend_xmin IS NOT NULL FROM pg_stat_replication'),
	'the standby feeds its snapshot back');
$primary->safe_psql('postgres', 'UPDATE t SET c = c::text; VACUUM t');
is(dictionaries_in_rows($primary), $d2, 'the rows moved to d2');
my ($out, $err) = drop_unused();
is($out, '{}', 'd1 is kept while a standby snapshot sees rows that use it');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($reader->query_safe($sql_md5), $md5, 'and that snapshot still reads them');
$reader->query_safe('COMMIT');
$reader->quit;
ok( $primary->poll_query_until('postgres',
		"SELECT backend_xmin IS NULL OR age(backend_xmin) < age((SELECT xmin FROM pg_class WHERE relname = 't'))
		   FROM pg_stat_replication"),
	'the standby lets go of its snapshot');
# VACUUM and call again until the primary's horizon passed the old versions
for my $try (1 .. 300)
{
	$primary->safe_psql('postgres', 'VACUUM t');
	($out, $err) = drop_unused();
	last if $out ne '{}';
	usleep(100_000);
}
is($out, "{$d1}", 'then d1 is dropped');
is($primary->safe_psql('postgres', "SELECT nsymbols FROM gsst.dictionaries WHERE id = $d1"),
	'-1', 'then d1 is dropped: a tombstone');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres', $sql_md5), $md5, 'the standby reads every row after the drop');
# from here on no standby snapshot holds rows back
$standby->stop;

#
# 2. A session that connected before its dictionary was replaced may hold
#    its codes in memory: the dictionary stays until that session ends.
#
my $old_session = $primary->background_psql('postgres');
$old_session->query_safe('SELECT 1');
my $d3 = train_and_reencode();
$primary->safe_psql('postgres', 'VACUUM t');
($out, $err) = drop_unused();
is($out, '{}', 'd2 is kept while an older session is open');
like($err, qr/1 gsst dictionaries are kept: sessions that connected before they were replaced are still open/,
	'and the NOTICE says why');
$old_session->quit;
ok($primary->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = 'postgres' AND backend_type = 'client backend' AND pid <> pg_backend_pid()"),
	'the older session ended');
($out, $err) = drop_unused();
is($out, "{$d2}", 'then d2 is dropped');

#
# 3. A transaction in progress may hold codes it read from rows that are
#    gone since: the call waits for it.
#
my $d4 = $primary->safe_psql('postgres', "SELECT gsst.train('t', 'c')");
my $holder = $primary->background_psql('postgres');
$holder->query_safe('SET client_min_messages = warning');
$holder->query_safe('BEGIN');
$holder->query_safe('CREATE TEMP TABLE held AS SELECT c FROM t WHERE id <= 5');
$holder->query_safe('COMMIT');
$holder->query_safe('BEGIN');
$holder->query_safe('SELECT count(*) FROM held');
$primary->safe_psql('postgres', 'UPDATE t SET c = c::text; VACUUM t');
my ($h, $hout, $herr) = gsst_start_psql($primary, "SELECT gsst.drop_unused_dictionaries('t')");
$h->finish;
like($$herr, qr/cannot prove which gsst dictionaries are unused: "held" is a temporary table of another session/,
	'a temporary table of another session stops it');
$holder->query_safe('DROP TABLE held');
$holder->query_safe('COMMIT');
$holder->query_safe('BEGIN');
$holder->query_safe('SELECT 1');
($h, $hout, $herr) = gsst_start_psql($primary, "SELECT gsst.drop_unused_dictionaries('t')");
ok( $primary->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'virtualxid'"),
	'the call waits for the transaction in progress');
$holder->query_safe('COMMIT');
$h->finish;
is($$hout, "{$d3}\n", 'and drops d3 once it has ended');
$holder->quit;

#
# 4. What is left restores from a dump; the tombstones stay behind.
#
is($primary->safe_psql('postgres', $sql_md5), $md5, 'every row reads as it was written');
my $dump = $primary->basedir . '/unused.dump';
$primary->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('postgres') ], 'pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE restored');
$primary->command_ok([ 'pg_restore', '--exit-on-error', '-d', $primary->connstr('restored'), $dump ],
	'pg_restore');
is($primary->safe_psql('restored', $sql_md5), $md5, 'the restored rows read the same');
is($primary->safe_psql('restored', 'SELECT count(*) FROM gsst.dictionaries WHERE nsymbols < 0'),
	'0', 'no tombstone is restored');
is($primary->safe_psql('postgres', 'SELECT string_agg(id::text, \',\' ORDER BY id) FROM gsst.dictionaries WHERE nsymbols < 0'),
	$primary->safe_psql('postgres', "SELECT string_agg(id::text, ',' ORDER BY id) FROM gsst.dictionaries WHERE id < $d4"),
	'the source keeps the tombstones of all but the newest (d4)');

done_testing();
