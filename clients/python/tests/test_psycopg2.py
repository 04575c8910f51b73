"""gsst.psycopg2 against a server: values, gsst[] and parameters, before and
after register_gsst()."""

import io
import unittest

import psycopg2
import psycopg2.extensions as ext
import psycopg2.extras

from gsst.psycopg2 import register_gsst

from .common import DATA_ROWS, DATA_TABLE, SPECIAL, RowsMixin, dsn

DATA = "SELECT id, %s FROM " + DATA_TABLE + " ORDER BY id"


def fetch(conn_or_cursor, query, params=None):
    cur = conn_or_cursor.cursor() if hasattr(conn_or_cursor, "cursor") else conn_or_cursor
    cur.execute(query, params)
    return cur.fetchall()


def fetch_none(conn, query, params=None):
    with conn.cursor() as cur:
        cur.execute(query, params)


def setUpModule():
    global EXPECTED, GSST_OID, GSST_ARRAY_OID
    conn = psycopg2.connect(dsn())
    try:
        EXPECTED = fetch(conn, DATA % "t")
        (GSST_OID, GSST_ARRAY_OID), = fetch(conn, "SELECT oid, typarray FROM pg_type WHERE oid = 'gsst'::regtype")
    finally:
        conn.close()
    assert len(EXPECTED) == DATA_ROWS, "%s has %d rows" % (DATA_TABLE, len(EXPECTED))


def connect(name="GSST_TEST_DSN", autocommit=True, **kw):
    conn = psycopg2.connect(dsn(name), **kw)
    conn.autocommit = autocommit
    return conn


class Unregistered(RowsMixin, unittest.TestCase):
    """psycopg2 on its own returns gsst as str, gsst[] as one string."""

    def setUp(self):
        self.conn = connect()

    def tearDown(self):
        self.conn.close()

    def test_values_are_str(self):
        got = fetch(self.conn, DATA % "c")
        self.assertTrue(all(v is None or type(v) is str for _, v in got))
        self.assertRows(got, EXPECTED)

    def test_array_is_one_string(self):
        (got,), = fetch(self.conn, "SELECT ARRAY['a','','b',NULL]::gsst[]")
        self.assertEqual(got, '{a,"",b,NULL}')


class Registered(RowsMixin, unittest.TestCase):
    def setUp(self):
        self.conn = connect()
        self.oids = register_gsst(self.conn)
        fetch_none(self.conn, "DROP TABLE IF EXISTS pg2_t, pg2_a")

    def tearDown(self):
        fetch_none(self.conn, "DROP TABLE IF EXISTS pg2_t, pg2_a")
        self.conn.close()

    def test_oids(self):
        self.assertEqual(self.oids, (GSST_OID, GSST_ARRAY_OID))

    def test_values(self):
        got = fetch(self.conn, DATA % "c")
        self.assertRows(got, EXPECTED)

    def test_arrays(self):
        (got,), = fetch(self.conn, "SELECT array_agg(c ORDER BY id) FROM " + DATA_TABLE)
        self.assertRows(got, [v for _, v in EXPECTED])
        (got,), = fetch(self.conn, "SELECT ARRAY['a','','b']::gsst[]")
        self.assertEqual(got, ["a", "", "b"])
        (got,), = fetch(self.conn, "SELECT %s::gsst[]", [SPECIAL + [None]])
        self.assertEqual(got, SPECIAL + [None])
        (got,), = fetch(self.conn, "SELECT '{}'::gsst[]")
        self.assertEqual(got, [])

    def test_parameters(self):
        fetch_none(self.conn, "CREATE TABLE pg2_t (id int PRIMARY KEY, c gsst)")
        with self.conn.cursor() as cur:
            psycopg2.extras.execute_values(cur, "INSERT INTO pg2_t VALUES %s", EXPECTED, page_size=1000)
        self.assertRows(fetch(self.conn, "SELECT id, c FROM pg2_t ORDER BY id"), EXPECTED)
        for value in SPECIAL:
            want = fetch(self.conn, "SELECT id FROM %s WHERE t = %%s ORDER BY id" % DATA_TABLE, [value])
            self.assertTrue(want, "%r is in %s" % (value, DATA_TABLE))
            got = fetch(self.conn, "SELECT id FROM %s WHERE c = %%s ORDER BY id" % DATA_TABLE, [value])
            self.assertEqual(got, want, "WHERE c = %%s with %r" % value)
        want = fetch(self.conn, "SELECT id, t FROM %s WHERE t = ANY(%%s) ORDER BY id" % DATA_TABLE, [SPECIAL])
        got = fetch(self.conn, "SELECT id, c FROM %s WHERE c = ANY(%%s) ORDER BY id" % DATA_TABLE, [SPECIAL])
        self.assertEqual(got, want)
        fetch_none(self.conn, "CREATE TABLE pg2_a (id int PRIMARY KEY, a gsst[])")
        fetch_none(self.conn, "INSERT INTO pg2_a VALUES (1, %s), (2, %s)", [SPECIAL, SPECIAL + [None]])
        self.assertEqual(fetch(self.conn, "SELECT id, a FROM pg2_a ORDER BY id"),
                         [(1, SPECIAL), (2, SPECIAL + [None])])

    def test_copy(self):
        fetch_none(self.conn, "CREATE TABLE pg2_t (id int PRIMARY KEY, c gsst)")
        buf = io.StringIO()
        with self.conn.cursor() as cur:
            cur.copy_expert("COPY (SELECT id, c FROM %s ORDER BY id) TO STDOUT" % DATA_TABLE, buf)
            buf.seek(0)
            cur.copy_expert("COPY pg2_t FROM STDIN", buf)
        self.assertRows(fetch(self.conn, "SELECT id, c FROM pg2_t ORDER BY id"), EXPECTED)


