# Without gsst in shared_preload_libraries there is no DDL hook: COMPRESSION
# gsst fails with an error that says what to do; the type itself works.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $node = gsst_node('nopreload', preload => 0);
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE TABLE plain (c text);
	CREATE TABLE typed (c gsst);
	INSERT INTO typed VALUES ('the type works without preloading');
});

my ($ret, $out, $err) = $node->psql('postgres',
	'CREATE TABLE t (c text COMPRESSION gsst)', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'CREATE TABLE ... COMPRESSION gsst fails');
like($err, qr/55000: compression method gsst needs gsst in shared_preload_libraries/, 'error says why');
like($err, qr/HINT:  Add gsst to shared_preload_libraries/, 'hint says what to do');

($ret, $out, $err) = $node->psql('postgres', 'ALTER TABLE plain ALTER COLUMN c SET COMPRESSION gsst');
like($err, qr/needs gsst in shared_preload_libraries/, 'SET COMPRESSION gsst fails the same way');
($ret, $out, $err) = $node->psql('postgres', 'ALTER TABLE plain ADD COLUMN d text COMPRESSION gsst');
like($err, qr/needs gsst in shared_preload_libraries/, 'ADD COLUMN ... COMPRESSION gsst too');
($ret, $out, $err) = $node->psql('postgres', 'ALTER TABLE typed ALTER COLUMN c SET COMPRESSION pglz');
like($err, qr/needs gsst in shared_preload_libraries/, 'SET COMPRESSION pglz on a gsst column too');
($ret, $out, $err) = $node->psql('postgres', 'CREATE TABLE other (c text COMPRESSION lz4)');
is($ret, 0, 'other compression methods are untouched');

is($node->safe_psql('postgres', 'SELECT c FROM typed'), 'the type works without preloading',
	'a gsst column works');
is($node->safe_psql('postgres', "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'typed'::regclass AND attname = 'c'"),
	'gsst', 'without the hook a gsst column has no family');

# with the library preloaded, the same statement works
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'gsst'");
$node->restart;
$node->safe_psql('postgres', 'CREATE TABLE t (c text COMPRESSION gsst)');
like($node->safe_psql('postgres', "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 't'::regclass AND attname = 'c'"),
	qr/^gsst\(\d+\)$/, 'after preloading, COMPRESSION gsst maps to gsst(family)');

done_testing();
