#!/bin/sh
# test/clients/node/foreign_nodejs.sh - prints the version of the installed
# nodejs when Debian does not carry it (NodeSource's, say), and nothing when
# nodejs is Debian's or absent.  Debian's node-pg is built for Debian's
# nodejs and cannot be installed beside another: make deps-test leaves it
# out there, and test/tap/023_node.pl skips and says why.
v=$(dpkg-query -W -f='${Version}' nodejs 2>/dev/null) || exit 0
[ -n "$v" ] || exit 0
apt-cache madison nodejs 2>/dev/null | grep -qF " $v " || echo "$v"