class Scope(unittest.TestCase):
    def test_cursor_only(self):
        conn = connect()
        try:
            registered = conn.cursor()
            register_gsst(registered)
            query = "SELECT ARRAY['a','']::gsst[]"
            self.assertEqual(fetch(registered, query), [(["a", ""],)])
            self.assertEqual(fetch(conn.cursor(), query), [('{a,""}',)])
        finally:
            conn.close()

    def test_transaction_state(self):
        conn = connect(autocommit=False)
        try:
            self.assertEqual(conn.get_transaction_status(), ext.TRANSACTION_STATUS_IDLE)
            register_gsst(conn)
            self.assertEqual(conn.get_transaction_status(), ext.TRANSACTION_STATUS_IDLE,
                             "registering leaves no transaction open")
            fetch_none(conn, "CREATE TEMP TABLE pg2_tx (c gsst)")
            fetch_none(conn, "INSERT INTO pg2_tx VALUES ('kept')")
            register_gsst(conn)
            self.assertEqual(conn.get_transaction_status(), ext.TRANSACTION_STATUS_INTRANS)
            self.assertEqual(fetch(conn, "SELECT c FROM pg2_tx"), [("kept",)],
                             "registering inside a transaction keeps its work")
            conn.rollback()
        finally:
            conn.close()

    def test_dict_cursor_factory(self):
        conn = connect(cursor_factory=psycopg2.extras.RealDictCursor)
        try:
            self.assertEqual(register_gsst(conn), (GSST_OID, GSST_ARRAY_OID))
        finally:
            conn.close()


class Schemas(unittest.TestCase):
    def test_extension_in_another_schema(self):
        conn = connect("GSST_TEST_DSN_SCHEMA")
        try:
            self.assertEqual(fetch(conn, "SELECT to_regtype('gsst')"), [(None,)],
                             "schema ext is not on the search_path")
            register_gsst(conn)
            (got,), = fetch(conn, "SELECT %s::ext.gsst[]", [SPECIAL + [None]])
            self.assertEqual(got, SPECIAL + [None])
        finally:
            conn.close()

    def test_not_installed(self):
        conn = connect("GSST_TEST_DSN_NOEXT", autocommit=False)
        try:
            with self.assertRaisesRegex(psycopg2.ProgrammingError, "CREATE EXTENSION gsst"):
                register_gsst(conn)
            self.assertEqual(conn.get_transaction_status(), ext.TRANSACTION_STATUS_IDLE)
            self.assertEqual(fetch(conn, "SELECT 1"), [(1,)])
        finally:
            conn.close()


if __name__ == "__main__":
    unittest.main()
