/*
 * gpu_helper.c - the gsst worker's side of its GPU helper process.
 *
 * The worker starts the helper with posix_spawn: a new program, so nothing
 * of the worker's PostgreSQL state (shared memory, latches, locks) is in
 * it, and CUDA is initialised in a process that was never forked from the
 * postmaster.  The helper gets two pipes and the batch region
 * (batch_region.h), where the backends lay their batches out: the worker
 * writes a request naming where a batch lies in it and waits for the reply
 * on its latch and the reply pipe together, so that interrupts are served
 * while the GPU works.  The helper writes the tiles into the region, where
 * the backend reads them.
 *
 * A helper that dies closes its reply pipe: the waiting worker, or the
 * worker's idle wait, sees end of file.  One that stops answering is
 * killed after the timeout.  Either way it is reaped without blocking (a
 * process stuck in a driver call may take a while to go) and the caller
 * decides what to do next; see worker.c.
 */
#include "worker/gpu_helper.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/timestamp.h"

#include "gsst_gpu.h"
#include "worker/batch_region.h"
#include "worker/helper/helper_protocol.h"

extern char **environ;

#define MAX_UNREAPED		16
#define STOP_GRACE_MS		2000

static pid_t helper_pid = 0;
static int	request_fd = -1;	/* write end of the helper's requests */
static int	reply_fd = -1;		/* read end of its replies, non-blocking */
static uint64 next_seq = 1;

/* helpers that were told to go but had not gone yet */
static pid_t unreaped[MAX_UNREAPED];
static int	nunreaped = 0;

typedef enum ReplyOutcome
{
	REPLY_OK,
	REPLY_EOF,					/* the helper closed its end: it is gone */
	REPLY_TIMEOUT,
	REPLY_ERROR
} ReplyOutcome;

pid_t
gpu_helper_pid(void)
{
	return helper_pid;
}

