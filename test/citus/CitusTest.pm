# Helpers of the Citus suite: a coordinator and workers on loopback.
package CitusTest;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Exporter 'import';
use GsstTest;

our @EXPORT = qw(citus_cluster citus_add_worker citus_log_offsets citus_log_since
  citus_on_placements citus_raw_per_placement citus_sum_raw citus_foreign_per_placement
  citus_md5_per_placement);

# A node with citus and gsst preloaded and created (citus first), which the
# other nodes reach on 127.0.0.1.  Connections are logged with their role.
sub citus_node
{
	my ($name) = @_;
	my $node = gsst_node($name, preload => 0);
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'citus,gsst'
listen_addresses = '127.0.0.1'
max_prepared_transactions = 20
wal_level = logical
max_wal_senders = 10
max_replication_slots = 10
log_connections = on
log_line_prefix = '%m [%p] %u '
citus.node_conninfo = 'sslmode=disable'
citus.enable_statistics_collection = off
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION citus; CREATE EXTENSION gsst;');
	return $node;
}

# A coordinator (in the metadata, so that reference tables have a copy on
# it) and $nworkers workers; dies when Citus cannot be loaded or set up.
sub citus_cluster
{
	my ($nworkers) = @_;
	my $coord = citus_node('coordinator');
	my @workers = map { citus_node("worker$_") } (1 .. $nworkers);
	$coord->safe_psql('postgres',
		"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
	$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')')
	  for @workers;
	return ($coord, @workers);
}

# A new worker $name, added to $coord's cluster.
sub citus_add_worker
{
	my ($coord, $name) = @_;
	my $worker = citus_node($name);
	$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $worker->port . ')');
	return $worker;
}

# Where each node's log ends now.
sub citus_log_offsets
{
	return [ map { -s $_->logfile } @_ ];
}

# What the nodes logged since $offsets, concatenated.
sub citus_log_since
{
	my ($offsets, @nodes) = @_;
	return join('', map { slurp_file($nodes[$_]->logfile, $offsets->[$_]) } 0 .. $#nodes);
}

# One value per placement of $table, by shard then node: $command's %s is
# the shard.
sub citus_on_placements
{
	my ($coord, $table, $command) = @_;
	return $coord->safe_psql('postgres', qq{
		SELECT string_agg(CASE WHEN success THEN result ELSE 'FAILED: ' || result END, ' '
		                  ORDER BY shardid, nodename, nodeport)
		FROM run_command_on_placements('$table', \$cmd\$$command\$cmd\$)});
}

# Raw values of column c on each placement of $table, as "raw/all" words.
sub citus_raw_per_placement
{
	my ($coord, $table) = @_;
	return citus_on_placements($coord, $table,
		q{SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) || '/' || count(*) FROM %s});
}

# The raw values of citus_raw_per_placement's words, summed.
sub citus_sum_raw
{
	my $sum = 0;
	$sum += (split m{/})[0] for split / /, $_[0];
	return $sum;
}

# Per placement of $table, its encoded values of column c whose dictionary
# is not one of its own column's family on its node.
sub citus_foreign_per_placement
{
	my ($coord, $table) = @_;
	return citus_on_placements($coord, $table, q{
		SELECT count(*) FROM %1$s WHERE gsst.value_dictionary(c) NOT IN
		  (SELECT id FROM gsst.dictionaries WHERE family =
		     (SELECT atttypmod FROM pg_attribute WHERE attrelid = '%1$s'::regclass AND attname = 'c'))});
}

# md5 of column c of each placement of $table, in id order.
sub citus_md5_per_placement
{
	my ($coord, $table) = @_;
	return citus_on_placements($coord, $table, q{SELECT md5(string_agg(c::text, E'\n' ORDER BY id)) FROM %s});
}

1;
