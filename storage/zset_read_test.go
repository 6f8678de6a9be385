package storage

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// ZRead reads one sorted set as of one snapshot: a member's score, and
// score ranges min <= s < max in order, stopping where fn says.
func TestZRead(t *testing.T) {
	db := newTestDB(t)
	var scores []float64
	var members [][]byte
	for i := 0; i < 100; i++ {
		scores, members = append(scores, float64(i*10)), append(members, b("m"+strconv.Itoa(i)))
	}
	scores = append(scores, math.Copysign(0, -1), -5, math.Inf(1))
	members = append(members, b("negzero"), b("neg"), b("inf"))
	if _, err := db.ZAdd(b("z"), ZAddFlags{}, scores, members); err != nil {
		t.Fatal(err)
	}
	err := db.ZRead(b("z"), func(r ZReader) error {
		if !r.Exists() {
			t.Fatal("the set does not exist")
		}
		if s, found, err := r.Score(b("m7")); err != nil || !found || s != 70 {
			t.Errorf("Score(m7) = %v, %v, %v", s, found, err)
		}
		if _, found, _ := r.Score(b("nosuch")); found {
			t.Error("Score(nosuch) found")
		}
		var got []string
		if err := r.Scan([]ScoreRange{{0, 50}}, func(m []byte, s float64) bool {
			got = append(got, string(m)+"="+strconv.FormatFloat(s, 'g', -1, 64))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		// 50 itself is out (max is excluded); ZADD stored -0 as 0.
		if want := "m0=0 negzero=0 m1=10 m2=20 m3=30 m4=40"; strings.Join(got, " ") != want {
			t.Errorf("Scan(0, 50) = %s, want %s", strings.Join(got, " "), want)
		}
		n := 0
		r.Scan([]ScoreRange{{100, math.Inf(1)}, {0, 50}}, func([]byte, float64) bool { n++; return n < 3 })
		if n != 3 {
			t.Errorf("Scan went on after fn returned false: %d calls", n)
		}
		n = 0
		r.Scan([]ScoreRange{{995, 2000}, {50, 50}, {60, 40}}, func([]byte, float64) bool { n++; return true })
		if n != 0 {
			t.Errorf("Scan of empty ranges found %d", n)
		}
		// Ranges in any order, each read in score order up to its end
		// and no further, the same member again when ranges repeat.
		got = got[:0]
		if err := r.Scan([]ScoreRange{{900, 925}, {-10, 0}, {15, 31}, {900, 910}}, func(m []byte, s float64) bool {
			got = append(got, string(m))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if want := "m90 m91 m92 neg m2 m3 m90"; strings.Join(got, " ") != want {
			t.Errorf("Scan of four ranges = %s, want %s", strings.Join(got, " "), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sentinel := errors.New("mine")
	if err := db.ZRead(b("nosuch"), func(r ZReader) error {
		if r.Exists() {
			t.Error("an absent set exists")
		}
		if _, found, err := r.Score(b("a")); found || err != nil {
			t.Errorf("Score on an absent set: %v %v", found, err)
		}
		return sentinel
	}); !errors.Is(err, sentinel) {
		t.Errorf("ZRead returned %v, not fn's error", err)
	}
	if _, err := db.Set(b("str"), b("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	called := false
	if err := db.ZRead(b("str"), func(ZReader) error { called = true; return nil }); !errors.Is(err, ErrWrongType) || called {
		t.Errorf("ZRead of a string: %v, fn called %v", err, called)
	}
}
