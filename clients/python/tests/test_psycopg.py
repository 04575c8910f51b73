"""gsst.psycopg against a server: psycopg 3, text and binary mode, COPY,
arrays and parameters, before and after register_gsst()."""

import asyncio
import unittest

import psycopg
from psycopg.pq import TransactionStatus

from gsst.psycopg import register_gsst, register_gsst_async

from .common import DATA_ROWS, DATA_TABLE, SPECIAL, RowsMixin, dsn

DATA = "SELECT id, %s FROM " + DATA_TABLE + " ORDER BY id"


def setUpModule():
    global EXPECTED, GSST_OID, GSST_ARRAY_OID
    with psycopg.connect(dsn()) as conn:
        EXPECTED = conn.execute(DATA % "t").fetchall()
        GSST_OID, GSST_ARRAY_OID = conn.execute(
            "SELECT oid, typarray FROM pg_type WHERE oid = 'gsst'::regtype").fetchone()
    assert len(EXPECTED) == DATA_ROWS, "%s has %d rows" % (DATA_TABLE, len(EXPECTED))


def fetch(conn, query, params=None, binary=False):
    with conn.cursor(binary=binary) as cur:
        cur.execute(query, params)
        return cur.fetchall()


def as_str(rows):
    return all(v is None or type(v) is str for _, v in rows)


class Unregistered(RowsMixin, unittest.TestCase):
    """What psycopg 3 does with gsst on its own: what register_gsst() fixes."""

    def setUp(self):
        self.conn = psycopg.connect(dsn(), autocommit=True)

    def tearDown(self):
        self.conn.close()

    def test_text_mode_returns_str(self):
        got = fetch(self.conn, DATA % "c")
        self.assertTrue(as_str(got))
        self.assertRows(got, EXPECTED)

    def test_binary_mode_returns_bytes(self):
        got = fetch(self.conn, DATA % "c", binary=True)
        want = [(i, None if v is None else v.encode()) for i, v in EXPECTED]
        self.assertTrue(all(v is None or type(v) is bytes for _, v in got))
        self.assertRows(got, want)

    def test_copy_cannot_name_gsst(self):
        with self.assertRaises((KeyError, psycopg.Error)):
            with self.conn.cursor() as cur:
                with cur.copy("COPY (SELECT id, c FROM %s) TO STDOUT (FORMAT binary)" % DATA_TABLE) as copy:
                    copy.set_types(["int4", "gsst"])
                    list(copy.rows())


