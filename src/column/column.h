/*
 * column.h - gsst columns (src/column/): COMPRESSION gsst in DDL, a family
 * per column and the extension's guarded objects (ddl.c); training a
 * column's dictionary and inspecting it (train.c); dropping the
 * dictionaries no stored value needs (drop_unused.c).
 *
 * Above type/: training reads a table's stored values.
 */
#ifndef GSST_COLUMN_H
#define GSST_COLUMN_H

#include "base/gsst.h"

/* True when _PG_init ran from shared_preload_libraries (DDL hook active). */
extern bool gsst_ddl_hook_active;

/* train.c */
extern uint32 gsst_train_column(Oid relid, const char *attname, int32 family,
								bool quiet);

/* ddl.c */
extern int32 gsst_next_family(void);
extern void gsst_ddl_init(void);

#endif							/* GSST_COLUMN_H */
