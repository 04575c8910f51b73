# scripts/debian_root.sh - Debian roots for the test matrix and the package
# test, sourced by scripts/matrix.sh and scripts/deb.sh.
#
# A root gets /proc and a /dev of its own (a tmpfs with the few nodes
# PostgreSQL and apt use, and /dev/shm) mounted while it runs; this
# machine's /dev is never bound into it.  A root is never removed while
# anything is mounted in it.

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# suite_of MAJOR: the Debian suite that carries PostgreSQL MAJOR
suite_of() {
	case $1 in
		15) echo bookworm ;;
		17) echo trixie ;;
		18) echo forky ;;
		*) echo "no Debian suite carries PostgreSQL $1" >&2; exit 2 ;;
	esac
}

# host_suite: this machine's Debian suite
host_suite() {
	(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
}

# copy_repo REPO DEST: the repository's files (what git tracks, and
# untracked files it does not ignore; without git, all but tmp/) in DEST
copy_repo() {
	local repo=$1 dest=$2
	rm -rf --one-file-system "$dest"
	mkdir -p "$dest"
	if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$repo" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) | tar -xf - -C "$dest"
	else
		(cd "$repo" && tar --exclude=./tmp -cf - .) | tar -xf - -C "$dest"
	fi
}

# root_tools: debootstrap on this machine
root_tools() {
	if ! command -v debootstrap >/dev/null; then
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
	fi
}

# root_make SUITE DIR: a minimal Debian root of SUITE
root_make() {
	local suite=$1 dir=$2 script=""
	root_tools
	# debootstrap of an older release has no script for a newer suite yet
	if [ ! -e "/usr/share/debootstrap/scripts/$suite" ]; then
		script=/usr/share/debootstrap/scripts/sid
	fi
	root_remove "$dir.partial"
	debootstrap --variant=minbase "$suite" "$dir.partial" "$MIRROR" $script
	# a suite in development can be past its Release file's Valid-Until
	echo 'Acquire::Check-Valid-Until "false";' > "$dir.partial/etc/apt/apt.conf.d/99gsst"
	mv "$dir.partial" "$dir"
}

# root_minbase SUITE: $ROOTS/SUITE-minbase.tar, a minimal root of SUITE
# kept as a tarball, made once: every root of SUITE is unpacked from it
root_minbase() {
	local suite=$1 tarball=$ROOTS/$1-minbase.tar
	[ -f "$tarball" ] && return 0
	mkdir -p "$ROOTS"
	root_make "$suite" "$ROOTS/$suite-pristine"
	tar -C "$ROOTS/$suite-pristine" -cf "$tarball.partial" .
	mv "$tarball.partial" "$tarball"
	root_remove "$ROOTS/$suite-pristine"
}

# root_unpack SUITE DIR: a fresh root of SUITE in DIR, from its tarball
root_unpack() {
	local suite=$1 dir=$2
	root_minbase "$suite"
	root_remove "$dir.partial"
	mkdir -p "$dir.partial"
	tar -C "$dir.partial" -xf "$ROOTS/$suite-minbase.tar"
	mv "$dir.partial" "$dir"
}

root_mount() {
	local dir=$1 node
	mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
	if ! mountpoint -q "$dir/dev"; then
		mount -t tmpfs -o mode=755 tmpfs "$dir/dev"
		for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
			mknod -m 666 "$dir/dev/${node%%:*}" c "$(echo "$node" | cut -d: -f2)" "${node##*:}"
		done
		ln -s /proc/self/fd "$dir/dev/fd"
		ln -s /proc/self/fd/0 "$dir/dev/stdin"
		ln -s /proc/self/fd/1 "$dir/dev/stdout"
		ln -s /proc/self/fd/2 "$dir/dev/stderr"
		mkdir "$dir/dev/shm" "$dir/dev/pts"
		ln -s pts/ptmx "$dir/dev/ptmx"
		# a devpts instance of its own, for apt's terminal handling
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts" 2>/dev/null || true
	fi
	# POSIX shared memory for PostgreSQL's dynamic shared memory
	mountpoint -q "$dir/dev/shm" || mount -t tmpfs tmpfs "$dir/dev/shm"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

# root_mounts DIR: the mount points under DIR, deepest first
root_mounts() {
	local dir
	dir=$(realpath -m "$1")
	awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r
}

root_umount() {
	local m
	for m in $(root_mounts "$1"); do
		umount "$m" || umount -l "$m"
	done
}

# root_remove DIR: unmount what is mounted in it, then remove it, never
# crossing into another file system
root_remove() {
	local dir=$1
	[ -e "$dir" ] || return 0
	root_umount "$dir"
	if [ -n "$(root_mounts "$dir")" ]; then
		echo "scripts/debian_root.sh: $dir still has mounts; not removing it" >&2
		return 1
	fi
	rm -rf --one-file-system "$dir"
}
