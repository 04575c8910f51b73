# gsst on Citus: a coordinator and two workers on loopback, with
# shared_preload_libraries = 'citus,gsst' and both extensions created (citus
# first).  Any failure to load or set up Citus fails the suite.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

# A node that Citus reaches on 127.0.0.1, as the others do.
sub citus_node
{
	my ($name) = @_;
	my $node = gsst_node($name, preload => 0);
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'citus,gsst'
listen_addresses = '127.0.0.1'
max_prepared_transactions = 20
wal_level = logical
log_connections = on
log_line_prefix = '%m [%p] %u '
citus.node_conninfo = 'sslmode=disable'
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION citus; CREATE EXTENSION gsst;');
	return $node;
}

my $coord = citus_node('coordinator');
my @workers = map { citus_node("worker$_") } (1, 2);

$coord->safe_psql('postgres',
	"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')')
  for @workers;
is($coord->safe_psql('postgres',
		"SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary'"),
	'3', 'the coordinator and two workers are in the cluster');
is($coord->safe_psql('postgres',
		q{SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname IN ('citus', 'gsst')}),
	'citus,gsst', 'citus and gsst on the coordinator');
is($_->safe_psql('postgres',
		q{SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname IN ('citus', 'gsst')}),
	'citus,gsst', $_->name . ': citus and gsst')
  for @workers;

done_testing();
