# Compressing a table online with pg_repack: after SET COMPRESSION gsst,
# pg_repack -t rewrites the table while others write to it.  Every row
# comes out encoded with the column's own family: the repack's copy table
# learns no family or dictionary of its own, however often it runs.  The
# owner keeps the table and its grants; pg_repack needs a superuser, and a
# role that may create tables in pg_repack's schema cannot use a copy of
# its own to reach the column's family.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);
use GsstTest;

my $rows = 20000;

my $node = gsst_node('repack');
$node->start;
my $major = int($node->safe_psql('postgres', 'SHOW server_version_num') / 10000);

# pg_repack must be there for the major under test: never skip silently
my ($pg_repack) = grep { -x "$_/pg_repack" } split(/:/, $ENV{PATH});
my $has_ext = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_repack'");
if (!defined $pg_repack || $has_ext ne '1')
{
	fail("pg_repack for PostgreSQL $major is missing (program in PATH: "
		  . (defined $pg_repack ? 'yes' : 'no')
		  . ", extension: " . ($has_ext eq '1' ? 'yes' : 'no')
		  . "): install the package postgresql-$major-repack");
	done_testing();
	exit;
}
$pg_repack .= '/pg_repack';

sub sql { return $node->safe_psql('postgres', $_[0]); }

sub repack
{
	my (@args) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ $pg_repack, '-h', $node->host, '-p', $node->port,
			'-d', 'postgres', @args ], '>', \$out, '2>', \$err);
	return ($ok, $out . $err);
}

