# Learners, the background workers that store a new column's first
# dictionary: they come from a pool of their own on top of
# max_worker_processes, so that a parallel query launches every worker it
# planned while many sessions make new columns learn; and a learner that
# cannot see what the writer's transaction changed does not start.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);
use GsstTest;

my $writers = 6;

sub gsst_table_md5_db
{
	my ($node, $db, $table) = @_;
	return $node->safe_psql($db, "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM $table");
}

my $node = gsst_node('learners');
$node->append_conf('postgresql.conf', q{
max_worker_processes = 8
max_parallel_workers = 8
max_parallel_workers_per_gather = 4
gsst.max_learners = 2
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE big (i int);
	INSERT INTO big SELECT generate_series(1, 200000);
	ALTER TABLE big SET (parallel_workers = 4);
	VACUUM ANALYZE big;
});

# --- the arithmetic: gsst's worker and its learners come on top ---

is($node->safe_psql('postgres', 'SHOW max_worker_processes'), '11',
	'max_worker_processes: the 8 configured, the gsst worker and 2 learners');
like(slurp_file($node->logfile),
	qr/LOG:  gsst raises max_worker_processes from 8 to 11 for its own background workers/,
	'the server log says so');
my $offset = -s $node->logfile;
$node->reload;
for (my $i = 0; $i < 100 && slurp_file($node->logfile, $offset) !~ /received SIGHUP/; $i++)
{
	usleep(100_000);
}
like(slurp_file($node->logfile, $offset), qr/received SIGHUP/, 'the server reloaded');
is($node->safe_psql('postgres',
	"SELECT pending_restart FROM pg_settings WHERE name = 'max_worker_processes'"),
	'f', 'a reload of the unchanged configuration asks for no restart');
unlike(slurp_file($node->logfile, $offset), qr/"max_worker_processes" cannot be changed/,
	'nor complains of max_worker_processes');

# --- a parallel query while six sessions make new columns learn ---

sub explain_parallel
{
	my $plan = $node->safe_psql('postgres', q{
		SET parallel_setup_cost = 0;
		SET parallel_tuple_cost = 0;
		SET min_parallel_table_scan_size = 0;
		EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM big;
	});
	my ($planned) = $plan =~ /Workers Planned: (\d+)/;
	my ($launched) = $plan =~ /Workers Launched: (\d+)/;
	return ($planned // -1, $launched // -1);
}

my ($planned, $launched) = explain_parallel();
is("$planned/$launched", '4/4', 'alone, the parallel query launches the 4 workers it plans');

# A session holds gsst.dictionaries in SHARE mode: every learner waits for
# it (up to its lock_timeout of 5 s), so learners stay in their slots.
my ($hin, $hout, $herr) = ("BEGIN;\nLOCK TABLE gsst.dictionaries IN SHARE MODE;\n", '', '');
my $holder = IPC::Run::start([ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
	\$hin, \$hout, \$herr);
$holder->pump while length $hin;
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_locks
	WHERE relation = 'gsst.dictionaries'::regclass AND mode = 'ShareLock' AND granted}),
	'a session holds gsst.dictionaries');

for my $w (1 .. $writers)
{
	$node->safe_psql('postgres', "CREATE TABLE w$w (c text COMPRESSION gsst)");
}
my @handles;
for my $w (1 .. $writers)
{
	my ($in, $out, $err) = ('', '', '');
	local $ENV{PGAPPNAME} = 'gsst_writer';
	push @handles, [ IPC::Run::start(
		[ 'psql', '-X', '-At', '-d', $node->connstr('postgres'), '-c',
		  "INSERT INTO w$w SELECT 'writer $w wrote value ' || g || ' of its first load' FROM generate_series(1, 3000) g" ],
		\$in, \$out, \$err), \$out, \$err ];
}

# Settled: each writer waits for its learner or for a learner's slot, or
# has committed its rows.  (PostgreSQL 17 spells the wait events
# BgworkerStartup and BgworkerShutdown.)  Then the learners are in their slots, waiting for
# the lock.
my $done = join(' + ', map { "(SELECT count(*) FROM w$_) / 3000" } 1 .. $writers);
ok($node->poll_query_until('postgres', qq{
	SELECT count(*) + $done = $writers
	FROM pg_stat_activity WHERE application_name = 'gsst_writer'
	  AND lower(wait_event) IN ('bgworkerstartup', 'bgworkershutdown', 'extension')}),
	'each writer finished or waits for a learner');
