package main

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The scripting steps: EVALSHA of a script that does one GET and one SET,
// and FCALL of a function doing the same, on random keys. The script and
// the library are loaded on every server first.
const (
	getSetScript  = "local v = redis.call('get', KEYS[1]) redis.call('set', KEYS[1], ARGV[1]) return v"
	getSetLibrary = "#!lua name=benchlib\nredis.register_function('getset', function(keys, args) local v = redis.call('get', keys[1]) redis.call('set', keys[1], args[1]) return v end)"
)

// getSetSHA is the script's SHA1, which EVALSHA names.
const getSetSHA = "605c2c7611601aa42e20c9296d7bea324bbb5766"

var scriptCommands = [][]string{
	{"EVALSHA", getSetSHA, "1", "script:__rand_int__", "v"},
	{"FCALL", "getset", "1", "function:__rand_int__", "v"},
}

// prefillScripts loads the script and the library on every server.
func prefillScripts(servers []*server) {
	for _, s := range servers {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.port), Protocol: 2, ReadTimeout: time.Minute})
		ctx := context.Background()
		sha, err := c.ScriptLoad(ctx, getSetScript).Result()
		check(err)
		if sha != getSetSHA {
			panic("the script's SHA1 is " + sha + ", not " + getSetSHA)
		}
		check(c.Do(ctx, "FUNCTION", "LOAD", "REPLACE", getSetLibrary).Err())
		c.Close()
	}
}
