"""What the tests share: the server they run against and its data.

The environment names three databases of one server with gsst preloaded,
each as a URI (postgresql://user@/dbname?host=/socket/dir&port=N) that
libpq, asyncpg and SQLAlchemy all take:

- GSST_TEST_DSN: gsst installed in schema public, and the table
  clients_data (id int PRIMARY KEY, t text, c text COMPRESSION gsst) with
  the same value in t and c on each row: 10,000 rows, non-ASCII and empty
  strings, NULLs and each value of SPECIAL below among them;
- GSST_TEST_DSN_SCHEMA: gsst installed in schema ext, which is not on the
  search_path;
- GSST_TEST_DSN_NOEXT: no gsst.

test/tap/020_python_clients.pl makes them and runs these tests.
"""

import os

DATA_TABLE = "clients_data"
DATA_ROWS = 10000

# values with the characters that array and COPY formats quote or escape
SPECIAL = ["", "Zoë", "東京", "NULL", "null", "a,b", "{x}", '"q"', "back\\slash",
           " lead and trail ", "tab\there", "new\nline", "🐘 elephant"]


def dsn(name="GSST_TEST_DSN"):
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(
            "%s is not set: these tests need a server with gsst "
            "(test/tap/020_python_clients.pl sets it up)" % name)
    return value


def first_diff(got, want):
    """A short message on where two lists of rows differ."""
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "first difference at row %d: %.80r != %.80r" % (i, g, w)
    if len(got) != len(want):
        return "%d rows, expected %d" % (len(got), len(want))
    return "equal"


class RowsMixin:
    """assertRows: unittest's assertEqual diffs whole lists with difflib,
    which takes minutes on 10,000 rows; this names the first difference."""

    def assertRows(self, got, want, what=""):
        if got != want:
            self.fail("%s%s" % (what + ": " if what else "", first_diff(got, want)))
