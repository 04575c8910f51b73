# Helpers shared by the gsst TAP tests.
package GsstTest;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use Exporter 'import';
use Encode ();
use IPC::Run;
use Test::More;

our @EXPORT = qw(gsst_node gsst_rows gsst_copy_text md5_of_rows gsst_mismatches
  gsst_table_md5 gsst_dsm_segments gsst_start_psql gsst_client_tables
  gsst_client_findings gsst_client_needs);

# A UTF-8 cluster with gsst preloaded (unless preload => 0).
sub gsst_node
{
	my ($name, %params) = @_;
	my $preload = exists $params{preload} ? delete $params{preload} : 1;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(extra => [ '--encoding=UTF8', '--no-locale' ], %params);
	# a batch region of 128 MB, not 1 GB: the worker takes memory for it
	# in clusters that encode on its CPU, and tests run several clusters
	$node->append_conf('postgresql.conf',
		"shared_preload_libraries = 'gsst'\ngsst.batch_region = '128MB'")
	  if $preload;
	$node->append_conf('postgresql.conf', "log_statement = none");
	return $node;
}

# Deterministic values that look like e-mail addresses, URLs and comments,
# with some multi-byte text: row $i of a data set.
sub gsst_rows
{
	my ($first, $count) = @_;
	my @words = qw(alpha bravo charlie delta echo foxtrot golf hotel india
	  juliet kilo lima mike november oscar papa quebec romeo sierra tango);
	my @domains = qw(example.com mail.org web.de posteo.net gmx.at);
	my @rows;
	for my $i ($first .. $first + $count - 1)
	{
		my $w1 = $words[ ($i * 7) % @words ];
		my $w2 = $words[ ($i * 13 + 3) % @words ];
		my $d  = $domains[ $i % @domains ];
		my $v;
		if ($i % 3 == 0)
		{
			$v = "$w1.$w2$i\@$d";
		}
		elsif ($i % 3 == 1)
		{
			$v = "https://www.$d/$w1/$w2?id=$i&lang=de";
		}
		else
		{
			$v = "the $w1 and the $w2 met at café nº $i — größer als $w1";
		}
		push @rows, [ $i, $v ];
	}
	return \@rows;
}

# COPY text format for rows [id, value].
sub gsst_copy_text
{
	my ($rows) = @_;
	return join('', map { "$_->[0]\t$_->[1]\n" } @$rows);
}

# What md5(string_agg(c, E'\n' ORDER BY id)) returns for these rows.
sub md5_of_rows
{
	my ($rows) = @_;
	require Digest::MD5;
	my $s = join("\n", map { $_->[1] } sort { $a->[0] <=> $b->[0] } @$rows);
	utf8::encode($s) if utf8::is_utf8($s);
	return Digest::MD5::md5_hex($s);
}

# Rows of $table whose column c is stored other than per-row encoding with
# the current table stores it: 0 when a bulk path gave the same bytes.
sub gsst_mismatches
{
	my ($node, $table) = @_;
	my $family = $node->safe_psql('postgres',
		"SELECT atttypmod FROM pg_attribute WHERE attrelid = '$table'::regclass AND attname = 'c'");
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM $table WHERE c IS NOT NULL
		   AND gsst.datum(c) IS DISTINCT FROM gsst.datum(gsst.compress(c::text, $family))");
}

# md5 of column c of $table in id order, comparable with md5_of_rows.
sub gsst_table_md5
{
	my ($node, $table) = @_;
	return $node->safe_psql('postgres', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM $table");
}

# DSM segments of the cluster (dynamic_shared_memory_type = mmap: files).
sub gsst_dsm_segments
{
	my ($node) = @_;
	my $dir = $node->data_dir . '/pg_dynshmem';
	opendir(my $dh, $dir) or die "could not open $dir: $!";
	my @files = grep { !/^\./ } readdir($dh);
	closedir($dh);
	return scalar(@files);
}

# Run $sql in a psql of its own; returns the handle and refs to its output.
sub gsst_start_psql
{
	my ($node, $sql) = @_;
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', $sql ],
		\$in, \$out, \$err);
	return ($h, \$out, \$err);
}

# The client tests' tables: t, 3000 generated rows and the values of
# @$extra (non-ASCII, empty, NULL), compressed and indexed on c; w, empty,
# for the client to write into.  Returns $extra and the server's md5 of
# "id:value\n" of t in id order (NULL as \N), as the clients digest it.
sub gsst_client_tables
{
	my ($node) = @_;
	# character strings (this file is read as bytes)
	my @extra = map { [ $_->[0], defined $_->[1] ? Encode::decode('UTF-8', $_->[1]) : undef ] } (
		[ 3001, '日本語のテキストを圧縮する — 東京都千代田区丸の内一丁目' ],
		[ 3002, 'emoji 🐘🐘 elephant ünïcödé ∑ ≠ ∞' ],
		[ 3003, '' ],
		[ 3004, undef ],
		[ 3005, 'user1000@example.com' ]);
	my $load = "CREATE EXTENSION gsst;\n"
	  . "CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);\n"
	  . "CREATE TABLE w (id int PRIMARY KEY, c text COMPRESSION gsst);\n"
	  . "COPY t FROM STDIN;\n" . gsst_copy_text(gsst_rows(1, 3000)) . "\\.\n";
	for my $r (@extra)
	{
		my $v = defined $r->[1] ? "'$r->[1]'" : 'NULL';
		$load .= "INSERT INTO t VALUES ($r->[0], $v);\n";
	}
	$load .= "SELECT gsst.compress_table('t');\nCREATE INDEX ON t (c);\nANALYZE t;\n";
	utf8::encode($load);
	$node->safe_psql('postgres', $load);
	cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE gsst.value_dictionary(c) IS NOT NULL'),
		'>', 2500, 'most values are encoded');
	my $md5 = $node->safe_psql('postgres',
		q{SELECT md5(string_agg(id || ':' || coalesce(c::text, '\N') || E'\n', '' ORDER BY id)) FROM t});
	return (\@extra, $md5);
}

# Run a client program (@$cmd, at most $timeout seconds) that prints one
# "name=value" line per finding; passes if it ran, and returns the findings
# as character strings.
sub gsst_client_findings
{
	my ($what, $cmd, $timeout) = @_;
	my ($out, $err) = ('', '');
	my $ran = eval { IPC::Run::run($cmd, '>', \$out, '2>', \$err, IPC::Run::timeout($timeout)) };
	ok($ran, "$what ran") or diag("stdout:\n$out\nstderr:\n$err");
	utf8::decode($out);
	return map { /^([a-z_0-9]+)=(.*)$/ ? ($1, $2) : () } split /\n/, $out;
}

# A client test's dependencies: $file (the driver, as its package installs
# it) and a tool that answers @$version_cmd; each a test that fails, with
# the package to install, when it is missing.
sub gsst_client_needs
{
	my ($file, $driver_package, $version_cmd, $tool_package) = @_;
	my ($out, $err) = ('', '');

	ok(-f $file, "$driver_package: $file") or diag("install $driver_package (make deps-test does)");
	my $ran = eval { IPC::Run::run($version_cmd, '>', \$out, '2>', \$err) };
	ok($ran, "$version_cmd->[0]: " . (("$out$err" =~ /^(.*)$/m)[0] // 'none'))
	  or diag("install $tool_package (make deps-test does)");
	return;
}

1;
