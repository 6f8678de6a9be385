package storage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// listState returns the list's elements and its head/tail relative to the
// initial index, read straight from the metadata and the index records.
func listState(t *testing.T, db DB, key string) (string, int64, int64) {
	t.Helper()
	c, err := db.forRead(b(key), metadata.TypeList)
	if err != nil || c == nil {
		t.Fatalf("list %s: %v", key, err)
	}
	var elems []string
	for i := c.meta.Head; i < c.meta.Tail; i++ {
		v, found, err := db.s.get(CFDefault, c.at(i), nil)
		if err != nil || !found {
			t.Fatalf("index %d missing", int64(i-metadata.ListInitialIndex))
		}
		elems = append(elems, string(v))
	}
	if uint64(len(elems)) != c.meta.Size {
		t.Fatalf("size %d, %d elements", c.meta.Size, len(elems))
	}
	return strings.Join(elems, ","), int64(c.meta.Head - metadata.ListInitialIndex), int64(c.meta.Tail - metadata.ListInitialIndex)
}

func pushAll(t *testing.T, db DB, key string, n int) {
	var elems [][]byte
	for i := 0; i < n; i++ {
		elems = append(elems, b(fmt.Sprint(i)))
	}
	if _, err := db.Push(b(key), elems, false, false); err != nil {
		t.Fatal(err)
	}
}

func TestListIndexesFollowFormat(t *testing.T) {
	db := newTestDB(t)
	db.Push(b("l"), [][]byte{b("a")}, false, false)
	db.Push(b("l"), [][]byte{b("b")}, true, false)
	if got, head, tail := listState(t, db, "l"); got != "b,a" || head != -1 || tail != 1 {
		t.Fatalf("after RPUSH a, LPUSH b: %s head %d tail %d", got, head, tail)
	}
}

func TestLInsertMovesTheShorterSide(t *testing.T) {
	db := newTestDB(t)
	pushAll(t, db, "l", 10)
	db.LInsert(b("l"), true, b("2"), b("x"))
	if got, head, tail := listState(t, db, "l"); got != "0,1,x,2,3,4,5,6,7,8,9" || head != -1 || tail != 10 {
		t.Fatalf("insert near the left: %s head %d tail %d", got, head, tail)
	}
	db.LInsert(b("l"), false, b("8"), b("y"))
	if got, head, tail := listState(t, db, "l"); got != "0,1,x,2,3,4,5,6,7,8,y,9" || head != -1 || tail != 11 {
		t.Fatalf("insert near the right: %s head %d tail %d", got, head, tail)
	}
	if n, _ := db.LInsert(b("l"), true, b("nope"), b("z")); n != -1 {
		t.Fatalf("missing pivot = %d", n)
	}
}

func TestLRemClosesGapsFromTheShorterSide(t *testing.T) {
	db := newTestDB(t)
	pushAll(t, db, "l", 10)
	db.Push(b("l"), [][]byte{b("1")}, false, false) // 0..9,1
	if n, _ := db.LRem(b("l"), 1, b("1")); n != 1 {
		t.Fatal("LREM 1")
	}
	if got, head, tail := listState(t, db, "l"); got != "0,2,3,4,5,6,7,8,9,1" || head != 1 || tail != 11 {
		t.Fatalf("remove near the left: %s head %d tail %d", got, head, tail)
	}
	if n, _ := db.LRem(b("l"), -1, b("8")); n != 1 {
		t.Fatal("LREM -1")
	}
	if got, head, tail := listState(t, db, "l"); got != "0,2,3,4,5,6,7,9,1" || head != 1 || tail != 10 {
		t.Fatalf("remove near the right: %s head %d tail %d", got, head, tail)
	}
	db.Push(b("m"), [][]byte{b("a"), b("b"), b("a"), b("a"), b("c"), b("a")}, false, false)
	if n, _ := db.LRem(b("m"), -2, b("a")); n != 2 {
		t.Fatal("LREM -2")
	}
	if got, _, _ := listState(t, db, "m"); got != "a,b,a,c" {
		t.Fatalf("LREM -2 a: %s", got)
	}
	if n, _ := db.LRem(b("m"), 0, b("a")); n != 2 {
		t.Fatal("LREM 0")
	}
	if got, _, _ := listState(t, db, "m"); got != "b,c" {
		t.Fatalf("LREM 0 a: %s", got)
	}
}

func TestLTrimAndPopDeleteEmptyLists(t *testing.T) {
	db := newTestDB(t)
	pushAll(t, db, "l", 10)
	if err := db.LTrim(b("l"), 2, -3); err != nil {
		t.Fatal(err)
	}
	if got, head, tail := listState(t, db, "l"); got != "2,3,4,5,6,7" || head != 2 || tail != 8 {
		t.Fatalf("LTRIM: %s head %d tail %d", got, head, tail)
	}
	db.LTrim(b("l"), 5, 1)
	if n, _ := db.Exists([][]byte{b("l")}); n != 0 {
		t.Fatal("LTRIM to an empty range must delete the list")
	}
	pushAll(t, db, "p", 3)
	db.Pop(b("p"), true, 10)
	if n, _ := db.Exists([][]byte{b("p")}); n != 0 {
		t.Fatal("popping every element must delete the list")
	}
}
