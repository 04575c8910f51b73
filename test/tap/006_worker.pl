# The gsst worker under stress: killed while batches are in flight, a
# waiting backend cancelled, a batch queued behind another backend's, the
# worker hung (SIGSTOP), crashed (SIGKILL),
# and the GPU library missing.  Every bulk run must end with the right rows,
# stored exactly as per-row encoding stores them, no request slot in use and
# no DSM segment left; the worker must come back.  Also: compress_table keeps
# MVCC (an older snapshot still sees rows deleted before the rewrite).
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

my $node = gsst_node('worker');
# mmap segments are files in pg_dynshmem: countable per cluster
$node->append_conf('postgresql.conf', qq{
dynamic_shared_memory_type = mmap
gsst.worker_cpu = on
restart_after_crash = on
});
$node->start;

my $rows = gsst_rows(1, 30000);
$node->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE src (id int PRIMARY KEY, c text);
	CREATE TABLE t (id int PRIMARY KEY, c text);
});
$node->safe_psql('postgres', "COPY src FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT * FROM src;
	ALTER TABLE t ALTER COLUMN c SET COMPRESSION gsst;
});
my $md5 = md5_of_rows($rows);

sub status
{
	my ($cols) = @_;
	return $node->safe_psql('postgres', "SELECT $cols FROM gsst.worker_status");
}

sub mismatches { return gsst_mismatches($node, $_[0]); }
sub table_md5 { return gsst_table_md5($node, $_[0]); }
sub dsm_segments { return gsst_dsm_segments($node); }
sub start_psql { return gsst_start_psql($node, $_[0]); }

sub wait_for_new_worker
{
	my ($old_pid) = @_;
	return $node->poll_query_until('postgres',
		"SELECT pid IS NOT NULL AND pid <> $old_pid AND mode <> 'stopped' FROM gsst.worker_status");
}

sub restart_with
{
	my ($conf) = @_;
	$node->append_conf('postgresql.conf', $conf);
	$node->restart;
	$node->poll_query_until('postgres', "SELECT mode <> 'stopped' FROM gsst.worker_status")
	  or die 'worker did not start';
}

is(status('mode'), 'cpu', 'worker runs, in CPU mode (no GPU here)');
my $baseline = dsm_segments();

#
# 1. The worker is killed (SIGTERM) while compress_table has batches in flight.
#
restart_with("gsst.worker_delay = '1500ms'");
my $pid = status('pid');
my ($h, $out, $err) = start_psql(
	"SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('t')");
ok($node->poll_query_until('postgres', 'SELECT in_flight > 0 FROM gsst.worker_status'),
	'compress_table has batches in flight');
# the worker that comes back answers at once
$node->append_conf('postgresql.conf', "gsst.worker_delay = 0");
$node->reload;
kill 'TERM', $pid;
$h->finish;
is($h->result(0), 0, 'compress_table completes after the worker was killed')
  or diag($$err);
like($$out, qr/^30000$/m, 'every value was encoded');
ok(wait_for_new_worker($pid), 'the worker comes back');
is(status('starts'), '2', 'started a second time');
cmp_ok(status('backend_fallbacks'), '>=', 1, 'the backend encoded the failed batches itself');
is(table_md5('t'), $md5, 'rows are intact');
is(mismatches('t'), '0', 'stored bytes equal per-row encoding');
is($node->safe_psql('postgres', 'SELECT encoded_values FROM gsst.column_stats(\'t\')'),
	'30000', 'every value is encoded');
is(status('in_flight'), '0', 'no request slot in use');
is(dsm_segments(), $baseline, 'no DSM segment left');
# and the new worker takes batches again
$node->safe_psql('postgres', "SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('t', retrain => true)");
cmp_ok(status('cpu_batches'), '>', 5, 'the new worker encodes batches');
is(mismatches('t'), '0', 'stored bytes equal per-row encoding after a retrain');

