package it

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The replies of TestKvrocksDiff: a raw RESP2/RESP3 connection that keeps
// replies exactly as sent, and the comparison modes of kvrocks_diff.txt.

// kvdConn is a raw RESP connection: replies are kept exactly as sent.
type kvdConn struct {
	c    net.Conn
	r    *bufio.Reader
	wait time.Duration // for each reply; 0: 30 s
}

func (c *kvdConn) do(args []string) (*kvdReply, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(a), a)
	}
	wait := c.wait
	if wait == 0 {
		wait = 30 * time.Second
	}
	c.c.SetDeadline(time.Now().Add(wait))
	if _, err := c.c.Write([]byte(sb.String())); err != nil {
		return nil, err
	}
	return readKvdReply(c.r)
}

// kvdReply is a parsed RESP2/RESP3 reply.
type kvdReply struct {
	kind  byte // the RESP type byte; '_' for RESP3 null and RESP2 nil
	str   string
	elems []*kvdReply
}

func readKvdReply(r *bufio.Reader) (*kvdReply, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("bad reply line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-', ':', ',', '#', '(':
		return &kvdReply{kind: kind, str: body}, nil
	case '_':
		return &kvdReply{kind: '_'}, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("bad length %q", line)
		}
		if n < 0 {
			return &kvdReply{kind: '_'}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return &kvdReply{kind: kind, str: string(buf[:n])}, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("bad length %q", line)
		}
		if n < 0 {
			return &kvdReply{kind: '_'}, nil
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		out := &kvdReply{kind: kind}
		for i := 0; i < n; i++ {
			e, err := readKvdReply(r)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, e)
		}
		if kind == '|' { // attributes precede the reply they describe
			return readKvdReply(r)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", line)
}

// text returns the bulk-like content of a reply (bulk, verbatim, simple).
func (r *kvdReply) text() (string, bool) {
	switch r.kind {
	case '$', '+':
		return r.str, true
	case '=':
		if len(r.str) >= 4 && r.str[3] == ':' {
			return r.str[4:], true
		}
		return r.str, true
	}
	return "", false
}

// render writes the reply in full, its type included.
func (r *kvdReply) render() string {
	switch r.kind {
	case '+':
		return "+" + r.str
	case '-':
		return "(error) " + r.str
	case ':':
		return "(integer) " + r.str
	case ',':
		return "(double) " + r.str
	case '#':
		return "(bool) " + r.str
	case '(':
		return "(bignum) " + r.str
	case '_':
		return "(nil)"
	case '$':
		return strconv.Quote(r.str)
	case '=':
		return "(verbatim) " + strconv.Quote(r.str)
	}
	open, closing := map[byte]string{'*': "[", '~': "set{", '>': "push[", '%': "map{"}[r.kind], map[byte]string{'*': "]", '~': "}", '>': "]", '%': "}"}[r.kind]
	parts := make([]string, len(r.elems))
	for i, e := range r.elems {
		parts[i] = e.render()
	}
	if r.kind == '%' {
		var pairs []string
		for i := 0; i+1 < len(parts); i += 2 {
			pairs = append(pairs, parts[i]+": "+parts[i+1])
		}
		parts = pairs
	}
	return open + strings.Join(parts, ", ") + closing
}

// shape renders types, and lengths when withLen, not contents.
func (r *kvdReply) shape(withLen bool) string {
	switch r.kind {
	case '$', '=', '+':
		if !withLen {
			return fmt.Sprintf("%c", r.kind)
		}
		return fmt.Sprintf("%c(len %d)", r.kind, len(r.str))
	case '-':
		return "(error) " + r.str
	case ':', ',', '#', '(':
		return fmt.Sprintf("%c", r.kind)
	case '_':
		return "(nil)"
	}
	parts := make([]string, len(r.elems))
	for i, e := range r.elems {
		parts[i] = e.shape(withLen)
	}
	return fmt.Sprintf("%c[%s]", r.kind, strings.Join(parts, ", "))
}

// kvdDiff is one observed difference.
type kvdDiff struct{ item, kvrocks, basalt string }

func kvdCompare(st kvdStep, s *kvdSection, k, b *kvdReply, total *kvdCounts) []kvdDiff {
	whole := func(kt, bt string) []kvdDiff {
		if kt == bt {
			return nil
		}
		return []kvdDiff{{"", kt, bt}}
	}
	// An error where a structured reply was expected is compared whole.
	if st.mode != "exact" && st.mode != "shape" && st.mode != "kind" && (k.kind == '-' || b.kind == '-') {
		return whole(k.render(), b.render())
	}
	switch st.mode {
	case "shape":
		return whole(k.shape(true), b.shape(true))
	case "kind":
		return whole(k.shape(false), b.shape(false))
	case "info":
		kf, bf := kvdInfoItems(k, s.infoValues), kvdInfoItems(b, s.infoValues)
		for name := range kf {
			total.infoFields[name] = true
		}
		return kvdCompareItems(kf, bf)
	case "config":
		kf, bf := kvdConfigItems(k, s.ignoreValues), kvdConfigItems(b, s.ignoreValues)
		for name := range kf {
			total.configKeys[name] = true
		}
		return kvdCompareItems(kf, bf)
	case "nodes":
		return whole(kvdNodes(k), kvdNodes(b))
	case "sorted":
		return whole(kvdSorted(k), kvdSorted(b))
	case "docs":
		return whole(kvdDocs(k), kvdDocs(b))
	case "cmdinfo":
		var names []string
		if len(st.args) > 2 {
			names = st.args[2:]
		}
		kf, bf := kvdCommandItems(k, names), kvdCommandItems(b, names)
		// A command one side lacks is one difference, not one per field.
		for name, kv := range kf {
			if bv, ok := bf[name]; ok && !strings.Contains(name, "/") && kv != bv {
				for _, m := range []map[string]string{kf, bf} {
					for item := range m {
						if strings.HasPrefix(item, name+"/") {
							delete(m, item)
						}
					}
				}
			}
		}
		return kvdCompareItems(kf, bf)
	}
	return whole(k.render(), b.render())
}

// kvdCompareItems compares two item -> value maps item by item.
func kvdCompareItems(k, b map[string]string) []kvdDiff {
	var out []kvdDiff
	for name, kv := range k {
		bv, ok := b[name]
		switch {
		case !ok:
			out = append(out, kvdDiff{name, kv, "(absent)"})
		case kv != bv:
			out = append(out, kvdDiff{name, kv, bv})
		}
	}
	for name, bv := range b {
		if _, ok := k[name]; !ok {
			out = append(out, kvdDiff{name, "(absent)", bv})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].item < out[j].item })
	return out
}

