module gsst.test/libpq

go 1.19

require github.com/lib/pq v1.10.7

// Debian's golang-github-lib-pq-dev: the test builds offline
replace github.com/lib/pq => /usr/share/gocode/src/github.com/lib/pq
