/*
 * batch_region.c - the memory where bulk batches meet the GPU.
 *
 * The postmaster makes the region, a memfd, when it sets shared memory up;
 * every process it starts inherits the descriptor and maps the region when
 * it first needs it.  A DSM segment would not do: the helper is no
 * PostgreSQL process and must map the region itself, and what it maps
 * stays pinned for the GPU for as long as it runs, so the region must live
 * as long as the server, not as long as one batch.  The postmaster only
 * sizes it; its pages are given memory when the worker first takes
 * batches (gsst_batch_region_reserve), so that a server without a GPU pays
 * nothing, and no backend ever writes to a page that has no memory.
 */
#include "worker/batch_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "miscadmin.h"
#include "utils/guc.h"

int			gsst_batch_region_mb = 1024;

static int	region_fd = -1;		/* the postmaster's, inherited */
static Size region_size = 0;
static char *region_base = NULL;	/* this process's mapping */
static bool region_reserved = false;

void
gsst_batch_region_define_guc(void)
{
	DefineCustomIntVariable("gsst.batch_region",
							"Memory the bulk paths' batches share with the GPU.",
							"Pinned for the GPU while a GPU helper runs.  A batch that finds no room in it is encoded in its backend; 0 sends no batch to the gsst worker.",
							&gsst_batch_region_mb,
							1024, 0, 64 * 1024,
							PGC_POSTMASTER,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
}

/*
 * In the postmaster, as shared memory is set up: make the region.  After a
 * crash the postmaster sets shared memory up again; the region it has
 * stays (nothing in it outlives the slots that named it).
 */
void
gsst_batch_region_create(void)
{
	int			fd;
	Size		size = (Size) gsst_batch_region_mb * 1024 * 1024;

	if (IsUnderPostmaster || region_fd >= 0 || size == 0)
		return;
	fd = memfd_create("gsst batch region", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t) size) != 0)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("gsst: could not make a batch region of %zu bytes: %m", size),
				 errdetail("Bulk paths encode in their backends.")));
		if (fd >= 0)
			close(fd);
		return;
	}
	region_fd = fd;
	region_size = size;
}

/* The region's size, 0 when there is none. */
Size
gsst_batch_region_size(void)
{
	return region_fd >= 0 ? region_size : 0;
}

int
gsst_batch_region_fd(void)
{
	return region_fd;
}

/* The region in this process, mapped on first use; NULL when there is none. */
char *
gsst_batch_region_map(void)
{
	void	   *p;

	if (region_base != NULL || region_fd < 0)
		return region_base;
	p = mmap(NULL, region_size, PROT_READ | PROT_WRITE, MAP_SHARED, region_fd, 0);
	if (p == MAP_FAILED)
	{
		ereport(LOG,
				(errmsg("gsst: could not map the batch region: %m")));
		return NULL;
	}
	region_base = p;
	return region_base;
}

/*
 * The worker, before it takes batches: give every page of the region its
 * memory now, so that a short machine says so here, once, and never
 * raises SIGBUS in a backend writing a batch.
 */
bool
gsst_batch_region_reserve(char *message, Size message_len)
{
	int			rc;

	if (region_reserved)
		return true;
	if (region_fd < 0)
	{
		snprintf(message, message_len, "there is no batch region (gsst.batch_region is 0, or it could not be made)");
		return false;
	}
	rc = posix_fallocate(region_fd, 0, (off_t) region_size);
	if (rc != 0)
	{
		snprintf(message, message_len, "no memory for the %zu-byte batch region: %s",
				 region_size, strerror(rc));
		return false;
	}
	if (gsst_batch_region_map() == NULL)
	{
		snprintf(message, message_len, "could not map the batch region");
		return false;
	}
	region_reserved = true;
	return true;
}
