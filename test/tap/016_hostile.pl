# A hostile role on a shared server: random bytes through gsst's binary and
# text input never store what text refuses; gsst.load's memory does not grow
# with the row width; a dump of a database the role wrote into restores
# whole, in plain and custom format.
use strict;
use warnings;
use utf8;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;

my $tmp = $PostgreSQL::Test::Utils::tmp_check;

my $node = gsst_node('hostile');
# few shared buffers: the backend's resident memory counts those it touched
$node->append_conf('postgresql.conf', 'shared_buffers = 16MB');
$node->start;
$node->safe_psql('postgres', q{
	CREATE DATABASE shared;
});
$node->safe_psql('shared', q{
	CREATE EXTENSION gsst;
	CREATE ROLE victim LOGIN;
	CREATE ROLE intruder LOGIN;
	GRANT CREATE ON SCHEMA public TO victim, intruder;
	SET ROLE victim;
	CREATE TABLE secret (id int PRIMARY KEY, c text COMPRESSION gsst);
	INSERT INTO secret SELECT i, 'customer-' || md5(i::text) || '@example.com' FROM generate_series(1, 4000) i;
	SELECT gsst.train('secret', 'c');
	CREATE TABLE inbox (id serial, c text);
	GRANT INSERT ON inbox TO intruder;
	GRANT USAGE ON SEQUENCE inbox_id_seq TO intruder;
	RESET ROLE;
	SET ROLE intruder;
	CREATE TABLE mine (id serial, c text COMPRESSION gsst);
	INSERT INTO mine (c) SELECT 'mine ' || md5(i::text) FROM generate_series(1, 3000) i;
});
my $victim_dict = $node->safe_psql('shared',
	q{SELECT gsst.value_dictionary(c) FROM secret WHERE gsst.value_dictionary(c) IS NOT NULL LIMIT 1});
my $own_dict = $node->safe_psql('shared',
	q{SELECT gsst.value_dictionary(c) FROM mine WHERE gsst.value_dictionary(c) IS NOT NULL LIMIT 1});
ok($victim_dict ne '' && $own_dict ne '', "both columns encode (dictionaries $victim_dict and $own_dict)");

