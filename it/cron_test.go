package it

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDBSizeScanCron: dbsize-scan-cron recounts the keys of every
// namespace, which INFO keyspace then shows, as DBSIZE SCAN does.
func TestDBSizeScanCron(t *testing.T) {
	t.Parallel()
	p := startBasalt(t, "--requirepass", adminPass, "--repl-namespace-enabled", "yes")
	admin := interopClient(t, p, adminPass, longTimeout)
	must(t, admin.Do(ctx, "NAMESPACE", "ADD", "ns1", "token1").Err())
	tenant := interopClient(t, p, "token1", longTimeout)
	// The first INFO counts the keys; later ones show that count until a
	// scan (or a minute) renews it.
	db0 := func(password string) string {
		return infoFields(t, interopClient(t, p, password, longTimeout), "keyspace")["db0"]
	}
	for _, pass := range []string{adminPass, "token1"} {
		if got := db0(pass); !strings.HasPrefix(got, "keys=0,") {
			t.Fatalf("db0 of an empty namespace: %q", got)
		}
	}
	for i := 0; i < 7; i++ {
		must(t, admin.Set(ctx, "a"+strconv.Itoa(i), "v", 0).Err())
		must(t, tenant.Set(ctx, "t"+strconv.Itoa(i), "v", 0).Err())
	}
	must(t, tenant.Set(ctx, "t-extra", "v", 0).Err())
	must(t, admin.ConfigSet(ctx, "dbsize-scan-cron", "* * * * *").Err())
	waitFor(t, 3*time.Minute, "dbsize-scan-cron recounts both namespaces", func() bool {
		return strings.HasPrefix(db0(adminPass), "keys=7,") && strings.HasPrefix(db0("token1"), "keys=8,")
	})
	if !strings.Contains(p.Output.String(), "dbsize-scan-cron") {
		t.Errorf("the log does not show dbsize-scan-cron:\n%s", p.Output)
	}
}
