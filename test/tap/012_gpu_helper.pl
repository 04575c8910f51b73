# The GPU helper process, with the CPU build of the GPU library
# (gsst_gpu_cpu.so), so that it runs without a GPU: killed (-9) mid-batch,
# killed while idle, and hung: each time the batch is encoded on the CPU
# with the same bytes, no other session notices (the postmaster never
# restarts: the helper holds none of its shared memory), worker_status
# counts the failure, and a new helper comes back.  And a helper that
# answers with a valid tile of other values (the library told to move a
# byte): the backend encodes the batch itself.  And a rewrite that stops
# waiting before the worker does encodes the text where it lies, in the
# batch region.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $node = gsst_node('helper');
$node->append_conf('postgresql.conf', q{
dynamic_shared_memory_type = mmap
gsst.gpu_library = '$libdir/gsst_gpu_cpu.so'
restart_after_crash = on
});
$node->start;

sub status
{
	my ($cols) = @_;
	return $node->safe_psql('postgres', "SELECT $cols FROM gsst.worker_status");
}

sub helper_back
{
	my ($old_pid, $starts) = @_;
	return $node->poll_query_until('postgres', qq{
		SELECT mode = 'gpu' AND helper_pid IS NOT NULL AND helper_pid <> $old_pid
		   AND helper_starts = $starts
		FROM gsst.worker_status});
}

# whether a process has ended (and been reaped), waiting up to 10 s
sub gone
{
	my ($pid) = @_;
	for (1 .. 100)
	{
		return 1 unless kill(0, $pid);
		select(undef, undef, undef, 0.1);
	}
	return 0;
}

sub set_conf
{
	my ($conf) = @_;
	$node->append_conf('postgresql.conf', $conf);
	$node->reload;
	# the worker has read it once it answers a status query after a moment
	$node->poll_query_until('postgres', 'SELECT pg_sleep(0.2) IS NOT NULL');
}

my $rows = gsst_rows(1, 30000);
my $md5 = md5_of_rows($rows);
$node->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE src (id int PRIMARY KEY, c text);
});
$node->safe_psql('postgres', "COPY src FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");

ok($node->poll_query_until('postgres', "SELECT mode = 'gpu' FROM gsst.worker_status"),
	'the worker encodes through a GPU helper');
is(status('device'), 'CPU (gsst_gpu_cpu.so)', 'which loaded the CPU build of the library');
is(status('helper_starts'), '1', 'started once');
is(status('helper_failures'), '0', 'with no failure');
my $worker_pid = status('pid');
my $helper_pid = status('helper_pid');
my $baseline_dsm = gsst_dsm_segments($node);
ok(kill(0, $helper_pid), 'the helper is a process');

# the helper runs the library's code: the worker does not map it
my $maps = slurp_file("/proc/$worker_pid/maps");
unlike($maps, qr/gsst_gpu/, 'the worker has not loaded the GPU library');
like(slurp_file("/proc/$helper_pid/maps"), qr/gsst_gpu_cpu\.so/, 'the helper has');

# a bulk path goes through the helper
$node->safe_psql('postgres', 'CREATE TABLE l0 (id int PRIMARY KEY, c text COMPRESSION gsst)');
is($node->safe_psql('postgres', "SELECT gsst.load('l0', 'SELECT id, c FROM src', 5000)"),
	'30000', 'load through the helper');
cmp_ok(status('gpu_batches'), '>=', 6, 'its batches were encoded by the helper');
is(gsst_table_md5($node, 'l0'), $md5, 'rows are intact');
is(gsst_mismatches($node, 'l0'), '0', 'stored bytes equal per-row encoding');

# compress_table says where its time went
my ($stdout, $stderr);
$node->psql('postgres', "SELECT gsst.compress_table('l0', retrain => true)",
	stdout => \$stdout, stderr => \$stderr);
like($stderr,
	qr/DETAIL:  \d+ batches encoded by the gsst worker, 0 in this backend, in \d+\.\d{3} s: scan \d+\.\d{3} s, hand-off \d+\.\d{3} s, wait for the worker \d+\.\d{3} s, tiles to values \d+\.\d{3} s, encode here \d+\.\d{3} s, form tuples \d+\.\d{3} s, write \d+\.\d{3} s, swap and reindex \d+\.\d{3} s\./,
	'compress_table reports the time of each stage');
is(gsst_mismatches($node, 'l0'), '0', 'stored bytes equal per-row encoding after a retrain');

