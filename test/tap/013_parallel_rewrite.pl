# gsst.compress_table with parallel workers against the serial rewrite.
#
# Two partitions of one table (so one column family and one dictionary)
# get the same rows by the same statements: live, dead and recently dead
# tuples, update chains that an older snapshot still follows, TOASTed
# values, an index.  One is rewritten serially, the other by parallel
# workers, through the GPU helper (CPU build of the library) and with
# gsst.gpu off.  Their new heaps must hold the same tuples with the same
# headers (the TOAST pointers aside), wherever the workers put them, with
# update chains that link; the older snapshot must see the same rows in
# both, the stored bytes must equal per-row encoding, and amcheck must find
# nothing wrong, reading pages checksummed as the workers wrote them (the
# cluster has data checksums).  The workers' pages are WAL-logged (wal_level replica) and
# survive a crash; under wal_level minimal they are synced.  Then a parallel
# rewrite is cancelled, and one fails in a worker (a TOAST file that lost
# its blocks):
# each leaves the table as it was and no DSM segment behind.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $node = gsst_node('parallel', allows_streaming => 1,
	extra => [ '--encoding=UTF8', '--no-locale', '--data-checksums' ]);
$node->append_conf('postgresql.conf', q{
dynamic_shared_memory_type = mmap
gsst.gpu_library = '$libdir/gsst_gpu_cpu.so'
max_worker_processes = 16
max_parallel_workers = 8
max_parallel_maintenance_workers = 3
autovacuum = off
});
$node->start;

sub sql { return $node->safe_psql('postgres', $_[0]); }
is(sql('SHOW data_checksums'), 'on', 'the cluster checksums its pages');

# the same rows into partitions 1 and 2, by the same statements
sql(q{
	CREATE EXTENSION gsst;
	CREATE EXTENSION pageinspect;
	CREATE EXTENSION amcheck;
	CREATE TABLE pt (part int, id int, c text) PARTITION BY LIST (part);
	CREATE TABLE pt_a PARTITION OF pt FOR VALUES IN (1);
	CREATE TABLE pt_b PARTITION OF pt FOR VALUES IN (2);
	CREATE TABLE pt_c PARTITION OF pt FOR VALUES IN (3);
	ALTER TABLE pt ALTER COLUMN c SET STORAGE EXTERNAL;
	CREATE INDEX ON pt (id);
	INSERT INTO pt
	  SELECT p, g,
	         CASE WHEN g % 500 = 0
	              THEN (SELECT string_agg(md5((g * 1000 + i)::text), ' ') FROM generate_series(1, 200) i)
	              ELSE 'order ' || g || ' of customer ' || (g % 997) || ': ' || md5(g::text) || ' ships ' ||
	                   (ARRAY['by air', 'by sea', 'by rail', 'by truck'])[g % 4 + 1]
	         END
	  FROM (VALUES (1), (2), (3)) v(p), generate_series(1, 60000) g
	  ORDER BY p, g;
	DELETE FROM pt WHERE id % 17 = 0;
	ALTER TABLE pt ALTER COLUMN c SET COMPRESSION gsst;
});
sql("SELECT gsst.train('pt', 'c')");
ok($node->poll_query_until('postgres', "SELECT mode = 'gpu' FROM gsst.worker_status"),
	'the gsst worker has its GPU helper (the CPU build of the library)');

# an older snapshot keeps deleted and updated versions recently dead; it
# is taken on another table, so that it holds no lock on the partitions
my %before;
$before{$_} = sql("SELECT md5(string_agg(id || ':' || c, ',' ORDER BY id)) FROM $_")
  for qw(pt_a pt_b pt_c);
is($before{pt_a}, $before{pt_b}, 'the partitions hold the same rows');
sql('CREATE TABLE elsewhere (x int)');
my $old = $node->background_psql('postgres');
$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$old->query_safe('SELECT count(*) FROM elsewhere');
sql(q{
	UPDATE pt SET c = c || ' (updated)' WHERE id % 10 = 0;
	UPDATE pt SET c = c || ' (twice)' WHERE id % 20 = 0;
	DELETE FROM pt WHERE id % 13 = 0;
});

