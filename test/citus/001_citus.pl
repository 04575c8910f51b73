# gsst on Citus: a coordinator and two workers on loopback, with
# shared_preload_libraries = 'citus,gsst' and both extensions created (citus
# first).  Any failure to load or set up Citus fails the suite.
#
# gsst.compress_table, gsst.train and gsst.column_stats called on the
# coordinator for a distributed or reference table work on every shard
# placement; on a shard, or on a plain table, they act locally.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;
use CitusTest;

my ($coord, @workers) = citus_cluster(2);
my @nodes = ($coord, @workers);

is($coord->safe_psql('postgres',
		"SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary'"),
	'3', 'the coordinator and two workers are in the cluster');
for my $node (@nodes)
{
	is($node->safe_psql('postgres',
			q{SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname IN ('citus', 'gsst')}),
		'citus,gsst', $node->name . ': citus and gsst');
}

# ---- a distributed table: COPY through the coordinator, SET COMPRESSION ----

my $rows = gsst_rows(1, 20000);
my $md5 = md5_of_rows($rows);
$coord->safe_psql('postgres', q{
	CREATE TABLE dist (id int PRIMARY KEY, c text);
	SELECT create_distributed_table('dist', 'id', shard_count => 8);
});
$coord->safe_psql('postgres', "COPY dist FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
is(gsst_table_md5($coord, 'dist'), $md5, 'dist: COPY through the coordinator');
$coord->safe_psql('postgres', 'ALTER TABLE dist ALTER COLUMN c SET COMPRESSION gsst');
is($coord->safe_psql('postgres',
		q{SELECT count(DISTINCT result) FROM run_command_on_shards('dist',
		    $$SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'c'$$)}),
	'1', 'dist: every shard has a gsst column');

is($coord->safe_psql('postgres', q{
		SELECT bool_and(n = families) FROM (
		  SELECT nodeport, count(*) AS n, count(DISTINCT result) AS families
		  FROM run_command_on_placements('dist',
		    $$SELECT atttypmod FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'c'$$)
		  GROUP BY nodeport) f}),
	't', "dist: each shard's column has a family of its own on its node");

my $raw_before = citus_raw_per_placement($coord, 'dist');
is(scalar(split / /, $raw_before), 8, 'dist: eight placements');
my $filenodes = citus_on_placements($coord, 'dist', q{SELECT pg_relation_filenode('%s')});

# ---- an unprivileged role: refused on the coordinator, nothing sent ----

$coord->safe_psql('postgres', 'CREATE ROLE intruder LOGIN');
is($workers[0]->safe_psql('postgres', q{SELECT count(*) FROM pg_roles WHERE rolname = 'intruder'}),
	'1', 'the role exists on the workers too');
my $offsets = citus_log_offsets(@workers);
my %calls = (
	'compress_table' => q{SELECT gsst.compress_table('dist')},
	'train' => q{SELECT gsst.train('dist', 'c')},
	'column_stats' => q{SELECT * FROM gsst.column_stats('dist')},
);
for my $what (sort keys %calls)
{
	my ($rc, $stdout, $stderr) = $coord->psql('postgres',
		"\\set VERBOSITY verbose\n$calls{$what};",
		extra_params => [ '-U', 'intruder' ]);
	like($stderr, qr/ERROR:  42501:/, "intruder: $what of dist is refused (insufficient_privilege)");
}
unlike(citus_log_since($offsets, @workers), qr/intruder/,
	'no worker saw a connection or command of the intruder');
is(citus_on_placements($coord, 'dist', q{SELECT pg_relation_filenode('%s')}), $filenodes,
	'no placement was rewritten');
is(citus_raw_per_placement($coord, 'dist'), $raw_before, 'no placement changed');

# The same check sees a call that does reach the workers.
$coord->safe_psql('postgres', 'GRANT SELECT ON dist TO intruder');
$offsets = citus_log_offsets(@workers);
$coord->safe_psql('postgres', q{SELECT * FROM gsst.column_stats('dist')},
	extra_params => [ '-U', 'intruder' ]);
like(citus_log_since($offsets, @workers), qr/connection authorized: user=intruder/,
	'with SELECT granted, column_stats of the intruder reaches the workers');
$coord->safe_psql('postgres', 'REVOKE SELECT ON dist FROM intruder');

# ---- compress_table from the coordinator ----

my ($rc, $stdout, $stderr) = $coord->psql('postgres', 'BEGIN; SELECT gsst.compress_table(\'dist\'); ROLLBACK;',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($stderr, qr/25001: gsst.compress_table of a distributed table cannot run inside a transaction block/,
	'compress_table of a distributed table refuses a transaction block');
($rc, $stdout, $stderr) = $coord->psql('postgres', 'BEGIN; SELECT gsst.train(\'dist\', \'c\'); ROLLBACK;',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($stderr, qr/25001: gsst.train of a distributed table cannot run inside a transaction block/,
	'train of a distributed table refuses a transaction block');

($rc, $stdout, $stderr) = $coord->psql('postgres', q{SELECT gsst.compress_table('dist')});
is($rc, 0, 'compress_table(dist) on the coordinator');
is($stdout, citus_sum_raw($raw_before), 'it returns the values encoded, summed over the placements');
is($stdout, '20000', 'which are all the rows');
like($stderr, qr/"dist": 20000 values encoded on 8 placements on 2 nodes/, 'its summary NOTICE');
my $raw_after = citus_raw_per_placement($coord, 'dist');
like($raw_after, qr{^0/\d+( 0/\d+){7}$}, "every shard's values are encoded ($raw_after)");
is(gsst_table_md5($coord, 'dist'), $md5, 'dist: content unchanged');

# column_stats: the shards' figures, summed
my $stats = $coord->safe_psql('postgres', q{
	SELECT column_name, "values", encoded_values, raw_bytes, stored_bytes, dictionaries IS NULL
	FROM gsst.column_stats('dist')});
my $sums = $coord->safe_psql('postgres', q{
	SELECT 'c', sum(split_part(result, ' ', 1)::int8), sum(split_part(result, ' ', 2)::int8),
	       sum(split_part(result, ' ', 3)::int8), sum(split_part(result, ' ', 4)::int8), true
	FROM run_command_on_shards('dist',
	  $$SELECT concat_ws(' ', "values", encoded_values, raw_bytes, stored_bytes) FROM gsst.column_stats('%s')$$)});
is($stats, $sums, "column_stats(dist) sums the shards' ($stats)");
is($coord->safe_psql('postgres', q{SELECT raw_bytes = (SELECT sum(octet_length(c::text)) FROM dist) FROM gsst.column_stats('dist')}),
	't', 'raw_bytes is the text length of every row');

# A second run finds every value current.
is($coord->safe_psql('postgres', q{SELECT gsst.compress_table('dist')}), '0',
	'a second compress_table has nothing to encode');

# ---- train on every placement ----

my $family_dicts = q{SELECT count(*) FROM gsst.dictionaries WHERE family =
	(SELECT atttypmod FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'c')};
my @before = split / /, citus_on_placements($coord, 'dist', $family_dicts);
is($coord->safe_psql('postgres', q{SELECT gsst.train('dist', 'c')}), '8',
	'train(dist) returns the placements that learned a dictionary');
my @after = split / /, citus_on_placements($coord, 'dist', $family_dicts);
is_deeply(\@after, [ map { $_ + 1 } @before ], 'each placement has one more dictionary');
is($coord->safe_psql('postgres', q{SELECT gsst.compress_table('dist')}), '20000',
	'compress_table re-encodes every value with the new dictionaries');
is(gsst_table_md5($coord, 'dist'), $md5, 'dist: content unchanged');

# ---- a logical shard move; compress_table afterwards ----

my ($mshard, $from) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT shardid, nodeport FROM pg_dist_shard JOIN pg_dist_shard_placement USING (shardid)
	WHERE logicalrelid = 'dist'::regclass ORDER BY shardid LIMIT 1});
my ($to) = grep { $_ != $from } map { $_->port } @workers;
$coord->safe_psql('postgres', "SELECT citus_move_shard_placement($mshard, '127.0.0.1', $from, "
	  . "'127.0.0.1', $to, shard_transfer_mode => 'force_logical')");
is(gsst_table_md5($coord, 'dist'), $md5, 'dist: a logical shard move keeps every value');
my $moved_raw = citus_raw_per_placement($coord, 'dist');
note("after moving shard $mshard from $from to $to: $moved_raw");
is($coord->safe_psql('postgres', q{SELECT gsst.compress_table('dist')}), citus_sum_raw($moved_raw),
	'compress_table encodes what the move left raw');
like(citus_raw_per_placement($coord, 'dist'), qr{^0/\d+( 0/\d+){7}$}, "every shard's values are encoded again");
is(gsst_table_md5($coord, 'dist'), $md5, 'dist: content unchanged');

# ---- a reference table: a copy on every node ----

my $refrows = gsst_rows(1, 3000);
$coord->safe_psql('postgres', q{
	CREATE TABLE ref (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_reference_table('ref');
});
$coord->safe_psql('postgres', "COPY ref FROM STDIN;\n" . gsst_copy_text($refrows) . "\\.\n");
my $ref_raw = citus_raw_per_placement($coord, 'ref');
is(scalar(split / /, $ref_raw), 3, 'ref: a placement on each of the three nodes');
cmp_ok(citus_sum_raw($ref_raw), '>', 0, "ref: its first values are raw ($ref_raw)");
is($coord->safe_psql('postgres', q{SELECT gsst.compress_table('ref')}), citus_sum_raw($ref_raw),
	'compress_table(ref) returns the values encoded on all three placements');
like(citus_raw_per_placement($coord, 'ref'), qr{^0/3000 0/3000 0/3000$}, 'every copy is encoded');
is($coord->safe_psql('postgres', q{SELECT "values", encoded_values FROM gsst.column_stats('ref')}),
	'3000|3000', 'column_stats(ref) counts the table once');
is(gsst_table_md5($coord, 'ref'), md5_of_rows($refrows), 'ref: content unchanged');

# ---- a placement's failure names its shard and node ----

$coord->safe_psql('postgres', q{
	CREATE TABLE broken (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_distributed_table('broken', 'id', shard_count => 2);
	INSERT INTO broken VALUES (1, 'one'), (2, 'two'), (3, 'three');
});
my ($shard, $shard_name, $port) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT shardid, shard_name('broken'::regclass, shardid), nodeport
	FROM pg_dist_shard JOIN pg_dist_shard_placement USING (shardid)
	WHERE logicalrelid = 'broken'::regclass ORDER BY shardid LIMIT 1});
my ($holder) = grep { $_->port == $port } @workers;
$holder->safe_psql('postgres', qq{
	SET citus.enable_manual_changes_to_shards = on;
	ALTER TABLE $shard_name ALTER COLUMN c TYPE text});
($rc, $stdout, $stderr) = $coord->psql('postgres', q{SELECT gsst.compress_table('broken', 'c')},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($stderr, qr/38000: gsst.compress_table failed on shard $shard of "broken" on 127.0.0.1:$port/,
	'a failing placement: the error names the shard and its node');
like($stderr, qr/DETAIL:  1 of 2 placements failed.\nshard $shard on 127.0.0.1:$port: column "c" of relation "broken_$shard" is not a gsst column/,
	"and the detail has the placement's error");

# ---- names that need quoting, made from the catalogs ----

$coord->safe_psql('postgres', q{
	CREATE SCHEMA "odd schema";
	CREATE TABLE "odd schema"."Tab % 'x" (id int PRIMARY KEY, "c % 'q" text COMPRESSION gsst);
	SELECT create_distributed_table('"odd schema"."Tab % ''x"', 'id', shard_count => 2);
});
$coord->safe_psql('postgres', qq{COPY "odd schema"."Tab % 'x" FROM STDIN;\n}
	  . gsst_copy_text(gsst_rows(1, 500)) . "\\.\n");
is($coord->safe_psql('postgres', q{SELECT gsst.train('"odd schema"."Tab % ''x"', 'c % ''q')}), '2',
	'train of a column whose names need quoting');
($rc, $stdout, $stderr) = $coord->psql('postgres',
	q{SELECT gsst.compress_table('"odd schema"."Tab % ''x"', 'c % ''q')});
is($rc, 0, 'compress_table of a table whose names need quoting');
is($stdout, '500', 'it encodes every value');
is($coord->safe_psql('postgres', q{SELECT "values", encoded_values FROM gsst.column_stats('"odd schema"."Tab % ''x"')}),
	'500|500', 'column_stats of it');

# ---- a plain table, and a shard on its worker: as without Citus ----

$coord->safe_psql('postgres', q{
	CREATE TABLE plain (id int PRIMARY KEY, c text COMPRESSION gsst);
	INSERT INTO plain SELECT i, 'plain value ' || i || ' of the coordinator' FROM generate_series(1, 3000) i;
});
my $plain_raw = $coord->safe_psql('postgres',
	'SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) FROM plain');
($rc, $stdout, $stderr) = $coord->psql('postgres', q{SELECT gsst.compress_table('plain')});
is($stdout, $plain_raw, 'plain: compress_table returns its values encoded');
like($stderr, qr/"plain": 3000 rows written/, 'plain: the rewrite NOTICE of a local table');
is($coord->safe_psql('postgres', q{SELECT "values", encoded_values, cardinality(dictionaries) FROM gsst.column_stats('plain')}),
	'3000|3000|1', 'plain: column_stats lists its dictionary');
my $id = $coord->safe_psql('postgres', q{SELECT gsst.train('plain', 'c')});
is($coord->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE id = $id"), '1',
	'plain: train returns the id of the new dictionary');
is($coord->safe_psql('postgres', q{BEGIN; SELECT gsst.compress_table('plain'); ROLLBACK;}), '3000',
	'plain: compress_table runs in a transaction block');

my ($dshard, $dport) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT shard_name('dist'::regclass, shardid), nodeport
	FROM pg_dist_shard JOIN pg_dist_shard_placement USING (shardid)
	WHERE logicalrelid = 'dist'::regclass ORDER BY shardid LIMIT 1});
my ($dholder) = grep { $_->port == $dport } @workers;
my $shard_id = $dholder->safe_psql('postgres', "SELECT gsst.train('$dshard', 'c')");
is($dholder->safe_psql('postgres', "SELECT count(*) FROM gsst.dictionaries WHERE id = $shard_id"), '1',
	'a shard on its worker: train returns the id of its new dictionary');
is($dholder->safe_psql('postgres',
		"SELECT \"values\" > 0 AND cardinality(dictionaries) > 0 FROM gsst.column_stats('$dshard')"),
	't', 'a shard on its worker: column_stats lists its dictionaries');
($rc, $stdout, $stderr) = $dholder->psql('postgres', "SELECT gsst.compress_table('$dshard')");
like($stderr, qr/rows written/, 'a shard on its worker: compress_table rewrites it locally');

done_testing();
