package it

import (
	"fmt"
	"testing"
	"time"
)

// TestKvrocksScriptInterop: the scripts SCRIPT LOAD stored and the
// function libraries FUNCTION LOAD stored by one server run on the other
// started on the same data directory, both ways: the propagate column
// family holds them under the same keys (lua_f_<sha>, lua_lib_code_<lib>,
// lua_func_lib_<function>).
func TestKvrocksScriptInterop(t *testing.T) {
	kvrocksBin(t)
	const (
		script  = "return 'stored ' .. (ARGV[1] or '')"
		library = "#!lua name=shared\nredis.register_function('twice', function(keys, args) return redis.call('incrby', keys[1], 2) end)\n" +
			"redis.register_function('greet', function(keys, args) return 'hello ' .. args[1] end)"
	)
	for _, dir := range [][2]server{{kvrocksServer, basaltServer}, {basaltServer, kvrocksServer}} {
		w, r := dir[0], dir[1]
		t.Run(fmt.Sprintf("%sTo%s", title(w), title(r)), func(t *testing.T) {
			data := t.TempDir()
			explainOnFailure(t, data)
			port := freePort(t)
			wp := w.start(t, data, port)
			wc := interopClient(t, wp, "", 5*time.Second)
			sha, err := wc.ScriptLoad(ctx, script).Result()
			must(t, err)
			must(t, wc.Do(ctx, "FUNCTION", "LOAD", library).Err())
			if v, err := wc.FCall(ctx, "twice", []string{"n"}).Int(); err != nil || v != 2 {
				t.Fatalf("FCALL on %s: %v %v", w, v, err)
			}
			stopClean(t, wp)

			rp := r.start(t, data, port)
			rc := interopClient(t, rp, "", 5*time.Second)
			if e := rc.ScriptExists(ctx, sha).Val(); len(e) != 1 || !e[0] {
				t.Errorf("SCRIPT EXISTS on %s of what %s loaded: %v", r, w, e)
			}
			if v, err := rc.EvalSha(ctx, sha, nil, "x").Text(); err != nil || v != "stored x" {
				t.Errorf("EVALSHA on %s of what %s loaded: %q %v", r, w, v, err)
			}
			if v, err := rc.FCall(ctx, "greet", nil, "you").Text(); err != nil || v != "hello you" {
				t.Errorf("FCALL on %s of what %s loaded: %q %v", r, w, v, err)
			}
			if v, err := rc.FCall(ctx, "twice", []string{"n"}).Int(); err != nil || v != 4 {
				t.Errorf("FCALL twice on %s: %v %v", r, v, err)
			}
			stopClean(t, rp)
		})
	}
}
