# Every shard learns from the right values, and compresses from its first
# rows: SET COMPRESSION on a distributed table learns on each placement from
# that placement's rows and says so on the coordinator; gsst.load into a new
# distributed table gives each placement a dictionary learned from a sample
# of the source before the first row lands (gsst.learn); create_distributed_table
# of a table with rows gives each new shard one learned from the coordinator's
# rows; compress_table of a distributed table says what each placement did.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;
use CitusTest;

my ($coord, @workers) = citus_cluster(2);

# Dictionaries of column c's own family, per placement of $table.
sub dictionaries_per_placement
{
	my ($table) = @_;
	return citus_on_placements($coord, $table, q{
		SELECT count(*) FROM gsst.dictionaries WHERE family =
		  (SELECT atttypmod FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'c')});
}

my $rows = gsst_rows(1, 8000);
my $md5 = md5_of_rows($rows);
$coord->safe_psql('postgres', q{
	CREATE TABLE staging (id int, c text);
	CREATE TABLE plain (id int PRIMARY KEY, c text);
	SELECT create_distributed_table('plain', 'id', shard_count => 4);
});
$coord->safe_psql('postgres', "COPY staging FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
$coord->safe_psql('postgres', 'INSERT INTO plain SELECT * FROM staging');

# ---- 1. SET COMPRESSION learns on each placement, from its rows ----

my ($rc, $stdout, $stderr) = $coord->psql('postgres',
	'BEGIN; ALTER TABLE plain ALTER COLUMN c SET COMPRESSION gsst; COMMIT;');
is($rc, 0, 'SET COMPRESSION gsst on a distributed table, in a transaction block');
like($stderr,
	qr/NOTICE:  column "c" of distributed table "plain" now uses compression method gsst\nDETAIL:  Each shard placement learned its dictionary from its own rows, on its node/,
	'the NOTICE says that the placements learned, each from its own rows');
unlike($stderr, qr/no values to learn from/, 'no "no values to learn from" for a table with rows');
is(dictionaries_per_placement('plain'), '1 1 1 1', 'every placement has a dictionary of its own family');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM gsst.dictionaries WHERE family =
	  (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'plain'::regclass AND attname = 'c')}),
	'0', 'the empty shell table on the coordinator learned nothing');

# ---- 2. compress_table says what each placement did ----

($rc, $stdout, $stderr) = $coord->psql('postgres', q{SELECT gsst.compress_table('plain')});
is($stdout, '8000', 'compress_table encodes every value of the placements');
like($stderr, qr/DETAIL:  shard \d+ on 127\.0\.0\.1:\d+: \d+ values encoded\n(shard \d+ on 127\.0\.0\.1:\d+: \d+ values encoded\n?){3}/,
	'its NOTICE says, per placement, the shard, its node and the values it encoded');
my $per_shard = 0;
$per_shard += $1 while $stderr =~ /shard \d+ on \S+: (\d+) values encoded/g;
is($per_shard, 8000, 'the placements add up to the sum');
is(gsst_table_md5($coord, 'plain'), $md5, 'plain: content equal to the source');

# ---- 3. gsst.load into a new distributed table: encoded from the first row ----

