# What clients see of a gsst column: psql's text output and its binary
# \copy round trip here; psycopg 3 in text and binary mode, its COPY API and
# str parameters in a Python script, before and after the registration by
# gsst.psycopg.register_gsst() (clients/python, from the source tree; its
# own tests are 020_python_clients.pl).
# psycopg 3 (python3-psycopg) is a test dependency: without it this test
# fails, it is not skipped.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Cwd;
use IPC::Run;
use JSON::PP;
use GsstTest;

my $tmp = $PostgreSQL::Test::Utils::tmp_check;

# A python3 that has psycopg 3: the one on PATH, else Debian's.
my ($python, $version);
for my $candidate ('python3', '/usr/bin/python3')
{
	my ($out, $err) = ('', '');
	my $ok = eval {
		IPC::Run::run([ $candidate, '-c', 'import psycopg; print(psycopg.__version__)' ],
			'>', \$out, '2>', \$err);
	};
	if ($ok)
	{
		($python, $version) = ($candidate, $out);
		chomp $version;
		last;
	}
}
ok(defined $python, "python3 with psycopg 3: " . ($python // 'none') . ' ' . ($version // ''))
  or diag('install python3-psycopg (make deps-test does)');

# the package, which make test-tap copies beside test/
my $package = Cwd::abs_path('clients/python');
my $helper = defined $package && -f "$package/gsst/psycopg.py";
ok($helper, 'found clients/python/gsst/psycopg.py');

my $node = gsst_node('clients');
$node->start;

# ASCII and multi-byte values, an empty one, a NULL and a long one
my @rows = map { my $v = $_->[1]; utf8::decode($v); [ $_->[0], $v ] } @{ gsst_rows(1, 3000) };
push @rows,
  [ 3001, '日本語のテキストを圧縮する — 東京都千代田区丸の内一丁目' ],
  [ 3002, 'emoji 🐘🐘 elephant ünïcödé ∑ ≠ ∞' ],
  [ 3003, '' ],
  [ 3004, undef ],
  [ 3005, 'a' ],
  [ 3006, 'Ελληνικά κείμενα και русский текст, ' x 60 ],
  [ 3007, 'user1000@example.com' ];
my @values = map { $_->[1] } @rows;

sub sql_literal
{
	my ($v) = @_;
	return 'NULL' unless defined $v;
	$v =~ s/'/''/g;
	return "'$v'";
}

sub bytes_of
{
	my ($s) = @_;
	utf8::encode($s);
	return $s;
}

my $load = "CREATE EXTENSION gsst;\n"
  . "CREATE TABLE t (id int PRIMARY KEY, c text COMPRESSION gsst);\n"
  . "COPY t FROM STDIN;\n"
  . join('', map { "$_->[0]\t$_->[1]\n" } grep { $_->[0] <= 3000 } @rows)
  . "\\.\n"
  . join('', map { "INSERT INTO t VALUES ($_->[0], " . sql_literal($_->[1]) . ");\n" }
	  grep { $_->[0] > 3000 } @rows);
$node->safe_psql('postgres', bytes_of($load));

like($node->safe_psql('postgres',
		q{SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 't'::regclass AND attname = 'c'}),
	qr/^gsst\(\d+\)$/, 'the column is of type gsst(N), which drivers see');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'>', 2000, 'most values are encoded');

# psql: the text
is($node->safe_psql('postgres', 'SELECT c FROM t ORDER BY id'),
	bytes_of(join("\n", map { $_ // '' } @values)), 'psql prints the text');
is($node->safe_psql('postgres', 'SELECT c FROM t WHERE id = 3001'),
	bytes_of($values[3000]), 'psql prints multi-byte text');

# psql: \copy (FORMAT binary) writes text's binary format and loads it back
my ($gsst_bin, $text_bin) = ("$tmp/clients_gsst.bin", "$tmp/clients_text.bin");
$node->safe_psql('postgres', qq{
\\copy (SELECT id, c FROM t ORDER BY id) TO '$gsst_bin' (FORMAT binary)
\\copy (SELECT id, c::text FROM t ORDER BY id) TO '$text_bin' (FORMAT binary)
});
ok(slurp_file($gsst_bin) eq slurp_file($text_bin),
	'\copy (FORMAT binary) of a gsst column writes the same bytes as of c::text');
ok(index(slurp_file($gsst_bin), bytes_of($values[3001])) >= 0,
	'the binary file holds the UTF-8 of the text');
$node->safe_psql('postgres', qq{
CREATE TABLE t_psql (id int PRIMARY KEY, c gsst);
\\copy t_psql FROM '$gsst_bin' (FORMAT binary)
});
my $md5 = "SELECT md5(string_agg(id || ':' || coalesce(c, '<null>'), E'\\n' ORDER BY id)) FROM %s";
is($node->safe_psql('postgres', sprintf($md5, 't_psql')), $node->safe_psql('postgres', sprintf($md5, 't')),
	'\copy FROM (FORMAT binary) into a gsst column stores the same values');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM t_psql WHERE gsst.value_dictionary(c) IS NOT NULL'),
	'>', 2000, 'and encodes them');
# the same file into a text column
$node->safe_psql('postgres', qq{
CREATE TABLE t_text (id int PRIMARY KEY, c text);
\\copy t_text FROM '$gsst_bin' (FORMAT binary)
});
is($node->safe_psql('postgres', sprintf($md5, 't_text')), $node->safe_psql('postgres', sprintf($md5, 't')),
	'the binary file of a gsst column loads into a text column');

# psycopg 3
my $expected = "$tmp/clients_expected.json";
open my $jf, '>:raw', $expected or die "could not write $expected: $!";
print $jf JSON::PP->new->utf8->canonical->encode([ map { [ 0 + $_->[0], $_->[1] ] } @rows ]);
close $jf;

my $script = "$tmp/clients.py";
open my $pf, '>:encoding(UTF-8)', $script or die "could not write $script: $!";
print $pf "# written by test/tap/011_clients.pl\n", <<'PY';
import json
import struct
import sys

import psycopg
from psycopg.adapt import PyFormat

from gsst.psycopg import register_gsst

failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    print(("ok: " if cond else "FAILED: ") + what, flush=True)
    if not cond:
        failures += 1


def first_diff(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f" (first difference at row {i}: {g!r:.80} != {w!r:.80})"
    return f" ({len(got)} rows, expected {len(want)})" if len(got) != len(want) else ""


def utf8(v):
    return None if v is None else v.encode("utf-8")


def parse_copy_binary(data):
    """Rows of a COPY (FORMAT binary) stream, fields as bytes or None."""
    sig = b"PGCOPY\n\xff\r\n\x00"
    if not data.startswith(sig):
        raise ValueError("not a binary COPY stream")
    pos = len(sig)
    _flags, extlen = struct.unpack_from("!iI", data, pos)
    pos += 8 + extlen
    rows = []
    while True:
        (nfields,) = struct.unpack_from("!h", data, pos)
        pos += 2
        if nfields == -1:
            break
        row = []
        for _ in range(nfields):
            (length,) = struct.unpack_from("!i", data, pos)
            pos += 4
            if length == -1:
                row.append(None)
            else:
                row.append(bytes(data[pos:pos + length]))
                pos += length
        rows.append(row)
    if pos != len(data):
        raise ValueError("trailing bytes after the COPY trailer")
    return rows


def copy_out(conn, query):
    with conn.cursor() as cur:
        with cur.copy(f"COPY ({query}) TO STDOUT (FORMAT binary)") as copy:
            return b"".join(bytes(block) for block in copy)


def values(conn, table, binary=False, expr="c"):
    with conn.cursor(binary=binary) as cur:
        cur.execute(f"SELECT id, {expr} FROM {table} ORDER BY id")
        return cur.fetchall()


def encoded(conn, table, where="true"):
    return conn.execute(
        f"SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) IS NOT NULL), count(*) "
        f"FROM {table} WHERE {where}").fetchone()


dsn, expected_file = sys.argv[1:3]
with open(expected_file, "rb") as f:
    expected = [(int(i), v) for i, v in json.loads(f.read().decode("utf-8"))]
want_str = expected
want_bytes = [(i, utf8(v)) for i, v in expected]
long_ids = [i for i, v in expected if v is not None and len(v.encode()) >= 24]
print(f"psycopg {psycopg.__version__}, libpq {psycopg.pq.version()}, {len(expected)} rows")

with psycopg.connect(dsn, autocommit=True) as conn:
    gsst_oid = conn.execute("SELECT 'gsst'::regtype::oid::int").fetchone()[0]

    # without registration
    with conn.cursor() as cur:
        cur.execute("SELECT c FROM t LIMIT 1")
        check(cur.description[0].type_code == gsst_oid,
              f"a gsst column reports gsst's oid {gsst_oid}, not text's 25")

    got = values(conn, "t")
    check(all(v is None or type(v) is str for _, v in got) and got == want_str,
          "text mode returns str equal to the text" + first_diff(got, want_str))

    got = values(conn, "t", binary=True)
    check(all(v is None or type(v) is bytes for _, v in got) and got == want_bytes,
          "binary mode, not registered, returns bytes: the text's UTF-8" + first_diff(got, want_bytes))

    got = values(conn, "t", binary=True, expr="c::text")
    check(got == want_str, "binary mode with c::text returns str" + first_diff(got, want_str))

    row = conn.cursor(binary=True).execute(
        "SELECT array_agg(c ORDER BY id) FROM t WHERE id > 3000").fetchone()[0]
    check(type(row) is bytes, "binary mode, not registered: gsst[] is bytes")
    row = conn.execute("SELECT array_agg(c ORDER BY id) FROM t WHERE id IN (3001, 3002)").fetchone()[0]
    check(type(row) is str and row.startswith("{"), "text mode, not registered: gsst[] is one str")

    # COPY (FORMAT binary) out: text's binary format
    stream = copy_out(conn, "SELECT id, c FROM t ORDER BY id")
    got = [(struct.unpack("!i", i)[0], v) for i, v in parse_copy_binary(stream)]
    check(got == want_bytes, "binary COPY out returns the text's UTF-8 bytes" + first_diff(got, want_bytes))
    check(stream == copy_out(conn, "SELECT id, c::text FROM t ORDER BY id"),
          "binary COPY out of a gsst column is byte for byte that of c::text")
    with conn.cursor() as cur:
        with cur.copy("COPY (SELECT id, c FROM t ORDER BY id) TO STDOUT (FORMAT binary)") as copy:
            copy.set_types(["int4", gsst_oid])
            got = [(i, None if v is None else bytes(v)) for i, v in copy.rows()]
    check(got == want_bytes, "binary COPY rows with set_types([.., gsst's oid]), not registered: bytes"
          + first_diff(got, want_bytes))
    with conn.cursor() as cur:
        with cur.copy("COPY (SELECT id, c FROM t ORDER BY id) TO STDOUT (FORMAT binary)") as copy:
            copy.set_types(["int4", "text"])
            got = list(copy.rows())
    check(got == want_str, "binary COPY rows with set_types([.., 'text']): str" + first_diff(got, want_str))
    with psycopg.connect(dsn) as other:
        try:
            with other.cursor() as cur:
                with cur.copy("COPY (SELECT id, c FROM t) TO STDOUT (FORMAT binary)") as copy:
                    copy.set_types(["int4", "gsst"])
                    list(copy.rows())
            named = True
        except (KeyError, psycopg.Error):
            named = False
    check(not named, "set_types() cannot name gsst before the registration")

    # COPY (FORMAT binary) in: those bytes into another gsst column
    conn.execute("CREATE TABLE t_copy (id int PRIMARY KEY, c gsst)")
    with conn.cursor() as cur:
        with cur.copy("COPY t_copy FROM STDIN (FORMAT binary)") as copy:
            copy.write(stream)
    got = values(conn, "t_copy")
    check(got == want_str, "binary COPY in of those bytes stores the same text" + first_diff(got, want_str))
    enc, total = encoded(conn, "t_copy")
    check(enc > 2000, f"and encodes them ({enc} of {total} values encoded)")

    # str parameters: %s goes as unknown, %b as text
    conn.execute("CREATE TABLE p (id int PRIMARY KEY, c text COMPRESSION gsst)")
    conn.execute("INSERT INTO p SELECT -id, c::text FROM t")  # the column learns
    forms = ["%s", "%b", "%s::text", "%b::text"]
    for n, form in enumerate(forms):
        base = (n + 1) * 100000
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO p (id, c) VALUES (%s, {form})",
                            [(base + i, v) for i, v in expected])
        got = [(i - base, v) for i, v in values(conn, "p", expr="c::text")
               if base <= i < base + 100000]
        check(got == want_str, f"str parameters as {form} store the text" + first_diff(got, want_str))
        enc, total = encoded(conn, "p", f"id - {base} IN ({','.join(map(str, long_ids))})")
        check(enc > total * 0.9, f"  and are encoded ({enc} of {total} longer values)")
    v3001 = dict(expected)[3001]
    for form in ["%s", "%b"]:
        got = conn.execute(f"SELECT id FROM t WHERE c = {form}", (v3001,)).fetchall()
        check(got == [(3001,)], f"WHERE c = {form} with a multi-byte str finds its row")

with psycopg.connect(dsn, autocommit=True) as conn:
    # with the registration
    info = register_gsst(conn)
    check(info.oid == gsst_oid, f"register_gsst() found {info.name} (oid {info.oid})")

    got = values(conn, "t", binary=True)
    check(all(v is None or type(v) is str for _, v in got) and got == want_str,
          "binary mode, registered, returns str equal to the text" + first_diff(got, want_str))
    got = values(conn, "t")
    check(got == want_str, "text mode, registered, returns str" + first_diff(got, want_str))

    want_arr = [v for i, v in expected if i > 3000]
    for binary in (False, True):
        row = conn.cursor(binary=binary).execute(
            "SELECT array_agg(c ORDER BY id) FROM t WHERE id > 3000").fetchone()[0]
        check(row == want_arr, f"{'binary' if binary else 'text'} mode, registered: gsst[] is a list of str")

    with conn.cursor() as cur:
        with cur.copy("COPY (SELECT id, c FROM t ORDER BY id) TO STDOUT (FORMAT binary)") as copy:
            copy.set_types(["int4", "gsst"])
            got = list(copy.rows())
    check(got == want_str, "binary COPY rows with set_types([.., 'gsst']), registered: str" + first_diff(got, want_str))

    for fmt in ("binary", "text"):
        table = f"t_rows_{fmt}"
        conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, c gsst)")
        with conn.cursor() as cur:
            with cur.copy(f"COPY {table} FROM STDIN (FORMAT {fmt})") as copy:
                copy.set_types(["int4", "gsst"])
                for r in expected:
                    copy.write_row(r)
        got = values(conn, table)
        check(got == want_str, f"COPY (FORMAT {fmt}) write_row with set_types([.., 'gsst']) stores the text"
              + first_diff(got, want_str))
        enc, total = encoded(conn, table)
        check(enc > 2000, f"  and encodes it ({enc} of {total} values encoded)")

    got = (conn.adapters.get_dumper(str, PyFormat.TEXT).oid, conn.adapters.get_dumper(str, PyFormat.BINARY).oid)
    check(got == (0, 25), f"registered: str parameters are still sent as unknown and text (oids {got})")
    conn.execute("CREATE TABLE p2 (id int PRIMARY KEY, c gsst)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO p2 VALUES (%s, %b)", expected)
    got = values(conn, "p2")
    check(got == want_str, "registered: %b parameters store the text" + first_diff(got, want_str))

if failures:
    print(f"{failures} of {checks} checks FAILED")
    sys.exit(1)
print(f"all {checks} checks passed")
PY
close $pf;

SKIP:
{
	skip 'no python3 with psycopg 3 or no clients/python (a failure above)', 9
	  unless defined $python && $helper;

	my ($out, $err) = ('', '');
	local $ENV{PYTHONPATH} = $package;
	local $ENV{PYTHONDONTWRITEBYTECODE} = '1';
	IPC::Run::run([ $python, $script, $node->connstr('postgres'), $expected ],
		'>', \$out, '2>', \$err);
	my $rc = $? >> 8;
	if ($rc == 0) { note($out) } else { diag("stdout:\n$out\nstderr:\n$err") }
	is($rc, 0, 'the psycopg script exits 0');
	is(scalar(() = $out =~ /^FAILED/mg), 0, 'no psycopg check failed');
	like($out, qr/^all \d+ checks passed$/m, 'the psycopg script ran all its checks');
	like($out, $_, "psycopg: $_")
	  for (qr/^ok: text mode returns str/m,
		qr/^ok: binary mode, not registered, returns bytes/m,
		qr/^ok: binary mode, registered, returns str/m,
		qr/^ok: binary COPY out returns the text's UTF-8 bytes/m,
		qr/^ok: binary COPY in of those bytes stores the same text/m,
		qr/^ok: str parameters as %b::text store the text/m);
}

done_testing();
