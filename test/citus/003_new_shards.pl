# A shard that Citus creates on a node that already holds shards of the
# same table (a move, a split) starts with a dictionary of theirs: its
# values are encoded from its first row, with no compress_table after.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;
use CitusTest;

my ($coord, @workers) = citus_cluster(2);

my $rows = gsst_rows(1, 20000);
my $md5 = md5_of_rows($rows);
$coord->safe_psql('postgres', q{
	SET citus.shard_count = 4;
	CREATE TABLE dist (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_distributed_table('dist', 'id');
});
$coord->safe_psql('postgres', "COPY dist FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
$coord->safe_psql('postgres', q{SELECT gsst.compress_table('dist')});

# raw/all values of each placement, by shard then node
sub raw_per_placement
{
	return $coord->safe_psql('postgres', q{
		SELECT string_agg(result, ' ' ORDER BY shardid, nodename, nodeport)
		FROM run_command_on_placements('dist',
			$$SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) || '/' || count(*) FROM %s$$)});
}

like(raw_per_placement(), qr{^0/\d+( 0/\d+){3}$}, 'every shard is encoded');

sub shard_on
{
	my ($port) = @_;
	return $coord->safe_psql('postgres', qq{
		SELECT shardid FROM pg_dist_shard JOIN pg_dist_shard_placement USING (shardid)
		WHERE logicalrelid = 'dist'::regclass AND nodeport = $port ORDER BY shardid LIMIT 1});
}

# 1. moves, logical and blocking: the target node holds other shards of dist
my ($p1, $p2) = map { $_->port } @workers;
for my $mode ('force_logical', 'block_writes')
{
	my $shard = shard_on($p1);
	$coord->safe_psql('postgres', "SELECT citus_move_shard_placement($shard, '127.0.0.1', $p1, "
		  . "'127.0.0.1', $p2, shard_transfer_mode => '$mode')");
	like(raw_per_placement(), qr{^0/\d+( 0/\d+){3}$},
		"a shard moved with $mode is encoded from its first row");
	is(gsst_table_md5($coord, 'dist'), $md5, "and keeps every value ($mode)");
	($p1, $p2) = ($p2, $p1);
}

# 2. a split: both children start with the parent's node's dictionary
my ($shard, $min, $max, $nodeid) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT s.shardid, s.shardminvalue, s.shardmaxvalue, n.nodeid
	FROM pg_dist_shard s JOIN pg_dist_shard_placement p USING (shardid)
	JOIN pg_dist_node n ON n.nodeport = p.nodeport
	WHERE s.logicalrelid = 'dist'::regclass ORDER BY s.shardid LIMIT 1});
my $mid = int(($min + $max) / 2);
$coord->safe_psql('postgres', "SELECT citus_split_shard_by_split_points($shard, ARRAY['$mid'], "
	  . "ARRAY[$nodeid, $nodeid], shard_transfer_mode => 'block_writes')");
like(raw_per_placement(), qr{^0/\d+( 0/\d+){4}$}, 'the two halves of a split shard are encoded from their first row');
is(gsst_table_md5($coord, 'dist'), $md5, 'and keep every value');

# 3. a shard's own family: the copy is a dictionary of its own, on its node
my $families = $coord->safe_psql('postgres', q{
	SELECT count(DISTINCT result) = count(*)
	FROM run_command_on_placements('dist',
		$$SELECT nodename || ':' || atttypmod FROM pg_attribute, inet_server_port() nodename
		  WHERE attrelid = '%s'::regclass AND attname = 'c'$$)});
is($families, 't', 'each placement keeps a family of its own');

done_testing();