$coord->safe_psql('postgres', q{
	CREATE TABLE dist (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_distributed_table('dist', 'id', shard_count => 4);
	CREATE TABLE ref (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_reference_table('ref');
});
is($coord->safe_psql('postgres', q{SELECT gsst.load('dist', 'SELECT id, c FROM staging ORDER BY id')}),
	'8000', 'gsst.load into a new distributed table');
is(citus_sum_raw(citus_raw_per_placement($coord, 'dist')), 0,
	'every shard stored its first rows encoded: none is raw');
is(dictionaries_per_placement('dist'), '1 1 1 1', 'each placement learned one dictionary, before the rows');
is(citus_foreign_per_placement($coord, 'dist'), '0 0 0 0', "every value uses its own placement's family on its node");
is(gsst_table_md5($coord, 'dist'), $md5, 'dist: content equal to the source');

is($coord->safe_psql('postgres', q{SELECT gsst.load('ref', 'SELECT id, c FROM staging WHERE id <= 3000')}),
	'3000', 'gsst.load into a new reference table');
is(citus_sum_raw(citus_raw_per_placement($coord, 'ref')), 0,
	'every copy of the reference table is encoded from its first row');
is(citus_foreign_per_placement($coord, 'ref'), '0 0 0', 'each copy with its own family on its node');

# a placement that has a dictionary keeps it: no second one
is($coord->safe_psql('postgres',
		q{SELECT gsst.load('dist', 'SELECT id + 8000, c FROM staging WHERE id <= 100')}), '100',
	'a second load');
is(dictionaries_per_placement('dist'), '1 1 1 1', 'learns nothing new where a dictionary exists');

# ---- 4. gsst.learn: privileges checked on the coordinator first ----

$coord->safe_psql('postgres', q{
	CREATE TABLE fresh (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_distributed_table('fresh', 'id', shard_count => 2);
	CREATE ROLE reader LOGIN; GRANT SELECT ON fresh TO reader;
});
my $offsets = citus_log_offsets(@workers);
($rc, $stdout, $stderr) = $coord->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT gsst.learn('fresh', 'c', ARRAY['some text', 'more text']);",
	extra_params => [ '-U', 'reader' ]);
like($stderr, qr/ERROR:  42501: permission denied for table fresh/,
	'reader: gsst.learn on a distributed table is refused (insufficient_privilege)');
unlike(citus_log_since($offsets, @workers), qr/reader/, 'no worker saw a connection or command of the reader');
is(dictionaries_per_placement('fresh'), '0 0', 'no placement learned anything');
is($coord->safe_psql('postgres',
		q{SELECT gsst.learn('fresh', 'c', array_agg(c)) FROM (SELECT c FROM staging LIMIT 500) s}),
	'2', 'the owner: both placements learn from the sample');
is(dictionaries_per_placement('fresh'), '1 1', 'one dictionary each, of its own family');
is($coord->safe_psql('postgres',
		q{SELECT gsst.learn('fresh', 'c', array_agg(c)) FROM (SELECT c FROM staging LIMIT 500) s}),
	'', 'a second call learns nothing: every placement has a dictionary');

# ---- 5. while compress_table runs, each node shows its placements' progress ----

# An index whose function waits for an advisory lock that a session on
# worker1 holds: the rewrite of each shard there waits in its index rebuild,
# showing in pg_stat_progress_cluster, until that session ends.
for my $node ($coord, @workers)
{
	$node->safe_psql('postgres', q{
		SET citus.enable_ddl_propagation = off;
		CREATE FUNCTION wait_for_test(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS
		  $$BEGIN PERFORM pg_advisory_lock_shared(4242); PERFORM pg_advisory_unlock_shared(4242); RETURN t; END$$;
	});
}
$coord->safe_psql('postgres', q{
	CREATE TABLE slow (id int PRIMARY KEY, c text);
	SELECT create_distributed_table('slow', 'id', shard_count => 2);
	INSERT INTO slow SELECT id, c FROM staging WHERE id <= 2000;
	ALTER TABLE slow ALTER COLUMN c SET COMPRESSION gsst;
	CREATE INDEX slow_wait ON slow (wait_for_test(id::text));
});
my ($holder) = gsst_start_psql($workers[0], 'SELECT pg_advisory_lock(4242), pg_sleep(20)');
$workers[0]->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted})
  or die 'the advisory lock was not taken';
my ($compress, $cout, $cerr) = gsst_start_psql($coord, q{SELECT gsst.compress_table('slow')});
ok($workers[0]->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_progress_cluster
		WHERE relid::regclass::text ~ '^slow_\d+$' AND phase = 'rebuilding index'}),
	"pg_stat_progress_cluster on worker1 shows the rewrite of its shard of slow");
is($coord->safe_psql('postgres', 'SELECT count(*) FROM pg_stat_progress_cluster'), '0',
	'and the coordinator, which holds no shard of slow, shows none');
$workers[0]->safe_psql('postgres', q{
	SELECT pg_terminate_backend(pid) FROM pg_locks
	WHERE locktype = 'advisory' AND objid = 4242 AND mode = 'ExclusiveLock' AND granted});
$holder->finish;
$compress->finish;
like($$cout, qr/^2000$/m, 'the compress finishes once the lock is gone');
like($$cerr, qr/"slow": 2000 values encoded on 2 placements on 2 nodes\nDETAIL:  shard \d+ on 127\.0\.0\.1:\d+: \d+ values encoded\nshard \d+ on 127\.0\.0\.1:\d+: \d+ values encoded/,
	'with its summary, and what each placement did');

# ---- create_distributed_table of a table with rows ----

# The shards learn from a sample of the coordinator's table before Citus
# copies its rows into them: encoded from the first row.
$coord->safe_psql('postgres', q{
	CREATE TABLE local_rows (id int PRIMARY KEY, c text COMPRESSION gsst);
	INSERT INTO local_rows SELECT id, c FROM staging;
});
my $local_md5 = gsst_table_md5($coord, 'local_rows');
$coord->safe_psql('postgres', q{SELECT create_distributed_table('local_rows', 'id', shard_count => 4)});
is(gsst_table_md5($coord, 'local_rows'), $local_md5, 'local_rows: distributed with every value');
is(citus_sum_raw(citus_raw_per_placement($coord, 'local_rows')), 0,
	"every shard stored its first rows encoded, with a dictionary learned from the coordinator's rows");
is(citus_foreign_per_placement($coord, 'local_rows'), '0 0 0 0', "each with its own family on its node");

# A table made and filled in the distributing transaction cannot be read
# from another connection: its shards learn from their writes, as before.
$coord->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE same_xact (id int PRIMARY KEY, c text COMPRESSION gsst);
	INSERT INTO same_xact SELECT id, c FROM staging;
	SELECT create_distributed_table('same_xact', 'id', shard_count => 4);
	COMMIT;
});
is(gsst_table_md5($coord, 'same_xact'), gsst_table_md5($coord, 'staging'),
	'same_xact: distributed in the transaction that made it, with every value');
cmp_ok(citus_sum_raw(citus_raw_per_placement($coord, 'same_xact')), '>', 0,
	'its shards learned from their first rows, which stay raw');

done_testing();