# 1. Random bytes as the intruder, through binary receive (typed gsst, so
# gsst_recv reads them) and through text input.
SKIP:
{
	my ($pyok, $pyout) = (0, '');
	eval { $pyok = IPC::Run::run([ 'python3', '-c', 'import psycopg' ], '>', \$pyout, '2>', \$pyout) };
	skip 'python3 with psycopg 3 is needed (make deps-test installs python3-psycopg)', 5 unless $pyok;

	my $script = "$tmp/hostile_inputs.py";
	open my $fh, '>', $script or die "could not write $script: $!";
	print $fh <<'PY';
import random
import sys

import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format

dsn, victim_hex = sys.argv[1], sys.argv[2]
rng = random.Random(20261128)

with psycopg.connect(dsn, autocommit=True) as conn:
    gsst_oid = conn.execute("SELECT 'gsst'::regtype::oid").fetchone()[0]

    class GsstBytes(Dumper):
        format = Format.BINARY
        oid = gsst_oid
        def dump(self, obj):
            return obj
    class Raw(bytes):
        pass
    conn.adapters.register_dumper(Raw, GsstBytes)

    own_codes = [bytes(r[0]) for r in conn.execute(
        "SELECT gsst.datum(c) FROM mine WHERE gsst.value_dictionary(c) IS NOT NULL LIMIT 50")]
    victim_codes = [bytes.fromhex(h) for h in victim_hex.split(',')]

    def candidates():
        alphabet = [b'\x00', b'\xff', b'\xc3', b'\x28', b'\x80', b'A', b'\xe6\x9d\xb1', b'\xf0\x9f\x90\x98', b' ']
        for _ in range(400):   # raw text, valid or not
            yield b''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        for _ in range(400):   # codes of the intruder's own dictionary, mutated
            v = bytearray(rng.choice(own_codes))
            for _ in range(rng.randint(1, 3)):
                op = rng.randint(0, 2)
                if op == 0 and len(v) > 1:
                    v[rng.randrange(1, len(v))] = rng.randrange(256)
                elif op == 1:
                    v += bytes([0xff, rng.choice([0x00, 0xff, 0xc3, 0x80, 0x41])])
                elif len(v) > 2:
                    del v[rng.randrange(2, len(v)):]
            yield bytes(v)
        yield from victim_codes   # codes of the victim's dictionary: not the intruder's to read
        yield from (bytes([0]) + bytes(rng.randrange(256) for _ in range(rng.randint(0, 8))) for _ in range(200))

    stored = refused = 0
    bad_state = []
    conn.execute("CREATE TABLE fuzz (id serial, c text COMPRESSION gsst)")
    victim_refused = 0
    for v in victim_codes:
        try:
            conn.execute("INSERT INTO fuzz (c) VALUES (%b)", (Raw(v),))
        except psycopg.errors.InsufficientPrivilege:
            victim_refused += 1
    print(f"victim's codes refused {victim_refused} of {len(victim_codes)}")
    for v in candidates():
        try:
            conn.execute("INSERT INTO fuzz (c) VALUES (%b)", (Raw(v),))
            stored += 1
        except psycopg.Error as e:
            refused += 1
            if e.sqlstate not in ('22021', 'XX001', '42501', '54000'):
                bad_state.append((v, e.sqlstate, str(e)))
        try:
            conn.execute("INSERT INTO fuzz (c) VALUES (%s::text::gsst)", (v.decode('utf-8'),))
            stored += 1
        except UnicodeDecodeError:
            pass
        except psycopg.Error as e:
            if e.sqlstate is None:   # libpq refuses a NUL in a text parameter
                continue
            refused += 1
            if e.sqlstate not in ('22021', '54000'):
                bad_state.append((v, e.sqlstate, str(e)))
    # everything stored is text the database accepts, and decodes to what was sent when raw
    n, valid = conn.execute("SELECT count(*), count(convert_to(c::text, 'UTF8')) FROM fuzz").fetchone()
    print(f"stored {stored}, refused {refused}, rows {n}, valid {valid}")
    for v, state, msg in bad_state[:5]:
        print(f"unexpected SQLSTATE {state} for {v!r}: {msg}")
    print(f"unexpected {len(bad_state)}")
PY
	close $fh;

	my ($out, $err) = ('', '');
	my $victim_hex = $node->safe_psql('shared',
		q{SELECT string_agg(encode(gsst.datum(c), 'hex'), ',') FROM (SELECT c FROM secret WHERE gsst.value_dictionary(c) IS NOT NULL LIMIT 20) s});
	IPC::Run::run([ 'python3', $script, $node->connstr('shared') . ' user=intruder', $victim_hex ],
		'>', \$out, '2>', \$err);
	note($out);
	is($? >> 8, 0, 'the input script ran') or diag($err);
	like($out, qr/^unexpected 0$/m, 'every refusal carries text\'s SQLSTATE, data_corrupted or insufficient_privilege');
	my ($stored, $refused, $rows, $valid) = $out =~ /stored (\d+), refused (\d+), rows (\d+), valid (\d+)/;
	ok(defined $rows && $rows == $valid && $rows == $stored, "every stored value is valid text ($valid of $rows)");
	ok(defined $refused && $refused > 100 && $stored > 100, "inputs were both stored ($stored) and refused ($refused)");
	like($out, qr/^victim's codes refused (\d+) of \1$/m, 'codes of a dictionary the intruder may not read are refused (42501)');
}

# 2. gsst.load's memory: rows of 2.5 MB at the default batch_rows.  The
# backend's peak resident memory (shared pages it touched included) stays
# the same for 4 times the rows, and follows gsst.batch_bytes.
sub load_peak_kb
{
	my ($rows, $batch_bytes) = @_;
	$node->safe_psql('shared', 'TRUNCATE wide_gsst');
	my $status = $node->safe_psql('shared', qq{
		SET gsst.batch_bytes = '$batch_bytes';
		SELECT gsst.load('wide_gsst', 'SELECT i, repeat(md5(i::text), 80000) FROM generate_series(1, $rows) i');
		SELECT pg_read_file('/proc/self/status')});
	my ($kb) = $status =~ /VmHWM:\s+(\d+) kB/;
	return $kb;
}
$node->safe_psql('shared', q{CREATE TABLE wide_gsst (id int, c text COMPRESSION gsst)});
my $peak_20 = load_peak_kb(20, '16MB');
my $peak_80 = load_peak_kb(80, '16MB');
is($node->safe_psql('shared', q{SELECT count(*) FROM wide_gsst WHERE c = repeat(md5(id::text), 80000)}),
	'80', 'gsst.load of 80 rows of 2.5 MB stores them all');
my $peak_small = load_peak_kb(80, '2MB');
note("peak resident memory of gsst.load: 20 rows $peak_20 kB, 80 rows $peak_80 kB, 80 rows with gsst.batch_bytes = 2MB $peak_small kB");
cmp_ok($peak_80, '<', 1.2 * $peak_20 + 16 * 1024,
	'four times the wide rows do not raise gsst.load\'s peak memory');
cmp_ok($peak_small, '<', $peak_80 - 16 * 1024, 'a smaller gsst.batch_bytes lowers it');

# 3. The intruder writes through every path it has: its own gsst.load with
# a trigger that looks for the batch, and inserts into the victim's table.
$node->safe_psql('shared', q{
	SET ROLE intruder;
	CREATE FUNCTION peek() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
	  BEGIN
	    EXECUTE 'INSERT INTO inbox (c) SELECT c FROM gsst_load_batch';
	  EXCEPTION WHEN undefined_table THEN NULL;
	  END;
	  INSERT INTO inbox (c) VALUES (NEW.c);
	  RETURN NEW;
	END $$;
	CREATE TABLE loaded (id int, c text COMPRESSION gsst);
	CREATE TRIGGER peek BEFORE INSERT ON loaded FOR EACH ROW EXECUTE FUNCTION peek();
	SELECT gsst.load('loaded', 'SELECT id, c FROM mine');
	INSERT INTO inbox (c) SELECT c FROM mine LIMIT 100;
});
is($node->safe_psql('shared', 'SELECT count(*) FROM inbox'), '3100',
	'the intruder\'s trigger saw only its rows, no batch relation');

my %before;
for my $t (qw(secret inbox mine loaded fuzz wide_gsst))
{
	$before{$t} = $node->safe_psql('shared',
		"SELECT count(*) || ':' || coalesce(md5(string_agg(c::text, E'\\n' ORDER BY c::text)), '') FROM $t");
}
for my $format ('p', 'c')
{
	my $dump = "$tmp/shared.$format";
	$node->command_ok([ 'pg_dump', "-F$format", '-f', $dump, '-d', $node->connstr('shared') ],
		"pg_dump -F$format");
	my $db = "restored_$format";
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	if ($format eq 'p')
	{
		$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $dump, '-d', $node->connstr($db) ],
			'the plain dump restores with no error');
	}
	else
	{
		$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr($db), $dump ],
			'the custom dump restores with no error');
	}
	for my $t (sort keys %before)
	{
		is($node->safe_psql($db,
				"SELECT count(*) || ':' || coalesce(md5(string_agg(c::text, E'\\n' ORDER BY c::text)), '') FROM $t"),
			$before{$t}, "-F$format: table $t restored whole");
	}
}

done_testing();
