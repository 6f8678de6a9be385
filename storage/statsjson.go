package storage

import (
	"sort"
	"strconv"
	"strings"
)

// StatisticsJSON returns RocksDB's statistics as Kvrocks's STATS shows
// them: one JSON object, its keys in order, a ticker's count as a number
// and a histogram as [P50, P95, P99, P100, COUNT, SUM].
func (s *Storage) StatisticsJSON() string {
	s.life.RLock()
	text := ""
	if !s.closed {
		text = s.dbOpts.GetStatisticsString()
	}
	s.life.RUnlock()
	return statisticsJSON(text)
}

// statisticsJSON turns the text of Statistics::ToString (a line per
// ticker, "name COUNT : n", and per histogram, "name P50 : x P95 : x P99
// : x P100 : x COUNT : n SUM : n") into Kvrocks's JSON.
func statisticsJSON(text string) string {
	values := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		stat := map[string]string{}
		for i := 1; i+2 < len(f); i += 3 {
			if f[i+1] != ":" {
				break
			}
			stat[f[i]] = f[i+2]
		}
		if _, histogram := stat["P50"]; histogram {
			parts := []string{jsonFloat(stat["P50"]), jsonFloat(stat["P95"]), jsonFloat(stat["P99"]), jsonFloat(stat["P100"]), jsonInt(stat["COUNT"]), jsonInt(stat["SUM"])}
			values[f[0]] = "[" + strings.Join(parts, ",") + "]"
		} else if count, ok := stat["COUNT"]; ok {
			values[f[0]] = jsonInt(count)
		}
	}
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(n))
		b.WriteByte(':')
		b.WriteString(values[n])
	}
	b.WriteByte('}')
	return b.String()
}

// jsonFloat writes a percentile as Kvrocks does: at least one decimal.
func jsonFloat(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "0.0"
	}
	out := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(out, ".eE") {
		out += ".0"
	}
	return out
}

func jsonInt(s string) string {
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		return "0"
	}
	return s
}
