"""What every driver module asks the server: where CREATE EXTENSION put the
type. The extension creates ``gsst`` in the schema it was created in, which
need not be on the search_path, so the lookup goes through pg_extension."""

# oid, array type's oid, schema, the name as regtype prints it, delimiter
TYPE_QUERY = """\
SELECT t.oid, t.typarray, n.nspname, t.oid::pg_catalog.regtype::pg_catalog.text, t.typdelim
FROM pg_catalog.pg_extension e
JOIN pg_catalog.pg_type t ON t.typnamespace = e.extnamespace AND t.typname = 'gsst'
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE e.extname = 'gsst'"""

NOT_INSTALLED = "extension gsst is not installed in this database: run CREATE EXTENSION gsst first"