sub quote { my $v = shift; $v =~ s/'/''/g; return "'$v'"; }

sql(q{
	CREATE EXTENSION gsst;
	CREATE EXTENSION pg_repack;
	CREATE ROLE alice LOGIN;
	CREATE ROLE bob LOGIN;
	CREATE ROLE mallory LOGIN;
	GRANT CREATE ON SCHEMA public TO alice;
});

# alice's table, loaded as text, then SET COMPRESSION gsst: old rows stay raw
my %expected = map { $_->[0] => $_->[1] } @{ gsst_rows(1, $rows) };
$node->safe_psql('postgres', 'SET ROLE alice; CREATE TABLE r (id int PRIMARY KEY, c text)');
$node->safe_psql('postgres',
	"SET ROLE alice;\nCOPY r FROM STDIN;\n" . gsst_copy_text(gsst_rows(1, $rows)) . "\\.\n");
$node->safe_psql('postgres', q{
	SET ROLE alice;
	ALTER TABLE r ALTER c SET COMPRESSION gsst;
	GRANT SELECT, INSERT, UPDATE, DELETE ON r TO bob;});
my $family = sql("SELECT atttypmod FROM pg_attribute WHERE attrelid = 'r'::regclass AND attname = 'c'");
ok($family > 0, "the column is gsst($family)");
is(sql('SELECT count(*) FROM gsst.dictionaries'), '1', 'SET COMPRESSION trained one dictionary');
my $dict = sql('SELECT id FROM gsst.dictionaries');
my $acl = sql("SELECT relowner::regrole || ' ' || relacl::text FROM pg_class WHERE oid = 'r'::regclass");
my $encoded_sql = 'SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL) FROM r';
cmp_ok(sql($encoded_sql), '<', $rows / 10, 'before the repack, old rows are raw');

sub expected_md5
{
	return md5_of_rows([ map { [ $_, $expected{$_} ] } keys %expected ]);
}

# What no repack may leave behind: a family or dictionary besides the column's.
sub check_families
{
	my ($when) = @_;
	is(sql('SELECT count(*) FROM gsst.dictionaries'), '1', "$when: no new dictionary");
	is(sql("SELECT count(*) FROM gsst.dictionaries WHERE family <> $family"), '0',
		"$when: no dictionary of another family");
	is(sql("SELECT format_type(atttypid, atttypmod) FROM pg_attribute
			 WHERE attrelid = 'r'::regclass AND attname = 'c'"),
		"gsst($family)", "$when: the column keeps its family");
	is(sql("SELECT count(*) FROM pg_attribute a JOIN pg_class k ON k.oid = a.attrelid
			 WHERE format_type(a.atttypid, a.atttypmod) LIKE 'gsst(%' AND a.attnum > 0
			   AND NOT a.attisdropped AND k.relkind = 'r'"),
		'1', "$when: no other table carries a gsst column (the copy is gone)");
	is(sql("SELECT count(*) FROM r WHERE gsst.value_dictionary(c) IS DISTINCT FROM $dict
			  AND gsst.value_dictionary(c) IS NOT NULL"),
		'0', "$when: every encoded row refers to the column's dictionary");
	is(gsst_mismatches($node, 'r'), '0',
		"$when: every row is stored as per-row encoding with the column's dictionary stores it");
	is(gsst_table_md5($node, 'r'), expected_md5(), "$when: content equal");
	is(sql("SELECT relowner::regrole || ' ' || relacl::text FROM pg_class WHERE oid = 'r'::regclass"),
		$acl, "$when: owner and grants kept");
}

#
# 1. pg_repack while bob inserts, updates and deletes.
#
my $writer = $node->background_psql('postgres');
$writer->query_safe('SET ROLE bob');
my ($in, $out, $err) = ('', '', '');
my $repack = IPC::Run::start(
	[ $pg_repack, '-h', $node->host, '-p', $node->port, '-d', 'postgres', '-t', 'r' ],
	\$in, '>', \$out, '2>', \$err);
my ($writes, $during, $next) = (0, 0, $rows + 1);
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
while (time < $deadline && $writes < 20000)
{
	$repack->pump_nb;
	last unless $repack->pumpable;
	my $new = gsst_rows($next, 1)->[0];
	my $upd_id = 1 + ($writes * 7919) % $rows;
	my $upd = gsst_rows($upd_id + 100000, 1)->[0][1];
	my $del_id = 1 + ($writes * 104729 + 13) % $rows;
	$del_id = 0 if $del_id == $upd_id;	# a statement writes a row once
	# one statement, one snapshot: did the repack's trigger see these writes?
	my $seen = $writer->query_safe(
		"WITH i AS (INSERT INTO r VALUES ($new->[0], " . quote($new->[1]) . ") RETURNING 1),
		      u AS (UPDATE r SET c = " . quote($upd) . " WHERE id = $upd_id RETURNING 1),
		      d AS (DELETE FROM r WHERE id = $del_id RETURNING 1)
		 SELECT EXISTS (SELECT FROM pg_trigger
						 WHERE tgrelid = 'r'::regclass AND tgname = 'repack_trigger')
		   FROM (SELECT count(*) FROM i) a, (SELECT count(*) FROM u) b, (SELECT count(*) FROM d) e");
	$expected{ $new->[0] } = $new->[1];
	$expected{$upd_id} = $upd if exists $expected{$upd_id};
	delete $expected{$del_id};
	$next++;
	$writes++;
	$during++ if $seen eq 't';
}
ok($repack->finish, 'pg_repack -t r succeeded') or diag("$out\n$err");
$writer->quit;
cmp_ok($during, '>', 0, "bob wrote while the repack ran ($during of $writes writes went through its log)");
cmp_ok(sql($encoded_sql), '>', 0.95 * sql('SELECT count(*) FROM r'),
	'after the repack, the rows are encoded');
check_families('first repack');

#
# 2. A second repack: still nothing of its own.
#
my ($ok, $log) = repack('-t', 'r');
ok($ok, 'a second pg_repack succeeded') or diag($log);
check_families('second repack');

# alice, the owner, still has every right on her column
is($node->safe_psql('postgres', "SET ROLE alice; SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM r"),
	expected_md5(), 'the owner reads her table');
$node->safe_psql('postgres', "SET ROLE alice; INSERT INTO r VALUES (0, "
	  . quote(gsst_rows(3, 1)->[0][1] . ' again') . ")");
is(sql('SELECT gsst.value_dictionary(c) FROM r WHERE id = 0'), $dict,
	"the owner's new rows use the column's dictionary");
is($node->safe_psql('postgres', 'SET ROLE bob; SELECT count(*) FROM r WHERE id > 0'),
	scalar(keys %expected), 'a grantee reads it');

#
# 3. Who may repack: pg_repack needs a superuser.
#
my $relfilenode = sql("SELECT relfilenode FROM pg_class WHERE oid = 'r'::regclass");
($ok, $log) = repack('-U', 'mallory', '-t', 'r');
like($log, qr/must be a superuser/, 'a non-superuser cannot run pg_repack');
($ok, $log) = repack('-U', 'mallory', '-k', '-t', 'r');
like($log, qr/permission denied/, 'nor with --no-superuser-check: the schema repack is not his');
($ok, $log) = repack('-U', 'alice', '-k', '-t', 'r');
like($log, qr/permission denied/, 'nor can the owner herself');
is(sql("SELECT relfilenode FROM pg_class WHERE oid = 'r'::regclass"), $relfilenode,
	'the table was not rewritten');

#
# 4. A role given CREATE on pg_repack's schema makes a "copy" of alice's
#    table there: it learns a family of its own and never writes into hers.
#
my $oid = sql("SELECT 'r'::regclass::oid");
sql('GRANT USAGE, CREATE ON SCHEMA repack TO mallory; GRANT SELECT ON r TO mallory');
my ($rc, $stdout, $stderr) = $node->psql('postgres', qq{
	SET ROLE mallory;
	CREATE TABLE repack.table_$oid AS SELECT id, c FROM ONLY r WITH NO DATA;
	INSERT INTO repack.table_$oid SELECT id, c::text FROM r WHERE id <= 3000;
	INSERT INTO repack.table_$oid VALUES (-1, 'mallory\@example.com wants the symbols');});
is($rc, 0, 'the role fills a table named like a repack copy') or diag($stderr);
isnt(sql("SELECT atttypmod FROM pg_attribute WHERE attrelid = 'repack.table_$oid'::regclass AND attname = 'c'"),
	$family, "its column has a family of its own");
is(sql("SELECT count(*) FROM repack.table_$oid t JOIN gsst.dictionaries d ON d.id = gsst.value_dictionary(t.c)
		 WHERE d.family = $family"),
	'0', "none of its rows is encoded with alice's family");
is(sql("SELECT count(*) FROM gsst.dictionaries WHERE family = $family"), '1',
	"alice's family gained no dictionary");
sql("DROP TABLE repack.table_$oid; REVOKE USAGE, CREATE ON SCHEMA repack FROM mallory; REVOKE SELECT ON r FROM mallory");

done_testing();