my $baseline_dsm = gsst_dsm_segments($node);
my $notice_serial = '';
my $notice_parallel = '';
$node->psql('postgres', "SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('pt_a', workers => 0)",
	stderr => \$notice_serial);
$node->psql('postgres', "SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('pt_b', workers => 3)",
	stderr => \$notice_parallel);
unlike($notice_serial, qr/parallel workers/, 'pt_a was rewritten serially');
like($notice_parallel, qr/DETAIL:  [1-3] parallel workers; \d+ batches encoded by the gsst worker/,
	'pt_b by parallel workers, through the gsst worker');
like($notice_parallel, qr/This backend: wait for the parallel workers \d+\.\d{3} s, write \d+\.\d{3} s, swap and reindex \d+\.\d{3} s\. Parallel workers, summed: scan \d+\.\d{3} s/,
	'the NOTICE says where the writer and the workers spent their time');
my ($dead_a) = $notice_serial =~ /(\d+) dead rows removed/;
my ($dead_b) = $notice_parallel =~ /(\d+) dead rows removed/;
is($dead_b, $dead_a, 'both removed the same dead rows');

# The workers write their own pages, so tuples land elsewhere than in the
# serial rewrite; each must still be there once, with the same header
# (xmin, xmax, hint and frozen bits) and data, and t_ctid pointing to
# itself or, in an update chain, to its successor.  The data is compared
# but for the partition key (its first 4 bytes) and where it holds a TOAST
# pointer (those name other values).
sub tuples
{
	my ($rel) = @_;
	return qq{
		SELECT t_xmin, t_xmax, t_field3, t_infomask2, t_infomask, t_hoff, t_bits,
		       t_ctid = format('(%s,%s)', blk, lp)::tid AS ctid_self,
		       CASE WHEN t_infomask & 4 = 0 THEN substr(t_data, 5) END AS data
		FROM generate_series(0, pg_relation_size('$rel') / current_setting('block_size')::int - 1) blk,
		     LATERAL heap_page_items(get_raw_page('$rel', blk::int))
		WHERE lp_flags = 1};
}
# chains: a t_ctid pointing elsewhere points to a tuple whose xmin is its xmax
sub broken_links
{
	my ($rel) = @_;
	return qq{
		WITH t AS (SELECT format('(%s,%s)', blk, lp)::tid AS self, t_ctid, t_xmin, t_xmax
		           FROM generate_series(0, pg_relation_size('$rel') / current_setting('block_size')::int - 1) blk,
		                LATERAL heap_page_items(get_raw_page('$rel', blk::int))
		           WHERE lp_flags = 1)
		SELECT count(*) FROM t a LEFT JOIN t b ON b.self = a.t_ctid
		WHERE a.t_ctid <> a.self AND b.t_xmin IS DISTINCT FROM a.t_xmax};
}
cmp_ok(sql("SELECT count(*) FROM (@{[tuples('pt_a')]}) t WHERE NOT ctid_self"), '>', 0,
	'the serial rewrite kept update chains');
is( sql("SELECT count(*) FROM ((@{[tuples('pt_a')]}) EXCEPT ALL (@{[tuples('pt_b')]})) d"),
	'0', 'the parallel rewrite wrote every tuple of the serial one, with the same header and data');
is( sql("SELECT count(*) FROM ((@{[tuples('pt_b')]}) EXCEPT ALL (@{[tuples('pt_a')]})) d"),
	'0', 'and nothing else');
is(sql(broken_links('pt_a')), '0', 'the serial rewrite\'s update chains link');
is(sql(broken_links('pt_b')), '0', 'and the parallel rewrite\'s');
my ($pages_b) = $notice_parallel =~ /write (\d+) pages and queue the rest/;
cmp_ok($pages_b, '>', 0, 'the workers wrote pages');
is( sql(q{SELECT pg_relation_size('pt_b') <= pg_relation_size('pt_a') * 1.05}), 't',
	'the parallel heap is at most 5% larger (each worker\'s last chunk is padded)');
