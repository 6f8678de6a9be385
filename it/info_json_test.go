package it

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestInfoFormatJSON: INFO [section ...] FORMAT JSON (Kvrocks 2.17,
// KVROCKS-TYPES.md §8) is one object keyed by section title holding the
// same fields as the text, in its order, numbers unquoted (tcp_port), the
// rest strings (version, git_sha1 even when digits); FORMAT TXT is the
// text; another format is refused.
func TestInfoFormatJSON(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		raw, err := c.Do(ctx, "INFO", "server", "CPU", "keyspace", "FORMAT", "json").Text()
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		var doc map[string]map[string]any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, raw)
		}
		// Titles as the text's headers, in order.
		var titles []string
		for _, l := range strings.Split(c.Info(ctx, "server", "cpu", "keyspace").Val(), "\r\n") {
			if title, ok := strings.CutPrefix(l, "# "); ok && !strings.HasPrefix(title, "Last DBSIZE") {
				titles = append(titles, title)
			}
		}
		if strings.Join(titles, ",") != "Server,CPU,Keyspace" || len(doc) != 3 || !strings.HasPrefix(raw, `{"Server":{"version":`) {
			t.Fatalf("titles %v; JSON %s", titles, raw)
		}
		for _, title := range titles {
			text := infoFields(t, c, title)
			// A thread the runtime starts between the two INFO calls
			// adds its used_cpu_*_worker_<n> fields to the second.
			maps.DeleteFunc(text, func(k, _ string) bool { return strings.Contains(k, "_worker_") })
			maps.DeleteFunc(doc[title], func(k string, _ any) bool { return strings.Contains(k, "_worker_") })
			for k, v := range text {
				got, ok := doc[title][k]
				if !ok {
					t.Errorf("%s: JSON lacks %s", title, k)
					continue
				}
				if _, err := strconv.ParseFloat(v, 64); err == nil && k != "git_sha1" && k != "kvrocks_git_sha1" && k != "run_id" {
					if _, isNum := got.(json.Number); !isNum {
						t.Errorf("%s: %s = %#v, want a number like %s", title, k, got, v)
					}
				} else if _, isStr := got.(string); !isStr {
					t.Errorf("%s: %s = %#v, want a string like %q", title, k, got, v)
				}
			}
			if len(doc[title]) != len(text) {
				t.Errorf("%s: %d fields in JSON, %d in text", title, len(doc[title]), len(text))
			}
		}
		if doc["Server"]["tcp_port"] != json.Number(strconv.Itoa(p.Port)) {
			t.Errorf("tcp_port %#v", doc["Server"]["tcp_port"])
		}
		// Field order is the text's.
		if i, j := strings.Index(raw, `"used_cpu_sys"`), strings.Index(raw, `"used_cpu_user"`); i < 0 || j < i {
			t.Errorf("order: %s", raw)
		}
		txt, err := c.Do(ctx, "INFO", "cpu", "FORMAT", "TXT").Text()
		if err != nil || !strings.HasPrefix(txt, "# CPU\r\nused_cpu_sys:") {
			t.Errorf("FORMAT TXT: %q %v", txt, err)
		}
		if err := c.Do(ctx, "INFO", "FORMAT", "xml").Err(); err == nil || err.Error() != "ERR FORMAT must be TXT or JSON" {
			t.Errorf("FORMAT xml: %v", err)
		}
		if all, err := c.Do(ctx, "INFO", "FORMAT", "JSON").Text(); err != nil || !json.Valid([]byte(all)) || !bytes.Contains([]byte(all), []byte(`"RocksDB":{`)) {
			t.Errorf("INFO FORMAT JSON: %v %.200s", err, all)
		}
	})
}

// TestInfoWorkerCPU: INFO cpu shows each worker thread's CPU time and
// RocksDB's threads', which add up to no more than the process's.
func TestInfoWorkerCPU(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	pipe := c.Pipeline()
	for i := 0; i < 20000; i++ {
		pipe.Set(ctx, strconv.Itoa(i), i, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	f := infoFields(t, c, "cpu")
	secs := func(k string) float64 {
		v, err := strconv.ParseFloat(f[k], 64)
		if err != nil {
			t.Fatalf("%s = %q", k, f[k])
		}
		return v
	}
	var sum float64
	workers := 0
	for k := range f {
		if strings.HasPrefix(k, "used_cpu_user_worker_") {
			workers++
			sum += secs(k) + secs(strings.Replace(k, "user", "sys", 1))
		}
	}
	sum += secs("used_cpu_user_rocksdb") + secs("used_cpu_sys_rocksdb")
	total := secs("used_cpu_user") + secs("used_cpu_sys")
	if workers == 0 || sum <= 0 || sum > total+0.05 {
		t.Errorf("%d workers, %.3f s of threads, %.3f s of the process: %v", workers, sum, total, f)
	}
}
