package it

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc64"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newerDump is a payload of Redis 7.2 or 7.4 from rdb/testdata/newer_dumps.txt
// (see there): its name, bytes, and what Basalt must hold once it is
// imported, as contents renders it ("" when nothing: every hash field had
// expired).
type newerDump struct {
	name, payload, want string
	// fieldTTLs are the TTLs of a hash's fields that have one and keep
	// it, by field.
	fieldTTLs map[string]int64
}

// readNewerDumps reads rdb/testdata/newer_dumps.txt; fields whose TTL is
// before now are left out of what is wanted.
func readNewerDumps(t *testing.T, now int64) []newerDump {
	t.Helper()
	f, err := os.Open("../rdb/testdata/newer_dumps.txt")
	must(t, err)
	defer f.Close()
	var out []newerDump
	var kind string
	var elems []string
	finish := func(ttls []int64) {
		if kind == "" {
			return
		}
		out[len(out)-1].want = importedContents(kind, elems, ttls, now)
		for i, ttl := range ttls {
			if ttl > now && 2*i < len(elems) {
				if out[len(out)-1].fieldTTLs == nil {
					out[len(out)-1].fieldTTLs = map[string]int64{}
				}
				out[len(out)-1].fieldTTLs[elems[2*i]] = ttl
			}
		}
		kind = ""
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		word, rest, _ := strings.Cut(sc.Text(), " ")
		switch word {
		case "case":
			finish(nil)
			out = append(out, newerDump{name: rest})
		case "hex":
			b, err := hex.DecodeString(rest)
			must(t, err)
			out[len(out)-1].payload = string(b)
		case "want":
			kind, rest, _ = strings.Cut(rest, " ")
			elems = nil
			for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
				q, err := strconv.QuotedPrefix(rest)
				must(t, err)
				e, _ := strconv.Unquote(q)
				elems, rest = append(elems, e), rest[len(q):]
			}
		case "ttl":
			var ttls []int64
			for _, s := range strings.Fields(rest) {
				n, err := strconv.ParseInt(s, 10, 64)
				must(t, err)
				ttls = append(ttls, n)
			}
			finish(ttls)
		}
	}
	must(t, sc.Err())
	finish(nil)
	return out
}

// importedContents renders, as contents does, a value of kind holding
// elems (a hash's fields with TTLs ttls) once imported at now: the fields
// whose TTL has passed are gone.
func importedContents(kind string, elems []string, ttls []int64, now int64) string {
	var items []string
	switch kind {
	case "hash":
		for i := 0; i+1 < len(elems); i += 2 {
			if i/2 < len(ttls) && ttls[i/2] != 0 && ttls[i/2] <= now {
				continue
			}
			items = append(items, fmt.Sprintf("%q=%q", elems[i], elems[i+1]))
		}
		if len(items) == 0 {
			return ""
		}
		slices.Sort(items)
	case "zset":
		type scored struct {
			m string
			s float64
		}
		var zs []scored
		for i := 0; i+1 < len(elems); i += 2 {
			score, _ := strconv.ParseFloat(elems[i+1], 64) // "inf" too
			zs = append(zs, scored{elems[i], score})
		}
		slices.SortFunc(zs, func(a, b scored) int { return cmp.Or(cmp.Compare(a.s, b.s), cmp.Compare(a.m, b.m)) })
		for _, z := range zs {
			items = append(items, fmt.Sprintf("%q=%v", z.m, z.s))
		}
	case "set":
		items = slices.Sorted(slices.Values(elems))
	default:
		items = elems
	}
	return kind + " " + fmt.Sprintf("%q", items)
}

// redis74File is an RDB file of version 12 holding the payloads' values,
// each under its name, after the auxiliary field, database and slot
// sizes (opcode 244) Redis 7.4 in cluster mode writes before them.
func redis74File(dumps []newerDump) []byte {
	str := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	file := []byte("REDIS0012")
	file = append(append(append(file, 0xfa), str("redis-ver")...), str("7.4.0")...)
	file = append(file, 0xfe, 0, 0xf4, 0x43, 0x62, 30, 0)
	for _, d := range dumps {
		file = append(file, d.payload[0])
		file = append(append(file, str(d.name)...), d.payload[1:len(d.payload)-10]...)
	}
	file = append(file, 0xff)
	return binary.LittleEndian.AppendUint64(file, ^crc64.Update(^uint64(0), redisCRC, file))
}

