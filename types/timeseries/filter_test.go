package timeseries

import (
	"errors"
	"testing"
)

func TestFilterParseAndMatch(t *testing.T) {
	kitchen := []Label{{[]byte("room"), []byte("kitchen")}, {[]byte("type"), []byte("temp")}}
	hall := []Label{{[]byte("room"), []byte("hall")}}
	cases := []struct {
		exprs         []string
		err           error
		kitchen, hall bool
	}{
		{[]string{"room=kitchen"}, nil, true, false},
		{[]string{`room="kitchen"`}, nil, true, false},
		{[]string{"room='hall'"}, nil, false, true},
		{[]string{"room=(kitchen,hall)"}, nil, true, true},
		{[]string{`room=("kitchen",'x')`}, nil, true, false},
		{[]string{"room=(kitchen,hall)", "type="}, nil, false, true},
		{[]string{"room=(kitchen,hall)", "type!="}, nil, true, false},
		{[]string{"room=(kitchen,hall)", "type!=temp"}, nil, false, true},
		{[]string{"room=(kitchen,hall)", "room!=(hall,x)"}, nil, true, false},
		{[]string{"type!=temp"}, ErrNoMatcher, false, false},
		{[]string{"type="}, ErrNoMatcher, false, false},
		{[]string{"type"}, ErrFilterParse, false, false},
		{[]string{"=temp"}, ErrFilterParse, false, false},
		{[]string{"!=temp"}, ErrFilterParse, false, false},
		{[]string{"type=(temp"}, ErrFilterParse, false, false},
		{[]string{"type=te(mp"}, ErrFilterParse, false, false},
	}
	for _, c := range cases {
		args := make([][]byte, len(c.exprs))
		for i, e := range c.exprs {
			args[i] = []byte(e)
		}
		f, err := ParseFilter(args)
		if !errors.Is(err, c.err) {
			t.Errorf("%q: %v", c.exprs, err)
			continue
		}
		if err != nil {
			continue
		}
		if f.Match(kitchen) != c.kitchen || f.Match(hall) != c.hall {
			t.Errorf("%q: kitchen %v hall %v", c.exprs, f.Match(kitchen), f.Match(hall))
		}
		if l, vs := f.Seeks(); l == nil || len(vs) == 0 {
			t.Errorf("%q: nothing to seek", c.exprs)
		}
	}
}

func TestLabelChanges(t *testing.T) {
	old := []Label{{[]byte("a"), []byte("1")}, {[]byte("b"), []byte("2")}}
	labels := []Label{{[]byte("b"), []byte("3")}, {[]byte("c"), []byte("4")}}
	subs, index := LabelChanges("ns", []byte("k"), old, labels)
	var got []string
	for _, c := range subs {
		got = append(got, describe(c))
	}
	for _, c := range index {
		got = append(got, describe(c))
	}
	want := []string{
		"del 0161", "put 0162=33", "put 0163=34",
		"del 026e7300000000016100000001316b",
		"del 026e7300000000016200000001326b", "put 026e7300000000016200000001336b=",
		"put 026e7300000000016300000001346b=",
	}
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %s, want %s", i, got[i], want[i])
		}
	}
}

func describe(c Change) string {
	if c.Delete {
		return "del " + hexs(c.Subkey)
	}
	return "put " + hexs(c.Subkey) + "=" + hexs(c.Value)
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, x := range b {
		out = append(out, digits[x>>4], digits[x&15])
	}
	return string(out)
}
