/*
 * gsst.c - module entry point: _PG_init calls each subsystem's init (GUCs,
 * callbacks, the DDL hook) and adds the worker slots gsst uses.  The top of
 * the glue: nothing calls into it.
 */
#include "dict/dict.h"
#include "column/column.h"

#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"

#include "worker/worker.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Background workers gsst adds to max_worker_processes. */
static int	gsst_worker_slots = 0;

static GucIntCheckHook prev_check_max_worker_processes = NULL;

/*
 * A reload reads max_worker_processes from the configuration files again,
 * and PostgreSQL reports a PGC_POSTMASTER setting whose value differs from
 * the running one as a change that needs a restart.  gsst's workers are on
 * top of the files' value, there too: only a real change is reported.
 */
static bool
check_max_worker_processes(int *newval, void **extra, GucSource source)
{
	if (source == PGC_S_FILE)
		*newval += gsst_worker_slots;
	if (prev_check_max_worker_processes)
		return prev_check_max_worker_processes(newval, extra, source);
	return true;
}

static struct config_int *
max_worker_processes_guc(void)
{
	struct config_generic *gen = NULL;

#if PG_VERSION_NUM >= 160000
	gen = find_option("max_worker_processes", false, true, ERROR);
#else
	struct config_generic **vars = get_guc_variables();
	int			n = GetNumConfigOptions();

	for (int i = 0; i < n; i++)
		if (strcmp(vars[i]->name, "max_worker_processes") == 0)
		{
			gen = vars[i];
			break;
		}
#endif
	if (gen == NULL || gen->vartype != PGC_INT)
		return NULL;
	return (struct config_int *) gen;
}

/*
 * gsst's background workers (its static worker and the learners' pool) come
 * on top of the max_worker_processes the server was configured with, so that
 * they never take a worker parallel query or another extension counts on.
 * The postmaster sizes the worker slots after shared_preload_libraries had
 * their chance to change settings (InitializeMaxBackends).
 */
static void
add_worker_slots(int nworkers)
{
	struct config_int *conf;
	char		value[32];
	int			configured = max_worker_processes;

	if (nworkers <= 0)
		return;
	gsst_worker_slots = nworkers;
	conf = max_worker_processes_guc();
	if (conf != NULL && conf->check_hook != check_max_worker_processes)
	{
		prev_check_max_worker_processes = conf->check_hook;
		conf->check_hook = check_max_worker_processes;
	}
	/* a child of the postmaster inherits the setting (EXEC_BACKEND too) */
	if (IsUnderPostmaster)
		return;
	snprintf(value, sizeof(value), "%d", configured + nworkers);
	SetConfigOption("max_worker_processes", value, PGC_POSTMASTER, PGC_S_OVERRIDE);
	ereport(LOG,
			(errmsg("gsst raises max_worker_processes from %d to %d for its own background workers",
					configured, max_worker_processes),
			 errdetail("The gsst worker and up to gsst.max_learners = %d learners.",
					   gsst_max_learners)));
}

void
_PG_init(void)
{
	int			static_workers;

	gsst_learn_init();
	/* the GPU worker: GUCs, shared memory, registration */
	static_workers = gsst_worker_init();
	MarkGUCPrefixReserved("gsst");

	gsst_dict_init();
	gsst_ddl_init();

	if (process_shared_preload_libraries_in_progress)
		add_worker_slots(static_workers + gsst_max_learners);
}