var (
	// avg_ttl depends on the moment each server computes it (Kvrocks
	// subtracts the current time in whole seconds): only its type is
	// compared.
	kvdAvgTTLRe = regexp.MustCompile(`avg_ttl=[0-9]+`)
	kvdIntRe    = regexp.MustCompile(`^[-+]?[0-9]+$`)
	kvdFloatRe  = regexp.MustCompile(`^[-+]?[0-9]*\.[0-9]+([eE][-+]?[0-9]+)?$`)
)

// kvdValueType classifies an INFO value: int, float or string; a
// comma-separated key=value list field by field; a trailing % kept.
func kvdValueType(v string) string {
	if strings.Contains(v, "=") {
		parts := strings.Split(v, ",")
		for i, p := range parts {
			k, val, ok := strings.Cut(p, "=")
			if ok {
				parts[i] = k + "=" + kvdValueType(val)
			} else {
				parts[i] = kvdValueType(p)
			}
		}
		return strings.Join(parts, ",")
	}
	lead := ""
	if strings.HasPrefix(v, " ") {
		lead, v = "space+", strings.TrimLeft(v, " ")
	}
	if strings.HasSuffix(v, "%") {
		return lead + kvdValueType(v[:len(v)-1]) + "%"
	}
	switch {
	case kvdIntRe.MatchString(v):
		return lead + "int"
	case kvdFloatRe.MatchString(v):
		return lead + "float"
	}
	return lead + "string"
}

// kvdInfoItems turns INFO text into items: "section/field" -> value type
// (and the value, for the fields in values), "sections" -> their order,
// and "section/# comment" for comment lines.
func kvdInfoItems(r *kvdReply, values map[string]bool) map[string]string {
	text, ok := r.text()
	if !ok {
		return map[string]string{"reply": r.render()}
	}
	items := map[string]string{}
	var order []string
	section := ""
	for _, line := range strings.Split(text, "\r\n") {
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "# ") {
			title := line[2:]
			if !strings.ContainsAny(title, " :") {
				section = strings.ToLower(title)
				order = append(order, title)
				continue
			}
			name, _, _ := strings.Cut(title, ":")
			items[section+"/# "+name] = "comment"
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			items[section+"/"+line] = "(not key:value)"
			continue
		}
		items[section+"/"+key] = kvdValueType(val)
		if values[key] {
			items[section+"/"+key] += " " + strconv.Quote(kvdAvgTTLRe.ReplaceAllString(val, "avg_ttl=*"))
		}
	}
	items["sections"] = strings.Join(order, ",")
	return items
}

