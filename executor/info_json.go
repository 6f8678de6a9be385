package executor

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// infoNumber is an INFO value written as text in a form of its own
// (used_cpu_sys's six decimals) that INFO's JSON shows as a number.
type infoNumber string

// isNumber reports whether an INFO value is a number in INFO's JSON:
// Go's numbers and infoNumber; strings, even of digits (git_sha1), stay
// strings.
func isNumber(v any) bool {
	if _, ok := v.(infoNumber); ok {
		return true
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// JSON renders the sections as INFO ... FORMAT JSON does (Kvrocks 2.17,
// KVROCKS-TYPES.md §8): one object keyed by section title, each an object
// of its fields in INFO's order, numbers unquoted and the rest as
// strings.
func (b *infoBuilder) JSON() string {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	str := func(s string) {
		enc.Encode(s)
		out.Truncate(out.Len() - 1) // Encode's newline
	}
	out.WriteByte('{')
	i := 0
	for si, sec := range b.sections {
		if si > 0 {
			out.WriteByte(',')
		}
		str(sec.title)
		out.WriteString(":{")
		for fi := 0; i < len(b.fields) && b.fields[i].Section == sec.name; fi, i = fi+1, i+1 {
			f := b.fields[i]
			if fi > 0 {
				out.WriteByte(',')
			}
			str(f.Key)
			out.WriteByte(':')
			if f.number {
				out.WriteString(f.Value)
			} else {
				str(trimBlank(f.Value))
			}
		}
		out.WriteByte('}')
	}
	out.WriteByte('}')
	return out.String()
}

// trimBlank drops the blank Kvrocks writes after some fields' colon
// (used_percent: 1%).
func trimBlank(s string) string {
	if len(s) > 0 && s[0] == ' ' {
		return s[1:]
	}
	return s
}