# Each learner gives up on the lock after 5 s and the next takes its slot:
# on a slow machine the writers may settle between two of them, so wait
# for one to be there before the parallel query.
ok($node->poll_query_until('postgres',
	"SELECT count(*) >= 1 FROM pg_stat_activity WHERE backend_type = 'gsst learner'"),
	'learners do run');
my $learners = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gsst learner'");
($planned, $launched) = explain_parallel();
is("$planned/$launched", '4/4',
	"while $learners learners run, the parallel query still launches the 4 workers it plans");
cmp_ok($learners, '<=', 2, 'no more learners run at once than gsst.max_learners');

$hin .= "ROLLBACK;\n\\q\n";
$holder->finish;
for my $h (@handles)
{
	$h->[0]->finish;
}
is(join('', map { ${ $_->[2] } =~ /ERROR/ ? 1 : 0 } @handles), '0' x $writers,
	'every writer stored its rows');

# Every column learns at its next writes: no slot was lost, including those
# of learners that failed.
for my $w (1 .. $writers)
{
	$node->safe_psql('postgres',
		"INSERT INTO w$w SELECT 'writer $w wrote value ' || g || ' of its second load' FROM generate_series(1, 1000) g");
}
is($node->safe_psql('postgres', 'SELECT ' . join(' + ', map {
	"(SELECT count(*) FROM gsst.column_stats('w$_') WHERE cardinality(dictionaries) > 0)" } 1 .. $writers)),
	$writers, 'every column has a dictionary after its next writes');

# A writer cancelled while it waits for its learner hands the slot to the
# learner, which frees it when it exits: the pool does not shrink.
($hin, $hout, $herr) = ("BEGIN;\nLOCK TABLE gsst.dictionaries IN SHARE MODE;\n", '', '');
$holder = IPC::Run::start([ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
	\$hin, \$hout, \$herr);
$holder->pump while length $hin;
$node->safe_psql('postgres', 'CREATE TABLE c1 (c text COMPRESSION gsst); CREATE TABLE c2 (c text COMPRESSION gsst)');
@handles = ();
for my $w (1 .. 2)
{
	my ($in, $out, $err) = ('', '', '');
	local $ENV{PGAPPNAME} = 'gsst_cancelled';
	push @handles, IPC::Run::start(
		[ 'psql', '-X', '-At', '-d', $node->connstr('postgres'), '-c',
		  "INSERT INTO c$w SELECT 'a cancelled writer wrote value ' || g FROM generate_series(1, 3000) g" ],
		\$in, \$out, \$err);
}
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 2 FROM pg_stat_activity
	WHERE application_name = 'gsst_cancelled' AND lower(wait_event) = 'bgworkershutdown'}),
	'two writers wait for their learners');
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'gsst_cancelled'");
$_->finish for @handles;
$hin .= "ROLLBACK;\n\\q\n";
$holder->finish;
ok($node->poll_query_until('postgres',
	"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'gsst learner'"),
	'their learners exit');
