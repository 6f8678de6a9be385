package it

import (
	"encoding/binary"
	"fmt"
	"hash/crc64"
	"strconv"
	"strings"
	"testing"
)

// TestDumpDiff runs testdata/dump_diff.txt on redis-server 7.0 (with
// rdbcompression no: Redis's LZF output depends on uninitialised memory,
// so only uncompressed payloads can be compared) and on Basalt, in RESP2
// and RESP3, and requires the same bytes for every reply: DUMP payloads,
// RESTORE replies and what the restored keys hold. The file's syntax, on
// top of readCases's:
//
//	!repeat N CMD args     the command N times, {i} in an argument replaced
//	                       by 0 ... N-1 and {i5} by the same on 5 digits
//	CMD args -> name       remember the reply (a DUMP payload) as name
//	$name                  an argument: the payload remembered as name;
//	                       $name!crc with its last byte changed, $name!v13
//	                       with RDB version 13, $name!cut without the
//	                       value's last byte and $name!junk with a byte
//	                       after the value (both with a right checksum)
//	rdb:<bytes>            an argument: a payload of these bytes (type
//	                       and value) with version 10 and their checksum
//	@N*text                an argument: text N times
func TestDumpDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t, "--rdbcompression", "no")
	cases := readCases(t, "testdata/dump_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			payloads := map[string]string{}
			kinds, dumps := map[byte]int{}, 0
			for _, args := range cases {
				if args[0] == "!repeat" {
					n, err := strconv.Atoi(args[1])
					must(t, err)
					for i := range n {
						p.same(expandIndex(args[2:], i)...)
					}
					continue
				}
				var name string
				if len(args) > 2 && args[len(args)-2] == "->" {
					name, args = args[len(args)-1], args[:len(args)-2]
				}
				args = dumpArgs(t, args, payloads)
				reply := p.same(args...)
				kinds[reply[0]]++
				if strings.EqualFold(args[0], "dump") && reply[0] == '$' {
					dumps++
				}
				if name != "" {
					payloads[name] = bulkBody(t, reply)
				}
			}
			if dumps < 40 || kinds['-'] < 20 {
				t.Fatalf("the cases should reach payloads and errors: %d dumps, %v", dumps, kinds)
			}
			t.Logf("%d lines, same replies: %d payloads, %d errors, %d other bulks, %d integers, %d arrays, %d OK",
				len(cases), dumps, kinds['-'], kinds['$']-dumps, kinds[':'], kinds['*'], kinds['+'])
		})
	}
}

// expandIndex replaces {i} and {i5} in args by i.
func expandIndex(args []string, i int) []string {
	out := make([]string, len(args))
	for j, a := range args {
		a = strings.ReplaceAll(a, "{i5}", fmt.Sprintf("%05d", i))
		out[j] = strings.ReplaceAll(a, "{i}", strconv.Itoa(i))
	}
	return out
}

// dumpArgs expands the $name, rdb: and @N* arguments.
func dumpArgs(t *testing.T, args []string, payloads map[string]string) []string {
	t.Helper()
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "$") && len(a) > 1:
			name, variant, _ := strings.Cut(a[1:], "!")
			p, ok := payloads[name]
			if !ok {
				t.Fatalf("no payload %q", name)
			}
			out[i] = payloadVariant(t, p, variant)
		case strings.HasPrefix(a, "rdb:"):
			out[i] = withFooter(a[len("rdb:"):], 10)
		case strings.HasPrefix(a, "@") && strings.Contains(a, "*"):
			n, text, _ := strings.Cut(a[1:], "*")
			count, err := strconv.Atoi(n)
			must(t, err)
			out[i] = strings.Repeat(text, count)
		default:
			out[i] = a
		}
	}
	return out
}

// payloadVariant returns the payload p, or one of its damaged variants.
func payloadVariant(t *testing.T, p, variant string) string {
	t.Helper()
	value := p[:len(p)-10]
	switch variant {
	case "":
		return p
	case "crc":
		return p[:len(p)-1] + string(p[len(p)-1]^0xff)
	case "v13":
		return withFooter(value, 13)
	case "cut":
		return withFooter(value[:len(value)-1], 10)
	case "junk":
		return withFooter(value+"x", 10)
	}
	t.Fatalf("unknown payload variant %q", variant)
	return ""
}

// redisCRC is Redis's crc64 (Jones, reflected, no inversions), written
// here apart from Basalt's rdb package so that the test checks it.
var redisCRC = crc64.MakeTable(0x95ac9329ac4bc9b5)

// withFooter appends an RDB version and the checksum.
func withFooter(value string, version uint16) string {
	b := binary.LittleEndian.AppendUint16([]byte(value), version)
	return string(binary.LittleEndian.AppendUint64(b, ^crc64.Update(^uint64(0), redisCRC, b)))
}

// bulkBody returns the bytes of a raw bulk-string reply.
func bulkBody(t *testing.T, reply string) string {
	t.Helper()
	if reply[0] != '$' {
		t.Fatalf("not a bulk string: %q", reply)
	}
	_, body, _ := strings.Cut(reply, "\r\n")
	return strings.TrimSuffix(body, "\r\n")
}
