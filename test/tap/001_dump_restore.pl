# pg_dump / pg_restore of gsst columns and dictionaries into a fresh database;
# a single table dumped with pg_dump -t restored into another database and
# into the same one, where its declared family is taken; partitioned tables.
use strict;
use warnings;
use utf8;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use GsstTest;

# Run a command; returns (succeeded, stdout, stderr).
sub run_capture
{
	my ($cmd) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run($cmd, '>', \$out, '2>', \$err);
	return ($ok ? 1 : 0, $out, $err);
}

# Restore a plain SQL file with psql, stopping at the first error.
sub psql_file
{
	my ($node, $db, $file) = @_;
	return run_capture([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $file,
		'-d', $node->connstr($db) ]);
}

# Run a restore command with its notices, and the statements that raised
# them, written to the server log (pg_dump's SQL sets client_min_messages
# to warning, so the client does not see them).  Returns (succeeded,
# stdout, stderr, { relation => family } for every column the restore gave
# a family other than the one it declared).
sub restore_logged
{
	my ($node, $run) = @_;
	my $offset = -s $node->logfile;
	local $ENV{PGOPTIONS} = '-c log_min_messages=notice -c log_min_error_statement=notice';
	my ($ok, $out, $err) = $run->();
	my $log = substr(slurp_file($node->logfile), $offset);
	my %remapped;
	while ($log =~ /NOTICE:  column "[^"]+" gets gsst family (\d+): family \d+ belongs[^\n]*\n(?:[^\n]*DETAIL:[^\n]*\n)?[^\n]*STATEMENT:\s+(?:CREATE|ALTER) TABLE (?:ONLY )?(\S+)/g)
	{
		$remapped{$2} = $1;
	}
	note("restore NOTICE: $_") for ($log =~ /(NOTICE:  column .*)/g);
	return ($ok, $out, $err, \%remapped);
}

# Deterministic e-mail addresses: row $i of the customers.
sub customer_rows
{
	my ($first, $count) = @_;
	my @given = qw(anna ben clara david emma felix greta hans ida jonas karla
	  lukas marie noah olga paul);
	my @family = qw(mueller schmidt schneider fischer weber meyer wagner becker
	  schulz hoffmann koch richter);
	my @domains = qw(example.com mail.example.org shop.example.net corp.example.de);
	my @rows;
	for my $i ($first .. $first + $count - 1)
	{
		push @rows, [ $i, sprintf('%s.%s%d@%s', $given[ $i % @given ],
			$family[ ($i * 7) % @family ], $i, $domains[ ($i * 3) % @domains ]) ];
	}
	return \@rows;
}

# Free text that looks nothing like the e-mail addresses: row $i of notes.
sub note_rows
{
	my ($first, $count) = @_;
	my @subjects = qw(invoice shipment refund warranty meeting contract delivery);
	my @verbs = ('was postponed', 'arrived damaged', 'needs a signature',
		'is overdue', 'was approved', 'got lost in transit');
	my @rows;
	for my $i ($first .. $first + $count - 1)
	{
		push @rows, [ $i, sprintf('Note %d: the %s %s; call back before Friday, ticket #%05d.',
			$i, $subjects[ $i % @subjects ], $verbs[ ($i * 5) % @verbs ], ($i * 31) % 100000) ];
	}
	return \@rows;
}

sub atttypmod
{
	my ($node, $db, $rel, $col) = @_;
	return $node->safe_psql($db, "SELECT atttypmod FROM pg_attribute WHERE attrelid = '$rel'::regclass AND attname = '$col'");
}

