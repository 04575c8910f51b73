# gsst.load's encoder workers (encode_pool.c) against the backend alone.
#
# Without a GPU, gsst.load hands its batches to up to
# max_parallel_maintenance_workers background workers.  The same rows
# loaded with and without them must be stored with the same bytes, which
# are per-row encoding's, also for values of several megabytes (answers
# far larger than a worker's queue).  Without a free parallel worker the load runs
# alone; an encoder terminated in the middle leaves its chunk to the
# backend; a cancelled load takes its encoders and their shared memory
# with it.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $node = gsst_node('encode_pool');
$node->append_conf('postgresql.conf', q{
dynamic_shared_memory_type = mmap
gsst.gpu = off
max_worker_processes = 16
max_parallel_workers = 8
autovacuum = off
log_min_messages = debug1
});
$node->start;

sub sql { return $node->safe_psql('postgres', $_[0]); }

# 200,000 rows of about 60 bytes: batches of 20,000 rows hold 1.2 MB,
# enough for the pool
sql(q{
	CREATE EXTENSION gsst;
	CREATE TABLE src AS
	  SELECT g AS id,
	         'order ' || g || ' of customer ' || (g % 997) || ': ' || md5(g::text) AS c
	  FROM generate_series(1, 200000) g;
	CREATE TABLE t (id int, c text COMPRESSION gsst);
});

# pairs of rows of t loaded with ids id and id + $offset whose bytes differ
sub differing
{
	my ($offset) = @_;
	return sql("SELECT count(*) || ' ' || count(*) FILTER (WHERE gsst.datum(a.c) IS DISTINCT FROM gsst.datum(b.c))
	            FROM t a JOIN t b ON b.id = a.id + $offset WHERE a.id <= 200000");
}

# the encoder workers that gsst.load said it had, from the server log
sub encoders_used
{
	my ($offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	return $log =~ /gsst\.load: 200000 rows, .* in the backend with (\d+) encoder workers/
	  ? $1 : 'none logged';
}

is(sql("SET max_parallel_maintenance_workers = 0; SELECT gsst.load('t', 'SELECT id, c FROM src', 20000)"),
	'200000', 'a load without encoder workers');

my $log_at = -s $node->logfile;
is(sql("SET max_parallel_maintenance_workers = 4; SELECT gsst.load('t', 'SELECT id + 1000000, c FROM src', 20000)"),
	'200000', 'a load with encoder workers');
is(encoders_used($log_at), 4, 'it had 4 of them');
is(differing(1000000), '200000 0', 'the rows are stored with the same bytes');
ok(sql("SELECT count(*) FROM t WHERE gsst.value_dictionary(c) IS NOT NULL") > 390000,
	'encoded');
is(gsst_mismatches($node, 't'), '0', 'as per-row encoding stores them');

# no parallel worker to be had: the backend alone
$log_at = -s $node->logfile;
is(sql("SET max_parallel_workers = 0; SET max_parallel_maintenance_workers = 4;
        SELECT gsst.load('t', 'SELECT id + 2000000, c FROM src', 20000)"),
	'200000', 'a load while max_parallel_workers is 0');
is(encoders_used($log_at), 0, 'had no encoder worker');
is(differing(2000000), '200000 0', 'and stored the same bytes');

# values of several megabytes: answers far larger than a worker's queue
sql(q{
	CREATE TABLE big_src AS
	  SELECT g AS id,
	         CASE WHEN g % 50 = 0
	              THEN (SELECT string_agg(md5((g * 100000 + i)::text) || ' order ' || i, ' ')
	                    FROM generate_series(1, 60000) i)
	              ELSE 'order ' || g || ': ' || md5(g::text) END AS c
	  FROM generate_series(1, 200) g;
	CREATE TABLE big_t (id int, c text COMPRESSION gsst);
	INSERT INTO big_t SELECT id, c FROM big_src WHERE id <= 20;
});
sql("SELECT gsst.train('big_t', 'c')");
# only loaded rows stay, all to be encoded with the trained dictionary
sql("DELETE FROM big_t");
$log_at = -s $node->logfile;
like(sql("SET max_parallel_maintenance_workers = 2;
          SELECT gsst.load('big_t', 'SELECT id + 1000, c FROM big_src', 100)"),
	qr/^200$/m, 'a load of values of several megabytes');
like(slurp_file($node->logfile, $log_at), qr/gsst\.load: 200 rows, .* with 2 encoder workers/,
	'through the encoder workers');
is(sql("SELECT count(*) FROM big_t b JOIN big_src s ON b.id = s.id + 1000 WHERE b.c::text IS DISTINCT FROM s.c"),
	'0', 'they read back as they were loaded');
is(gsst_mismatches($node, 'big_t'), '0', 'stored as per-row encoding stores them');

# a source that reads slowly, so that the load is caught in the middle
my $slow = q{SELECT id + %d, c FROM src WHERE id %% 20000 <> 1 OR pg_sleep(0.3) IS NOT NULL};

# an encoder worker terminated in the middle of the load
my ($h, $out, $err) = gsst_start_psql($node,
	"SET max_parallel_maintenance_workers = 2; SELECT gsst.load('t', \$\$" . sprintf($slow, 3000000) . "\$\$, 20000)");
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'gsst encoder'}),
	'the load has two encoder workers');
is(sql(q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE backend_type = 'gsst encoder' ORDER BY pid LIMIT 1}),
	't', 'one is terminated');
$h->finish;
like($$out, qr/^200000$/m, 'the load finishes') or diag($$err);
is(differing(3000000), '200000 0', 'with the same bytes');

# a load cancelled in the middle
my $count = sql('SELECT count(*) FROM t');
my $baseline_dsm = gsst_dsm_segments($node);
($h, $out, $err) = gsst_start_psql($node,
	"SET max_parallel_maintenance_workers = 2; SELECT gsst.load('t', \$\$" . sprintf($slow, 4000000) . "\$\$, 20000)");
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'gsst encoder'}),
	'another load has two encoder workers');
sql(q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND query LIKE '%gsst.load%' AND pid <> pg_backend_pid()});
$h->finish;
like($$err, qr/canceling statement due to user request/, 'the load was cancelled');
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'gsst encoder'}),
	'its encoder workers are gone');
is(sql('SELECT count(*) FROM t'), $count, 'it stored nothing');
my $dsm_left = gsst_dsm_segments($node);
for (1 .. 50)
{
	last if $dsm_left <= $baseline_dsm;
	select(undef, undef, undef, 0.1);
	$dsm_left = gsst_dsm_segments($node);
}
cmp_ok($dsm_left, '<=', $baseline_dsm, 'no DSM segment left');
unlike(slurp_file($node->logfile), qr/terminating any other active server processes|dynamic shared memory leak/,
	'no crash and no leak in the server log');

$node->stop;
done_testing();
