package it

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// writeBackupData writes n keys of every type (a third of them with a TTL)
// and a few big collections, all named with prefix.
func writeBackupData(t *testing.T, c *redis.Client, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; i += 100 {
		pipe := c.Pipeline()
		for j := i; j < i+100 && j < n; j++ {
			id := prefix + strconv.Itoa(j)
			pipe.Set(ctx, id+":s", "value-"+strconv.Itoa(j), 0)
			pipe.HSet(ctx, id+":h", "a", j, "b", "x"+strconv.Itoa(j))
			pipe.RPush(ctx, id+":l", "x", j, "y")
			pipe.SAdd(ctx, id+":t", j, j+1, "m")
			pipe.ZAdd(ctx, id+":z", redis.Z{Score: float64(j) / 3, Member: "a"}, redis.Z{Score: -1, Member: "b"})
			if j%3 == 0 {
				pipe.PExpire(ctx, id+":s", time.Hour+time.Duration(j)*time.Millisecond)
				pipe.Expire(ctx, id+":h", 2*time.Hour)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	fields := make([]any, 0, 20000)
	members := make([]redis.Z, 0, 10000)
	for j := 0; j < 10000; j++ {
		fields = append(fields, "f"+strconv.Itoa(j), strconv.Itoa(j*j))
		members = append(members, redis.Z{Score: float64(j % 777), Member: "m" + strconv.Itoa(j)})
	}
	must(t, c.HSet(ctx, prefix+"big:h", fields...).Err())
	must(t, c.ZAdd(ctx, prefix+"big:z", members...).Err())
	must(t, c.RPush(ctx, prefix+"big:l", fields...).Err())
}

// waitBgsaveDone waits for the BGSAVE that began at or after since to end,
// and checks that it succeeded.
func waitBgsaveDone(t *testing.T, c *redis.Client, since int64) {
	t.Helper()
	waitFor(t, 2*time.Minute, "BGSAVE ends", func() bool {
		f := infoFields(t, c, "persistence")
		last, _ := strconv.ParseInt(f["last_bgsave_time"], 10, 64)
		return f["bgsave_in_progress"] == "0" && f["last_bgsave_time_sec"] != "-1" && last >= since
	})
	if f := infoFields(t, c, "persistence"); f["last_bgsave_status"] != "ok" {
		t.Fatalf("INFO persistence after BGSAVE: %v", f)
	}
}

// TestBackupUnderLoadRestores makes a backup while clients write, restores
// it with `basalt restore` into a new data directory, and finds there
// every key written before BGSAVE, with its value and expire time.
func TestBackupUnderLoadRestores(t *testing.T) {
	t.Parallel()
	backup := filepath.Join(t.TempDir(), "backup")
	p := startBasalt(t, "--backup-dir", backup)
	c := p.longClient(t, 2)
	writeBackupData(t, c, "pre:", 3000)
	before := dumpNamespace(t, c)

	stop := make(chan struct{})
	var loadErr error
	var writes atomic.Int64
	var load sync.WaitGroup
	load.Add(1)
	go func() {
		defer load.Done()
		lc := p.longClient(t, 2)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			pipe := lc.Pipeline()
			for j := 0; j < 50; j++ {
				k := "during:" + strconv.Itoa(i%500) + ":" + strconv.Itoa(j)
				pipe.Set(ctx, k, strconv.Itoa(i), 0)
				pipe.HIncrBy(ctx, "during:h:"+strconv.Itoa(j), "n", 1)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				loadErr = err
				return
			}
			writes.Add(100)
		}
	}()
	waitFor(t, time.Minute, "the load writes", func() bool { return writes.Load() > 2000 })
	since := time.Now().Unix()
	if err := c.Do(ctx, "BGSAVE").Err(); err != nil {
		t.Fatal(err)
	}
	waitBgsaveDone(t, c, since)
	close(stop)
	load.Wait()
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	if last, err := c.LastSave(ctx).Result(); err != nil || last < since {
		t.Fatalf("LASTSAVE = %d %v, BGSAVE at %d", last, err, since)
	}

	restored := t.TempDir()
	if out, code := runBasaltCommand(t, "restore", "--from", backup, "--dir", restored); code != 0 {
		t.Fatalf("basalt restore: %d\n%s", code, out)
	}
	q := startBasaltIn(t, restored)
	after := dumpNamespace(t, q.longClient(t, 2))
	for name, want := range before {
		got, ok := after[name]
		if !ok {
			t.Fatalf("%s is not in the restored database", name)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s restored as %v, want %v", name, got, want)
		}
	}
	if len(after) <= len(before) {
		t.Errorf("the backup holds none of the load's keys (%d keys, %d before the load)", len(after), len(before))
	}

	// A second restore would overwrite the database: refused.
	if out, code := runBasaltCommand(t, "restore", "--from", backup, "--dir", restored); code == 0 || !strings.Contains(out, "exists") {
		t.Fatalf("restore over a database: %d\n%s", code, out)
	}
	if out, code := runBasaltCommand(t, "restore", "--from", t.TempDir(), "--dir", t.TempDir()); code == 0 || !strings.Contains(out, "not a backup") {
		t.Fatalf("restore of an empty directory: %d\n%s", code, out)
	}
}

// TestBackupCommands: INFO persistence, LASTSAVE, FLUSHBACKUP, the purge
// by max-backup-to-keep, bgsave-cron, and the commands' bad input.
func TestBackupCommands(t *testing.T) {
	t.Parallel()
	backup := filepath.Join(t.TempDir(), "backups", "b")
	p := startBasalt(t, "--backup-dir", backup)
	c := p.longClient(t, 2)
	f := infoFields(t, c, "persistence")
	for field, want := range map[string]string{"loading": "0", "bgsave_in_progress": "0", "last_bgsave_status": "ok", "last_bgsave_time_sec": "-1"} {
		if f[field] != want {
			t.Errorf("INFO persistence %s = %q, want %q", field, f[field], want)
		}
	}
	// Before any BGSAVE, LASTSAVE is when the server started.
	started, err := c.LastSave(ctx).Result()
	must(t, err)
	if now := time.Now().Unix(); started > now || started < now-600 {
		t.Fatalf("LASTSAVE = %d, now %d", started, now)
	}
	if f["last_bgsave_time"] != strconv.FormatInt(started, 10) {
		t.Errorf("last_bgsave_time %s, LASTSAVE %d", f["last_bgsave_time"], started)
	}
	if got := infoFields(t, c, "rocksdb")["is_bgsaving"]; got != "no" {
		t.Errorf("is_bgsaving = %q", got)
	}

	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"BGSAVE", "now"}, "ERR syntax error"},
		{[]any{"BGSAVE", "schedule", "x"}, "ERR syntax error"},
		{[]any{"LASTSAVE", "x"}, "ERR wrong number of arguments for 'lastsave' command"},
		{[]any{"FLUSHBACKUP", "x"}, "ERR wrong number of arguments"},
		{[]any{"CONFIG", "SET", "max-backup-to-keep", "2"}, "ERR CONFIG SET 'max-backup-to-keep' error: failed to set new value: out of numeric range"},
		{[]any{"CONFIG", "SET", "max-backup-keep-hours", "-1"}, "ERR CONFIG SET 'max-backup-keep-hours' error: failed to set new value: out of numeric range"},
		{[]any{"CONFIG", "SET", "bgsave-cron", "* * *"}, "ERR CONFIG SET 'bgsave-cron' error: invalid value: cron expression format error, should only contain 5x fields"},
	} {
		if err := c.Do(ctx, tc.args...).Err(); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}

	must(t, c.Set(ctx, "k", "v", 0).Err())
	since := time.Now().Unix()
	if got := p.cli(t, "BGSAVE"); got != "OK" {
		t.Fatalf("BGSAVE = %q", got)
	}
	waitBgsaveDone(t, c, since)
	if _, err := os.Stat(filepath.Join(backup, "CURRENT")); err != nil {
		t.Fatalf("no backup in backup-dir: %v", err)
	}
	// BGSAVE SCHEDULE with none running starts one.
	if got := p.cli(t, "BGSAVE", "SCHEDULE"); got != "OK" {
		t.Fatalf("BGSAVE SCHEDULE = %q", got)
	}
	waitBgsaveDone(t, c, since)
	if got := p.cli(t, "FLUSHBACKUP"); got != "OK" {
		t.Fatalf("FLUSHBACKUP = %q", got)
	}
	if _, err := os.Stat(backup); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("backup-dir after FLUSHBACKUP: %v", err)
	}

	// bgsave-cron makes one within the minute it names.
	must(t, c.ConfigSet(ctx, "bgsave-cron", "* * * * *").Err())
	waitFor(t, 3*time.Minute, "bgsave-cron makes a backup", func() bool {
		_, err := os.Stat(filepath.Join(backup, "CURRENT"))
		return err == nil
	})
	must(t, c.ConfigSet(ctx, "bgsave-cron", "").Err())
	waitBgsaveDone(t, c, since)
	// max-backup-to-keep 0: the purge (every 10 s) deletes it.
	must(t, c.ConfigSet(ctx, "max-backup-to-keep", "0").Err())
	waitFor(t, 2*time.Minute, "max-backup-to-keep 0 deletes the backup", func() bool {
		_, err := os.Stat(backup)
		return errors.Is(err, os.ErrNotExist)
	})
	if !strings.Contains(p.Output.String(), "BGSave was triggered by bgsave-cron") {
		t.Errorf("the log does not show bgsave-cron's BGSAVE:\n%s", p.Output)
	}
}

