package it

import (
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestSet(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		t.Run("SADD SREM SMEMBERS SCARD SISMEMBER", func(t *testing.T) {
			if n := c.SAdd(ctx, "s", "a", "b", "c", "a").Val(); n != 3 {
				t.Fatalf("SADD = %d", n)
			}
			if n := c.SAdd(ctx, "s", "a", "d").Val(); n != 1 {
				t.Fatalf("SADD existing = %d", n)
			}
			if got := sorted(c.SMembers(ctx, "s").Val()); len(got) != 4 || got[0] != "a" || got[3] != "d" {
				t.Fatalf("SMEMBERS = %v", got)
			}
			if n := c.SCard(ctx, "s").Val(); n != 4 {
				t.Fatalf("SCARD = %d", n)
			}
			if !c.SIsMember(ctx, "s", "a").Val() || c.SIsMember(ctx, "s", "z").Val() {
				t.Fatal("SISMEMBER")
			}
			if got := c.SMIsMember(ctx, "s", "a", "z", "d").Val(); !got[0] || got[1] || !got[2] {
				t.Fatalf("SMISMEMBER = %v", got)
			}
			if n := c.SRem(ctx, "s", "a", "z", "a").Val(); n != 1 {
				t.Fatalf("SREM = %d", n)
			}
			must(t, c.SRem(ctx, "s", "b", "c", "d").Err())
			if n := c.Exists(ctx, "s").Val(); n != 0 {
				t.Fatal("a set emptied by SREM must not exist")
			}
			must(t, c.SAdd(ctx, "bin", "", "\x00\xff").Err())
			if !c.SIsMember(ctx, "bin", "").Val() || !c.SIsMember(ctx, "bin", "\x00\xff").Val() {
				t.Fatal("empty or binary member lost")
			}
		})
		t.Run("SPOP SRANDMEMBER", func(t *testing.T) {
			members := []any{}
			for i := 0; i < 50; i++ {
				members = append(members, "m"+strconv.Itoa(i))
			}
			must(t, c.SAdd(ctx, "pop", members...).Err())
			popped := c.SPopN(ctx, "pop", 10).Val()
			if len(popped) != 10 || c.SCard(ctx, "pop").Val() != 40 {
				t.Fatalf("SPOP 10 = %v, %d left", popped, c.SCard(ctx, "pop").Val())
			}
			for _, m := range popped {
				if c.SIsMember(ctx, "pop", m).Val() {
					t.Fatalf("popped %s still a member", m)
				}
			}
			if m := c.SPop(ctx, "pop").Val(); m == "" || c.SCard(ctx, "pop").Val() != 39 {
				t.Fatalf("SPOP = %q", m)
			}
			if got := c.SRandMemberN(ctx, "pop", 5).Val(); len(got) != 5 || len(unique(got)) != 5 {
				t.Fatalf("SRANDMEMBER 5 = %v", got)
			}
			if got := c.SRandMemberN(ctx, "pop", -100).Val(); len(got) != 100 {
				t.Fatalf("SRANDMEMBER -100 = %d items", len(got))
			}
			if got := c.SRandMemberN(ctx, "pop", 1000).Val(); len(got) != 39 {
				t.Fatalf("SRANDMEMBER 1000 = %d items", len(got))
			}
			if c.SCard(ctx, "pop").Val() != 39 {
				t.Fatal("SRANDMEMBER removed members")
			}
			wantErr(t, c.Do(ctx, "SPOP", "pop", "-1").Err(), "ERR value is out of range, must be positive")
			if err := c.SPop(ctx, "missing").Err(); err != redis.Nil {
				t.Fatalf("SPOP missing = %v", err)
			}
		})
		t.Run("algebra", func(t *testing.T) {
			must(t, c.SAdd(ctx, "a", "1", "2", "3", "4").Err())
			must(t, c.SAdd(ctx, "b", "3", "4", "5").Err())
			must(t, c.SAdd(ctx, "c", "4", "6").Err())
			if got := sorted(c.SInter(ctx, "a", "b", "c").Val()); len(got) != 1 || got[0] != "4" {
				t.Fatalf("SINTER = %v", got)
			}
			if got := c.SUnion(ctx, "a", "b", "c").Val(); len(got) != 6 {
				t.Fatalf("SUNION = %v", got)
			}
			if got := sorted(c.SDiff(ctx, "a", "b", "missing").Val()); len(got) != 2 || got[0] != "1" {
				t.Fatalf("SDIFF = %v", got)
			}
			if got := c.SInter(ctx, "a", "missing").Val(); len(got) != 0 {
				t.Fatalf("SINTER with a missing key = %v", got)
			}
			if n := c.SInterCard(ctx, 2, "a", "b").Val(); n != 2 {
				t.Fatalf("SINTERCARD = %d", n)
			}
			if n := c.Do(ctx, "SINTERCARD", "2", "a", "b", "LIMIT", "1").Val(); n != int64(1) {
				t.Fatalf("SINTERCARD LIMIT 1 = %v", n)
			}
			must(t, c.Set(ctx, "dest", "a string with a ttl", time.Hour).Err())
			if n := c.SUnionStore(ctx, "dest", "a", "b").Val(); n != 5 {
				t.Fatalf("SUNIONSTORE = %d", n)
			}
			if c.Type(ctx, "dest").Val() != "set" || c.TTL(ctx, "dest").Val() != -1 {
				t.Fatal("SUNIONSTORE must replace the destination, TTL included")
			}
			if n := c.SInterStore(ctx, "dest", "a", "missing").Val(); n != 0 || c.Exists(ctx, "dest").Val() != 0 {
				t.Fatal("an empty result must delete the destination")
			}
			if n := c.SDiffStore(ctx, "a", "a", "b").Val(); n != 2 {
				t.Fatalf("SDIFFSTORE into a source = %d", n)
			}
			must(t, c.HSet(ctx, "h", "f", "v").Err())
			wantErr(t, c.SUnion(ctx, "a", "h").Err(), "WRONGTYPE")
			wantErr(t, c.SInter(ctx, "missing", "h").Err(), "WRONGTYPE")
		})
		t.Run("SMOVE", func(t *testing.T) {
			must(t, c.SAdd(ctx, "from", "x", "y").Err())
			if !c.SMove(ctx, "from", "to", "x").Val() {
				t.Fatal("SMOVE failed")
			}
			if c.SIsMember(ctx, "from", "x").Val() || !c.SIsMember(ctx, "to", "x").Val() {
				t.Fatal("SMOVE did not move")
			}
			if c.SMove(ctx, "from", "to", "nope").Val() {
				t.Fatal("SMOVE of a non-member")
			}
			must(t, c.SMove(ctx, "from", "to", "y").Err())
			if c.Exists(ctx, "from").Val() != 0 || c.SCard(ctx, "to").Val() != 2 {
				t.Fatal("SMOVE of the last member must delete the source")
			}
			if n := c.Do(ctx, "SMOVE", "missing", "h", "x").Val(); n != int64(0) {
				t.Fatalf("SMOVE from a missing key = %v", n)
			}
			wantErr(t, c.SMove(ctx, "to", "h", "x").Err(), "WRONGTYPE")
		})
		t.Run("SSCAN", func(t *testing.T) {
			for i := 0; i < 120; i++ {
				must(t, c.SAdd(ctx, "big", "member:"+strconv.Itoa(i)).Err())
			}
			seen := map[string]bool{}
			var cursor uint64
			for {
				keys, next, err := c.SScan(ctx, "big", cursor, "member:1*", 9).Result()
				must(t, err)
				for _, k := range keys {
					seen[k] = true
				}
				if next == 0 {
					break
				}
				cursor = next
			}
			if len(seen) != 31 {
				t.Fatalf("SSCAN MATCH member:1* = %d members, want 31", len(seen))
			}
		})
		t.Run("versions", func(t *testing.T) {
			must(t, c.SAdd(ctx, "v", "old").Err())
			must(t, c.Del(ctx, "v").Err())
			must(t, c.SAdd(ctx, "v", "new").Err())
			if got := c.SMembers(ctx, "v").Val(); len(got) != 1 || got[0] != "new" {
				t.Fatalf("re-created set = %v", got)
			}
		})
	})
}

func unique(s []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}
