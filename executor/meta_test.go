package executor

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The file decodes with nothing left over: the generator and Meta agree.
func TestRedisCommandsJSONDecodes(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(redisCommandsJSON))
	dec.DisallowUnknownFields()
	var file struct {
		Redis    string  `json:"redis"`
		Commands []*Meta `json:"commands"`
	}
	if err := dec.Decode(&file); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(file.Redis, "7.0.") || len(file.Commands) < 200 {
		t.Fatalf("redis %s, %d commands", file.Redis, len(file.Commands))
	}
	var walk func(m *Meta)
	walk = func(m *Meta) {
		if len(m.Doc) == 0 || m.Doc[0] != "%" {
			t.Errorf("%s: docs are not a map", m.Name)
		}
		for _, s := range m.Subcommands {
			walk(s)
		}
	}
	for _, m := range DecodeRedisMeta() {
		walk(m)
	}
}
