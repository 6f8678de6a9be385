package commands

import (
	"strings"
)

// sparkline draws LATENCY GRAPH's ASCII graph as Redis's sparkline.c does
// with SPARKLINE_FILL: rows of "_o#" steps filled with '|' below, then
// each sample's label written downwards.
type sparkline struct {
	values   []float64
	labels   []string
	min, max float64
	labelled bool
}

const sparkSteps = "_o#"

func (s *sparkline) add(v float64, label string) {
	if len(s.values) == 0 {
		s.min, s.max = v, v
	} else if v < s.min {
		s.min = v
	} else if v > s.max {
		s.max = v
	}
	s.values = append(s.values, v)
	s.labels = append(s.labels, label)
	if label != "" {
		s.labelled = true
	}
}

// render draws the samples columns at a time, each run rows high, the
// runs separated by a blank line.
func (s *sparkline) render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(s.values); j += columns {
		if j != 0 {
			b.WriteString("\n")
		}
		s.renderRange(b, rows, j, min(columns, len(s.values)-j))
	}
}

func (s *sparkline) renderRange(b *strings.Builder, rows, offset, n int) {
	relmax := s.max - s.min
	if relmax == 0 {
		relmax = 1
	}
	steps := len(sparkSteps) * rows
	line := make([]byte, n)
	for row := 0; ; row++ {
		more := false
		for j := range line {
			line[j] = ' '
		}
		for j := 0; j < n; j++ {
			i := j + offset
			step := int((s.values[i] - s.min) * float64(steps) / relmax)
			step = max(0, min(step, steps-1))
			if row < rows {
				more = true
				switch c := step - (rows-row-1)*len(sparkSteps); {
				case c >= 0 && c < len(sparkSteps):
					line[j] = sparkSteps[c]
				case c >= len(sparkSteps):
					line[j] = '|'
				}
				continue
			}
			// A blank line between the graph and the labels.
			if s.labelled && row-rows < 1 {
				more = true
				break
			}
			if k := row - rows - 1; k >= 0 && k < len(s.labels[i]) {
				more = true
				line[j] = s.labels[i][k]
			}
		}
		if !more {
			return
		}
		b.Write(line)
		b.WriteString("\n")
	}
}