is(sql("SELECT count(*) FROM verify_heapam('pt_b')"), '0', 'amcheck finds nothing wrong in it');
cmp_ok(sql("SELECT count(*) FROM (@{[tuples('pt_b')]}) i WHERE i.t_infomask & 4 <> 0"),
	'>', 0, 'TOASTed values were rewritten too');

# the same with the workers encoding on their own CPU
$node->psql('postgres',
	"SET gsst.gpu = off; SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('pt_c', workers => 2)",
	stderr => \$notice_parallel);
like($notice_parallel, qr/DETAIL:  [12] parallel workers; 0 batches encoded by the gsst worker, [1-9]\d* by the parallel workers/,
	'with gsst.gpu off the parallel workers encode');
is( sql("SELECT count(*) FROM ((@{[tuples('pt_a')]}) EXCEPT ALL (@{[tuples('pt_c')]})) d"),
	'0', 'to the same tuples');
is(sql("SELECT count(*) FROM verify_heapam('pt_c')"), '0', 'amcheck finds nothing wrong in pt_c');

is($old->query_safe("SELECT md5(string_agg(id || ':' || c, ',' ORDER BY id)) FROM pt_b"), $before{pt_b},
	'the older snapshot sees the same rows after the parallel rewrite');
is($old->query_safe("SELECT md5(string_agg(id || ':' || c, ',' ORDER BY id)) FROM pt_a"), $before{pt_a},
	'and after the serial one');
$old->query_safe('COMMIT');
$old->quit;

is( sql(q{SELECT count(*) FROM pt_a a FULL JOIN pt_b b USING (id)
          WHERE gsst.datum(a.c) IS DISTINCT FROM gsst.datum(b.c)}),
	'0', 'every row is stored with the same bytes (TOASTed ones detoasted)');
is(gsst_mismatches($node, 'pt_b'), '0', 'bytes equal per-row encoding');
is( sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off;
          SELECT count(*) || ' ' || md5(string_agg(c, ',' ORDER BY id)) FROM pt_b WHERE id BETWEEN 1000 AND 3000}),
	sql(q{SET enable_indexscan = off; SET enable_bitmapscan = off;
          SELECT count(*) || ' ' || md5(string_agg(c, ',' ORDER BY id)) FROM pt_b WHERE id BETWEEN 1000 AND 3000}),
	'the rebuilt index finds the rows');
is(sql('SELECT in_flight FROM gsst.worker_status'), '0', 'no request slot in use');
is(gsst_dsm_segments($node), $baseline_dsm, 'no DSM segment left');

# a crash after the parallel rewrite: recovery replays the workers' pages
my $md5_all = sql("SELECT md5(string_agg(part || ':' || id || ':' || c, ',' ORDER BY part, id)) FROM pt");
is(sql('SHOW wal_level'), 'replica', 'the parallel rewrites so far were WAL-logged');
$node->stop('immediate');
$node->start;
is(sql("SELECT md5(string_agg(part || ':' || id || ':' || c, ',' ORDER BY part, id)) FROM pt"), $md5_all,
	'after a crash the rows are the same');
is(sql("SELECT count(*) FROM verify_heapam('pt_b')"), '0', 'and amcheck finds nothing wrong');

# wal_level minimal: the new heap is not WAL-logged but synced at commit
$node->append_conf('postgresql.conf', "wal_level = minimal\nmax_wal_senders = 0");
$node->restart;
$node->poll_query_until('postgres', "SELECT mode = 'gpu' FROM gsst.worker_status")
  or die 'no GPU helper after the restart';
my $notice_minimal = '';
$node->psql('postgres', "SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('pt_a', workers => 3)",
	stderr => \$notice_minimal);
like($notice_minimal, qr/DETAIL:  [1-3] parallel workers;/, 'under wal_level minimal too');
$node->stop('immediate');
$node->start;
is(sql("SELECT md5(string_agg(part || ':' || id || ':' || c, ',' ORDER BY part, id)) FROM pt"), $md5_all,
	'whose rows survive a crash');