#
# 1. kill -9 of the helper while it holds a batch.
#
my $bystander = $node->background_psql('postgres');
my $bystander_pid = $bystander->query_safe('SELECT pg_backend_pid()');
$bystander->query_safe('CREATE TEMP TABLE mine AS SELECT 42 AS answer');
my $log_offset = -s $node->logfile;

set_conf("gsst.worker_delay = '3s'");
$node->safe_psql('postgres', 'CREATE TABLE l1 (id int PRIMARY KEY, c text COMPRESSION gsst)');
my $batches = status('gpu_batches');
my ($h, $out, $err) = gsst_start_psql($node,
	"SELECT gsst.load('l1', 'SELECT id, c FROM src', 5000)");
ok($node->poll_query_until('postgres', 'SELECT in_flight > 0 FROM gsst.worker_status'),
	'the load has a batch in the helper');
# the helper sleeps before it encodes: kill it there
kill 'KILL', $helper_pid;
set_conf("gsst.worker_delay = 0");
$h->finish;
is($h->result(0), 0, 'the load completes after the helper was killed') or diag($$err);
like($$out, qr/^30000$/m, 'every row was loaded');
is(gsst_table_md5($node, 'l1'), $md5, 'rows are intact');
is(gsst_mismatches($node, 'l1'), '0', 'stored bytes equal per-row encoding');
cmp_ok(status('cpu_batches'), '>=', 1, 'the worker encoded the killed batch on the CPU');
is(status('helper_failures'), '1', 'worker_status counts the failure');
like(status('coalesce(last_error, \'\')'), qr/^$|GPU helper \(pid $helper_pid\) died/,
	'last_error says the helper died (until a new one starts)');

is($bystander->query_safe('SELECT pg_backend_pid()'), $bystander_pid,
	'another session keeps its connection');
is($bystander->query_safe('SELECT answer FROM mine'), '42', 'and its temporary table');
is(status('pid'), $worker_pid, 'the worker itself was not restarted');
my $log = substr(slurp_file($node->logfile), $log_offset);
unlike($log, qr/terminating any other active server processes/,
	'the postmaster did not restart the cluster');
like($log, qr/WARNING:  gsst worker: GPU helper \(pid $helper_pid\) died: .*signal 9/,
	'the server log says how the helper ended');

ok(helper_back($helper_pid, 2), 'a new helper comes back');
is(status('coalesce(last_error, \'none\')'), 'none', 'and clears last_error');
$helper_pid = status('helper_pid');
$batches = status('gpu_batches');
$node->safe_psql('postgres', "SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('l1', retrain => true)");
cmp_ok(status('gpu_batches'), '>', $batches, 'the new helper encodes batches');
is(gsst_mismatches($node, 'l1'), '0', 'stored bytes equal per-row encoding');
is(status('in_flight'), '0', 'no request slot in use');
is(gsst_dsm_segments($node), $baseline_dsm, 'no DSM segment left');

#
# 2. The helper dies while idle: the worker notices without a batch.
#
kill 'KILL', $helper_pid;
ok($node->poll_query_until('postgres', 'SELECT helper_failures = 2 FROM gsst.worker_status'),
	'a helper killed while idle is counted');
ok(helper_back($helper_pid, 3), 'and replaced');
$helper_pid = status('helper_pid');

#
# 3. The helper hangs (SIGSTOP) mid-batch: the worker kills it after
#    gsst.worker_timeout and encodes the batch on the CPU.
#
set_conf("gsst.worker_timeout = '1s'");
$node->safe_psql('postgres', 'CREATE TABLE l3 (id int PRIMARY KEY, c text COMPRESSION gsst)');
kill 'STOP', $helper_pid;
is( $node->safe_psql('postgres',
		"SET gsst.worker_timeout = '10s'; SELECT gsst.load('l3', 'SELECT id, c FROM src', 10000)"),
	'30000', 'a load completes while the helper hangs');
is(gsst_table_md5($node, 'l3'), $md5, 'rows are intact');
is(gsst_mismatches($node, 'l3'), '0', 'stored bytes equal per-row encoding');
ok($node->poll_query_until('postgres', 'SELECT helper_failures = 3 FROM gsst.worker_status'),
	'the hang is counted');
$log = substr(slurp_file($node->logfile), $log_offset);
like($log, qr/GPU helper \(pid $helper_pid\) did not answer within 1000 ms and was killed/,
	'the server log says the helper hung');