#
# 2. A backend waiting for the worker is cancelled.
#
restart_with("gsst.worker_delay = '5s'");
$pid = status('pid');
$node->safe_psql('postgres', 'CREATE TABLE l (id int PRIMARY KEY, c text COMPRESSION gsst)');
($h, $out, $err) = start_psql("SELECT gsst.load('l', 'SELECT id, c FROM src', 5000)");
ok( $node->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		WHERE wait_event_type = 'Extension' AND query LIKE '%gsst.load%'}),
	'load waits for the worker');
is(status('in_flight') > 0 ? 1 : 0, 1, 'its batch is in flight');
$node->safe_psql('postgres', q{
	SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE wait_event_type = 'Extension' AND query LIKE '%gsst.load%'});
$h->finish;
isnt($h->result(0), 0, 'the load was cancelled');
like($$err, qr/canceling statement due to user request/, 'by the user');
is($node->safe_psql('postgres', 'SELECT count(*) FROM l'), '0', 'nothing of it was inserted');
$node->append_conf('postgresql.conf', "gsst.worker_delay = 0");
$node->reload;
ok($node->poll_query_until('postgres', 'SELECT in_flight = 0 FROM gsst.worker_status'),
	'the worker frees the abandoned request');
is(dsm_segments(), $baseline, 'no DSM segment left');
is($node->safe_psql('postgres', "SELECT gsst.load('l', 'SELECT id, c FROM src', 5000)"),
	'30000', 'the load runs again');
is(table_md5('l'), $md5, 'rows are intact');
is(mismatches('l'), '0', 'stored bytes equal per-row encoding');
is(status('pid'), $pid, 'the same worker served it');
cmp_ok(status('cpu_batches'), '>=', 6, 'through the worker');

#
# 2b. A batch queued while the worker is busy with another backend's batch
#     is encoded by its own backend, which does not wait for the worker.
#
$node->safe_psql('postgres', q{
	CREATE TABLE u (id int PRIMARY KEY, c text);
	INSERT INTO u SELECT * FROM src;
	ALTER TABLE u ALTER COLUMN c SET COMPRESSION gsst;
});
my $fallbacks_2b = status('backend_fallbacks');
$node->append_conf('postgresql.conf', "gsst.worker_delay = '3s'");
$node->reload;
# one batch of the whole table
($h, $out, $err) = start_psql("SELECT gsst.compress_table('t', retrain => true, workers => 0)");
ok($node->poll_query_until('postgres', 'SELECT in_flight > 0 FROM gsst.worker_status'),
	'one backend has a batch at the worker');
my ($ret_u, $out_u, $err_u) = $node->psql('postgres',
	"SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('u', workers => 0)");
is($ret_u, 0, 'another backend rewrites its table meanwhile');
# at most its first batch, taken as the worker finished one, went to the worker
like($err_u, qr/DETAIL:  [01] batches encoded by the gsst worker, [1-9]\d* in this backend/,
	'encoding the batches the busy worker had not taken itself');
is( $node->safe_psql('postgres', q{
		SELECT count(*) FROM pg_stat_activity
		WHERE state = 'active' AND query LIKE '%compress_table(''t''%'}),
	'1', 'while the first backend still waits for the worker');
is(status('backend_fallbacks'), $fallbacks_2b, 'which is no fallback');
is(mismatches('u'), '0', 'stored bytes equal per-row encoding');
$node->append_conf('postgresql.conf', "gsst.worker_delay = 0");
$node->reload;
$h->finish;
is($h->result(0), 0, 'the first rewrite completes') or diag($$err);
is(mismatches('t'), '0', 'its stored bytes equal per-row encoding');
ok($node->poll_query_until('postgres', 'SELECT in_flight = 0 FROM gsst.worker_status'),
	'no request slot in use');
is(dsm_segments(), $baseline, 'no DSM segment left');

