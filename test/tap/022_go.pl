# lib/pq, as Debian ships it (golang-github-lib-pq-dev, built offline with
# golang-go), on a gsst column with no setup: test/clients/go reads every
# value (a query, and a prepared statement three times), scans into
# interface{}, finds a row through the index with a string parameter, scans
# a gsst[] with pq.Array, and writes through parameters and COPY.  Go and
# the driver are test dependencies (make deps-test): without them this test
# fails, it is not skipped.
use strict;
use warnings;
use utf8;

use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $pq = '/usr/share/gocode/src/github.com/lib/pq';
gsst_client_needs("$pq/conn.go", 'golang-github-lib-pq-dev', [ 'go', 'version' ], 'golang-go');

my $node = gsst_node('go');
$node->start;

my ($extra, $md5) = gsst_client_tables($node);

# build where the test may write: the module, a build cache and a module
# cache of its own, no network (the replace in go.mod names Debian's copy)
my $dir = "$PostgreSQL::Test::Utils::tmp_check/go";
mkdir $dir;
copy("test/clients/go/$_", "$dir/$_") or die "copy $_: $!" for qw(go.mod gsst_libpq.go);
local $ENV{GOFLAGS} = '-mod=mod';
local $ENV{GOPROXY} = 'off';
local $ENV{GOTOOLCHAIN} = 'local';
local $ENV{GOCACHE} = "$dir/cache";
local $ENV{GOPATH} = "$dir/gopath";
local $ENV{HOME} = $dir;
my $dsn = sprintf('host=%s port=%d dbname=postgres user=%s sslmode=disable',
	$node->host, $node->port, $ENV{USER} // getpwuid($<));
my %found = gsst_client_findings('the Go program',
	[ 'sh', '-c', 'cd "$1" && exec go run . "$2"', 'go', $dir, $dsn ], 300);

is($found{done}, 'yes', 'it ran to the end');
is($found{read_query}, $md5, 'a query gives every value');
is($found{"read_prepared_$_"}, $md5, "a prepared statement gives every value (run $_)") for 0 .. 2;
is($found{scan_any_type}, '[]uint8', 'a scan into interface{} gives []byte');
is($found{scan_any_value}, $extra->[0][1], 'holding the text');
is($found{lookup_ids}, '3002', 'a string parameter finds the row');
like($found{lookup_plan}, qr/Index (Only )?Scan using t_c_idx/, "through the index ($found{lookup_plan})");
like($found{range_plan}, qr/Index (Only )?Scan using t_c_idx/, "a range and ORDER BY too ($found{range_plan})");
is($found{array}, '<a><><Zoë><null><東京>', 'pq.Array of a gsst[] gives the strings, empty and NULL included');

my $w = $node->safe_psql('postgres', q{SELECT string_agg(id || ':' || coalesce(c::text, '<null>'), ',' ORDER BY id) FROM w});
utf8::decode($w);
is($w, '1:,2:Zoë,3:東京,4:<null>,5:plain ascii,11:,12:Zoë,13:東京,14:<null>,15:plain ascii',
	'parameters and COPY write the text into a gsst column');

done_testing();
