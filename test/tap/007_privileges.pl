# Two sessions: a role refused by a gsst function fails with 42501 at once,
# even while another session holds a lock it would otherwise queue behind;
# and eight sessions writing a new column at once give it one dictionary.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time);
use GsstTest;

my $node = gsst_node('privileges');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION gsst;
	CREATE ROLE owner LOGIN;
	CREATE ROLE intruder LOGIN;
	GRANT CREATE ON SCHEMA public TO owner, intruder;
	SET ROLE owner;
	CREATE TABLE secret (id int PRIMARY KEY, email text COMPRESSION gsst);
	INSERT INTO secret SELECT i, 'person.' || i || '@secret-corp.example' FROM generate_series(1, 5000) i;
});

# A session that holds ACCESS EXCLUSIVE on the table and a lock on pg_class
# until it is told to roll back.
my ($in, $out, $err) = ("BEGIN;\nLOCK TABLE secret IN ACCESS EXCLUSIVE MODE;\n"
	  . "LOCK TABLE pg_class IN ACCESS SHARE MODE;\n", '', '');
my $holder = IPC::Run::start([ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
	\$in, \$out, \$err);
$holder->pump while length $in;
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 2 FROM pg_locks
	WHERE relation IN ('secret'::regclass, 'pg_class'::regclass) AND granted
	  AND pid <> pg_backend_pid()}),
	'another session holds the locks');

# Each call as the intruder, with a lock_timeout: a call that queued for the
# lock would fail with 55P03 after it; a refused one fails with 42501 at once.
my %calls = (
	'compress_table of a table of another role' => q{SELECT gsst.compress_table('secret')},
	'compress_table of pg_class' => q{SELECT gsst.compress_table('pg_class')},
	'train of another role\'s column' => q{SELECT gsst.train('secret', 'email')},
	'load into a table without INSERT' => q{SELECT gsst.load('secret', 'SELECT 1, ''x''')},
	'column_stats of a table without SELECT' => q{SELECT * FROM gsst.column_stats('secret')},
);
for my $what (sort keys %calls)
{
	my $start = time;
	my ($rc, $stdout, $stderr) = $node->psql('postgres',
		"SET lock_timeout = '5s';\n\\set VERBOSITY verbose\n$calls{$what};",
		extra_params => [ '-U', 'intruder' ]);
	my $elapsed = time - $start;
	like($stderr, qr/ERROR:  42501:/, "$what: insufficient_privilege");
	cmp_ok($elapsed, '<', 2, "$what: refused without waiting for the lock");
}

# The owner is not refused: it queues for the lock like any command.
my ($rc, $stdout, $stderr) = $node->psql('postgres',
	"SET lock_timeout = '300ms';\n\\set VERBOSITY verbose\nSELECT gsst.compress_table('secret');",
	extra_params => [ '-U', 'owner' ]);
like($stderr, qr/ERROR:  55P03:/, 'the owner waits for the lock');

$in .= "ROLLBACK;\n\\q\n";
$holder->finish;
is($node->safe_psql('postgres', 'SELECT count(*) FROM secret'), '5000', 'the table is intact');

# Eight sessions COPY into a new column at the same moment: the first
# learning event stores one dictionary, and every session encodes with it
# after its own first sample.
$node->safe_psql('postgres', q{
	SET ROLE owner;
	CREATE TABLE conc (id int PRIMARY KEY, c text COMPRESSION gsst);
});
my $ids_before = $node->safe_psql('postgres', 'SELECT coalesce(max(id), 0) FROM gsst.dictionaries');
my @sessions;
my @all_rows;
for my $s (0 .. 7)
{
	my $rows = gsst_rows(1 + $s * 20000, 20000);
	push @all_rows, @$rows;
	my $copy = "COPY conc FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n";
	my ($o, $e) = ('', '');
	push @sessions, IPC::Run::start(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-U', 'owner', '-d', $node->connstr('postgres') ],
		\$copy, \$o, \$e);
}
my $failed = 0;
for my $h (@sessions)
{
	$h->finish or $failed++;
}
is($failed, 0, 'eight concurrent COPYs succeeded');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gsst.dictionaries
	WHERE family = (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'conc'::regclass AND attname = 'c')}),
	'1', 'one learning event, one dictionary');
is($node->safe_psql('postgres', 'SELECT max(id) FROM gsst.dictionaries'), $ids_before + 1,
	'it took the next id');
my $raw = $node->safe_psql('postgres',
	'SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL) FROM conc');
# each session stores raw only the values of its own first sample (16 kB)
cmp_ok($raw, '<', 8 * 16384 / 20, "only the sessions' first samples stay raw ($raw of 160000)");
is($node->safe_psql('postgres', "SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM conc"),
	md5_of_rows(\@all_rows), 'every row decodes to what was written');

# The learner ran in a transaction of its own: nothing went wrong in the log.
unlike(slurp_file($node->logfile), qr/gsst learner.*exited with exit code [1-9]/,
	'the learner never failed');

done_testing();