// TestBackupOpensInKvrocks: a backup Basalt made, restored the Kvrocks way
// (copied to <dir>/db), serves its keys from Kvrocks; and Kvrocks's backup
// restores into Basalt with `basalt restore`.
func TestBackupOpensInKvrocks(t *testing.T) {
	kvrocksBin(t)
	for _, from := range []server{basaltServer, kvrocksServer} {
		t.Run(from.String(), func(t *testing.T) {
			dir, backup := t.TempDir(), filepath.Join(t.TempDir(), "backup")
			p := from.start(t, dir, freePort(t), "--backup-dir", backup)
			c := p.longClient(t, 2)
			writeBackupData(t, c, "k:", 300)
			want := dumpNamespace(t, c)
			must(t, c.Do(ctx, "BGSAVE").Err())
			waitFor(t, 2*time.Minute, "BGSAVE ends", func() bool {
				_, err := os.Stat(filepath.Join(backup, "CURRENT"))
				return err == nil && infoFields(t, c, "persistence")["bgsave_in_progress"] == "0"
			})
			p.Stop()
			restored := t.TempDir()
			if out, code := runBasaltCommand(t, "restore", "--from", backup, "--dir", restored); code != 0 {
				t.Fatalf("basalt restore: %d\n%s", code, out)
			}
			to := basaltServer
			if from == basaltServer {
				to = kvrocksServer
			}
			q := to.start(t, restored, freePort(t))
			got := dumpNamespace(t, q.longClient(t, 2))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s reads %d keys from %s's backup, want %d", to, len(got), from, len(want))
			}
		})
	}
}