// TestRestoreNewerDumps: the values of Redis 7.2 and 7.4 (RDB versions 11
// and 12: sets in listpacks, intsets, listpack hashes and sorted sets,
// quicklists, hashes with field TTLs) restore into Basalt and load from
// an RDB file of version 12; a hash's fields whose TTL has passed are
// dropped, the others kept with theirs, and a hash of expired fields only
// is an expired key. Version 13 is refused as redis-server refuses a
// version it does not know, in RESTORE, FUNCTION RESTORE and RDB LOAD.
func TestRestoreNewerDumps(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	c := b.longClient(t, 2)
	dumps := readNewerDumps(t, time.Now().UnixMilli())
	if len(dumps) < 15 {
		t.Fatalf("%d payloads", len(dumps))
	}
	check := func(how string) {
		t.Helper()
		for _, d := range dumps {
			if d.want == "" {
				if n := c.Exists(ctx, d.name).Val(); n != 0 {
					t.Errorf("%s %s: a hash of expired fields exists", how, d.name)
				}
				continue
			}
			if got := contents(t, c, d.name); got != d.want {
				t.Errorf("%s %s holds\n%s\nwant\n%s", how, d.name, got, d.want)
			}
			for f, ttl := range d.fieldTTLs {
				got := c.Do(ctx, "HPEXPIRETIME", d.name, "FIELDS", "1", f).Val()
				if fmt.Sprint(got) != fmt.Sprintf("[%d]", ttl) {
					t.Errorf("%s %s: field %q expires at %v, want %d", how, d.name, f, got, ttl)
				}
			}
		}
	}
	for _, d := range dumps {
		if err := c.Restore(ctx, d.name, 0, d.payload).Err(); err != nil {
			t.Fatalf("RESTORE %s: %v", d.name, err)
		}
	}
	check("RESTORE")

	// A hash whose fields all expired replaces the key with nothing,
	// as an expired TTL does.
	all := dumps[slices.IndexFunc(dumps, func(d newerDump) bool { return d.name == "hash-all-expired" })]
	must(t, c.Set(ctx, "replaced", "v", 0).Err())
	if err := c.RestoreReplace(ctx, "replaced", 0, all.payload).Err(); err != nil || c.Exists(ctx, "replaced").Val() != 0 {
		t.Fatalf("RESTORE REPLACE of a hash of expired fields: %v, exists %d", err, c.Exists(ctx, "replaced").Val())
	}

	// Version 13: what redis-server answers to a version it does not know.
	p := newBitsPair(t, b, r, 2)
	v13 := withFooter(dumps[0].payload[:len(dumps[0].payload)-10], 13)
	p.same("RESTORE", "v13", "0", v13)
	lib := libraryCode("newer", "return 1")
	must(t, c.FunctionLoad(ctx, lib).Err())
	fdump := c.FunctionDump(ctx).Val()
	p.same("FUNCTION", "RESTORE", withFooter(fdump[:len(fdump)-10], 13), "REPLACE")
	must(t, c.FunctionFlush(ctx).Err())
	if err := c.FunctionRestore(ctx, withFooter(fdump[:len(fdump)-10], 12)).Err(); err != nil {
		t.Fatalf("FUNCTION RESTORE of version 12: %v", err)
	}
	if got := c.FCall(ctx, "myfunc", nil).Val(); fmt.Sprint(got) != "1" {
		t.Fatalf("the library FUNCTION RESTORE of version 12 loaded answers %v", got)
	}

	// The same values in a file of Redis 7.4.
	dir := t.TempDir()
	file := filepath.Join(dir, "dump.rdb")
	must(t, os.WriteFile(file, redis74File(dumps), 0o644))
	must(t, c.FlushAll(ctx).Err())
	if got := b.cli(t, "RDB", "LOAD", file); got != "OK" {
		t.Fatalf("RDB LOAD of version 12: %q\n%s", got, b.Output)
	}
	check("RDB LOAD")
	if out := b.Output.String(); !strings.Contains(out, `"keys expired"=1`) || !strings.Contains(out, `"hash field TTLs dropped"=`) {
		t.Errorf("the log does not count the hash of expired fields as an expired key, or the TTLs dropped:\n%s", out)
	}
	v13file := filepath.Join(dir, "v13.rdb")
	must(t, os.WriteFile(v13file, append([]byte("REDIS0013"), redis74File(dumps)[9:]...), 0o644))
	if err := c.Do(ctx, "RDB", "LOAD", v13file).Err(); err == nil || err.Error() != "ERR Can't handle RDB format version 13" {
		t.Fatalf("RDB LOAD of version 13: %v", err)
	}
}
