package it

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The monitoring files shipped in deploy/.
var (
	alertRules     = filepath.Join("..", "deploy", "prometheus", "basalt-alerts.yml")
	alertRuleTests = filepath.Join("..", "deploy", "prometheus", "basalt-alerts_test.yml")
	dashboard      = filepath.Join("..", "deploy", "grafana", "basalt.json")
)

// TestDeployAlertRules: promtool accepts the alert rules and the scrape
// config that loads them, and the rules' unit tests (each alert fires on
// the series it is for, after its delay) pass.
func TestDeployAlertRules(t *testing.T) {
	path, err := exec.LookPath(cmp.Or(os.Getenv("PROMTOOL"), "promtool"))
	if err != nil {
		t.Skip("promtool not installed (make test installs it): the rules are not checked")
	}
	config := filepath.Join("..", "scripts", "prometheus.yml")
	for _, args := range [][]string{{"check", "rules", alertRules}, {"test", "rules", alertRuleTests}, {"check", "config", config}} {
		if out, err := exec.Command(path, args...).CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestDeployDashboardMetrics: every metric the dashboard and the alert
// rules query is one a real master and replica export, so that neither
// shows empty panels or never fires for a misspelt name.
func TestDeployDashboardMetrics(t *testing.T) {
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	text, err := os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(text, &dash); err != nil {
		t.Fatalf("%s: %v", dashboard, err)
	}
	rules, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	var used []string
	for _, line := range strings.Split(string(rules), "\n") {
		if expr, ok := strings.CutPrefix(strings.TrimSpace(line), "expr:"); ok {
			used = append(used, metricNames(expr)...)
		}
	}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, target := range p.Targets {
			used = append(used, metricNames(target.Expr)...)
		}
	}

	exported := exportedMetrics(t)
	var missing []string
	for _, name := range used {
		if !exported[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("queried but not exported: %s", strings.Join(slicesCompact(missing), ", "))
	}
}

// metricNames returns the Basalt metric names in a PromQL text, as
// families (a histogram's _bucket series is its family's).
func metricNames(promql string) []string {
	var names []string
	for _, n := range regexp.MustCompile(`\b(?:kvrocks|basalt)_[a-z0-9_]+`).FindAllString(promql, -1) {
		names = append(names, strings.TrimSuffix(n, "_bucket"))
	}
	return names
}

func slicesCompact(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// exportedMetrics returns the metric families a master and its replica
// export once they have served commands, errors and slow ones included.
func exportedMetrics(t *testing.T) map[string]bool {
	ports := []int{freePort(t), freePort(t)}
	m := startBasalt(t, "--metrics-port", strconv.Itoa(ports[0]), "--slowlog-log-slower-than", "0")
	r := startBasalt(t, "--metrics-port", strconv.Itoa(ports[1]))
	mc, rc := m.client(t, 2), r.client(t, 2)
	slaveOf(t, rc, m)
	must(t, mc.Set(ctx, "k", "v", 0).Err())
	must(t, mc.Get(ctx, "k").Err())
	if err := mc.Do(ctx, "INCR", "k").Err(); err == nil {
		t.Fatal("INCR of a string did not fail")
	}
	waitCaughtUp(t, mc, rc)
	out := map[string]bool{}
	for _, port := range ports {
		for name := range scrape(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", port)) {
			out[name] = true
		}
	}
	return out
}
