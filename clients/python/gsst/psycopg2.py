"""gsst for psycopg2.

    import psycopg2
    from gsst.psycopg2 import register_gsst

    conn = psycopg2.connect(...)
    register_gsst(conn)

psycopg2 already returns a gsst value as ``str``, as it does for any type
it does not know. ``register_gsst()`` adds ``gsst[]``, which psycopg2
otherwise returns as one unparsed string such as ``'{a,"",NULL}'``; after
it, ``gsst[]`` is a list of ``str`` (``None`` for NULL elements).
"""

import psycopg2
import psycopg2.extensions as _ext

from ._catalog import NOT_INSTALLED, TYPE_QUERY

__all__ = ["register_gsst"]


def _cast(value, cur):
    # psycopg2 passes the text already decoded from the connection's encoding
    return value


def register_gsst(conn_or_cursor):
    """Register gsst and gsst[] on a psycopg2 connection or cursor (only
    that cursor); returns the OIDs of gsst and gsst[].

    The type is looked up in the schema the extension was created in, on a
    cursor of its own. A connection that was not in a transaction is left
    outside one.
    """
    if isinstance(conn_or_cursor, _ext.cursor):
        conn = conn_or_cursor.connection
    else:
        conn = conn_or_cursor
    idle = conn.get_transaction_status() == _ext.TRANSACTION_STATUS_IDLE
    try:
        # a plain cursor: the connection's cursor_factory may return dicts
        with conn.cursor(cursor_factory=_ext.cursor) as cur:
            cur.execute(TYPE_QUERY)
            row = cur.fetchone()
    finally:
        if idle and not conn.autocommit:
            conn.rollback()
    if row is None:
        raise psycopg2.ProgrammingError(NOT_INSTALLED)
    oid, array_oid = row[0], row[1]

    gsst = _ext.new_type((oid,), "GSST", _cast)
    _ext.register_type(gsst, conn_or_cursor)
    _ext.register_type(_ext.new_array_type((array_oid,), "GSST[]", gsst), conn_or_cursor)
    return oid, array_oid