is(sql("SELECT count(*) FROM verify_heapam('pt_a')"), '0', 'and amcheck finds nothing wrong');
$node->poll_query_until('postgres', "SELECT mode = 'gpu' FROM gsst.worker_status")
  or die 'no GPU helper after the restart';
$baseline_dsm = gsst_dsm_segments($node);

# a temporary table lives in this backend's local buffers, out of the
# workers' sight: it is rewritten serially
my ($rc_tmp, $out_tmp, $err_tmp) = $node->psql('postgres', q{
	CREATE TEMP TABLE tmp_t AS
	  SELECT g AS id, 'note ' || g || ': ' || md5(g::text) AS c FROM generate_series(1, 100000) g;
	ALTER TABLE tmp_t ALTER COLUMN c SET COMPRESSION gsst;
	SET gsst.batch_bytes = '64kB';
	SELECT gsst.compress_table('tmp_t', workers => 3);
	SELECT count(*) FROM tmp_t
	WHERE gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text,
	        (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'tmp_t'::regclass AND attname = 'c')));});
is($rc_tmp, 0, 'a temporary table is compressed') or diag($err_tmp);
like($err_tmp, qr/DETAIL:  \d+ batches encoded by the gsst worker, \d+ in this backend/,
	'serially, though workers were asked for');
like($out_tmp, qr/^100000\n0$/m, 'with per-row bytes');

#
# A parallel rewrite cancelled while its workers wait for the gsst worker.
#
my $relfilenode = sql("SELECT pg_relation_filenode('pt_b')");
my $md5_b = sql("SELECT md5(string_agg(id || ':' || c, ',' ORDER BY id)) FROM pt_b");
$node->append_conf('postgresql.conf', "gsst.worker_delay = '5s'");
$node->reload;
my ($h, $out, $err) = gsst_start_psql($node,
	"SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('pt_b', retrain => true, workers => 3)");
