/*
 * gsst_gpu_helper.c - the process that holds the GPU for the gsst worker.
 *
 * The worker starts it (never the postmaster, never a backend), and it is
 * the only process that loads the GPU library.  It is not a PostgreSQL
 * process: it attaches none of PostgreSQL's shared memory (only the batch
 * region it is handed on fd 5) and takes no lock, so whatever
 * kills it (kill -9, the OOM killer, a crash inside the CUDA driver, a GPU
 * reset) costs one batch, which the worker encodes on the CPU, and never
 * the cluster.  Protocol: helper_protocol.h.
 *
 * It exits when its requests pipe closes, when the worker dies
 * (PR_SET_PDEATHSIG), and after a CUDA failure that breaks its context: a
 * fresh process gets a fresh context, and the worker starts one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gsst_gpu.h"
#include "helper_protocol.h"

/* The library's functions the helper calls. */
typedef struct gpu_library
{
	int			(*abi_version) (void);
	size_t		(*config_size) (void);
	void		(*config_default) (gsst_gpu_config *config);
	int			(*init) (const gsst_gpu_config *config, gsst_gpu **ctx);
	const char *(*init_error) (void);
	const char *(*last_error) (const gsst_gpu *ctx);
	const char *(*strerror) (int status);
	int			(*get_info) (gsst_gpu *ctx, gsst_gpu_info *info);
	int			(*encode) (gsst_gpu *ctx, const uint8_t *table, size_t table_len,
						   const uint8_t *data, const uint64_t *offsets, size_t n,
						   uint8_t *tile, size_t tile_cap, size_t *tile_len);
	int			(*host_register) (gsst_gpu *ctx, void *ptr, size_t bytes);
	int			(*host_unregister) (gsst_gpu *ctx, void *ptr);
} gpu_library;

static uint8_t *region = NULL;
static uint64_t region_bytes = 0;
static int	region_pinned = 0;		/* registered with the library */
static int	pin_failed = 0;			/* said so once */

