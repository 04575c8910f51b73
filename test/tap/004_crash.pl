# Crash recovery: kill -9 the postmaster during a bulk COPY into a gsst
# column, restart, and check every committed row (and nothing else).
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Spec;
use IPC::Run;
use Time::HiRes qw(usleep);
use GsstTest;

my $node = gsst_node('crash');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
});

# committed batches; the first one makes the column learn its table
my @committed;
for my $batch (0 .. 4)
{
	my $rows = gsst_rows(1 + $batch * 20000, 20000);
	$node->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
	push @committed, @$rows;
}
my $dicts_before = $node->safe_psql('postgres', 'SELECT count(*) FROM gsst.dictionaries');
cmp_ok($dicts_before, '>=', 1, 'column learned a dictionary');

# the bulk COPY that gets killed: in a transaction that also creates a table
# that learns its own dictionary
# the server reads it: an absolute path (tmp_check may be relative)
my $file = File::Spec->rel2abs("$PostgreSQL::Test::Utils::tmp_check/bulk.txt");
open my $fh, '>:encoding(UTF-8)', $file or die "could not write $file: $!";
print $fh gsst_copy_text(gsst_rows(200001, 600000));
close $fh;
my ($in, $out, $err) = ('', '', '');
my $copy = IPC::Run::start(
	[
		'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
		'-c', "BEGIN; CREATE TABLE t2 (c text COMPRESSION gsst);
		       INSERT INTO t2 SELECT 'learning inside the doomed transaction ' || i FROM generate_series(1, 5000) i;
		       COPY t FROM '$file'; COMMIT;"
	],
	\$in, \$out, \$err);
# everything below tests a crash in the middle of this COPY: without it,
# the rest would pass without testing anything
ok($node->poll_query_until('postgres',
		'SELECT coalesce(max(tuples_processed), 0) > 50000 FROM pg_stat_progress_copy'),
	'bulk COPY is under way')
  or BAIL_OUT("the bulk COPY never got under way: $err");

# Crash: SIGKILL the postmaster, then every server process, as a machine
# crash would (a backend outliving its postmaster could still commit).
my @pids = split /\n/, $node->safe_psql('postgres',
	'SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()');
$node->kill9;
kill 'KILL', @pids;
$copy->kill_kill;

for (1 .. 600)
{
	last unless grep { kill(0, $_) } @pids;
	usleep(100_000);
}
is(scalar(grep { kill(0, $_) } @pids), 0, 'all server processes exited');
ok($node->start(fail_ok => 1), 'restarted after kill -9');
ok($node->log_contains('database system was interrupted'), 'crash recovery ran');

is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), scalar(@committed),
	'exactly the committed rows are there');
is($node->safe_psql('postgres', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t"),
	md5_of_rows(\@committed), 'every committed row decodes to what was written');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'>', 90000, 'committed rows are compressed');
is($node->safe_psql('postgres', q{SELECT count(*) FROM t
	WHERE gsst.value_dictionary(c) IS NOT NULL
	  AND NOT EXISTS (SELECT 1 FROM gsst.dictionaries d WHERE d.id = gsst.value_dictionary(c))}),
	'0', 'no value refers to a missing dictionary');
# the learner stored t2's first dictionary in a transaction of its own, so
# it survives its table; that one id is all the crash cost
is($node->safe_psql('postgres', 'SELECT count(*) FROM gsst.dictionaries'), $dicts_before + 1,
	'the dictionary learned inside the killed transaction was stored by the learner');
is($node->safe_psql('postgres', "SELECT to_regclass('t2') IS NULL"), 't', 'its table is gone');
is($node->safe_psql('postgres', q{SELECT count(*) FROM gsst.dictionaries d
	WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a
	                  WHERE a.atttypid = 'gsst'::regtype AND a.atttypmod = d.family)}),
	'1', 'its family belongs to no column');

# and the column keeps working
$node->safe_psql('postgres', "INSERT INTO t VALUES (999999, 'after the crash')");
is($node->safe_psql('postgres', "SELECT c FROM t WHERE id = 999999"), 'after the crash',
	'writes after recovery');
$node->safe_psql('postgres', 'CREATE TABLE t3 (c text COMPRESSION gsst)');
$node->safe_psql('postgres', q{INSERT INTO t3 SELECT 'learning after the crash ' || i FROM generate_series(1, 5000) i});
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM gsst.dictionaries'), '>', $dicts_before,
	'learning after recovery');

done_testing();