#
# 3. The worker hangs (SIGSTOP): backends time out and encode themselves.
#
my $fallbacks = status('backend_fallbacks');
$node->safe_psql('postgres', 'CREATE TABLE l2 (id int PRIMARY KEY, c text COMPRESSION gsst)');
kill 'STOP', $pid;
is( $node->safe_psql('postgres',
		"SET gsst.worker_timeout = '300ms'; SELECT gsst.load('l2', 'SELECT id, c FROM src', 10000)"),
	'30000', 'load completes while the worker hangs');
kill 'CONT', $pid;
cmp_ok(status('backend_fallbacks'), '>', $fallbacks, 'after timeouts');
is(table_md5('l2'), $md5, 'rows are intact');
is(mismatches('l2'), '0', 'stored bytes equal per-row encoding');
ok($node->poll_query_until('postgres', 'SELECT in_flight = 0 FROM gsst.worker_status'),
	'no request slot in use once the worker runs again');
is(dsm_segments(), $baseline, 'no DSM segment left');

#
# 4. MVCC: a snapshot taken before a delete still sees the deleted rows
#    after compress_table rewrote the table (as after VACUUM FULL).
#
my $old = $node->background_psql('postgres');
$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$old->query_safe('SELECT count(*) FROM src');
$node->safe_psql('postgres', q{
	DELETE FROM t WHERE id <= 100;
	SELECT gsst.compress_table('t');});
is($old->query_safe('SELECT count(*) FROM t'), '30000', 'an older snapshot still sees every row');
is($old->query_safe("SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t"), $md5,
	'with the same text');
$old->query_safe('COMMIT');
$old->quit;
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '29900', 'a new snapshot sees the delete');
is(mismatches('t'), '0', 'stored bytes equal per-row encoding');

#
# 5. The worker crashes (SIGKILL): the cluster restarts, and so does the worker.
#
$pid = status('pid');
kill 'KILL', $pid;
ok(wait_for_new_worker($pid), 'the worker comes back after a crash restart');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '29900', 'committed rows survive');
is( $node->safe_psql('postgres',
		"SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('t', retrain => true)"),
	'29900', 'compress_table works after the restart');
cmp_ok(status('cpu_batches'), '>', 5, 'through the new worker');
is(mismatches('t'), '0', 'stored bytes equal per-row encoding');

#
# 6. The GPU library is missing: the worker says so, and everything runs in
#    the backend.
#
my $log_offset = -s $node->logfile;
restart_with("gsst.gpu_library = '/nonexistent/gsst_gpu.so'\ngsst.worker_cpu = off");
is(status('mode'), 'cpu', 'a CPU-only server: bulk paths encode on the CPU');
is(status('gpu'), 'f', 'no GPU');
is(status('library'), '/nonexistent/gsst_gpu.so', 'reports the library it tried');
is(status('reason'), 'no GPU library is installed (/nonexistent/gsst_gpu.so)',
	'and says why, in plain words');
is(status("coalesce(last_error, 'none')"), 'none', 'which is no error');
my $log = substr(slurp_file($node->logfile), $log_offset);
is(scalar(() = $log =~ /LOG:  gsst: no GPU library is installed \(\/nonexistent\/gsst_gpu.so\); bulk paths encode on the CPU/g),
	1, 'said once, at LOG level');
unlike($log, qr/(WARNING|ERROR):  gsst/, 'with no warning or error');
$node->safe_psql('postgres', 'CREATE TABLE l3 (id int PRIMARY KEY, c text COMPRESSION gsst)');
is($node->safe_psql('postgres', "SELECT gsst.load('l3', 'SELECT id, c FROM src', 7000)"),
	'30000', 'load works without the library');
is(table_md5('l3'), $md5, 'rows are intact');
is(mismatches('l3'), '0', 'stored bytes equal per-row encoding');
$node->safe_psql('postgres', "SELECT gsst.compress_table('l3', retrain => true)");
is(mismatches('l3'), '0', 'compress_table works without the library');
is(status('cpu_batches + gpu_batches'), '0', 'nothing went to the worker');
$pid = status('pid');
kill 'TERM', $pid;
ok(wait_for_new_worker($pid), 'the worker comes back');
is(status('starts'), '2', 'started a second time');
is(status('mode'), 'cpu', 'still without a GPU');
$log = substr(slurp_file($node->logfile), $log_offset);
is(scalar(() = $log =~ /no GPU library is installed/g), 1, 'and does not say so again');
is(dsm_segments(), $baseline, 'no DSM segment left');