static void
say(const char *fmt, const char *arg)
{
	fprintf(stderr, "gsst gpu helper: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* Write a reply whole; a closed pipe means the worker is gone. */
static void
send_reply(uint64_t seq, int status, uint64_t tile_len, const char *message)
{
	gsst_helper_reply reply;
	const char *at = (const char *) &reply;
	size_t		left = sizeof(reply);

	memset(&reply, 0, sizeof(reply));
	reply.magic = GSST_HELPER_MAGIC;
	reply.status = status;
	reply.seq = seq;
	reply.tile_len = tile_len;
	snprintf(reply.message, sizeof(reply.message), "%s", message ? message : "");
	while (left > 0)
	{
		ssize_t		n = write(GSST_HELPER_REPLY_FD, at, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(0);
		at += n;
		left -= (size_t) n;
	}
}

/* Read one request whole; false at end of file (the worker closed it). */
static int
read_request(gsst_helper_request *req)
{
	char	   *at = (char *) req;
	size_t		left = sizeof(*req);

	while (left > 0)
	{
		ssize_t		n = read(GSST_HELPER_REQUEST_FD, at, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		at += n;
		left -= (size_t) n;
	}
	return 1;
}

static void *
symbol(void *handle, const char *name, int *missing)
{
	void	   *p = dlsym(handle, name);

	if (p == NULL)
		*missing = 1;
	return p;
}

/*
 * Load the library and open the device.  Returns a context, or NULL after
 * saying why in the first reply.
 */
static gsst_gpu *
open_gpu(const char *path, int device, gpu_library *lib)
{
	char		message[GSST_HELPER_MESSAGE_LEN];
	gsst_gpu_config config;
	gsst_gpu_info info;
	gsst_gpu   *ctx = NULL;
	void	   *handle;
	int			missing = 0;
	int			rc;

	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL)
	{
		snprintf(message, sizeof(message), "could not load GPU library \"%s\": %s",
				 path, dlerror());
		send_reply(0, GSST_GPU_ERR_ARG, 0, message);
		return NULL;
	}
	/* a library built from other headers would misread our config */
	lib->abi_version = (int (*) (void)) symbol(handle, "gsst_gpu_abi_version", &missing);
	lib->config_size = (size_t (*) (void)) symbol(handle, "gsst_gpu_config_size", &missing);
	if (missing || lib->abi_version() != GSST_GPU_ABI_VERSION ||
		lib->config_size() != sizeof(gsst_gpu_config))
	{
		snprintf(message, sizeof(message),
				 "GPU library \"%s\" implements ABI %d with a %zu-byte config; this gsst needs ABI %d with %zu bytes",
				 path, missing ? 0 : lib->abi_version(),
				 missing ? (size_t) 0 : lib->config_size(),
				 GSST_GPU_ABI_VERSION, sizeof(gsst_gpu_config));
		send_reply(0, GSST_GPU_ERR_ARG, 0, message);
		return NULL;
	}
	lib->config_default = (void (*) (gsst_gpu_config *)) symbol(handle, "gsst_gpu_config_default", &missing);
	lib->init = (int (*) (const gsst_gpu_config *, gsst_gpu **)) symbol(handle, "gsst_gpu_init", &missing);
	lib->init_error = (const char *(*) (void)) symbol(handle, "gsst_gpu_init_error", &missing);
	lib->last_error = (const char *(*) (const gsst_gpu *)) symbol(handle, "gsst_gpu_last_error", &missing);
	lib->strerror = (const char *(*) (int)) symbol(handle, "gsst_gpu_strerror", &missing);
	lib->get_info = (int (*) (gsst_gpu *, gsst_gpu_info *)) symbol(handle, "gsst_gpu_get_info", &missing);
	lib->encode = (int (*) (gsst_gpu *, const uint8_t *, size_t, const uint8_t *,
							const uint64_t *, size_t, uint8_t *, size_t, size_t *))
		symbol(handle, "gsst_gpu_encode", &missing);
	lib->host_register = (int (*) (gsst_gpu *, void *, size_t)) symbol(handle, "gsst_gpu_host_register", &missing);
	lib->host_unregister = (int (*) (gsst_gpu *, void *)) symbol(handle, "gsst_gpu_host_unregister", &missing);
	if (missing)
	{
		snprintf(message, sizeof(message), "GPU library \"%s\" lacks the gsst_gpu ABI %d functions",
				 path, GSST_GPU_ABI_VERSION);
		send_reply(0, GSST_GPU_ERR_ARG, 0, message);
		return NULL;
	}

	lib->config_default(&config);
	config.device = device;
	rc = lib->init(&config, &ctx);
	if (rc != GSST_GPU_OK || ctx == NULL)
	{
		snprintf(message, sizeof(message), "%s (%s)", lib->strerror(rc), lib->init_error());
		send_reply(0, rc != GSST_GPU_OK ? rc : GSST_GPU_ERR_CUDA, 0, message);
		return NULL;
	}
	memset(&info, 0, sizeof(info));
	if (lib->get_info(ctx, &info) != GSST_GPU_OK)
		snprintf(info.name, sizeof(info.name), "unknown");
	if (info.cc_major > 0)
		snprintf(message, sizeof(message), "%d: %s (sm_%d%d, %zu MiB)", device, info.name,
				 info.cc_major, info.cc_minor, info.total_memory >> 20);
	else						/* the CPU build of the library */
		snprintf(message, sizeof(message), "%s", info.name);
	send_reply(0, GSST_GPU_OK, 0, message);
	return ctx;
}

/*
 * Map the region at the size the worker gave it (the size of the batch
 * region, which does not change); false if it cannot be.
 * The mapping is pinned for the GPU's copies where the library can: its
 * copies from pageable memory go through the driver's staging buffers,
 * which cost this process a CPU copy of every batch.
 */
static int
map_region(uint64_t bytes, const gpu_library *lib, gsst_gpu *ctx)
{
	struct stat st;

	if (bytes == region_bytes)
		return 1;
	if (region_pinned)
		(void) lib->host_unregister(ctx, region);
	region_pinned = 0;
	if (region != NULL)
		munmap(region, region_bytes);
	region = NULL;
	region_bytes = 0;
	if (bytes == 0 || bytes > SIZE_MAX ||
		fstat(GSST_HELPER_REGION_FD, &st) != 0 || (uint64_t) st.st_size < bytes)
		return 0;
	region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, GSST_HELPER_REGION_FD, 0);
	if (region == MAP_FAILED)
	{
		region = NULL;
		return 0;
	}
	region_bytes = bytes;
	region_pinned = lib->host_register(ctx, region, bytes) == GSST_GPU_OK;
	if (!region_pinned && !pin_failed)
	{
		pin_failed = 1;
		say("region not pinned, copies go through the driver's buffers: %s", lib->last_error(ctx));
	}
	return 1;
}

/* off + len inside the region, without overflow */
static int
in_region(uint64_t off, uint64_t len)
{
	return off <= region_bytes && len <= region_bytes - off;
}

/* Every range of an ENCODE request inside the region, offsets in order. */
static int
request_fits(const gsst_helper_request *req)
{
	const uint64_t *offsets;

	if (req->nvalues >= region_bytes / sizeof(uint64_t) ||
		req->offsets_off % sizeof(uint64_t) != 0 ||
		!in_region(req->offsets_off, (req->nvalues + 1) * sizeof(uint64_t)) ||
		!in_region(req->table_off, req->table_len) ||
		!in_region(req->tile_off, req->tile_cap))
		return 0;
	offsets = (const uint64_t *) (region + req->offsets_off);
	for (uint64_t i = 0; i < req->nvalues; i++)
		if (offsets[i] > offsets[i + 1])
			return 0;
	return in_region(req->data_off, offsets[req->nvalues]);
}

static void
sleep_ms(uint32_t ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Close what the worker's process held open, but ours. */
static void
close_inherited(void)
{
	long		max = sysconf(_SC_OPEN_MAX);

	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = GSST_HELPER_REGION_FD + 1; fd < max; fd++)
		(void) close(fd);
}

int
main(int argc, char **argv)
{
	gpu_library lib;
	gsst_helper_request req;
	gsst_gpu   *ctx;
	char	   *end;
	long		device;
	long		parent;

	if (argc != GSST_HELPER_ARGC)
	{
		fprintf(stderr, "usage: %s LIBRARY DEVICE PARENT_PID\n"
				"(started by the gsst worker, with its pipes on fds 3 and 4 and a region on fd 5)\n",
				argv[0]);
		return 2;
	}
	device = strtol(argv[2], &end, 10);
	if (*end != '\0' || device < -1 || device > INT_MAX)
	{
		say("bad device \"%s\"", argv[2]);
		return 2;
	}
	parent = strtol(argv[3], &end, 10);
	if (*end != '\0' || parent <= 1)
	{
		say("bad parent pid \"%s\"", argv[3]);
		return 2;
	}
	/* die with the worker; it may have died before we asked */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != (pid_t) parent)
		return 1;
	close_inherited();

	memset(&lib, 0, sizeof(lib));
	ctx = open_gpu(argv[1], (int) device, &lib);
	if (ctx == NULL)
		return 0;
	/* the region lasts as long as the server: map and pin it once, now */
	{
		struct stat st;

		if (fstat(GSST_HELPER_REGION_FD, &st) == 0 && st.st_size > 0)
			(void) map_region((uint64_t) st.st_size, &lib, ctx);
	}

	while (read_request(&req))
	{
		size_t		tile_len = 0;
		int			rc;

		if (req.magic != GSST_HELPER_MAGIC || req.op != GSST_HELPER_ENCODE)
		{
			send_reply(req.seq, GSST_GPU_ERR_ARG, 0, "malformed request");
			continue;
		}
		if (!map_region(req.region_bytes, &lib, ctx) || !request_fits(&req))
		{
			send_reply(req.seq, GSST_GPU_ERR_ARG, 0, "request outside the shared region");
			continue;
		}
		if (req.delay_ms > 0)
			sleep_ms(req.delay_ms);
		rc = lib.encode(ctx, region + req.table_off, req.table_len, region + req.data_off,
						(const uint64_t *) (region + req.offsets_off), req.nvalues,
						region + req.tile_off, req.tile_cap, &tile_len);
		send_reply(req.seq, rc, rc == GSST_GPU_OK ? tile_len : 0,
				   rc == GSST_GPU_OK ? "" : lib.last_error(ctx));
		/* a broken context is not reused: the worker starts a fresh helper */
		if (rc == GSST_GPU_ERR_CUDA || rc == GSST_GPU_ERR_BROKEN)
			return 3;
	}
	return 0;
}