ok( $node->poll_query_until('postgres', q{
		SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'}),
	'parallel workers run');
ok($node->poll_query_until('postgres', 'SELECT in_flight > 0 FROM gsst.worker_status'),
	'with batches at the gsst worker');
sql(q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND query LIKE '%compress_table(''pt_b''%'});
$h->finish;
like($$err, qr/canceling statement due to user request/, 'the rewrite was cancelled');
$node->append_conf('postgresql.conf', "gsst.worker_delay = 0");
$node->reload;
ok($node->poll_query_until('postgres', q{
		SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'}),
	'its parallel workers are gone');
ok($node->poll_query_until('postgres', 'SELECT in_flight = 0 FROM gsst.worker_status'),
	'the gsst worker freed their requests');
is(sql("SELECT pg_relation_filenode('pt_b')"), $relfilenode, 'the table keeps its old heap');
is(sql("SELECT md5(string_agg(id || ':' || c, ',' ORDER BY id)) FROM pt_b"), $md5_b, 'and its rows');
my $dsm_left = gsst_dsm_segments($node);
for (1 .. 50)
{
	last if $dsm_left == $baseline_dsm;
	select(undef, undef, undef, 0.1);
	$dsm_left = gsst_dsm_segments($node);
}
is($dsm_left, $baseline_dsm, 'no DSM segment left');

#
# A parallel worker fails: pt_c's TOAST file lost its blocks (truncated
# while the server was down), so reading a TOASTed value fails.
#
my $toast_path = sql(q{SELECT pg_relation_filepath(reltoastrelid) FROM pg_class WHERE oid = 'pt_c'::regclass});
$node->stop('fast');
truncate($node->data_dir . "/$toast_path", 0) or die "could not truncate $toast_path: $!";
$node->start;
$node->poll_query_until('postgres', "SELECT mode = 'gpu' FROM gsst.worker_status")
  or die 'no GPU helper after the restart';
$baseline_dsm = gsst_dsm_segments($node);
$relfilenode = sql("SELECT pg_relation_filenode('pt_c')");
my ($rc, $stdout, $stderr) = $node->psql('postgres',
	"SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('pt_c', workers => 3)");
isnt($rc, 0, 'a rewrite whose worker fails fails');
like($stderr, qr/ERROR:  could not read block/, 'with the worker\'s error');
like($stderr, qr/CONTEXT:  parallel worker/, 'said to come from a parallel worker');
is(sql("SELECT pg_relation_filenode('pt_c')"), $relfilenode, 'the table keeps its old heap');
ok($node->poll_query_until('postgres', q{
		SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'}),
	'no parallel worker is left');
ok($node->poll_query_until('postgres', 'SELECT in_flight = 0 FROM gsst.worker_status'),
	'no request slot in use');
$dsm_left = gsst_dsm_segments($node);
for (1 .. 50)
{
	last if $dsm_left == $baseline_dsm;
	select(undef, undef, undef, 0.1);
	$dsm_left = gsst_dsm_segments($node);
}
is($dsm_left, $baseline_dsm, 'no DSM segment left');

# the workers keep the table's fillfactor, and write unlogged tables too
sql(q{
	CREATE TABLE ff_a (id int, c text COMPRESSION gsst) WITH (fillfactor = 50);
	CREATE UNLOGGED TABLE ff_b (id int, c text COMPRESSION gsst) WITH (fillfactor = 50);
	INSERT INTO ff_a SELECT g, 'filled row ' || g || ' ' || md5(g::text) FROM generate_series(1, 60000) g;
	INSERT INTO ff_b SELECT * FROM ff_a;
});
my $notice_ff = '';
$node->psql('postgres', "SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('ff_a', workers => 0)");
$node->psql('postgres', "SET gsst.batch_bytes = '64kB'; SELECT gsst.compress_table('ff_b', workers => 3)",
	stderr => \$notice_ff);
like($notice_ff, qr/DETAIL:  [1-3] parallel workers;/, 'an unlogged table is rewritten in parallel');
is( sql(q{SELECT pg_relation_size('ff_b') BETWEEN pg_relation_size('ff_a') * 0.95 AND pg_relation_size('ff_a') * 1.05}),
	't', 'to as many pages as the serial rewrite at fillfactor 50');
is( sql(q{SELECT min(upper - lower) >= current_setting('block_size')::int / 2 - 8
          FROM generate_series(0, pg_relation_size('ff_b') / current_setting('block_size')::int - 1) blk,
               LATERAL page_header(get_raw_page('ff_b', blk::int))
          WHERE lower > 24}),
	't', 'each page with rows keeps half of its space free');
is( sql(q{SELECT (SELECT md5(string_agg(id || ':' || c, ',' ORDER BY id)) FROM ff_a) =
                 (SELECT md5(string_agg(id || ':' || c, ',' ORDER BY id)) FROM ff_b)}),
	't', 'with the same rows');
is(sql("SELECT count(*) FROM verify_heapam('ff_b')"), '0', 'amcheck finds nothing wrong in it');

# under wal_level logical, a user catalog table's rewrite must log the
# mappings logical decoding needs: it is rewritten serially
$node->append_conf('postgresql.conf', "wal_level = logical\nmax_wal_senders = 2");
$node->restart;
my $notice_catalog = '';
$node->psql('postgres', q{
	CREATE TABLE uc (id int, c text COMPRESSION gsst) WITH (user_catalog_table = true);
	INSERT INTO uc SELECT g, 'catalog row ' || g || ' ' || md5(g::text) FROM generate_series(1, 60000) g;
	SET gsst.batch_bytes = '64kB';
	SELECT gsst.compress_table('uc', workers => 3)}, stderr => \$notice_catalog);
like($notice_catalog, qr/DETAIL:  \d+ batches encoded by the gsst worker, \d+ in this backend/,
	'a user catalog table is rewritten serially under wal_level logical');
unlike($notice_catalog, qr/parallel workers/, 'with no parallel workers');

done_testing();
