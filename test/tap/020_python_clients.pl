# The Python package clients/python (gsst.psycopg, gsst.psycopg2,
# gsst.asyncpg, gsst.sqlalchemy): its tests, clients/python/tests, run
# against a node with gsst, from the source tree (PYTHONPATH, no install).
# The drivers are test dependencies (python3-psycopg, python3-psycopg2,
# python3-asyncpg, python3-sqlalchemy): a missing one fails this test.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use GsstTest;

# make test-tap copies clients/ beside test/
my $package = 'clients/python';
ok(-f "$package/gsst/__init__.py", "found $package")
  or BAIL_OUT("$package not found beside test/");

my %debian = (
	psycopg => 'python3-psycopg',
	psycopg2 => 'python3-psycopg2',
	asyncpg => 'python3-asyncpg',
	sqlalchemy => 'python3-sqlalchemy');
my @modules = sort keys %debian;

# A python3 with every driver: the one on PATH, else Debian's.
my $probe = join('',
	'import importlib, sys', "\n",
	'for m in sys.argv[1:]:', "\n",
	'    try:', "\n",
	'        print(m, getattr(importlib.import_module(m), "__version__", "?").split(" ")[0])', "\n",
	'    except Exception as e:', "\n",
	'        print(m, "MISSING")', "\n");
