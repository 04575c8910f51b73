# node-postgres as Debian ships it (node-pg, with Debian's nodejs), on a gsst
# column with no setup: test/clients/node/gsst_pg.js reads every value (a
# query, and a named prepared statement three times), finds a row through
# the index with a string parameter, reads a gsst[] (its text with no setup,
# an array with text[]'s parser), and writes through parameters.
#
# node-pg and nodejs are test dependencies (make deps-test): without them
# this test fails.  One case skips, and says so: a nodejs from outside
# Debian (NodeSource's), which Debian's node-pg cannot be installed beside,
# since its native part is built for Debian's nodejs.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use GsstTest;

my $pg = '/usr/share/nodejs/pg/package.json';
if (!-f $pg)
{
	my $foreign = '';
	IPC::Run::run([ 'test/clients/node/foreign_nodejs.sh' ], '>', \$foreign);
	chomp $foreign;
	plan skip_all => "node-pg needs Debian's nodejs, and this machine's nodejs $foreign is not Debian's"
	  if $foreign ne '';
}
gsst_client_needs($pg, 'node-pg', [ 'node', '--version' ], 'nodejs');

my $node = gsst_node('node');
$node->start;

my ($extra, $md5) = gsst_client_tables($node);

local $ENV{PGHOST} = $node->host;
local $ENV{PGPORT} = $node->port;
local $ENV{PGUSER} = $ENV{USER} // getpwuid($<);
local $ENV{PGDATABASE} = 'postgres';
my %found = gsst_client_findings('gsst_pg.js', [ 'node', 'test/clients/node/gsst_pg.js' ], 120);

is($found{done}, 'yes', 'it ran to the end');
is($found{read_query}, $md5, 'a query gives every value');
is($found{"read_prepared_$_"}, $md5, "a prepared statement gives every value (run $_)") for 0 .. 2;
is($found{value_type}, 'string', 'a value is a string');
is($found{value}, $extra->[0][1], 'holding the text');
is($found{lookup_ids}, '3002', 'a string parameter finds the row');
like($found{lookup_plan}, qr/Index (Only )?Scan using t_c_idx/, "through the index ($found{lookup_plan})");
like($found{range_plan}, qr/Index (Only )?Scan using t_c_idx/, "a range and ORDER BY too ($found{range_plan})");
is($found{array_raw}, '{a,"",Zoë,NULL,東京}', 'a gsst[] with no setup gives its text');
is($found{array}, '<a><><Zoë><null><東京>', "text[]'s parser reads it, empty string and NULL included");
is($found{array_param}, '<><Zoë><東京><null><plain ascii>', 'an array parameter reaches a gsst[]');

my $w = $node->safe_psql('postgres', q{SELECT string_agg(id || ':' || coalesce(c::text, '<null>'), ',' ORDER BY id) FROM w});
utf8::decode($w);
is($w, '1:,2:Zoë,3:東京,4:<null>,5:plain ascii', 'parameters write the text into a gsst column');

done_testing();
