package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// table collects, per test, each column's ops/s over the rounds; NaN
// stands for a run cut off at its time limit, -Inf for a step the server
// refused. Column 0 is the one the
// ratios are about: its figure over each other column's.
type table struct {
	cols  []string
	order []string
	rows  map[string][][]float64 // test -> column -> round
}

func newTable(cols []string) *table {
	return &table{cols: cols, rows: map[string][][]float64{}}
}

// add records one round of a step, given each column's run of it.
func (t *table) add(step []string, results []result) {
	for _, name := range stepNames(step, results) {
		row, ok := t.rows[name]
		if !ok {
			row = make([][]float64, len(t.cols))
			t.rows[name] = row
			t.order = append(t.order, name)
		}
		for i, r := range results {
			v, ok := r.rps[name]
			switch {
			case r.refused != "":
				v = math.Inf(-1)
			case !ok:
				v = math.NaN()
			}
			row[i] = append(row[i], v)
		}
	}
}

// stepNames are the tests a step ran, as redis-benchmark names them; if
// no run of the step finished, the step's arguments stand in.
func stepNames(step []string, results []result) []string {
	for _, r := range results {
		if !r.timedOut && r.refused == "" {
			return r.order
		}
	}
	return []string{label(strings.Join(step, " "))}
}

func (t *table) print(pipeline int) {
	for _, name := range t.order {
		printRow(name, fmt.Sprint(pipeline), t.rows[name])
	}
}

func printHeader(cols []string) {
	fmt.Printf("%-50s %-4s", "test", "-P")
	for _, c := range cols {
		fmt.Printf(" %14s", c)
	}
	for _, c := range cols[1:] {
		fmt.Printf(" %17s", cols[0]+"/"+c)
	}
	fmt.Println()
}

// printRow shows each column's median over the rounds, then the median
// ratio of column 0 to each other column, with the ratio's range when
// there was more than one round. A column with a cut-off round shows
// "timeout", one that refused the step "refused", and its ratio "-".
func printRow(label, pipeline string, values [][]float64) {
	fmt.Printf("%-50s %-4s", label, pipeline)
	for _, v := range values {
		fmt.Printf(" %14s", medianCell(v))
	}
	for _, v := range values[1:] {
		fmt.Printf(" %17s", ratioCell(values[0], v))
	}
	fmt.Println()
}

func medianCell(xs []float64) string {
	if slices.Contains(xs, math.Inf(-1)) {
		return "refused"
	}
	if slices.ContainsFunc(xs, math.IsNaN) {
		return "timeout"
	}
	return fmt.Sprintf("%.0f", median(xs))
}

func ratioCell(xs, ys []float64) string {
	ratios := make([]float64, len(xs))
	for i := range xs {
		ratios[i] = xs[i] / ys[i]
	}
	if slices.ContainsFunc(ratios, func(r float64) bool { return math.IsNaN(r) || math.IsInf(r, 0) || r == 0 }) {
		return "-"
	}
	cell := fmt.Sprintf("%.2f", median(ratios))
	if len(ratios) > 1 {
		cell += fmt.Sprintf(" (%.2f-%.2f)", slices.Min(ratios), slices.Max(ratios))
	}
	return cell
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// withoutRedis returns the servers but redis-server, for the steps of
// Kvrocks's own types and commands.
func withoutRedis(all []*server) []*server {
	var out []*server
	for _, s := range all {
		if s.name != "redis" {
			out = append(out, s)
		}
	}
	return out
}

// perServer measures f once on each server, as a one-round row.
func perServer(servers []*server, f func(*server) float64) [][]float64 {
	values := make([][]float64, len(servers))
	for i, s := range servers {
		values[i] = []float64{f(s)}
	}
	return values
}

func names(servers []*server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.name)
	}
	return out
}