# both slots are free again: two new columns have two learners at once
($hin, $hout, $herr) = ("BEGIN;\nLOCK TABLE gsst.dictionaries IN SHARE MODE;\n", '', '');
$holder = IPC::Run::start([ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
	\$hin, \$hout, \$herr);
$holder->pump while length $hin;
$node->safe_psql('postgres', 'CREATE TABLE c3 (c text COMPRESSION gsst); CREATE TABLE c4 (c text COMPRESSION gsst)');
@handles = ();
for my $w (3 .. 4)
{
	my ($in, $out, $err) = ('', '', '');
	push @handles, IPC::Run::start(
		[ 'psql', '-X', '-At', '-d', $node->connstr('postgres'), '-c',
		  "INSERT INTO c$w SELECT 'a later writer wrote value ' || g FROM generate_series(1, 3000) g" ],
		\$in, \$out, \$err);
}
ok($node->poll_query_until('postgres',
	"SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'gsst learner'"),
	'both slots came back: two learners run at once');
$hin .= "ROLLBACK;\n\\q\n";
$holder->finish;
$_->finish for @handles;

# --- one transaction: CREATE EXTENSION, CREATE TABLE, COPY ---

$node->safe_psql('postgres', 'CREATE DATABASE onexact');
my $copy = gsst_copy_text(gsst_rows(1, 5000));
$offset = -s $node->logfile;
my ($rc, $stdout, $stderr) = $node->psql('onexact',
	"BEGIN;\nCREATE EXTENSION gsst;\nCREATE TABLE t (id int, c text COMPRESSION gsst);\n"
	  . "COPY t FROM STDIN;\n$copy\\.\nCOMMIT;\n");
is($rc, 0, 'CREATE EXTENSION, CREATE TABLE and COPY in one transaction');
unlike($stderr, qr/NOTICE|WARNING/, 'with nothing to report');
my $log = slurp_file($node->logfile, $offset);
unlike($log, qr/gsst learner/, 'no learner started: none could see the extension');
unlike($log, qr/is not installed/, 'nothing failed for want of the extension');
my ($encoded, $dicts) = split /\|/, $node->safe_psql('onexact',
	"SELECT encoded_values, cardinality(dictionaries) FROM gsst.column_stats('t')");
is($dicts, '1', 'the column learned its dictionary in that transaction');
cmp_ok($encoded, '>', 4000, 'and the rows after its first sample are encoded');
is(gsst_table_md5_db($node, 'onexact', 't'), md5_of_rows(gsst_rows(1, 5000)), 'every value reads back');
# the first sample's values, written again, encode
$node->safe_psql('onexact', 'INSERT INTO t SELECT id + 10000, c::text FROM t WHERE id <= 100');
cmp_ok($node->safe_psql('onexact',
	'SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) FROM t WHERE id > 10000'),
	'>', 90, 'later writes encode with it');

# --- a learner that starts and fails: once per family and transaction ---

($hin, $hout, $herr) = ("BEGIN;\nLOCK TABLE gsst.dictionaries IN SHARE MODE;\n", '', '');
$holder = IPC::Run::start([ 'psql', '-X', '-q', '-d', $node->connstr('onexact') ],
	\$hin, \$hout, \$herr);
$holder->pump while length $hin;
ok($node->poll_query_until('onexact', q{
	SELECT count(*) = 1 FROM pg_locks
	WHERE relation = 'gsst.dictionaries'::regclass AND mode = 'ShareLock' AND granted}),
	'a session holds gsst.dictionaries');
$offset = -s $node->logfile;
# about six samples of 16 kB: each would start a learner
$copy = gsst_copy_text(gsst_rows(1, 3000));
my $start = time;
($rc, $stdout, $stderr) = $node->psql('onexact',
	"BEGIN;\nCREATE TABLE f (id int, c text COMPRESSION gsst);\nCOPY f FROM STDIN;\n$copy\\.\nCOMMIT;\n");
my $elapsed = time - $start;
$hin .= "ROLLBACK;\n\\q\n";
$holder->finish;
is($rc, 0, 'the COPY succeeds');
$log = slurp_file($node->logfile, $offset);
my $failed = () = $log =~ /background worker "gsst learner" \(PID \d+\) exited with exit code 1/g;
is($failed, 1, 'one learner started and failed, not one per sample');
my $notices = () = $stderr =~ /NOTICE:  column "c" of relation "f" stores its values uncompressed for now/g;
is($notices, 1, 'the session was told once');
like($stderr, qr/HINT:  Once it has a dictionary, SELECT gsst.compress_table\('public.f'\) compresses the rows stored uncompressed/,
	'with a hint');
cmp_ok($elapsed, '<', 15, 'the COPY waited for one learner, not for each sample');
$node->safe_psql('onexact',
	"INSERT INTO f SELECT i, 'value ' || i || ' written after the lock went' FROM generate_series(1, 1000) i");
is($node->safe_psql('onexact', "SELECT cardinality(dictionaries) FROM gsst.column_stats('f')"),
	'1', 'the next transaction learns');

$node->stop;
done_testing();