ok(gone($helper_pid), 'the hung helper is gone');
ok(helper_back($helper_pid, 4), 'a new helper comes back');

#
# 3b. The backend stops waiting first (its gsst.worker_timeout shorter than
#     the worker's): a rewrite, whose text lies in the batch region for the
#     helper to read, encodes the batch from there while the hung helper
#     still holds it, and the slice is freed once the helper is done.
#
set_conf("gsst.worker_timeout = '60s'");
$helper_pid = status('helper_pid');
$node->safe_psql('postgres', q{
	CREATE TABLE l4 (id int PRIMARY KEY, c text);
	INSERT INTO l4 SELECT * FROM src;
	ALTER TABLE l4 ALTER COLUMN c SET COMPRESSION gsst;
});
kill 'STOP', $helper_pid;
$node->psql('postgres',
	"SET gsst.worker_timeout = '1s'; SELECT gsst.compress_table('l4', workers => 0)",
	stdout => \$stdout, stderr => \$stderr);
like($stderr, qr/DETAIL:  0 batches encoded by the gsst worker, [1-9]\d* in this backend/,
	'a rewrite that stops waiting encodes its batch itself');
is(gsst_table_md5($node, 'l4'), $md5, 'rows are intact');
is(gsst_mismatches($node, 'l4'), '0', 'stored bytes equal per-row encoding');
cmp_ok(status('in_flight'), '>', 0, 'the hung helper still holds the batch');
kill 'CONT', $helper_pid;
ok($node->poll_query_until('postgres', 'SELECT in_flight = 0 FROM gsst.worker_status'),
	'its slot is freed once the helper is done');
is(status('helper_pid'), $helper_pid, 'the same helper goes on');
set_conf("gsst.worker_timeout = '1s'");

#
# 4. Stopping the server stops the helper with it.
#
$helper_pid = status('helper_pid');
is($bystander->query_safe('SELECT answer FROM mine'), '42', 'the other session is still there');
$bystander->quit;
$log = substr(slurp_file($node->logfile), $log_offset);
unlike($log, qr/terminating any other active server processes/, 'no crash restart at all');
$node->stop;
ok(gone($helper_pid), 'no helper outlives the server');

#
# 5. While the helper opens its device (seconds for a CUDA context on some
#    machines; the CPU build of the library waits when told to), the
#    worker says so, and bulk paths encode on the CPU meanwhile.  The 1 s
#    gsst.worker_timeout of part 3, meant for batches, does not cut the
#    opening short.
#
{
	local $ENV{GSST_GPU_CPU_INIT_DELAY_MS} = '4000';
	$node->start;
}
ok( $node->poll_query_until('postgres', q{
		SELECT mode = 'cpu' AND reason = 'the GPU helper is starting' FROM gsst.worker_status}),
	'worker_status says the GPU helper is starting');
ok($node->poll_query_until('postgres', "SELECT mode = 'gpu' FROM gsst.worker_status"),
	'then the helper is up');
is(status("reason IS NULL"), 't', 'with no reason left');
is(status('helper_failures'), '0', 'and no helper was killed for being slow to open');
$log = slurp_file($node->logfile);
unlike($log, qr/LOG:  gsst: the GPU helper is starting/, 'a passing state is not logged');
$node->stop;

#
# 6. The helper answers with a valid tile of other values (one byte moved
#    between two values in the middle of the batch, where the backend has
#    made results of the values before): the backend notices, says so and
#    encodes the batch itself.
#
{
	local $ENV{GSST_GPU_CPU_SHIFT_BYTE} = '1';
	$node->start;
}
ok($node->poll_query_until('postgres', "SELECT mode = 'gpu' FROM gsst.worker_status"),
	'the helper is up');
my $errors = status('errors');
$node->psql('postgres', "SELECT gsst.compress_table('l1', retrain => true, workers => 0)",
	stdout => \$stdout, stderr => \$stderr);
like($stderr,
	qr/WARNING:  gsst worker returned a batch that does not match the request; encoding it in this backend/,
	'a tile of other values is refused');
like($stderr, qr/DETAIL:  0 batches encoded by the gsst worker, [1-9]\d* in this backend/,
	'and its batch encoded in the backend');
cmp_ok(status('errors'), '>', $errors, 'worker_status counts the bad answer');
is(gsst_table_md5($node, 'l1'), $md5, 'rows are intact');
is(gsst_mismatches($node, 'l1'), '0', 'stored bytes equal per-row encoding');
$node->stop;

done_testing();