// kvdConfigItems turns a CONFIG GET reply (flat array or map) into
// key -> value.
func kvdConfigItems(r *kvdReply, ignore map[string]bool) map[string]string {
	items := map[string]string{}
	if r.kind != '*' && r.kind != '%' {
		items["reply"] = r.render()
		return items
	}
	for i := 0; i+1 < len(r.elems); i += 2 {
		k, _ := r.elems[i].text()
		v := r.elems[i+1].render()
		if ignore[k] {
			v = "(differs by nature)"
		}
		items[k] = v
	}
	if len(r.elems)%2 != 0 {
		items["reply"] = "odd length"
	}
	return items
}

// kvdNodes renders CLUSTER NODES lines sorted, without the ping-sent and
// pong-received times.
func kvdNodes(r *kvdReply) string {
	text, ok := r.text()
	if !ok {
		return r.render()
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		f := strings.Split(l, " ")
		if len(f) > 5 {
			f[4], f[5] = "<ping>", "<pong>"
		}
		lines = append(lines, strings.Join(f, " "))
	}
	sort.Strings(lines)
	end := ""
	if strings.HasSuffix(text, "\n") {
		end = " (ends with newline)"
	}
	return strings.Join(lines, " / ") + end
}

// kvdSorted renders an array reply with its elements sorted.
func kvdSorted(r *kvdReply) string {
	if r.kind != '*' && r.kind != '~' {
		return r.render()
	}
	parts := make([]string, len(r.elems))
	for i, e := range r.elems {
		parts[i] = e.render()
	}
	sort.Strings(parts)
	return fmt.Sprintf("%c(sorted)[%s]", r.kind, strings.Join(parts, ", "))
}

// kvdDocs renders an FT.SEARCH reply with each document's field/value
// pairs sorted: Kvrocks returns them in the order of an unordered map.
func kvdDocs(r *kvdReply) string {
	if r.kind != '*' || len(r.elems) == 0 {
		return r.render()
	}
	parts := []string{r.elems[0].render()}
	for _, e := range r.elems[1:] {
		if e.kind != '*' || len(e.elems)%2 != 0 {
			parts = append(parts, e.render())
			continue
		}
		var pairs []string
		for i := 0; i < len(e.elems); i += 2 {
			pairs = append(pairs, e.elems[i].render()+": "+e.elems[i+1].render())
		}
		sort.Strings(pairs)
		parts = append(parts, "{"+strings.Join(pairs, ", ")+"}")
	}
	return "docs[" + strings.Join(parts, ", ") + "]"
}

// kvdCommandItems turns COMMAND INFO into "<name>/arity", "<name>/keys"
// (first, last, step) and "<name>/flags" items, and "<name as asked>" ->
// known or (nil). Fields after the sixth (Redis 7 additions) are left out.
func kvdCommandItems(r *kvdReply, asked []string) map[string]string {
	items := map[string]string{}
	if r.kind != '*' {
		items["reply"] = r.render()
		return items
	}
	for i, e := range r.elems {
		id := fmt.Sprintf("#%d", i)
		if i < len(asked) {
			id = strings.ToLower(asked[i])
		}
		if e.kind == '_' {
			items[id] = "(nil)"
			continue
		}
		if e.kind != '*' || len(e.elems) < 6 {
			items[id] = e.render()
			continue
		}
		items[id] = "known"
		name, _ := e.elems[0].text()
		items[name+"/arity"] = e.elems[1].render()
		items[name+"/keys"] = e.elems[3].render() + " " + e.elems[4].render() + " " + e.elems[5].render()
		var flags []string
		for _, f := range e.elems[2].elems {
			s, _ := f.text()
			flags = append(flags, s)
		}
		sort.Strings(flags)
		items[name+"/flags"] = strings.Join(flags, " ")
	}
	return items
}
