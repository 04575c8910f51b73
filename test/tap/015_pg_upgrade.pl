# pg_upgrade of a cluster with gsst columns.  Debian carries one major per
# suite, so old and new are the same major here: the binary-upgrade dump and
# restore (the extension rebuilt object by object, relation OIDs kept) and
# the data files carried over are what a change of major runs too.  Every
# stored byte, dictionary, family, index and privilege must come through,
# and the columns must go on encoding with their own dictionaries.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $old = gsst_node('old');
$old->start;

my $rows = gsst_rows(1, 6000);
my $md5 = md5_of_rows($rows);
$old->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE ROLE reader;
	CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE TABLE u (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE INDEX u_c ON u (c);
	GRANT SELECT ON t TO reader;
});
$old->safe_psql('postgres', "COPY t FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
$old->safe_psql('postgres', "COPY u FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");
is($old->safe_psql('postgres', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t"), $md5,
	'the old cluster holds the rows');
# t: a TOASTed value; u: a second dictionary after a retrain
$old->safe_psql('postgres', q{
	INSERT INTO t SELECT 100000, string_agg(c, ' ' ORDER BY id) FROM t WHERE id <= 2000;
	SELECT gsst.compress_table('u', retrain => true);
});

# what must come through, byte for byte
my %snapshot_sql = (
	't text'   => "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM t",
	'u text'   => "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM u",
	't stored' => "SELECT md5(string_agg(encode(gsst.datum(c), 'hex'), ',' ORDER BY id)) FROM t",
	'u stored' => "SELECT md5(string_agg(encode(gsst.datum(c), 'hex'), ',' ORDER BY id)) FROM u",
	'dictionaries' =>
	  "SELECT string_agg(id || ':' || family || ':' || md5(symbols), ',' ORDER BY id) FROM gsst.dictionaries",
	'column types' => q{SELECT string_agg(attrelid::regclass || '.' || attname || ' ' ||
		format_type(atttypid, atttypmod), ', ' ORDER BY attrelid::regclass::text)
		FROM pg_attribute WHERE attname = 'c' AND attrelid IN ('t'::regclass, 'u'::regclass)},
	'privileges' => "SELECT relacl FROM pg_class WHERE oid = 't'::regclass",
	'event triggers' =>
	  "SELECT string_agg(evtname || ' ' || evtenabled::text, ', ' ORDER BY evtname) FROM pg_event_trigger",
	'extension' => "SELECT extversion FROM pg_extension WHERE extname = 'gsst'");
my %before;
$before{$_} = $old->safe_psql('postgres', $snapshot_sql{$_}) for keys %snapshot_sql;
like($before{'dictionaries'}, qr/,.*,/, 'with three dictionaries (t, u, u retrained)');
my $toasted = $old->safe_psql('postgres',
	"SELECT pg_column_size(c) < octet_length(c::text) FROM t WHERE id = 100000");
is($toasted, 't', 'the long value is stored compressed');
$old->stop;

my $new = gsst_node('new');
my $bindir = $old->config_data('--bindir');
# pg_upgrade writes its scripts into the current directory
my $scratch = PostgreSQL::Test::Utils::tempdir;
chdir $scratch or die "chdir $scratch: $!";
command_ok(
	[
		"$bindir/pg_upgrade", '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-s', $new->host, '-p', $old->port, '-P', $new->port
	],
	'pg_upgrade of a cluster with gsst columns');

$new->start;
for my $what (sort keys %snapshot_sql)
{
	is($new->safe_psql('postgres', $snapshot_sql{$what}), $before{$what}, "$what: the same after the upgrade");
}

# the index answers through the index
my $probe = $rows->[1234][1];
$probe =~ s/'/''/g;
is( $new->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM u WHERE c = '$probe'"),
	'1', 'the index on a gsst column finds a value');
like(
	$new->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) SELECT count(*) FROM u WHERE c = '$probe'"),
	qr/Index Only Scan using u_c|Index Scan using u_c/,
	'by an index scan');

# new writes encode with the column's own current dictionary
$new->safe_psql('postgres',
	'INSERT INTO t SELECT id + 100000, c::text FROM t WHERE id <= 500; INSERT INTO u SELECT id + 200000, c::text FROM u WHERE id <= 500');
# (t's first rows stay raw: they were written before it learned)
for my $table ('t', 'u')
{
	my $family = $new->safe_psql('postgres',
		"SELECT atttypmod FROM pg_attribute WHERE attrelid = '$table'::regclass AND attname = 'c'");
	is( $new->safe_psql('postgres', qq{
			SELECT count(*) FROM $table WHERE id > 100000
			   AND gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text, $family))}),
		'0', "$table: rows written after the upgrade are stored as per-row encoding stores them");
	is( $new->safe_psql('postgres', qq{
			SELECT array_agg(DISTINCT gsst.value_dictionary(c))
			     = (SELECT array_agg(DISTINCT gsst.value_dictionary(c)) FROM $table WHERE id BETWEEN 5000 AND 6000)
			FROM $table WHERE id > 100000}),
		't', "$table: with the dictionary its last rows had before");
}

# the DDL guard and the families work in the upgraded cluster
$new->safe_psql('postgres', q{
	ALTER TABLE t ADD COLUMN note text;
	ALTER TABLE t ALTER COLUMN note SET COMPRESSION gsst;
});
is( $new->safe_psql('postgres', q{
		SELECT count(DISTINCT atttypmod) FROM pg_attribute
		WHERE attrelid = 't'::regclass AND attname IN ('c', 'note')}),
	'2', 'a new gsst column gets a family of its own');
$new->stop;

done_testing();
