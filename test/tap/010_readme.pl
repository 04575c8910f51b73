# Every SQL example of README.md runs when pasted in order into a new
# database, as the README promises.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

# make test-tap copies it beside test/
my $readme = 'README.md';
ok(-f $readme, "found $readme") or BAIL_OUT('README.md not found beside test/');

my @blocks;
my $current;
open my $fh, '<:encoding(UTF-8)', $readme or die "could not read $readme: $!";
while (my $line = <$fh>)
{
	if (!defined $current && $line =~ /^```sql\s*$/)
	{
		$current = '';
	}
	elsif (defined $current && $line =~ /^```\s*$/)
	{
		push @blocks, $current;
		undef $current;
	}
	elsif (defined $current)
	{
		$current .= $line;
	}
}
close $fh;
cmp_ok(scalar(@blocks), '>=', 4, 'README.md has SQL examples');

my $node = gsst_node('readme');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE readme');
$node->safe_psql('readme', 'CREATE EXTENSION gsst');
my $n = 0;
for my $sql (@blocks)
{
	$n++;
	my ($rc, $out, $err) = $node->psql('readme', $sql, on_error_stop => 1);
	is($rc, 0, "example $n runs") or diag("$sql\n$err");
}

done_testing();
