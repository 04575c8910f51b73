"""gsst for psycopg 3.

    import psycopg
    from gsst.psycopg import register_gsst

    conn = psycopg.connect(...)
    register_gsst(conn)

After ``register_gsst()`` a gsst value loads as ``str`` in text and binary
mode, ``gsst[]`` as a list of ``str``, and COPY's ``set_types()`` can name
``"gsst"`` and ``"gsst[]"``. Python ``str`` parameters are still sent as
text (or unknown), which PostgreSQL casts to gsst where a gsst is expected.
"""

import psycopg
from psycopg.pq import Format
from psycopg.rows import tuple_row
from psycopg.types import TypeInfo
from psycopg.types.string import StrBinaryDumper, StrDumper

from ._catalog import NOT_INSTALLED, TYPE_QUERY

__all__ = ["register_gsst", "register_gsst_async"]


def _connection(context):
    # a cursor has its connection; a connection is its own
    return getattr(context, "connection", context)


def _info(row):
    if row is None:
        raise psycopg.ProgrammingError(NOT_INSTALLED)
    oid, array_oid, _schema, regtype, delimiter = row
    return TypeInfo("gsst", oid, array_oid, regtype=regtype, delimiter=delimiter)


def _register(context, info):
    # TypeInfo.register() makes the names "gsst", "gsst[]" and the regtype
    # known (set_types) and registers gsst[]'s loaders, which load their
    # elements with whatever loads gsst.
    info.register(context)
    adapters = context.adapters
    text_oid = adapters.types["text"].oid
    for fmt in (Format.TEXT, Format.BINARY):
        adapters.register_loader(info.oid, adapters.get_loader(text_oid, fmt))

    # Dumpers for gsst's OID only, not for str: COPY with set_types() finds
    # them; a str parameter keeps text's dumpers, and the server casts it.
    adapters.register_dumper(None, type("GsstDumper", (StrDumper,), {"oid": info.oid}))
    adapters.register_dumper(None, type("GsstBinaryDumper", (_GsstBinaryDumper,), {"oid": info.oid}))
    return info


class _GsstBinaryDumper(StrBinaryDumper):
    # Text cannot hold NUL, and gsst's receive function takes a value that
    # starts with one for an encoded datum: send only what text would take
    # (StrDumper checks this in text format).
    def dump(self, obj):
        if "\x00" in obj:
            raise psycopg.DataError("PostgreSQL text fields cannot contain NUL (0x00) bytes")
        return super().dump(obj)


def register_gsst(context):
    """Register gsst on a psycopg 3 connection or cursor (only that
    cursor); returns the type's TypeInfo.

    The type is looked up in the schema the extension was created in. The
    lookup runs in a transaction block of its own, or a savepoint when the
    connection is in a transaction: the connection's state does not change.
    """
    conn = _connection(context)
    with conn.transaction(force_rollback=True):
        with conn.cursor(row_factory=tuple_row) as cur:
            row = cur.execute(TYPE_QUERY).fetchone()
    return _register(context, _info(row))


async def register_gsst_async(context):
    """register_gsst() for a psycopg 3 AsyncConnection or AsyncCursor."""
    conn = _connection(context)
    async with conn.transaction(force_rollback=True):
        async with conn.cursor(row_factory=tuple_row) as cur:
            await cur.execute(TYPE_QUERY)
            row = await cur.fetchone()
    return _register(context, _info(row))