class Registered(RowsMixin, unittest.TestCase):
    def setUp(self):
        self.conn = psycopg.connect(dsn(), autocommit=True)
        self.info = register_gsst(self.conn)
        self.conn.execute("DROP TABLE IF EXISTS pg3_t, pg3_a")

    def tearDown(self):
        self.conn.execute("DROP TABLE IF EXISTS pg3_t, pg3_a")
        self.conn.close()

    def test_type_info(self):
        self.assertEqual((self.info.name, self.info.oid, self.info.array_oid),
                         ("gsst", GSST_OID, GSST_ARRAY_OID))

    def test_values_text_and_binary(self):
        for binary in (False, True):
            got = fetch(self.conn, DATA % "c", binary=binary)
            self.assertTrue(as_str(got), "binary=%s" % binary)
            self.assertRows(got, EXPECTED, "binary=%s" % binary)

    def test_arrays(self):
        want = [v for _, v in EXPECTED]
        for binary in (False, True):
            (got,), = fetch(self.conn, "SELECT array_agg(c ORDER BY id) FROM " + DATA_TABLE, binary=binary)
            self.assertRows(got, want, "binary=%s" % binary)
            (got,), = fetch(self.conn, "SELECT ARRAY['a','','b']::gsst[]", binary=binary)
            self.assertEqual(got, ["a", "", "b"], "binary=%s" % binary)
            (got,), = fetch(self.conn, "SELECT %s::gsst[]", [SPECIAL + [None]], binary=binary)
            self.assertEqual(got, SPECIAL + [None], "binary=%s" % binary)

    def test_copy_out_set_types(self):
        for fmt in ("binary", "text"):
            with self.conn.cursor() as cur:
                with cur.copy("COPY (SELECT id, c FROM %s ORDER BY id) TO STDOUT (FORMAT %s)"
                              % (DATA_TABLE, fmt)) as copy:
                    copy.set_types(["int4", "gsst"])
                    got = list(copy.rows())
            self.assertRows(got, EXPECTED, fmt)

    def test_copy_in_set_types(self):
        for fmt in ("binary", "text"):
            self.conn.execute("DROP TABLE IF EXISTS pg3_t")
            self.conn.execute("CREATE TABLE pg3_t (id int PRIMARY KEY, c gsst)")
            with self.conn.cursor() as cur:
                with cur.copy("COPY pg3_t FROM STDIN (FORMAT %s)" % fmt) as copy:
                    copy.set_types(["int4", "gsst"])
                    for row in EXPECTED:
                        copy.write_row(row)
            got = fetch(self.conn, "SELECT id, c::text FROM pg3_t ORDER BY id")
            self.assertRows(got, EXPECTED, fmt)
            (encoded,), = fetch(self.conn, "SELECT count(*) FROM pg3_t WHERE gsst.value_dictionary(c) IS NOT NULL")
            self.assertGreater(encoded, DATA_ROWS // 2, "%s: the column compresses what COPY loads" % fmt)

    def test_copy_refuses_nul(self):
        # as text does: a leading NUL would reach the server as an encoded datum
        self.conn.execute("CREATE TABLE pg3_t (id int PRIMARY KEY, c gsst)")
        for fmt in ("binary", "text"):
            with self.assertRaisesRegex(psycopg.Error, "NUL", msg=fmt):
                with self.conn.cursor() as cur:
                    with cur.copy("COPY pg3_t FROM STDIN (FORMAT %s)" % fmt) as copy:
                        copy.set_types(["int4", "gsst"])
                        copy.write_row((1, "\x00abc"))
        self.assertEqual(fetch(self.conn, "SELECT count(*) FROM pg3_t"), [(0,)])

    def test_copy_arrays(self):
        self.conn.execute("CREATE TABLE pg3_a (id int PRIMARY KEY, a gsst[])")
        rows = [(1, SPECIAL), (2, []), (3, None), (4, [None, ""])]
        for fmt in ("binary", "text"):
            self.conn.execute("TRUNCATE pg3_a")
            with self.conn.cursor() as cur:
                with cur.copy("COPY pg3_a FROM STDIN (FORMAT %s)" % fmt) as copy:
                    copy.set_types(["int4", "gsst[]"])
                    for row in rows:
                        copy.write_row(row)
            got = fetch(self.conn, "SELECT id, a::text[] FROM pg3_a ORDER BY id")
            self.assertEqual(got, rows, fmt)

    def test_parameters(self):
        self.conn.execute("CREATE TABLE pg3_t (id int PRIMARY KEY, c gsst)")
        for n, form in enumerate(["%s", "%b", "%t"]):
            base = (n + 1) * 100000
            with self.conn.cursor() as cur:
                cur.executemany("INSERT INTO pg3_t VALUES (%%s, %s)" % form,
                                [(base + i, v) for i, v in EXPECTED])
            got = [(i - base, v) for i, v in fetch(
                self.conn, "SELECT id, c FROM pg3_t WHERE id BETWEEN %s AND %s ORDER BY id",
                (base, base + DATA_ROWS), binary=True)]
            self.assertRows(got, EXPECTED, form)
        for value in SPECIAL:
            want = fetch(self.conn, "SELECT id FROM %s WHERE t = %%s ORDER BY id" % DATA_TABLE, [value])
            self.assertTrue(want, "%r is in %s" % (value, DATA_TABLE))
            for form in ["%s", "%b", "%t"]:
                got = fetch(self.conn, "SELECT id FROM %s WHERE c = %s ORDER BY id" % (DATA_TABLE, form),
                            [value], binary=True)
                self.assertEqual(got, want, "WHERE c = %s with %r" % (form, value))

    def test_list_parameters(self):
        want = fetch(self.conn, "SELECT id, t FROM %s WHERE t = ANY(%%s) ORDER BY id" % DATA_TABLE, [SPECIAL])
        got = fetch(self.conn, "SELECT id, c FROM %s WHERE c = ANY(%%s) ORDER BY id" % DATA_TABLE, [SPECIAL],
                    binary=True)
        self.assertEqual(got, want)
        self.conn.execute("CREATE TABLE pg3_a (id int PRIMARY KEY, a gsst[])")
        self.conn.execute("INSERT INTO pg3_a VALUES (1, %s), (2, %b)", [SPECIAL, SPECIAL + [None]])
        got = fetch(self.conn, "SELECT id, a FROM pg3_a ORDER BY id", binary=True)
        self.assertEqual(got, [(1, SPECIAL), (2, SPECIAL + [None])])


class Scope(RowsMixin, unittest.TestCase):
    def test_cursor_only(self):
        with psycopg.connect(dsn(), autocommit=True) as conn:
            registered = conn.cursor(binary=True)
            register_gsst(registered)
            other = conn.cursor(binary=True)
            query = "SELECT c FROM %s WHERE t = 'Zoë'" % DATA_TABLE
            self.assertEqual(registered.execute(query).fetchone(), ("Zoë",))
            self.assertEqual(other.execute(query).fetchone(), ("Zoë".encode(),))

    def test_transaction_state(self):
        with psycopg.connect(dsn()) as conn:
            self.assertEqual(conn.info.transaction_status, TransactionStatus.IDLE)
            register_gsst(conn)
            self.assertEqual(conn.info.transaction_status, TransactionStatus.IDLE,
                             "registering leaves no transaction open")
            conn.execute("CREATE TEMP TABLE pg3_tx (c gsst)")
            conn.execute("INSERT INTO pg3_tx VALUES ('kept')")
            register_gsst(conn)
            self.assertEqual(conn.info.transaction_status, TransactionStatus.INTRANS)
            self.assertEqual(conn.execute("SELECT c FROM pg3_tx").fetchall(), [("kept",)],
                             "registering inside a transaction keeps its work")
            conn.rollback()

    def test_dict_rows(self):
        with psycopg.connect(dsn(), autocommit=True, row_factory=psycopg.rows.dict_row) as conn:
            self.assertEqual(register_gsst(conn).oid, GSST_OID)

    def test_async(self):
        async def run():
            conn = await psycopg.AsyncConnection.connect(dsn(), autocommit=True)
            try:
                info = await register_gsst_async(conn)
                cur = conn.cursor(binary=True)
                await cur.execute(DATA % "c")
                return info, await cur.fetchall()
            finally:
                await conn.close()

        info, got = asyncio.run(run())
        self.assertEqual(info.oid, GSST_OID)
        self.assertTrue(as_str(got))
        self.assertRows(got, EXPECTED)


class Schemas(RowsMixin, unittest.TestCase):
    def test_extension_in_another_schema(self):
        with psycopg.connect(dsn("GSST_TEST_DSN_SCHEMA"), autocommit=True) as conn:
            self.assertIsNone(conn.execute("SELECT to_regtype('gsst')").fetchone()[0],
                              "schema ext is not on the search_path")
            info = register_gsst(conn)
            self.assertEqual(info.regtype, "ext.gsst")
            conn.execute("DROP TABLE IF EXISTS pg3_s")
            conn.execute("CREATE TABLE pg3_s (id int PRIMARY KEY, c ext.gsst)")
            want = list(enumerate(SPECIAL + [None]))
            with conn.cursor() as cur:
                with cur.copy("COPY pg3_s FROM STDIN (FORMAT binary)") as copy:
                    copy.set_types(["int4", "gsst"])
                    for row in want:
                        copy.write_row(row)
            for binary in (False, True):
                self.assertEqual(fetch(conn, "SELECT id, c FROM pg3_s ORDER BY id", binary=binary), want)
            (got,), = fetch(conn, "SELECT array_agg(c ORDER BY id) FROM pg3_s", binary=True)
            self.assertEqual(got, [v for _, v in want])
            conn.execute("DROP TABLE pg3_s")

    def test_not_installed(self):
        with psycopg.connect(dsn("GSST_TEST_DSN_NOEXT")) as conn:
            with self.assertRaisesRegex(psycopg.ProgrammingError, "CREATE EXTENSION gsst"):
                register_gsst(conn)
            self.assertEqual(conn.info.transaction_status, TransactionStatus.IDLE)
            self.assertEqual(conn.execute("SELECT 1").fetchone(), (1,))


if __name__ == "__main__":
    unittest.main()
