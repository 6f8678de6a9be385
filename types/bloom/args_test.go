package bloom

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func args(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Split(s, " ") {
		out = append(out, []byte(strings.ReplaceAll(f, "␣", " ")))
	}
	if s == "" {
		return nil
	}
	return out
}

// The expected errors are the real Kvrocks 5fccd57's replies.
func TestParseReserve(t *testing.T) {
	for _, c := range []struct {
		args string
		want Options
		err  error
	}{
		{"0.01 100", Options{0.01, 100, 2}, nil},
		{"0.01 100 NONSCALING", Options{0.01, 100, 0}, nil},
		{"0.01 100 expansion 5", Options{0.01, 100, 5}, nil},
		{"0.01 100 EXPANSION 3 EXPANSION 4", Options{0.01, 100, 4}, nil},
		{"0.01 100 NONSCALING NONSCALING", Options{0.01, 100, 0}, nil},
		{"1e-2 4294967295", Options{0.01, math.MaxUint32, 2}, nil},
		{"␣0.01 +5 EXPANSION 03", Options{0.01, 5, 3}, nil},
		{"0x.8 -18446744073709551615", Options{0.5, 1, 2}, nil}, // strtod hex; strtoull wraps
		{"0.01", Options{}, ErrWrongArgs},
		{"abc 100", Options{}, ErrBadErrorRate},
		{"0.01␣ 100", Options{}, ErrBadErrorRate},
		{"1e-310 100", Options{}, ErrBadErrorRate}, // strtod underflow
		{"1e400 100", Options{}, ErrBadErrorRate},
		{"0 100", Options{}, ErrErrorRateRange},
		{"1 100", Options{}, ErrErrorRateRange},
		{"-0 100", Options{}, ErrErrorRateRange},
		{"inf 100", Options{}, ErrErrorRateRange},
		{"nan 100", Options{}, ErrErrorRateRange}, // Kvrocks: +OK
		{"-nan(0x1) 100", Options{}, ErrErrorRateRange},
		{"2 x FOO", Options{}, ErrErrorRateRange},
		{"0.01 abc", Options{}, ErrBadCapacity},
		{"0.01 -1", Options{}, ErrBadCapacity},
		{"0.01 4294967296", Options{}, ErrBadCapacity},
		{"0.01 1.5", Options{}, ErrBadCapacity},
		{"0.01 0x10", Options{}, ErrBadCapacity},
		{"0.01 5␣", Options{}, ErrBadCapacity},
		{"0.01 0", Options{}, ErrCapacityRange},
		{"0.01 -0", Options{}, ErrCapacityRange},
		{"0.01 0 FOO", Options{}, ErrCapacityRange},
		{"0.01 100 EXPANSION", Options{}, ErrBadExpansion},
		{"0.01 100 EXPANSION 65536", Options{}, ErrBadExpansion},
		{"0.01 100 NONSCALING EXPANSION x", Options{}, ErrBadExpansion},
		{"0.01 100 EXPANSION 0", Options{}, ErrExpansionRange},
		{"0.01 100 EXPANSION 0 NONSCALING", Options{}, ErrExpansionRange},
		{"0.01 100 EXPANSION 1 NONSCALING", Options{}, ErrCannotExpand},
		{"0.01 100 NONSCALING EXPANSION 2", Options{}, ErrCannotExpand},
		{"0.01 100 FOO", Options{}, ErrSyntax},
		{"0.01 100 NONSCALING FOO", Options{}, ErrSyntax},
		{"0.01 100 EXPANSION 5 FOO", Options{}, ErrSyntax},
	} {
		o, err := ParseReserve(args(c.args))
		if !errors.Is(err, c.err) || (err == nil && o != c.want) {
			t.Errorf("ParseReserve(%s) = %+v, %v; want %+v, %v", c.args, o, err, c.want, c.err)
		}
	}
}

