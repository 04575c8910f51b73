/*
 * privileges.c - relations named by gsst functions: privileges are checked
 * before any lock is taken, then again once it is held.
 *
 * A regclass argument is resolved without a lock.  Like CLUSTER and VACUUM
 * (RangeVarGetRelidExtended with a callback), gsst functions check the
 * caller's rights on the relation from the catalog caches first, so that a
 * refused call fails at once and never queues behind, or in front of, other
 * sessions' locks; taking the lock processes invalidations, and the check
 * is repeated on what was locked.
 */
#include "dict/dict.h"

#include "access/relation.h"
#include "access/htup_details.h"
#include "catalog/catalog.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* Is relation relid owned by role (or a role it has the privileges of)? */
bool
gsst_owns_relation(Oid relid, Oid role)
{
#if PG_VERSION_NUM >= 160000
	return object_ownercheck(RelationRelationId, relid, role);
#else
	return pg_class_ownercheck(relid, role);
#endif
}

/* Has role the privilege on the table or on any of its columns? */
static bool
has_table_or_column_privilege(Oid relid, Oid role, AclMode mode)
{
	return pg_class_aclcheck(relid, role, mode) == ACLCHECK_OK ||
		pg_attribute_aclcheck_all(relid, role, mode, ACLMASK_ANY) == ACLCHECK_OK;
}

static void
check_relation(Oid relid, int check, const char *relkinds)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class form;
	char		relkind;
	char		relname[NAMEDATALEN];
	Oid			role = GetUserId();

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	form = (Form_pg_class) GETSTRUCT(tup);
	relkind = form->relkind;
	strlcpy(relname, NameStr(form->relname), NAMEDATALEN);
	ReleaseSysCache(tup);

	switch (check & GSST_CHECK_PRIVILEGE)
	{
		case GSST_CHECK_OWNER:
			if (!gsst_owns_relation(relid, role))
				aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(relkind), relname);
			break;
		case GSST_CHECK_SELECT:
			if (!has_table_or_column_privilege(relid, role, ACL_SELECT))
				aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(relkind), relname);
			break;
		case GSST_CHECK_INSERT:
			if (!has_table_or_column_privilege(relid, role, ACL_INSERT))
				aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(relkind), relname);
			break;
	}
	if ((check & GSST_CHECK_NOT_CATALOG) && IsCatalogRelationOid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is a system catalog", relname)));
	if (strchr(relkinds, relkind) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 strchr(relkinds, RELKIND_MATVIEW) ?
				 errmsg("\"%s\" is not a table or materialized view", relname) :
				 errmsg("\"%s\" is not a table", relname)));
}

/*
 * Open relation relid with lockmode for a gsst function, after checking
 * that the current role may (GSST_CHECK_*) and that its relkind is one of
 * relkinds.
 */
Relation
gsst_open_checked(Oid relid, LOCKMODE lockmode, int check, const char *relkinds)
{
	check_relation(relid, check, relkinds);
	LockRelationOid(relid, lockmode);
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
	{
		UnlockRelationOid(relid, lockmode);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	}
	/* the lock processed invalidations: owner or grants may have changed */
	check_relation(relid, check, relkinds);
	return relation_open(relid, NoLock);
}

/*
 * The gsst columns of rel (open) whose values the current role may read:
 * all of them with SELECT on the table, else those it has SELECT on.
 * Returns them in column order, pointing into rel's descriptor; *n, how
 * many.
 */
Form_pg_attribute *
gsst_readable_columns(Relation rel, int *n)
{
	const GsstCatalog *cat = gsst_catalog(false);
	Oid			relid = RelationGetRelid(rel);
	TupleDesc	desc = RelationGetDescr(rel);
	bool		table_select = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
	Form_pg_attribute *atts = palloc(sizeof(Form_pg_attribute) * Max(desc->natts, 1));

	*n = 0;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || att->atttypid != cat->gsst_type)
			continue;
		if (!table_select &&
			pg_attribute_aclcheck(relid, att->attnum, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
			continue;
		atts[(*n)++] = att;
	}
	return atts;
}
