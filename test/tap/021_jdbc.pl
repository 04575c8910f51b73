# pgjdbc, as Debian ships it (libpostgresql-jdbc-java), on a gsst column with
# no setup: test/clients/java/GsstJdbc.java, run with Java's single-file
# source launcher, reads every value with getString (simple and extended
# protocol), finds a row through the index with a setString parameter,
# writes through setString and reads a gsst[] with getArray.  The JDK and
# the driver are test dependencies (make deps-test): without them this
# test fails, it is not skipped.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $jar = '/usr/share/java/postgresql.jar';
gsst_client_needs($jar, 'libpostgresql-jdbc-java', [ 'java', '-version' ], 'default-jdk-headless');

my $node = gsst_node('jdbc');
$node->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'");
$node->start;

my ($extra, $md5) = gsst_client_tables($node);

my $url = sprintf('jdbc:postgresql://127.0.0.1:%d/postgres?user=%s', $node->port, $ENV{USER} // getpwuid($<));
my %found = gsst_client_findings('GsstJdbc.java',
	[ 'java', '-cp', $jar, 'test/clients/java/GsstJdbc.java', $url ], 180);

is($found{done}, 'yes', 'it ran to the end');
is($found{read_statement}, $md5, 'getString gives every value (simple query)');
is($found{"read_prepared_$_"}, $md5, "getString gives every value (prepared statement, run $_)") for 0 .. 2;
like($found{column_type}, qr/^"?gsst"?$/, "getColumnTypeName says gsst ($found{column_type})");
is($found{get_object_class}, 'org.postgresql.util.PGobject', 'getObject gives a PGobject');
is($found{get_object_value}, $extra->[0][1], 'whose getValue() is the text');
is($found{lookup_ids}, '3002', 'a setString parameter finds the row');
like($found{lookup_plan}, qr/Index (Only )?Scan using t_c_idx/, "through the index ($found{lookup_plan})");
like($found{range_plan}, qr/Index (Only )?Scan using t_c_idx/, "a range and ORDER BY too ($found{range_plan})");
is($found{array}, '<a><><Zoë><null><東京>', 'getArray of a gsst[] gives the strings, empty and NULL included');

my $w = $node->safe_psql('postgres', q{SELECT string_agg(id || ':' || coalesce(c::text, '<null>'), ',' ORDER BY id) FROM w});
utf8::decode($w);
is($w, '1:,2:Zoë,3:東京,4:<null>,5:plain ascii', 'setString writes the text into a gsst column');

done_testing();