func TestParseInsert(t *testing.T) {
	for _, c := range []struct {
		args     string
		want     Options
		noCreate bool
		items    string
		err      error
	}{
		{"ITEMS a", Defaults, false, "a", nil},
		{"capacity 3 error 0.001 expansion 3 items a b", Options{0.001, 3, 3}, false, "a b", nil},
		{"NONSCALING NOCREATE ITEMS a", Options{0.01, 100, 0}, true, "a", nil},
		{"ITEMS a CAPACITY 5", Defaults, false, "a CAPACITY 5", nil},
		{"ITEMS ITEMS CAPACITY", Defaults, false, "ITEMS CAPACITY", nil},
		{"ERROR 0.1 ERROR 0.2 ITEMS a", Options{0.2, 100, 2}, false, "a", nil},
		{"CAPACITY 10", Options{}, false, "", ErrSyntax},
		{"FOO ITEMS a", Options{}, false, "", ErrSyntax},
		{"FOO CAPACITY 0 ITEMS a", Options{}, false, "", ErrSyntax},
		{"NONSCALING EXPANSION 2 FOO ITEMS a", Options{}, false, "", ErrSyntax},
		{"CAPACITY ITEMS a", Options{}, false, "", ErrBadCapacity},
		{"NOCREATE CAPACITY", Options{}, false, "", ErrBadCapacity},
		{"CAPACITY 0 FOO ITEMS a", Options{}, false, "", ErrCapacityRange},
		{"NOCREATE CAPACITY 0 ITEMS", Options{}, false, "", ErrCapacityRange},
		{"ERROR 2 CAPACITY x ITEMS a", Options{}, false, "", ErrErrorRateRange},
		{"ERROR abc ITEMS a", Options{}, false, "", ErrBadErrorRate},
		{"EXPANSION abc ITEMS a", Options{}, false, "", ErrBadExpansion},
		{"EXPANSION 0 ERROR 2 ITEMS a", Options{}, false, "", ErrExpansionRange},
		{"EXPANSION 2 NONSCALING ITEMS a", Options{}, false, "", ErrCannotExpand},
		{"NONSCALING EXPANSION 2", Options{}, false, "", ErrCannotExpand},
		{"NONSCALING EXPANSION 2 ITEMS", Options{}, false, "", ErrCannotExpand},
		{"CAPACITY 5 ITEMS", Options{}, false, "", ErrNoItems},
		{"NOCREATE ITEMS", Options{}, false, "", ErrNoItems},
	} {
		a, err := ParseInsert(args(c.args))
		if !errors.Is(err, c.err) {
			t.Errorf("ParseInsert(%s): %v, want %v", c.args, err, c.err)
			continue
		}
		if err != nil {
			continue
		}
		var items []string
		for _, it := range a.Items {
			items = append(items, string(it))
		}
		if a.Options != c.want || a.NoCreate != c.noCreate || strings.Join(items, " ") != c.items {
			t.Errorf("ParseInsert(%s) = %+v", c.args, a)
		}
	}
}

func TestParseInfo(t *testing.T) {
	for _, c := range []struct {
		args string
		want InfoField
		err  error
	}{
		{"", InfoAll, nil},
		{"capacity", InfoCapacity, nil},
		{"SIZE", InfoSize, nil},
		{"Filters", InfoFilters, nil},
		{"ITEMS", InfoItems, nil},
		{"EXPANSION", InfoExpansion, nil},
		{"foo", InfoAll, ErrInfoArgument},
		{"ITEMS ITEMS", InfoAll, ErrWrongArgs},
	} {
		f, err := ParseInfo(args(c.args))
		if f != c.want || !errors.Is(err, c.err) {
			t.Errorf("ParseInfo(%s) = %v, %v", c.args, f, err)
		}
	}
}

func TestParseDouble(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.5", 0.5, true}, {".5", 0.5, true}, {"+0.5", 0.5, true}, {"\t\n\v\f\r 0.5", 0.5, true},
		{"0x1p-4", 0.0625, true}, {"0X.8", 0.5, true}, {"2.2250738585072014e-308", 0x1p-1022, true},
		{"0", 0, true}, {"0e5", 0, true}, {"0x0", 0, true},
		{"", 0, false}, {" ", 0, false}, {"0.5 ", 0, false}, {"0.5\x00", 0, false}, {"0,5", 0, false},
		{"0.5e", 0, false}, {"1_0", 0, false}, {"0x", 0, false}, {"++1", 0, false}, {"1e-400", 0, false},
		{"0x1p-1074", 0x1p-1074, true}, {"+0x1p-1030", 0x1p-1030, true}, {"4.9e-324", 0, false}, {"-0x1.8p-1074", 0, false},
		{"4.940656458412465441765687928682213723650598026143247644255856825006755072702087518652998363616359923797965646954457177309266567103559397963987747960107818781263007131903114045278458171678489821036887186360569987307230500063874091535649843873124733972731696151400317153853980741262385655911710266585566867681870395603106249319452715914924553293054565444011274801297099995419319894090804165633245247571478690147267801593552386115501348035264934720193790268107107491703332226844753335720832431936092382893458368060106011506169809753078342277318329247904982524730776375927247874656084778203734469699533647017972677717585125660551199131504891101451037862738167250955837389733598993664809941164205702637090279242767544565229087538682506419718265533447265625e-324", 0x1p-1074, true},
	} {
		got, ok := parseDouble([]byte(c.in))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseDouble(%q) = %v, %v", c.in, got, ok)
		}
	}
	for _, s := range []string{"nan", "NaN", "-nan", "nan()", "nan(0x1_A)"} {
		if f, ok := parseDouble([]byte(s)); !ok || !math.IsNaN(f) {
			t.Errorf("parseDouble(%q) = %v, %v", s, f, ok)
		}
	}
	for _, s := range []string{"nan(", "nan(-)", "nanx", "+-nan"} {
		if _, ok := parseDouble([]byte(s)); ok {
			t.Errorf("parseDouble(%q) is a number", s)
		}
	}
}