my ($python, $best, %versions);
for my $candidate ('python3', '/usr/bin/python3')
{
	my ($out, $err) = ('', '');
	next unless eval { IPC::Run::run([ $candidate, '-c', $probe, @modules ], '>', \$out, '2>', \$err) };
	my %found = map { split / /, $_, 2 } split /\n/, $out;
	my $have = grep { ($found{$_} // 'MISSING') ne 'MISSING' } @modules;
	if (!defined $best || $have > $best)
	{
		($python, $best, %versions) = ($candidate, $have, %found);
	}
	last if $have == @modules;
}
ok(defined $python, 'found python3') or BAIL_OUT('no python3');
my @missing = grep { ($versions{$_} // 'MISSING') eq 'MISSING' } @modules;
is(join(' ', @missing), '', "$python has every driver: "
	  . join(', ', map { "$_ " . ($versions{$_} // '?') } @modules))
  or diag('missing: ' . join(' ', map { "$_ (Debian: $debian{$_})" } @missing)
	  . '; make deps-test installs them');

my $node = gsst_node('python_clients');
$node->start;

# 10,000 rows: generated ones, then the values that drivers' array and COPY
# formats quote or escape (tests/common.py's SPECIAL), NULLs, a long one
my @rows = @{ gsst_rows(1, 9980) };
my @special = (
	'', 'Zoë', '東京', 'NULL', 'null', 'a,b', '{x}', '"q"', 'back\\slash',
	' lead and trail ', "tab\there", "new\nline", '🐘 elephant',
	undef, undef, '', 'Ελληνικά κείμενα και русский текст, ' x 200, 'a', 'ZOË zoë',
	'user1000@example.com');
is(scalar(@rows) + scalar(@special), 10000, '10,000 values');

sub sql_literal
{
	my ($v) = @_;
	return 'NULL' unless defined $v;
	$v =~ s/'/''/g;
	return "'$v'";
}

my $id = scalar(@rows);
$node->safe_psql('postgres',
	"CREATE EXTENSION gsst;\n"
	  . "CREATE TABLE clients_data (id int PRIMARY KEY, t text, c text COMPRESSION gsst);\n"
	  . "COPY clients_data FROM STDIN;\n"
	  . join('', map { "$_->[0]\t$_->[1]\t$_->[1]\n" } @rows)
	  . "\\.\n"
	  . join('', map { $id++; my $l = sql_literal($_); "INSERT INTO clients_data VALUES ($id, $l, $l);\n" }
		  @special));
my ($count, $empty, $nulls, $multibyte, $differ) = split /\|/, $node->safe_psql('postgres',
	q{SELECT count(*), count(*) FILTER (WHERE c = ''), count(*) FILTER (WHERE c IS NULL),
			 count(*) FILTER (WHERE octet_length(c) > char_length(c)),
			 count(*) FILTER (WHERE t IS DISTINCT FROM c::text)
	  FROM clients_data});
is($count, 10000, 'clients_data has 10,000 rows');
is("$empty $nulls", '2 2', 'two empty strings and two NULLs among them');
cmp_ok($multibyte, '>', 3000, 'and over 3,000 values with multi-byte characters');
is($differ, 0, 'column t holds what column c holds');
like($node->safe_psql('postgres',
		q{SELECT format_type(atttypid, atttypmod) FROM pg_attribute
		  WHERE attrelid = 'clients_data'::regclass AND attname = 'c'}),
	qr/^gsst\(\d+\)$/, 'c is a gsst(N) column');
cmp_ok($node->safe_psql('postgres',
		'SELECT count(*) FROM clients_data WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'>', 8000, 'and most of its values are encoded');

# gsst in a schema off the search_path, and a database without gsst
$node->safe_psql('postgres', 'CREATE DATABASE gsst_schema');
$node->safe_psql('postgres', 'CREATE DATABASE gsst_noext');
$node->safe_psql('gsst_schema', 'CREATE SCHEMA ext; CREATE EXTENSION gsst SCHEMA ext');

my $user = $node->safe_psql('postgres', 'SELECT current_user');
my ($host, $port) = ($node->host, $node->port);
my %dsn = (
	GSST_TEST_DSN => 'postgres',
	GSST_TEST_DSN_SCHEMA => 'gsst_schema',
	GSST_TEST_DSN_NOEXT => 'gsst_noext');
local %ENV = (
	%ENV,
	(map { $_ => "postgresql://$user\@/$dsn{$_}?host=$host&port=$port" } keys %dsn),
	PYTHONPATH => '.',
	PYTHONDONTWRITEBYTECODE => '1');

my $out = '';
my $ok = eval {
	IPC::Run::run([ $python, '-m', 'tests' ], '>&', \$out,
		init => sub { chdir $package or die "could not chdir to $package: $!" },
		IPC::Run::timeout(600));
};
my ($rc, $signal) = ($? >> 8, $? & 127);
is($@, '', 'the tests ran to their end within 600 s');
if ($ok) { note($out) } else { diag($out . ($@ // '')) }
is($signal, 0, 'the tests were not killed by a signal');
is($rc, 0, 'python3 -m tests exits 0');

my @failed = $out =~ /^FAILED: (\S+)/mg;
is(join(', ', @failed), '', 'no Python test failed');
my ($passed) = $out =~ /^(\d+) passed, \d+ failed, \d+ skipped$/m;
cmp_ok($passed // 0, '>=', 50, 'at least 50 Python tests passed');

# the only skip allowed: SQLAlchemy 1.4 has no psycopg (3) dialect
my @skipped = $out =~ /^skipped: (.*)$/mg;
for my $skip (@skipped)
{
	like($skip, qr/^setUpClass \(tests\.test_sqlalchemy\.Psycopg\): SQLAlchemy 1\.\d+\.\d+ has no psycopg \(3\) dialect/,
		"skip allowed: $skip");
}

# the issue's cases, each by name
my %passed = map { $_ => 1 } $out =~ /^ok: (\S+)/mg;
ok($passed{"tests.$_"}, "passed: $_")
  for qw(
  test_psycopg.Unregistered.test_binary_mode_returns_bytes
  test_psycopg.Unregistered.test_copy_cannot_name_gsst
  test_psycopg.Registered.test_values_text_and_binary
  test_psycopg.Registered.test_arrays
  test_psycopg.Registered.test_copy_out_set_types
  test_psycopg.Registered.test_copy_in_set_types
  test_psycopg.Registered.test_parameters
  test_psycopg.Schemas.test_extension_in_another_schema
  test_psycopg2.Unregistered.test_array_is_one_string
  test_psycopg2.Registered.test_arrays
  test_psycopg2.Registered.test_parameters
  test_asyncpg.Unregistered.test_copy_records_to_table_fails
  test_asyncpg.Registered.test_arrays
  test_asyncpg.Registered.test_copy_records_to_table
  test_asyncpg.Registered.test_parameters
  test_asyncpg.OtherSchema.test_extension_in_another_schema
  test_sqlalchemy.WithoutTheModule.test_null_type_and_warning
  test_sqlalchemy.WithoutTheModule.test_text_takes_the_family_as_a_length
  test_sqlalchemy.Psycopg2.test_reflection
  test_sqlalchemy.Psycopg2.test_comparisons
  test_sqlalchemy.Psycopg2.test_create_insert_select);

done_testing();