int
gpu_helper_reply_fd(void)
{
	return reply_fd;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Reap ended helpers; never waits. */
void
gpu_helper_reap(void)
{
	int			kept = 0;

	for (int i = 0; i < nunreaped; i++)
	{
		pid_t		r = waitpid(unreaped[i], NULL, WNOHANG);

		if (r == 0)
			unreaped[kept++] = unreaped[i];
	}
	nunreaped = kept;
}

/*
 * Let the helper go: close its pipes, kill it first if asked,
 * and reap it if it ends within grace_ms.  message (may be NULL) receives
 * how it ended.
 */
static void
forget_helper(bool kill_it, int grace_ms, const char *what, char *message, Size message_len)
{
	pid_t		pid = helper_pid;
	int			status = 0;
	bool		reaped = false;

	if (pid == 0)
		return;
	if (kill_it)
		(void) kill(pid, SIGKILL);
	close_fd(&request_fd);
	close_fd(&reply_fd);
	helper_pid = 0;

	for (int waited = 0;; waited += 10)
	{
		pid_t		r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
		{
			reaped = r == pid;
			break;
		}
		if (waited >= grace_ms)
			break;
		pg_usleep(10 * 1000L);
	}
	if (!reaped)
	{
		if (!kill_it)
			(void) kill(pid, SIGKILL);
		if (nunreaped < MAX_UNREAPED)
			unreaped[nunreaped++] = pid;
	}
	if (message != NULL)
	{
		if (reaped && status != 0)
		{
			char	   *how = wait_result_to_str(status);

			snprintf(message, message_len, "GPU helper (pid %d) %s: %s", (int) pid, what, how);
			pfree(how);
		}
		else
			snprintf(message, message_len, "GPU helper (pid %d) %s", (int) pid, what);
	}
}

/* Stop the helper on purpose: end of its requests, then SIGKILL. */
void
gpu_helper_stop(void)
{
	forget_helper(false, STOP_GRACE_MS, "stopped", NULL, 0);
}

/* The worker is exiting: no waiting (PR_SET_PDEATHSIG would kill it too). */
void
gpu_helper_kill(void)
{
	forget_helper(true, 0, "killed", NULL, 0);
}

/*
 * Read one reply, waiting on the latch and the pipe together until
 * timeout_ms: interrupts (SIGTERM, cancel of a reload) are served.
 */
static ReplyOutcome
read_reply(gsst_helper_reply *reply, int timeout_ms)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
	char	   *at = (char *) reply;
	Size		got = 0;

	for (;;)
	{
		ssize_t		n = read(reply_fd, at + got, sizeof(*reply) - got);
		long		remaining;
		int			events;

		if (n > 0)
		{
			got += n;
			if (got == sizeof(*reply))
				return reply->magic == GSST_HELPER_MAGIC ? REPLY_OK : REPLY_ERROR;
			continue;
		}
		if (n == 0)
			return REPLY_EOF;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return REPLY_ERROR;

		remaining = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (remaining <= 0)
			return REPLY_TIMEOUT;
		events = WaitLatchOrSocket(MyLatch,
								   WL_LATCH_SET | WL_SOCKET_READABLE | WL_TIMEOUT |
								   WL_EXIT_ON_PM_DEATH,
								   reply_fd, remaining, PG_WAIT_EXTENSION);
		if (events & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
}

/* The helper did not answer: kill it, say how it went. */
static void
lose_helper(ReplyOutcome outcome, int timeout_ms, char *message, Size message_len)
{
	char		what[64];

	if (outcome == REPLY_TIMEOUT)
		snprintf(what, sizeof(what), "did not answer within %d ms and was killed", timeout_ms);
	else if (outcome == REPLY_EOF)
		snprintf(what, sizeof(what), "died");
	else
		snprintf(what, sizeof(what), "broke the protocol and was killed");
	forget_helper(outcome != REPLY_EOF, 1000, what, message, message_len);
}

/* A copy of fd at 10 or above, so that it cannot collide with 3, 4, 5. */
static int
high_copy(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

GpuHelperStart
gpu_helper_start(const char *helper_path, const char *library, int device,
				 int timeout_ms, char *message, Size message_len)
{
	static const int default_signals[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD,
		SIGALRM, SIGTTIN, SIGTTOU, SIGXFSZ
	};
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t	none;
	sigset_t	defaults;
	int			requests[2] = {-1, -1};
	int			replies[2] = {-1, -1};
	int			child_fds[3] = {-1, -1, -1};
	char		device_arg[16];
	char		parent_arg[16];
	char	   *argv[GSST_HELPER_ARGC + 1];
	gsst_helper_reply reply;
	ReplyOutcome outcome;
	pid_t		pid;
	int			rc;

	if (helper_pid != 0)
		gpu_helper_stop();
	gpu_helper_reap();

	if (access(helper_path, X_OK) != 0)
	{
		snprintf(message, message_len, "cannot run the GPU helper \"%s\": %m", helper_path);
		return GPU_HELPER_REFUSED;
	}
	if (gsst_batch_region_fd() < 0)
	{
		snprintf(message, message_len, "there is no batch region for the GPU helper");
		return GPU_HELPER_REFUSED;
	}
	if (pipe2(requests, O_CLOEXEC) != 0 || pipe2(replies, O_CLOEXEC) != 0 ||
		(child_fds[0] = high_copy(requests[0])) < 0 ||
		(child_fds[1] = high_copy(replies[1])) < 0 ||
		(child_fds[2] = high_copy(gsst_batch_region_fd())) < 0)
	{
		snprintf(message, message_len, "could not set up the GPU helper's pipes: %m");
		for (int i = 0; i < 2; i++)
		{
			close_fd(&requests[i]);
			close_fd(&replies[i]);
		}
		for (int i = 0; i < 3; i++)
			close_fd(&child_fds[i]);
		return GPU_HELPER_REFUSED;
	}
	close_fd(&requests[0]);
	close_fd(&replies[1]);

	snprintf(device_arg, sizeof(device_arg), "%d", device);
	snprintf(parent_arg, sizeof(parent_arg), "%d", (int) MyProcPid);
	argv[0] = (char *) helper_path;
	argv[1] = (char *) library;
	argv[2] = device_arg;
	argv[3] = parent_arg;
	argv[4] = NULL;

	/* the helper starts with no blocked and no ignored signal */
	sigemptyset(&none);
	sigemptyset(&defaults);
	for (int i = 0; i < lengthof(default_signals); i++)
		sigaddset(&defaults, default_signals[i]);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, child_fds[0], GSST_HELPER_REQUEST_FD);
	posix_spawn_file_actions_adddup2(&actions, child_fds[1], GSST_HELPER_REPLY_FD);
	posix_spawn_file_actions_adddup2(&actions, child_fds[2], GSST_HELPER_REGION_FD);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	rc = posix_spawn(&pid, helper_path, &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	for (int i = 0; i < 3; i++)
		close_fd(&child_fds[i]);
	if (rc != 0)
	{
		snprintf(message, message_len, "could not start the GPU helper \"%s\": %s",
				 helper_path, strerror(rc));
		close_fd(&requests[1]);
		close_fd(&replies[0]);
		return GPU_HELPER_REFUSED;
	}
	helper_pid = pid;
	request_fd = requests[1];
	reply_fd = replies[0];
	(void) fcntl(reply_fd, F_SETFL, fcntl(reply_fd, F_GETFL) | O_NONBLOCK);

	/* the first reply: did the library open the device? */
	outcome = read_reply(&reply, timeout_ms);
	if (outcome != REPLY_OK || reply.seq != 0)
	{
		lose_helper(outcome == REPLY_OK ? REPLY_ERROR : outcome, timeout_ms,
					message, message_len);
		return GPU_HELPER_LOST_AT_START;
	}
	snprintf(message, message_len, "%s", reply.message);
	if (reply.status == GSST_GPU_OK)
		return GPU_HELPER_STARTED;
	/* it exits after saying why */
	forget_helper(false, 1000, "exited", NULL, 0);
	return reply.status == GSST_GPU_ERR_NO_DEVICE ? GPU_HELPER_NO_DEVICE : GPU_HELPER_REFUSED;
}

/* Write one request whole. */
static bool
send_request(const gsst_helper_request *req)
{
	const char *at = (const char *) req;
	Size		left = sizeof(*req);

	while (left > 0)
	{
		ssize_t		n = write(request_fd, at, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		at += n;
		left -= n;
	}
	return true;
}

/* ptr .. ptr + len inside the region: its offset there, else -1. */
static int64
region_offset(const void *ptr, Size len, const uint8 *region, Size region_bytes)
{
	const uint8 *p = (const uint8 *) ptr;

	if (p < region || p > region + region_bytes || len > (Size) (region + region_bytes - p))
		return -1;
	return (int64) (p - region);
}

/*
 * Encode a batch in the helper.  Every pointer lies in the batch region,
 * where the helper reads the batch and writes the tile: nothing is copied
 * here.  Returns GSST_GPU_OK with the tile in tile[0 .. *tile_len), a
 * gsst_gpu status when the library refused it, or GPU_HELPER_LOST when the
 * helper died, hung or could not be reached (it is gone then).  message
 * receives what went wrong.
 */
int
gpu_helper_encode(const uint8 *table, Size table_len, const uint8 *data,
				  const uint64 *offsets, Size nvalues, uint8 *tile, Size tile_cap,
				  Size *tile_len, int delay_ms, int timeout_ms,
				  char *message, Size message_len)
{
	const uint8 *region = (const uint8 *) gsst_batch_region_map();
	Size		region_bytes = gsst_batch_region_size();
	gsst_helper_request req;
	gsst_helper_reply reply;
	ReplyOutcome outcome;
	int64		table_off = -1;
	int64		offsets_off = -1;
	int64		data_off = -1;
	int64		tile_off = -1;

	*tile_len = 0;
	message[0] = '\0';
	if (helper_pid == 0)
	{
		snprintf(message, message_len, "no GPU helper is running");
		return GPU_HELPER_LOST;
	}
	if (region != NULL)
	{
		table_off = region_offset(table, table_len, region, region_bytes);
		offsets_off = region_offset(offsets, sizeof(uint64) * (nvalues + 1), region, region_bytes);
		if (offsets_off >= 0)
			data_off = region_offset(data, offsets[nvalues], region, region_bytes);
		tile_off = region_offset(tile, tile_cap, region, region_bytes);
	}
	if (table_off < 0 || offsets_off < 0 || data_off < 0 || tile_off < 0)
	{
		snprintf(message, message_len, "a batch outside the batch region");
		return GSST_GPU_ERR_ARG;
	}

	memset(&req, 0, sizeof(req));
	req.magic = GSST_HELPER_MAGIC;
	req.op = GSST_HELPER_ENCODE;
	req.seq = next_seq++;
	req.region_bytes = region_bytes;
	req.table_off = (uint64) table_off;
	req.table_len = table_len;
	req.offsets_off = (uint64) offsets_off;
	req.data_off = (uint64) data_off;
	req.nvalues = nvalues;
	req.tile_off = (uint64) tile_off;
	req.tile_cap = tile_cap;
	req.delay_ms = delay_ms;

	if (!send_request(&req))
		outcome = REPLY_EOF;
	else
		outcome = read_reply(&reply, timeout_ms);
	if (outcome == REPLY_OK && (reply.seq != req.seq ||
								(reply.status == GSST_GPU_OK && reply.tile_len > tile_cap)))
		outcome = REPLY_ERROR;
	if (outcome != REPLY_OK)
	{
		lose_helper(outcome, timeout_ms, message, message_len);
		return GPU_HELPER_LOST;
	}
	if (reply.status != GSST_GPU_OK)
	{
		snprintf(message, message_len, "%s", reply.message);
		return reply.status;
	}
	*tile_len = reply.tile_len;
	return GSST_GPU_OK;
}

/*
 * The reply pipe became readable while no request was out: the helper has
 * ended (or broke the protocol).  Returns true if it is still there.
 */
bool
gpu_helper_check(char *message, Size message_len)
{
	char		byte;
	ssize_t		n;

	if (helper_pid == 0)
		return false;
	n = read(reply_fd, &byte, 1);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return true;
	lose_helper(n == 0 ? REPLY_EOF : REPLY_ERROR, 0, message, message_len);
	return false;
}