#
# 7. A GPU library built for another ABI is refused, as a real failure: a
#    warning and last_error, and the batches are encoded on the CPU.
#
my $fake_c = "$PostgreSQL::Test::Utils::tmp_check/fake_gpu.c";
my $fake_so = File::Spec->rel2abs("$PostgreSQL::Test::Utils::tmp_check/fake_gpu.so");
open my $fh, '>', $fake_c or die "could not write $fake_c: $!";
print $fh "#include <stddef.h>\nint gsst_gpu_abi_version(void) { return 99; }\n"
  . "size_t gsst_gpu_config_size(void) { return 8; }\n";
close $fh;
system('cc', '-shared', '-fPIC', '-o', $fake_so, $fake_c) == 0
  or BAIL_OUT('could not build the fake GPU library');
$log_offset = -s $node->logfile;
restart_with("gsst.gpu_library = '$fake_so'");
is(status('mode'), 'cpu', 'a library of another ABI is not used');
like(status('last_error'), qr/implements ABI 99 with a 8-byte config; this gsst needs ABI \d+/,
	'last_error says which ABI it has and which is needed');
like(substr(slurp_file($node->logfile), $log_offset), qr/WARNING:  gsst worker: GPU library .* implements ABI 99/,
	'and the server logs it as a warning');
$node->safe_psql('postgres', 'CREATE TABLE l4 (id int PRIMARY KEY, c text COMPRESSION gsst)');
is($node->safe_psql('postgres', "SELECT gsst.load('l4', 'SELECT id, c FROM src', 7000)"),
	'30000', 'load works all the same');
is(mismatches('l4'), '0', 'stored bytes equal per-row encoding');

#
# 8. The batch region: a batch that does not fit is encoded in its backend,
#    and without a region the worker takes no batch at all.
#
restart_with("gsst.gpu_library = '/nonexistent/gsst_gpu.so'\ngsst.worker_cpu = on\ngsst.batch_region = '1MB'");
is($node->safe_psql('postgres', "SHOW gsst.batch_region"), '1MB', 'a region of 1 MB');
$node->safe_psql('postgres',
	"SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('t', retrain => true)");
cmp_ok(status('cpu_batches'), '>', 5, 'batches of 64 kB fit: the worker encodes them');
is(mismatches('t'), '0', 'stored bytes equal per-row encoding');
my $before = status('cpu_batches');
$node->safe_psql('postgres',
	"SET gsst.batch_bytes = '4MB'; SET max_parallel_maintenance_workers = 0;
	 SELECT gsst.compress_table('t', retrain => true)");
is(status('cpu_batches'), $before, 'a batch of all the rows (1 MB of text) does not fit: its backend encodes it');
is(status('backend_fallbacks'), '0', 'without counting it as a fallback');
is(mismatches('t'), '0', 'stored bytes equal per-row encoding');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '29900', 'every row is there');
is(status('in_flight'), '0', 'no request slot in use');

$log_offset = -s $node->logfile;
restart_with("gsst.batch_region = 0");
$node->safe_psql('postgres', 'CREATE TABLE l5 (id int PRIMARY KEY, c text COMPRESSION gsst)');
is($node->safe_psql('postgres', "SELECT gsst.load('l5', 'SELECT id, c FROM src', 7000)"),
	'30000', 'without a region, load works');
is(mismatches('l5'), '0', 'stored bytes equal per-row encoding');
is(status('cpu_batches'), '0', 'and nothing went to the worker');
like(substr(slurp_file($node->logfile), $log_offset),
	qr/LOG:  gsst worker: takes no batches: there is no batch region/,
	'which says why in the log');

done_testing();
