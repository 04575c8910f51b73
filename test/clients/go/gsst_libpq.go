// gsst_libpq.go - what lib/pq, as Debian ships it, does with a gsst column
// and no setup: run by test/tap/022_go.pl (go run . DSN, offline, against
// golang-github-lib-pq-dev).  Prints one "name=value" line per finding; the
// test compares them with the server's.
package main

import (
	"crypto/md5"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/lib/pq"
)

func say(name string, value interface{}) {
	fmt.Printf("%s=%v\n", name, value)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// md5 of "id:value\n" per row, in id order, NULL as \N
func digest(rows *sql.Rows) string {
	h := md5.New()
	for rows.Next() {
		var id int64
		var c sql.NullString
		check(rows.Scan(&id, &c))
		v := `\N`
		if c.Valid {
			v = c.String
		}
		fmt.Fprintf(h, "%d:%s\n", id, v)
	}
	check(rows.Err())
	check(rows.Close())
	return fmt.Sprintf("%x", h.Sum(nil))
}

// The lines of EXPLAIN (COSTS OFF) of query with args, joined.
func plan(db *sql.DB, query string, args ...interface{}) string {
	rows, err := db.Query("EXPLAIN (COSTS OFF) "+query, args...)
	check(err)
	var lines []string
	for rows.Next() {
		var line string
		check(rows.Scan(&line))
		lines = append(lines, strings.TrimSpace(line))
	}
	check(rows.Close())
	return strings.Join(lines, " ")
}

func main() {
	db, err := sql.Open("postgres", os.Args[1])
	check(err)
	defer db.Close()

	// every value, as a query and as a prepared statement run three times
	rows, err := db.Query("SELECT id, c FROM t ORDER BY id")
	check(err)
	say("read_query", digest(rows))
	stmt, err := db.Prepare("SELECT id, c FROM t WHERE id > $1 ORDER BY id")
	check(err)
	for run := 0; run < 3; run++ {
		rows, err = stmt.Query(0)
		check(err)
		say(fmt.Sprintf("read_prepared_%d", run), digest(rows))
	}
	check(stmt.Close())

	// the column's type as the driver names it, and a scan into interface{}
	rows, err = db.Query("SELECT c FROM t WHERE id = 3001")
	check(err)
	types, err := rows.ColumnTypes()
	check(err)
	say("column_type", types[0].DatabaseTypeName())
	var value interface{}
	for rows.Next() {
		check(rows.Scan(&value))
	}
	check(rows.Close())
	say("scan_any_type", fmt.Sprintf("%T", value))
	if b, ok := value.([]byte); ok {
		say("scan_any_value", string(b))
	}

	// a string parameter finds a row, through the index
	var ids []string
	rows, err = db.Query("SELECT id FROM t WHERE c = $1", "emoji 🐘🐘 elephant ünïcödé ∑ ≠ ∞")
	check(err)
	for rows.Next() {
		var id string
		check(rows.Scan(&id))
		ids = append(ids, id)
	}
	check(rows.Close())
	say("lookup_ids", strings.Join(ids, ","))
	say("lookup_plan", plan(db, "SELECT id FROM t WHERE c = $1", "user1000@example.com"))
	say("range_plan", plan(db, "SELECT c FROM t WHERE c > $1 ORDER BY c LIMIT 3", "user1"))

	// a gsst[] into []sql.NullString, empty string and NULL included
	var arr []sql.NullString
	check(db.QueryRow("SELECT ARRAY['a', '', 'Zoë', NULL, '東京']::gsst[]").Scan(pq.Array(&arr)))
	var parts []string
	for _, e := range arr {
		if e.Valid {
			parts = append(parts, "<"+e.String+">")
		} else {
			parts = append(parts, "<null>")
		}
	}
	say("array", strings.Join(parts, ""))

	// parameters write text into a gsst column, and COPY does too
	values := []sql.NullString{{String: "", Valid: true}, {String: "Zoë", Valid: true},
		{String: "東京", Valid: true}, {}, {String: "plain ascii", Valid: true}}
	for i, v := range values {
		_, err = db.Exec("INSERT INTO w VALUES ($1, $2)", i+1, v)
		check(err)
	}
	txn, err := db.Begin()
	check(err)
	copyStmt, err := txn.Prepare(pq.CopyIn("w", "id", "c"))
	check(err)
	for i, v := range values {
		if v.Valid {
			_, err = copyStmt.Exec(i+11, v.String)
		} else {
			_, err = copyStmt.Exec(i+11, nil)
		}
		check(err)
	}
	_, err = copyStmt.Exec()
	check(err)
	check(copyStmt.Close())
	check(txn.Commit())
	say("done", "yes")
}