# "id:md5(symbols)" of every dictionary of a family, by id.
sub family_dicts
{
	my ($node, $db, $family) = @_;
	return $node->safe_psql($db, "SELECT coalesce(string_agg(id || ':' || md5(symbols), ',' ORDER BY id), '')
		FROM gsst.dictionaries WHERE family = $family");
}

# "rows|encoded|encoded with a dictionary of the column's family|encoded
# with any other dictionary" for column $col of $rel.
sub encoding_of
{
	my ($node, $db, $rel, $col, $where) = @_;
	$where //= 'true';
	return $node->safe_psql($db, "
		SELECT count(*),
		       count(*) FILTER (WHERE gsst.value_dictionary(v.$col) IS NOT NULL),
		       count(*) FILTER (WHERE d.family = a.atttypmod),
		       count(*) FILTER (WHERE gsst.value_dictionary(v.$col) IS NOT NULL
		                          AND d.family IS DISTINCT FROM a.atttypmod)
		FROM $rel v
		LEFT JOIN gsst.dictionaries d ON d.id = gsst.value_dictionary(v.$col)
		CROSS JOIN (SELECT atttypmod FROM pg_attribute
		            WHERE attrelid = '$rel'::regclass AND attname = '$col') a
		WHERE $where");
}

sub md5_of
{
	my ($node, $db, $rel, $col) = @_;
	return $node->safe_psql($db, "SELECT md5(string_agg($col, E'\\n' ORDER BY id)) FROM $rel");
}

my $node = gsst_node('dump');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', 'CREATE EXTENSION gsst');

# customers is the first gsst column of src, as notes is of database
# "other" below: both get the same family, which the single-table restore
# of customers into "other" then finds taken
my $customers = customer_rows(1, 20000);
$node->safe_psql('src', 'CREATE TABLE public.customers (id int PRIMARY KEY, email text COMPRESSION gsst)');
$node->safe_psql('src', "COPY public.customers (id, email) FROM STDIN;\n" . gsst_copy_text($customers) . "\\.\n");
my $customers_md5 = md5_of_rows($customers);
my $cust_family = atttypmod($node, 'src', 'public.customers', 'email');
is(md5_of($node, 'src', 'public.customers', 'email'), $customers_md5, 'customers hold their data');

my $rows = gsst_rows(1, 3000);
my $copy = gsst_copy_text($rows);
# "aaa" sorts before schema gsst: its data is restored before the
# dictionaries and makes its column learn a table during the restore
$node->safe_psql('src', q{
	CREATE SCHEMA aaa;
	CREATE TABLE aaa.early (id int PRIMARY KEY, c text COMPRESSION gsst);
	CREATE TABLE public.t (id int PRIMARY KEY, c text COMPRESSION gsst, n int);
	CREATE TABLE public.conv (id int PRIMARY KEY, c text);
});
$node->safe_psql('src', "COPY aaa.early (id, c) FROM STDIN;\n$copy\\.\n");
$node->safe_psql('src', "COPY public.t (id, c) FROM STDIN;\n$copy\\.\n");
$node->safe_psql('src', "COPY public.conv (id, c) FROM STDIN;\n$copy\\.\n");
$node->safe_psql('src', q{
	ALTER TABLE public.conv ALTER COLUMN c SET COMPRESSION gsst;
	SELECT gsst.train('public.t', 'c');
	CREATE INDEX ON public.t (c);
});
$node->safe_psql('src', "INSERT INTO public.t (id, c) VALUES (5000, 'after retraining')");
# "zzz" sorts after schema gsst, and its column never learned: in the
# restore it learns after the dictionaries were restored, in the same
# transaction when the restore is a single one
$node->safe_psql('src', 'CREATE SCHEMA zzz; CREATE TABLE zzz.late (id int PRIMARY KEY, c text COMPRESSION gsst)');
$node->safe_psql('src', "SET gsst.learn_sample_bytes = 0;\nCOPY zzz.late (id, c) FROM STDIN;\n$copy\\.\n");
is($node->safe_psql('src', 'SELECT count(*) FROM zzz.late WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'0', 'zzz.late has no dictionary in the source');

# a partitioned gsst table: pg_dump writes its partitions as CREATE TABLE
# ... gsst(F) and ALTER TABLE ONLY parts ATTACH PARTITION
my $parts = gsst_rows(1, 4000);
$node->safe_psql('src', q{
	CREATE TABLE public.parts (id int, c text COMPRESSION gsst) PARTITION BY RANGE (id);
	CREATE TABLE public.parts_1 PARTITION OF public.parts FOR VALUES FROM (1) TO (2001);
	CREATE TABLE public.parts_2 PARTITION OF public.parts FOR VALUES FROM (2001) TO (4001);
});
$node->safe_psql('src', "COPY public.parts (id, c) FROM STDIN;\n" . gsst_copy_text($parts) . "\\.\n");
my $parts_md5 = md5_of_rows($parts);
my $parts_sql = q{SELECT string_agg(a.attrelid::regclass || ' ' || format_type(a.atttypid, a.atttypmod)
		|| CASE WHEN a.atttypmod = p.atttypmod THEN ' parent' ELSE ' other' END, ', ' ORDER BY a.attrelid::regclass::text)
	FROM pg_attribute a, pg_attribute p
	WHERE p.attrelid = 'public.parts'::regclass AND p.attname = 'c' AND a.attname = 'c'
	AND a.attrelid IN (SELECT 'public.parts'::regclass UNION ALL
	                   SELECT inhrelid FROM pg_inherits WHERE inhparent = 'public.parts'::regclass)};
my $parts_types = $node->safe_psql('src', $parts_sql);
like($parts_types, qr/^parts gsst\(\d+\) parent, parts_1 gsst\(\d+\) parent, parts_2 gsst\(\d+\) parent$/,
	"source partitions carry the parent's family: $parts_types");
is(md5_of($node, 'src', 'public.parts', 'c'), $parts_md5, 'parts hold their data');

my $expect = md5_of_rows($rows);
for my $tbl (qw(aaa.early public.conv))
{
	is($node->safe_psql('src', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM $tbl"),
		$expect, "$tbl holds the data before the dump");
}
my $dicts = $node->safe_psql('src', 'SELECT count(*) FROM gsst.dictionaries');
cmp_ok($dicts, '>=', 6, "source has $dicts dictionaries");

my $types_sql = q{SELECT string_agg(attrelid::regclass || '.' || attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attrelid::regclass::text)
	FROM pg_attribute WHERE attrelid IN ('aaa.early'::regclass, 'public.t'::regclass, 'public.conv'::regclass)
	AND attname = 'c'};
my $types = $node->safe_psql('src', $types_sql);
my $customers_type_sql = q{SELECT format_type(atttypid, atttypmod) FROM pg_attribute
	WHERE attrelid = 'public.customers'::regclass AND attname = 'email'};
my $customers_type = $node->safe_psql('src', $customers_type_sql);

my $dump = $PostgreSQL::Test::Utils::tmp_check . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('src') ], 'pg_dump');

# parallel: the data, gsst.dictionaries included, is restored by other
# sessions than the tables; single: all in one transaction
for my $mode ('custom', 'plain', 'parallel', 'single')
{
	my $db = "dst_$mode";
	my ($ok, $out, $err, $remapped);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	if ($mode eq 'custom')
	{
		($ok, $out, $err, $remapped) = restore_logged($node, sub {
			run_capture([ 'pg_restore', '--exit-on-error', '-d', $node->connstr($db), $dump ]) });
		ok($ok, 'pg_restore of the custom dump');
	}
	elsif ($mode eq 'single')
	{
		my $start = time;
		($ok, $out, $err, $remapped) = restore_logged($node, sub {
			run_capture([ 'pg_restore', '--exit-on-error', '--single-transaction',
					'-d', $node->connstr($db), $dump ]) });
		ok($ok, 'pg_restore --single-transaction of the custom dump');
		# a column learning after the restored dictionaries must not wait on
		# the lock that restoring them keeps to the end of the transaction
		cmp_ok(time - $start, '<', 15, 'single: no learning waits for the restore\'s own locks');
	}
	elsif ($mode eq 'parallel')
	{
		($ok, $out, $err, $remapped) = restore_logged($node, sub {
			run_capture([ 'pg_restore', '--exit-on-error', '-j', '3', '-d', $node->connstr($db), $dump ]) });
		ok($ok, 'pg_restore -j 3 of the custom dump');
	}
	else
	{
		my $sql = $PostgreSQL::Test::Utils::tmp_check . '/src.sql';
		$node->command_ok([ 'pg_dump', '-f', $sql, '-d', $node->connstr('src') ], 'plain pg_dump');
		($ok, $out, $err, $remapped) = restore_logged($node, sub { psql_file($node, $db, $sql) });
		ok($ok, 'plain dump restored with psql');
	}
	note("$mode restore said: $err") if $err ne '';
	unlike($err, qr/ERROR|FATAL|PANIC/, "$mode: the restore reports no error");
	# only the partitions, created before they are attached, get a family
	# of their own for a while; every other column keeps the declared one
	is(join(',', sort keys %$remapped), 'public.parts_1,public.parts_2',
		"$mode: only the partitions get a temporary family during the restore ("
		  . join(', ', map { "$_ -> $remapped->{$_}" } sort keys %$remapped) . ')');

	for my $tbl (qw(aaa.early public.conv zzz.late))
	{
		is($node->safe_psql($db, "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM $tbl"),
			$expect, "$mode: $tbl restored intact");
	}
	cmp_ok($node->safe_psql($db, 'SELECT count(*) FROM zzz.late WHERE gsst.value_dictionary(c) IS NOT NULL'),
		'>', 2500, "$mode: zzz.late learned its dictionary during the restore");
	is($node->safe_psql($db, "SELECT c FROM public.t WHERE id = 5000"), 'after retraining',
		"$mode: row written after retraining restored");
	is($node->safe_psql($db, $types_sql), $types, "$mode: column types and families restored");
	is($node->safe_psql($db, $customers_type_sql), $customers_type, "$mode: customers keep their family");
	for my $tbl (qw(aaa.early public.t public.conv))
	{
		my ($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, $db, $tbl, 'c');
		is($foreign, '0', "$mode: $tbl values use dictionaries of its column's family only");
	}
	is(md5_of($node, $db, 'public.customers', 'email'), $customers_md5, "$mode: customers restored intact");

	# the partitioned table: every partition has the parent's family again
	is($node->safe_psql($db, $parts_sql), $parts_types,
		"$mode: partitions restored with the parent's family");
	is(md5_of($node, $db, 'public.parts', 'c'), $parts_md5, "$mode: parts restored intact");
	for my $part (qw(public.parts_1 public.parts_2))
	{
		is($node->safe_psql($db, "SELECT count(*) FROM $part"), '2000', "$mode: $part has its rows");
	}
	my ($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, $db, 'public.parts', 'c');
	# in parallel, each partition loads in its own session, which stores the
	# values of its first sample (16 kB, about 400 rows) raw while it learns
	cmp_ok($enc, '>', $mode eq 'parallel' ? 3000 : 3600,
		"$mode: restored parts values are compressed ($enc of $n)");
	is($foreign, '0', "$mode: parts values use dictionaries of the parent's family only");

	# every restored value decodes, and encoded ones use dictionaries that exist
	is($node->safe_psql($db, q{
		SELECT count(*) FROM (SELECT c FROM aaa.early UNION ALL SELECT c FROM public.t
		                      UNION ALL SELECT c FROM public.conv UNION ALL SELECT c FROM public.parts
		                      UNION ALL SELECT email FROM public.customers) v
		WHERE gsst.value_dictionary(c) IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM gsst.dictionaries d WHERE d.id = gsst.value_dictionary(v.c))}),
		'0', "$mode: no value refers to a missing dictionary");
	cmp_ok($node->safe_psql($db, 'SELECT count(*) FROM public.t WHERE gsst.value_dictionary(c) IS NOT NULL'),
		'>', 2000, "$mode: restored values are compressed again");
	# the dictionaries themselves came along (and any learned during the restore)
	cmp_ok($node->safe_psql($db, 'SELECT count(*) FROM gsst.dictionaries'), '>=', $dicts,
		"$mode: dictionaries restored");
	# loading every dictionary validates it
	is($node->safe_psql($db, q{
		SELECT count(DISTINCT d.id) = (SELECT count(*) FROM gsst.dictionaries)
		FROM gsst.dictionaries d, LATERAL gsst.dictionary(d.id) s}),
		't', "$mode: every dictionary loads");
	# new writes keep working: ids from the restored sequence do not collide
	$node->safe_psql($db, q{
		SELECT gsst.train('public.t', 'c');
		INSERT INTO public.t (id, c) VALUES (6000, 'written after the restore');
	});
	is($node->safe_psql($db, "SELECT c FROM public.t WHERE id = 6000"), 'written after the restore',
		"$mode: writes after the restore");
	is($node->safe_psql($db, "SELECT count(*) FROM public.t WHERE c = 'after retraining'::text"),
		'1', "$mode: index on the gsst column works");
	# and into a partition, with the parent's dictionaries
	$node->safe_psql($db, "INSERT INTO public.parts (id, c) SELECT 3900 + id, c::text || ' again' FROM public.parts WHERE id <= 100");
	($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, $db, 'public.parts_2', 'c', 'v.id > 3900');
	is("$n|$foreign", '200|0', "$mode: rows written to a restored partition use the parent's family");
	cmp_ok($own, '>', 150, "$mode: rows written to a restored partition are compressed ($own of $n)");
}

# ---- one table, pg_dump -t, into another database whose family 1 is taken ----

$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', 'CREATE EXTENSION gsst');
$node->safe_psql('other', 'CREATE TABLE public.notes (id int PRIMARY KEY, body text COMPRESSION gsst)');
my $notes = note_rows(1, 5000);
$node->safe_psql('other', "COPY public.notes (id, body) FROM STDIN;\n" . gsst_copy_text($notes) . "\\.\n");
my $notes_family = atttypmod($node, 'other', 'public.notes', 'body');
is($notes_family, $cust_family, "notes in \"other\" has customers' family $cust_family of src");
my ($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, 'other', 'public.notes', 'body');
cmp_ok($own, '>', 4500, "notes learned a dictionary of its family ($own of $n)");
my $notes_dicts = family_dicts($node, 'other', $notes_family);
isnt($notes_dicts, '', "notes' dictionaries: $notes_dicts");
is($node->safe_psql('other', 'SELECT count(*) FROM gsst.dictionaries'),
	$node->safe_psql('other', "SELECT count(*) FROM gsst.dictionaries WHERE family = $notes_family"),
	'every dictionary of "other" is one of notes');

my $one = $PostgreSQL::Test::Utils::tmp_check . '/customers.sql';
$node->command_ok([ 'pg_dump', '-t', 'public.customers', '-f', $one, '-d', $node->connstr('src') ],
	'pg_dump -t customers');
my $one_sql = slurp_file($one);
like($one_sql, qr/email public\.gsst\($cust_family\)/, "the dump declares email gsst($cust_family)");
unlike($one_sql, qr/gsst\.dictionaries/, 'the dump of one table carries no dictionaries');

my ($ok, $out, $err, $remapped) = restore_logged($node, sub { psql_file($node, 'other', $one) });
ok($ok, 'single-table dump restored into "other"');
unlike($err, qr/ERROR|FATAL|PANIC/, 'the restore into "other" reports no error');
my $new_family = atttypmod($node, 'other', 'public.customers', 'email');
isnt($new_family, $notes_family, "customers.email gets family $new_family in \"other\", not notes' $notes_family");
is_deeply($remapped, { 'public.customers' => $new_family },
	'the restore says that customers.email gets a family of its own');
is(md5_of($node, 'other', 'public.customers', 'email'), $customers_md5, 'every customer arrived intact');
($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, 'other', 'public.customers', 'email');
is($n, '20000', 'all 20000 customers arrived');
cmp_ok($enc, '>', 18000, "restored customers are compressed ($enc of $n)");
is($own, $enc, "restored customers use dictionaries of their new family $new_family only");
cmp_ok($node->safe_psql('other', "SELECT count(*) FROM gsst.dictionaries WHERE family = $new_family"),
	'>=', 1, 'customers learned a dictionary of their own');
is(family_dicts($node, 'other', $notes_family), $notes_dicts, "notes' dictionaries are unchanged");
is($node->safe_psql('other', "SELECT count(*) FROM gsst.dictionaries WHERE family NOT IN ($notes_family, $new_family)"),
	'0', 'no dictionary of another family appeared');

# retraining customers leaves notes alone
my $trained = $node->safe_psql('other', "SELECT gsst.train('public.customers', 'email')");
is($node->safe_psql('other', "SELECT family FROM gsst.dictionaries WHERE id = $trained"), $new_family,
	"gsst.train of customers stores dictionary $trained for family $new_family");
$node->safe_psql('other', "COPY public.customers (id, email) FROM STDIN;\n" . gsst_copy_text(customer_rows(30001, 100)) . "\\.\n");
is($node->safe_psql('other', "SELECT count(*) FROM public.customers WHERE id > 30000 AND gsst.value_dictionary(email) = $trained"),
	'100', 'new customers are encoded with the trained dictionary');
is(family_dicts($node, 'other', $notes_family), $notes_dicts, "notes' dictionaries are unchanged after the training");
my $more_notes = note_rows(100001, 500);
$node->safe_psql('other', "COPY public.notes (id, body) FROM STDIN;\n" . gsst_copy_text($more_notes) . "\\.\n");
($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, 'other', 'public.notes', 'body', 'v.id > 100000');
is("$n|$foreign", '500|0', 'new notes use no dictionary of customers');
cmp_ok($own, '>', 450, "new notes are encoded with notes' family ($own of $n)");
is($node->safe_psql('other', "SELECT max(gsst.value_dictionary(body)) FROM public.notes WHERE id > 100000"),
	$node->safe_psql('other', "SELECT max(id) FROM gsst.dictionaries WHERE family = $notes_family"),
	"new notes use notes' latest dictionary");
is(md5_of($node, 'other', 'public.notes', 'body'), md5_of_rows([ @$notes, @$more_notes ]), 'notes read back intact');

# ---- the same dump into src itself, as restored.customers ----

my $orig_dicts = family_dicts($node, 'src', $cust_family);
isnt($orig_dicts, '', "customers' dictionaries in src: $orig_dicts");
$node->safe_psql('src', 'CREATE SCHEMA restored');
(my $renamed = $one_sql) =~ s/\bpublic\.customers\b/restored.customers/g;
unlike($renamed, qr/public\.customers/, 'the dump names restored.customers only');
my $renamed_file = $PostgreSQL::Test::Utils::tmp_check . '/customers_renamed.sql';
append_to_file($renamed_file, $renamed);
($ok, $out, $err, $remapped) = restore_logged($node, sub { psql_file($node, 'src', $renamed_file) });
ok($ok, 'single-table dump restored into src as restored.customers');
unlike($err, qr/ERROR|FATAL|PANIC/, 'the restore into src reports no error');
my $copy_family = atttypmod($node, 'src', 'restored.customers', 'email');
isnt($copy_family, $cust_family, "restored.customers gets family $copy_family, not $cust_family");
is_deeply($remapped, { 'restored.customers' => $copy_family },
	'the restore says that restored.customers.email gets a family of its own');
is(md5_of($node, 'src', 'restored.customers', 'email'), $customers_md5, 'restored.customers arrived intact');
($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, 'src', 'restored.customers', 'email');
cmp_ok($enc, '>', 18000, "restored.customers is compressed ($enc of $n)");
is($own, $enc, "restored.customers uses dictionaries of its family $copy_family only");
is(family_dicts($node, 'src', $cust_family), $orig_dicts, "the original customers' dictionaries are unchanged");
($n, $enc, $own, $foreign) = split /\|/, encoding_of($node, 'src', 'public.customers', 'email');
is($foreign, '0', 'the original customers still use their own family only');
is(md5_of($node, 'src', 'public.customers', 'email'), $customers_md5, 'the original customers read back intact');

done_testing();
